#include "storage/store_stage.h"

#include <stdlib.h>
#include <string.h>

#include "storage/db.h"
#include "util/xalloc.h"

enum err
store_stage_queue(
    struct store *st, int64_t project_id, int64_t **ids, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_STAGE_QUEUE);

	db_bind_int(s, ":project", project_id);
	return db_ids(st, s, ids, n, "stage queue");
}

enum err
store_stage_folded(struct store *st, int64_t patch_id, int64_t **ids, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_STAGE_FOLDED);

	db_bind_int(s, ":patch", patch_id);
	return db_ids(st, s, ids, n, "folded fix-ups");
}

static void
build_row(struct arena *a, sqlite3_stmt *s, void *rec)
{
	struct store_build *b = rec;

	b->patch_id = db_col_int(s, 0);
	b->key = db_col_arena(a, s, 1);
	b->commit = db_col_arena(a, s, 2);
	b->how = (int)db_col_int(s, 3);
	b->offset = (long)db_col_int(s, 4);
}

enum err
store_stage_prev(struct store *st, struct arena *a, int64_t project_id,
    enum model_queue branch, struct store_build **out, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_STAGE_PREV);

	db_bind_int(s, ":project", project_id);
	db_bind_text(s, ":branch", model_queue_name(branch));
	return db_rows(st, a, s, sizeof(**out), build_row, (void **)out, n);
}

enum err
store_stage_save(struct store *st, int64_t project_id, enum model_queue branch,
    const struct store_build *b, size_t n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_STAGE_CLEAR);
	size_t i;
	enum err e;

	db_bind_int(s, ":project", project_id);
	db_bind_text(s, ":branch", model_queue_name(branch));
	if ((e = db_exec(st, s, "stage clear")) != ERR_OK)
		return e;
	for (i = 0; i < n && e == ERR_OK; i++) {
		s = db_stmt(st, SQL_STAGE_SAVE);
		db_bind_int(s, ":project", project_id);
		db_bind_text(s, ":branch", model_queue_name(branch));
		db_bind_int(s, ":pos", (int64_t)i);
		db_bind_int(s, ":patch", b[i].patch_id);
		db_bind_text(s, ":key", b[i].key);
		db_bind_text(s, ":commit",
		    b[i].commit && *b[i].commit ? b[i].commit : NULL);
		db_bind_int(s, ":how", b[i].how);
		db_bind_int(s, ":offset", b[i].offset);
		e = db_exec(st, s, "stage save");
	}
	return e;
}

enum err
store_stage_by_patchid(struct store *st, int64_t project_id,
    const char *patch_id, int64_t **ids, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_STAGE_BY_PATCHID);

	db_bind_int(s, ":project", project_id);
	db_bind_text(s, ":patch_id", patch_id);
	return db_ids(st, s, ids, n, "patches by patch-id");
}

enum err
store_stage_by_author(struct store *st, int64_t project_id, const char *email,
    const char *norm_title, int64_t **ids, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_STAGE_BY_AUTHOR);

	db_bind_int(s, ":project", project_id);
	db_bind_text(s, ":email", email);
	db_bind_text(s, ":title", norm_title);
	return db_ids(st, s, ids, n, "patches by author and title");
}
