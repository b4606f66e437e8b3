/*
 * Ingest: a parsed mail becomes a message, and, by its kind, part of a
 * series (patch, cover letter) or of the discussion of one (reply).
 *
 * Threading follows JWZ's rule of preferring References over In-Reply-To,
 * without building the whole tree: a reply belongs to the nearest
 * ancestor that is known and belongs to a series, and copies its place.
 * Whatever may still give it a nearer place makes it wait in `pending`,
 * under that ancestor's Message-ID: an ancestor nearer than its place
 * that has not arrived or has no place yet, and the reply it copied its
 * place from while that one itself waits.  When a message gets a place
 * or moves, what waits for it is placed again, and what moves then is
 * in turn (settle(): a work list, so a chain costs one placing per
 * reply whatever order it came in).
 */
#include "bot/workflow/ingest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/mailout/notify.h"
#include "bot/workflow/trust.h"
#include "bot/workflow/workflow.h"
#include "parsers/addr.h"
#include "parsers/msgid.h"
#include "parsers/slug.h"
#include "parsers/subject.h"
#include "storage/store_event.h"
#include "storage/store_msg.h"
#include "storage/store_patch.h"
#include "storage/store_series.h"
#include "util/ascii.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* Patches of one series posted without threading to their cover letter
 * are gathered by sender, version and total within this window. */
#define SERIES_WINDOW (24 * 3600)

struct ingest {
	struct store *st;
	const struct config *conf;
	struct arena *a; /* scratch for the mail being ingested */
	struct ingest_stats stats;
	int64_t now;
	struct workflow *wf; /* made when the first command arrives */
	struct notify *nt; /* made when the first mail is to go */
	struct trust *trust;
	struct trust_road road;
	/* How the mail being ingested authenticated (its proof). */
	const char *auth, *auth_note;
};

static enum err settle(struct ingest *in, int64_t msg_id);

struct ingest *
ingest_new(struct store *st, const struct config *conf)
{
	struct ingest *in = xcalloc(1, sizeof(*in));

	in->st = st;
	in->conf = conf;
	in->a = arena_new();
	in->trust = trust_new(conf);
	return in;
}

void
ingest_set_road(struct ingest *in, const struct trust_road *road)
{
	in->road = *road;
}

void
ingest_free(struct ingest *in)
{
	if (in == NULL)
		return;
	workflow_free(in->wf);
	notify_free(in->nt);
	trust_free(in->trust);
	arena_free(in->a);
	free(in);
}

const struct ingest_stats *
ingest_stats(const struct ingest *in)
{
	return &in->stats;
}

void
ingest_refused(struct ingest *in, size_t n)
{
	in->stats.refused += n;
}

void
ingest_mail_opts(const struct ingest *in, struct mail_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (in->conf) {
		o->command_prefix = in->conf->command_prefix;
		o->bot_address = in->conf->bot_address;
	}
}

/* List-Id "<util-linux.vger.kernel.org>" names the list
 * util-linux@vger.kernel.org. */
static bool
list_id_matches(struct str list_id, const char *list)
{
	long lt = str_find(list_id, '<'), gt;
	struct str id = list_id;
	size_t i, n = strlen(list);

	if (lt >= 0) {
		id = str_skip(id, (size_t)lt + 1);
		gt = str_find(id, '>');
		if (gt >= 0)
			id.n = (size_t)gt;
	}
	id = str_trim(id);
	if (id.n != n)
		return false;
	for (i = 0; i < n; i++) {
		char c = list[i] == '@' ? '.' : list[i];

		if (ascii_tolower(c) != ascii_tolower(id.p[i]))
			return false;
	}
	return true;
}

static bool
addrs_match(struct ingest *in, struct str v, const char *list)
{
	struct addr *as = NULL;
	size_t n = 0, i;

	if (v.p == NULL || addr_parse_list(in->a, v, &as, &n) != ERR_OK)
		return false;
	for (i = 0; i < n; i++)
		if (addr_same(as[i].email, list))
			return true;
	return false;
}

enum err
ingest_project(struct ingest *in, const char *name, const struct mail *m,
    int64_t *project_id)
{
	size_t i;

	*project_id = 0;
	if (name) {
		if (in->conf && config_project(in->conf, name) == NULL) {
			log_err("ingest: project %s is not in %s", name,
			    in->conf->file);
			return ERR_CONFIG;
		}
		return store_project_id(in->st, name, project_id);
	}
	if (in->conf == NULL)
		return ERR_OK;
	for (i = 0; i < in->conf->nprojects; i++) {
		const struct conf_project *p = &in->conf->projects[i];

		if ((m->list_id.p && list_id_matches(m->list_id, p->list)) ||
		    addrs_match(in, m->to, p->list) ||
		    addrs_match(in, m->cc, p->list))
			return store_project_id(in->st, p->name, project_id);
	}
	return ERR_OK;
}

static int64_t
mail_time(const struct ingest *in, const struct mail *m)
{
	/* A date from the future would pin a contribution to the top;
	 * then, and without a date, the mail is as old as its arrival. */
	if (m->date <= 0 || m->date > in->now)
		return in->now;
	return m->date;
}

static enum err
event(struct ingest *in, enum model_event kind, int64_t contribution,
    int64_t series, int64_t patch, int64_t msg, const char *detail)
{
	struct store_event e;

	memset(&e, 0, sizeof(e));
	e.time = in->now;
	e.kind = kind;
	e.contribution_id = contribution;
	e.series_id = series;
	e.patch_id = patch;
	e.message_id = msg;
	e.detail = detail;
	return store_event_add(in->st, &e, NULL);
}

/* ---- replies ---- */

static bool
trailer_is_collected(const struct trailer *t)
{
	/* A sign-off in a reply is the replier's, not a review. */
	return strcmp(t->name, "Signed-off-by") != 0;
}

static enum err
collect_trailers(struct ingest *in, const struct mail *m, int64_t msg_id,
    const struct store_msg *target, const char *auth)
{
	size_t i;
	enum err e;

	for (i = 0; i < m->ntrailers; i++) {
		const struct trailer *t = &m->trailers[i];
		struct store_trailer r;

		if (!trailer_is_collected(t))
			continue;
		memset(&r, 0, sizeof(r));
		r.patch_id = target->patch_id;
		r.series_id = target->patch_id ? 0 : target->series_id;
		r.message_id = msg_id;
		r.name = t->name;
		r.value = t->value;
		r.email = t->person.email;
		/* Kept either way, applied (to staged commits, forwarded
		 * patches) only when verified: the person named sent it,
		 * from an address of theirs, in a mail that authenticates.
		 * A display name proves nothing: anyone can write one. */
		r.verified = trust_trailer_verified(
		    in->conf, m->from.email, t, auth != NULL);
		if ((e = store_patch_trailer_add(in->st, &r)) != ERR_OK)
			return e;
	}
	return ERR_OK;
}

/* The nearest known ancestor that belongs to a series: *at is its
 * index in m->refs, or -1 when there is none. */
static enum err
find_target(
    struct ingest *in, const struct mail *m, struct store_msg *t, long *at)
{
	size_t i;
	enum err e;

	*at = -1;
	for (i = m->nrefs; i-- > 0;) {
		e = store_msg_find(in->st, in->a, m->refs[i], t);
		if (e == ERR_NOTFOUND)
			continue;
		if (e != ERR_OK)
			return e;
		if (t->series_id) {
			*at = (long)i;
			return ERR_OK;
		}
	}
	return ERR_OK;
}

/* Wait for the ancestors of a patch that have not arrived: its cover
 * letter, when it comes, finds the patches that wait for it. */
static enum err
wait_missing(struct ingest *in, const struct mail *m, int64_t msg_id)
{
	struct store_msg t;
	size_t i;
	enum err e;

	for (i = 0; i < m->nrefs; i++) {
		e = store_msg_find(in->st, in->a, m->refs[i], &t);
		if (e == ERR_NOTFOUND)
			e = store_msg_pending_add(in->st, m->refs[i], msg_id);
		if (e != ERR_OK)
			return e;
	}
	return ERR_OK;
}

static bool
placeable(enum mail_kind k)
{
	return k == MAIL_REPLY || k == MAIL_PULL || k == MAIL_BOT;
}

/*
 * Wait for what may still give the reply a nearer place than refs[at]
 * (t, or nothing when at is -1): the nearer ancestors that have not
 * arrived or have no place yet, and t itself when it is a reply that
 * waits too (its place may move, and this one's with it).
 */
static enum err
wait_nearer(struct ingest *in, const struct mail *m, int64_t msg_id,
    const struct store_msg *t, long at)
{
	struct store_msg r;
	size_t i;
	bool waits;
	enum err e;

	for (i = (size_t)(at + 1); i < m->nrefs; i++) {
		e = store_msg_find(in->st, in->a, m->refs[i], &r);
		if (e == ERR_OK &&
		    (r.series_id || !placeable(r.kind) || r.id == msg_id))
			continue;
		if (e == ERR_OK || e == ERR_NOTFOUND)
			e = store_msg_pending_add(in->st, m->refs[i], msg_id);
		if (e != ERR_OK)
			return e;
	}
	if (at < 0 || !placeable(t->kind))
		return ERR_OK;
	if ((e = store_msg_pending_waits(in->st, t->id, &waits)) == ERR_OK &&
	    waits)
		e = store_msg_pending_add(in->st, m->refs[at], msg_id);
	return e;
}

static enum err
touch_series(struct ingest *in, int64_t series_id, const struct mail *m)
{
	return store_series_activity(in->st, series_id, mail_time(in, m));
}

/*
 * Place a reply by its nearest known ancestor that belongs to a series
 * (t, at: what find_target() said; at -1: none yet), and wait for what
 * may place it nearer (a review of 2/3 that came before 2/3 is about
 * 2/3, not about the cover letter it also names).  was: the reply's row
 * as it was when it is placed again (its waiting rows and trailers are
 * taken back first), NULL for a new mail, whose row names t already.
 */
static enum err
place_reply_at(struct ingest *in, const struct mail *m, int64_t msg_id,
    const struct store_msg *t, long at, const struct store_msg *was,
    const char *auth)
{
	enum err e;

	if (was && (e = store_msg_pending_clear(in->st, msg_id)) != ERR_OK)
		return e;
	if ((e = wait_nearer(in, m, msg_id, t, at)) != ERR_OK)
		return e;
	if (at < 0 ||
	    (was && was->series_id == t->series_id &&
	        was->patch_id == t->patch_id))
		return ERR_OK;
	if (was && was->series_id &&
	    (e = store_patch_trailer_drop(in->st, msg_id)) != ERR_OK)
		return e;
	if (was &&
	    (e = store_msg_attach(in->st, msg_id, t->series_id, t->patch_id)))
		return e;
	if (m->kind == MAIL_REPLY &&
	    (e = collect_trailers(in, m, msg_id, t, auth)) != ERR_OK)
		return e;
	return touch_series(in, t->series_id, m);
}

/*
 * A waiting reply, placed again: *moved says whether it got a place or a
 * new one (then what waits for it must be placed again too).
 */
static enum err
place_again(struct ingest *in, int64_t msg_id, bool *moved)
{
	struct arena *a = arena_new();
	struct store_msg w, t;
	struct mail_opts o;
	struct mail m;
	const char *raw;
	size_t len;
	long at;
	enum err e = store_msg_get(in->st, a, msg_id, &w);

	*moved = false;
	/* Patches wait only so that their cover letter finds them. */
	if (e != ERR_OK || !placeable(w.kind))
		goto out;
	if ((e = store_msg_raw(in->st, a, msg_id, &raw, &len)) != ERR_OK)
		goto out;
	ingest_mail_opts(in, &o);
	mail_parse(a, raw, len, &o, &m);
	if ((e = find_target(in, &m, &t, &at)) != ERR_OK)
		goto out;
	*moved =
	    at >= 0 && (t.series_id != w.series_id || t.patch_id != w.patch_id);
	e = place_reply_at(in, &m, msg_id, &t, at, &w, w.auth);
out:
	arena_free(a);
	return e;
}

/* ---- versions ---- */

/* Give a patch a slug nobody in its project uses yet. */
static enum err
fresh_slug(
    struct ingest *in, int64_t project, const char *title, const char **slug)
{
	const char *base = slug_make(in->a, title), *s = base;
	unsigned n = 2;
	bool used;
	enum err e;

	for (;;) {
		if ((e = store_patch_slug_used(in->st, project, s, &used)))
			return e;
		if (!used)
			break;
		s = slug_variant(in->a, base, n++);
	}
	*slug = s;
	return ERR_OK;
}

/* Is o an older posting than s (a lower version, or the same one sent
 * before)? */
static bool
series_older(const struct store_series *o, const struct store_series *s)
{
	if (o->version != s->version)
		return o->version < s->version;
	if (o->date != s->date)
		return o->date < s->date;
	return o->id < s->id;
}

static enum err
find_predecessor(struct ingest *in, const struct store_patch *p,
    const struct store_series *s, int64_t *pred)
{
	int64_t *ids = NULL;
	size_t n = 0, i;
	enum err e;

	*pred = 0;
	if ((e = store_series_of(in->st, s->contribution_id, &ids, &n)))
		return e;
	/* Older series, newest first: the nearest older version that has
	 * this patch. */
	for (i = 0; i < n && *pred == 0; i++) {
		struct store_series o;

		if (ids[i] == s->id)
			continue;
		if ((e = store_series_get(in->st, in->a, ids[i], &o)))
			break;
		if (o.version > s->version ||
		    (o.version == s->version && o.date > s->date) ||
		    (o.version == s->version && o.date == s->date &&
		        o.id > s->id))
			continue;
		if (o.expected == s->expected)
			e = store_patch_by_number(
			    in->st, o.id, p->number, pred);
		else
			e = store_patch_by_title(
			    in->st, o.id, p->norm_title, pred);
		if (e == ERR_NOTFOUND && p->patch_id)
			e = store_patch_by_patchid(
			    in->st, o.id, p->patch_id, pred);
		if (e == ERR_NOTFOUND)
			e = ERR_OK;
		if (e != ERR_OK)
			break;
	}
	free(ids);
	return e;
}

/*
 * Whether the mail of newer version p may take o's place (issue 16).
 * *why stays NULL when it may: its sender is o's author or sent o, and,
 * when o is staged (its code is in the tree), the mail authenticates as
 * commands must.  Else *why says why not, and *sender who sent it.
 */
static enum err
judge_successor(struct ingest *in, const struct store_patch *p,
    const struct store_patch *o, bool staged, const char **why,
    const char **sender)
{
	struct store_msg pm, om;
	enum err e;

	*why = NULL;
	if ((e = store_msg_get(in->st, in->a, p->message_id, &pm)) ||
	    (e = store_msg_get(in->st, in->a, o->message_id, &om)))
		return e;
	*sender = arena_printf(in->a, "%s%s<%s>", pm.from_name,
	    *pm.from_name ? " " : "", pm.from_email);
	if (!trust_same_person(in->conf, pm.from_email, o->author_email) &&
	    !trust_same_person(in->conf, pm.from_email, om.from_email)) {
		*why = arena_printf(in->a,
		    "its sender %s is not the patch's author %s", pm.from_email,
		    o->author_email);
		return ERR_OK;
	}
	if (staged && pm.auth == NULL)
		*why =
		    arena_printf(in->a, "its mail does not authenticate (%s)",
		        pm.auth_note ? pm.auth_note : "not checked");
	return ERR_OK;
}

/* The archive link of a Message-ID in project p, or NULL. */
static const char *
archive_link(struct ingest *in, const struct conf_project *p, const char *id)
{
	const char *pct = p && p->archive ? strstr(p->archive, "%s") : NULL;
	struct buf b = BUF_INIT;
	const char *r = NULL;

	if (pct) {
		buf_add(&b, p->archive, (size_t)(pct - p->archive));
		msgid_urlencode(&b, str_from(id));
		buf_adds(&b, pct + 2);
		r = arena_strdup(in->a, buf_cstr(&b));
	}
	buf_free(&b);
	return r;
}

/*
 * p could not take staged o's place: o stays, p is kept beside it, and
 * the maintainers are told (one mail, about o, threaded to it).
 */
static enum err
other_sender(struct ingest *in, const struct store_patch *p,
    const struct store_patch *o, const struct store_series *s, const char *why,
    const char *sender)
{
	struct store_event ev;
	struct store_msg pm;
	struct notify_kv kv[6];
	const char *project;
	char ver[16];
	int64_t ev_id;
	enum err e;

	memset(&ev, 0, sizeof(ev));
	ev.time = in->now;
	ev.kind = EVENT_VERSION_FROM_OTHER_SENDER;
	ev.contribution_id = s->contribution_id;
	ev.series_id = s->id;
	ev.patch_id = p->id;
	ev.message_id = p->message_id;
	ev.detail = why;
	if ((e = store_event_add(in->st, &ev, &ev_id)) != ERR_OK ||
	    in->conf == NULL)
		return e;
	if ((e = store_msg_get(in->st, in->a, p->message_id, &pm)) ||
	    (e = store_project_get(in->st, p->project_id, &project)))
		return e;
	if (snprintf(ver, sizeof(ver), "%d", s->version) >= (int)sizeof(ver))
		return ERR_INTERNAL;
	kv[0] = (struct notify_kv){ "sender", sender };
	kv[1] = (struct notify_kv){ "why", why };
	kv[2] = (struct notify_kv){ "new_message_id", pm.msgid };
	kv[3] = (struct notify_kv){ "new_version", ver };
	kv[4] = (struct notify_kv){ "new_link",
		archive_link(in, config_project(in->conf, project), pm.msgid) };
	kv[5] = (struct notify_kv){ NULL, NULL };
	if (in->nt == NULL)
		in->nt = notify_new(in->st, in->conf);
	return notify_patch(in->nt, EVENT_VERSION_FROM_OTHER_SENDER, o->id,
	    ev_id, NULL, kv, false);
}

/*
 * A newer version of a patch takes over its identity: the slug, trailers
 * given to the same diff, and, when it may (judge_successor), the older
 * one's place: an unstaged predecessor becomes superseded, and the
 * staged patch of that slug (the predecessor, or an older version a
 * version between could not replace) is replaced in place.  When it may
 * not, both stay as they are, linked, and a staged one's maintainers are
 * told.
 */
static enum err
succeed(struct ingest *in, struct store_patch *p, int64_t pred_id,
    const struct store_series *s)
{
	struct store_patch o, q;
	const char *why, *sender;
	int64_t qid;
	enum err e;

	if ((e = store_patch_get(in->st, in->a, pred_id, &o)) != ERR_OK)
		return e;
	p->predecessor_id = pred_id;
	p->slug = o.slug;
	if (o.state == STATE_NEW || o.state == STATE_CHANGES_REQUESTED) {
		if ((e = judge_successor(in, p, &o, false, &why, &sender)))
			return e;
		if (why == NULL) {
			o.state = STATE_SUPERSEDED;
			e = event(in, EVENT_SUPERSEDED, s->contribution_id,
			    o.series_id, o.id, 0, NULL);
			if (e == ERR_OK)
				e = store_patch_update(in->st, &o);
		}
	}
	if (e == ERR_OK)
		e = store_patch_update(in->st, p);
	if (e == ERR_OK && p->patch_id && o.patch_id &&
	    strcmp(p->patch_id, o.patch_id) == 0)
		e = store_patch_trailer_carry(in->st, o.id, p->id);
	if (e == ERR_OK)
		e = store_patch_by_slug(in->st, p->project_id, p->slug, &qid);
	if (e == ERR_NOTFOUND)
		return ERR_OK;
	if (e != ERR_OK || qid == p->id ||
	    (e = store_patch_get(in->st, in->a, qid, &q)) != ERR_OK ||
	    q.state != STATE_STAGED)
		return e;
	if ((e = judge_successor(in, p, &q, true, &why, &sender)) != ERR_OK)
		return e;
	if (why)
		return other_sender(in, p, &q, s, why, sender);
	if (in->wf == NULL)
		in->wf = workflow_new(in->st, in->conf);
	return workflow_replace_staged(in->wf, p, &q, NULL, 0);
}

static enum err
link_patch(struct ingest *in, int64_t patch_id)
{
	struct store_patch p;
	struct store_series s;
	int64_t pred;
	enum err e;

	if ((e = store_patch_get(in->st, in->a, patch_id, &p)) != ERR_OK)
		return e;
	if (p.predecessor_id)
		return ERR_OK;
	if ((e = store_series_get(in->st, in->a, p.series_id, &s)) != ERR_OK)
		return e;
	if ((e = find_predecessor(in, &p, &s, &pred)) != ERR_OK)
		return e;
	if (pred == 0)
		return ERR_OK;
	return succeed(in, &p, pred, &s);
}

/* An older series named by threading: a newer version (or a resend)
 * posted in reply to anything in an older version's thread. */
static enum err
older_by_refs(struct ingest *in, const struct store_series *s,
    const struct mail *m, int64_t *sid)
{
	size_t i;
	enum err e;

	for (i = m->nrefs; i-- > 0;) {
		struct store_msg r;
		struct store_series o;

		e = store_msg_find(in->st, in->a, m->refs[i], &r);
		if (e == ERR_NOTFOUND ||
		    (e == ERR_OK && (r.series_id == 0 || r.series_id == s->id)))
			continue;
		if (e != ERR_OK ||
		    (e = store_series_get(in->st, in->a, r.series_id, &o)))
			return e;
		if (o.contribution_id != s->contribution_id &&
		    o.project_id == s->project_id &&
		    (o.version < s->version ||
		        (s->resend && o.version == s->version))) {
			*sid = o.id;
			return ERR_OK;
		}
	}
	return ERR_NOTFOUND;
}

static enum err
older_by_supersedes(struct ingest *in, const struct store_series *s,
    const struct mail *m, int64_t *sid)
{
	size_t i;

	for (i = 0; i < m->nsupersedes; i++) {
		struct store_msg r;
		enum err e =
		    store_msg_find(in->st, in->a, m->supersedes[i], &r);

		if (e == ERR_NOTFOUND)
			continue;
		if (e != ERR_OK)
			return e;
		if (r.series_id && r.series_id != s->id) {
			*sid = r.series_id;
			return ERR_OK;
		}
	}
	return ERR_NOTFOUND;
}

/* An older version of this series (*o, and its contribution in
 * *contribution; 0 when there is none): by change-id, by threading, by
 * Supersedes:, by submitter and title. */
static enum err
older_version(struct ingest *in, const struct store_series *s,
    const struct mail *m, struct store_series *o, int64_t *contribution)
{
	int64_t sid = 0;
	enum err e = ERR_NOTFOUND;

	*contribution = 0;
	if (s->change_id)
		e = store_series_by_change(in->st, s->project_id, s->change_id,
		    s->contribution_id, &sid);
	if (e == ERR_NOTFOUND)
		e = older_by_refs(in, s, m, &sid);
	if (e == ERR_NOTFOUND)
		e = older_by_supersedes(in, s, m, &sid);
	if (e == ERR_NOTFOUND)
		e = store_series_by_title(in->st, s->project_id,
		    s->submitter_email, s->norm_title,
		    s->resend ? s->version : s->version - 1, s->contribution_id,
		    &sid);
	if (e == ERR_NOTFOUND)
		return ERR_OK;
	if (e == ERR_OK &&
	    (e = store_series_get(in->st, in->a, sid, o)) == ERR_OK &&
	    o->contribution_id != s->contribution_id)
		*contribution = o->contribution_id;
	return e;
}

/*
 * A complete newer version supersedes what is left unstaged of the older
 * ones (patches it dropped, say).  An incomplete one does not: it may be
 * a partial re-roll (b4's sense: "[PATCH v2 3/5]" replacing v1 3/5 only),
 * whose other patches stay as they were; each patch it does carry
 * supersedes its own predecessor (succeed()).
 */
static enum err
supersede_older(struct ingest *in, const struct store_series *s)
{
	int64_t *ids = NULL;
	size_t n = 0, i;
	int superseded;
	enum err e;

	if (s->received < s->expected)
		return ERR_OK;
	if ((e = store_series_of(in->st, s->contribution_id, &ids, &n)))
		return e;
	for (i = 0; i < n && e == ERR_OK; i++) {
		struct store_series o;

		if (ids[i] == s->id ||
		    (e = store_series_get(in->st, in->a, ids[i], &o)) != ERR_OK)
			continue;
		/* Another sender's newer version does not push an older
		 * one aside: both stay for people to compare. */
		if (series_older(&o, s) &&
		    trust_same_person(
		        in->conf, o.submitter_email, s->submitter_email))
			e = store_patch_supersede_series(
			    in->st, o.id, &superseded);
	}
	free(ids);
	return e;
}

/* Link a new series to its older versions, then every patch of it to its
 * predecessor. */
static enum err
link_series(struct ingest *in, int64_t series_id, const struct mail *m)
{
	struct store_series s, o;
	int64_t contribution, *ids = NULL;
	size_t n = 0, i;
	enum err e;

	if ((e = store_series_get(in->st, in->a, series_id, &s)) != ERR_OK)
		return e;
	if ((e = older_version(in, &s, m, &o, &contribution)) != ERR_OK)
		return e;
	if (contribution == 0)
		return ERR_OK;
	if ((e = store_series_move(in->st, s.id, contribution)) != ERR_OK)
		return e;
	s.contribution_id = contribution;
	in->stats.linked++;
	if ((e = store_patch_of_series(in->st, s.id, &ids, &n)) != ERR_OK)
		return e;
	for (i = 0; i < n && e == ERR_OK; i++)
		e = link_patch(in, ids[i]);
	free(ids);
	if (e == ERR_OK)
		e = supersede_older(in, &s);
	if (e == ERR_OK)
		e = event(
		    in, EVENT_LINKED, contribution, s.id, 0, s.first_id, NULL);
	/* Linked by Supersedes:, change-id or threading to another
	 * person's posting: recorded as such. */
	if (e == ERR_OK &&
	    !trust_same_person(in->conf, s.submitter_email, o.submitter_email))
		e = event(in, EVENT_VERSION_FROM_OTHER_SENDER, contribution,
		    s.id, 0, s.first_id,
		    arena_printf(in->a, "v%d from %s; v%d from %s", s.version,
		        s.submitter_email, o.version, o.submitter_email));
	return e;
}

/* ---- series ---- */

static enum err
new_series(struct ingest *in, const struct mail *m, int64_t project,
    int64_t msg_id, int expected, bool cover, int64_t *id)
{
	struct store_series s;
	struct store_event ev;
	const char *title = m->subj.title;
	enum err e;

	if (!cover && m->patch && m->patch->subject && m->patch->subject[0])
		title = m->patch->subject;
	memset(&s, 0, sizeof(s));
	s.project_id = project;
	s.version = m->subj.version > 0 ? m->subj.version : 1;
	s.expected = expected;
	s.cover_id = cover ? msg_id : 0;
	s.first_id = msg_id;
	s.title = title;
	s.norm_title = subject_norm(in->a, title);
	s.submitter_name = m->from.name;
	s.submitter_email = m->from.email;
	s.date = mail_time(in, m);
	s.change_id = m->change_id;
	s.base_commit = m->base_commit;
	s.resend = m->subj.resend;
	if ((e = store_series_add(in->st, &s, id)) != ERR_OK)
		return e;
	in->stats.series++;
	/* History is dated by the mail: an archive imported today shows
	 * when things were posted. */
	memset(&ev, 0, sizeof(ev));
	ev.time = s.date;
	ev.kind = EVENT_POSTED;
	ev.contribution_id = s.contribution_id;
	ev.series_id = *id;
	ev.message_id = msg_id;
	return store_event_add(in->st, &ev, NULL);
}

/*
 * The series a patch belongs to by its threading: the nearest ancestor
 * that is part of a series of the same sender, version and total.  A
 * patch that carries no version takes its series' (people forget -v3 on
 * the patches, never on the cover letter).
 */
static enum err
series_by_refs(struct ingest *in, const struct mail *m, int64_t project,
    int version, int total, int64_t *id, bool *missing)
{
	size_t i;
	enum err e;

	*id = 0;
	*missing = false;
	for (i = m->nrefs; i-- > 0;) {
		struct store_msg r;
		struct store_series s;

		e = store_msg_find(in->st, in->a, m->refs[i], &r);
		if (e == ERR_NOTFOUND) {
			*missing = true;
			continue;
		}
		if (e != ERR_OK)
			return e;
		if (r.series_id == 0 ||
		    (r.kind != MAIL_PATCH && r.kind != MAIL_COVER))
			continue;
		if ((e = store_series_get(in->st, in->a, r.series_id, &s)))
			return e;
		if (s.project_id == project &&
		    (s.version == version || !m->subj.versioned) &&
		    s.expected == total &&
		    addr_same(s.submitter_email, m->from.email)) {
			*id = s.id;
			return ERR_OK;
		}
	}
	return ERR_OK;
}

static enum err
patch_row(struct ingest *in, const struct mail *m, int64_t project,
    int64_t series, int64_t msg_id, int number, const struct store_patch *old,
    struct store_patch *p)
{
	const struct patch *pt = m->patch;
	struct buf files = BUF_INIT;
	size_t i;
	enum err e = ERR_OK;

	memset(p, 0, sizeof(*p));
	p->project_id = project;
	p->series_id = series;
	p->message_id = msg_id;
	p->number = number;
	p->title = pt->subject && pt->subject[0] ? pt->subject : m->subj.title;
	p->norm_title = subject_norm(in->a, p->title);
	p->author_name = pt->author.name;
	p->author_email = pt->author.email;
	p->author_time = mail_time(in, m);
	p->author_tz = m->tz;
	p->patch_id = pt->patch_id[0] ? pt->patch_id : NULL;
	for (i = 0; i < pt->nfiles; i++)
		buf_addf(&files, "%s%s", i ? "\n" : "", pt->files[i]);
	p->files = arena_strdup(in->a, buf_cstr(&files));
	buf_free(&files);
	p->state = STATE_NEW;
	if (old) {
		/* A copy sent again is the same patch: its slug (its place,
		 * if it may take it, follows in resend_copy()). */
		p->slug = old->slug;
	} else {
		e = fresh_slug(in, project, p->title, &p->slug);
	}
	return e;
}

/* A trailer that says someone looked at the patch and vouches for it. */
static bool
is_review(const struct trailer *t)
{
	static const char *const names[] = { "Reviewed-by", "Acked-by",
		"Tested-by", "Nacked-by" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (ascii_stricmp(t->name, names[i]) == 0)
			return true;
	return false;
}

/*
 * The patch's own trailers, lines of its commit message.  A review in
 * it that names someone other than the author is the author's claim, not
 * a review (issue 42): unverified, until that person sends it (a reply).
 */
static enum err
own_trailers(
    struct ingest *in, const struct mail *m, int64_t msg_id, int64_t patch_id)
{
	size_t i;
	enum err e;

	for (i = 0; i < m->ntrailers; i++) {
		const struct trailer *t = &m->trailers[i];
		struct store_trailer r;

		memset(&r, 0, sizeof(r));
		r.patch_id = patch_id;
		r.message_id = msg_id;
		r.name = t->name;
		r.value = t->value;
		r.email = t->person.email;
		r.verified = !is_review(t) || t->person.email == NULL ||
		    trust_same_person(
		        in->conf, t->person.email, m->patch->author.email);
		r.own = true;
		if ((e = store_patch_trailer_add(in->st, &r)) != ERR_OK)
			return e;
	}
	return ERR_OK;
}

/* The mail's patch and o have the same patch-id. */
static bool
same_diff(const struct mail *m, const struct store_patch *o)
{
	return o->patch_id && m->patch->patch_id[0] &&
	    strcmp(o->patch_id, m->patch->patch_id) == 0;
}

/*
 * Is the mail m, numbered like patch o of the same series, a copy of o
 * sent again?  Only when it is the same patch: the same normalised
 * title, the same patch-id, or marked RESEND.  Unnumbered "[PATCH] a",
 * "[PATCH] b" chained in one thread are patches of their own.
 */
static bool
same_patch(struct ingest *in, const struct mail *m, const struct store_patch *o)
{
	const char *title = m->patch->subject && m->patch->subject[0]
	    ? m->patch->subject
	    : m->subj.title;

	if (m->subj.resend || same_diff(m, o))
		return true;
	return strcmp(subject_norm(in->a, title), o->norm_title) == 0;
}

/*
 * A patch sent again in its series takes the older copy's place as a
 * newer version would (succeed(): slug, queue position, trailers carried
 * by patch-id, and only when its sender may).  A copy of a staged patch
 * with the same diff moves into its place without an "updated" notice:
 * nothing changed in the tree.  The older copy stays, superseded, with
 * its own Message-ID, patch-id and trailers.
 */
static enum err
resend_copy(struct ingest *in, struct store_patch *p,
    const struct store_patch *o, const struct store_series *s)
{
	struct store_patch q = *o;
	const char *why, *sender;
	enum err e;

	if (o->state != STATE_STAGED || p->patch_id == NULL ||
	    o->patch_id == NULL || strcmp(p->patch_id, o->patch_id) != 0)
		return succeed(in, p, o->id, s);
	if ((e = judge_successor(in, p, o, true, &why, &sender)) != ERR_OK)
		return e;
	p->predecessor_id = o->id;
	p->slug = o->slug;
	if (why) {
		if ((e = store_patch_update(in->st, p)) != ERR_OK)
			return e;
		return other_sender(in, p, o, s, why, sender);
	}
	p->state = STATE_STAGED;
	p->queue = o->queue;
	p->queue_pos = o->queue_pos;
	p->queued_at = o->queued_at;
	p->conflict = o->conflict;
	q.state = STATE_SUPERSEDED;
	q.queue = QUEUE_NONE;
	q.queue_pos = 0;
	if ((e = store_patch_update(in->st, &q)) != ERR_OK ||
	    (e = store_patch_update(in->st, p)) != ERR_OK ||
	    (e = store_patch_trailer_carry(in->st, o->id, p->id)) != ERR_OK)
		return e;
	return event(in, EVENT_SUPERSEDED, s->contribution_id, o->series_id,
	    o->id, p->message_id, "sent again");
}

/*
 * A series whose cover letter answers the same mail this patch answers
 * (`git send-email --in-reply-to=X` without threading the patches to the
 * cover): the patch's missing ancestor is not its own cover letter.
 */
static enum err
sibling_cover(struct ingest *in, const struct mail *m, int64_t project,
    int version, int number, int total, int64_t *series)
{
	struct store_series s;
	struct store_msg c;
	enum err e;

	e = store_series_window(in->st, project, m->from.email, version, total,
	    number, mail_time(in, m), SERIES_WINDOW, false, 0, series);
	if (e != ERR_OK)
		return e;
	if ((e = store_series_get(in->st, in->a, *series, &s)) == ERR_OK &&
	    s.cover_id &&
	    (e = store_msg_get(in->st, in->a, s.cover_id, &c)) == ERR_OK &&
	    c.parent && m->nrefs &&
	    strcmp(c.parent, m->refs[m->nrefs - 1]) == 0)
		return ERR_OK;
	*series = 0;
	return e == ERR_OK ? ERR_NOTFOUND : e;
}

static enum err
find_patch_series(struct ingest *in, const struct mail *m, int64_t project,
    int version, int number, int total, int64_t *series)
{
	bool missing;
	enum err e;

	e = series_by_refs(in, m, project, version, total, series, &missing);
	/* A lone "[PATCH]" is a series of its own; "[PATCH 1/1]" may have a
	 * cover letter ("0/1") it is not threaded to. */
	if (e != ERR_OK || *series || m->subj.total <= 0)
		return e;
	/* Not threaded to its series: the same sender's series of this
	 * version and total posted within a day.  When an ancestor is
	 * missing it is likely this patch's own cover letter, still on its
	 * way: then only a series without a cover can be ours. */
	e = store_series_window(in->st, project, m->from.email, version, total,
	    number, mail_time(in, m), SERIES_WINDOW, missing, 0, series);
	if (e == ERR_NOTFOUND && missing)
		e = sibling_cover(
		    in, m, project, version, number, total, series);
	return e == ERR_NOTFOUND ? ERR_OK : e;
}

/*
 * The series of patch number/total, 0 for a new one; *old: the copy of
 * this patch the series already holds (0: none).  An extra patch "3/2"
 * joins the series it is threaded to, as patchwork does; found nowhere,
 * it is a patch of its own.  A patch whose number the series holds
 * already with another patch is not part of it either.
 */
static enum err
patch_series(struct ingest *in, const struct mail *m, int64_t project,
    int *number, int *total, int64_t *series, struct store_patch *old)
{
	int version = m->subj.version > 0 ? m->subj.version : 1;
	int64_t id = 0;
	bool missing;
	enum err e;

	*series = 0;
	old->id = 0;
	if (*total > 0 && *number > *total) {
		e = series_by_refs(
		    in, m, project, version, *total, series, &missing);
		if (e != ERR_OK || *series == 0)
			*number = *total = 1;
		if (e != ERR_OK)
			return e;
	} else if (*total <= 0 || *number <= 0) {
		*number = *total = 1;
	}
	if (*series == 0 &&
	    (e = find_patch_series(
	         in, m, project, version, *number, *total, series)) != ERR_OK)
		return e;
	/* A series sent again unthreaded within the day: the sender's
	 * series that has this number already, if it is the same patch. */
	if (*series == 0 && *total == m->subj.total && m->nrefs == 0) {
		e = store_series_window(in->st, project, m->from.email, version,
		    *total, 0, mail_time(in, m), SERIES_WINDOW, false, 0,
		    series);
		if (e != ERR_OK && e != ERR_NOTFOUND)
			return e;
	}
	if (*series == 0)
		return ERR_OK;
	e = store_patch_by_number(in->st, *series, *number, &id);
	if (e == ERR_NOTFOUND)
		return ERR_OK;
	if (e != ERR_OK ||
	    (e = store_patch_get(in->st, in->a, id, old)) != ERR_OK)
		return e;
	/* Not the same patch; or other code under the author's From in a
	 * mail that does not prove it is theirs: kept aside, a patch of its
	 * own, so that `stage series` takes the author's code (issue 42).
	 * A copy with the same diff may take the place: nothing changes. */
	if (!same_patch(in, m, old) ||
	    (in->auth == NULL && !same_diff(m, old))) {
		*series = 0;
		old->id = 0;
	}
	return ERR_OK;
}

static enum err
place_patch(
    struct ingest *in, const struct mail *m, int64_t project, int64_t msg_id)
{
	int number = m->subj.number, total = m->subj.total;
	int64_t series = 0, patch_id;
	struct store_patch p, old;
	struct store_series s;
	bool created = false;
	int received;
	enum err e;

	if ((e = patch_series(
	         in, m, project, &number, &total, &series, &old)) != ERR_OK)
		return e;
	if (series == 0) {
		e = new_series(in, m, project, msg_id, total, false, &series);
		if (e != ERR_OK)
			return e;
		created = true;
	}
	if ((e = patch_row(in, m, project, series, msg_id, number,
	         old.id ? &old : NULL, &p)))
		return e;
	if ((e = store_patch_add(in->st, &p, &patch_id)) != ERR_OK)
		return e;
	p.id = patch_id;
	if ((e = store_msg_attach(in->st, msg_id, series, patch_id)))
		return e;
	if ((e = own_trailers(in, m, msg_id, patch_id)) != ERR_OK)
		return e;
	if ((e = store_series_recount(in->st, series, &received)) != ERR_OK)
		return e;
	if ((e = store_series_get(in->st, in->a, series, &s)) != ERR_OK)
		return e;
	if (s.cover_id == 0 && number == 1 && !created) {
		/* Without a cover letter, patch 1 names the series. */
		s.title = p.title;
		s.norm_title = p.norm_title;
		s.first_id = msg_id;
		if ((e = store_series_update(in->st, &s)) != ERR_OK)
			return e;
	}
	if (m->nrefs && (e = wait_missing(in, m, msg_id)) != ERR_OK)
		return e;
	if (created)
		e = link_series(in, series, m);
	else if (old.id)
		e = resend_copy(in, &p, &old, &s);
	else
		e = link_patch(in, patch_id);
	if (e == ERR_OK && !created && received >= s.expected)
		e = supersede_older(in, &s);
	if (e == ERR_OK)
		e = touch_series(in, series, m);
	return e;
}

/* A cover letter that arrives after its patches adopts their series. */
static enum err
adopt_series(struct ingest *in, const struct mail *m, int64_t project,
    int version, int total, int64_t *series)
{
	int64_t *ids = NULL;
	size_t n = 0, i;
	enum err e;

	*series = 0;
	if ((e = store_msg_pending_peek(in->st, m->msgid, &ids, &n)))
		return e;
	for (i = 0; i < n && *series == 0; i++) {
		struct store_msg w;
		struct store_series s;

		if ((e = store_msg_get(in->st, in->a, ids[i], &w)) != ERR_OK)
			break;
		if (w.kind != MAIL_PATCH || w.series_id == 0)
			continue;
		if ((e = store_series_get(in->st, in->a, w.series_id, &s)))
			break;
		if (s.cover_id == 0 && s.version == version &&
		    s.expected == total && s.project_id == project)
			*series = s.id;
	}
	free(ids);
	if (e != ERR_OK || *series)
		return e;
	e = store_series_window(in->st, project, m->from.email, version, total,
	    0, mail_time(in, m), SERIES_WINDOW, true, 0, series);
	return e == ERR_NOTFOUND ? ERR_OK : e;
}

/*
 * A cover letter of a series sent again without a new version: the same
 * sender's series of this version, total and cover title that it
 * answers, or that was posted within the day (docs/DESIGN.md §4: it stays one
 * series; the patches that answer this cover join it as copies).
 */
static enum err
resent_cover(struct ingest *in, const struct mail *m, int64_t project,
    int version, int64_t *series)
{
	struct store_series s;
	bool missing;
	enum err e;

	e = series_by_refs(
	    in, m, project, version, m->subj.total, series, &missing);
	if (e == ERR_OK && *series == 0)
		e = store_series_window(in->st, project, m->from.email, version,
		    m->subj.total, 0, mail_time(in, m), SERIES_WINDOW, false, 0,
		    series);
	if (e == ERR_NOTFOUND || (e == ERR_OK && *series == 0)) {
		*series = 0;
		return ERR_OK;
	}
	if (e != ERR_OK ||
	    (e = store_series_get(in->st, in->a, *series, &s)) != ERR_OK)
		return e;
	if (s.cover_id == 0 ||
	    strcmp(s.norm_title, subject_norm(in->a, m->subj.title)) != 0)
		*series = 0;
	return ERR_OK;
}

static enum err
place_cover(
    struct ingest *in, const struct mail *m, int64_t project, int64_t msg_id)
{
	int version = m->subj.version > 0 ? m->subj.version : 1;
	int64_t series;
	struct store_series s;
	enum err e;

	e = adopt_series(in, m, project, version, m->subj.total, &series);
	if (e == ERR_OK && series == 0)
		e = resent_cover(in, m, project, version, &series);
	if (e != ERR_OK)
		return e;
	if (series == 0) {
		e = new_series(
		    in, m, project, msg_id, m->subj.total, true, &series);
		if (e == ERR_OK)
			e = store_msg_attach(in->st, msg_id, series, 0);
		if (e == ERR_OK)
			e = link_series(in, series, m);
		return e;
	}
	if ((e = store_series_get(in->st, in->a, series, &s)) != ERR_OK)
		return e;
	s.cover_id = msg_id;
	s.first_id = msg_id;
	s.title = m->subj.title;
	s.norm_title = subject_norm(in->a, m->subj.title);
	if (m->change_id)
		s.change_id = m->change_id;
	if (m->base_commit)
		s.base_commit = m->base_commit;
	if ((e = store_series_update(in->st, &s)) != ERR_OK)
		return e;
	if ((e = store_msg_attach(in->st, msg_id, series, 0)) != ERR_OK)
		return e;
	/* The cover may name an older version the patches did not. */
	if ((e = link_series(in, series, m)) != ERR_OK)
		return e;
	return touch_series(in, series, m);
}

/* ---- the whole mail ---- */

static void
count_kind(struct ingest *in, const struct mail *m)
{
	switch (m->kind) {
	case MAIL_PATCH:
		in->stats.patches++;
		break;
	case MAIL_COVER:
		in->stats.covers++;
		break;
	case MAIL_REPLY:
		in->stats.replies++;
		break;
	case MAIL_PULL:
		in->stats.pulls++;
		break;
	case MAIL_BOT:
		in->stats.bots++;
		break;
	case MAIL_OTHER:
		in->stats.other++;
		break;
	}
	if (m->flags & MAIL_F_OVERLIMIT)
		in->stats.overlimit++;
}

static enum err
store_new(struct ingest *in, const char *raw, size_t n, const struct mail *m,
    int64_t project, unsigned flags, enum mail_kind kind, int64_t series,
    int64_t patch, int64_t *id)
{
	struct store_msg r;

	memset(&r, 0, sizeof(r));
	r.series_id = series;
	r.patch_id = patch;
	r.project_id = project;
	r.kind = kind;
	r.flags = flags;
	memcpy(r.hash, m->hash, sizeof(r.hash));
	r.date = m->date;
	r.msgid = m->msgid;
	r.from_name = m->from.name;
	r.from_email = m->from.email;
	r.subject = m->subject;
	if (!(flags & MAIL_F_DUPID)) {
		r.auth = in->auth;
		r.auth_note = in->auth_note;
	}
	return store_msg_add(
	    in->st, &r, m->nrefs ? m->refs[m->nrefs - 1] : NULL, raw, n, id);
}

/* The Message-ID among refs[from..] that two stored mails share, or
 * NULL: a command answering it could mean either (docs/DESIGN.md §4). */
static enum err
reused_ref(
    struct ingest *in, const struct mail *m, size_t from, const char **reused)
{
	size_t i, n;
	int64_t *ids;
	enum err e = ERR_OK;

	*reused = NULL;
	for (i = from; i < m->nrefs && *reused == NULL && e == ERR_OK; i++) {
		ids = NULL;
		if ((e = store_msg_copies(in->st, m->refs[i], &ids, &n)) ==
		        ERR_OK &&
		    n > 1)
			*reused = m->refs[i];
		free(ids);
	}
	return e;
}

/* A reply's commands, if any, run once, when it arrives (t: where it was
 * placed, at: by which of its refs; NULL and -1 when nowhere): a command
 * mail that answers nothing tracked is told so. */
static enum err
run_commands(struct ingest *in, const struct mail *m, int64_t msg_id,
    const struct store_msg *t, long at)
{
	const char *reused;
	enum err e;

	if (m->ncommands == 0 || in->conf == NULL)
		return ERR_OK;
	if ((e = reused_ref(in, m, at < 0 ? 0 : (size_t)at, &reused)))
		return e;
	if (in->wf == NULL)
		in->wf = workflow_new(in->st, in->conf);
	return workflow_mail(in->wf, m, in->auth, in->auth_note, reused, msg_id,
	    t ? t->series_id : 0, t ? t->patch_id : 0);
}

static enum err
place(struct ingest *in, const struct mail *m, int64_t project, int64_t msg_id)
{
	if (m->kind == MAIL_PATCH)
		return place_patch(in, m, project, msg_id);
	if (m->kind == MAIL_COVER)
		return place_cover(in, m, project, msg_id);
	return ERR_OK;
}

/*
 * Store a new mail and place it.  A reply's place is looked up first and
 * written with the row: most mail is replies, and that saves an update
 * for each.
 */
static enum err
store_and_place(struct ingest *in, const char *raw, size_t n,
    const struct mail *m, int64_t project)
{
	struct store_msg t;
	long at = -1;
	int64_t id;
	bool reply = placeable(m->kind);
	enum err e = ERR_OK;

	memset(&t, 0, sizeof(t));
	if (reply && m->nrefs)
		e = find_target(in, m, &t, &at);
	if (e == ERR_OK)
		e = store_new(in, raw, n, m, project, m->flags, m->kind,
		    at >= 0 ? t.series_id : 0, at >= 0 ? t.patch_id : 0, &id);
	if (e != ERR_OK)
		return e;
	if (reply && m->nrefs)
		e = place_reply_at(in, m, id, &t, at, NULL, in->auth);
	else if (!reply)
		e = place(in, m, project, id);
	if (e == ERR_OK && m->kind == MAIL_REPLY)
		e = run_commands(in, m, id, at >= 0 ? &t : NULL, at);
	/* What waited for a mail that has no place itself keeps waiting:
	 * its rows name this Message-ID either way. */
	if (e == ERR_OK && (!reply || at >= 0))
		e = settle(in, id);
	return e;
}

/*
 * Does the verdict on m matter (docs/DESIGN.md §5): a reply that may
 * command or give a trailer, a patch that may take another's place?  The
 * rest is not looked at: a signature check may cost a DNS lookup.
 */
static bool
wants_proof(const struct mail *m)
{
	if (m->flags & MAIL_F_OVERLIMIT)
		return false;
	return m->kind == MAIL_PATCH ||
	    (m->kind == MAIL_REPLY && (m->ncommands || m->ntrailers));
}

void
ingest_prove(const struct ingest *in, struct arena *a, const char *raw,
    size_t n, const struct mail *m, struct ingest_proof *p)
{
	p->auth = p->note = NULL;
	if (wants_proof(m))
		trust_judge(
		    in->trust, a, &in->road, m, raw, n, &p->auth, &p->note);
}

bool
ingest_delivered_before(struct ingest *in, const struct mail *m)
{
	struct store_msg old;
	bool same;

	if (m->msgid == NULL || !wants_proof(m))
		return false;
	arena_reset(in->a);
	same = store_msg_find(in->st, in->a, m->msgid, &old) == ERR_OK &&
	    memcmp(old.hash, m->hash, sizeof(old.hash)) == 0;
	arena_reset(in->a);
	return same;
}

bool
ingest_proof_may_wait(const struct ingest *in, const struct mail *m)
{
	return wants_proof(m) && trust_may_wait(in->trust, &in->road, m);
}

enum err
ingest_mail(struct ingest *in, const char *raw, size_t n, const struct mail *m,
    const struct ingest_proof *proof, int64_t project_id,
    enum ingest_result *res)
{
	struct store_msg old;
	int64_t id;
	enum err e;

	in->now = time_now();
	in->stats.seen++;
	arena_reset(in->a);
	in->auth = in->auth_note = NULL;
	e = store_msg_find(in->st, in->a, m->msgid, &old);
	if (e == ERR_OK && memcmp(old.hash, m->hash, sizeof(old.hash)) == 0) {
		in->stats.duplicates++;
		*res = INGEST_DUPLICATE;
		return store_msg_delivered(in->st, old.id);
	}
	if (e == ERR_OK) {
		/* Another mail under a stored Message-ID: kept, flagged, and
		 * never threaded (it could hijack the original's place). */
		char q[128];

		log_warn("ingest: <%s>: another mail reuses this Message-ID",
		    log_quote(q, sizeof(q), m->msgid, strlen(m->msgid)));
		in->stats.dupids++;
		*res = INGEST_DUPID;
		return store_new(in, raw, n, m, project_id,
		    m->flags | MAIL_F_DUPID, MAIL_OTHER, 0, 0, &id);
	}
	if (e != ERR_NOTFOUND)
		return e;
	*res = INGEST_STORED;
	in->stats.stored++;
	count_kind(in, m);
	in->auth = proof->auth;
	in->auth_note = proof->note;
	if (m->flags & (MAIL_F_OVERLIMIT | MAIL_F_BROKEN | MAIL_F_CHARSET)) {
		char q[128];

		log_msg(m->flags & MAIL_F_OVERLIMIT ? LOG_WARN : LOG_INFO,
		    "ingest: <%s>: %s: stored (%zu bytes)%s",
		    log_quote(q, sizeof(q), m->msgid, strlen(m->msgid)),
		    m->flags & MAIL_F_OVERLIMIT ? m->limit
		        : m->flags & MAIL_F_BROKEN
		        ? "broken MIME"
		        : "unknown charset or bad bytes",
		    n,
		    m->flags & MAIL_F_OVERLIMIT ? ", not parsed: over a limit"
		                                : ", parsed as far as it went");
	}
	if (m->flags & MAIL_F_DATEZONE) {
		struct str d = m->patch && m->patch->date.p
		    ? m->patch->date
		    : hdr_value(in->a, &m->hdr, "Date");
		char q[128], dq[96];

		log_warn("ingest: <%s>: date \"%s\": zone not understood, "
		         "taken as UTC",
		    log_quote(q, sizeof(q), m->msgid, strlen(m->msgid)),
		    log_quote(dq, sizeof(dq), d.p ? d.p : "", d.n));
	}
	return store_and_place(in, raw, n, m, project_id);
}

/* Placing again never runs away, even on a thread built to make it:
 * more than this many placings for one mail is a bug or an attack. */
#define SETTLE_MAX (1u << 20)

/*
 * msg_id got a place: what waits for it is placed again, then what waits
 * for those that moved, and so on, breadth first.
 */
static enum err
settle(struct ingest *in, int64_t msg_id)
{
	int64_t *todo = NULL, *ids = NULL;
	size_t cap = 0, n = 0, head = 0, nids, i;
	unsigned placings = 0;
	enum err e = ERR_OK;

	todo = xgrow(todo, &cap, 1, sizeof(*todo));
	todo[n++] = msg_id;
	while (head < n && e == ERR_OK) {
		struct arena *a = arena_new();
		struct store_msg x;

		e = store_msg_get(in->st, a, todo[head++], &x);
		if (e == ERR_OK)
			e = store_msg_pending_take(
			    in->st, x.msgid, &ids, &nids);
		for (i = 0; e == ERR_OK && i < nids; i++) {
			bool moved;

			if (++placings > SETTLE_MAX) {
				char q[128];

				log_err("ingest: <%s>: over %u replies placed "
				        "again: stopped",
				    log_quote(
				        q, sizeof(q), x.msgid, strlen(x.msgid)),
				    SETTLE_MAX);
				e = ERR_LIMIT;
				break;
			}
			e = place_again(in, ids[i], &moved);
			if (e == ERR_OK && moved) {
				todo = xgrow(todo, &cap, n + 1, sizeof(*todo));
				todo[n++] = ids[i];
			}
		}
		free(ids);
		ids = NULL;
		arena_free(a);
	}
	free(todo);
	return e;
}
