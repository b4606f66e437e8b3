#!/usr/bin/python3
"""Oracle for test_trailer: the follow-up trailers b4 collects.

Reads mboxrd files (gzip or not) or single .eml files given as
arguments.  For every reply b4 takes trailers from (a reply without a
diff), prints the decoded body b4 looked at and the trailers it found,
so that the C test can run TRAILER_REPLY on the very same text:

    B <byte length>\n<body>\nT <name>\t<value>\n...E\n

Only the names patchyard keeps in replies are printed: "-by" names and
Fixes.  Values are b4's, without its " # comment" extinfo.
"""
import email
import gzip
import logging
import re
import sys

import b4

b4.logger.setLevel(logging.CRITICAL)
NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9-]*$')


def messages(path):
    if not path.endswith(('.gz', '.mbox', '.mboxrd')):
        with open(path, 'rb') as f:
            yield f.read()
        return
    opener = gzip.open if path.endswith('.gz') else open
    cur = None
    with opener(path, 'rb') as f:
        for line in f:
            if line.startswith(b'From '):
                if cur is not None:
                    yield b''.join(cur)
                cur = []
                continue
            if re.match(rb'^>+From ', line):
                line = line[1:]
            if cur is not None:
                cur.append(line)
    if cur:
        yield b''.join(cur)


def keep(name):
    low = name.lower()
    return NAME.match(name) and (
        (low.endswith('-by') and len(low) > 3) or low == 'fixes')


def main():
    out = sys.stdout.buffer
    for path in sys.argv[1:]:
        for raw in messages(path):
            try:
                lm = b4.LoreMessage(email.message_from_bytes(raw))
            except Exception:  # b4 refuses some mail; so do we then
                continue
            if not lm.reply or lm.has_diff or lm.body is None:
                continue
            body = lm.body.encode('utf-8', 'surrogateescape')
            out.write(b'B %d\n' % len(body) + body + b'\n')
            for t in lm.trailers:
                if keep(t.name):
                    v = '%s\t%s\n' % (t.name, t.value.rstrip())
                    out.write(b'T ' + v.encode('utf-8', 'surrogateescape'))
            out.write(b'E\n')


main()
