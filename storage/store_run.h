/*
 * What the daemon (`patchyard run`) and `patchyard status` keep and read:
 * the state of each followed source, the time of each worker's last run,
 * and the counts status shows.
 */
#ifndef STORAGE_STORE_RUN_H
#define STORAGE_STORE_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "storage/store.h"
#include "util/arena.h"

/* Record a poll of source name: error NULL clears its last error. */
enum err store_source_report(struct store *st, const char *name,
    const char *kind, const char *error, int64_t now);

struct store_source {
	const char *position; /* NULL: nothing read yet */
	const char *last_error; /* NULL: the last poll went well */
	int64_t error_time; /* 0 when no error */
	int64_t checked; /* last poll, 0: never */
};

/* The state of a source; its position is the import_pos row under
 * "source:NAME:" with the highest key. */
enum err store_source_get(struct store *st, struct arena *a, const char *name,
    struct store_source *out);

/* The time of the last run of a worker ("rebuild", "upstream", "send"):
 * meta "last.<what>"; 0 when never. */
enum err store_run_mark(struct store *st, const char *what, int64_t t);
int64_t store_run_last(struct store *st, const char *what);

/* The newest event id that changes what a staging branch holds. */
enum err store_run_queue_mark(struct store *st, int64_t *mark);
/* The earliest next attempt of a queued mail; 0 when none is queued. */
enum err store_run_outbox_next(struct store *st, int64_t *t);

struct store_count {
	const char *name; /* a state, or "project/queue" */
	int64_t n;
};

struct store_status {
	int64_t messages;
	struct store_count *states; /* contributions by state, by name */
	size_t nstates;
	struct store_count *queues; /* staged patches by project and queue */
	size_t nqueues;
	int64_t due, waiting, failed; /* the outbox */
};

enum err store_status_read(
    struct store *st, struct arena *a, int64_t now, struct store_status *out);

#endif
