#!/usr/bin/python3
"""Subsystem trees (issue 22) through the command line, with real git
repositories: a clean tree merged into unstable (a merge commit, the
patches on top, a '# tree' line in the quilt series, the status pages), a tree touching
the lines of a staged patch left out with a conflict mail to its owner
(once) while the patch still builds, the same tree conflicting in the
merge itself once the patch is in stable, a `git request-pull` mail
served by a real git daemon on loopback staged by a maintainer's
#yard stage as a third tree, trees --json, and upstream taking a tree:
its patches are detected like patches, the tree has nothing left to
merge."""
import json, os, socket, subprocess, sys, tempfile, shutil, time, urllib.request
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *
from webfix import Server

ADA = ('Ada Author', 'ada@example.org')
MIA = ('Mia Maint', 'mia@maint.example.org')
SUB = ('Sub Sys', 'sub@example.org')
NET = ('Net Work', 'net@example.org')
UP = ('Up Stream', 'up@example.org')


def git(path, *args, inp=None):
    return sh(['git', '-C', path] + list(args), inp=inp).stdout.decode()


def clone(src, path, who, edits, subject):
    sh(['git', 'clone', '-q', src, path])
    for f, fn in edits:
        p = os.path.join(path, f)
        text = fn(open(p).read())
        open(p, 'w').write(text)
    git(path, '-c', 'user.name=' + who[0], '-c', 'user.email=' + who[1], 'commit', '-qam', subject)
    return git(path, 'rev-parse', 'HEAD').strip()


def start_daemon(base, port):
    d = subprocess.Popen(['git', 'daemon', '--reuseaddr', '--export-all', '--base-path=' + base,
                          '--listen=127.0.0.1', '--port=%d' % port, base],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(('127.0.0.1', port), timeout=1).close()
            return d
        except OSError:
            time.sleep(0.05)
    d.terminate()
    d.wait()
    raise SystemExit('git daemon did not start')


def outbox(y, ref, event):
    return [o for o in y.show(ref).get('outbox', []) if o['event'] == event]


def trees(y):
    r = y.run('trees', '--json', check_rc=False)
    return {t['name']: t for t in json.loads(r.stdout)} if r.returncode == 0 else {}


def scenario(tmp, daemon_port):
    staging = os.path.join(tmp, 'staging.git')
    repo = Repo(os.path.join(tmp, 'up'))
    sub = os.path.join(tmp, 'sub')
    clash = os.path.join(tmp, 'clash')
    sub_tip = clone(repo.path, sub, SUB, [('README', lambda s: s + 'subsystem line\n')], 'README: a subsystem change')
    clash_tip = clone(repo.path, clash, NET, [('src/a.c', lambda s: s.replace('a 5\n', 'a FIVE (net)\n'))],
                      'a: shout five')
    y = Yard(tmp, '''	archive = https://lists.example.org/demo/%%s/
	upstream = %s
	branch = master
	staging = %s
[bot]
	address = yard@bot.example.org
[maintainer "mia"]
	email = mia@maint.example.org
[tree "sub"]
	url = %s
	branch = master
	project = demo
	owner = sub@example.org
[tree "net"]
	url = %s
	branch = master
	owner = net@example.org
[tree "gone"]
	url = %s/nowhere.git
[auth]
	require = none
''' % (repo.path, staging, sub, clash, tmp))
    r = y.run('trees', '--json', check_rc=False)
    t = json.loads(r.stdout) if r.returncode == 0 else []
    check('trees lists the configured trees before any fetch',
          [(x['name'], x['state'], x['commit']) for x in t] ==
          [('sub', 'new', None), ('net', 'new', None), ('gone', 'new', None)], t)
    y.run('upstream')
    t = trees(y)
    check('upstream fetches the trees', t.get('sub', {}).get('commit') == sub_tip
          and t.get('net', {}).get('commit') == clash_tip, t)
    check('a tree that cannot be fetched: failed, and why',
          t.get('gone', {}).get('state') == 'failed' and 'fetch: ' in (t['gone'].get('last_error') or '')
          and 'nowhere.git' in t['gone']['last_error'], t.get('gone'))
    base = repo.git('rev-parse', 'master').strip()

    p = repo.series([('src/a.c', lambda s: s.replace('a 5\n', 'a five\n'), 'a: spell five')],
                    ADA, 'p', cover=False, msgid='p')[0]
    q = repo.series([('src/b.c', lambda s: s.replace('b 9\n', 'b nine\n'), 'b: spell nine')],
                    ADA, 'q', cover=False, msgid='q')[0]
    y.ingest(p)
    y.ingest(q)
    y.run('stage', msgid(p))
    y.run('stage', msgid(q))
    r = y.run('rebuild', check_rc=False)
    check('rebuild with trees', r.returncode == 0, r.stderr)
    un = git(staging, 'log', '--format=%s|%P', base + '..unstable').strip().split('\n')
    subjects = [l.split('|')[0] for l in un]
    check('unstable: the clean tree merged, the patches on top',
          subjects[:2] == ['b: spell nine', 'a: spell five'] and
          any(s.startswith("Merge branch 'master' of " + sub) for s in subjects) and
          'README: a subsystem change' in subjects and 'a: shout five' not in subjects, subjects)
    check('unstable has the tree\'s change', 'subsystem line' in git(staging, 'show', 'unstable:README'))
    check('and the patch, not the clashing tree\'s line',
          'a five\n' in git(staging, 'show', 'unstable:src/a.c') and 'FIVE' not in git(staging, 'show', 'unstable:src/a.c'))
    check('the patch built: no conflict', y.states(msgid(p)) == [(1, 'staged', 'unstable', None)]
          and not y.show(msgid(p))['patches'][0]['conflict'], y.show(msgid(p))['patches'])
    series_txt = git(staging, 'show', 'patches:patches/series')
    check('quilt series: a # tree line for the merged tree only',
          '# tree sub %s master %s' % (sub, sub_tip) in series_txt and '# tree net' not in series_txt, series_txt)
    t = trees(y)
    check('trees: sub merged, net in conflict naming the patch',
          t.get('sub', {}).get('state') == 'merged' and t.get('net', {}).get('state') == 'conflict'
          and 'a-spell-five' in (t.get('net', {}).get('last_error') or ''), t)
    tc = outbox(y, msgid(p), 'tree-conflict')
    check('a conflict mail to the tree owner', len(tc) == 1 and 'net@example.org' in tc[0]['to']
          and 'mia@maint.example.org' in tc[0]['to'], tc)
    tip = git(staging, 'rev-parse', 'unstable').strip()
    y.run('rebuild')
    check('the same inputs give the same unstable', git(staging, 'rev-parse', 'unstable').strip() == tip)
    check('the conflict is mailed once', len(outbox(y, msgid(p), 'tree-conflict')) == 1)

    # In stable, the patch makes the merge itself conflict.
    y.run('graduate', msgid(p))
    y.run('rebuild')
    t = trees(y)
    check('net now conflicts in the merge, naming the file',
          t.get('net', {}).get('state') == 'conflict' and 'src/a.c' in (t['net'].get('last_error') or '')
          and 'a-spell-five' not in t['net']['last_error'], t.get('net'))
    check('stable + sub + the unstable patch still build',
          'subsystem line' in git(staging, 'show', 'unstable:README') and
          'b nine' in git(staging, 'show', 'unstable:src/b.c'))

    # A request-pull mail from a maintainer's tree, served by git daemon.
    srv = os.path.join(tmp, 'srv')
    doc = os.path.join(srv, 'doc.git')
    doc_tip = clone(repo.path, doc, MIA, [('doc/x.txt', lambda s: s.replace('x 3\n', 'x three\n'))], 'doc: spell three')
    git(doc, 'branch', '-q', 'for-demo')
    url = 'git://127.0.0.1:%d/doc.git' % daemon_port
    body = sh(['git', 'request-pull', 'origin/master', url, 'for-demo'], cwd=doc).stdout.decode()
    check('git request-pull reached the daemon', url + ' for-demo' in body and doc_tip in body, body)
    pull = ('From: Mia Maint <mia@maint.example.org>\nTo: demo@lists.example.org\n'
            'Subject: [GIT PULL] doc: spelling\nMessage-ID: <pull-1@maint.example.org>\n'
            'Date: Mon, 02 Nov 2026 10:00:00 +0000\n\n') + body
    y.ingest(pull)
    eve = ('Eve Evil', 'eve@evil.example.net')
    y.ingest(reply(pull, eve, '#yard stage'))
    check('a stranger cannot stage a pull request', 'doc' not in trees(y), trees(y))
    y.ingest(reply(pull, MIA, 'Thanks.\n\n#yard stage'))
    t = trees(y)
    check('#yard stage on the pull request adds a tree', t.get('doc', {}).get('url') == url
          and t['doc'].get('branch') == 'for-demo' and t['doc'].get('origin') == 'mail', t.get('doc'))
    y.run('rebuild')
    t = trees(y)
    check('the third tree is fetched and merged', t.get('doc', {}).get('state') == 'merged'
          and t['doc'].get('commit') == doc_tip, t.get('doc'))
    check('unstable has its change', 'x three' in git(staging, 'show', 'unstable:doc/x.txt'))
    series_txt = git(staging, 'show', 'patches:patches/series')
    check('quilt lists it', '# tree doc %s for-demo %s' % (url, doc_tip) in series_txt, series_txt)

    # The status pages list them: GET /api/trees and the list page.
    srv = Server(y.conf)
    try:
        api = json.loads(urllib.request.urlopen(srv.base + '/api/trees', timeout=10).read())
        page = urllib.request.urlopen(srv.base + '/', timeout=10).read().decode()
    finally:
        srv.stop()
    check('GET /api/trees is trees --json', api == json.loads(y.run('trees', '--json').stdout), api)
    check('the list page shows the trees and their states',
          'Subsystem trees' in page and '>doc<' in page and 'state-merged">merged<' in page
          and 'state-conflict">conflict<' in page and 'conflict in src/a.c' in page, page[-1500:])

    # Upstream takes the sub tree: a tracked patch that is in it is
    # detected like any patch, and the tree has nothing left to merge.
    same = repo.series([('README', lambda s: s + 'subsystem line\n', 'README: a subsystem change')],
                       SUB, 'same', cover=False, msgid='same')[0]
    y.ingest(same)
    repo.git('pull', '-q', '--no-rebase', '--no-edit', doc, 'for-demo', who=UP)
    repo.git('pull', '-q', '--no-rebase', '--no-edit', sub, 'master', who=UP)
    y.run('upstream')
    y.run('rebuild')
    t = trees(y)
    check('trees upstream has taken: state upstream', t.get('sub', {}).get('state') == 'upstream'
          and t.get('doc', {}).get('state') == 'upstream', t)
    un = git(staging, 'log', '--format=%s', 'stable..unstable').strip().split('\n')
    check('no merge commit for them any more', not any(s.startswith('Merge') for s in un), un)
    st = y.states(msgid(same))
    check('a patch in a tree upstream takes is merged', st and st[0][1] == 'merged', st)
    ev = [e for e in y.show(msgid(p)).get('events', [])]
    check('the conflict event is in the patch\'s timeline', any(e['kind'] == 'tree-conflict' for e in ev), ev)


tmp = tempfile.mkdtemp(prefix='yard-trees-')
port = free_port()
daemon = None
try:
    os.makedirs(os.path.join(tmp, 'srv'), exist_ok=True)
    daemon = start_daemon(os.path.join(tmp, 'srv'), port)
    scenario(tmp, port)
finally:
    if daemon:
        daemon.terminate()
        daemon.wait()
    shutil.rmtree(tmp, ignore_errors=True)
done()
