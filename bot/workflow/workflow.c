/*
 * The patch state machine (DESIGN.md §3) and its commands (§5).
 *
 * Every command runs in the caller's transaction and is all or nothing:
 * it checks who asks (maintainer of the project and of every file the
 * patches touch, CI address, the author) and that every patch it names
 * may make the transition, and only then changes anything.  Each change
 * is an event; the mails it causes are queued with it.
 */
#include "bot/workflow/workflow.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/mailout/notify.h"
#include "bot/workflow/forward.h"
#include "bot/workflow/trees.h"
#include "bot/workflow/trust.h"
#include "bot/workflow/vdiff.h"
#include "parsers/addr.h"
#include "storage/store_event.h"
#include "storage/store_msg.h"
#include "storage/store_outbox.h"
#include "storage/store_patch.h"
#include "storage/store_series.h"
#include "storage/store_test.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

struct workflow {
	struct store *st;
	const struct config *conf;
	struct notify *nt;
	struct arena *a;
	int64_t now;
};

struct who {
	const char *email; /* NULL: the local user */
	const char *label; /* for events and mails */
	int64_t msg_id; /* the command mail; 0 from the terminal */
};

struct target {
	struct store_series s;
	const char *project; /* name, "" when unassigned */
	const struct conf_project *conf;
	struct store_patch *p;
	size_t n;
	bool whole; /* the whole series */
	/* The extra patches ("3/2") a whole series leaves out: they join
	 * the series for people to see, and are staged one by one. */
	const char *extras;
	/* The command acts on the whole project (forward, a tree): only a
	 * maintainer of all of it may. */
	bool all_paths;
};

struct workflow *
workflow_new(struct store *st, const struct config *conf)
{
	struct workflow *w = xcalloc(1, sizeof(*w));

	w->st = st;
	w->conf = conf;
	w->nt = notify_new(st, conf);
	w->a = arena_new();
	return w;
}

void
workflow_free(struct workflow *w)
{
	if (w == NULL)
		return;
	notify_free(w->nt);
	arena_free(w->a);
	free(w);
}

static enum err
load_target(struct workflow *w, int64_t series, int64_t patch, bool whole,
    struct target *t)
{
	int64_t *ids = NULL;
	size_t n = 0, i;
	enum err e;

	memset(t, 0, sizeof(*t));
	if ((e = store_series_get(w->st, w->a, series, &t->s)) != ERR_OK ||
	    (e = store_project_get(w->st, t->s.project_id, &t->project)))
		return e;
	t->project = arena_strdup(w->a, t->project);
	t->conf = config_project(w->conf, t->project);
	t->whole = whole || patch == 0;
	if (t->whole) {
		if ((e = store_patch_of_series(w->st, series, &ids, &n)))
			return e;
	} else {
		ids = xmalloc(sizeof(*ids));
		ids[0] = patch;
		n = 1;
	}
	t->p = arena_zalloc(w->a, (n ? n : 1) * sizeof(*t->p));
	for (i = 0; i < n && e == ERR_OK; i++) {
		struct store_patch *p = &t->p[t->n];

		if ((e = store_patch_get(w->st, w->a, ids[i], p)) != ERR_OK)
			break;
		if (t->whole && t->s.expected > 0 &&
		    p->number > t->s.expected) {
			t->extras = arena_printf(w->a, "%s%s%s (%d/%d)",
			    t->extras ? t->extras : "", t->extras ? ", " : "",
			    p->slug, p->number, t->s.expected);
			continue;
		}
		t->n++;
	}
	free(ids);
	return e;
}

/* ---- who may ---- */

/* Is email a maintainer of the target's project?  *outside gets the files
 * of the target (all of the project for a target that is the whole
 * project) that their path patterns do not cover. */
static bool
maintainer(struct workflow *w, const struct target *t, const char *email,
    struct buf *outside)
{
	bool found = false;
	size_t k;

	if (t->all_paths)
		return trust_maintains(
		    w->conf, t->project, email, NULL, outside);
	for (k = 0; k < t->n; k++)
		found = trust_maintains(
		    w->conf, t->project, email, t->p[k].files, outside);
	return t->n ? found
	            : trust_maintains(w->conf, t->project, email, "", outside);
}

static bool
author(struct workflow *w, const struct target *t, const char *email)
{
	size_t i;

	if (trust_same_person(w->conf, t->s.submitter_email, email))
		return true;
	for (i = 0; i < t->n; i++)
		if (!trust_same_person(w->conf, t->p[i].author_email, email))
			return false;
	return t->n > 0;
}

/* May who run c on t?  *why says why not. */
static bool
allowed(struct workflow *w, const struct command *c, const struct target *t,
    const struct who *who, struct buf *why)
{
	struct buf outside = BUF_INIT;
	bool ok;

	if (who->email == NULL || c->verb == CMD_HELP)
		return true;
	if (c->verb == CMD_CHECK) {
		if (trust_ci(w->conf, who->email))
			return true;
		buf_adds(why,
		    "only the CI addresses of the configuration may "
		    "report test results");
		return false;
	}
	ok = maintainer(w, t, who->email, &outside);
	if (ok && outside.n && t->all_paths) {
		buf_addf(why,
		    "this needs a maintainer of %s; your path patterns do "
		    "not cover it",
		    buf_cstr(&outside));
		ok = false;
	} else if (ok && outside.n) {
		buf_addf(why, "you maintain none of these files: %s",
		    buf_cstr(&outside));
		ok = false;
	} else if (!ok && c->verb == CMD_WITHDRAW && author(w, t, who->email)) {
		ok = true;
	} else if (!ok && author(w, t, who->email)) {
		buf_adds(why,
		    "authors may withdraw their patches; only a "
		    "maintainer may do this");
	} else if (!ok) {
		buf_addf(why, "you are not a maintainer of %s",
		    *t->project ? t->project : "this list");
	}
	buf_free(&outside);
	return ok;
}

/* ---- transitions ---- */

static bool
state_is(const struct store_patch *p, const char *s)
{
	return strcmp(p->state, s) == 0;
}

static bool
unstaged(const struct store_patch *p)
{
	return state_is(p, "new") || state_is(p, "changes-requested") ||
	    state_is(p, "rejected");
}

static void
say_state(struct buf *why, const struct store_patch *p)
{
	buf_addf(why, "%s%s is %s", why->n ? "; " : "", p->slug, p->state);
	if (p->queue)
		buf_addf(why, " (%s)", p->queue);
	if (p->reason)
		buf_addf(why, " (%s)", p->reason);
}

static enum err
event(struct workflow *w, const char *kind, const struct target *t,
    const struct store_patch *p, const struct who *who, const char *detail,
    int64_t *id)
{
	struct store_event e;

	memset(&e, 0, sizeof(e));
	e.time = w->now;
	e.kind = kind;
	e.contribution_id = t->s.contribution_id;
	e.series_id = t->s.id;
	e.patch_id = p ? p->id : 0;
	e.message_id = who->msg_id;
	e.actor = who->label;
	e.detail = detail;
	return store_event_add(w->st, &e, id);
}

/* Record a patch's change, its event and, for mail events, its mail. */
static enum err
changed(struct workflow *w, const struct target *t, struct store_patch *p,
    const char *kind, const struct who *who, const char *detail,
    const struct notify_kv *kv)
{
	int64_t ev;
	bool held;
	enum err e = store_patch_update(w->st, p);

	if (e == ERR_OK)
		e = event(w, kind, t, p, who, detail, &ev);
	if (e != ERR_OK || strcmp(kind, "state") == 0 ||
	    strcmp(kind, "withdrawn") == 0)
		return e;
	/* Stage, update and graduate are told once the tree has them. */
	held = (strcmp(kind, "staged") == 0 || strcmp(kind, "updated") == 0 ||
	           strcmp(kind, "graduated") == 0) &&
	    t->conf && t->conf->staging;
	return notify_patch(w->nt, kind, p->id, ev, who->label, kv, held);
}

static enum err
queue_end(struct workflow *w, const struct target *t, struct store_patch *p,
    const char *queue)
{
	int64_t pos;
	enum err e =
	    store_patch_queue_next(w->st, t->s.project_id, queue, &pos);

	if (e == ERR_OK) {
		p->state = "staged";
		p->queue = queue;
		p->queue_pos = pos;
		p->queued_at = w->now;
		p->conflict = false;
		p->reason = NULL;
	}
	return e;
}

/* "the code, the description and the trailers": what changed, in words
 * for the "updated" mail; "" when nothing did. */
static const char *
changes(struct arena *a, const struct vdiff *v)
{
	const char *what[3];
	char out[64] = "";
	size_t n = 0, i;

	if (v->code)
		what[n++] = "the code";
	if (v->description)
		what[n++] = "the description";
	if (v->trailers)
		what[n++] = "the trailers";
	for (i = 0; i < n; i++) {
		strcat(out, i == 0 ? "" : i + 1 == n ? " and " : ", ");
		strcat(out, what[i]);
	}
	return arena_strdup(a, out);
}

enum err
workflow_replace_staged(struct workflow *w, struct store_patch *p,
    struct store_patch *o, const char *actor, int64_t msg_id)
{
	const struct conf_project *pr;
	struct store_series s, os;
	struct store_event ev;
	struct notify_kv kv[8];
	struct vdiff v;
	const char *project;
	char ver[16];
	int64_t ev_id;
	enum err e;

	w->now = time_now();
	p->state = "staged";
	p->queue = o->queue;
	p->queue_pos = o->queue_pos;
	p->queued_at = o->queued_at;
	p->conflict = false;
	p->reason = NULL;
	o->state = "superseded";
	o->queue = NULL;
	o->queue_pos = 0;
	if ((e = store_patch_update(w->st, o)) ||
	    (e = store_patch_update(w->st, p)) ||
	    (e = store_series_get(w->st, w->a, p->series_id, &s)) ||
	    (e = store_series_get(w->st, w->a, o->series_id, &os)) ||
	    (e = vdiff_compare(
	         w->st, w->a, w->conf, o->message_id, p->message_id, &v)) ||
	    (e = store_project_get(w->st, p->project_id, &project)))
		return e;
	memset(&ev, 0, sizeof(ev));
	ev.time = w->now;
	ev.kind = "updated";
	ev.contribution_id = s.contribution_id;
	ev.series_id = s.id;
	ev.patch_id = p->id;
	ev.message_id = msg_id ? msg_id : p->message_id;
	ev.actor = actor;
	ev.detail = o->slug;
	if ((e = store_event_add(w->st, &ev, &ev_id)) != ERR_OK)
		return e;
	if (snprintf(ver, sizeof(ver), "%d", os.version) >= (int)sizeof(ver))
		return ERR_INTERNAL;
	kv[0] = (struct notify_kv){ "old_version", ver };
	kv[1] = (struct notify_kv){ "interdiff", v.interdiff };
	kv[2] = (struct notify_kv){ "changes", changes(w->a, &v) };
	kv[3] = (struct notify_kv){ "unchanged",
		v.code || v.description || v.trailers ? NULL : "yes" };
	kv[4] = (struct notify_kv){ "code_changed", v.code ? "yes" : NULL };
	kv[5] = (struct notify_kv){ "description_changed",
		v.description ? "yes" : NULL };
	kv[6] =
	    (struct notify_kv){ "trailers_changed", v.trailers ? "yes" : NULL };
	kv[7] = (struct notify_kv){ NULL, NULL };
	pr = config_project(w->conf, project);
	return notify_patch(
	    w->nt, "updated", p->id, ev_id, actor, kv, pr && pr->staging);
}

/* The staged patch holding p's slug (an older version: a newer one keeps
 * its predecessor's slug), or 0. */
static enum err
staged_holder(struct workflow *w, const struct target *t,
    const struct store_patch *p, struct store_patch *q)
{
	int64_t id;
	enum err e = store_patch_by_slug(w->st, t->s.project_id, p->slug, &id);

	if (e == ERR_NOTFOUND || (e == ERR_OK && id == p->id)) {
		q->id = 0;
		return ERR_OK;
	}
	if (e == ERR_OK &&
	    (e = store_patch_get(w->st, w->a, id, q)) == ERR_OK &&
	    !state_is(q, "staged"))
		q->id = 0;
	return e;
}

static enum err
do_stage(struct workflow *w, const struct target *t, const struct who *who,
    struct buf *msg)
{
	struct buf rep = BUF_INIT;
	size_t i, n = 0;
	enum err e = ERR_OK;

	for (i = 0; i < t->n; i++)
		if (!unstaged(&t->p[i]) && !state_is(&t->p[i], "staged"))
			say_state(msg, &t->p[i]);
	if (msg->n)
		return ERR_CONFLICT;
	if (t->n == 0) {
		buf_adds(msg, "no patch of this series has arrived yet");
		return ERR_CONFLICT;
	}
	for (i = 0; i < t->n && e == ERR_OK; i++) {
		struct store_patch *p = &t->p[i], q;

		if (state_is(p, "staged"))
			continue;
		/* A newer version of a staged patch (one that could not take
		 * its place by itself) replaces it where it stands. */
		if ((e = staged_holder(w, t, p, &q)) != ERR_OK)
			break;
		if (q.id) {
			e = workflow_replace_staged(
			    w, p, &q, who->label, who->msg_id);
			if (e == ERR_OK)
				buf_addf(&rep, "%s%s (patch-id %.12s)",
				    rep.n ? ", " : "", p->slug,
				    p->patch_id ? p->patch_id : "none");
			continue;
		}
		if ((e = queue_end(w, t, p, "unstable")) == ERR_OK)
			e = changed(w, t, p, "staged", who, NULL, NULL);
		if (e == ERR_OK)
			buf_addf(msg, "%s%s (patch-id %.12s)", n++ ? ", " : "",
			    p->slug, p->patch_id ? p->patch_id : "none");
	}
	if (e == ERR_OK && n)
		buf_adds(msg,
		    n == 1 ? ": added to the unstable queue"
		           : ": added to the unstable queue, in this "
		             "order");
	if (e == ERR_OK && rep.n)
		buf_addf(msg, "%s%s: in place of the staged older version",
		    n ? "; " : "", buf_cstr(&rep));
	if (e == ERR_OK && n == 0 && rep.n == 0)
		buf_adds(msg, "already staged: nothing to do");
	if (e == ERR_OK && t->extras)
		buf_addf(msg,
		    "; not staged, beyond the series' count: %s (answer "
		    "each to stage it)",
		    t->extras);
	buf_free(&rep);
	return e;
}

static bool
droppable(const struct store_patch *p)
{
	return unstaged(p) || state_is(p, "staged");
}

static enum err
do_drop(struct workflow *w, const struct target *t, const struct who *who,
    const char *reason, const char *words, struct buf *msg)
{
	const char *kind =
	    strcmp(reason, "withdrawn") == 0 ? "dropped" : "dropped";
	size_t i;
	enum err e = ERR_OK;

	for (i = 0; i < t->n; i++)
		if (!droppable(&t->p[i]))
			say_state(msg, &t->p[i]);
	if (msg->n || t->n == 0) {
		if (t->n == 0)
			buf_adds(msg, "no patch to drop");
		return ERR_CONFLICT;
	}
	for (i = 0; i < t->n && e == ERR_OK; i++) {
		struct store_patch *p = &t->p[i];
		struct notify_kv kv[] = { { "reason", reason },
			{ "words", words }, { "queue", p->queue },
			{ NULL, NULL } };

		p->state = "dropped";
		p->reason = reason;
		e = changed(w, t, p, kind, who, words ? words : reason, kv);
		p->queue = NULL;
		p->queue_pos = 0;
		if (e == ERR_OK)
			e = store_patch_update(w->st, p);
		if (e == ERR_OK)
			buf_addf(msg, "%s%s", i ? ", " : "", p->slug);
	}
	if (e == ERR_OK)
		buf_addf(msg, ": dropped (%s)", reason);
	return e;
}

/* policy: NULL from a maintainer, else what the promotion policy saw
 * (for the event and the mail). */
static enum err
do_graduate(struct workflow *w, const struct target *t, const struct who *who,
    const char *policy, struct buf *msg)
{
	struct notify_kv kv[] = { { "policy", policy }, { NULL, NULL } };
	size_t i;
	enum err e = ERR_OK;

	for (i = 0; i < t->n; i++)
		if (!state_is(&t->p[i], "staged") || !t->p[i].queue ||
		    strcmp(t->p[i].queue, "unstable") != 0)
			say_state(msg, &t->p[i]);
	if (msg->n || t->n == 0) {
		buf_adds(msg,
		    t->n ? ": only patches in the unstable queue "
		           "graduate"
		         : "no patch to graduate");
		return ERR_CONFLICT;
	}
	for (i = 0; i < t->n && e == ERR_OK; i++) {
		if ((e = queue_end(w, t, &t->p[i], "stable")) == ERR_OK)
			e = changed(w, t, &t->p[i], "graduated", who,
			    policy ? "promotion policy" : NULL,
			    policy ? kv : NULL);
		if (e == ERR_OK)
			buf_addf(msg, "%s%s", i ? ", " : "", t->p[i].slug);
	}
	if (e == ERR_OK)
		buf_adds(msg, ": moved to the stable queue");
	return e;
}

/*
 * A staged patch keeps its place: "changes-requested" marks it (the
 * promotion policy holds it until a new version arrives or the mark is
 * lifted), "new" lifts the mark.
 */
static bool
markable(const struct store_patch *p, const char *state)
{
	return state_is(p, "staged") &&
	    (strcmp(state, "changes-requested") == 0 ||
	        strcmp(state, "new") == 0);
}

static enum err
do_state(struct workflow *w, const struct target *t, const struct who *who,
    const char *state, struct buf *msg)
{
	size_t i, marked = 0;
	enum err e = ERR_OK;

	for (i = 0; i < t->n; i++)
		if (!unstaged(&t->p[i]) && !markable(&t->p[i], state))
			say_state(msg, &t->p[i]);
	if (msg->n || t->n == 0) {
		buf_adds(msg,
		    t->n ? ": only unstaged patches change state "
		           "this way (drop a staged one)"
		         : "no patch");
		return ERR_CONFLICT;
	}
	for (i = 0; i < t->n && e == ERR_OK; i++) {
		if (state_is(&t->p[i], "staged"))
			marked++;
		else
			t->p[i].state = state;
		e = changed(w, t, &t->p[i], "state", who, state, NULL);
		if (e == ERR_OK)
			buf_addf(msg, "%s%s", i ? ", " : "", t->p[i].slug);
	}
	if (e == ERR_OK && marked == t->n)
		buf_addf(msg,
		    strcmp(state, "new") == 0
		        ? ": stays staged; the promotion policy may "
		          "graduate it again"
		        : ": stays staged, but the promotion policy holds "
		          "it back until a new version arrives");
	else if (e == ERR_OK)
		buf_addf(msg, ": now %s%s", state,
		    marked ? " (the staged ones are marked)" : "");
	return e;
}

static enum err
do_fold(struct workflow *w, const struct target *t, const struct who *who,
    const char *slug, struct buf *msg)
{
	struct store_patch into;
	int64_t id;
	struct notify_kv kv[] = { { "reason", "folded" }, { "into", slug },
		{ NULL, NULL } };
	enum err e;

	if (t->n != 1 || t->whole) {
		buf_adds(msg, "fold takes one patch: answer the fix-up itself");
		return ERR_INVAL;
	}
	e = store_patch_by_slug(w->st, t->s.project_id, slug, &id);
	if (e == ERR_NOTFOUND) {
		buf_addf(msg, "no patch is called %s", slug);
		return ERR_INVAL;
	}
	if (e == ERR_OK)
		e = store_patch_get(w->st, w->a, id, &into);
	if (e != ERR_OK)
		return e;
	if (!state_is(&into, "staged") || into.id == t->p[0].id) {
		say_state(msg, &into);
		buf_adds(msg, ": a fix-up folds into a staged patch");
		return ERR_CONFLICT;
	}
	if (!droppable(&t->p[0])) {
		say_state(msg, &t->p[0]);
		return ERR_CONFLICT;
	}
	t->p[0].state = "dropped";
	t->p[0].reason = "folded";
	t->p[0].folded_into = into.id;
	e = changed(w, t, &t->p[0], "dropped", who, slug, kv);
	t->p[0].queue = NULL;
	t->p[0].queue_pos = 0;
	if (e == ERR_OK)
		e = store_patch_update(w->st, &t->p[0]);
	if (e == ERR_OK) {
		struct notify_kv fold[] = { { "folded", t->p[0].slug },
			{ NULL, NULL } };

		e = changed(w, t, &into, "updated", who, t->p[0].slug, fold);
	}
	if (e == ERR_OK)
		buf_addf(msg, "%s: folded into %s", t->p[0].slug, into.slug);
	return e;
}

static enum err
do_check(struct workflow *w, const struct target *t, const struct who *who,
    const struct command *c, const char *summary, struct buf *msg)
{
	size_t i;
	enum err e = ERR_OK;

	for (i = 0; i < t->n && e == ERR_OK; i++) {
		struct store_check k;

		memset(&k, 0, sizeof(k));
		k.patch_id = t->p[i].id;
		k.series_id = t->s.id;
		k.context = c->arg;
		k.state = c->arg2;
		k.url = c->arg3;
		k.summary = summary;
		k.reporter = who->label;
		k.time = w->now;
		if ((e = store_check_add(w->st, &k)) == ERR_OK)
			e = event(w, "check", t, &t->p[i], who, c->arg2, NULL);
	}
	if (e == ERR_OK)
		buf_addf(msg, "%s: %s recorded for %zu patch%s", c->arg,
		    c->arg2, t->n, t->n == 1 ? "" : "es");
	return e;
}

/*
 * A retest is asked for here and run by the tester (a room above this
 * one): a request row per staged patch, which the tester takes on its
 * next round, forgetting what it knew of those trees.
 */
static enum err
do_retest(struct workflow *w, const struct target *t, const struct who *who,
    struct buf *msg)
{
	size_t i, n = 0;
	enum err e = ERR_OK;

	if (w->conf->test_command == NULL) {
		buf_adds(msg, "no tests are configured (test.command)");
		return ERR_CONFLICT;
	}
	if (t->conf == NULL || t->conf->staging == NULL) {
		buf_addf(msg, "tests run on the staging tree, and %s has none",
		    *t->project ? t->project : "this list");
		return ERR_CONFLICT;
	}
	for (i = 0; i < t->n; i++)
		if (!state_is(&t->p[i], "staged") || t->p[i].conflict)
			say_state(msg, &t->p[i]);
	if (msg->n || t->n == 0) {
		buf_adds(msg,
		    t->n ? ": only staged patches that apply are tested"
		         : "no patch to test");
		return ERR_CONFLICT;
	}
	for (i = 0; i < t->n && e == ERR_OK; i++) {
		e = store_test_request(
		    w->st, t->s.project_id, t->p[i].id, who->label, w->now);
		if (e == ERR_OK)
			buf_addf(msg, "%s%s", n++ ? ", " : "", t->p[i].slug);
	}
	if (e == ERR_OK)
		buf_adds(msg,
		    ": queued for testing again, whatever was known of "
		    "them");
	return e;
}

static const char help_text[] =
    "Commands, each on a line of its own in a reply to a patch (or to the "
    "cover letter, for the whole series):\n"
    "  stage [series]            add to the unstable queue (maintainers)\n"
    "  drop REASON [WORDS]       nacked, to-be-updated, withdrawn, "
    "obsolete, failures\n"
    "  graduate                  move from the unstable to the stable queue\n"
    "  fold SLUG                 fold this fix-up into a staged patch\n"
    "  state new|changes-requested|rejected\n"
    "  retest                    run the tests again\n"
    "  check CONTEXT STATE [URL] record a test result (CI addresses)\n"
    "  withdraw                  drop your own patch (its author)\n"
    "  forward                   send the stable queue upstream "
    "(maintainers)\n"
    "  help                      this list";

/*
 * #yard forward: a whole-project maintainer asks for the stable queue to
 * go upstream; it goes with the next rebuild, once the branch is built
 * (and pushed, for a pull request).
 */
static enum err
do_forward(struct workflow *w, const struct conf_project *p,
    const struct who *who, struct buf *msg)
{
	struct command c;
	struct target t;

	if (p == NULL) {
		buf_adds(msg, "this mail belongs to no project");
		return ERR_INVAL;
	}
	memset(&c, 0, sizeof(c));
	c.verb = CMD_FORWARD;
	memset(&t, 0, sizeof(t));
	t.project = p->name;
	t.conf = p;
	t.all_paths = true;
	if (!allowed(w, &c, &t, who, msg))
		return ERR_PERM;
	if (p->staging == NULL || p->forward_to == NULL) {
		buf_addf(msg,
		    "%s does not forward: it needs a staging repository "
		    "and project.%s.forward-to",
		    p->name, p->name);
		return ERR_CONFLICT;
	}
	if (p->forward == CONF_FORWARD_PULL && p->push == NULL) {
		buf_addf(msg,
		    "%s forwards pull requests, which need the stable "
		    "branch pushed: project.%s.push is not set",
		    p->name, p->name);
		return ERR_CONFLICT;
	}
	buf_addf(msg,
	    "the stable queue of %s goes to %s as a %s with the next "
	    "rebuild; patches forwarded before and unchanged since are "
	    "not sent again",
	    p->name, p->forward_to,
	    p->forward == CONF_FORWARD_PULL ? "pull request" : "series");
	return forward_request(w->st, p, who->label);
}

static enum err
run(struct workflow *w, const struct command *c, const struct target *t,
    const struct who *who, struct buf *msg)
{
	if (c->verb == CMD_FORWARD)
		return do_forward(w, t->conf, who, msg);
	if (!allowed(w, c, t, who, msg))
		return ERR_PERM;
	switch (c->verb) {
	case CMD_STAGE:
		return do_stage(w, t, who, msg);
	case CMD_DROP:
		return do_drop(w, t, who, c->arg, c->arg2, msg);
	case CMD_WITHDRAW:
		return do_drop(w, t, who, "withdrawn", NULL, msg);
	case CMD_GRADUATE:
		return do_graduate(w, t, who, NULL, msg);
	case CMD_STATE:
		return do_state(w, t, who, c->arg, msg);
	case CMD_FOLD:
		return do_fold(w, t, who, c->arg, msg);
	case CMD_CHECK:
		return do_check(w, t, who, c, NULL, msg);
	case CMD_RETEST:
		return do_retest(w, t, who, msg);
	case CMD_HELP:
		buf_adds(msg, help_text);
		return ERR_OK;
	case CMD_FORWARD:
		return ERR_INVAL; /* above */
	case CMD_BAD:
		buf_adds(msg, c->error ? c->error : "not a command");
		return ERR_INVAL;
	}
	return ERR_INVAL;
}

static bool
refusal(enum err e)
{
	return e == ERR_PERM || e == ERR_CONFLICT || e == ERR_INVAL;
}

/* ---- pull requests: trees ---- */

/* The pull request a mail answers: its nearest stored ancestor, when
 * that is one; 0 otherwise. */
static int64_t
answered_pull(struct workflow *w, const struct mail *m)
{
	size_t i;

	for (i = m->nrefs; i-- > 0;) {
		struct store_msg r;

		if (store_msg_find(w->st, w->a, m->refs[i], &r) != ERR_OK)
			continue;
		return r.kind == MAIL_PULL ? r.id : 0;
	}
	return 0;
}

/* stage and drop on a pull request stage or drop its tree. */
static enum err
run_pull(struct workflow *w, const struct command *c, int64_t pull,
    const struct who *who, struct buf *msg)
{
	struct store_msg r;
	struct target t;

	if (c->verb == CMD_HELP || c->verb == CMD_BAD) {
		memset(&t, 0, sizeof(t));
		t.project = "";
		return run(w, c, &t, who, msg);
	}
	if (c->verb != CMD_STAGE && c->verb != CMD_DROP) {
		buf_adds(msg,
		    "a pull request is staged or dropped as a whole; "
		    "nothing else applies to it");
		return ERR_INVAL;
	}
	/* A tree is merged into the whole of unstable: only a maintainer of
	 * all of the project may, as for every verb through allowed(). */
	if (store_msg_get(w->st, w->a, pull, &r) == ERR_OK) {
		memset(&t, 0, sizeof(t));
		t.project = r.project_id
		    ? arena_strdup(
		          w->a, store_project_name(w->st, r.project_id))
		    : "";
		t.conf = config_project(w->conf, t.project);
		t.all_paths = true;
		if (!allowed(w, c, &t, who, msg))
			return ERR_PERM;
	}
	return trees_stage_pull(w->st, w->conf, w->a, pull, c->verb == CMD_DROP,
	    who->label, who->msg_id, w->now, msg);
}

/* ---- by mail ---- */

/* The project of a stored mail (its list), or NULL. */
static const struct conf_project *
mail_project(struct workflow *w, int64_t msg_id)
{
	struct store_msg r;

	if (store_msg_get(w->st, w->a, msg_id, &r) != ERR_OK ||
	    r.project_id == 0)
		return NULL;
	return config_project(w->conf, store_project_name(w->st, r.project_id));
}

static enum err
refuse_mail(struct workflow *w, const struct mail *m, int64_t msg_id,
    int64_t series_id, const char *why)
{
	struct store_event e;
	struct store_series s;
	char q[128], f[128];

	log_warn("workflow: <%s>: commands from %s refused: %s",
	    log_quote(q, sizeof(q), m->msgid, strlen(m->msgid)),
	    log_quote(f, sizeof(f), m->from.email, strlen(m->from.email)), why);
	memset(&e, 0, sizeof(e));
	e.time = w->now;
	e.kind = "refused";
	e.message_id = msg_id;
	e.actor = m->from.email;
	e.detail = why;
	if (series_id &&
	    store_series_get(w->st, w->a, series_id, &s) == ERR_OK) {
		e.contribution_id = s.contribution_id;
		e.series_id = series_id;
	}
	return store_event_add(w->st, &e, NULL);
}

/*
 * Why a command answering a reused Message-ID is refused: the mails that
 * share it, so that the maintainer sees which is which.
 */
static enum err
reused_why(struct workflow *w, const char *msgid, struct buf *msg)
{
	int64_t *ids = NULL;
	size_t n = 0, i;
	enum err e = store_msg_copies(w->st, msgid, &ids, &n);

	buf_addf(msg,
	    "<%s> names %zu different mails, so this could mean either:", msgid,
	    n);
	for (i = 0; i < n && e == ERR_OK; i++) {
		struct store_msg r;
		char when[32];

		if ((e = store_msg_get(w->st, w->a, ids[i], &r)) != ERR_OK)
			break;
		if (time_fmt_iso(when, sizeof(when), r.date) != ERR_OK)
			snprintf(when, sizeof(when), "no date");
		buf_addf(msg, "%s %zu. from %s, %s, \"%s\"", i ? ";" : "",
		    i + 1, r.from_email, when, r.subject);
	}
	buf_adds(msg,
	    ". Nothing was done: answer another mail of the "
	    "thread, or give the command at a terminal "
	    "(patchyard stage REF) with the patch's id");
	free(ids);
	return e;
}

enum err
workflow_mail(struct workflow *w, const struct mail *m, const char *auth,
    const char *auth_note, const char *reused, int64_t msg_id,
    int64_t series_id, int64_t patch_id)
{
	struct notify_line *lines;
	struct who who;
	int64_t contribution = 0, pull;
	const char *why;
	size_t i;
	enum err e = ERR_OK;

	if (m->ncommands == 0 || (m->flags & MAIL_F_AUTO))
		return ERR_OK;
	arena_reset(w->a);
	w->now = time_now();
	if (auth == NULL) {
		why = arena_printf(w->a, "not authenticated: %s",
		    auth_note ? auth_note : "not checked");
		return refuse_mail(w, m, msg_id, series_id, why);
	}
	who.email = m->from.email;
	who.label =
	    *m->from.name ? arena_strdup(w->a, m->from.name) : m->from.email;
	who.msg_id = msg_id;
	lines = arena_zalloc(w->a, m->ncommands * sizeof(*lines));
	pull = series_id ? 0 : answered_pull(w, m);
	for (i = 0; i < m->ncommands && e == ERR_OK; i++) {
		const struct command *c = &m->commands[i];
		struct buf msg = BUF_INIT;
		struct target t;

		if (reused && c->verb != CMD_HELP) {
			if ((e = reused_why(w, reused, &msg)) == ERR_OK)
				e = ERR_PERM;
		} else if (c->verb == CMD_FORWARD && !series_id) {
			e = do_forward(w, mail_project(w, msg_id), &who, &msg);
		} else if (pull) {
			e = run_pull(w, c, pull, &who, &msg);
		} else if (c->verb == CMD_BAD || c->verb == CMD_HELP ||
		    series_id) {
			e = series_id ? load_target(w, series_id, patch_id,
			                    c->verb == CMD_STAGE && c->arg, &t)
			              : ERR_OK;
			if (e == ERR_OK && series_id == 0)
				memset(&t, 0, sizeof(t)), t.project = "";
			if (e == ERR_OK) {
				e = run(w, c, &t, &who, &msg);
				contribution = t.s.contribution_id;
			}
		} else {
			buf_adds(&msg,
			    "this mail answers no patch patchyard "
			    "tracks");
			e = ERR_NOTFOUND;
		}
		lines[i].line = c->line;
		lines[i].status = e == ERR_OK ? "done" : "refused";
		lines[i].message = arena_strdup(w->a, buf_cstr(&msg));
		buf_free(&msg);
		if (refusal(e) || e == ERR_NOTFOUND)
			e = ERR_OK;
	}
	if (e == ERR_OK)
		e = notify_transcript(
		    w->nt, msg_id, contribution, lines, m->ncommands);
	return e;
}

/* ---- from the terminal ---- */

enum err
workflow_local(struct workflow *w, const struct command *c,
    int64_t contribution, int64_t series, int64_t patch, const char *actor,
    struct buf *msg)
{
	struct who who = { NULL, actor, 0 };
	struct target t;
	enum err e;

	arena_reset(w->a);
	w->now = time_now();
	if (series == 0) {
		int64_t *ids = NULL;
		size_t n = 0;

		/* A contribution: its newest series. */
		if ((e = store_series_of(w->st, contribution, &ids, &n)))
			return e;
		series = n ? ids[0] : 0;
		free(ids);
		if (series == 0)
			return ERR_NOTFOUND;
	}
	e = load_target(w, series, patch, c->verb == CMD_STAGE && c->arg, &t);
	if (e == ERR_OK)
		e = run(w, c, &t, &who, msg);
	return e;
}

/* ---- over HTTP ---- */

enum err
workflow_as(struct workflow *w, const struct command *c, int64_t series,
    int64_t patch, const char *email, const char *label, struct buf *msg)
{
	struct who who = { email, label, 0 };
	struct target t;
	enum err e;

	arena_reset(w->a);
	w->now = time_now();
	e = load_target(w, series, patch, c->verb == CMD_STAGE && c->arg, &t);
	if (e == ERR_OK)
		e = run(w, c, &t, &who, msg);
	return e;
}

enum err
workflow_check(struct workflow *w, const char *email, const char *label,
    const struct store_check *k, struct buf *msg)
{
	struct who who = { email, label, 0 };
	struct command c;
	struct target t;
	enum err e;

	arena_reset(w->a);
	w->now = k->time ? k->time : time_now();
	memset(&c, 0, sizeof(c));
	c.verb = CMD_CHECK;
	c.arg = k->context;
	c.arg2 = k->state;
	c.arg3 = k->url;
	e = load_target(w, k->series_id, k->patch_id, false, &t);
	if (e == ERR_OK && !allowed(w, &c, &t, &who, msg))
		e = ERR_PERM;
	if (e == ERR_OK)
		e = do_check(w, &t, &who, &c, k->summary, msg);
	return e;
}

/* ---- by the promotion policy ---- */

enum err
workflow_promote(
    struct workflow *w, int64_t patch, const char *policy, struct buf *msg)
{
	struct who who = { NULL, NULL, 0 };
	struct store_patch p;
	struct target t;
	enum err e;

	arena_reset(w->a);
	w->now = time_now();
	if ((e = store_patch_get(w->st, w->a, patch, &p)) != ERR_OK)
		return e;
	if ((e = load_target(w, p.series_id, patch, false, &t)) != ERR_OK)
		return e;
	return do_graduate(w, &t, &who, policy ? policy : "", msg);
}

enum err
workflow_local_msg(struct workflow *w, const struct command *c,
    const char *msgid, const char *actor, struct buf *msg)
{
	struct who who = { NULL, actor, 0 };
	struct store_msg r;
	enum err e;

	arena_reset(w->a);
	w->now = time_now();
	if ((e = store_msg_find(w->st, w->a, msgid, &r)) != ERR_OK)
		return e;
	if (r.kind != MAIL_PULL)
		return ERR_NOTFOUND;
	return run_pull(w, c, r.id, &who, msg);
}
