/*
 * The database: SQLite in WAL mode, numbered migrations (PRAGMA
 * user_version), every statement prepared once and bound by name, one
 * transaction per unit of work.  No SQL exists outside storage/.
 */
#ifndef STORAGE_STORE_H
#define STORAGE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct store;

enum store_mode {
	STORE_RW, /* open an existing database for writing */
	STORE_CREATE, /* create it (and migrate) when missing */
	STORE_RO, /* read only (the web server, list, show) */
};

enum store_sync {
	STORE_SYNC_FULL, /* every commit durable: one mail from an MTA */
	STORE_SYNC_NORMAL, /* durable at checkpoints: bulk import batches */
};

/*
 * Open the database at path; ":memory:" is a database of this connection
 * alone, gone when it closes (the unit tests' store: the same schema and
 * statements, no file, no log).
 */
enum err store_open(const char *path, enum store_mode mode, struct store **out);
void store_close(struct store *st);
enum err store_set_sync(struct store *st, enum store_sync s);
/* Make room for a bulk load: a bigger cache, and checkpoints less
 * often (SQLite's own, in the commit that crosses the period).  The
 * log left at the end is copied into the database when the connection
 * closes, as SQLite does for the last one. */
enum err store_bulk(struct store *st, bool on);
/* Bound SQLite's page cache of this connection to KB kilobytes. */
enum err store_cache_limit(struct store *st, int kb);

/*
 * BEGIN IMMEDIATE ... COMMIT.  Transactions do not nest (a begin inside
 * one is refused).  store_rollback() only after a store_begin() that
 * worked (a commit that failed leaves the transaction open for it); any
 * other call is logged and does nothing.
 */
enum err store_begin(struct store *st);
enum err store_commit(struct store *st);
void store_rollback(struct store *st);
bool store_in_tx(const struct store *st);
/*
 * A read transaction: the reads that follow see one snapshot of the
 * database (a page made of many queries is consistent) and take the
 * file locks once instead of once a statement.  store_snapshot_end ends
 * it; writers are never blocked by it (WAL).
 */
enum err store_snapshot(struct store *st);
void store_snapshot_end(struct store *st);
/*
 * Whether another connection has committed since this one last asked
 * (true the first time): what a cache of pages built from the database
 * asks.  Inside a snapshot, the answer is about that snapshot (the
 * call starts it when no read has yet).
 */
enum err store_changed(struct store *st, bool *changed);

/*
 * For tests of error paths: the nth statement step from now fails as an
 * I/O error would (0: none), once.  store_steps() counts the steps taken.
 */
void store_fault(struct store *st, unsigned long nth);
unsigned long store_steps(const struct store *st);
/* For tests too: the next count steps of the statement named what
 * ("begin", "commit", as in log lines) fail as SQLITE_BUSY would. */
void store_fault_busy(struct store *st, const char *what, unsigned count);

/* The schema version this build writes. */
int store_schema_version(void);

/* meta: small named values (the first upstream scan, and the like). */
enum err store_meta_get(struct store *st, const char *key, char **value);
enum err store_meta_set(struct store *st, const char *key, const char *value);

/* Projects by name: the id, created when missing. */
enum err store_project_id(struct store *st, const char *name, int64_t *id);
/* The name of a project id ("" when unknown); valid until the next call.
 * store_project_name() says "" when the database fails, too. */
enum err store_project_get(struct store *st, int64_t id, const char **name);
const char *store_project_name(struct store *st, int64_t id);

/* Import positions: where a source stopped, written in the same
 * transaction as the batch it ends. */
enum err store_pos_get(struct store *st, const char *source, char **pos);
enum err store_pos_set(struct store *st, const char *source, const char *pos);

#endif
