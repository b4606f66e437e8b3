/*
 * Subject tags as git format-patch, b4 and people write them:
 * "[PATCH v3 2/7]", "[RFC PATCH net-next v2 0/3]", "[PATCH 2/7 v3]",
 * "[PATCHv2]", "[PATCH RESEND]", Mercurial's "[PATCH 1 of 2]", "[GIT PULL]",
 * and reply/forward chains "Re: RE: Aw: Fwd:" (also "Re[2]:").
 */
#ifndef PARSERS_SUBJECT_H
#define PARSERS_SUBJECT_H

#include <stdbool.h>

#include "util/arena.h"
#include "util/buf.h"

struct subject {
	bool reply; /* a Re:/Aw:/Sv:/Antw: ... prefix */
	bool forward; /* a Fwd:/Fw: prefix */
	bool patch; /* a [PATCH ...] tag */
	bool rfc; /* RFC anywhere in the tags */
	bool resend; /* RESEND in the tags */
	bool pull; /* [GIT PULL] or [PULL] */
	int version; /* v2 -> 2; 1 when absent */
	bool versioned; /* a version was written */
	int number; /* 2 of "2/7"; 0 when absent */
	int total; /* 7 of "2/7"; 0 when absent; may be below number */
	const char *tags; /* words of all leading [..] groups, "" if none */
	const char *title; /* without prefixes and tags, blanks collapsed */
};

/* s is the decoded, unfolded Subject. */
void subject_parse(struct arena *a, struct str s, struct subject *out);

/*
 * The title normalised for matching versions and upstream commits: ASCII
 * lower case, blanks collapsed, a trailing period removed.
 */
const char *subject_norm(struct arena *a, const char *title);

#endif
