#include "storage/store_pw.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "storage/db.h"
#include "util/xalloc.h"

/* The paging and ordering every list shares. */
static void
bind_page(sqlite3_stmt *s, const struct store_pw_filter *f)
{
	/* One row more than the page tells whether another page follows. */
	db_bind_int(s, ":limit", f->limit ? (int64_t)f->limit + 1 : -1);
	db_bind_int(s, ":offset", (int64_t)f->offset);
}

static void
bind_when(sqlite3_stmt *s, const struct store_pw_filter *f)
{
	if (f->has_since)
		db_bind_int(s, ":since", f->since);
	else
		db_bind_null(s, ":since");
	if (f->has_before)
		db_bind_int(s, ":before", f->before);
	else
		db_bind_null(s, ":before");
}

static const char *
order(const struct store_pw_filter *f)
{
	return f->order ? f->order : "date";
}

static enum err
page(struct store *st, struct arena *a, sqlite3_stmt *s,
    const struct store_pw_filter *f, size_t size, db_row_fn *fn, void **out,
    size_t *n, bool *more)
{
	enum err e = db_rows(st, a, s, size, fn, out, n);

	if (more)
		*more = false;
	if (e == ERR_OK && f->limit && *n > f->limit) {
		*n = f->limit;
		if (more)
			*more = true;
	}
	return e;
}

static void
project_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct store_pw_project *v = p;

	v->id = db_col_int(s, 0);
	v->name = db_col_arena(a, s, 1);
}

enum err
store_pw_projects(
    struct store *st, struct arena *a, struct store_pw_project **out, size_t *n)
{
	return db_rows(st, a, db_stmt(st, SQL_PW_PROJECTS), sizeof(**out),
	    project_row, (void **)out, n);
}

static void
patch_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct store_pw_patch *v = p;

	v->id = db_col_int(s, 0);
	v->series_id = db_col_int(s, 1);
	v->contribution_id = db_col_int(s, 2);
	v->project_id = db_col_int(s, 3);
	v->project = db_col_arena(a, s, 4);
	v->message_row = db_col_int(s, 5);
	v->msgid = db_col_arena(a, s, 6);
	v->date = db_col_int(s, 7);
	v->title = db_col_arena(a, s, 8);
	v->number = (int)db_col_int(s, 9);
	v->version = (int)db_col_int(s, 10);
	v->expected = (int)db_col_int(s, 11);
	v->from_name = db_col_arena(a, s, 12);
	v->from_email = db_col_arena(a, s, 13);
	v->state = db_col_state(s, 14);
	v->queue = db_col_queue(s, 15);
	v->reason = db_col_reason(s, 16);
	v->pw_state = db_col_arena(a, s, 17);
	v->hash = db_col_arena(a, s, 18);
	v->commit_ref = db_col_arena(a, s, 19);
	v->series_title = db_col_arena(a, s, 20);
	v->series_date = db_col_int(s, 21);
}

enum err
store_pw_patches(struct store *st, struct arena *a,
    const struct store_pw_filter *f, struct store_pw_patch **out, size_t *n,
    bool *more)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PW_PATCHES);

	db_bind_int(s, ":id", f->id);
	db_bind_int(s, ":project", f->project);
	db_bind_int(s, ":series", f->series);
	db_bind_text(s, ":states", f->states);
	db_bind_text(s, ":submitters", f->submitters);
	db_bind_text(s, ":q", f->q && *f->q ? f->q : NULL);
	db_bind_text(s, ":msgid", f->msgid);
	db_bind_text(s, ":hash", f->hash);
	db_bind_int(s, ":none", f->none);
	bind_when(s, f);
	db_bind_text(s, ":order", order(f));
	bind_page(s, f);
	return page(
	    st, a, s, f, sizeof(**out), patch_row, (void **)out, n, more);
}

enum err
store_pw_patch_get(
    struct store *st, struct arena *a, int64_t id, struct store_pw_patch *out)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PW_PATCH_GET);

	db_bind_int(s, ":id", id);
	return db_one(st, a, s, sizeof(*out), patch_row, out, "patch");
}

static void
series_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct store_pw_series *v = p;

	v->id = db_col_int(s, 0);
	v->contribution_id = db_col_int(s, 1);
	v->project_id = db_col_int(s, 2);
	v->project = db_col_arena(a, s, 3);
	v->title = db_col_arena(a, s, 4);
	v->date = db_col_int(s, 5);
	v->first_row = db_col_int(s, 6);
	v->submitter_name = db_col_arena(a, s, 7);
	v->submitter_email = db_col_arena(a, s, 8);
	v->version = (int)db_col_int(s, 9);
	v->expected = (int)db_col_int(s, 10);
	v->received = (int)db_col_int(s, 11);
	v->cover_row = db_col_int(s, 12);
	v->cover_msgid = db_col_arena(a, s, 13);
	v->cover_date = db_col_int(s, 14);
}

enum err
store_pw_series(struct store *st, struct arena *a,
    const struct store_pw_filter *f, struct store_pw_series **out, size_t *n,
    bool *more)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PW_SERIES);

	db_bind_int(s, ":id", f->id);
	db_bind_int(s, ":project", f->project);
	db_bind_int(s, ":cover", f->with_cover);
	db_bind_int(s, ":cover_row", f->cover);
	db_bind_text(s, ":submitters", f->submitters);
	db_bind_text(s, ":q", f->q && *f->q ? f->q : NULL);
	db_bind_text(s, ":msgid", f->msgid);
	db_bind_int(s, ":none", f->none);
	bind_when(s, f);
	db_bind_text(s, ":order", order(f));
	bind_page(s, f);
	return page(
	    st, a, s, f, sizeof(**out), series_row, (void **)out, n, more);
}

enum err
store_pw_series_get(struct store *st, struct arena *a, int64_t id,
    int64_t cover, struct store_pw_series *out)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PW_SERIES_GET);

	db_bind_int(s, ":id", id);
	db_bind_int(s, ":cover", cover);
	return db_one(st, a, s, sizeof(*out), series_row, out, "series");
}

enum err
store_pw_series_patches(struct store *st, struct arena *a, int64_t series,
    struct store_pw_patch **out, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PW_SERIES_PATCHES);

	db_bind_int(s, ":series", series);
	return db_rows(st, a, s, sizeof(**out), patch_row, (void **)out, n);
}

static void
mail_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct store_pw_mail *v = p;

	v->row = db_col_int(s, 0);
	v->msgid = db_col_arena(a, s, 1);
	v->date = db_col_int(s, 2);
	v->subject = db_col_arena(a, s, 3);
	v->from_name = db_col_arena(a, s, 4);
	v->from_email = db_col_arena(a, s, 5);
}

enum err
store_pw_comments(struct store *st, struct arena *a, int64_t series,
    int64_t patch, const struct store_pw_filter *f, struct store_pw_mail **out,
    size_t *n, bool *more)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PW_COMMENTS);

	db_bind_int(s, ":series", series);
	db_bind_int(s, ":patch", patch);
	bind_page(s, f);
	return page(
	    st, a, s, f, sizeof(**out), mail_row, (void **)out, n, more);
}

enum err
store_pw_comment(
    struct store *st, struct arena *a, int64_t row, struct store_pw_mail *out)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PW_COMMENT);

	db_bind_int(s, ":id", row);
	return db_one(st, a, s, sizeof(*out), mail_row, out, "comment");
}

static void
person_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct store_pw_mail *v = p;

	v->row = db_col_int(s, 0);
	v->from_name = db_col_arena(a, s, 1);
	v->from_email = db_col_arena(a, s, 2);
}

enum err
store_pw_people(struct store *st, struct arena *a,
    const struct store_pw_filter *f, struct store_pw_mail **out, size_t *n,
    bool *more)
{
	bool desc = f->order && strcmp(f->order, "-id") == 0;
	sqlite3_stmt *s;

	if (f->q && *f->q) {
		s = db_stmt(st, SQL_PW_PEOPLE_FIND);
		db_bind_text(s, ":q", f->q);
		db_bind_int(s, ":desc", desc);
	} else {
		s = db_stmt(st, desc ? SQL_PW_PEOPLE_DESC : SQL_PW_PEOPLE);
	}
	bind_page(s, f);
	return page(
	    st, a, s, f, sizeof(**out), person_row, (void **)out, n, more);
}

enum err
store_pw_person(
    struct store *st, struct arena *a, int64_t id, struct store_pw_mail *out)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PW_PERSON);
	enum err e;

	memset(out, 0, sizeof(*out));
	db_bind_int(s, ":id", id);
	if ((e = db_row(st, s, "person")) == ERR_OK)
		person_row(a, s, out);
	sqlite3_reset(s);
	return e;
}

static void
check_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct store_check *v = p;

	v->id = db_col_int(s, 0);
	v->patch_id = db_col_int(s, 1);
	v->series_id = db_col_int(s, 2);
	v->context = db_col_arena(a, s, 3);
	v->state = db_col_arena(a, s, 4);
	v->url = db_col_arena(a, s, 5);
	v->summary = db_col_arena(a, s, 6);
	v->reporter = db_col_arena(a, s, 7);
	v->time = db_col_int(s, 8);
}

enum err
store_pw_checks(struct store *st, struct arena *a, int64_t patch,
    int64_t series, const struct store_pw_filter *f, struct store_check **out,
    size_t *n, bool *more)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PW_CHECKS);

	db_bind_int(s, ":patch", patch);
	db_bind_int(s, ":series", series);
	db_bind_int(s, ":id", f->id);
	db_bind_text(s, ":state", f->state);
	db_bind_text(s, ":context", f->context);
	bind_when(s, f);
	db_bind_int(s, ":desc", f->order && strcmp(f->order, "-date") == 0);
	bind_page(s, f);
	return page(
	    st, a, s, f, sizeof(**out), check_row, (void **)out, n, more);
}

enum err
store_pw_check(
    struct store *st, struct arena *a, int64_t id, struct store_check *out)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PW_CHECK);

	db_bind_int(s, ":id", id);
	return db_one(st, a, s, sizeof(*out), check_row, out, "check");
}

static void
event_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct store_pw_event *v = p;

	v->id = db_col_int(s, 0);
	v->category = db_col_arena(a, s, 1);
	v->date = db_col_int(s, 2);
	v->project_id = db_col_int(s, 3);
	v->actor = db_col_arena(a, s, 4);
	v->series_id = db_col_int(s, 5);
	v->patch_id = db_col_int(s, 6);
	v->cover_row = db_col_int(s, 7);
	v->check_id = db_col_int(s, 8);
	v->comment_row = db_col_int(s, 9);
	v->kind = db_col_arena(a, s, 10);
	v->detail = db_col_arena(a, s, 11);
}

enum err
store_pw_events(struct store *st, struct arena *a,
    const struct store_pw_filter *f, struct store_pw_event **out, size_t *n,
    bool *more)
{
	bool asc = f->order && strcmp(f->order, "date") == 0;
	sqlite3_stmt *s = db_stmt(st, asc ? SQL_PW_EVENTS_ASC : SQL_PW_EVENTS);

	db_bind_int(s, ":id", f->id);
	db_bind_int(s, ":project", f->project);
	db_bind_text(s, ":category", f->category);
	db_bind_int(s, ":series", f->series);
	db_bind_int(s, ":patch", f->patch);
	db_bind_int(s, ":cover", f->cover);
	/* Always a range, so that each kind of row is read from its date's
	 * index (storage/sql.c, PW_EVENTS). */
	db_bind_int(s, ":since", f->has_since ? f->since : INT64_MIN);
	db_bind_int(s, ":before", f->has_before ? f->before : INT64_MAX);
	bind_page(s, f);
	return page(
	    st, a, s, f, sizeof(**out), event_row, (void **)out, n, more);
}

struct history_row {
	enum model_event kind;
	const char *detail;
};

static void
history_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct history_row *v = p;

	v->kind = db_col_event(s, 0);
	v->detail = db_col_arena(a, s, 1);
}

enum err
store_pw_history(struct store *st, struct arena *a, int64_t patch, int64_t upto,
    enum model_event **kinds, const char ***details, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PW_HISTORY);
	struct history_row *rows = NULL;
	size_t i;
	enum err e;

	db_bind_int(s, ":patch", patch);
	db_bind_int(s, ":upto", upto);
	e = db_rows(st, a, s, sizeof(*rows), history_row, (void **)&rows, n);
	*kinds = arena_zalloc(a, (*n + 1) * sizeof(**kinds));
	*details = arena_zalloc(a, (*n + 1) * sizeof(**details));
	for (i = 0; e == ERR_OK && i < *n; i++) {
		(*kinds)[i] = rows[i].kind;
		(*details)[i] = rows[i].detail;
	}
	return e;
}

struct thread_row {
	int64_t id;
	uint64_t size;
};

static void
thread_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct thread_row *v = p;

	(void)a;
	v->id = db_col_int(s, 0);
	v->size = (uint64_t)db_col_int(s, 1);
}

enum err
store_pw_thread(struct store *st, int64_t contribution, int64_t series,
    int64_t **rows, size_t *n, uint64_t *bytes)
{
	sqlite3_stmt *s =
	    db_stmt(st, series ? SQL_PW_SERIES_THREAD : SQL_PW_THREAD);
	struct arena *a = arena_new();
	struct thread_row *v = NULL;
	size_t i;
	enum err e;

	if (series)
		db_bind_int(s, ":series", series);
	else
		db_bind_int(s, ":contribution", contribution);
	e = db_rows(st, a, s, sizeof(*v), thread_row, (void **)&v, n);
	*rows = NULL;
	*bytes = 0;
	if (e == ERR_OK) {
		*rows = xmalloc((*n + 1) * sizeof(**rows));
		for (i = 0; i < *n; i++) {
			(*rows)[i] = v[i].id;
			*bytes += v[i].size;
		}
	}
	arena_free(a);
	return e;
}

enum err
store_pw_state(struct store *st, struct arena *a, const char *state,
    const char *queue, const char *reason, const char **out)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PW_STATE);
	enum err e;

	db_bind_text(s, ":state", state);
	db_bind_text(s, ":queue", queue);
	db_bind_text(s, ":reason", reason);
	if ((e = db_row(st, s, "patchwork state")) == ERR_OK)
		*out = db_col_arena(a, s, 0);
	sqlite3_reset(s);
	return e;
}
