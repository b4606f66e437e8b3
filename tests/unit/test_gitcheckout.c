/*
 * A commit's files in a throw-away folder (bot/git/gitcheckout.c),
 * against git: the folder holds what `git archive` of the same commit
 * holds (modes and symbolic links too), the bare repository gets no
 * index, and HEAD naming the same commit changes nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bot/git/gitcheckout.h"
#include "bot/git/gitrepo.h"
#include "tests/unit/gittest.h"
#include "util/log.h"

static const char *tmp;
static char head[41], first[41];

static int
setup(void **state)
{
	char *h, *f;

	(void)state;
	tmp = gt_setup();
	log_set_level(LOG_ERR);
	if (gt_sh("cd %s && git init -q -b master up && cd up && "
	          "echo one > a && mkdir -p d/e && echo deep > d/e/f && "
	          "printf '#!/bin/sh\\necho hi\\n' > run.sh && "
	          "chmod +x run.sh && ln -s d/e/f link && git add -A && "
	          "git commit -qm one && echo two >> a && "
	          "git commit -qam two && "
	          "git clone -q --bare . ../stage.git",
	        tmp) != 0)
		return -1;
	h = gt_out("git -C %s/up rev-parse HEAD", tmp);
	f = gt_out("git -C %s/up rev-parse HEAD~1", tmp);
	if (h == NULL || f == NULL)
		return -1;
	snprintf(head, sizeof(head), "%s", h);
	snprintf(first, sizeof(first), "%s", f);
	free(h);
	free(f);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	gt_teardown(tmp);
	return 0;
}

static void
test_info(void **state)
{
	struct gitrepo *r = NULL;
	char path[256], tree[41], parent[41];
	char *want;

	(void)state;
	snprintf(path, sizeof(path), "%s/stage.git", tmp);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);
	assert_int_equal(gitcheckout_info(r, head, tree, parent), ERR_OK);
	want = gt_out("git -C %s rev-parse %s^{tree}", path, head);
	assert_non_null(want);
	assert_string_equal(tree, want);
	assert_string_equal(parent, first);
	free(want);
	assert_int_equal(gitcheckout_info(r, first, tree, parent), ERR_OK);
	assert_string_equal(parent, "");
	assert_int_equal(
	    gitcheckout_info(
	        r, "0123456789012345678901234567890123456789", tree, NULL),
	    ERR_NOTFOUND);
	gitrepo_free(r);
}

/* The files of commit in a new folder equal git archive's. */
static void
check_out(struct gitrepo *r, const char *commit, const char *name)
{
	char dir[256];

	snprintf(dir, sizeof(dir), "%s/%s", tmp, name);
	assert_int_equal(gt_sh("mkdir %s", dir), 0);
	assert_int_equal(gitcheckout_write(r, commit, dir), ERR_OK);
	assert_int_equal(gt_sh("mkdir %s.want && git -C %s/stage.git archive "
	                       "%s | tar -x -C %s.want && "
	                       "diff -r --no-dereference %s %s.want",
	                     dir, tmp, commit, dir, dir, dir),
	    0);
	assert_int_equal(gt_sh("test -x %s/run.sh && test -L %s/link && "
	                       "test \"$(readlink %s/link)\" = d/e/f",
	                     dir, dir, dir),
	    0);
}

static void
test_write(void **state)
{
	struct gitrepo *r = NULL;
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/stage.git", tmp);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);
	/* HEAD of the bare clone is master: the same commit and an older
	 * one both come out whole. */
	check_out(r, head, "w1");
	check_out(r, first, "w2");
	check_out(r, head, "w3");
	assert_int_equal(gt_sh("test ! -e %s/index", path), 0);
	assert_int_equal(
	    gt_sh("test -z \"$(ls -A %s/w1/.git 2>/dev/null)\"", tmp), 0);
	gitrepo_free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_info),
		cmocka_unit_test(test_write),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
