/* Unit tests of storage/: the schema migrates, every named statement
 * prepares against it, and the basic rows round-trip. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include <cmocka.h>

#include "storage/db.h"
#include "storage/store.h"
#include "storage/store_msg.h"
#include "storage/store_patch.h"
#include "storage/store_promote.h"
#include "storage/store_pw.h"
#include "storage/store_read.h"
#include "storage/store_series.h"
#include "storage/store_tree.h"

static char dir[] = "/tmp/yard-store-XXXXXX";
static char path[128];

static int
setup(void **state)
{
	(void)state;
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/t.db", dir);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void
test_every_statement_prepares(void **state)
{
	struct store *st;
	int i;

	(void)state;
	assert_int_equal(store_open(path, STORE_CREATE, &st), ERR_OK);
	/* db_stmt() aborts on a statement that does not prepare or has no
	 * text: reaching the end is the test. */
	for (i = 0; i < SQL_COUNT; i++)
		assert_non_null(db_stmt(st, (enum sql_id)i));
	store_close(st);
}

/*
 * The statements a rebuild runs once per queued patch find their rows
 * by an index: a scan there is a scan of every patch, message or
 * trailer for each patch of the queue (SQL_STAGE_FOLDED was one).
 */
/* Run sql on a connection of its own to db; the connection is returned
 * (the caller closes it) so that a transaction can stay open. */
static sqlite3 *
raw_exec(sqlite3 *db, const char *file, const char *sql)
{
	char *err = NULL;

	if (db == NULL)
		assert_int_equal(sqlite3_open(file, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
	return db;
}

/*
 * Two processes open a database one migration behind (two `ingest`s
 * right after an upgrade): the one that waited for the write lock while
 * the other migrated goes on from the version it finds then, instead of
 * running the migration a second time (which failed: "duplicate column").
 */
static void
test_migration_race(void **state)
{
	char file[160];
	struct store *st;
	sqlite3 *lock;
	int status = -1, go[2];
	pid_t pid;
	char c;

	(void)state;
	snprintf(file, sizeof(file), "%s/race.db", dir);
	assert_int_equal(store_open(file, STORE_CREATE, &st), ERR_OK);
	store_close(st);
	/* One migration behind: the last one (11, patchwork's events and
	 * people by index) undone. */
	assert_int_equal(schema_version(), 11);
	sqlite3_close(raw_exec(NULL, file,
	    "DROP TABLE person;"
	    "DROP INDEX message_date; DROP INDEX message_nopatch_date;"
	    "DROP INDEX event_time;"
	    "DROP INDEX checks_time; DROP INDEX series_cover;"
	    "PRAGMA user_version=10;"));
	/* No connection may cross fork(): the child opens its own once
	 * the parent holds the write lock. */
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) { /* reads version 10, then waits for the lock */
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(store_open(file, STORE_RW, &st) == ERR_OK ? 0 : 1);
	}
	close(go[0]);
	lock = raw_exec(NULL, file, "BEGIN IMMEDIATE;");
	assert_int_equal(write(go[1], "x", 1), 1);
	close(go[1]);
	usleep(300 * 1000);
	raw_exec(lock, file,
	    "CREATE INDEX message_date ON message(date);"
	    "PRAGMA user_version=11; COMMIT;");
	sqlite3_close(lock);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void
test_per_patch_statements_use_indexes(void **state)
{
	static const enum sql_id ids[] = { SQL_PATCH_GET, SQL_SERIES_GET,
		SQL_MSG_GET, SQL_RAW_GET, SQL_STAGE_FOLDED,
		SQL_READ_TRAILERS_OF, SQL_PROMOTE_MARK, SQL_PW_PATCH_GET,
		SQL_PW_SERIES_GET, SQL_PW_SERIES_PATCHES, SQL_PW_CHECK,
		SQL_PW_COMMENT, SQL_PW_PERSON };
	struct store *st;
	char q[2048];
	size_t i;

	(void)state;
	assert_int_equal(store_open(path, STORE_CREATE, &st), ERR_OK);
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		sqlite3_stmt *s = NULL;

		snprintf(
		    q, sizeof(q), "EXPLAIN QUERY PLAN %s", sql_text(ids[i]));
		assert_int_equal(
		    sqlite3_prepare_v2(st->db, q, -1, &s, NULL), SQLITE_OK);
		while (sqlite3_step(s) == SQLITE_ROW) {
			const char *d = (const char *)sqlite3_column_text(s, 3);

			if (d && strncmp(d, "SCAN ", 5) == 0)
				fail_msg("%s: %s", sql_text(ids[i]), d);
		}
		sqlite3_finalize(s);
	}
	store_close(st);
}

/* The plan of statement id as its lines, '\n'-separated; those of the
 * statement itself (not of a part of it) start with '^'. */
static void
plan_of(struct store *st, enum sql_id id, char *out, size_t max)
{
	sqlite3_stmt *s = NULL;
	char q[8192];
	size_t n = 0;

	snprintf(q, sizeof(q), "EXPLAIN QUERY PLAN %s", sql_text(id));
	assert_int_equal(
	    sqlite3_prepare_v2(st->db, q, -1, &s, NULL), SQLITE_OK);
	out[0] = '\0';
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *d = (const char *)sqlite3_column_text(s, 3);
		int k = snprintf(out + n, max - n, "%s%s\n",
		    sqlite3_column_int(s, 1) == 0 ? "^" : "", d ? d : "");

		assert_true(k >= 0 && (size_t)k < max - n);
		n += (size_t)k;
	}
	sqlite3_finalize(s);
}

static size_t
count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)) != NULL; hay++)
		n++;
	return n;
}

/*
 * A page of patchwork's events or people reads that page, not the
 * history (migration 11): CI bots poll /api/1.2/events/?since=.  Each
 * of the eight kinds of row the events are made of is read from its
 * date's index between since and before, and the arms are merged in
 * order, never sorted whole (a complete series' last patch is found by
 * sorting that series' patches); people are read in the order of the
 * rows of their first mails.
 */
static void
test_pw_pages_use_indexes(void **state)
{
	static const enum sql_id events[] = { SQL_PW_EVENTS,
		SQL_PW_EVENTS_ASC };
	static const enum sql_id people[] = { SQL_PW_PEOPLE,
		SQL_PW_PEOPLE_DESC };
	struct store *st;
	char plan[8192];
	size_t i;

	(void)state;
	assert_int_equal(store_open(path, STORE_CREATE, &st), ERR_OK);
	for (i = 0; i < 2; i++) {
		plan_of(st, events[i], plan, sizeof(plan));
		if (strstr(plan, "SCAN ") || strstr(plan, "^USE TEMP B-TREE") ||
		    !strstr(plan, "^MERGE (UNION ALL)") ||
		    count_of(plan, "INDEX message_date (date>? AND date<?)") +
		            count_of(plan,
		                "INDEX message_nopatch_date (date>? AND "
		                "date<?)") +
		            count_of(
		                plan, "INDEX event_time (time>? AND time<?)") +
		            count_of(plan,
		                "INDEX checks_time (time>? AND time<?)") !=
		        8)
			fail_msg("%s:\n%s", sql_text(events[i]), plan);
	}
	for (i = 0; i < 2; i++) {
		plan_of(st, people[i], plan, sizeof(plan));
		if (strcmp(plan,
		        "^SCAN ps\n^SEARCH m USING INTEGER PRIMARY KEY "
		        "(rowid=?)\n") != 0)
			fail_msg("%s:\n%s", sql_text(people[i]), plan);
	}
	store_close(st);
}

static void
add_sender(struct store *st, const char *msgid, const char *name,
    const char *email, int64_t *id)
{
	struct store_msg m;

	memset(&m, 0, sizeof(m));
	m.kind = MAIL_REPLY;
	m.msgid = msgid;
	m.from_name = name;
	m.from_email = email;
	m.subject = "s";
	assert_int_equal(store_msg_add(st, &m, NULL, "x", 1, id), ERR_OK);
}

/* The people of f as "row name <email>;...". */
static const char *
people_of(struct store *st, struct arena *a, const char *order, const char *q,
    size_t offset, size_t limit)
{
	static char out[512];
	struct store_pw_filter f;
	struct store_pw_mail *v = NULL;
	size_t n = 0, i, k = 0;

	memset(&f, 0, sizeof(f));
	f.order = order;
	f.q = q;
	f.offset = offset;
	f.limit = limit;
	assert_int_equal(store_pw_people(st, a, &f, &v, &n, NULL), ERR_OK);
	out[0] = '\0';
	for (i = 0; i < n; i++)
		k += (size_t)snprintf(out + k, sizeof(out) - k, "%lld %s <%s>;",
		    (long long)v[i].row, v[i].from_name, v[i].from_email);
	return out;
}

/*
 * A person is an address, any case, under the row and name of their
 * first mail: kept as mail comes in, made from the mails there are
 * when a database migrates to 11, and found by q in any of their mails.
 */
static void
test_people_first_mail(void **state)
{
	static const char *const want =
	    "1 Ann <ann@example.org>;3 Bob <bob@example.net>;";
	struct arena *a = arena_new();
	struct store *st;
	char file[160];
	int64_t id;

	(void)state;
	snprintf(file, sizeof(file), "%s/people.db", dir);
	assert_int_equal(store_open(file, STORE_CREATE, &st), ERR_OK);
	assert_int_equal(store_begin(st), ERR_OK);
	add_sender(st, "1@x", "Ann", "ann@example.org", &id);
	assert_int_equal(id, 1);
	add_sender(st, "2@x", "Ann Other", "ANN@Example.org", &id);
	add_sender(st, "3@x", "Bob", "bob@example.net", &id);
	add_sender(st, "4@x", "", "", &id);
	add_sender(st, "5@x", "Robert", "bob@example.net", &id);
	assert_int_equal(store_commit(st), ERR_OK);
	assert_string_equal(people_of(st, a, NULL, NULL, 0, 0), want);
	assert_string_equal(people_of(st, a, "-id", NULL, 0, 0),
	    "3 Bob <bob@example.net>;1 Ann <ann@example.org>;");
	assert_string_equal(
	    people_of(st, a, NULL, NULL, 1, 1), "3 Bob <bob@example.net>;");
	/* A search reads every mail: Robert is Bob's second. */
	assert_string_equal(people_of(st, a, NULL, "robert", 0, 0),
	    "5 Robert <bob@example.net>;");
	assert_string_equal(people_of(st, a, "-id", "example", 0, 0),
	    "3 Bob <bob@example.net>;1 Ann <ann@example.org>;");
	store_close(st);
	/* Migrating to 11 makes the people of the mails there are. */
	sqlite3_close(raw_exec(NULL, file,
	    "DROP TABLE person;"
	    "DROP INDEX message_date; DROP INDEX message_nopatch_date;"
	    "DROP INDEX event_time;"
	    "DROP INDEX checks_time; DROP INDEX series_cover;"
	    "PRAGMA user_version=10;"));
	assert_int_equal(store_open(file, STORE_RW, &st), ERR_OK);
	assert_string_equal(people_of(st, a, NULL, NULL, 0, 0), want);
	store_close(st);
	arena_free(a);
}

static void
test_reopen_keeps_schema(void **state)
{
	struct store *st;
	int64_t a, b;

	(void)state;
	assert_int_equal(store_open(path, STORE_CREATE, &st), ERR_OK);
	assert_int_equal(store_begin(st), ERR_OK);
	assert_int_equal(store_project_id(st, "demo", &a), ERR_OK);
	assert_int_equal(store_commit(st), ERR_OK);
	store_close(st);
	assert_int_equal(store_open(path, STORE_RW, &st), ERR_OK);
	assert_int_equal(store_project_id(st, "demo", &b), ERR_OK);
	assert_int_equal(a, b);
	assert_string_equal(store_project_name(st, a), "demo");
	store_close(st);
	assert_int_equal(store_open(path, STORE_RO, &st), ERR_OK);
	store_close(st);
}

static void
test_message_round_trip(void **state)
{
	struct store *st;
	struct store_msg m, got;
	struct arena *a = arena_new();
	const char *raw;
	size_t n;
	int64_t id;

	(void)state;
	assert_int_equal(store_open(path, STORE_CREATE, &st), ERR_OK);
	memset(&m, 0, sizeof(m));
	m.kind = MAIL_REPLY;
	m.msgid = "a@b";
	m.from_name = "N";
	m.from_email = "n@example.org";
	m.subject = "s";
	m.hash[0] = 7;
	assert_int_equal(store_begin(st), ERR_OK);
	assert_int_equal(
	    store_msg_add(st, &m, NULL, "raw\0bytes", 9, &id), ERR_OK);
	assert_int_equal(store_commit(st), ERR_OK);
	assert_int_equal(store_msg_find(st, a, "a@b", &got), ERR_OK);
	assert_int_equal(got.id, id);
	assert_int_equal(got.kind, MAIL_REPLY);
	assert_int_equal(got.hash[0], 7);
	assert_null(got.from_email); /* a lookup reads no strings */
	assert_int_equal(store_msg_get(st, a, id, &got), ERR_OK);
	assert_string_equal(got.from_email, "n@example.org");
	assert_string_equal(got.msgid, "a@b");
	assert_int_equal(store_msg_raw(st, a, id, &raw, &n), ERR_OK);
	assert_int_equal(n, 9);
	assert_memory_equal(raw, "raw\0bytes", 9);
	assert_int_equal(store_msg_find(st, a, "x@y", &got), ERR_NOTFOUND);
	store_close(st);
	arena_free(a);
}

/*
 * One copy per trailer and message (issue 16): a trailer a reply gave,
 * added again for the same place, stays one row; a patch's own
 * trailers are the author's text and may repeat.
 */
static void
test_trailer_once(void **state)
{
	struct store *st;
	struct store_msg m;
	struct store_series s;
	struct store_trailer t;
	struct view_trailer *v;
	struct arena *a = arena_new();
	int64_t mid, sid;
	size_t n;

	(void)state;
	assert_int_equal(store_open(path, STORE_CREATE, &st), ERR_OK);
	assert_int_equal(store_begin(st), ERR_OK);
	memset(&m, 0, sizeof(m));
	m.kind = MAIL_REPLY;
	m.msgid = "once@b";
	assert_int_equal(store_msg_add(st, &m, NULL, "x", 1, &mid), ERR_OK);
	memset(&s, 0, sizeof(s));
	s.version = 1;
	s.expected = 1;
	s.first_id = mid;
	s.title = s.norm_title = "t";
	s.submitter_name = s.submitter_email = "a@b";
	assert_int_equal(store_series_add(st, &s, &sid), ERR_OK);
	memset(&t, 0, sizeof(t));
	t.series_id = sid;
	t.message_id = mid;
	t.name = "Acked-by";
	t.value = "A <a@b>";
	t.email = "a@b";
	assert_int_equal(store_patch_trailer_add(st, &t), ERR_OK);
	assert_int_equal(store_patch_trailer_add(st, &t), ERR_OK);
	t.name = "Reviewed-by";
	assert_int_equal(store_patch_trailer_add(st, &t), ERR_OK);
	t.own = true;
	assert_int_equal(store_patch_trailer_add(st, &t), ERR_OK);
	assert_int_equal(store_patch_trailer_add(st, &t), ERR_OK);
	assert_int_equal(store_read_trailers(st, a, 0, sid, &v, &n), ERR_OK);
	assert_int_equal(n, 4);
	assert_int_equal(store_commit(st), ERR_OK);
	store_close(st);
	arena_free(a);
}

/*
 * A rollback belongs to a begin that worked (issue 16): a begin inside a
 * transaction is refused without touching it, a rollback outside one
 * does nothing, and a busy begin leaves nothing to roll back.
 */
static void
test_rollback_only_after_begin(void **state)
{
	struct store *st;
	int64_t a, b;

	(void)state;
	assert_int_equal(store_open(path, STORE_CREATE, &st), ERR_OK);
	store_rollback(st);
	assert_int_equal(store_begin(st), ERR_OK);
	assert_int_equal(store_project_id(st, "outer", &a), ERR_OK);
	assert_int_equal(store_begin(st), ERR_INTERNAL);
	assert_true(store_in_tx(st));
	assert_int_equal(store_commit(st), ERR_OK);
	store_fault_busy(st, "begin", 1);
	assert_int_equal(store_begin(st), ERR_BUSY);
	assert_false(store_in_tx(st));
	store_rollback(st);
	store_close(st);
	assert_int_equal(store_open(path, STORE_RW, &st), ERR_OK);
	assert_int_equal(store_begin(st), ERR_OK);
	assert_int_equal(store_project_id(st, "outer", &b), ERR_OK);
	assert_int_equal(a, b);
	assert_int_equal(store_commit(st), ERR_OK);
	store_close(st);
}

static int
cache_size(struct store *st)
{
	sqlite3_stmt *q;
	int kb;

	assert_int_equal(
	    sqlite3_prepare_v2(st->db, "PRAGMA cache_size;", -1, &q, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	kb = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	return kb;
}

/* The daemon bounds its page cache; a bulk load raises it. */
static void
test_cache_limit(void **state)
{
	struct store *st;

	(void)state;
	assert_int_equal(store_open(path, STORE_CREATE, &st), ERR_OK);
	assert_int_equal(store_cache_limit(st, 512), ERR_OK);
	assert_int_equal(cache_size(st), -512);
	assert_int_equal(store_bulk(st, true), ERR_OK);
	assert_int_equal(cache_size(st), -16384);
	store_close(st);
}

/* Trees keep their order (configured first) and every field. */
static void
test_tree_round_trip(void **state)
{
	struct store *st;
	struct store_tree t, *v = NULL;
	struct arena *a = arena_new();
	size_t n = 0;
	int64_t pid, id1, id2;

	(void)state;
	assert_int_equal(store_open(path, STORE_CREATE, &st), ERR_OK);
	assert_int_equal(store_begin(st), ERR_OK);
	assert_int_equal(store_project_id(st, "demo", &pid), ERR_OK);
	memset(&t, 0, sizeof(t));
	t.project_id = pid;
	t.name = "pulled";
	t.url = "/srv/git/x.git";
	t.branch = "for-next";
	t.from_mail = true;
	t.pinned = "0123456789012345678901234567890123456789";
	t.since = 5;
	assert_int_equal(store_tree_add(st, &t, &id1), ERR_OK);
	t.name = "net";
	t.from_mail = false;
	t.pinned = NULL;
	t.owner = "net@example.org";
	t.pos = 1;
	assert_int_equal(store_tree_add(st, &t, &id2), ERR_OK);
	/* A name is unique in its project. */
	assert_int_not_equal(store_tree_add(st, &t, NULL), ERR_OK);
	assert_int_equal(store_tree_list(st, a, pid, &v, &n), ERR_OK);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].name, "net");
	assert_false(v[0].from_mail);
	assert_string_equal(v[0].state, "new");
	assert_string_equal(v[1].name, "pulled");
	assert_true(v[1].from_mail);
	assert_null(v[1].owner);
	v[1].state = "conflict";
	v[1].last_error = "f: conflict";
	v[1].commit = v[1].pinned;
	assert_int_equal(store_tree_update(st, &v[1]), ERR_OK);
	assert_int_equal(store_tree_delete(st, id2), ERR_OK);
	assert_int_equal(store_tree_list(st, a, 0, &v, &n), ERR_OK);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].state, "conflict");
	assert_string_equal(v[0].last_error, "f: conflict");
	assert_string_equal(v[0].commit, v[0].pinned);
	assert_int_equal(store_commit(st), ERR_OK);
	store_close(st);
	arena_free(a);
}

static long
file_size(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0 ? (long)sb.st_size : -1;
}

/* The rows of table t in the database at p, read by a connection of
 * its own (-1 on error). */
static long
count_rows(const char *p, const char *t)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	char sql[64];
	long n = -1;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", t);
	if (sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

/* A bulk load of 20 rows of 320 KB into a new table t of database p,
 * the store left open. */
static struct store *
bulk_load(const char *p, const char *t)
{
	char sql[128];
	struct store *st;
	int i;

	assert_int_equal(store_open(p, STORE_CREATE, &st), ERR_OK);
	snprintf(sql, sizeof(sql), "CREATE TABLE %s(x BLOB);", t);
	assert_int_equal(db_script(st, sql, "t"), ERR_OK);
	assert_int_equal(store_set_sync(st, STORE_SYNC_NORMAL), ERR_OK);
	assert_int_equal(store_bulk(st, true), ERR_OK);
	for (i = 0; i < 20; i++) {
		snprintf(sql, sizeof(sql),
		    "INSERT INTO %s VALUES(randomblob(%d));", t, 320 * 1024);
		assert_int_equal(store_begin(st), ERR_OK);
		assert_int_equal(db_script(st, sql, "t"), ERR_OK);
		assert_int_equal(store_commit(st), ERR_OK);
	}
	assert_int_equal(store_bulk(st, false), ERR_OK);
	return st;
}

/* A database named name in the test's folder, and its log's name. */
static void
db_in_dir(const char *name, char db[160], char wal[170])
{
	snprintf(db, 160, "%s/%s", dir, name);
	snprintf(wal, 170, "%s-wal", db);
}

/*
 * A bulk load checkpoints as SQLite does, every 128 MB of log, and the
 * log it leaves is copied into the database when the store closes: the
 * rows are all in the database file, for a connection opened after it,
 * and the log is gone.
 */
static void
test_bulk_load_closes_into_db(void **state)
{
	char db[160], wal[170];
	struct store *st;

	(void)state;
	db_in_dir("bulk.db", db, wal);
	st = bulk_load(db, "bulk");
	assert_true(file_size(wal) >= 20 * 320 * 1024);
	store_close(st);
	assert_int_equal(file_size(wal), -1);
	assert_true(file_size(db) >= 20 * 320 * 1024);
	assert_int_equal(count_rows(db, "bulk"), 20);
}

/* What PRAGMA name answers on st's connection. */
static void
pragma_answer(struct store *st, const char *name, char *out, size_t n)
{
	char q[64];
	sqlite3_stmt *s = NULL;

	snprintf(q, sizeof(q), "PRAGMA %s", name);
	assert_int_equal(
	    sqlite3_prepare_v2(st->db, q, -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	snprintf(out, n, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
}

/*
 * ":memory:" opens a database of the connection's own (the workflow
 * tests' store): migrated, with its pragmas, writable in transactions,
 * and not shared with a second one.  A file database is in WAL, and a
 * database that answers any other journal mode (a temporary one, "") is
 * refused rather than run without it.
 */
static void
test_memory_store(void **state)
{
	struct store *st, *other;
	int64_t id = 0, id2 = 0;
	char answer[32];

	(void)state;
	assert_int_equal(store_open(":memory:", STORE_CREATE, &st), ERR_OK);
	pragma_answer(st, "journal_mode", answer, sizeof(answer));
	assert_string_equal(answer, "memory");
	pragma_answer(st, "foreign_keys", answer, sizeof(answer));
	assert_string_equal(answer, "1");
	pragma_answer(st, "user_version", answer, sizeof(answer));
	assert_int_equal(atoi(answer), schema_version());
	assert_int_equal(store_begin(st), ERR_OK);
	assert_int_equal(store_project_id(st, "demo", &id), ERR_OK);
	assert_int_equal(store_commit(st), ERR_OK);
	assert_string_equal(store_project_name(st, id), "demo");
	assert_int_equal(store_open(":memory:", STORE_CREATE, &other), ERR_OK);
	assert_string_equal(store_project_name(other, id), "");
	assert_int_equal(store_project_id(other, "other", &id2), ERR_OK);
	assert_int_equal(id2, id);
	assert_string_equal(store_project_name(st, id), "demo");
	store_close(other);
	store_close(st);

	assert_int_equal(store_open(path, STORE_CREATE, &st), ERR_OK);
	pragma_answer(st, "journal_mode", answer, sizeof(answer));
	assert_string_equal(answer, "wal");
	store_close(st);
	assert_int_equal(store_open("", STORE_CREATE, &st), ERR_DB);
	assert_null(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_statement_prepares),
		cmocka_unit_test(test_migration_race),
		cmocka_unit_test(test_reopen_keeps_schema),
		cmocka_unit_test(test_message_round_trip),
		cmocka_unit_test(test_cache_limit),
		cmocka_unit_test(test_tree_round_trip),
		cmocka_unit_test(test_per_patch_statements_use_indexes),
		cmocka_unit_test(test_pw_pages_use_indexes),
		cmocka_unit_test(test_people_first_mail),
		cmocka_unit_test(test_trailer_once),
		cmocka_unit_test(test_rollback_only_after_begin),
		cmocka_unit_test(test_bulk_load_closes_into_db),
		cmocka_unit_test(test_memory_store),
	};

	return cmocka_run_group_tests_name("store", tests, setup, teardown);
}
