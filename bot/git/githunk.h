/*
 * Applying one file section's hunks to a file's text, as git apply does
 * (bot/git/githunk.c says how): exact place first, then relocated by
 * searching for the context, nearest first, no fuzz.
 */
#ifndef BOT_GITHUNK_H
#define BOT_GITHUNK_H

#include <stdbool.h>
#include <stddef.h>

#include "parsers/diff.h"
#include "util/buf.h"

/*
 * Apply the hunks of f to pre[0..n); the result replaces out's content.
 * On success *offset is the relocation of largest size (lines; negative
 * when a hunk moved up).  On failure *failed is the index of the first
 * hunk that found no place (as the lines were written).
 */
bool githunk_apply(const struct diff_file *f, const char *pre, size_t n,
    struct buf *out, long *offset, size_t *failed);

#endif
