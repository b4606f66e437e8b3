/*
 * `patchyard serve`: the status pages over HTTP with libmicrohttpd, which
 * stays behind this file's wall.  A pool of threads answers (epoll on
 * Linux); each takes a read-only database connection from a pool, so
 * pages never block ingest (SQLite WAL), and POST /api/checks writes on
 * a connection of its own.
 *
 * Limits: at most `connections` at once, and `per_client` of them from
 * one client address (below `connections`, so that one client holding
 * all it may, slow or idle, leaves room for everyone else; more from it
 * are closed at once); a connection that has not sent
 * a whole request header within `timeout` seconds of connecting (or of
 * its previous request) is cut off however slowly it trickles bytes
 * (slow loris), and so is one idle that long; a request line or header
 * over 32 KB is answered 414/431 by libmicrohttpd, a path over
 * WEB_MAX_URL 414, a body over WEB_MAX_BODY 413.  A request that
 * could be read two ways (request smuggling) is 400 and its connection
 * closed: a NUL in its target (raw or %00), Content-Length with
 * Transfer-Encoding, two Content-Length values; a transfer coding other
 * than chunked is 501.
 */
#ifndef BOT_WEB_WEBSRV_H
#define BOT_WEB_WEBSRV_H

#include "parsers/config.h"
#include "util/err.h"

struct websrv_opts {
	const char *listen; /* "ADDR:PORT" ("[ADDR]:PORT" for IPv6) */
	unsigned connections; /* at once */
	/* at once from one address; 0: WEBSRV_PER_CLIENT, or half of
	 * connections when that is less */
	unsigned per_client;
	unsigned timeout; /* seconds for a request header, and idle */
	unsigned threads;
};

#define WEBSRV_LISTEN "127.0.0.1:8080"
#define WEBSRV_CONNECTIONS 256
/* One address may hold half the default: the page bench opens 50 from
 * one address, a NAT may hide many readers, and the other half stays
 * free for everyone else. */
#define WEBSRV_PER_CLIENT 128
#define WEBSRV_TIMEOUT 10
#define WEBSRV_THREADS 2

/*
 * Serve until SIGINT or SIGTERM.  Logs "web: listening on ADDR:PORT" at
 * start (to stderr, with -v).  ERR_CONFIG for a bad listen address or
 * a per_client not below connections, ERR_IO when the socket cannot be opened.
 */
enum err websrv_run(const struct config *conf, const struct websrv_opts *o);

#endif
