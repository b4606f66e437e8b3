/*
 * Unit tests of storage/store_web.c: the one summary query behind list,
 * / and /api/contributions, its filters and paging, A/R/T and the test
 * state, against the demo's mail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "storage/store_outbox.h"
#include "storage/store_read.h"
#include "storage/store_web.h"
#include "util/timeutil.h"
#include "webtest.h"

static struct webtest w;

static int
setup(void **state)
{
	(void)state;
	return webtest_setup(&w);
}

static int
teardown(void **state)
{
	(void)state;
	return webtest_teardown(&w);
}

/* The ids f selects, as "3 1 2" (with "+" when more follow). */
static const char *
ids(const struct store_filter *f)
{
	static char out[128];
	struct arena *a = arena_new();
	struct store_summary *s = NULL;
	size_t n = 0, i, k = 0;
	bool more = false;

	assert_int_equal(
	    store_web_summaries(w.st, a, f, &s, &n, &more), ERR_OK);
	out[0] = '\0';
	for (i = 0; i < n; i++)
		k += (size_t)snprintf(out + k, sizeof(out) - k, "%s%lld",
		    i ? " " : "", (long long)s[i].id);
	if (more)
		snprintf(out + k, sizeof(out) - k, "+");
	arena_free(a);
	return out;
}

static void
test_order_and_fields(void **state)
{
	struct arena *a = arena_new();
	struct store_summary *s = NULL;
	struct store_filter f;
	int64_t *list = NULL;
	size_t n = 0, nl = 0, i;
	bool more;

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(
	    store_web_summaries(w.st, a, &f, &s, &n, &more), ERR_OK);
	assert_int_equal(store_read_list(w.st, 0, &list, &nl), ERR_OK);
	assert_int_equal(n, nl);
	assert_false(more);
	for (i = 0; i < n; i++) {
		struct view_contrib c;

		/* The same order as the contribution list, and the same
		 * state and counts as show computes them. */
		assert_int_equal(s[i].id, list[i]);
		assert_int_equal(
		    store_read_contrib(w.st, a, s[i].id, false, &c), ERR_OK);
		assert_int_equal(s[i].state, store_read_state(&c));
		assert_string_equal(s[i].title, c.newest->title);
		assert_int_equal(s[i].version, c.newest->version);
		assert_int_equal(s[i].expected, c.newest->expected);
		assert_int_equal(s[i].patch_count, c.newest->received);
		assert_string_equal(
		    s[i].submitter_email, c.newest->submitter_email);
		assert_string_equal(s[i].project, "frob");
		assert_true(s[i].posted > 0);
		assert_int_equal(s[i].last_activity, c.activity);
		assert_null(s[i].test_state);
	}
	assert_string_equal(ids(&f), "3 1 2");
	/* Ada's series: Mia's ack on v2 3/3; her review of the cover
	 * carried to 1 and 2 by patch-id, Bob's on 2 (unverified); Tom's
	 * test of 2.  Bob's patch: Mia's ack.  Carol's: Tom's review. */
	assert_int_equal(s[1].acks, 1);
	assert_int_equal(s[1].reviews, 3);
	assert_int_equal(s[1].tests, 1);
	assert_int_equal(s[2].acks, 1);
	assert_int_equal(s[2].reviews + s[2].tests, 0);
	assert_int_equal(s[0].acks + s[0].tests, 0);
	assert_int_equal(s[0].reviews, 1);
	free(list);
	arena_free(a);
}

static void
test_filters(void **state)
{
	struct store_filter f;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.state = "staged";
	assert_string_equal(ids(&f), "1");
	f.state = "new";
	assert_string_equal(ids(&f), "3 2");
	f.state = "merged";
	assert_string_equal(ids(&f), "");
	f.state = "partial";
	assert_string_equal(ids(&f), "");
	f.state = NULL;
	f.submitter = "ADA@example.ORG";
	assert_string_equal(ids(&f), "1");
	f.submitter = "ada@example"; /* an address must be whole */
	assert_string_equal(ids(&f), "");
	f.submitter = "carol";
	assert_string_equal(ids(&f), "3");
	f.submitter = NULL;
	f.q = "TYPO";
	assert_string_equal(ids(&f), "2");
	f.q = "%";
	assert_string_equal(ids(&f), "");
	f.q = NULL;
	f.since = time_from_civil(2026, 11, 6, 10, 0, 0);
	assert_string_equal(ids(&f), "3 1");
	f.since = 0;
	f.project = "frob";
	assert_string_equal(ids(&f), "3 1 2");
	f.project = "nope";
	assert_string_equal(ids(&f), "");
	f.project = NULL;
	f.id = 2;
	assert_string_equal(ids(&f), "2");
}

static void
test_paging(void **state)
{
	struct store_filter f;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.limit = 1;
	assert_string_equal(ids(&f), "3+");
	f.offset = 1;
	assert_string_equal(ids(&f), "1+");
	f.limit = 2;
	assert_string_equal(ids(&f), "1 2");
	f.offset = 3;
	assert_string_equal(ids(&f), "");
}

/* The test state is the latest check's (by time) of the newest series. */
static void
test_test_state(void **state)
{
	struct arena *a = arena_new();
	struct store_summary *s = NULL;
	struct store_filter f;
	struct view_contrib c;
	struct store_check k;
	const char *states[] = { "fail", "success", "pending" };
	int64_t times[] = { 100, 300, 200 };
	size_t n, i;
	bool more;

	(void)state;
	assert_int_equal(store_read_contrib(w.st, a, 1, false, &c), ERR_OK);
	assert_int_equal(store_begin(w.st), ERR_OK);
	for (i = 0; i < 3; i++) {
		memset(&k, 0, sizeof(k));
		k.patch_id = c.newest->patches[0].id;
		k.series_id = c.newest->id;
		k.context = "ci/build";
		k.state = states[i];
		k.time = times[i];
		assert_int_equal(store_check_add(w.st, &k), ERR_OK);
	}
	assert_int_equal(store_commit(w.st), ERR_OK);
	memset(&f, 0, sizeof(f));
	f.id = 1;
	assert_int_equal(
	    store_web_summaries(w.st, a, &f, &s, &n, &more), ERR_OK);
	assert_int_equal(n, 1);
	assert_string_equal(s[0].test_state, "success");
	arena_free(a);
}

static void
test_events_and_stamps(void **state)
{
	struct arena *a = arena_new();
	struct store_web_event *ev = NULL;
	struct store_web_stamp *st = NULL;
	size_t n = 0, i;

	(void)state;
	assert_int_equal(store_web_events(w.st, a, 0, 1000, &ev, &n), ERR_OK);
	assert_true(n > 5);
	for (i = 1; i < n; i++)
		assert_true(ev[i].id > ev[i - 1].id);
	assert_int_equal(
	    store_web_events(w.st, a, ev[n - 1].id, 10, &ev, &n), ERR_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_web_feed(w.st, a, 1, 50, &ev, &n), ERR_OK);
	assert_true(n >= 3);
	for (i = 0; i < n; i++)
		assert_int_equal(ev[i].contribution_id, 1);
	assert_string_equal(model_event_name(ev[0].kind), "staged");
	assert_int_equal(store_web_stamps(w.st, a, &st, &n), ERR_OK);
	assert_int_equal(n, 3);
	assert_true(st[0].event > 0 && st[0].message > 0);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_fields),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_paging),
		cmocka_unit_test(test_test_state),
		cmocka_unit_test(test_events_and_stamps),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
