#include "storage/store_outbox.h"

#include <stdlib.h>

#include "storage/db.h"
#include "util/xalloc.h"

enum err
store_outbox_add(struct store *st, const struct store_outbox *o, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_OUTBOX_ADD);
	enum err e;

	db_bind_id(s, ":event", o->event_id);
	db_bind_id(s, ":contribution", o->contribution_id);
	db_bind_id(s, ":patch", o->patch_id);
	db_bind_text(s, ":kind", o->kind);
	db_bind_text(s, ":message_id", o->message_id);
	db_bind_text(s, ":in_reply_to", o->in_reply_to);
	db_bind_text(s, ":rcpt", o->rcpt);
	db_bind_blob(s, ":body", o->body, o->body_len);
	db_bind_text(s, ":state", o->state);
	db_bind_int(s, ":next_attempt", o->next_attempt);
	db_bind_int(s, ":created", o->created);
	if ((e = db_exec(st, s, "outbox add")) == ERR_OK && id)
		*id = sqlite3_last_insert_rowid(st->db);
	return e;
}

static void
read_row(struct arena *a, sqlite3_stmt *s, void *rec)
{
	struct store_outbox *o = rec;

	o->id = db_col_int(s, 0);
	o->event_id = db_col_int(s, 1);
	o->contribution_id = db_col_int(s, 2);
	o->patch_id = db_col_int(s, 3);
	o->kind = db_col_arena(a, s, 4);
	o->message_id = db_col_arena(a, s, 5);
	o->in_reply_to = db_col_arena(a, s, 6);
	o->rcpt = db_col_arena(a, s, 7);
	o->body_len = (size_t)sqlite3_column_bytes(s, 8);
	o->body = arena_strndup(a,
	    sqlite3_column_blob(s, 8) ? (const char *)sqlite3_column_blob(s, 8)
	                              : "",
	    o->body_len);
	o->state = db_col_arena(a, s, 9);
	o->attempts = (int)db_col_int(s, 10);
	o->next_attempt = db_col_int(s, 11);
	o->created = db_col_int(s, 12);
	o->sent_at = db_col_int(s, 13);
	o->last_error = db_col_arena(a, s, 14);
}

enum err
store_outbox_get(
    struct store *st, struct arena *a, int64_t id, struct store_outbox *o)
{
	sqlite3_stmt *s = db_stmt(st, SQL_OUTBOX_GET);

	db_bind_int(s, ":id", id);
	return db_one(st, a, s, sizeof(*o), read_row, o, "outbox get");
}

enum err
store_outbox_by_msgid(struct store *st, const char *msgid, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_OUTBOX_BY_MSGID);

	db_bind_text(s, ":msg", msgid);
	return db_one_id(st, s, id, "outbox by message-id");
}

enum err
store_outbox_due(
    struct store *st, int64_t now, bool all, int64_t **ids, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_OUTBOX_DUE);

	db_bind_int(s, ":now", now);
	db_bind_int(s, ":all", all);
	return db_ids(st, s, ids, n, "outbox due");
}

enum err
store_outbox_result(struct store *st, const struct store_outbox *o)
{
	sqlite3_stmt *s = db_stmt(st, SQL_OUTBOX_RESULT);

	db_bind_int(s, ":id", o->id);
	db_bind_text(s, ":state", o->state);
	db_bind_int(s, ":attempts", o->attempts);
	db_bind_int(s, ":next_attempt", o->next_attempt);
	db_bind_text(s, ":last_error", o->last_error);
	db_bind_id(s, ":sent_at", o->sent_at);
	db_bind_text(s, ":rcpt", o->rcpt);
	return db_exec(st, s, "outbox result");
}

enum err
store_outbox_release(struct store *st, int64_t patch_id, int *released)
{
	sqlite3_stmt *s = db_stmt(st, SQL_OUTBOX_RELEASE);
	enum err e;

	db_bind_int(s, ":patch", patch_id);
	e = db_exec(st, s, "outbox release");
	if (released)
		*released = e == ERR_OK ? sqlite3_changes(st->db) : 0;
	return e;
}

enum err
store_outbox_cancel(struct store *st, int64_t patch_id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_OUTBOX_CANCEL);

	db_bind_int(s, ":patch", patch_id);
	return db_exec(st, s, "outbox cancel");
}

enum err
store_outbox_of(struct store *st, struct arena *a, int64_t contribution_id,
    struct store_outbox **out, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_OUTBOX_OF);

	db_bind_int(s, ":contribution", contribution_id);
	return db_rows(st, a, s, sizeof(**out), read_row, (void **)out, n);
}

enum err
store_check_add(struct store *st, const struct store_check *c)
{
	sqlite3_stmt *s = db_stmt(st, SQL_CHECK_ADD);

	db_bind_id(s, ":patch", c->patch_id);
	db_bind_id(s, ":series", c->series_id);
	db_bind_text(s, ":context", c->context);
	db_bind_text(s, ":state", c->state);
	db_bind_text(s, ":url", c->url);
	db_bind_text(s, ":summary", c->summary);
	db_bind_text(s, ":log", c->log);
	db_bind_text(s, ":base", c->base_commit);
	db_bind_text(s, ":reporter", c->reporter);
	db_bind_int(s, ":time", c->time);
	db_bind_text(s, ":commit", c->commit);
	if (c->duration_ms > 0 || c->run_id)
		db_bind_int(s, ":duration", c->duration_ms);
	else
		db_bind_null(s, ":duration");
	db_bind_id(s, ":run", c->run_id);
	return db_exec(st, s, "check add");
}

/* A tail cut at a byte count may start inside a UTF-8 character. */
static const char *
tail_of(struct arena *a, sqlite3_stmt *s, int col)
{
	const char *t = db_col_text(s, col);
	size_t n = t ? (size_t)sqlite3_column_bytes(s, col) : 0;

	if (t == NULL)
		return NULL;
	while (n > 0 && ((unsigned char)*t & 0xc0) == 0x80)
		t++, n--;
	return arena_strndup(a, t, n);
}

static void
check_row(struct arena *a, sqlite3_stmt *s, void *rec)
{
	struct store_check *c = rec;

	c->id = db_col_int(s, 0);
	c->patch_id = db_col_int(s, 1);
	c->series_id = db_col_int(s, 2);
	c->context = db_col_arena(a, s, 3);
	c->state = db_col_arena(a, s, 4);
	c->url = db_col_arena(a, s, 5);
	c->summary = db_col_arena(a, s, 6);
	c->log = tail_of(a, s, 7);
	c->base_commit = db_col_arena(a, s, 8);
	c->reporter = db_col_arena(a, s, 9);
	c->time = db_col_int(s, 10);
	c->commit = db_col_arena(a, s, 11);
	c->duration_ms = db_col_int(s, 12);
	c->run_id = db_col_int(s, 13);
}

enum err
store_check_of(struct store *st, struct arena *a, int64_t contribution_id,
    struct store_check **out, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_CHECK_OF);

	db_bind_int(s, ":contribution", contribution_id);
	return db_rows(st, a, s, sizeof(**out), check_row, (void **)out, n);
}

enum err
store_check_log(
    struct store *st, struct arena *a, int64_t check_id, const char **log)
{
	sqlite3_stmt *s = db_stmt(st, SQL_CHECK_LOG);
	enum err e;

	*log = NULL;
	db_bind_int(s, ":id", check_id);
	if ((e = db_row(st, s, "check log")) == ERR_OK)
		*log = db_col_arena(a, s, 0);
	sqlite3_reset(s);
	return e;
}

enum err
store_check_exists(struct store *st, const char *commit, int64_t run_id,
    const char *context, bool *found)
{
	sqlite3_stmt *s = db_stmt(st, run_id ? SQL_CHECK_FIND : SQL_CHECK_AT);
	enum err e;

	db_bind_text(s, ":commit", commit);
	if (run_id)
		db_bind_int(s, ":run", run_id);
	db_bind_text(s, ":context", context);
	e = db_row(st, s, "check exists");
	sqlite3_reset(s);
	*found = e == ERR_OK;
	return e == ERR_NOTFOUND ? ERR_OK : e;
}

enum err
store_check_last_is(struct store *st, const char *commit, const char *context,
    const char *state, const char *summary, bool *same)
{
	sqlite3_stmt *s = db_stmt(st, SQL_CHECK_LAST_IS);
	enum err e;

	db_bind_text(s, ":commit", commit);
	db_bind_text(s, ":context", context);
	db_bind_text(s, ":state", state);
	db_bind_text(s, ":summary", summary);
	e = db_row(st, s, "check last");
	*same = e == ERR_OK && db_col_int(s, 0) == 1;
	sqlite3_reset(s);
	return e == ERR_NOTFOUND ? ERR_OK : e;
}
