/* A unified diff of two texts (libgit2's diff of buffers): the interdiff
 * of two versions of a patch in the "updated" mail. */
#ifndef BOT_GITDIFF_H
#define BOT_GITDIFF_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/* Append to out the unified diff (3 lines of context) turning old into
 * new, with the names given on its --- and +++ lines; nothing when they
 * are equal. */
enum err gitdiff_text(const char *old, size_t oldn, const char *old_name,
    const char *new, size_t newn, const char *new_name, struct buf *out);

#endif
