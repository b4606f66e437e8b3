/*
 * What the promotion policy reads about a staged patch (its checks and
 * whether changes were requested since it was staged), and the record
 * of what was forwarded upstream (docs/DESIGN.md §6).
 */
#ifndef STORAGE_STORE_PROMOTE_H
#define STORAGE_STORE_PROMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "parsers/model.h"
#include "storage/store.h"
#include "util/arena.h"

/* One check of a patch (or of its whole series), oldest first. */
struct store_check_state {
	const char *context;
	const char *state; /* pending, success, warning, fail */
};

enum err store_promote_checks(struct store *st, struct arena *a,
    int64_t patch_id, int64_t series_id, struct store_check_state **out,
    size_t *n);

/*
 * The newest "state" mark a maintainer gave the staged patch at or after
 * since and after the event that staged it (STATE_CHANGES_REQUESTED or
 * STATE_NEW): a mark from before, when it was not staged yet, was its
 * state then, and staging answered it.  ERR_NOTFOUND when none.
 */
enum err store_promote_mark(
    struct store *st, int64_t patch_id, int64_t since, enum model_state *mark);

struct store_forward {
	int64_t project_id;
	int64_t patch_id;
	const char *key; /* the build key of the patch as it was sent */
	const char *message_id; /* the mail it went in */
	const char *mode; /* series or pull */
	int64_t time;
};

enum err store_forward_add(struct store *st, const struct store_forward *f);
/* The newest forwarding of a patch; ERR_NOTFOUND when it never went. */
enum err store_forward_last(struct store *st, struct arena *a, int64_t patch_id,
    struct store_forward *out);

#endif
