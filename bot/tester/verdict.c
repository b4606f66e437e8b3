/*
 * What the planner concludes, written down: a check of context
 * patchyard/test for each verdict (a target passes or fails, a patch is
 * the first to fail, a failure was flaky), an event for each check, the
 * test-failed mail to the author of a blamed patch, and under
 * test.on-failure = drop the drop itself, as dropped(failures).
 *
 * A verdict is written once: a check names the commit it is about and
 * the run whose result it reports, so the next round finds it and says
 * nothing again -- until a newer result (a retest) asks for a new one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/tester/testerpriv.h"
#include "storage/store_event.h"
#include "storage/store_outbox.h"
#include "storage/store_series.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/utf8.h"

/* How much of a log a mail quotes: its end, from a line start. */
#define MAIL_LOG_TAIL 4096

static const char *fmt(struct arena *a, const char *f, ...)
    __attribute__((format(printf, 2, 3)));

static const char *
fmt(struct arena *a, const char *f, ...)
{
	char *out;
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	if (n < 0)
		return "";
	out = arena_alloc(a, (size_t)n + 1);
	va_start(ap, f);
	n = vsnprintf(out, (size_t)n + 1, f, ap);
	va_end(ap);
	return n < 0 ? "" : out;
}

/* What the target is, for people: "the stack of 16 patches". */
static const char *
what(struct tplan *pl, size_t t)
{
	switch (pl->t->conf->test_mode) {
	case CONF_TEST_PATCH:
		return fmt(pl->a, "patch %zu of %zu of the stack", t, pl->n);
	case CONF_TEST_SERIES:
		return fmt(pl->a,
		    "its series, up to patch %zu of %zu of the "
		    "stack",
		    t, pl->n);
	case CONF_TEST_STACK:
		break;
	}
	return fmt(
	    pl->a, "the stack of %zu patch%s", pl->n, pl->n == 1 ? "" : "es");
}

static enum err
event(struct tester *t, const struct tpos *p, int64_t now, const char *kind,
    const char *detail, int64_t *id)
{
	struct store_event e;

	memset(&e, 0, sizeof(e));
	e.time = now;
	e.kind = kind;
	e.contribution_id = p->contribution;
	e.series_id = p->row.series_id;
	e.patch_id = p->row.id;
	e.detail = detail;
	return store_event_add(t->st, &e, id);
}

/* A check on position i's patch reporting run r. */
static enum err
check(struct tplan *pl, const struct tpos *p, const struct store_test_run *r,
    const char *state, const char *summary)
{
	struct store_check k;
	enum err e;

	memset(&k, 0, sizeof(k));
	k.patch_id = p->row.id;
	k.series_id = p->row.series_id;
	k.context = TESTER_CONTEXT;
	k.state = state;
	k.summary = summary;
	k.base_commit = pl->pos[0].commit;
	k.reporter = "patchyard";
	k.time = pl->now;
	k.commit = p->commit;
	k.duration_ms = r->duration_ms;
	k.run_id = r->id;
	if ((e = store_check_add(pl->t->st, &k)) != ERR_OK)
		return e;
	if (pl->t->stats)
		pl->t->stats->checks++;
	log_info("tester: %s: %s %.12s: %s: %s", pl->p->name, p->row.slug,
	    p->commit, state, summary);
	return event(pl->t, p, pl->now, "check",
	    fmt(pl->a, "%s %s", TESTER_CONTEXT, state), NULL);
}

/* Has the verdict on position i's latest result been written? */
static enum err
written(struct tplan *pl, size_t i, bool *done)
{
	return store_check_exists(pl->t->st, pl->pos[i].commit,
	    pl->pos[i].last.id, TESTER_CONTEXT, done);
}

const char *
verdict_passed(struct tplan *pl, size_t t)
{
	const struct store_test_run *r = &pl->pos[t].last;

	if (strcmp(r->commit, pl->pos[t].commit) != 0)
		return fmt(pl->a, "%s passed (the same tree passed at %.12s)",
		    what(pl, t), r->commit);
	return fmt(pl->a, "%s passed", what(pl, t));
}

enum err
verdict_settle(
    struct tplan *pl, size_t t, const char *state, const char *summary)
{
	bool done = false;
	enum err e = written(pl, t, &done);

	if (e != ERR_OK || done)
		return e;
	return check(pl, &pl->pos[t], &pl->pos[t].last, state, summary);
}

enum err
verdict_base_fails(struct tplan *pl, size_t t)
{
	return verdict_settle(pl, t, "fail",
	    fmt(pl->a,
	        "%s failed (%s), and so does its base %.12s: no patch is "
	        "blamed",
	        what(pl, t), pl->pos[t].last.summary, pl->pos[0].commit));
}

/* The end of a run's log, from a line start, as valid UTF-8. */
static const char *
log_tail(struct tplan *pl, int64_t run_id)
{
	struct store_test_run r;
	struct buf b = BUF_INIT;
	const char *p, *out;
	size_t n;

	if (store_test_get(pl->t->st, pl->a, run_id, &r) != ERR_OK ||
	    r.log == NULL)
		return NULL;
	p = r.log;
	n = strlen(p);
	if (n > MAIL_LOG_TAIL) {
		const char *nl =
		    memchr(p + n - MAIL_LOG_TAIL, '\n', MAIL_LOG_TAIL);

		p = nl ? nl + 1 : p + n - MAIL_LOG_TAIL;
		n = strlen(p);
	}
	while (n > 0 && p[n - 1] == '\n')
		n--;
	utf8_repair(&b, p, n);
	out = arena_strdup(pl->a, buf_cstr(&b));
	buf_free(&b);
	return out;
}

static enum err
drop(struct tplan *pl, struct tpos *p, int64_t *ev)
{
	enum err e;

	p->row.state = "dropped";
	p->row.reason = "failures";
	p->row.queue = NULL;
	p->row.queue_pos = 0;
	p->row.conflict = false;
	if ((e = store_patch_update(pl->t->st, &p->row)) != ERR_OK)
		return e;
	/* A stage acknowledgment still waiting for the tree would come
	 * after the news that it left it. */
	if ((e = store_outbox_cancel(pl->t->st, p->row.id)) != ERR_OK)
		return e;
	if (pl->t->stats)
		pl->t->stats->dropped++;
	log_info("tester: %s: %s dropped (failures)", pl->p->name, p->row.slug);
	return event(pl->t, p, pl->now, "dropped", "failures", ev);
}

enum err
verdict_blame(struct tplan *pl, size_t k, size_t t, bool *dropped)
{
	struct tpos *c = &pl->pos[k];
	const char *queue = c->row.queue, *summary;
	bool done = false, dropping;
	int64_t ev = 0;
	int bisect = 0;
	enum err e = written(pl, k, &done);

	if (e == ERR_OK && t != k)
		e = store_test_count_since(pl->t->st, pl->project_id, "bisect",
		    pl->pos[t].last.id, &bisect);
	if (e != ERR_OK)
		return e;
	if (t != k)
		e = verdict_settle(pl, t, "fail",
		    fmt(pl->a,
		        "%s failed (%s); the first failing patch is %s "
		        "(%d bisection run%s)",
		        what(pl, t), pl->pos[t].last.summary, c->row.slug,
		        bisect, bisect == 1 ? "" : "s"));
	if (e != ERR_OK || done)
		return e; /* blamed in an earlier round */
	summary = fmt(pl->a,
	    "first failing patch: %s with it, passed without it; "
	    "confirmed by a second run",
	    c->last.summary);
	dropping = pl->t->conf->test_on_failure == CONF_FAILURE_DROP;
	if ((e = check(pl, c, &c->last, "fail", summary)) != ERR_OK)
		return e;
	if (pl->t->stats)
		pl->t->stats->blamed++;
	if (dropping && (e = drop(pl, c, &ev)) != ERR_OK)
		return e;
	{
		struct notify_kv kv[] = { { "context", TESTER_CONTEXT },
			{ "commit", c->commit }, { "summary", summary },
			{ "log", log_tail(pl, c->last.id) }, { "queue", queue },
			{ "base", pl->pos[0].commit },
			{ "reason", dropping ? "failures" : NULL },
			{ NULL, NULL } };

		e = notify_patch(
		    pl->t->nt, "test-failed", c->row.id, ev, NULL, kv, false);
	}
	*dropped = dropping;
	return e;
}

enum err
verdict_flaky(struct tester *t, const struct store_test_run *run)
{
	struct arena *a = arena_new();
	struct store_test_run *r = NULL;
	struct store_series s;
	struct store_check k;
	struct tpos p;
	size_t n = 0;
	enum err e;

	memset(&p, 0, sizeof(p));
	e = store_test_results(t->st, a, run->tree, run->command, 2, &r, &n);
	if (e != ERR_OK || n < 2 || r[0].id != run->id ||
	    strcmp(r[1].result, "fail") != 0 || run->patch_id == 0)
		goto out;
	if ((e = store_patch_get(t->st, a, run->patch_id, &p.row)) != ERR_OK ||
	    (e = store_series_get(t->st, a, p.row.series_id, &s)) != ERR_OK)
		goto out;
	p.contribution = s.contribution_id;
	memset(&k, 0, sizeof(k));
	k.patch_id = p.row.id;
	k.series_id = p.row.series_id;
	k.context = TESTER_CONTEXT;
	k.state = "warning";
	k.summary = fmt(a,
	    "failed (%s), then passed when run again: flaky; nothing is "
	    "dropped",
	    r[1].summary);
	k.base_commit = run->base;
	k.reporter = "patchyard";
	k.time = time_now();
	k.commit = run->commit;
	k.duration_ms = run->duration_ms;
	k.run_id = run->id;
	if ((e = store_check_add(t->st, &k)) != ERR_OK)
		goto out;
	if (t->stats) {
		t->stats->checks++;
		t->stats->flaky++;
	}
	log_warn("tester: %s %.12s: %s", p.row.slug, run->commit, k.summary);
	e = event(t, &p, k.time, "check", TESTER_CONTEXT " warning", NULL);
out:
	arena_free(a);
	return e;
}

enum err
verdict_not_run(struct tester *t, const struct store_test_run *run,
    const char *summary, const char *log)
{
	struct arena *a = arena_new();
	struct store_series s;
	struct store_check k;
	struct tpos p;
	bool same = false;
	enum err e;

	memset(&p, 0, sizeof(p));
	e = store_check_last_is(
	    t->st, run->commit, TESTER_CONTEXT, "warning", summary, &same);
	if (e != ERR_OK || same || run->patch_id == 0)
		goto out;
	if ((e = store_patch_get(t->st, a, run->patch_id, &p.row)) != ERR_OK ||
	    (e = store_series_get(t->st, a, p.row.series_id, &s)) != ERR_OK)
		goto out;
	p.contribution = s.contribution_id;
	memset(&k, 0, sizeof(k));
	k.patch_id = p.row.id;
	k.series_id = p.row.series_id;
	k.context = TESTER_CONTEXT;
	k.state = "warning";
	k.summary = summary;
	k.log = log;
	k.base_commit = run->base;
	k.reporter = "patchyard";
	k.time = time_now();
	k.commit = run->commit;
	if ((e = store_check_add(t->st, &k)) != ERR_OK)
		goto out;
	if (t->stats)
		t->stats->checks++;
	e = event(t, &p, k.time, "check", TESTER_CONTEXT " warning", NULL);
out:
	arena_free(a);
	return e;
}
