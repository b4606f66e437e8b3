#!/usr/bin/python3
"""Hostile servers cannot wedge `patchyard run`.

IMAP: a fake server over TLS on loopback (a real dovecot cannot
misbehave) that trickles a literal, floods untagged lines, answers UID
SEARCH with 69 MB of UIDs, or accepts and never says a word: each
session fails within its deadline with an error that says why, memory
stays bounded (the process's peak RSS, from wait4()), and SIGTERM ends
`run` within 2 s whatever the server does.

public-inbox by URL: a plain HTTP server (git's smart protocol,
githttp.py) that answers for every epoch number: the mirror stops at
the epochs the inbox's manifest.js.gz lists, or without one at its hard
bound; an epoch holding a blob of 400 MB of zeros is skipped and
logged, not inflated, by path and by URL, while a mail of 17 MB beside
it (over the 16 MB parsed, under the 64 MB stored) is stored whole and
marked.

Under AddressSanitizer (make check's second pass) the process is larger
and slower to start and exit: the RSS bounds are widened and the 2 s of
SIGTERM become 4 s there, as the messages say."""
import gzip, json, os, re, signal, socket, sqlite3, ssl, subprocess, sys, tempfile, threading, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *
from dovecot import make_ca

procs = []
ASAN = b'__asan_init' in open(YARD, 'rb').read()
STOP_S = 4.0 if ASAN else 2.0


class Yard2:
    """A config of its own (database, source) in dir."""

    def __init__(self, tmp, name, source):
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir)
        self.conf = os.path.join(self.dir, 'bot.conf')
        with open(self.conf, 'w') as f:
            f.write('[core]\n\tdatabase = yard.db\n[project "demo"]\n'
                    '\tlist = demo@lists.example.org\n[source "src"]\n' + source)
        sh([YARD, '-c', self.conf, 'init'])
        self.proc = None

    def timed(self, *args):
        """Run patchyard; (returncode, stderr, seconds, peak RSS in MB)."""
        t0 = time.time()
        p = subprocess.Popen([YARD, '-c', self.conf] + list(args),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        return (p.returncode, err.decode(errors='replace'), time.time() - t0,
                ru.ru_maxrss / 1024.0)

    def status(self):
        return json.loads(sh([YARD, '-c', self.conf, 'status', '--json']).stdout)

    def start(self):
        self.logf = open(os.path.join(self.dir, 'run.log'), 'wb')
        self.proc = subprocess.Popen([YARD, '-c', self.conf, '-v', 'run'],
                                     stdout=self.logf, stderr=self.logf)
        procs.append(self.proc)

    def log(self):
        return open(os.path.join(self.dir, 'run.log'), errors='replace').read()

    def sigterm(self):
        """SIGTERM; the seconds until the process is gone (None: never)."""
        t0 = time.time()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
            return time.time() - t0
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None


MAIL = (b'From: Ann <ann@example.org>\r\nTo: demo@lists.example.org\r\n'
        b'Subject: note\r\nMessage-ID: <fake-1@example.org>\r\n'
        b'Date: Thu, 03 Dec 2026 10:00:00 +0000\r\n\r\nBody.\r\n')


class FakeImap:
    """An IMAPS server on loopback that plays one part:
    silent:  accepts and never says a word (no TLS handshake either);
    trickle: answers UID FETCH with a literal of 1000 bytes, one a second;
    flood:   answers UID FETCH with untagged lines, as fast as they go;
    search:  answers UID SEARCH with 69 MB of UIDs;
    good:    one mail, as a server should."""

    def __init__(self, tmp, part):
        d = os.path.join(tmp, 'fake-' + part)
        os.makedirs(d)
        self.ca, cert, key = make_ca(d, 'fake')
        self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.ctx.load_cert_chain(cert, key)
        self.part = part
        self.sock = socket.socket()
        self.sock.bind(('127.0.0.1', 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.conns = 0
        self.held = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns += 1
            self.held.append(c)
            if self.part != 'silent':
                threading.Thread(target=self.session, args=(c,), daemon=True).start()

    def session(self, raw):
        try:
            c = self.ctx.wrap_socket(raw, server_side=True)
            f = c.makefile('rb')
            c.sendall(b'* OK [CAPABILITY IMAP4rev1 IDLE UIDPLUS] fake\r\n')
            for line in f:
                words = line.split()
                if len(words) < 2:
                    continue
                tag, cmd = words[0], words[1].upper()
                if cmd == b'UID' and len(words) > 2:
                    cmd = b'UID ' + words[2].upper()
                self.answer(c, tag, cmd)
        except (OSError, ValueError):
            pass

    def answer(self, c, tag, cmd):
        ok = tag + b' OK done\r\n'
        if cmd == b'LOGIN':
            c.sendall(tag + b' OK [CAPABILITY IMAP4rev1 IDLE UIDPLUS] in\r\n')
        elif cmd == b'CAPABILITY':
            c.sendall(b'* CAPABILITY IMAP4rev1 IDLE UIDPLUS\r\n' + ok)
        elif cmd == b'SELECT':
            c.sendall(b'* 1 EXISTS\r\n* OK [UIDVALIDITY 7] v\r\n* OK [UIDNEXT 2] n\r\n'
                      + tag + b' OK [READ-WRITE] sel\r\n')
        elif cmd == b'UID SEARCH' and self.part == 'search':
            chunk = b' 1234567' * (1 << 17)  # 1 MB of UIDs
            c.sendall(b'* SEARCH')
            for _ in range(69):
                c.sendall(chunk)
            c.sendall(b'\r\n' + ok)
        elif cmd == b'UID SEARCH':
            c.sendall(b'* SEARCH 1\r\n' + ok)
        elif cmd == b'UID FETCH' and self.part == 'trickle':
            c.sendall(b'* 1 FETCH (UID 1 RFC822.SIZE 1000 BODY[]<0> {1000}\r\n')
            while True:
                c.sendall(b'x')
                time.sleep(1)
        elif cmd == b'UID FETCH' and self.part == 'flood':
            lines = b'* 1 EXISTS\r\n' * 8192
            while True:
                c.sendall(lines)
        elif cmd == b'UID FETCH':
            c.sendall(b'* 1 FETCH (UID 1 RFC822.SIZE %d BODY[]<0> {%d}\r\n%s)\r\n'
                      % (len(MAIL), len(MAIL), MAIL) + ok)
        elif cmd == b'IDLE':
            c.sendall(b'+ idling\r\n')
        else:
            c.sendall(ok)

    def close(self):
        self.sock.close()
        for c in self.held:
            c.close()


def imap_source(fake, timeout=None, scheme='imaps'):
    s = '\timap = %s://bot@127.0.0.1:%d/INBOX\n\tpassword-file = %s\n\tca-file = %s\n' % (
        scheme, fake.port, fake.pw, fake.ca)
    if timeout:
        s += '\ttimeout = %d\n' % timeout
    return s


def imap(tmp):
    pw = os.path.join(tmp, 'imap.pass')
    with open(pw, 'w') as f:
        f.write('pw\n')
    fakes = {}
    for part in ('silent', 'trickle', 'flood', 'search', 'good'):
        fakes[part] = FakeImap(tmp, part)
        fakes[part].pw = pw

    # The fake is a server that works, to begin with.
    y = Yard2(tmp, 'good', imap_source(fakes['good']))
    rc, err, took, rss = y.timed('run', '--once')
    check('the fake server serves a mail (%.2f s, %.0f MB)' % (took, rss),
          rc == 0 and y.status()['messages'] == 1, err[-500:])
    base = rss

    # A literal trickled a byte a second: each read is quick, the answer
    # never complete.  The fetch is given up at its deadline (timeout = 2).
    y = Yard2(tmp, 'trickle', imap_source(fakes['trickle'], timeout=2))
    rc, err, took, rss = y.timed('run', '--once')
    check('a trickled literal fails the session within its deadline (%.2f s)' % took,
          rc == 1 and took < 2 + 3, err[-500:])
    check('... and the error says so', 'UID FETCH: the server\'s answer was not complete '
          'after 2 s' in err, err[-500:])
    st = y.status()['sources'][0]
    check('... in the source\'s last_error too', 'not complete after 2 s' in (st['last_error'] or ''), st)

    # Untagged lines without end, as fast as they go.
    y = Yard2(tmp, 'flood', imap_source(fakes['flood'], timeout=30))
    rc, err, took, rss = y.timed('run', '--once')
    bound = base + (64 if ASAN else 16)
    check('endless untagged lines fail the session at once (%.2f s)' % took,
          rc == 1 and took < 10 and 'passed 1 MB outside its literals' in err, err[-500:])
    check('... memory stays bounded (peak %.0f MB, %.0f MB for a good session; bound %.0f MB%s)'
          % (rss, base, bound, ' under ASan' if ASAN else ''), rss < bound)

    # A UID SEARCH answer of 69 MB of UIDs (it took 717 MB).
    y = Yard2(tmp, 'search', imap_source(fakes['search'], timeout=30))
    rc, err, took, rss = y.timed('run', '--once')
    check('a UID SEARCH answer of 69 MB is refused (%.2f s)' % took,
          rc == 1 and 'UID SEARCH: the server\'s answer passed 1 MB outside its literals' in err,
          err[-500:])
    check('... memory stays bounded (peak %.0f MB; bound %.0f MB%s)'
          % (rss, bound, ' under ASan' if ASAN else ''), rss < bound)

    # SIGTERM while the server keeps silent (TLS handshake, clear
    # greeting) and while it trickles with the default timeout of 60 s.
    for name, source in (('silent-imaps', imap_source(fakes['silent'])),
                         ('silent-imap', imap_source(fakes['silent'], scheme='imap')),
                         ('trickle-run', imap_source(fakes['trickle']))):
        fake = fakes[name.split('-')[0]]
        before = fake.conns
        y = Yard2(tmp, name, source)
        y.start()
        end = time.time() + 10
        while time.time() < end and fake.conns == before:
            time.sleep(0.05)
        time.sleep(1.5)  # in the middle of it
        took = y.sigterm()
        check('%s: SIGTERM ends run within %.0f s%s (%s s)' % (
            name, STOP_S, ' (ASan)' if ASAN else '',
            '%.2f' % took if took is not None else 'never'),
            fake.conns > before and took is not None and took < STOP_S, y.log()[-500:])
        check('%s: ... and stopping is not recorded as the source\'s error' % name,
              y.status()['sources'] == [] or y.status()['sources'][0]['last_error'] is None
              or 'stopping' not in y.status()['sources'][0]['last_error'], y.status()['sources'])
    for f in fakes.values():
        f.close()


def archive_mail(tag, i):
    return ('From: Ann <ann@example.org>\nTo: demo@lists.example.org\n'
            'Subject: note %s %d\nMessage-ID: <%s-%d@example.org>\n'
            'Date: Thu, 03 Dec 2026 10:00:00 +0000\n\nBody %d.\n'
            % (tag, i, tag, i, i)).encode()


def archive_mail_of(tag, size):
    """An archive mail of size bytes: a header, then lines of filler."""
    head = archive_mail(tag, 0)
    line = b'a line of a very large generated file, and more of it\n'
    return head + line * ((size - len(head)) // len(line) + 1)


def stored(y, mid):
    """(flags, raw bytes) of the stored mail mid, or None."""
    c = sqlite3.connect('file:%s?mode=ro' % os.path.join(y.dir, 'yard.db'), uri=True)
    row = c.execute('SELECT m.flags, r.bytes FROM message m JOIN raw r ON r.message_id = m.id '
                    'WHERE m.msgid = ?', (mid,)).fetchone()
    c.close()
    return row


def epoch_add_zeros(g, size):
    """A commit whose mail is size bytes of zeros, made with git
    hash-object (it deflates to size/1000); its id."""
    blob = sh(['sh', '-c', 'head -c %d /dev/zero | git -C %s hash-object -w --stdin'
               % (size, g)]).stdout.decode().strip()
    tree = sh(['git', '-C', g, 'mktree'], inp=b'100644 blob %s\tm\n' % blob.encode())
    head = sh(['git', '-C', g, 'rev-parse', 'master']).stdout.decode().strip()
    env = dict(os.environ, GIT_AUTHOR_NAME='a', GIT_AUTHOR_EMAIL='a@b', GIT_COMMITTER_NAME='a',
               GIT_COMMITTER_EMAIL='a@b')
    commit = sh(['git', '-C', g, 'commit-tree', '-p', head, '-m', 'mail',
                 tree.stdout.decode().strip()], env=env).stdout.decode().strip()
    sh(['git', '-C', g, 'update-ref', 'refs/heads/master', commit])
    return commit


def manifest(inbox, name, epochs):
    """inbox/manifest.js.gz as public-inbox writes it, listing epochs."""
    m = {}
    for n in epochs:
        m['/%s/git/%d.git' % (name, n)] = {
            'description': name, 'fingerprint': '%040x' % n, 'modified': 1700000000,
            'owner': None, 'reference': '/%s/git/0.git' % name if n else None}
    with open(os.path.join(inbox, 'manifest.js.gz'), 'wb') as f:
        f.write(gzip.compress(json.dumps(m).encode()))


def mirrored(y):
    d = os.path.join(y.dir, 'yard.db.sources', 'src', 'git')
    return sorted(int(e[:-4]) for e in os.listdir(d) if e.endswith('.git')) if os.path.isdir(d) else []


def pubinbox(tmp):
    root = os.path.join(tmp, 'web')
    # An inbox of two epochs, served by a server that answers for every
    # epoch number (each one is its epoch 0).
    every = os.path.join(root, 'every')
    epoch_add(every, 0, [archive_mail('e0', i) for i in range(3)])
    epoch_add(every, 1, [archive_mail('e1', i) for i in range(2)])
    # The same server for an inbox with a manifest listing 0 and 1 (its
    # epoch 1 is its epoch 0 again: the same three mails).
    listed = os.path.join(root, 'listed')
    epoch_add(listed, 0, [archive_mail('l0', i) for i in range(3)])
    manifest(listed, 'listed', [0, 1])
    # A manifest that inflates to 8 MB: not read, the epochs probed.
    bomb = os.path.join(root, 'bomb')
    epoch_add(bomb, 0, [archive_mail('z', i) for i in range(2)])
    with open(os.path.join(bomb, 'manifest.js.gz'), 'wb') as f:
        f.write(gzip.compress(b' ' * (8 << 20)))
    # An epoch holding a mail of 400 MB of zeros between two others,
    # and a mail over the 16 MB parsed but under the 64 MB stored.
    big = os.path.join(root, 'big')
    g = epoch_add(big, 0, [archive_mail('b', 0)])
    zeros = epoch_add_zeros(g, 400 * 1000 * 1000)
    large = archive_mail_of('large', 17 * 1024 * 1024)
    epoch_add(big, 0, [archive_mail('b', 1), large])
    pf = os.path.join(tmp, 'http.port')
    procs.append(subprocess.Popen(['/usr/bin/python3', os.path.join(HERE, 'githttp.py'),
                                   '--root', root, '--port-file', pf,
                                   '--every-epoch', 'every', '--every-epoch', 'listed']))
    for _ in range(200):
        if os.path.exists(pf):
            break
        time.sleep(0.05)
    url = 'http://127.0.0.1:%s/' % open(pf).read()
    src = '\tpublic-inbox = %s\n\tproject = demo\n'

    # No manifest: probed in order, stopped at the bound.
    y = Yard2(tmp, 'every', src % (url + 'every'))
    rc, err, took, rss = y.timed('run', '--once')
    st = y.status()
    check('a server answering every epoch: the mirror stops at 64 epochs (%.1f s)' % took,
          mirrored(y) == list(range(64)), (mirrored(y), err[-500:]))
    check('... says so in the log and the source\'s last_error',
          'only 0-63 are mirrored' in err and
          'only 0-63' in (st['sources'][0]['last_error'] or ''), (st['sources'], err[-500:]))
    check('... and reads what it mirrored', st['messages'] == 3, st['messages'])

    # A manifest listing 0 and 1: exactly those, on the first poll and after.
    y = Yard2(tmp, 'listed', src % (url + 'listed'))
    for poll in ('first', 'second'):
        rc, err, took, rss = y.timed('run', '--once')
        check('a manifest listing epochs 0 and 1: exactly those mirrored (%s poll)' % poll,
              rc == 0 and mirrored(y) == [0, 1] and y.status()['messages'] == 3,
              (mirrored(y), err[-500:]))

    y = Yard2(tmp, 'bomb', src % (url + 'bomb'))
    rc, err, took, rss = y.timed('run', '--once')
    check('a manifest inflating past 1 MB is not read; epochs probed instead',
          rc == 0 and mirrored(y) == [0] and 'over 1024 KB inflated' in err and
          y.status()['messages'] == 2, (mirrored(y), err[-500:]))

    # SIGTERM while run mirrors the server that answers every epoch.
    y = Yard2(tmp, 'every-run', src % (url + 'every'))
    y.start()
    end = time.time() + 20
    while time.time() < end and len(mirrored(y)) < 5:
        time.sleep(0.05)
    took = y.sigterm()
    check('SIGTERM ends run within %.0f s in the middle of mirroring (%s s, at epoch %d)'
          % (STOP_S, '%.2f' % took if took is not None else 'never', len(mirrored(y))),
          took is not None and took < STOP_S and len(mirrored(y)) < 64, y.log()[-500:])

    # The 400 MB blob: skipped and logged, by URL and by path, memory
    # bounded; the 17 MB mail beside it stored whole.
    for how, where in (('by URL', url + 'big'), ('by path', big)):
        y = Yard2(tmp, 'big-' + how.split()[1], src % where)
        rc, err, took, rss = y.timed('run', '--once')
        st = y.status()
        want = 'epoch 0: commit %s: a mail of 400000000 bytes over the 67108864 bytes allowed, skipped' % zeros
        check('%s: a mail of 400 MB of zeros is skipped, the others stored (%.1f s)' % (how, took),
              st['messages'] == 3, (st['messages'], err[-500:]))
        check('%s: ... logged with its epoch and commit' % how, want in err, err[-500:])
        check('%s: ... and shown as the source\'s last_error' % how,
              st['sources'][0]['last_error'] == want, st['sources'])
        bound = 250 if ASAN else 120
        check('%s: ... peak RSS %.0f MB, well below the 400 MB (bound %d MB%s)'
              % (how, rss, bound, ' under ASan' if ASAN else ''), rss < bound)
        row = stored(y, 'large-0@example.org')
        check('%s: a mail of 17 MB is stored whole, byte for byte, and marked over a limit' % how,
              row is not None and row[1] == large and row[0] & 0x21 == 0x01,
              row and (row[0], len(row[1]), len(large)))


def main():
    tmp = tempfile.mkdtemp()
    try:
        imap(tmp)
        pubinbox(tmp)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    done()


main()
