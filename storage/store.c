/*
 * The connection and its life: open, pragmas, migrations, transactions,
 * and the statement table (storage/sql.c) prepared once per connection.
 */
#include "storage/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/db.h"
#include "util/log.h"
#include "util/xalloc.h"

sqlite3_stmt *
db_stmt(struct store *st, enum sql_id id)
{
	sqlite3_stmt *s = st->stmt[id];
	int rc;

	if (s) {
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
		return s;
	}
	rc = sqlite3_prepare_v3(
	    st->db, sql_text(id), -1, SQLITE_PREPARE_PERSISTENT, &s, NULL);
	if (rc != SQLITE_OK)
		fatal("store: statement %d does not prepare: %s", (int)id,
		    sqlite3_errmsg(st->db));
	st->stmt[id] = s;
	return s;
}

enum err
db_fail(struct store *st, const char *what, int rc)
{
	log_err("store: %s: %s", what, sqlite3_errmsg(st->db));
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		return ERR_BUSY;
	return ERR_DB;
}

static int
param(sqlite3_stmt *s, const char *name)
{
	int i = sqlite3_bind_parameter_index(s, name);

	if (i == 0)
		fatal("store: no parameter %s in %s", name, sqlite3_sql(s));
	return i;
}

void
db_bind_int(sqlite3_stmt *s, const char *name, int64_t v)
{
	sqlite3_bind_int64(s, param(s, name), v);
}

void
db_bind_text(sqlite3_stmt *s, const char *name, const char *v)
{
	if (v == NULL)
		sqlite3_bind_null(s, param(s, name));
	else
		sqlite3_bind_text(s, param(s, name), v, -1, SQLITE_STATIC);
}

void
db_bind_str(sqlite3_stmt *s, const char *name, struct str v)
{
	if (v.p == NULL)
		sqlite3_bind_null(s, param(s, name));
	else
		sqlite3_bind_text64(
		    s, param(s, name), v.p, v.n, SQLITE_STATIC, SQLITE_UTF8);
}

void
db_bind_blob(sqlite3_stmt *s, const char *name, const void *p, size_t n)
{
	sqlite3_bind_blob64(s, param(s, name), n ? p : "", n, SQLITE_STATIC);
}

void
db_bind_null(sqlite3_stmt *s, const char *name)
{
	sqlite3_bind_null(s, param(s, name));
}

void
db_bind_id(sqlite3_stmt *s, const char *name, int64_t v)
{
	if (v == 0)
		db_bind_null(s, name);
	else
		db_bind_int(s, name, v);
}

int
db_step(struct store *st, sqlite3_stmt *s, const char *what)
{
	if (++st->steps == st->fault_at) {
		st->fault_at = 0;
		return SQLITE_IOERR;
	}
	if (st->busy_left && st->busy_what &&
	    strcmp(what, st->busy_what) == 0) {
		st->busy_left--;
		return SQLITE_BUSY;
	}
	return sqlite3_step(s);
}

void
store_fault(struct store *st, unsigned long nth)
{
	st->fault_at = nth ? st->steps + nth : 0;
}

void
store_fault_busy(struct store *st, const char *what, unsigned count)
{
	st->busy_what = what;
	st->busy_left = count;
}

unsigned long
store_steps(const struct store *st)
{
	return st->steps;
}

enum err
db_exec(struct store *st, sqlite3_stmt *s, const char *what)
{
	int rc;

	while ((rc = db_step(st, s, what)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE) {
		enum err e = db_fail(st, what, rc);

		sqlite3_reset(s);
		return e;
	}
	sqlite3_reset(s);
	return ERR_OK;
}

enum err
db_row(struct store *st, sqlite3_stmt *s, const char *what)
{
	int rc = db_step(st, s, what);

	if (rc == SQLITE_ROW)
		return ERR_OK;
	if (rc == SQLITE_DONE)
		return ERR_NOTFOUND;
	return db_fail(st, what, rc);
}

enum err
db_one_id(struct store *st, sqlite3_stmt *s, int64_t *id, const char *what)
{
	enum err e = db_row(st, s, what);

	if (e == ERR_OK)
		*id = db_col_int(s, 0);
	sqlite3_reset(s);
	return e;
}

char *
db_col_dup(sqlite3_stmt *s, int col)
{
	const unsigned char *t = sqlite3_column_text(s, col);

	if (t == NULL)
		return NULL;
	return xstrndup((const char *)t, (size_t)sqlite3_column_bytes(s, col));
}

const char *
db_col_text(sqlite3_stmt *s, int col)
{
	return (const char *)sqlite3_column_text(s, col);
}

int64_t
db_col_int(sqlite3_stmt *s, int col)
{
	return sqlite3_column_int64(s, col);
}

bool
db_col_null(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL;
}

const char *
db_col_arena(struct arena *a, sqlite3_stmt *s, int col)
{
	const char *t = db_col_text(s, col);

	return t ? arena_strndup(a, t, (size_t)sqlite3_column_bytes(s, col))
	         : NULL;
}

/* Log a name of the model that this version does not know. */
static void
unknown_name(const char *what, const char *name)
{
	char q[80];

	log_warn("store: '%s' is not a %s this version knows",
	    log_quote(q, sizeof(q), name, strlen(name)), what);
}

enum model_state
db_col_state(sqlite3_stmt *s, int col)
{
	const char *t = db_col_text(s, col);
	enum model_state v = STATE_NEW;

	if (t && !model_state_parse(t, &v))
		unknown_name("state", t);
	return v;
}

enum model_queue
db_col_queue(sqlite3_stmt *s, int col)
{
	const char *t = db_col_text(s, col);
	enum model_queue v = QUEUE_NONE;

	if (t && !model_queue_parse(t, &v))
		unknown_name("queue", t);
	return v;
}

enum model_reason
db_col_reason(sqlite3_stmt *s, int col)
{
	const char *t = db_col_text(s, col);
	enum model_reason v = REASON_NONE;

	if (t && !model_reason_parse(t, &v))
		unknown_name("reason", t);
	return v;
}

enum model_event
db_col_event(sqlite3_stmt *s, int col)
{
	const char *t = db_col_text(s, col);
	enum model_event v = EVENT_POSTED;

	if (t && !model_event_parse(t, &v))
		unknown_name("event kind", t);
	return v;
}

enum err
db_ids(struct store *st, sqlite3_stmt *s, int64_t **ids, size_t *n,
    const char *what)
{
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	while ((rc = db_step(st, s, what)) == SQLITE_ROW) {
		*ids = xgrow(*ids, &cap, *n + 1, sizeof(**ids));
		(*ids)[(*n)++] = db_col_int(s, 0);
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return db_fail(st, what, rc);
	}
	return ERR_OK;
}

enum err
db_rows(struct store *st, struct arena *a, sqlite3_stmt *s, size_t size,
    db_row_fn *fn, void **out, size_t *n)
{
	size_t cap = 0;
	char *arr = NULL;
	int rc;

	*n = 0;
	while ((rc = db_step(st, s, "read")) == SQLITE_ROW) {
		if (*n == cap) {
			char *bigger;

			cap = cap ? cap * 2 : 8;
			bigger = arena_alloc(a, cap * size);
			if (*n)
				memcpy(bigger, arr, *n * size);
			arr = bigger;
		}
		memset(arr + *n * size, 0, size);
		fn(a, s, arr + *n * size);
		(*n)++;
	}
	sqlite3_reset(s);
	*out = arr;
	return rc == SQLITE_DONE ? ERR_OK : db_fail(st, "read", rc);
}

enum err
db_one(struct store *st, struct arena *a, sqlite3_stmt *s, size_t size,
    db_row_fn *fn, void *record, const char *what)
{
	enum err e = db_row(st, s, what);

	if (e == ERR_OK) {
		memset(record, 0, size);
		fn(a, s, record);
	}
	sqlite3_reset(s);
	return e;
}

enum err
db_script(struct store *st, const char *sql, const char *what)
{
	char *msg = NULL;
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		log_err("store: %s: %s", what, msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return (rc == SQLITE_BUSY) ? ERR_BUSY : ERR_DB;
	}
	return ERR_OK;
}

/* sqlite3_exec's callback for PRAGMA journal_mode: the mode it answers. */
static int
journal_answer(void *arg, int ncols, char **values, char **names)
{
	char *mode = arg;

	(void)names;
	if (ncols > 0 && values[0])
		snprintf(mode, 16, "%s", values[0]);
	return 0;
}

/*
 * PRAGMA journal_mode=WAL answers the mode it leaves, and does not fail
 * when it cannot switch: a database that is not in WAL would make every
 * reader (serve) hold up ingest, so it is refused here, where the reason
 * is known.  An in-memory database (":memory:", the unit tests') answers
 * "memory": it has one connection and no file, so it needs no log.
 */
static enum err
journal_wal(struct store *st)
{
	const char *file = sqlite3_db_filename(st->db, "main");
	bool in_memory = file == NULL || *file == '\0';
	char mode[16] = "";
	char *msg = NULL;
	int rc = sqlite3_exec(
	    st->db, "PRAGMA journal_mode=WAL;", journal_answer, mode, &msg);

	if (rc != SQLITE_OK) {
		log_err("store: %s: journal mode: %s", st->path,
		    msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return rc == SQLITE_BUSY ? ERR_BUSY : ERR_DB;
	}
	if (strcmp(mode, "wal") == 0 ||
	    (in_memory && strcmp(mode, "memory") == 0))
		return ERR_OK;
	log_err(
	    "store: %s: the journal mode stays '%s', not WAL", st->path, mode);
	return ERR_DB;
}

static enum err
pragmas(struct store *st)
{
	enum err e;

	sqlite3_busy_timeout(st->db, 10000);
	if (st->readonly)
		return db_script(st, "PRAGMA foreign_keys=ON;", "pragmas");
	/* 8 KB pages (set before WAL, so only new databases take it): most
	 * mails fit one overflow page, and a bulk import writes half as
	 * many pages. */
	e = db_script(st, "PRAGMA page_size=8192;", "pragmas");
	if (e == ERR_OK)
		e = journal_wal(st);
	if (e == ERR_OK)
		e = db_script(st,
		    "PRAGMA synchronous=FULL;"
		    "PRAGMA foreign_keys=ON;",
		    "pragmas");
	return e;
}

/* SQLite's allocation statistics take a global mutex on every malloc;
 * nothing here reads them. */
static void
configure_once(void)
{
	static bool done;

	if (!done) {
		sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
		done = true;
	}
}

enum err
store_open(const char *path, enum store_mode mode, struct store **out)
{
	struct store *st = xcalloc(1, sizeof(*st));
	int flags, rc;
	enum err e;

	*out = NULL;
	switch (mode) {
	case STORE_RO:
		flags = SQLITE_OPEN_READONLY;
		st->readonly = true;
		break;
	case STORE_RW:
		flags = SQLITE_OPEN_READWRITE;
		break;
	default:
		flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	}
	configure_once();
	st->path = xstrdup(path);
	rc = sqlite3_open_v2(path, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		log_err("store: %s: %s", path,
		    st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
		store_close(st);
		return (mode == STORE_CREATE) ? ERR_IO : ERR_NOTFOUND;
	}
	sqlite3_extended_result_codes(st->db, 0);
	if ((e = pragmas(st)) != ERR_OK) {
		store_close(st);
		return e;
	}
	if ((e = schema_migrate(st)) != ERR_OK) {
		store_close(st);
		return e;
	}
	*out = st;
	return ERR_OK;
}

void
store_close(struct store *st)
{
	size_t i;

	if (st == NULL)
		return;
	for (i = 0; i < SQL_COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	if (st->db)
		sqlite3_close(st->db);
	free(st->scratch);
	free(st->path);
	free(st);
}

enum err
store_set_sync(struct store *st, enum store_sync s)
{
	return db_script(st,
	    s == STORE_SYNC_FULL ? "PRAGMA synchronous=FULL;"
	                         : "PRAGMA synchronous=NORMAL;",
	    "synchronous");
}

enum err
store_bulk(struct store *st, bool on)
{
	/* A checkpoint every 128 MB of log (8 KB pages) rather than every
	 * 8 MB; 16 MB of cache keeps a large archive's indexes in memory. */
	if (on)
		return db_script(st,
		    "PRAGMA wal_autocheckpoint=16384;"
		    "PRAGMA cache_size=-16384;",
		    "bulk on");
	return db_script(st, "PRAGMA wal_autocheckpoint=1000;", "bulk off");
}

enum err
store_cache_limit(struct store *st, int kb)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA cache_size=%d;", -kb);
	return db_script(st, sql, "cache size");
}

enum err
store_begin(struct store *st)
{
	enum err e;

	/* No nesting: a failed inner begin and its rollback would take the
	 * outer transaction with them. */
	if (st->tx) {
		log_err("store: %s: begin inside a transaction", st->path);
		return ERR_INTERNAL;
	}
	if ((e = db_exec(st, db_stmt(st, SQL_BEGIN), "begin")) == ERR_OK)
		st->tx = true;
	return e;
}

enum err
store_snapshot(struct store *st)
{
	enum err e = db_exec(st, db_stmt(st, SQL_BEGIN_READ), "begin");

	if (e == ERR_OK)
		st->tx = true;
	return e;
}

void
store_snapshot_end(struct store *st)
{
	if (st->tx)
		store_rollback(st);
}

enum err
store_changed(struct store *st, bool *changed)
{
	sqlite3_stmt *s = db_stmt(st, SQL_DATA_VERSION);
	enum err e = db_row(st, s, "data_version");

	*changed = true;
	if (e == ERR_OK) {
		int64_t v = db_col_int(s, 0);

		*changed = !st->data_version_seen || v != st->data_version;
		st->data_version = v;
		st->data_version_seen = true;
	}
	sqlite3_reset(s);
	return e;
}

enum err
store_commit(struct store *st)
{
	enum err e = db_exec(st, db_stmt(st, SQL_COMMIT), "commit");

	if (e == ERR_OK)
		st->tx = false;
	return e;
}

void
store_rollback(struct store *st)
{
	if (!st->tx) {
		log_err("store: %s: rollback without a transaction", st->path);
		return;
	}
	if (!sqlite3_get_autocommit(st->db))
		db_exec(st, db_stmt(st, SQL_ROLLBACK), "rollback");
	st->tx = false;
}

bool
store_in_tx(const struct store *st)
{
	return st->tx;
}

int
store_schema_version(void)
{
	return schema_version();
}

enum err
store_meta_get(struct store *st, const char *key, char **value)
{
	sqlite3_stmt *s = db_stmt(st, SQL_META_GET);
	enum err e;

	*value = NULL;
	db_bind_text(s, ":key", key);
	if ((e = db_row(st, s, "meta get")) == ERR_OK)
		*value = db_col_dup(s, 0);
	sqlite3_reset(s);
	return e;
}

enum err
store_meta_set(struct store *st, const char *key, const char *value)
{
	sqlite3_stmt *s = db_stmt(st, SQL_META_SET);

	db_bind_text(s, ":key", key);
	db_bind_text(s, ":value", value);
	return db_exec(st, s, "meta set");
}

enum err
store_project_id(struct store *st, const char *name, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PROJECT_GET);
	enum err e;

	db_bind_text(s, ":name", name);
	if ((e = db_one_id(st, s, id, "project get")) != ERR_NOTFOUND)
		return e;
	s = db_stmt(st, SQL_PROJECT_ADD);
	db_bind_text(s, ":name", name);
	if ((e = db_exec(st, s, "project add")) != ERR_OK)
		return e;
	*id = sqlite3_last_insert_rowid(st->db);
	return ERR_OK;
}

enum err
store_project_get(struct store *st, int64_t id, const char **name)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PROJECT_NAME);
	enum err e;

	free(st->scratch);
	st->scratch = NULL;
	db_bind_int(s, ":id", id);
	if ((e = db_row(st, s, "project name")) == ERR_OK)
		st->scratch = db_col_dup(s, 0);
	sqlite3_reset(s);
	*name = st->scratch ? st->scratch : "";
	return e == ERR_NOTFOUND ? ERR_OK : e;
}

const char *
store_project_name(struct store *st, int64_t id)
{
	const char *name;

	store_project_get(st, id, &name);
	return name;
}

enum err
store_pos_get(struct store *st, const char *source, char **pos)
{
	sqlite3_stmt *s = db_stmt(st, SQL_POS_GET);
	enum err e;

	*pos = NULL;
	db_bind_text(s, ":source", source);
	if ((e = db_row(st, s, "position get")) == ERR_OK)
		*pos = db_col_dup(s, 0);
	sqlite3_reset(s);
	return e;
}

enum err
store_pos_set(struct store *st, const char *source, const char *pos)
{
	sqlite3_stmt *s = db_stmt(st, SQL_POS_SET);

	db_bind_text(s, ":source", source);
	db_bind_text(s, ":pos", pos);
	return db_exec(st, s, "position set");
}
