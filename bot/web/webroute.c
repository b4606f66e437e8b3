/*
 * The router: which handler answers which method and path, shared by
 * serve and publish; and the loading of the web templates.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/web/webmemo.h"
#include "bot/web/webpriv.h"
#include "util/log.h"
#include "util/xalloc.h"

const char *const web_headers[] = {
	"Content-Security-Policy",
	"default-src 'none'; style-src 'self'; form-action 'self'; "
	"base-uri 'none'; frame-ancestors 'none'",
	"X-Content-Type-Options",
	"nosniff",
	"Referrer-Policy",
	"same-origin",
	NULL,
};

static const struct template_builtin *
builtin(const char *name)
{
	size_t i;

	for (i = 0; i < web_nbuiltins; i++)
		if (strcmp(web_builtins[i].name, name) == 0)
			return &web_builtins[i];
	return NULL;
}

/* A page: the shared head and foot around its own template. */
static struct template *
load(const char *name, bool page)
{
	const struct template_builtin *head = builtin("head"),
	                              *foot = builtin("foot"),
	                              *body = builtin(name);
	struct buf text = BUF_INIT, why = BUF_INIT;
	struct template *t = NULL;
	char label[64];

	if (!head || !foot || !body)
		fatal("web: the built-in template %s is missing", name);
	if (page)
		buf_add(&text, head->text, head->n);
	buf_add(&text, body->text, body->n);
	if (page)
		buf_add(&text, foot->text, foot->n);
	snprintf(label, sizeof(label), "built-in:web/%s", name);
	if (template_parse(label, text.p, text.n, 1, &t, &why) != ERR_OK)
		fatal("web: %s", buf_cstr(&why));
	template_set_html(t, true);
	buf_free(&text);
	buf_free(&why);
	return t;
}

struct web *
web_new(const struct config *conf)
{
	struct web *w = xcalloc(1, sizeof(*w));
	const struct template_builtin *css = builtin("style");

	w->conf = conf;
	w->memo = webmemo_new(WEB_MEMO_BYTES);
	w->max_thread = WEB_MAX_THREAD;
	w->page[WEB_PAGE_LIST] = load("list", true);
	w->page[WEB_PAGE_CONTRIB] = load("contrib", true);
	w->page[WEB_PAGE_ERROR] = load("error", true);
	w->page[WEB_PAGE_FEED] = load("feed", false);
	if (css == NULL)
		fatal("web: the built-in stylesheet is missing");
	w->css = css->text;
	w->css_len = css->n;
	if (!webcheck_tokens(w))
		log_warn("web: POST /api/checks refuses the CIs whose token "
		         "file cannot be read");
	return w;
}

void
web_free(struct web *w)
{
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < WEB_NPAGES; i++)
		template_free(w->page[i]);
	webmemo_free(w->memo);
	for (i = 0; i < w->ntokens; i++)
		free(w->tokens[i].token);
	free(w->tokens);
	free(w);
}

void
web_resp_free(struct web_resp *rs)
{
	buf_free(&rs->body);
	free(rs->location);
	free(rs->link);
	free(rs->disposition);
	free(rs->etag);
	memset(rs, 0, sizeof(*rs));
}

/* Whether path starts with prefix; *rest gets what follows. */
static bool
under(const char *path, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);

	if (strncmp(path, prefix, n) != 0)
		return false;
	*rest = path + n;
	return true;
}

/* "ID" followed by end (or a single "/" when slash_ok). */
static bool
id_then(const char *p, const char *end, int64_t *id)
{
	size_t n = strcspn(p, "/");

	if (!web_id(p, n, id))
		return false;
	return strcmp(p + n, end) == 0;
}

static void
get(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs)
{
	const char *p = rq->path, *r;
	int64_t id;
	int v;

	if (strcmp(p, "/") == 0) {
		webpage_list(w, st, rq, rs);
	} else if (strcmp(p, "/style.css") == 0) {
		buf_add(&rs->body, w->css, w->css_len);
		rs->status = 200;
		rs->type = "text/css; charset=utf-8";
	} else if (strcmp(p, "/feed.atom") == 0) {
		webapi_feed(w, st, rq, rs, 0);
	} else if (under(p, "/m/", &r) && *r) {
		webinbox_msg(w, st, rq, rs, r);
	} else if (strcmp(p, "/api/1.2") == 0 || under(p, "/api/1.2/", &r)) {
		webpw_get(w, st, rq, rs, p + 8);
	} else if (under(p, "/project/", &r)) {
		webinbox_project(w, st, rq, rs, r);
	} else if (under(p, "/series/", &r)) {
		webinbox_series(w, st, rq, rs, r);
	} else if (under(p, "/c/", &r) &&
	    (id_then(r, "", &id) || id_then(r, "/", &id))) {
		webpage_contrib(w, st, rq, rs, id);
	} else if (under(p, "/c/", &r) && id_then(r, "/mbox", &id)) {
		webapi_mbox(w, st, rq, rs, id, 0);
	} else if (under(p, "/c/", &r) && id_then(r, "/feed.atom", &id)) {
		webapi_feed(w, st, rq, rs, id);
	} else if (under(p, "/c/", &r) && web_id(r, strcspn(r, "/"), &id) &&
	    sscanf(r + strcspn(r, "/"), "/v%d", &v) == 1 && v > 0 &&
	    v < 100000 && id_then(r, "", &id) == false) {
		char want[32];

		snprintf(want, sizeof(want), "/v%d/mbox", v);
		if (strcmp(r + strcspn(r, "/"), want) == 0)
			webapi_mbox(w, st, rq, rs, id, v);
		else
			webpage_error(w, rq, rs, 404, "Not found",
			    "There is no page at this address.");
	} else if (strcmp(p, "/api/contributions") == 0) {
		webapi_contributions(w, st, rq, rs);
	} else if (under(p, "/api/contributions/", &r) && id_then(r, "", &id)) {
		webapi_contribution(w, st, rq, rs, id);
	} else if (under(p, "/api/patches/", &r) && id_then(r, "", &id)) {
		webapi_patch(w, st, rq, rs, id, false);
	} else if (under(p, "/api/patches/", &r) &&
	    id_then(r, "/checks", &id)) {
		webapi_patch(w, st, rq, rs, id, true);
	} else if (strcmp(p, "/api/events") == 0) {
		webapi_events(w, st, rq, rs);
	} else if (strcmp(p, "/api/trees") == 0) {
		webapi_trees(w, st, rq, rs);
	} else if (strcmp(p, "/api/checks") == 0) {
		rs->allow = "POST";
		webapi_error(rs, 405, "POST a check here");
	} else if (strncmp(p, "/api/", 5) == 0) {
		webapi_error(rs, 404, "no such API endpoint");
	} else if (under(p, "/c/", &r) && webinbox_c(w, st, rq, rs, r)) {
		/* public-inbox's downloads where b4 looks for them */
	} else {
		webpage_error(w, rq, rs, 404, "Not found",
		    "There is no page at this address.");
	}
}

/* The writes of patchwork's API: POST patches/ID/checks/ and PATCH
 * (or PUT) patches/ID/; rest follows "/api/1.2/". */
static void
pw_write(struct web *w, const struct web_req *rq, struct web_resp *rs,
    const char *rest)
{
	bool post = strcmp(rq->method, "POST") == 0;
	bool patch =
	    strcmp(rq->method, "PATCH") == 0 || strcmp(rq->method, "PUT") == 0;
	const char *r;
	int64_t id;

	if (under(rest, "patches/", &r) &&
	    (id_then(r, "/checks", &id) || id_then(r, "/checks/", &id))) {
		if (post) {
			webcheck_post(w, rq, rs, id, true);
		} else {
			rs->allow = "GET, HEAD, POST";
			webpw_error(rs, 405, "Method not allowed.");
		}
	} else if (under(rest, "patches/", &r) &&
	    (id_then(r, "", &id) || id_then(r, "/", &id))) {
		if (patch) {
			webcheck_patch(w, rq, rs, id);
		} else {
			rs->allow = "GET, HEAD, PATCH, PUT";
			webpw_error(rs, 405, "Method not allowed.");
		}
	} else {
		rs->allow = "GET, HEAD";
		webpw_error(rs, 405, "Method not allowed.");
	}
}

void
web_handle(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs)
{
	const char *r;
	int64_t id;

	memset(rs, 0, sizeof(*rs));
	if (strlen(rq->path) > WEB_MAX_URL) {
		webpage_error(w, rq, rs, 414, "Address too long",
		    "This address is longer than any page's.");
	} else if (strcmp(rq->method, "GET") == 0 ||
	    strcmp(rq->method, "HEAD") == 0) {
		get(w, st, rq, rs);
	} else if (under(rq->path, "/api/1.2/", &r)) {
		pw_write(w, rq, rs, r);
	} else if (strcmp(rq->method, "POST") != 0) {
		rs->allow = "GET, HEAD, POST";
		webapi_error(rs, 405, "method not allowed");
	} else if (strcmp(rq->path, "/api/checks") == 0) {
		webcheck_post(w, rq, rs, 0, false);
	} else if (under(rq->path, "/api/patches/", &r) &&
	    id_then(r, "/checks", &id)) {
		webcheck_post(w, rq, rs, id, false);
	} else {
		rs->allow = "GET, HEAD";
		webapi_error(rs, 405, "only checks are POSTed");
	}
}
