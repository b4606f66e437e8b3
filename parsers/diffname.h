/*
 * File names in diff headers, read the way git's apply.c reads them: C
 * quoting ("a/sp\tace"), leading directories stripped (-p1), the name
 * shown twice on a "diff --git" line, and the timestamps of traditional
 * "--- name<TAB>date" lines.  Also git's quoting for output (diffstat).
 * Used by parsers/diff.c; names are copied into the arena.
 */
#ifndef PARSERS_DIFFNAME_H
#define PARSERS_DIFFNAME_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/buf.h"

/*
 * Undo git's C quoting: s[0] is the opening '"'.  On success *endp points
 * after the closing quote.  NULL on a bad escape or a missing quote.
 */
char *diffname_unquote(
    struct arena *a, const char *s, const char *end, const char **endp);

/*
 * The path of a "diff --git " line's rest s..end when both sides name the
 * same file (git_header_name()), else NULL (renames name their paths on
 * other lines).
 */
const char *diffname_git_header(
    struct arena *a, const char *s, const char *end);

/*
 * A name of a git header line ("--- a/x", "rename from x"): quoted, or up
 * to a TAB or the line end, with p_value leading components removed.
 * NULL when nothing is left.
 */
const char *diffname_find(
    struct arena *a, const char *s, const char *end, int p_value);

/*
 * A name of a traditional "--- " / "+++ " line (s after the marker): the
 * trailing date is removed; def is preferred when the name only adds a
 * suffix to it ("file.orig"); def when no name is found.
 */
const char *diffname_traditional(struct arena *a, const char *s,
    const char *end, const char *def, int p_value);

/* s..end starts with "/dev/null" followed by a blank or the end. */
bool diffname_dev_null(const char *s, const char *end);

/* The name line carries the epoch as timestamp after a TAB: GNU diff's
 * sign for a created or deleted file. */
bool diffname_epoch(const char *s, const char *end);

/* Append path, C-quoted when git would quote it (core.quotePath). */
void diffname_quote(struct buf *out, const char *path);

/* Bytes diffname_quote() would append. */
size_t diffname_quoted_len(const char *path);

#endif
