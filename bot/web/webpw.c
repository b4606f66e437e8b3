/*
 * patchwork's REST API, version 1.2, under /api/1.2/ (docs/DESIGN.md §9): what
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

static bool
bad(struct list *l, const char *field, const char *msg)
{
	l->why = field;
	l->msg = msg;
	return false;
}

/* page and per_page.  A per_page that is no number or too big is
 * patchwork's default or maximum, as there. */
bool
webpw_paging(const struct web_req *rq, size_t *page, size_t *per_page,
    struct store_pw_filter *f)
{
	const char *v;
	int64_t n;

	*page = 1;
	*per_page = PW_PER_PAGE;
	if ((v = web_arg(rq, "per_page")) && *v && id_of(v, &n))
		*per_page = n > PW_MAX_PER_PAGE ? PW_MAX_PER_PAGE : (size_t)n;
	if ((v = web_arg(rq, "page")) && *v) {
		if (!id_of(v, &n) || n > 1000000000)
			return false;
		*page = (size_t)n;
	}
	f->limit = *per_page;
	f->offset = (*page - 1) * *per_page;
	return true;
}

static bool
paging(const struct web_req *rq, struct list *l, struct store_pw_filter *f)
{
	return webpw_paging(rq, &l->page, &l->per_page, f) ||
	    bad(l, NULL, "Invalid page.");
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
		enum webpw_state known;

		if (!webpw_state_parse(v[i], &known)) {
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

	if (!paging(pw->rq, l, f))
		return false;
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

/* ---- the collections ---- */

/* One request to a collection: which rows, and the rows read. */
struct ask {
	struct store_pw_filter f;
	struct list l;
	int64_t parent; /* patches/PARENT/checks/: the patch or cover letter */
	bool one; /* one object, not the list */
	size_t seen; /* a list paged here: the rows that matched so far */
	size_t n;
	bool more;
	/* The rows, of the collection's kind. */
	int64_t *ids; /* projects, users */
	struct store_pw_mail *m; /* people, comments */
	struct store_pw_series *s; /* series, covers */
	struct store_pw_patch *p;
	struct store_check *k;
	/* Comments: the page and project of what they reply to. */
	const char *page, *project;
};

/*
 * A collection: where it is, how an id names one of its objects, what
 * its list's arguments select, and how its rows are read and written.
 * answer() does the rest alike for every one: 404s, the array, the
 * errors, the Link header.
 */
struct coll {
	const char *parent; /* "patches" for patches/ID/checks/; NULL: top */
	const char *name;
	/* The object id names, into a->f; false: none.  NULL: no objects
	 * below the list. */
	bool (*key)(struct pw *pw, const char *id, struct ask *a);
	/* The list's arguments into a->f; false with a->l.why and msg. */
	bool (*filter)(struct pw *pw, struct ask *a);
	/* The rows a->f selects; ERR_NOTFOUND when the parent is not. */
	enum err (*read)(struct pw *pw, struct ask *a);
	enum err (*write)(
	    struct pw *pw, struct json *j, struct ask *a, size_t i);
};

/* A list kept in memory pages here: whether the next row that matches
 * is on the page (and if one after it, that more follow). */
static bool
on_page(struct ask *a)
{
	size_t k = a->seen++;

	if (a->f.limit && k >= a->f.offset + a->f.limit) {
		a->more = true;
		return false;
	}
	return k >= a->f.offset;
}

static bool
row_key(struct pw *pw, const char *id, struct ask *a)
{
	(void)pw;
	return id_of(id, &a->f.id);
}

static bool
page_only(struct pw *pw, struct ask *a)
{
	return paging(pw->rq, &a->l, &a->f);
}

/* projects/: an id or a link name. */
static bool
project_key(struct pw *pw, const char *id, struct ask *a)
{
	int64_t n;
	size_t i;

	for (i = 0; i < pw->nprojects; i++)
		if ((id_of(id, &n) && pw->projects[i].id == n) ||
		    ascii_stricmp(pw->projects[i].name, id) == 0) {
			a->f.id = pw->projects[i].id;
			return true;
		}
	return false;
}

static enum err
projects_read(struct pw *pw, struct ask *a)
{
	const char *q = web_arg(pw->rq, "q");
	size_t i;

	a->ids = arena_alloc(pw->a, (pw->nprojects + 1) * sizeof(*a->ids));
	for (i = 0; i < pw->nprojects; i++) {
		const struct store_pw_project *p = &pw->projects[i];

		if ((a->one ? p->id == a->f.id
		            : !(q && *q && !strstr(p->name, q))) &&
		    on_page(a))
			a->ids[a->n++] = p->id;
	}
	return ERR_OK;
}

static enum err
project_write(struct pw *pw, struct json *j, struct ask *a, size_t i)
{
	webpw_project(pw, j, a->ids[i], true);
	return ERR_OK;
}

/* Whether user id matches q (in its name or address). */
static bool
user_matches(const struct pw *pw, size_t id, const char *q)
{
	const char *name, *email;

	if (q == NULL || *q == '\0')
		return true;
	webpw_user_names(pw, id, &name, &email);
	return strstr(name, q) || strstr(email, q);
}

static bool
user_key(struct pw *pw, const char *id, struct ask *a)
{
	return id_of(id, &a->f.id) && (uint64_t)a->f.id <= webpw_nusers(pw);
}

static enum err
users_read(struct pw *pw, struct ask *a)
{
	size_t i, n = webpw_nusers(pw);

	a->ids = arena_alloc(pw->a, (n + 1) * sizeof(*a->ids));
	for (i = 1; i <= n; i++)
		if ((a->one ? (int64_t)i == a->f.id
		            : user_matches(pw, i, web_arg(pw->rq, "q"))) &&
		    on_page(a))
			a->ids[a->n++] = (int64_t)i;
	return ERR_OK;
}

static enum err
user_write(struct pw *pw, struct json *j, struct ask *a, size_t i)
{
	webpw_user(pw, j, (size_t)a->ids[i]);
	return ERR_OK;
}

static bool
people_filter(struct pw *pw, struct ask *a)
{
	if (!paging(pw->rq, &a->l, &a->f))
		return false;
	ordering(pw->rq, &a->f);
	a->f.q = web_arg(pw->rq, "q");
	return true;
}

/* people/ID/: the sender of mail row ID. */
static enum err
people_read(struct pw *pw, struct ask *a)
{
	if (!a->one)
		return store_pw_people(
		    pw->st, pw->a, &a->f, &a->m, &a->n, &a->more);
	a->m = arena_alloc(pw->a, sizeof(*a->m));
	a->n = 1;
	return store_pw_person(pw->st, pw->a, a->f.id, a->m);
}

static enum err
person_write(struct pw *pw, struct json *j, struct ask *a, size_t i)
{
	const struct store_pw_mail *m = &a->m[i];

	if (!a->one) {
		webpw_person(pw, j, m->row, m->from_name, m->from_email);
		return ERR_OK;
	}
	json_obj_begin(j);
	json_key(j, "id");
	json_int(j, m->row);
	json_key(j, "url");
	json_str(
	    j, arena_printf(pw->a, "%s/people/%" PRId64 "/", pw->api, m->row));
	json_key(j, "name");
	json_str(j, *m->from_name ? m->from_name : m->from_email);
	json_key(j, "email");
	json_str(j, m->from_email);
	json_key(j, "user");
	webpw_user(pw, j, webpw_user_of(pw, m->from_email));
	json_obj_end(j);
	return ERR_OK;
}

static bool
series_filter(struct pw *pw, struct ask *a)
{
	return common(pw, &a->f, &a->l);
}

/* The result of reading one row into a list of at most one. */
static enum err
one_row(enum err e, size_t *n)
{
	*n = e == ERR_OK;
	return e == ERR_NOTFOUND ? ERR_OK : e;
}

/* series/ID/ by its row, covers/ID/ by its cover letter's: by key. */
static enum err
series_read(struct pw *pw, struct ask *a)
{
	if (!a->one)
		return store_pw_series(
		    pw->st, pw->a, &a->f, &a->s, &a->n, &a->more);
	a->s = arena_alloc(pw->a, sizeof(*a->s));
	return one_row(
	    webpw_get_series(pw, a->f.cover ? 0 : a->f.id, a->f.cover, a->s),
	    &a->n);
}

static enum err
series_write(struct pw *pw, struct json *j, struct ask *a, size_t i)
{
	return webpw_series(pw, j, &a->s[i]);
}

static bool
patches_filter(struct pw *pw, struct ask *a)
{
	struct store_pw_filter *f = &a->f;
	const char *v;

	if (!common(pw, f, &a->l) || !state_arg(pw, f, &a->l))
		return false;
	if ((v = web_arg(pw->rq, "archived")) && *v) {
		if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
			f->none = true; /* nothing is archived */
		else if (strcmp(v, "false") && strcmp(v, "0"))
			return bad(&a->l, "archived", "Select a valid choice.");
	}
	/* Nothing is delegated. */
	if ((v = web_arg(pw->rq, "delegate")) && *v)
		f->none = true;
	if ((v = web_arg(pw->rq, "series")) && *v && !id_of(v, &f->series))
		return bad(&a->l, "series", "Select a valid choice.");
	f->msgid = msgid_arg(pw, "msgid");
	if ((v = web_arg(pw->rq, "hash")) && *v)
		f->hash = v;
	return true;
}

static enum err
patches_read(struct pw *pw, struct ask *a)
{
	if (!a->one)
		return store_pw_patches(
		    pw->st, pw->a, &a->f, &a->p, &a->n, &a->more);
	a->p = arena_alloc(pw->a, sizeof(*a->p));
	return one_row(webpw_get_patch(pw, a->f.id, a->p), &a->n);
}

static enum err
patch_write(struct pw *pw, struct json *j, struct ask *a, size_t i)
{
	return webpw_patch(pw, j, &a->p[i], a->one);
}

/* covers/ID/: a cover letter by its mail's row. */
static bool
cover_key(struct pw *pw, const char *id, struct ask *a)
{
	(void)pw;
	return id_of(id, &a->f.cover);
}

static bool
covers_filter(struct pw *pw, struct ask *a)
{
	const char *v;

	if (!common(pw, &a->f, &a->l))
		return false;
	if ((v = web_arg(pw->rq, "series")) && *v && !id_of(v, &a->f.id))
		return bad(&a->l, "series", "Select a valid choice.");
	a->f.msgid = msgid_arg(pw, "msgid");
	return true;
}

static enum err
covers_read(struct pw *pw, struct ask *a)
{
	a->f.with_cover = true;
	return series_read(pw, a);
}

static enum err
cover_write(struct pw *pw, struct json *j, struct ask *a, size_t i)
{
	return webpw_cover(pw, j, &a->s[i], a->one);
}

/* covers/ID/comments/: the replies to the whole series. */
static enum err
cover_comments_read(struct pw *pw, struct ask *a)
{
	struct store_pw_series s;
	enum err e = webpw_get_series(pw, 0, a->parent, &s);

	if (e != ERR_OK)
		return e;
	a->page = webpw_page(pw, "cover", s.project, s.cover_msgid);
	return store_pw_comments(
	    pw->st, pw->a, s.id, 0, &a->f, &a->m, &a->n, &a->more);
}

static enum err
patch_comments_read(struct pw *pw, struct ask *a)
{
	struct store_pw_patch p;
	enum err e = webpw_get_patch(pw, a->parent, &p);

	if (e != ERR_OK)
		return e;
	a->page = webpw_page(pw, "patch", p.project, p.msgid);
	a->project = p.project;
	return store_pw_comments(
	    pw->st, pw->a, p.series_id, p.id, &a->f, &a->m, &a->n, &a->more);
}

static enum err
comment_write(struct pw *pw, struct json *j, struct ask *a, size_t i)
{
	return webpw_comment(pw, j, &a->m[i], a->page, a->project);
}

static bool
checks_filter(struct pw *pw, struct ask *a)
{
	const char *v;

	if (!paging(pw->rq, &a->l, &a->f) || !when(pw->rq, &a->f, &a->l))
		return false;
	ordering(pw->rq, &a->f);
	if ((v = web_arg(pw->rq, "state")) && *v)
		a->f.state = v;
	if ((v = web_arg(pw->rq, "context")) && *v)
		a->f.context = v;
	return true;
}

/* patches/ID/checks/: the patch's and its whole series'. */
static enum err
checks_read(struct pw *pw, struct ask *a)
{
	struct store_pw_patch p;
	enum err e = webpw_get_patch(pw, a->parent, &p);

	if (e != ERR_OK)
		return e;
	return store_pw_checks(
	    pw->st, pw->a, p.id, p.series_id, &a->f, &a->k, &a->n, &a->more);
}

static enum err
check_write(struct pw *pw, struct json *j, struct ask *a, size_t i)
{
	/* A check of the whole series, shown with this patch. */
	a->k[i].patch_id = a->parent;
	webpw_check(pw, j, &a->k[i], false);
	return ERR_OK;
}

static const struct coll colls[] = {
	{ NULL, "projects", project_key, page_only, projects_read,
	    project_write },
	{ NULL, "people", row_key, people_filter, people_read, person_write },
	{ NULL, "users", user_key, page_only, users_read, user_write },
	{ NULL, "series", row_key, series_filter, series_read, series_write },
	{ NULL, "patches", row_key, patches_filter, patches_read, patch_write },
	{ NULL, "covers", cover_key, covers_filter, covers_read, cover_write },
	{ "covers", "comments", NULL, page_only, cover_comments_read,
	    comment_write },
	{ "patches", "comments", NULL, page_only, patch_comments_read,
	    comment_write },
	{ "patches", "checks", row_key, checks_filter, checks_read,
	    check_write },
};

static const struct coll *
coll_of(const char *parent, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(colls) / sizeof(colls[0]); i++)
		if (strcmp(colls[i].name, name) == 0 &&
		    (parent ? colls[i].parent &&
		                strcmp(colls[i].parent, parent) == 0
		            : colls[i].parent == NULL))
			return &colls[i];
	return NULL;
}

/* GET of collection c (below object parent, when it is nested): the
 * object id, or without one a page of the list. */
static void
answer(struct pw *pw, struct web_resp *rs, const struct coll *c,
    const char *parent, const char *id)
{
	const char *url;
	struct json j;
	struct ask a;
	size_t i;
	enum err e;

	memset(&a, 0, sizeof(a));
	a.one = id != NULL;
	if ((parent && !id_of(parent, &a.parent)) ||
	    (id && (c->key == NULL || !c->key(pw, id, &a)))) {
		not_found(rs);
		return;
	}
	if (!id && !c->filter(pw, &a)) {
		refused(rs, &a.l);
		return;
	}
	e = c->read(pw, &a);
	if (e == ERR_NOTFOUND || (e == ERR_OK && id && a.n == 0)) {
		not_found(rs);
		return;
	}
	json_init(&j, &rs->body, false);
	if (!id)
		json_arr_begin(&j);
	for (i = 0; i < a.n && e == ERR_OK; i++)
		e = c->write(pw, &j, &a, i);
	if (!id)
		json_arr_end(&j);
	if (e != ERR_OK) {
		unreadable(rs);
		return;
	}
	done(rs);
	if (id)
		return;
	url = parent ? arena_printf(pw->a, "%s/%s/%" PRId64 "/%s/", pw->api,
	                   c->parent, a.parent, c->name)
	             : arena_printf(pw->a, "%s/%s/", pw->api, c->name);
	webpw_links(pw, rs, url, a.l.page, a.l.per_page, a.more);
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
	const struct coll *c;
	struct pw pw;

	if (!webpw_init(&pw, w, st, rq, a))
		unreadable(rs);
	else if (n == 0)
		index_of(&pw, rs);
	else if (n > 4)
		not_found(rs);
	else if (n <= 2 && (c = coll_of(NULL, seg[0])) != NULL)
		answer(&pw, rs, c, NULL, seg[1]);
	else if (n <= 2 && strcmp(seg[0], "bundles") == 0)
		bundles(&pw, rs, seg[1]);
	else if (n == 1 && strcmp(seg[0], "events") == 0)
		webpw_events(&pw, rs);
	else if (n >= 3 && (c = coll_of(seg[0], seg[2])) != NULL)
		answer(&pw, rs, c, seg[1], seg[3]);
	else
		not_found(rs);
	arena_free(a);
}
