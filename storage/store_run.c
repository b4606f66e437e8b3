#include "storage/store_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/db.h"
#include "util/log.h"

enum err
store_source_report(struct store *st, const char *name, const char *kind,
    const char *error, int64_t now)
{
	sqlite3_stmt *s = db_stmt(st, SQL_SOURCE_REPORT);

	db_bind_text(s, ":name", name);
	db_bind_text(s, ":kind", kind);
	db_bind_text(s, ":error", error);
	if (error)
		db_bind_int(s, ":error_time", now);
	else
		db_bind_null(s, ":error_time");
	db_bind_int(s, ":now", now);
	return db_exec(st, s, "source report");
}

enum err
store_source_get(struct store *st, struct arena *a, const char *name,
    struct store_source *out)
{
	sqlite3_stmt *s = db_stmt(st, SQL_SOURCE_GET);
	size_t n = strlen(name) + 16;
	char *lo = arena_alloc(a, n), *hi = arena_alloc(a, n);
	enum err e;

	memset(out, 0, sizeof(*out));
	db_bind_text(s, ":name", name);
	e = db_row(st, s, "source get");
	if (e == ERR_OK) {
		out->last_error = db_col_arena(a, s, 0);
		out->error_time = db_col_int(s, 1);
		out->checked = db_col_int(s, 2);
	}
	sqlite3_reset(s);
	if (e != ERR_OK && e != ERR_NOTFOUND)
		return e;
	/* Keys "source:NAME:..." sort between "source:NAME:" and
	 * "source:NAME;" (';' follows ':'). */
	snprintf(lo, n, "source:%s:", name);
	snprintf(hi, n, "source:%s;", name);
	s = db_stmt(st, SQL_SOURCE_POS);
	db_bind_text(s, ":lo", lo);
	db_bind_text(s, ":hi", hi);
	e = db_row(st, s, "source position");
	if (e == ERR_OK)
		out->position = db_col_arena(a, s, 0);
	sqlite3_reset(s);
	return e == ERR_NOTFOUND ? ERR_OK : e;
}

enum err
store_run_mark(struct store *st, const char *what, int64_t t)
{
	char key[64], val[32];

	if (snprintf(key, sizeof(key), "last.%s", what) >= (int)sizeof(key))
		return ERR_INVAL;
	snprintf(val, sizeof(val), "%lld", (long long)t);
	return store_meta_set(st, key, val);
}

int64_t
store_run_last(struct store *st, const char *what)
{
	char key[64], *val = NULL;
	int64_t t = 0;

	if (snprintf(key, sizeof(key), "last.%s", what) >= (int)sizeof(key))
		return 0;
	if (store_meta_get(st, key, &val) == ERR_OK && val)
		t = strtoll(val, NULL, 10);
	free(val);
	return t;
}

static enum err
one_int(struct store *st, sqlite3_stmt *s, const char *what, int64_t *v)
{
	enum err e = db_row(st, s, what);

	*v = e == ERR_OK ? db_col_int(s, 0) : 0;
	sqlite3_reset(s);
	return e == ERR_NOTFOUND ? ERR_OK : e;
}

enum err
store_run_queue_mark(struct store *st, int64_t *mark)
{
	return one_int(st, db_stmt(st, SQL_RUN_QUEUE_MARK), "queue mark", mark);
}

enum err
store_run_outbox_next(struct store *st, int64_t *t)
{
	return one_int(st, db_stmt(st, SQL_RUN_OUTBOX_NEXT), "outbox next", t);
}

static void
count_row(struct arena *a, sqlite3_stmt *s, void *rec)
{
	struct store_count *c = rec;

	c->name = db_col_arena(a, s, 0);
	c->n = db_col_int(s, 1);
}

static void
queue_row(struct arena *a, sqlite3_stmt *s, void *rec)
{
	struct store_count *c = rec;
	const char *p = db_col_text(s, 0), *q = db_col_text(s, 1);
	size_t n = strlen(p ? p : "") + strlen(q ? q : "") + 2;
	char *name = arena_alloc(a, n);

	snprintf(name, n, "%s/%s", p ? p : "", q ? q : "");
	c->name = name;
	c->n = db_col_int(s, 2);
}

enum err
store_status_read(
    struct store *st, struct arena *a, int64_t now, struct store_status *out)
{
	sqlite3_stmt *s;
	enum err e;

	memset(out, 0, sizeof(*out));
	e = one_int(
	    st, db_stmt(st, SQL_STATUS_MESSAGES), "messages", &out->messages);
	if (e == ERR_OK)
		e = db_rows(st, a, db_stmt(st, SQL_STATUS_STATES),
		    sizeof(*out->states), count_row, (void **)&out->states,
		    &out->nstates);
	if (e == ERR_OK)
		e = db_rows(st, a, db_stmt(st, SQL_STATUS_QUEUES),
		    sizeof(*out->queues), queue_row, (void **)&out->queues,
		    &out->nqueues);
	if (e != ERR_OK)
		return e;
	s = db_stmt(st, SQL_STATUS_OUTBOX);
	db_bind_int(s, ":now", now);
	if ((e = db_row(st, s, "outbox counts")) == ERR_OK) {
		out->due = db_col_int(s, 0);
		out->waiting = db_col_int(s, 1);
		out->failed = db_col_int(s, 2);
	}
	sqlite3_reset(s);
	return e;
}
