#!/usr/bin/python3
"""A controllable SMTP server for patchyard's tests (aiosmtpd).

Every accepted mail is written into a Maildir, as aiosmtpd's Mailbox
handler does, but byte for byte as it came (CRLF kept, dot-stuffing
undone) after a few trace fields the tests read:

    X-Smtpd-Mail-From: <envelope sender>
    X-Smtpd-Rcpt-To: <rcpt>, <rcpt>
    X-Smtpd-Tls: yes | no
    X-Smtpd-Auth: <user> | -

The behaviour is chosen by --mode, or at run time by the first word of
the --control file, re-read at every decision so that a test can switch
a running server from 451 to accept:

    accept          store the mail, 250
    tempfail-data   451 after the mail data (nothing stored)
    reject-data     550 after the mail data (nothing stored)
    tempfail-rcpt   451 to every RCPT
    reject-rcpt     550 to every RCPT
    drop-data       after 354, read a few bytes and close the connection
                    without a reply (nothing stored)
    die-data        after 354, read a few bytes and exit the whole process
                    (as if killed in the middle of DATA)
    drop-after-ack  store the mail, 250, then close the connection at once
                    (the client's QUIT gets no answer)
    hang            accept connections and never say a word

--reject ADDR and --defer ADDR refuse one recipient with 550 or 451 in
every mode.  --drop-at-mail N closes the connection without a reply when
the Nth MAIL FROM of the server's life arrives (once: a relay that goes
away in the middle of a session).  --stats FILE is rewritten (atomically)
after every connection and MAIL FROM with "connections N", "mails N" and
"dropped N" lines, so that a test can count the sessions a client opened.  --no-8bitmime leaves 8BITMIME out of the EHLO reply (the
server still stores whatever bytes it gets: the test reads them).  --auth USER:PASS requires AUTH (PLAIN or LOGIN); a wrong
password gets 535.  --tls-cert/--tls-key with --starttls offer STARTTLS
(--require-starttls refuses mail without it) or with --implicit-tls
speak TLS from the first byte.

Start-up: the server binds 127.0.0.1:--port (0: any free port), then
writes its port to --port-file (atomically: a test waits for that file)
and its pid to --pid-file.  SIGTERM and SIGINT stop it.
"""

import argparse
import asyncio
import os
import signal
import socket
import ssl
import sys
import time

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

MODES = ("accept", "tempfail-data", "reject-data", "tempfail-rcpt",
         "reject-rcpt", "drop-data", "die-data", "drop-after-ack", "hang")


def log(msg):
    print("smtpd[%d]: %s" % (os.getpid(), msg), file=sys.stderr, flush=True)


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


class Maildir:
    """Deliver raw bytes into DIR/new through DIR/tmp, creating the
    folders when they are missing (mailbox.Maildir semantics)."""

    def __init__(self, path):
        self.path = path
        self.count = 0
        for sub in ("tmp", "new", "cur"):
            os.makedirs(os.path.join(path, sub), exist_ok=True)

    def add(self, data):
        self.count += 1
        name = "%d.%d_%d.smtpd" % (time.time(), os.getpid(), self.count)
        tmp = os.path.join(self.path, "tmp", name)
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.rename(tmp, os.path.join(self.path, "new", name))
        return name


class Handler:
    def __init__(self, opts):
        self.opts = opts
        self.maildir = Maildir(opts.maildir)
        self.connections = 0
        self.mail_cmds = 0
        self.dropped = 0
        self.stats()

    def stats(self):
        if self.opts.stats:
            write_atomic(self.opts.stats, "connections %d\nmails %d\ndropped %d\n"
                         % (self.connections, self.mail_cmds, self.dropped))

    def mode(self):
        if self.opts.control:
            try:
                with open(self.opts.control) as f:
                    words = f.read().split()
                if words and words[0] in MODES:
                    return words[0]
                if words:
                    log("control file: unknown mode %r" % words[0])
            except FileNotFoundError:
                pass
        return self.opts.mode

    async def handle_EHLO(self, server, session, envelope, hostname,
                          responses):
        # The five-argument hook replaces aiosmtpd's own bookkeeping.
        session.host_name = hostname
        if self.opts.no_8bitmime:
            responses = [r for r in responses if r[4:].upper() != "8BITMIME"]
        return responses

    async def handle_RCPT(self, server, session, envelope, address,
                          rcpt_options):
        mode = self.mode()
        if address in self.opts.reject or mode == "reject-rcpt":
            return "550 5.1.1 <%s>: recipient rejected" % address
        if address in self.opts.defer or mode == "tempfail-rcpt":
            return "451 4.3.0 <%s>: try again later" % address
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        mode = self.mode()
        if mode == "tempfail-data":
            return "451 4.3.0 Temporary failure, try again later"
        if mode == "reject-data":
            return "550 5.7.1 Message rejected"
        tls = server_uses_tls(server)
        auth = "-"
        if isinstance(session.auth_data, LoginPassword):
            auth = session.auth_data.login.decode("utf-8", "replace")
        trace = ("X-Smtpd-Mail-From: %s\r\nX-Smtpd-Rcpt-To: %s\r\n"
                 "X-Smtpd-Tls: %s\r\nX-Smtpd-Auth: %s\r\n" %
                 (envelope.mail_from, ", ".join(envelope.rcpt_tos),
                  "yes" if tls else "no", auth))
        name = self.maildir.add(trace.encode() + envelope.original_content)
        log("stored %s for %s" % (name, ", ".join(envelope.rcpt_tos)))
        return "250 2.0.0 OK: queued as %s" % name


def server_uses_tls(server):
    if getattr(server, "_tls_protocol", None) is not None:
        return True
    t = server.transport
    return t is not None and t.get_extra_info("ssl_object") is not None


class ControlledSMTP(SMTP):
    """aiosmtpd's SMTP with the two DATA faults that need to cut in
    before the whole mail has been read, counting connections and
    MAIL FROMs, and going away at the MAIL FROM of --drop-at-mail."""

    def connection_made(self, transport):
        # aiosmtpd calls it again with the TLS transport after STARTTLS:
        # the same connection.
        if self.transport is None:
            self.event_handler.connections += 1
            self.event_handler.stats()
        super().connection_made(transport)

    async def smtp_MAIL(self, arg):
        h = self.event_handler
        h.mail_cmds += 1
        drop = h.opts.drop_at_mail and h.mail_cmds == h.opts.drop_at_mail
        h.dropped += bool(drop)
        h.stats()
        if drop:
            log("dropping the connection at MAIL FROM %d" % h.mail_cmds)
            self.transport.close()
            return
        await super().smtp_MAIL(arg)

    async def smtp_DATA(self, arg):
        mode = self.event_handler.mode()
        if mode not in ("drop-data", "die-data") or \
                not self.envelope.rcpt_tos or arg:
            await super().smtp_DATA(arg)
            if mode == "drop-after-ack" and self.transport is not None:
                self.transport.close()
            return
        await self.push("354 End data with <CR><LF>.<CR><LF>")
        got = await self._reader.read(64)
        log("%s after %d bytes of DATA" % (mode, len(got)))
        if mode == "die-data":
            os._exit(3)
        self.transport.abort()


class Silent(asyncio.Protocol):
    """The hang mode: a peer that accepts and never answers."""

    def connection_made(self, transport):
        self.transport = transport


def make_authenticator(user, password):
    def authenticator(server, session, envelope, mechanism, auth_data):
        if not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        ok = (auth_data.login == user.encode() and
              auth_data.password == password.encode())
        log("AUTH %s %s" % (mechanism, "ok" if ok else "refused"))
        # handled=False makes aiosmtpd answer 535; handled=True with
        # success=False would leave the client waiting (PLATFORM.md).
        return AuthResult(success=ok, handled=False, auth_data=auth_data)
    return authenticator


def tls_context(opts):
    if not opts.tls_cert:
        return None
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(opts.tls_cert, opts.tls_key)
    return ctx


def factory(opts, handler, ctx):
    kw = {"hostname": "smtpd.test", "ident": "patchyard test smtpd",
          "timeout": opts.timeout}
    if opts.starttls:
        kw["tls_context"] = ctx
        kw["require_starttls"] = opts.require_starttls
    if opts.auth:
        user, _, password = opts.auth.partition(":")
        kw["authenticator"] = make_authenticator(user, password)
        kw["auth_required"] = True
        kw["auth_require_tls"] = False

    def make():
        if handler.mode() == "hang":
            return Silent()
        return ControlledSMTP(handler, **kw)
    return make


async def serve(opts):
    loop = asyncio.get_running_loop()
    handler = Handler(opts)
    ctx = tls_context(opts)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((opts.host, opts.port))
    sock.listen(16)
    server = await loop.create_server(
        factory(opts, handler, ctx), sock=sock,
        ssl=ctx if opts.implicit_tls else None)
    port = sock.getsockname()[1]
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if opts.pid_file:
        write_atomic(opts.pid_file, "%d\n" % os.getpid())
    if opts.port_file:
        write_atomic(opts.port_file, "%d\n" % port)
    log("listening on %s:%d mode %s" % (opts.host, port, handler.mode()))
    await stop.wait()
    server.close()
    log("stopped")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--maildir", required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file")
    p.add_argument("--pid-file")
    p.add_argument("--mode", choices=MODES, default="accept")
    p.add_argument("--control")
    p.add_argument("--reject", action="append", default=[])
    p.add_argument("--defer", action="append", default=[])
    p.add_argument("--no-8bitmime", action="store_true")
    p.add_argument("--auth", metavar="USER:PASS")
    p.add_argument("--tls-cert")
    p.add_argument("--tls-key")
    p.add_argument("--starttls", action="store_true")
    p.add_argument("--require-starttls", action="store_true")
    p.add_argument("--implicit-tls", action="store_true")
    p.add_argument("--timeout", type=float, default=30)
    p.add_argument("--drop-at-mail", type=int, default=0, metavar="N")
    p.add_argument("--stats", metavar="FILE")
    opts = p.parse_args()
    if (opts.starttls or opts.implicit_tls) and not \
            (opts.tls_cert and opts.tls_key):
        p.error("TLS needs --tls-cert and --tls-key")
    asyncio.run(serve(opts))


if __name__ == "__main__":
    main()
