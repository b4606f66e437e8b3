"""A contribution as maintainers discuss it, for web_browser.py: a cover
letter and three versions of a two-patch series made with git
format-patch, a thread of replies (a question and its answer, a review,
an ack the maintainer restates, a nack, a reply to a reply), and a
one-patch contribution whose title holds an unterminated U+202E.  Dates
are fixed and in the past: pages show mail dates."""
import datetime, email, email.utils

from yardlib import msgid

ADA = ('Ada Author', 'ada@example.org')
ROB = ('Rob Reviewer', 'rob@review.example.org')
RITA = ('Rita Reviewer', 'rita@review.example.org')
MIA = ('Mia Maintainer', 'mia@maint.example.org')
NICK = ('Nick Nay', 'nick@nay.example.net')
BOB = ('Bob Bystander', 'bob@example.net')
ZED = ('Zed Zebra', 'zed@zebra.example.org')
CARL = ('Carl Cee', 'carl@example.org')
TITLE = 'demo: teach the frobnicator to count'
RLO = '\u202e'
RLO_TITLE = 'b: ' + RLO + 'drawkcab nettirw'

# per version: the cover's blurb and, per patch, (file, old, new, title, sentence)
VERSIONS = {
    1: ('This series teaches the frobnicator to count in words.', [
        ('src/a.c', 'a 5\n', 'a five\n', 'a: spell out five', 'Five in words reads as the manual does.'),
        ('src/b.c', 'b 10\n', 'b ten\n', 'b: name the tenth entry', 'The tenth entry had no name to grep for.')]),
    2: ('Changes in v2: the tenth entry gets an ordinal name.', [
        ('src/a.c', 'a 5\n', 'a five\n', 'a: spell out five', 'Five in words, as the style guide asks.'),
        ('src/b.c', 'b 10\n', 'b tenth\n', 'b: name the tenth entry', 'An ordinal name, as the review of v1 asked.')]),
    3: ('Changes in v3: the tenth entry takes its article.', [
        ('src/a.c', 'a 5\n', 'a five\n', 'a: spell out five', 'Spell out five so that the file reads as prose.'),
        ('src/b.c', 'b 10\n', 'b the tenth\n', 'b: name the tenth entry', 'Name the tenth entry with its article.')]),
}
DAY = {1: 3, 2: 10, 3: 17}


def date(day, hour, minute=0):
    return email.utils.format_datetime(datetime.datetime(2025, 3, day, hour, minute, tzinfo=datetime.timezone.utc))


def set_header(mail, name, value):
    head, body = mail.split('\n\n', 1)
    lines = [l for l in head.split('\n') if not l.lower().startswith(name.lower() + ':')]
    lines.append('%s: %s' % (name, value))
    return '\n'.join(lines) + '\n\n' + body


def version(up, v, in_reply_to):
    """Commit version v on a branch; its format-patch mails, cover first."""
    blurb, edits = VERSIONS[v]
    up.git('checkout', '-q', '-b', 'disc%d' % v, 'master')
    for f, old, new, title, sentence in edits:
        up.write(f, up.read(f).replace(old, new, 1))
        up.git('add', '-A', who=ADA)
        up.git('commit', '-q', '-F', '-', who=ADA, inp=(
            '%s\n\n%s\n\nCc: %s <%s>\nSigned-off-by: %s <%s>\n' % (title, sentence, CARL[0], CARL[1],
                                                                   ADA[0], ADA[1])).encode())
    out = up.git('-c', 'user.name=' + ADA[0], '-c', 'user.email=' + ADA[1], 'format-patch', '--stdout',
                 '--thread=shallow', '--no-signature', '--cover-letter', '-v%d' % v,
                 'master..disc%d' % v, who=ADA)
    up.git('checkout', '-q', 'master')
    mails = ['From ' + m if not m.startswith('From ') else m for m in out.split('\nFrom ')]
    mails = [m.split('\n', 1)[1].replace('*** SUBJECT HERE ***', TITLE).replace('*** BLURB HERE ***', blurb)
             for m in mails]
    out = []
    for i, m in enumerate(mails):
        m = set_header(m, 'Message-ID', '<disc-v%d-%d@example.org>' % (v, i))
        parent = 'disc-v%d-0@example.org' % v if i else in_reply_to
        for h in ('In-Reply-To', 'References'):
            m = set_header(m, h, '<%s>' % parent) if parent else m
        m = set_header(m, 'Date', date(DAY[v], 9, i))
        m = set_header(m, 'To', 'demo@lists.example.org')
        out.append(m)
    return out


def reply(parent, who, body, when, subject=None):
    pid = msgid(parent)
    subj = subject or 'Re: ' + ' '.join(email.message_from_string(parent)['Subject'].split())
    mid = 'disc-%s-%s' % (when.replace(' ', '').replace(',', '').replace(':', ''), who[1])
    return ('From: %s <%s>\nTo: demo@lists.example.org\nSubject: %s\nDate: %s\nMessage-ID: <%s>\n'
            'In-Reply-To: <%s>\nReferences: <%s>\nMIME-Version: 1.0\n'
            'Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n%s\n'
            % (who[0], who[1], subj, when, mid, pid, pid, body))


class Discussion:
    """Mails, in the order they are fed, and what the page must show."""

    def __init__(self, up):
        self.v = {}
        prev = None
        for v in (1, 2, 3):
            self.v[v] = version(up, v, prev)
            prev = msgid(self.v[v][0])
        ack = 'Acked-by: %s <%s>' % RITA
        self.replies = []   # (sentence, who, mail)

        def add(parent, who, body, when, sentence, **kw):
            m = reply(parent, who, body, when, **kw)
            self.replies.append((sentence, who, m))
            return m
        q = add(self.v[1][0], BOB, '> This series teaches the frobnicator to count in words.\n\n'
                'Why not count in roman numerals?\n', date(4, 10), 'Why not count in roman numerals?')
        add(q, ADA, '> Why not count in roman numerals?\n\nRoman numerals would break the sort.\n',
            date(4, 12), 'Roman numerals would break the sort.')
        add(self.v[2][2], NICK, 'The tenth entry needs no name at all.\n\nNacked-by: %s <%s>\n' % NICK,
            date(11, 16), 'The tenth entry needs no name at all.')
        add(self.v[3][1], ROB, '> +a five\n\nFive reads well now.\n\nReviewed-by: %s <%s>\n' % ROB,
            date(18, 8), 'Five reads well now.')
        r = add(self.v[3][2], RITA, 'The article makes it prose.\n\n%s\n' % ack, date(18, 9),
                'The article makes it prose.')
        add(r, MIA, 'On Tue, Rita wrote:\n> %s\n\nQueued, with the acks below.\n    %s\n' % (ack, ack),
            date(19, 11), 'Queued, with the acks below.')
        self.mails = [m for v in (1, 2, 3) for m in self.v[v]] + [m for _, _, m in self.replies]
        self.commit_sentences = [e[4] for v in (1, 2, 3) for e in VERSIONS[v][1]]
        self.blurbs = [VERSIONS[v][0] for v in (1, 2, 3)]
        self.diff_lines = ['-b 10', '+b the tenth', '+b tenth', '+b ten', '-a 5', '+a five']
        # Zed's one patch, its title reversed by an override it never ends
        up.git('checkout', '-q', '-b', 'zed', 'master')
        up.write('src/a.c', up.read('src/a.c').replace('a 20\n', 'a twenty\n', 1))
        up.git('add', '-A', who=ZED)
        up.git('commit', '-q', '-F', '-', who=ZED,
               inp=('%s\n\nWrite the twentieth entry out.\n\nSigned-off-by: %s <%s>\n' % (
                   RLO_TITLE, ZED[0], ZED[1])).encode())
        out = up.git('-c', 'user.name=' + ZED[0], '-c', 'user.email=' + ZED[1], 'format-patch', '--stdout',
                     '--no-signature', 'master..zed', who=ZED)
        up.git('checkout', '-q', 'master')
        z = out.split('\n', 1)[1]
        z = set_header(set_header(z, 'Message-ID', '<disc-zed@example.org>'), 'Date', date(20, 10))
        self.zed = set_header(z, 'To', 'demo@lists.example.org')
        self.mails.append(self.zed)
        self.patch_msgids = [msgid(m) for v in (1, 2, 3) for m in self.v[v][1:]]
