#!/usr/bin/python3
"""Bad input at the MTA pipe (the ingest issue): a truncated mail, binary
garbage, a 50 MB mail, a 1 MB header, MIME nested 1,000 deep, invalid
UTF-8, an unknown charset, a loop in References, no Message-ID at all.
Each is stored (exit 0), marked when over a limit, logged, and nothing
crashes or hangs; a second delivery of each is recognised."""
import os, random, sqlite3, sys, tempfile, shutil, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *

def closed_stdio(tmp):
    """An import run with descriptors 0-2 closed (a cron line, `<&-
    >&- 2>&-`): it imports, and its log is still copied into the
    database afterwards (the helper's socket pair would otherwise land
    on 0-2, under the /dev/null it puts there)."""
    import subprocess
    d = os.path.join(tmp, 'closed')
    os.makedirs(d)
    c = Yard(d, '')
    mbox = os.path.join(d, 'list.mbox')
    with open(mbox, 'w') as f:
        for i in range(2000):
            f.write('From x@example.org Thu Dec  3 06:00:00 2026\n'
                    'From: Sender %d <s%d@example.org>\nTo: demo@lists.example.org\n'
                    'Subject: mail %d\nDate: Thu, 03 Dec 2026 06:00:00 +0000\n'
                    'Message-ID: <closed-%d@example.org>\n\n%s\n' % (i, i, i, i, ('words %d ' % i) * 400))
    r = subprocess.run(['/bin/sh', '-c', 'exec "$0" -c "$1" import --project demo "$2" <&- >&- 2>&-',
                        YARD, c.conf, mbox])
    check('an import with 0-2 closed exits 0', r.returncode == 0, r.returncode)
    wal = os.path.join(d, 'yard.db-wal')
    end = time.monotonic() + 60
    while os.path.exists(wal) and time.monotonic() < end:
        time.sleep(0.05)
    check('its log is copied into the database after it', not os.path.exists(wal),
          os.path.getsize(wal) if os.path.exists(wal) else None)
    db = sqlite3.connect('file:%s/yard.db?mode=ro' % d, uri=True)
    n = db.execute('SELECT count(*) FROM message').fetchone()[0]
    db.close()
    check('every mail is in', n == 2000, n)


tmp = tempfile.mkdtemp(prefix='yard-bad-')
try:
    y = Yard(tmp, '')
    hdr = lambda mid, extra='': ('From: Bad Sender <bad@example.org>\nTo: demo@lists.example.org\n'
                                 'Subject: bad input\nDate: Thu, 03 Dec 2026 06:00:00 +0000\n'
                                 'Message-ID: <%s@example.org>\n%s' % (mid, extra))
    rnd = random.Random(11)
    nest = hdr('nested', 'MIME-Version: 1.0\n') + ''.join(
        'Content-Type: multipart/mixed; boundary="b%d"\n\n--b%d\n' % (i, i) for i in range(1000)) + \
        'Content-Type: text/plain\n\nthe bottom\n'
    cases = {
        'truncated': hdr('truncated', 'Content-Type: multipart/mixed; boundary="x"\n')[:-5],
        'binary garbage': bytes(rnd.randrange(256) for _ in range(100000)),
        '50 MB mail': hdr('huge') + '\n' + ('x' * 1000 + '\n') * 50000,
        '1 MB header': hdr('bighead', 'X-Junk: ' + 'y' * (1024 * 1024) + '\n') + '\nbody\n',
        'MIME nested 1000 deep': nest,
        'invalid UTF-8': hdr('badutf8', 'Content-Type: text/plain; charset=utf-8\n') + '\n\xff\xfe body \xc3\x28\n',
        'unknown charset': hdr('unknowncs', 'Content-Type: text/plain; charset=x-klingon\n') + '\n\xe9t\xe9\n',
        'loop in References': hdr('loop-a', 'References: <loop-b@example.org> <loop-a@example.org>\n') + '\nA\n',
        'loop, other side': hdr('loop-b', 'References: <loop-a@example.org>\nIn-Reply-To: <loop-a@example.org>\n') + '\nB\n',
        'no Message-ID': 'From: x@example.org\nSubject: no id\n\nnothing\n',
    }
    for name, mail in cases.items():
        data = mail if isinstance(mail, bytes) else mail.encode('latin-1', errors='replace')
        t0 = time.monotonic()
        r = y.run('ingest', '--project', 'demo', inp=data, check_rc=False)
        check('%s: stored (exit %d)' % (name, r.returncode), r.returncode == 0, r.stderr.decode(errors='replace')[-300:])
        check('%s: in reasonable time' % name, time.monotonic() - t0 < 60)
        r2 = y.run('ingest', '--project', 'demo', inp=data, check_rc=False)
        check('%s: a second delivery is recognised' % name, r2.returncode == 0)
    db = sqlite3.connect('file:%s/yard.db?mode=ro' % tmp, uri=True)
    rows = db.execute('SELECT count(*), sum(deliveries) FROM message').fetchone()
    check('one message per mail, two deliveries each', rows == (len(cases), 2 * len(cases)), rows)
    flags = dict(db.execute("SELECT msgid, flags FROM message").fetchall())
    check('the 50 MB mail is marked over a limit, not cut', flags.get('huge@example.org', 0) & 0x21 == 0x01, flags)
    # A header over its limit is not read at all: its key is made from
    # the content, so a second delivery still finds it.
    check('the 1 MB header is marked over a limit',
          sum(1 for k, f in flags.items() if f & 1 and k.endswith('.invalid')) >= 1, flags)
    check('the nested mail is marked', flags.get('nested@example.org', 0) & 0x9, flags)
    check('the unknown charset is marked', flags.get('unknowncs@example.org', 0) & 0x10, flags)
    check('no Message-ID: one was made', any(k.endswith('@msgid.patchyard.invalid') for k in flags), list(flags))
    size = db.execute("SELECT length(bytes) FROM raw JOIN message m ON m.id = raw.message_id WHERE m.msgid = 'huge@example.org'").fetchone()
    check('the 50 MB mail is stored whole', size and size[0] == len(cases['50 MB mail']), size)
    r = y.run('list', '--json', check_rc=False)
    check('list still works', r.returncode == 0)
    closed_stdio(tmp)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
done()
