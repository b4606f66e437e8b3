/*
 * Who a mail speaks for (issue 16): the one place that decides whether a
 * mail authenticates as DESIGN.md §5 asks, whether two addresses are one
 * person, and so whether a trailer is verified or a newer version may
 * take a staged patch's place.
 */
#ifndef BOT_TRUST_H
#define BOT_TRUST_H

#include <stdbool.h>

#include "parsers/config.h"
#include "parsers/mail.h"
#include "parsers/trailer.h"
#include "util/arena.h"

/*
 * NULL when m authenticates as auth.require asks: always with "none";
 * with "dkim" (the default, also for a NULL conf) only an aligned
 * dkim=pass in our MTA's topmost Authentication-Results.  Else a short
 * reason, for logs and transcripts.
 */
const char *trust_unauthenticated(
    struct arena *a, const struct config *conf, const struct mail *m);

/* Two addresses of one person: the same ignoring case, or joined by the
 * config's [mailmap] alias lines. */
bool trust_same_person(const struct config *conf, const char *x, const char *y);

/*
 * Whether a trailer a reply m gave is verified: its person sent it (the
 * trailer's address and m's From are one person) and m authenticates.  A
 * trailer naming no person (Fixes:) needs the authentication alone.
 * authenticated: trust_unauthenticated(m) was NULL.
 */
bool trust_trailer_verified(const struct config *conf, const struct mail *m,
    const struct trailer *t, bool authenticated);

#endif
