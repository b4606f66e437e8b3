/* Time: seconds since the epoch (UTC) and the formats mail and JSON use. */
#ifndef UTIL_TIMEUTIL_H
#define UTIL_TIMEUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

int64_t time_now(void);
/* Monotonic seconds, for measuring. */
double time_mono(void);
/* "Thu, 03 Dec 2026 06:53:51 +0000" (RFC 5322), tz_min east of UTC. */
enum err time_fmt_rfc5322(char *out, size_t n, int64_t t, int tz_min);
/* "2026-12-03 07:53:51 +0100", git's %ci, tz_min east of UTC. */
enum err time_fmt_git(char *out, size_t n, int64_t t, int tz_min);
/* "2026-12-03T06:53:51Z" */
enum err time_fmt_iso(char *out, size_t n, int64_t t);
/* "2026-12-03" */
enum err time_fmt_date(char *out, size_t n, int64_t t);
/* How long before now t was, in words: "just now", "5 minutes ago",
 * "3 days ago", "2 years ago"; "in the future" after now. */
enum err time_fmt_ago(char *out, size_t n, int64_t t, int64_t now);
/*
 * Parse an ISO 8601 date or UTC time as people type it: "2026-12-03",
 * "2026-12-03T06:53", "2026-12-03T06:53:51Z" (a space for the T and a
 * missing Z are accepted).  ERR_PARSE for anything else.
 */
enum err time_parse_iso(const char *s, int64_t *t);
/* Days-from-civil, for UTC conversions without the locale or TZ. */
int64_t time_from_civil(int y, int mon, int day, int h, int m, int s);

#endif
