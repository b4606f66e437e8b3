/* Patches and their trailers. */
#ifndef STORAGE_STORE_PATCH_H
#define STORAGE_STORE_PATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "parsers/model.h"
#include "storage/store.h"
#include "util/arena.h"

struct store_patch {
	int64_t id;
	int64_t project_id;
	int64_t series_id;
	int64_t message_id;
	int number;
	const char *title;
	const char *norm_title;
	const char *author_name;
	const char *author_email;
	int64_t author_time;
	int author_tz;
	const char *patch_id; /* hex, or NULL */
	const char *files; /* newline-separated */
	const char *slug;
	enum model_state state;
	enum model_queue queue; /* QUEUE_NONE when not staged */
	enum model_reason reason; /* dropped or merged: why, how */
	bool conflict;
	int64_t predecessor_id;
	int64_t queued_at;
	int64_t queue_pos; /* order in its queue */
	int64_t folded_into; /* the patch this fix-up was folded into */
};

enum err store_patch_get(
    struct store *st, struct arena *a, int64_t id, struct store_patch *out);
enum err store_patch_add(
    struct store *st, const struct store_patch *p, int64_t *id);
/* Delete a patch; what named it as predecessor names replacement. */
enum err store_patch_delete(struct store *st, int64_t id, int64_t replacement);
/* Update the mutable fields: slug, state, queue, reason, conflict,
 * predecessor, queued_at. */
enum err store_patch_update(struct store *st, const struct store_patch *p);
enum err store_patch_by_number(
    struct store *st, int64_t series_id, int number, int64_t *id);
enum err store_patch_by_title(
    struct store *st, int64_t series_id, const char *norm_title, int64_t *id);
enum err store_patch_by_patchid(
    struct store *st, int64_t series_id, const char *patch_id, int64_t *id);
/* The next position at the end of a project's queue. */
enum err store_patch_queue_next(
    struct store *st, int64_t project_id, enum model_queue queue, int64_t *pos);
/* The patch known by slug in a project (its staged one first). */
enum err store_patch_by_slug(
    struct store *st, int64_t project_id, const char *slug, int64_t *id);
enum err store_patch_of_series(
    struct store *st, int64_t series_id, int64_t **ids, size_t *n);
/* The patches that name id as their predecessor (newer versions, copies
 * sent again), oldest first. */
enum err store_patch_successors(
    struct store *st, int64_t id, int64_t **ids, size_t *n);
/* Is slug used by any patch of the project? */
enum err store_patch_slug_used(
    struct store *st, int64_t project_id, const char *slug, bool *used);
/* Unstaged patches (new, changes-requested) of a series become
 * superseded; *n how many. */
enum err store_patch_supersede_series(
    struct store *st, int64_t series_id, int *n);

struct store_trailer {
	int64_t patch_id; /* 0: the whole series */
	int64_t series_id; /* set when patch_id is 0 */
	int64_t message_id;
	const char *name;
	const char *value;
	const char *email; /* NULL: not a person trailer */
	bool verified;
	bool own; /* from the patch's own commit message */
};

enum err store_patch_trailer_add(
    struct store *st, const struct store_trailer *t);
/* A collected trailer is kept once per place and message: adding it
 * again, carrying or moving it onto a copy changes nothing. */
/* Copy the collected (not own) trailers of patch from to patch to. */
enum err store_patch_trailer_carry(struct store *st, int64_t from, int64_t to);
/* Forget the trailers a message gave (it is placed again). */
enum err store_patch_trailer_drop(struct store *st, int64_t message_id);
/* Move trailers of patch from to patch to. */
enum err store_patch_trailer_move(struct store *st, int64_t from, int64_t to);

#endif
