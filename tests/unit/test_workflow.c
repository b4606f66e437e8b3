/*
 * The rules of bot/workflow/ without a server: who may do what (a
 * maintainer, one limited to some paths, an author, a CI address, a
 * stranger), what each verb does to a patch, what the transcript and the
 * acknowledgments say and whom they go to, the reused Message-ID and
 * the claimed review the promotion policy must not count (test_promote.c
 * has the policy).  Mail goes in through ingest (the road of `patchyard
 * ingest` with auth.require = none: every mail authenticates, so the
 * rules alone decide) into a store in memory, and the outcome is read
 * from the views `show` prints (tests/unit/workflowtest.h).
 */
#include "tests/unit/workflowtest.h"

static const char conf_text[] =
    "[core]\n\tdatabase = unused\n"
    "[bot]\n\taddress = yard@bot.example.org\n"
    "[project \"demo\"]\n\tlist = demo@lists.example.org\n"
    "[maintainer \"mia\"]\n\temail = mia@maint.example.org\n"
    "[maintainer \"doc\"]\n\temail = doc@maint.example.org\n"
    "\tpath = doc/\n"
    "[ci \"lab\"]\n\temail = ci@lab.example.org\n"
    "[auth]\n\trequire = none\n"
    "[promote]\n\tmin-days = 0\n\tmin-reviews = 1\n"
    "\trequire-test = false\n";

/* The rules need no file: each test has a database in memory. */
static int
setup(void **state)
{
	struct wt *f = calloc(1, sizeof(*f));

	if (f == NULL || wt_open(f, conf_text, ":memory:") != 0)
		return -1;
	*state = f;
	return 0;
}

static void
test_maintainer_stages_and_drops(void **state)
{
	struct wt *f = *state;
	const char *p =
	    wt_patch(f, "Ada <ada@example.org>", "src/a.c", NULL, NULL);
	int n;

	wt_reply(f, p, "Mia <mia@maint.example.org>", "Good.\n\n#yard stage");
	assert_string_equal(wt_state_of(f, p), "staged");
	assert_string_equal(
	    model_queue_name(wt_the_patch(f, p)->queue), "unstable");
	wt_outbox_to(f, p, "command-reply", &n);
	assert_int_equal(n, 1);
	wt_reply(f, p, "Mia <mia@maint.example.org>", "#yard graduate");
	assert_string_equal(
	    model_queue_name(wt_the_patch(f, p)->queue), "stable");
	wt_reply(
	    f, p, "Mia <mia@maint.example.org>", "#yard drop nacked by Tom");
	assert_string_equal(wt_state_of(f, p), "dropped");
	assert_string_equal(
	    model_reason_name(wt_the_patch(f, p)->reason), "nacked");
}

static void
test_paths(void **state)
{
	struct wt *f = *state;
	const char *in =
	    wt_patch(f, "Ada <ada@example.org>", "doc/x.txt", NULL, NULL);
	const char *out =
	    wt_patch(f, "Ada <ada@example.org>", "src/a.c", NULL, NULL);
	const char *mv =
	    wt_patch(f, "Ada <ada@example.org>", "src/b.c", "doc/b.c", NULL);

	wt_reply(f, in, "Doc <doc@maint.example.org>", "#yard stage");
	assert_string_equal(wt_state_of(f, in), "staged");
	wt_reply(f, out, "Doc <doc@maint.example.org>", "#yard stage");
	assert_string_equal(wt_state_of(f, out), "new");
	assert_non_null(strstr(
	    wt_transcript(f), "you maintain none of these files: src/a.c"));
	/* Both sides of a rename are checked (issue 42). */
	wt_reply(f, mv, "Doc <doc@maint.example.org>", "#yard stage");
	assert_string_equal(wt_state_of(f, mv), "new");
	assert_non_null(strstr(wt_transcript(f), "src/b.c"));
}

static void
test_authors_and_strangers(void **state)
{
	struct wt *f = *state;
	const char *p =
	    wt_patch(f, "Ada <ada@example.org>", "src/a.c", NULL, NULL);

	wt_reply(f, p, "Mal <mallory@evil.example.net>", "#yard stage");
	assert_string_equal(wt_state_of(f, p), "new");
	wt_reply(f, p, "Ada <ada@example.org>", "#yard stage");
	assert_string_equal(wt_state_of(f, p), "new");
	assert_non_null(strstr(wt_transcript(f), "authors may withdraw"));
	wt_reply(f, p, "Mal <mallory@evil.example.net>", "#yard withdraw");
	assert_string_equal(wt_state_of(f, p), "new");
	wt_reply(f, p, "Ada <ada@example.org>", "#yard withdraw");
	assert_string_equal(wt_state_of(f, p), "dropped");
	assert_string_equal(
	    model_reason_name(wt_the_patch(f, p)->reason), "withdrawn");
}

static void
test_checks_only_from_ci(void **state)
{
	struct wt *f = *state;
	const char *p =
	    wt_patch(f, "Ada <ada@example.org>", "src/a.c", NULL, NULL);
	struct view_contrib *c;

	wt_reply(f, p, "Mia <mia@maint.example.org>", "#yard check build fail");
	wt_reply(f, p, "Lab <ci@lab.example.org>", "#yard check build success");
	c = wt_show(f, p);
	assert_int_equal(c->nchecks, 1);
	assert_string_equal(c->checks[0].state, "success");
}

static void
test_reused_message_id(void **state)
{
	struct wt *f = *state;
	const char *p =
	    wt_patch(f, "Ada <ada@example.org>", "src/a.c", NULL, NULL);
	/* Another mail under the same Message-ID: kept, flagged. */
	wt_ingest(f,
	    arena_printf(f->a,
	        "From: Mal <mallory@evil.example.net>\n"
	        "To: demo@lists.example.org\nSubject: [PATCH] other\n"
	        "Message-ID: <%s>\nDate: Mon, 7 Dec 2026 10:30:00 +0000\n\n"
	        "Other code.\n---\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n"
	        "@@ -1 +1 @@\n-a\n+b\n",
	        p));
	wt_reply(f, p, "Mia <mia@maint.example.org>", "#yard stage");
	assert_true(wt_the_patch(f, p)->msgid_reused);
	assert_string_equal(wt_state_of(f, p), "new");
	assert_non_null(strstr(wt_transcript(f), "names 2 different mails"));
}

static void
test_ack_recipients(void **state)
{
	struct wt *f = *state;
	const char *p = wt_patch(f, "Ada <ada@example.org>", "src/a.c", NULL,
	    "Cc: Carl <carl@example.org>\n");
	const char *to;
	int n;

	/* A stranger's reply names a victim: never mailed. */
	wt_reply(f, p, "Mal <mallory@evil.example.net>",
	    "Tested-by: Vic <victim@elsewhere.example>");
	wt_reply(
	    f, p, "Tom <tom@example.com>", "Tested-by: Tom <tom@example.com>");
	wt_reply(f, p, "Mia <mia@maint.example.org>", "#yard stage");
	to = wt_outbox_to(f, p, "staged", &n);
	assert_int_equal(n, 1);
	assert_non_null(strstr(to, "ada@example.org"));
	assert_non_null(strstr(to, "demo@lists.example.org"));
	assert_non_null(strstr(to, "carl@example.org"));
	assert_non_null(strstr(to, "tom@example.com"));
	assert_null(strstr(to, "victim@elsewhere.example"));
	assert_null(strstr(to, "yard@bot.example.org"));
}

static void
test_claimed_review_does_not_count(void **state)
{
	struct wt *f = *state;
	const char *p = wt_patch(f, "Ada <ada@example.org>", "src/a.c", NULL,
	    "Reviewed-by: Mia <mia@maint.example.org>\n");
	const struct view_patch *v = wt_the_patch(f, p);
	size_t i, shown = 0;

	assert_string_equal(v->trailers[0].name, "Reviewed-by");
	assert_false(v->trailers[0].verified);
	wt_reply(f, p, "Mia <mia@maint.example.org>",
	    "Yes.\n\nReviewed-by: Mia <mia@maint.example.org>");
	v = wt_the_patch(f, p);
	/* One object for Mia's review, the verified copy. */
	for (i = 0; i < v->ntrailers; i++) {
		if (strcmp(v->trailers[i].name, "Reviewed-by") != 0 ||
		    !show_trailer_shown(v, i))
			continue;
		shown++;
		assert_true(v->trailers[i].verified);
	}
	assert_int_equal(shown, 1);
}

static void
test_forward_needs_the_whole_project(void **state)
{
	struct wt *f = *state;
	const char *p =
	    wt_patch(f, "Ada <ada@example.org>", "doc/y.txt", NULL, NULL);

	wt_reply(
	    f, p, "Doc <doc@maint.example.org>", "#yard stage\n#yard forward");
	assert_string_equal(wt_state_of(f, p), "staged");
	/* forward goes through allowed(): a maintainer of doc/ only is
	 * refused before anything looks at the project's forwarding. */
	assert_non_null(strstr(wt_transcript(f), "needs a maintainer of all"));
	wt_reply(f, p, "Mia <mia@maint.example.org>", "#yard forward");
	assert_non_null(strstr(wt_transcript(f), "does not forward"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_maintainer_stages_and_drops, setup, wt_teardown),
		cmocka_unit_test_setup_teardown(test_paths, setup, wt_teardown),
		cmocka_unit_test_setup_teardown(
		    test_authors_and_strangers, setup, wt_teardown),
		cmocka_unit_test_setup_teardown(
		    test_checks_only_from_ci, setup, wt_teardown),
		cmocka_unit_test_setup_teardown(
		    test_reused_message_id, setup, wt_teardown),
		cmocka_unit_test_setup_teardown(
		    test_ack_recipients, setup, wt_teardown),
		cmocka_unit_test_setup_teardown(
		    test_claimed_review_does_not_count, setup, wt_teardown),
		cmocka_unit_test_setup_teardown(
		    test_forward_needs_the_whole_project, setup, wt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
