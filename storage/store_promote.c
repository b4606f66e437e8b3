#include "storage/store_promote.h"

#include <string.h>

#include "storage/db.h"

static void
check_row(struct arena *a, sqlite3_stmt *s, void *rec)
{
	struct store_check_state *c = rec;

	c->context = db_col_arena(a, s, 0);
	c->state = db_col_arena(a, s, 1);
}

enum err
store_promote_checks(struct store *st, struct arena *a, int64_t patch_id,
    int64_t series_id, struct store_check_state **out, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PROMOTE_CHECKS);

	db_bind_int(s, ":patch", patch_id);
	db_bind_int(s, ":series", series_id);
	return db_rows(st, a, s, sizeof(**out), check_row, (void **)out, n);
}

enum err
store_promote_mark(
    struct store *st, int64_t patch_id, int64_t since, enum model_state *mark)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PROMOTE_MARK);
	enum err e;

	db_bind_int(s, ":patch", patch_id);
	db_bind_int(s, ":since", since);
	if ((e = db_row(st, s, "promote mark")) == ERR_OK)
		*mark = db_col_state(s, 0);
	sqlite3_reset(s);
	return e;
}

enum err
store_forward_add(struct store *st, const struct store_forward *f)
{
	sqlite3_stmt *s = db_stmt(st, SQL_FORWARD_ADD);

	db_bind_int(s, ":project", f->project_id);
	db_bind_int(s, ":patch", f->patch_id);
	db_bind_text(s, ":key", f->key);
	db_bind_text(s, ":message_id", f->message_id);
	db_bind_text(s, ":mode", f->mode);
	db_bind_int(s, ":time", f->time);
	return db_exec(st, s, "forward add");
}

enum err
store_forward_last(struct store *st, struct arena *a, int64_t patch_id,
    struct store_forward *out)
{
	sqlite3_stmt *s = db_stmt(st, SQL_FORWARD_LAST);
	enum err e;

	memset(out, 0, sizeof(*out));
	db_bind_int(s, ":patch", patch_id);
	if ((e = db_row(st, s, "forward last")) == ERR_OK) {
		out->patch_id = patch_id;
		out->key = db_col_arena(a, s, 0);
		out->message_id = db_col_arena(a, s, 1);
		out->time = db_col_int(s, 2);
		out->mode = db_col_arena(a, s, 3);
	}
	sqlite3_reset(s);
	return e;
}
