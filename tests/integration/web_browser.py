#!/usr/bin/python3
"""The status pages in a real headless Chromium: /, a contribution page
and a /m/ redirect render the expected text (checked in the DOM the
browser built), the hostile fixture renders as text and runs nothing; a
discussed contribution (webdisc.py) shows its cover letters, commit
messages, diffs and replies, counts the restated ack once and the worst
check; a U+202E in a title reverses none of the page's own labels as the
browser lays them out (printed to PDF, read back by pdftotext in the
order of the page); and screenshots land in build/screenshots/ for
people to look at."""
import html, json, os, re, shutil, subprocess, sys, tempfile, time, urllib.parse, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import check, done, msgid
from webfix import Fixture, Server, XSS_SUBJECT
from webdisc import Discussion, RLO, ZED

CHROMIUM = shutil.which('chromium') or '/usr/bin/chromium'
TOP = os.environ.get('TOP') or os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
SHOTS = os.path.join(TOP, 'build', 'screenshots')


def chromium(tmp, *args):
    prof = tempfile.mkdtemp(dir=tmp, prefix='chromium-')
    cmd = [CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
           '--no-first-run', '--disable-background-networking', '--disable-component-update',
           '--disable-sync', '--disable-dev-shm-usage', '--hide-scrollbars',
           '--user-data-dir=' + prof] + list(args)
    r = subprocess.run(cmd, capture_output=True, timeout=120)
    return r.stdout.decode(errors='replace')


def text_of(dom):
    """The DOM's text: tags out, entities decoded, a line per element."""
    dom = re.sub(r'(?s)<(script|style|head)\b.*?</\1>', '', dom)
    return html.unescape(re.sub(r'<[^>]+>', '\n', dom))


BIDI = re.compile('[\u200e\u200f\u202a-\u202e\u2066-\u2069]')


def laid_out(tmp, url):
    """The page's text in the order the browser laid it out: printed to
    PDF, read back by pdftotext, its own direction marks left out."""
    pdf = os.path.join(tmp, 'page.pdf')
    if os.path.exists(pdf):
        os.unlink(pdf)
    chromium(tmp, '--no-pdf-header-footer', '--print-to-pdf=' + pdf, url)
    if not os.path.exists(pdf):
        return ''
    r = subprocess.run(['pdftotext', '-raw', pdf, '-'], capture_output=True)
    return BIDI.sub('', r.stdout.decode('utf-8', 'replace'))


def post_check(fx, base, patch, context, state):
    body = json.dumps({'patch': patch, 'state': state, 'context': context}).encode()
    req = urllib.request.Request(base + '/api/checks', data=body, method='POST', headers={
        'Content-Type': 'application/json', 'Authorization': 'Token ' + fx.token})
    return urllib.request.build_opener(urllib.request.ProxyHandler({})).open(req, timeout=10).status


def discussion(tmp, fx, disc, b, dcid, zcid):
    p1 = disc.patch_msgids[-2]
    check('a CI reports boot=fail, then spell=success', post_check(fx, b, p1, 'boot', 'fail') == 201)
    time.sleep(1.1)
    check('... 201 both', post_check(fx, b, p1, 'spell', 'success') == 201)
    dom = chromium(tmp, '--dump-dom', '%s/c/%d' % (b, dcid))
    text = text_of(dom)
    lines = [l.strip() for l in text.split('\n')]
    miss = [x for x in disc.blurbs + disc.commit_sentences if x not in text]
    check('every version\'s cover letter and commit messages are on the page', not miss, miss)
    miss = [l for l in disc.diff_lines if l not in lines]
    check('the diffs are on the page, a line each', not miss, miss)
    miss = [s for s, _, _ in disc.replies if s not in text]
    check('every reply is on the page, replies to replies too', not miss, miss)
    at = [text.find(s) for s, _, _ in disc.replies[4:6]]
    check('a reply comes after the mail it answers', -1 not in at and at[0] < at[1], at)
    acks = re.findall(r'(\d+) Acked-by', text)
    check('the restated ack counts once', acks and max(int(n) for n in acks) == 1, acks)
    check('the nack is listed and marked', re.search(r'Nacked-by:\s*Nick Nay', text) is not None)
    check('Cc: lines carry no mark', not re.search(r'Cc:[^\n]*\n\s*(verified|not checked)', text))
    m = re.search(r'\nTests\n+(\w+)', text)
    check('Tests: the worst latest result of each context', m and m.group(1) == 'fail', m and m.group(1))
    red = chromium(tmp, '--dump-dom', b + '/m/' + urllib.parse.quote(msgid(disc.replies[5][2]), safe=''))
    check('/m/<reply> lands on the page that holds it', 'Queued, with the acks below.' in red)
    # The override from mail ends where the mail's string does.
    z = laid_out(tmp, '%s/c/%d' % (b, zcid))
    check('the title reads as the override makes it, the id after it',
          re.search(r'b: written backward\s*#%d\b' % zcid, z) is not None, z[:300])
    check('no label of the page reversed', '%d#' % zcid not in z and 'wen\n' not in z, z[:300])
    # The list's cells wrap on paper: read the title's words, then its
    # number, with nothing of the page reversed.
    home = laid_out(tmp, b + '/')
    at = home.find('#%d' % zcid)
    check('on /, the title, then its number, unreversed',
          at > 0 and 'written' in home[:at] and 'backward' in home[:at] and '%d#' % zcid not in home
          and 'wen\n' not in home, home[:400])
    at = home.find('#%d' % dcid)
    check('on /, the discussed contribution\'s row says fail', at > 0 and 'fail' in home[at:at + 200],
          home[at:at + 200])


def main():
    tmp = tempfile.mkdtemp(prefix='yard-browser-')
    srv = None
    try:
        fx = Fixture(tmp)
        disc = Discussion(fx.up)
        for m in disc.mails:
            fx.yard.ingest(m)
        dcid = fx.yard.show(msgid(disc.v[3][0]))['id']
        zcid = fx.yard.show(msgid(disc.zed))['id']
        srv = Server(fx.yard.conf)
        b = srv.base
        discussion(tmp, fx, disc, b, dcid, zcid)
        home = chromium(tmp, '--dump-dom', b + '/')
        check('the browser renders / with its table', '<table class="contribs">' in home
              and 'demo: spell numbers' in home, home[-300:])
        check('the hostile subject is text in the DOM of /',
              '&lt;script&gt;alert(1)&lt;/script&gt; fix' in home)
        check('no script or img element in the DOM of /', '<script' not in home and '<img' not in home)
        page = chromium(tmp, '--dump-dom', '%s/c/%d' % (b, fx.cid))
        check('the contribution page renders its versions, trailers and timeline',
              '<h1><bdi>demo: spell numbers' in page and 'Changes since v1' in page and 'Timeline' in page
              and 'Reviewed-by: <bdi>Mia Maintainer' in page, page[-300:])
        red = chromium(tmp, '--dump-dom', b + '/m/' + urllib.parse.quote('<%s>' % msgid(fx.v2[1]), safe=''))
        check('/m/<Message-ID> lands on the contribution page', '<h1><bdi>demo: spell numbers' in red, red[-300:])
        evil = chromium(tmp, '--dump-dom', '%s/c/%d' % (b, fx.evil_cid))
        check('the hostile contribution renders as text and runs nothing',
              '&lt;script&gt;alert(1)&lt;/script&gt; fix' in evil and '<script' not in evil
              and '<img' not in evil and 'onerror=alert(1)&gt;' in evil, evil[-300:])
        os.makedirs(SHOTS, exist_ok=True)
        for name, path, size in (('list', '/', '1280,900'), ('contrib', '/c/%d' % fx.cid, '1280,900'),
                                 ('discussion', '/c/%d' % dcid, '1280,2400'),
                                 ('list-phone', '/', '390,844'), ('contrib-phone', '/c/%d' % fx.cid, '390,844')):
            out = os.path.join(SHOTS, 'web-%s.png' % name)
            if os.path.exists(out):
                os.unlink(out)
            chromium(tmp, '--screenshot=' + out, '--window-size=' + size, b + path)
            check('screenshot %s' % os.path.relpath(out, TOP),
                  os.path.exists(out) and open(out, 'rb').read(8) == b'\x89PNG\r\n\x1a\n')
    finally:
        if srv:
            srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    done()


main()
