#!/usr/bin/python3
"""patchyard serve against hostile clients on loopback, in raw bytes over
sockets: a request that could be read two ways (request smuggling: a NUL
in the path, Content-Length with Transfer-Encoding, two Content-Length
values) is refused 400 and its connection closed, with POST /api/checks
and with pages; one address holding 300 idle connections leaves room for
another address (127.0.0.2: all of 127.0.0.0/8 is loopback on Linux),
and 128 connections from one address are all served."""
import os, select, socket, sys, tempfile, shutil, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import check, done, Yard
from webfix import Server

TOKEN = 'tok-guard'
BODY = b'{"patch": 99999, "state": "success", "context": "lab/build"}'
# The next request a smuggler hides behind the first.
HIDDEN = b'GET /api/contributions HTTP/1.1\r\nHost: x\r\n\r\n'


def connect(port, src='127.0.0.1', timeout=10):
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(timeout)
    s.connect(('127.0.0.1', port))
    return s


def exchange(port, data, src='127.0.0.1'):
    """Send data, read until the server closes: (bytes, closed)."""
    s = connect(port, src, 5)
    out = b''
    closed = False
    try:
        s.sendall(data)
        while True:
            d = s.recv(65536)
            if not d:
                closed = True
                break
            out += d
    except socket.timeout:
        pass
    except ConnectionResetError:
        closed = True
    s.close()
    return out, closed


def status(resp):
    """The status of the first response, or 0."""
    line = resp.split(b'\r\n', 1)[0].split()
    return int(line[1]) if len(line) > 1 and line[1].isdigit() else 0


def post(headers, body=BODY, path=b'/api/checks'):
    return (b'POST ' + path + b' HTTP/1.1\r\nHost: x\r\nAuthorization: Token ' +
            TOKEN.encode() + b'\r\nContent-Type: application/json\r\n' +
            b''.join(h + b'\r\n' for h in headers) + b'\r\n' + body)


def get(path, headers=()):
    return b'GET ' + path + b' HTTP/1.1\r\nHost: x\r\n' + b''.join(h + b'\r\n' for h in headers) + b'\r\n'


def chunked(body):
    return b'%x\r\n' % len(body) + body + b'\r\n0\r\n\r\n'


def smuggling(port):
    n = len(BODY)
    # Controls: the same requests read one way are answered as usual.
    resp, _ = exchange(port, post([b'Content-Length: %d' % n, b'Connection: close']))
    check('control: a well-formed POST /api/checks reaches the handler (404)', status(resp) == 404, resp[:80])
    resp, _ = exchange(port, post([b'Content-Length: %d' % n, b'Content-Length: %d' % n,
                                   b'Connection: close']))
    check('control: the same Content-Length twice is one reading (404)', status(resp) == 404, resp[:80])
    resp, _ = exchange(port, post([b'Transfer-Encoding: chunked', b'Connection: close'], chunked(BODY)))
    check('control: a chunked POST alone is read (404)', status(resp) == 404, resp[:80])
    resp, _ = exchange(port, get(b'/', [b'Content-Length: 0', b'Connection: close']))
    check('control: GET / with Content-Length: 0 is 200', status(resp) == 200, resp[:80])

    cases = [
        ('POST /api/checks, two Content-Length values', 400,
         post([b'Content-Length: %d' % n, b'Content-Length: 5']) + HIDDEN),
        ('POST /api/checks, Content-Length then Transfer-Encoding', 400,
         post([b'Content-Length: 5', b'Transfer-Encoding: chunked'], chunked(BODY)) + HIDDEN),
        ('POST /api/checks, Transfer-Encoding then Content-Length', 400,
         post([b'Transfer-Encoding: chunked', b'Content-Length: %d' % n], chunked(BODY)) + HIDDEN),
        ('POST /api/checks, a NUL in the path', 400,
         post([b'Content-Length: %d' % n], path=b'/api/checks\x00/../x') + HIDDEN),
        ('POST /api/checks, a transfer coding other than chunked', 501,
         post([b'Transfer-Encoding: gzip, chunked'], chunked(BODY))),
        ('GET /, two Content-Length values', 400,
         get(b'/', [b'Content-Length: 0', b'Content-Length: %d' % len(HIDDEN)]) + HIDDEN),
        ('GET /, Content-Length with Transfer-Encoding', 400,
         get(b'/', [b'Content-Length: %d' % (len(HIDDEN) + 5), b'Transfer-Encoding: chunked'])
         + b'0\r\n\r\n' + HIDDEN),
        ('GET /c/1, a NUL in the path', 400, get(b'/c/1\x00/../../x') + HIDDEN),
        ('GET /api/contributions, a NUL in the path', 400, get(b'/api/contributions\x00x') + HIDDEN),
        ('GET /m/, a %00 in the path', 400, get(b'/m/a%00b@example.org') + HIDDEN),
        ('GET /, a NUL before the path', 400, get(b'\x00/') + HIDDEN),
    ]
    for what, want, data in cases:
        resp, closed = exchange(port, data)
        check('%s: %d' % (what, want), status(resp) == want, resp[:120])
        check('%s: one response, then the connection is closed' % what,
              closed and resp.count(b'HTTP/1.1 ') == 1 and b'\r\nConnection: close\r\n' in resp, resp[-200:])
    resp, _ = exchange(port, get(b'/', [b'Connection: close']))
    check('the server still serves after them', status(resp) == 200, resp[:80])


def many_from_one(port, n=128):
    """n connections from one address at once, then a request on each:
    every one answered.  Tried again after a pause if not: the server
    counts a closed connection of an earlier test until it has cleaned
    it up."""
    for _ in range(3):
        answered = served_at_once(port, n)
        if answered == n:
            break
        time.sleep(1)
    check('%d connections from one address: all served' % n, answered == n, answered)


def served_at_once(port, n):
    socks = [connect(port) for _ in range(n)]
    answered = 0
    try:
        for s in socks:
            s.sendall(get(b'/style.css'))
        for s in socks:
            buf = b''
            try:
                while b'\r\n\r\n' not in buf:
                    d = s.recv(65536)
                    if not d:
                        break
                    buf += d
            except OSError:
                pass
            answered += status(buf) == 200
    finally:
        for s in socks:
            s.close()
    return answered


def idle_flood(port, n=300):
    """n idle connections from 127.0.0.1, then 127.0.0.2 asks for a page."""
    socks = []
    try:
        for _ in range(n):
            socks.append(connect(port))
        # Those over the cap are closed at once: they read as EOF.
        t0 = time.monotonic()
        gone = set()
        while time.monotonic() - t0 < 3 and len(gone) < n - 128:
            r, _, _ = select.select([s for s in socks if s not in gone], [], [], 0.2)
            for s in r:
                try:
                    if s.recv(1) == b'':
                        gone.add(s)
                except OSError:
                    gone.add(s)
        check('one address holds at most 128 of its %d connections' % n, n - len(gone) <= 128,
              n - len(gone))
        try:
            t0 = time.monotonic()
            resp, _ = exchange(port, get(b'/', [b'Connection: close']), src='127.0.0.2')
            took = time.monotonic() - t0
        except OSError as e:
            resp, took = b'', str(e)
        check('another address is answered promptly meanwhile', status(resp) == 200 and took < 3,
              (resp[:60], took))
        resp, _ = exchange(port, get(b'/api/contributions', [b'Connection: close']), src='127.0.0.2')
        check('and again', status(resp) == 200, resp[:60])
    finally:
        for s in socks:
            s.close()


def settle(port, src='127.0.0.1'):
    """Wait until the server has let go of closed connections."""
    for _ in range(100):
        resp, _ = exchange(port, get(b'/style.css', [b'Connection: close']), src)
        if status(resp) == 200:
            return
        time.sleep(0.05)


def main():
    tmp = tempfile.mkdtemp(prefix='yard-guard-')
    srv = None
    try:
        with open(os.path.join(tmp, 'ci.token'), 'w') as f:
            f.write(TOKEN + '\n')
        yard = Yard(tmp, '[ci "lab"]\n\temail = ci@lab.example.org\n\ttoken-file = %s/ci.token\n' % tmp)
        # Connections time out after 30 s: whatever is answered in this
        # test is answered because there is room, not because the
        # watchdog freed some.
        srv = Server(yard.conf, '--timeout', '30')
        smuggling(srv.port)
        settle(srv.port)
        many_from_one(srv.port)
        settle(srv.port)
        idle_flood(srv.port)
        rc = srv.stop()
        srv = None
        check('serve exits 0 on SIGTERM', rc == 0, rc)
        r = yard.run('serve', '--listen', '127.0.0.1:1', '--connections', '100', '--per-client', '100',
                     check_rc=False)
        check('--per-client not below --connections: a config error', r.returncode == 2, r.stderr)
    finally:
        if srv:
            srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    done()


main()
