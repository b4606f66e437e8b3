/*
 * Packing and pruning the staging repository (bot/git/gitgc.c), with git
 * as the judge: after gc every branch and tag is where it was, git fsck
 * is content, one pack holds exactly what the refs and the kept commits
 * reach, the rest is gone, and a build holding the repository makes gc
 * wait its turn.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bot/git/gitgc.h"
#include "bot/git/gitrepo.h"
#include "tests/unit/gittest.h"
#include "util/log.h"

static const char *tmp;

/* A bare repository with loose objects, a pack, a branch, an annotated
 * tag, and two commits no ref names (one to keep, one garbage). */
static const char setup_sh[] =
    "set -e; cd %s; git init -q --bare -b stable st.git; "
    "git init -q -b master w; cd w; echo 1 > a; git add a; "
    "git commit -qm one; echo 2 > a; git commit -qam two; "
    "git tag -a -m v1 v1; git push -q ../st.git master:stable v1; "
    "git -C ../st.git repack -q; "
    "echo 3 > a; git commit -qam three; git push -q ../st.git "
    "master:stable; "
    "git checkout -q -b side HEAD~2; echo kept > k; git add k; "
    "git commit -qm kept; git rev-parse HEAD > ../kept; "
    "echo gone > g; git add g; git commit -qm gone; "
    "git rev-parse HEAD > ../gone; git push -q ../st.git side:tmp; "
    "git -C ../st.git update-ref -d refs/heads/tmp";

static int
setup(void **state)
{
	(void)state;
	tmp = gt_setup();
	log_set_level(LOG_ERR);
	return gt_sh(setup_sh, tmp);
}

static int
teardown(void **state)
{
	(void)state;
	gt_teardown(tmp);
	return 0;
}

static void
test_gc(void **state)
{
	struct gitgc_stats s;
	char path[256], *kept, *gone, *before, *after, *n;
	const char *keep[1];

	(void)state;
	snprintf(path, sizeof(path), "%s/st.git", tmp);
	kept = gt_out("cat %s/kept", tmp);
	gone = gt_out("cat %s/gone", tmp);
	before = gt_out("git -C %s show-ref", path);
	keep[0] = kept;
	assert_int_equal(gitgc_run(path, keep, 1, &s), ERR_OK);
	assert_true(s.loose_before > 0);
	assert_true(s.packs_before == 1);
	after = gt_out("git -C %s show-ref", path);
	assert_string_equal(before, after);
	assert_int_equal(
	    gt_sh("git -C %s fsck --no-dangling --no-progress", path), 0);
	assert_int_equal(gt_sh("git -C %s cat-file -e %s", path, kept), 0);
	assert_int_not_equal(
	    gt_sh("git -C %s cat-file -e %s 2>/dev/null", path, gone), 0);
	n = gt_out("ls %s/objects/pack/*.pack | wc -l; "
	           "find %s/objects -path '*/pack' -prune -o -type f -print "
	           "| grep -v -e info/ -e pack/ | wc -l",
	    path, path);
	assert_string_equal(n, "1\n0");
	assert_true(gitgc_last(path) > 0);
	free(n);

	/* A build holds the repository: gc is refused, nothing moves. */
	{
		struct gitrepo *r;

		assert_int_equal(gitrepo_open(path, &r), ERR_OK);
		assert_int_equal(gitgc_run(path, NULL, 0, &s), ERR_BUSY);
		gitrepo_free(r);
	}
	assert_int_equal(gitgc_run(path, NULL, 0, &s), ERR_OK);
	assert_int_not_equal(
	    gt_sh("git -C %s cat-file -e %s 2>/dev/null", path, kept), 0);
	free(kept);
	free(gone);
	free(before);
	free(after);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gc),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
