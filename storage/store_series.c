#include "storage/store_series.h"

#include <stdlib.h>

#include "storage/db.h"
#include "util/xalloc.h"

static void
series_row(struct arena *a, sqlite3_stmt *s, void *rec)
{
	struct store_series *out = rec;

	out->id = db_col_int(s, 0);
	out->contribution_id = db_col_int(s, 1);
	out->project_id = db_col_int(s, 2);
	out->version = (int)db_col_int(s, 3);
	out->expected = (int)db_col_int(s, 4);
	out->received = (int)db_col_int(s, 5);
	out->cover_id = db_col_int(s, 6);
	out->first_id = db_col_int(s, 7);
	out->title = db_col_arena(a, s, 8);
	out->norm_title = db_col_arena(a, s, 9);
	out->submitter_name = db_col_arena(a, s, 10);
	out->submitter_email = db_col_arena(a, s, 11);
	out->date = db_col_int(s, 12);
	out->change_id = db_col_arena(a, s, 13);
	out->base_commit = db_col_arena(a, s, 14);
	out->resend = db_col_int(s, 15) != 0;
}

enum err
store_series_get(
    struct store *st, struct arena *a, int64_t id, struct store_series *out)
{
	sqlite3_stmt *s = db_stmt(st, SQL_SERIES_GET);

	db_bind_int(s, ":id", id);
	return db_one(st, a, s, sizeof(*out), series_row, out, "series get");
}

enum err
store_series_add(struct store *st, struct store_series *x, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_CONTRIB_ADD);
	enum err e;

	db_bind_id(s, ":project", x->project_id);
	db_bind_int(s, ":activity", x->date);
	if ((e = db_exec(st, s, "contribution add")) != ERR_OK)
		return e;
	x->contribution_id = sqlite3_last_insert_rowid(st->db);
	s = db_stmt(st, SQL_SERIES_ADD);
	db_bind_int(s, ":contribution", x->contribution_id);
	db_bind_id(s, ":project", x->project_id);
	db_bind_int(s, ":version", x->version);
	db_bind_int(s, ":expected", x->expected);
	db_bind_id(s, ":cover", x->cover_id);
	db_bind_int(s, ":first", x->first_id);
	db_bind_text(s, ":title", x->title ? x->title : "");
	db_bind_text(s, ":norm_title", x->norm_title ? x->norm_title : "");
	db_bind_text(
	    s, ":submitter_name", x->submitter_name ? x->submitter_name : "");
	db_bind_text(s, ":submitter_email",
	    x->submitter_email ? x->submitter_email : "");
	db_bind_int(s, ":date", x->date);
	db_bind_text(s, ":change_id", x->change_id);
	db_bind_text(s, ":base_commit", x->base_commit);
	db_bind_int(s, ":resend", x->resend);
	if ((e = db_exec(st, s, "series add")) != ERR_OK)
		return e;
	*id = x->id = sqlite3_last_insert_rowid(st->db);
	return store_series_touch(st, x->contribution_id, x->date);
}

enum err
store_series_update(struct store *st, const struct store_series *x)
{
	sqlite3_stmt *s = db_stmt(st, SQL_SERIES_UPDATE);

	db_bind_int(s, ":id", x->id);
	db_bind_id(s, ":cover", x->cover_id);
	db_bind_int(s, ":first", x->first_id);
	db_bind_text(s, ":title", x->title ? x->title : "");
	db_bind_text(s, ":norm_title", x->norm_title ? x->norm_title : "");
	db_bind_text(s, ":change_id", x->change_id);
	db_bind_text(s, ":base_commit", x->base_commit);
	return db_exec(st, s, "series update");
}

enum err
store_series_recount(struct store *st, int64_t id, int *received)
{
	sqlite3_stmt *s = db_stmt(st, SQL_SERIES_RECOUNT);
	enum err e;

	db_bind_int(s, ":id", id);
	if ((e = db_row(st, s, "series recount")) == ERR_OK)
		*received = (int)db_col_int(s, 0);
	if (e == ERR_OK)
		e = db_exec(st, s, "series recount");
	sqlite3_reset(s);
	return e;
}

enum err
store_series_window(struct store *st, int64_t project_id, const char *email,
    int version, int expected, int number, int64_t date, int64_t window,
    bool coverless, int64_t exclude, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_SERIES_WINDOW);

	db_bind_text(s, ":email", email);
	db_bind_int(s, ":version", version);
	db_bind_int(s, ":expected", expected);
	db_bind_int(s, ":number", number);
	db_bind_int(s, ":lo", date - window);
	db_bind_int(s, ":hi", date + window);
	db_bind_int(s, ":date", date);
	db_bind_id(s, ":project", project_id);
	db_bind_int(s, ":coverless", coverless);
	db_bind_int(s, ":exclude", exclude);
	return db_one_id(st, s, id, "series window");
}

enum err
store_series_by_change(struct store *st, int64_t project_id,
    const char *change_id, int64_t exclude, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_SERIES_BY_CHANGE);

	db_bind_text(s, ":change_id", change_id);
	db_bind_id(s, ":project", project_id);
	db_bind_int(s, ":exclude", exclude);
	return db_one_id(st, s, id, "series by change-id");
}

enum err
store_series_by_title(struct store *st, int64_t project_id, const char *email,
    const char *norm_title, int max_version, int64_t exclude, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_SERIES_BY_TITLE);

	db_bind_text(s, ":title", norm_title);
	db_bind_text(s, ":email", email);
	db_bind_id(s, ":project", project_id);
	db_bind_int(s, ":max_version", max_version);
	db_bind_int(s, ":exclude", exclude);
	return db_one_id(st, s, id, "series by title");
}

enum err
store_series_of(
    struct store *st, int64_t contribution_id, int64_t **ids, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_SERIES_OF);

	db_bind_int(s, ":contribution", contribution_id);
	return db_ids(st, s, ids, n, "series of contribution");
}

enum err
store_series_move(struct store *st, int64_t series_id, int64_t contribution_id)
{
	struct arena *a = arena_new();
	struct store_series x;
	sqlite3_stmt *s;
	enum err e = store_series_get(st, a, series_id, &x);

	if (e != ERR_OK)
		goto out;
	s = db_stmt(st, SQL_SERIES_SET_CONTRIB);
	db_bind_int(s, ":id", series_id);
	db_bind_int(s, ":contribution", contribution_id);
	if ((e = db_exec(st, s, "series move")) != ERR_OK)
		goto out;
	s = db_stmt(st, SQL_CONTRIB_DROP_EMPTY);
	db_bind_int(s, ":id", x.contribution_id);
	if ((e = db_exec(st, s, "contribution drop")) != ERR_OK)
		goto out;
	if (sqlite3_changes(st->db) > 0) {
		/* The timeline of the dropped one joins the survivor's. */
		s = db_stmt(st, SQL_EVENT_MOVE);
		db_bind_int(s, ":from", x.contribution_id);
		db_bind_int(s, ":to", contribution_id);
		if ((e = db_exec(st, s, "events move")) != ERR_OK)
			goto out;
	} else if ((e = store_series_touch(st, x.contribution_id, 0))) {
		goto out;
	}
	e = store_series_touch(st, contribution_id, x.date);
out:
	arena_free(a);
	return e;
}

enum err
store_series_touch(struct store *st, int64_t contribution_id, int64_t activity)
{
	sqlite3_stmt *s = db_stmt(st, SQL_CONTRIB_TOUCH);

	db_bind_int(s, ":id", contribution_id);
	db_bind_int(s, ":activity", activity);
	return db_exec(st, s, "contribution touch");
}

enum err
store_series_activity(struct store *st, int64_t series_id, int64_t activity)
{
	sqlite3_stmt *s = db_stmt(st, SQL_CONTRIB_ACTIVITY);

	db_bind_int(s, ":series", series_id);
	db_bind_int(s, ":activity", activity);
	return db_exec(st, s, "contribution activity");
}
