#!/usr/bin/python3
"""Crash safety and a bounded staging repository (issue 23).

- `patchyard import` killed with SIGKILL at 20 random moments (random
  fractions of a measured clean import) and resumed each time ends with
  the same database as an uninterrupted import: a canonical dump of every
  table, ids included, leaving out only the columns stamped with the wall
  clock.  The mbox is the util-linux corpus (../shared/corpus) with
  CRASH_LONG=1 when it is there, else a generated one.
- The same mails as a public-inbox v2 archive (one commit a mail, gc'd,
  so that it has a commit-graph and delta chains) import to the same
  database as the mbox, but for the position; killed 10 times and
  resumed, the same again.
- `patchyard rebuild` killed mid-build: the next rebuild gives the same
  branches as an uninterrupted one, and no acknowledgment twice.
- 100 rebuilds with `patchyard gc` every ten: the staging repository's
  size stays bounded, and gc keeps every branch and passes git fsck.
The random moments come from a fixed seed; the timing they meet does not,
so the count of kills that hit a running process is printed, not
asserted beyond one."""
import gzip, os, random, signal, sqlite3, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *

ADA = ('Ada Author', 'ada@example.org')
RITA = ('Rita Reviewer', 'rita@example.org')
LONG = os.environ.get('CRASH_LONG') == '1'
CORPUS = os.path.join(os.environ.get('TOP', os.path.join(HERE, '..', '..')),
                      '..', 'shared', 'corpus', 'util-linux.mboxrd.gz')

# Columns the wall clock stamps: the only ones a resumed run may differ in.
CLOCK = {('event', 'time'), ('outbox', 'created'), ('outbox', 'next_attempt'),
         ('outbox', 'sent_at'), ('patch', 'queued_at'), ('checks', 'time'),
         ('checks', 'duration'), ('forward', 'time'), ('source_state', 'error_time'),
         ('source_state', 'checked'), ('test_request', 'time'), ('test_run', 'queued'),
         ('test_run', 'started'), ('test_run', 'finished'), ('test_run', 'duration'),
         ('tree', 'since'), ('run_mark', 'time')}


def dump(db):
    """Every table, every row in rowid order (or by all columns for
    tables without one), minus the wall-clock columns."""
    c = sqlite3.connect(db)
    out = []
    for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type='table' "
                          "AND name NOT LIKE 'sqlite_%' ORDER BY name"):
        cols = [r[1] for r in c.execute('PRAGMA table_info("%s")' % t)
                if (t, r[1]) not in CLOCK]
        sel = ', '.join('"%s"' % x for x in cols)
        order = ', '.join(str(i + 1) for i in range(len(cols)))
        out.append('== %s (%s)' % (t, sel))
        for row in c.execute('SELECT %s FROM "%s" ORDER BY %s' % (sel, t, order)):
            out.append(repr(row))
    c.close()
    return out


def generated_mbox(path, n_series):
    """Series of patches with replies and trailers, threads a few deep."""
    rnd = random.Random(23)
    with open(path, 'w') as f:
        k = 0
        for s in range(n_series):
            n = rnd.randint(1, 6)
            root = 's%d@gen.example.org' % s
            mails = []
            for i in range(0 if n > 1 else 1, n + 1):
                mid = root if i == 0 or (n == 1) else 's%d.%d@gen.example.org' % (s, i)
                subj = '[PATCH %d/%d] area%d: change %d' % (i, n, s % 7, i) if n > 1 else '[PATCH] area: fix %d' % s
                body = ('Change %d of series %d.\n\nSigned-off-by: Ada Author <ada@example.org>\n---\n'
                        ' f%d.c | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\n'
                        'diff --git a/f%d.c b/f%d.c\nindex 1111111..2222222 100644\n--- a/f%d.c\n+++ b/f%d.c\n'
                        '@@ -1,3 +1,3 @@\n a\n-b%d\n+c%d\n d\n' % (i, s, i, i, i, i, i, s, s)) if i else 'A cover letter.\n'
                if i == 0:
                    subj = '[PATCH 0/%d] area%d: a series' % (n, s % 7)
                mails.append((mid, root if i and n > 1 else None, subj, body))
            for j in range(rnd.randint(0, 4)):
                parent = rnd.choice(mails)
                mails.append(('r%d.%d@gen.example.org' % (s, j), parent[0], 'Re: ' + parent[2],
                              '> quoted\n\nReviewed-by: Rita Reviewer <rita@example.org>\n'))
            for mid, parent, subj, body in mails:
                k += 1
                f.write('From ada@example.org Mon Nov  2 10:00:00 2026\n')
                f.write('From: Ada Author <ada@example.org>\nTo: demo@lists.example.org\n')
                f.write('Subject: %s\nMessage-ID: <%s>\n' % (subj, mid))
                if parent:
                    f.write('In-Reply-To: <%s>\nReferences: <%s>\n' % (parent, parent))
                f.write('Date: Mon, 2 Nov 2026 %02d:%02d:%02d +0000\n\n%s\n' % (
                    (k // 3600) % 24, (k // 60) % 60, k % 60, body))
    return k


def kill_at(cmd, delay):
    """Run cmd, SIGKILL it after delay seconds; whether it was still running."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        p.wait(timeout=delay)
        return False
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGKILL)
        p.wait()
        return True


def first_diffs(a, b):
    """Where two dumps differ (the first three), or their lengths."""
    return [(x, y) for x, y in zip(a, b) if x != y][:3] or (len(a), len(b))


def killed_and_resumed(y, src, ms, kills, seed):
    """Import src into y killed at kills random moments of a clean
    import's ms, then to its end: how many kills hit a running import,
    and the last run."""
    rnd = random.Random(seed)
    hits = 0
    for _ in range(kills):
        hits += kill_at([YARD, '-c', y.conf, 'import', '--project', 'demo', src],
                        ms * rnd.random())
    return hits, y.run('import', '--project', 'demo', src, check_rc=False)


def import_killed(tmp):
    mbox = os.path.join(tmp, 'list.mbox')
    if LONG and os.path.exists(CORPUS):
        with gzip.open(CORPUS) as src, open(mbox, 'wb') as dst:
            dst.write(src.read())
        what = 'the util-linux corpus'
    else:
        n = generated_mbox(mbox, 1200 if LONG else 500)
        what = 'a generated mbox of %d mails' % n
    clean = Yard(os.path.join(tmp, 'clean') if os.makedirs(os.path.join(tmp, 'clean')) is None else '', '')
    t0 = time.monotonic()
    clean.run('import', '--project', 'demo', mbox)
    ms = time.monotonic() - t0
    killed = Yard(os.path.join(tmp, 'killed') if os.makedirs(os.path.join(tmp, 'killed')) is None else '', '')
    hits, r = killed_and_resumed(killed, mbox, ms, 20, 2023)
    check('the resumed import finishes', r.returncode == 0, r.stderr)
    a, b = dump(os.path.join(clean.tmp, 'yard.db')), dump(os.path.join(killed.tmp, 'yard.db'))
    check('import of %s killed %d times (of 20) mid-run and resumed: every table equals a clean '
          'import\'s (%d rows compared)' % (what, hits, len(a)), a == b, first_diffs(a, b))
    check('at least one kill hit a running import', hits >= 1, hits)
    print('import: %.0f ms clean; %d of 20 kills hit a running import' % (ms * 1000, hits))
    import_pubinbox(tmp, mbox, os.path.join(clean.tmp, 'yard.db'))


def mbox_mails(mbox):
    """The raw mails of an mboxrd, unescaped."""
    cur = None
    for l in open(mbox, 'rb'):
        if l.startswith(b'From '):
            if cur is not None:
                yield b''.join(cur)
            cur = []
            continue
        if l.startswith(b'>') and l.lstrip(b'>').startswith(b'From '):
            l = l[1:]
        cur.append(l)
    if cur is not None:
        yield b''.join(cur)


def make_inbox(mbox, path):
    """A public-inbox v2 archive of the mbox's mails: epoch 0, a commit a
    mail holding it as the blob m, packed and with a commit-graph as git
    gc leaves an epoch."""
    g = os.path.join(path, 'git', '0.git')
    sh(['git', 'init', '-q', '--bare', '-b', 'master', g])
    fi = subprocess.Popen(['git', '-C', g, 'fast-import', '--quiet'], stdin=subprocess.PIPE)
    for i, raw in enumerate(mbox_mails(mbox)):
        fi.stdin.write(b'commit refs/heads/master\ncommitter a <a@b> %d +0000\ndata 0\n'
                       b'M 100644 inline m\ndata %d\n%s\n' % (1700000000 + i, len(raw), raw))
    fi.stdin.close()
    check('git fast-import makes the archive', fi.wait() == 0)
    sh(['git', '-C', g, 'gc', '-q'])
    check('the archive has a commit-graph',
          os.path.exists(os.path.join(g, 'objects', 'info', 'commit-graph')))


def without_positions(rows):
    """A dump without import_pos's rows: an archive's positions are
    commits, an mbox's offsets."""
    out, skip = [], False
    for r in rows:
        if r.startswith('== '):
            skip = r.startswith('== import_pos ')
        elif skip:
            continue
        out.append(r)
    return out


def import_pubinbox(tmp, mbox, ref):
    """The mbox's mails from a public-inbox archive: the database equals
    the mbox import's (ref), then again after kills and a resume."""
    inbox = os.path.join(tmp, 'inbox')
    make_inbox(mbox, inbox)
    os.makedirs(os.path.join(tmp, 'pi'))
    y = Yard(os.path.join(tmp, 'pi'), '')
    t0 = time.monotonic()
    r = y.run('import', '--project', 'demo', inbox, check_rc=False)
    ms = time.monotonic() - t0
    check('the archive imports', r.returncode == 0, r.stderr)
    a = without_positions(dump(os.path.join(y.tmp, 'yard.db')))
    b = without_positions(dump(ref))
    check('the archive imports to the database the mbox does (%d rows compared)' % len(a),
          a == b, first_diffs(a, b))
    os.makedirs(os.path.join(tmp, 'pikilled'))
    k = Yard(os.path.join(tmp, 'pikilled'), '')
    hits, r = killed_and_resumed(k, inbox, ms, 10, 2024)
    check('the resumed archive import finishes', r.returncode == 0, r.stderr)
    a, b = dump(os.path.join(y.tmp, 'yard.db')), dump(os.path.join(k.tmp, 'yard.db'))
    check('archive import killed %d times (of 10) and resumed: every table equals a clean '
          'import\'s' % hits, a == b, first_diffs(a, b))
    print('import of the archive: %.0f ms clean; %d of 10 kills hit a running import'
          % (ms * 1000, hits))


def staged_yard(tmp, name, repo, n_patches=6):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    y = Yard(d, '''	upstream = %s
	branch = master
	staging = %s/staging.git
[bot]
	address = yard@bot.example.org
[maintainer "mia"]
	email = mia@maint.example.org
[auth]
	require = none
''' % (repo.path, d))
    y.run('upstream')
    return y


def make_series(repo, n):
    edits = []
    for i in range(n):
        f = 'src/a.c' if i % 2 == 0 else 'src/b.c'
        pre = 'a' if i % 2 == 0 else 'b'
        edits.append((f, (lambda p, k: lambda s: s.replace('%s %d\n' % (p, k), '%s %d changed\n' % (p, k)))(pre, 5 + 7 * i),
                      '%s: change line %d' % (pre, 5 + 7 * i)))
    return repo.series(edits, ADA, 'one', msgid='one')


def branches(y):
    st = os.path.join(y.tmp, 'staging.git')
    return {b: sh(['git', '-C', st, 'log', '--format=%T %an %s', b]).stdout.decode()
            for b in ('stable', 'unstable')}


def outbox_kinds(y):
    c = sqlite3.connect(os.path.join(y.tmp, 'yard.db'))
    rows = sorted(c.execute('SELECT kind, patch_id, contribution_id FROM outbox'))
    c.close()
    return rows


def rebuild_killed(tmp, repo, mails):
    ys = []
    for name in ('rclean', 'rkilled'):
        y = staged_yard(tmp, name, repo)
        for m in mails:
            y.ingest(m)
        y.ingest(reply(mails[1], RITA, 'Nice.\n\nReviewed-by: Rita Reviewer <rita@example.org>'))
        y.run('stage', msgid(mails[0]), '--series')
        ys.append(y)
    clean, killed = ys
    t0 = time.monotonic()
    clean.run('rebuild')
    ms = time.monotonic() - t0
    rnd = random.Random(7)
    hits = 0
    for _ in range(20):
        hits += kill_at([YARD, '-c', killed.conf, 'rebuild'], ms * rnd.random())
    r = killed.run('rebuild', check_rc=False)
    check('the rebuild after 20 kills succeeds', r.returncode == 0, r.stderr)
    check('killed rebuilds end with the same branches (trees, authors, subjects)',
          branches(clean) == branches(killed), (branches(clean), branches(killed)))
    check('no acknowledgment twice after the kills', outbox_kinds(clean) == outbox_kinds(killed),
          (outbox_kinds(clean), outbox_kinds(killed)))
    st = os.path.join(killed.tmp, 'staging.git')
    r = sh(['git', '-C', st, 'fsck', '--no-dangling'], check_rc=False)
    check('the killed staging repository passes git fsck', r.returncode == 0, r.stderr)
    print('rebuild: %.0f ms clean; %d of 20 kills hit a running rebuild' % (ms * 1000, hits))


def objects_size(st):
    total = 0
    for root, _, files in os.walk(os.path.join(st, 'objects')):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def gc_bounded(tmp, repo, mails):
    y = staged_yard(tmp, 'gc', repo)
    for m in mails:
        y.ingest(m)
    y.run('stage', msgid(mails[0]), '--series')
    st = os.path.join(y.tmp, 'staging.git')
    sizes, before_gc = [], []
    for i in range(100):
        # Each round changes the queue, so each rebuild writes commits.
        # Each round the queue changes and upstream moves (as a tree
        # that every update rewrites), so each rebuild writes new commits
        # and leaves the last round's as garbage.
        if i % 2 == 0:
            y.run('state', msgid(mails[2]), 'changes-requested')
        else:
            y.run('stage', msgid(mails[2]))
        a, b = 'x %d\n' % (i % 20), 'x %d up\n' % (i % 20)
        repo.write('doc/x.txt', repo.read('doc/x.txt').replace(
            *((b, a) if i % 40 >= 20 else (a, b))))
        repo.commit('doc: round %d' % i, ('Up Stream', 'up@example.org'))
        y.run('upstream')
        y.run('rebuild')
        if i % 10 == 9:
            before_gc.append(objects_size(st))
            heads = branches(y)
            r = y.run('gc', check_rc=False)
            check('gc %d succeeds' % (i // 10 + 1), r.returncode == 0, r.stderr)
            sizes.append(objects_size(st))
            if i == 9:
                check('gc keeps every branch', branches(y) == heads)
                packs = [f for f in os.listdir(os.path.join(st, 'objects', 'pack')) if f.endswith('.pack')]
                loose = [d for d in os.listdir(os.path.join(st, 'objects')) if len(d) == 2]
                check('gc leaves one pack and no loose objects', len(packs) == 1 and not loose, (packs, loose))
    r = sh(['git', '-C', st, 'fsck', '--no-dangling'], check_rc=False)
    check('after 100 rebuilds and 10 gcs the repository passes git fsck', r.returncode == 0, r.stderr)
    reach = len(sh(['git', '-C', st, 'rev-list', '--objects', '--all']).stdout.split(b'\n')) - 1
    vp = sh(['git', '-C', st, 'verify-pack', '-v'] +
            [os.path.join(st, 'objects', 'pack', f) for f in os.listdir(os.path.join(st, 'objects', 'pack'))
             if f.endswith('.idx')]).stdout.decode()
    packed = len([l for l in vp.split('\n') if len(l) > 40 and l[40:41] == ' '])
    check('gc keeps exactly what the refs reach (%d objects), no garbage' % reach, packed == reach,
          (packed, reach))
    check('the staging repository stays bounded over 100 rebuilds (%d bytes after the first gc, '
          '%d after the last; %d before it)' % (sizes[0], sizes[-1], before_gc[-1]),
          sizes[-1] < before_gc[-1] and sizes[-1] <= sizes[0] * 4, sizes)
    print('gc: sizes after each gc %s; before each %s' % (sizes, before_gc))


def main():
    tmp = tempfile.mkdtemp(prefix='yard-crash.')
    try:
        import_killed(tmp)
        repo = Repo(os.path.join(tmp, 'up'))
        mails = make_series(repo, 6)
        rebuild_killed(tmp, repo, mails)
        gc_bounded(tmp, repo, mails)
    finally:
        if os.environ.get('CRASH_KEEP') != '1':
            shutil.rmtree(tmp, ignore_errors=True)
    done()


main()
