/* The staging queue as the stager reads it, its last build, and the
 * lookups that match upstream commits to tracked patches. */
#ifndef STORAGE_STORE_STAGE_H
#define STORAGE_STORE_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "parsers/model.h"
#include "storage/store.h"
#include "util/arena.h"

/* Staged patches of a project, stable queue first, each in its order. */
enum err store_stage_queue(
    struct store *st, int64_t project_id, int64_t **ids, size_t *n);
/* Fix-ups folded into a patch, oldest first. */
enum err store_stage_folded(
    struct store *st, int64_t patch_id, int64_t **ids, size_t *n);

struct store_build {
	int64_t patch_id;
	const char *key;
	const char *commit; /* NULL: left out of the build */
	int how;
	long offset;
};

/* The last build of the branch of a queue (stable, unstable). */
enum err store_stage_prev(struct store *st, struct arena *a, int64_t project_id,
    enum model_queue branch, struct store_build **out, size_t *n);
enum err store_stage_save(struct store *st, int64_t project_id,
    enum model_queue branch, const struct store_build *b, size_t n);

/* Tracked patches of a project that upstream may still take (not merged,
 * not superseded), by stable patch-id, or by author and title. */
enum err store_stage_by_patchid(struct store *st, int64_t project_id,
    const char *patch_id, int64_t **ids, size_t *n);
enum err store_stage_by_author(struct store *st, int64_t project_id,
    const char *email, const char *norm_title, int64_t **ids, size_t *n);

#endif
