/*
 * What the files of bot/web/ share: the loaded templates and tokens, and
 * the handlers web_handle() dispatches to.  Not for other rooms.
 */
#ifndef BOT_WEB_WEBPRIV_H
#define BOT_WEB_WEBPRIV_H

#include "bot/mailout/template.h"
#include "bot/web/web.h"
#include "parsers/command.h"
#include "storage/store_outbox.h"
#include "storage/store_pw.h"
#include "storage/store_web.h"
#include "util/arena.h"

/* util/json.h is not included here: jansson (bot/web/webbody.c) has a
 * json_null() of its own. */
struct json;

enum web_page {
	WEB_PAGE_LIST,
	WEB_PAGE_CONTRIB,
	WEB_PAGE_ERROR,
	WEB_PAGE_FEED,
	WEB_NPAGES
};

struct web_token {
	const char *ci; /* [ci "NAME"], or NULL for a maintainer */
	const char *maintainer; /* [maintainer "NAME"], or NULL for a CI */
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
	uint64_t max_thread; /* WEB_MAX_THREAD; the tests lower it */
};

/* The compiled-in templates/web/ files (scripts/embed-templates). */
extern const struct template_builtin web_builtins[];
extern const size_t web_nbuiltins;

/* ---- webutil.c: links, dates, filters ---- */

/* The local link to path ("c/12") for rq: root + path (+ "/" for a
 * page directory of a static site when dir). */
const char *web_link(
    struct arena *a, const struct web_req *rq, const char *path, bool dir);
/* An absolute URL for path when bot.url is set (serve), else the local
 * link: what Location headers and the API's links use. */
const char *web_abs(
    struct web *w, struct arena *a, const struct web_req *rq, const char *path);
/* The first value of query argument name, or NULL. */
const char *web_arg(const struct web_req *rq, const char *name);
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

/* One of libmicrohttpd's log messages, fit for a log line: its line
 * break at the end dropped, the rest through log_quote() (a message may
 * name the request's target, decoded). */
const char *web_mhd_text(char *out, size_t n, const char *msg);

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

/* A body as a form sends it (application/x-www-form-urlencoded): the
 * fields decoded into a, in order; false with *why when it is not one
 * or holds more than max fields. */
bool webbody_form(struct arena *a, const char *body, size_t n, size_t max,
    struct web_arg **out, size_t *nout, const char **why);
/* A check from a form's fields, checked as webbody_check does. */
bool webbody_check_form(struct arena *a, const struct web_arg *f, size_t n,
    int64_t patch, struct web_check_in *in, const char **why);
/* A JSON object's members as strings (numbers and booleans written as
 * JSON writes them, null as NULL): what PATCH bodies carry.  false with
 * *why when the body is not a flat object. */
bool webbody_fields(struct arena *a, const char *body, size_t n, size_t max,
    struct web_arg **out, size_t *nout, const char **why);

/* ---- webcheck.c: POST /api/checks, the API's writes ---- */

/* Read the CI and maintainer tokens of conf; false after logging a file
 * that cannot be read. */
bool webcheck_tokens(struct web *w);
/* The token the Authorization header carries, or NULL. */
const struct web_token *webcheck_who(const struct web *w, const char *auth);
/* A check from a JSON or form body (patchwork's POST .../checks/);
 * pw: answer as patchwork's API (its check object and errors). */
void webcheck_post(struct web *w, const struct web_req *rq, struct web_resp *rs,
    int64_t patch, bool pw);
/* PATCH /api/1.2/patches/ID/: a maintainer changes its state. */
void webcheck_patch(struct web *w, const struct web_req *rq,
    struct web_resp *rs, int64_t patch);

/* ---- webpw*.c: patchwork's REST API 1.2 (docs/DESIGN.md §9) ---- */

/* One request's view of the API. */
struct pw {
	struct web *w;
	struct store *st;
	const struct web_req *rq;
	struct arena *a;
	const char *site; /* the site's absolute URL without the last '/',
	                     or "" (links then start with "/") */
	const char *api; /* site + "/api/1.2" */
	struct store_pw_project *projects;
	size_t nprojects;
};

/* Set up pw for rq; false when the database cannot be read. */
bool webpw_init(struct pw *pw, struct web *w, struct store *st,
    const struct web_req *rq, struct arena *a);
/* GET (and HEAD) of a path under /api/1.2. */
void webpw_get(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, const char *rest);
/* page and per_page of rq (patchwork's default and maximum), and f's
 * offset and limit from them; false when page is no page number. */
bool webpw_paging(const struct web_req *rq, size_t *page, size_t *per_page,
    struct store_pw_filter *f);
/* The Link header of page (from 1) of a list at URL list: the
 * request's own arguments, with rel="next" (when more), "prev" and
 * "first", as patchwork pages. */
void webpw_links(struct pw *pw, struct web_resp *rs, const char *list,
    size_t page, size_t per_page, bool more);
/* patchwork's error shapes: {"detail": msg}, and a field's
 * {"field": [msg]}. */
void webpw_error(struct web_resp *rs, int status, const char *msg);
void webpw_field_error(
    struct web_resp *rs, int status, const char *field, const char *msg);

/* webpwjson.c: patchwork's objects. */
/* patchwork's default states. */
enum webpw_state {
	PW_NEW,
	PW_UNDER_REVIEW,
	PW_ACCEPTED,
	PW_REJECTED,
	PW_RFC,
	PW_NOT_APPLICABLE,
	PW_CHANGES_REQUESTED,
	PW_AWAITING_UPSTREAM,
	PW_SUPERSEDED,
	PW_DEFERRED,
};
const char *webpw_state_name(enum webpw_state s);
/* Whether name is one of the states patchwork knows, and which. */
bool webpw_state_parse(const char *name, enum webpw_state *out);
/* patchwork's state of a patch of ours (man/patchyard.1 has the table). */
enum webpw_state webpw_state(
    enum model_state state, enum model_queue queue, enum model_reason reason);
/*
 * The mail command that gives a patch of ours (state, queue, reason)
 * patchwork's
 * state want (docs/DESIGN.md §9): 1 with it in *c; 0 when the patch is in
 * that state already; -1 with *why when no command does.
 */
int webpw_command(enum model_state state, enum model_queue queue,
    enum model_reason reason, const char *want, struct command *c,
    const char **why);
/* A patch's diff from its first "diff" (or "Index:", or "---" and
 * "+++") line on, as patchwork keeps it: without the diffstat. */
struct str webpw_diff(struct str d);
/* "2025-03-17T09:01:00", UTC without a zone, as patchwork writes. */
void webpw_date(struct json *j, int64_t t);
const char *webpw_project_name(const struct pw *pw, int64_t id);
/* The web page of a patch or cover letter ("patch" or "cover"), with
 * its downloads below it: "mbox/", "raw/". */
const char *webpw_page(
    struct pw *pw, const char *kind, const char *project, const char *msgid);
void webpw_project(struct pw *pw, struct json *j, int64_t id, bool full);
void webpw_person(struct pw *pw, struct json *j, int64_t row, const char *name,
    const char *email);
/* The users: the maintainers, then the CIs, numbered from 1. */
size_t webpw_nusers(const struct pw *pw);
/* User id's (1 to webpw_nusers()) name and address. */
void webpw_user_names(
    const struct pw *pw, size_t id, const char **name, const char **email);
void webpw_user(struct pw *pw, struct json *j, size_t id);
/* The user a label (a name or address, as events and checks record
 * them) is, or 0. */
size_t webpw_user_of(const struct pw *pw, const char *label);
void webpw_patch_embed(
    struct pw *pw, struct json *j, const struct store_pw_patch *p);
void webpw_series_embed(
    struct pw *pw, struct json *j, const struct store_pw_series *s);
void webpw_cover_embed(
    struct pw *pw, struct json *j, const struct store_pw_series *s);
void webpw_check(
    struct pw *pw, struct json *j, const struct store_check *k, bool embedded);
/* A patch, a series, a cover letter (detail: with its mail's headers
 * and text), a reply about page (a patch's or cover's web page). */
enum err webpw_patch(
    struct pw *pw, struct json *j, const struct store_pw_patch *p, bool detail);
enum err webpw_series(
    struct pw *pw, struct json *j, const struct store_pw_series *s);
enum err webpw_cover(struct pw *pw, struct json *j,
    const struct store_pw_series *s, bool detail);
enum err webpw_comment(struct pw *pw, struct json *j,
    const struct store_pw_mail *m, const char *page, const char *project);
/* The first patch or series f selects; ERR_NOTFOUND when none. */
enum err webpw_first_patch(
    struct pw *pw, const struct store_pw_filter *f, struct store_pw_patch *p);
enum err webpw_first_series(
    struct pw *pw, const struct store_pw_filter *f, struct store_pw_series *s);
/* One patch or series row by id; ERR_NOTFOUND. */
enum err webpw_get_patch(struct pw *pw, int64_t id, struct store_pw_patch *p);
enum err webpw_get_series(
    struct pw *pw, int64_t id, int64_t cover, struct store_pw_series *s);

/* webpwevent.c: GET /api/1.2/events/. */
void webpw_events(struct pw *pw, struct web_resp *rs);

/* ---- webinbox.c: public-inbox's and patchwork's mail downloads ---- */

/* /m/MESSAGE-ID[/|/raw|/t.mbox.gz]: rest is what follows "/m/". */
void webinbox_msg(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, const char *rest);
/* /c/MESSAGE-ID/raw and /c/MESSAGE-ID/t.mbox.gz, where b4 goes from the
 * redirect of /m/; false when rest is no such path. */
bool webinbox_c(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, const char *rest);
/* patchwork's pages: /project/P/patch/MESSAGE-ID/[mbox/|raw/],
 * /project/P/cover/MESSAGE-ID/[mbox/], /project/P/list/. */
void webinbox_project(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, const char *rest);
/* /series/ID/mbox/. */
void webinbox_series(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, const char *rest);

#endif
