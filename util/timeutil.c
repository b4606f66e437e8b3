#include "util/timeutil.h"

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

int64_t
time_now(void)
{
	return (int64_t)time(NULL);
}

double
time_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Howard Hinnant's days_from_civil: proleptic Gregorian, any year. */
int64_t
time_from_civil(int y, int mon, int day, int h, int m, int s)
{
	int64_t era, yoe, doy, doe, days;

	y -= mon <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (mon + (mon > 2 ? -3 : 9)) + 2) / 5 + day - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	days = era * 146097 + doe - 719468;
	return days * 86400 + h * 3600 + m * 60 + s;
}

static void
civil(int64_t t, struct tm *tm)
{
	time_t tt = (time_t)t;

	gmtime_r(&tt, tm);
}

enum err
time_fmt_rfc5322(char *out, size_t n, int64_t t, int tz_min)
{
	static const char *const wd[] = { "Sun", "Mon", "Tue", "Wed", "Thu",
		"Fri", "Sat" };
	static const char *const mo[] = { "Jan", "Feb", "Mar", "Apr", "May",
		"Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct tm tm;
	int r, off = tz_min < 0 ? -tz_min : tz_min;

	civil(t + (int64_t)tz_min * 60, &tm);
	r = snprintf(out, n, "%s, %02d %s %04d %02d:%02d:%02d %c%02d%02d",
	    wd[tm.tm_wday], tm.tm_mday, mo[tm.tm_mon], tm.tm_year + 1900,
	    tm.tm_hour, tm.tm_min, tm.tm_sec, tz_min < 0 ? '-' : '+', off / 60,
	    off % 60);
	return (r < 0 || (size_t)r >= n) ? ERR_LIMIT : ERR_OK;
}

enum err
time_fmt_git(char *out, size_t n, int64_t t, int tz_min)
{
	struct tm tm;
	int r, off = tz_min < 0 ? -tz_min : tz_min;

	civil(t + (int64_t)tz_min * 60, &tm);
	r = snprintf(out, n, "%04d-%02d-%02d %02d:%02d:%02d %c%02d%02d",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
	    tm.tm_sec, tz_min < 0 ? '-' : '+', off / 60, off % 60);
	return (r < 0 || (size_t)r >= n) ? ERR_LIMIT : ERR_OK;
}

enum err
time_fmt_iso(char *out, size_t n, int64_t t)
{
	struct tm tm;
	int r;

	civil(t, &tm);
	r = snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
	    tm.tm_sec);
	return (r < 0 || (size_t)r >= n) ? ERR_LIMIT : ERR_OK;
}

enum err
time_fmt_date(char *out, size_t n, int64_t t)
{
	struct tm tm;
	int r;

	civil(t, &tm);
	r = snprintf(out, n, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1,
	    tm.tm_mday);
	return (r < 0 || (size_t)r >= n) ? ERR_LIMIT : ERR_OK;
}

enum err
time_fmt_ago(char *out, size_t n, int64_t t, int64_t now)
{
	static const struct {
		int64_t secs;
		const char *unit;
	} units[] = {
		{ 365 * 86400, "year" },
		{ 30 * 86400, "month" },
		{ 7 * 86400, "week" },
		{ 86400, "day" },
		{ 3600, "hour" },
		{ 60, "minute" },
	};
	int64_t d = now - t;
	size_t i;
	int r = -1;

	if (d < -300)
		r = snprintf(out, n, "in the future");
	else if (d < 60)
		r = snprintf(out, n, "just now");
	for (i = 0; r < 0 && i < sizeof(units) / sizeof(units[0]); i++) {
		int64_t k = d / units[i].secs;

		if (k >= 1)
			r = snprintf(out, n, "%lld %s%s ago", (long long)k,
			    units[i].unit, k == 1 ? "" : "s");
	}
	return (r < 0 || (size_t)r >= n) ? ERR_LIMIT : ERR_OK;
}

/* Exactly w digits at *p, advancing it. */
static bool
digits(const char **p, int w, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < w; i++) {
		if ((*p)[i] < '0' || (*p)[i] > '9')
			return false;
		*v = *v * 10 + ((*p)[i] - '0');
	}
	*p += w;
	return true;
}

enum err
time_parse_iso(const char *s, int64_t *t)
{
	int y, mo, d, h = 0, mi = 0, sec = 0;
	const char *p = s;

	if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) ||
	    *p++ != '-' || !digits(&p, 2, &d))
		return ERR_PARSE;
	if (*p == 'T' || *p == ' ') {
		p++;
		if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi))
			return ERR_PARSE;
		if (*p == ':' && (p++, !digits(&p, 2, &sec)))
			return ERR_PARSE;
		if (*p == 'Z')
			p++;
	}
	if (*p != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 60)
		return ERR_PARSE;
	*t = time_from_civil(y, mo, d, h, mi, sec);
	return ERR_OK;
}
