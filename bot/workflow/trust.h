/*
 * Who a mail speaks for (docs/DESIGN.md §5): the one place that decides how a
 * mail authenticates — a DKIM signature or a developer signature that
 * patchyard verifies itself, or the header of a relay the road it came
 * by names — whether two addresses are one person, and so whether a
 * trailer is verified.  The verdict is taken once, as a mail arrives,
 * and stored with it (message.auth): later decisions read it there.
 */
#ifndef BOT_TRUST_H
#define BOT_TRUST_H

#include <stdbool.h>
#include <stddef.h>

#include "parsers/config.h"
#include "parsers/mail.h"
#include "parsers/trailer.h"
#include "util/arena.h"
#include "util/buf.h"

/* The road a mail came by. */
struct trust_road {
	/* The relay whose topmost Authentication-Results is believed:
	 * auth.authserv-id for `ingest` (our MTA), a source's authserv-id;
	 * NULL: no header is believed (import, an archive naming none). */
	const char *authserv_id;
	/* false for `import`: no key is looked up and no signature checked,
	 * so that bulk imports keep their speed; its mail stays
	 * unauthenticated. */
	bool verify;
};

struct trust;

struct trust *trust_new(const struct config *conf);
void trust_free(struct trust *t);

/*
 * How mail m (raw[0..n)) authenticates: *proof is "dkim d=<domain>",
 * "patatt i=<address>", "relay <authserv-id>" or "none required"
 * (auth.require = none), in the arena; NULL when it does not, with
 * *note saying why.  A mail with two From, Sender, Date or Subject
 * headers never authenticates.  A DKIM key is looked up in DNS, seconds
 * a signature when it does not answer: call it with no transaction
 * open (trust_may_wait()).  Two threads may judge at once, each with
 * its own arena.
 */
void trust_judge(struct trust *t, struct arena *a,
    const struct trust_road *road, const struct mail *m, const char *raw,
    size_t n, const char **proof, const char **note);

/*
 * May trust_judge() wait for m: does it look up a DKIM key (in DNS, or
 * in auth.dkim-keys, which stands for DNS)?  false only when it surely
 * does not; the rest of the judgement (relay headers, developer
 * signatures against the keyring) is local and quick.
 */
bool trust_may_wait(
    const struct trust *t, const struct trust_road *road, const struct mail *m);

/* Two addresses of one person: the same ignoring case, or joined by the
 * config's [mailmap] alias lines.  The one test of identity: every
 * comparison of who someone is goes through it. */
bool trust_same_person(const struct config *conf, const char *x, const char *y);

/*
 * Does email maintain project (docs/DESIGN.md §5)?  files: the paths a
 * command touches, one a line, each of which the person's path patterns
 * must cover (a [maintainer] without path covers everything); NULL: the
 * whole project, which only a maintainer without path patterns holds.
 * Returns whether the person maintains anything in project; what their
 * patterns leave out is appended to *outside (", " between; "all of
 * PROJECT" for the whole project).
 */
bool trust_maintains(const struct config *conf, const char *project,
    const char *email, const char *files, struct buf *outside);

/* Is email one of the [ci] addresses? */
bool trust_ci(const struct config *conf, const char *email);

/*
 * Whether a trailer a mail from from_email gave is verified: its person
 * sent it (the trailer's address and the sender are one person) and the
 * mail authenticated.  A trailer naming no person (Fixes:) needs the
 * authentication alone.
 */
bool trust_trailer_verified(const struct config *conf, const char *from_email,
    const struct trailer *t, bool authenticated);

#endif
