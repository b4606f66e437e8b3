#!/usr/bin/python3
"""git's smart HTTP protocol on loopback for patchyard's tests: `git
http-backend` (CGI) behind Python's http.server, serving the folder
--root.  Binds 127.0.0.1 on a free port, writes it to --port-file
(atomically), and serves until SIGTERM.

A public-inbox's manifest.js.gz is served as a file when the folder has
one (404 otherwise).  --every-epoch NAME makes the inbox NAME answer
for every epoch number, each one its epoch 0: a hostile server."""
import argparse, os, re, signal, subprocess, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def handle(self):
        # A client that gives up in the middle (a test's SIGTERM) is no
        # error of the server's.
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        self.cgi()

    def do_POST(self):
        self.cgi()

    def body(self):
        if self.headers.get('Transfer-Encoding', '').lower() == 'chunked':
            out = b''
            while True:
                n = int(self.rfile.readline().split(b';')[0], 16)
                if n == 0:
                    self.rfile.readline()
                    return out
                out += self.rfile.read(n)
                self.rfile.readline()
        n = int(self.headers.get('Content-Length') or 0)
        return self.rfile.read(n) if n else b''

    def manifest(self, path):
        f = os.path.join(self.server.root, path.lstrip('/'))
        if not os.path.isfile(f):
            self.send_response(404)
            self.send_header('Content-Length', '0')
            self.end_headers()
            return
        data = open(f, 'rb').read()
        self.send_response(200)
        self.send_header('Content-Type', 'application/gzip')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def cgi(self):
        path, _, query = self.path.partition('?')
        if path.endswith('/manifest.js.gz'):
            return self.manifest(path)
        for name in self.server.every:
            path = re.sub(r'^/%s/git/[0-9]+\.git/' % re.escape(name),
                          '/%s/git/0.git/' % name, path)
        data = self.body()
        env = dict(os.environ, GIT_PROJECT_ROOT=self.server.root, GIT_HTTP_EXPORT_ALL='1',
                   PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD=self.command,
                   CONTENT_TYPE=self.headers.get('Content-Type', ''),
                   CONTENT_LENGTH=str(len(data)), REMOTE_ADDR='127.0.0.1',
                   GATEWAY_INTERFACE='CGI/1.1', SERVER_PROTOCOL='HTTP/1.1')
        if self.headers.get('Content-Encoding'):
            env['HTTP_CONTENT_ENCODING'] = self.headers['Content-Encoding']
        if self.headers.get('Git-Protocol'):
            env['GIT_PROTOCOL'] = self.headers['Git-Protocol']
        r = subprocess.run(['git', 'http-backend'], input=data, env=env, capture_output=True)
        sep = r.stdout.find(b'\r\n\r\n')
        head, rest = (r.stdout[:sep], r.stdout[sep + 4:]) if sep >= 0 else \
            r.stdout.partition(b'\n\n')[::2]
        status, headers = 200, []
        for line in head.replace(b'\r\n', b'\n').split(b'\n'):
            name, _, value = line.decode(errors='replace').partition(':')
            if name.lower() == 'status':
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header('Content-Length', str(len(rest)))
        self.end_headers()
        self.wfile.write(rest)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', required=True)
    ap.add_argument('--port-file', required=True)
    ap.add_argument('--every-epoch', action='append', default=[])
    o = ap.parse_args()
    srv = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    srv.root = o.root
    srv.every = o.every_epoch
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    tmp = o.port_file + '.tmp'
    with open(tmp, 'w') as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, o.port_file)
    srv.serve_forever()


main()
