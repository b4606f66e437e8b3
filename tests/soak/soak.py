#!/usr/bin/python3
"""make soak: `patchyard run` for SOAK_SECONDS (600 by default) against an
SMTP sink (tests/integration/smtpd.py) and a public-inbox v2 archive that
grows every couple of seconds by a new series, a maintainer's `#yard
stage` reply to the series before it and `#yard drop` replies to the
patches of the series staged eight before, so the queue changes (and
keeps its length: the work of a rebuild does not grow with time) and
the staging branches are rebuilt every few seconds and acknowledgments
go out.  Prints the daemon's RSS and open descriptors at the end of the
first minute and at the end; they must be within 10%.  Then, quiet
again: every mail of the archive is in the database, every staged patch
is on the unstable branch, and every acknowledgment reached the sink."""
import os, signal, sqlite3, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'integration'))
from yardlib import *

SECONDS = int(os.environ.get('SOAK_SECONDS', '600'))
QUEUE = 8
MIA = ('Mia Maintainer', 'mia@maint.example.org')
ADA = ('Ada Author', 'ada@example.org')


def fds(pid):
    out = []
    for f in os.listdir('/proc/%d/fd' % pid):
        try:
            out.append(os.readlink('/proc/%d/fd/%s' % (pid, f)))
        except OSError:
            pass
    return sorted(out)


def sample(pid):
    """RSS (KB) and open descriptors, the least of five looks over two
    seconds: a connection or a pack open for a moment is not growth."""
    looks = []
    for _ in range(5):
        rss = 0
        with open('/proc/%d/status' % pid) as f:
            for l in f:
                if l.startswith('VmRSS:'):
                    rss = int(l.split()[1])
        looks.append((rss, len(os.listdir('/proc/%d/fd' % pid))))
        time.sleep(0.5)
    return min(l[0] for l in looks), min(l[1] for l in looks)


def archive_add(g, raws):
    if not os.path.isdir(g):
        sh(['git', 'init', '-q', '--bare', '-b', 'master', g])
    head = sh(['git', '-C', g, 'rev-parse', '-q', '--verify', 'refs/heads/master'],
              check_rc=False).stdout.decode().strip()
    out = []
    for i, raw in enumerate(raws):
        out.append(b'commit refs/heads/master\ncommitter a <a@b> 1700000000 +0000\ndata 4\nmail\n')
        if i == 0 and head:
            out.append(b'from %s\n' % head.encode())
        out.append(b'M 100644 inline m\ndata %d\n%s\n' % (len(raw), raw))
    sh(['git', '-C', g, 'fast-import', '--quiet', '--force'], inp=b''.join(out))


def db_count(db, sql, *args):
    c = sqlite3.connect(db, timeout=30)
    n = c.execute(sql, args).fetchone()[0]
    c.close()
    return n


def main():
    tmp = tempfile.mkdtemp(prefix='yard-soak.')
    smtpd = Smtpd(tmp).start()
    repo = Repo(os.path.join(tmp, 'up'))
    g = os.path.join(tmp, 'inbox', 'git', '0.git')
    os.makedirs(os.path.dirname(g))
    archive_add(g, [b'From: a <a@example.org>\nSubject: hello\nMessage-ID: <hello@example.org>\n\nhi\n'])
    y = Yard(tmp, '''	upstream = %s
	branch = master
	staging = %s/staging.git
[source "archive"]
	public-inbox = %s/inbox
	project = demo
	interval = 1
[run]
	rebuild-delay = 1
	send-interval = 1
[bot]
	address = yard@bot.example.org
[maintainer "mia"]
	email = mia@maint.example.org
[auth]
	require = none
[smtp]
	url = smtp://127.0.0.1:%d
	starttls = never
''' % (repo.path, tmp, tmp, smtpd.port))
    db = os.path.join(tmp, 'yard.db')
    log = open(os.path.join(tmp, 'run.log'), 'wb')
    d = subprocess.Popen([YARD, '-c', y.conf, 'run'], stdout=log, stderr=log)
    ids, staged, k = ['hello@example.org'], [], 0
    t0 = time.monotonic()
    first = None
    prev_cover = None
    while time.monotonic() - t0 < SECONDS:
        k += 1
        n = 1 + k % 3
        edits = [('soak/f%d_%d.c' % (k, i), (lambda v: lambda s: 'int v%s;\n' % v)('%d_%d' % (k, i)),
                  'soak: add f%d_%d' % (k, i)) for i in range(n)]
        mails = repo.series(edits, ADA, 'b%d' % k, msgid='s%d' % k, cover=n > 1,
                            title='soak: series %d' % k)
        raws = [m.encode() for m in mails]
        if prev_cover is not None:
            cmd = reply(prev_cover[0], MIA, '#yard stage series\n')
            raws.append(cmd.encode())
            ids.append(msgid(cmd))
            staged.append(prev_cover)
        # The queue stays about QUEUE series long: the oldest is dropped
        # (each patch), so the work of a rebuild does not grow with time.
        if len(staged) > QUEUE:
            old = staged.pop(0)
            for m in old[2]:
                cmd = reply(m, MIA, '#yard drop obsolete\n')
                raws.append(cmd.encode())
                ids.append(msgid(cmd))
        archive_add(g, raws)
        ids += [msgid(m) for m in mails]
        prev_cover = (mails[0], n, mails[1:] if n > 1 else mails)
        if first is None and time.monotonic() - t0 >= 60:
            first = sample(d.pid)
            first_fds = fds(d.pid)
            print('soak: after the first minute: RSS %d KB, %d open fds' % first, flush=True)
        time.sleep(2)
        if d.poll() is not None:
            break
    end = sample(d.pid) if d.poll() is None else (0, 0)
    if first is None:
        first, first_fds = end, fds(d.pid)
    end_fds = fds(d.pid) if d.poll() is None else []
    if end_fds != first_fds:
        print('soak: descriptors then %s, now %s' % (first_fds, end_fds))
    print('soak: after %d s: RSS %d KB, %d open fds' % (SECONDS, end[0], end[1]), flush=True)
    # Quiet: let the daemon finish what it has.
    for _ in range(120):
        waiting = db_count(db, "SELECT count(*) FROM outbox WHERE state != 'sent'")
        have = db_count(db, 'SELECT count(*) FROM message')
        if waiting == 0 and have >= len(ids):
            break
        time.sleep(1)
    alive = d.poll() is None
    d.send_signal(signal.SIGTERM)
    d.wait()
    smtpd.stop()
    check('the daemon ran the whole time', alive)
    check('RSS at the end within 10%% of the first minute\'s (%d KB, %d KB)' % (first[0], end[0]),
          end[0] <= first[0] * 1.10, (first, end))
    check('open fds at the end within 10%% of the first minute\'s (%d, %d)' % (first[1], end[1]),
          end[1] <= first[1] * 1.10, (first, end))
    c = sqlite3.connect(db)
    have = {r[0] for r in c.execute('SELECT msgid FROM message')}
    lost = [i for i in ids if i not in have]
    check('every one of the %d mails of the archive is in the database' % len(ids), not lost, lost[:5])
    sent = c.execute("SELECT count(*) FROM outbox WHERE state = 'sent'").fetchone()[0]
    unsent = c.execute("SELECT count(*) FROM outbox WHERE state != 'sent'").fetchone()[0]
    c.close()
    got = len(smtpd.mails())
    check('every acknowledgment reached the sink (%d sent, %d in the sink)' % (sent, got),
          unsent == 0 and sent == got and sent > 0, (sent, unsent, got))
    base = sh(['git', '-C', repo.path, 'rev-parse', 'master']).stdout.decode().strip()
    on = int(sh(['git', '-C', os.path.join(tmp, 'staging.git'), 'rev-list', '--count',
                 base + '..unstable'], check_rc=False).stdout.decode().strip() or 0)
    staged_patches = sum(x[1] for x in staged)
    check('every patch staged and not dropped is on the unstable branch (%d of %d)'
          % (on, staged_patches), on == staged_patches, (on, staged_patches))
    print('soak: %d series, %d mails, %d acknowledgments in %d s; %d patches staged at the end'
          % (k, len(ids), sent, SECONDS, staged_patches))
    if not failures:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print('soak: kept %s' % tmp)
    done()


main()
