#!/usr/bin/python3
"""contrib/patchyard.service: `systemd-analyze verify` accepts it (a copy
pointed at the binary under test), its offline exposure stays where it
was reviewed, and the tester works under its settings -- emulated
without systemd by tests/integration/unitjail.py: as an unprivileged
user (nobody: the unit's patchyard user need not exist here), with no
new privileges and no capabilities, inside the unit's mounts and its
seccomp filters, a real `patchyard test` runs a real test in bwrap and
in a PID and user namespace of its own, and the test sees neither the
network nor the state folder.  Then the settings this change had to
relax are put back one at a time (and ProcSubset=pid, which keeps
ProtectKernelTunables= and ProtectKernelLogs= from hiding parts of
/proc, is taken away), and the sandbox no longer works: which shows
both that each change was needed and that the emulation bites.

Not emulated without systemd (unitjail.py says more): the device cgroup
of PrivateDevices= (DevicePolicy=closed), SystemCallArchitectures=
beyond libseccomp's native-only default, RemoveIPC= (at stop), and the
life cycle (Restart=, KillMode=, TimeoutStopSec=, ExecReload=)."""
import os, re, shutil, socket, sqlite3, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *
import unitjail

TOP = os.environ.get('TOP') or os.path.join(HERE, '..', '..')
UNIT = os.path.join(TOP, 'contrib', 'patchyard.service')
NOBODY = 65534
# systemd-analyze security --offline: the exposure of the unit as
# reviewed with the sandbox (contrib/patchyard.service's comment).
EXPOSURE = 2.3
ADA = ('Ada Author', 'ada@example.org')

CHECK = '''#!/bin/sh
echo "uid=$(id -u)"
echo "init=$(tr '\\0' ' ' </proc/1/cmdline)"
test -e /var/lib/patchyard/yard.db && echo SEES-STATE
(echo x >/var/lib/patchyard/escape) 2>/dev/null && echo WROTE-STATE
python3 -c 'import socket; socket.create_connection(("127.0.0.1", %d), 2)' 2>/dev/null &&
	echo NET || echo NO-NET
setsid -f sleep 300
echo done
'''


def verify(tmp):
    if not shutil.which('systemd-analyze'):
        check('systemd-analyze is installed (scripts/install-deps: systemd)', False)
        return
    text = open(UNIT).read()
    check('the unit starts /usr/local/bin/patchyard', 'ExecStart=/usr/local/bin/patchyard ' in text)
    copy = os.path.join(tmp, 'patchyard.service')
    open(copy, 'w').write(text.replace('/usr/local/bin/patchyard', os.path.abspath(YARD)))
    r = sh(['systemd-analyze', 'verify', '--man=no', copy], check_rc=False)
    out = (r.stdout + r.stderr).decode(errors='replace')
    check('systemd-analyze verify: no error, no warning', r.returncode == 0 and not out.strip(), out)
    r = sh(['systemd-analyze', 'security', '--offline=yes', '--no-pager', copy], check_rc=False)
    m = re.search(r'Overall exposure level for \S+: ([0-9.]+)', r.stdout.decode())
    level = float(m.group(1)) if m else 99
    print('     exposure (systemd-analyze security --offline): %s' % (m.group(1) if m else '?'))
    check('exposure no worse than reviewed (%.1f)' % EXPOSURE, level <= EXPOSURE, r.stdout.decode()[-2000:])


def left_of(commit):
    mark = b'PATCHYARD_COMMIT=' + commit.encode()
    n = []
    for d in os.listdir('/proc'):
        if d.isdigit():
            try:
                if mark in open('/proc/%s/environ' % d, 'rb').read().split(b'\0'):
                    n.append(d)
            except OSError:
                pass
    return n


class Scene:
    """A yard whose paths are relative to its config, so that the same
    files work here and, inside the jail, at /var/lib/patchyard."""

    def __init__(self, tmp, port):
        self.dir = os.path.join(tmp, 'state')
        os.makedirs(self.dir)
        self.conf = os.path.join(self.dir, 'bot.conf')
        self.repo = Repo(os.path.join(self.dir, 'up'))
        self.repo.write('check.sh', CHECK % port)
        self.repo.commit('the test', ('Up Stream', 'up@example.org'))
        open(self.conf, 'w').write('''[core]
	database = yard.db
[project "demo"]
	list = demo@lists.example.org
	upstream = up
	branch = master
	staging = staging.git
[auth]
	require = none
[test]
	command = sh check.sh
	processes = 16
''')
        self.run('init')
        self.mails = self.repo.series([('doc/x.txt', lambda s: s + 'more\n', 'doc: more')], ADA, 'b1',
                                      cover=False, msgid='u')
        self.run('ingest', '--project', 'demo', inp=self.mails[0].encode())
        self.run('stage', msgid(self.mails[0]))
        self.run('rebuild')
        # The service's user owns its state.
        for root, dirs, files in os.walk(self.dir):
            for n in dirs + files:
                os.lchown(os.path.join(root, n), NOBODY, NOBODY)
        os.chown(self.dir, NOBODY, NOBODY)
        os.chmod(os.path.dirname(self.dir), 0o755)

    def run(self, *args, inp=None):
        return sh([YARD, '-c', self.conf] + list(args), inp=inp)

    def jailed(self, unit, *args):
        """patchyard ARGS as the unit would run it."""
        cmd = unitjail.command(unit, self.dir, NOBODY,
                               [os.path.abspath(YARD), '-c', '/var/lib/patchyard/bot.conf'] + list(args))
        env = {'PATH': '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
               'LANG': 'C.UTF-8', 'HOME': '/nonexistent',
               # LeakSanitizer stops the world with ptrace, which the
               # unit's SystemCallFilter= forbids (as it should).
               'ASAN_OPTIONS': 'detect_leaks=0'}
        return sh(cmd, env=env, check_rc=False)

    def checks(self):
        r = sh([YARD, '-c', self.conf, 'show', '--json', msgid(self.mails[0])], check_rc=False)
        return json.loads(r.stdout).get('checks', []) if r.returncode == 0 else []

    def runs(self):
        db = sqlite3.connect(os.path.join(self.dir, 'yard.db'))
        n = db.execute("SELECT count(*) FROM test_run WHERE state = 'done'").fetchone()[0]
        db.close()
        return n


def variant(tmp, name, key, value):
    """The unit with key set to value (added when it is not there)."""
    lines = open(UNIT).read().split('\n')
    out, done = [], False
    for l in lines:
        if l.startswith(key + '='):
            if not done:
                out.append('%s=%s' % (key, value))
            done = True
            continue
        out.append(l)
        if l == '[Service]' and not any(x.startswith(key + '=') for x in lines):
            out.append('%s=%s' % (key, value))
            done = True
    path = os.path.join(tmp, name + '.service')
    open(path, 'w').write('\n'.join(out))
    return path


def emulate(tmp):
    if os.geteuid() != 0:
        print('skip the unit emulation: it needs root (mount namespaces, setpriv)')
        return
    for tool in ('unshare', 'setpriv', 'bwrap'):
        check('%s is installed' % tool, shutil.which(tool) is not None)
    srv = socket.socket()
    srv.bind(('127.0.0.1', 0))
    srv.listen(8)
    try:
        s = Scene(tmp, srv.getsockname()[1])
        # Each setting this change relaxed, put back -- or ProcSubset=
        # taken away, under which ProtectKernelTunables= and
        # ProtectKernelLogs= would hide parts of /proc -- and there is no
        # sandbox, so nothing runs (a warning check says why).
        for key, value in (('RestrictNamespaces', 'yes'),
                           ('SystemCallFilter', '@system-service'),
                           ('RestrictAddressFamilies', 'AF_UNIX AF_INET AF_INET6'),
                           ('ProcSubset', 'all')):
            r = s.jailed(variant(tmp, key, key, value), 'test')
            err = r.stderr.decode(errors='replace')
            check('with %s=%s the sandbox does not work, and nothing runs' % (key, value),
                  r.returncode == 1 and 'bwrap sandbox does not work here' in err and s.runs() == 0,
                  (r.returncode, err[-600:]))
        ks = s.checks()
        check('... and a warning check says so', ks and ks[-1]['state'] == 'warning' and
              'not run' in ks[-1]['summary'], ks[-1:])
        # The unit as it is: the test runs, in the sandbox.
        r = s.jailed(UNIT, 'test')
        err = r.stderr.decode(errors='replace')
        ks = s.checks()
        last = ks[-1] if ks else {}
        lt = last.get('log_tail') or ''
        check('under the unit, patchyard test runs the test and it passes',
              r.returncode == 0 and last.get('state') == 'success' and s.runs() == 1, (r.returncode, err, ks[-1:]))
        check('as the unprivileged user', 'uid=%d' % NOBODY in lt, lt)
        check('inside bwrap (its pid 1), without network', re.search(r'init=\S*bwrap ', lt) and 'NO-NET' in lt and
              'sandbox: bwrap' in lt, lt)
        check('the state folder is out of its sight', 'SEES-STATE' not in lt and 'WROTE-STATE' not in lt and
              not os.path.exists(os.path.join(s.dir, 'escape')), lt)
        check('in a PID namespace and a user namespace of its own (processes bounded)',
              'in a PID namespace of its own, ended with the run; a fork beyond test.processes fails' in lt, lt)
        commit = last.get('commit') or ''
        check('nothing of it is left, the detached sleep included', commit and not left_of(commit),
              left_of(commit) if commit else None)
    finally:
        srv.close()


def main():
    tmp = tempfile.mkdtemp(prefix='patchyard-unit-')
    try:
        verify(tmp)
        emulate(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    done()


main()
