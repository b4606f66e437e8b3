#include "parsers/date.h"

#include <string.h>

#include "util/ascii.h"
#include "util/timeutil.h"

struct cursor {
	const char *p, *end;
};

/* Skip blanks, commas and (nested) comments. */
static void
skip_cfws(struct cursor *c)
{
	int depth = 0;

	while (c->p < c->end) {
		char ch = *c->p;

		if (depth == 0 && (ascii_isspace(ch) || ch == ',')) {
			c->p++;
		} else if (ch == '(') {
			depth++;
			c->p++;
		} else if (depth > 0) {
			if (ch == ')')
				depth--;
			else if (ch == '\\' && c->p + 1 < c->end)
				c->p++;
			c->p++;
		} else {
			break;
		}
	}
}

static bool
number(struct cursor *c, int maxdigits, int *v, int *ndigits)
{
	int n = 0, x = 0;

	while (c->p < c->end && ascii_isdigit(*c->p) && n < maxdigits) {
		x = x * 10 + (*c->p - '0');
		c->p++;
		n++;
	}
	if (ndigits)
		*ndigits = n;
	*v = x;
	return n > 0;
}

static size_t
word(struct cursor *c, char *out, size_t max)
{
	size_t n = 0;

	while (c->p < c->end && ascii_isalpha(*c->p)) {
		if (n + 1 < max)
			out[n++] = ascii_tolower(*c->p);
		c->p++;
	}
	out[n] = '\0';
	return n;
}

static int
month(const char *w)
{
	static const char *const m[] = { "jan", "feb", "mar", "apr", "may",
		"jun", "jul", "aug", "sep", "oct", "nov", "dec" };
	int i;

	for (i = 0; i < 12; i++)
		if (strncmp(w, m[i], 3) == 0)
			return i + 1;
	return 0;
}

/* Named zones of RFC 5322 §4.3; military zones are treated as UTC, as
 * the RFC advises. */
static bool
named_zone(const char *w, int *tz)
{
	static const struct {
		const char *name;
		int min;
	} z[] = { { "ut", 0 }, { "utc", 0 }, { "gmt", 0 }, { "z", 0 },
		{ "est", -300 }, { "edt", -240 }, { "cst", -360 },
		{ "cdt", -300 }, { "mst", -420 }, { "mdt", -360 },
		{ "pst", -480 }, { "pdt", -420 }, { "cet", 60 },
		{ "cest", 120 }, { "bst", 60 }, { "ist", 330 },
		{ "jst", 540 } };
	size_t i;

	for (i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
		if (strcmp(w, z[i].name) == 0) {
			*tz = z[i].min;
			return true;
		}
	}
	if (strlen(w) == 1) {
		*tz = 0;
		return true;
	}
	return false;
}

static bool
zone(struct cursor *c, int *tz)
{
	char w[8];

	skip_cfws(c);
	*tz = 0;
	if (c->p < c->end && (*c->p == '+' || *c->p == '-')) {
		int sign = *c->p == '-' ? -1 : 1, v, nd;

		c->p++;
		if (!number(c, 4, &v, &nd) || nd != 4)
			return nd > 0 ? (*tz = sign * (v / 100 * 60), true)
			              : false;
		if (v / 100 > 23 || v % 100 > 59)
			return false;
		*tz = sign * (v / 100 * 60 + v % 100);
		return true;
	}
	if (word(c, w, sizeof(w)) == 0)
		return true; /* no zone at all: UTC */
	return named_zone(w, tz);
}

static int
days_in_month(int y, int m)
{
	static const int d[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
		31 };
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : d[m - 1];
}

enum err
date_parse(struct str s, int64_t *t, int *tz_min)
{
	struct cursor c = { s.p, s.p + s.n };
	char w[16];
	int day, mon, year, hh, mm, ss = 0, nd, tz;

	skip_cfws(&c);
	/* An optional day name. */
	if (c.p < c.end && ascii_isalpha(*c.p)) {
		word(&c, w, sizeof(w));
		skip_cfws(&c);
	}
	if (!number(&c, 2, &day, NULL))
		return ERR_PARSE;
	skip_cfws(&c);
	if (c.p < c.end && *c.p == '-')
		c.p++;
	if (word(&c, w, sizeof(w)) < 3 || (mon = month(w)) == 0)
		return ERR_PARSE;
	skip_cfws(&c);
	if (c.p < c.end && *c.p == '-')
		c.p++;
	if (!number(&c, 4, &year, &nd))
		return ERR_PARSE;
	if (nd <= 2)
		year += year < 50 ? 2000 : 1900;
	else if (nd == 3)
		year += 1900;
	skip_cfws(&c);
	if (!number(&c, 2, &hh, NULL) || c.p >= c.end || *c.p != ':')
		return ERR_PARSE;
	c.p++;
	if (!number(&c, 2, &mm, NULL))
		return ERR_PARSE;
	if (c.p < c.end && *c.p == ':') {
		c.p++;
		if (!number(&c, 2, &ss, NULL))
			return ERR_PARSE;
	}
	if (!zone(&c, &tz))
		return ERR_PARSE;
	if (year < 1970 || year > 9999 || day < 1 ||
	    day > days_in_month(year, mon) || hh > 23 || mm > 59 || ss > 60)
		return ERR_PARSE;
	*t = time_from_civil(year, mon, day, hh, mm, ss) - (int64_t)tz * 60;
	*tz_min = tz;
	return ERR_OK;
}
