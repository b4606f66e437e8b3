/*
 * Unit tests of bot/workflow/ingest.c on a real database: every database
 * error is passed up.  Each mail of tests/fixtures/ingest/faults.mbox is
 * ingested once for every statement its ingest runs, with that statement
 * failing (store_fault); ingest must say so every time, or a caller
 * would commit a mail that looks stored and is not.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/source/source.h"
#include "bot/workflow/import.h"
#include "bot/workflow/ingest.h"
#include "parsers/config.h"
#include "parsers/limits.h"
#include "parsers/mail.h"
#include "storage/store.h"
#include "storage/store_msg.h"
#include "storage/store_read.h"
#include "tests/unit/testutil.h"
#include "tests/unit/workflowtest.h"
#include "util/arena.h"
#include "util/log.h"

static const char conf_text[] =
    "[core]\n\tdatabase = unused\n"
    "[bot]\n\taddress = yard@bot.example.org\n"
    "[project \"demo\"]\n\tlist = demo@lists.example.org\n"
    "[maintainer \"mia\"]\n\temail = mia@example.org\n"
    "[auth]\n\trequire = none\n";

/*
 * The workflow fixture (tests/unit/workflowtest.h) on a file, not in
 * memory: the import pipeline is tested as it runs, with a writer that
 * commits to disk and so is the slower side whose reader fills the ring
 * (test_import_order), and the folder holds the tests' mboxes.
 */
struct fixture {
	struct wt w;
	char dir[64];
	char db[96];
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_ingest_XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	snprintf(f->db, sizeof(f->db), "%s/yard.db", f->dir);
	if (wt_open(&f->w, conf_text, f->db) != 0)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	wt_close(&f->w);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* Ingest one mail by an import's road in a transaction of its own;
 * commit when keep, else roll back. */
static enum err
ingest_one(struct fixture *f, const struct source_mail *sm, bool keep,
    unsigned long fault, unsigned long *steps)
{
	enum ingest_result res;
	unsigned long before;
	enum err e;

	assert_int_equal(store_begin(f->w.st), ERR_OK);
	before = store_steps(f->w.st);
	store_fault(f->w.st, fault);
	e = wt_ingest_in(&f->w, NULL, sm->raw, sm->n, &res);
	store_fault(f->w.st, 0);
	if (steps)
		*steps = store_steps(f->w.st) - before;
	if (e == ERR_OK && keep)
		assert_int_equal(store_commit(f->w.st), ERR_OK);
	else
		store_rollback(f->w.st);
	return e;
}

/* The failures are logged, as they should be: not here. */
static int saved_stderr = -1;

static void
quiet(bool on)
{
	int null;

	fflush(stderr);
	if (on && saved_stderr < 0) {
		saved_stderr = dup(2);
		null = open("/dev/null", O_WRONLY);
		dup2(null, 2);
		close(null);
	} else if (!on && saved_stderr >= 0) {
		dup2(saved_stderr, 2);
		close(saved_stderr);
		saved_stderr = -1;
	}
}

static void
test_every_error_passed_up(void **state)
{
	struct fixture *f = *state;
	struct source *src;
	struct source_mail sm;
	struct buf swallowed = BUF_INIT;
	int j = 0;

	assert_int_equal(
	    source_open("tests/fixtures/ingest/faults.mbox", 0, &src), ERR_OK);
	while (source_next(src, &sm) == ERR_OK) {
		unsigned long n, k;

		j++;
		assert_int_equal(ingest_one(f, &sm, false, 0, &n), ERR_OK);
		quiet(true);
		for (k = 1; k <= n; k++)
			if (ingest_one(f, &sm, false, k, NULL) == ERR_OK)
				buf_addf(&swallowed,
				    "mail %d: statement %lu of %lu failed, and "
				    "ingest said the mail was stored\n",
				    j, k, n);
		quiet(false);
		assert_int_equal(ingest_one(f, &sm, true, 0, NULL), ERR_OK);
	}
	assert_int_equal(j, 13);
	source_free(src);
	if (swallowed.n)
		fail_msg("%s", buf_cstr(&swallowed));
	buf_free(&swallowed);
}

/* ---- replies in any order ---- */

/* A mail of a thread, made here: refs is "" or ids separated by blanks
 * (References), irt the In-Reply-To when there are no References. */
static char *
make_mail(const char *id, const char *from, const char *subject,
    const char *refs, const char *irt, const char *body)
{
	struct buf b = BUF_INIT;

	buf_addf(&b,
	    "From: %s\nTo: demo@lists.example.org\nSubject: %s\n"
	    "Date: Mon, 3 Feb 2025 10:00:00 +0000\nMessage-ID: <%s>\n",
	    from, subject, id);
	if (*refs)
		buf_addf(&b, "References: %s\n", refs);
	if (*irt)
		buf_addf(&b, "In-Reply-To: %s\n", irt);
	buf_addf(&b, "\n%s\n", body);
	return buf_detach(&b, NULL);
}

static const char patch_body[] =
    "Frob more.\n\nSigned-off-by: Ada Author <ada@example.org>\n---\n"
    " a.c | 1 +\n 1 file changed, 1 insertion(+)\n\n"
    "diff --git a/a.c b/a.c\nindex 0000000..1111111 100644\n--- a/a.c\n"
    "+++ b/a.c\n@@ -1,2 +1,3 @@\n line 1\n+frob\n line 2\n";

#define NTHREAD 6

/* The thread: a cover letter and its patch, a review, a reply to the
 * review, and a chain of two replies threaded by In-Reply-To only. */
static void
thread(char *m[NTHREAD])
{
	m[0] = make_mail("c@ex.org", "Ada Author <ada@example.org>",
	    "[PATCH 0/1] frob: more", "", "", "A cover letter.");
	m[1] = make_mail("p@ex.org", "Ada Author <ada@example.org>",
	    "[PATCH 1/1] frob: more", "<c@ex.org>", "", patch_body);
	m[2] = make_mail("a@ex.org", "Rob Reviewer <rob@example.org>",
	    "Re: [PATCH 1/1] frob: more", "<c@ex.org> <p@ex.org>", "",
	    "Reviewed-by: Rob Reviewer <rob@example.org>");
	m[3] = make_mail("b@ex.org", "Cat Acker <cat@example.org>",
	    "Re: [PATCH 1/1] frob: more", "<c@ex.org> <p@ex.org> <a@ex.org>",
	    "", "Acked-by: Cat Acker <cat@example.org>");
	m[4] = make_mail("d@ex.org", "Tom Tester <tom@example.com>",
	    "Re: [PATCH 1/1] frob: more", "", "<p@ex.org>",
	    "Tested-by: Tom Tester <tom@example.com>");
	m[5] = make_mail("e@ex.org", "Eve Else <eve@example.org>",
	    "Re: [PATCH 1/1] frob: more", "", "<d@ex.org>",
	    "Reviewed-by: Eve Else <eve@example.org>");
}

static int
by_msgid(const void *x, const void *y)
{
	const struct view_trailer *a = x, *b = y;
	int c = strcmp(a->message_id, b->message_id);

	return c ? c : strcmp(a->name, b->name);
}

/* Where every mail of the thread landed and the trailers of each place,
 * one line each, by Message-ID. */
static void
summary(struct fixture *f, char *m[], size_t n, struct buf *out)
{
	static const char *const ids[] = { "c@ex.org", "p@ex.org", "a@ex.org",
		"b@ex.org", "d@ex.org", "e@ex.org" };
	struct arena *a = arena_new();
	size_t i, k;

	(void)m;
	buf_reset(out);
	for (i = 0; i < n; i++) {
		struct store_msg r, where;
		struct view_trailer *t;
		size_t nt;

		assert_int_equal(
		    store_msg_find(f->w.st, a, ids[i], &r), ERR_OK);
		buf_addf(out, "%s ->", ids[i]);
		/* The place, named by the Message-ID of the patch or of the
		 * series' first mail. */
		for (k = 0; k < n; k++) {
			assert_int_equal(
			    store_msg_find(f->w.st, a, ids[k], &where), ERR_OK);
			if (r.series_id && where.series_id == r.series_id &&
			    where.patch_id == r.patch_id &&
			    (where.kind == MAIL_PATCH ||
			        where.kind == MAIL_COVER))
				buf_addf(out, " %s", ids[k]);
		}
		if (r.kind != MAIL_PATCH && r.kind != MAIL_COVER) {
			buf_addc(out, '\n');
			continue;
		}
		assert_int_equal(
		    store_read_trailers(f->w.st, a,
		        r.kind == MAIL_PATCH ? r.patch_id : 0,
		        r.kind == MAIL_COVER ? r.series_id : 0, &t, &nt),
		    ERR_OK);
		/* By Message-ID: their order is the order they came in.
		 * (None: t may be NULL, which qsort must not be given.) */
		if (nt > 1)
			qsort(t, nt, sizeof(*t), by_msgid);
		for (k = 0; k < nt; k++)
			if (!t[k].own &&
			    (r.kind == MAIL_PATCH || t[k].message_id))
				buf_addf(
				    out, " %s:%s", t[k].name, t[k].message_id);
		buf_addc(out, '\n');
	}
	arena_free(a);
}

static bool
next_perm(int *v, int n)
{
	int i = n - 2, j = n - 1, t;

	while (i >= 0 && v[i] >= v[i + 1])
		i--;
	if (i < 0)
		return false;
	while (v[j] <= v[i])
		j--;
	t = v[i], v[i] = v[j], v[j] = t;
	for (i++, j = n - 1; i < j; i++, j--)
		t = v[i], v[i] = v[j], v[j] = t;
	return true;
}

/*
 * Every reply ends on its nearest known ancestor with a series, and its
 * trailers there once, whatever order the mails arrive in: all 720
 * orders of the thread give what the oldest-first order gives.
 */
static void
test_any_order(void **state)
{
	struct fixture *f = *state;
	char *m[NTHREAD];
	int order[NTHREAD], i, bad = 0;
	struct buf want = BUF_INIT, got = BUF_INIT, why = BUF_INIT;

	thread(m);
	for (i = 0; i < NTHREAD; i++)
		order[i] = i;
	do {
		assert_int_equal(store_begin(f->w.st), ERR_OK);
		/* One transaction around the whole order, rolled back. */
		for (i = 0; i < NTHREAD; i++) {
			enum ingest_result res;

			assert_int_equal(wt_ingest_in(&f->w, NULL, m[order[i]],
			                     strlen(m[order[i]]), &res),
			    ERR_OK);
		}
		summary(f, m, NTHREAD, want.n ? &got : &want);
		store_rollback(f->w.st);
		if (got.n && strcmp(buf_cstr(&got), buf_cstr(&want)) != 0 &&
		    bad++ < 3) {
			buf_adds(&why, "order");
			for (i = 0; i < NTHREAD; i++)
				buf_addf(&why, " %d", order[i]);
			buf_addf(&why, ":\n%s", buf_cstr(&got));
		}
	} while (next_perm(order, NTHREAD));
	if (bad)
		fail_msg("%d orders differ from oldest first:\n%s\nwant:\n%s",
		    bad, buf_cstr(&why), buf_cstr(&want));
	for (i = 0; i < NTHREAD; i++)
		free(m[i]);
	buf_free(&want);
	buf_free(&got);
	buf_free(&why);
}

/* Ingest mails m[order...] in one transaction; the steps it took. */
static unsigned long
ingest_all(struct fixture *f, char **m, size_t n, bool reverse)
{
	unsigned long before = store_steps(f->w.st);
	size_t i;

	for (i = 0; i < n; i++) {
		const char *raw = m[reverse ? n - 1 - i : i];
		enum ingest_result res;

		assert_int_equal(
		    wt_ingest_in(&f->w, NULL, raw, strlen(raw), &res), ERR_OK);
	}
	return store_steps(f->w.st) - before;
}

#define CHAIN 200

/*
 * A patch and a chain of replies, each answering the one before by
 * In-Reply-To alone: newest first, every Acked-by still lands on the
 * patch, and the work (counted in database statements, not timed) stays
 * within twice that of oldest first.
 */
static void
test_reversed_chain(void **state)
{
	struct fixture *f = *state;
	char *m[CHAIN + 1], id[32], irt[40], body[96], from[64];
	unsigned long forward = 0, backward = 0;
	struct arena *a = arena_new();
	struct store_msg p;
	struct view_trailer *t;
	size_t nt, k, acks;
	int i, round;

	m[0] = make_mail("chain@ex.org", "Ada Author <ada@example.org>",
	    "[PATCH] frob: a chain", "", "", patch_body);
	for (i = 0; i < CHAIN; i++) {
		snprintf(id, sizeof(id), "c%d@ex.org", i);
		snprintf(irt, sizeof(irt), "<%s>", i ? "" : "chain@ex.org");
		if (i)
			snprintf(irt, sizeof(irt), "<c%d@ex.org>", i - 1);
		snprintf(from, sizeof(from), "P%d <p%d@example.org>", i, i);
		snprintf(body, sizeof(body), "Acked-by: P%d <p%d@example.org>",
		    i, i);
		m[i + 1] = make_mail(
		    id, from, "Re: [PATCH] frob: a chain", "", irt, body);
	}
	for (round = 0; round < 2; round++) {
		assert_int_equal(store_begin(f->w.st), ERR_OK);
		if (round == 0)
			forward = ingest_all(f, m, CHAIN + 1, false);
		else
			backward = ingest_all(f, m, CHAIN + 1, true);
		assert_int_equal(
		    store_msg_find(f->w.st, a, "chain@ex.org", &p), ERR_OK);
		assert_int_equal(store_read_trailers(f->w.st, a, p.patch_id,
		                     p.series_id, &t, &nt),
		    ERR_OK);
		for (k = acks = 0; k < nt; k++)
			acks += strcmp(t[k].name, "Acked-by") == 0;
		assert_int_equal(acks, CHAIN);
		store_rollback(f->w.st);
	}
	if (backward > 2 * forward)
		fail_msg("newest first took %lu statements, oldest first %lu",
		    backward, forward);
	for (i = 0; i <= CHAIN; i++)
		free(m[i]);
	arena_free(a);
}

/* ---- the import pipeline ---- */

#define NIMPORT 1500

/*
 * An mbox of NIMPORT mails imported with a commit after every mail (the
 * writer then the slower by far: the reader fills the ring, then reads
 * ahead raw) and again in the default batches: each mail once, stored in
 * the mbox's order (ids ascending), and a second import of the same
 * path resumes at its end.
 */
static void
test_import_order(void **state)
{
	struct fixture *f = *state;
	static const unsigned batches[] = { 1, 0 };
	char path[128], id[32], subject[64];
	struct arena *a = arena_new();
	FILE *out;
	int i;

	snprintf(path, sizeof(path), "%s/many.mbox", f->dir);
	out = fopen(path, "w");
	assert_non_null(out);
	for (i = 0; i < NIMPORT; i++) {
		char *m;

		snprintf(id, sizeof(id), "m%d@ex.org", i);
		snprintf(subject, sizeof(subject), "note number %d", i);
		m = make_mail(id, "Ada Author <ada@example.org>", subject, "",
		    "", "Some words of a mail long enough to be one.");
		fprintf(out,
		    "From ada@example.org Mon Feb  3 10:00:00 2025\n%s\n", m);
		free(m);
	}
	assert_int_equal(fclose(out), 0);
	for (size_t b = 0; b < sizeof(batches) / sizeof(*batches); b++) {
		struct import_opts o = { .project = "demo", .quiet = true };
		struct ingest *in = ingest_new(f->w.st, &f->w.conf);
		int64_t last = 0;

		o.batch = batches[b];
		assert_int_equal(import_path(in, f->w.st, path, &o), ERR_OK);
		assert_int_equal(ingest_stats(in)->seen, NIMPORT);
		assert_int_equal(ingest_stats(in)->stored, NIMPORT);
		ingest_free(in);
		for (i = 0; i < NIMPORT; i++) {
			struct store_msg m;

			snprintf(id, sizeof(id), "m%d@ex.org", i);
			assert_int_equal(
			    store_msg_find(f->w.st, a, id, &m), ERR_OK);
			assert_true(m.id > last);
			last = m.id;
		}
		in = ingest_new(f->w.st, &f->w.conf);
		assert_int_equal(import_path(in, f->w.st, path, &o), ERR_OK);
		assert_int_equal(ingest_stats(in)->seen, 0);
		ingest_free(in);
		/* Again from nothing, in the next batches. */
		store_close(f->w.st);
		assert_int_equal(unlink(f->db), 0);
		assert_int_equal(
		    store_open(f->db, STORE_CREATE, &f->w.st), ERR_OK);
	}
	arena_free(a);
}

/* ---- mails over the limits ---- */

/* A patch mail of about size bytes: a real diff first, then filler
 * lines (none a "From " line). */
static char *
big_mail(const char *id, size_t size)
{
	struct buf b = BUF_INIT;
	char *head = make_mail(id, "Ada Author <ada@example.org>",
	    "[PATCH] frob a lot", "", "", patch_body);
	size_t i;

	buf_adds(&b, head);
	free(head);
	for (i = 0; b.n < size; i++)
		buf_addf(&b, "+line %zu of a very large generated file\n", i);
	return buf_detach(&b, NULL);
}

/* The stored message id (its raw bytes and row) equals mail. */
static void
assert_stored_whole(struct fixture *f, struct arena *a, const char *id,
    const char *mail, size_t n)
{
	struct store_msg m;
	const char *raw;
	size_t rn;

	assert_int_equal(store_msg_find(f->w.st, a, id, &m), ERR_OK);
	assert_int_equal(store_msg_get(f->w.st, a, m.id, &m), ERR_OK);
	assert_true(m.flags & MAIL_F_OVERLIMIT);
	assert_false(m.flags & MAIL_F_TRUNCATED);
	assert_int_equal(m.kind, MAIL_OTHER);
	assert_int_equal(store_msg_raw(f->w.st, a, m.id, &raw, &rn), ERR_OK);
	assert_int_equal(rn, n);
	assert_memory_equal(raw, mail, n);
}

/*
 * A mail over LIMIT_MAIL_SIZE is stored whole, byte for byte, marked and
 * not parsed (no patch comes of it), by ingest and through an mbox
 * import; one over LIMIT_MAIL_STORE is skipped by the import, counted,
 * and the mails around it are imported.
 */
static void
test_over_limit(void **state)
{
	struct fixture *f = *state;
	struct arena *a = arena_new();
	size_t n = LIMIT_MAIL_SIZE + 1024 * 1024;
	char *big = big_mail("big@ex.org", n), *huge, *small, path[128];
	struct import_opts o = { .project = "demo", .quiet = true };
	struct source_mail sm;
	struct ingest *in;
	struct store_msg m;
	FILE *out;

	log_set_level(LOG_ERR);
	n = strlen(big);
	sm.raw = big;
	sm.n = n;
	assert_int_equal(ingest_one(f, &sm, true, 0, NULL), ERR_OK);
	assert_stored_whole(f, a, "big@ex.org", big, n);
	free(big);

	/* The same through an mbox, between two small mails, and one
	 * over the storage cap after it. */
	snprintf(path, sizeof(path), "%s/big.mbox", f->dir);
	out = fopen(path, "w");
	assert_non_null(out);
	small = make_mail("before@ex.org", "Ada Author <ada@example.org>",
	    "before", "", "", "small");
	fprintf(out, "From a Mon Feb  3 10:00:00 2025\n%s\n", small);
	free(small);
	big = big_mail("big2@ex.org", n);
	fprintf(out, "From a Mon Feb  3 10:00:00 2025\n%s\n", big);
	huge = big_mail("huge@ex.org", LIMIT_MAIL_STORE + 1);
	fprintf(out, "From a Mon Feb  3 10:00:00 2025\n%s\n", huge);
	free(huge);
	small = make_mail("after@ex.org", "Ada Author <ada@example.org>",
	    "after", "", "", "small");
	fprintf(out, "From a Mon Feb  3 10:00:00 2025\n%s\n", small);
	free(small);
	assert_int_equal(fclose(out), 0);
	in = ingest_new(f->w.st, &f->w.conf);
	quiet(true);
	assert_int_equal(import_path(in, f->w.st, path, &o), ERR_OK);
	quiet(false);
	assert_int_equal(ingest_stats(in)->stored, 3);
	assert_int_equal(ingest_stats(in)->overlimit, 1);
	assert_int_equal(ingest_stats(in)->refused, 1);
	ingest_free(in);
	/* mboxrd: the blank line before the next separator stays. */
	big = realloc(big, strlen(big) + 2);
	assert_non_null(big);
	strcat(big, "\n");
	assert_stored_whole(f, a, "big2@ex.org", big, strlen(big));
	free(big);
	assert_int_equal(
	    store_msg_find(f->w.st, a, "before@ex.org", &m), ERR_OK);
	assert_int_equal(
	    store_msg_find(f->w.st, a, "after@ex.org", &m), ERR_OK);
	assert_int_equal(
	    store_msg_find(f->w.st, a, "huge@ex.org", &m), ERR_NOTFOUND);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_every_error_passed_up, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_any_order, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_reversed_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_import_order, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_over_limit, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
