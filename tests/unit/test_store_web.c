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

#include "bot/workflow/ingest.h"
#include "storage/store_outbox.h"
#include "storage/store_patch.h"
#include "storage/store_read.h"
#include "storage/store_run.h"
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

/* Search: words in any order, of the titles of contributions and
 * patches, of submitters and authors, and Message-IDs; each word the
 * start of one. */
static void
test_search(void **state)
{
	struct store_filter f;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.q = "lookups widget";
	assert_string_equal(ids(&f), "1");
	f.q = "table HASH"; /* a patch's title, words reversed */
	assert_string_equal(ids(&f), "1");
	f.q = "Lovelace Ada";
	assert_string_equal(ids(&f), "1");
	f.q = "kern";
	assert_string_equal(ids(&f), "3");
	f.q = "20261107080000.4000-2-carol@example.org";
	assert_string_equal(ids(&f), "3");
	f.q = "<20261106080000.3000-1-bob@example.net>";
	assert_string_equal(ids(&f), "2");
	f.q = "frob";
	assert_string_equal(ids(&f), "3 1");
	f.q = "frob typo";
	assert_string_equal(ids(&f), "");
	f.q = "zyzzyva quixotry";
	assert_string_equal(ids(&f), "");
	/* Nothing an index holds, or the query language's own signs:
	 * nothing found, no error. */
	f.q = "% -";
	assert_string_equal(ids(&f), "");
	f.q = "\"typo\" OR NEAR(x";
	assert_string_equal(ids(&f), "");
	f.q = "typo\"";
	assert_string_equal(ids(&f), "2");
	f.state = "new";
	f.q = "frob";
	assert_string_equal(ids(&f), "3");
}

static const char *
match(const char *q)
{
	static struct buf b;

	buf_free(&b);
	store_web_match(q, &b);
	return buf_cstr(&b);
}

static void
test_match(void **state)
{
	(void)state;
	assert_string_equal(match("entry  tenth"), "\"entry\"* \"tenth\"*");
	assert_string_equal(match(" a\"b\t"), "\"a\"\"b\"*");
	assert_string_equal(match("- % ()"), "");
	assert_string_equal(match("x AND y*"), "\"x\"* \"AND\"* \"y*\"*");
	assert_string_equal(
	    match("\xc3\xa9t\xc3\xa9"), "\"\xc3\xa9t\xc3\xa9\"*");
	assert_string_equal(match(""), "");
	/* Each word costs a walk of the index (a one-letter prefix, of
	 * every token it starts): a word again is not asked again, and
	 * the words past LIMIT_SEARCH_WORDS are not asked at all. */
	assert_string_equal(match("a A a b a"), "\"a\"* \"b\"*");
	assert_string_equal(match("a b c d e f g h i j k"),
	    "\"a\"* \"b\"* \"c\"* \"d\"* \"e\"* \"f\"* \"g\"* \"h\"*");
}

static void
add_check(const struct view_series *sr, int64_t patch, const char *context,
    const char *st, int64_t time)
{
	struct store_check k;

	memset(&k, 0, sizeof(k));
	k.patch_id = patch;
	k.series_id = sr->id;
	k.context = context;
	k.state = st;
	k.time = time;
	assert_int_equal(store_check_add(w.st, &k), ERR_OK);
}

static const char *
test_state_of(int64_t id)
{
	static char out[16];
	struct arena *a = arena_new();
	struct store_summary *s = NULL;
	struct store_filter f;
	size_t n;
	bool more;

	memset(&f, 0, sizeof(f));
	f.id = id;
	assert_int_equal(
	    store_web_summaries(w.st, a, &f, &s, &n, &more), ERR_OK);
	assert_int_equal(n, 1);
	snprintf(
	    out, sizeof(out), "%s", s[0].test_state ? s[0].test_state : "-");
	arena_free(a);
	return out;
}

/* The test state is the worst of the latest result (by time) of each
 * context on each patch of the newest series: a newer success of one
 * context hides no failure of another. */
static void
test_test_state(void **state)
{
	struct arena *a = arena_new();
	struct view_contrib c;
	const struct view_series *sr;
	int64_t p1, p2;

	(void)state;
	assert_int_equal(store_read_contrib(w.st, a, 1, false, &c), ERR_OK);
	sr = c.newest;
	p1 = sr->patches[0].id;
	p2 = sr->patches[1].id;
	assert_string_equal(test_state_of(1), "-");
	assert_int_equal(store_begin(w.st), ERR_OK);
	add_check(sr, p1, "ci/build", "fail", 100);
	add_check(sr, p1, "ci/build", "success", 300);
	add_check(sr, p1, "ci/build", "pending", 200);
	assert_int_equal(store_commit(w.st), ERR_OK);
	assert_string_equal(test_state_of(1), "success");
	/* An older failure of another context is not hidden. */
	assert_int_equal(store_begin(w.st), ERR_OK);
	add_check(sr, p1, "ci/lint", "fail", 50);
	assert_int_equal(store_commit(w.st), ERR_OK);
	assert_string_equal(test_state_of(1), "fail");
	assert_int_equal(store_begin(w.st), ERR_OK);
	add_check(sr, p1, "ci/lint", "success", 60);
	assert_int_equal(store_commit(w.st), ERR_OK);
	assert_string_equal(test_state_of(1), "success");
	/* Each patch's latest counts; a warning beats a pending. */
	assert_int_equal(store_begin(w.st), ERR_OK);
	add_check(sr, p2, "ci/build", "pending", 400);
	assert_int_equal(store_commit(w.st), ERR_OK);
	assert_string_equal(test_state_of(1), "pending");
	assert_int_equal(store_begin(w.st), ERR_OK);
	add_check(sr, 0, "ci/series", "warning", 10);
	assert_int_equal(store_commit(w.st), ERR_OK);
	assert_string_equal(test_state_of(1), "warning");
	/* Equal times: the later check is the latest. */
	assert_int_equal(store_begin(w.st), ERR_OK);
	add_check(sr, p2, "ci/build", "fail", 400);
	assert_int_equal(store_commit(w.st), ERR_OK);
	assert_string_equal(test_state_of(1), "fail");
	arena_free(a);
}

/* A/R/T count each person once per patch, whatever name they sign. */
static void
test_art_per_person(void **state)
{
	struct arena *a = arena_new();
	struct store_summary *s = NULL;
	struct store_filter f;
	struct view_contrib c;
	struct store_trailer t;
	size_t n;
	bool more;

	(void)state;
	assert_int_equal(store_read_contrib(w.st, a, 2, false, &c), ERR_OK);
	assert_int_equal(store_begin(w.st), ERR_OK);
	memset(&t, 0, sizeof(t));
	t.patch_id = c.newest->patches[0].id;
	t.message_id = c.newest->patches[0].message_row;
	t.name = "Acked-by";
	t.value = "M. Maintainer <MIA@frob.example.org>";
	t.email = "MIA@frob.example.org";
	assert_int_equal(store_patch_trailer_add(w.st, &t), ERR_OK);
	assert_int_equal(store_commit(w.st), ERR_OK);
	memset(&f, 0, sizeof(f));
	f.id = 2;
	assert_int_equal(
	    store_web_summaries(w.st, a, &f, &s, &n, &more), ERR_OK);
	assert_int_equal(s[0].acks, 1);
	assert_int_equal(s[0].series_count, 1);
	assert_int_equal(store_begin(w.st), ERR_OK);
	t.value = "Otto Other <otto@example.org>";
	t.email = "otto@example.org";
	assert_int_equal(store_patch_trailer_add(w.st, &t), ERR_OK);
	assert_int_equal(store_commit(w.st), ERR_OK);
	assert_int_equal(
	    store_web_summaries(w.st, a, &f, &s, &n, &more), ERR_OK);
	assert_int_equal(s[0].acks, 2);
	arena_free(a);
}

/* `status` counts contributions by state as the list filters them,
 * an older copy of a patch sent again left out of both. */
static void
test_status_agrees(void **state)
{
	struct arena *a = arena_new();
	struct store_status stt;
	struct store_filter f;
	size_t i, total = 0;

	(void)state;
	webtest_ingest(&w, NULL,
	    "From: Bob Builder <bob@example.net>\n"
	    "Subject: [PATCH RESEND] README: fix a typo\n"
	    "Message-ID: <resend.3000-1-bob@example.net>\n"
	    "In-Reply-To: <20261106080000.3000-1-bob@example.net>\n"
	    "References: <20261106080000.3000-1-bob@example.net>\n"
	    "Date: Fri, 06 Nov 2026 09:00:00 +0000\n"
	    "To: frob@lists.example.org\n\n"
	    "teh -> the.\n\n"
	    "Signed-off-by: Bob Builder <bob@example.net>\n"
	    "---\n"
	    "diff --git a/README b/README\n"
	    "--- a/README\n"
	    "+++ b/README\n"
	    "@@ -1,2 +1,2 @@\n"
	    " The frobnicator frobnicates widgets.\n"
	    "-It is teh best.\n"
	    "+It is the best.\n");
	assert_int_equal(store_status_read(w.st, a, time_now(), &stt), ERR_OK);
	for (i = 0; i < stt.nstates; i++) {
		struct store_summary *s = NULL;
		size_t n = 0;
		bool more;

		memset(&f, 0, sizeof(f));
		f.state = stt.states[i].name;
		assert_int_equal(
		    store_web_summaries(w.st, a, &f, &s, &n, &more), ERR_OK);
		assert_int_equal((int64_t)n, stt.states[i].n);
		total += n;
	}
	assert_int_equal(total, 3);
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
		cmocka_unit_test(test_search),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_test_state),
		cmocka_unit_test(test_art_per_person),
		cmocka_unit_test(test_status_agrees),
		cmocka_unit_test(test_events_and_stamps),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
