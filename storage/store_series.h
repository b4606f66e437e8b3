/* Series (one posting) and contributions (all versions of one). */
#ifndef STORAGE_STORE_SERIES_H
#define STORAGE_STORE_SERIES_H

#include <stdint.h>

#include "storage/store.h"
#include "util/arena.h"

struct store_series {
	int64_t id;
	int64_t contribution_id;
	int64_t project_id;
	int version;
	int expected;
	int received;
	int64_t cover_id; /* message id, 0: none */
	int64_t first_id; /* message id */
	const char *title;
	const char *norm_title;
	const char *submitter_name;
	const char *submitter_email;
	int64_t date;
	const char *change_id;
	const char *base_commit;
	bool resend;
};

enum err store_series_get(
    struct store *st, struct arena *a, int64_t id, struct store_series *out);
/* A new contribution holding a new series (s->contribution_id ignored). */
enum err store_series_add(
    struct store *st, struct store_series *s, int64_t *id);
enum err store_series_update(struct store *st, const struct store_series *s);
/* Recount received patches. */
enum err store_series_recount(struct store *st, int64_t id, int *received);

/*
 * The series of this sender, version and total posted within window
 * seconds of date, nearest first; coverless: only series without a cover.
 */
enum err store_series_window(struct store *st, int64_t project_id,
    const char *email, int version, int expected, int64_t date, int64_t window,
    bool coverless, int64_t exclude, int64_t *id);
/* The newest series with this change-id outside contribution exclude. */
enum err store_series_by_change(struct store *st, int64_t project_id,
    const char *change_id, int64_t exclude, int64_t *id);
/* The newest series of this submitter and normalised title outside
 * contribution exclude, with a version at most max_version. */
enum err store_series_by_title(struct store *st, int64_t project_id,
    const char *email, const char *norm_title, int max_version, int64_t exclude,
    int64_t *id);
/* Series of a contribution, newest version first (ties: newest date). */
enum err store_series_of(
    struct store *st, int64_t contribution_id, int64_t **ids, size_t *n);

/* Move a series into another contribution; drop the one left empty. */
enum err store_series_move(
    struct store *st, int64_t series_id, int64_t contribution_id);
/* Recompute a contribution's newest series and bump its activity. */
enum err store_series_touch(
    struct store *st, int64_t contribution_id, int64_t activity);

/* A mail about a series arrived: its contribution's activity moves on. */
enum err store_series_activity(
    struct store *st, int64_t series_id, int64_t activity);

#endif
