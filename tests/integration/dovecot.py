"""A real dovecot IMAP server on loopback for patchyard's tests: its own
base_dir, state_dir and log in a scratch folder, one passwd-file user
whose mail is in sdbox format (not Maildir: see CONF) and owned by the
dovecot system user, a test CA and a server certificate for 127.0.0.1
and localhost, IMAP (STARTTLS) and IMAPS listeners on free ports chosen
at start.  The client side (appending, recreating a mailbox) is Python's
imaplib."""
import imaplib, os, pwd, shutil, signal, ssl, subprocess, time
from yardlib import sh, free_port

USER, PASSWORD = 'bot', 'secret-pw'


def make_ca(d, name):
    """A CA (key, cert) and a server certificate signed by it."""
    ca_key, ca_crt = os.path.join(d, name + '-ca.key'), os.path.join(d, name + '-ca.pem')
    key, csr, crt = (os.path.join(d, name + s) for s in ('.key', '.csr', '.pem'))
    sh(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2',
        '-subj', '/CN=%s test CA' % name, '-keyout', ca_key, '-out', ca_crt,
        '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=keyCertSign'])
    sh(['openssl', 'req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost',
        '-keyout', key, '-out', csr])
    ext = os.path.join(d, name + '.ext')
    with open(ext, 'w') as f:
        f.write('subjectAltName=DNS:localhost,IP:127.0.0.1\n')
    sh(['openssl', 'x509', '-req', '-in', csr, '-CA', ca_crt, '-CAkey', ca_key,
        '-CAcreateserial', '-days', '2', '-extfile', ext, '-out', crt])
    return ca_crt, crt, key


class Dovecot:
    started = []  # for the test's final clean-up

    def __init__(self, tmp, idle=True):
        self.dir = os.path.join(tmp, 'dovecot' if idle else 'dovecot-noidle')
        os.makedirs(self.dir)
        # dovecot's processes run as its own users: let them in.
        os.chmod(tmp, 0o755)
        self.ca, self.cert, self.key = make_ca(self.dir, 'server')
        self.other_ca, _, _ = make_ca(self.dir, 'other')
        self.imap_port = free_port()
        self.imaps_port = free_port()
        self.home = os.path.join(self.dir, 'home', USER)
        os.makedirs(self.home)
        dv = pwd.getpwnam('dovecot')
        for root, dirs, files in os.walk(os.path.join(self.dir, 'home')):
            os.chown(root, dv.pw_uid, dv.pw_gid)
        with open(os.path.join(self.dir, 'passwd'), 'w') as f:
            f.write('%s:{PLAIN}%s::::::\n' % (USER, PASSWORD))
        self.conf = os.path.join(self.dir, 'dovecot.conf')
        with open(self.conf, 'w') as f:
            f.write(CONF % dict(d=self.dir, cert=self.cert, key=self.key,
                                imap=self.imap_port, imaps=self.imaps_port,
                                uid=dv.pw_uid, gid=dv.pw_gid))
            if not idle:
                # What dovecot offers, less IDLE: the source must poll.
                f.write('protocol imap {\n  imap_capability = IMAP4rev1 LITERAL+ '
                        'SASL-IR ENABLE UIDPLUS MOVE NAMESPACE\n}\n')
        self.proc = None

    def start(self):
        Dovecot.started.append(self)
        # A session of its own: kill() takes its whole process group.
        self.proc = subprocess.Popen(['dovecot', '-F', '-c', self.conf],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        for _ in range(200):
            try:
                self.client().logout()
                return self
            except Exception:
                time.sleep(0.05)
        raise SystemExit('dovecot did not start: %s' % self.log()[-2000:])

    def kill(self):
        """Stop the server at once, every process of it (its process
        group: master, imap-login, imap), as a crash would."""
        if self.proc:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
            self.proc = None
            time.sleep(0.2)

    def stop(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait()
            try:  # children that outlive the master
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc = None

    def state(self):
        """For a failure's message: the processes of this server still
        alive (pid, process group, state, name) and the lock files in its
        folder, with what each holds (dovecot writes pid:host)."""
        procs = []
        for pid in os.listdir('/proc'):
            if not pid.isdigit():
                continue
            try:
                cmd = open('/proc/%s/cmdline' % pid, 'rb').read().replace(b'\0', b' ').decode()
                st = open('/proc/%s/stat' % pid).read()
            except OSError:
                continue
            argv0 = cmd.split(' ', 1)[0]
            if argv0.startswith('dovecot/') or os.path.basename(argv0) == 'dovecot' or st[st.find('(') + 1:st.rfind(')')] in ('imap', 'imap-login'):
                f = st[st.rfind(')') + 2:].split()
                procs.append('%s pgrp %s %s %s' % (pid, f[2], f[0], cmd.strip()[:60]))
        locks = []
        for root, _, files in os.walk(self.dir):
            for n in files:
                if n.endswith('.lock'):
                    p = os.path.join(root, n)
                    try:
                        locks.append('%s (%s, %.0f s old)' % (os.path.relpath(p, self.dir),
                                     open(p, errors='replace').read()[:40],
                                     time.time() - os.path.getmtime(p)))
                    except OSError:
                        pass
        return 'processes: %s; locks: %s' % ('; '.join(procs) or 'none', '; '.join(locks) or 'none')

    def log(self):
        try:
            return open(os.path.join(self.dir, 'log'), errors='replace').read()
        except OSError:
            return ''

    def client(self):
        ctx = ssl.create_default_context(cafile=self.ca)
        c = imaplib.IMAP4_SSL('127.0.0.1', self.imaps_port, ssl_context=ctx)
        c.login(USER, PASSWORD)
        return c

    def append(self, mailbox, mails):
        c = self.client()
        for m in mails:
            c.append(mailbox, None, None, m)
        c.logout()

    def create(self, mailbox):
        c = self.client()
        c.create(mailbox)
        c.logout()

    def delete(self, mailbox):
        c = self.client()
        c.delete(mailbox)
        c.logout()

    def uidvalidity(self, mailbox):
        c = self.client()
        typ, data = c.status(mailbox, '(UIDVALIDITY)')
        c.logout()
        return int(data[0].decode().split('UIDVALIDITY')[1].strip(' )'))

    def flags(self, mailbox):
        """The flags of every mail in mailbox, by UID."""
        c = self.client()
        c.select(mailbox)
        typ, data = c.uid('FETCH', '1:*', '(FLAGS)')
        c.logout()
        return [d.decode() for d in data if d]


# sdbox, not Maildir, so that a killed server leaves no lock behind.
# Maildir's dovecot-uidlist.lock is a file holding its owner's pid, and
# a restarted dovecot breaks it only once kill(pid, 0) fails with ESRCH:
# until then every SELECT waits for it, up to 122 s.  An imap process
# killed while it syncs new mail leaves one (about 2 kills in 100 in
# test_imap), and its pid stays alive while the orphan is an unreaped
# zombie (pid 1 here reaps within 2 s, a container's `tail -f
# /dev/null` never) or once it is reused.  sdbox locks with fcntl(),
# which the kernel drops as the process exits.  See docs/DECISIONS.md.
CONF = '''
base_dir = %(d)s/run
state_dir = %(d)s/state
log_path = %(d)s/log
info_log_path = %(d)s/log
listen = 127.0.0.1
protocols = imap
ssl = yes
ssl_cert = <%(cert)s
ssl_key = <%(key)s
auth_mechanisms = plain login
first_valid_uid = 1
first_valid_gid = 1
mail_location = sdbox:~/mail
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%%u %(d)s/passwd
}
userdb {
  driver = static
  args = uid=%(uid)s gid=%(gid)s home=%(d)s/home/%%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = %(imap)d
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = %(imaps)d
    ssl = yes
  }
}
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
protocol imap {
  mail_max_userip_connections = 50
}
'''
