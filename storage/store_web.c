#include "storage/store_web.h"

#include <string.h>

#include "parsers/limits.h"
#include "storage/db.h"
#include "util/ascii.h"

/* A project's id without creating it. */
static enum err
project_find(struct store *st, const char *name, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_PROJECT_GET);

	db_bind_text(s, ":name", name);
	return db_one_id(st, s, id, "project get");
}

static void
summary_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct store_summary *v = p;
	int64_t art;

	v->id = db_col_int(s, 0);
	v->project = db_col_arena(a, s, 1);
	v->series_id = db_col_int(s, 2);
	v->title = db_col_arena(a, s, 3);
	v->submitter_name = db_col_arena(a, s, 4);
	v->submitter_email = db_col_arena(a, s, 5);
	v->version = (int)db_col_int(s, 6);
	v->expected = (int)db_col_int(s, 7);
	v->patch_count = (int)db_col_int(s, 8);
	v->state = db_col_state(s, 9);
	v->posted = db_col_int(s, 10);
	v->last_activity = db_col_int(s, 11);
	art = db_col_int(s, 12);
	v->acks = (int)(art >> 40 & 0xfffff);
	v->reviews = (int)(art >> 20 & 0xfffff);
	v->tests = (int)(art & 0xfffff);
	v->test_state = db_col_arena(a, s, 13);
	v->series_count = (int)db_col_int(s, 14);
}

/* Does the word hold something the index's tokenizer keeps (unicode61:
 * letters and digits; every byte of a non-ASCII character counts)? */
static bool
word_has_token(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ascii_isalnum(p[i]) || (unsigned char)p[i] >= 0x80)
			return true;
	return false;
}

/* Whether the word p[0..n) is one of the first k of words. */
static bool
word_seen(const struct str *words, size_t k, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < k; i++)
		if (words[i].n == n && ascii_strnicmp(words[i].p, p, n) == 0)
			return true;
	return false;
}

void
store_web_match(const char *q, struct buf *out)
{
	struct str words[LIMIT_SEARCH_WORDS];
	const char *p = q;
	size_t k = 0;

	while (*p && k < LIMIT_SEARCH_WORDS) {
		size_t n;

		while (*p && ascii_isspace(*p))
			p++;
		for (n = 0; p[n] && !ascii_isspace(p[n]); n++)
			;
		if (n && word_has_token(p, n) && !word_seen(words, k, p, n)) {
			size_t i;

			words[k++] = str_make(p, n);
			if (out->n)
				buf_addc(out, ' ');
			/* A string in double quotes is a phrase of the
			 * word's tokens, whatever it holds ("" is a quote);
			 * the star makes its last token a prefix. */
			buf_addc(out, '"');
			for (i = 0; i < n; i++) {
				if (p[i] == '"')
					buf_addc(out, '"');
				buf_addc(out, p[i]);
			}
			buf_adds(out, "\"*");
		}
		p += n;
	}
}

enum err
store_web_summaries(struct store *st, struct arena *a,
    const struct store_filter *f, struct store_summary **out, size_t *n,
    bool *more)
{
	struct buf match = BUF_INIT;
	sqlite3_stmt *s;
	int64_t project = 0;
	enum err e;

	*out = NULL;
	*n = 0;
	*more = false;
	if (f->q && *f->q) {
		/* Words none of which the index keeps match nothing. */
		store_web_match(f->q, &match);
		if (match.n == 0)
			return ERR_OK;
	}
	if (f->project && *f->project) {
		/* An unknown project selects nothing, not everything. */
		e = project_find(st, f->project, &project);
		if (e != ERR_OK) {
			buf_free(&match);
			return e == ERR_NOTFOUND ? ERR_OK : e;
		}
	}
	s = db_stmt(st, SQL_WEB_SUMMARY);
	db_bind_int(s, ":since", f->since > 0 ? f->since : INT64_MIN);
	db_bind_int(s, ":project", project);
	db_bind_int(s, ":id", f->id);
	db_bind_text(s, ":submitter",
	    f->submitter && *f->submitter ? f->submitter : NULL);
	db_bind_text(s, ":q", match.n ? buf_cstr(&match) : NULL);
	db_bind_text(s, ":state", f->state && *f->state ? f->state : NULL);
	/* One row more than the page tells whether another page follows. */
	db_bind_int(s, ":limit", f->limit ? (int64_t)f->limit + 1 : -1);
	db_bind_int(s, ":offset", (int64_t)f->offset);
	e = db_rows(st, a, s, sizeof(**out), summary_row, (void **)out, n);
	if (e == ERR_OK && f->limit && *n > f->limit) {
		*n = f->limit;
		*more = true;
	}
	buf_free(&match);
	return e;
}

static void
name_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	*(const char **)p = db_col_arena(a, s, 0);
}

enum err
store_web_projects(
    struct store *st, struct arena *a, const char ***out, size_t *n)
{
	return db_rows(st, a, db_stmt(st, SQL_WEB_PROJECTS), sizeof(**out),
	    name_row, (void **)out, n);
}

static void
event_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct store_web_event *v = p;

	v->id = db_col_int(s, 0);
	v->time = db_col_int(s, 1);
	v->kind = db_col_event(s, 2);
	v->contribution_id = db_col_int(s, 3);
	v->actor = db_col_arena(a, s, 4);
	v->detail = db_col_arena(a, s, 5);
	v->message_id = db_col_arena(a, s, 6);
	v->slug = db_col_arena(a, s, 7);
	if (sqlite3_column_count(s) > 8) {
		v->title = db_col_arena(a, s, 8);
		v->patch_title = db_col_arena(a, s, 9);
	}
}

enum err
store_web_events(struct store *st, struct arena *a, int64_t since, size_t limit,
    struct store_web_event **out, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_WEB_EVENTS);

	db_bind_int(s, ":since", since);
	db_bind_int(s, ":limit", (int64_t)limit);
	return db_rows(st, a, s, sizeof(**out), event_row, (void **)out, n);
}

enum err
store_web_feed(struct store *st, struct arena *a, int64_t contribution,
    size_t limit, struct store_web_event **out, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_WEB_FEED);

	db_bind_int(s, ":contribution", contribution);
	db_bind_int(s, ":limit", (int64_t)limit);
	return db_rows(st, a, s, sizeof(**out), event_row, (void **)out, n);
}

static void
stamp_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct store_web_stamp *v = p;

	(void)a;
	v->id = db_col_int(s, 0);
	v->activity = db_col_int(s, 1);
	v->event = db_col_int(s, 2);
	v->message = db_col_int(s, 3);
	v->outbox = db_col_int(s, 4);
}

enum err
store_web_stamps(
    struct store *st, struct arena *a, struct store_web_stamp **out, size_t *n)
{
	return db_rows(st, a, db_stmt(st, SQL_WEB_STAMPS), sizeof(**out),
	    stamp_row, (void **)out, n);
}

enum err
store_web_patch(
    struct store *st, int64_t patch, int64_t *series, int64_t *contribution)
{
	sqlite3_stmt *s = db_stmt(st, SQL_WEB_PATCH);
	enum err e;

	db_bind_int(s, ":id", patch);
	if ((e = db_row(st, s, "patch")) == ERR_OK) {
		*series = db_col_int(s, 1);
		*contribution = db_col_int(s, 2);
	}
	sqlite3_reset(s);
	return e;
}

static void
pred_row(struct arena *a, sqlite3_stmt *s, void *p)
{
	struct store_web_pred *v = p;

	(void)a;
	v->patch_id = db_col_int(s, 0);
	v->message_row = db_col_int(s, 1);
	v->old_message_row = db_col_int(s, 2);
	v->old_version = (int)db_col_int(s, 3);
}

enum err
store_web_predecessors(struct store *st, struct arena *a, int64_t series,
    struct store_web_pred **out, size_t *n)
{
	sqlite3_stmt *s = db_stmt(st, SQL_WEB_PREDECESSORS);

	db_bind_int(s, ":series", series);
	return db_rows(st, a, s, sizeof(**out), pred_row, (void **)out, n);
}

enum err
store_web_place(struct store *st, struct arena *a, const char *msgid,
    struct store_web_place *out)
{
	sqlite3_stmt *s = db_stmt(st, SQL_WEB_PLACE);
	enum err e;

	memset(out, 0, sizeof(*out));
	db_bind_text(s, ":msgid", msgid);
	if ((e = db_row(st, s, "message place")) == ERR_OK) {
		out->contribution = db_col_int(s, 0);
		out->series = db_col_int(s, 1);
		out->patch = db_col_int(s, 2);
		out->kind = db_col_arena(a, s, 3);
		out->message_row = db_col_int(s, 4);
	}
	sqlite3_reset(s);
	return e;
}
