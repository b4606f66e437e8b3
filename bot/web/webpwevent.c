/*
 * GET /api/1.2/events/: patchwork's event stream, which CI bots poll
 * (since=, category=).  patchyard keeps no such table: the events are
 * made from what the model keeps (storage/sql.c, PW_EVENTS) -- a posted
 * series is series-created, a state change of ours patch-state-changed
 * (with the states before and after, in patchwork's words), patches,
 * cover letters, complete series, checks and replies their -created
 * events.  Newest first, as patchwork lists them.
 */
#include <inttypes.h>
#include <string.h>

#include "bot/web/webpriv.h"
#include "util/json.h"
#include "util/timeutil.h"

static const char *const categories[] = { "cover-created", "patch-created",
	"patch-completed", "patch-state-changed", "patch-relation-changed",
	"patch-delegated", "check-created", "series-created",
	"series-completed", "cover-comment-created", "patch-comment-created",
	NULL };

/* patchwork's state after one event of ours, from the state before; p
 * is the patch as it is now, for what the event does not say.  A drop's
 * detail is its reason, or the words given with it. */
static enum webpw_state
step(enum webpw_state s, enum model_event kind, const char *detail, bool last,
    const struct store_pw_patch *p)
{
	bool staged = s == PW_UNDER_REVIEW || s == PW_ACCEPTED;
	enum model_reason why;
	enum webpw_state to;

	switch (kind) {
	case EVENT_STAGED:
		return PW_UNDER_REVIEW;
	case EVENT_UPDATED:
		return staged
		    ? s
		    : webpw_state(STATE_STAGED,
		          p->state == STATE_STAGED ? p->queue : QUEUE_NONE,
		          REASON_NONE);
	case EVENT_GRADUATED:
	case EVENT_MERGED:
		return PW_ACCEPTED;
	case EVENT_DROPPED:
		if (!model_reason_parse(detail, &why) || why == REASON_NONE)
			why = last && p->state == STATE_DROPPED ? p->reason
			                                        : REASON_NONE;
		return webpw_state(STATE_DROPPED, QUEUE_NONE, why);
	case EVENT_STATE:
		return staged || !webpw_state_parse(detail, &to) ? s : to;
	case EVENT_SUPERSEDED:
		return PW_SUPERSEDED;
	case EVENT_WITHDRAWN:
		return PW_NOT_APPLICABLE;
	default:
		return s;
	}
}

/* The states before and after state event e of patch p. */
static enum err
transition(struct pw *pw, const struct store_pw_event *e,
    const struct store_pw_patch *p, const char **prev, const char **cur)
{
	enum model_event *kinds;
	const char **details;
	enum webpw_state was = PW_NEW, now = PW_NEW;
	size_t n = 0, i;
	enum err x = store_pw_history(
	    pw->st, pw->a, p->id, e->id / 8, &kinds, &details, &n);

	for (i = 0; i < n && x == ERR_OK; i++) {
		was = now;
		now = step(now, kinds[i], details[i], i + 1 == n, p);
	}
	*prev = webpw_state_name(was);
	*cur = webpw_state_name(now);
	return x;
}

static void
comment_embed(struct pw *pw, struct json *j, const struct store_pw_mail *m,
    const char *page, const char *project)
{
	json_obj_begin(j);
	json_key(j, "id");
	json_int(j, m->row);
	json_key(j, "web_url");
	json_str(j, arena_printf(pw->a, "%s#%" PRId64, page, m->row));
	json_key(j, "msgid");
	json_str(j, arena_printf(pw->a, "<%s>", m->msgid));
	json_key(j, "list_archive_url");
	json_str(j, web_archive(pw->a, pw->w->conf, project, m->msgid));
	json_key(j, "date");
	webpw_date(j, m->date);
	json_key(j, "name");
	json_str(j, m->subject);
	json_obj_end(j);
}

/* The payload of event e; ERR_NOTFOUND when there is none to show (a
 * state change that patchwork's states do not see). */
static enum err
payload(struct pw *pw, struct json *j, const struct store_pw_event *e)
{
	struct store_pw_series s;
	struct store_pw_patch p;
	struct store_pw_mail m;
	struct store_check k;
	const char *prev = NULL, *cur = NULL;
	enum err x = ERR_OK;

	memset(&s, 0, sizeof(s));
	memset(&p, 0, sizeof(p));
	memset(&m, 0, sizeof(m));

	if (e->patch_id)
		x = webpw_get_patch(pw, e->patch_id, &p);
	if (x == ERR_OK && (e->series_id || e->cover_row))
		x = webpw_get_series(
		    pw, e->cover_row ? 0 : e->series_id, e->cover_row, &s);
	if (x == ERR_OK && strcmp(e->category, "patch-state-changed") == 0) {
		x = transition(pw, e, &p, &prev, &cur);
		if (x == ERR_OK && strcmp(prev, cur) == 0)
			x = ERR_NOTFOUND;
	}
	if (x == ERR_OK && e->check_id)
		x = store_pw_check(pw->st, pw->a, e->check_id, &k);
	if (x == ERR_OK && e->comment_row)
		x = store_pw_comment(pw->st, pw->a, e->comment_row, &m);
	if (x != ERR_OK)
		return x;
	json_key(j, "payload");
	json_obj_begin(j);
	if (e->patch_id) {
		json_key(j, "patch");
		webpw_patch_embed(pw, j, &p);
	}
	if (strcmp(e->category, "series-created") == 0 ||
	    strcmp(e->category, "series-completed") == 0) {
		json_key(j, "series");
		webpw_series_embed(pw, j, &s);
	}
	if (e->cover_row) {
		json_key(j, "cover");
		webpw_cover_embed(pw, j, &s);
	}
	if (strcmp(e->category, "patch-state-changed") == 0) {
		json_key(j, "previous_state");
		json_str(j, prev);
		json_key(j, "current_state");
		json_str(j, cur);
	}
	if (e->check_id) {
		k.patch_id = p.id;
		json_key(j, "check");
		webpw_check(pw, j, &k, true);
	}
	if (e->comment_row) {
		json_key(j, "comment");
		comment_embed(pw, j, &m,
		    e->patch_id
		        ? webpw_page(pw, "patch", p.project, p.msgid)
		        : webpw_page(pw, "cover", s.project, s.cover_msgid),
		    e->patch_id ? p.project : s.project);
	}
	json_obj_end(j);
	return ERR_OK;
}

/* One event into b (which holds the list so far). */
static enum err
event(struct pw *pw, struct buf *b, const struct store_pw_event *e)
{
	struct buf one = BUF_INIT;
	struct json j;
	enum err x;

	json_init(&j, &one, false);
	json_obj_begin(&j);
	json_key(&j, "id");
	json_int(&j, e->id);
	json_key(&j, "category");
	json_str(&j, e->category);
	json_key(&j, "project");
	webpw_project(pw, &j, e->project_id, false);
	json_key(&j, "date");
	webpw_date(&j, e->date);
	json_key(&j, "actor");
	webpw_user(pw, &j, webpw_user_of(pw, e->actor));
	x = payload(pw, &j, e);
	json_obj_end(&j);
	if (x == ERR_OK)
		buf_addf(b, "%s%s", b->n > 1 ? "," : "", buf_cstr(&one));
	buf_free(&one);
	return x == ERR_NOTFOUND ? ERR_OK : x;
}

static bool
id_arg(const struct web_req *rq, const char *name, int64_t *id)
{
	const char *v = web_arg(rq, name);

	*id = 0;
	return v == NULL || *v == '\0' || web_id(v, strlen(v), id);
}

void
webpw_events(struct pw *pw, struct web_resp *rs)
{
	const struct web_req *rq = pw->rq;
	struct store_pw_event *ev = NULL;
	struct store_pw_filter f;
	const char *v, *field = NULL;
	size_t n = 0, i, page, per_page;
	int64_t num;
	bool more = false;
	enum err x = ERR_OK;

	memset(&f, 0, sizeof(f));
	if (!webpw_paging(rq, &page, &per_page, &f)) {
		webpw_error(rs, 404, "Invalid page.");
		return;
	}
	if ((v = web_arg(rq, "order")) && strcmp(v, "date") == 0)
		f.order = "date";
	if ((v = web_arg(rq, "category")) && *v) {
		for (i = 0; categories[i] && strcmp(categories[i], v); i++)
			;
		if (categories[i] == NULL)
			field = "category";
		f.category = v;
	}
	if (!id_arg(rq, "series", &f.series))
		field = "series";
	if (!id_arg(rq, "patch", &f.patch))
		field = "patch";
	if (!id_arg(rq, "cover", &f.cover))
		field = "cover";
	if ((v = web_arg(rq, "project")) && *v) {
		for (i = 0; i < pw->nprojects; i++)
			if ((web_id(v, strlen(v), &num) &&
			        pw->projects[i].id == num) ||
			    strcmp(pw->projects[i].name, v) == 0)
				f.project = pw->projects[i].id;
		if (f.project == 0 && !config_project(pw->w->conf, v))
			field = "project";
		else if (f.project == 0)
			f.project = -1; /* configured, no mail yet */
	}
	if ((v = web_arg(rq, "since")) && *v) {
		f.has_since = time_parse_iso(v, &f.since) == ERR_OK;
		field = f.has_since ? field : "since";
	}
	if ((v = web_arg(rq, "before")) && *v) {
		f.has_before = time_parse_iso(v, &f.before) == ERR_OK;
		field = f.has_before ? field : "before";
	}
	if (field) {
		webpw_field_error(rs, 400, field, "Select a valid choice.");
		return;
	}
	x = store_pw_events(pw->st, pw->a, &f, &ev, &n, &more);
	buf_addc(&rs->body, '[');
	for (i = 0; i < n && x == ERR_OK; i++)
		x = event(pw, &rs->body, &ev[i]);
	if (x != ERR_OK) {
		webpw_error(rs, 503, "The database could not be read.");
		return;
	}
	buf_adds(&rs->body, "]\n");
	rs->status = 200;
	rs->type = "application/json";
	webpw_links(pw, rs, arena_printf(pw->a, "%s/events/", pw->api), page,
	    per_page, more);
}
