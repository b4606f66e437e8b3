/*
 * Slugs: quilt file names made from a patch title, as -mm names them.
 * Letters and digits are kept (lower-cased); apostrophes vanish, so
 * "don't" stays one word; every other run of bytes, non-ASCII included,
 * becomes one '-'.
 */
#include "parsers/slug.h"

#include <stdio.h>
#include <string.h>

#include "util/ascii.h"

#define SLUG_MAX 64

/* Cut s (length n) to at most max bytes, at a '-' when there is one. */
static size_t
cut(const char *s, size_t n, size_t max)
{
	size_t i;

	if (n <= max)
		return n;
	for (i = max; i > 0; i--)
		if (s[i] == '-')
			return i;
	return max;
}

const char *
slug_make(struct arena *a, const char *title)
{
	const char *p = title ? title : "";
	size_t len = strlen(p), n = 0;
	char *out = arena_alloc(a, len + 8);

	for (; *p; p++) {
		if (ascii_isalnum(*p)) {
			out[n++] = ascii_tolower(*p);
		} else if (*p != '\'' && *p != '`' && n && out[n - 1] != '-') {
			out[n++] = '-';
		}
	}
	while (n && out[n - 1] == '-')
		n--;
	n = cut(out, n, SLUG_MAX);
	if (n == 0) {
		strcpy(out, "patch");
		return out;
	}
	out[n] = '\0';
	return out;
}

const char *
slug_variant(struct arena *a, const char *base, unsigned n)
{
	char suffix[16];
	size_t blen = strlen(base), keep;
	int sn = snprintf(suffix, sizeof(suffix), "-%u", n);
	char *out;

	if (sn < 0 || (size_t)sn >= sizeof(suffix))
		return base; /* cannot happen: an unsigned fits */
	/* The variant obeys the same length bound as the slug. */
	keep = cut(base, blen, SLUG_MAX - (size_t)sn);
	while (keep && base[keep - 1] == '-')
		keep--;
	out = arena_alloc(a, keep + (size_t)sn + 1);
	memcpy(out, base, keep);
	memcpy(out + keep, suffix, (size_t)sn + 1);
	return out;
}
