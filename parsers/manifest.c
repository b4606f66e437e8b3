/*
 * The epochs of a grokmirror manifest: see manifest.h.  A small scan of
 * the JSON, not a JSON library: only the top-level keys are read, every
 * value is skipped with its nesting checked, and nothing is allocated,
 * so the manifest's size is the only cost (the caller bounds it).  A
 * key's escapes are undone as far as a path needs (\" \\ \/); any other
 * escape leaves a character no epoch's path has.
 */
#include "parsers/manifest.h"

#include <stdint.h>
#include <string.h>

struct scan {
	const char *p, *end;
};

static void
blanks(struct scan *s)
{
	while (s->p < s->end &&
	    (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static bool
is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

/*
 * The string at s->p (at its opening quote), skipped; with out, its text
 * into out[0..outn) and its length into *len (SIZE_MAX when it did not
 * fit).  false when it is not a JSON string.
 */
static bool
string(struct scan *s, char *out, size_t outn, size_t *len)
{
	size_t k = 0;
	bool fits = true;

	s->p++;
	while (s->p < s->end) {
		char c = *s->p++;

		if (c == '"') {
			if (out != NULL) {
				out[k] = '\0';
				*len = fits ? k : SIZE_MAX;
			}
			return true;
		}
		if ((unsigned char)c < 0x20)
			return false;
		if (c == '\\') {
			if (s->p >= s->end)
				return false;
			c = *s->p++;
			if (c == 'u') {
				if (s->end - s->p < 4 || !is_hex(s->p[0]) ||
				    !is_hex(s->p[1]) || !is_hex(s->p[2]) ||
				    !is_hex(s->p[3]))
					return false;
				s->p += 4;
				c = '?';
			} else if (c != '"' && c != '\\' && c != '/') {
				if (strchr("bfnrt", c) == NULL || c == '\0')
					return false;
				c = '?';
			}
		}
		if (out != NULL) {
			if (k + 1 < outn)
				out[k++] = c;
			else
				fits = false;
		}
	}
	return false;
}

/* One value, skipped, its brackets matched (iteratively: the input sets
 * the depth). */
static bool
value(struct scan *s)
{
	char close[MANIFEST_DEPTH];
	size_t depth = 0, len;

	for (;;) {
		char c;

		blanks(s);
		if (s->p >= s->end)
			return false;
		c = *s->p;
		if (c == '"') {
			if (!string(s, NULL, 0, &len))
				return false;
		} else if (c == '{' || c == '[') {
			if (depth == MANIFEST_DEPTH)
				return false;
			close[depth++] = c == '{' ? '}' : ']';
			s->p++;
			continue;
		} else if (c == '}' || c == ']') {
			if (depth == 0 || close[depth - 1] != c)
				return false;
			depth--;
			s->p++;
		} else if (c == ',' || c == ':') {
			if (depth == 0)
				return false;
			s->p++;
			continue;
		} else {
			/* A number or a literal: up to what ends it. */
			const char *start = s->p;

			while (s->p < s->end && *s->p != '\0' &&
			    strchr(" \t\r\n,:[]{}\"", *s->p) == NULL)
				s->p++;
			if (s->p == start)
				return false;
		}
		if (depth == 0)
			return true;
	}
}

/* A key that is an epoch's path, ".../git/N.git": N into have. */
static void
epoch_key(const char *key, size_t len, bool *have, size_t max, bool *beyond)
{
	size_t end, start, i;
	unsigned long num = 0;

	if (len < 10 || memcmp(key + len - 4, ".git", 4) != 0)
		return;
	end = len - 4;
	for (start = end;
	     start > 0 && key[start - 1] >= '0' && key[start - 1] <= '9';
	     start--)
		;
	if (start == end || start < 5 || memcmp(key + start - 5, "/git/", 5))
		return;
	if (key[start] == '0' && end - start > 1)
		return; /* "01.git" is no epoch's name */
	if (end - start > 9) {
		*beyond = true;
		return;
	}
	for (i = start; i < end; i++)
		num = num * 10 + (unsigned long)(key[i] - '0');
	if (num < max)
		have[num] = true;
	else
		*beyond = true;
}

enum err
manifest_epochs(
    const char *text, size_t n, bool *have, size_t max, bool *beyond)
{
	struct scan s = { text, text + n };
	char key[512];
	size_t len;

	memset(have, 0, max * sizeof(*have));
	*beyond = false;
	blanks(&s);
	if (s.p >= s.end || *s.p != '{')
		return ERR_PARSE;
	s.p++;
	blanks(&s);
	if (s.p < s.end && *s.p == '}') {
		s.p++;
	} else {
		for (;;) {
			blanks(&s);
			if (s.p >= s.end || *s.p != '"' ||
			    !string(&s, key, sizeof(key), &len))
				return ERR_PARSE;
			blanks(&s);
			if (s.p >= s.end || *s.p++ != ':' || !value(&s))
				return ERR_PARSE;
			if (len != SIZE_MAX)
				epoch_key(key, len, have, max, beyond);
			blanks(&s);
			if (s.p >= s.end)
				return ERR_PARSE;
			if (*s.p == '}') {
				s.p++;
				break;
			}
			if (*s.p++ != ',')
				return ERR_PARSE;
		}
	}
	blanks(&s);
	return s.p == s.end ? ERR_OK : ERR_PARSE;
}
