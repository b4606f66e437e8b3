#!/usr/bin/python3
"""patchyard serve and publish against a real server on loopback: pages
escape what mail says, /m/ redirects, the mbox applies with git am, the
JSON has its documented shape and agrees with the command line, the Atom
feed is Atom, checks POST needs a CI's token, a slow client and an
oversized URL are cut off while others are served, publish writes the
same pages and only what changed, list's options."""
import json, os, shutil, socket, subprocess, sys, tempfile, time, urllib.parse, urllib.request, urllib.error
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import check, done, sh, msgid, reply, YARD
from webfix import Fixture, Server, XSS_SUBJECT, XSS_NAME, XSS_MSGID, EVIL_ID_OK, MIA

ATOM = '{http://www.w3.org/2005/Atom}'


class Page(HTMLParser):
    """Elements and text as a browser's parser would build them."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.text = [], [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)

    def handle_data(self, data):
        self.text.append(data)

    def alltext(self):
        return ''.join(self.text)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None


opener = urllib.request.build_opener(NoRedirect)


def fetch(base, path, data=None, headers=None, method=None):
    """(status, headers, body bytes) of one request, errors included."""
    req = urllib.request.Request(base + path, data=data, headers=headers or {}, method=method)
    try:
        r = opener.open(req, timeout=10)
        return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def injected(page):
    p = Page(page)
    return bool({'script', 'img', 'iframe', 'svg'} & set(p.tags)) or any(
        k.startswith('on') for k, _ in p.attrs)


SUMMARY = {'id': int, 'title': str, 'state': str, 'submitter': dict, 'version': int,
           'patch_count': int, 'series': list, 'patches': list, 'posted': str,
           'last_activity': str, 'acks': int, 'reviews': int, 'tests': int}
# /api/contributions without expand=series: counts, and the URL of the rest
BRIEF = {'id': int, 'title': str, 'state': str, 'submitter': dict, 'version': int,
         'patch_count': int, 'series_count': int, 'url': str, 'posted': str,
         'last_activity': str, 'acks': int, 'reviews': int, 'tests': int}
PATCH = {'id': int, 'message_id': str, 'number': int, 'title': str, 'author': dict,
         'slug': str, 'state': str, 'conflict': bool, 'trailers': list}


def shaped(obj, shape):
    return isinstance(obj, dict) and all(isinstance(obj.get(k), t) for k, t in shape.items())


def pages(fx, base):
    st, hd, body = fetch(base, '/')
    home = body.decode()
    check('/ answers 200 as HTML', st == 200 and hd['Content-Type'].startswith('text/html'), st)
    check('CSP header', "default-src 'none'; style-src 'self'" in (hd.get('Content-Security-Policy') or ''))
    check('nosniff and Referrer-Policy headers', hd.get('X-Content-Type-Options') == 'nosniff'
          and hd.get('Referrer-Policy'))
    check('/ lists the contributions', 'demo: spell numbers' in Page(home).alltext())
    check('the hostile subject on / is text', XSS_SUBJECT in Page(home).alltext() and not injected(home))
    check('/ shows A/R/T and the staged state', 'state-staged' in home and 'A/R/T' in home)
    st, _, body = fetch(base, '/c/%d' % fx.cid)
    c = body.decode()
    text = Page(c).alltext()
    check('/c/ID answers 200', st == 200, st)
    check('/c/ID shows both versions and the interdiff',
          'v1' in text and 'v2' in text and 'Changes since v1' in text and 'b SEVEN' in text)
    check('/c/ID shows verified trailers and the timeline',
          'Reviewed-by: %s <%s>' % MIA in text and 'verified' in text and 'staged' in text)
    check('/c/ID links messages to the archive', 'https://lists.example.org/demo/s2-0@example.org/' in c)
    check('/c/ID/ (with a slash) is the same page', fetch(base, '/c/%d/' % fx.cid)[0] == 200)
    st, _, body = fetch(base, '/c/%d' % fx.evil_cid)
    e = body.decode()
    check('the hostile contribution page escapes subject, name and Message-ID',
          st == 200 and not injected(e) and XSS_SUBJECT in Page(e).alltext()
          and "q&#39;uote&amp;amp=1@evil.example.org" in e)
    check('an unknown contribution is a 404 page', fetch(base, '/c/99999')[0] == 404)
    check('a bad id is a 404 page', fetch(base, '/c/01')[0] == 404 and fetch(base, '/c/x')[0] == 404)
    check('style.css is CSS', fetch(base, '/style.css')[1]['Content-Type'].startswith('text/css'))


def redirects(fx, base):
    mid = msgid(fx.v2[2])
    want = '/c/%d' % fx.cid
    for form in ('<%s>' % mid, mid):
        for q in (urllib.parse.quote(form, safe=''), urllib.parse.quote(form, safe='@<>')):
            st, hd, _ = fetch(base, '/m/' + q)
            loc = hd.get('Location') or ''
            check('/m/%s redirects to the contribution' % q, st == 302 and loc.split('#')[0] == want,
                  (st, loc))
    st, hd, _ = fetch(base, '/m/' + urllib.parse.quote(msgid(fx.v2[0]), safe=''))
    loc = hd.get('Location') or ''
    check('/m/ of the cover letter redirects to it on the page', st == 302 and loc.startswith(want + '#mail-'), loc)
    page = fetch(base, want)[2].decode()
    check('... where its anchor is', 'id="%s"' % loc.split('#')[1] in page)
    st, hd, _ = fetch(base, '/m/' + urllib.parse.quote(msgid(fx.v2[1]), safe=''))
    loc = hd.get('Location') or ''
    check('/m/ of a patch redirects to the patch', st == 302 and loc.startswith(want + '#patch-')
          and 'id="%s"' % loc.split('#')[1] in page, loc)
    st, _, body = fetch(base, '/m/' + urllib.parse.quote('<nobody@nowhere>', safe=''))
    check('/m/ of an unknown Message-ID is a 404 page that says so',
          st == 404 and 'No contribution holds' in body.decode(), st)
    st, _, body = fetch(base, '/m/' + urllib.parse.quote('<' + XSS_MSGID + '>', safe=''))
    check('/m/ of a hostile Message-ID is a harmless 404', st == 404 and not injected(body.decode()))


def mbox(fx, base, tmp):
    for path, branch in (('/c/%d/mbox' % fx.cid, 'am2'), ('/c/%d/v1/mbox' % fx.cid, 'am1')):
        st, hd, body = fetch(base, path)
        check('%s is an mbox' % path, st == 200 and hd['Content-Type'] == 'application/mbox', st)
        fx.up.git('checkout', '-q', '-b', branch, fx.base)
        r = sh(['git', '-C', fx.up.path, '-c', 'user.name=t', '-c', 'user.email=t@e', 'am', '-q'],
               inp=body, check_rc=False)
        check('%s applies with git am' % path, r.returncode == 0, r.stderr.decode()[-300:])
        if r.returncode:
            sh(['git', '-C', fx.up.path, 'am', '--abort'], check_rc=False)
        fx.up.git('checkout', '-q', 'master')
    msg = fx.up.git('log', '-1', '--format=%B', 'am2')
    check('the mbox carries the collected Reviewed-by', 'Reviewed-by: %s <%s>' % MIA in msg, msg)
    check('a version that does not exist is 404', fetch(base, '/c/%d/v9/mbox' % fx.cid)[0] == 404)


def api(fx, base):
    st, hd, body = fetch(base, '/api/contributions')
    brief = json.loads(body)
    check('/api/contributions is a JSON array of brief summaries', st == 200 and hd['Content-Type'] ==
          'application/json' and len(brief) == 2 and all(shaped(c, BRIEF) and 'series' not in c
                                                         and 'patches' not in c for c in brief), brief[:1])
    check('a brief summary\'s url is its contribution',
          all(fetch(base, urllib.parse.urlparse(c['url']).path)[0] == 200
              and c['url'].endswith('/api/contributions/%d' % c['id']) for c in brief), brief[:1])
    st, hd, body = fetch(base, '/api/contributions?expand=series')
    lst = json.loads(body)
    check('?expand=series: summaries with their series', st == 200 and len(lst) == 2
          and all(shaped(c, SUMMARY) for c in lst), lst[:1])
    check('summaries: test_state null without checks, patches shaped',
          all(c['test_state'] is None for c in lst) and all(shaped(p, PATCH) for c in lst for p in c['patches']))
    cli = json.loads(fx.yard.run('list', '--json').stdout)
    check('/api/contributions?expand=series equals list --json', cli == lst)
    check('the brief summaries are the expanded ones without series and patches',
          [{k: v for k, v in c.items() if k not in ('url', 'series_count')} for c in brief]
          == [{k: v for k, v in c.items() if k not in ('series', 'patches')} for c in lst])
    check('expand: another value is 400', fetch(base, '/api/contributions?expand=all')[0] == 400)
    st, hd, body = fetch(base, '/api/contributions?per_page=1')
    check('paging: one a page, Link rel="next"', len(json.loads(body)) == 1 and 'rel="next"' in (hd.get('Link') or ''),
          hd.get('Link'))
    st, hd2, _ = fetch(base, '/api/contributions?per_page=1&expand=series')
    check('paging keeps expand=series', 'expand=series' in (hd2.get('Link') or ''), hd2.get('Link'))
    nxt = hd['Link'].split('>')[0].lstrip('<')
    st, hd, body = fetch(base, nxt)
    check('the next page holds the other one, Link rel="prev"', st == 200 and json.loads(body)[0]['id'] != lst[0]['id']
          and 'rel="prev"' in (hd.get('Link') or '') and 'rel="next"' not in (hd.get('Link') or ''))
    only = json.loads(fetch(base, '/api/contributions?state=staged')[2])
    check('filter by state', [c['id'] for c in only] == [fx.cid], only)
    only = json.loads(fetch(base, '/api/contributions?submitter=ada%40example.org')[2])
    check('filter by submitter address', [c['id'] for c in only] == [fx.cid])
    only = json.loads(fetch(base, '/api/contributions?q=SCRIPT')[2])
    check('filter by words in the title', [c['id'] for c in only] == [fx.evil_cid])
    check('a bad filter is 400 JSON', fetch(base, '/api/contributions?state=bogus')[0] == 400
          and fetch(base, '/api/contributions?per_page=501')[0] == 400)
    st, _, body = fetch(base, '/api/contributions/%d' % fx.cid)
    show = json.loads(fx.yard.run('show', '--json', str(fx.cid)).stdout)
    check('/api/contributions/ID is show --json', st == 200 and json.loads(body) == show)
    pid = show['patches'][0]['id']
    st, _, body = fetch(base, '/api/patches/%d' % pid)
    check('/api/patches/ID is a patch object', st == 200 and shaped(json.loads(body), PATCH)
          and json.loads(body) == show['patches'][0])
    check('unknown ids are 404 JSON', fetch(base, '/api/patches/99999')[0] == 404
          and fetch(base, '/api/contributions/99999')[0] == 404 and fetch(base, '/api/nothing')[0] == 404)
    ev = json.loads(fetch(base, '/api/events?since=0')[2])
    ids = [e['id'] for e in ev]
    check('/api/events: every event, oldest first', ids == sorted(ids) and len(ev) > 3
          and {'id', 'time', 'kind', 'contribution', 'actor', 'detail', 'message_id', 'slug'} <= set(ev[0]))
    check('/api/events?since=LAST is empty', json.loads(fetch(base, '/api/events?since=%d' % ids[-1])[2]) == [])
    st, hd, _ = fetch(base, '/api/events?since=0&limit=2')
    check('/api/events pages with Link rel="next"', 'since=%d' % ids[1] in (hd.get('Link') or ''), hd.get('Link'))


def feeds(fx, base):
    for path in ('/feed.atom', '/c/%d/feed.atom' % fx.cid, '/c/%d/feed.atom' % fx.evil_cid):
        st, hd, body = fetch(base, path)
        try:
            root = ET.fromstring(body)
        except ET.ParseError as e:
            check('%s is XML' % path, False, e)
            continue
        entries = root.findall(ATOM + 'entry')
        check('%s is an Atom feed with entries' % path, st == 200 and root.tag == ATOM + 'feed'
              and hd['Content-Type'] == 'application/atom+xml' and entries
              and all(e.find(ATOM + t) is not None for e in entries for t in ('id', 'title', 'updated', 'link'))
              and root.find(ATOM + 'id') is not None and root.find(ATOM + 'updated') is not None)
    titles = [e.find(ATOM + 'title').text for e in ET.fromstring(fetch(base, '/feed.atom')[2]).findall(ATOM + 'entry')]
    check('feed titles keep the hostile subject as text', any(XSS_SUBJECT in t for t in titles), titles)
    check('the feed has the staging', any(t.startswith('staged:') for t in titles), titles)


def checks(fx, base):
    show = fx.yard.show(str(fx.cid))
    p = show['patches'][0]

    def post(body, token=None, path='/api/checks'):
        h = {'Content-Type': 'application/json'}
        if token is not None:
            h['Authorization'] = 'Token ' + token
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        return fetch(base, path, data=data, headers=h, method='POST')

    good = {'patch': p['message_id'], 'state': 'success', 'context': 'lab/build',
            'target_url': 'https://ci.example.org/1', 'description': 'built'}
    check('no token: 403', post(good)[0] == 403)
    check('a wrong token: 403', post(good, 'wrong')[0] == 403)
    check('nothing stored by refused POSTs', fx.yard.show(str(fx.cid))['checks'] == [])
    st, hd, body = post(good, fx.token)
    k = json.loads(body) if st == 201 else {}
    check('the CI token: 201 with the stored check', st == 201 and k.get('context') == 'lab/build'
          and k.get('state') == 'success' and k.get('reporter') == 'lab' and k.get('summary') == 'built', (st, body))
    st, _, _ = post(dict(good, patch=p['id'], context='lab/test', state='fail'), fx.token)
    check('patch by id: 201', st == 201)
    st, _, _ = post({'state': 'warning', 'context': 'lab/path'}, fx.token, '/api/patches/%d/checks' % p['id'])
    check('POST /api/patches/ID/checks: 201', st == 201)
    ks = fx.yard.show(str(fx.cid))['checks']
    check('stored as the CI\'s checks', [(c['context'], c['state'], c['reporter']) for c in ks] ==
          [('lab/build', 'success', 'lab'), ('lab/test', 'fail', 'lab'), ('lab/path', 'warning', 'lab')], ks)
    ev = [e for e in fx.yard.show(str(fx.cid))['events'] if e['kind'] == 'check']
    check('each check is an event, as by mail', len(ev) == 3 and ev[0]['actor'] == 'lab', ev)
    check('bad state: 400', post(dict(good, state='great'), fx.token)[0] == 400)
    check('not JSON: 400', post(b'{"patch": ', fx.token)[0] == 400)
    check('a javascript: target_url: 400', post(dict(good, target_url='javascript:alert(1)'), fx.token)[0] == 400)
    check('unknown patch id: 404', post(dict(good, patch=99999), fx.token)[0] == 404)
    check('unknown Message-ID: 404', post(dict(good, patch='<nobody@nowhere>'), fx.token)[0] == 404)
    check('a cover letter is no patch: 404', post(dict(good, patch=msgid(fx.v2[0])), fx.token)[0] == 404)
    check('a body over the cap: 413', post(dict(good, description='x' * 100000), fx.token)[0] == 413)
    check('GET /api/checks: 405', fetch(base, '/api/checks')[0] == 405)
    lst = json.loads(fetch(base, '/api/contributions?state=staged')[2])
    check('test_state is the worst latest result of each context', lst[0]['test_state'] == 'fail',
          lst[0]['test_state'])
    kk = json.loads(fetch(base, '/api/patches/%d/checks' % p['id'])[2])
    check('/api/patches/ID/checks lists them', [c['context'] for c in kk] == ['lab/build', 'lab/test', 'lab/path'], kk)
    page = fetch(base, '/c/%d' % fx.cid)[2].decode()
    check('checks on the page, target_url linked', 'href="https://ci.example.org/1"' in page and 'lab/build' in page)


def limits(fx, tmp):
    srv = Server(fx.yard.conf, '--timeout', '2')
    base = srv.base
    socks = []
    try:
        loris = socket.create_connection(('127.0.0.1', srv.port))
        loris.sendall(b'GET / HTTP/1.1\r\nHost: x\r\n')
        silent = socket.create_connection(('127.0.0.1', srv.port))
        socks += [loris, silent]
        served = 0
        cut = False
        t0 = time.monotonic()
        # Trickle a header byte by byte, as a slow loris does, while
        # other clients ask for pages; bounded, not timed: the server
        # cuts it after --timeout.
        while not cut and time.monotonic() - t0 < 60:
            try:
                loris.sendall(b'X')
                loris.settimeout(0.3)
                cut = loris.recv(100) == b''
            except socket.timeout:
                pass
            except OSError:
                cut = True
            if fetch(base, '/')[0] == 200:
                served += 1
        check('a slow-loris client is cut off', cut)
        check('other clients are served meanwhile', served >= 2, served)
        silent.settimeout(30)
        try:
            gone = silent.recv(100) == b''
        except OSError:
            gone = True
        check('a silent connection is cut off', gone)
        st, _, _ = fetch(base, '/m/' + 'x' * 100000)
        check('an oversized URL is refused (414)', st == 414, st)
        st, _, _ = fetch(base, '/m/' + 'x' * 5000)
        check('a URL over the path cap is refused (414)', st == 414, st)
        check('the server still serves after both', fetch(base, '/')[0] == 200)
    finally:
        for s in socks:
            s.close()
        rc = srv.stop()
    check('serve exits 0 on SIGTERM', rc == 0, rc)


def publish(fx, tmp):
    d = os.path.join(tmp, 'site')
    r = fx.yard.run('publish', d)
    check('publish writes the site', r.returncode == 0 and all(os.path.exists(os.path.join(d, f)) for f in (
        'index.html', 'style.css', 'feed.atom', 'c/%d/index.html' % fx.cid, 'c/%d/mbox' % fx.cid,
        'c/%d/v1/mbox' % fx.cid, 'c/%d/feed.atom' % fx.cid, 'api/contributions.json',
        'api/contributions/%d.json' % fx.cid)), r.stderr)
    home = open(os.path.join(d, 'index.html')).read()
    check('published pages link relatively', 'href="c/%d/"' % fx.cid in home and 'href="style.css"' in home)
    check('published pages escape too', not injected(home) and not injected(
        open(os.path.join(d, 'c/%d/index.html' % fx.evil_cid)).read()))
    m = os.path.join(d, 'm', msgid(fx.v2[1]), 'index.html')
    check('published /m/ pages refresh to the contribution', os.path.exists(m) and
          'content="0; url=../../c/%d/#patch-' % fx.cid in open(m).read())
    api = json.load(open(os.path.join(d, 'api/contributions/%d.json' % fx.cid)))
    check('published JSON is show --json', api == fx.yard.show(str(fx.cid)))
    mtime = os.stat(os.path.join(d, 'c/%d/index.html' % fx.evil_cid)).st_mtime_ns
    r = fx.yard.run('publish', d)
    check('publish again: nothing rewritten', b'0 rewritten' in r.stderr, r.stderr)
    fx.yard.ingest(reply(fx.v2[1], MIA, 'Acked-by: %s <%s>' % MIA))
    r = fx.yard.run('publish', d)
    check('after a reply: one contribution rewritten', b'1 rewritten' in r.stderr, r.stderr)
    check('the untouched contribution\'s page is not written again',
          os.stat(os.path.join(d, 'c/%d/index.html' % fx.evil_cid)).st_mtime_ns == mtime)
    check('no temporary files left', not [f for _, _, fs in os.walk(d) for f in fs if '.tmp' in f])


def listing(fx):
    y = fx.yard
    out = y.run('list').stdout.decode().splitlines()
    check('list: a line each, with dates, A/R/T and test state', len(out) == 2 and '/1/' in out[-1], out)
    check('list --state staged', [l.split()[0] for l in y.run('list', '--state', 'staged').stdout.decode().splitlines()]
          == [str(fx.cid)])
    check('list --submitter', len(y.run('list', '--submitter', 'XSS@example.org').stdout.decode().splitlines()) == 1)
    check('list --since in the future: nothing', y.run('list', '--since', '2999-01-01').stdout == b'')
    check('list --since long ago: all', len(y.run('list', '--since', '2000-01-01T00:00:00Z').stdout.decode().splitlines()) == 2)
    check('list --limit 1', len(y.run('list', '--limit', '1').stdout.decode().splitlines()) == 1)
    check('list --since nonsense: usage', y.run('list', '--since', 'yesterday', check_rc=False).returncode == 2)
    j = json.loads(y.run('list', '--json', '--limit', '1').stdout)
    check('list --json summaries', len(j) == 1 and shaped(j[0], SUMMARY), j)


def main():
    tmp = tempfile.mkdtemp(prefix='yard-web-')
    srv = None
    try:
        fx = Fixture(tmp)
        listing(fx)
        srv = Server(fx.yard.conf)
        pages(fx, srv.base)
        redirects(fx, srv.base)
        mbox(fx, srv.base, tmp)
        api(fx, srv.base)
        feeds(fx, srv.base)
        checks(fx, srv.base)
        srv.stop()
        srv = None
        limits(fx, tmp)
        publish(fx, tmp)
    finally:
        if srv:
            srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    done()


main()
