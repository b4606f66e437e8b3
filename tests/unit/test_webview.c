/*
 * Unit tests of bot/web/webview.c: the contribution page's rules.  Which
 * trailers a patch lists and how each is marked (verified, not checked,
 * not sent by the person named, no mark), reviews counted once per
 * person; the discussion in thread order; the timeline in the order
 * things happened.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bot/web/webview.h"
#include "testutil.h"

static struct view_trailer
tr(const char *name, const char *value, const char *email, const char *from,
    bool verified, bool own)
{
	struct view_trailer t;

	memset(&t, 0, sizeof(t));
	t.name = name;
	t.value = value;
	t.email = email;
	t.from_email = from;
	t.verified = verified;
	t.own = own;
	t.message_id = "m@x";
	return t;
}

static struct config conf;
static struct arena *arena;

static int
setup(void **state)
{
	const char *text = "[core]\n\tdatabase = /nonexistent/db\n"
	                   "[project \"p\"]\n\tlist = p@lists.example.org\n"
	                   "[mailmap]\n\talias = Tom Tester <tom@work.example>"
	                   " <tom@home.example>\n";
	struct config_error *errs = NULL;
	size_t nerrs = 0;

	(void)state;
	arena = arena_new();
	return config_parse(arena, "t.conf", text, strlen(text), &conf, &errs,
	           &nerrs) == ERR_OK
	    ? 0
	    : -1;
}

static int
teardown(void **state)
{
	(void)state;
	arena_free(arena);
	return 0;
}

static void
test_trailer_rules(void **state)
{
	struct view_trailer t[] = {
		/* The patch's own commit message. */
		tr("Signed-off-by", "Ada <ada@x.org>", "ada@x.org", "ada@x.org",
		    true, true),
		tr("Cc", "Carl <carl@x.org>", "carl@x.org", "ada@x.org", true,
		    true),
		tr("Fixes", "abc123 (\"a: b\")", NULL, "ada@x.org", true, true),
		/* A review the author wrote for someone else: a claim. */
		tr("Reviewed-by", "Xavier <xav@x.org>", "xav@x.org",
		    "ada@x.org", false, true),
		/* Rita's ack from Rita, and Mia restating it. */
		tr("Acked-by", "Mia's copy <RITA@x.org>", "RITA@x.org",
		    "mia@x.org", false, false),
		tr("Acked-by", "Rita <rita@x.org>", "rita@x.org", "rita@x.org",
		    true, false),
		/* Tom from another address of his, without proof. */
		tr("Tested-by", "Tom <tom@work.example>", "tom@work.example",
		    "tom@home.example", false, false),
		/* Rob twice, under two names, without proof: once. */
		tr("reviewed-by", "R. Rob <ROB@x.org>", "ROB@x.org",
		    "rob@x.org", false, false),
		tr("Reviewed-by", "Rob <rob@x.org>", "rob@x.org", "rob@x.org",
		    false, false),
		/* A reply's Fixes: listed, no mark. */
		tr("Fixes", "def456", NULL, "rob@x.org", false, false),
		tr("Nacked-by", "Nick <nick@x.org>", "nick@x.org", "nick@x.org",
		    false, false),
		/* An ack sent by a stranger. */
		tr("Acked-by", "Linus <linus@x.org>", "linus@x.org",
		    "eve@x.org", false, false),
	};
	struct view_patch p;
	bool want_listed[] = { false, false, false, true, false, true, true,
		true, false, true, true, true };
	enum webview_mark want_mark[] = { WEBVIEW_PLAIN, WEBVIEW_PLAIN,
		WEBVIEW_PLAIN, WEBVIEW_NOT_THEIRS, WEBVIEW_NOT_THEIRS,
		WEBVIEW_VERIFIED, WEBVIEW_UNCHECKED, WEBVIEW_UNCHECKED,
		WEBVIEW_UNCHECKED, WEBVIEW_PLAIN, WEBVIEW_UNCHECKED,
		WEBVIEW_NOT_THEIRS };
	int counts[WEBVIEW_NREVIEWS];
	size_t i;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.trailers = t;
	p.ntrailers = sizeof(t) / sizeof(t[0]);
	for (i = 0; i < p.ntrailers; i++) {
		if (webview_trailer_listed(&p, i) != want_listed[i])
			fail_msg("trailer %zu: listed %d", i, !want_listed[i]);
		if (webview_trailer_mark(&conf, &t[i]) != want_mark[i])
			fail_msg("trailer %zu: mark %d, want %d", i,
			    webview_trailer_mark(&conf, &t[i]), want_mark[i]);
	}
	webview_review_counts(&p, counts);
	assert_int_equal(counts[0], 2); /* Acked-by: Rita, Linus */
	assert_int_equal(counts[1], 2); /* Reviewed-by: Xavier, Rob */
	assert_int_equal(counts[2], 1); /* Tested-by */
	assert_int_equal(counts[3] + counts[4], 0);
	assert_int_equal(counts[5], 1); /* Nacked-by */
	assert_true(webview_is_review("SUGGESTED-BY"));
	assert_true(webview_is_review("Reported-by"));
	assert_false(webview_is_review("Signed-off-by"));
	assert_false(webview_is_review("Co-developed-by"));
	assert_false(webview_is_review("Cc"));
	assert_string_equal(
	    webview_mark_words(WEBVIEW_UNCHECKED), "not checked");
	assert_string_equal(webview_mark_words(WEBVIEW_NOT_THEIRS),
	    "not sent by the person named");
	assert_string_equal(webview_mark_words(WEBVIEW_VERIFIED), "verified");
	assert_string_equal(webview_mark_words(WEBVIEW_PLAIN), "");
}

/* The verified copy stands for a trailer whatever the order; without
 * one the first does. */
static void
test_trailer_once(void **state)
{
	struct view_trailer t[] = {
		tr("Acked-by", "Rita <rita@x.org>", "rita@x.org", "rita@x.org",
		    true, false),
		tr("Acked-by", "Rita <rita@x.org>", "rita@x.org", "mia@x.org",
		    false, false),
	};
	struct view_patch p;
	int counts[WEBVIEW_NREVIEWS];

	(void)state;
	memset(&p, 0, sizeof(p));
	p.trailers = t;
	p.ntrailers = 2;
	assert_true(webview_trailer_listed(&p, 0));
	assert_false(webview_trailer_listed(&p, 1));
	webview_review_counts(&p, counts);
	assert_int_equal(counts[0], 1);
	t[0].verified = false;
	assert_true(webview_trailer_listed(&p, 0));
	assert_false(webview_trailer_listed(&p, 1));
	webview_review_counts(&p, counts);
	assert_int_equal(counts[0], 1);
}

static struct webview_msg
msg(const char *id, const char *parent, int64_t date, bool root, size_t home)
{
	struct webview_msg m;

	memset(&m, 0, sizeof(m));
	m.msgid = id;
	m.parent = parent;
	m.date = date;
	m.id = date;
	m.root = root;
	m.home = home;
	return m;
}

static const char *
thread(const struct webview_msg *m, size_t n)
{
	static char out[256];
	struct webview_place p[32];
	size_t k = webview_thread(m, n, p), i, at = 0;

	out[0] = '\0';
	for (i = 0; i < k; i++)
		at += (size_t)snprintf(out + at, sizeof(out) - at, "%s%s/%s:%d",
		    i ? " " : "", m[p[i].msg].msgid,
		    p[i].root == WEBVIEW_NOWHERE ? "-" : m[p[i].root].msgid,
		    p[i].depth);
	return out;
}

static void
test_thread_order(void **state)
{
	/* A cover and two patches; replies in the order they arrived,
	 * not in thread order; one whose parent was never stored (home:
	 * patch 2), two in a loop (the first goes home, the other still
	 * answers it), one from nowhere. */
	struct webview_msg m[] = {
		msg("c", NULL, 10, true, WEBVIEW_NOWHERE),
		msg("p1", "c", 11, true, WEBVIEW_NOWHERE),
		msg("p2", "c", 12, true, WEBVIEW_NOWHERE),
		msg("r3", "r1", 40, false, 1), /* answers r1 */
		msg("r1", "p1", 20, false, 1),
		msg("r2", "p1", 30, false, 1),
		msg("r4", "r3", 50, false, 1),
		msg("r5", "r1", 35, false, 1), /* before r3 */
		msg("r6", "lost", 25, false, 2),
		msg("b", "c", 15, false, 0),
		msg("x", "y", 60, false, 2),
		msg("y", "x", 61, false, 2),
		msg("z", "nothing", 5, false, WEBVIEW_NOWHERE),
	};

	(void)state;
	assert_string_equal(thread(m, sizeof(m) / sizeof(m[0])),
	    "b/c:1 r1/p1:1 r5/p1:2 r3/p1:2 r4/p1:3 r2/p1:1 r6/p2:1 x/p2:1 "
	    "y/p2:2 z/-:1");
	/* Roots only: nothing. */
	assert_string_equal(thread(m, 3), "");
	/* Equal dates: as stored. */
	m[3] = msg("r3", "p1", 20, false, 1);
	m[3].id = 19;
	assert_string_equal(thread(m, 5), "r3/p1:1 r1/p1:1");
}

static void
test_timeline_order(void **state)
{
	struct webview_entry e[] = {
		{ 300, WEBVIEW_EVENT, 7, 0 }, /* staged */
		{ 100, WEBVIEW_EVENT, 1, 1 }, /* posted v1 */
		{ 300, WEBVIEW_MAIL, 9, 2 }, /* the stage command */
		{ 200, WEBVIEW_MAIL, 4, 3 }, /* a review of v1 */
		{ 150, WEBVIEW_EVENT, 3, 4 }, /* posted v2 */
		{ 300, WEBVIEW_EVENT, 6, 5 }, /* check, before staged */
		{ 120, WEBVIEW_MAIL, 2, 6 },
	};
	size_t want[] = { 1, 6, 4, 3, 2, 5, 0 }, i;

	(void)state;
	webview_timeline_sort(e, sizeof(e) / sizeof(e[0]));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(e[i].index, want[i]);
}

/* The bot's own mail is automated, From its address (any case) and one
 * the outbox sent; a header anyone can write makes no one else's. */
static void
test_bots_own(void **state)
{
	(void)state;
	assert_true(
	    webview_bots_own(&conf, MAIL_BOT, "patchyard@localhost", true));
	assert_true(
	    webview_bots_own(&conf, MAIL_BOT, "PatchYard@LocalHost", true));
	assert_false(
	    webview_bots_own(&conf, MAIL_BOT, "patchyard@localhost", false));
	assert_false(
	    webview_bots_own(&conf, MAIL_BOT, "ci@lab.example.org", true));
	assert_false(webview_bots_own(&conf, MAIL_BOT, NULL, true));
	assert_false(
	    webview_bots_own(&conf, MAIL_REPLY, "patchyard@localhost", true));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trailer_rules),
		cmocka_unit_test(test_trailer_once),
		cmocka_unit_test(test_thread_order),
		cmocka_unit_test(test_timeline_order),
		cmocka_unit_test(test_bots_own),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
