"""A generated list archive with the shape of a busy kernel list (issue 23).

The util-linux corpus is small mail (a few KB on average, few attachments,
short threads).  A busy kernel list is heavier: mails of about 8 KB on
average, a quarter of them multi-part (signed, HTML beside text, patches
and logs attached), reviews quoting 200 lines and more of the patch, 30%
patches of 1-40 KB, and threads running 20 replies deep.  This module makes
such an archive, the same bytes on every run (a fixed seed, no clock), so
that the bench can hold our import to its target on mail like that too.

    write(path, n) -> stats    an mboxrd of n mails (the last thread may
                               run a few mails over n)
"""
import random

SEED = 0x23
VERSION = 'kernel-corpus v2'
BASE_TIME = 1700000000

SYL = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'te', 'vo', 'da', 'fi', 'gu',
       'he', 'ji', 'po', 'qu', 'ze', 'an', 'el', 'is', 'or']
DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']
MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep',
          'Oct', 'Nov', 'Dec']


def date(t):
    """RFC 5322 date in UTC, from seconds (no time module: same everywhere)."""
    days, s = divmod(t, 86400)
    # Civil from days (Howard Hinnant's algorithm).
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    y += m <= 2
    return '%s, %d %s %d %02d:%02d:%02d +0000' % (
        DAYS[(days + 3) % 7], d, MONTHS[m - 1], y, s // 3600, s // 60 % 60, s % 60)


class Gen:
    def __init__(self):
        self.r = random.Random(SEED)
        r = self.r
        self.words = [''.join(r.choice(SYL) for _ in range(r.randint(1, 4)))
                      for _ in range(512)]
        self.people = [('%s %s' % (self.word().title(), self.word().title()),
                        '%s@%s.example.org' % (self.word(), self.word()))
                       for _ in range(300)]
        self.dirs = ['drivers/%s/%s' % (self.word(), self.word()) for _ in range(60)]
        self.t = BASE_TIME
        self.n = 0
        self.mails = []
        self.deepest = 0

    def word(self):
        return self.r.choice(self.words)

    def line(self, lo=20, hi=76):
        r, out, k = self.r, [], 0
        target = r.randint(lo, hi)
        while k < target:
            w = self.word()
            out.append(w)
            k += len(w) + 1
        return ' '.join(out)

    def para(self, n):
        return '\n'.join(self.line() for _ in range(n)) + '\n'

    def code(self):
        r = self.r
        kind = r.randrange(4)
        ind = '\t' * r.randint(1, 3)
        if kind == 0:
            return '%s%s = %s(%s, %d);' % (ind, self.word(), self.word(), self.word(), r.randrange(1000))
        if kind == 1:
            return '%sif (%s->%s)' % (ind, self.word(), self.word())
        if kind == 2:
            return '%sreturn -E%s;' % (ind, self.word().upper())
        return '%s/* %s */' % (ind, self.line(10, 50))

    def msgid(self):
        self.n += 1
        return '<%d.%s.%s@%s.example.org>' % (BASE_TIME + self.n, self.word(), self.word(), self.word())

    def headers(self, who, subject, mid, parent, refs, extra=''):
        self.t += self.r.randint(5, 400)
        h = ['From: %s <%s>' % who, 'To: kernel-list@vger.example.org',
             'Cc: %s <%s>' % self.r.choice(self.people),
             'Subject: %s' % subject, 'Date: %s' % date(self.t), 'Message-ID: %s' % mid]
        if parent:
            h.append('In-Reply-To: %s' % parent)
            h.append('References: %s' % ' '.join(refs[-12:]))
        h.append('MIME-Version: 1.0')
        return '\n'.join(h) + '\n' + extra

    # ---- patches ----

    def diff(self, size):
        """A git diff of about size bytes: one or more files, real hunks."""
        r, files, out = self.r, [], []
        total = 0
        while total < size:
            path = '%s/%s.c' % (r.choice(self.dirs), self.word())
            hunks, start = [], r.randint(10, 200)
            nh = r.randint(1, 6)
            for _ in range(nh):
                pre = [' ' + self.code() for _ in range(3)]
                old = ['-' + self.code() for _ in range(r.randint(0, 12))]
                new = ['+' + self.code() for _ in range(r.randint(1, 40))]
                post = [' ' + self.code() for _ in range(3)]
                body = pre + old + new + post
                no, nn = 6 + len(old), 6 + len(new)
                hunks.append('@@ -%d,%d +%d,%d @@ %s(void)\n%s\n' % (
                    start, no, start, nn, self.word(), '\n'.join(body)))
                start += no + r.randint(20, 200)
                total += sum(len(l) + 1 for l in body) + 40
            ins = sum(h.count('\n+') for h in hunks)
            dels = sum(h.count('\n-') for h in hunks)
            files.append((path, ins, dels))
            out.append('diff --git a/%s b/%s\nindex %07x..%07x 100644\n--- a/%s\n+++ b/%s\n%s' % (
                path, path, r.getrandbits(28), r.getrandbits(28), path, path, ''.join(hunks)))
        stat = ''.join(' %s | %d %s\n' % (p, i + d, '+' * min(i, 30) + '-' * min(d, 30))
                       for p, i, d in files)
        stat += ' %d files changed, %d insertions(+), %d deletions(-)\n' % (
            len(files), sum(f[1] for f in files), sum(f[2] for f in files))
        return stat, ''.join(out)

    def patch_size(self):
        # 1-40 KB, most small: log-uniform.
        return int(1024 * 40 ** self.r.random())

    def patch_mail(self, who, subject, mid, parent, refs, attached):
        stat, diff = self.diff(self.patch_size())
        msg = self.para(self.r.randint(2, 8)) + '\nSigned-off-by: %s <%s>\n' % who
        if not attached:
            body = msg + '---\n' + stat + '\n' + diff + '-- \n2.43.0\n'
            return self.headers(who, subject, mid, parent, refs,
                                'Content-Type: text/plain; charset=UTF-8\n'
                                'Content-Transfer-Encoding: 8bit\n') + '\n' + body, diff
        b = '------------%012x' % self.r.getrandbits(48)
        body = ('This is a multi-part message in MIME format.\n--%s\n'
                'Content-Type: text/plain; charset=UTF-8\n\n%s\n--%s\n'
                'Content-Type: text/x-patch; charset=UTF-8; name="%s.patch"\n'
                'Content-Disposition: attachment; filename="%s.patch"\n\n%s\n--%s--\n') % (
            b, msg, b, self.word(), self.word(), diff, b)
        return self.headers(who, subject, mid, parent, refs,
                            'Content-Type: multipart/mixed; boundary="%s"\n' % b) + '\n' + body, diff

    # ---- replies ----

    def quote(self, text, lines):
        src = text.split('\n')
        if len(src) > lines:
            at = self.r.randrange(len(src) - lines + 1)
            src = src[at:at + lines]
        return '\n'.join(('>' + l if l.startswith('>') else '> ' + l) for l in src) + '\n'

    def reply_body(self, who_parent, parent_text):
        r = self.r
        out = 'On %s, %s wrote:\n' % (date(self.t - r.randint(100, 9000)), who_parent[0])
        # A review quotes 200 lines and more; a chat reply quotes less.
        left = r.choice([r.randint(200, 320), r.randint(10, 60), r.randint(10, 60)])
        while left > 0:
            k = min(left, r.randint(20, 80))
            out += self.quote(parent_text, k) + '\n' + self.para(r.randint(1, 5)) + '\n'
            left -= k
        if r.random() < 0.3:
            out += 'Reviewed-by: %s <%s>\n' % self.people[r.randrange(len(self.people))]
        return out

    def reply_mail(self, who, subject, mid, parent, refs, who_parent, parent_text, kind):
        text = self.reply_body(who_parent, parent_text)
        if kind == 'plain':
            return self.headers(who, subject, mid, parent, refs,
                                'Content-Type: text/plain; charset=UTF-8\n') + '\n' + text, text
        b = '=-%012x' % self.r.getrandbits(48)
        if kind == 'signed':
            sig = '-----BEGIN PGP SIGNATURE-----\n\n%s\n-----END PGP SIGNATURE-----\n' % '\n'.join(
                '%064x' % self.r.getrandbits(256) for _ in range(6))
            body = ('--%s\nContent-Type: text/plain; charset=UTF-8\n'
                    'Content-Transfer-Encoding: 8bit\n\n%s\n--%s\n'
                    'Content-Type: application/pgp-signature; name="signature.asc"\n\n%s\n--%s--\n') % (
                b, text, b, sig, b)
            ct = 'Content-Type: multipart/signed; micalg=pgp-sha256;\n protocol="application/pgp-signature"; boundary="%s"\n' % b
        else:
            html = '<html><body><pre>%s</pre></body></html>' % text.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
            body = ('--%s\nContent-Type: text/plain; charset=UTF-8\n\n%s\n--%s\n'
                    'Content-Type: text/html; charset=UTF-8\n\n%s\n--%s--\n') % (b, text, b, html, b)
            ct = 'Content-Type: multipart/alternative; boundary="%s"\n' % b
        return self.headers(who, subject, mid, parent, refs, ct) + '\n' + body, text

    def kind(self):
        x = self.r.random()
        return 'signed' if x < 0.22 else 'html' if x < 0.34 else 'plain'

    def discussion(self, root, depth):
        """A chain of replies under root (mid, who, subject, text, refs),
        with side branches, up to depth deep."""
        stack = [(root, 1)]
        while stack:
            (mid, who, subj, text, refs), d = stack.pop()
            self.deepest = max(self.deepest, d - 1)
            if d > depth:
                continue
            nkids = 1 if self.r.random() < 0.93 or d > 3 else 2
            for _ in range(nkids):
                me = self.r.choice(self.people)
                m = self.msgid()
                s = subj if subj.startswith('Re: ') else 'Re: ' + subj
                mail, t = self.reply_mail(me, s, m, mid, refs + [mid], who, text, self.kind())
                self.mails.append(mail)
                stack.append(((m, me, s, t, refs + [mid]), d + 1))

    def series(self):
        r = self.r
        who = r.choice(self.people)
        n = r.choice([1, 1, 1, 2, 3, 4, 5, 8, 12])
        v = r.choice([1, 1, 2, 3])
        title = '%s: %s' % (self.word(), self.line(20, 50))
        vtag = '' if v == 1 else 'v%d ' % v
        cover = self.msgid() if n > 1 else None
        refs = []
        if cover:
            self.mails.append(self.headers(who, '[PATCH %s0/%d] %s' % (vtag, n, title), cover,
                                           None, [], 'Content-Type: text/plain; charset=UTF-8\n')
                              + '\n' + self.para(r.randint(5, 30)))
            refs = [cover]
        patches = []
        for i in range(1, n + 1):
            m = self.msgid()
            subj = '[PATCH %s%d/%d] %s' % (vtag, i, n, self.line(20, 50)) if n > 1 else \
                '[PATCH %s] %s' % (vtag.strip() or 'net-next', title)
            mail, diff = self.patch_mail(who, subj, m, cover, refs, r.random() < 0.08)
            self.mails.append(mail)
            patches.append((m, who, subj, diff, refs))
        for p in patches:
            if r.random() < 0.34:
                self.discussion(p, r.choice([1, 1, 1, 2, 3, 20]))

    def question(self):
        who = self.r.choice(self.people)
        m = self.msgid()
        subj = '%s: %s' % (self.word(), self.line(20, 50))
        text = self.para(self.r.randint(5, 60))
        k = self.kind()
        if k == 'plain' and self.r.random() < 0.3:
            # A log attached to a bug report.
            b = '------------%012x' % self.r.getrandbits(48)
            log = '\n'.join('[%6d.%06d] %s' % (i, self.r.randrange(10 ** 6), self.line())
                            for i in range(self.r.randint(50, 200)))
            self.mails.append(self.headers(who, subj, m, None, [],
                                           'Content-Type: multipart/mixed; boundary="%s"\n' % b)
                              + '\n--%s\nContent-Type: text/plain\n\n%s\n--%s\n'
                                'Content-Type: text/plain; name="dmesg.txt"\n'
                                'Content-Disposition: attachment; filename="dmesg.txt"\n\n%s\n--%s--\n'
                              % (b, text, b, log, b))
        else:
            self.mails.append(self.headers(who, subj, m, None, [],
                                           'Content-Type: text/plain; charset=UTF-8\n') + '\n' + text)
        self.discussion((m, who, subj, text, []), self.r.choice([1, 2, 4, 20]))


def escape(mail):
    """mboxrd: a line of >*From_ gains one more >."""
    out = []
    for l in mail.split('\n'):
        if l.lstrip('>').startswith('From '):
            l = '>' + l
        out.append(l)
    return '\n'.join(out)


def write(path, n):
    g = Gen()
    while len(g.mails) < n:
        if g.r.random() < 0.8:
            g.series()
        else:
            g.question()
    size = multi = patches = 0
    with open(path, 'wb') as f:
        for m in g.mails:
            b = ('From mboxrd@z Thu Jan  1 00:00:00 1970\n' + escape(m).rstrip('\n') + '\n\n').encode()
            f.write(b)
            size += len(b)
            head = m.split('\n\n', 1)[0]
            multi += 'multipart/' in head
            patches += '\nSubject: [PATCH' in head
    return {'deepest': g.deepest, 'mails': len(g.mails), 'bytes': size, 'multipart': multi, 'patches': patches}


def describe(s):
    return '%d mails, mean %.1f KB, %.0f%% multi-part, %.0f%% patches, replies %d deep' % (
        s['mails'], s['bytes'] / s['mails'] / 1024, 100.0 * s['multipart'] / s['mails'],
        100.0 * s['patches'] / s['mails'], s['deepest'])


if __name__ == '__main__':
    import sys
    s = write(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 20000)
    print(describe(s))
