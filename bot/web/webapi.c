/*
 * The machine-readable side: JSON (docs/DESIGN.md §9 and §12, written by
 * util/json.c through bot/workflow/show.c's writers, so that the API and
 * `show --json` cannot drift apart), mbox for git am, and Atom
 * (RFC 4287) through the feed template.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/web/webpriv.h"
#include "bot/workflow/am.h"
#include "bot/workflow/show.h"
#include "bot/workflow/trees.h"
#include "storage/store_read.h"
#include "util/esc.h"
#include "util/json.h"
#include "util/timeutil.h"

void
webapi_error(struct web_resp *rs, int status, const char *msg)
{
	struct json j;

	buf_reset(&rs->body);
	json_init(&j, &rs->body, false);
	json_obj_begin(&j);
	json_key(&j, "error");
	json_str(&j, msg);
	json_obj_end(&j);
	buf_addc(&rs->body, '\n');
	rs->status = status;
	rs->type = "application/json";
}

static void
json_done(struct web_resp *rs)
{
	buf_addc(&rs->body, '\n');
	rs->status = 200;
	rs->type = "application/json";
}

/* Link: <...>; rel="next", as patchwork and GitHub page their lists. */
static void
link_header(struct web_resp *rs, const char *path, const struct buf *query,
    size_t page, size_t per_page, bool prev, bool next)
{
	struct buf b = BUF_INIT;

	if (next)
		buf_addf(&b, "<%s?%spage=%zu&per_page=%zu>; rel=\"next\"", path,
		    buf_cstr(query), page + 1, per_page);
	if (prev)
		buf_addf(&b, "%s<%s?%spage=%zu&per_page=%zu>; rel=\"prev\"",
		    b.n ? ", " : "", path, buf_cstr(query), page - 1, per_page);
	if (b.n)
		rs->link = buf_detach(&b, NULL);
	buf_free(&b);
}

static void
filter_query(const struct store_filter *f, struct buf *q)
{
	const char *names[] = { "project", "state", "submitter", "q" };
	const char *vals[] = { f->project, f->state, f->submitter, f->q };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (vals[i] == NULL)
			continue;
		buf_addf(q, "%s=", names[i]);
		esc_url(q, vals[i], strlen(vals[i]));
		buf_addc(q, '&');
	}
}

void
webapi_contributions(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs)
{
	struct arena *a = arena_new(), *ca = arena_new();
	struct store_summary *sum = NULL;
	struct store_filter f;
	struct buf q = BUF_INIT;
	struct json j;
	const char *why = NULL, *v;
	size_t n = 0, i, page;
	bool more = false, expand;
	enum err e;

	if (!web_filter(a, rq, &f, &page, WEB_PER_PAGE, &why)) {
		webapi_error(rs, 400, why);
		goto out;
	}
	e = store_web_summaries(st, a, &f, &sum, &n, &more);
	v = rq->arg(rq->cls, "expand");
	if (v && *v && strcmp(v, "series") != 0) {
		webapi_error(rs, 400, "expand: series or nothing");
		goto out;
	}
	expand = v && *v;
	json_init(&j, &rs->body, false);
	json_arr_begin(&j);
	for (i = 0; i < n && e == ERR_OK; i++) {
		struct view_contrib c;
		char path[64];

		json_obj_begin(&j);
		if (expand) {
			/* list --json's objects, every series and patch in. */
			arena_reset(ca);
			if ((e = store_read_contrib(
			         st, ca, sum[i].id, false, &c)) != ERR_OK)
				break;
			show_json_contrib_fields(&j, &c, false);
		} else {
			/* Counts: the detail URL has the rest. */
			show_json_summary_head(&j, &sum[i]);
			snprintf(path, sizeof(path),
			    rq->static_site ? "api/contributions/%" PRId64
			                      ".json"
			                    : "api/contributions/%" PRId64,
			    sum[i].id);
			json_key(&j, "url");
			json_str(&j, web_abs(w, a, rq, path));
		}
		show_json_summary_fields(&j, &sum[i]);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	if (e != ERR_OK) {
		webapi_error(rs, 503, "the database could not be read");
		goto out;
	}
	json_done(rs);
	if (f.since) {
		char iso[32];

		if (time_fmt_iso(iso, sizeof(iso), f.since) == ERR_OK)
			buf_addf(&q, "since=%s&", iso);
	}
	filter_query(&f, &q);
	if (expand)
		buf_adds(&q, "expand=series&");
	link_header(rs, web_abs(w, a, rq, "api/contributions"), &q, page,
	    f.limit, page > 1, more);
out:
	buf_free(&q);
	arena_free(ca);
	arena_free(a);
}

void
webapi_contribution(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, int64_t id)
{
	struct arena *a = arena_new();
	struct view_contrib c;
	struct json j;
	enum err e = store_read_contrib(st, a, id, true, &c);

	(void)w;
	(void)rq;
	if (e == ERR_NOTFOUND) {
		webapi_error(rs, 404, "no such contribution");
	} else if (e != ERR_OK) {
		webapi_error(rs, 503, "the database could not be read");
	} else {
		json_init(&j, &rs->body, false);
		show_json_contrib(&j, &c, true);
		json_done(rs);
	}
	arena_free(a);
}

void
webapi_patch(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, int64_t id, bool checks)
{
	struct arena *a = arena_new();
	const struct view_patch *p = NULL;
	struct view_contrib c;
	struct json j;
	int64_t series = 0, contribution = 0;
	size_t i, k;
	enum err e = store_web_patch(st, id, &series, &contribution);

	(void)w;
	(void)rq;
	if (e == ERR_OK)
		e = store_read_contrib(st, a, contribution, checks, &c);
	for (i = 0; e == ERR_OK && i < c.nseries; i++)
		for (k = 0; k < c.series[i].npatches; k++)
			if (c.series[i].patches[k].id == id)
				p = &c.series[i].patches[k];
	if (e == ERR_OK && p == NULL)
		e = ERR_NOTFOUND;
	if (e == ERR_NOTFOUND) {
		webapi_error(rs, 404, "no such patch");
	} else if (e != ERR_OK) {
		webapi_error(rs, 503, "the database could not be read");
	} else {
		json_init(&j, &rs->body, false);
		if (checks)
			show_json_checks(&j, c.checks, c.nchecks, id);
		else
			show_json_patch(&j, p);
		json_done(rs);
	}
	arena_free(a);
}

void
webapi_trees(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs)
{
	(void)w;
	(void)rq;
	if (trees_write(st, true, &rs->body) != ERR_OK) {
		webapi_error(rs, 503, "the database could not be read");
		return;
	}
	rs->status = 200;
	rs->type = "application/json";
}

void
webapi_events(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs)
{
	struct arena *a = arena_new();
	struct store_web_event *ev = NULL;
	const char *v = rq->arg(rq->cls, "since"), *l;
	int64_t since = 0, limit = 100;
	size_t n = 0, i;
	struct json j;
	char when[32];

	(void)w;
	l = rq->arg(rq->cls, "limit");
	if ((v && *v && strcmp(v, "0") != 0 && !web_id(v, strlen(v), &since)) ||
	    (l && *l && (!web_id(l, strlen(l), &limit) || limit > 500))) {
		webapi_error(rs, 400, "since: an event id; limit: 1 to 500");
		goto out;
	}
	if (store_web_events(st, a, since, (size_t)limit, &ev, &n) != ERR_OK) {
		webapi_error(rs, 503, "the database could not be read");
		goto out;
	}
	json_init(&j, &rs->body, false);
	json_arr_begin(&j);
	for (i = 0; i < n; i++) {
		json_obj_begin(&j);
		json_key(&j, "id");
		json_int(&j, ev[i].id);
		json_key(&j, "time");
		if (time_fmt_iso(when, sizeof(when), ev[i].time) == ERR_OK)
			json_str(&j, when);
		else
			json_null(&j);
		json_key(&j, "kind");
		json_str(&j, model_event_name(ev[i].kind));
		json_key(&j, "contribution");
		if (ev[i].contribution_id)
			json_int(&j, ev[i].contribution_id);
		else
			json_null(&j);
		json_key(&j, "actor");
		json_str(&j, ev[i].actor);
		json_key(&j, "detail");
		json_str(&j, ev[i].detail);
		json_key(&j, "message_id");
		json_str(&j, ev[i].message_id);
		json_key(&j, "slug");
		json_str(&j, ev[i].slug);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_done(rs);
	if (n == (size_t)limit) {
		struct buf b = BUF_INIT;

		buf_addf(&b,
		    "<%s?since=%" PRId64 "&limit=%" PRId64 ">; rel=\"next\"",
		    web_abs(w, a, rq, "api/events"), ev[n - 1].id, limit);
		rs->link = buf_detach(&b, NULL);
		buf_free(&b);
	}
out:
	arena_free(a);
}

void
webapi_mbox(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, int64_t id, int version)
{
	struct arena *a = arena_new();
	const struct view_series *s = NULL;
	struct view_contrib c;
	size_t i;
	enum err e = store_read_contrib(st, a, id, false, &c);

	(void)rq;
	if (e == ERR_OK) {
		s = version ? NULL : c.newest;
		for (i = 0; version && i < c.nseries; i++)
			if (c.series[i].version == version)
				s = &c.series[i]; /* the newest of them */
		if (s == NULL || s->npatches == 0)
			e = ERR_NOTFOUND;
	}
	if (e == ERR_OK)
		/* Anyone may fetch it and apply it: verified trailers only,
		 * as the staging tree takes them (issue 16). */
		e = am_mbox(st, w->conf, &c, s, AM_VERIFIED, &rs->body);
	if (e == ERR_NOTFOUND) {
		buf_reset(&rs->body);
		webpage_error(w, rq, rs, 404, "No such series",
		    "There is no such contribution or version.");
	} else if (e != ERR_OK) {
		buf_reset(&rs->body);
		webpage_error(w, rq, rs, 503, "Not available",
		    "The series could not be read; try again.");
	} else {
		struct buf d = BUF_INIT;

		rs->status = 200;
		rs->type = "application/mbox";
		if (version)
			buf_addf(&d,
			    "inline; filename=\"%" PRId64 "-v%d.mbox\"", id,
			    version);
		else
			buf_addf(
			    &d, "inline; filename=\"%" PRId64 ".mbox\"", id);
		rs->disposition = buf_detach(&d, NULL);
		buf_free(&d);
	}
	arena_free(a);
}

/* One feed entry's words. */
static void
entry_data(struct web *w, struct arena *a, struct template_data *ed,
    const struct store_web_event *e, const struct web_req *rq)
{
	char when[32], path[64];
	struct buf b = BUF_INIT;

	if (time_fmt_iso(when, sizeof(when), e->time) != ERR_OK)
		when[0] = '\0';
	template_data_set(ed, "time", when);
	if (w->conf->bot_url)
		template_data_setf(ed, "entry_id", "%s#event-%" PRId64,
		    web_abs(w, a, rq, "feed.atom"), e->id);
	else
		template_data_setf(
		    ed, "entry_id", "urn:patchyard:event:%" PRId64, e->id);
	template_data_setf(ed, "entry_title", "%s: %s",
	    model_event_name(e->kind),
	    e->patch_title && e->kind != EVENT_POSTED ? e->patch_title
	                                              : e->title);
	template_data_set(ed, "author", e->actor ? e->actor : "patchyard");
	snprintf(path, sizeof(path), "c/%" PRId64, e->contribution_id);
	template_data_set(ed, "url",
	    rq->static_site ? web_link(a, rq, path, true)
	                    : web_abs(w, a, rq, path));
	buf_addf(&b, "%s", model_event_name(e->kind));
	if (e->slug)
		buf_addf(&b, " %s", e->slug);
	if (e->detail)
		buf_addf(&b, ": %s", e->detail);
	if (e->actor)
		buf_addf(&b, " (by %s)", e->actor);
	template_data_set(ed, "summary", buf_cstr(&b));
	buf_free(&b);
}

void
webapi_feed(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, int64_t id)
{
	struct arena *a = arena_new();
	struct template_data *d = template_data_new();
	struct store_web_event *ev = NULL;
	struct store_summary *sum = NULL;
	struct store_filter f;
	char path[64], when[32];
	size_t n = 0, i;
	bool more;
	enum err e = ERR_OK;

	memset(&f, 0, sizeof(f));
	f.id = id;
	if (id &&
	    (e = store_web_summaries(st, a, &f, &sum, &n, &more)) == ERR_OK &&
	    n == 0)
		e = ERR_NOTFOUND;
	if (e == ERR_OK)
		e = store_web_feed(st, a, id, 50, &ev, &n);
	if (e == ERR_NOTFOUND) {
		webpage_error(w, rq, rs, 404, "No such contribution",
		    "There is no contribution with this number.");
		goto out;
	} else if (e != ERR_OK) {
		webpage_error(w, rq, rs, 503, "Not available",
		    "The database could not be read; try again.");
		goto out;
	}
	if (id)
		snprintf(path, sizeof(path), "c/%" PRId64, id);
	else
		path[0] = '\0';
	template_data_set(d, "feed_title",
	    id ? sum->title : "patchyard: new contributions and changes");
	template_data_set(d, "html_url",
	    rq->static_site ? web_link(a, rq, path, true)
	                    : web_abs(w, a, rq, path));
	if (id)
		snprintf(path, sizeof(path), "c/%" PRId64 "/feed.atom", id);
	else
		snprintf(path, sizeof(path), "feed.atom");
	template_data_set(d, "self_url", web_abs(w, a, rq, path));
	if (w->conf->bot_url)
		template_data_set(d, "feed_id", web_abs(w, a, rq, path));
	else if (id)
		template_data_setf(
		    d, "feed_id", "urn:patchyard:c:%" PRId64, id);
	else
		template_data_set(d, "feed_id", "urn:patchyard:feed");
	if (time_fmt_iso(when, sizeof(when), n ? ev[0].time : rq->now) !=
	    ERR_OK)
		when[0] = '\0';
	template_data_set(d, "updated", when);
	for (i = 0; i < n; i++)
		entry_data(w, a, template_data_add(d, "entries"), &ev[i], rq);
	buf_reset(&rs->body);
	if (template_render(w->page[WEB_PAGE_FEED], d, &rs->body) != ERR_OK) {
		webapi_error(rs, 500, "the feed could not be rendered");
		goto out;
	}
	rs->status = 200;
	rs->type = "application/atom+xml";
out:
	template_data_free(d);
	arena_free(a);
}
