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
#include "parsers/model.h"
#include "storage/store_msg.h"
#include "storage/store_read.h"
#include "storage/store_tree.h"
#include "util/esc.h"
#include "util/log.h"

/* What every page's head and foot use. */
static void
common(struct web *w, struct arena *a, struct template_data *d,
    const struct web_req *rq, const char *title)
{
	const struct config *c = w->conf;

	template_data_set(d, "title", title);
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

static void
render(struct web *w, enum web_page page, struct template_data *d,
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

	common(w, a, d, rq, title);
	template_data_set(d, "heading", title);
	template_data_set(d, "text", text);
	render(w, WEB_PAGE_ERROR, d, rs, status);
	template_data_free(d);
	arena_free(a);
}

void
webpage_moved(struct web *w, const struct web_req *rq, struct web_resp *rs,
    const char *target, const char *title)
{
	struct arena *a = arena_new();
	struct template_data *d = template_data_new();

	common(w, a, d, rq, title);
	template_data_set(d, "refresh_url", target);
	template_data_set(d, "heading", title);
	template_data_set(d, "text", "This message is part of a contribution:");
	template_data_set(d, "link_url", target);
	template_data_set(d, "link_text", title);
	render(w, WEB_PAGE_ERROR, d, rs, 200);
	template_data_free(d);
	arena_free(a);
}

/* ---- the list ---- */

static void
summary_data(struct template_data *r, struct arena *a,
    const struct store_summary *s, const struct web_req *rq)
{
	char path[48];

	snprintf(path, sizeof(path), "c/%" PRId64, s->id);
	template_data_set(r, "url", web_link(a, rq, path, true));
	template_data_setf(r, "id", "%" PRId64, s->id);
	template_data_set(r, "title", s->title);
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

	for (i = 0; i < MODEL_NSTATES; i++) {
		const char *state = model_state_name(i);

		o = template_data_add(form, "states");
		template_data_set(o, "value", state);
		if (f->state && strcmp(f->state, state) == 0)
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

/* The subsystem trees merged into unstable (docs/DESIGN.md §6), on the
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
	common(w, a, d, rq, "Contributions");
	template_data_set(d, "feed_url", web_link(a, rq, "feed.atom", false));
	template_data_set(d, "feed_title", "New contributions and changes");
	if (!rq->static_site)
		form_data(w, st, a, d, &f);
	if (n)
		template_data_set(d, "has_rows", "1");
	for (i = 0; i < n; i++)
		summary_data(template_data_add(d, "rows"), a, &sum[i], rq);
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
	render(w, WEB_PAGE_LIST, d, rs, 200);
out:
	template_data_free(d);
	arena_free(a);
}

/* ---- one contribution ---- */

/* A patch as range-diff compares it: subject, message, diff. */
static bool
patch_text(struct store *st, struct arena *a, int64_t msg_row, struct buf *out)
{
	struct mail_opts o;
	struct mail m;
	struct str rest, line;
	const char *raw;
	size_t n;

	memset(&o, 0, sizeof(o));
	if (store_msg_raw(st, a, msg_row, &raw, &n) != ERR_OK)
		return false;
	mail_parse(a, raw, n, &o, &m);
	if (m.patch == NULL)
		return false;
	rest = m.patch->diff;

	buf_adds(out, m.patch->subject ? m.patch->subject : "");
	buf_adds(out, "\n\n");
	buf_addstr(out, m.patch->message);
	buf_addc(out, '\n');
	/* Blob ids change with any base; range-diff leaves them out too. */
	while (str_nextline(&rest, &line))
		if (!str_startswith(line, "index ")) {
			buf_addstr(out, line);
			buf_addc(out, '\n');
		}
	return true;
}

/* An interdiff is shown up to this many lines per patch. */
#define WEB_MAX_DIFF_LINES 3000

static void
diff_lines(struct template_data *ch, const struct buf *diff)
{
	struct str rest = buf_str(diff), line;
	size_t k = 0;

	while (str_nextline(&rest, &line)) {
		struct template_data *l;
		const char *kind = "ctx";

		if (++k > WEB_MAX_DIFF_LINES) {
			l = template_data_add(ch, "lines");
			template_data_set(l, "k", "hunk");
			template_data_set(l, "t", "[... cut]");
			break;
		}
		if (k <= 2 &&
		    (str_startswith(line, "--- ") ||
		        str_startswith(line, "+++ ")))
			kind = "file";
		else if (str_startswith(line, "@@"))
			kind = "hunk";
		else if (line.n && line.p[0] == '+')
			kind = "add";
		else if (line.n && line.p[0] == '-')
			kind = "del";
		l = template_data_add(ch, "lines");
		template_data_set(l, "k", kind);
		template_data_setn(l, "t", line.p, line.n);
	}
}

/* The interdiff of each patch against the version it replaced, as b4
 * and patchwork show a range-diff. */
static void
changes_data(
    struct store *st, struct template_data *sd, const struct view_series *s)
{
	struct arena *a = arena_new();
	struct store_web_pred *pred = NULL;
	size_t n = 0, i, k;

	if (store_web_predecessors(st, a, s->id, &pred, &n) != ERR_OK || !n)
		goto out;
	template_data_set(sd, "has_changes", "1");
	template_data_setf(sd, "old_version", "%d", pred[0].old_version);
	for (i = 0; i < n; i++) {
		struct buf o = BUF_INIT, nw = BUF_INIT, d = BUF_INIT;
		struct template_data *ch = template_data_add(sd, "changes");
		const struct view_patch *p = NULL;

		for (k = 0; k < s->npatches; k++)
			if (s->patches[k].id == pred[i].patch_id)
				p = &s->patches[k];
		template_data_setf(ch, "number", "%d", p ? p->number : 0);
		template_data_set(ch, "ctitle", p ? p->title : "");
		if (patch_text(st, a, pred[i].old_message_row, &o) &&
		    patch_text(st, a, pred[i].message_row, &nw) &&
		    gitdiff_text(o.p, o.n, "old version", nw.p, nw.n,
		        "new version", &d) == ERR_OK &&
		    d.n) {
			template_data_set(ch, "changed", "1");
			diff_lines(ch, &d);
		}
		buf_free(&o);
		buf_free(&nw);
		buf_free(&d);
	}
out:
	arena_free(a);
}

static void
trailers_data(struct template_data *pd, const struct view_patch *p)
{
	size_t i;

	for (i = 0; i < p->ntrailers; i++) {
		const struct view_trailer *t = &p->trailers[i];
		struct template_data *td;

		if ((t->own && strcmp(t->name, "Signed-off-by") == 0) ||
		    !show_trailer_shown(p, i))
			continue;
		template_data_set(pd, "has_trailers", "1");
		td = template_data_add(pd, "trailers");
		template_data_set(td, "name", t->name);
		template_data_set(td, "value", t->value);
		if (t->verified)
			template_data_set(td, "verified", "1");
		/* How the mail that gave it authenticated, or why not. */
		template_data_set(td, "auth",
		    t->auth            ? t->auth
		        : t->auth_note ? t->auth_note
		                       : "not checked");
	}
}

static void
series_data(struct web *w, struct store *st, struct arena *a,
    struct template_data *d, const struct view_contrib *c,
    const struct view_series *s, const struct web_req *rq)
{
	struct template_data *sd = template_data_add(d, "series");
	char path[64];
	size_t i;

	template_data_setf(sd, "version", "%d", s->version);
	template_data_set(sd, "state", model_state_name(s->state));
	template_data_setf(sd, "received", "%d", s->received);
	template_data_setf(sd, "expected", "%d", s->expected);
	if (s->complete)
		template_data_set(sd, "complete", "1");
	web_when(sd, "date", s->date, rq);
	template_data_set(sd, "message_id", s->message_id);
	template_data_set(sd, "archive_url",
	    web_archive(a, w->conf, c->project, s->message_id));
	template_data_set(sd, "base", s->base_commit);
	snprintf(
	    path, sizeof(path), "c/%" PRId64 "/v%d/mbox", c->id, s->version);
	template_data_set(sd, "mbox_url", web_link(a, rq, path, false));
	for (i = 0; i < s->npatches; i++) {
		const struct view_patch *p = &s->patches[i];
		struct template_data *pd = template_data_add(sd, "patches");

		template_data_setf(pd, "pid", "%" PRId64, p->id);
		template_data_setf(pd, "number", "%d", p->number);
		template_data_set(pd, "ptitle", p->title);
		template_data_set(pd, "archive_url",
		    web_archive(a, w->conf, c->project, p->message_id));
		template_data_set(pd, "pstate", model_state_name(p->state));
		template_data_set(pd, "queue", model_queue_name(p->queue));
		template_data_set(pd, "reason", model_reason_name(p->reason));
		if (p->conflict)
			template_data_set(pd, "conflict", "1");
		if (strcmp(p->author_email, s->submitter_email) != 0)
			template_data_setf(pd, "author", "%s <%s>",
			    p->author_name, p->author_email);
		template_data_set(pd, "slug", p->slug);
		template_data_set(pd, "auth", p->auth);
		template_data_set(
		    pd, "auth_note", p->auth ? NULL : p->auth_note);
		if (p->msgid_reused)
			template_data_set(pd, "reused", "1");
		template_data_set(pd, "patch_id", p->patch_id);
		if (p->patch_id)
			template_data_setn(pd, "patch_id_short", p->patch_id,
			    strnlen(p->patch_id, 12));
		trailers_data(pd, p);
	}
	if (s->version > 1)
		changes_data(st, sd, s);
}

static const char *
patch_label(struct arena *a, const struct view_contrib *c, int64_t patch)
{
	size_t i, k;

	for (i = 0; i < c->nseries; i++)
		for (k = 0; k < c->series[i].npatches; k++) {
			const struct view_patch *p = &c->series[i].patches[k];

			if (p->id != patch)
				continue;
			return arena_strdup(a, p->slug);
		}
	return "";
}

static void
history_data(struct web *w, struct arena *a, struct template_data *d,
    const struct view_contrib *c, const struct web_req *rq)
{
	size_t i;

	for (i = 0; i < c->nchecks; i++) {
		const struct store_check *k = &c->checks[i];
		struct template_data *kd = template_data_add(d, "checks");

		template_data_set(d, "has_checks", "1");
		template_data_set(kd, "patch", patch_label(a, c, k->patch_id));
		template_data_set(kd, "context", k->context);
		template_data_set(kd, "state", k->state);
		template_data_set(kd, "summary", k->summary);
		template_data_set(kd, "reporter", k->reporter);
		/* Set even when empty: the page's own url is in scope. */
		template_data_set(
		    kd, "url", k->url && web_http_url(k->url) ? k->url : NULL);
		web_when(kd, "time", k->time, rq);
	}
	/* Newest first, as people read a timeline on a page. */
	for (i = c->nevents; i-- > 0;) {
		const struct view_event *e = &c->events[i];
		struct template_data *ed = template_data_add(d, "events");

		web_when(ed, "time", e->time, rq);
		template_data_set(ed, "kind", model_event_name(e->kind));
		template_data_set(ed, "slug", e->slug);
		template_data_set(ed, "actor", e->actor);
		template_data_set(ed, "detail", e->detail);
		template_data_set(ed, "message_id", e->message_id);
		template_data_set(ed, "archive_url",
		    web_archive(a, w->conf, c->project, e->message_id));
	}
	for (i = 0; i < c->noutbox; i++) {
		const struct store_outbox *o = &c->outbox[i];
		struct template_data *od = template_data_add(d, "outbox");
		struct str rest = str_from(o->rcpt), line;
		struct buf to = BUF_INIT;

		template_data_set(d, "has_outbox", "1");
		template_data_set(od, "event", o->kind);
		while (str_nextline(&rest, &line))
			if (line.n) {
				if (to.n)
					buf_adds(&to, ", ");
				buf_addstr(&to, line);
			}
		template_data_set(od, "to", buf_cstr(&to));
		buf_free(&to);
		template_data_set(od, "state", o->state);
		template_data_setf(od, "attempts", "%d", o->attempts);
		template_data_set(od, "last_error", o->last_error);
	}
}

void
webpage_contrib(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, int64_t id)
{
	struct arena *a = arena_new();
	struct template_data *d = template_data_new();
	struct store_summary *sum = NULL;
	struct store_filter f;
	struct view_contrib c;
	char path[64];
	size_t n = 0, i;
	bool more;
	enum err e;

	memset(&f, 0, sizeof(f));
	f.id = id;
	e = store_web_summaries(st, a, &f, &sum, &n, &more);
	if (e == ERR_OK && n == 0)
		e = ERR_NOTFOUND;
	if (e == ERR_OK)
		e = store_read_contrib(st, a, id, true, &c);
	if (e == ERR_NOTFOUND) {
		webpage_error(w, rq, rs, 404, "No such contribution",
		    "There is no contribution with this number.");
		goto out;
	} else if (e != ERR_OK) {
		webpage_error(w, rq, rs, 503, "Not available",
		    "The database could not be read; try again.");
		goto out;
	}
	common(w, a, d, rq, sum->title);
	summary_data(d, a, sum, rq);
	template_data_set(d, "project", c.project);
	snprintf(path, sizeof(path), "c/%" PRId64 "/feed.atom", id);
	template_data_set(d, "feed_url", web_link(a, rq, path, false));
	template_data_set(d, "feed_title", sum->title);
	snprintf(path, sizeof(path), "c/%" PRId64 "/mbox", id);
	template_data_set(d, "mbox_url", web_link(a, rq, path, false));
	snprintf(path, sizeof(path),
	    rq->static_site ? "api/contributions/%" PRId64 ".json"
	                    : "api/contributions/%" PRId64,
	    id);
	template_data_set(d, "json_url", web_link(a, rq, path, false));
	if (*sum->submitter_name)
		template_data_set(d, "submitter", sum->submitter_name);
	for (i = c.nseries; i-- > 0;)
		series_data(w, st, a, d, &c, &c.series[i], rq);
	history_data(w, a, d, &c, rq);
	render(w, WEB_PAGE_CONTRIB, d, rs, 200);
out:
	template_data_free(d);
	arena_free(a);
}
