#!/usr/bin/python3
"""The status pages in a real headless Chromium: /, a contribution page
and a /m/ redirect render the expected text (checked in the DOM the
browser built), the hostile fixture renders as text and runs nothing,
and screenshots land in build/screenshots/ for people to look at."""
import os, shutil, subprocess, sys, tempfile, urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import check, done, msgid
from webfix import Fixture, Server, XSS_SUBJECT

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


def main():
    tmp = tempfile.mkdtemp(prefix='yard-browser-')
    srv = None
    try:
        fx = Fixture(tmp)
        srv = Server(fx.yard.conf)
        b = srv.base
        home = chromium(tmp, '--dump-dom', b + '/')
        check('the browser renders / with its table', '<table class="contribs">' in home
              and 'demo: spell numbers' in home, home[-300:])
        check('the hostile subject is text in the DOM of /',
              '&lt;script&gt;alert(1)&lt;/script&gt; fix' in home)
        check('no script or img element in the DOM of /', '<script' not in home and '<img' not in home)
        page = chromium(tmp, '--dump-dom', '%s/c/%d' % (b, fx.cid))
        check('the contribution page renders its versions, trailers and timeline',
              '<h1>demo: spell numbers' in page and 'Changes since v1' in page and 'Timeline' in page
              and 'Reviewed-by: Mia Maintainer' in page, page[-300:])
        red = chromium(tmp, '--dump-dom', b + '/m/' + urllib.parse.quote('<%s>' % msgid(fx.v2[1]), safe=''))
        check('/m/<Message-ID> lands on the contribution page', '<h1>demo: spell numbers' in red, red[-300:])
        evil = chromium(tmp, '--dump-dom', '%s/c/%d' % (b, fx.evil_cid))
        check('the hostile contribution renders as text and runs nothing',
              '&lt;script&gt;alert(1)&lt;/script&gt; fix' in evil and '<script' not in evil
              and '<img' not in evil and 'onerror=alert(1)&gt;' in evil, evil[-300:])
        os.makedirs(SHOTS, exist_ok=True)
        for name, path, size in (('list', '/', '1280,900'), ('contrib', '/c/%d' % fx.cid, '1280,900'),
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
