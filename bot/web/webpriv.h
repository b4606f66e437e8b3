/*
 * What the files of bot/web/ share: the loaded templates and tokens, and
 * the handlers web_handle() dispatches to.  Not for other rooms.
 */
#ifndef BOT_WEB_WEBPRIV_H
#define BOT_WEB_WEBPRIV_H

#include "bot/mailout/template.h"
#include "bot/web/web.h"
#include "storage/store_web.h"
#include "util/arena.h"

enum web_page {
	WEB_PAGE_LIST,
	WEB_PAGE_CONTRIB,
	WEB_PAGE_ERROR,
	WEB_PAGE_FEED,
	WEB_NPAGES
};

struct web_token {
	const char *ci; /* [ci "NAME"] */
	const char *email;
	char *token; /* the token file's content, trimmed */
};

struct webmemo;

struct web {
	const struct config *conf;
	struct webmemo *memo; /* interdiffs, computed once (webmemo.h) */
	struct template *page[WEB_NPAGES];
	const char *css;
	size_t css_len;
	struct web_token *tokens;
	size_t ntokens;
};

/* The compiled-in templates/web/ files (scripts/embed-templates). */
extern const struct template_builtin web_builtins[];
extern const size_t web_nbuiltins;

/* ---- webutil.c: links, dates, filters ---- */

/* The local link to path ("c/12") for rq: root + path (+ "/" for a
 * page directory of a static site when dir). */
const char *web_link(
    struct arena *a, const struct web_req *rq, const char *path, bool dir);
/* The archive URL of a Message-ID in project's archive, or NULL. */
const char *web_archive(struct arena *a, const struct config *conf,
    const char *project, const char *msgid);
/* Set name (the words), name_iso and name_date for time t. */
void web_when(struct template_data *d, const char *name, int64_t t,
    const struct web_req *rq);
/* Set name to the date and time ("2025-03-04 10:00", UTC), name_iso,
 * and (serve only: a static page does not age) name_ago to how long
 * ago, for a tooltip. */
void web_when_abs(struct template_data *d, const char *name, int64_t t,
    const struct web_req *rq);
/* A title shown on the list is cut after this many characters. */
#define WEB_LIST_TITLE 200
/* s cut after max characters (UTF-8), with an ellipsis; s itself when
 * short enough. */
const char *web_clip(struct arena *a, const char *s, size_t max);
/* The filters and page of rq's query (page from 1); false with *why on
 * a bad value. */
bool web_filter(struct arena *a, const struct web_req *rq,
    struct store_filter *f, size_t *page, size_t per_page_default,
    const char **why);
/* Whether an Accept-Encoding value takes gzip (not with q=0). */
bool web_accepts_gzip(const char *accept_encoding);
/* An HTTP date ("Sun, 06 Nov 1994 08:49:37 GMT", RFC 9110 5.6.7). */
enum err web_http_date(char *out, size_t n, int64_t t);
/* A positive decimal id (at most 18 digits) spanning [p, p+n). */
bool web_id(const char *p, size_t n, int64_t *id);
/* Whether url is an http or https URL safe to put in a link. */
bool web_http_url(const char *url);

/* A request header as the server received it, for web_framing(). */
struct web_hdr {
	const char *name;
	const char *value;
};
/*
 * How the n headers h (every occurrence, in order) delimit the request's
 * body: 0 when there is one reading, else the status to refuse it with
 * and *why.  Two readings are how requests are smuggled past a proxy
 * that picks the other one: Content-Length together with
 * Transfer-Encoding, Content-Length values that differ, or more than one
 * Transfer-Encoding are 400; a transfer coding other than chunked, which
 * the server would read until the client closes, is 501 (RFC 9112 6.1).
 */
int web_framing(const struct web_hdr *h, size_t n, const char **why);
/* Whether the raw (not yet percent-decoded) request target
 * [uri, uri+n) holds a NUL byte or a %00 that decoding would make one:
 * the server's C strings would cut the path short there. */
bool web_uri_nul(const char *uri, size_t n);

/* ---- webpage.c: HTML ---- */

/* What every page's head and foot use: title is the page's. */
void webpage_common(struct web *w, struct arena *a, struct template_data *d,
    const struct web_req *rq, const char *title);
/* Render page with d into rs (500 when it cannot be). */
void webpage_render(struct web *w, enum web_page page, struct template_data *d,
    struct web_resp *rs, int status);
/* A contribution's summary fields (the list's row, the page's facts). */
void webpage_summary(struct template_data *r, struct arena *a,
    const struct store_summary *s, const struct web_req *rq);

void webpage_list(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs);
void webpage_contrib(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, int64_t id);
void webpage_error(struct web *w, const struct web_req *rq, struct web_resp *rs,
    int status, const char *title, const char *text);
/* A static site's stand-in for a redirect: a page that refreshes to
 * target (and links to it, titled title). */
void webpage_moved(struct web *w, const struct web_req *rq, struct web_resp *rs,
    const char *target, const char *title);

/* ---- webapi.c: JSON, mbox, Atom ---- */

void webapi_error(struct web_resp *rs, int status, const char *msg);
void webapi_contributions(struct web *w, struct store *st,
    const struct web_req *rq, struct web_resp *rs);
void webapi_contribution(struct web *w, struct store *st,
    const struct web_req *rq, struct web_resp *rs, int64_t id);
void webapi_patch(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, int64_t id, bool checks);
void webapi_events(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs);
void webapi_trees(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs);
void webapi_mbox(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, int64_t id, int version);
void webapi_feed(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, int64_t id);

/* ---- webbody.c: request bodies (jansson) ---- */

/* A check as POST /api/checks carries it (patchwork's shape). */
struct web_check_in {
	int64_t patch; /* by id (or from the path) */
	const char *msgid; /* or by Message-ID */
	const char *state; /* pending, success, warning, fail */
	const char *context;
	const char *url; /* target_url: http(s), or NULL */
	const char *description; /* or NULL */
};
/* Parse and check a body; strings are copied into a.  false with *why
 * for a body that is not such a check.  patch: the id from the path, or
 * 0 when the body names it. */
bool webbody_check(struct arena *a, const char *body, size_t n, int64_t patch,
    struct web_check_in *in, const char **why);

/* ---- webcheck.c: POST /api/checks ---- */

/* Read the CI tokens of conf; false after logging a file that cannot be
 * read. */
bool webcheck_tokens(struct web *w);
void webcheck_post(struct web *w, const struct web_req *rq, struct web_resp *rs,
    int64_t patch);

#endif
