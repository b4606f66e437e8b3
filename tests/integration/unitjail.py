"""Run a command under the settings of a systemd service unit, without
systemd (tests/integration/unit.py uses it on contrib/patchyard.service).

Three steps, each executing the next, as root:

  unshare --mount --propagation private [--uts]
    unitjail.py mounts UNIT STATE -- setpriv ... \\
      unitjail.py seccomp UNIT -- COMMAND...

  mounts   the file system directives (ProtectProc=, ProcSubset=,
           ProtectSystem=strict with ReadWritePaths=, whose first path
           shows the folder STATE, PrivateTmp=, ProtectHome=,
           PrivateDevices='s /dev, PrivateMounts= (a private namespace),
           ProtectControlGroups=, ProtectKernelModules=,
           ProtectKernelTunables=, ProtectKernelLogs=) done with mount(8)
           in the new mount namespace, as systemd's namespace.c does;
  setpriv  User=, NoNewPrivileges=, CapabilityBoundingSet= (empty only);
  seccomp  the directives systemd turns into seccomp filters
           (SystemCallFilter=, RestrictNamespaces=,
           RestrictAddressFamilies=, MemoryDenyWriteExecute=,
           LockPersonality=, RestrictRealtime=, RestrictSUIDSGID=, the
           @clock/@module/@raw-io/syslog/sethostname denials of
           ProtectClock=, ProtectKernelModules=, PrivateDevices=,
           ProtectKernelLogs=, ProtectHostname=), loaded with libseccomp
           (systemd's own library, there wherever systemd is) through
           ctypes, plus UMask=.  SystemCallFilter='s groups are expanded
           by `systemd-analyze syscall-filter`, so they are this
           systemd's.

What cannot be emulated without systemd (the unit test says so too):
the device cgroup of PrivateDevices= (DevicePolicy=closed),
SystemCallArchitectures= beyond libseccomp's native-only default, the
cgroup side of everything, and the Restart=/Kill*= life cycle.
x86_64 argument positions are assumed (clone's flags first)."""
import ctypes, errno, os, re, shutil, subprocess, sys

API = ('/proc', '/sys', '/dev')


def parse_unit(path, text=None):
    """The [Service] directives: name -> list of values, in order."""
    d, sec = {}, None
    for line in (text.split('\n') if text is not None else open(path)):
        line = line.strip()
        if not line or line[0] in '#;':
            continue
        if line.startswith('['):
            sec = line
            continue
        if sec == '[Service]' and '=' in line:
            k, v = line.split('=', 1)
            d.setdefault(k.strip(), []).append(v.strip())
    return d


def last(d, key, default=''):
    return d[key][-1] if key in d and d[key] else default


def yes(d, key):
    return last(d, key).lower() in ('yes', 'true', '1', 'on')


# ---- mounts ----

def mount(*args):
    r = subprocess.run(['mount'] + list(args), capture_output=True, text=True)
    if r.returncode:
        sys.exit('unitjail: mount %s: %s' % (' '.join(args), r.stderr.strip()))


def mounts_now():
    """(mount point, read-only) of /proc/self/mountinfo, in order."""
    out = []
    for line in open('/proc/self/mountinfo'):
        f = line.split()
        mp = re.sub(r'\\([0-7]{3})', lambda m: chr(int(m.group(1), 8)), f[4])
        out.append((mp, 'ro' in f[5].split(',')))
    return out


def under(path, top):
    return path == top or path.startswith(top.rstrip('/') + '/')


def inaccessible(path):
    """What systemd's InaccessiblePaths= does: an empty, unreadable mount
    over it (a file gets /dev/null: an overmount all the same)."""
    if not os.path.lexists(path):
        return
    if os.path.isdir(path):
        mount('-t', 'tmpfs', '-o', 'ro,mode=000,nosuid,nodev,noexec', 'tmpfs', path)
    else:
        mount('--bind', '/dev/null', path)
        mount('-o', 'remount,bind,ro', path)


def private_dev():
    """PrivateDevices='s /dev: the pseudo devices, a devpts, a /dev/shm."""
    mount('-t', 'tmpfs', '-o', 'mode=755,nosuid', 'tmpfs', '/dev')
    for name, major, minor in (('null', 1, 3), ('zero', 1, 5), ('full', 1, 7),
                               ('random', 1, 8), ('urandom', 1, 9), ('tty', 5, 0)):
        os.mknod('/dev/' + name, 0o666 | 0o020000, os.makedev(major, minor))
        os.chmod('/dev/' + name, 0o666)
    os.mkdir('/dev/pts')
    mount('-t', 'devpts', '-o', 'newinstance,ptmxmode=0666,mode=620,nosuid,noexec', 'devpts', '/dev/pts')
    os.symlink('pts/ptmx', '/dev/ptmx')
    os.mkdir('/dev/shm')
    mount('-t', 'tmpfs', '-o', 'mode=1777,nosuid,nodev', 'tmpfs', '/dev/shm')
    for name, target in (('fd', '/proc/self/fd'), ('stdin', '/proc/self/fd/0'),
                         ('stdout', '/proc/self/fd/1'), ('stderr', '/proc/self/fd/2')):
        os.symlink(target, '/dev/' + name)


# systemd 252's namespace.c tables.
TUNABLES_RO = ['/proc/acpi', '/proc/apm', '/proc/asound', '/proc/bus', '/proc/fs', '/proc/irq',
               '/proc/latency_stats', '/proc/mtrr', '/proc/scsi', '/proc/sys', '/proc/sysrq-trigger',
               '/proc/timer_stats']
TUNABLES_GONE = ['/proc/kallsyms', '/proc/kcore']


def do_mounts(unit, state):
    d = parse_unit(unit)
    rw = ' '.join(d.get('ReadWritePaths', [])).split()
    if rw:
        # The state folder is shown where the unit lets it write.
        target = rw[0]
        parent = os.path.dirname(target)
        if not os.path.isdir(target):
            mount('-t', 'tmpfs', '-o', 'mode=755', 'tmpfs', parent)
            os.makedirs(target)
        mount('--bind', state, target)
    pp, ps = last(d, 'ProtectProc', 'default'), last(d, 'ProcSubset', 'all')
    if pp != 'default' or ps != 'all':
        # A /proc of its own, with the options (Linux 5.8).
        opts = ['nosuid', 'nodev', 'noexec']
        if pp != 'default':
            opts.append('hidepid=' + pp)
        if ps == 'pid':
            opts.append('subset=pid')
        mount('-t', 'proc', '-o', ','.join(opts), 'proc', '/proc')
    if last(d, 'ProtectSystem') == 'strict':
        for mp, ro in mounts_now():
            if ro or any(under(mp, a) for a in API) or any(under(mp, p) for p in rw):
                continue
            mount('-o', 'remount,bind,ro', mp)
    if yes(d, 'PrivateTmp'):
        for t in ('/tmp', '/var/tmp'):
            mount('-t', 'tmpfs', '-o', 'mode=1777,nosuid,nodev', 'tmpfs', t)
    if last(d, 'ProtectHome') in ('yes', 'true'):
        for h in ('/home', '/root', '/run/user'):
            inaccessible(h)
    if yes(d, 'PrivateDevices'):
        private_dev()
    if yes(d, 'ProtectControlGroups'):
        for mp, ro in mounts_now():
            if under(mp, '/sys/fs/cgroup') and not ro:
                mount('-o', 'remount,bind,ro', mp)
    if yes(d, 'ProtectKernelModules'):
        for m in ('/usr/lib/modules', '/lib/modules'):
            inaccessible(m)
    if yes(d, 'ProtectKernelTunables'):
        for p in TUNABLES_RO:
            if os.path.exists(p):
                mount('--bind', p, p)
                mount('-o', 'remount,bind,ro', p)
        for p in TUNABLES_GONE:
            inaccessible(p)
    if yes(d, 'ProtectKernelLogs'):
        inaccessible('/proc/kmsg')


# ---- seccomp ----

ALLOW = 0x7fff0000
KILL_PROCESS = 0x80000000


def ERRNO(e):
    return 0x00050000 | (e & 0xffff)


NE, EQ, MASKED_EQ = 1, 4, 7


class Cmp(ctypes.Structure):
    _fields_ = [('arg', ctypes.c_uint), ('op', ctypes.c_int),
                ('a', ctypes.c_uint64), ('b', ctypes.c_uint64)]


NS_FLAGS = {'cgroup': 0x02000000, 'ipc': 0x08000000, 'net': 0x40000000, 'mnt': 0x00020000,
            'pid': 0x20000000, 'user': 0x10000000, 'uts': 0x04000000}


class Filter:
    """One seccomp filter, built with libseccomp."""
    lib = None

    def __init__(self, default):
        if Filter.lib is None:
            Filter.lib = ctypes.CDLL('libseccomp.so.2', use_errno=True)
            Filter.lib.seccomp_init.restype = ctypes.c_void_p
            Filter.lib.seccomp_init.argtypes = [ctypes.c_uint32]
            Filter.lib.seccomp_rule_add_array.argtypes = [
                ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(Cmp)]
            Filter.lib.seccomp_load.argtypes = [ctypes.c_void_p]
            Filter.lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        self.ctx = Filter.lib.seccomp_init(default)
        if not self.ctx:
            sys.exit('unitjail: seccomp_init failed')

    def rule(self, action, name, *cmps):
        nr = Filter.lib.seccomp_syscall_resolve_name(name.encode())
        if nr < 0:
            return  # not a system call of this architecture
        arr = (Cmp * max(1, len(cmps)))(*[Cmp(*c) for c in cmps])
        rc = Filter.lib.seccomp_rule_add_array(self.ctx, action, nr, len(cmps), arr)
        if rc < 0 and rc != -errno.EEXIST:
            sys.exit('unitjail: seccomp rule %s: %s' % (name, os.strerror(-rc)))

    def load(self):
        rc = Filter.lib.seccomp_load(self.ctx)
        if rc < 0:
            sys.exit('unitjail: seccomp_load: %s' % os.strerror(-rc))


def syscall_groups():
    """@group -> members (names and @groups), from systemd-analyze."""
    out = subprocess.run(['systemd-analyze', 'syscall-filter', '--no-pager'],
                         capture_output=True, text=True, check=True).stdout
    groups, cur = {}, None
    for line in out.splitlines():
        s = line.strip()
        if not s or s.startswith('#'):
            continue
        if line.startswith('@'):
            cur = groups.setdefault(s, [])
        elif cur is not None:
            cur.append(s)
    return groups


def expand(names, groups, seen=None):
    seen = set() if seen is None else seen
    out = set()
    for n in names:
        if n.startswith('@'):
            if n not in seen:
                seen.add(n)
                out |= expand(groups.get(n, []), groups, seen)
        else:
            out.add(n)
    return out


def deny(f, names, groups, e=errno.EPERM):
    for n in expand(names, groups):
        f.rule(ERRNO(e), n)


def do_seccomp(unit, text=None):
    d = parse_unit(unit, text)
    groups = syscall_groups()
    filters = []
    allow = []
    for v in d.get('SystemCallFilter', []):
        if v.startswith('~'):
            sys.exit('unitjail: deny-list SystemCallFilter= is not emulated: %s' % v)
        allow += v.split()
    if allow:
        # Loaded last: seccomp(2) itself is not in the list.
        f = Filter(KILL_PROCESS)
        for n in expand(allow, groups):
            f.rule(ALLOW, n)
        allow_list = f
    else:
        allow_list = None
    rn = last(d, 'RestrictNamespaces')
    if rn:
        allowed = set() if rn in ('yes', 'true') else set(rn.split()) if rn not in ('no', 'false') \
            else set(NS_FLAGS)
        f = Filter(ALLOW)
        for name, flag in NS_FLAGS.items():
            if name in allowed:
                continue
            f.rule(ERRNO(errno.EPERM), 'unshare', (0, MASKED_EQ, flag, flag))
            f.rule(ERRNO(errno.EPERM), 'clone', (0, MASKED_EQ, flag, flag))
            f.rule(ERRNO(errno.EPERM), 'setns', (1, MASKED_EQ, flag, flag))
        if allowed != set(NS_FLAGS):
            f.rule(ERRNO(errno.EPERM), 'setns', (1, EQ, 0, 0))
            # clone3's flags are in memory: systemd makes it ENOSYS, and
            # glibc falls back to clone.
            f.rule(ERRNO(errno.ENOSYS), 'clone3')
        filters.append(f)
    fams = ' '.join(d.get('RestrictAddressFamilies', [])).split()
    if fams:
        import socket
        ok = {getattr(socket, a) for a in fams}
        f = Filter(ALLOW)
        for af in range(0, 46):
            if af not in ok:
                f.rule(ERRNO(errno.EAFNOSUPPORT), 'socket', (0, EQ, af, 0))
        filters.append(f)
    f = Filter(ALLOW)
    if yes(d, 'MemoryDenyWriteExecute'):
        f.rule(ERRNO(errno.EPERM), 'mmap', (2, MASKED_EQ, 0x6, 0x6))
        f.rule(ERRNO(errno.EPERM), 'mprotect', (2, MASKED_EQ, 0x4, 0x4))
        f.rule(ERRNO(errno.EPERM), 'pkey_mprotect', (2, MASKED_EQ, 0x4, 0x4))
        f.rule(ERRNO(errno.EPERM), 'shmat', (2, MASKED_EQ, 0o100000, 0o100000))
    if yes(d, 'LockPersonality'):
        f.rule(ERRNO(errno.EPERM), 'personality', (0, NE, 0, 0))
    if yes(d, 'RestrictRealtime'):
        for policy in (1, 2, 6):  # SCHED_FIFO, SCHED_RR, SCHED_DEADLINE
            f.rule(ERRNO(errno.EPERM), 'sched_setscheduler', (1, MASKED_EQ, 0x3fffffff, policy))
    if yes(d, 'RestrictSUIDSGID'):
        for bit in (0o4000, 0o2000):
            f.rule(ERRNO(errno.EPERM), 'chmod', (1, MASKED_EQ, bit, bit))
            f.rule(ERRNO(errno.EPERM), 'fchmod', (1, MASKED_EQ, bit, bit))
            f.rule(ERRNO(errno.EPERM), 'fchmodat', (2, MASKED_EQ, bit, bit))
    if yes(d, 'ProtectClock'):
        deny(f, ['@clock'], groups)
    if yes(d, 'ProtectKernelModules'):
        deny(f, ['@module'], groups)
    if yes(d, 'PrivateDevices'):
        deny(f, ['@raw-io'], groups)
    if yes(d, 'ProtectKernelLogs'):
        deny(f, ['syslog'], groups)
    if yes(d, 'ProtectHostname'):
        deny(f, ['sethostname', 'setdomainname'], groups)
    filters.append(f)
    um = last(d, 'UMask')
    if um:
        os.umask(int(um, 8))
    for f in filters + ([allow_list] if allow_list else []):
        f.load()


def hand_on(unit, cmd):
    """The unit's text for the seccomp step on an inherited pipe: the
    file may be out of sight once the mounts are done (PrivateTmp=)."""
    text = open(unit, 'rb').read()
    r, w = os.pipe()
    os.write(w, text)
    os.close(w)
    os.set_inheritable(r, True)
    return [('fd:%d' % r if c == '@UNIT@' else c) for c in cmd]


def main():
    a = sys.argv[1:]
    if '--' not in a:
        sys.exit(__doc__)
    cmd = a[a.index('--') + 1:]
    if a[0] == 'mounts':
        cmd = hand_on(a[1], cmd)
        do_mounts(a[1], a[2])
    elif a[0] == 'seccomp':
        unit = a[1]
        if unit.startswith('fd:'):
            fd = int(unit[3:])
            text = os.read(fd, 1 << 20)
            os.close(fd)
            do_seccomp(None, text.decode())
        else:
            do_seccomp(unit)
    else:
        sys.exit(__doc__)
    os.execvp(cmd[0], cmd)


def inside(state, target, path):
    """path as the jail sees it: a copy in the state folder (shown as
    ReadWritePaths= says) when PrivateTmp= or ProtectHome= would hide
    where it is -- a clone under /tmp or /home, as CI may have."""
    hidden = ('/tmp/', '/var/tmp/', '/home/', '/root/', '/run/user/')
    if not os.path.abspath(path).startswith(hidden):
        return path
    name = '.jail-' + os.path.basename(path)
    shutil.copy2(path, os.path.join(state, name))
    return os.path.join(target, name)


def command(unit, state, user, cmd):
    """The whole chain for cmd, as argv (cmd[0], the program, is copied
    where the jail can see it when it would be hidden)."""
    d = parse_unit(unit)
    rw = ' '.join(d.get('ReadWritePaths', [])).split()
    me = there = os.path.abspath(__file__)
    if rw:  # the seccomp step and cmd run after the mounts
        there = inside(state, rw[0], me)
        cmd = [inside(state, rw[0], cmd[0])] + list(cmd[1:])
    py = '/usr/bin/python3'
    jail = ['unshare', '--mount', '--propagation', 'private']
    if yes(d, 'ProtectHostname'):
        jail.append('--uts')
    priv = ['setpriv', '--reuid=%d' % user, '--regid=%d' % user, '--clear-groups',
            '--inh-caps=-all', '--ambient-caps=-all']
    if yes(d, 'NoNewPrivileges'):
        priv.append('--no-new-privs')
    if 'CapabilityBoundingSet' in d:
        if last(d, 'CapabilityBoundingSet'):
            sys.exit('unitjail: only an empty CapabilityBoundingSet= is emulated')
        priv.append('--bounding-set=-all')
    return (jail + [py, me, 'mounts', unit, state, '--'] + priv +
            [py, there, 'seccomp', '@UNIT@', '--'] + list(cmd))


if __name__ == '__main__':
    main()
