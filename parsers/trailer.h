/*
 * Trailers (DESIGN.md §4): any "Name-by: Person <addr>" plus "Fixes:",
 * "Link:", "Closes:" and "Cc:"; only outside quoted text (">"), before the
 * signature ("-- "), never lines prefixed by "| ".
 */
#ifndef PARSERS_TRAILER_H
#define PARSERS_TRAILER_H

#include <stdbool.h>
#include <stddef.h>

#include "parsers/addr.h"
#include "util/arena.h"
#include "util/buf.h"

struct trailer {
	const char *name; /* canonical case: "Reviewed-by", "Fixes" */
	const char *value; /* trimmed value as written */
	struct addr person; /* for person trailers; person.email NULL else */
};

enum trailer_mode {
	TRAILER_BLOCK, /* a commit message body (after the subject, as
	                  patch.message): its trailer block, as git finds it */
	TRAILER_REPLY /* a reply: any unquoted line, as b4 collects them;
	                 only "-by" names and Fixes (b4 ignores Cc, URLs) */
};

/*
 * Trailers of text (UTF-8, LF ends) in order.  ERR_LIMIT (and none) when
 * there are more than LIMIT_TRAILERS.  Person trailers ("-by", Cc) need
 * an address (addr_parse, with a dot in the domain); others are skipped.
 */
enum err trailer_parse(struct arena *a, struct str text, enum trailer_mode m,
    struct trailer **out, size_t *n);

/* "Reviewed-by: Name <a@b>" (name and value as kept) appended to out. */
void trailer_format(struct buf *out, const struct trailer *t);

/* Same name (case-insensitive) and same value (person: same address). */
bool trailer_same(const struct trailer *x, const struct trailer *y);

#endif
