/*
 * struct buf: one growable byte buffer, always NUL-terminated.
 * struct str: a view (pointer and length) into bytes owned elsewhere.
 *
 * Adding to a buf cannot fail: it grows, and running out of memory is
 * fatal, as in util/xalloc.h.  So the appends return nothing, and the
 * code around them need not check what cannot happen.
 *
 * A buf may carry a cap (max, set by buf_init; 0 for none): the limit of
 * the code that owns the buffer, a parser's (parsers/limits.h), a
 * template's or a mail's.  The appends do not look at it.  The owner asks
 * buf_fits() before it adds, or adds what it cannot measure first (an
 * escape) and asks buf_fits(b, 0) after, and fails itself: input can
 * never make us run out of memory, and truncation is an error, never
 * silent.
 */
#ifndef UTIL_BUF_H
#define UTIL_BUF_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

struct buf {
	char *p; /* NUL-terminated when cap > 0; NULL when empty */
	size_t n; /* bytes used, without the NUL */
	size_t cap; /* bytes allocated */
	size_t max; /* the owner's cap (buf_fits), 0 for none */
};

struct str {
	const char *p;
	size_t n;
};

#define BUF_INIT                                                               \
	{                                                                      \
		NULL, 0, 0, 0                                                  \
	}
#define STR_NULL ((struct str){ NULL, 0 })
#define STR_LIT(s) ((struct str){ (s), sizeof(s) - 1 })

void buf_init(struct buf *b, size_t max);
void buf_free(struct buf *b);
void buf_reset(struct buf *b);
/* Give the bytes to the caller (never NULL); the buf becomes empty. */
char *buf_detach(struct buf *b, size_t *n);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_addc(struct buf *b, char c);
void buf_adds(struct buf *b, const char *s);
void buf_addstr(struct buf *b, struct str s);
void buf_addf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Make room for n more bytes (and the NUL) after b->n. */
void buf_reserve(struct buf *b, size_t n);
/*
 * Whether n more bytes keep b within its cap (always, without one);
 * buf_fits(b, 0) is false once b is past it.  For the owners of capped
 * buffers, each of which turns false into its own error: the charset
 * conversions and the patch parser's in-body header (ERR_LIMIT), the
 * template renderer's output (ERR_LIMIT), mailout_compose's message
 * (ERR_LIMIT), template and configuration files as they are read (a
 * configuration error), the web server's request body (413), the SMTP
 * client's reply lines (dropped as junk) and devsig's key path (no key).
 */
bool buf_fits(const struct buf *b, size_t n);
/* The contents as a C string ("" when empty). */
const char *buf_cstr(const struct buf *b);
struct str buf_str(const struct buf *b);

struct str str_from(const char *s);
struct str str_make(const char *p, size_t n);
bool str_eq(struct str a, struct str b);
bool str_eqs(struct str a, const char *s);
/* ASCII-only case folding, never the locale's. */
bool str_ieq(struct str a, struct str b);
bool str_ieqs(struct str a, const char *s);
bool str_startswith(struct str a, const char *prefix);
bool str_istartswith(struct str a, const char *prefix);
bool str_endswith(struct str a, const char *suffix);
struct str str_trim(struct str a);
struct str str_ltrim(struct str a);
struct str str_rtrim(struct str a);
/* Skip n bytes (clamped). */
struct str str_skip(struct str a, size_t n);
/* Offset of the first c, or -1. */
long str_find(struct str a, char c);
/* Offset of the first occurrence of needle, or -1. */
long str_findstr(struct str a, const char *needle, size_t n);
/* Split off the next line (without its LF or CRLF); false at the end. */
bool str_nextline(struct str *rest, struct str *line);
char *str_dup(struct str a);

#endif
