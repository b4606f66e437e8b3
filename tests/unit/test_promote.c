/*
 * The promotion policy (bot/workflow/promote.c) on a store in memory:
 * patches are staged into the unstable queue the way a maintainer does
 * (ingest, then `#yard stage`), reviewed, nacked and marked by mail, and
 * the plan says for each condition of [promote] what holds a patch back
 * (its bits and its words) or what it met.  What only the tester or the
 * rebuild writes (test results, a conflict, a patch staged days ago) is
 * written through the store, as they write it.  promote_auto() then
 * moves what the plan moves, and only that.
 */
#include "bot/workflow/promote.h"
#include "storage/store_event.h"
#include "storage/store_patch.h"
#include "tests/unit/workflowtest.h"
#include "util/timeutil.h"

#define DAY (24 * 60 * 60)

#define ADA "Ada Author <ada@example.org>"
#define MIA "Mia Maint <mia@maint.example.org>"
#define ROB "Rob Reviewer <rob@example.org>"
#define CAT "Cat Acker <cat@example.org>"

/* Each test's [promote] (and [test], [mailmap]) comes as its prestate. */
static const char conf_base[] =
    "[core]\n\tdatabase = unused\n"
    "[bot]\n\taddress = yard@bot.example.org\n"
    "[project \"demo\"]\n\tlist = demo@lists.example.org\n"
    "[maintainer \"mia\"]\n\temail = mia@maint.example.org\n"
    "[ci \"lab\"]\n\temail = ci@lab.example.org\n"
    "[auth]\n\trequire = none\n";

static int
setup(void **state)
{
	struct wt *f = calloc(1, sizeof(*f));
	const char *extra = *state ? *state : "";
	char *text = malloc(sizeof(conf_base) + strlen(extra));
	int r;

	if (f == NULL || text == NULL)
		return -1;
	strcpy(text, conf_base);
	strcat(text, extra);
	r = wt_open(f, text, ":memory:");
	free(text);
	*state = f;
	return r;
}

/* A lone patch by Ada to file, staged by Mia; its Message-ID. */
static const char *
staged(struct wt *f, const char *file)
{
	const char *p = wt_patch(f, ADA, file, NULL, NULL);

	wt_reply(f, p, MIA, "#yard stage");
	assert_string_equal(wt_state_of(f, p), "staged");
	return p;
}

/* The store's row of msgid's (only) patch. */
static struct store_patch
row(struct wt *f, const char *msgid)
{
	struct store_patch p;

	assert_int_equal(
	    store_patch_get(f->st, f->a, wt_the_patch(f, msgid)->id, &p),
	    ERR_OK);
	return p;
}

/* Change a patch's row as the rebuild (conflict) or time (queued_at)
 * would. */
static void
set_row(struct wt *f, const struct store_patch *p)
{
	assert_int_equal(store_begin(f->st), ERR_OK);
	assert_int_equal(store_patch_update(f->st, p), ERR_OK);
	assert_int_equal(store_commit(f->st), ERR_OK);
}

/* A check on msgid's patch, as the tester records its verdicts. */
static void
check(struct wt *f, const char *msgid, const char *context, const char *state)
{
	struct store_patch p = row(f, msgid);
	struct store_check k;

	memset(&k, 0, sizeof(k));
	k.patch_id = p.id;
	k.series_id = p.series_id;
	k.context = context;
	k.state = state;
	k.reporter = "patchyard";
	k.time = time_now();
	assert_int_equal(store_begin(f->st), ERR_OK);
	assert_int_equal(store_check_add(f->st, &k), ERR_OK);
	assert_int_equal(store_commit(f->st), ERR_OK);
}

/* The plan at now: the item of msgid's patch (which must be in it);
 * *count (may be NULL) how many items the plan has. */
static const struct promote_item *
plan_at(struct wt *f, int64_t now, const char *msgid, size_t *count)
{
	struct promote_item *v = NULL;
	size_t n = 0, i;

	assert_int_equal(
	    promote_plan(f->st, &f->conf, f->a, now, &v, &n), ERR_OK);
	if (count)
		*count = n;
	for (i = 0; i < n; i++)
		if (strcmp(v[i].message_id, msgid) == 0)
			return &v[i];
	fail_msg("<%s> is not in the plan", msgid);
	return NULL;
}

static const struct promote_item *
plan(struct wt *f, const char *msgid)
{
	return plan_at(f, time_now(), msgid, NULL);
}

static void
test_hold_words(void **state)
{
	static const char *const words[] = { "days", "test", "review", "nack",
		"changes", "series", "conflict", "policy" };
	unsigned i;

	(void)state;
	for (i = 0; i < 8; i++)
		assert_string_equal(promote_hold_word(1u << i), words[i]);
	assert_int_equal(PROMOTE_DAYS, 1u << 0);
	assert_int_equal(PROMOTE_POLICY, 1u << 7);
	assert_null(promote_hold_word(0));
	assert_null(promote_hold_word(PROMOTE_DAYS | PROMOTE_TEST));
	assert_null(promote_hold_word(1u << 8));
}

/*
 * min-days = 2: a patch staged now waits ("days (0 of 2)", also for a
 * clock before its staging), one day on still, two days on it moves and
 * says what it met.  The plan is a read: the patch stays in unstable.
 */
static void
test_days(void **state)
{
	struct wt *f = *state;
	const char *p = staged(f, "src/a.c");
	int64_t at = row(f, p).queued_at;
	const struct promote_item *it;
	size_t n;

	wt_reply(f, p, ROB, "Reviewed-by: Rob Reviewer <rob@example.org>");
	it = plan_at(f, at, p, &n);
	assert_int_equal(n, 1);
	assert_int_equal(it->held, PROMOTE_DAYS);
	assert_string_equal(it->why, "days (0 of 2)");
	assert_string_equal(it->project, "demo");
	assert_string_equal(it->title, "change 1");
	assert_string_equal(it->slug, row(f, p).slug);
	assert_int_equal(it->patch_id, row(f, p).id);
	it = plan_at(f, at - 5 * DAY, p, NULL);
	assert_int_equal(it->held, PROMOTE_DAYS);
	assert_string_equal(it->why, "days (0 of 2)");
	it = plan_at(f, at + 2 * DAY - 1, p, NULL);
	assert_string_equal(it->why, "days (1 of 2)");
	it = plan_at(f, at + 2 * DAY, p, NULL);
	assert_int_equal(it->held, 0);
	assert_string_equal(
	    it->why, "2 days in unstable, no failing check, 1 review");
	assert_string_equal(
	    model_queue_name(wt_the_patch(f, p)->queue), "unstable");
}

/*
 * With a test command and require-test, the runner's newest result
 * (patchyard/test) must be a success: none yet, a failure, a pending
 * run each hold the patch; a success after a failure moves it.
 */
static void
test_require_test(void **state)
{
	struct wt *f = *state;
	const char *p = staged(f, "src/a.c");
	const struct promote_item *it;

	it = plan(f, p);
	assert_int_equal(it->held, PROMOTE_TEST);
	assert_string_equal(it->why, "test (no result yet)");
	/* Another context's success is not the runner's. */
	check(f, p, "lab/build", "success");
	assert_string_equal(plan(f, p)->why, "test (no result yet)");
	check(f, p, "patchyard/test", "fail");
	it = plan(f, p);
	assert_int_equal(it->held, PROMOTE_TEST);
	assert_string_equal(it->why, "test (latest: fail)");
	check(f, p, "patchyard/test", "pending");
	assert_string_equal(plan(f, p)->why, "test (latest: pending)");
	check(f, p, "patchyard/test", "success");
	it = plan(f, p);
	assert_int_equal(it->held, 0);
	assert_string_equal(it->why, "0 days in unstable, tests passed");
	check(f, p, "patchyard/test", "fail");
	assert_int_equal(plan(f, p)->held, PROMOTE_TEST);
}

/*
 * Without require-test nothing must have run, but no context may have
 * failed last: a CI's failure reported by mail holds the patch until
 * that context passes again.
 */
static void
test_failing_check(void **state)
{
	struct wt *f = *state;
	const char *p = staged(f, "src/a.c");
	const struct promote_item *it;

	assert_int_equal(plan(f, p)->held, 0);
	assert_string_equal(
	    plan(f, p)->why, "0 days in unstable, no failing check");
	wt_reply(f, p, "Lab <ci@lab.example.org>", "#yard check build fail");
	it = plan(f, p);
	assert_int_equal(it->held, PROMOTE_TEST);
	assert_string_equal(it->why, "test (build failed)");
	wt_reply(f, p, "Lab <ci@lab.example.org>", "#yard check lint warning");
	assert_string_equal(plan(f, p)->why, "test (build failed)");
	wt_reply(f, p, "Lab <ci@lab.example.org>", "#yard check build success");
	assert_int_equal(plan(f, p)->held, 0);
}

/*
 * require-test without a test command: there is no runner to wait for,
 * so only failures count.
 */
static void
test_require_test_without_command(void **state)
{
	struct wt *f = *state;
	const char *p = staged(f, "src/a.c");

	assert_int_equal(plan(f, p)->held, 0);
	check(f, p, "lab/build", "fail");
	assert_string_equal(plan(f, p)->why, "test (lab/build failed)");
}

/*
 * min-reviews = 2 counts verified Reviewed-by and Acked-by from people
 * other than the author, each person once.  Neither the author's own
 * review (under her address or an alias of it), nor a review the patch
 * claims in its own message, nor one a stranger writes for somebody
 * else counts.
 */
static void
test_reviews(void **state)
{
	struct wt *f = *state;
	const char *p = wt_patch(f, ADA, "src/a.c", NULL,
	    "Reviewed-by: Rob Reviewer <rob@example.org>\n");
	const struct promote_item *it;

	wt_reply(f, p, MIA, "#yard stage");
	it = plan(f, p);
	assert_int_equal(it->held, PROMOTE_REVIEW);
	assert_string_equal(it->why, "review (0 of 2)");
	wt_reply(f, p, ADA, "Reviewed-by: Ada Author <ada@example.org>");
	wt_reply(f, p, "Ada at work <ada@work.example.com>",
	    "Acked-by: Ada at work <ada@work.example.com>");
	wt_reply(f, p, "Mal <mallory@evil.example.net>",
	    "Reviewed-by: Cat Acker <cat@example.org>");
	assert_string_equal(plan(f, p)->why, "review (0 of 2)");
	wt_reply(f, p, ROB, "Reviewed-by: Rob Reviewer <rob@example.org>");
	assert_string_equal(plan(f, p)->why, "review (1 of 2)");
	wt_reply(f, p, ROB, "Acked-by: Rob Reviewer <rob@example.org>");
	assert_string_equal(plan(f, p)->why, "review (1 of 2)");
	wt_reply(f, p, CAT, "Acked-by: Cat Acker <cat@example.org>");
	it = plan(f, p);
	assert_int_equal(it->held, 0);
	assert_string_equal(
	    it->why, "0 days in unstable, no failing check, 2 reviews");
}

/* A Nacked-by from anybody holds the patch, whatever else it has. */
static void
test_nack(void **state)
{
	struct wt *f = *state;
	const char *p = staged(f, "src/a.c");
	const struct promote_item *it;

	wt_reply(f, p, ROB, "Reviewed-by: Rob Reviewer <rob@example.org>");
	assert_int_equal(plan(f, p)->held, 0);
	wt_reply(
	    f, p, "Tom <tom@example.com>", "Nacked-by: Tom <tom@example.com>");
	it = plan(f, p);
	assert_int_equal(it->held, PROMOTE_NACK);
	assert_string_equal(it->why, "nack (Tom <tom@example.com>)");
}

/*
 * `#yard state changes-requested` on a staged patch holds it until
 * `#yard state new` lifts the mark.
 */
static void
test_changes_requested(void **state)
{
	struct wt *f = *state;
	const char *p = staged(f, "src/a.c");
	const struct promote_item *it;

	wt_reply(f, p, MIA, "#yard state changes-requested");
	assert_string_equal(wt_state_of(f, p), "staged");
	it = plan(f, p);
	assert_int_equal(it->held, PROMOTE_CHANGES);
	assert_string_equal(it->why, "changes (requested since staged)");
	wt_reply(f, p, MIA, "#yard state new");
	assert_int_equal(plan(f, p)->held, 0);
}

/*
 * A mark counts from the time the patch joined the unstable queue on:
 * with its queue time a second after the mark, the mark is older.
 */
static void
test_changes_before_staging(void **state)
{
	struct wt *f = *state;
	const char *p = staged(f, "src/a.c");
	struct store_patch r;

	wt_reply(f, p, MIA, "#yard state changes-requested");
	r = row(f, p);
	r.queued_at += 1;
	set_row(f, &r);
	assert_int_equal(plan(f, p)->held, 0);
	r.queued_at -= 1;
	set_row(f, &r);
	assert_int_equal(plan(f, p)->held, PROMOTE_CHANGES);
}

/*
 * A patch asked for changes before it was staged: its staging answers
 * the request, so the mark is not one "since staged".
 */
static void
test_changes_then_staged(void **state)
{
	struct wt *f = *state;
	const char *p = wt_patch(f, ADA, "src/a.c", NULL, NULL);

	wt_reply(f, p, MIA, "#yard state changes-requested");
	assert_string_equal(wt_state_of(f, p), "changes-requested");
	wt_reply(f, p, MIA, "#yard stage");
	assert_string_equal(wt_state_of(f, p), "staged");
	assert_string_equal(
	    plan(f, p)->why, "0 days in unstable, no failing check");
	assert_int_equal(plan(f, p)->held, 0);
}

/*
 * The same for a newer version sent by somebody else than the author,
 * kept beside the staged one: asked for changes, then staged in its
 * place by a maintainer.  It takes the older one's place and time in
 * the queue, but the request was answered by its staging.
 */
static void
test_changes_then_staged_in_place(void **state)
{
	struct wt *f = *state;
	const char *v1 = staged(f, "src/a.c");
	const char *v2 = "v2@example.org";
	struct view_contrib *c;

	wt_ingest(f,
	    arena_printf(f->a,
	        "From: Bob <bob@example.org>\nTo: demo@lists.example.org\n"
	        "Subject: [PATCH v2] change 1\nMessage-ID: <%s>\n"
	        "In-Reply-To: <%s>\nReferences: <%s>\n"
	        "Date: Mon, 7 Dec 2026 12:00:00 +0000\n\n"
	        "Change number 1, again.\n\nSigned-off-by: " ADA "\n---\n"
	        "diff --git a/src/a.c b/src/a.c\n"
	        "index 1111111..3333333 100644\n--- a/src/a.c\n"
	        "+++ b/src/a.c\n@@ -1 +1 @@\n-old 1\n+newer 1\n",
	        v2, v1, v1));
	c = wt_show(f, v2);
	assert_int_equal(c->nseries, 2);
	assert_string_equal(wt_state_of(f, v2), "new");
	wt_reply(f, v2, MIA, "#yard state changes-requested");
	assert_string_equal(wt_state_of(f, v2), "changes-requested");
	wt_reply(f, v2, MIA, "#yard stage");
	assert_string_equal(wt_state_of(f, v2), "staged");
	assert_int_equal(plan(f, v2)->held, 0);
	/* A mark on it now holds it. */
	wt_reply(f, v2, MIA, "#yard state changes-requested");
	assert_int_equal(plan(f, v2)->held, PROMOTE_CHANGES);
}

/* A patch the rebuild left out (it does not apply) waits. */
static void
test_conflict(void **state)
{
	struct wt *f = *state;
	const char *p = staged(f, "src/a.c");
	struct store_patch r = row(f, p);
	const struct promote_item *it;

	r.conflict = true;
	set_row(f, &r);
	it = plan(f, p);
	assert_int_equal(it->held, PROMOTE_CONFLICT);
	assert_string_equal(it->why, "conflict (left out of the build)");
}

/* A series of two by Ada with a cover letter: its Message-IDs, the
 * cover's first. */
static void
series_of_two(struct wt *f, const char *id[3])
{
	static const char *const subject[] = { "[PATCH 0/2] frob: two steps",
		"[PATCH 1/2] frob: first step",
		"[PATCH 2/2] frob: second step" };
	int i;

	for (i = 0; i < 3; i++) {
		const char *body = i == 0
		    ? "Two steps."
		    : arena_printf(f->a,
		          "Step %d.\n\nSigned-off-by: " ADA "\n---\n"
		          "diff --git a/s%d.c b/s%d.c\n"
		          "index 1111111..2222222 100644\n--- a/s%d.c\n"
		          "+++ b/s%d.c\n@@ -1 +1 @@\n-old\n+new\n",
		          i, i, i, i, i);

		id[i] = arena_printf(f->a, "s%d.%d@example.org", ++f->n, i);
		wt_ingest(f,
		    arena_printf(f->a,
		        "From: " ADA "\nTo: demo@lists.example.org\n"
		        "Subject: %s\nMessage-ID: <%s>\n%s%s%s"
		        "Date: Mon, 7 Dec 2026 10:00:0%d +0000\n\n%s\n",
		        subject[i], id[i], i ? "In-Reply-To: <" : "",
		        i ? id[0] : "", i ? ">\n" : "", i, body));
	}
}

/*
 * A contribution graduates together: the second patch lacks a review,
 * so the first, which has one, waits with it and names it.
 */
static void
test_series_together(void **state)
{
	struct wt *f = *state;
	const char *id[3];
	struct view_contrib *c;
	const struct promote_item *one, *two;
	size_t n;

	series_of_two(f, id);
	wt_reply(f, id[0], MIA, "#yard stage");
	c = wt_show(f, id[0]);
	assert_int_equal(c->newest->npatches, 2);
	assert_string_equal(
	    model_state_name(c->newest->patches[1].state), "staged");
	wt_reply(f, id[1], ROB, "Reviewed-by: Rob Reviewer <rob@example.org>");
	one = plan_at(f, time_now(), id[1], &n);
	two = plan(f, id[2]);
	assert_int_equal(n, 2);
	assert_int_equal(two->held, PROMOTE_REVIEW);
	assert_string_equal(two->why, "review (0 of 1)");
	assert_int_equal(one->held, PROMOTE_SERIES);
	assert_string_equal(
	    one->why, arena_printf(f->a, "series (%s held back)", two->slug));
	/* A review of the cover letter covers both. */
	wt_reply(f, id[0], CAT, "Acked-by: Cat Acker <cat@example.org>");
	assert_int_equal(plan(f, id[1])->held, 0);
	assert_int_equal(plan(f, id[2])->held, 0);
}

/* With per-patch, set for the project, each patch goes by itself. */
static void
test_series_per_patch(void **state)
{
	struct wt *f = *state;
	const char *id[3];

	series_of_two(f, id);
	wt_reply(f, id[0], MIA, "#yard stage");
	wt_reply(f, id[1], ROB, "Reviewed-by: Rob Reviewer <rob@example.org>");
	assert_int_equal(plan(f, id[1])->held, 0);
	assert_int_equal(plan(f, id[2])->held, PROMOTE_REVIEW);
}

/*
 * No [promote] for the project (a section for another one only):
 * every patch is held for the policy alone, nothing else is judged, and
 * promote_auto moves nothing.
 */
static void
test_no_policy(void **state)
{
	struct wt *f = *state;
	const char *p = staged(f, "src/a.c");
	const struct promote_item *it;
	size_t moved = 99;

	it = plan(f, p);
	assert_int_equal(it->held, PROMOTE_POLICY);
	assert_string_equal(it->why, "policy (no [promote] section)");
	assert_int_equal(promote_auto(f->st, &f->conf, &moved, NULL), ERR_OK);
	assert_int_equal(moved, 0);
	assert_string_equal(
	    model_queue_name(wt_the_patch(f, p)->queue), "unstable");
}

/* The events of kind about msgid's patch; *detail the last one's. */
static int
events_of(
    struct wt *f, const char *msgid, enum model_event kind, const char **detail)
{
	struct view_contrib *c = wt_show(f, msgid);
	int64_t id = wt_the_patch(f, msgid)->id;
	size_t i;
	int n = 0;

	for (i = 0; i < c->nevents; i++)
		if (c->events[i].kind == kind && c->events[i].patch_id == id) {
			n++;
			*detail = c->events[i].detail;
		}
	return n;
}

/*
 * promote_auto moves exactly the patches the plan moves (one old enough
 * and reviewed; not one too young, nor one without a review), each with
 * a graduated event and its acknowledgment queued, says so on out, and
 * counts them; run again, it finds nothing left to move.
 */
static void
test_auto(void **state)
{
	struct wt *f = *state;
	const char *ready = staged(f, "src/a.c");
	const char *young = staged(f, "src/b.c");
	const char *lonely = staged(f, "src/c.c");
	const char *p[] = { ready, young, lonely };
	struct promote_item *v;
	struct store_patch r;
	const char *detail = NULL;
	char *text = NULL;
	size_t n, i, moved = 0, textlen = 0;
	FILE *out;
	bool moves[3];
	int count;

	wt_reply(f, ready, ROB, "Reviewed-by: Rob Reviewer <rob@example.org>");
	wt_reply(f, young, ROB, "Reviewed-by: Rob Reviewer <rob@example.org>");
	/* Staged three days ago, as the clock of the daemon sees it. */
	r = row(f, ready);
	r.queued_at -= 3 * DAY;
	set_row(f, &r);
	r = row(f, lonely);
	r.queued_at -= 3 * DAY;
	set_row(f, &r);
	assert_int_equal(
	    promote_plan(f->st, &f->conf, f->a, time_now(), &v, &n), ERR_OK);
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++)
		moves[i] = plan(f, p[i])->held == 0;
	assert_true(moves[0]);
	assert_false(moves[1]);
	assert_false(moves[2]);
	assert_string_equal(plan(f, young)->why, "days (0 of 2)");
	assert_string_equal(plan(f, lonely)->why, "review (0 of 1)");

	out = open_memstream(&text, &textlen);
	assert_non_null(out);
	assert_int_equal(promote_auto(f->st, &f->conf, &moved, out), ERR_OK);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(moved, 1);
	assert_string_equal(text,
	    arena_printf(f->a, "demo: %s: moved to the stable queue\n",
	        row(f, ready).slug));
	free(text);
	for (i = 0; i < 3; i++)
		assert_string_equal(
		    model_queue_name(wt_the_patch(f, p[i])->queue),
		    moves[i] ? "stable" : "unstable");
	assert_int_equal(events_of(f, ready, EVENT_GRADUATED, &detail), 1);
	assert_string_equal(detail, "promotion policy");
	assert_int_equal(events_of(f, young, EVENT_GRADUATED, &detail), 0);
	wt_outbox_to(f, ready, "graduated", &count);
	assert_int_equal(count, 1);
	wt_outbox_to(f, young, "graduated", &count);
	assert_int_equal(count, 0);
	wt_outbox_to(f, lonely, "graduated", &count);
	assert_int_equal(count, 0);

	/* Nothing left that the policy moves; the plan has the two left. */
	assert_int_equal(promote_auto(f->st, &f->conf, &moved, NULL), ERR_OK);
	assert_int_equal(moved, 0);
	assert_int_equal(
	    promote_plan(f->st, &f->conf, f->a, time_now(), &v, &n), ERR_OK);
	assert_int_equal(n, 2);
	assert_int_equal(events_of(f, ready, EVENT_GRADUATED, &detail), 1);
}

#define POLICY(days, reviews, test)                                            \
	"[promote]\n\tmin-days = " #days "\n\tmin-reviews = " #reviews         \
	"\n\trequire-test = " #test "\n"

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hold_words),
		cmocka_unit_test_prestate_setup_teardown(
		    test_days, setup, wt_teardown, POLICY(2, 1, false)),
		cmocka_unit_test_prestate_setup_teardown(test_require_test,
		    setup, wt_teardown,
		    POLICY(0, 0, true) "[test]\n\tcommand = make check\n"),
		cmocka_unit_test_prestate_setup_teardown(test_failing_check,
		    setup, wt_teardown, POLICY(0, 0, false)),
		cmocka_unit_test_prestate_setup_teardown(
		    test_require_test_without_command, setup, wt_teardown,
		    POLICY(0, 0, true)),
		cmocka_unit_test_prestate_setup_teardown(test_reviews, setup,
		    wt_teardown,
		    POLICY(0, 2, false) "[mailmap]\n\talias = "
		                        "<ada@example.org> "
		                        "<ada@work.example.com>\n"),
		cmocka_unit_test_prestate_setup_teardown(
		    test_nack, setup, wt_teardown, POLICY(0, 1, false)),
		cmocka_unit_test_prestate_setup_teardown(test_changes_requested,
		    setup, wt_teardown, POLICY(0, 0, false)),
		cmocka_unit_test_prestate_setup_teardown(
		    test_changes_before_staging, setup, wt_teardown,
		    POLICY(0, 0, false)),
		cmocka_unit_test_prestate_setup_teardown(
		    test_changes_then_staged, setup, wt_teardown,
		    POLICY(0, 0, false)),
		cmocka_unit_test_prestate_setup_teardown(
		    test_changes_then_staged_in_place, setup, wt_teardown,
		    POLICY(0, 0, false)),
		cmocka_unit_test_prestate_setup_teardown(
		    test_conflict, setup, wt_teardown, POLICY(0, 0, false)),
		cmocka_unit_test_prestate_setup_teardown(test_series_together,
		    setup, wt_teardown, POLICY(0, 1, false)),
		cmocka_unit_test_prestate_setup_teardown(test_series_per_patch,
		    setup, wt_teardown,
		    POLICY(0, 0, false) "[promote \"demo\"]\n\tmin-reviews = "
		                        "1\n\tper-patch = true\n"),
		cmocka_unit_test_prestate_setup_teardown(test_no_policy, setup,
		    wt_teardown,
		    "[project \"other\"]\n\tlist = other@lists.example.org\n"
		    "[promote \"other\"]\n\tmin-days = 0\n"),
		cmocka_unit_test_prestate_setup_teardown(
		    test_auto, setup, wt_teardown, POLICY(2, 1, false)),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
