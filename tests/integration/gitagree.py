"""Patch mails against git (issue 18): every mail of an mbox that is no
reply and in which `git mailinfo` finds a patch must be a patch in
patchyard's database, with the patch-id `git patch-id --stable` gives
(git gives none for quilt and plain diffs: then presence alone counts).

Usage: gitagree.py MBOX DB WORKDIR.  Prints the totals and one line per
disagreement, `<Message-ID> what`, sorted; the caller compares those
lines with its expected list.  Only mails that could hold a diff (a line
starting with "@@ -" or "diff " in some decoded part) are given to git:
git mailinfo finds no patch in the others.
"""
import email, email.policy, os, re, sqlite3, subprocess, sys

mbox, db, work = sys.argv[1:4]
split = os.path.join(work, 'split')
os.makedirs(split, exist_ok=True)
subprocess.run(['git', 'mailsplit', '--mboxrd', '-o' + split, mbox], check=True,
               stdout=subprocess.DEVNULL)

REPLY = re.compile(r'^\s*((re|aw|sv|antw|fwd?|wg)\s*(\[\d+\])?\s*:\s*)', re.I)
DIFFY = re.compile(rb'(?m)^(@@ -|diff )')

def could_hold_diff(msg):
    for part in msg.walk():
        if part.is_multipart():
            continue
        body = part.get_payload(decode=True) or b''
        if DIFFY.search(body):
            return True
    return False

seen, cand = set(), []
for name in sorted(os.listdir(split)):
    path = os.path.join(split, name)
    raw = open(path, 'rb').read()
    msg = email.message_from_bytes(raw, policy=email.policy.compat32)
    mid = (msg.get('Message-ID') or '').strip()
    mid = re.sub(r'\s+', '', mid)
    if mid.startswith('<') and '>' in mid:
        mid = mid[1:mid.index('>')]
    if not mid or mid in seen:
        continue
    seen.add(mid)
    try:
        subj = str(email.header.make_header(email.header.decode_header(msg.get('Subject') or '')))
    except (UnicodeDecodeError, LookupError):
        subj = str(msg.get('Subject') or '')
    if REPLY.match(subj) or not could_hold_diff(msg):
        continue
    cand.append((mid, path))

found, ids = [], {}
msgf, patchf = os.path.join(work, 'msg'), os.path.join(work, 'patch')
for mid, path in cand:
    with open(path, 'rb') as f:
        subprocess.run(['git', 'mailinfo', msgf, patchf], stdin=f,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    patch = open(patchf, 'rb').read() if os.path.exists(patchf) else b''
    if not patch.strip():
        continue
    found.append(mid)
    out = subprocess.run(['git', 'patch-id', '--stable'], input=patch,
                         capture_output=True).stdout.split()
    if out:
        ids[mid] = out[0].decode()

con = sqlite3.connect('file:%s?mode=ro' % db, uri=True)
bad = []
agree = 0
for mid in found:
    row = con.execute("SELECT p.patch_id FROM message m JOIN patch p ON p.message_id = m.id"
                      " WHERE m.msgid = ? ORDER BY m.id LIMIT 1", (mid,)).fetchone()
    if row is None:
        kind = con.execute("SELECT kind FROM message WHERE msgid = ? ORDER BY id LIMIT 1",
                           (mid,)).fetchone()
        bad.append('<%s> not a patch (kind %s)' % (mid, kind[0] if kind else 'missing'))
    elif mid in ids and row[0] != ids[mid]:
        bad.append('<%s> patch-id differs' % mid)
    else:
        agree += 1
print('gitagree: %d mails, %d no reply with a possible diff, git finds %d patches '
      '(%d with a patch-id); patchyard agrees on %d' % (len(seen), len(cand), len(found),
                                                        len(ids), agree))
for b in sorted(bad):
    print(b)
