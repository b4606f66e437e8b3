#include "storage/store_tree.h"

#include <string.h>

#include "storage/db.h"

static void
tree_row(struct arena *a, sqlite3_stmt *s, void *rec)
{
	struct store_tree *t = rec;

	t->id = db_col_int(s, 0);
	t->project_id = db_col_int(s, 1);
	t->name = db_col_arena(a, s, 2);
	t->url = db_col_arena(a, s, 3);
	t->branch = db_col_arena(a, s, 4);
	t->owner = db_col_arena(a, s, 5);
	t->from_mail = db_col_int(s, 6) != 0;
	t->message_id = db_col_int(s, 7);
	t->pinned = db_col_arena(a, s, 8);
	t->commit = db_col_arena(a, s, 9);
	t->state = db_col_arena(a, s, 10);
	t->last_error = db_col_arena(a, s, 11);
	t->reported = db_col_arena(a, s, 12);
	t->since = db_col_int(s, 13);
	t->pos = db_col_int(s, 14);
}

enum err
store_tree_list(struct store *st, struct arena *a, int64_t project_id,
    struct store_tree **out, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TREE_LIST);

	db_bind_int(s, ":project", project_id);
	return db_rows(st, a, s, sizeof(**out), tree_row, (void **)out, n);
}

static void
bind_fields(sqlite3_stmt *s, const struct store_tree *t)
{
	db_bind_text(s, ":name", t->name);
	db_bind_text(s, ":url", t->url);
	db_bind_text(s, ":branch", t->branch);
	db_bind_text(s, ":owner", t->owner);
	db_bind_id(s, ":message", t->message_id);
	db_bind_text(s, ":pinned", t->pinned);
	db_bind_text(s, ":commit", t->commit);
	db_bind_text(s, ":state", t->state ? t->state : "new");
	db_bind_text(s, ":last_error", t->last_error);
	db_bind_text(s, ":reported", t->reported);
	db_bind_int(s, ":since", t->since);
	db_bind_int(s, ":pos", t->pos);
}

enum err
store_tree_add(struct store *st, const struct store_tree *t, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TREE_ADD);
	enum err e;

	db_bind_int(s, ":project", t->project_id);
	db_bind_text(s, ":origin", t->from_mail ? "mail" : "config");
	bind_fields(s, t);
	if ((e = db_exec(st, s, "tree add")) == ERR_OK && id)
		*id = sqlite3_last_insert_rowid(st->db);
	return e;
}

enum err
store_tree_update(struct store *st, const struct store_tree *t)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TREE_UPDATE);

	db_bind_int(s, ":id", t->id);
	bind_fields(s, t);
	return db_exec(st, s, "tree update");
}

enum err
store_tree_delete(struct store *st, int64_t id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TREE_DELETE);

	db_bind_int(s, ":id", id);
	return db_exec(st, s, "tree delete");
}
