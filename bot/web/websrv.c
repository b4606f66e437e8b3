#include "bot/web/websrv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "bot/web/webcache.h"
#include "bot/web/webpriv.h"
#include "util/ascii.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* Request line and headers of one request must fit in this: a longer
 * URL is answered 414 by libmicrohttpd before we see it. */
#define WEBSRV_HEADER_MEMORY (32 * 1024)

/* A connection, for the watchdog that cuts off slow clients. */
struct conn {
	struct conn *prev, *next;
	int fd;
	double since; /* waiting for a request header since (monotonic) */
	bool busy; /* a request is being read or answered */
	bool cut;
};

struct server {
	struct web *web;
	const struct config *conf;
	unsigned timeout;
	pthread_mutex_t lock; /* conns, stores */
	struct conn *conns;
	struct store **stores; /* idle read-only connections */
	size_t nstores, cap;
	struct webcache *cache; /* answers kept (webcache.h) */
	pthread_t watchdog;
	bool stopping;
};

/* Content-Length and Transfer-Encoding headers looked at in one
 * request: a client that sends more is refused. */
#define WEBSRV_FRAME_HEADERS 8

/* One request's state, from its request line on (on_uri). */
struct request {
	/* The raw target as libmicrohttpd read it: where it starts and its
	 * length up to the first NUL (its bytes are decoded in place after
	 * on_uri(): only the address is kept). */
	uintptr_t uri;
	size_t uri_len;
	bool uri_pct_nul; /* a %00 in it */
	bool started; /* the request handler has seen it */
	char *key; /* the target as received: what the cache keeps it by */
	struct buf body;
	bool too_big;
};

/* The framing headers of one request (web_framing). */
struct frame {
	struct web_hdr h[WEBSRV_FRAME_HEADERS];
	size_t n;
	bool over;
};

static struct store *
store_take(struct server *s)
{
	struct store *st = NULL;

	pthread_mutex_lock(&s->lock);
	if (s->nstores)
		st = s->stores[--s->nstores];
	pthread_mutex_unlock(&s->lock);
	if (st == NULL &&
	    store_open(s->conf->database, STORE_RO, &st) != ERR_OK)
		return NULL;
	return st;
}

static void
store_give(struct server *s, struct store *st)
{
	pthread_mutex_lock(&s->lock);
	s->stores =
	    xgrow(s->stores, &s->cap, s->nstores + 1, sizeof(*s->stores));
	s->stores[s->nstores++] = st;
	pthread_mutex_unlock(&s->lock);
}

static void
on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
    enum MHD_ConnectionNotificationCode code)
{
	struct server *s = cls;
	struct conn *k = *socket_context;
	const union MHD_ConnectionInfo *info;

	pthread_mutex_lock(&s->lock);
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		info = MHD_get_connection_info(
		    c, MHD_CONNECTION_INFO_CONNECTION_FD);
		k = xcalloc(1, sizeof(*k));
		k->fd = info ? info->connect_fd : -1;
		k->since = time_mono();
		k->next = s->conns;
		if (s->conns)
			s->conns->prev = k;
		s->conns = k;
		*socket_context = k;
	} else if (k) {
		/* libmicrohttpd tells before it closes the socket: the
		 * watchdog never touches a descriptor reused since. */
		if (k->prev)
			k->prev->next = k->next;
		else
			s->conns = k->next;
		if (k->next)
			k->next->prev = k->prev;
		free(k);
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&s->lock);
}

/* Cut off connections that have not sent a whole request header in
 * time, however slowly they trickle: the event loop would keep them. */
static void *
watchdog(void *cls)
{
	struct server *s = cls;
	struct timespec tick = { 0, 250 * 1000 * 1000 };
	struct conn *k;

	for (;;) {
		double now = time_mono();

		pthread_mutex_lock(&s->lock);
		if (s->stopping) {
			pthread_mutex_unlock(&s->lock);
			return NULL;
		}
		for (k = s->conns; k; k = k->next)
			if (!k->busy && !k->cut && k->fd >= 0 &&
			    now - k->since > s->timeout) {
				shutdown(k->fd, SHUT_RDWR);
				k->cut = true;
			}
		pthread_mutex_unlock(&s->lock);
		nanosleep(&tick, NULL);
	}
}

static void
set_busy(struct server *s, struct MHD_Connection *c, bool busy)
{
	const union MHD_ConnectionInfo *info =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *k = info ? info->socket_context : NULL;

	if (k == NULL)
		return;
	pthread_mutex_lock(&s->lock);
	k->busy = busy;
	k->since = time_mono();
	pthread_mutex_unlock(&s->lock);
}

/* Each request's state is made here, where its raw target is seen:
 * libmicrohttpd percent-decodes the path in place right after. */
static void *
on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct request *r = xcalloc(1, sizeof(*r));

	(void)cls;
	(void)c;
	r->uri = (uintptr_t)uri;
	r->uri_len = strlen(uri);
	r->uri_pct_nul = web_uri_nul(uri, r->uri_len);
	r->key = xstrdup(uri);
	buf_init(&r->body, WEB_MAX_BODY);
	return r;
}

static void
on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode why)
{
	struct server *s = cls;
	struct request *r = *con_cls;

	(void)why;
	if (r) {
		buf_free(&r->body);
		free(r->key);
		free(r);
		*con_cls = NULL;
	}
	set_busy(s, c, false);
}

static const char *
query_arg(void *cls, const char *name)
{
	return MHD_lookup_connection_value(cls, MHD_GET_ARGUMENT_KIND, name);
}

/* Every query argument of a request, in order. */
struct args {
	struct web_arg v[WEB_MAX_ARGS];
	size_t n;
	bool over;
};

static enum MHD_Result
collect_arg(
    void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct args *a = cls;

	(void)kind;
	if (a->n == WEB_MAX_ARGS) {
		a->over = true;
		return MHD_NO;
	}
	a->v[a->n].name = key;
	a->v[a->n].value = value ? value : "";
	a->n++;
	return MHD_YES;
}

/* last: the connection is closed after the response, whatever the
 * client asked (what follows a refused request is not read as one). */
static enum MHD_Result
send_resp(struct MHD_Connection *c, struct web_resp *rs, bool last)
{
	struct MHD_Response *resp;
	enum MHD_Result ok;
	size_t n, i;
	char *body = buf_detach(&rs->body, &n), date[40];

	resp = MHD_create_response_from_buffer(n, body, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", rs->type);
	for (i = 0; web_headers[i]; i += 2)
		MHD_add_response_header(
		    resp, web_headers[i], web_headers[i + 1]);
	MHD_add_response_header(resp, "Cache-Control", "no-cache");
	if (rs->etag)
		MHD_add_response_header(resp, "ETag", rs->etag);
	if (rs->modified > 0 &&
	    web_http_date(date, sizeof(date), rs->modified) == ERR_OK)
		MHD_add_response_header(resp, "Last-Modified", date);
	if (rs->encoding)
		MHD_add_response_header(resp, "Content-Encoding", rs->encoding);
	if (rs->vary)
		MHD_add_response_header(resp, "Vary", "Accept-Encoding");
	if (rs->location)
		MHD_add_response_header(resp, "Location", rs->location);
	if (rs->link)
		MHD_add_response_header(resp, "Link", rs->link);
	if (rs->allow)
		MHD_add_response_header(resp, "Allow", rs->allow);
	if (rs->disposition)
		MHD_add_response_header(
		    resp, "Content-Disposition", rs->disposition);
	if (last)
		MHD_add_response_header(resp, "Connection", "close");
	ok = MHD_queue_response(c, (unsigned)rs->status, resp);
	MHD_destroy_response(resp);
	return ok;
}

/* A response without the database: errors of the transport, after
 * which the connection is closed. */
static enum MHD_Result
send_error(struct server *s, struct MHD_Connection *c, const char *path,
    int status, const char *text)
{
	struct web_req rq;
	struct web_resp rs;
	enum MHD_Result ok;

	memset(&rq, 0, sizeof(rq));
	memset(&rs, 0, sizeof(rs));
	rq.method = "GET";
	rq.path = path;
	rq.root = "/";
	rq.now = time_now();
	if (strncmp(path, "/api/", 5) == 0)
		webapi_error(&rs, status, text);
	else
		webpage_error(
		    s->web, &rq, &rs, status, "Request refused", text);
	ok = send_resp(c, &rs, true);
	web_resp_free(&rs);
	return ok;
}

static enum MHD_Result
answer(struct server *s, struct MHD_Connection *c, const char *url,
    const char *method, struct request *r)
{
	struct web_req rq;
	struct web_resp rs;
	struct store *st;
	struct args args;
	struct buf key = BUF_INIT;
	enum MHD_Result ok;
	uint64_t gen;

	if (r->too_big)
		return send_error(s, c, url, 413, "The body is too large.");
	memset(&args, 0, sizeof(args));
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_arg, &args);
	if (args.over)
		return send_error(s, c, url, 400, "Too many query arguments.");
	/* Before the snapshot: an answer is never older than the last
	 * change the cache saw. */
	gen = webcache_begin(s->cache);
	if ((st = store_take(s)) == NULL)
		return send_error(
		    s, c, url, 503, "The database cannot be read now.");
	memset(&rq, 0, sizeof(rq));
	rq.method = method;
	rq.path = url;
	rq.arg = query_arg;
	rq.cls = c;
	rq.args = args.v;
	rq.nargs = args.n;
	rq.authorization =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	rq.content_type =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	rq.host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	rq.body = r->body.p;
	rq.body_len = r->body.n;
	rq.root = "/";
	rq.now = time_now();
	rq.if_none_match =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-None-Match");
	rq.if_modified_since = MHD_lookup_connection_value(
	    c, MHD_HEADER_KIND, "If-Modified-Since");
	rq.gzip = web_accepts_gzip(
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept-Encoding"));
	/* What an answer depends on besides the target: the Host (an
	 * absolute URL without bot.url is built from it); an answer to a
	 * request with a token is nobody else's. */
	if (rq.authorization == NULL)
		buf_addf(&key, "%s\n%s", rq.host ? rq.host : "", r->key);
	/* One snapshot for the whole page: consistent, and the file locks
	 * are taken once instead of once a statement. */
	if (store_snapshot(st) == ERR_OK) {
		webcache_handle(s->cache, s->web, st, &rq,
		    key.n ? buf_cstr(&key) : NULL, gen, &rs);
		store_snapshot_end(st);
	} else {
		memset(&rs, 0, sizeof(rs));
		webapi_error(&rs, 503, "the database cannot be read now");
	}
	store_give(s, st);
	buf_free(&key);
	ok = send_resp(c, &rs, false);
	web_resp_free(&rs);
	return ok;
}

static enum MHD_Result
frame_header(
    void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct frame *f = cls;

	(void)kind;
	if (ascii_stricmp(key, "Content-Length") != 0 &&
	    ascii_stricmp(key, "Transfer-Encoding") != 0)
		return MHD_YES;
	if (f->n == WEBSRV_FRAME_HEADERS) {
		f->over = true;
		return MHD_NO;
	}
	f->h[f->n].name = key;
	f->h[f->n].value = value ? value : "";
	f->n++;
	return MHD_YES;
}

/*
 * Whether the request target held a NUL byte, raw or as %00: the path
 * we are given would be cut short there, and a proxy in front may have
 * read another one.  libmicrohttpd up to 0.9.77 takes the request line
 * as C strings: the target on_uri() saw ends at the first NUL, and the
 * HTTP version (`version`, in the same buffer) starts one separator
 * after the target's true end, so a gap between the two is the rest of
 * a target cut by a NUL.  Later versions refuse such a line themselves.
 */
static bool
target_nul(const struct request *r, const char *version)
{
	if (r->uri_pct_nul)
		return true;
#if MHD_VERSION <= 0x00097700
	{
		uintptr_t v = (uintptr_t)version;

		if (v > r->uri + r->uri_len + 1 &&
		    v - r->uri <= WEBSRV_HEADER_MEMORY)
			return true;
	}
#else
	(void)version;
#endif
	return false;
}

/* A request that cannot be read one way only, refused before its body
 * is read: 0, or the status and *why. */
static int
refusal(struct MHD_Connection *c, const struct request *r, const char *version,
    const char **why)
{
	struct frame f;

	if (target_nul(r, version))
		return *why = "a NUL in the request target", 400;
	memset(&f, 0, sizeof(f));
	MHD_get_connection_values(c, MHD_HEADER_KIND, frame_header, &f);
	if (f.over)
		return *why = "too many Content-Length and Transfer-Encoding "
		              "headers",
		       400;
	return web_framing(f.h, f.n, why);
}

/* The client's address for a log line, or "?". */
static const char *
peer(struct MHD_Connection *c, char *out, size_t size)
{
	const union MHD_ConnectionInfo *info =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = info ? info->client_addr : NULL;
	const void *addr = NULL;

	if (sa && sa->sa_family == AF_INET)
		addr =
		    &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	else if (sa && sa->sa_family == AF_INET6)
		addr =
		    &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
	if (addr == NULL ||
	    inet_ntop(sa->sa_family, addr, out, (socklen_t)size) == NULL)
		return "?";
	return out;
}

/* The first call for a request: its line and headers are in. */
static enum MHD_Result
on_headers(struct server *s, struct MHD_Connection *c, const char *url,
    const char *version, struct request *r)
{
	const char *len =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
	const char *why = NULL;
	char addr[INET6_ADDRSTRLEN];
	int status;

	r->started = true;
	if ((status = refusal(c, r, version, &why)) != 0) {
		log_info("web: %s: request refused (%d): %s",
		    peer(c, addr, sizeof(addr)), status, why);
		set_busy(s, c, true);
		return send_error(s, c, url, status, why);
	}
	if (strlen(url) > WEB_MAX_URL) {
		set_busy(s, c, true);
		return send_error(
		    s, c, "/", 414, "This address is longer than any page's.");
	}
	/* Refuse a body announced too large before it comes. */
	if (len && strtoull(len, NULL, 10) > WEB_MAX_BODY) {
		set_busy(s, c, true);
		return send_error(s, c, url, 413, "The body is too large.");
	}
	/* The watchdog's clock keeps running through the body: a request
	 * is read whole within the timeout or cut off. */
	return MHD_YES;
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **con_cls)
{
	struct server *s = cls;
	struct request *r = *con_cls;

	/* on_uri() made it; without it, nothing of this request is safe
	 * to read. */
	if (r == NULL)
		return MHD_NO;
	if (!r->started)
		return on_headers(s, c, url, version, r);
	if (*upload_size) {
		if (!buf_fits(&r->body, *upload_size))
			r->too_big = true;
		else if (!r->too_big)
			buf_add(&r->body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	set_busy(s, c, true);
	return answer(s, c, url, method, r);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[512], q[512];

	(void)cls;
	if (vsnprintf(line, sizeof(line), fmt, ap) < 0)
		return;
	/* Some messages name the request's target, decoded: what a client
	 * sent as %0D or %1B is no control character of the log's. */
	log_info("web: %s", web_mhd_text(q, sizeof(q), line));
}

/* "ADDR:PORT" or "[ADDR6]:PORT" into a socket address. */
static bool
parse_listen(const char *s, struct sockaddr_storage *ss)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	const char *colon = strrchr(s, ':');
	char host[64], *end;
	size_t n;
	long port;

	if (colon == NULL)
		return false;
	n = (size_t)(colon - s);
	if (s[0] == '[' && n >= 2 && s[n - 1] == ']')
		s++, n -= 2;
	if (n == 0 || n >= sizeof(host))
		return false;
	memcpy(host, s, n);
	host[n] = '\0';
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || *end || end == colon + 1 || port < 0 || port > 65535)
		return false;
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		return true;
	}
	if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		return true;
	}
	return false;
}

static enum err
run(struct server *s, const struct websrv_opts *o, struct sockaddr_storage *ss)
{
	/* poll(2), not epoll: libmicrohttpd 0.9.75's epoll loop calls
	 * epoll_wait again, with the full timeout, after a batch of 128
	 * events, and so can swallow the wake-up of MHD_stop_daemon and
	 * hold SIGTERM up to --timeout (docs/DECISIONS.md). */
	unsigned flags =
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ERROR_LOG;
	struct MHD_Daemon *d;
	sigset_t set;
	int sig = 0;

	if (ss->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* The server's threads inherit a mask without the stop signals:
	 * only sigwait() below sees them. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s,
	    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_SOCK_ADDR,
	    (struct sockaddr *)ss, MHD_OPTION_CONNECTION_LIMIT, o->connections,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, o->per_client,
	    MHD_OPTION_CONNECTION_TIMEOUT, o->timeout,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)WEBSRV_HEADER_MEMORY,
	    MHD_OPTION_THREAD_POOL_SIZE, o->threads,
	    MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
	    MHD_OPTION_URI_LOG_CALLBACK, on_uri, s, MHD_OPTION_END);
	if (d == NULL) {
		log_err(
		    "web: %s: cannot listen (%s)", o->listen, strerror(errno));
		return ERR_IO;
	}
	if (pthread_create(&s->watchdog, NULL, watchdog, s) != 0)
		fatal("web: cannot start a thread");
	log_info("web: listening on %s", o->listen);
	while (sig != SIGINT && sig != SIGTERM)
		if (sigwait(&set, &sig) != 0)
			break;
	log_info("web: stopping");
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->watchdog, NULL);
	MHD_stop_daemon(d);
	return ERR_OK;
}

enum err
websrv_run(const struct config *conf, const struct websrv_opts *o)
{
	struct sockaddr_storage ss;
	struct websrv_opts opts;
	struct server s;
	struct store *probe, *stamp;
	enum err e;

	if (!parse_listen(o->listen, &ss)) {
		log_err("web: %s: not ADDR:PORT", o->listen);
		return ERR_CONFIG;
	}
	opts = *o;
	if (opts.per_client == 0) {
		opts.per_client = opts.connections / 2;
		if (opts.per_client > WEBSRV_PER_CLIENT)
			opts.per_client = WEBSRV_PER_CLIENT;
		if (opts.per_client == 0)
			opts.per_client = 1;
	} else if (opts.per_client >= opts.connections) {
		log_err("web: %u connections a client: not below the %u in "
		        "all, one client could take every one",
		    opts.per_client, opts.connections);
		return ERR_CONFIG;
	}
	/* Fail at start, not on the first request, without a database. */
	if ((e = store_open(conf->database, STORE_RO, &probe)) != ERR_OK)
		return e;
	if ((e = store_open(conf->database, STORE_RO, &stamp)) != ERR_OK) {
		store_close(probe);
		return e;
	}
	/* Every request builds its page in fresh buffers and arenas: keep
	 * freed memory in the heap instead of giving it back to the kernel
	 * and faulting it in again for the next request. */
	mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
	memset(&s, 0, sizeof(s));
	s.conf = conf;
	s.timeout = o->timeout;
	s.web = web_new(conf);
	s.cache = webcache_new(stamp, WEB_CACHE_BYTES, WEB_CACHE_TTL);
	pthread_mutex_init(&s.lock, NULL);
	store_give(&s, probe);
	e = run(&s, &opts, &ss);
	while (s.nstores)
		store_close(s.stores[--s.nstores]);
	free(s.stores);
	pthread_mutex_destroy(&s.lock);
	webcache_free(s.cache);
	web_free(s.web);
	return e;
}
