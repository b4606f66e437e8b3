#include "storage/store_read.h"

#include <stdlib.h>
#include <string.h>

#include "storage/db.h"
#include "util/xalloc.h"

enum err
store_read_list(struct store *st, int64_t project, int64_t **ids, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_READ_LIST);

	db_bind_int(s, ":project", project);
	return db_ids(st, s, ids, n, "list");
}

static void
trailer_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct view_trailer *t = p;

	t->name = db_col_arena(a, s, 0);
	t->value = db_col_arena(a, s, 1);
	t->message_id = db_col_arena(a, s, 2);
	t->verified = db_col_int(s, 3) != 0;
	t->email = db_col_arena(a, s, 4);
	t->own = db_col_int(s, 5) != 0;
	t->auth = db_col_arena(a, s, 6);
	t->auth_note = db_col_arena(a, s, 7);
	t->message_row = db_col_int(s, 8);
	t->from_name = db_col_arena(a, s, 9);
	t->from_email = db_col_arena(a, s, 10);
}

static void
patch_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct view_patch *v = p;

	v->id = db_col_int(s, 0);
	v->message_id = db_col_arena(a, s, 1);
	v->number = (int)db_col_int(s, 2);
	v->title = db_col_arena(a, s, 3);
	v->author_name = db_col_arena(a, s, 4);
	v->author_email = db_col_arena(a, s, 5);
	v->slug = db_col_arena(a, s, 6);
	v->state = db_col_state(s, 7);
	v->queue = db_col_queue(s, 8);
	v->reason = db_col_reason(s, 9);
	v->conflict = db_col_int(s, 10) != 0;
	v->patch_id = db_col_arena(a, s, 11);
	v->message_row = db_col_int(s, 12);
	v->files = db_col_arena(a, s, 13);
	v->auth = db_col_arena(a, s, 14);
	v->auth_note = db_col_arena(a, s, 15);
	v->msgid_reused = db_col_int(s, 16) != 0;
}

static void
series_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct view_series *v = p;

	v->id = db_col_int(s, 0);
	v->version = (int)db_col_int(s, 1);
	v->expected = (int)db_col_int(s, 2);
	v->received = (int)db_col_int(s, 3);
	v->title = db_col_arena(a, s, 4);
	v->submitter_name = db_col_arena(a, s, 5);
	v->submitter_email = db_col_arena(a, s, 6);
	v->date = db_col_int(s, 7);
	v->message_id = db_col_arena(a, s, 8);
	v->base_commit = db_col_arena(a, s, 9);
	v->change_id = db_col_arena(a, s, 10);
	v->complete = v->received >= v->expected;
}

static void
event_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct view_event *v = p;

	v->time = db_col_int(s, 0);
	v->kind = db_col_event(s, 1);
	v->actor = db_col_arena(a, s, 2);
	v->detail = db_col_arena(a, s, 3);
	v->message_id = db_col_arena(a, s, 4);
	v->slug = db_col_arena(a, s, 5);
	v->id = db_col_int(s, 6);
	v->message_row = db_col_int(s, 7);
	v->series_id = db_col_int(s, 8);
	v->patch_id = db_col_int(s, 9);
}

/* A series' state is its patches' when they share one, else partial;
 * superseded older copies do not count (as storage/sql.c's WEB_STATE). */
static enum model_state
series_state(const struct view_series *v)
{
	enum model_state state = STATE_NEW;
	bool any = false;
	size_t i;

	for (i = 0; i < v->npatches; i++) {
		if (v->patches[i].older_copy)
			continue;
		if (any && v->patches[i].state != state)
			return STATE_PARTIAL;
		state = v->patches[i].state;
		any = true;
	}
	return state;
}

enum err
store_read_trailers(struct store *st, struct arena *a, int64_t patch_id,
    int64_t series_id, struct view_trailer **out, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_READ_TRAILERS_OF);

	db_bind_int(s, ":patch", patch_id);
	db_bind_int(s, ":series", series_id);
	return db_rows(st, a, s, sizeof(**out), trailer_row, (void **)out, n);
}

static enum err
read_series(struct store *st, struct arena *a, struct view_series *v)
{
	sqlite3_stmt *s = db_stmt(st, SQL_READ_PATCHES_OF);
	size_t i;
	enum err e;

	db_bind_int(s, ":series", v->id);
	e = db_rows(st, a, s, sizeof(*v->patches), patch_row,
	    (void **)&v->patches, &v->npatches);
	for (i = 0; i < v->npatches && e == ERR_OK; i++) {
		struct view_patch *p = &v->patches[i];

		e = store_read_trailers(
		    st, a, p->id, v->id, &p->trailers, &p->ntrailers);
		/* In number order, copies oldest first. */
		p->older_copy = i + 1 < v->npatches &&
		    v->patches[i + 1].number == p->number &&
		    p->state == STATE_SUPERSEDED;
	}
	v->state = series_state(v);
	return e;
}

enum err
store_read_contrib(struct store *st, struct arena *a, int64_t id,
    bool with_events, struct view_contrib *out)
{
	sqlite3_stmt *s = db_stmt(st, SQL_READ_CONTRIB);
	int64_t newest = 0;
	size_t i;
	enum err e;

	memset(out, 0, sizeof(*out));
	db_bind_int(s, ":id", id);
	if ((e = db_row(st, s, "contribution")) == ERR_OK) {
		out->id = db_col_int(s, 0);
		newest = db_col_int(s, 1);
		out->activity = db_col_int(s, 2);
		out->project = db_col_arena(a, s, 3);
	}
	sqlite3_reset(s);
	if (e != ERR_OK)
		return e;
	s = db_stmt(st, SQL_READ_SERIES_OF);
	db_bind_int(s, ":contribution", id);
	e = db_rows(st, a, s, sizeof(*out->series), series_row,
	    (void **)&out->series, &out->nseries);
	for (i = 0; i < out->nseries && e == ERR_OK; i++) {
		e = read_series(st, a, &out->series[i]);
		if (out->series[i].id == newest)
			out->newest = &out->series[i];
	}
	if (out->newest == NULL && out->nseries)
		out->newest = &out->series[out->nseries - 1];
	if (e == ERR_OK && with_events) {
		s = db_stmt(st, SQL_READ_EVENTS_OF);
		db_bind_int(s, ":contribution", id);
		e = db_rows(st, a, s, sizeof(*out->events), event_row,
		    (void **)&out->events, &out->nevents);
		if (e == ERR_OK)
			e = store_check_of(
			    st, a, id, &out->checks, &out->nchecks);
		if (e == ERR_OK)
			e = store_outbox_of(
			    st, a, id, &out->outbox, &out->noutbox);
	}
	return e;
}

enum model_state
store_read_state(const struct view_contrib *c)
{
	return c->newest ? c->newest->state : STATE_NEW;
}

enum err
store_read_msgid(struct store *st, const char *msgid, int64_t *contribution,
    int64_t *series, int64_t *patch)
{
	sqlite3_stmt *s = db_stmt(st, SQL_READ_MSG_CONTRIB);
	enum err e;

	db_bind_text(s, ":msgid", msgid);
	if ((e = db_row(st, s, "message lookup")) == ERR_OK) {
		const char *kind = db_col_text(s, 3);

		bool is_patch = kind && strcmp(kind, "patch") == 0;
		bool is_cover = kind && strcmp(kind, "cover") == 0;

		/* A patch's Message-ID names the patch, a cover letter's its
		 * series, a reply's only the contribution. */
		*contribution = db_col_int(s, 0);
		*series = is_patch || is_cover ? db_col_int(s, 1) : 0;
		*patch = is_patch ? db_col_int(s, 2) : 0;
	}
	sqlite3_reset(s);
	return e;
}
