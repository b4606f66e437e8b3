/*
 * The read side of patchwork's REST API 1.2 and of public-inbox's message
 * URLs (docs/DESIGN.md §9): patches, series, cover letters, replies, people,
 * checks and events as those protocols see them, and a contribution's
 * mails for t.mbox.gz.  The ids are rows of ours: a patch, series or
 * check is its row; a cover letter or a reply its message's row; a
 * person the row of a mail they sent.
 */
#ifndef STORAGE_STORE_PW_H
#define STORAGE_STORE_PW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/model.h"
#include "storage/store.h"
#include "storage/store_outbox.h"
#include "util/arena.h"

/* Which rows of a list, and which page of them.  Zeroed: all, oldest
 * first. */
struct store_pw_filter {
	int64_t id; /* only this row; 0: any */
	int64_t project; /* 0: any */
	int64_t series; /* patches, events: of this series; 0: any */
	int64_t patch; /* events: about this patch; 0: any */
	int64_t cover; /* series: with this cover letter; events: about it */
	bool with_cover; /* series: only those with a cover letter */
	bool none; /* a filter nothing matches (archived=true, delegate=) */
	const char *states; /* patches: ",new,accepted,"; NULL: any */
	/* ",a@example.org,b@example.org,": by any of these addresses,
	 * lower case; NULL: anyone */
	const char *submitters;
	const char *q; /* a part of the name, ASCII case folded */
	const char *msgid; /* without brackets */
	const char *hash; /* patches: the patch-id */
	const char *state; /* checks */
	const char *context; /* checks */
	const char *category; /* events */
	bool has_since, has_before;
	int64_t since, before; /* at or after; strictly before */
	/* "date" (the default), "-date", "id", "-id", "name", "-name";
	 * patches also "number" */
	const char *order;
	size_t offset;
	size_t limit; /* 0: no limit */
};

struct store_pw_patch {
	int64_t id;
	int64_t series_id;
	int64_t contribution_id;
	int64_t project_id; /* 0: none */
	const char *project; /* "" when none */
	int64_t message_row;
	const char *msgid;
	int64_t date;
	const char *title;
	int number;
	int version;
	int expected;
	const char *from_name;
	const char *from_email;
	enum model_state state; /* ours (docs/DESIGN.md §3) */
	enum model_queue queue;
	enum model_reason reason;
	const char *pw_state; /* patchwork's */
	const char *hash; /* the patch-id, or NULL */
	const char *commit_ref; /* the upstream commit when merged */
	const char *series_title;
	int64_t series_date;
};

struct store_pw_series {
	int64_t id;
	int64_t contribution_id;
	int64_t project_id;
	const char *project;
	const char *title;
	int64_t date;
	int64_t first_row; /* its first mail: the submitter's */
	const char *submitter_name;
	const char *submitter_email;
	int version;
	int expected;
	int received;
	int64_t cover_row; /* 0: none */
	const char *cover_msgid;
	int64_t cover_date;
};

/* A reply, or a person (row, name, email). */
struct store_pw_mail {
	int64_t row;
	const char *msgid;
	int64_t date;
	const char *subject;
	const char *from_name;
	const char *from_email;
};

struct store_pw_event {
	int64_t id;
	const char *category;
	int64_t date;
	int64_t project_id;
	const char *actor; /* NULL: none */
	int64_t series_id, patch_id, cover_row, check_id, comment_row;
	const char *kind; /* the event's (patch-state-changed) */
	const char *detail;
};

struct store_pw_project {
	int64_t id;
	const char *name;
};

/* Every project that has mail, by name. */
enum err store_pw_projects(struct store *st, struct arena *a,
    struct store_pw_project **out, size_t *n);

/* The rows f selects into the arena; *more says whether rows follow the
 * page (when f->limit is set). */
enum err store_pw_patches(struct store *st, struct arena *a,
    const struct store_pw_filter *f, struct store_pw_patch **out, size_t *n,
    bool *more);
enum err store_pw_series(struct store *st, struct arena *a,
    const struct store_pw_filter *f, struct store_pw_series **out, size_t *n,
    bool *more);
/* One row by its key (a patch; a series by its row or, id 0, by its
 * cover letter's; a reply by its message row); ERR_NOTFOUND. */
enum err store_pw_patch_get(
    struct store *st, struct arena *a, int64_t id, struct store_pw_patch *out);
enum err store_pw_series_get(struct store *st, struct arena *a, int64_t id,
    int64_t cover, struct store_pw_series *out);
/* The patches series counts (no older copy of a number), by number. */
enum err store_pw_series_patches(struct store *st, struct arena *a,
    int64_t series, struct store_pw_patch **out, size_t *n);
enum err store_pw_comment(
    struct store *st, struct arena *a, int64_t row, struct store_pw_mail *out);
/* The replies about patch (of series), or about the whole series when
 * patch is 0, oldest first. */
enum err store_pw_comments(struct store *st, struct arena *a, int64_t series,
    int64_t patch, const struct store_pw_filter *f, struct store_pw_mail **out,
    size_t *n, bool *more);
/* People: f->q, f->order ("-id" newest first), the page. */
enum err store_pw_people(struct store *st, struct arena *a,
    const struct store_pw_filter *f, struct store_pw_mail **out, size_t *n,
    bool *more);
/* The sender of mail row id (row, name, email); ERR_NOTFOUND. */
enum err store_pw_person(
    struct store *st, struct arena *a, int64_t id, struct store_pw_mail *out);
/* The checks of patch and of its whole series (summary: description). */
enum err store_pw_checks(struct store *st, struct arena *a, int64_t patch,
    int64_t series, const struct store_pw_filter *f, struct store_check **out,
    size_t *n, bool *more);
/* One check by its row; ERR_NOTFOUND. */
enum err store_pw_check(
    struct store *st, struct arena *a, int64_t id, struct store_check *out);
/* Events, newest first unless f->order is "date". */
enum err store_pw_events(struct store *st, struct arena *a,
    const struct store_pw_filter *f, struct store_pw_event **out, size_t *n,
    bool *more);
/* The events that changed patch's state, up to and with event id upto:
 * kinds and details, oldest first. */
enum err store_pw_history(struct store *st, struct arena *a, int64_t patch,
    int64_t upto, enum model_event **kinds, const char ***details, size_t *n);
/* The message rows of a contribution's mails, or (series not 0) of one
 * series' mails, oldest first (malloc'd), and how many bytes they are
 * as stored. */
enum err store_pw_thread(struct store *st, int64_t contribution, int64_t series,
    int64_t **rows, size_t *n, uint64_t *bytes);
/* patchwork's state for ours, as the lists filter it (for the tests
 * that hold bot/web/'s mapping to it). */
enum err store_pw_state(struct store *st, struct arena *a, const char *state,
    const char *queue, const char *reason, const char **out);

#endif
