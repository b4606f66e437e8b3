#!/usr/bin/python3
"""patchyard run and status (issue 19): a public-inbox v2 archive made
with git followed by path and by URL (new mail, a new epoch, a rewritten
epoch), a Maildir source, the lock against a second run, SIGHUP with a
broken config, SIGTERM in the middle of an import and run --once going
on, 50 concurrent MTA deliveries while run runs, and run --once doing
upstream scan, rebuild and send with a staging repository and a real
SMTP sink."""
import json, os, signal, sqlite3, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *

procs = []


def mail(tag, i):
    return ('From: Ann <ann@example.org>\nTo: demo@lists.example.org\n'
            'Subject: note %s %d\nMessage-ID: <%s-%d@example.org>\n'
            'Date: Thu, 03 Dec 2026 10:00:00 +0000\n\nBody %d.\n'
            % (tag, i, tag, i, i)).encode()


def epoch_rewrite(inbox, n, raws):
    """Epoch n made again from raws: a history that shares nothing."""
    g = '%s/git/%d.git' % (inbox, n)
    out = []
    for i, raw in enumerate(raws):
        out.append(b'commit refs/heads/master\ncommitter b <b@c> 1700000001 +0000\ndata 4\nmail\n')
        if i == 0:
            out.append(b'from 0000000000000000000000000000000000000000\n')
        out.append(b'M 100644 inline m\ndata %d\n%s\n' % (len(raw), raw))
    sh(['git', '-C', g, 'fast-import', '--quiet', '--force'], inp=b''.join(out))


class Y:
    def __init__(self, tmp, name, extra):
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir)
        self.conf = os.path.join(self.dir, 'bot.conf')
        self.write(extra)
        self.run('init')
        self.proc = None

    def write(self, extra):
        with open(self.conf, 'w') as f:
            f.write('[core]\n\tdatabase = yard.db\n[project "demo"]\n'
                    '\tlist = demo@lists.example.org\n' + extra)

    def run(self, *args, check_rc=True, inp=None):
        return sh([YARD, '-c', self.conf] + list(args), check_rc=check_rc, inp=inp)

    def status(self):
        # A copy of the config, so that status works while the test
        # breaks the one run reads.
        good = os.path.join(self.dir, 'status.conf')
        if not os.path.exists(good):
            shutil.copy(self.conf, good)
        return json.loads(sh([YARD, '-c', good, 'status', '--json']).stdout)

    def count(self):
        return self.status()['messages']

    def wait_for(self, n, seconds):
        end = time.time() + seconds
        while time.time() < end and self.count() < n:
            time.sleep(0.05)
        return self.count()

    def start(self):
        self.logf = open(os.path.join(self.dir, 'run.log'), 'wb')
        self.proc = subprocess.Popen([YARD, '-c', self.conf, 'run'], stdout=self.logf,
                                     stderr=self.logf)
        procs.append(self.proc)

    def log(self):
        return open(os.path.join(self.dir, 'run.log'), errors='replace').read()

    def db(self):
        return sqlite3.connect(os.path.join(self.dir, 'yard.db'))


def follow(tmp):
    inbox = os.path.join(tmp, 'inbox')
    epoch_add(inbox, 0, [mail('a', i) for i in range(60)])
    epoch_add(inbox, 1, [mail('b', i) for i in range(40)])
    src = '[source "archive"]\n\tpublic-inbox = %s\n\tproject = demo\n\tinterval = 1\n'
    y = Y(tmp, 'path', src % inbox)
    url = Y(tmp, 'url', src % ('file://' + inbox))
    # git's smart HTTP, as lore serves its epochs.
    pf = os.path.join(tmp, 'http.port')
    procs.append(subprocess.Popen(['/usr/bin/python3', os.path.join(HERE, 'githttp.py'),
                                   '--root', tmp, '--port-file', pf]))
    for _ in range(200):
        if os.path.exists(pf):
            break
        time.sleep(0.05)
    http = Y(tmp, 'http', src % ('http://127.0.0.1:%s/inbox' % open(pf).read()))
    for who in (y, url, http):
        r = who.run('run', '--once', check_rc=False)
        check('%s: run --once follows two epochs' % os.path.basename(who.dir),
              r.returncode == 0 and who.count() == 100, r.stderr.decode(errors='replace')[-300:])
    epoch_add(inbox, 1, [mail('b', i) for i in range(40, 60)])
    epoch_add(inbox, 2, [mail('c', i) for i in range(20)])
    for who in (y, url, http):
        who.run('run', '--once', check_rc=False)
        check('%s: appended mail and a third epoch arrive on the next poll' % os.path.basename(who.dir),
              who.count() == 140, who.count())
    st = y.status()['sources'][0]
    head = sh(['git', '-C', inbox + '/git/2.git', 'rev-parse', 'master']).stdout.decode().strip()
    check('status shows the source and its position',
          st == {'name': 'archive', 'kind': 'public-inbox', 'position': '2:' + head,
                 'last_error': None}, st)
    check('the URL was mirrored beside the database',
          os.path.isdir(os.path.join(url.dir, 'yard.db.sources/archive/git/2.git')))
    # Epoch 1 rewritten (a mail purged, the rest committed again) and one more mail.
    epoch_rewrite(inbox, 1, [mail('b', i) for i in range(1, 60)])
    for who in (y, url, http):
        r = who.run('run', '--once', check_rc=False)
        err = r.stderr.decode(errors='replace')
        st = who.status()
        check('%s: a rewritten epoch is reported' % os.path.basename(who.dir),
              'epoch 1 was rewritten' in err and
              'rewritten' in (st['sources'][0]['last_error'] or ''), err[-300:])
        check('%s: ... and not read again' % os.path.basename(who.dir), st['messages'] == 140, st['messages'])
    epoch_add(inbox, 1, [mail('b', 60)])
    for who in (y, url, http):
        who.run('run', '--once', check_rc=False)
        st = who.status()
        check('%s: the rewritten epoch is followed on' % os.path.basename(who.dir),
              st['messages'] == 141 and st['sources'][0]['last_error'] is None, st)
    return y, inbox


def daemon(tmp, y, inbox):
    y.start()
    time.sleep(0.5)
    r = y.run('run', '--once', check_rc=False)
    err = r.stderr.decode(errors='replace')
    check('a second run on the same database refuses', r.returncode == 1 and
          'another patchyard run' in err, err[-300:])
    epoch_add(inbox, 2, [mail('c', i) for i in range(20, 40)])
    check('run follows the archive by itself', y.wait_for(161, 15) == 161, y.count())

    # 50 concurrent deliveries, each retried on 75 as an MTA would; then the same 50 again.
    def deliver(raw):
        for _ in range(50):
            p = subprocess.run([YARD, '-c', y.conf, 'ingest', '--project', 'demo'],
                               input=raw, capture_output=True)
            if p.returncode != 75:
                return p.returncode
            time.sleep(0.2)
        return 75
    raws = [mail('mta', i) for i in range(50)]
    with ThreadPoolExecutor(50) as ex:
        rcs = list(ex.map(deliver, raws))
    check('50 concurrent deliveries all end stored', rcs == [0] * 50, rcs)
    with ThreadPoolExecutor(25) as ex:
        rcs = list(ex.map(deliver, raws))
    db = y.db()
    n, dup, deliveries = db.execute(
        "SELECT count(*), count(*) - count(DISTINCT msgid), sum(deliveries) FROM message"
        " WHERE msgid LIKE 'mta-%'").fetchone()
    db.close()
    check('each stored exactly once, second deliveries counted',
          (n, dup, deliveries) == (50, 0, 100) and y.count() == 211, (n, dup, deliveries, y.count()))

    # SIGHUP with a broken config: logged with file:line, the old one kept.
    with open(y.conf) as f:
        good = f.read()
    with open(y.conf, 'a') as f:
        f.write('[run]\n\tsend-interval = soon\n')
    y.proc.send_signal(signal.SIGHUP)
    time.sleep(1)
    check('SIGHUP with a broken config keeps run running', y.proc.poll() is None)
    check('... and says where the config is broken',
          'bot.conf:' in y.log() and 'not reloaded' in y.log(), y.log()[-300:])
    epoch_add(inbox, 2, [mail('c', 40)])
    check('... on the old config', y.wait_for(212, 10) == 212, y.count())
    with open(y.conf, 'w') as f:
        f.write(good)
    for _ in range(2):  # the second reload replaces a reloaded config
        y.proc.send_signal(signal.SIGHUP)
        time.sleep(0.5)
    check('SIGHUP with a good config reloads it', y.log().count('config: reloaded') == 2,
          y.log()[-300:])

    # SIGTERM in the middle of an import: out within 2 s; run --once goes on.
    epoch_add(inbox, 3, [mail('d', i) for i in range(6000)])
    end = time.time() + 20
    while time.time() < end and y.count() <= 212:
        time.sleep(0.02)
    t0 = time.time()
    y.proc.send_signal(signal.SIGTERM)
    try:
        y.proc.wait(timeout=2)
        took = time.time() - t0
    except subprocess.TimeoutExpired:
        took = None
        y.proc.kill()
        y.proc.wait()
    at = y.count()
    check('run exits within 2 s of SIGTERM mid-import (%s s, at %d)' % (
        '%.2f' % took if took is not None else 'never', at), took is not None)
    if at >= 6212:
        print('note: the import was over before SIGTERM')
    r = y.run('run', '--once', check_rc=False)
    check('run --once goes on where it stopped', y.count() == 6212,
          (y.count(), r.stderr.decode(errors='replace')[-300:]))


def maildir(tmp):
    md = os.path.join(tmp, 'Maildir')
    for sub in ('tmp', 'new', 'cur'):
        os.makedirs(os.path.join(md, sub))

    def deliver(i):
        name = '%d.M%dP1.host' % (1700000000 + i, i)
        with open(os.path.join(md, 'tmp', name), 'wb') as f:
            f.write(mail('md', i))
        os.rename(os.path.join(md, 'tmp', name), os.path.join(md, 'new', name))
    for i in range(3):
        deliver(i)
    y = Y(tmp, 'md', '[source "drop"]\n\tmaildir = %s\n' % md)
    y.run('run', '--once')
    deliver(3)
    y.run('run', '--once')
    st = y.status()
    check('a Maildir source reads new mail', st['messages'] == 4 and
          st['sources'][0]['kind'] == 'maildir', st)


def staging(tmp):
    """run --once on a project with a staging repository: upstream scan,
    rebuild and send in one go, the acknowledgments in a real SMTP sink."""
    repo = Repo(os.path.join(tmp, 'up'))
    smtpd = Smtpd(tmp).start()
    procs.append(smtpd.proc)
    y = Yard(tmp, '''	upstream = %s
	branch = master
	staging = %s/staging.git
[bot]
	address = yard@bot.example.org
[auth]
	require = none
[smtp]
	url = smtp://127.0.0.1:%d
	starttls = never
[test]
	command = grep -q five src/a.c
''' % (repo.path, tmp, smtpd.port))
    mails = repo.series([('src/a.c', lambda s: s.replace('a 5\n', 'a five\n'), 'a: spell five')],
                        ('Ada Author', 'ada@example.org'), 'one', cover=False, msgid='one')
    y.ingest(mails[0])
    y.run('stage', 'one-0@example.org')
    st = json.loads(y.run('status', '--json').stdout)
    check('before run: nothing ran, the ack waits for the build',
          st['last'] == {'rebuild': None, 'upstream': None, 'graduate': None, 'test': None, 'send': None}
          and st['outbox']['waiting'] == 1, st)
    r = y.run('run', '--once', check_rc=False)
    st = json.loads(y.run('status', '--json').stdout)
    check('run --once scans upstream, rebuilds, tests and sends',
          r.returncode == 0 and all(st['last'][k] for k in ('rebuild', 'upstream', 'test', 'send')),
          (st, r.stderr.decode(errors='replace')[-300:]))
    got = smtpd.mails()
    check('the staged acknowledgment is in the SMTP sink',
          len(got) == 1 and 'X-Patchyard-Event: staged' in got[0], got)
    check('status counts the staged contribution and an empty outbox',
          st['contributions'].get('staged') == 1 and
          st['outbox'] == {'due': 0, 'waiting': 0, 'failed': 0}, st)
    ks = y.show('one-0@example.org').get('checks', [])
    check('the daemon tested the staged tip: one patchyard/test success',
          [(k.get('context'), k.get('state')) for k in ks] == [('patchyard/test', 'success')], ks)
    staged = sh(['git', '-C', tmp + '/staging.git', 'log', '-1', '--format=%s', 'unstable'])
    check('the unstable branch holds the patch', staged.stdout.decode().strip() == 'a: spell five')
    smtpd.stop()


def main():
    tmp = tempfile.mkdtemp()
    try:
        y, inbox = follow(tmp)
        daemon(tmp, y, inbox)
        maildir(tmp)
        staging(tmp)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    done()


main()
