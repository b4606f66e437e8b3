#!/usr/bin/python3
"""Forwarding the stable queue upstream (issue 22) with real git
repositories and a real SMTP server on loopback: a series (cover letter,
numbered patches threaded to it, the list and forward-cc in Cc) that git
am applies in order on the upstream base with trailers and Link: intact;
a dry run that sends nothing; a second forward that sends nothing; the
list's copy coming back as bot mail; #yard forward by mail; upstream
taking the patches (merged, the stable queue empty, the ack saying it
was forwarded); a later batch with only the new patch; and pull mode,
whose range, shortlog and diffstat are git request-pull's own."""
import email, json, os, sqlite3, sys, tempfile, shutil
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *

ADA = ('Ada Author', 'ada@example.org')
BOB = ('Bob Builder', 'bob@example.org')
REY = ('Rey Viewer', 'rey@example.net')
MIA = ('Mia Maint', 'mia@maint.example.org')
EVE = ('Eve Evil', 'eve@evil.example.net')
UP = ('Up Stream', 'up@example.org')


def git(path, *args, inp=None, check_rc=True):
    return sh(['git', '-C', path] + list(args), inp=inp, check_rc=check_rc)


def conf(tmp, repo, smtp, mode, push=True):
    return '''	archive = https://lists.example.org/demo/%%s/
	upstream = %s
	branch = master
	staging = %s/staging.git
%s	forward = %s
	forward-to = upstream@example.org
	forward-cc = cc-one@example.org
[bot]
	address = yard@bot.example.org
[maintainer "mia"]
	email = mia@maint.example.org
[promote]
	min-days = 0
	min-reviews = 1
[auth]
	require = none
[smtp]
	url = smtp://127.0.0.1:%d
	starttls = never
''' % (repo.path, tmp, '\tpush = %s/remote.git\n' % tmp if push else '', mode, smtp.port)


def forwarded(smtp, seen):
    """Mails to upstream@example.org not seen before, one per Message-ID."""
    out = []
    for raw in smtp.mails():
        m = email.message_from_string(raw)
        if 'upstream@example.org' not in (m.get('X-Smtpd-Rcpt-To') or ''):
            continue
        if m['Message-ID'] in seen:
            continue
        seen.add(m['Message-ID'])
        out.append((m, raw))
    return out


def post(repo, y, edits, who, branch, ident, cover=False):
    mails = repo.series(edits, who, branch, cover=cover, msgid=ident, title='demo: ' + ident)
    for m in mails:
        y.ingest(m)
    return mails


def series_mode(tmp):
    smtp = Smtpd(tmp, port=free_port()).start()
    try:
        repo = Repo(os.path.join(tmp, 'up'))
        sh(['git', 'init', '-q', '--bare', os.path.join(tmp, 'remote.git')])
        y = Yard(tmp, conf(tmp, repo, smtp, 'series'))
        y.run('upstream')
        base = repo.git('rev-parse', 'master').strip()
        cover, p1, p2 = post(repo, y, [
            ('src/a.c', lambda s: s.replace('a 5\n', 'a five\n'), 'a: spell five'),
            ('src/a.c', lambda s: s.replace('a 6\n', 'a six\n'), 'a: spell six')], ADA, 's1', 'one', cover=True)
        q1, = post(repo, y, [('src/b.c', lambda s: s.replace('b 7\n', 'b seven\n'), 'b: spell seven')],
                   BOB, 's2', 'two')
        for m in (cover, q1):
            y.ingest(reply(m, REY, 'Reviewed-by: %s <%s>' % REY))
        y.run('stage', msgid(cover), '--series')
        y.run('stage', msgid(q1))
        y.run('graduate', '--auto')
        check('three patches in stable', all(p['queue'] == 'stable' for p in y.show(msgid(cover))['patches'])
              and y.show(msgid(q1))['patches'][0]['queue'] == 'stable')
        seen = set()

        r = y.run('forward', '--dry-run', check_rc=False)
        check('dry run names what would go', r.returncode == 0 and b'would send' in r.stdout
              and b'[PATCH 3/3]' in r.stdout, r.stdout + r.stderr)
        y.run('send', '--now')
        check('a dry run sends nothing', not forwarded(smtp, seen))

        r = y.run('forward', check_rc=False)
        check('forward', r.returncode == 0 and b'queued' in r.stdout, r.stdout + r.stderr)
        y.run('send', '--now')
        got = forwarded(smtp, seen)
        subjects = sorted(str(m['Subject']) for m, _ in got)
        check('a cover letter and three patches', subjects == [
            '[PATCH 0/3] demo: the stable queue', '[PATCH 1/3] a: spell five',
            '[PATCH 2/3] a: spell six', '[PATCH 3/3] b: spell seven'], subjects)
        byn = {str(m['Subject']).split('/')[0][-1]: (m, raw) for m, raw in got}
        cov = byn.get('0', (None, ''))[0]
        check('threaded like git send-email', cov is not None and all(
            m['In-Reply-To'] == cov['Message-ID'] and m['References'] == cov['Message-ID']
            for k, (m, _) in byn.items() if k != '0'), [(m['Subject'], m['In-Reply-To']) for m, _ in got])
        check('X-Patchyard-Event: forwarded, To upstream, Cc the list and forward-cc',
              all(m['X-Patchyard-Event'] == 'forwarded' and m['To'].strip() == 'upstream@example.org'
                  and 'demo@lists.example.org' in m['Cc'] and 'cc-one@example.org' in m['Cc'] for m, _ in got),
              [(m['To'], m['Cc']) for m, _ in got])
        check('each patch Cc its author', 'ada@example.org' in (byn.get('1', ({},))[0].get('Cc') or '')
              and 'bob@example.org' in (byn.get('3', ({},))[0].get('Cc') or ''))
        cbody = cov.get_payload(decode=True).decode() if cov else ''
        check('the cover letter: shortlog, diffstat, base-commit',
              'Ada Author (2):\n  a: spell five\n  a: spell six\n\nBob Builder (1):\n  b: spell seven\n' in cbody
              and ' 2 files changed, 3 insertions(+), 3 deletions(-)' in cbody
              and 'base-commit: ' + base in cbody, cbody)
        # git am applies the series in order on the upstream base.
        mbox = ''.join('From x Mon Sep 17 00:00:00 2001\n' + byn[k][1] + '\n' for k in ('1', '2', '3'))
        trial = os.path.join(tmp, 'trial')
        sh(['git', 'clone', '-q', repo.path, trial])
        am = git(trial, '-c', 'user.name=t', '-c', 'user.email=t@e', 'am', '-q', inp=mbox.encode(), check_rc=False)
        check('git am applies the series', am.returncode == 0, am.stderr)
        log = git(trial, 'log', '--reverse', '--format=%an|%s|%B%x00', base + '..HEAD').stdout.decode()
        entries = [e.strip() for e in log.split('\0') if e.strip()]
        check('in order, with their authors', [e.split('|')[:2] for e in entries] ==
              [['Ada Author', 'a: spell five'], ['Ada Author', 'a: spell six'], ['Bob Builder', 'b: spell seven']],
              entries)
        check('trailers and Link: intact', all('Reviewed-by: Rey Viewer <rey@example.net>' in e and
                                              'Link: https://lists.example.org/demo/' in e for e in entries), entries)
        check('the same trees as the stable branch',
              git(trial, 'rev-parse', 'HEAD^{tree}').stdout == git(os.path.join(tmp, 'staging.git'), 'rev-parse',
                                                                  'stable^{tree}').stdout)
        c = y.show(msgid(cover))
        fev = [e for e in c['events'] if e['kind'] == 'forwarded']
        check('a forwarded event per patch naming the Message-ID sent',
              sorted(e['detail'] for e in fev) == sorted(byn[k][0]['Message-ID'].strip('<>') for k in ('1', '2')),
              fev)
        ob = [o for o in c['outbox'] if o['event'] == 'forwarded']
        check('the forwarded mails are in the outbox, sent', len(ob) == 2 and all(o['state'] == 'sent' for o in ob),
              ob)

        r = y.run('forward', check_rc=False)
        y.run('send', '--now')
        check('a second forward sends nothing', r.returncode == 0 and not forwarded(smtp, seen)
              and b'nothing new' in r.stdout, r.stdout)

        # The list's copy of a forwarded mail comes back: bot mail.
        before = y.run('list', '--json').stdout
        for m, raw in got:
            y.ingest(raw.replace('\r\n', '\n'))
        db = sqlite3.connect(os.path.join(tmp, 'yard.db'))
        kinds = [db.execute('SELECT kind FROM message WHERE msgid = ?', (m['Message-ID'].strip('<>'),)).fetchone()
                 for m, _ in got]
        db.close()
        check('the list copy is stored as bot mail', kinds == [('bot',)] * 4, kinds)
        check('and changes nothing tracked', y.run('list', '--json').stdout == before)

        # #yard forward by mail: refused for a stranger, taken from a maintainer.
        r3, = post(repo, y, [('doc/x.txt', lambda s: s.replace('x 3\n', 'x three\n'), 'doc: spell three')],
                   ADA, 's3', 'three')
        y.ingest(reply(r3, REY, 'Reviewed-by: %s <%s>' % REY))
        y.run('stage', msgid(r3))
        y.run('graduate', msgid(r3))
        y.ingest(reply(r3, EVE, '#yard forward'))
        y.run('rebuild')
        y.run('send', '--now')
        check('a stranger cannot forward', not forwarded(smtp, seen))
        y.ingest(reply(r3, MIA, 'Off it goes.\n\n#yard forward'))
        y.run('send', '--now')
        tr = [raw for raw in smtp.mails() if 'Off it goes' not in raw and 'goes to upstream@example.org' in raw]
        check('the transcript says it goes with the next rebuild', len(tr) == 1, len(tr))
        y.run('rebuild')
        y.run('send', '--now')
        got2 = forwarded(smtp, seen)
        subj2 = sorted(str(m['Subject']) for m, _ in got2)
        check('the next rebuild forwards only the new patch', subj2 == [
            '[PATCH 0/1] demo: the stable queue', '[PATCH 1/1] doc: spell three'], subj2)
        cb = [m for m, _ in got2 if '0/1' in str(m['Subject'])]
        cbody = cb[0].get_payload(decode=True).decode() if cb else ''
        check('it names the forwarded patches it needs', cbody.count('prerequisite-patch-id: ') == 3, cbody)

        # Upstream takes them: merged, out of the stable queue, and told.
        for k in ('1', '2', '3'):
            git(repo.path, '-c', 'user.name=Up Stream', '-c', 'user.email=up@example.org', 'am', '-q',
                inp=('From x Mon Sep 17 00:00:00 2001\n' + byn[k][1]).encode())
        git(repo.path, '-c', 'user.name=Up Stream', '-c', 'user.email=up@example.org', 'am', '-q',
            inp=('From x Mon Sep 17 00:00:00 2001\n' + [raw for m, raw in got2 if '1/1' in str(m['Subject'])][0]).encode())
        y.run('upstream')
        y.run('rebuild')
        states = [(p['slug'], p['state'], p['queue']) for ref in (cover, q1, r3) for p in y.show(msgid(ref))['patches']]
        check('upstream took them: merged, the stable queue empty',
              all(s == 'merged' and q is None for _, s, q in states), states)
        check('stable is upstream again',
              git(os.path.join(tmp, 'staging.git'), 'rev-parse', 'stable').stdout.decode().strip()
              == repo.git('rev-parse', 'master').strip())
        y.run('send', '--now')
        merged = [raw for raw in smtp.mails() if 'X-Patchyard-Event: merged' in raw]
        check('the merged acks say it was forwarded', len(merged) == 4 and
              all('forwarded as' in m for m in merged), len(merged))
        r = y.run('forward', check_rc=False)
        check('then there is nothing to forward', b'stable queue is empty' in r.stdout, r.stdout)
    finally:
        smtp.stop()


def pull_mode(tmp):
    smtp = Smtpd(tmp, port=free_port()).start()
    try:
        repo = Repo(os.path.join(tmp, 'up'))
        remote = os.path.join(tmp, 'remote.git')
        sh(['git', 'init', '-q', '--bare', remote])
        y = Yard(tmp, conf(tmp, repo, smtp, 'pull'))
        y.run('upstream')
        cover, p1, p2 = post(repo, y, [
            ('src/a.c', lambda s: s.replace('a 5\n', 'a five\n'), 'a: spell five'),
            ('doc/new.txt', lambda s: 'a new file\n', 'doc: a new file')], ADA, 's1', 'one', cover=True)
        q1, = post(repo, y, [('src/b.c', lambda s: s.replace('b 7\n', 'b seven\n'), 'b: spell seven')],
                   BOB, 's2', 'two')
        for m in (cover, q1):
            y.ingest(reply(m, REY, 'Reviewed-by: %s <%s>' % REY))
        y.run('stage', msgid(cover), '--series')
        y.run('stage', msgid(q1))
        y.run('graduate', '--auto')
        r = y.run('forward', check_rc=False)
        check('pull: forward', r.returncode == 0, r.stdout + r.stderr)
        y.run('send', '--now')
        got = forwarded(smtp, set())
        check('pull: one mail', len(got) == 1 and str(got[0][0]['Subject']) == '[GIT PULL] demo: the stable queue',
              [str(m['Subject']) for m, _ in got])
        body = got[0][0].get_payload(decode=True).decode() if got else ''
        staging = os.path.join(tmp, 'staging.git')
        env = dict(os.environ, COLUMNS='')
        env.pop('COLUMNS')
        rp = sh(['git', '-C', staging, 'request-pull', 'refs/upstream/master', remote, 'stable'], env=env)
        want = rp.stdout.decode()
        ours = body[body.find('The following changes since commit'):]
        ours = ours[:ours.find('-- \n')] if '-- \n' in ours else ours
        check('pull: the text git request-pull prints for the same refs', ours == want,
              '\n--- ours\n%s\n--- git\n%s' % (ours, want))
        check('pull: the range, shortlog and diffstat are there',
              'Ada Author (2):\n      a: spell five\n      doc: a new file\n' in ours and
              ' create mode 100644 doc/new.txt' in ours, ours)
        r = y.run('forward', check_rc=False)
        y.run('send', '--now')
        check('pull: a second forward sends nothing', not [m for m, _ in forwarded(smtp, set())
                                                            if m['Message-ID'] != got[0][0]['Message-ID']], r.stdout)
        c = y.show(msgid(cover))
        check('pull: a forwarded event per patch naming the pull request',
              [e['detail'] for e in c['events'] if e['kind'] == 'forwarded'] ==
              [got[0][0]['Message-ID'].strip('<>')] * 2, c['events'])
    finally:
        smtp.stop()


for fn in (series_mode, pull_mode):
    tmp = tempfile.mkdtemp(prefix='yard-fwd-')
    try:
        fn(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
done()
