/*
 * The promotion policy: every patch of the unstable queue judged by the
 * conditions of its project's [promote] section, then the contribution
 * rule (a series graduates together unless per-patch).  The plan is a
 * read; promote_auto() graduates what the plan moves through
 * workflow_promote(), the path #yard graduate takes.
 */
#include "bot/workflow/promote.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bot/workflow/trust.h"
#include "bot/workflow/workflow.h"
#include "storage/store_msg.h"
#include "storage/store_patch.h"
#include "storage/store_promote.h"
#include "storage/store_read.h"
#include "storage/store_series.h"
#include "storage/store_stage.h"
#include "util/ascii.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define DAY (24 * 60 * 60)
/* The context the test runner reports its results under (docs/DESIGN.md
 * §7); external CI reports under contexts of its own. */
#define TEST_CONTEXT "patchyard/test"

static const char *const hold_words[] = { "days", "test", "review", "nack",
	"changes", "series", "conflict", "policy" };

const char *
promote_hold_word(unsigned bit)
{
	size_t i;

	for (i = 0; i < sizeof(hold_words) / sizeof(hold_words[0]); i++)
		if (bit == 1u << i)
			return hold_words[i];
	return NULL;
}

struct judge {
	struct store *st;
	const struct config *conf;
	struct arena *a;
	int64_t now;
};

/* One item while it is judged. */
struct work {
	struct promote_item it;
	struct store_patch p;
	int64_t contribution;
	bool per_patch;
	struct buf held; /* "days (2 of 7), ..." */
	struct buf met; /* "8 days in unstable, ..." */
};

static void say(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
say(struct buf *b, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (k < 0)
		return;
	if (b->n)
		buf_adds(b, ", ");
	buf_adds(b, line);
}

#define hold(w, bit, ...)                                                      \
	do {                                                                   \
		(w)->it.held |= (bit);                                         \
		say(&(w)->held, __VA_ARGS__);                                  \
	} while (0)

static void
judge_days(struct judge *j, const struct conf_promote *pol, struct work *w)
{
	long days = (long)((j->now - w->p.queued_at) / DAY);

	if (days < 0)
		days = 0;
	if (days < pol->min_days)
		hold(w, PROMOTE_DAYS, "days (%ld of %d)", days, pol->min_days);
	else
		say(&w->met, "%ld day%s in unstable", days,
		    days == 1 ? "" : "s");
}

/*
 * The newest check of each context counts.  With a test command and
 * require-test the runner's newest result must be a success; either way
 * no context may have failed last.
 */
static enum err
judge_test(struct judge *j, const struct conf_promote *pol, struct work *w)
{
	struct store_check_state *c = NULL;
	const char *mine = NULL, *failed = NULL;
	size_t n = 0, i, k;
	bool want = j->conf->test_command && pol->require_test;
	enum err e =
	    store_promote_checks(j->st, j->a, w->p.id, w->p.series_id, &c, &n);

	if (e != ERR_OK)
		return e;
	for (i = 0; i < n; i++) {
		bool newer = false;

		for (k = i + 1; k < n && !newer; k++)
			newer = strcmp(c[k].context, c[i].context) == 0;
		if (newer)
			continue;
		if (strcmp(c[i].context, TEST_CONTEXT) == 0)
			mine = c[i].state;
		if (strcmp(c[i].state, "fail") == 0 && failed == NULL)
			failed = c[i].context;
	}
	if (want && mine == NULL)
		hold(w, PROMOTE_TEST, "test (no result yet)");
	else if (want && strcmp(mine, "success") != 0)
		hold(w, PROMOTE_TEST, "test (latest: %s)", mine);
	else if (failed)
		hold(w, PROMOTE_TEST, "test (%s failed)", failed);
	else
		say(&w->met, "%s", want ? "tests passed" : "no failing check");
	return ERR_OK;
}

static bool
named(const struct view_trailer *t, const char *name)
{
	return ascii_stricmp(t->name, name) == 0;
}

/*
 * Reviews and acks the staged commit carries (verified ones) from
 * people other than the author, each person once; a Nacked-by from
 * anybody holds the patch back: holding back is the safe side, and a
 * maintainer can still graduate it by hand.
 */
static enum err
judge_trailers(struct judge *j, const struct conf_promote *pol, struct work *w)
{
	struct view_trailer *t = NULL;
	size_t n = 0, i, k, reviews = 0;
	const char *nack = NULL;
	enum err e =
	    store_read_trailers(j->st, j->a, w->p.id, w->p.series_id, &t, &n);

	if (e != ERR_OK)
		return e;
	for (i = 0; i < n; i++) {
		bool again = false;

		if (named(&t[i], "Nacked-by") && nack == NULL)
			nack = t[i].value;
		if (!(named(&t[i], "Reviewed-by") ||
		        named(&t[i], "Acked-by")) ||
		    !t[i].verified || t[i].email == NULL ||
		    trust_same_person(j->conf, t[i].email, w->p.author_email))
			continue;
		for (k = 0; k < i && !again; k++)
			again = (named(&t[k], "Reviewed-by") ||
			            named(&t[k], "Acked-by")) &&
			    t[k].verified && t[k].email &&
			    trust_same_person(j->conf, t[k].email, t[i].email);
		reviews += !again;
	}
	if ((long)reviews < pol->min_reviews)
		hold(w, PROMOTE_REVIEW, "review (%zu of %d)", reviews,
		    pol->min_reviews);
	else if (reviews)
		say(&w->met, "%zu review%s", reviews, reviews == 1 ? "" : "s");
	if (nack)
		hold(w, PROMOTE_NACK, "nack (%.200s)", nack);
	return ERR_OK;
}

static enum err
judge_changes(struct judge *j, struct work *w)
{
	enum model_state mark = STATE_NEW;
	enum err e = store_promote_mark(j->st, w->p.id, w->p.queued_at, &mark);

	if (e == ERR_NOTFOUND)
		return ERR_OK;
	if (e == ERR_OK && mark == STATE_CHANGES_REQUESTED)
		hold(w, PROMOTE_CHANGES, "changes (requested since staged)");
	return e;
}

static enum err
judge_one(struct judge *j, const char *project, struct work *w)
{
	struct conf_promote pol = config_promote(j->conf, project);
	struct store_series s;
	struct store_msg m;
	enum err e = store_series_get(j->st, j->a, w->p.series_id, &s);

	if (e == ERR_OK)
		e = store_msg_get(j->st, j->a, w->p.message_id, &m);
	if (e != ERR_OK)
		return e;
	w->contribution = s.contribution_id;
	w->per_patch = pol.per_patch;
	w->it.patch_id = w->p.id;
	w->it.project = project;
	w->it.slug = w->p.slug;
	w->it.title = w->p.title;
	w->it.message_id = m.msgid;
	if (!pol.present) {
		hold(w, PROMOTE_POLICY, "policy (no [promote] section)");
		return ERR_OK;
	}
	judge_days(j, &pol, w);
	if ((e = judge_test(j, &pol, w)) == ERR_OK &&
	    (e = judge_trailers(j, &pol, w)) == ERR_OK)
		e = judge_changes(j, w);
	if (w->p.conflict)
		hold(w, PROMOTE_CONFLICT, "conflict (left out of the build)");
	return e;
}

/* A contribution graduates together: a held patch holds the others. */
static void
judge_series(struct work *w, size_t n)
{
	const unsigned own = ~(unsigned)(PROMOTE_SERIES | PROMOTE_POLICY);
	size_t i, k;

	for (i = 0; i < n; i++) {
		struct buf who = BUF_INIT;

		if (w[i].per_patch || (w[i].it.held & PROMOTE_POLICY))
			continue;
		for (k = 0; k < n; k++)
			if (k != i && w[k].contribution == w[i].contribution &&
			    (w[k].it.held & own))
				buf_addf(&who, "%s%s", who.n ? ", " : "",
				    w[k].p.slug);
		if (who.n)
			hold(&w[i], PROMOTE_SERIES, "series (%.400s held back)",
			    buf_cstr(&who));
		buf_free(&who);
	}
}

/* The unstable queue of one project, judged, appended to *items. */
static enum err
plan_project(struct judge *j, const struct conf_project *p,
    struct promote_item **items, size_t *n, size_t *cap)
{
	int64_t pid, *ids = NULL;
	size_t nids = 0, i, nw = 0;
	struct work *w = NULL;
	enum err e = store_project_id(j->st, p->name, &pid);

	if (e == ERR_OK)
		e = store_stage_queue(j->st, pid, &ids, &nids);
	if (e == ERR_OK)
		w = xcalloc(nids ? nids : 1, sizeof(*w));
	for (i = 0; i < nids && e == ERR_OK; i++) {
		e = store_patch_get(j->st, j->a, ids[i], &w[nw].p);
		if (e != ERR_OK || w[nw].p.queue != QUEUE_UNSTABLE)
			continue;
		e = judge_one(j, p->name, &w[nw++]);
	}
	if (e == ERR_OK)
		judge_series(w, nw);
	for (i = 0; i < nw; i++) {
		if (e == ERR_OK) {
			*items = xgrow(*items, cap, *n + 1, sizeof(**items));
			w[i].it.why = arena_strdup(j->a,
			    buf_cstr(w[i].it.held ? &w[i].held : &w[i].met));
			(*items)[(*n)++] = w[i].it;
		}
		buf_free(&w[i].held);
		buf_free(&w[i].met);
	}
	free(w);
	free(ids);
	return e;
}

enum err
promote_plan(struct store *st, const struct config *conf, struct arena *a,
    int64_t now, struct promote_item **out, size_t *n)
{
	struct judge j = { st, conf, a, now };
	struct promote_item *v = NULL;
	size_t cap = 0, k = 0, i;
	enum err e = ERR_OK;

	for (i = 0; i < conf->nprojects && e == ERR_OK; i++)
		e = plan_project(&j, &conf->projects[i], &v, &k, &cap);
	*out = arena_zalloc(a, (k ? k : 1) * sizeof(**out));
	if (k)
		memcpy(*out, v, k * sizeof(**out));
	*n = e == ERR_OK ? k : 0;
	free(v);
	return e;
}

static enum err
auto_project(
    struct judge *j, const struct conf_project *p, size_t *moved, FILE *out)
{
	struct promote_item *items = NULL;
	struct workflow *w = NULL;
	size_t n = 0, cap = 0, i;
	enum err e = store_begin(j->st);

	if (e != ERR_OK)
		return e;
	e = plan_project(j, p, &items, &n, &cap);
	for (i = 0; i < n && e == ERR_OK; i++) {
		struct buf msg = BUF_INIT;

		if (items[i].held)
			continue;
		if (w == NULL)
			w = workflow_new(j->st, j->conf);
		e = workflow_promote(w, items[i].patch_id, items[i].why, &msg);
		if (e == ERR_OK) {
			(*moved)++;
			log_info("promote: %s: %s graduates (%s)", p->name,
			    items[i].slug, items[i].why);
			if (out)
				fprintf(
				    out, "%s: %s\n", p->name, buf_cstr(&msg));
		}
		buf_free(&msg);
	}
	if (e == ERR_OK)
		e = store_commit(j->st);
	else
		store_rollback(j->st);
	workflow_free(w);
	free(items);
	return e;
}

enum err
promote_auto(
    struct store *st, const struct config *conf, size_t *moved, FILE *out)
{
	struct judge j = { st, conf, NULL, time_now() };
	size_t i, count = 0;
	enum err e = ERR_OK, first = ERR_OK;

	j.a = arena_new();
	for (i = 0; i < conf->nprojects; i++) {
		if (!config_promote(conf, conf->projects[i].name).present)
			continue;
		e = auto_project(&j, &conf->projects[i], &count, out);
		if (e != ERR_OK && first == ERR_OK)
			first = e;
	}
	arena_free(j.a);
	if (moved)
		*moved = count;
	return first;
}
