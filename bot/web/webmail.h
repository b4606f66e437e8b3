/*
 * One mail as the contribution page shows it (DESIGN.md §9): its text in
 * blocks, quoted text and the signature apart so that the page can fold
 * them; a patch's commit message, diffstat as git prints it and diff.
 * Everything lives in the caller's arena.
 */
#ifndef BOT_WEB_WEBMAIL_H
#define BOT_WEB_WEBMAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/mail.h"
#include "storage/store.h"
#include "util/arena.h"
#include "util/buf.h"

/* What the page shows of one mail's text, each cut with a note. */
#define WEBMAIL_MAX_LINES 2000 /* a reply, a cover letter */
#define WEBMAIL_MAX_DIFF_LINES 5000 /* a patch's diff */
/* A mail alternating quotes and answers folds this many quotes, then
 * shows the rest as written. */
#define WEBMAIL_MAX_BLOCKS 64

enum webmail_kind {
	WEBMAIL_TEXT, /* what the sender wrote */
	WEBMAIL_QUOTE, /* lines quoted with ">" (blank lines between them
	                  included) */
	WEBMAIL_SIG, /* from the "-- " line on */
};

struct webmail_block {
	enum webmail_kind kind;
	struct str text; /* its lines, without the last LF */
	size_t lines;
};

/*
 * Split text (UTF-8, LF ends) into blocks, at most max; blank lines at
 * the ends of a block are left out, and blocks of blank lines only.
 * After WEBMAIL_MAX_LINES lines the rest is left out and *cut says how
 * many lines (0 when none).  Returns the number of blocks.
 */
size_t webmail_blocks(
    struct str text, struct webmail_block *out, size_t max, size_t *cut);

/* One mail, parsed for the page. */
struct webmail {
	struct mail m;
	struct str text; /* the text people wrote (m.text) */
	/* A patch: */
	struct str message; /* the commit message after its subject */
	const char *diffstat; /* as git format-patch prints it, or NULL */
	struct str diff; /* from the first file's header on */
};

/* Read and parse the stored mail row; o gives the command prefix (so
 * that commands are found) and the bot's address. */
enum err webmail_read(struct store *st, struct arena *a, int64_t row,
    const struct mail_opts *o, struct webmail *out);

/* How a line of a patch's diff is shown. */
enum webmail_line {
	WEBMAIL_CTX,
	WEBMAIL_ADD,
	WEBMAIL_DEL,
	WEBMAIL_HUNK, /* "@@ -a,b +c,d @@" */
	WEBMAIL_FILE, /* diff --git, index, ---, +++, modes, renames */
};

/* Where a diff's lines are: inside a hunk (lines left on either side)
 * or between hunks (both 0).  Zeroed at the start of a diff. */
struct webmail_diffpos {
	unsigned long old_left, new_left;
};

/* The kind of each line of a diff in turn. */
enum webmail_line webmail_diff_line(
    struct str line, struct webmail_diffpos *at);

#endif
