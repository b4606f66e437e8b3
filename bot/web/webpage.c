/*
 * The HTML pages: the contribution list, one contribution, and the error
 * pages, each rendered from templates/web/ with every value HTML-escaped
 * by the template renderer (template_set_html).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/git/gitdiff.h"
#include "bot/web/webpriv.h"
#include "bot/workflow/show.h"
#include "parsers/mail.h"
#include "storage/store_msg.h"
#include "storage/store_read.h"
#include "storage/store_tree.h"
#include "util/esc.h"
#include "util/log.h"

void
webpage_common(struct web *w, struct arena *a, struct template_data *d,
    const struct web_req *rq, const char *title)
{
	const struct config *c = w->conf;

	template_data_set(d, "title", title);
	/* The window's title: clipped, and isolated by FSI and PDI (no
	 * element can isolate it there). */
	template_data_setf(d, "page_title", "\u2068%s\u2069",
	    web_clip(a, title, WEB_LIST_TITLE));
	template_data_set(
	    d, "site", c->nprojects == 1 ? c->projects[0].name : "patchyard");
	template_data_set(d, "css_url", web_link(a, rq, "style.css", false));
	template_data_set(d, "home_url", web_link(a, rq, "", true));
	template_data_set(d, "site_feed_url", web_link(a, rq, "feed.atom", 0));
	template_data_set(d, "api_url",
	    web_link(a, rq,
	        rq->static_site ? "api/contributions.json"
	                        : "api/contributions",
	        false));
}

void
webpage_render(struct web *w, enum web_page page, struct template_data *d,
    struct web_resp *rs, int status)
{
	buf_reset(&rs->body);
	if (template_render(w->page[page], d, &rs->body) != ERR_OK) {
		buf_reset(&rs->body);
		buf_adds(&rs->body, "internal error\n");
		rs->status = 500;
		rs->type = "text/plain; charset=utf-8";
		return;
	}
	rs->status = status;
	rs->type = "text/html; charset=utf-8";
}

void
webpage_error(struct web *w, const struct web_req *rq, struct web_resp *rs,
    int status, const char *title, const char *text)
{
	struct arena *a = arena_new();
	struct template_data *d = template_data_new();

	webpage_common(w, a, d, rq, title);
	template_data_set(d, "heading", title);
	template_data_set(d, "text", text);
	webpage_render(w, WEB_PAGE_ERROR, d, rs, status);
	template_data_free(d);
	arena_free(a);
}

void
webpage_moved(struct web *w, const struct web_req *rq, struct web_resp *rs,
    const char *target, const char *title)
{
	struct arena *a = arena_new();
	struct template_data *d = template_data_new();

	webpage_common(w, a, d, rq, title);
	template_data_set(d, "refresh_url", target);
	template_data_set(d, "heading", title);
	template_data_set(d, "text", "This message is part of a contribution:");
	template_data_set(d, "link_url", target);
	template_data_set(d, "link_text", title);
	webpage_render(w, WEB_PAGE_ERROR, d, rs, 200);
	template_data_free(d);
	arena_free(a);
}

/* ---- the list ---- */

void
webpage_summary(struct template_data *r, struct arena *a,
    const struct store_summary *s, const struct web_req *rq)
{
	char path[48];

	snprintf(path, sizeof(path), "c/%" PRId64, s->id);
	template_data_set(r, "url", web_link(a, rq, path, true));
	template_data_setf(r, "id", "%" PRId64, s->id);
	template_data_set(r, "title", s->title);
	/* A subject of 30 KB is not a row of 16,000 pixels. */
	template_data_set(
	    r, "title_short", web_clip(a, s->title, WEB_LIST_TITLE));
	template_data_set(r, "state", model_state_name(s->state));
	template_data_setf(r, "version", "%d", s->version);
	template_data_setf(r, "received", "%d", s->patch_count);
	template_data_setf(r, "expected", "%d", s->expected);
	template_data_set(r, "submitter",
	    *s->submitter_name ? s->submitter_name : s->submitter_email);
	template_data_set(r, "submitter_email", s->submitter_email);
	web_when(r, "posted", s->posted, rq);
	web_when(r, "activity", s->last_activity, rq);
	template_data_setf(r, "acks", "%d", s->acks);
	template_data_setf(r, "reviews", "%d", s->reviews);
	template_data_setf(r, "tests", "%d", s->tests);
	template_data_set(
	    r, "test_state", s->test_state ? s->test_state : "none");
}

/* The query string of the list's filters with page p. */
static const char *
page_url(struct arena *a, const struct web_req *rq,
    const struct store_filter *f, size_t p)
{
	struct buf b = BUF_INIT;
	const char *names[] = { "state", "project", "submitter", "q" };
	const char *vals[] = { f->state, f->project, f->submitter, f->q };
	const char *out;
	size_t i;

	if (rq->static_site) {
		char path[48];

		if (p == 1)
			return web_link(a, rq, "", true);
		snprintf(path, sizeof(path), "page/%zu", p);
		return web_link(a, rq, path, true);
	}
	buf_adds(&b, rq->root);
	for (i = 0; i < 4; i++) {
		if (vals[i] == NULL)
			continue;
		buf_addf(
		    &b, "%c%s=", b.n == strlen(rq->root) ? '?' : '&', names[i]);
		esc_url(&b, vals[i], strlen(vals[i]));
	}
	if (p > 1)
		buf_addf(
		    &b, "%cpage=%zu", b.n == strlen(rq->root) ? '?' : '&', p);
	out = arena_strdup(a, buf_cstr(&b));
	buf_free(&b);
	return out;
}

static void
form_data(struct web *w, struct store *st, struct arena *a,
    struct template_data *d, const struct store_filter *f)
{
	struct template_data *form = template_data_add(d, "form"), *o;
	const char **projects = NULL;
	size_t n = 0, i;

	/* Every state of the model, in its order. */
	for (i = 0; i < MODEL_NSTATES; i++) {
		const char *name = model_state_name((enum model_state)i);

		o = template_data_add(form, "states");
		template_data_set(o, "value", name);
		if (f->state && strcmp(f->state, name) == 0)
			template_data_set(o, "selected", "1");
	}
	if (store_web_projects(st, a, &projects, &n) == ERR_OK && n > 1) {
		struct template_data *pr = template_data_add(form, "projects");

		for (i = 0; i < n; i++) {
			o = template_data_add(pr, "project_options");
			template_data_set(o, "value", projects[i]);
			if (f->project && strcmp(f->project, projects[i]) == 0)
				template_data_set(o, "selected", "1");
		}
	}
	template_data_set(form, "submitter", f->submitter);
	template_data_set(form, "q", f->q);
	(void)w;
}

/* The subsystem trees merged into unstable (DESIGN.md §6), on the
 * first page of the list. */
static void
trees_data(struct store *st, struct arena *a, struct template_data *d)
{
	struct store_tree *v = NULL;
	struct template_data *t;
	size_t n = 0, i;

	if (store_tree_list(st, a, 0, &v, &n) != ERR_OK || n == 0)
		return;
	t = template_data_add(d, "trees");
	for (i = 0; i < n; i++) {
		struct template_data *r = template_data_add(t, "tree_rows");

		template_data_set(r, "name", v[i].name);
		template_data_set(
		    r, "project", store_project_name(st, v[i].project_id));
		template_data_set(r, "tree_url", v[i].url);
		template_data_set(r, "branch", v[i].branch);
		template_data_setf(
		    r, "commit", "%.12s", v[i].commit ? v[i].commit : "");
		template_data_set(r, "state", v[i].state);
		template_data_set(r, "last_error", v[i].last_error);
	}
}

void
webpage_list(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs)
{
	struct arena *a = arena_new();
	struct template_data *d = template_data_new(), *pg;
	struct store_summary *sum = NULL;
	struct store_filter f;
	const char *why = NULL;
	size_t n = 0, i, page;
	bool more = false;
	enum err e;

	if (!web_filter(a, rq, &f, &page, WEB_PER_PAGE, &why)) {
		webpage_error(w, rq, rs, 400, "Bad request", why);
		goto out;
	}
	if ((e = store_web_summaries(st, a, &f, &sum, &n, &more)) != ERR_OK) {
		webpage_error(w, rq, rs, 503, "Not available",
		    "The database could not be read; try again.");
		goto out;
	}
	webpage_common(w, a, d, rq, "Contributions");
	template_data_set(d, "feed_url", web_link(a, rq, "feed.atom", false));
	template_data_set(d, "feed_title", "New contributions and changes");
	if (!rq->static_site)
		form_data(w, st, a, d, &f);
	if (n)
		template_data_set(d, "has_rows", "1");
	for (i = 0; i < n; i++)
		webpage_summary(template_data_add(d, "rows"), a, &sum[i], rq);
	if (page == 1)
		trees_data(st, a, d);
	if (page > 1 || more) {
		pg = template_data_add(d, "paging");
		template_data_setf(pg, "page", "%zu", page);
		if (page > 1)
			template_data_set(
			    pg, "prev_url", page_url(a, rq, &f, page - 1));
		if (more)
			template_data_set(
			    pg, "next_url", page_url(a, rq, &f, page + 1));
	}
	webpage_render(w, WEB_PAGE_LIST, d, rs, 200);
out:
	template_data_free(d);
	arena_free(a);
}
