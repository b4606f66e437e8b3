#include "storage/store_test.h"

#include <string.h>

#include "storage/db.h"

enum err
store_test_add(
    struct store *st, const struct store_test_run *r, int64_t now, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_ADD);
	enum err e;

	db_bind_int(s, ":project", r->project_id);
	db_bind_id(s, ":patch", r->patch_id);
	db_bind_text(s, ":commit", r->commit);
	db_bind_text(s, ":tree", r->tree);
	db_bind_text(s, ":base", r->base);
	db_bind_text(s, ":command", r->command);
	db_bind_text(s, ":purpose", r->purpose);
	db_bind_int(s, ":forced", r->forced);
	db_bind_int(s, ":now", now);
	if ((e = db_exec(st, s, "test add")) == ERR_OK && id)
		*id = sqlite3_last_insert_rowid(st->db);
	return e;
}

enum err
store_test_unqueue(struct store *st, int64_t project_id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_UNQUEUE);

	db_bind_int(s, ":project", project_id);
	return db_exec(st, s, "test unqueue");
}

static void
run_row(struct arena *a, sqlite3_stmt *s, void *rec)
{
	struct store_test_run *r = rec;

	r->id = db_col_int(s, 0);
	r->project_id = db_col_int(s, 1);
	r->patch_id = db_col_int(s, 2);
	r->commit = db_col_arena(a, s, 3);
	r->tree = db_col_arena(a, s, 4);
	r->base = db_col_arena(a, s, 5);
	r->command = db_col_arena(a, s, 6);
	r->purpose = db_col_arena(a, s, 7);
	r->state = db_col_arena(a, s, 8);
	r->forced = db_col_int(s, 9) != 0;
	r->stale = db_col_int(s, 10) != 0;
	r->owner = db_col_int(s, 11);
	r->result = db_col_arena(a, s, 12);
	r->summary = db_col_arena(a, s, 13);
	r->duration_ms = db_col_int(s, 14);
	r->queued = db_col_int(s, 15);
	r->started = db_col_int(s, 16);
	r->finished = db_col_int(s, 17);
	r->log = db_col_arena(a, s, 18);
}

enum err
store_test_results(struct store *st, struct arena *a, const char *tree,
    const char *command, int max, struct store_test_run **out, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_RESULTS);

	db_bind_text(s, ":tree", tree);
	db_bind_text(s, ":command", command);
	db_bind_int(s, ":max", max);
	return db_rows(st, a, s, sizeof(**out), run_row, (void **)out, n);
}

enum err
store_test_pending(
    struct store *st, const char *tree, const char *command, bool *pending)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_PENDING);
	enum err e;

	db_bind_text(s, ":tree", tree);
	db_bind_text(s, ":command", command);
	e = db_row(st, s, "test pending");
	sqlite3_reset(s);
	*pending = e == ERR_OK;
	return e == ERR_NOTFOUND ? ERR_OK : e;
}

enum err
store_test_claim(struct store *st, int64_t project_id, int64_t owner,
    int64_t now, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_CLAIM);

	db_bind_int(s, ":project", project_id);
	db_bind_int(s, ":owner", owner);
	db_bind_int(s, ":now", now);
	return db_one_id(st, s, id, "test claim");
}

enum err
store_test_get(
    struct store *st, struct arena *a, int64_t id, struct store_test_run *out)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_GET);

	memset(out, 0, sizeof(*out));
	db_bind_int(s, ":id", id);
	return db_one(st, a, s, sizeof(*out), run_row, out, "test get");
}

enum err
store_test_finish(struct store *st, const struct store_test_run *r, int64_t now)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_FINISH);

	db_bind_int(s, ":id", r->id);
	db_bind_text(s, ":state", r->state);
	db_bind_text(s, ":result", r->result);
	db_bind_text(s, ":summary", r->summary);
	db_bind_text(s, ":log", r->log);
	db_bind_int(s, ":duration", r->duration_ms);
	db_bind_int(s, ":now", now);
	return db_exec(st, s, "test finish");
}

enum err
store_test_running(
    struct store *st, struct arena *a, struct store_test_run **out, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_RUNNING);

	return db_rows(st, a, s, sizeof(**out), run_row, (void **)out, n);
}

enum err
store_test_open(
    struct store *st, struct arena *a, struct store_test_run **out, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_OPEN);

	return db_rows(st, a, s, sizeof(**out), run_row, (void **)out, n);
}

enum err
store_test_requeue(struct store *st, int64_t id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_REQUEUE);

	db_bind_int(s, ":id", id);
	return db_exec(st, s, "test requeue");
}

enum err
store_test_forget(struct store *st, const char *tree, const char *command)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_FORGET);

	db_bind_text(s, ":tree", tree);
	db_bind_text(s, ":command", command);
	return db_exec(st, s, "test forget");
}

enum err
store_test_count_since(struct store *st, int64_t project_id,
    const char *purpose, int64_t after_id, int *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_COUNT_SINCE);
	enum err e;

	*n = 0;
	db_bind_int(s, ":project", project_id);
	db_bind_text(s, ":purpose", purpose);
	db_bind_int(s, ":after", after_id);
	if ((e = db_row(st, s, "test count")) == ERR_OK)
		*n = (int)db_col_int(s, 0);
	sqlite3_reset(s);
	return e;
}

enum err
store_test_work(struct store *st, bool *any)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_WORK);
	enum err e;

	*any = false;
	if ((e = db_row(st, s, "test work")) == ERR_OK)
		*any = db_col_int(s, 0) != 0;
	sqlite3_reset(s);
	return e;
}

enum err
store_test_request(struct store *st, int64_t project_id, int64_t patch_id,
    const char *actor, int64_t now)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_REQUEST_ADD);

	db_bind_int(s, ":project", project_id);
	db_bind_int(s, ":patch", patch_id);
	db_bind_text(s, ":actor", actor);
	db_bind_int(s, ":time", now);
	return db_exec(st, s, "test request");
}

enum err
store_test_requests(
    struct store *st, int64_t project_id, int64_t **ids, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_REQUESTS);

	db_bind_int(s, ":project", project_id);
	return db_ids(st, s, ids, n, "test requests");
}

enum err
store_test_requests_done(struct store *st, int64_t project_id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_TEST_REQUEST_DONE);

	db_bind_int(s, ":project", project_id);
	return db_exec(st, s, "test requests done");
}
