/*
 * The tester's entry points as the daemon calls them (bot/tester/
 * tester.h): tester_pending() sees work in a fresh build, none once it
 * is tested, work again for a retest or a run left behind by a process
 * that died; tester_run() does that work and nothing more.  The staging
 * tree is made by the command line ($PATCHYARD, or ./patchyard) from
 * real git format-patch mails; the tester runs in this process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <sys/wait.h>

#include "bot/cli/conf.h"
#include "bot/tester/tester.h"
#include "storage/store.h"
#include "storage/store_test.h"
#include "tests/unit/gittest.h"
#include "util/log.h"

static const char *tmp;
static char cfg_file[300];
static const char *yard; /* absolute */

static int
setup(void **state)
{
	char conf[1024];

	(void)state;
	tmp = gt_setup();
	log_set_level(LOG_ERR);
	yard = getenv("PATCHYARD");
	if (yard == NULL || *yard == '\0')
		yard = realpath("patchyard", NULL);
	if (yard == NULL)
		return -1;
	snprintf(cfg_file, sizeof(cfg_file), "%s/bot.conf", tmp);
	snprintf(conf, sizeof(conf),
	    "[core]\n\tdatabase = yard.db\n"
	    "[project \"demo\"]\n\tlist = demo@lists.example.org\n"
	    "\tupstream = up\n\tstaging = staging.git\n"
	    "[auth]\n\trequire = none\n"
	    "[test]\n\tcommand = echo run >> %s/runs; test ! -e broken\n"
	    /* It counts its runs outside its tree. */
	    "\tsandbox = none\n",
	    tmp);
	gt_write(cfg_file, conf);
	if (gt_sh("cd %s && git init -q -b master up && cd up && "
	          "echo a > a && git add a && git commit -qm base && "
	          "git checkout -qb t && echo b > b && git add b && "
	          "git commit -qm 'add b' && echo c > c && git add c && "
	          "git commit -qm 'add c' && "
	          "GIT_COMMITTER_NAME='A U Thor' "
	          "GIT_COMMITTER_EMAIL=author@example.org "
	          "git format-patch -q --thread=shallow --cover-letter "
	          "-o ../mail master..t",
	        tmp) != 0)
		return -1;
	if (gt_sh("cd %s && %s -c bot.conf init >/dev/null && "
	          "for m in mail/*.patch; do %s -c bot.conf ingest "
	          "--project demo < $m || exit 1; done && "
	          "%s -c bot.conf stage 1 --series >/dev/null && "
	          "%s -c bot.conf rebuild",
	        tmp, yard, yard, yard, yard) != 0)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	gt_teardown(tmp);
	return 0;
}

static int
runs(void)
{
	char *out = gt_out("cat %s/runs 2>/dev/null | wc -l", tmp);
	int n = out ? atoi(out) : -1;

	free(out);
	return n;
}

static void
test_work_then_none(void **state)
{
	struct arena *a = arena_new();
	struct config c;
	struct store *st = NULL;
	struct tester_stats s;
	bool work = false;

	(void)state;
	assert_int_equal(conf_load(a, cfg_file, &c), ERR_OK);
	assert_int_equal(store_open(c.database, STORE_RW, &st), ERR_OK);
	assert_int_equal(tester_pending(st, &c, &work), ERR_OK);
	assert_true(work);
	assert_int_equal(tester_run(st, &c, NULL, &s), ERR_OK);
	assert_int_equal(s.runs, 1);
	assert_int_equal(s.checks, 1);
	assert_int_equal(runs(), 1);
	assert_int_equal(tester_pending(st, &c, &work), ERR_OK);
	assert_false(work);
	assert_int_equal(tester_run(st, &c, NULL, &s), ERR_OK);
	assert_int_equal(s.runs, 0);
	assert_int_equal(runs(), 1);

	/* A retest asked for (as #yard retest does): work again. */
	assert_int_equal(store_test_request(st, 1, 2, "mia", 1), ERR_OK);
	assert_int_equal(tester_pending(st, &c, &work), ERR_OK);
	assert_true(work);
	assert_int_equal(tester_run(st, &c, NULL, &s), ERR_OK);
	assert_int_equal(s.runs, 1);
	assert_int_equal(runs(), 2);
	assert_int_equal(tester_pending(st, &c, &work), ERR_OK);
	assert_false(work);
	store_close(st);
	arena_free(a);
}

/*
 * A run claimed by a process that died (its tree has no result: it was
 * forgotten by a retest) goes back to the queue, and the tester runs
 * what it still wants.
 */
static void
test_run_left_by_a_dead_process(void **state)
{
	struct arena *a = arena_new();
	struct config c;
	struct store *st = NULL;
	struct tester_stats s;
	struct store_test_run r;
	bool work = false;
	int64_t id, got;
	char *tip, *tree;
	pid_t dead;
	int before = runs();

	(void)state;
	assert_int_equal(conf_load(a, cfg_file, &c), ERR_OK);
	assert_int_equal(store_open(c.database, STORE_RW, &st), ERR_OK);
	tip = gt_out("git -C %s/staging.git rev-parse unstable", tmp);
	tree = gt_out("git -C %s/staging.git rev-parse unstable^{tree}", tmp);
	assert_non_null(tip);
	assert_non_null(tree);
	if ((dead = fork()) == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	memset(&r, 0, sizeof(r));
	r.project_id = 1;
	r.patch_id = 2;
	r.commit = tip;
	r.tree = tree;
	r.command = c.test_command;
	r.purpose = "target";
	assert_int_equal(store_begin(st), ERR_OK);
	assert_int_equal(store_test_forget(st, tree, c.test_command), ERR_OK);
	assert_int_equal(store_test_add(st, &r, 1, &id), ERR_OK);
	assert_int_equal(store_test_claim(st, 0, dead, 1, &got), ERR_OK);
	assert_int_equal(got, id);
	assert_int_equal(store_commit(st), ERR_OK);
	assert_int_equal(tester_pending(st, &c, &work), ERR_OK);
	assert_true(work);
	assert_int_equal(tester_run(st, &c, NULL, &s), ERR_OK);
	assert_int_equal(s.runs, 1);
	assert_int_equal(runs(), before + 1);
	assert_int_equal(tester_pending(st, &c, &work), ERR_OK);
	assert_false(work);
	free(tip);
	free(tree);
	store_close(st);
	arena_free(a);
}

static void
test_no_command_no_work(void **state)
{
	struct arena *a = arena_new();
	struct config c;
	struct store *st = NULL;
	struct tester_stats s;
	bool work = true;

	(void)state;
	assert_int_equal(conf_load(a, cfg_file, &c), ERR_OK);
	c.test_command = NULL;
	assert_int_equal(store_open(c.database, STORE_RW, &st), ERR_OK);
	assert_int_equal(store_test_request(st, 1, 2, "mia", 1), ERR_OK);
	assert_int_equal(tester_pending(st, &c, &work), ERR_OK);
	assert_false(work);
	assert_int_equal(tester_run(st, &c, NULL, &s), ERR_OK);
	assert_int_equal(s.runs, 0);
	store_close(st);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_work_then_none),
		cmocka_unit_test(test_run_left_by_a_dead_process),
		cmocka_unit_test(test_no_command_no_work),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
