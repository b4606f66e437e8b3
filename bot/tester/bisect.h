/*
 * What to test next for one test target of a stack of patches: the
 * decision alone, from what is known, with no I/O -- so that it can be
 * tested on its own, and so that a restart in the middle of a bisection
 * (everything known lives in the database) takes it up where it was.
 *
 * Positions: 0 is the base the stack is built on, 1..n the commits of
 * the stack, each holding the patches up to it.  A target t fails:
 * the first failing patch lies between the last position below t known
 * to pass (the base, assumed good unless known otherwise) and the first
 * position above that known to fail.  Bisection tests the middle of that
 * range until it is one patch wide -- or, with several jobs, as many
 * evenly spaced points at once (a multisection), which takes fewer
 * rounds.  Then the verdict is run once more before the patch is blamed:
 * a failure that then passes is flaky.  When the culprit is the first
 * patch on the base and the base was only assumed good, the base is
 * tested: a broken upstream must not cost the first patch its place.
 */
#ifndef BOT_TESTER_BISECT_H
#define BOT_TESTER_BISECT_H

#include <stdbool.h>
#include <stddef.h>

#define BISECT_MAX_POINTS 64 /* test.jobs is at most 64 */

enum bisect_known {
	BISECT_UNKNOWN,
	BISECT_GOOD,
	BISECT_BAD,
};

struct bisect_pos {
	enum bisect_known known; /* the latest result */
	bool pending; /* a run is queued or running */
	bool confirmed; /* the latest two results both failed */
};

enum bisect_action {
	BISECT_WAIT, /* what is pending decides: wait for it */
	BISECT_RUN, /* test points[0..npoints) */
	BISECT_CONFIRM, /* run the culprit once more */
	BISECT_BASE, /* test the base (position 0) */
	BISECT_PASSES, /* the target passes */
	BISECT_BLAME, /* culprit is the first failing patch, confirmed */
	BISECT_BASE_FAILS, /* the target fails, and so does its base */
};

struct bisect_step {
	enum bisect_action action;
	size_t good, bad; /* the range looked at: (good, bad] */
	size_t culprit; /* CONFIRM, BASE, BLAME */
	size_t points[BISECT_MAX_POINTS];
	size_t npoints;
};

/* pos[0..n]: the base and the n positions; target in 1..n; jobs >= 1. */
void bisect_next(const struct bisect_pos *pos, size_t n, size_t target,
    int jobs, struct bisect_step *out);

#endif
