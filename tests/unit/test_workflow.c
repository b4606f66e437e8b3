/*
 * The rules of bot/workflow/ without a server: who may do what (a
 * maintainer, one limited to some paths, an author, a CI address, a
 * stranger), what each verb does to a patch, what the transcript and the
 * acknowledgments say and whom they go to, the reused Message-ID and the
 * promotion policy's count of reviews.  Mail goes in through ingest (the
 * road of `patchyard ingest` with auth.require = none: every mail
 * authenticates, so the rules alone decide), and the outcome is read
 * from the views `show` prints.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bot/workflow/ingest.h"
#include "bot/workflow/promote.h"
#include "bot/workflow/show.h"
#include "storage/store.h"
#include "storage/store_outbox.h"
#include "storage/store_read.h"
#include "tests/unit/testutil.h"
#include "util/arena.h"

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

struct fx {
	char dir[64];
	char db[96];
	struct store *st;
	struct arena *a;
	struct config conf;
	int n; /* mails made */
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct config_error *errs;
	size_t nerrs;

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_workflow_XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	snprintf(f->db, sizeof(f->db), "%s/yard.db", f->dir);
	if (store_open(f->db, STORE_CREATE, &f->st) != ERR_OK)
		return -1;
	f->a = arena_new();
	if (config_parse(f->a, "test.conf", conf_text, sizeof(conf_text) - 1,
	        &f->conf, &errs, &nerrs) != ERR_OK)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	store_close(f->st);
	arena_free(f->a);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* Ingest raw as `patchyard ingest` does, in a transaction of its own. */
static void
ingest(struct fx *f, const char *raw)
{
	struct trust_road road = { NULL, true };
	struct ingest *in = ingest_new(f->st, &f->conf);
	struct arena *a = arena_new();
	struct mail_opts o;
	struct mail m;
	enum ingest_result res;
	int64_t pid;

	ingest_set_road(in, &road);
	ingest_mail_opts(in, &o);
	mail_parse(a, raw, strlen(raw), &o, &m);
	assert_int_equal(store_begin(f->st), ERR_OK);
	assert_int_equal(ingest_project(in, "demo", &m, &pid), ERR_OK);
	assert_int_equal(
	    ingest_mail(in, raw, strlen(raw), &m, pid, &res), ERR_OK);
	assert_int_equal(store_commit(f->st), ERR_OK);
	ingest_free(in);
	arena_free(a);
}

/* A lone patch from `from` changing `file` (renamed to `to` when set),
 * with extra lines at the end of its message; its Message-ID. */
static const char *
patch(struct fx *f, const char *from, const char *file, const char *to,
    const char *extra)
{
	const char *id = arena_printf(f->a, "p%d@example.org", ++f->n);
	const char *diff = to
	    ? arena_printf(f->a,
	          "diff --git a/%s b/%s\nsimilarity index 100%%\n"
	          "rename from %s\nrename to %s\n",
	          file, to, file, to)
	    : arena_printf(f->a,
	          "diff --git a/%s b/%s\nindex 1111111..2222222 100644\n"
	          "--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-old %d\n+new %d\n",
	          file, file, file, file, f->n, f->n);

	ingest(f,
	    arena_printf(f->a,
	        "From: %s\nTo: demo@lists.example.org\n"
	        "Subject: [PATCH] change %d\nMessage-ID: <%s>\n"
	        "Date: Mon, 7 Dec 2026 10:00:00 +0000\n\n"
	        "Change number %d.\n\n%sSigned-off-by: %s\n---\n%s",
	        from, f->n, id, f->n, extra ? extra : "", from, diff));
	return id;
}

/* A reply to parent from `from` with body; its Message-ID. */
static const char *
reply(struct fx *f, const char *parent, const char *from, const char *body)
{
	const char *id = arena_printf(f->a, "r%d@example.org", ++f->n);

	ingest(f,
	    arena_printf(f->a,
	        "From: %s\nTo: demo@lists.example.org\n"
	        "Subject: Re: [PATCH]\nMessage-ID: <%s>\n"
	        "In-Reply-To: <%s>\nReferences: <%s>\n"
	        "Date: Mon, 7 Dec 2026 11:00:00 +0000\n\n%s\n",
	        from, id, parent, parent, body));
	return id;
}

/* The contribution holding msgid, with its events, checks and outbox. */
static struct view_contrib *
show(struct fx *f, const char *msgid)
{
	struct view_contrib *c = arena_zalloc(f->a, sizeof(*c));
	int64_t cid, sid, pid;

	assert_int_equal(show_resolve(f->st, msgid, &cid, &sid, &pid), ERR_OK);
	assert_int_equal(store_read_contrib(f->st, f->a, cid, true, c), ERR_OK);
	assert_non_null(c->newest);
	return c;
}

/* The (only) patch of msgid's contribution. */
static const struct view_patch *
the_patch(struct fx *f, const char *msgid)
{
	struct view_contrib *c = show(f, msgid);

	assert_int_equal(c->newest->npatches, 1);
	return &c->newest->patches[0];
}

static const char *
state_of(struct fx *f, const char *msgid)
{
	return the_patch(f, msgid)->state;
}

/* The recipients of the outbox mail of kind `kind` about msgid's
 * contribution, a line each ("" when none); *count how many such. */
static const char *
outbox_to(struct fx *f, const char *msgid, const char *kind, int *count)
{
	struct view_contrib *c = show(f, msgid);
	const char *r = "";
	size_t i;

	*count = 0;
	for (i = 0; i < c->noutbox; i++) {
		if (strcmp(c->outbox[i].kind, kind) != 0)
			continue;
		(*count)++;
		r = c->outbox[i].rcpt;
	}
	return r;
}

/* The body of the newest transcript queued (a transcript answers the
 * command mail, whatever contribution it is about), its soft line breaks
 * undone, or "". */
static const char *
transcript(struct fx *f)
{
	struct store_outbox o;
	int64_t *ids = NULL;
	const char *r = "";
	size_t n = 0, i, k;

	assert_int_equal(
	    store_outbox_due(f->st, INT64_MAX, true, &ids, &n), ERR_OK);
	for (i = 0; i < n; i++) {
		struct buf b = BUF_INIT;

		assert_int_equal(
		    store_outbox_get(f->st, f->a, ids[i], &o), ERR_OK);
		if (strcmp(o.kind, "command-reply") != 0)
			continue;
		for (k = 0; k < o.body_len; k++) {
			if (o.body[k] == '=' && k + 2 < o.body_len &&
			    o.body[k + 1] == '\r' && o.body[k + 2] == '\n')
				k += 2;
			else
				buf_addc(&b, o.body[k]);
		}
		r = arena_strdup(f->a, buf_cstr(&b));
		buf_free(&b);
	}
	free(ids);
	return r;
}

static void
test_maintainer_stages_and_drops(void **state)
{
	struct fx *f = *state;
	const char *p =
	    patch(f, "Ada <ada@example.org>", "src/a.c", NULL, NULL);
	int n;

	reply(f, p, "Mia <mia@maint.example.org>", "Good.\n\n#yard stage");
	assert_string_equal(state_of(f, p), "staged");
	assert_string_equal(the_patch(f, p)->queue, "unstable");
	outbox_to(f, p, "command-reply", &n);
	assert_int_equal(n, 1);
	reply(f, p, "Mia <mia@maint.example.org>", "#yard graduate");
	assert_string_equal(the_patch(f, p)->queue, "stable");
	reply(f, p, "Mia <mia@maint.example.org>", "#yard drop nacked by Tom");
	assert_string_equal(state_of(f, p), "dropped");
	assert_string_equal(the_patch(f, p)->reason, "nacked");
}

static void
test_paths(void **state)
{
	struct fx *f = *state;
	const char *in =
	    patch(f, "Ada <ada@example.org>", "doc/x.txt", NULL, NULL);
	const char *out =
	    patch(f, "Ada <ada@example.org>", "src/a.c", NULL, NULL);
	const char *mv =
	    patch(f, "Ada <ada@example.org>", "src/b.c", "doc/b.c", NULL);

	reply(f, in, "Doc <doc@maint.example.org>", "#yard stage");
	assert_string_equal(state_of(f, in), "staged");
	reply(f, out, "Doc <doc@maint.example.org>", "#yard stage");
	assert_string_equal(state_of(f, out), "new");
	assert_non_null(
	    strstr(transcript(f), "you maintain none of these files: src/a.c"));
	/* Both sides of a rename are checked (issue 42). */
	reply(f, mv, "Doc <doc@maint.example.org>", "#yard stage");
	assert_string_equal(state_of(f, mv), "new");
	assert_non_null(strstr(transcript(f), "src/b.c"));
}

static void
test_authors_and_strangers(void **state)
{
	struct fx *f = *state;
	const char *p =
	    patch(f, "Ada <ada@example.org>", "src/a.c", NULL, NULL);

	reply(f, p, "Mal <mallory@evil.example.net>", "#yard stage");
	assert_string_equal(state_of(f, p), "new");
	reply(f, p, "Ada <ada@example.org>", "#yard stage");
	assert_string_equal(state_of(f, p), "new");
	assert_non_null(strstr(transcript(f), "authors may withdraw"));
	reply(f, p, "Mal <mallory@evil.example.net>", "#yard withdraw");
	assert_string_equal(state_of(f, p), "new");
	reply(f, p, "Ada <ada@example.org>", "#yard withdraw");
	assert_string_equal(state_of(f, p), "dropped");
	assert_string_equal(the_patch(f, p)->reason, "withdrawn");
}

static void
test_checks_only_from_ci(void **state)
{
	struct fx *f = *state;
	const char *p =
	    patch(f, "Ada <ada@example.org>", "src/a.c", NULL, NULL);
	struct view_contrib *c;

	reply(f, p, "Mia <mia@maint.example.org>", "#yard check build fail");
	reply(f, p, "Lab <ci@lab.example.org>", "#yard check build success");
	c = show(f, p);
	assert_int_equal(c->nchecks, 1);
	assert_string_equal(c->checks[0].state, "success");
}

static void
test_reused_message_id(void **state)
{
	struct fx *f = *state;
	const char *p =
	    patch(f, "Ada <ada@example.org>", "src/a.c", NULL, NULL);
	/* Another mail under the same Message-ID: kept, flagged. */
	ingest(f,
	    arena_printf(f->a,
	        "From: Mal <mallory@evil.example.net>\n"
	        "To: demo@lists.example.org\nSubject: [PATCH] other\n"
	        "Message-ID: <%s>\nDate: Mon, 7 Dec 2026 10:30:00 +0000\n\n"
	        "Other code.\n---\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n"
	        "@@ -1 +1 @@\n-a\n+b\n",
	        p));
	reply(f, p, "Mia <mia@maint.example.org>", "#yard stage");
	assert_true(the_patch(f, p)->msgid_reused);
	assert_string_equal(state_of(f, p), "new");
	assert_non_null(strstr(transcript(f), "names 2 different mails"));
}

static void
test_ack_recipients(void **state)
{
	struct fx *f = *state;
	const char *p = patch(f, "Ada <ada@example.org>", "src/a.c", NULL,
	    "Cc: Carl <carl@example.org>\n");
	const char *to;
	int n;

	/* A stranger's reply names a victim: never mailed. */
	reply(f, p, "Mal <mallory@evil.example.net>",
	    "Tested-by: Vic <victim@elsewhere.example>");
	reply(
	    f, p, "Tom <tom@example.com>", "Tested-by: Tom <tom@example.com>");
	reply(f, p, "Mia <mia@maint.example.org>", "#yard stage");
	to = outbox_to(f, p, "staged", &n);
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
	struct fx *f = *state;
	const char *p = patch(f, "Ada <ada@example.org>", "src/a.c", NULL,
	    "Reviewed-by: Mia <mia@maint.example.org>\n");
	const struct view_patch *v = the_patch(f, p);
	size_t i, shown = 0;

	assert_string_equal(v->trailers[0].name, "Reviewed-by");
	assert_false(v->trailers[0].verified);
	reply(f, p, "Mia <mia@maint.example.org>",
	    "Yes.\n\nReviewed-by: Mia <mia@maint.example.org>");
	v = the_patch(f, p);
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
	struct fx *f = *state;
	const char *p =
	    patch(f, "Ada <ada@example.org>", "doc/y.txt", NULL, NULL);

	reply(
	    f, p, "Doc <doc@maint.example.org>", "#yard stage\n#yard forward");
	assert_string_equal(state_of(f, p), "staged");
	/* forward goes through allowed(): a maintainer of doc/ only is
	 * refused before anything looks at the project's forwarding. */
	assert_non_null(strstr(transcript(f), "needs a maintainer of all"));
	reply(f, p, "Mia <mia@maint.example.org>", "#yard forward");
	assert_non_null(strstr(transcript(f), "does not forward"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_maintainer_stages_and_drops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_authors_and_strangers, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_checks_only_from_ci, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_reused_message_id, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_ack_recipients, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_claimed_review_does_not_count, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_forward_needs_the_whole_project, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
