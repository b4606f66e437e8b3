#!/usr/bin/python3
"""Authority from proof (issue 42, docs/DESIGN.md §5), end to end with real git
repositories, real format-patch mails, a real SMTP server and signatures
made here with the field's own tools: dkimpy (Debian's python3-dkim) signs
DKIM with RSA keys made by openssl, patatt (python3-patatt, what `b4 send`
uses) signs developer signatures with ed25519 keys.

Each case names the hole of the security review it closes; every one of
them failed before issue 42 (the forged header was believed, signatures
were not checked at all, copies replaced code, and so on)."""
import base64, os, re, shutil, sqlite3, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *

try:
    import dkim
    import patatt
    from nacl.signing import SigningKey
except ImportError as e:
    print('FAIL needs python3-dkim and python3-patatt (scripts/install-deps): %s' % e)
    sys.exit(1)

ADA = ('Ada Author', 'ada@example.org')
MAL = ('Mal Lory', 'mallory@evil.example.net')
MIA = ('Mia Maint', 'mia@maint.example.org')
EVE = ('Eve Inside', 'eve@maint.example.org')
VIC = ('Vic Victim', 'victim@elsewhere.example')
MTA = 'mx.yard.example'
RELAY = 'lists.example.org'
REVIEW = 'Reviewed-by: Mia Maint <mia@maint.example.org>'
TMP = tempfile.mkdtemp(prefix='yard-proof-')
SEL = 'y2026'


def git(path, *args):
    return sh(['git', '-C', path] + list(args), check_rc=False).stdout.decode(errors='replace')


def edit(f, old, new, subject):
    return [(f, lambda s: s.replace(old, new), subject)]


def lone(repo, who, f, old, new, subject, tag):
    return repo.series(edit(f, old, new, subject), who, 'b-' + tag, cover=False, msgid=tag)[0]


def on_top(line, mail):
    return line.rstrip('\n') + '\n' + mail


# ---- keys ----

def rsa_key(domain):
    path = os.path.join(TMP, 'dkim-%s.pem' % domain)
    sh(['openssl', 'genrsa', '-out', path, '1024'])
    der = sh(['openssl', 'rsa', '-in', path, '-pubout', '-outform', 'DER']).stdout
    return open(path, 'rb').read(), 'v=DKIM1; k=rsa; p=' + base64.b64encode(der).decode()


KEYS = {d: rsa_key(d) for d in ('maint.example.org', RELAY)}
KEYFILE = os.path.join(TMP, 'dkim.keys')
with open(KEYFILE, 'w') as f:
    f.write('# as DNS would serve them\n\n')
    for d, (_, txt) in KEYS.items():
        f.write('%s._domainkey.%s %s\n' % (SEL, d, txt))


def dkim_sign(mail, domain, length=False, crlf=False):
    sig = dkim.sign(mail.encode(), SEL.encode(), domain.encode(), KEYS[domain][0],
                    include_headers=[b'from', b'to', b'subject', b'date', b'message-id',
                                     b'in-reply-to', b'references'],
                    canonicalize=(b'relaxed', b'relaxed'), length=length)
    out = sig.replace(b'\r\n', b'\n').decode() + mail
    return out.replace('\n', '\r\n') if crlf else out


KEYRING = os.path.join(TMP, 'keyring')


def patatt_key(who):
    sk = SigningKey.generate()
    local, _, domain = who.partition('@')
    d = os.path.join(KEYRING, 'ed25519', domain, local)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, 'default'), 'wb').write(base64.b64encode(bytes(sk.verify_key)))
    return base64.b64encode(bytes(sk)).decode()


MIA_ED = patatt_key(MIA[1])
MAL_ED = patatt_key(MAL[1])


def patatt_sign(mail, key, identity):
    pm = patatt.PatattMessage(mail.encode())
    pm.sign('ed25519', key, identity, None)
    return pm.as_bytes().decode()


def cosign(mail, *signers):
    """mail with one X-Developer-Signature per (key, identity), in that
    order.  patatt itself keeps one (a second sign() replaces the first),
    and a signature covers From, Subject and Message-ID, not the other
    signature, so each verifies alone."""
    sigs = []
    for key, who in signers:
        head = patatt_sign(mail, key, who).split('\n\n', 1)[0]
        m = re.search(r'^X-Developer-Signature:.*\n(?:[ \t].*\n?)*', head + '\n', re.M)
        sigs.append(m.group(0) if m.group(0).endswith('\n') else m.group(0) + '\n')
    head, sep, body = mail.partition('\n\n')
    return head + '\n' + ''.join(sigs).rstrip('\n') + sep + body


# ---- setups ----

SMTP = Smtpd(TMP).start()


class Setup:
    def __init__(self, name, auth='', source=None, maint=''):
        self.dir = os.path.join(TMP, name)
        os.makedirs(self.dir)
        self.repo = Repo(os.path.join(self.dir, 'up'))
        self.staging = os.path.join(self.dir, 'staging.git')
        self.inbox = os.path.join(self.dir, 'inbox')
        src = ''
        if source is not None:
            src = '[source "arch"]\n\tpublic-inbox = %s\n\tproject = demo\n%s' % (self.inbox, source)
        self.y = Yard(self.dir, '''	upstream = %s
	branch = master
	staging = %s
[bot]
	address = yard@bot.example.org
[maintainer "mia"]
	email = mia@maint.example.org
%s[auth]
	authserv-id = %s
%s%s[smtp]
	url = smtp://127.0.0.1:%d
	starttls = never
''' % (self.repo.path, self.staging, maint, MTA, auth, src, SMTP.port))
        self.y.run('upstream')

    def ingest(self, mail):
        return self.y.run('ingest', '--project', 'demo', inp=mail.encode(), check_rc=False)

    def archive(self, mails):
        self.archive_only(mails)
        r = self.y.run('run', '--once', check_rc=False)
        check('%s: run --once follows the archive' % os.path.basename(self.dir), r.returncode == 0,
              r.stderr.decode(errors='replace')[-300:])

    def archive_only(self, mails):
        g = os.path.join(self.inbox, 'git', '0.git')
        if not os.path.isdir(g):
            sh(['git', 'init', '-q', '--bare', '-b', 'master', g])
        head = git(g, 'rev-parse', '-q', '--verify', 'refs/heads/master').strip()
        out = []
        for i, m in enumerate(mails):
            raw = m.encode()
            out.append(b'commit refs/heads/master\ncommitter L <l@lists.example.org> %d +0000\n'
                       b'data 4\nmail\n' % (1700000000 + i))
            if i == 0 and head:
                out.append(b'from %s\n' % head.encode())
            out.append(b'M 100644 inline m\ndata %d\n%s\n' % (len(raw), raw))
        sh(['git', '-C', g, 'fast-import', '--quiet'], inp=b''.join(out))

    def patch(self, mail):
        c = self.y.show(msgid(mail))
        for s in c.get('series', []):
            for p in s['patches']:
                if p['message_id'] == msgid(mail):
                    return p
        return {}

    def state(self, mail):
        return self.patch(mail).get('state')

    def trailers(self, mail, name='Reviewed-by', who=MIA[1]):
        return [t for t in self.patch(mail).get('trailers', [])
                if t['name'] == name and who in t['value']]

    def unstable(self, path):
        return git(self.staging, 'show', 'unstable:' + path)


def sent_in_reply_to(mail):
    return [m for m in SMTP.mails() if (header(m, 'In-Reply-To') or '').strip('<>') == msgid(mail)]


# ---- the cases ----

def forged_header_in_archive():
    """Finding 1 (critical): a stranger's archive mail with a forged
    Authentication-Results naming our MTA commands nothing."""
    for how in ('archive', 'import'):
        s = Setup('forged-' + how, source='' if how == 'archive' else None)
        p = lone(s.repo, MAL, 'src/a.c', 'a 7\n', 'a seven; take_over()\n', 'a: seven', 'f' + how)
        forged = reply(p, MIA, 'Fine.\n\n#yard stage\n\n' + REVIEW, authserv=MTA,
                       dkim_domain='maint.example.org')
        if how == 'archive':
            s.archive([p, forged])
        else:
            path = os.path.join(s.dir, 'l.mbox')
            with open(path, 'w') as f:
                for m in (p, forged):
                    f.write('From mboxrd@z Thu Jan  1 00:00:00 1970\n' + m.rstrip('\n') + '\n\n')
            s.y.run('import', '--project', 'demo', path)
        check('%s: the forged #yard stage stages nothing' % how, s.state(p) == 'new', s.state(p))
        t = s.trailers(p)
        check('%s: the forged Reviewed-by is unverified, not authenticated, with a note' % how,
              t and not t[0]['verified'] and t[0]['authenticated'] is None and t[0]['auth_note'], t)


def dkim_in_process():
    """DKIM verified by patchyard itself, keys from auth.dkim-keys."""
    s = Setup('dkim', auth='\tdkim-keys = %s\n' % KEYFILE)
    ps = [lone(s.repo, ADA, 'src/a.c', 'a %d\n' % k, 'a %d!\n' % k, 'a: bang %d' % k, 'd%d' % k)
          for k in (10, 20, 30, 40, 50)]
    for p in ps:
        s.ingest(p)
    good = dkim_sign(reply(ps[0], MIA, 'Thanks.\n\n#yard stage\n\n' + REVIEW), 'maint.example.org')
    check('dkim: dkimpy verifies the good mail', dkim.verify(good.encode(), dnsfunc=lambda n, timeout=5: KEYS['maint.example.org'][1].encode()))
    tampered = dkim_sign(reply(ps[1], MIA, 'Not yet.'), 'maint.example.org').rstrip('\n') + '\n\n#yard stage\n'
    sibling = dkim_sign(reply(ps[2], MIA, '#yard stage'), RELAY)
    tail = dkim_sign(reply(ps[3], MIA, 'Looks fine.'), 'maint.example.org', length=True).rstrip('\n') + '\n\n#yard stage\n'
    crlf = dkim_sign(reply(ps[4], MIA, '#yard stage'), 'maint.example.org', crlf=True)
    for name, m, p in (('a body changed after signing', tampered, ps[1]),
                       ("the list server's valid signature (a sibling of From's domain)", sibling, ps[2]),
                       ('a command after the l= length', tail, ps[3])):
        s.ingest(m)
        check('dkim: %s commands nothing' % name, s.state(p) == 'new', s.state(p))
    s.ingest(good)
    check('dkim: the maintainer\'s signed #yard stage is obeyed', s.state(ps[0]) == 'staged', s.state(ps[0]))
    t = s.trailers(ps[0])
    check('dkim: its Reviewed-by is verified, "dkim d=maint.example.org"',
          len(t) == 1 and t[0]['verified'] and t[0]['authenticated'] == 'dkim d=maint.example.org', t)
    s.ingest(crlf)
    check('dkim: a mail stored with CRLF line ends verifies too', s.state(ps[4]) == 'staged', s.state(ps[4]))
    # Finding 2: two From headers never authenticate, whatever signs.
    p = lone(s.repo, ADA, 'src/b.c', 'b 5\n', 'b five\n', 'b: five', 'd2f')
    s.ingest(p)
    eve = dkim_sign(reply(p, EVE, '#yard stage'), 'maint.example.org')
    s.ingest(on_top('From: %s <%s>' % MIA, eve))
    check('dkim: "From: Mia" put on top of Eve\'s signed mail commands nothing', s.state(p) == 'new', s.state(p))
    log = s.y.run('show', msgid(p)).stdout.decode()
    ev = [e for e in s.y.show(msgid(p)).get('events', []) if e['kind'] == 'refused']
    check('dkim: the refusal says two From headers', ev and 'two From headers' in (ev[-1]['detail'] or ''), ev)


def patatt_in_archive():
    """A developer signature (patatt) verified against auth.keyring, in an
    archive whose source names no relay."""
    s = Setup('patatt', auth='\tkeyring = %s\n' % KEYRING, source='')
    ps = [lone(s.repo, ADA, 'src/b.c', 'b %d\n' % k, 'b %d!\n' % k, 'b: bang %d' % k, 'p%d' % k)
          for k in (10, 20, 30, 40, 50)]
    good = patatt_sign(reply(ps[0], MIA, 'Thanks.\n\n#yard stage\n\n' + REVIEW), MIA_ED, MIA[1])
    tampered = patatt_sign(reply(ps[1], MIA, 'Not yet.'), MIA_ED, MIA[1]).rstrip('\n') + '\n\n#yard stage\n'
    other = patatt_sign(reply(ps[2], MIA, '#yard stage'), MAL_ED, MAL[1])
    # Co-signed: another developer's signature first, then Mia's own.
    cosigned = cosign(reply(ps[3], MIA, '#yard stage'), (MAL_ED, MAL[1]), (MIA_ED, MIA[1]))
    cosigned2 = cosign(reply(ps[4], MIA, '#yard stage'), (MIA_ED, MIA[1]), (MAL_ED, MAL[1]))
    s.archive(ps + [tampered, other, good, cosigned, cosigned2])
    check('patatt: the maintainer\'s signed #yard stage is obeyed', s.state(ps[0]) == 'staged', s.state(ps[0]))
    t = s.trailers(ps[0])
    check('patatt: its Reviewed-by is verified, "patatt i=mia@maint.example.org"',
          len(t) == 1 and t[0]['verified'] and t[0]['authenticated'] == 'patatt i=mia@maint.example.org', t)
    check('patatt: a body changed after signing commands nothing', s.state(ps[1]) == 'new', s.state(ps[1]))
    check('patatt: From: Mia signed by another key (i= Mal) commands nothing', s.state(ps[2]) == 'new', s.state(ps[2]))
    check('patatt: co-signed, the From address\'s own signature counts, wherever it stands',
          [s.state(ps[3]), s.state(ps[4])] == ['staged', 'staged'], [s.state(ps[3]), s.state(ps[4])])


def relay_per_source():
    """A relay's header is believed for the source that names it, for no
    other (findings 1 and 10)."""
    s = Setup('relay', source='\tauthserv-id = %s\n' % RELAY)
    ps = [lone(s.repo, ADA, 'src/a.c', 'a %d\n' % k, 'a %d?\n' % k, 'a: ask %d' % k, 'r%d' % k)
          for k in (12, 32, 52)]
    relayed = reply(ps[0], MIA, 'Thanks.\n\n#yard stage', authserv=RELAY, dkim_domain='maint.example.org')
    below = reply(ps[2], MIA, '#yard stage', authserv=RELAY, dkim='fail', dkim_domain='maint.example.org',
                  extra='Authentication-Results: %s; dkim=pass header.d=maint.example.org\n' % RELAY)
    s.archive(ps + [relayed, below])
    check('relay: the source naming the list server believes its header', s.state(ps[0]) == 'staged', s.state(ps[0]))
    check('relay: a pass below its topmost fail is not believed', s.state(ps[2]) == 'new', s.state(ps[2]))
    s.ingest(reply(ps[1], MIA, '#yard stage', authserv=RELAY, dkim_domain='maint.example.org'))
    check('relay: the same header on a mail handed to ingest (our MTA is %s) is not' % MTA,
          s.state(ps[1]) == 'new', s.state(ps[1]))
    s.ingest(reply(ps[1], MIA, '#yard stage', authserv=MTA, dkim_domain='lists.example.org'))
    check('relay: our MTA\'s pass for a sibling domain is not', s.state(ps[1]) == 'new', s.state(ps[1]))


def reused_message_id():
    """Finding 3: a reused Message-ID never redirects a command."""
    s = Setup('reused')
    a = lone(s.repo, MAL, 'src/a.c', 'a 15\n', 'a fifteen; payload()\n', 'a: fifteen', 'dup')
    b = lone(s.repo, MAL, 'src/a.c', 'a 15\n', 'a fifteen\n', 'a: fifteen', 'dup2')
    b = b.replace('Message-ID: <dup2-0@example.org>', 'Message-ID: <dup-0@example.org>')
    s.ingest(a)
    s.ingest(b)
    cmd = reply(b, MIA, '#yard stage', authserv=MTA, dkim_domain='maint.example.org')
    s.ingest(cmd)
    p = s.patch(a)
    check('reused: the command staged nothing', p.get('state') == 'new', p.get('state'))
    check('reused: show --json marks the reused Message-ID', p.get('message_id_reused') is True, p)
    s.y.run('send')
    tr = sent_in_reply_to(cmd)
    check('reused: one transcript, naming both mails', len(tr) == 1 and 'names 2 different mails' in tr[0]
          and tr[0].count('mallory@evil.example.net') >= 2, tr)


def html_only():
    """Finding 6: commands only from text/plain."""
    s = Setup('html')
    p = lone(s.repo, ADA, 'src/b.c', 'b 45\n', 'b forty-five\n', 'b: forty-five', 'h')
    s.ingest(p)
    r = reply(p, MIA, '', authserv=MTA, dkim_domain='maint.example.org').replace(
        'Content-Type: text/plain', 'Content-Type: text/html')
    s.ingest(r.rstrip('\n') + '\n<html><body><p>Good.</p>\n<p>#yard stage</p>\n<pre>\n#yard stage\n</pre></body></html>\n')
    check('html: an HTML-only reply commands nothing', s.state(p) == 'new', s.state(p))
    r = reply(p, MIA, '#yard stage', authserv=MTA, dkim_domain='maint.example.org')
    s.ingest(r)
    check('html: the same from text/plain is obeyed', s.state(p) == 'staged', s.state(p))


def series_copies():
    """Finding 4: a series takes code only from its author."""
    for k, kind in enumerate(('stranger', 'unauthenticated', 'extra')):
        s = Setup('copies-%d' % k)
        ser = s.repo.series(edit('src/a.c', 'a 25\n', 'a twenty-five\n', 'a: 25') +
                            edit('src/b.c', 'b 17\n', 'b seventeen\n', 'b: 17'), ADA, 'ser%d' % k,
                            msgid='ser%d' % k, title='demo: spell')
        for m in ser:
            s.ingest(m)
        who = MAL if kind == 'stranger' else ADA
        if kind == 'extra':
            copy = s.repo.series(edit('README', 'demo\n', 'demo\nexfiltrate()\n', 'README: tweak'), who,
                                 'x%d' % k, cover=False, msgid='x%d' % k)[0]
            copy = copy.replace('Subject: [PATCH]', 'Subject: [PATCH 3/2]')
        else:
            copy = s.repo.series(edit('src/a.c', 'a 25\n', 'a twenty-five\n', 'a: 25') +
                                 edit('src/b.c', 'b 17\n', 'b seventeen; exfiltrate()\n', 'b: 17'), who,
                                 'c%d' % k, msgid='c%d' % k, title='demo: spell')[2]
        copy = copy.replace('\n\n', '\nIn-Reply-To: <%s>\nReferences: <%s>\n\n' % (msgid(ser[0]), msgid(ser[0])), 1)
        s.ingest(copy)
        cmd = reply(ser[0], MIA, '#yard stage series', authserv=MTA, dkim_domain='maint.example.org')
        s.ingest(cmd)
        s.y.run('rebuild')
        both = s.unstable('src/b.c') + s.unstable('README')
        check('copies (%s): unstable holds the author\'s code only' % kind,
              'b seventeen\n' in both and 'exfiltrate' not in both, both[-300:])
        staged = [p['patch_id'] for p in s.y.show(msgid(ser[0])).get('patches', []) if p['state'] == 'staged']
        s.y.run('send')
        tr = sent_in_reply_to(cmd)
        check('copies (%s): the transcript lists the staged patch-ids' % kind,
              len(staged) == 2 and tr and all(pid[:12] in tr[0] for pid in staged), (staged, tr))


def claimed_trailer():
    """Finding 5: a review written into the patch is a claim."""
    s = Setup('claimed', auth='\tdkim-keys = %s\n' % KEYFILE)
    p = lone(s.repo, ADA, 'src/b.c', 'b 55\n', 'b fifty-five\n', 'b: fifty-five', 'cl')
    p = p.replace('\n\nSigned-off-by: Ada', '\n\n' + REVIEW + '\nSigned-off-by: Ada', 1)
    s.ingest(p)
    t = s.trailers(p)
    check('claimed: the Reviewed-by in Ada\'s own message is unverified', len(t) == 1 and not t[0]['verified'], t)
    s.ingest(dkim_sign(reply(p, MIA, 'Indeed.\n\n' + REVIEW), 'maint.example.org'))
    t = s.trailers(p)
    check('claimed: Mia\'s own signed reply verifies it, one object',
          len(t) == 1 and t[0]['verified'] and t[0]['authenticated'] == 'dkim d=maint.example.org', t)


def path_limited_rename():
    """Finding 7: a path-limited maintainer is checked on both sides of a
    rename."""
    s = Setup('rename', maint='\tpath = doc/\n')
    s.repo.git('checkout', '-q', '-b', 'mv', 'master')
    s.repo.git('mv', 'src/a.c', 'doc/a.c')
    s.repo.git('commit', '-q', '-m', 'move a.c into doc\n\nSigned-off-by: Ada Author <ada@example.org>', who=ADA)
    p = s.repo.git('format-patch', '-M', '--stdout', 'master..mv', who=ADA)
    s.repo.git('checkout', '-q', 'master')
    p = p.split('\n', 1)[1]
    p = re.sub(r'(?m)^Message-ID:.*\n', '', p).replace('\n\n', '\nMessage-ID: <mv-0@example.org>\nTo: demo@lists.example.org\n\n', 1)
    s.ingest(p)
    cmd = reply(p, MIA, '#yard stage', authserv=MTA, dkim_domain='maint.example.org')
    s.ingest(cmd)
    check('rename: a maintainer of doc/ may not stage src/a.c moved into doc/', s.state(p) == 'new', s.state(p))
    s.y.run('send')
    tr = sent_in_reply_to(cmd)
    check('rename: the transcript names src/a.c', tr and 'src/a.c' in tr[0], tr)


def key_pending(how):
    """A DKIM key being looked up holds no write lock (DKIM lookups ran inside
    the transaction: a mail with 8 signatures on domains whose DNS never
    answers held the database for 40 s, and other writers gave up after 10).
    While one mail waits for its key, by `ingest` or in an archive the daemon
    follows, another writer starts a transaction at once, and `ingest` of
    another mail is stored; once the key comes, the mail is judged as before.

    A DNS server that never answers cannot be put in the resolver's way
    without changing /etc/resolv.conf, the system's.  So the key source that
    blocks is the key file: auth.dkim-keys is a FIFO that nobody writes to
    until the test says so.  libopendkim opens that file for each key it
    looks up and reads it with fgets(), at the point in dkim_eom() where it
    would otherwise wait for a DNS answer, so the read blocks there."""
    fifo = os.path.join(TMP, 'pending-%s.keys' % how)
    os.mkfifo(fifo)
    s = Setup('pending-' + how, auth='\tdkim-keys = %s\n' % fifo, source='' if how == 'archive' else None)
    # Held open for writing (O_RDWR does not wait for a reader), so the
    # reader's fgets() waits for a line instead of seeing the end.
    fd = os.open(fifo, os.O_RDWR)
    p = lone(s.repo, ADA, 'src/a.c', 'a 33\n', 'a thirty-three\n', 'a: 33', 'kp' + how)
    q = lone(s.repo, ADA, 'src/b.c', 'b 33\n', 'b thirty-three\n', 'b: 33', 'kq' + how)
    good = dkim_sign(reply(p, MIA, 'Thanks.\n\n#yard stage\n\n' + REVIEW), 'maint.example.org')
    cmd = [YARD, '-c', s.y.conf]
    if how == 'archive':
        # The patch first, so that its batch is being written when the
        # signed reply waits for its key.
        s.archive_only([p, good])
        proc = subprocess.Popen(cmd + ['run', '--once'], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    else:
        s.ingest(p)
        proc = subprocess.Popen(cmd + ['ingest', '--project', 'demo'], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdin.write(good.encode())
        proc.stdin.close()
        proc.stdin = None
    fds = '/proc/%d/fd' % proc.pid
    deadline = time.time() + 20
    waiting = False
    while time.time() < deadline and proc.poll() is None and not waiting:
        try:
            waiting = any(os.readlink(os.path.join(fds, f)) == fifo for f in os.listdir(fds))
        except OSError:
            pass
        time.sleep(0.05)
    time.sleep(0.3)
    check('pending (%s): the mail waits for its key' % how, waiting and proc.poll() is None)
    db = sqlite3.connect(os.path.join(s.dir, 'yard.db'), timeout=2)
    t0 = time.time()
    try:
        db.execute('BEGIN IMMEDIATE')
        db.rollback()
        began = None
    except sqlite3.OperationalError as e:
        began = str(e)
    db.close()
    check('pending (%s): another writer begins a transaction meanwhile' % how, began is None,
          '%s after %.1f s' % (began, time.time() - t0))
    t0 = time.time()
    r = s.ingest(q)
    took = time.time() - t0
    check('pending (%s): another mail is ingested meanwhile, at once' % how,
          r.returncode == 0 and took < 5, 'exit %d after %.1f s' % (r.returncode, took))
    os.write(fd, ('%s._domainkey.maint.example.org %s\n' % (SEL, KEYS['maint.example.org'][1])).encode())
    os.close(fd)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    check('pending (%s): the waiting mail is stored once its key comes' % how, proc.returncode == 0,
          err.decode(errors='replace')[-300:])
    check('pending (%s): and judged as before: its #yard stage is obeyed' % how,
          s.state(p) == 'staged', s.state(p))
    t = s.trailers(p)
    check('pending (%s): its Reviewed-by is verified, "dkim d=maint.example.org"' % how,
          len(t) == 1 and t[0]['verified'] and t[0]['authenticated'] == 'dkim d=maint.example.org', t)
    check('pending (%s): the other mail is there too' % how, s.state(q) == 'new', s.state(q))


def redelivery_not_judged():
    """An MTA's second delivery of a stored mail is counted, not judged
    again: its DKIM key is not looked up (here the key file becomes a FIFO
    nobody writes to, where a lookup would wait for ever)."""
    keys = os.path.join(TMP, 'redeliver.keys')
    open(keys, 'w').write('%s._domainkey.maint.example.org %s\n' % (SEL, KEYS['maint.example.org'][1]))
    s = Setup('redeliver', auth='\tdkim-keys = %s\n' % keys)
    p = lone(s.repo, ADA, 'src/a.c', 'a 56\n', 'a fifty-six\n', 'a: 56', 'rd')
    s.ingest(p)
    good = dkim_sign(reply(p, MIA, 'Thanks.\n\n' + REVIEW), 'maint.example.org')
    r = s.ingest(good)
    check('redeliver: the signed review is stored, verified', r.returncode == 0 and len(s.trailers(p)) == 1
          and s.trailers(p)[0]['verified'], r.stderr.decode(errors='replace')[-300:])
    os.unlink(keys)
    os.mkfifo(keys)
    t0 = time.time()
    try:
        r = subprocess.run([YARD, '-c', s.y.conf, 'ingest', '--project', 'demo'], input=good.encode(),
                           capture_output=True, timeout=15)
        took = time.time() - t0
        ok = r.returncode == 0
    except subprocess.TimeoutExpired:
        took, ok = None, False
    check('redeliver: the second delivery is taken at once, its key not looked up again',
          ok and took is not None and took < 5, 'never' if took is None else '%.1f s' % took)


def dns_silent_stop():
    """SIGTERM while the daemon waits for a DKIM key's DNS answer: it ends
    at once (libopendkim's own stub waited 5 s a try, twice a server, on
    through signals; then on a thread that blocks signals, for good).  The
    name server that never answers is a socket on 127.0.0.1:53 that reads
    and says nothing, made the resolver's by a mount namespace of the
    daemon's own (unshare -m, then /etc/resolv.conf bound over): the
    system's file is not touched.  Skipped, saying why, where that cannot
    be made (not root, port 53 taken, no unshare)."""
    import socket
    try:
        ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        ns.bind(('127.0.0.1', 53))
    except OSError as e:
        print('skip: dns stop: no silent name server on 127.0.0.1:53 (%s)' % e)
        return
    conf = os.path.join(TMP, 'resolv.conf')
    open(conf, 'w').write('nameserver 127.0.0.1\n')
    probe = subprocess.run(['unshare', '-m', 'sh', '-c', 'mount --bind "$1" /etc/resolv.conf', 'sh', conf],
                           capture_output=True)
    if probe.returncode != 0:
        ns.close()
        print('skip: dns stop: no mount namespace (%s)' % probe.stderr.decode(errors='replace').strip())
        return
    s = Setup('dns-stop', source='')
    p = lone(s.repo, ADA, 'src/a.c', 'a 55\n', 'a fifty-five\n', 'a: 55', 'ds')
    # Five signed reviews: five lookups of a second each with our stub.
    s.archive_only([p] + [dkim_sign(reply(p, MIA, 'Look %d.\n\n' % i + REVIEW), 'maint.example.org')
                          for i in range(5)])
    proc = subprocess.Popen(['unshare', '-m', 'sh', '-c', 'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"',
                             'sh', conf, YARD, '-c', s.y.conf, 'run'],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    asked = 0
    deadline = time.time() + 20
    ns.settimeout(0.1)
    while time.time() < deadline and asked < 2 and proc.poll() is None:
        try:
            ns.recv(512)
            asked += 1
        except socket.timeout:
            pass
    check('dns stop: the daemon asks the silent server for a key', asked >= 2, asked)
    t0 = time.time()
    proc.terminate()
    try:
        proc.wait(10)
        took = time.time() - t0
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        took = None
    ns.close()
    err = proc.stderr.read().decode(errors='replace')
    check('dns stop: SIGTERM ends it within 2 s, mid-lookup', took is not None and took < 2.0,
          'never' if took is None else '%.2f s' % took)
    check('dns stop: and it says it stopped', 'stopped by signal' in err, err[-300:])


def ack_recipients():
    """Finding 8: acknowledgments never go to an address only a stranger's
    reply wrote, and to 30 at most."""
    s = Setup('rcpt', auth='\tdkim-keys = %s\n' % KEYFILE)
    p = lone(s.repo, ADA, 'src/a.c', 'a 44\n', 'a forty-four\n', 'a: 44', 'rc')
    ccs = ''.join('Cc: Person %d <p%d@many.example>\n' % (i, i) for i in range(40))
    p = p.replace('\n\nSigned-off-by: Ada', '\n\n' + ccs + 'Signed-off-by: Ada', 1)
    s.ingest(p)
    s.ingest(reply(p, MAL, 'Tested-by: %s <%s>\nCc: %s' % (VIC[0], VIC[1], VIC[1])))
    s.ingest(dkim_sign(reply(p, MIA, REVIEW), 'maint.example.org'))
    s.y.run('stage', msgid(p))
    s.y.run('rebuild')
    s.y.run('send')
    acks = [m for m in sent_in_reply_to(p) if header(m, 'X-Patchyard-Event') == 'staged']
    rcpt = acks[0] if acks else ''
    to = [a.strip() for a in (header(rcpt, 'X-Smtpd-Rcpt-To') or '').split(',') if a.strip()]
    check('rcpt: one staged acknowledgment', len(acks) == 1, len(acks))
    check('rcpt: not to the address only a stranger\'s reply wrote', VIC[1] not in rcpt, to)
    check('rcpt: to the author, the list and the verified reviewer',
          any(ADA[1] in a for a in to) and any('demo@lists' in a for a in to) and any(MIA[1] in a for a in to), to)
    check('rcpt: 30 at most', 0 < len(to) <= 30, len(to))


try:
    for fn in (forged_header_in_archive, dkim_in_process, patatt_in_archive, relay_per_source,
               reused_message_id, html_only, series_copies, claimed_trailer, path_limited_rename,
               ack_recipients):
        fn()
    for how in ('ingest', 'archive'):
        key_pending(how)
    redelivery_not_judged()
    dns_silent_stop()
finally:
    SMTP.stop()
    shutil.rmtree(TMP, ignore_errors=True)
done()
