/*
 * Inside storage/ only: the connection, the named statements and the
 * binding helpers every storage file uses.
 */
#ifndef STORAGE_DB_H
#define STORAGE_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "parsers/model.h"
#include "storage/sql.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/err.h"

struct store {
	sqlite3 *db;
	char *path;
	bool tx;
	bool readonly;
	sqlite3_stmt *stmt[SQL_COUNT];
	char *scratch; /* store_project_name's result */
	unsigned long steps; /* statement steps so far (store_steps) */
	unsigned long fault_at; /* store_fault: the step that fails, or 0 */
	const char *busy_what; /* store_fault_busy: which statement */
	unsigned busy_left; /* and how many more times */
	int64_t data_version; /* store_changed(): as last seen */
	bool data_version_seen;
};

/* sqlite3_step() of the statement named what (as in messages), counted,
 * and failed on purpose when a test asks. */
int db_step(struct store *st, sqlite3_stmt *s, const char *what);

/* The statement, prepared on first use, reset and unbound. */
sqlite3_stmt *db_stmt(struct store *st, enum sql_id id);
/* Log sqlite's message for what failed, return ERR_DB (or ERR_BUSY). */
enum err db_fail(struct store *st, const char *what, int rc);

/* Bind by parameter name (":name"); a missing name is a bug and aborts. */
void db_bind_int(sqlite3_stmt *s, const char *name, int64_t v);
void db_bind_text(sqlite3_stmt *s, const char *name, const char *v);
void db_bind_str(sqlite3_stmt *s, const char *name, struct str v);
void db_bind_blob(sqlite3_stmt *s, const char *name, const void *p, size_t n);
void db_bind_null(sqlite3_stmt *s, const char *name);
/* NULL when v is 0. */
void db_bind_id(sqlite3_stmt *s, const char *name, int64_t v);

/* Step a statement that returns no row (or whose rows are ignored). */
enum err db_exec(struct store *st, sqlite3_stmt *s, const char *what);
/* Step once: ERR_OK with a row, ERR_NOTFOUND without, ERR_DB on error. */
enum err db_row(struct store *st, sqlite3_stmt *s, const char *what);
/* db_row(), the row's first column into *id, and the statement reset. */
enum err db_one_id(
    struct store *st, sqlite3_stmt *s, int64_t *id, const char *what);

/* Column helpers: text as a malloc'd copy (NULL for SQL NULL). */
char *db_col_dup(sqlite3_stmt *s, int col);
const char *db_col_text(sqlite3_stmt *s, int col);
int64_t db_col_int(sqlite3_stmt *s, int col);
bool db_col_null(sqlite3_stmt *s, int col);

/* Text of a column copied into the arena (NULL for SQL NULL). */
const char *db_col_arena(struct arena *a, sqlite3_stmt *s, int col);
/*
 * A column holding one of the model's names (parsers/model.h), as its
 * enum.  The schema's CHECK constraints keep states and queues to the
 * names; a reason or event kind this version does not know (none is
 * written without it) is logged and read as none, or as the first.
 */
enum model_state db_col_state(sqlite3_stmt *s, int col);
enum model_queue db_col_queue(sqlite3_stmt *s, int col);
enum model_reason db_col_reason(sqlite3_stmt *s, int col);
enum model_event db_col_event(sqlite3_stmt *s, int col);

/* Every row's first column as an id, in order (malloc'd array). */
enum err db_ids(struct store *st, sqlite3_stmt *s, int64_t **ids, size_t *n,
    const char *what);

/* Every row read by fn into a new zeroed record of size bytes, in an
 * arena array. */
typedef void db_row_fn(struct arena *a, sqlite3_stmt *s, void *record);
enum err db_rows(struct store *st, struct arena *a, sqlite3_stmt *s,
    size_t size, db_row_fn *fn, void **out, size_t *n);
/* db_row(), the row read by fn into record (zeroed first, size bytes)
 * when there is one, and the statement reset. */
enum err db_one(struct store *st, struct arena *a, sqlite3_stmt *s, size_t size,
    db_row_fn *fn, void *record, const char *what);

/* Run a block of SQL (migrations). */
enum err db_script(struct store *st, const char *sql, const char *what);

enum err schema_migrate(struct store *st);
int schema_version(void);

#endif
