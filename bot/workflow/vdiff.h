/*
 * Room bot/workflow.  What changed between two versions of a patch, for
 * the "updated" acknowledgment (DESIGN.md §8): the code, the description
 * (subject and commit message without its trailers), the trailers the
 * patch's own message carries; and the interdiff of the code.
 */
#ifndef BOT_VDIFF_H
#define BOT_VDIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "parsers/config.h"
#include "storage/store.h"
#include "util/arena.h"

struct vdiff {
	bool code; /* another patch-id (another diff, when one has none) */
	bool description;
	bool trailers; /* the message's own, as a set */
	const char *interdiff; /* the code's changes (in a); NULL when the
	                          code did not change or has no diff */
};

/*
 * Compare the patches of the stored mails old_msg and new_msg.  A mail
 * without a patch counts as changed in everything.
 */
enum err vdiff_compare(struct store *st, struct arena *a,
    const struct config *conf, int64_t old_msg, int64_t new_msg,
    struct vdiff *out);

#endif
