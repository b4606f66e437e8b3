#!/usr/bin/python3
"""The IMAP source against a real dovecot on loopback (issue 19): mail
appended while `run` idles arrives within 5 s; a server killed in the
middle of a fetch loses and duplicates nothing; a certificate that does
not verify, or a wrong pin, is refused and nothing is stored; a new
UIDVALIDITY resyncs without storing anything twice; STARTTLS; seen =
flag and move:FOLDER."""
import json, os, signal, sqlite3, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *
from dovecot import Dovecot, USER, PASSWORD


def mail(tag, i, size=0, extra=''):
    body = ('line %d of a mail to the list\n' % i) * max(1, size // 30) + extra
    return ('From: Ann <ann@example.org>\r\nTo: demo@lists.example.org\r\n'
            'Subject: note %s %d\r\nMessage-ID: <%s-%d@example.org>\r\n'
            'Date: Thu, 03 Dec 2026 10:00:00 +0000\r\n\r\n%s'
            % (tag, i, tag, i, body.replace('\n', '\r\n'))).encode()


class Yard2:
    """A config of its own (database, source) in dir."""
    started = []

    def __init__(self, tmp, name, source):
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir)
        self.conf = os.path.join(self.dir, 'bot.conf')
        with open(self.conf, 'w') as f:
            f.write('[core]\n\tdatabase = yard.db\n[project "demo"]\n'
                    '\tlist = demo@lists.example.org\n[source "list"]\n' + source)
        self.run('init')
        self.proc = None

    def run(self, *args, check_rc=True):
        return sh([YARD, '-c', self.conf] + list(args), check_rc=check_rc)

    def status(self):
        return json.loads(self.run('status', '--json').stdout)

    def count(self):
        return self.status()['messages']

    def wait_for(self, n, seconds):
        end = time.time() + seconds
        while time.time() < end:
            if self.count() >= n:
                break
            time.sleep(0.05)
        return self.count()

    def start(self):
        self.log = open(os.path.join(self.dir, 'run.log'), 'wb')
        self.proc = subprocess.Popen([YARD, '-c', self.conf, '-v', 'run'],
                                     stdout=self.log, stderr=self.log)
        Yard2.started.append(self)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=10)
        self.proc = None

    def logtext(self):
        return open(os.path.join(self.dir, 'run.log'), errors='replace').read()

    def db(self):
        return sqlite3.connect(os.path.join(self.dir, 'yard.db'))


def scenario(tmp):
    d = Dovecot(tmp).start()
    pw = os.path.join(tmp, 'imap.pass')
    with open(pw, 'w') as f:
        f.write(PASSWORD + '\n')
    d.create('lists')
    d.create('done')
    imaps = 'imaps://%s@127.0.0.1:%d/lists' % (USER, d.imaps_port)
    src = '\timap = %s\n\tpassword-file = %s\n\tca-file = %s\n' % (imaps, pw, d.ca)

    # A certificate that does not verify, and a wrong pin: refused, nothing stored.
    bad = Yard2(tmp, 'badca', '\timap = %s\n\tpassword-file = %s\n\tca-file = %s\n'
                % (imaps, pw, d.other_ca))
    # The last one has, inside its literal, what a literal's announcement
    # of 4 GB looks like: only the server's own announcements are refused.
    d.append('lists', [mail('early', i, extra='' if i < 2 else '{4000000000}\n{1}\n')
                       for i in range(3)])
    r = bad.run('run', '--once', check_rc=False)
    err = r.stderr.decode(errors='replace')
    check('run --once fails when the certificate does not verify', r.returncode == 1, err[-300:])
    check('the refusal says why', 'certificate does not verify' in err and 'issuer is unknown' in err, err[-300:])
    st = bad.status()
    check('nothing stored from an unverified server', st['messages'] == 0, st)
    check('status shows the certificate error',
          'does not verify' in (st['sources'][0]['last_error'] or ''), st['sources'])
    pin = Yard2(tmp, 'badpin', src + '\tpin-sha256 = %s\n' % ('ab' * 32))
    r = pin.run('run', '--once', check_rc=False)
    err = r.stderr.decode(errors='replace')
    check('a wrong pin is refused', r.returncode == 1 and 'pin-sha256' in err, err[-300:])
    check('nothing stored with a wrong pin', pin.count() == 0)

    # STARTTLS on imap://, the host named by name (the certificate has both).
    tls = Yard2(tmp, 'starttls', '\timap = imap://%s@localhost:%d/lists\n\tpassword-file = %s\n'
                '\tca-file = %s\n' % (USER, d.imap_port, pw, d.ca))
    r = tls.run('run', '--once', check_rc=False)
    check('imap:// with STARTTLS reads the mailbox', r.returncode == 0 and tls.count() == 3,
          r.stderr.decode(errors='replace')[-300:])
    st = tls.status()['sources'][0]
    check('the position is UIDVALIDITY:UID', st['position'] == '%d:3' % d.uidvalidity('lists'), st)

    # 100 mails appended while run idles: all in within 5 s of the last.
    # The timeout (default 60 s) lets the source give up a session a
    # server holds silent and make it again inside the kill check's wait.
    y = Yard2(tmp, 'main', src + '\tseen = flag\n\ttimeout = 10\n')
    y.start()
    if y.wait_for(3, 10) != 3:
        check('run reads the mail that was there', False, y.logtext()[-500:])
    time.sleep(0.5)  # in IDLE now
    d.append('lists', [mail('burst', i) for i in range(100)])
    last = time.time()
    n = y.wait_for(103, 10)
    took = time.time() - last
    check('100 mails appended during IDLE are in within 5 s (%.2f s)' % took,
          n == 103 and took <= 5, 'got %d %s' % (n, y.logtext()[-3000:]))
    flags = d.flags('lists')
    check('seen = flag marks every fetched mail \\Seen',
          len(flags) == 103 and all('\\Seen' in f for f in flags), flags[:3])

    # The server killed in the middle of a fetch, then started again.
    # The database is watched directly: a status process per look would
    # see the first chunk too late.
    d.append('lists', [mail('big', i, 60000) for i in range(600)])
    db = y.db()
    end = time.time() + 20
    at = 103
    while time.time() < end and at <= 103:
        at = db.execute('SELECT count(*) FROM message').fetchone()[0]
        time.sleep(0.002)
    db.close()
    d.kill()
    if at >= 703:
        print('note: the whole batch was in before the kill')
    time.sleep(1.0)
    d.start()
    # In about 2 s: the source's back-off (1, 2 s) brings it back.
    # Twice (2026-12-06 and -07) the restarted server took logins but
    # answered no SELECT for over 40 s.  With Maildir, an imap process
    # killed in a sync leaves dovecot-uidlist.lock, which dovecot breaks
    # only once the pid in it is gone.  An unreaped zombie or a reused
    # pid is not gone, and every SELECT waited up to 122 s.  The server
    # now keeps its mail in sdbox, whose fcntl() locks die with the
    # process (dovecot.py, docs/DECISIONS.md).
    began = time.time()
    n = y.wait_for(703, 20)
    check('after a kill mid-fetch (at %d) and a restart, every mail is in (%.0f s)'
          % (at, time.time() - began), n == 703,
          '' if n == 703 else '%d; %s\ndovecot: %s\n%s' % (n, y.logtext()[-2000:], d.log()[-2000:], d.state()))
    db = y.db()
    dup = db.execute('SELECT count(*) - count(DISTINCT msgid), sum(deliveries) - count(*)'
                     ' FROM message').fetchone()
    db.close()
    check('nothing stored twice, nothing delivered twice', dup == (0, 0), dup)
    check('the lost connection is logged with its back-off', 'connecting again in' in y.logtext(),
          y.logtext()[-500:])

    # UIDVALIDITY changes: the mailbox is recreated with the same mail and more.
    old = d.uidvalidity('lists')
    y.stop()
    d.delete('lists')
    time.sleep(1.1)
    d.create('lists')
    check('the recreated mailbox has a new UIDVALIDITY', d.uidvalidity('lists') != old)
    d.append('lists', [mail('burst', i) for i in range(100)] + [mail('after', i) for i in range(5)])
    y.start()
    n = y.wait_for(708, 20)
    time.sleep(0.5)
    check('after a UIDVALIDITY change the new mail is in', y.count() == 708,
          '%d; %s\ndovecot: %s' % (n, y.logtext()[-1000:], d.log()[-1000:]))
    db = y.db()
    dup = db.execute('SELECT count(*) - count(DISTINCT msgid) FROM message').fetchone()[0]
    db.close()
    check('the resync stored nothing twice', dup == 0, dup)
    check('the resync is logged', 'UIDVALIDITY changed' in y.logtext())
    y.stop()

    # seen = move:FOLDER takes the mail out of the mailbox.
    mv = Yard2(tmp, 'move', src + '\tseen = move:done\n')
    r = mv.run('run', '--once', check_rc=False)
    check('seen = move:done moves what was stored', r.returncode == 0 and mv.count() == 105
          and len(d.flags('lists')) == 0 and len(d.flags('done')) == 105,
          r.stderr.decode(errors='replace')[-300:])

    # Large mails are stored whole: one over the first MB fetched with
    # the others (fetched again alone), one over the parse limit (16 MB,
    # marked); one over the storage cap (64 MB) is not fetched, and is
    # named.
    d.create('big')
    sizes = {'b1': 2 << 20, 'b2': (16 << 20) + (1 << 20), 'b3': (64 << 20) + 4096, 'b4': 0}
    bigs = {k: mail(k, 1, n) for k, n in sizes.items()}
    d.append('big', list(bigs.values()))
    big = Yard2(tmp, 'big', '\timap = %s\n\tpassword-file = %s\n\tca-file = %s\n'
                % (imaps.replace('/lists', '/big'), pw, d.ca))
    r = big.run('run', '--once', check_rc=False)
    err = r.stderr.decode(errors='replace')
    check('large mails: run --once exits 0', r.returncode == 0, err[-500:])
    db = big.db()
    got = dict(db.execute('SELECT m.msgid, r.bytes FROM message m JOIN raw r ON r.message_id = m.id'))
    flags = dict(db.execute('SELECT msgid, flags FROM message'))
    db.close()
    for k in ('b1', 'b2', 'b4'):
        mid = '%s-1@example.org' % k
        check('large mails: %s (%d bytes) stored whole' % (k, len(bigs[k])), got.get(mid) == bigs[k],
              len(got.get(mid) or b''))
    check('large mails: the one over 16 MB is marked over a limit', flags.get('b2-1@example.org', 0) & 0x21 == 1,
          flags)
    check('large mails: the one over 64 MB is not stored', 'b3-1@example.org' not in got, sorted(got))
    check('large mails: and is named by its UID', 'UID 3: the mail is %d bytes, over the %d bytes a mail may '
          'have: not stored' % (len(bigs['b3']), 64 << 20) in err, err[-500:])
    key_pending(tmp, d, imaps, pw)
    d.stop()

    # A server that accepts and never says a word: SIGTERM still ends run
    # at once, in the middle of waiting for its greeting.
    import socket, threading
    silent = socket.socket()
    silent.bind(('127.0.0.1', 0))
    silent.listen(4)
    held = []
    threading.Thread(target=lambda: held.append(silent.accept()), daemon=True).start()
    hang = Yard2(tmp, 'hang', '\timap = imaps://%s@127.0.0.1:%d/lists\n\tpassword-file = %s\n'
                 % (USER, silent.getsockname()[1], pw))
    hang.start()
    end = time.time() + 10
    while time.time() < end and not held:
        time.sleep(0.05)
    time.sleep(0.5)
    t0 = time.time()
    hang.proc.send_signal(signal.SIGTERM)
    try:
        hang.proc.wait(timeout=2)
        ok = True
    except subprocess.TimeoutExpired:
        ok = False
    check('SIGTERM ends run within 2 s while a server keeps silent (%.2f s)'
          % (time.time() - t0), ok and held, hang.logtext()[-300:])

    # timeout: a connection whose server stays silent is given up.
    quick = Yard2(tmp, 'quick', '\timap = imaps://%s@127.0.0.1:%d/lists\n\tpassword-file = %s\n'
                  '\ttimeout = 1\n' % (USER, silent.getsockname()[1], pw))
    t0 = time.time()
    r = quick.run('run', '--once', check_rc=False)
    took = time.time() - t0
    err = r.stderr.decode(errors='replace')
    check('timeout = 1 gives up a silent server (%.2f s)' % took,
          r.returncode == 1 and took < 10 and 'timed out' in err, err[-300:])
    silent.close()

    # A server without IDLE is polled every interval seconds.
    n = Dovecot(tmp, idle=False).start()
    n.create('lists')
    poll = Yard2(tmp, 'poll', '\timap = imaps://%s@127.0.0.1:%d/lists\n\tpassword-file = %s\n'
                 '\tca-file = %s\n\tinterval = 1\n' % (USER, n.imaps_port, pw, n.ca))
    poll.start()
    time.sleep(1)
    n.append('lists', [mail('poll', i) for i in range(5)])
    got = poll.wait_for(5, 10)
    poll.stop()
    log = poll.logtext()
    check('without IDLE the mailbox is polled', got == 5 and 'connected, UIDVALIDITY' in log
          and ', IDLE' not in log, log[-500:])
    n.stop()


def patch(tag, sig=''):
    return (sig + 'From: Ann <ann@example.org>\r\nTo: demo@lists.example.org\r\n'
            'Subject: [PATCH] f: %s\r\nMessage-ID: <%s@example.org>\r\n'
            'Date: Thu, 03 Dec 2026 10:00:00 +0000\r\n\r\nChange f.\r\n\r\n'
            'Signed-off-by: Ann <ann@example.org>\r\n---\r\ndiff --git a/f b/f\r\n'
            '--- a/f\r\n+++ b/f\r\n@@ -1 +1 @@\r\n-%s\r\n+%s!\r\n' % (tag, tag, tag, tag)).encode()


def key_pending(tmp, d, imaps, pw):
    """A DKIM key being looked up holds no write lock: what the chunk
    stored before the signed mail is committed, and another writer begins
    a transaction while the key is awaited.  The key source that blocks is
    auth.dkim-keys made a FIFO nobody writes to (a DNS server that never
    answers would need /etc/resolv.conf changed; tests/integration/proof.py
    says more); the signature need not verify for its key to be looked
    up."""
    d.create('signed')
    sig = ('DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.org; s=sel;\r\n'
           ' h=from:subject:message-id; bh=%s=;\r\n b=%s\r\n' % ('A' * 43, 'A' * 172))
    d.append('signed', [patch('first'), patch('second', sig)])
    fifo = os.path.join(tmp, 'pending.keys')
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDWR)  # a writer that writes nothing yet
    y = Yard2(tmp, 'pending', '\timap = %s\n\tpassword-file = %s\n\tca-file = %s\n'
              '[auth]\n\tdkim-keys = %s\n' % (imaps.replace('/lists', '/signed'), pw, d.ca, fifo))
    y.start()
    fds = '/proc/%d/fd' % y.proc.pid
    end = time.time() + 20
    waiting = False
    while time.time() < end and not waiting:
        try:
            waiting = any(os.readlink(os.path.join(fds, f)) == fifo for f in os.listdir(fds))
        except OSError:
            pass
        time.sleep(0.05)
    time.sleep(0.3)
    check('pending key: the signed mail waits for its key', waiting, y.logtext()[-300:])
    db = sqlite3.connect(os.path.join(y.dir, 'yard.db'), timeout=2)
    try:
        db.execute('BEGIN IMMEDIATE')
        db.rollback()
        began = None
    except sqlite3.OperationalError as e:
        began = str(e)
    first = db.execute("SELECT count(*) FROM message WHERE msgid = 'first@example.org'").fetchone()[0]
    db.close()
    check('pending key: another writer begins a transaction meanwhile', began is None, began)
    check('pending key: the mail before it is committed', first == 1, first)
    os.write(fd, b'# no key for sel._domainkey.example.org\n')
    os.close(fd)
    n = y.wait_for(2, 20)
    y.stop()
    db = y.db()
    note = db.execute("SELECT auth, auth_note FROM message WHERE msgid = 'second@example.org'").fetchone()
    db.close()
    check('pending key: then the signed mail is stored, judged', n == 2 and note == (None, 'no key for sel._domainkey.example.org'),
          (n, note, y.logtext()[-300:]))


def main():
    if os.geteuid() != 0:
        # dovecot's mail processes run as its own user; setting that up
        # needs root (as CI and make check have).
        print('skip: the dovecot test needs root')
        return
    tmp = tempfile.mkdtemp()
    try:
        scenario(tmp)
    finally:
        for d in Dovecot.started:
            d.stop()
        for y in Yard2.started:
            y.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    done()


main()
