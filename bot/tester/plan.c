/*
 * One planning round of one project: read the last build of its staging
 * tree (the positions of the stack and their trees), what is known of
 * each tree under test.command, the retests asked for; decide for each
 * test target what comes next (bot/tester/bisect.h); record the verdicts
 * that are ready; and queue the runs that are wanted.  All in one
 * transaction: the queue always holds what the last round wanted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/git/gitcheckout.h"
#include "bot/tester/testerpriv.h"
#include "storage/store_msg.h"
#include "storage/store_series.h"
#include "storage/store_stage.h"
#include "util/log.h"
#include "util/oid.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* Is the last build the queue as it stands now (the same patches, in
 * the same order)?  When not, it is built again before it is tested. */
static enum err
build_current(struct tplan *pl, struct store_build *const *b, const size_t *nb,
    bool *current)
{
	int64_t *ids = NULL;
	size_t n = 0, i, k = 0, part;
	enum err e = store_stage_queue(pl->t->st, pl->project_id, &ids, &n);

	*current = e == ERR_OK && n == nb[0] + nb[1];
	for (part = 0; part < 2 && *current; part++)
		for (i = 0; i < nb[part] && *current; i++)
			*current = b[part][i].patch_id == ids[k++];
	free(ids);
	return e;
}

static enum err
load_position(struct tplan *pl, const struct store_build *b, struct tpos *p)
{
	struct store_series s;
	struct store_msg m;
	enum err e = store_patch_get(pl->t->st, pl->a, b->patch_id, &p->row);

	if (e == ERR_OK)
		e = store_series_get(pl->t->st, pl->a, p->row.series_id, &s);
	if (e == ERR_OK)
		e = store_msg_get(pl->t->st, pl->a, p->row.message_id, &m);
	if (e != ERR_OK)
		return e;
	p->contribution = s.contribution_id;
	p->msgid = m.msgid;
	snprintf(p->commit, sizeof(p->commit), "%s", b->commit);
	return gitcheckout_info(pl->repo, p->commit, p->tree, NULL);
}

/* The built commits of stable, then unstable; the base below them. */
static enum err
load_positions(struct tplan *pl, bool *current)
{
	struct store_build *b[2] = { NULL, NULL };
	size_t nb[2] = { 0, 0 }, part, i;
	enum err e;

	e = store_stage_prev(
	    pl->t->st, pl->a, pl->project_id, QUEUE_STABLE, &b[0], &nb[0]);
	if (e == ERR_OK)
		e = store_stage_prev(pl->t->st, pl->a, pl->project_id,
		    QUEUE_UNSTABLE, &b[1], &nb[1]);
	if (e == ERR_OK)
		e = build_current(pl, b, nb, current);
	if (e != ERR_OK || !*current)
		return e;
	pl->pos = arena_zalloc(pl->a, (nb[0] + nb[1] + 1) * sizeof(*pl->pos));
	pl->n = 0;
	for (part = 0; part < 2 && e == ERR_OK; part++)
		for (i = 0; i < nb[part] && e == ERR_OK; i++) {
			if (b[part][i].commit == NULL)
				continue; /* left out: conflict */
			e = load_position(pl, &b[part][i], &pl->pos[++pl->n]);
		}
	if (e == ERR_OK && pl->n > 0) {
		char tree[OID_HEX_SIZE];

		/* The base: what the first built commit stands on. */
		e = gitcheckout_info(
		    pl->repo, pl->pos[1].commit, tree, pl->pos[0].commit);
		if (e == ERR_OK && pl->pos[0].commit[0] == '\0') {
			log_err("tester: %s: %.12s has no parent", pl->p->name,
			    pl->pos[1].commit);
			e = ERR_GIT;
		}
		if (e == ERR_OK)
			e = gitcheckout_info(
			    pl->repo, pl->pos[0].commit, pl->pos[0].tree, NULL);
	}
	return e;
}

/* Does target t cover position i, in the mode of the configuration? */
static bool
covers(const struct tplan *pl, size_t t, size_t i)
{
	switch (pl->t->conf->test_mode) {
	case CONF_TEST_PATCH:
		return i == t;
	case CONF_TEST_SERIES:
		return i <= t &&
		    pl->pos[i].row.series_id == pl->pos[t].row.series_id;
	case CONF_TEST_STACK:
		break;
	}
	return i <= t;
}

static void
mark_targets(struct tplan *pl)
{
	const struct tester_ref *ref = pl->t->ref;
	size_t i, k;

	for (i = 1; i <= pl->n; i++) {
		for (k = 0; ref && k < ref->n; k++)
			if (ref->patches[k] == pl->pos[i].row.id)
				pl->pos[i].in_ref = true;
		switch (pl->t->conf->test_mode) {
		case CONF_TEST_PATCH:
			pl->pos[i].target = true;
			break;
		case CONF_TEST_SERIES:
			pl->pos[i].target = i == pl->n ||
			    pl->pos[i + 1].row.series_id !=
			        pl->pos[i].row.series_id;
			break;
		case CONF_TEST_STACK:
			pl->pos[i].target = i == pl->n;
			break;
		}
	}
	if (ref == NULL)
		return;
	/* `patchyard test REF`: only the targets that hold REF. */
	for (i = 1; i <= pl->n; i++) {
		bool hold = false;

		for (k = 1; k <= pl->n && !hold; k++)
			hold = pl->pos[k].in_ref && covers(pl, i, k);
		pl->pos[i].target &= hold;
	}
}

/* Retests asked for: the results of the trees that hold the patch, and
 * of the targets that cover it, are forgotten. */
static enum err
take_requests(struct tplan *pl)
{
	int64_t *ids = NULL;
	size_t n = 0, i, k, t;
	enum err e = store_test_requests(pl->t->st, pl->project_id, &ids, &n);

	for (k = 0; k < n && e == ERR_OK; k++)
		for (i = 1; i <= pl->n && e == ERR_OK; i++) {
			if (pl->pos[i].row.id != ids[k])
				continue;
			log_info("tester: %s: retest of %s", pl->p->name,
			    pl->pos[i].row.slug);
			for (t = i; t <= pl->n && e == ERR_OK; t++)
				if (t == i ||
				    (pl->pos[t].target && covers(pl, t, i)))
					e = store_test_forget(pl->t->st,
					    pl->pos[t].tree,
					    pl->t->conf->test_command);
		}
	free(ids);
	if (e == ERR_OK && n)
		e = store_test_requests_done(pl->t->st, pl->project_id);
	return e;
}

/* What is known of each position, and what is running. */
static enum err
load_results(struct tplan *pl)
{
	const char *cmd = pl->t->conf->test_command;
	size_t i, nr;
	enum err e = ERR_OK;

	pl->b = arena_zalloc(pl->a, (pl->n + 1) * sizeof(*pl->b));
	for (i = 0; i <= pl->n && e == ERR_OK; i++) {
		struct store_test_run *r = NULL;
		struct tpos *p = &pl->pos[i];

		e = store_test_results(
		    pl->t->st, pl->a, p->tree, cmd, 2, &r, &nr);
		if (e == ERR_OK)
			e = store_test_pending(
			    pl->t->st, p->tree, cmd, &pl->b[i].pending);
		if (e != ERR_OK || nr == 0)
			continue;
		p->last = r[0];
		p->has_prev = nr > 1;
		pl->b[i].known = strcmp(r[0].result, "success") == 0
		    ? BISECT_GOOD
		    : BISECT_BAD;
		pl->b[i].confirmed = nr > 1 &&
		    strcmp(r[0].result, "fail") == 0 &&
		    strcmp(r[1].result, "fail") == 0;
	}
	return e;
}

static enum err
want(struct tplan *pl, size_t i, const char *purpose, bool forced)
{
	struct store_test_run r;
	bool pending = false;
	enum err e = store_test_pending(
	    pl->t->st, pl->pos[i].tree, pl->t->conf->test_command, &pending);

	if (e != ERR_OK || pending)
		return e;
	memset(&r, 0, sizeof(r));
	r.project_id = pl->project_id;
	r.patch_id = pl->pos[i].row.id;
	r.commit = pl->pos[i].commit;
	r.tree = pl->pos[i].tree;
	r.base = pl->pos[0].commit;
	r.command = pl->t->conf->test_command;
	r.purpose = purpose;
	r.forced = forced;
	log_debug("tester: %s: queue %s run of %.12s", pl->p->name, purpose,
	    r.commit);
	return store_test_add(pl->t->st, &r, pl->now, NULL);
}

/* The next step for target t; *stop when the queue changed under us. */
static enum err
analyze(struct tplan *pl, size_t t, bool *stop)
{
	struct bisect_step s;
	size_t i;
	enum err e = ERR_OK;

	bisect_next(pl->b, pl->n, t, pl->t->conf->test_jobs, &s);
	switch (s.action) {
	case BISECT_RUN:
		for (i = 0; i < s.npoints && e == ERR_OK; i++)
			e = want(pl, s.points[i],
			    s.points[i] == t ? "target" : "bisect", false);
		return e;
	case BISECT_CONFIRM:
		return want(pl, s.culprit, "confirm", true);
	case BISECT_BASE:
		return want(pl, 0, "base", false);
	case BISECT_WAIT:
		return ERR_OK;
	case BISECT_PASSES:
		return verdict_settle(pl, t, "success", verdict_passed(pl, t));
	case BISECT_BASE_FAILS:
		return verdict_base_fails(pl, t);
	case BISECT_BLAME:
		return verdict_blame(pl, s.culprit, t, stop);
	}
	return ERR_INTERNAL;
}

static enum err
plan(struct tplan *pl)
{
	bool current = false, stop = false;
	size_t t;
	enum err e = store_project_id(pl->t->st, pl->p->name, &pl->project_id);

	if (e == ERR_OK)
		e = load_positions(pl, &current);
	if (e != ERR_OK)
		return e;
	if (!current) {
		if (!pl->t->rebuilt) {
			log_info("tester: %s: the queue changed since the last "
			         "build: building it first",
			    pl->p->name);
			pl->t->rebuild = true;
			return ERR_OK;
		}
		log_err("tester: %s: the build does not match the queue",
		    pl->p->name);
		return ERR_CONFLICT;
	}
	mark_targets(pl);
	if ((e = take_requests(pl)) == ERR_OK)
		e = store_test_unqueue(pl->t->st, pl->project_id);
	if (e == ERR_OK)
		e = load_results(pl);
	for (t = 1; t <= pl->n && e == ERR_OK && !stop; t++)
		if (pl->pos[t].target)
			e = analyze(pl, t, &stop);
	if (stop)
		pl->t->rebuild = true;
	return e;
}

enum err
plan_project(struct tester *t, const struct conf_project *p)
{
	struct tplan pl;
	enum err e;

	memset(&pl, 0, sizeof(pl));
	pl.t = t;
	pl.p = p;
	pl.now = time_now();
	pl.a = arena_new();
	e = gitrepo_open(p->staging, &pl.repo);
	if (e == ERR_OK && (e = store_begin(t->st)) == ERR_OK) {
		if ((e = plan(&pl)) == ERR_OK)
			e = store_commit(t->st);
		else
			store_rollback(t->st);
	}
	gitrepo_free(pl.repo);
	arena_free(pl.a);
	return e;
}
