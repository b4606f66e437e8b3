#!/usr/bin/python3
"""The field's protocols (issue 46) with the real clients from Debian
against `patchyard serve` on loopback, each configured with `git config`
in a HOME of its own, with no network but the loopback:

- git-pw (patchwork's REST API 1.2): series list/show/apply, patch
  list/show/download/apply, and `patch update --state under-review` with
  a maintainer's token, which stages the patch as `#yard stage` by mail
  does (the staging branch built the same), while a CI's token changes
  nothing;
- a check posted as a patchwork CI bot posts it (JSON and a form, with
  its token), read back from the API and its events;
- b4 (public-inbox's URLs, b4.midmask = <bot.url>/m/%s): `b4 am`, `b4
  shazam` and `b4 mbox` of the cover letter, and `b4 am -m` of a saved
  /c/ID/mbox, give the commits of `patchyard am`; /m/ID/raw is the mail
  as stored and t.mbox.gz its thread."""
import gzip, json, os, re, shutil, subprocess, sys, tempfile, urllib.error, urllib.parse, urllib.request
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *

ADA = ('Ada Author', 'ada@example.org')
MIA = ('Mia Maintainer', 'mia@maint.example.org')
ROB = ('Rob Reviewer', 'rob@review.example.org')
CC = 'Carl Cee <carl@example.org>'
TITLE = 'demo: spell the numbers out'


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None


OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), NoRedirect)


def http(url, method='GET', data=None, headers=None):
    """(status, headers, body) of one request, redirects not followed."""
    r = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        x = OPENER.open(r, timeout=30)
        return x.status, x.headers, x.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def patch_id(mail):
    """`git patch-id --stable` of the patch in a mail, as git am reads it."""
    with tempfile.TemporaryDirectory() as d:
        sh(['git', 'mailinfo', os.path.join(d, 'm'), os.path.join(d, 'p')], inp=mail)
        p = open(os.path.join(d, 'p'), 'rb').read()
    out = sh(['git', 'patch-id', '--stable'], inp=p).stdout.split()
    return out[0].decode() if out else None


def split_mbox(data):
    with tempfile.TemporaryDirectory() as d:
        sh(['git', 'mailsplit', '--mboxrd', '-o' + d], inp=data)
        return [open(os.path.join(d, f), 'rb').read() for f in sorted(os.listdir(d))]


def commits(repo, base):
    """The patch-ids of the commits after base, oldest first."""
    out = []
    for c in sh(['git', '-C', repo, 'log', '--reverse', '--format=%H', base + '..HEAD']).stdout.split():
        show = sh(['git', '-C', repo, 'show', c.decode()]).stdout
        out.append(sh(['git', 'patch-id', '--stable'], inp=show).stdout.split()[0].decode())
    return out


class Clients:
    """git-pw and b4 in a HOME of their own, offline but for loopback."""

    def __init__(self, tmp, base):
        self.home = os.path.join(tmp, 'home')
        os.makedirs(self.home)
        self.env = {k: v for k, v in os.environ.items() if 'proxy' not in k.lower()}
        self.env.update(HOME=self.home, XDG_CONFIG_HOME=self.home + '/.config',
                        XDG_CACHE_HOME=self.home + '/.cache', XDG_DATA_HOME=self.home + '/.local',
                        GIT_CONFIG_NOSYSTEM='1', GIT_PAGER='cat', PAGER='cat', LC_ALL='C.UTF-8',
                        NO_PROXY='127.0.0.1', no_proxy='127.0.0.1', GIT_AUTHOR_NAME=MIA[0],
                        GIT_AUTHOR_EMAIL=MIA[1], GIT_COMMITTER_NAME=MIA[0], GIT_COMMITTER_EMAIL=MIA[1])
        for k, v in (('user.name', MIA[0]), ('user.email', MIA[1]),
                     ('pw.server', base + '/api/1.2'), ('pw.project', 'demo'),
                     ('b4.midmask', base + '/m/%s'), ('b4.linkmask', base + '/m/%s'),
                     # b4 shazam asks for newer versions here: a 405 says none
                     ('b4.searchmask', base + '/?x=m&t=1&q=%s')):
            self.run(['git', 'config', '--global', k, v], tmp)

    def run(self, cmd, cwd, timeout=120):
        r = subprocess.run(cmd, cwd=cwd, env=self.env, capture_output=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
        return r.returncode, r.stdout.decode(errors='replace'), r.stderr.decode(errors='replace')

    def pw(self, cwd, token, *args):
        return self.run(['git', '-c', 'pw.token=' + token, 'pw'] + list(args), cwd)

    def b4(self, cwd, *args):
        return self.run(['b4'] + list(args), cwd)


def why(r):
    lines = [l for l in (r[2] + '\n' + r[1]).splitlines() if l.strip()]
    return (lines or ['exit %d' % r[0]])[-1][:200]


def build(tmp, port):
    """The list: a series in two versions with a review, on a staging tree."""
    repo = Repo(os.path.join(tmp, 'up'))
    for name, tok in (('mia', 'mia-secret'), ('ci', 'ci-secret')):
        open(os.path.join(tmp, name + '.token'), 'w').write('%s\n' % tok)
    extra = '''	archive = https://lists.example.org/demo/%%%%s/
	upstream = %s
	branch = master
	staging = %%s
[bot]
	address = yard@bot.example.org
	url = http://127.0.0.1:%d
[maintainer "mia"]
	email = %s
	token-file = %s/mia.token
[ci "lab"]
	email = ci@lab.example.org
	token-file = %s/ci.token
[auth]
	require = none
''' % (repo.path, port, MIA[1], tmp, tmp)
    edits = lambda word: [
        ('src/a.c', lambda s: s.replace('a 5\n', 'a five\n'), 'a: spell five'),
        ('src/b.c', lambda s: s.replace('b 7\n', 'b %s\n' % word), 'b: spell seven'),
        ('doc/x.txt', lambda s: s.replace('x 3\n', 'x three\n'), 'doc: spell three')]
    v1 = repo.series(edits('seven'), ADA, 'v1', title=TITLE, msgid='s1')
    v2 = repo.series(edits('SEVEN'), ADA, 'v2', version=2, title=TITLE, msgid='s2',
                     in_reply_to=msgid(v1[0]))
    v2 = [m.replace('To: demo@lists.example.org', 'To: demo@lists.example.org\nCc: ' + CC, 1) for m in v2]
    review = reply(v2[1], ROB, 'Nice.\n\nReviewed-by: %s <%s>' % ROB)
    mails = v1 + v2 + [review]
    return repo, extra, mails, v2


def yard_for(tmp, name, extra, mails):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    y = Yard(d, extra % os.path.join(d, 'staging.git'))
    y.run('upstream')
    for m in mails:
        y.ingest(m)
    return y, os.path.join(d, 'staging.git')


def unstable(staging):
    """What the unstable branch holds: its tree, and each commit's author,
    message and patch."""
    g = ['git', '-C', staging]
    tree = sh(g + ['rev-parse', 'unstable^{tree}']).stdout.decode().strip()
    log = sh(g + ['log', '--format=%an <%ae>%n%B', 'stable..unstable']).stdout.decode()
    return tree, log


def gitpw(cl, tmp, y, api, repo, base_commit, v2, sid, pids, am_pids):
    r = cl.pw(tmp, 'ci-secret', 'series', 'list', '-f', 'csv')
    check('git pw series list names the v2 series',
          r[0] == 0 and re.search(r'(?m)^"%d",.*"%s".*"2",' % (sid, re.escape(TITLE)), r[1]), why(r))
    r = cl.pw(tmp, 'ci-secret', 'series', 'show', str(sid), '-f', 'csv')
    check('git pw series show: 3 of 3, complete, the cover and its patches',
          r[0] == 0 and '3 of 3' in r[1] and all('%d ' % p in r[1] for p in pids), why(r))
    w = os.path.join(tmp, 'pw-series')
    sh(['git', 'clone', '-q', repo.path, w])
    r = cl.pw(w, 'ci-secret', 'series', 'apply', str(sid))
    check('git pw series apply: the commits of patchyard am', r[0] == 0 and
          commits(w, base_commit) == am_pids, why(r))
    r = cl.pw(tmp, 'ci-secret', 'patch', 'list', '-f', 'csv')
    listed = set(int(x) for x in re.findall(r'(?m)^"(\d+)",', r[1]))
    check('git pw patch list: the new v2 patches, not the superseded v1',
          r[0] == 0 and set(pids) <= listed and len(listed) == 3, (why(r), listed))
    r = cl.pw(tmp, 'ci-secret', 'patch', 'show', str(pids[1]), '-f', 'csv')
    check('git pw patch show: Message-ID, name, state, series', r[0] == 0 and msgid(v2[2]) in r[1] and
          'b: spell seven' in r[1] and '"new"' in r[1] and '%d ' % sid in r[1], why(r))
    out = os.path.join(tmp, 'p2.patch')
    r = cl.pw(tmp, 'ci-secret', 'patch', 'download', str(pids[1]), out)
    check('git pw patch download: the patch', r[0] == 0 and patch_id(open(out, 'rb').read()) == am_pids[1],
          why(r))
    r = cl.pw(tmp, 'ci-secret', 'patch', 'download', '--diff', str(pids[1]))
    path = re.search(r'Downloaded patch to (\S+)', r[1] + r[2])
    check('git pw patch download --diff: the diff alone (patchwork\'s raw/)', r[0] == 0 and path and
          open(path.group(1)).read().startswith('diff --git'), why(r))
    w = os.path.join(tmp, 'pw-patch')
    sh(['git', 'clone', '-q', repo.path, w])
    r = cl.pw(w, 'ci-secret', 'patch', 'apply', str(pids[1]))
    check('git pw patch apply of 2/3: with 1/3 before it, as patchwork gives it',
          r[0] == 0 and commits(w, base_commit) == am_pids[:2], why(r))

    def state(m):
        return [(p['state'], p.get('queue')) for p in y.show(m).get('patches', []) if p['message_id'] == m]
    r = cl.pw(tmp, 'ci-secret', 'patch', 'update', '--state', 'under-review', str(pids[1]))
    check("git pw patch update with a CI's token changes nothing",
          r[0] != 0 and state(msgid(v2[2])) == [('new', None)], (why(r), state(msgid(v2[2]))))
    r = cl.pw(tmp, 'mia-secret', 'patch', 'update', '--state', 'deferred', str(pids[1]))
    check('git pw patch update --state deferred: refused, with the reason',
          r[0] != 0 and 'deferred' in r[2], why(r))
    r = cl.pw(tmp, 'mia-secret', 'patch', 'update', '--state', 'under-review', str(pids[1]), '-f', 'csv')
    check("git pw patch update --state under-review with a maintainer's token stages it",
          r[0] == 0 and '"under-review"' in r[1] and state(msgid(v2[2])) == [('staged', 'unstable')],
          (why(r), state(msgid(v2[2]))))
    ev = [(e['kind'], e.get('actor')) for e in y.show(msgid(v2[2])).get('events', [])]
    check('the staged event names the maintainer', ('staged', MIA[1]) in ev, ev)


def ci(api, pid):
    url = '%s/patches/%d/checks/' % (api, pid)
    auth = {'Authorization': 'Token ci-secret'}
    st, _, b = http(url, 'POST', json.dumps({'state': 'success', 'context': 'build',
                                             'target_url': 'https://ci.example.org/7',
                                             'description': 'built'}).encode(),
                    dict(auth, **{'Content-Type': 'application/json'}))
    check('a CI posts a check (JSON): 201 with the check', st == 201 and json.loads(b).get('context') == 'build',
          (st, b[:200]))
    st, _, b = http(url, 'POST', urllib.parse.urlencode({'state': 'fail', 'context': 'sparse',
                                                         'description': '2 warnings'}).encode(),
                    dict(auth, **{'Content-Type': 'application/x-www-form-urlencoded'}))
    check('a CI posts a check (form): 201', st == 201, (st, b[:200]))
    st, _, b = http(url, 'POST', b'state=success&context=forged',
                    {'Authorization': 'Token mia-secret',
                     'Content-Type': 'application/x-www-form-urlencoded'})
    check("a maintainer's token posts no check", st == 403, st)
    st, _, b = http(url)
    got = {c['context']: c for c in json.loads(b)} if st == 200 else {}
    check('the checks read back as posted', st == 200 and set(got) == {'build', 'sparse'} and
          (got['build']['state'], got['build']['target_url'], got['build']['description'],
           got['build']['user']['username']) == ('success', 'https://ci.example.org/7', 'built', 'lab') and
          got['sparse']['state'] == 'fail', got)
    st, _, b = http('%s/patches/%d/' % (api, pid))
    check("the patch's overall check is the worst", st == 200 and json.loads(b)['check'] == 'fail', st)
    st, _, b = http('%s/events/?category=check-created' % api)
    ev = json.loads(b) if st == 200 else []
    check('check-created events, with the check', len(ev) == 2 and
          all(e['payload']['patch']['id'] == pid and e['payload']['check']['context'] for e in ev), ev[:1])


def b4(cl, tmp, base, repo, base_commit, cid, v2, am_pids):
    cover = msgid(v2[0])
    out = os.path.join(tmp, 'b4out')
    for d in ('b4out', 'b4mbox', 'b4m'):
        os.makedirs(os.path.join(tmp, d))  # b4 0.12 writes into folders that exist
    r = cl.b4(tmp, 'am', '-o', out, cover)
    mbx = [f for f in os.listdir(out) if f.endswith('.mbx')] if os.path.isdir(out) else []
    got = [patch_id(m) for m in split_mbox(open(os.path.join(out, mbx[0]), 'rb').read())] if mbx else []
    check('b4 am <cover> with b4.midmask: the patches of patchyard am', r[0] == 0 and got == am_pids,
          why(r))
    w = os.path.join(tmp, 'b4-shazam')
    sh(['git', 'clone', '-q', repo.path, w])
    r = cl.b4(w, 'shazam', cover)
    check('b4 shazam <cover>: the commits of patchyard am', r[0] == 0 and commits(w, base_commit) == am_pids,
          why(r))
    r = cl.b4(tmp, 'mbox', '-o', os.path.join(tmp, 'b4mbox'), cover)
    files = os.listdir(os.path.join(tmp, 'b4mbox')) if os.path.isdir(os.path.join(tmp, 'b4mbox')) else []
    n = len(split_mbox(open(os.path.join(tmp, 'b4mbox', files[0]), 'rb').read())) if files else 0
    check('b4 mbox <cover>: the whole thread (both versions, the review)', r[0] == 0 and n == 9,
          (why(r), n))
    st, _, b = http('%s/c/%d/mbox' % (base, cid))
    open(os.path.join(tmp, 'c.mbox'), 'wb').write(b)
    r = cl.b4(tmp, 'am', '-m', os.path.join(tmp, 'c.mbox'), '-o', os.path.join(tmp, 'b4m'), msgid(v2[1]))
    d = os.path.join(tmp, 'b4m')
    mbx = [f for f in os.listdir(d) if f.endswith('.mbx')] if os.path.isdir(d) else []
    got = [patch_id(m) for m in split_mbox(open(os.path.join(d, mbx[0]), 'rb').read())] if mbx else []
    check('b4 am -m <saved /c/ID/mbox> <1/3>: the whole series', r[0] == 0 and got == am_pids, why(r))


def inbox(base, mails, v2):
    q = lambda m: urllib.parse.quote(msgid(m), safe='@')
    for m in (v2[2], mails[-1]):
        st, h, b = http('%s/m/%s/raw' % (base, q(m)))
        check('/m/ID/raw is the mail as stored', st == 200 and b == m.encode(), st)
    st, h, b = http('%s/m/%s/t.mbox.gz' % (base, q(v2[2])))
    got = [re.search(rb'(?mi)^Message-ID: <([^>]+)>', x).group(1).decode()
           for x in split_mbox(gzip.decompress(b))] if st == 200 else []
    check('t.mbox.gz: the thread, gzip mboxrd, no Content-Encoding',
          st == 200 and h['Content-Type'] == 'application/gzip' and 'Content-Encoding' not in h and
          sorted(got) == sorted(msgid(m) for m in mails), (st, got))
    st, h, _ = http('%s/m/%s' % (base, q(v2[2])), 'HEAD')
    loc = h.get('Location') or ''
    check('HEAD /m/ID: a redirect to an absolute URL', st == 302 and loc.startswith(base + '/c/'), loc)
    st2, _, b = http(loc.rsplit('/', 1)[0] + '/' + q(v2[2]) + '/t.mbox.gz')
    check("where b4 looks from the redirect, the thread", st2 == 200 and gzip.decompress(b).count(b'\nFrom mboxrd@z') + 1 == len(mails), st2)


def main():
    tmp = tempfile.mkdtemp(prefix='yard-proto-')
    port = free_port()
    base = 'http://127.0.0.1:%d' % port
    api = base + '/api/1.2'
    srv = None
    try:
        repo, extra, mails, v2 = build(tmp, port)
        base_commit = repo.git('rev-parse', 'master').strip()
        y, staging = yard_for(tmp, 'api', extra, mails)
        cid = y.show(msgid(v2[0]))['id']
        am_pids = [patch_id(m) for m in split_mbox(y.run('am', str(cid)).stdout)]
        check('patchyard am gives the 3 patches', len(am_pids) == 3 and all(am_pids), am_pids)
        srv = subprocess.Popen([YARD, '-c', y.conf, 'serve', '--listen', '127.0.0.1:%d' % port],
                               stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, 'serve.log'), 'wb'))
        for _ in range(100):
            try:
                if http(base + '/style.css')[0] == 200:
                    break
            except OSError:
                time.sleep(0.05)
        st, _, b = http(api + '/series/?q=spell&order=-date')
        s = json.loads(b)[0] if st == 200 else {}
        sid = s.get('id')
        pids = [p['id'] for p in s.get('patches', [])]
        check('the API names the v2 series and its patches', s.get('version') == 2 and len(pids) == 3, s)
        cl = Clients(tmp, base)
        gitpw(cl, tmp, y, api, repo, base_commit, v2, sid, pids, am_pids)
        # The maintainer's mail does the same on a database of its own:
        # the branches the two build are the same.
        m, mstaging = yard_for(tmp, 'mail', extra, mails)
        m.ingest(reply(v2[2], MIA, '#yard stage'))
        for yy in (y, m):
            r = yy.run('rebuild', check_rc=False)
            check('rebuild', r.returncode == 0, r.stderr)
        a, b = unstable(staging), unstable(mstaging)
        check('the staging branch the API built is the one the mail verb built',
              a == b and 'b: spell seven' in a[1], (a, b))
        ci(api, pids[0])
        b4(cl, tmp, base, repo, base_commit, cid, v2, am_pids)
        inbox(base, mails, v2)
    finally:
        if srv:
            srv.terminate()
            srv.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
    done()


main()
