/*
 * The bisection's decisions (bot/tester/bisect.c), played against a
 * simulated stack: every position from the culprit on fails.  For a
 * 16-patch stack the first failing patch is found in at most 5 runs (the
 * tip and four halvings) plus the confirming run, wherever it is; with
 * several jobs in fewer rounds; a flaky verdict blames nobody; a broken
 * base blames nobody; what is already known is not run again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "bot/tester/bisect.h"

#define MAXN 64

struct sim {
	size_t n, culprit; /* 0: nothing fails */
	bool base_bad;
	size_t flaky; /* this position passes its second run */
	int results[MAXN + 1]; /* runs so far per position */
	struct bisect_pos pos[MAXN + 1];
	int runs, confirms, rounds;
};

static bool
fails(struct sim *s, size_t p)
{
	if (p == 0)
		return s->base_bad;
	if (p == s->flaky && s->results[p] >= 1)
		return false;
	return s->culprit && p >= s->culprit;
}

static void
run(struct sim *s, size_t p)
{
	bool bad = fails(s, p);

	s->pos[p].confirmed = bad && s->pos[p].known == BISECT_BAD;
	s->pos[p].known = bad ? BISECT_BAD : BISECT_GOOD;
	s->results[p]++;
}

/* Play target n to its end; the action it ends with. */
static enum bisect_action
play(struct sim *s, int jobs, size_t *culprit)
{
	struct bisect_step st;
	size_t i;

	for (;;) {
		bisect_next(s->pos, s->n, s->n, jobs, &st);
		switch (st.action) {
		case BISECT_RUN:
			assert_true(st.npoints >= 1);
			assert_true(st.npoints <= (size_t)jobs);
			for (i = 0; i < st.npoints; i++) {
				/* Never a position already known. */
				assert_int_equal(
				    s->pos[st.points[i]].known, BISECT_UNKNOWN);
				run(s, st.points[i]);
				s->runs++;
			}
			s->rounds++;
			break;
		case BISECT_CONFIRM:
			run(s, st.culprit);
			s->confirms++;
			break;
		case BISECT_BASE:
			run(s, 0);
			s->runs++;
			break;
		case BISECT_WAIT:
			fail_msg("nothing pending, yet told to wait");
			return BISECT_WAIT;
		default:
			*culprit = st.culprit;
			return st.action;
		}
	}
}

static void
sim_init(struct sim *s, size_t n, size_t culprit)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->culprit = culprit;
}

static void
test_sixteen_every_culprit(void **state)
{
	struct sim s;
	size_t c, got;

	(void)state;
	for (c = 2; c <= 16; c++) {
		sim_init(&s, 16, c);
		assert_int_equal(play(&s, 1, &got), BISECT_BLAME);
		assert_int_equal(got, c);
		assert_true(s.runs <= 5);
		assert_int_equal(s.confirms, 1);
	}
	/* The first patch: the base, assumed good, is tested once. */
	sim_init(&s, 16, 1);
	assert_int_equal(play(&s, 1, &got), BISECT_BLAME);
	assert_int_equal(got, 1);
	assert_true(s.runs <= 6);
	assert_int_equal(s.results[0], 1);
}

static void
test_middle_of_sixteen(void **state)
{
	struct sim s;
	size_t got;

	(void)state;
	/* Tip, then 8, 4, 6, 7 -- as git bisect would. */
	sim_init(&s, 16, 8);
	assert_int_equal(play(&s, 1, &got), BISECT_BLAME);
	assert_int_equal(got, 8);
	assert_int_equal(s.runs, 5);
	assert_int_equal(s.results[16], 1);
	assert_int_equal(s.results[8], 2); /* with the confirming run */
	assert_int_equal(s.results[4], 1);
	assert_int_equal(s.results[6], 1);
	assert_int_equal(s.results[7], 1);
}

static void
test_passes(void **state)
{
	struct sim s;
	size_t got;

	(void)state;
	sim_init(&s, 16, 0);
	assert_int_equal(play(&s, 1, &got), BISECT_PASSES);
	assert_int_equal(s.runs, 1);
	/* Known already: nothing runs. */
	assert_int_equal(play(&s, 1, &got), BISECT_PASSES);
	assert_int_equal(s.runs, 1);
}

static void
test_known_results_shorten(void **state)
{
	struct sim s;
	size_t got;

	(void)state;
	/* The last good tip was 12: only 13..16 are looked at. */
	sim_init(&s, 16, 14);
	s.pos[12].known = BISECT_GOOD;
	assert_int_equal(play(&s, 1, &got), BISECT_BLAME);
	assert_int_equal(got, 14);
	assert_true(s.runs <= 3);
	assert_int_equal(s.results[8], 0);
	/* Asked again with everything known: nothing more runs. */
	s.runs = s.confirms = 0;
	assert_int_equal(play(&s, 1, &got), BISECT_BLAME);
	assert_int_equal(s.runs + s.confirms, 0);
}

static void
test_jobs_take_fewer_rounds(void **state)
{
	struct sim s;
	size_t c, got;

	(void)state;
	for (c = 1; c <= 64; c++) {
		sim_init(&s, 64, c);
		assert_int_equal(play(&s, 3, &got), BISECT_BLAME);
		assert_int_equal(got, c);
		/* Quartering 64: the tip and 3 rounds. */
		assert_true(s.rounds <= 4);
	}
}

static void
test_flaky(void **state)
{
	struct sim s;
	size_t got;

	(void)state;
	/* Position 16 fails once and passes when run again: nobody is
	 * blamed and the tip passes. */
	sim_init(&s, 16, 0);
	s.flaky = 16;
	s.pos[16].known = BISECT_BAD;
	s.results[16] = 1;
	s.pos[15].known = BISECT_GOOD;
	assert_int_equal(play(&s, 1, &got), BISECT_PASSES);
	assert_int_equal(s.confirms, 1);
	/* A flaky verdict in the middle: bisection goes on above it. */
	sim_init(&s, 16, 12);
	s.flaky = 8;
	s.pos[16].known = BISECT_BAD;
	s.results[16] = 1;
	s.pos[8].known = BISECT_BAD;
	s.results[8] = 1;
	s.pos[7].known = BISECT_GOOD;
	assert_int_equal(play(&s, 1, &got), BISECT_BLAME);
	assert_int_equal(got, 12);
}

static void
test_base_fails(void **state)
{
	struct sim s;
	size_t got;

	(void)state;
	sim_init(&s, 8, 1);
	s.base_bad = true;
	assert_int_equal(play(&s, 1, &got), BISECT_BASE_FAILS);
	assert_int_equal(s.confirms, 0);
}

static void
test_pending_waits(void **state)
{
	struct bisect_pos pos[5];
	struct bisect_step st;

	(void)state;
	memset(pos, 0, sizeof(pos));
	pos[4].pending = true;
	bisect_next(pos, 4, 4, 1, &st);
	assert_int_equal(st.action, BISECT_WAIT);
	pos[4].pending = false;
	pos[4].known = BISECT_BAD;
	pos[2].pending = true;
	bisect_next(pos, 4, 4, 1, &st);
	assert_int_equal(st.action, BISECT_WAIT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sixteen_every_culprit),
		cmocka_unit_test(test_middle_of_sixteen),
		cmocka_unit_test(test_passes),
		cmocka_unit_test(test_known_results_shorten),
		cmocka_unit_test(test_jobs_take_fewer_rounds),
		cmocka_unit_test(test_flaky),
		cmocka_unit_test(test_base_fails),
		cmocka_unit_test(test_pending_waits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
