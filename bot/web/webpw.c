/*
 * patchwork's REST API, version 1.2, under /api/1.2/ (DESIGN.md §9): what
 * git-pw and the CI bots written against patchwork read.  One patchyard
 * series is one patchwork series (a contribution is one series per
 * version), our states map to patchwork's (webpw_state), and lists page
 * as patchwork's do: page and per_page (30, at most 250), a Link header
 * with rel="next", "prev" and "first".  Every path answers with or
 * without its trailing slash.  Reads need no token; the writes (a check,
 * a patch's state) are in bot/web/webcheck.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/web/webpriv.h"
#include "parsers/msgid.h"
#include "util/ascii.h"
#include "util/esc.h"
#include "util/json.h"
#include "util/timeutil.h"

/* patchwork's page sizes (REST_RESULTS_PER_PAGE and its maximum). */
#define PW_PER_PAGE 30
#define PW_MAX_PER_PAGE 250

void
webpw_error(struct web_resp *rs, int status, const char *msg)
{
	struct json j;

	buf_reset(&rs->body);
	json_init(&j, &rs->body, false);
	json_obj_begin(&j);
	json_key(&j, "detail");
	json_str(&j, msg);
	json_obj_end(&j);
	buf_addc(&rs->body, '\n');
	rs->status = status;
	rs->type = "application/json";
}

void
webpw_field_error(
    struct web_resp *rs, int status, const char *field, const char *msg)
{
	struct json j;

	buf_reset(&rs->body);
	json_init(&j, &rs->body, false);
	json_obj_begin(&j);
	json_key(&j, field);
	json_arr_begin(&j);
	json_str(&j, msg);
	json_arr_end(&j);
	json_obj_end(&j);
	buf_addc(&rs->body, '\n');
	rs->status = status;
	rs->type = "application/json";
}

/* A Host header fit to start a URL with: a name or address and a port. */
static bool
host_ok(const char *h)
{
	size_t i, n = h ? strlen(h) : 0;

	if (n == 0 || n > 255)
		return false;
	for (i = 0; i < n; i++)
		if (!ascii_isalnum(h[i]) && !strchr(".-:[]", h[i]))
			return false;
	return true;
}

bool
webpw_init(struct pw *pw, struct web *w, struct store *st,
    const struct web_req *rq, struct arena *a)
{
	const char *base = w->conf->bot_url;
	size_t n;

	memset(pw, 0, sizeof(*pw));
	pw->w = w;
	pw->st = st;
	pw->rq = rq;
	pw->a = a;
	/* Absolute URLs: bot.url, else the Host the client asked, since
	 * git-pw downloads the "mbox" URLs it is given as they are. */
	if (base) {
		n = strlen(base);
		while (n && base[n - 1] == '/')
			n--;
		pw->site = arena_strndup(a, base, n);
	} else if (host_ok(rq->host) && !rq->static_site) {
		pw->site = arena_printf(a, "http://%s", rq->host);
	} else {
		pw->site = "";
	}
	pw->api = arena_printf(a, "%s/api/1.2", pw->site);
	return store_pw_projects(st, a, &pw->projects, &pw->nprojects) ==
	    ERR_OK;
}

/* ---- query arguments ---- */

/* Every value of argument name, in order; more than max is max + 1. */
static size_t
args_of(const struct web_req *rq, const char *name, const char **v, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < rq->nargs && n <= max; i++)
		if (strcmp(rq->args[i].name, name) == 0 && n++ < max)
			v[n - 1] = rq->args[i].value;
	if (rq->nargs == 0 && max && (v[0] = web_arg(rq, name)) != NULL)
		n = 1;
	return n;
}

/* A positive id. */
static bool
id_of(const char *v, int64_t *id)
{
	return v && web_id(v, strlen(v), id);
}

struct list {
	size_t page, per_page;
	const char *why; /* a bad argument: the field */
	const char *msg;
};

/* page and per_page.  A per_page that is no number or too big is
 * patchwork's default or maximum, as there. */
static bool
paging(const struct web_req *rq, struct list *l, struct store_pw_filter *f)
{
	const char *v;
	int64_t n;

	l->page = 1;
	l->per_page = PW_PER_PAGE;
	if ((v = web_arg(rq, "per_page")) && *v && id_of(v, &n))
		l->per_page = n > PW_MAX_PER_PAGE ? PW_MAX_PER_PAGE : (size_t)n;
	if ((v = web_arg(rq, "page")) && *v) {
		if (!id_of(v, &n) || n > 1000000000)
			return false;
		l->page = (size_t)n;
	}
	f->limit = l->per_page;
	f->offset = (l->page - 1) * l->per_page;
	return true;
}

static bool
bad(struct list *l, const char *field, const char *msg)
{
	l->why = field;
	l->msg = msg;
	return false;
}

/* since and before: patchwork takes ISO 8601 dates and times. */
static bool
when(const struct web_req *rq, struct store_pw_filter *f, struct list *l)
{
	const char *v;

	if ((v = web_arg(rq, "since")) && *v) {
		if (time_parse_iso(v, &f->since) != ERR_OK)
			return bad(l, "since", "Enter a valid date/time.");
		f->has_since = true;
	}
	if ((v = web_arg(rq, "before")) && *v) {
		if (time_parse_iso(v, &f->before) != ERR_OK)
			return bad(l, "before", "Enter a valid date/time.");
		f->has_before = true;
	}
	return true;
}

/* order: the fields patchwork orders by that we keep. */
static void
ordering(const struct web_req *rq, struct store_pw_filter *f)
{
	static const char *const orders[] = { "date", "-date", "id", "-id",
		"name", "-name", NULL };
	const char *v = web_arg(rq, "order");
	size_t i;

	for (i = 0; v && orders[i]; i++)
		if (strcmp(orders[i], v) == 0)
			f->order = orders[i];
}

/* project: an id or a link name.  A project of the configuration that
 * has no mail yet selects nothing; an unknown one is patchwork's 400. */
static bool
project_arg(struct pw *pw, struct store_pw_filter *f, struct list *l)
{
	const char *v = web_arg(pw->rq, "project");
	int64_t id;
	size_t i;

	if (v == NULL || *v == '\0')
		return true;
	for (i = 0; i < pw->nprojects; i++)
		if ((id_of(v, &id) && pw->projects[i].id == id) ||
		    ascii_stricmp(pw->projects[i].name, v) == 0) {
			f->project = pw->projects[i].id;
			return true;
		}
	if (config_project(pw->w->conf, v)) {
		f->none = true;
		return true;
	}
	return bad(l, "project",
	    "Select a valid choice. That choice is not one of the available "
	    "choices.");
}

/* submitter: people by id (a row of a mail they sent) or address. */
static bool
submitter_arg(struct pw *pw, struct store_pw_filter *f, struct list *l)
{
	const char *v[16];
	struct buf b = BUF_INIT;
	size_t n = args_of(pw->rq, "submitter", v, 16), i, k;
	int64_t id;

	if (n > 16)
		return bad(l, "submitter", "At most 16 values.");
	for (i = 0; i < n; i++) {
		const char *email = v[i];
		struct store_pw_mail m;

		if (*email == '\0')
			continue;
		if (id_of(email, &id)) {
			if (store_pw_person(pw->st, pw->a, id, &m) != ERR_OK) {
				buf_free(&b);
				return bad(
				    l, "submitter", "Select a valid choice.");
			}
			email = m.from_email;
		}
		buf_addc(&b, ',');
		for (k = 0; email[k]; k++)
			buf_addc(&b, ascii_tolower(email[k]));
	}
	if (b.n) {
		buf_addc(&b, ',');
		f->submitters = arena_strdup(pw->a, buf_cstr(&b));
	}
	buf_free(&b);
	return true;
}

/* state, any number of times: patchwork's names (its slugs). */
static bool
state_arg(struct pw *pw, struct store_pw_filter *f, struct list *l)
{
	const char *v[32];
	struct buf b = BUF_INIT;
	size_t n = args_of(pw->rq, "state", v, 32), i;

	if (n > 32)
		return bad(l, "state", "At most 32 values.");
	for (i = 0; i < n; i++) {
		if (*v[i] == '\0')
			continue;
		if (!webpw_known_state(v[i])) {
			buf_free(&b);
			return bad(l, "state",
			    "Select a valid choice: new, under-review, "
			    "accepted, rejected, rfc, not-applicable, "
			    "changes-requested, awaiting-upstream, "
			    "superseded, deferred.");
		}
		buf_addf(&b, ",%s", v[i]);
	}
	if (b.n) {
		buf_addc(&b, ',');
		f->states = arena_strdup(pw->a, buf_cstr(&b));
	}
	buf_free(&b);
	return true;
}

/* A Message-ID argument, brackets optional. */
static const char *
msgid_arg(struct pw *pw, const char *name)
{
	const char *v = web_arg(pw->rq, name);
	struct str m;

	if (v == NULL || *v == '\0')
		return NULL;
	m = msgid_from_user(str_from(v));
	return m.p ? arena_strndup(pw->a, m.p, m.n) : "";
}

/* The filters every list of patches, series or covers shares. */
static bool
common(struct pw *pw, struct store_pw_filter *f, struct list *l)
{
	const char *q = web_arg(pw->rq, "q");

	memset(f, 0, sizeof(*f));
	memset(l, 0, sizeof(*l));
	if (!paging(pw->rq, l, f))
		return bad(l, NULL, "Invalid page.");
	ordering(pw->rq, f);
	f->q = q && *q ? q : NULL;
	return when(pw->rq, f, l) && project_arg(pw, f, l) &&
	    submitter_arg(pw, f, l);
}

/* ---- answers ---- */

static void
done(struct web_resp *rs)
{
	buf_addc(&rs->body, '\n');
	rs->status = 200;
	rs->type = "application/json";
}

void
webpw_links(struct pw *pw, struct web_resp *rs, const char *list, size_t page,
    size_t per_page, bool more)
{
	struct buf q = BUF_INIT, b = BUF_INIT;
	const struct web_req *rq = pw->rq;
	size_t i, k;
	const struct {
		const char *rel;
		size_t page;
		bool on;
	} rel[] = { { "next", page + 1, more }, { "prev", page - 1, page > 1 },
		{ "first", 1, true } };

	for (i = 0; i < rq->nargs; i++) {
		if (strcmp(rq->args[i].name, "page") == 0 ||
		    strcmp(rq->args[i].name, "per_page") == 0)
			continue;
		esc_url(&q, rq->args[i].name, strlen(rq->args[i].name));
		buf_addc(&q, '=');
		esc_url(&q, rq->args[i].value, strlen(rq->args[i].value));
		buf_addc(&q, '&');
	}
	for (k = 0; k < sizeof(rel) / sizeof(rel[0]); k++)
		if (rel[k].on)
			buf_addf(&b,
			    "%s<%s?%spage=%zu&per_page=%zu>; rel=\"%s\"",
			    b.n ? ", " : "", list, buf_cstr(&q), rel[k].page,
			    per_page, rel[k].rel);
	free(rs->link);
	rs->link = buf_detach(&b, NULL);
	buf_free(&b);
	buf_free(&q);
}

/* The Link header of a page of list. */
static void
links(struct pw *pw, struct web_resp *rs, const char *list,
    const struct list *l, bool more)
{
	webpw_links(pw, rs, list, l->page, l->per_page, more);
}

static void
refused(struct web_resp *rs, const struct list *l)
{
	if (l->why)
		webpw_field_error(rs, 400, l->why, l->msg);
	else
		webpw_error(rs, 404, l->msg);
}

static void
unreadable(struct web_resp *rs)
{
	webpw_error(rs, 503, "The database could not be read; try again.");
}

static void
not_found(struct web_resp *rs)
{
	webpw_error(rs, 404, "Not found.");
}

static void
index_of(struct pw *pw, struct web_resp *rs)
{
	static const char *const names[] = { "bundles", "covers", "events",
		"patches", "people", "projects", "users", "series", NULL };
	struct json j;
	size_t i;

	json_init(&j, &rs->body, false);
	json_obj_begin(&j);
	for (i = 0; names[i]; i++) {
		json_key(&j, names[i]);
		json_str(&j, arena_printf(pw->a, "%s/%s/", pw->api, names[i]));
	}
	json_obj_end(&j);
	done(rs);
}

static void
projects(struct pw *pw, struct web_resp *rs, const char *id)
{
	struct store_pw_filter f;
	struct list l;
	struct json j;
	int64_t n;
	size_t i, k = 0;

	memset(&f, 0, sizeof(f));
	memset(&l, 0, sizeof(l));
	json_init(&j, &rs->body, false);
	if (id) {
		for (i = 0; i < pw->nprojects; i++)
			if ((id_of(id, &n) && pw->projects[i].id == n) ||
			    ascii_stricmp(pw->projects[i].name, id) == 0) {
				webpw_project(pw, &j, pw->projects[i].id, true);
				done(rs);
				return;
			}
		not_found(rs);
		return;
	}
	if (!paging(pw->rq, &l, &f)) {
		webpw_error(rs, 404, "Invalid page.");
		return;
	}
	json_arr_begin(&j);
	for (i = 0; i < pw->nprojects; i++) {
		const char *q = web_arg(pw->rq, "q");

		if (q && *q && !strstr(pw->projects[i].name, q))
			continue;
		if (k++ >= f.offset && k <= f.offset + f.limit)
			webpw_project(pw, &j, pw->projects[i].id, true);
	}
	json_arr_end(&j);
	done(rs);
	links(pw, rs, arena_printf(pw->a, "%s/projects/", pw->api), &l,
	    k > f.offset + f.limit);
}

static void
people(struct pw *pw, struct web_resp *rs, const char *id)
{
	struct store_pw_mail *m = NULL, one;
	struct store_pw_filter f;
	struct list l;
	struct json j;
	size_t n = 0, i;
	int64_t row;
	bool more;
	enum err e;

	json_init(&j, &rs->body, false);
	if (id) {
		if (!id_of(id, &row) ||
		    (e = store_pw_person(pw->st, pw->a, row, &one)) ==
		        ERR_NOTFOUND) {
			not_found(rs);
			return;
		}
		if (e != ERR_OK) {
			unreadable(rs);
			return;
		}
		json_obj_begin(&j);
		json_key(&j, "id");
		json_int(&j, one.row);
		json_key(&j, "url");
		json_str(&j,
		    arena_printf(
		        pw->a, "%s/people/%" PRId64 "/", pw->api, one.row));
		json_key(&j, "name");
		json_str(&j, *one.from_name ? one.from_name : one.from_email);
		json_key(&j, "email");
		json_str(&j, one.from_email);
		json_key(&j, "user");
		webpw_user(pw, &j, webpw_user_of(pw, one.from_email));
		json_obj_end(&j);
		done(rs);
		return;
	}
	memset(&f, 0, sizeof(f));
	memset(&l, 0, sizeof(l));
	if (!paging(pw->rq, &l, &f)) {
		webpw_error(rs, 404, "Invalid page.");
		return;
	}
	ordering(pw->rq, &f);
	f.q = web_arg(pw->rq, "q");
	if (store_pw_people(pw->st, pw->a, &f, &m, &n, &more) != ERR_OK) {
		unreadable(rs);
		return;
	}
	json_arr_begin(&j);
	for (i = 0; i < n; i++)
		webpw_person(pw, &j, m[i].row, m[i].from_name, m[i].from_email);
	json_arr_end(&j);
	done(rs);
	links(pw, rs, arena_printf(pw->a, "%s/people/", pw->api), &l, more);
}

/* Whether user id matches q (in its name or address). */
static bool
user_matches(const struct pw *pw, size_t id, const char *q)
{
	const struct config *c = pw->w->conf;
	const char *name, *email;

	if (q == NULL || *q == '\0')
		return true;
	if (id <= c->nmaintainers) {
		name = c->maintainers[id - 1].name;
		email = c->maintainers[id - 1].email;
	} else {
		name = c->cis[id - c->nmaintainers - 1].name;
		email = c->cis[id - c->nmaintainers - 1].email;
	}
	return strstr(name, q) || strstr(email, q);
}

static void
users(struct pw *pw, struct web_resp *rs, const char *id)
{
	struct store_pw_filter f;
	struct list l;
	struct json j;
	int64_t n;
	size_t i, k = 0;

	json_init(&j, &rs->body, false);
	if (id) {
		if (!id_of(id, &n) || (uint64_t)n > webpw_nusers(pw)) {
			not_found(rs);
			return;
		}
		webpw_user(pw, &j, (size_t)n);
		done(rs);
		return;
	}
	memset(&f, 0, sizeof(f));
	memset(&l, 0, sizeof(l));
	if (!paging(pw->rq, &l, &f)) {
		webpw_error(rs, 404, "Invalid page.");
		return;
	}
	json_arr_begin(&j);
	for (i = 1; i <= webpw_nusers(pw); i++) {
		if (!user_matches(pw, i, web_arg(pw->rq, "q")))
			continue;
		if (k++ >= f.offset && k <= f.offset + f.limit)
			webpw_user(pw, &j, i);
	}
	json_arr_end(&j);
	done(rs);
	links(pw, rs, arena_printf(pw->a, "%s/users/", pw->api), &l,
	    k > f.offset + f.limit);
}

static void
series(struct pw *pw, struct web_resp *rs, const char *id)
{
	struct store_pw_series *s = NULL;
	struct store_pw_filter f;
	struct list l;
	struct json j;
	size_t n = 0, i;
	bool more = false;
	enum err e;

	memset(&f, 0, sizeof(f));
	memset(&l, 0, sizeof(l));
	if (id && !id_of(id, &f.id)) {
		not_found(rs);
		return;
	}
	if (!id && !common(pw, &f, &l)) {
		refused(rs, &l);
		return;
	}
	e = store_pw_series(pw->st, pw->a, &f, &s, &n, &more);
	json_init(&j, &rs->body, false);
	if (e == ERR_OK && id && n == 0) {
		not_found(rs);
		return;
	}
	if (!id)
		json_arr_begin(&j);
	for (i = 0; i < n && e == ERR_OK; i++)
		e = webpw_series(pw, &j, &s[i]);
	if (!id)
		json_arr_end(&j);
	if (e != ERR_OK) {
		unreadable(rs);
		return;
	}
	done(rs);
	if (!id)
		links(pw, rs, arena_printf(pw->a, "%s/series/", pw->api), &l,
		    more);
}

static void
patches(struct pw *pw, struct web_resp *rs, const char *id)
{
	struct store_pw_patch *p = NULL;
	struct store_pw_filter f;
	const char *v;
	struct list l;
	struct json j;
	size_t n = 0, i;
	bool more = false;
	enum err e;

	memset(&l, 0, sizeof(l));
	if (id) {
		memset(&f, 0, sizeof(f));
		if (!id_of(id, &f.id)) {
			not_found(rs);
			return;
		}
	} else {
		if (!common(pw, &f, &l) || !state_arg(pw, &f, &l)) {
			refused(rs, &l);
			return;
		}
		if ((v = web_arg(pw->rq, "archived")) && *v) {
			if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
				f.none = true; /* nothing is archived */
			else if (strcmp(v, "false") && strcmp(v, "0")) {
				webpw_field_error(rs, 400, "archived",
				    "Select a valid choice.");
				return;
			}
		}
		/* Nothing is delegated. */
		if ((v = web_arg(pw->rq, "delegate")) && *v)
			f.none = true;
		if ((v = web_arg(pw->rq, "series")) && *v &&
		    !id_of(v, &f.series)) {
			webpw_field_error(
			    rs, 400, "series", "Select a valid choice.");
			return;
		}
		f.msgid = msgid_arg(pw, "msgid");
		if ((v = web_arg(pw->rq, "hash")) && *v)
			f.hash = v;
	}
	e = store_pw_patches(pw->st, pw->a, &f, &p, &n, &more);
	if (e == ERR_OK && id && n == 0) {
		not_found(rs);
		return;
	}
	json_init(&j, &rs->body, false);
	if (!id)
		json_arr_begin(&j);
	for (i = 0; i < n && e == ERR_OK; i++)
		e = webpw_patch(pw, &j, &p[i], id != NULL);
	if (!id)
		json_arr_end(&j);
	if (e != ERR_OK) {
		unreadable(rs);
		return;
	}
	done(rs);
	if (!id)
		links(pw, rs, arena_printf(pw->a, "%s/patches/", pw->api), &l,
		    more);
}

static void
covers(struct pw *pw, struct web_resp *rs, const char *id)
{
	struct store_pw_series *s = NULL;
	struct store_pw_filter f;
	const char *v;
	struct list l;
	struct json j;
	size_t n = 0, i;
	bool more = false;
	enum err e;

	memset(&l, 0, sizeof(l));
	if (id) {
		memset(&f, 0, sizeof(f));
		if (!id_of(id, &f.cover)) {
			not_found(rs);
			return;
		}
	} else {
		if (!common(pw, &f, &l)) {
			refused(rs, &l);
			return;
		}
		if ((v = web_arg(pw->rq, "series")) && *v && !id_of(v, &f.id)) {
			webpw_field_error(
			    rs, 400, "series", "Select a valid choice.");
			return;
		}
		f.msgid = msgid_arg(pw, "msgid");
	}
	f.with_cover = true;
	e = store_pw_series(pw->st, pw->a, &f, &s, &n, &more);
	if (e == ERR_OK && id && n == 0) {
		not_found(rs);
		return;
	}
	json_init(&j, &rs->body, false);
	if (!id)
		json_arr_begin(&j);
	for (i = 0; i < n && e == ERR_OK; i++)
		e = webpw_cover(pw, &j, &s[i], id != NULL);
	if (!id)
		json_arr_end(&j);
	if (e != ERR_OK) {
		unreadable(rs);
		return;
	}
	done(rs);
	if (!id)
		links(pw, rs, arena_printf(pw->a, "%s/covers/", pw->api), &l,
		    more);
}

/* patches/ID/comments/ and covers/ID/comments/. */
static void
comments(struct pw *pw, struct web_resp *rs, bool cover, const char *id)
{
	struct store_pw_mail *m = NULL;
	struct store_pw_series s;
	struct store_pw_patch p;
	struct store_pw_filter f;
	const char *page = "", *project = NULL;
	struct list l;
	struct json j;
	int64_t n64;
	size_t n = 0, i;
	bool more = false;
	enum err e;

	memset(&f, 0, sizeof(f));
	memset(&l, 0, sizeof(l));
	if (!id_of(id, &n64)) {
		not_found(rs);
		return;
	}
	if (!paging(pw->rq, &l, &f)) {
		webpw_error(rs, 404, "Invalid page.");
		return;
	}
	if (cover) {
		e = webpw_get_series(pw, 0, n64, &s);
		if (e == ERR_OK) {
			page =
			    webpw_page(pw, "cover", s.project, s.cover_msgid);
			e = store_pw_comments(
			    pw->st, pw->a, s.id, 0, &f, &m, &n, &more);
		}
	} else {
		e = webpw_get_patch(pw, n64, &p);
		if (e == ERR_OK) {
			page = webpw_page(pw, "patch", p.project, p.msgid);
			project = p.project;
			e = store_pw_comments(pw->st, pw->a, p.series_id, p.id,
			    &f, &m, &n, &more);
		}
	}
	if (e == ERR_NOTFOUND) {
		not_found(rs);
		return;
	}
	json_init(&j, &rs->body, false);
	json_arr_begin(&j);
	for (i = 0; i < n && e == ERR_OK; i++)
		e = webpw_comment(pw, &j, &m[i], page, project);
	json_arr_end(&j);
	if (e != ERR_OK) {
		unreadable(rs);
		return;
	}
	done(rs);
	links(pw, rs,
	    arena_printf(pw->a, "%s/%s/%" PRId64 "/comments/", pw->api,
	        cover ? "covers" : "patches", n64),
	    &l, more);
}

/* patches/ID/checks/[CHECK/]. */
static void
checks(struct pw *pw, struct web_resp *rs, const char *id, const char *check)
{
	struct store_check *k = NULL;
	struct store_pw_patch p;
	struct store_pw_filter f;
	const char *v;
	struct list l;
	struct json j;
	int64_t pid;
	size_t n = 0, i;
	bool more = false;
	enum err e;

	memset(&f, 0, sizeof(f));
	memset(&l, 0, sizeof(l));
	if (!id_of(id, &pid) || (check && !id_of(check, &f.id))) {
		not_found(rs);
		return;
	}
	if (!check) {
		if (!paging(pw->rq, &l, &f)) {
			webpw_error(rs, 404, "Invalid page.");
			return;
		}
		if (!when(pw->rq, &f, &l)) {
			refused(rs, &l);
			return;
		}
		ordering(pw->rq, &f);
		if ((v = web_arg(pw->rq, "state")) && *v)
			f.state = v;
		if ((v = web_arg(pw->rq, "context")) && *v)
			f.context = v;
	}
	if ((e = webpw_get_patch(pw, pid, &p)) == ERR_OK)
		e = store_pw_checks(
		    pw->st, pw->a, p.id, p.series_id, &f, &k, &n, &more);
	if (e == ERR_NOTFOUND || (e == ERR_OK && check && n == 0)) {
		not_found(rs);
		return;
	}
	if (e != ERR_OK) {
		unreadable(rs);
		return;
	}
	json_init(&j, &rs->body, false);
	if (!check)
		json_arr_begin(&j);
	for (i = 0; i < n; i++) {
		/* A check of the whole series, shown with this patch. */
		k[i].patch_id = pid;
		webpw_check(pw, &j, &k[i], false);
	}
	if (!check)
		json_arr_end(&j);
	done(rs);
	if (!check)
		links(pw, rs,
		    arena_printf(
		        pw->a, "%s/patches/%" PRId64 "/checks/", pw->api, pid),
		    &l, more);
}

static void
bundles(struct pw *pw, struct web_resp *rs, const char *id)
{
	struct json j;

	(void)pw;
	if (id) {
		not_found(rs);
		return;
	}
	json_init(&j, &rs->body, false);
	json_arr_begin(&j);
	json_arr_end(&j);
	done(rs);
}

/* Split rest ("/patches/12/checks/") into at most four segments. */
static size_t
segments(struct arena *a, const char *rest, const char **seg)
{
	size_t n = 0, len;

	while (*rest == '/')
		rest++;
	while (*rest && n < 5) {
		len = strcspn(rest, "/");
		seg[n++] = arena_strndup(a, rest, len);
		rest += len;
		if (*rest == '/')
			rest++;
	}
	return *rest ? 5 : n;
}

void
webpw_get(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, const char *rest)
{
	struct arena *a = arena_new();
	const char *seg[5] = { NULL };
	size_t n = segments(a, rest, seg);
	struct pw pw;
	bool two = n == 2, one = n == 1;

	if (!webpw_init(&pw, w, st, rq, a))
		unreadable(rs);
	else if (n == 0)
		index_of(&pw, rs);
	else if (n > 4)
		not_found(rs);
	else if ((one || two) && strcmp(seg[0], "projects") == 0)
		projects(&pw, rs, seg[1]);
	else if ((one || two) && strcmp(seg[0], "people") == 0)
		people(&pw, rs, seg[1]);
	else if ((one || two) && strcmp(seg[0], "users") == 0)
		users(&pw, rs, seg[1]);
	else if ((one || two) && strcmp(seg[0], "series") == 0)
		series(&pw, rs, seg[1]);
	else if ((one || two) && strcmp(seg[0], "patches") == 0)
		patches(&pw, rs, seg[1]);
	else if ((one || two) && strcmp(seg[0], "covers") == 0)
		covers(&pw, rs, seg[1]);
	else if ((one || two) && strcmp(seg[0], "bundles") == 0)
		bundles(&pw, rs, seg[1]);
	else if (one && strcmp(seg[0], "events") == 0)
		webpw_events(&pw, rs);
	else if (n == 3 && strcmp(seg[2], "comments") == 0 &&
	    (strcmp(seg[0], "patches") == 0 || strcmp(seg[0], "covers") == 0))
		comments(&pw, rs, strcmp(seg[0], "covers") == 0, seg[1]);
	else if (n >= 3 && strcmp(seg[0], "patches") == 0 &&
	    strcmp(seg[2], "checks") == 0)
		checks(&pw, rs, seg[1], seg[3]);
	else
		not_found(rs);
	arena_free(a);
}
