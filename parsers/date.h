/*
 * The Date: header (RFC 5322 §3.3, with the obsolete forms of §4.3 that
 * real mail still carries: two-digit years, named zones, missing seconds
 * or day names, comments, odd spacing).
 */
#ifndef PARSERS_DATE_H
#define PARSERS_DATE_H

#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

/* Seconds since the epoch (UTC) and the zone in minutes east of UTC. */
enum err date_parse(struct str s, int64_t *t, int *tz_min);

#endif
