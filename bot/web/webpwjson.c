/*
 * patchwork's objects, as its REST API 1.2 writes them
 * (docs/api/schemas/v1.2/patchwork.yaml in patchwork): projects, people,
 * users, patches, series, cover letters, comments and checks, whole and
 * embedded, with patchwork's field names, through util/json.c.  What
 * differs and why is in docs/DESIGN.md §9 and man/patchyard.1 (WEB).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bot/web/webpriv.h"
#include "parsers/mail.h"
#include "parsers/msgid.h"
#include "storage/store_msg.h"
#include "util/ascii.h"
#include "util/esc.h"
#include "util/json.h"
#include "util/timeutil.h"

/* patchwork's default states (its fixtures, and git-pw's list), in the
 * order of enum webpw_state. */
static const char *const pw_states[] = { "new", "under-review", "accepted",
	"rejected", "rfc", "not-applicable", "changes-requested",
	"awaiting-upstream", "superseded", "deferred", NULL };

const char *
webpw_state_name(enum webpw_state s)
{
	return pw_states[s];
}

bool
webpw_state_parse(const char *name, enum webpw_state *out)
{
	size_t i;

	for (i = 0; name && pw_states[i]; i++)
		if (strcmp(pw_states[i], name) == 0) {
			*out = (enum webpw_state)i;
			return true;
		}
	return false;
}

/* Our states in patchwork's words (docs/DESIGN.md §9, man/patchyard.1):
 * storage/sql.c's PW_STATE says the same for the lists' filters. */
enum webpw_state
webpw_state(
    enum model_state state, enum model_queue queue, enum model_reason reason)
{
	switch (state) {
	case STATE_STAGED:
		return queue == QUEUE_STABLE ? PW_ACCEPTED : PW_UNDER_REVIEW;
	case STATE_MERGED:
		return PW_ACCEPTED;
	case STATE_DROPPED:
		return reason == REASON_TO_BE_UPDATED ? PW_CHANGES_REQUESTED
		    : reason == REASON_WITHDRAWN      ? PW_NOT_APPLICABLE
		                                      : PW_REJECTED;
	case STATE_SUPERSEDED:
		return PW_SUPERSEDED;
	case STATE_CHANGES_REQUESTED:
		return PW_CHANGES_REQUESTED;
	case STATE_REJECTED:
		return PW_REJECTED;
	default: /* new; a patch is never partial */
		return PW_NEW;
	}
}

int
webpw_command(enum model_state state, enum model_queue queue,
    enum model_reason reason, const char *want, struct command *c,
    const char **why)
{
	bool staged = state == STATE_STAGED;
	enum webpw_state w;

	memset(c, 0, sizeof(*c));
	*why = NULL;
	if (!webpw_state_parse(want, &w)) {
		*why = "not one of patchwork's states";
		return -1;
	}
	if (webpw_state(state, queue, reason) == w)
		return 0;
	switch (w) {
	case PW_UNDER_REVIEW:
		if (staged) {
			*why = "accepted (in the stable queue) is past "
			       "under-review: drop the patch and stage it "
			       "again";
			return -1;
		}
		c->verb = CMD_STAGE;
		c->line = "#yard stage";
		return 1;
	case PW_ACCEPTED:
		if (!staged) {
			*why = "accepted is #yard graduate, of a patch in the "
			       "unstable queue: stage it first "
			       "(under-review)";
			return -1;
		}
		c->verb = CMD_GRADUATE;
		c->line = "#yard graduate";
		return 1;
	case PW_REJECTED:
	case PW_CHANGES_REQUESTED:
		if (staged) {
			c->verb = CMD_DROP;
			c->reason = w == PW_REJECTED ? REASON_NACKED
			                             : REASON_TO_BE_UPDATED;
			c->arg = model_reason_name(c->reason);
			c->line = w == PW_REJECTED ? "#yard drop nacked"
			                           : "#yard drop to-be-updated";
		} else {
			c->verb = CMD_STATE;
			c->state = w == PW_REJECTED ? STATE_REJECTED
			                            : STATE_CHANGES_REQUESTED;
			c->arg = model_state_name(c->state);
			c->line = w == PW_REJECTED
			    ? "#yard state rejected"
			    : "#yard state changes-requested";
		}
		return 1;
	case PW_NEW:
		c->verb = CMD_STATE;
		c->state = STATE_NEW;
		c->arg = model_state_name(c->state);
		c->line = "#yard state new";
		return 1;
	default:
		break;
	}
	*why = "patchyard has no command that makes a patch that: it "
	       "takes new, under-review, accepted, changes-requested "
	       "and rejected";
	return -1;
}

struct str
webpw_diff(struct str d)
{
	struct str rest = d, line, after, next;
	const char *at;

	for (;;) {
		at = rest.p;
		if (!str_nextline(&rest, &line))
			return d;
		after = rest;
		if (str_startswith(line, "diff ") ||
		    str_startswith(line, "Index: ") ||
		    (str_startswith(line, "--- ") &&
		        str_nextline(&after, &next) &&
		        str_startswith(next, "+++ ")))
			return str_make(at, d.n - (size_t)(at - d.p));
	}
}

void
webpw_date(struct json *j, int64_t t)
{
	char iso[32];
	size_t n;

	if (time_fmt_iso(iso, sizeof(iso), t) != ERR_OK) {
		json_null(j);
		return;
	}
	n = strlen(iso);
	if (n && iso[n - 1] == 'Z')
		iso[n - 1] = '\0';
	json_str(j, iso);
}

const char *
webpw_project_name(const struct pw *pw, int64_t id)
{
	size_t i;

	for (i = 0; i < pw->nprojects; i++)
		if (pw->projects[i].id == id)
			return pw->projects[i].name;
	return NULL;
}

/* A path segment of s, percent-encoded. */
static const char *
segment(struct pw *pw, const char *s, bool msgid)
{
	struct buf b = BUF_INIT;
	const char *out;

	if (msgid)
		msgid_urlencode(&b, str_from(s));
	else
		esc_url(&b, s, strlen(s));
	out = arena_strdup(pw->a, buf_cstr(&b));
	buf_free(&b);
	return out;
}

const char *
webpw_page(
    struct pw *pw, const char *kind, const char *project, const char *msgid)
{
	return arena_printf(pw->a, "%s/project/%s/%s/%s/", pw->site,
	    segment(pw, project && *project ? project : "-", false), kind,
	    segment(pw, msgid, true));
}

static void
key_str(struct json *j, const char *key, const char *v)
{
	json_key(j, key);
	json_str(j, v);
}

static void
key_int(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_int(j, v);
}

/* An API URL: <api>/<what>/<id>/<tail>. */
static void
key_url(struct pw *pw, struct json *j, const char *key, const char *what,
    int64_t id, const char *tail)
{
	json_key(j, key);
	json_str(j,
	    arena_printf(
	        pw->a, "%s/%s/%" PRId64 "/%s", pw->api, what, id, tail));
}

/* "<id>", as patchwork keeps a Message-ID. */
static void
key_msgid(struct pw *pw, struct json *j, const char *msgid)
{
	json_key(j, "msgid");
	json_str(j, msgid ? arena_printf(pw->a, "<%s>", msgid) : NULL);
}

static void
key_archive(
    struct pw *pw, struct json *j, const char *project, const char *msgid)
{
	json_key(j, "list_archive_url");
	json_str(j, web_archive(pw->a, pw->w->conf, project, msgid));
}

/* The archive's address, and its format with patchwork's "{}". */
static void
archive_fields(struct json *j, struct arena *a, const struct conf_project *pr)
{
	const char *pct = pr && pr->archive ? strstr(pr->archive, "%s") : NULL;

	json_key(j, "list_archive_url");
	json_str(j,
	    pct ? arena_strndup(a, pr->archive, (size_t)(pct - pr->archive))
	        : NULL);
	json_key(j, "list_archive_url_format");
	json_str(j,
	    pct ? arena_printf(a, "%.*s{}%s", (int)(pct - pr->archive),
	              pr->archive, pct + 2)
	        : NULL);
}

void
webpw_project(struct pw *pw, struct json *j, int64_t id, bool full)
{
	const char *name = webpw_project_name(pw, id);
	const struct conf_project *pr =
	    name ? config_project(pw->w->conf, name) : NULL;
	const char *list = pr ? pr->list : "", *at = strchr(list, '@');
	size_t i;

	if (name == NULL) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	key_int(j, "id", id);
	key_url(pw, j, "url", "projects", id, "");
	key_str(j, "name", name);
	key_str(j, "link_name", name);
	/* A List-Id as the list's address makes it (RFC 2919). */
	key_str(j, "list_id",
	    at ? arena_printf(pw->a, "%.*s.%s", (int)(at - list), list, at + 1)
	       : list);
	key_str(j, "list_email", list);
	key_str(j, "web_url",
	    arena_printf(pw->a, "%s/project/%s/list/", pw->site,
	        segment(pw, name, false)));
	key_str(j, "scm_url", pr && pr->upstream ? pr->upstream : "");
	key_str(j, "webscm_url", "");
	archive_fields(j, pw->a, pr);
	key_str(j, "commit_url_format", "");
	if (full) {
		key_str(j, "subject_match", "");
		json_key(j, "maintainers");
		json_arr_begin(j);
		for (i = 0; i < pw->w->conf->nmaintainers; i++) {
			const char *mp = pw->w->conf->maintainers[i].project;

			if (mp == NULL || strcmp(mp, name) == 0)
				webpw_user(pw, j, i + 1);
		}
		json_arr_end(j);
	}
	json_obj_end(j);
}

void
webpw_person(struct pw *pw, struct json *j, int64_t row, const char *name,
    const char *email)
{
	json_obj_begin(j);
	key_int(j, "id", row);
	key_url(pw, j, "url", "people", row, "");
	key_str(j, "name", name && *name ? name : email);
	key_str(j, "email", email);
	json_obj_end(j);
}

size_t
webpw_nusers(const struct pw *pw)
{
	return pw->w->conf->nmaintainers + pw->w->conf->ncis;
}

void
webpw_user_names(
    const struct pw *pw, size_t id, const char **name, const char **email)
{
	const struct config *c = pw->w->conf;

	if (id <= c->nmaintainers) {
		*name = c->maintainers[id - 1].name;
		*email = c->maintainers[id - 1].email;
	} else {
		*name = c->cis[id - c->nmaintainers - 1].name;
		*email = c->cis[id - c->nmaintainers - 1].email;
	}
}

void
webpw_user(struct pw *pw, struct json *j, size_t id)
{
	const char *name, *email;

	if (id == 0 || id > webpw_nusers(pw)) {
		json_null(j);
		return;
	}
	webpw_user_names(pw, id, &name, &email);
	json_obj_begin(j);
	key_int(j, "id", (int64_t)id);
	key_url(pw, j, "url", "users", (int64_t)id, "");
	key_str(j, "username", name);
	key_str(j, "first_name", "");
	key_str(j, "last_name", "");
	key_str(j, "email", email);
	json_obj_end(j);
}

size_t
webpw_user_of(const struct pw *pw, const char *label)
{
	const struct config *c = pw->w->conf;
	size_t i;

	if (label == NULL)
		return 0;
	for (i = 0; i < c->nmaintainers; i++)
		if (strcmp(c->maintainers[i].name, label) == 0 ||
		    ascii_stricmp(c->maintainers[i].email, label) == 0)
			return i + 1;
	for (i = 0; i < c->ncis; i++)
		if (strcmp(c->cis[i].name, label) == 0 ||
		    ascii_stricmp(c->cis[i].email, label) == 0)
			return c->nmaintainers + i + 1;
	return 0;
}

/* patchwork's name of a patch or cover letter: the subject's title with
 * the prefixes it keeps, "[v3,2/3] title". */
static const char *
pw_name(struct pw *pw, const char *title, int version, int number, int expected)
{
	char v[16] = "", k[32] = "";

	if (version > 1)
		snprintf(v, sizeof(v), "v%d", version);
	if (expected > 1 || number > 1)
		snprintf(k, sizeof(k), "%d/%d", number, expected);
	if (!*v && !*k)
		return title;
	return arena_printf(
	    pw->a, "[%s%s%s] %s", v, *v && *k ? "," : "", k, title);
}

static const char *
patch_name(struct pw *pw, const struct store_pw_patch *p)
{
	return pw_name(pw, p->title, p->version, p->number, p->expected);
}

static const char *
series_mbox(struct pw *pw, int64_t id)
{
	return arena_printf(pw->a, "%s/series/%" PRId64 "/mbox/", pw->site, id);
}

void
webpw_patch_embed(struct pw *pw, struct json *j, const struct store_pw_patch *p)
{
	const char *page = webpw_page(pw, "patch", p->project, p->msgid);

	json_obj_begin(j);
	key_int(j, "id", p->id);
	key_url(pw, j, "url", "patches", p->id, "");
	key_str(j, "web_url", page);
	key_msgid(pw, j, p->msgid);
	key_archive(pw, j, p->project, p->msgid);
	json_key(j, "date");
	webpw_date(j, p->date);
	key_str(j, "name", patch_name(pw, p));
	key_str(j, "mbox", arena_printf(pw->a, "%smbox/", page));
	json_obj_end(j);
}

static const char *
series_web(struct pw *pw, const struct store_pw_series *s)
{
	return arena_printf(pw->a, "%s/project/%s/list/?series=%" PRId64,
	    pw->site, segment(pw, *s->project ? s->project : "-", false),
	    s->id);
}

void
webpw_series_embed(
    struct pw *pw, struct json *j, const struct store_pw_series *s)
{
	json_obj_begin(j);
	key_int(j, "id", s->id);
	key_url(pw, j, "url", "series", s->id, "");
	key_str(j, "web_url", series_web(pw, s));
	json_key(j, "date");
	webpw_date(j, s->date);
	key_str(j, "name", s->title);
	key_int(j, "version", s->version);
	key_str(j, "mbox", series_mbox(pw, s->id));
	json_obj_end(j);
}

void
webpw_cover_embed(
    struct pw *pw, struct json *j, const struct store_pw_series *s)
{
	const char *page = webpw_page(pw, "cover", s->project, s->cover_msgid);

	if (s->cover_row == 0) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	key_int(j, "id", s->cover_row);
	key_url(pw, j, "url", "covers", s->cover_row, "");
	key_str(j, "web_url", page);
	key_msgid(pw, j, s->cover_msgid);
	key_archive(pw, j, s->project, s->cover_msgid);
	json_key(j, "date");
	webpw_date(j, s->cover_date);
	key_str(j, "name", pw_name(pw, s->title, s->version, 0, s->expected));
	key_str(j, "mbox", arena_printf(pw->a, "%smbox/", page));
	json_obj_end(j);
}

void
webpw_check(
    struct pw *pw, struct json *j, const struct store_check *k, bool embedded)
{
	json_obj_begin(j);
	key_int(j, "id", k->id);
	json_key(j, "url");
	json_str(j,
	    arena_printf(pw->a, "%s/patches/%" PRId64 "/checks/%" PRId64 "/",
	        pw->api, k->patch_id, k->id));
	if (!embedded) {
		json_key(j, "user");
		webpw_user(pw, j, webpw_user_of(pw, k->reporter));
	}
	json_key(j, "date");
	webpw_date(j, k->time);
	key_str(j, "state", k->state);
	key_str(j, "target_url", k->url);
	key_str(j, "context", k->context);
	if (!embedded)
		key_str(j, "description", k->summary);
	json_obj_end(j);
}

/* FNV-1a of a field name, ASCII case folded. */
static uint32_t
name_hash(struct str name)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < name.n; i++)
		h = (h ^ (unsigned char)ascii_tolower(name.p[i])) * 16777619u;
	return h;
}

/*
 * The header fields of a mail as an object, as patchwork's API has
 * them: a name given more than once has the list of its values, at the
 * place of its first field (names compared ASCII case folded, the first
 * spelling kept).  Linear in the fields (a mail may have 1,000, a page
 * 250 mails): each field finds the first of its name in an open hash
 * table, and the first chains the others in order.
 */
static void
headers(struct pw *pw, struct json *j, const struct hdr *h)
{
	size_t size = 16, mask, i, k, *slot, *next, *last, *count;

	while (size < 2 * h->n)
		size *= 2;
	mask = size - 1;
	slot = arena_zalloc(pw->a, size * sizeof(*slot)); /* first + 1 */
	next = arena_alloc(pw->a, (h->n + 1) * sizeof(*next));
	last = arena_alloc(pw->a, (h->n + 1) * sizeof(*last));
	count = arena_zalloc(pw->a, (h->n + 1) * sizeof(*count));
	for (i = 0; i < h->n; i++) {
		const struct str name = h->f[i].name;

		next[i] = SIZE_MAX;
		for (k = name_hash(name) & mask;
		     slot[k] && !str_ieq(h->f[slot[k] - 1].name, name);
		     k = (k + 1) & mask)
			;
		if (slot[k] == 0) { /* the first of its name */
			slot[k] = i + 1;
			last[i] = i;
			count[i] = 1;
		} else {
			size_t first = slot[k] - 1;

			next[last[first]] = i;
			last[first] = i;
			count[first]++;
		}
	}
	json_obj_begin(j);
	for (i = 0; i < h->n; i++) {
		if (count[i] == 0)
			continue;
		json_key(
		    j, arena_strndup(pw->a, h->f[i].name.p, h->f[i].name.n));
		if (count[i] > 1)
			json_arr_begin(j);
		for (k = i; k != SIZE_MAX; k = next[k]) {
			struct str v = hdr_unfold(pw->a, h->f[k].value);

			json_strn(j, v.p, v.n);
		}
		if (count[i] > 1)
			json_arr_end(j);
	}
	json_obj_end(j);
}

/* A stored mail, parsed, into m (in pw's arena). */
static enum err
parsed(struct pw *pw, int64_t row, struct mail *m)
{
	struct mail_opts o;
	const char *raw;
	size_t n;
	enum err e = store_msg_raw(pw->st, pw->a, row, &raw, &n);

	memset(&o, 0, sizeof(o));
	o.bot_address = pw->w->conf->bot_address;
	if (e == ERR_OK)
		mail_parse(pw->a, raw, n, &o, m);
	return e;
}

/* patchwork's overall check: of each context's newest check, the
 * worst; "pending" when there is none. */
static enum err
combined_check(struct pw *pw, const struct store_pw_patch *p, const char **out)
{
	static const char *const worse[] = { "fail", "warning", "pending",
		"success" };
	struct store_pw_filter f;
	struct store_check *k = NULL;
	size_t n = 0, i, l, w;
	enum err e;

	memset(&f, 0, sizeof(f));
	*out = "pending";
	if ((e = store_pw_checks(pw->st, pw->a, p->id, p->series_id, &f, &k, &n,
	         NULL)) != ERR_OK ||
	    n == 0)
		return e;
	for (w = 0; w < 4; w++)
		for (i = 0; i < n; i++) {
			bool newest = true;

			/* Oldest first: a later check of the context wins. */
			for (l = i + 1; l < n && newest; l++)
				newest =
				    strcmp(k[l].context, k[i].context) != 0;
			if (newest && strcmp(k[i].state, worse[w]) == 0) {
				*out = worse[w];
				return ERR_OK;
			}
		}
	return ERR_OK;
}

enum err
webpw_patch(
    struct pw *pw, struct json *j, const struct store_pw_patch *p, bool detail)
{
	const char *page = webpw_page(pw, "patch", p->project, p->msgid);
	struct store_pw_series s;
	const char *check;
	struct mail m;
	bool in_series;
	enum err e = webpw_get_series(pw, p->series_id, 0, &s);

	if ((in_series = e == ERR_OK) || e == ERR_NOTFOUND)
		e = combined_check(pw, p, &check);
	if (e != ERR_OK)
		return e;
	if (detail && (e = parsed(pw, p->message_row, &m)) != ERR_OK)
		return e;
	json_obj_begin(j);
	key_int(j, "id", p->id);
	key_url(pw, j, "url", "patches", p->id, "");
	key_str(j, "web_url", page);
	json_key(j, "project");
	webpw_project(pw, j, p->project_id, false);
	key_msgid(pw, j, p->msgid);
	key_archive(pw, j, p->project, p->msgid);
	json_key(j, "date");
	webpw_date(j, p->date);
	key_str(j, "name", patch_name(pw, p));
	key_str(j, "commit_ref", p->commit_ref);
	key_str(j, "pull_url", NULL);
	key_str(j, "state", p->pw_state);
	json_key(j, "archived");
	json_bool(j, false);
	key_str(j, "hash", p->hash);
	json_key(j, "submitter");
	webpw_person(pw, j, p->message_row, p->from_name, p->from_email);
	json_key(j, "delegate");
	json_null(j);
	key_str(j, "mbox", arena_printf(pw->a, "%smbox/", page));
	json_key(j, "series");
	json_arr_begin(j);
	if (in_series)
		webpw_series_embed(pw, j, &s);
	json_arr_end(j);
	key_url(pw, j, "comments", "patches", p->id, "comments/");
	key_str(j, "check", check);
	key_url(pw, j, "checks", "patches", p->id, "checks/");
	json_key(j, "tags");
	json_obj_begin(j);
	json_obj_end(j);
	json_key(j, "related");
	json_arr_begin(j);
	json_arr_end(j);
	if (detail) {
		json_key(j, "headers");
		headers(pw, j, &m.hdr);
		json_key(j, "content");
		if (m.patch)
			json_strn(j, m.patch->message.p, m.patch->message.n);
		else
			json_strn(j, m.text.p, m.text.n);
		json_key(j, "diff");
		if (m.patch) {
			struct str d = webpw_diff(m.patch->diff);

			json_strn(j, d.p, d.n);
		} else {
			json_null(j);
		}
		json_key(j, "prefixes");
		json_arr_begin(j);
		if (p->version > 1)
			json_str(j, arena_printf(pw->a, "v%d", p->version));
		if (p->expected > 1)
			json_str(j,
			    arena_printf(
			        pw->a, "%d/%d", p->number, p->expected));
		json_arr_end(j);
	}
	json_obj_end(j);
	return ERR_OK;
}

enum err
webpw_series(struct pw *pw, struct json *j, const struct store_pw_series *s)
{
	struct store_pw_patch *p = NULL;
	size_t n = 0, i;
	enum err e = store_pw_series_patches(pw->st, pw->a, s->id, &p, &n);

	if (e != ERR_OK)
		return e;
	json_obj_begin(j);
	key_int(j, "id", s->id);
	key_url(pw, j, "url", "series", s->id, "");
	key_str(j, "web_url", series_web(pw, s));
	json_key(j, "project");
	webpw_project(pw, j, s->project_id, false);
	key_str(j, "name", s->title);
	json_key(j, "date");
	webpw_date(j, s->date);
	json_key(j, "submitter");
	webpw_person(
	    pw, j, s->first_row, s->submitter_name, s->submitter_email);
	key_int(j, "version", s->version);
	key_int(j, "total", s->expected);
	key_int(j, "received_total", s->received);
	json_key(j, "received_all");
	json_bool(j, s->received >= s->expected);
	key_str(j, "mbox", series_mbox(pw, s->id));
	json_key(j, "cover_letter");
	webpw_cover_embed(pw, j, s);
	json_key(j, "patches");
	json_arr_begin(j);
	for (i = 0; i < n; i++)
		webpw_patch_embed(pw, j, &p[i]);
	json_arr_end(j);
	json_obj_end(j);
	return ERR_OK;
}

enum err
webpw_cover(
    struct pw *pw, struct json *j, const struct store_pw_series *s, bool detail)
{
	const char *page = webpw_page(pw, "cover", s->project, s->cover_msgid);
	struct store_pw_mail sender;
	struct mail m;
	enum err e = store_pw_person(pw->st, pw->a, s->cover_row, &sender);

	if (e == ERR_OK && detail)
		e = parsed(pw, s->cover_row, &m);
	if (e != ERR_OK)
		return e;
	json_obj_begin(j);
	key_int(j, "id", s->cover_row);
	key_url(pw, j, "url", "covers", s->cover_row, "");
	key_str(j, "web_url", page);
	json_key(j, "project");
	webpw_project(pw, j, s->project_id, false);
	key_msgid(pw, j, s->cover_msgid);
	key_archive(pw, j, s->project, s->cover_msgid);
	json_key(j, "date");
	webpw_date(j, s->cover_date);
	key_str(j, "name", pw_name(pw, s->title, s->version, 0, s->expected));
	json_key(j, "submitter");
	webpw_person(pw, j, sender.row, sender.from_name, sender.from_email);
	key_str(j, "mbox", arena_printf(pw->a, "%smbox/", page));
	json_key(j, "series");
	json_arr_begin(j);
	webpw_series_embed(pw, j, s);
	json_arr_end(j);
	key_url(pw, j, "comments", "covers", s->cover_row, "comments/");
	if (detail) {
		json_key(j, "headers");
		headers(pw, j, &m.hdr);
		json_key(j, "content");
		json_strn(j, m.text.p, m.text.n);
	}
	json_obj_end(j);
	return ERR_OK;
}

enum err
webpw_comment(struct pw *pw, struct json *j, const struct store_pw_mail *c,
    const char *page, const char *project)
{
	struct mail m;
	enum err e = parsed(pw, c->row, &m);

	if (e != ERR_OK)
		return e;
	json_obj_begin(j);
	key_int(j, "id", c->row);
	key_str(j, "web_url", arena_printf(pw->a, "%s#%" PRId64, page, c->row));
	key_msgid(pw, j, c->msgid);
	key_archive(pw, j, project, c->msgid);
	json_key(j, "date");
	webpw_date(j, c->date);
	key_str(j, "subject", m.subject ? m.subject : c->subject);
	json_key(j, "submitter");
	webpw_person(pw, j, c->row, c->from_name, c->from_email);
	json_key(j, "content");
	json_strn(j, m.text.p, m.text.n);
	json_key(j, "headers");
	headers(pw, j, &m.hdr);
	json_obj_end(j);
	return ERR_OK;
}

enum err
webpw_first_patch(
    struct pw *pw, const struct store_pw_filter *f, struct store_pw_patch *p)
{
	struct store_pw_patch *v = NULL;
	size_t n = 0;
	enum err e = store_pw_patches(pw->st, pw->a, f, &v, &n, NULL);

	if (e == ERR_OK && n == 0)
		e = ERR_NOTFOUND;
	if (e == ERR_OK)
		*p = v[0];
	return e;
}

enum err
webpw_first_series(
    struct pw *pw, const struct store_pw_filter *f, struct store_pw_series *s)
{
	struct store_pw_series *v = NULL;
	size_t n = 0;
	enum err e = store_pw_series(pw->st, pw->a, f, &v, &n, NULL);

	if (e == ERR_OK && n == 0)
		e = ERR_NOTFOUND;
	if (e == ERR_OK)
		*s = v[0];
	return e;
}

enum err
webpw_get_patch(struct pw *pw, int64_t id, struct store_pw_patch *p)
{
	return store_pw_patch_get(pw->st, pw->a, id, p);
}

enum err
webpw_get_series(
    struct pw *pw, int64_t id, int64_t cover, struct store_pw_series *s)
{
	return store_pw_series_get(pw->st, pw->a, id, cover, s);
}
