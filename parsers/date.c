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

/* A run of letters, lower-cased into out (cut to max - 1); returns its
 * whole length. */
static size_t
word(struct cursor *c, char *out, size_t max)
{
	size_t n = 0, len = 0;

	while (c->p < c->end && ascii_isalpha(*c->p)) {
		if (n + 1 < max)
			out[n++] = ascii_tolower(*c->p);
		c->p++;
		len++;
	}
	out[n] = '\0';
	return len;
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

/*
 * git's table of zone names (date.c, timezone_names: summer time is one
 * hour more), with RFC 5322's "UT".  Names are matched whole, ignoring
 * case.
 */
static bool
named_zone(const char *w, int *tz)
{
	static const struct {
		const char *name;
		signed char hours, dst;
	} z[] = { { "idlw", -12, 0 }, { "nt", -11, 0 }, { "cat", -10, 0 },
		{ "hst", -10, 0 }, { "hdt", -10, 1 }, { "yst", -9, 0 },
		{ "ydt", -9, 1 }, { "pst", -8, 0 }, { "pdt", -8, 1 },
		{ "mst", -7, 0 }, { "mdt", -7, 1 }, { "cst", -6, 0 },
		{ "cdt", -6, 1 }, { "est", -5, 0 }, { "edt", -5, 1 },
		{ "ast", -3, 0 }, { "adt", -3, 1 }, { "wat", -1, 0 },
		{ "gmt", 0, 0 }, { "utc", 0, 0 }, { "ut", 0, 0 }, { "z", 0, 0 },
		{ "wet", 0, 0 }, { "bst", 0, 1 }, { "cet", 1, 0 },
		{ "met", 1, 0 }, { "mewt", 1, 0 }, { "mest", 1, 1 },
		{ "cest", 1, 1 }, { "mesz", 1, 1 }, { "fwt", 1, 0 },
		{ "fst", 1, 1 }, { "eet", 2, 0 }, { "eest", 2, 1 },
		{ "wast", 7, 0 }, { "wadt", 7, 1 }, { "cct", 8, 0 },
		{ "jst", 9, 0 }, { "east", 10, 0 }, { "eadt", 10, 1 },
		{ "gst", 10, 0 }, { "nzt", 12, 0 }, { "nzst", 12, 0 },
		{ "nzdt", 12, 1 }, { "idle", 12, 0 } };
	size_t i;

	for (i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
		if (strcmp(w, z[i].name) == 0) {
			*tz = (z[i].hours + z[i].dst) * 60;
			return true;
		}
	}
	return false;
}

/*
 * A signed zone at c->p ('+' or '-' and a digit), as git's match_tz():
 * "hhmm", "hh" or "hh:mm"; *tz is set only when hh < 24 and mm < 60.
 */
static bool
signed_zone(struct cursor *c, int *tz)
{
	int sign = *c->p == '-' ? -1 : 1, hh, mm = 0, n, nm;

	c->p++;
	number(c, 9, &hh, &n);
	while (c->p < c->end && ascii_isdigit(*c->p)) {
		c->p++; /* more digits than any zone: junk */
		n = 9;
	}
	if (n == 4) {
		mm = hh % 100;
		hh /= 100;
	} else if (n != 2) {
		return false;
	} else if (c->p < c->end && *c->p == ':') {
		c->p++;
		if (!number(c, 2, &mm, &nm) || nm != 2 ||
		    (c->p < c->end && ascii_isdigit(*c->p)))
			return false;
	}
	if (hh >= 24 || mm >= 60)
		return false;
	*tz = sign * (hh * 60 + mm);
	return true;
}

/*
 * The zone: what follows the time, read as git reads the rest of a date
 * (comments are not special to it: "(CEST)" names a zone when nothing
 * better does).  Returns false when no zone was understood.
 */
static bool
zone(struct cursor *c, int *tz, unsigned *flags)
{
	bool numeric = false, named = false;
	int v, n;
	char w[8];

	*tz = 0;
	while (c->p < c->end) {
		char ch = *c->p;

		if ((ch == '+' || ch == '-') && c->p + 1 < c->end &&
		    ascii_isdigit(c->p[1])) {
			if (signed_zone(c, &v)) {
				*tz = v;
				numeric = true;
			} else {
				*flags |= DATE_ZONE_UNKNOWN;
			}
		} else if (ascii_isalpha(ch)) {
			if (word(c, w, sizeof(w)) < sizeof(w) && !numeric &&
			    !named && named_zone(w, &v)) {
				*tz = v;
				named = true;
			}
		} else if (ascii_isdigit(ch)) {
			/* git takes a bare "hhmm" up to 1400 for a zone. */
			number(c, 9, &v, &n);
			if (n == 4 && v <= 1400 && !numeric && !named) {
				*tz = v / 100 * 60 + v % 100;
				numeric = true;
			}
			while (c->p < c->end && ascii_isdigit(*c->p))
				c->p++;
		} else {
			c->p++;
		}
	}
	if (numeric || named)
		return true;
	*flags |= DATE_ZONE_UNKNOWN;
	return false;
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
date_parse(struct str s, int64_t *t, int *tz_min, unsigned *flags)
{
	struct cursor c = { s.p, s.p + s.n };
	char w[16];
	int day, mon, year, hh, mm, ss = 0, nd, tz;
	unsigned fl = 0;

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
	if (!zone(&c, &tz, &fl))
		tz = 0;
	if (year < 1970 || year > 9999 || day < 1 ||
	    day > days_in_month(year, mon) || hh > 23 || mm > 59 || ss > 60)
		return ERR_PARSE;
	*t = time_from_civil(year, mon, day, hh, mm, ss) - (int64_t)tz * 60;
	*tz_min = tz;
	if (flags)
		*flags = fl;
	return ERR_OK;
}
