#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ascii.h"
#include "util/xalloc.h"

void
buf_init(struct buf *b, size_t max)
{
	b->p = NULL;
	b->n = 0;
	b->cap = 0;
	b->max = max;
}

void
buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->n = 0;
	b->cap = 0;
}

void
buf_reset(struct buf *b)
{
	b->n = 0;
	if (b->p)
		b->p[0] = '\0';
}

char *
buf_detach(struct buf *b, size_t *n)
{
	char *p = b->p;

	if (n)
		*n = b->n;
	if (p == NULL)
		p = xstrdup("");
	b->p = NULL;
	b->n = 0;
	b->cap = 0;
	return p;
}

void
buf_reserve(struct buf *b, size_t n)
{
	size_t need, cap;

	if (n > (size_t)-1 / 2 - b->n)
		fatal("buf: %zu more bytes after %zu: out of memory", n, b->n);
	need = b->n + n + 1;
	if (need <= b->cap)
		return;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	b->p = xrealloc(b->p, cap);
	b->cap = cap;
}

bool
buf_fits(const struct buf *b, size_t n)
{
	return b->max == 0 || (b->n <= b->max && n <= b->max - b->n);
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
	b->p[b->n] = '\0';
}

void
buf_addc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_addstr(struct buf *b, struct str s)
{
	buf_add(b, s.p, s.n);
}

void
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	/* vsnprintf fails only past INT_MAX bytes, or on a wide character
	 * it cannot convert: neither is an error a caller could handle. */
	if (n < 0)
		fatal("buf: cannot format \"%s\"", fmt);
	buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)n;
}

const char *
buf_cstr(const struct buf *b)
{
	return b->p ? b->p : "";
}

struct str
buf_str(const struct buf *b)
{
	return str_make(b->p ? b->p : "", b->n);
}

struct str
str_from(const char *s)
{
	return str_make(s ? s : "", s ? strlen(s) : 0);
}

struct str
str_make(const char *p, size_t n)
{
	struct str s;

	s.p = p;
	s.n = n;
	return s;
}

bool
str_eq(struct str a, struct str b)
{
	return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

bool
str_eqs(struct str a, const char *s)
{
	return str_eq(a, str_from(s));
}

bool
str_ieq(struct str a, struct str b)
{
	return a.n == b.n && ascii_strnicmp(a.p, b.p, a.n) == 0;
}

bool
str_ieqs(struct str a, const char *s)
{
	return str_ieq(a, str_from(s));
}

bool
str_startswith(struct str a, const char *prefix)
{
	size_t n = strlen(prefix);

	return a.n >= n && memcmp(a.p, prefix, n) == 0;
}

bool
str_istartswith(struct str a, const char *prefix)
{
	size_t n = strlen(prefix);

	return a.n >= n && ascii_strnicmp(a.p, prefix, n) == 0;
}

bool
str_endswith(struct str a, const char *suffix)
{
	size_t n = strlen(suffix);

	return a.n >= n && memcmp(a.p + a.n - n, suffix, n) == 0;
}

struct str
str_ltrim(struct str a)
{
	while (a.n && ascii_isspace(a.p[0])) {
		a.p++;
		a.n--;
	}
	return a;
}

struct str
str_rtrim(struct str a)
{
	while (a.n && ascii_isspace(a.p[a.n - 1]))
		a.n--;
	return a;
}

struct str
str_trim(struct str a)
{
	return str_rtrim(str_ltrim(a));
}

struct str
str_skip(struct str a, size_t n)
{
	if (n > a.n)
		n = a.n;
	a.p += n;
	a.n -= n;
	return a;
}

long
str_find(struct str a, char c)
{
	const char *q = a.n ? memchr(a.p, c, a.n) : NULL;

	return q ? (long)(q - a.p) : -1;
}

long
str_findstr(struct str a, const char *needle, size_t n)
{
	const char *q;

	if (n == 0)
		return 0;
	if (a.n < n)
		return -1;
	q = memmem(a.p, a.n, needle, n);
	return q ? (long)(q - a.p) : -1;
}

bool
str_nextline(struct str *rest, struct str *line)
{
	const char *nl;
	size_t n;

	if (rest->n == 0)
		return false;
	nl = memchr(rest->p, '\n', rest->n);
	n = nl ? (size_t)(nl - rest->p) : rest->n;
	line->p = rest->p;
	line->n = n;
	if (n && line->p[n - 1] == '\r')
		line->n--;
	*rest = str_skip(*rest, nl ? n + 1 : n);
	return true;
}

char *
str_dup(struct str a)
{
	return xstrndup(a.p ? a.p : "", a.n);
}
