#include "bot/tester/bisect.h"

#include <string.h>

static void
run_one(struct bisect_step *out, size_t p)
{
	out->action = BISECT_RUN;
	out->points[0] = p;
	out->npoints = 1;
}

/* The first failing patch is in (good, bad]: narrow it down. */
static void
narrow(const struct bisect_pos *pos, size_t good, size_t bad, int jobs,
    struct bisect_step *out)
{
	size_t width = bad - good, k, i;

	for (i = good + 1; i < bad; i++)
		if (pos[i].pending) {
			out->action = BISECT_WAIT;
			return;
		}
	/* k points split (good, bad) into k + 1 nearly equal parts; one
	 * point is the middle, as git bisect takes it. */
	k = (size_t)(jobs > BISECT_MAX_POINTS ? BISECT_MAX_POINTS : jobs);
	if (k > width - 1)
		k = width - 1;
	out->action = BISECT_RUN;
	for (i = 1; i <= k; i++)
		out->points[out->npoints++] = good + width * i / (k + 1);
}

static void
verdict(const struct bisect_pos *pos, size_t good, size_t culprit,
    struct bisect_step *out)
{
	out->culprit = culprit;
	if (culprit == 1 && good == 0 && pos[0].known != BISECT_GOOD) {
		if (pos[0].known == BISECT_BAD) {
			out->action = BISECT_BASE_FAILS;
			return;
		}
		out->action = pos[0].pending ? BISECT_WAIT : BISECT_BASE;
		return;
	}
	if (!pos[culprit].confirmed) {
		out->action =
		    pos[culprit].pending ? BISECT_WAIT : BISECT_CONFIRM;
		return;
	}
	out->action = BISECT_BLAME;
}

void
bisect_next(const struct bisect_pos *pos, size_t n, size_t target, int jobs,
    struct bisect_step *out)
{
	size_t good = 0, bad, i;

	memset(out, 0, sizeof(*out));
	if (target < 1 || target > n || jobs < 1) {
		out->action = BISECT_WAIT;
		return;
	}
	out->good = 0;
	out->bad = target;
	switch (pos[target].known) {
	case BISECT_UNKNOWN:
		if (pos[target].pending)
			out->action = BISECT_WAIT;
		else
			run_one(out, target);
		return;
	case BISECT_GOOD:
		out->action = BISECT_PASSES;
		return;
	case BISECT_BAD:
		break;
	}
	for (i = 1; i < target; i++)
		if (pos[i].known == BISECT_GOOD)
			good = i;
	for (bad = good + 1; pos[bad].known != BISECT_BAD; bad++)
		;
	out->good = good;
	out->bad = bad;
	if (bad - good > 1)
		narrow(pos, good, bad, jobs, out);
	else
		verdict(pos, good, bad, out);
}
