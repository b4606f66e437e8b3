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
/* "2026-12-03T06:53:51Z" */
enum err time_fmt_iso(char *out, size_t n, int64_t t);
/* Days-from-civil, for UTC conversions without the locale or TZ. */
int64_t time_from_civil(int y, int mon, int day, int h, int m, int s);

#endif
