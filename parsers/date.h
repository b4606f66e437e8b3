/*
 * The Date: header (RFC 5322 §3.3, with the obsolete forms of §4.3 that
 * real mail still carries: two-digit years, named zones, missing seconds
 * or day names, comments, odd spacing).
 *
 * The zone is read as git reads it (date.c, parse_date_basic: what `git
 * am` gives a commit), so that a staged commit's author date equals git
 * am's: "+hhmm", "+hh" and "+hh:mm" with hh < 24 and mm < 60 (later ones
 * win), git's table of names (GMT, EST, CEST, JST, "Z"...; a numeric zone
 * beats a name), a bare four-digit number up to 1400; RFC 5322's "UT" is
 * UTC.  Where git would fall back to the local zone of the machine it
 * runs on ("+530", "IST", military letters, no zone at all), the time is
 * taken as UTC and DATE_ZONE_UNKNOWN says so, for the caller to log.
 */
#ifndef PARSERS_DATE_H
#define PARSERS_DATE_H

#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

enum date_flag {
	/* The zone was missing or not understood: taken as UTC. */
	DATE_ZONE_UNKNOWN = 1 << 0,
};

/*
 * Seconds since the epoch (UTC) and the zone in minutes east of UTC;
 * *flags (when not NULL) gets enum date_flag bits.  ERR_PARSE when there
 * is no valid day, month, year (1970 and later) and time.
 */
enum err date_parse(struct str s, int64_t *t, int *tz_min, unsigned *flags);

#endif
