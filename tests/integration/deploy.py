#!/usr/bin/python3
"""Deployed as an administrator deploys it (issue 43).

- Two Unix users: a public-inbox archive and an upstream owned by one,
  read by `patchyard run --once` running as the other; a ref file of mode
  0600 reported as not readable; an unreadable HOME does not stop
  `upstream`.  Needs root (it creates two throw-away system users, and
  removes those it created) and setpriv; skipped otherwise.
- Logs an operator can read: without [smtp] a running daemon says so once
  and `status` says so; a SIGHUP with a broken config logs each file:line
  error as "patchyard: error:", and a SIGHUP that adds [smtp] sends.  The
  guide's backup (sqlite3 .backup) taken while it runs is a whole database.
- One SMTP session per send run: 10 acknowledgments over one connection
  (smtpd.py counts them), -v lines without a literal \\x0a, a relay that
  drops the connection at the 5th MAIL FROM costs one reconnection and no
  mail, a relay out of reach is said once, with curl's reason.
- Acknowledgments that tell the truth: the staged one, sent after the
  rebuild, says the branch has the patch; the updated one says what
  changed between the versions (the code, the description, the trailers)
  or that nothing did.
"""
import email, json, os, pwd, re, shutil, signal, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *

OWNER, BOT = 'yardt-owner', 'yardt-bot'
procs = []
made_users = []
LEVEL = re.compile(r'patchyard: (error|warning): ')


def note(tag, k):
    return ('From: Rob Reviewer <rob@example.org>\nTo: demo@lists.example.org\n'
            'Subject: deploy note %d\nMessage-ID: <deploy-%s-%d@example.org>\n'
            'Date: Thu, 03 Dec 2026 10:00:00 +0000\n\nA note.\n' % (k, tag, k)).encode()


def rev(gitdir, ref):
    r = sh(['git', '--git-dir=' + gitdir, 'rev-parse', '-q', '--verify', ref], check_rc=False)
    return r.stdout.decode().strip() or None


def edits(n, word='changed'):
    """n one-line edits of src/a.c, the last one's text word."""
    return [('src/a.c', (lambda s, i=i, w=(word if i == n - 1 else 'changed'):
                         s.replace('a %d\n' % (i * 5), 'a %d %s\n' % (i * 5, w))),
             'a: change line %d' % (i * 5)) for i in range(n)]


def conf(path, lines):
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    os.chmod(path, 0o644)


# ---- 1. two Unix users -------------------------------------------------------

def ensure_user(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        pass
    r = subprocess.run(['useradd', '--system', '--user-group', '--no-create-home',
                        '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin',
                        '--comment', 'patchyard test user (tests/integration/deploy.py)', name],
                       capture_output=True)
    if r.returncode:
        return False
    made_users.append(name)
    return True


def as_user(name, args, home, inp=None):
    """args as Unix user name (setpriv), with HOME=home and a clean environment."""
    pw = pwd.getpwnam(name)
    cmd = ['setpriv', '--reuid=%d' % pw.pw_uid, '--regid=%d' % pw.pw_gid,
           '--clear-groups', '--'] + args
    env = {'PATH': '/usr/local/bin:/usr/bin:/bin', 'HOME': home, 'LANG': 'C.UTF-8',
           'USER': name, 'LOGNAME': name}
    return subprocess.run(cmd, input=inp, capture_output=True, env=env, cwd='/', timeout=300)


def give(path, name):
    """path and all below it: world-readable, owned by name."""
    sh(['chmod', '-R', 'a+rX,go-w', path])
    sh(['chown', '-R', '%s:%s' % (name, name), path])


def two_users(tmp):
    if os.geteuid() != 0 or not shutil.which('setpriv') or not shutil.which('useradd'):
        print('skip: two users: needs root, setpriv and useradd')
        return
    if not (ensure_user(OWNER) and ensure_user(BOT)):
        print('skip: two users: cannot create %s and %s' % (OWNER, BOT))
        return
    os.chmod(tmp, 0o755)
    binary = os.path.join(tmp, 'bin', 'patchyard')
    os.makedirs(os.path.dirname(binary))
    shutil.copy(YARD, binary)
    os.chmod(binary, 0o755)
    A, Y = os.path.join(tmp, 'arch'), os.path.join(tmp, 'yard')
    os.makedirs(os.path.join(Y, 'home'))
    up = Repo(os.path.join(A, 'upstream'))
    s1 = up.series(edits(3), ('Ann Author', 'ann@example.org'), 'one', msgid='own1')
    s2 = up.series(edits(2, 'more'), ('Ann Author', 'ann@example.org'), 'two', msgid='own2',
                   title='demo: more')
    inbox = os.path.join(A, 'inbox')
    epoch_add(inbox, 0, [m.encode() for m in s1])
    epoch_add(inbox, 1, [m.encode() for m in s2] + [note('own', 1)])
    n = len(s1) + len(s2) + 1
    give(A, OWNER)
    give(Y, BOT)
    conf(os.path.join(Y, 'bot.conf'), [
        '[core]', '\tdatabase = %s/yard.db' % Y,
        '[project "demo"]', '\tlist = demo@lists.example.org',
        '\tupstream = %s/upstream' % A, '\tstaging = %s/staging.git' % Y,
        '[source "archive"]', '\tpublic-inbox = %s' % inbox, '\tproject = demo'])
    bot = lambda args, home=os.path.join(Y, 'home'): as_user(
        BOT, [binary, '-c', os.path.join(Y, 'bot.conf')] + args, home)
    r = bot(['init'])
    check('two users: init as %s' % BOT, r.returncode == 0, r.stderr)
    r = bot(['run', '--once'])
    out = r.stderr.decode(errors='replace')
    st = json.loads(bot(['status', '--json']).stdout or b'{}')
    src = [x for x in st.get('sources', []) if x['name'] == 'archive']
    check('two users: run --once as %s stores the %d mails of an archive %s owns'
          % (BOT, n, OWNER),
          r.returncode == 0 and st.get('messages') == n and src and src[0]['last_error'] is None,
          (r.returncode, st, out[-600:]))
    want = rev(os.path.join(A, 'upstream', '.git'), 'refs/heads/master')
    have = rev(os.path.join(Y, 'staging.git'), 'refs/upstream/master')
    check('two users: ... and fetches the upstream %s owns' % OWNER, want and have == want,
          (want, have, out[-600:]))
    check('two users: no word of ownership or safe.directory',
          not re.search(r'owned|safe\.directory', out), out[-600:])

    # A loose ref of mode 0600 that another user owns: not readable, not "locked".
    B = os.path.join(Y, 'inbox2')
    g = epoch_add(B, 0, [note('ref', 1), note('ref', 2)])
    ref = os.path.join(g, 'refs', 'heads', 'master')
    give(B, BOT)
    pw = pwd.getpwnam(OWNER)
    os.chown(ref, pw.pw_uid, pw.pw_gid)
    os.chmod(ref, 0o600)
    conf(os.path.join(Y, 'ref.conf'), [
        '[core]', '\tdatabase = %s/ref.db' % Y,
        '[project "demo"]', '\tlist = demo@lists.example.org',
        '[source "archive"]', '\tpublic-inbox = %s' % B, '\tproject = demo'])
    home = os.path.join(Y, 'home')
    as_user(BOT, [binary, '-c', os.path.join(Y, 'ref.conf'), 'init'], home)
    r = as_user(BOT, [binary, '-c', os.path.join(Y, 'ref.conf'), 'run', '--once'], home)
    out = r.stderr.decode(errors='replace')
    said = [l for l in out.splitlines() if ref in l]
    check('a ref file of mode 0600: "not readable by uid N", not "locked"',
          said and all('not readable by uid %d' % pwd.getpwnam(BOT).pw_uid in l and
                       'locked' not in l for l in said), out[-600:])

    # HOME an unreadable folder: `upstream` goes on without $HOME/.gitconfig.
    C = os.path.join(tmp, 'own')
    os.makedirs(os.path.join(C, 'home'))
    Repo(os.path.join(C, 'upstream'))
    closed = os.path.join(tmp, 'closed-home')
    os.makedirs(closed)
    give(C, BOT)
    give(closed, OWNER)
    os.chmod(closed, 0o700)
    conf(os.path.join(C, 'bot.conf'), [
        '[core]', '\tdatabase = %s/yard.db' % C,
        '[project "demo"]', '\tlist = demo@lists.example.org',
        '\tupstream = %s/upstream' % C, '\tstaging = %s/staging.git' % C])
    cy = lambda args, home: as_user(BOT, [binary, '-c', os.path.join(C, 'bot.conf')] + args, home)
    cy(['init'], os.path.join(C, 'home'))
    r = cy(['upstream'], closed)
    out = r.stderr.decode(errors='replace')
    want = rev(os.path.join(C, 'upstream', '.git'), 'refs/heads/master')
    have = rev(os.path.join(C, 'staging.git'), 'refs/upstream/master')
    warned = [l for l in out.splitlines() if '.gitconfig' in l]
    check('HOME unreadable: upstream goes on (exit 0, fetched), one warning about .gitconfig',
          r.returncode == 0 and want and have == want and len(warned) == 1 and
          'warning' in warned[0] and 'Permission denied' in warned[0], (r.returncode, want, have, out))


# ---- 2. logs an operator can read ---------------------------------------------

def wait(cond, seconds):
    end = time.time() + seconds
    while time.time() < end and not cond():
        time.sleep(0.1)
    return cond()


def quiet_logs(tmp):
    Q = os.path.join(tmp, 'quiet')
    os.makedirs(Q)
    up = Repo(os.path.join(Q, 'up'))
    mails = up.series(edits(3), ('Ann Author', 'ann@example.org'), 'q', msgid='quiet')
    inbox = os.path.join(Q, 'inbox')
    good = ['[core]', '\tdatabase = %s/yard.db' % Q,
            '[bot]', '\taddress = yard@bot.example.org',
            '[project "demo"]', '\tlist = demo@lists.example.org',
            '[source "archive"]', '\tpublic-inbox = %s' % inbox, '\tproject = demo',
            '\tinterval = 1']
    cf = os.path.join(Q, 'bot.conf')
    conf(cf, good)
    y = lambda *a, check_rc=False, inp=None: sh([YARD, '-c', cf] + list(a), inp=inp,
                                                check_rc=check_rc)
    y('init', check_rc=True)
    for m in mails:
        y('ingest', '--project', 'demo', inp=m.encode(), check_rc=True)
    # No staging repository: the acknowledgments are due at once.
    y('stage', msgid(mails[0]), '--series', check_rc=True)
    epoch_add(inbox, 0, [note('quiet', 0)])
    st = json.loads(y('status', '--json').stdout)
    check('no [smtp]: status --json says relay null', 'relay' in st and st['relay'] is None
          and st['outbox']['due'] == 3, st)
    txt = y('status').stdout.decode()
    check('no [smtp]: status says mail is queued, never sent', 'never sent' in txt, txt)
    r = y('send')
    check('no [smtp]: send fails, saying why', r.returncode == 1 and
          b'no [smtp] url' in r.stderr, r.stderr)

    logf = open(os.path.join(Q, 'run.log'), 'wb')
    run = subprocess.Popen([YARD, '-c', cf, 'run'], stdout=logf, stderr=logf)
    procs.append(run)
    log = lambda: open(os.path.join(Q, 'run.log'), errors='replace').read()
    sink = Smtpd(Q).start()
    try:
        for k in range(1, 5):  # four polls that store mail
            epoch_add(inbox, 0, [note('quiet', k)])
            wait(lambda: json.loads(y('status', '--json').stdout)['messages'] == len(mails) + 1 + k, 10)
        before = log()
        noisy = [l for l in before.splitlines() if LEVEL.search(l)]
        check('no [smtp]: run says so once, and logs no other warning or error over 4 polls',
              len(noisy) == 1 and 'never sent' in noisy[0] and
              json.loads(y('status', '--json').stdout)['messages'] == len(mails) + 5, before[-800:])
        # docs/DEPLOY.md's backup, taken while run runs: a database whole.
        if shutil.which('sqlite3'):
            bk = os.path.join(Q, 'backup.db')
            r = sh(['sqlite3', os.path.join(Q, 'yard.db'), '.backup ' + bk], check_rc=False)
            bc = os.path.join(Q, 'backup.conf')
            conf(bc, ['[core]', '\tdatabase = %s' % bk,
                      '[project "demo"]', '\tlist = demo@lists.example.org'])
            got = sh([YARD, '-c', bc, 'status', '--json'], check_rc=False)
            check('sqlite3 .backup while run runs: a database status reads, every mail in it',
                  r.returncode == 0 and got.returncode == 0 and
                  json.loads(got.stdout)['messages'] == len(mails) + 5, (r.stderr, got.stderr))
        else:
            print('skip: sqlite3 .backup: no sqlite3')
        # SIGHUP with two bad values: each a log line with file:line.
        conf(cf, good[:6] + ['\tcc-list = maybe'] + good[6:-1] + ['\tinterval = 0'])
        run.send_signal(signal.SIGHUP)
        wait(lambda: 'not reloaded' in log(), 10)
        errs = [l for l in log()[len(before):].splitlines() if re.search(r'bot\.conf:\d+:', l)]
        check('SIGHUP with a broken config: each file:line error is "patchyard: error: ..."',
              len(errs) == 2 and all(l.startswith('patchyard: error: %s:' % cf) for l in errs),
              log()[len(before):])
        # A SIGHUP that adds [smtp]: the waiting mail goes.
        conf(cf, good + ['[smtp]', '\turl = smtp://127.0.0.1:%d' % sink.port,
                         '\tstarttls = never'])
        run.send_signal(signal.SIGHUP)
        got = wait(lambda: len(sink.mails()) >= 3, 15)
        check('a SIGHUP that adds [smtp]: the waiting mail is sent', got and
              json.loads(y('status', '--json').stdout)['relay'] ==
              'smtp://127.0.0.1:%d' % sink.port, (len(sink.mails()), log()[-600:]))
    finally:
        run.send_signal(signal.SIGTERM)
        run.wait(timeout=20)
        sink.stop()
        logf.close()


# ---- 3. one SMTP session per send run ---------------------------------------------

def session(tmp):
    M = os.path.join(tmp, 'mail')
    os.makedirs(M)
    up = Repo(os.path.join(M, 'up'))
    sink = Smtpd(M).start()
    base = ['[core]', '\tdatabase = %s/yard.db' % M,
            '[bot]', '\taddress = yard@bot.example.org',
            '[project "demo"]', '\tlist = demo@lists.example.org',
            '\tupstream = %s/up' % M, '\tstaging = %s/staging.git' % M,
            '[auth]', '\trequire = none']
    conf(os.path.join(M, 'bot.conf'), base + ['[smtp]', '\turl = smtp://127.0.0.1:%d' % sink.port,
                                               '\tstarttls = never'])
    down = free_port()
    conf(os.path.join(M, 'down.conf'), base + ['[smtp]', '\turl = smtp://127.0.0.1:%d' % down,
                                                '\tstarttls = never'])
    y = lambda *a, c='bot.conf', inp=None: sh([YARD, '-c', os.path.join(M, c)] + list(a),
                                              inp=inp, check_rc=False)
    try:
        y('init')
        v1 = up.series(edits(10), ('Ann Author', 'ann@example.org'), 'v1', msgid='sess')
        for m in v1:
            y('ingest', '--project', 'demo', inp=m.encode())
        y('upstream')
        y('stage', msgid(v1[0]), '--series')
        y('rebuild')
        r = y('-v', '-v', 'send')
        err = r.stderr.decode(errors='replace')
        st = sink.stats()
        check('10 acknowledgments in one send run: one SMTP connection',
              r.returncode == 0 and len(sink.mails()) == 10 and st.get('connections') == 1,
              (st, err[-400:]))
        check('send says it: 10 sent over 1 connection',
              'send: 10 sent, 0 failed, 0 waiting; 1 SMTP connection' in err, err[-400:])
        esc = [l for l in err.splitlines() if '\\x0a' in l.lower()]
        check('-v -v send: curl lines without a literal \\x0a', not esc and 'smtp: curl:' in err,
              esc[:3])

        # Ten drop acknowledgments, the relay down: one line says why.
        for m in v1[1:]:
            y('drop', msgid(m), 'obsolete')
        due = json.loads(y('status', '--json').stdout)['outbox']['due']
        r = y('run', '--once', c='down.conf')
        err = r.stderr.decode(errors='replace')
        said = [l for l in err.splitlines() if LEVEL.search(l)]
        check('relay down: one warning says why (curl: connect, the port), the mail waits',
              due == 10 and len(said) == 1 and 'cannot reach the relay' in said[0] and
              re.search(r'[Cc]onnect', said[0]) and str(down) in said[0] and
              json.loads(y('status', '--json').stdout)['outbox']['waiting'] == 10,
              (due, err[-600:]))

        # The relay drops the session at its 5th MAIL FROM: one reconnection, no mail lost.
        sink.stop()
        shutil.rmtree(sink.maildir)
        sink = Smtpd(M, args=['--drop-at-mail', '5']).start()
        conf(os.path.join(M, 'bot.conf'), base + ['[smtp]', '\turl = smtp://127.0.0.1:%d' % sink.port,
                                                   '\tstarttls = never'])
        r = y('send', '--now')
        err = r.stderr.decode(errors='replace')
        st = sink.stats()
        ids = [header(m, 'Message-ID') for m in sink.mails()]
        out = json.loads(y('status', '--json').stdout)['outbox']
        check('a relay that drops the connection mid-run: one reconnection, all 10 sent once',
              st.get('dropped') == 1 and st.get('connections') == 2 and len(ids) == 10 and
              len(set(ids)) == 10 and out == {'due': 0, 'waiting': 0, 'failed': 0} and
              '; 2 SMTP connections' in err, (st, len(ids), out, err[-400:]))
    finally:
        sink.stop()


# ---- 4. acknowledgments that tell the truth ---------------------------------------

def body_of(mail):
    m = email.message_from_string(mail)
    part = m.get_payload(decode=True) if not m.is_multipart() else m.get_payload(0).get_payload(decode=True)
    return ' '.join((part or b'').decode('utf-8', 'replace').split())


def acks(tmp):
    K = os.path.join(tmp, 'acks')
    os.makedirs(K)
    up = Repo(os.path.join(K, 'up'))
    sink = Smtpd(K).start()
    conf(os.path.join(K, 'bot.conf'), [
        '[core]', '\tdatabase = %s/yard.db' % K,
        '[bot]', '\taddress = yard@bot.example.org',
        '[project "demo"]', '\tlist = demo@lists.example.org',
        '\tupstream = %s/up' % K, '\tstaging = %s/staging.git' % K,
        '[auth]', '\trequire = none',
        '[smtp]', '\turl = smtp://127.0.0.1:%d' % sink.port, '\tstarttls = never'])
    y = lambda *a, inp=None: sh([YARD, '-c', os.path.join(K, 'bot.conf')] + list(a),
                                inp=inp, check_rc=False)

    def new_acks(n0, event):
        out = {}
        for m in sink.mails()[n0:]:
            if header(m, 'X-Patchyard-Event') == event:
                out[header(m, 'In-Reply-To').strip('<>')] = body_of(m)
        return out
    try:
        y('init')
        v1 = up.series(edits(4), ('Ann Author', 'ann@example.org'), 'acks1', msgid='ack1')
        for m in v1:
            y('ingest', '--project', 'demo', inp=m.encode())
        y('upstream')
        y('stage', msgid(v1[0]), '--series')
        n0 = len(sink.mails())
        y('send')
        check('the staged acknowledgment waits for the rebuild', len(sink.mails()) == n0,
              len(sink.mails()) - n0)
        y('rebuild')
        y('send')
        st = new_acks(n0, 'staged')
        check('the staged acknowledgment, sent after the rebuild, says the branch has it',
              len(st) == 4 and all('It is in the unstable branch of the staging tree now' in b and
                                   'will appear' not in b for b in st.values()),
              list(st.values())[:1])

        # v2: patch 1 as it was, 2 with another description, 3 with a
        # trailer more, 4 with other code.
        v2 = []
        for i, m in enumerate(v1):
            m = m.replace('<ack1-', '<ack2-').replace('[PATCH ', '[PATCH v2 ')
            if i == 2:
                m = m.replace('\nBody of a: change line 5.\n', '\nBody of a: change line 5, said better.\n')
            if i == 3:
                m = m.replace('\nSigned-off-by: Ann Author <ann@example.org>\n',
                              '\nSigned-off-by: Ann Author <ann@example.org>\n'
                              'Reviewed-by: Rob Reviewer <rob@example.org>\n')
            if i == 4:
                m = m.replace('+a 15 changed', '+a 15 changed again')
            v2.append(m)
        for m in v2:
            y('ingest', '--project', 'demo', inp=m.encode())
        y('rebuild')
        n0 = len(sink.mails())
        y('send')
        upd = new_acks(n0, 'updated')
        want = {1: 'Nothing changed but the version', 2: 'What changed: the description.',
                3: 'What changed: the trailers.', 4: 'What changed: the code.'}
        for i, w in want.items():
            b = upd.get(msgid(v2[i]), '')
            code = 'Changes to the code since the previous version' in b
            check('the updated acknowledgment of patch %d says: %s' % (i, w),
                  w in b and 'description or the trailers did' not in b and code == (i == 4) and
                  (i == 1) == ('What changed' not in b), b[:600] or sorted(upd))
    finally:
        sink.stop()


def main():
    tmp = tempfile.mkdtemp(prefix='patchyard-deploy-')
    try:
        two_users(tmp)
        quiet_logs(tmp)
        session(tmp)
        acks(tmp)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
        for u in made_users:
            subprocess.run(['userdel', u], capture_output=True)
    done()


if __name__ == '__main__':
    main()
