#include "storage/store_patch.h"

#include <stdlib.h>

#include "storage/db.h"
#include "util/xalloc.h"

static void
patch_row(struct arena *a, sqlite3_stmt *s, void *rec)
{
	struct store_patch *p = rec;

	p->id = db_col_int(s, 0);
	p->project_id = db_col_int(s, 1);
	p->series_id = db_col_int(s, 2);
	p->message_id = db_col_int(s, 3);
	p->number = (int)db_col_int(s, 4);
	p->title = db_col_arena(a, s, 5);
	p->norm_title = db_col_arena(a, s, 6);
	p->author_name = db_col_arena(a, s, 7);
	p->author_email = db_col_arena(a, s, 8);
	p->author_time = db_col_int(s, 9);
	p->author_tz = (int)db_col_int(s, 10);
	p->patch_id = db_col_arena(a, s, 11);
	p->files = db_col_arena(a, s, 12);
	p->slug = db_col_arena(a, s, 13);
	p->state = db_col_state(s, 14);
	p->queue = db_col_queue(s, 15);
	p->reason = db_col_reason(s, 16);
	p->conflict = db_col_int(s, 17) != 0;
	p->predecessor_id = db_col_int(s, 18);
	p->queued_at = db_col_int(s, 19);
	p->queue_pos = db_col_int(s, 20);
	p->folded_into = db_col_int(s, 21);
}

enum err
store_patch_get(
    struct store *st, struct arena *a, int64_t id, struct store_patch *p)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PATCH_GET);

	db_bind_int(s, ":id", id);
	return db_one(st, a, s, sizeof(*p), patch_row, p, "patch get");
}

static void
bind_mutable(sqlite3_stmt *s, const struct store_patch *p)
{
	db_bind_text(s, ":slug", p->slug);
	db_bind_text(s, ":state", model_state_name(p->state));
	db_bind_text(s, ":queue", model_queue_name(p->queue));
	db_bind_text(s, ":reason", model_reason_name(p->reason));
	db_bind_int(s, ":conflict", p->conflict);
	db_bind_id(s, ":predecessor", p->predecessor_id);
	db_bind_id(s, ":queued_at", p->queued_at);
	db_bind_id(s, ":queue_pos", p->queue_pos);
	db_bind_id(s, ":folded_into", p->folded_into);
}

enum err
store_patch_add(struct store *st, const struct store_patch *p, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PATCH_ADD);
	enum err e;

	db_bind_id(s, ":project", p->project_id);
	db_bind_int(s, ":series", p->series_id);
	db_bind_int(s, ":message", p->message_id);
	db_bind_int(s, ":number", p->number);
	db_bind_text(s, ":title", p->title ? p->title : "");
	db_bind_text(s, ":norm_title", p->norm_title ? p->norm_title : "");
	db_bind_text(s, ":author_name", p->author_name ? p->author_name : "");
	db_bind_text(
	    s, ":author_email", p->author_email ? p->author_email : "");
	db_bind_int(s, ":author_time", p->author_time);
	db_bind_int(s, ":author_tz", p->author_tz);
	db_bind_text(s, ":patch_id", p->patch_id);
	db_bind_text(s, ":files", p->files ? p->files : "");
	bind_mutable(s, p);
	if ((e = db_exec(st, s, "patch add")) == ERR_OK)
		*id = sqlite3_last_insert_rowid(st->db);
	return e;
}

enum err
store_patch_delete(struct store *st, int64_t id, int64_t replacement)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PATCH_REPOINT_PRED);
	enum err e;

	/* Nothing may point at the row when it goes (foreign keys). */
	db_bind_int(s, ":from", id);
	db_bind_id(s, ":to", replacement);
	if ((e = db_exec(st, s, "patch predecessor repoint")) != ERR_OK)
		return e;
	s = db_stmt(st, SQL_TRAILER_DROP_OWN);
	db_bind_int(s, ":id", id);
	if ((e = db_exec(st, s, "patch own trailers drop")) != ERR_OK)
		return e;
	s = db_stmt(st, SQL_PATCH_DELETE);
	db_bind_int(s, ":id", id);
	return db_exec(st, s, "patch delete");
}

enum err
store_patch_update(struct store *st, const struct store_patch *p)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PATCH_UPDATE);

	db_bind_int(s, ":id", p->id);
	bind_mutable(s, p);
	return db_exec(st, s, "patch update");
}

enum err
store_patch_by_number(
    struct store *st, int64_t series_id, int number, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PATCH_BY_NUMBER);

	db_bind_int(s, ":series", series_id);
	db_bind_int(s, ":number", number);
	return db_one_id(st, s, id, "patch by number");
}

enum err
store_patch_by_title(
    struct store *st, int64_t series_id, const char *norm_title, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PATCH_BY_TITLE);

	db_bind_int(s, ":series", series_id);
	db_bind_text(s, ":title", norm_title);
	return db_one_id(st, s, id, "patch by title");
}

enum err
store_patch_by_patchid(
    struct store *st, int64_t series_id, const char *patch_id, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PATCH_BY_PATCHID);

	db_bind_int(s, ":series", series_id);
	db_bind_text(s, ":patch_id", patch_id);
	return db_one_id(st, s, id, "patch by patch-id");
}

enum err
store_patch_of_series(
    struct store *st, int64_t series_id, int64_t **ids, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PATCH_OF_SERIES);

	db_bind_int(s, ":series", series_id);
	return db_ids(st, s, ids, n, "patches of series");
}

enum err
store_patch_successors(struct store *st, int64_t id, int64_t **ids, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PATCH_SUCCESSORS);

	db_bind_int(s, ":id", id);
	return db_ids(st, s, ids, n, "successors of a patch");
}

enum err
store_patch_slug_used(
    struct store *st, int64_t project_id, const char *slug, bool *used)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PATCH_SLUG_USED);
	enum err e;

	db_bind_id(s, ":project", project_id);
	db_bind_text(s, ":slug", slug);
	e = db_row(st, s, "slug used");
	sqlite3_reset(s);
	*used = e == ERR_OK;
	return e == ERR_NOTFOUND ? ERR_OK : e;
}

enum err
store_patch_supersede_series(struct store *st, int64_t series_id, int *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PATCH_SUPERSEDE_SERIES);
	enum err e;

	db_bind_int(s, ":series", series_id);
	e = db_exec(st, s, "supersede series");
	*n = e == ERR_OK ? sqlite3_changes(st->db) : 0;
	return e;
}

enum err
store_patch_trailer_add(struct store *st, const struct store_trailer *t)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TRAILER_ADD);

	db_bind_id(s, ":patch", t->patch_id);
	db_bind_id(s, ":series", t->series_id);
	db_bind_int(s, ":message", t->message_id);
	db_bind_text(s, ":name", t->name);
	db_bind_text(s, ":value", t->value ? t->value : "");
	db_bind_text(s, ":email", t->email);
	db_bind_int(s, ":verified", t->verified);
	db_bind_int(s, ":own", t->own);
	return db_exec(st, s, "trailer add");
}

enum err
store_patch_trailer_carry(struct store *st, int64_t from, int64_t to)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TRAILER_CARRY);

	db_bind_int(s, ":from", from);
	db_bind_int(s, ":to", to);
	return db_exec(st, s, "trailer carry");
}

enum err
store_patch_trailer_move(struct store *st, int64_t from, int64_t to)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TRAILER_MOVE);

	db_bind_int(s, ":from", from);
	db_bind_int(s, ":to", to);
	return db_exec(st, s, "trailer move");
}

enum err
store_patch_queue_next(
    struct store *st, int64_t project_id, enum model_queue queue, int64_t *pos)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PATCH_QUEUE_NEXT);

	db_bind_id(s, ":project", project_id);
	db_bind_text(s, ":queue", model_queue_name(queue));
	return db_one_id(st, s, pos, "queue next");
}

enum err
store_patch_by_slug(
    struct store *st, int64_t project_id, const char *slug, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PATCH_BY_SLUG);

	db_bind_id(s, ":project", project_id);
	db_bind_text(s, ":slug", slug);
	return db_one_id(st, s, id, "patch by slug");
}

enum err
store_patch_trailer_drop(struct store *st, int64_t message_id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TRAILER_DROP_COLLECTED);

	db_bind_int(s, ":message", message_id);
	return db_exec(st, s, "trailer drop");
}
