/* `patchyard am`: a series as an mbox ready for `git am`, with the
 * trailers collected from replies added after the existing ones. */
#ifndef BOT_AM_H
#define BOT_AM_H

#include <stdio.h>

#include "parsers/config.h"
#include "storage/store.h"
#include "storage/store_read.h"
#include "util/buf.h"

/* Which collected trailers go into the commits. */
enum am_trailers {
	/* Verified ones only (issue 16: the person named sent it, in a
	 * mail that authenticates): what leaves patchyard for a tree. */
	AM_VERIFIED,
	/* Those b4 am takes: the sender's address (or one alike) or the
	 * sender's display name; for a maintainer's own `am`. */
	AM_AS_B4
};

/* The mbox of one series into out, with the trailers which asks. */
enum err am_series(struct store *st, const struct config *conf,
    const struct view_series *s, enum am_trailers which, struct buf *out);

/* Series s of contribution c into out, a partial re-roll completed from
 * its older versions as b4 does (what am_write writes for REF), with the
 * trailers which asks. */
enum err am_mbox(struct store *st, const struct config *conf,
    const struct view_contrib *c, const struct view_series *s,
    enum am_trailers which, struct buf *out);

/* REF's newest series (or, for a patch or cover Message-ID, its series)
 * to f, a partial re-roll completed from its older versions as b4 does;
 * returns the exit status. */
int am_write(struct store *st, const struct config *conf, const char *ref,
    enum am_trailers which, FILE *f);

#endif
