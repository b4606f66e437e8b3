#!/usr/bin/python3
"""An independent reader of a composed mail, for patchyard's tests.

Parses FILE with Python's email package (policy=default, the strict
RFC 5322/2047 parser) and prints what a mail client would show, one
"key: value" line each, values with backslash, CR and LF escaped:

    subject: <decoded Subject>
    from: <display name> <addr>        (to:, cc: likewise, one per address)
    message-id: / in-reply-to: / references: <raw, unfolded>
    auto-submitted: / x-patchyard-event: <value>
    cte: <Content-Transfer-Encoding>   charset: <charset>
    body: <decoded body text>
    defect: <each defect found>        (none for a clean mail)
"""

import sys
from email import policy
from email.parser import BytesParser


def esc(s):
    return s.replace("\\", "\\\\").replace("\r", "\\r").replace("\n", "\\n")


def main():
    with open(sys.argv[1], "rb") as f:
        msg = BytesParser(policy=policy.default).parse(f)
    out = []
    defects = list(msg.defects)
    for name in ("subject",):
        h = msg[name]
        if h is not None:
            defects += h.defects
            out.append("%s: %s" % (name, esc(str(h))))
    for name in ("from", "to", "cc"):
        h = msg[name]
        if h is None:
            continue
        defects += h.defects
        for a in h.addresses:
            out.append("%s: %s <%s>" % (name, esc(a.display_name),
                                        esc(a.addr_spec)))
    for name in ("message-id", "in-reply-to", "references",
                 "auto-submitted", "x-patchyard-event", "date"):
        h = msg[name]
        if h is not None:
            out.append("%s: %s" % (name, esc(" ".join(str(h).split()))))
    out.append("cte: %s" % msg.get("content-transfer-encoding", ""))
    out.append("charset: %s" % msg.get_content_charset())
    out.append("body: %s" % esc(msg.get_content()))
    for d in defects:
        out.append("defect: %s" % esc(repr(d)))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
