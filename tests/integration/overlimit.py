#!/usr/bin/python3
"""A mail over the parse limit (LIMIT_MAIL_SIZE, 16 MB) is never cut:
through `ingest` (stdin), an mbox `import` (compared with what `git
mailsplit --mboxrd` makes of the same mbox) and a Maildir `import` it is
stored whole, byte for byte, marked over a limit, not parsed (kind
other, no patch), with a log line.  A mail over the storage cap
(LIMIT_MAIL_STORE, 64 MB) is not stored at all, and says so: `ingest`
exits 65 for the MTA to return it, an import names where it is in the
source, imports the rest and exits 1."""
import os, shutil, sqlite3, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import check, done, Yard

PARSE = 16 * 1024 * 1024
STORE = 64 * 1024 * 1024

PATCH = ('Frob more.\n\nSigned-off-by: Ada Author <ada@example.org>\n---\n'
         ' a.c | 1 +\n 1 file changed, 1 insertion(+)\n\n'
         'diff --git a/a.c b/a.c\nindex 0000000..1111111 100644\n--- a/a.c\n'
         '+++ b/a.c\n@@ -1,2 +1,3 @@\n line 1\n+frob\n line 2\n')


def mail(mid, size=0, subject='[PATCH] frob a lot'):
    """A patch mail of at least size bytes: a real diff, then filler."""
    head = ('From: Ada Author <ada@example.org>\nTo: demo@lists.example.org\n'
            'Subject: %s\nDate: Mon, 3 Feb 2025 10:00:00 +0000\n'
            'Message-ID: <%s>\n\n%s' % (subject, mid, PATCH)).encode()
    line = b'+a line of a very large generated file, and more of it\n'
    n = max(0, size - len(head))
    return head + line * (n // len(line) + 1) if size else head


def rows(db):
    c = sqlite3.connect('file:%s?mode=ro' % db, uri=True)
    out = {mid: (kind, flags, raw) for mid, kind, flags, raw in c.execute(
        'SELECT m.msgid, m.kind, m.flags, r.bytes FROM message m JOIN raw r ON r.message_id = m.id')}
    patches = c.execute('SELECT count(*) FROM patch').fetchone()[0]
    c.close()
    return out, patches


def stored_whole(what, got, mid, want):
    kind, flags, raw = got.get(mid, (None, 0, b''))
    check('%s: stored whole, byte for byte (%d bytes)' % (what, len(want)), raw == want, (len(raw), len(want)))
    check('%s: marked over a limit, not cut' % what, flags & 0x21 == 0x01, flags)
    check('%s: not parsed: kind other' % what, kind == 'other', kind)


def main():
    tmp = tempfile.mkdtemp(prefix='yard-overlimit-')
    try:
        big = mail('big@ex.org', PARSE + 1024 * 1024)
        check('the mail is over the parse limit by 1 MB or more', len(big) > PARSE + 1024 * 1024)

        # ingest, from standard input, as an MTA pipes it.
        os.makedirs(os.path.join(tmp, 'a'))
        y = Yard(os.path.join(tmp, 'a'), '')
        r = y.run('ingest', '--project', 'demo', inp=big, check_rc=False)
        err = r.stderr.decode(errors='replace')
        check('ingest: exit 0', r.returncode == 0, (r.returncode, err[-300:]))
        check('ingest: the log line says it is stored, over a limit',
              '<big@ex.org>: mail size: stored (%d bytes), not parsed: over a limit' % len(big) in err,
              err[-300:])
        got, patches = rows(os.path.join(tmp, 'a', 'yard.db'))
        stored_whole('ingest', got, 'big@ex.org', big)
        check('ingest: no patch comes of it', patches == 0, patches)
        r = y.run('ingest', '--project', 'demo', inp=big, check_rc=False)
        check('ingest: a second delivery is recognised', r.returncode == 0 and len(rows(
            os.path.join(tmp, 'a', 'yard.db'))[0]) == 1)

        # ingest of a mail over the storage cap: not stored, not cut.
        huge = mail('huge@ex.org', STORE + 1)
        r = y.run('ingest', '--project', 'demo', inp=huge, check_rc=False)
        err = r.stderr.decode(errors='replace')
        check('ingest over the storage cap: exit 65 (the MTA returns it)', r.returncode == 65, r.returncode)
        check('ingest over the storage cap: a log line with its size',
              'the mail is %d bytes, over the %d bytes a mail may have: not stored' % (len(huge), STORE) in err,
              err[-300:])
        check('ingest over the storage cap: nothing of it stored', 'huge@ex.org' not in rows(
            os.path.join(tmp, 'a', 'yard.db'))[0])

        # An mbox: small, big, over the cap, small.
        os.makedirs(os.path.join(tmp, 'b'))
        y = Yard(os.path.join(tmp, 'b'), '')
        mbox = os.path.join(tmp, 'b', 'list.mbox')
        sep = b'From ada@example.org Mon Feb  3 10:00:00 2025\n'
        parts = [mail('before@ex.org', subject='before'), mail('big2@ex.org', PARSE + 1024 * 1024),
                 huge, mail('after@ex.org', subject='after')]
        with open(mbox, 'wb') as f:
            for p in parts:
                f.write(sep + p + b'\n')
        huge_at = len(sep + parts[0] + b'\n') + len(sep + parts[1] + b'\n')
        r = y.run('import', '--project', 'demo', mbox, check_rc=False)
        err = r.stderr.decode(errors='replace')
        check('import: exit 1, a mail was not imported', r.returncode == 1, (r.returncode, err[-400:]))
        check('import: the log names where the mail over the cap is',
              '%s: the mail at byte %d is %d bytes, over the %d bytes a mail may have: not imported'
              % (mbox, huge_at, len(huge) + 1, STORE) in err, err[-600:])
        check('import: the summary counts it', '1 too large to store' in err, err[-400:])
        check('import: the log line of the big mail', '<big2@ex.org>: mail size: stored (' in err,
              err[-400:])
        # What git mailsplit makes of the big mail, without the "From "
        # line it keeps, is what is stored.
        split = os.path.join(tmp, 'split')
        os.makedirs(split)
        small = os.path.join(tmp, 'b', 'small.mbox')
        with open(small, 'wb') as f:
            f.write(sep + parts[0] + b'\n' + sep + parts[1] + b'\n' + sep + parts[3] + b'\n')
        subprocess.run(['git', 'mailsplit', '--mboxrd', '-o' + split, small], check=True,
                       capture_output=True)
        want = open(os.path.join(split, '0002'), 'rb').read().split(b'\n', 1)[1]
        got, patches = rows(os.path.join(tmp, 'b', 'yard.db'))
        stored_whole('import of an mbox', got, 'big2@ex.org', want)
        check('import: the mails around them are stored', 'before@ex.org' in got and 'after@ex.org' in got,
              sorted(got))
        check('import: the mail over the cap is not', 'huge@ex.org' not in got)

        # A Maildir.
        os.makedirs(os.path.join(tmp, 'c'))
        y = Yard(os.path.join(tmp, 'c'), '')
        md = os.path.join(tmp, 'c', 'Maildir')
        for d in ('new', 'cur', 'tmp'):
            os.makedirs(os.path.join(md, d))
        with open(os.path.join(md, 'new', '1700000000.M1P1.host'), 'wb') as f:
            f.write(big)
        with open(os.path.join(md, 'new', '1700000001.M1P1.host'), 'wb') as f:
            f.write(huge)
        r = y.run('import', '--project', 'demo', md, check_rc=False)
        err = r.stderr.decode(errors='replace')
        check('import of a Maildir: exit 1, a mail was not imported', r.returncode == 1, r.returncode)
        check('import of a Maildir: the log names the file over the cap',
              '1700000001.M1P1.host: %d bytes, over the %d bytes a mail may have: not imported'
              % (len(huge), STORE) in err, err[-400:])
        got, _ = rows(os.path.join(tmp, 'c', 'yard.db'))
        stored_whole('import of a Maildir', got, 'big@ex.org', big)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    done()


main()
