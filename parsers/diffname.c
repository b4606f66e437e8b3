/*
 * File names in diff headers, after git's apply.c (v2.39):
 * unquote_c_style(), skip_tree_prefix(), git_header_name(),
 * find_name_common(), find_name_traditional(), has_epoch_timestamp(); and
 * quote_c_style() for output.
 */
#include "parsers/diffname.h"

#include <string.h>

#include "util/ascii.h"

/* git's isspace(): only these four (git-compat-util.h, sane_ctype). */
static bool
git_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool
is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/* The byte an escape letter stands for, or -1. */
static int
unescape(char c)
{
	static const char map[] = "a\ab\bt\tn\nv\vf\fr\r\"\"\\\\";
	size_t i;

	for (i = 0; i + 1 < sizeof(map); i += 2)
		if (map[i] == c)
			return (unsigned char)map[i + 1];
	return -1;
}

char *
diffname_unquote(
    struct arena *a, const char *s, const char *end, const char **endp)
{
	char *out = arena_alloc(a, (size_t)(end - s) + 1);
	const char *p = s + 1;
	size_t n = 0;

	for (; p < end && *p != '"'; p++) {
		char c = *p;

		if (c == '\n')
			return NULL;
		if (c == '\\') {
			int u;

			if (++p >= end)
				return NULL;
			u = unescape(*p);
			if (u >= 0) {
				c = (char)u;
			} else if (end - p >= 3 && p[0] >= '0' && p[0] <= '3' &&
			    is_octal(p[1]) && is_octal(p[2])) {
				c = (char)((p[0] - '0') << 6 |
				    (p[1] - '0') << 3 | (p[2] - '0'));
				p += 2;
			} else {
				return NULL;
			}
		}
		out[n++] = c;
	}
	if (p >= end)
		return NULL;
	out[n] = '\0';
	*endp = p + 1;
	return out;
}

/* Skip p_value leading components; NULL when there are not enough or
 * the path is absolute. */
static const char *
skip_dirs(int p_value, const char *s, size_t n)
{
	size_t i;

	if (p_value == 0)
		return (n && s[0] == '/') ? NULL : s;
	for (i = 0; i < n; i++) {
		if (s[i] == '/' && --p_value <= 0)
			return i == 0 ? NULL : s + i + 1;
	}
	return NULL;
}

/* A copy of s[0..n) with runs of '/' squashed (git's squash_slash()). */
static char *
path_copy(struct arena *a, const char *s, size_t n)
{
	char *out = arena_alloc(a, n + 1);
	size_t i, j = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '/' && j > 0 && out[j - 1] == '/')
			continue;
		out[j++] = s[i];
	}
	out[j] = '\0';
	return out;
}

/* Both names of the line quoted, or the first one. */
static const char *
git_header_quoted(struct arena *a, const char *s, const char *end)
{
	const char *second, *q, *f1, *f2;
	char *first = diffname_unquote(a, s, end, &second), *two;

	if (first == NULL)
		return NULL;
	f1 = skip_dirs(1, first, strlen(first));
	while (second < end && git_space(*second))
		second++;
	if (f1 == NULL || second >= end)
		return NULL;
	if (*second == '"') {
		two = diffname_unquote(a, second, end, &q);
		f2 = two ? skip_dirs(1, two, strlen(two)) : NULL;
		return f2 && strcmp(f1, f2) == 0 ? f1 : NULL;
	}
	f2 = skip_dirs(1, second, (size_t)(end - second));
	if (f2 == NULL || (size_t)(end - f2) != strlen(f1) ||
	    memcmp(f1, f2, strlen(f1)) != 0)
		return NULL;
	return f1;
}

const char *
diffname_git_header(struct arena *a, const char *s, const char *end)
{
	const char *name, *second, *q, *np;
	size_t len;
	char *two;

	if (s < end && *s == '"')
		return git_header_quoted(a, s, end);
	name = skip_dirs(1, s, (size_t)(end - s));
	if (name == NULL)
		return NULL;
	/* The first name is unquoted: a quote starts the second one. */
	q = memchr(name, '"', (size_t)(end - name));
	if (q != NULL) {
		two = diffname_unquote(a, q, end, &second);
		np = two ? skip_dirs(1, two, strlen(two)) : NULL;
		if (np == NULL)
			return NULL;
		len = strlen(np);
		if (len < (size_t)(q - name) && memcmp(np, name, len) == 0 &&
		    git_space(name[len]))
			return np;
		return NULL;
	}
	/* Accept a name only if it shows up twice in exactly the same form. */
	for (len = 0; name + len < end; len++) {
		if (name[len] != ' ' && name[len] != '\t')
			continue;
		second = skip_dirs(
		    1, name + len + 1, (size_t)(end - (name + len + 1)));
		if (second && (size_t)(end - second) == len &&
		    memcmp(name, second, len) == 0)
			return path_copy(a, name, len);
	}
	return NULL;
}

bool
diffname_dev_null(const char *s, const char *end)
{
	return (size_t)(end - s) >= 9 && memcmp(s, "/dev/null", 9) == 0 &&
	    (s + 9 == end || git_space(s[9]));
}

const char *
diffname_find(struct arena *a, const char *s, const char *end, int p_value)
{
	const char *t, *q;

	if (s < end && *s == '"') {
		char *u = diffname_unquote(a, s, end, &q);

		if (u != NULL) {
			t = skip_dirs(p_value, u, strlen(u));
			return t && *t ? path_copy(a, t, strlen(t)) : NULL;
		}
	}
	q = memchr(s, '\t', (size_t)(end - s));
	if (q != NULL)
		end = q;
	t = skip_dirs(p_value, s, (size_t)(end - s));
	if (t == NULL || t == end)
		return NULL;
	return path_copy(a, t, (size_t)(end - t));
}

/* Start of the blank-separated word that ends at end. */
static const char *
word_start(const char *s, const char *end)
{
	while (end > s && end[-1] != ' ' && end[-1] != '\t')
		end--;
	return end;
}

static const char *
skip_blanks_back(const char *s, const char *end)
{
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return end;
}

/* p[0..n) matches pat, where '9' stands for any digit. */
static bool
match_digits(const char *p, size_t n, const char *pat)
{
	size_t i;

	if (n != strlen(pat))
		return false;
	for (i = 0; i < n; i++)
		if (pat[i] == '9' ? !ascii_isdigit(p[i]) : p[i] != pat[i])
			return false;
	return true;
}

/*
 * Length of a trailing "YYYY-MM-DD HH:MM:SS[.frac][ +zone]" with its
 * leading blanks, as GNU and POSIX diff write it after the name; 0 when
 * there is none (a simpler form of git's diff_timestamp_len()).
 */
static size_t
trailing_date_len(const char *s, const char *end)
{
	const char *w = word_start(s, end), *e = end, *dot, *p;

	if (w < end && (*w == '+' || *w == '-') &&
	    (match_digits(w + 1, (size_t)(end - w - 1), "9999") ||
	        match_digits(w + 1, (size_t)(end - w - 1), "99:99"))) {
		e = skip_blanks_back(s, w);
		w = word_start(s, e);
	}
	dot = memchr(w, '.', (size_t)(e - w));
	if (!match_digits(w, (size_t)((dot ? dot : e) - w), "99:99:99"))
		return 0;
	if (dot != NULL) {
		for (p = dot + 1; p < e && ascii_isdigit(*p); p++)
			;
		if (p == dot + 1 || p != e)
			return 0;
	}
	e = skip_blanks_back(s, w);
	w = word_start(s, e);
	if (e == w || !match_digits(w, (size_t)(e - w), "9999-99-99"))
		return 0;
	e = skip_blanks_back(s, w);
	return e < w && e > s ? (size_t)(end - e) : 0;
}

const char *
diffname_traditional(struct arena *a, const char *s, const char *end,
    const char *def, int p_value)
{
	const char *t = NULL, *q;
	size_t date, n, deflen;

	if (s < end && *s == '"') {
		char *u = diffname_unquote(a, s, end, &q);

		if (u != NULL) {
			t = skip_dirs(p_value, u, strlen(u));
			if (t && *t)
				return path_copy(a, t, strlen(t));
			/* Nothing left of the quoted name ("a/"): t points
			 * into the copy, not into s, and must not be used
			 * below (tests/fixtures/regress/diff/). */
			t = NULL;
		}
	}
	date = trailing_date_len(s, end);
	if (date)
		end -= date;
	else if ((q = memchr(s, '\t', (size_t)(end - s))) != NULL)
		end = q;
	if (p_value == 0)
		t = s;
	for (q = s; p_value > 0 && q < end; q++)
		if (*q == '/' && --p_value == 0)
			t = q + 1;
	if (t == NULL || t == end)
		return def;
	n = (size_t)(end - t);
	/* Prefer the shorter name when the other only adds a suffix
	 * ("file.orig", "file~"), as git does. */
	deflen = def ? strlen(def) : 0;
	if (def && deflen < n && memcmp(t, def, deflen) == 0)
		return def;
	return path_copy(a, t, n);
}

/* Two digits at *pp, advanced past them; -1 when not digits. */
static int
two_digits(const char **pp, const char *end)
{
	const char *p = *pp;

	if (end - p < 2 || !ascii_isdigit(p[0]) || !ascii_isdigit(p[1]))
		return -1;
	*pp = p + 2;
	return (p[0] - '0') * 10 + (p[1] - '0');
}

bool
diffname_epoch(const char *s, const char *end)
{
	const char *t = NULL, *p;
	int epoch_hour, hour, minute, zh, zm, sign;

	for (p = s; p < end; p++)
		if (*p == '\t')
			t = p + 1;
	if (t == NULL || end - t < 11)
		return false;
	if (memcmp(t, "1969-12-31 ", 11) == 0)
		epoch_hour = 24;
	else if (memcmp(t, "1970-01-01 ", 11) == 0)
		epoch_hour = 0;
	else
		return false;
	p = t + 11;
	hour = two_digits(&p, end);
	if (hour < 0 || p >= end || *p++ != ':')
		return false;
	minute = two_digits(&p, end);
	if (minute < 0 || end - p < 3 || memcmp(p, ":00", 3) != 0)
		return false;
	p += 3;
	if (p < end && *p == '.')
		for (p++; p < end && *p == '0'; p++)
			;
	if (end - p < 6 || p[0] != ' ' || (p[1] != '+' && p[1] != '-'))
		return false;
	sign = p[1] == '-' ? -1 : 1;
	p += 2;
	zh = two_digits(&p, end);
	if (p < end && *p == ':')
		p++;
	zm = two_digits(&p, end);
	if (zh < 0 || zm < 0 || p != end)
		return false;
	return hour * 60 + minute - sign * (zh * 60 + zm) == epoch_hour * 60;
}

/* git quotes control characters, '"', '\\', DEL and every non-ASCII
 * byte (core.quotePath's default). */
static bool
needs_quote(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\' || c >= 0x7f;
}

/* The escape letter git writes for c, or 0 for octal. */
static char
escape_letter(unsigned char c)
{
	static const char map[] = "\aa\bb\tt\nn\vv\ff\rr\"\"\\\\";
	size_t i;

	for (i = 0; i + 1 < sizeof(map); i += 2)
		if ((unsigned char)map[i] == c)
			return map[i + 1];
	return 0;
}

size_t
diffname_quoted_len(const char *path)
{
	const unsigned char *p;
	size_t n = 0;
	bool quote = false;

	for (p = (const unsigned char *)path; *p; p++) {
		if (!needs_quote(*p)) {
			n++;
			continue;
		}
		quote = true;
		n += escape_letter(*p) ? 2 : 4;
	}
	return quote ? n + 2 : n;
}

void
diffname_quote(struct buf *out, const char *path)
{
	const unsigned char *p;

	if (diffname_quoted_len(path) == strlen(path)) {
		buf_adds(out, path);
		return;
	}
	buf_addc(out, '"');
	for (p = (const unsigned char *)path; *p; p++) {
		char l = needs_quote(*p) ? escape_letter(*p) : 0;

		if (!needs_quote(*p))
			buf_addc(out, (char)*p);
		else if (l)
			buf_addf(out, "\\%c", l);
		else
			buf_addf(out, "\\%03o", *p);
	}
	buf_addc(out, '"');
}
