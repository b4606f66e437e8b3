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
#include "bot/workflow/ingest.h"
#include "parsers/config.h"
#include "parsers/mail.h"
#include "storage/store.h"
#include "tests/unit/testutil.h"
#include "util/arena.h"
#include "util/log.h"

static const char conf_text[] =
    "[core]\n\tdatabase = unused\n"
    "[bot]\n\taddress = yard@bot.example.org\n"
    "[project \"demo\"]\n\tlist = demo@lists.example.org\n"
    "[maintainer \"mia\"]\n\temail = mia@example.org\n"
    "[auth]\n\trequire = none\n";

struct fixture {
	char dir[64];
	char db[96];
	struct store *st;
	struct arena *a;
	struct config conf;
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct config_error *errs;
	size_t nerrs;

	snprintf(f->dir, sizeof(f->dir), "/tmp/test_ingest_XXXXXX");
	if (f == NULL || mkdtemp(f->dir) == NULL)
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
	struct fixture *f = *state;
	char cmd[128];

	store_close(f->st);
	arena_free(f->a);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* Ingest one mail in a transaction of its own; commit when keep. */
static enum err
ingest_one(struct fixture *f, const struct source_mail *sm, bool keep,
    unsigned long fault, unsigned long *steps)
{
	struct ingest *in = ingest_new(f->st, &f->conf);
	struct arena *a = arena_new();
	struct mail_opts o;
	struct mail m;
	enum ingest_result res;
	unsigned long before;
	int64_t pid;
	enum err e;

	ingest_mail_opts(in, &o);
	mail_parse(a, sm->raw, sm->n, &o, &m);
	assert_int_equal(store_begin(f->st), ERR_OK);
	before = store_steps(f->st);
	store_fault(f->st, fault);
	e = ingest_project(in, "demo", &m, &pid);
	if (e == ERR_OK)
		e = ingest_mail(in, sm->raw, sm->n, &m, pid, &res);
	store_fault(f->st, 0);
	if (steps)
		*steps = store_steps(f->st) - before;
	if (e == ERR_OK && keep)
		assert_int_equal(store_commit(f->st), ERR_OK);
	else
		store_rollback(f->st);
	ingest_free(in);
	arena_free(a);
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
	bool trunc;
	int j = 0;

	assert_int_equal(
	    source_open("tests/fixtures/ingest/faults.mbox", 0, &src), ERR_OK);
	while (source_next(src, &sm, &trunc) == ERR_OK) {
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_every_error_passed_up, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
