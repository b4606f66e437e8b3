/* Unit tests of parsers/model.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "parsers/model.h"

/* Every value has a name, the names differ, and each parses back. */
static void
test_round_trip(void **state)
{
	int i, j;

	(void)state;
	for (i = 0; i < MODEL_NSTATES; i++) {
		enum model_state s = MODEL_NSTATES;

		assert_non_null(model_state_name(i));
		assert_true(model_state_parse(model_state_name(i), &s));
		assert_int_equal(s, i);
		for (j = 0; j < i; j++)
			assert_string_not_equal(
			    model_state_name(i), model_state_name(j));
	}
	for (i = QUEUE_NONE + 1; i < MODEL_NQUEUES; i++) {
		enum model_queue q = QUEUE_NONE;

		assert_non_null(model_queue_name(i));
		assert_true(model_queue_parse(model_queue_name(i), &q));
		assert_int_equal(q, i);
	}
	for (i = REASON_NONE + 1; i < MODEL_NREASONS; i++) {
		enum model_reason r = REASON_NONE;

		assert_non_null(model_reason_name(i));
		assert_true(model_reason_parse(model_reason_name(i), &r));
		assert_int_equal(r, i);
		for (j = REASON_NONE + 1; j < i; j++)
			assert_string_not_equal(
			    model_reason_name(i), model_reason_name(j));
	}
	for (i = 0; i < MODEL_NEVENTS; i++) {
		enum model_event k = MODEL_NEVENTS;

		assert_non_null(model_event_name(i));
		assert_true(model_event_parse(model_event_name(i), &k));
		assert_int_equal(k, i);
		for (j = 0; j < i; j++)
			assert_string_not_equal(
			    model_event_name(i), model_event_name(j));
	}
}

/* The names are the database's and the JSON's: they never change. */
static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(model_state_name(STATE_NEW), "new");
	assert_string_equal(
	    model_state_name(STATE_CHANGES_REQUESTED), "changes-requested");
	assert_string_equal(model_state_name(STATE_PARTIAL), "partial");
	assert_string_equal(model_queue_name(QUEUE_UNSTABLE), "unstable");
	assert_string_equal(model_queue_name(QUEUE_STABLE), "stable");
	assert_string_equal(
	    model_reason_name(REASON_TO_BE_UPDATED), "to-be-updated");
	assert_string_equal(model_reason_name(REASON_EXACT), "exact");
	assert_string_equal(
	    model_event_name(EVENT_EARLIER_MERGED), "earlier-merged");
	assert_string_equal(model_event_name(EVENT_VERSION_FROM_OTHER_SENDER),
	    "version-from-other-sender");
	assert_string_equal(
	    model_event_name(EVENT_COMMAND_REPLY), "command-reply");
}

/* None is NULL both ways; anything else is refused and leaves *out. */
static void
test_none_and_unknown(void **state)
{
	enum model_state s = STATE_STAGED;
	enum model_queue q = QUEUE_STABLE;
	enum model_reason r = REASON_NACKED;
	enum model_event k = EVENT_CHECK;

	(void)state;
	assert_null(model_queue_name(QUEUE_NONE));
	assert_null(model_reason_name(REASON_NONE));
	assert_null(model_state_name(MODEL_NSTATES));
	assert_null(model_queue_name(MODEL_NQUEUES));
	assert_null(model_reason_name(MODEL_NREASONS));
	assert_null(model_event_name(MODEL_NEVENTS));
	assert_null(model_event_name((enum model_event) - 1));
	assert_true(model_queue_parse(NULL, &q));
	assert_int_equal(q, QUEUE_NONE);
	assert_true(model_reason_parse(NULL, &r));
	assert_int_equal(r, REASON_NONE);
	r = REASON_NACKED;
	q = QUEUE_STABLE;
	assert_false(model_state_parse(NULL, &s));
	assert_false(model_event_parse(NULL, &k));
	assert_false(model_state_parse("Staged", &s));
	assert_false(model_state_parse("", &s));
	assert_false(model_queue_parse("none", &q));
	assert_false(model_reason_parse("nacked ", &r));
	assert_false(model_event_parse("frobbed", &k));
	assert_int_equal(s, STATE_STAGED);
	assert_int_equal(q, QUEUE_STABLE);
	assert_int_equal(r, REASON_NACKED);
	assert_int_equal(k, EVENT_CHECK);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_none_and_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
