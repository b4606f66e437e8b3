/*
 * A unified diff split into files and hunks: git diffs (renames, copies,
 * modes, binary), plain "diff -u" and quilt patches.  Used for the files a
 * patch touches, its diffstat, and by the stager to apply it.  Everything
 * points into the diff text, which must outlive the result.
 */
#ifndef PARSERS_DIFF_H
#define PARSERS_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/buf.h"

enum diff_op {
	DIFF_MODIFY,
	DIFF_ADD,
	DIFF_DELETE,
	DIFF_RENAME,
	DIFF_COPY
};

struct diff_hunk {
	unsigned long old_start, old_count; /* from "@@ -a,b +c,d @@" */
	unsigned long new_start, new_count;
	struct str header; /* the "@@ ... @@ section" line, without LF */
	struct str lines; /* the body lines, each ending in LF, including
	                     "\ No newline at end of file" lines */
};

struct diff_file {
	const char *old_path; /* prefix (a/ or one component) stripped;
	                         NULL for /dev/null */
	const char *new_path; /* NULL for /dev/null */
	enum diff_op op;
	unsigned old_mode, new_mode; /* octal values; 0 when not given */
	const char *old_oid; /* abbreviated hex of the index line, or NULL */
	const char *new_oid;
	unsigned similarity; /* rename/copy similarity index, percent */
	bool git; /* had a "diff --git" header */
	bool binary; /* "Binary files ... differ" or a binary patch */
	struct str binary_data; /* the "GIT binary patch" block, if any */
	struct diff_hunk *hunks;
	size_t nhunks;
	unsigned long added, removed; /* lines */
	struct str text; /* this file's whole section of the diff */
};

struct diff {
	struct diff_file *files;
	size_t nfiles;
	unsigned long added, removed;
};

/*
 * Parse text[0..n) (LF line ends; a leading commit message or diffstat is
 * skipped up to the first "diff "/"--- " header).  ERR_PARSE when there
 * is no file section at all or a hunk is malformed; ERR_LIMIT over
 * LIMIT_PATCH_FILES or LIMIT_PATCH_HUNKS.
 */
enum err diff_parse(
    struct arena *a, const char *text, size_t n, struct diff **out);

/*
 * A path the stager may touch: relative, non-empty, no "." or ".."
 * component, no empty component, no ".git" component (any case), no
 * control characters or backslashes.
 */
bool diff_path_safe(const char *path);

/* A diffstat like git format-patch's ("file | 3 ++-" lines, the summary
 * line, then --summary's create/delete/rename/mode lines), 72 columns. */
void diff_stat(struct buf *out, const struct diff *d);
/* The same for width columns: `git diff --stat --summary` on a pipe
 * (request-pull) uses 80. */
void diff_stat_width(struct buf *out, const struct diff *d, int width);

#endif
