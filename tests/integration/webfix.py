"""The status pages' fixture, shared by web.py and web_browser.py: a real
git upstream, format-patch mails (a two-version series with reviews, a
hostile patch whose subject, author name and Message-ID try to become
markup), a stage command by mail, and a CI token; plus a server on a free
loopback port."""
import os, subprocess, tempfile, time, urllib.request, urllib.error

from yardlib import Repo, Yard, reply, msgid, free_port, YARD

XSS_SUBJECT = '<script>alert(1)</script> fix'
XSS_NAME = '"><img src=x onerror=alert(1)>'
# Quotes and brackets make a Message-ID invalid (one is made up for such
# a mail); ' and & are valid and must be escaped wherever the id goes.
XSS_MSGID = "x'&amp;<b>@evil.example.org"
EVIL_ID_OK = "q'uote&amp=1@evil.example.org"

MIA = ('Mia Maintainer', 'mia@maint.example.org')
TOM = ('Tom Tester', 'tom@example.com')
ADA = ('Ada Lovelace', 'ada@example.org')


class Fixture:
    def __init__(self, tmp):
        self.tmp = tmp
        self.token = 'tok-%d' % os.getpid()
        with open(os.path.join(tmp, 'ci.token'), 'w') as f:
            f.write('  %s\n' % self.token)  # surrounding blanks are trimmed
        self.up = Repo(os.path.join(tmp, 'up'))
        self.yard = Yard(tmp, '\tarchive = https://lists.example.org/demo/%%s/\n'
                              '[maintainer "mia"]\n\temail = %s\n'
                              '[ci "lab"]\n\temail = ci@lab.example.org\n'
                              '\ttoken-file = %s/ci.token\n'
                              '[auth]\n\trequire = none\n' % (MIA[1], tmp))
        up = self.up
        v1 = up.series([('src/a.c', lambda s: s.replace('a 5\n', 'a five\n'), 'a: spell five'),
                        ('src/b.c', lambda s: s.replace('b 7\n', 'b seven\n'), 'b: spell seven')],
                       ADA, 'v1', title='demo: spell numbers', msgid='s1')
        v2 = up.series([('src/a.c', lambda s: s.replace('a 5\n', 'a five\n'), 'a: spell five'),
                        ('src/b.c', lambda s: s.replace('b 7\n', 'b SEVEN\n'), 'b: spell seven')],
                       ADA, 'v2', version=2, title='demo: spell numbers', msgid='s2', in_reply_to=msgid(v1[0]))
        evil = up.series([('doc/x.txt', lambda s: s.replace('x 3\n', 'x three\n'), XSS_SUBJECT)],
                         ('Xavier Ss', 'xss@example.org'), 'evil', cover=False, msgid='evil')
        evil = [m.replace('From: Xavier Ss <xss@example.org>',
                          'From: "\\"><img src=x onerror=alert(1)>" <xss@example.org>', 1)
                 .replace('Message-ID: <evil-0@example.org>', 'Message-ID: <%s>' % EVIL_ID_OK, 1)
                for m in evil]
        self.v1, self.v2, self.evil = v1, v2, evil
        for m in v1:
            self.yard.ingest(m)
        self.yard.ingest(reply(v1[2], TOM, 'Tested-by: %s <%s>' % TOM))
        for m in v2:
            self.yard.ingest(m)
        self.yard.ingest(reply(v2[0], MIA, 'Looks good.\n\nReviewed-by: %s <%s>' % MIA))
        self.yard.ingest(reply(v2[0], MIA, '#yard stage series'))
        for m in evil:
            self.yard.ingest(m)
        bad = reply(evil[0], TOM, 'Acked-by: %s <%s>' % (XSS_NAME, TOM[1]))
        bad = bad.replace('Message-ID: <%s>' % msgid(bad), 'Message-ID: <%s>' % XSS_MSGID, 1)
        self.yard.ingest(bad)
        self.series = self.yard.show(msgid(v2[0]))
        self.cid = self.series['id']
        self.evil_cid = self.yard.show(EVIL_ID_OK)['id']
        self.base = up.git('rev-parse', 'master').strip()


class Server:
    """patchyard serve on a free loopback port; stop() kills and waits.
    Its log goes to a file: a pipe nobody reads fills up after 64 KB of
    refused connections, and the server then blocks on its next log line
    (its "stopping" on SIGTERM, say)."""

    def __init__(self, conf, *args):
        self.log = tempfile.TemporaryFile()
        for _ in range(5):
            self.port = free_port()
            self.base = 'http://127.0.0.1:%d' % self.port
            self.proc = subprocess.Popen([YARD, '-c', conf, 'serve', '--listen',
                                          '127.0.0.1:%d' % self.port] + list(args),
                                         stdout=subprocess.DEVNULL, stderr=self.log)
            for _ in range(100):
                if self.proc.poll() is not None:
                    break
                try:
                    urllib.request.urlopen(self.base + '/style.css', timeout=2).read()
                    return
                except (urllib.error.URLError, ConnectionError):
                    time.sleep(0.05)
            self.stop()
        raise SystemExit('patchyard serve did not start')

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode if self.proc else None
