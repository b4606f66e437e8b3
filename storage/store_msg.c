#include "storage/store_msg.h"

#include <stdlib.h>
#include <string.h>

#include "storage/db.h"
#include "util/xalloc.h"

static enum mail_kind
kind_of(const char *s)
{
	static const enum mail_kind all[] = { MAIL_PATCH, MAIL_COVER,
		MAIL_REPLY, MAIL_PULL, MAIL_BOT };
	size_t i;

	for (i = 0; s && i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(s, mail_kind_name(all[i])) == 0)
			return all[i];
	return MAIL_OTHER;
}

static void
read_row(struct arena *a, sqlite3_stmt *s, void *rec)
{
	struct store_msg *m = rec;
	const void *h;

	m->id = db_col_int(s, 0);
	m->project_id = db_col_int(s, 1);
	m->series_id = db_col_int(s, 2);
	m->patch_id = db_col_int(s, 3);
	m->kind = kind_of(db_col_text(s, 4));
	m->flags = (unsigned)db_col_int(s, 5);
	h = sqlite3_column_blob(s, 6);
	if (h && sqlite3_column_bytes(s, 6) == (int)sizeof(m->hash))
		memcpy(m->hash, h, sizeof(m->hash));
	m->date = db_col_int(s, 7);
	if (sqlite3_column_count(s) <= 8)
		return; /* a lookup: no strings */
	m->msgid = db_col_arena(a, s, 8);
	m->from_name = db_col_arena(a, s, 9);
	m->from_email = db_col_arena(a, s, 10);
	m->subject = db_col_arena(a, s, 11);
	m->parent = db_col_arena(a, s, 12);
	m->auth = db_col_arena(a, s, 13);
	m->auth_note = db_col_arena(a, s, 14);
}

enum err
store_msg_find(
    struct store *st, struct arena *a, const char *msgid, struct store_msg *out)
{
	sqlite3_stmt *s = db_stmt(st, SQL_MSG_FIND);

	db_bind_text(s, ":msgid", msgid);
	return db_one(st, a, s, sizeof(*out), read_row, out, "message find");
}

enum err
store_msg_copies(struct store *st, const char *msgid, int64_t **ids, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_MSG_COPIES);

	db_bind_text(s, ":msgid", msgid);
	return db_ids(st, s, ids, n, "message copies");
}

enum err
store_msg_get(
    struct store *st, struct arena *a, int64_t id, struct store_msg *out)
{
	sqlite3_stmt *s = db_stmt(st, SQL_MSG_GET);

	db_bind_int(s, ":id", id);
	return db_one(st, a, s, sizeof(*out), read_row, out, "message get");
}

enum err
store_msg_of_contrib(struct store *st, struct arena *a, int64_t contribution,
    struct store_msg **out, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_MSG_OF_CONTRIB);

	db_bind_int(s, ":contribution", contribution);
	return db_rows(st, a, s, sizeof(**out), read_row, (void **)out, n);
}

enum err
store_msg_add(struct store *st, const struct store_msg *m,
    const char *parent_msgid, const char *raw, size_t n, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_MSG_ADD);
	enum err e;

	db_bind_text(s, ":msgid", m->msgid);
	db_bind_id(s, ":project", m->project_id);
	db_bind_text(s, ":kind", mail_kind_name(m->kind));
	db_bind_int(s, ":flags", m->flags);
	db_bind_blob(s, ":hash", m->hash, sizeof(m->hash));
	db_bind_int(s, ":date", m->date);
	db_bind_text(s, ":from_name", m->from_name ? m->from_name : "");
	db_bind_text(s, ":from_email", m->from_email ? m->from_email : "");
	db_bind_text(s, ":subject", m->subject ? m->subject : "");
	db_bind_text(s, ":parent", parent_msgid);
	db_bind_int(s, ":size", (int64_t)n);
	db_bind_id(s, ":series", m->series_id);
	db_bind_id(s, ":patch", m->patch_id);
	db_bind_text(s, ":auth", m->auth);
	db_bind_text(s, ":auth_note", m->auth_note);
	if ((e = db_exec(st, s, "message add")) != ERR_OK)
		return e;
	*id = sqlite3_last_insert_rowid(st->db);
	s = db_stmt(st, SQL_RAW_ADD);
	db_bind_int(s, ":id", *id);
	db_bind_blob(s, ":bytes", raw, n);
	if ((e = db_exec(st, s, "message raw add")) != ERR_OK ||
	    m->from_email == NULL || *m->from_email == '\0')
		return e;
	s = db_stmt(st, SQL_MSG_PERSON);
	db_bind_int(s, ":id", *id);
	db_bind_text(s, ":email", m->from_email);
	return db_exec(st, s, "message person");
}

enum err
store_msg_delivered(struct store *st, int64_t id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_MSG_DELIVERED);

	db_bind_int(s, ":id", id);
	return db_exec(st, s, "message delivered");
}

enum err
store_msg_attach(
    struct store *st, int64_t id, int64_t series_id, int64_t patch_id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_MSG_ATTACH);

	db_bind_int(s, ":id", id);
	db_bind_id(s, ":series", series_id);
	db_bind_id(s, ":patch", patch_id);
	return db_exec(st, s, "message attach");
}

enum err
store_msg_repoint(struct store *st, int64_t from, int64_t to)
{
	sqlite3_stmt *s = db_stmt(st, SQL_MSG_REPOINT);

	db_bind_int(s, ":from", from);
	db_bind_int(s, ":to", to);
	return db_exec(st, s, "message repoint");
}

enum err
store_msg_raw(
    struct store *st, struct arena *a, int64_t id, const char **raw, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_RAW_GET);
	enum err e;

	db_bind_int(s, ":id", id);
	if ((e = db_row(st, s, "message raw")) == ERR_OK) {
		size_t len = (size_t)sqlite3_column_bytes(s, 0);
		const void *p = sqlite3_column_blob(s, 0);
		char *copy = arena_alloc(a, len + 1);

		if (len)
			memcpy(copy, p, len);
		copy[len] = '\0';
		*raw = copy;
		*n = len;
	}
	sqlite3_reset(s);
	return e;
}

enum err
store_msg_pending_add(struct store *st, const char *ref, int64_t msg_id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PENDING_ADD);

	db_bind_text(s, ":ref", ref);
	db_bind_int(s, ":msg", msg_id);
	return db_exec(st, s, "pending add");
}

enum err
store_msg_pending_peek(
    struct store *st, const char *ref, int64_t **ids, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PENDING_PEEK);

	db_bind_text(s, ":ref", ref);
	return db_ids(st, s, ids, n, "pending peek");
}

enum err
store_msg_pending_take(
    struct store *st, const char *ref, int64_t **ids, size_t *n)
{
	sqlite3_stmt *s;
	enum err e = store_msg_pending_peek(st, ref, ids, n);

	if (e != ERR_OK || *n == 0)
		return e;
	s = db_stmt(st, SQL_PENDING_DROP_REF);
	db_bind_text(s, ":ref", ref);
	return db_exec(st, s, "pending take");
}

enum err
store_msg_pending_waits(struct store *st, int64_t msg_id, bool *waits)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PENDING_WAITS);
	enum err e;

	db_bind_int(s, ":msg", msg_id);
	e = db_row(st, s, "pending waits");
	sqlite3_reset(s);
	*waits = e == ERR_OK;
	return e == ERR_NOTFOUND ? ERR_OK : e;
}

enum err
store_msg_pending_clear(struct store *st, int64_t msg_id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PENDING_CLEAR);

	db_bind_int(s, ":msg", msg_id);
	return db_exec(st, s, "pending clear");
}
