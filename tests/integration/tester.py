#!/usr/bin/python3
"""The tester (issue 21) through the command line, with real staging
repositories, a tiny C project built with make as the test, and a real
SMTP sink: a good queue passes; one breaking patch in the middle of a
16-patch queue is found by bisection in at most 5 runs plus the
confirming run, dropped as failures, the rest passes, and its author is
mailed; a second `patchyard test` runs nothing; a hanging test ends at the
timeout with nothing of it left in the process table, nor of a background
process that ignores SIGTERM, nor of one that left with setsid; 100 MB of
output are capped; under bwrap (the default) a test can neither reach the
network nor write outside its tree, and its log says why; without bwrap
nothing runs unless test.sandbox = none is written, and a warning check
says why; a flaky failure blames nobody; retests by mail and from the
terminal run again; a tester killed in the middle of a run loses nothing.

The test command counts its runs itself, in a file outside the work tree
(its name is written into the tree's check.sh by this script): the scenes
that rely on that say test.sandbox = none."""
import os, re, signal, socket, sqlite3, subprocess, sys, tempfile, shutil, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *

ADA = ('Ada Author', 'ada@example.org')
MIA = ('Mia Maint', 'mia@maint.example.org')
AS = 'mx.yard.example'

MAKEFILE = '''prog: main.c util.c
\tcc -o prog main.c util.c
check: prog
\t./prog
'''
MAIN = '#include <stdio.h>\nint util(void);\nint main(void) { return util(); }\n'
UTIL = 'int util(void) { return 0; }\n'

# What the test does is chosen by marker files a patch adds.
CHECK = '''#!/bin/sh
echo "$PATCHYARD_COMMIT $PATCHYARD_PATCH" >> %(runs)s
if [ -e hang ]; then
	sleep 600 & sleep 600
fi
if [ -e bg ]; then
	sh -c 'trap "" TERM; sleep 600' &
fi
if [ -e detach ]; then
	setsid sh -c 'sleep 600 & sleep 600' &
	setsid -f sleep 600
	sleep 0.5
fi
if [ -e flood ]; then
	echo START; head -c 104857600 /dev/zero | tr '\\0' x; echo; echo END
fi
if [ -e flaky ] && ! grep -qs "$PATCHYARD_COMMIT" %(seen)s; then
	echo "$PATCHYARD_COMMIT" >> %(seen)s; echo "a flaky failure"; exit 1
fi
if [ -e net ]; then
	python3 -c 'import socket; socket.create_connection(("127.0.0.1", %(port)d), 3); print("reached the network")' || exit 1
fi
if [ -e escape ]; then
	echo x > %(outside)s || exit 1
	echo "wrote outside"
fi
make -s check
'''


def left_of(commit):
    """Processes (zombies too) of a test of commit, whatever group or
    session they are in: every one has PATCHYARD_COMMIT in its
    environment."""
    mark = b'PATCHYARD_COMMIT=' + commit.encode()
    n = []
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            env = open('/proc/%s/environ' % d, 'rb').read()
        except OSError:
            continue
        if mark in env.split(b'\0'):
            n.append(d)
    return n


class Scene:
    """One upstream with the C project, a staging tree, a yard."""

    def __init__(self, tmp, name, test_conf, files=None, smtp=None, port=0, sandbox='none'):
        """sandbox: test.sandbox's value; None: no line (bwrap, the default)."""
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir)
        self.runs = os.path.join(self.dir, 'runs.log')
        self.outside = os.path.join(self.dir, 'outside')
        self.port = port or free_port()
        up = os.path.join(self.dir, 'up')
        self.repo = Repo(up)
        self.repo.write('Makefile', MAKEFILE)
        self.repo.write('main.c', MAIN)
        self.repo.write('util.c', UTIL)
        self.repo.write('check.sh', CHECK % {'runs': self.runs,
                                             'seen': os.path.join(self.dir, 'seen'),
                                             'port': self.port, 'outside': self.outside})
        for f, c in (files or {}).items():
            self.repo.write(f, c)
        self.repo.commit('the C project', ('Up Stream', 'up@example.org'))
        extra = '''	upstream = %s
	branch = master
	staging = %s/staging.git
[bot]
	address = yard@bot.example.org
[maintainer "mia"]
	email = mia@maint.example.org
[auth]
	authserv-id = %s
[test]
	command = sh check.sh
%s%s''' % (up, self.dir, AS, test_conf, '\tsandbox = %s\n' % sandbox if sandbox else '')
        if smtp:
            extra += '[smtp]\n\turl = smtp://127.0.0.1:%d\n\tstarttls = never\n' % smtp.port
        self.y = Yard(self.dir, extra)
        self.n = 0

    def post(self, edits, title='demo: a series'):
        """Post a series and stage it by mail; its mails."""
        self.n += 1
        mails = self.repo.series(edits, ADA, 'b%d' % self.n, title=title, msgid='s%d' % self.n)
        for m in mails:
            self.y.ingest(m)
        self.y.ingest(reply(mails[0], MIA, '#yard stage series', authserv=AS))
        return mails

    def runs_log(self):
        return open(self.runs).read().split('\n')[:-1] if os.path.exists(self.runs) else []

    def test(self, *args):
        return self.y.run('test', *args, check_rc=False)

    def checks(self, ref):
        return self.y.show(ref).get('checks', [])


def note(i):
    return ('doc/n%d.txt' % i, lambda s, i=i: 'note %d\n' % i, 'doc: note %d' % i)


BREAK = ('util.c', lambda s: s.replace('return 0;', 'return 0 +;'), 'util: break the build')


def good_queue(tmp):
    s = Scene(tmp, 'good', '\tmode = stack\n')
    mails = s.post([note(1), note(2), note(3)])
    s.y.run('rebuild')
    r = s.test()
    check('good queue: test exits 0', r.returncode == 0, r.stderr)
    ks = s.checks(msgid(mails[0]))
    check('good queue: one success check on the tip',
          [(k['state'], k['patch_id']) for k in ks] == [('success', s.y.show(msgid(mails[3]))['patches'][2]['id'])],
          ks)
    k = ks[0] if ks else {}
    tip = sh(['git', '-C', os.path.join(s.dir, 'staging.git'), 'rev-parse', 'unstable']).stdout.decode().strip()
    up = s.repo.git('rev-parse', 'master').strip()
    check('good queue: the check has the JSON fields of docs/DESIGN.md 12',
          sorted(k) == sorted(['patch_id', 'context', 'state', 'url', 'summary', 'reporter', 'time',
                               'commit', 'base', 'duration', 'log_tail']), sorted(k))
    check('good queue: context, commit, base', (k.get('context'), k.get('commit'), k.get('base')) ==
          ('patchyard/test', tip, up), k)
    check('good queue: duration is a number', isinstance(k.get('duration'), (int, float)), k.get('duration'))
    lt = k.get('log_tail') or ''
    check('good queue: the log says what ran and that it passed',
          'sh check.sh' in lt and 'passed after' in lt and 'sandbox: none' in lt, lt)
    check('good queue: one run', len(s.runs_log()) == 1, s.runs_log())
    env = s.runs_log()[0].split() if s.runs_log() else []
    check('good queue: PATCHYARD_COMMIT and PATCHYARD_PATCH reach the test',
          env == [tip, 'doc-note-3'], env)
    lst = json.loads(s.y.run('list', '--json').stdout)
    check('good queue: list --json gives the test state', [c.get('test_state') for c in lst] == ['success'], lst)
    txt = s.y.run('show', msgid(mails[0])).stdout.decode()
    check('good queue: show prints the check', 'patchyard/test success' in txt and tip[:12] in txt, txt[-600:])
    r = s.test()
    check('good queue: a second test runs nothing', len(s.runs_log()) == 1 and len(s.checks(msgid(mails[0]))) == 1,
          (s.runs_log(), r.stderr))
    # A rebuild that changes commits but not trees (a trailer arrives):
    # the result is reused, not run again.
    s.y.ingest(reply(mails[1], ('Rita Reviewer', 'rita@example.org'), 'Reviewed-by: Rita Reviewer <rita@example.org>',
                        authserv=AS))
    s.y.run('rebuild')
    tip2 = sh(['git', '-C', os.path.join(s.dir, 'staging.git'), 'rev-parse', 'unstable']).stdout.decode().strip()
    s.test()
    ks = s.checks(msgid(mails[0]))
    check('reuse: the same tree is not tested again', tip2 != tip and len(s.runs_log()) == 1, s.runs_log())
    check('reuse: the new tip has a success check naming the tested commit',
          ks and ks[-1]['commit'] == tip2 and ks[-1]['state'] == 'success' and tip[:12] in ks[-1]['summary'], ks[-1:])
    # Retest from the terminal: runs again, whatever is known.
    r = s.y.run('retest', msgid(mails[3]), check_rc=False)
    check('retest REF runs the tip again', r.returncode == 0 and len(s.runs_log()) == 2, (r.stderr, s.runs_log()))
    # #yard retest by mail: a maintainer's request waits for the tester.
    s.y.ingest(reply(mails[2], MIA, '#yard retest', authserv=AS))
    s.test()
    check('#yard retest is run by the next test', len(s.runs_log()) == 3, s.runs_log())
    s.y.ingest(reply(mails[2], ADA, '#yard retest', authserv=AS))
    s.test()
    check('#yard retest from the author is refused', len(s.runs_log()) == 3, s.runs_log())


def bisect_and_drop(tmp, smtp):
    s = Scene(tmp, 'bisect', '\tmode = stack\n\ton-failure = drop\n', smtp=smtp)
    edits = [note(i) for i in range(1, 17)]
    edits[8] = BREAK  # patch 9 of 16
    mails = s.post(edits)
    bad = mails[9]
    s.y.run('rebuild')
    r = s.test()
    check('bisect: test exits 0', r.returncode == 0, r.stderr)
    runs = s.runs_log()
    st = {p['message_id']: (p['state'], p['reason']) for p in s.y.show(msgid(mails[0]))['patches']}
    check('bisect: the breaking patch is dropped(failures)', st.get(msgid(bad)) == ('dropped', 'failures'), st)
    check('bisect: the other 15 stay staged',
          sum(1 for m in mails[1:] if st.get(msgid(m), ('',))[0] == 'staged') == 15, st)
    commits = [l.split()[0] for l in runs]
    # All runs but the last (the new tip) are the bisection and the
    # confirming run, which repeats the culprit's commit.
    before = commits[:-1]
    repeated = [c for c in set(before) if before.count(c) == 2]
    check('bisect: at most 5 runs plus the confirming run', len(before) <= 6 and len(repeated) == 1,
          runs)
    print('     bisection of 16: %d runs plus 1 confirming run' % (len(before) - 1))
    ks = s.checks(msgid(mails[0]))
    blame = [k for k in ks if k['state'] == 'fail' and k['commit'] in repeated]
    check('bisect: a fail check on the culprit at its commit',
          blame and blame[0]['patch_id'] == s.y.show(msgid(bad))['patches'][8]['id'], ks)
    check('bisect: the rest passes', ks and ks[-1]['state'] == 'success' and commits[-1] == ks[-1]['commit'], ks[-1:])
    tip = sh(['git', '-C', os.path.join(s.dir, 'staging.git'), 'rev-parse', 'unstable']).stdout.decode().strip()
    check('bisect: the new tip was tested', commits and commits[-1] == tip, (commits[-1:], tip))
    log = sh(['git', '-C', os.path.join(s.dir, 'staging.git'), 'log', '--format=%s', 'stable..unstable']).stdout.decode()
    check('bisect: the staging tree no longer holds it', 'util: break the build' not in log and log.count('\n') == 15,
          log)
    # The author is told, in a real SMTP sink.
    r = s.y.run('send', check_rc=False)
    got = [g for g in smtp.mails() if header(g, 'X-Patchyard-Event') == 'test-failed']
    check('bisect: one test-failed mail', len(got) == 1, [header(g, 'X-Patchyard-Event') for g in smtp.mails()])
    g = got[0] if got else ''
    check('bisect: to the author, in reply to the patch',
          'ada@example.org' in (header(g, 'X-Smtpd-Rcpt-To') or '') and
          (header(g, 'In-Reply-To') or '').strip('<>') == msgid(bad), header(g, 'X-Smtpd-Rcpt-To'))
    check('bisect: the mail names the commit, says it was dropped, quotes the log',
          repeated and repeated[0] in g and 'dropped from the unstable queue' in g and
          'patchyard: exit status' in g and 'error' in g, g[-1500:])
    n = len(s.runs_log())
    nk = len(s.checks(msgid(mails[0])))
    r = s.test()
    check('bisect: a second test runs nothing', len(s.runs_log()) == n and len(s.checks(msgid(mails[0]))) == nk,
          (s.runs_log()[n:], r.stderr))


def timeout_and_leftovers(tmp):
    s = Scene(tmp, 'timeout', '\tmode = stack\n\ttimeout = 2\n')
    mails = s.post([('hang', lambda _: 'yes\n', 'test: hang')])
    s.y.run('rebuild')
    t0 = time.time()
    s.test()
    ks = s.checks(msgid(mails[0]))
    fails = [k for k in ks if k['state'] == 'fail']
    check('timeout: the check fails with "timeout" in its summary',
          fails and 'timeout' in fails[-1]['summary'], ks)
    commit = fails[-1]['commit'] if fails else ''
    check('timeout: nothing of the test is left in the process table', commit and not left_of(commit),
          (commit, left_of(commit) if commit else None))
    check('timeout: the patch stays (report)', s.y.states(msgid(mails[0]))[0][1] == 'staged', s.y.states(msgid(mails[0])))
    check('timeout: ended in time (2 s runs, not 600 s)', time.time() - t0 < 60, time.time() - t0)

    s = Scene(tmp, 'background', '\tmode = stack\n')
    mails = s.post([('bg', lambda _: 'yes\n', 'test: leave a process that ignores SIGTERM')])
    s.y.run('rebuild')
    s.test()
    ks = s.checks(msgid(mails[0]))
    commit = ks[-1]['commit'] if ks else ''
    check('background: the test passes', ks and ks[-1]['state'] == 'success', ks)
    check('background: the log says a process was left and ended',
          ks and 'left running ended' in (ks[-1]['log_tail'] or ''), ks[-1:])
    check('background: nothing of it is left in the process table', commit and not left_of(commit),
          (commit, left_of(commit) if commit else None))

    # The review's hole: processes that leave the test's session and
    # group (setsid, a double fork) were neither counted nor ended.
    s = Scene(tmp, 'detach', '\tmode = stack\n')
    mails = s.post([('detach', lambda _: 'yes\n', 'test: leave with setsid')])
    s.y.run('rebuild')
    s.test()
    ks = s.checks(msgid(mails[0]))
    commit = ks[-1]['commit'] if ks else ''
    lt = (ks[-1]['log_tail'] or '') if ks else ''
    db = sqlite3.connect(os.path.join(s.dir, 'yard.db'))
    logs = [r[0] for r in db.execute('SELECT log FROM test_run')]
    db.close()
    check('setsid: the test passes, its processes in a PID namespace of its own',
          ks and ks[-1]['state'] == 'success' and logs and
          'processes: in a PID namespace of its own' in logs[-1], (ks[-1:], logs[-1:]))
    check('setsid: the log says the 3 detached processes were ended', re.search(r'[3-9] processes left running ended', lt),
          lt[-400:])
    check('setsid: nothing of it is left in the process table', commit and not left_of(commit),
          (commit, left_of(commit) if commit else None))


def flood(tmp):
    s = Scene(tmp, 'flood', '\tmode = stack\n\toutput-cap = 1M\n')
    mails = s.post([('flood', lambda _: 'yes\n', 'test: print 100 MB')])
    s.y.run('rebuild')
    s.test()
    ks = s.checks(msgid(mails[0]))
    check('flood: the test passes', ks and ks[-1]['state'] == 'success', ks)
    db = sqlite3.connect(os.path.join(s.dir, 'yard.db'))
    logs = [r[0] for r in db.execute('SELECT log FROM test_run')]
    db.close()
    lg = logs[-1] if logs else ''
    check('flood: the log is capped near 1 MB', 1 << 20 <= len(lg) < (1 << 20) + 4096, len(lg))
    check('flood: it keeps head and tail and says what was cut',
          'START' in lg[:2000] and
          [l for l in lg.rstrip().split('\n') if not l.startswith('patchyard:')][-1] == 'END' and
          re.search(r'\[patchyard: \d+ bytes of output cut here', lg), lg[-300:])


def sandbox(tmp):
    """The same two tests with test.sandbox = none (they pass: the checks
    can fail) and under bwrap, the default (they fail, saying why)."""
    if not shutil.which('bwrap'):
        check('bwrap is installed (scripts/install-deps)', False)
        return
    # Without bwrap to be found nothing runs, whether bwrap is the
    # default or written out: the target gets a warning check that says
    # why, once, and nobody is blamed; once bwrap is back, it runs.
    for name, sb in (('default', None), ('written', 'bwrap')):
        s = Scene(tmp, 'no-bwrap-' + name, '\tmode = stack\n', sandbox=sb)
        mails = s.post([note(1)])
        s.y.run('rebuild')
        nopath = dict(os.environ, PATH='/nonexistent')
        r = sh([YARD, '-c', s.y.conf, 'test'], env=nopath, check_rc=False)
        ks = s.checks(msgid(mails[0]))
        check('no bwrap (%s): test exits 1, saying so' % name,
              r.returncode == 1 and b'bwrap sandbox does not work' in r.stderr, (r.returncode, r.stderr))
        check('no bwrap (%s): nothing runs; a warning check on the tip says why' % name,
              not s.runs_log() and [k['state'] for k in ks] == ['warning'] and
              'not run' in ks[0]['summary'] and 'no bwrap on PATH' in ks[0]['summary'] and
              'test.sandbox = none' in ks[0]['summary'], ks)
        sh([YARD, '-c', s.y.conf, 'test'], env=nopath, check_rc=False)
        check('no bwrap (%s): a second test adds nothing' % name,
              len(s.checks(msgid(mails[0]))) == 1 and not s.runs_log(), s.checks(msgid(mails[0])))
        r = s.test()
        ks = s.checks(msgid(mails[0]))
        check('no bwrap (%s): with bwrap back the test runs, sandboxed' % name,
              r.returncode == 0 and [k['state'] for k in ks] == ['warning', 'success'] and
              'sandbox: bwrap' in (ks[-1]['log_tail'] or ''), (r.stderr, ks))
    srv = socket.socket()
    srv.bind(('127.0.0.1', 0))
    srv.listen(8)
    try:
        for name, sb in (('plain', 'none'), ('bwrap', None)):
            s = Scene(tmp, 'net-' + name, '\tmode = stack\n', port=srv.getsockname()[1], sandbox=sb)
            mails = s.post([('net', lambda _: 'yes\n', 'test: reach the network')])
            s.y.run('rebuild')
            s.test()
            last = (s.checks(msgid(mails[0])) or [{}])[-1]
            lt = last.get('log_tail') or ''
            if name == 'plain':
                check('network: without a sandbox the test reaches it', last.get('state') == 'success', last)
            else:
                check('network: under bwrap the test fails', last.get('state') == 'fail', last)
                check('network: and its log says why', 'sandbox: bwrap: no network' in lt and
                      re.search('(refused|unreachable)', lt) is not None, lt)
            s = Scene(tmp, 'out-' + name, '\tmode = stack\n', sandbox=sb)
            mails = s.post([('escape', lambda _: 'yes\n', 'test: write outside the tree')])
            s.y.run('rebuild')
            s.test()
            last = (s.checks(msgid(mails[0])) or [{}])[-1]
            lt = last.get('log_tail') or ''
            wrote = os.path.exists(s.outside)
            if name == 'plain':
                check('outside: without a sandbox the test writes outside',
                      wrote and last.get('state') == 'success', last)
            else:
                check('outside: under bwrap it cannot', not wrote and last.get('state') == 'fail', last)
                check('outside: and its log says why',
                      re.search('(Read-only file system|nonexistent|No such file)', lt) and
                      'only the work tree and HOME are writable' in lt, lt)
    finally:
        srv.close()


def flaky(tmp):
    s = Scene(tmp, 'flaky', '\tmode = stack\n\ton-failure = drop\n')
    mails = s.post([note(1), ('flaky', lambda _: 'yes\n', 'test: fail once')])
    s.y.run('rebuild')
    s.test()
    ks = s.checks(msgid(mails[0]))
    check('flaky: one warning check on the tip, and nothing else', [k['state'] for k in ks] == ['warning'] and
          'flaky' in ks[0]['summary'], ks)
    check('flaky: nothing is dropped', [x[1] for x in s.y.states(msgid(mails[0]))] == ['staged', 'staged'],
          s.y.states(msgid(mails[0])))


def modes(tmp):
    s = Scene(tmp, 'patch-mode', '\tmode = patch\n\tjobs = 2\n')
    mails = s.post([note(1), note(2), note(3)])
    s.y.run('rebuild')
    s.test()
    ks = s.checks(msgid(mails[0]))
    check('patch mode: a success check per patch', sorted(k['patch_id'] for k in ks) ==
          sorted(p['id'] for p in s.y.show(msgid(mails[0]))['patches']) and
          all(k['state'] == 'success' for k in ks), ks)
    s = Scene(tmp, 'series-mode', '\tmode = series\n\ton-failure = drop\n')
    a = s.post([note(1), note(2)], title='first series')
    b = s.post([note(3), BREAK, note(4)], title='second series')
    s.y.run('rebuild')
    s.test()
    check('series mode: the first series passes at its tip', [k['state'] for k in s.checks(msgid(a[0]))] == ['success'],
          s.checks(msgid(a[0])))
    check('series mode: the breaking patch of the second is dropped',
          [x[1] for x in s.y.states(msgid(b[0]))] == ['staged', 'dropped', 'staged'], s.y.states(msgid(b[0])))
    check('series mode: then the second passes', s.checks(msgid(b[0]))[-1]['state'] == 'success',
          s.checks(msgid(b[0])))


def restart(tmp):
    """kill -9 the tester in the middle of a run: the next one runs it."""
    s = Scene(tmp, 'restart', '\tmode = stack\n', files={'slow': 'yes\n'})
    # The run is logged first, then sleeps: the kill below lands in the
    # sleep, not (on a loaded machine) after the run has been recorded.
    body = open(os.path.join(s.repo.path, 'check.sh')).read()
    first = body.index('\n', body.index('>> ')) + 1
    s.repo.write('check.sh', body[:first] + 'sleep 2\n' + body[first:])
    s.repo.commit('slow test', ('Up Stream', 'up@example.org'))
    mails = s.post([note(1)])
    s.y.run('rebuild')
    p = subprocess.Popen([YARD, '-c', s.y.conf, 'test'], stderr=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(s.runs):
            break
        time.sleep(0.1)
    p.kill()
    p.wait()
    check('restart: nothing is known after the kill', s.checks(msgid(mails[0])) == [], s.checks(msgid(mails[0])))
    time.sleep(2.5)
    r = s.test()
    ks = s.checks(msgid(mails[0]))
    check('restart: the next test runs the run left behind', [k['state'] for k in ks] == ['success'] and
          len(s.runs_log()) == 2, (ks, s.runs_log(), r.stderr))


def main():
    tmp = tempfile.mkdtemp(prefix='patchyard-tester-')
    smtp = Smtpd(tmp).start()
    try:
        good_queue(tmp)
        bisect_and_drop(tmp, smtp)
        timeout_and_leftovers(tmp)
        flood(tmp)
        sandbox(tmp)
        flaky(tmp)
        modes(tmp)
        restart(tmp)
    finally:
        smtp.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    done()


main()
