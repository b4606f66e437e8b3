"""Shared helpers for patchyard's Python integration tests: real git
repositories, real format-patch mails, replies, a real SMTP server
(tests/integration/smtpd.py) and the patchyard CLI."""
import email, email.utils, glob, json, os, shutil, socket, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
YARD = os.environ.get('PATCHYARD') or os.path.join(HERE, '..', '..', 'patchyard')
failures = []


def check(what, cond, detail=''):
    if cond:
        print('ok   %s' % what)
    else:
        print('FAIL %s %s' % (what, detail))
        failures.append(what)


def done():
    print('%d checks failed' % len(failures))
    sys.exit(1 if failures else 0)


def sh(cmd, cwd=None, inp=None, env=None, check_rc=True):
    r = subprocess.run(cmd, cwd=cwd, input=inp, capture_output=True, env=env)
    if check_rc and r.returncode:
        sys.exit('command failed: %s\n%s' % (cmd, r.stderr.decode(errors='replace')))
    return r


class Repo:
    """A throw-away git repository with a few files."""

    def __init__(self, path):
        self.path = path
        os.makedirs(path)
        self.git('init', '-q', '-b', 'master')
        files = {'README': 'demo\n', 'src/a.c': ''.join('a %d\n' % i for i in range(60)),
                 'src/b.c': ''.join('b %d\n' % i for i in range(60)),
                 'doc/x.txt': ''.join('x %d\n' % i for i in range(20))}
        for f, c in files.items():
            self.write(f, c)
        self.commit('initial', ('Up Stream', 'up@example.org'))

    def git(self, *args, who=None, inp=None):
        env = dict(os.environ, GIT_CONFIG_NOSYSTEM='1', HOME=self.path,
                   GIT_AUTHOR_DATE='2026-11-01T10:00:00+00:00',
                   GIT_COMMITTER_DATE='2026-11-01T10:00:00+00:00')
        if who:
            env.update(GIT_AUTHOR_NAME=who[0], GIT_AUTHOR_EMAIL=who[1],
                       GIT_COMMITTER_NAME=who[0], GIT_COMMITTER_EMAIL=who[1])
        return sh(['git', '-C', self.path] + list(args), env=env, inp=inp).stdout.decode()

    def write(self, f, text):
        p = os.path.join(self.path, f)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        open(p, 'w').write(text)

    def read(self, f):
        return open(os.path.join(self.path, f)).read()

    def commit(self, subject, who):
        self.git('add', '-A', who=who)
        self.git('commit', '-q', '-m', subject + '\n\nBody of ' + subject +
                 '.\n\nSigned-off-by: %s <%s>' % who, who=who)

    def series(self, edits, who, branch, cover=True, version=1, title='demo: a series',
               msgid='s', in_reply_to=None):
        """Commit edits on a branch off master; return format-patch mails,
        cover first, with Message-IDs <msgid-N@example.org>."""
        self.git('checkout', '-q', '-b', branch, 'master')
        for f, fn, subject in edits:
            self.write(f, fn(self.read(f) if os.path.exists(os.path.join(self.path, f)) else ''))
            self.commit(subject, who)
        args = ['-c', 'user.name=' + who[0], '-c', 'user.email=' + who[1], 'format-patch',
                '--stdout', '--thread=shallow', '--no-signature']
        if cover:
            args.append('--cover-letter')
        if version > 1:
            args.append('-v%d' % version)
        out = self.git(*(args + ['master..' + branch]), who=who)
        self.git('checkout', '-q', 'master')
        mails = []
        for m in out.split('\nFrom ')[0:]:
            m = m if m.startswith('From ') else 'From ' + m
            m = m.split('\n', 1)[1]
            m = m.replace('*** SUBJECT HERE ***', title).replace('*** BLURB HERE ***', 'A cover letter.')
            mails.append(m)
        ids = ['%s-%d@example.org' % (msgid, i) for i in range(len(mails))]
        fixed = []
        for i, m in enumerate(mails):
            head, body = m.split('\n\n', 1)
            keep = [l for l in head.split('\n') if not l.lower().startswith(('message-id:', 'in-reply-to:', 'references:'))]
            keep.append('Message-ID: <%s>' % ids[i])
            parent = ids[0] if i else in_reply_to
            if parent:
                keep.append('In-Reply-To: <%s>' % parent)
                keep.append('References: <%s>' % parent)
            keep.append('To: demo@lists.example.org')
            fixed.append('\n'.join(keep) + '\n\n' + body)
        return fixed


def header(mail, name):
    v = email.message_from_string(mail).get(name)
    return ' '.join(str(v).split()) if v is not None else None


def msgid(mail):
    return (header(mail, 'Message-ID') or '').strip('<>')


_n = [0]


def reply(parent, sender, body, authserv=None, dkim='pass', dkim_domain=None, extra=''):
    """A reply to parent (a mail text) from sender (name, addr)."""
    _n[0] += 1
    pid = msgid(parent)
    subj = header(parent, 'Subject')
    mid = 'r%d.%s' % (_n[0], sender[1])
    hdr = ''
    if authserv:
        hdr += 'Authentication-Results: %s; dkim=%s header.d=%s header.s=sel\n' % (
            authserv, dkim, dkim_domain or sender[1].split('@')[1])
    hdr += extra
    hdr += ('From: %s <%s>\nTo: demo@lists.example.org\nSubject: Re: %s\nMessage-ID: <%s>\n'
            'In-Reply-To: <%s>\nReferences: <%s>\nDate: %s\nMIME-Version: 1.0\n'
            'Content-Type: text/plain; charset=utf-8\n\n') % (
        sender[0], sender[1], subj, mid, pid, pid, email.utils.formatdate())
    return hdr + body + '\n'


class Yard:
    def __init__(self, tmp, extra):
        self.tmp = tmp
        self.conf = os.path.join(tmp, 'bot.conf')
        with open(self.conf, 'w') as f:
            f.write('[core]\n\tdatabase = %s/yard.db\n[project "demo"]\n\tlist = demo@lists.example.org\n' % tmp)
            f.write(extra)
        self.run('init')

    def run(self, *args, inp=None, check_rc=True):
        return sh([YARD, '-c', self.conf] + list(args), inp=inp, check_rc=check_rc)

    def ingest(self, mail):
        return self.run('ingest', '--project', 'demo', inp=mail.encode())

    def show(self, ref):
        r = self.run('show', '--json', ref, check_rc=False)
        return json.loads(r.stdout) if r.returncode == 0 else {}

    def states(self, ref):
        c = self.show(ref)
        return [(p['number'], p['state'], p.get('queue'), p.get('reason')) for p in c.get('patches', [])]


class Smtpd:
    """tests/integration/smtpd.py on a free loopback port."""

    def __init__(self, tmp, mode='accept', port=0, args=()):
        self.tmp = tmp
        self.control = os.path.join(tmp, 'smtpd.control')
        self.maildir = os.path.join(tmp, 'sink')
        self.statsfile = os.path.join(tmp, 'smtpd.stats')
        self.args = list(args)
        self.set_mode(mode)
        self.port = port
        self.proc = None

    def set_mode(self, mode):
        with open(self.control, 'w') as f:
            f.write(mode + '\n')

    def start(self):
        pf = os.path.join(self.tmp, 'smtpd.port')
        if os.path.exists(pf):
            os.unlink(pf)
        self.proc = subprocess.Popen(['/usr/bin/python3', os.path.join(HERE, 'smtpd.py'),
                                      '--port', str(self.port), '--port-file', pf,
                                      '--maildir', self.maildir, '--control', self.control,
                                      '--stats', self.statsfile] + self.args,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(pf):
                self.port = int(open(pf).read())
                return self
            time.sleep(0.05)
        raise SystemExit('smtpd did not start')

    def stop(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait()
            self.proc = None

    def stats(self):
        """The server's counts: connections, mails (MAIL FROMs), dropped."""
        try:
            return {k: int(v) for k, v in (l.split() for l in open(self.statsfile))}
        except (OSError, ValueError):
            return {}

    def mails(self):
        out = []
        for f in sorted(glob.glob(os.path.join(self.maildir, 'new', '*')) + glob.glob(os.path.join(self.maildir, 'cur', '*'))):
            out.append(open(f, 'rb').read().decode('utf-8', errors='replace').replace('\r\n', '\n'))
        return out


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    p = s.getsockname()[1]
    s.close()
    return p


def epoch_add(inbox, n, raws):
    """Append the raw mails (bytes) to epoch n of the public-inbox v2
    archive at inbox (public-inbox-v2-format(5)): one commit per mail, the
    mail as the blob m at the root of its tree.  The epoch's git dir."""
    g = '%s/git/%d.git' % (inbox, n)
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
    return g
