/*
 * The tester's rows (docs/DESIGN.md §7): runs of the test command on staged
 * commits — the queue of pending runs and the results, found again by
 * tree id — and the retests asked for by mail or from the terminal.
 */
#ifndef STORAGE_STORE_TEST_H
#define STORAGE_STORE_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage/store.h"
#include "util/arena.h"

struct store_test_run {
	int64_t id;
	int64_t project_id;
	int64_t patch_id; /* the patch whose commit it is; 0: the base */
	const char *commit; /* 40 hex digits */
	const char *tree;
	const char *base; /* the upstream commit the stack is built on */
	const char *command; /* test.command: results hold for it only */
	const char *purpose; /* target, bisect, confirm, base */
	const char *state; /* queued, running, done, error */
	bool forced; /* run even though a result for the tree is known */
	bool stale; /* a retest asked to ignore this result */
	int64_t owner; /* the process running it */
	const char *result; /* done: success or fail */
	const char *summary;
	const char *log; /* store_test_get only */
	int64_t duration_ms;
	int64_t queued, started, finished;
};

/* Queue a run (state queued) of r's project, patch, commit, tree, base,
 * command, purpose and forced; its id in *id. */
enum err store_test_add(
    struct store *st, const struct store_test_run *r, int64_t now, int64_t *id);
/* Forget the queued (not yet running) runs of a project: the planner
 * queues again what it still wants. */
enum err store_test_unqueue(struct store *st, int64_t project_id);
/* The results for tree under command, newest first, at most max (done,
 * not stale; without their logs). */
enum err store_test_results(struct store *st, struct arena *a, const char *tree,
    const char *command, int max, struct store_test_run **out, size_t *n);
/* Is a run of tree under command queued or running? */
enum err store_test_pending(
    struct store *st, const char *tree, const char *command, bool *pending);
/* The oldest queued run (forced ones first) of a project (0: of any)
 * becomes running, owned by owner; its id in *id, ERR_NOTFOUND when
 * none is queued. */
enum err store_test_claim(struct store *st, int64_t project_id, int64_t owner,
    int64_t now, int64_t *id);
/* One run, with its log. */
enum err store_test_get(
    struct store *st, struct arena *a, int64_t id, struct store_test_run *out);
/* Record the end of a run: r's state (done or error), result, summary,
 * log and duration. */
enum err store_test_finish(
    struct store *st, const struct store_test_run *r, int64_t now);
/* The running runs, oldest first (without logs). */
enum err store_test_running(
    struct store *st, struct arena *a, struct store_test_run **out, size_t *n);
/* The runs queued or running (their commits must stay readable). */
enum err store_test_open(
    struct store *st, struct arena *a, struct store_test_run **out, size_t *n);
/* A running run goes back to the queue (its owner is gone). */
enum err store_test_requeue(struct store *st, int64_t id);
/* The results for tree under command become stale: a retest ignores
 * them. */
enum err store_test_forget(
    struct store *st, const char *tree, const char *command);
/* How many runs of purpose a project finished after run after_id. */
enum err store_test_count_since(struct store *st, int64_t project_id,
    const char *purpose, int64_t after_id, int *n);
/* Is any run queued or running, or any retest asked for? */
enum err store_test_work(struct store *st, bool *any);

/* A retest of patch_id asked for by actor (NULL: the bot). */
enum err store_test_request(struct store *st, int64_t project_id,
    int64_t patch_id, const char *actor, int64_t now);
/* The patches of a project whose retest was asked for. */
enum err store_test_requests(
    struct store *st, int64_t project_id, int64_t **ids, size_t *n);
/* They have been taken. */
enum err store_test_requests_done(struct store *st, int64_t project_id);

#endif
