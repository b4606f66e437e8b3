/*
 * Room bot/web: the status pages, JSON API, mbox and Atom feed.
 *
 * The status pages, JSON API, mbox and Atom feed (DESIGN.md §9), as one
 * router from a request to a response that knows nothing of sockets:
 * `patchyard serve` (bot/web/websrv.c, libmicrohttpd) and `patchyard
 * publish` (bot/web/webpub.c, static files) both call web_handle().
 *
 * URLs (serve; publish writes the same pages as files, see webpub.h):
 *   /                          contributions, newest activity first,
 *                              ?state= &project= &submitter= &q= &page=
 *   /c/ID                      one contribution
 *   /c/ID/mbox, /c/ID/vN/mbox  git-am-ready series, trailers collected
 *   /c/ID/feed.atom, /feed.atom
 *   /m/MESSAGE-ID              302 to the contribution holding it
 *   /api/contributions         list summaries (JSON), paged, filtered
 *   /api/contributions/ID      the `show --json` object
 *   /api/patches/ID            a patch object
 *   /api/patches/ID/checks     its checks (GET; POST as /api/checks)
 *   /api/events?since=ID       events after an id
 *   /api/checks                POST: a CI's test result (token)
 *   /api/1.2/...               patchwork's REST API 1.2 (webpw.h)
 *   /m/MESSAGE-ID/raw, /m/MESSAGE-ID/t.mbox.gz
 *                              public-inbox's: the mail, its thread
 *   /project/P/patch/MESSAGE-ID/[mbox/|raw/], /series/ID/mbox/
 *                              patchwork's pages and downloads
 *   /style.css
 */
#ifndef BOT_WEB_WEB_H
#define BOT_WEB_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/config.h"
#include "storage/store.h"
#include "util/buf.h"
#include "util/err.h"

/* Limits of one request, each with its reason. */
/* A longer URL is an attack or a mistake: Message-IDs stay under 1 KB. */
#define WEB_MAX_URL 4096
/* A check's JSON body: context, URL and description are short. */
#define WEB_MAX_BODY (64 * 1024)
/* What the pages compute once and keep in memory (interdiffs): their
 * inputs never change, so only room bounds it. */
#define WEB_MEMO_BYTES (32u * 1024 * 1024)
/*
 * The mails of one t.mbox.gz (bot/web/webinbox.c), as stored, before
 * gzip: the answer is built in memory, then kept by serve's cache.  A
 * long-lived contribution of a busy list -- every version and every
 * reply, a few thousand mails of 8 KB on average (the kernel list's) --
 * is 20 to 50 MB; this is a few times that, and twice the largest mail
 * stored (LIMIT_MAIL_STORE).
 */
#define WEB_MAX_THREAD (128u * 1024 * 1024)
/* Page sizes of the API, as docs/DESIGN.md §9 says. */
#define WEB_PER_PAGE 50
#define WEB_MAX_PER_PAGE 500
/* Query arguments of one request: lists take a dozen at most. */
#define WEB_MAX_ARGS 64

struct web;

/* A query argument, decoded. */
struct web_arg {
	const char *name;
	const char *value; /* "" for a name without '=' */
};

/* Load the page templates and the CI tokens; NULL after logging why. */
struct web *web_new(const struct config *conf);
void web_free(struct web *w);

struct web_req {
	const char *method; /* GET, HEAD, POST, PATCH, PUT, ... */
	const char *path; /* percent-decoded, from the first '/' */
	/* A query argument (decoded) or NULL. */
	const char *(*arg)(void *cls, const char *name);
	void *cls;
	/* Every query argument in order, for lists that take one many times
	 * (state=new&state=accepted) and the links to their pages; nargs 0:
	 * only arg() answers. */
	const struct web_arg *args;
	size_t nargs;
	const char *authorization; /* the header, or NULL */
	const char *content_type; /* the body's, or NULL */
	/* The Host header: absolute URLs in patchwork's API when bot.url
	 * is unset (NULL: none). */
	const char *host;
	const char *body; /* POST, PATCH, PUT */
	size_t body_len;
	/* publish: links relative to the page, absolute dates, page N at
	 * page/N/; serve: links from "/" and "3 days ago". */
	bool static_site;
	const char *root; /* "/" or "../../": prefix of every local link */
	int64_t now;
	/* serve: the conditional headers, and whether the client accepts
	 * a gzip body (bot/web/webcache.c). */
	const char *if_none_match;
	const char *if_modified_since;
	bool gzip;
};

struct web_resp {
	int status;
	const char *type; /* Content-Type */
	struct buf body;
	char *location; /* 302: Location */
	char *link; /* Link: rel="next", rel="prev" */
	char *disposition; /* Content-Disposition, or NULL */
	const char *allow; /* 405: Allow */
	/* serve (bot/web/webcache.c): */
	const char *encoding; /* Content-Encoding, or NULL */
	char *etag; /* ETag, quoted, or NULL */
	int64_t modified; /* Last-Modified, 0: none */
	bool vary; /* Vary: Accept-Encoding */
};

/*
 * Answer rq from the database st (a read-only connection of the
 * caller's).  A POST opens a short write transaction on a connection of
 * its own.  rs is filled (free it with web_resp_free) whatever happens:
 * errors become 4xx/5xx pages or JSON.
 */
void web_handle(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs);
void web_resp_free(struct web_resp *rs);

/* The security headers every response carries, as name/value pairs,
 * NULL-terminated. */
extern const char *const web_headers[];

#endif
