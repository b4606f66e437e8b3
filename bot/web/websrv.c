#include "bot/web/websrv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "bot/web/webpriv.h"
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
	pthread_t watchdog;
	bool stopping;
};

/* One request's state: its body as it arrives. */
struct request {
	struct buf body;
	bool too_big;
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

static void
on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode why)
{
	struct server *s = cls;
	struct request *r = *con_cls;

	(void)why;
	if (r) {
		buf_free(&r->body);
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

static enum MHD_Result
send_resp(struct MHD_Connection *c, struct web_resp *rs)
{
	struct MHD_Response *resp;
	enum MHD_Result ok;
	size_t n, i;
	char *body = buf_detach(&rs->body, &n);

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
	if (rs->location)
		MHD_add_response_header(resp, "Location", rs->location);
	if (rs->link)
		MHD_add_response_header(resp, "Link", rs->link);
	if (rs->allow)
		MHD_add_response_header(resp, "Allow", rs->allow);
	if (rs->disposition)
		MHD_add_response_header(
		    resp, "Content-Disposition", rs->disposition);
	ok = MHD_queue_response(c, (unsigned)rs->status, resp);
	MHD_destroy_response(resp);
	return ok;
}

/* A response without the database: errors of the transport. */
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
	ok = send_resp(c, &rs);
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
	enum MHD_Result ok;

	if (r->too_big)
		return send_error(s, c, url, 413, "The body is too large.");
	if ((st = store_take(s)) == NULL)
		return send_error(
		    s, c, url, 503, "The database cannot be read now.");
	memset(&rq, 0, sizeof(rq));
	rq.method = method;
	rq.path = url;
	rq.arg = query_arg;
	rq.cls = c;
	rq.authorization =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	rq.body = r->body.p;
	rq.body_len = r->body.n;
	rq.root = "/";
	rq.now = time_now();
	/* One snapshot for the whole page: consistent, and the file locks
	 * are taken once instead of once a statement. */
	if (store_snapshot(st) == ERR_OK) {
		web_handle(s->web, st, &rq, &rs);
		store_snapshot_end(st);
	} else {
		memset(&rs, 0, sizeof(rs));
		webapi_error(&rs, 503, "the database cannot be read now");
	}
	store_give(s, st);
	ok = send_resp(c, &rs);
	web_resp_free(&rs);
	return ok;
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **con_cls)
{
	struct server *s = cls;
	struct request *r = *con_cls;

	(void)version;
	if (r == NULL) {
		const char *len = MHD_lookup_connection_value(
		    c, MHD_HEADER_KIND, "Content-Length");

		r = xcalloc(1, sizeof(*r));
		buf_init(&r->body, WEB_MAX_BODY);
		*con_cls = r;
		/* The watchdog's clock keeps running through the body: a
		 * request is read whole within the timeout or cut off. */
		if (strlen(url) > WEB_MAX_URL) {
			set_busy(s, c, true);
			return send_error(s, c, "/", 414,
			    "This address is longer than any page's.");
		}
		/* Refuse a body announced too large before it comes. */
		if (len && strtoull(len, NULL, 10) > WEB_MAX_BODY) {
			set_busy(s, c, true);
			return send_error(
			    s, c, url, 413, "The body is too large.");
		}
		return MHD_YES;
	}
	if (*upload_size) {
		if (!r->too_big &&
		    buf_add(&r->body, upload, *upload_size) != ERR_OK)
			r->too_big = true;
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
	char line[512];

	(void)cls;
	if (vsnprintf(line, sizeof(line), fmt, ap) < 0)
		return;
	line[strcspn(line, "\n")] = '\0';
	log_info("web: %s", line);
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
	unsigned flags =
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
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
	    MHD_OPTION_CONNECTION_TIMEOUT, o->timeout,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)WEBSRV_HEADER_MEMORY,
	    MHD_OPTION_THREAD_POOL_SIZE, o->threads,
	    MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
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
	struct server s;
	struct store *probe;
	enum err e;

	if (!parse_listen(o->listen, &ss)) {
		log_err("web: %s: not ADDR:PORT", o->listen);
		return ERR_CONFIG;
	}
	/* Fail at start, not on the first request, without a database. */
	if ((e = store_open(conf->database, STORE_RO, &probe)) != ERR_OK)
		return e;
	/* Every request builds its page in fresh buffers and arenas: keep
	 * freed memory in the heap instead of giving it back to the kernel
	 * and faulting it in again for the next request. */
	mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
	memset(&s, 0, sizeof(s));
	s.conf = conf;
	s.timeout = o->timeout;
	s.web = web_new(conf);
	pthread_mutex_init(&s.lock, NULL);
	store_give(&s, probe);
	e = run(&s, o, &ss);
	while (s.nstores)
		store_close(s.stores[--s.nstores]);
	free(s.stores);
	pthread_mutex_destroy(&s.lock);
	web_free(s.web);
	return e;
}
