/*
 * The patches branch (bot/git/gitquilt.c): the queue as a quilt series, one
 * commit per change, read back with git.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bot/git/gitquilt.h"
#include "bot/git/gitrepo.h"
#include "tests/unit/gittest.h"
#include "util/log.h"

static const char *tmp;
static struct gitrepo *r;

static int
setup(void **state)
{
	char path[256];

	(void)state;
	tmp = gt_setup();
	log_set_level(LOG_ERR);
	snprintf(path, sizeof(path), "%s/stage.git", tmp);
	return gitrepo_open(path, &r) == ERR_OK ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	gitrepo_free(r);
	gt_teardown(tmp);
	return 0;
}

#define PATCH(s, q, t)                                                         \
	{                                                                      \
		(s), (q), (t), sizeof(t) - 1, NULL                             \
	}

static enum err export(
    const struct gitquilt_patch *p, size_t n, char tip[41], bool *changed) {
	return gitquilt_export(r, p, n, "patches: update\n\nA change.\n",
	    "patchyard", "bot@example.org", 1700000000, 0, tip, changed);
}

static char *
show(const char *what)
{
	char *s = gt_out("git -C %s/stage.git show '%s'", tmp, what);

	assert_non_null(s);
	return s;
}

static void
test_series(void **state)
{
	struct gitquilt_patch q[3] = {
		PATCH("mm-fix-foo", "stable", "From: a\n\nfoo\n"),
		PATCH("mm-add-bar", "unstable", "From: b\n\nbar\n"),
		PATCH("mm-add-baz-2", "unstable", "From: c\n\nbaz\n"),
	};
	char tip[41], tip2[41], head[41];
	bool changed;
	char *s;

	(void)state;
	assert_int_equal(export(q, 3, tip, &changed), ERR_OK);
	assert_true(changed);
	assert_int_equal(gitrepo_ref(r, GITQUILT_REF, head), ERR_OK);
	assert_string_equal(head, tip);
	s = show("patches:patches/series");
	assert_string_equal(s,
	    "# stable\nmm-fix-foo.patch\n# unstable\n"
	    "mm-add-bar.patch\nmm-add-baz-2.patch");
	free(s);
	s = show("patches:patches/mm-add-bar.patch");
	assert_string_equal(s, "From: b\n\nbar");
	free(s);
	s = gt_out("git -C %s/stage.git ls-tree -r --name-only patches", tmp);
	assert_string_equal(s,
	    "patches/mm-add-bar.patch\n"
	    "patches/mm-add-baz-2.patch\n"
	    "patches/mm-fix-foo.patch\npatches/series");
	free(s);

	/* The same queue: no commit. */
	assert_int_equal(export(q, 3, tip2, &changed), ERR_OK);
	assert_false(changed);
	assert_string_equal(tip, tip2);

	/* A change: one more commit on top, the branch only grows. */
	q[1].queue = "stable";
	assert_int_equal(export(q, 3, tip2, &changed), ERR_OK);
	assert_true(changed);
	assert_int_equal(gt_sh("git -C %s/stage.git merge-base --is-ancestor "
	                       "%s %s",
	                     tmp, tip, tip2),
	    0);
	s = show("patches:patches/series");
	assert_string_equal(s,
	    "# stable\nmm-fix-foo.patch\nmm-add-bar.patch\n"
	    "# unstable\nmm-add-baz-2.patch");
	free(s);

	/* An empty queue, then a dropped patch's file is gone. */
	assert_int_equal(export(q, 0, tip, &changed), ERR_OK);
	assert_true(changed);
	s = gt_out("git -C %s/stage.git ls-tree -r --name-only patches", tmp);
	assert_string_equal(s, "patches/series");
	free(s);
	s = gt_out("git -C %s/stage.git rev-list --count patches", tmp);
	assert_string_equal(s, "3");
	free(s);
	s = gt_out("git -C %s/stage.git log -1 --format=%%an/%%ae/%%at/%%s "
	           "patches",
	    tmp);
	assert_string_equal(s,
	    "patchyard/bot@example.org/1700000000/"
	    "patches: update");
	free(s);
	assert_int_equal(
	    gt_sh("git -C %s/stage.git fsck --strict --no-progress", tmp), 0);
}

/* Trees merged into unstable are comment lines of series, no files. */
static void
test_tree_lines(void **state)
{
	struct gitquilt_patch q[3] = {
		PATCH("mm-fix-foo", "stable", "From: a\n\nfoo\n"),
		{ NULL, "unstable", NULL, 0,
		    "tree net https://example.org/net.git main 0123abcd" },
		PATCH("mm-add-bar", "unstable", "From: b\n\nbar\n"),
	};
	char tip[41];
	bool changed;
	char *s;

	(void)state;
	assert_int_equal(export(q, 3, tip, &changed), ERR_OK);
	s = show("patches:patches/series");
	assert_string_equal(s,
	    "# stable\nmm-fix-foo.patch\n# unstable\n"
	    "# tree net https://example.org/net.git main 0123abcd\n"
	    "mm-add-bar.patch");
	free(s);
	s = gt_out("git -C %s/stage.git ls-tree -r --name-only patches", tmp);
	assert_string_equal(s,
	    "patches/mm-add-bar.patch\npatches/mm-fix-foo.patch\n"
	    "patches/series");
	free(s);
}

static void
test_bad_slugs(void **state)
{
	static const char *bad[] = { "", ".hidden", "../x", "a/b", "a b", "x\n",
		"sp\xc3\xa4t" };
	struct gitquilt_patch q[2] = { PATCH("ok", NULL, "x\n"),
		PATCH("ok", NULL, "y\n") };
	char before[41], after[41], tip[41];
	bool changed;
	size_t i;

	(void)state;
	assert_int_equal(gitrepo_ref(r, GITQUILT_REF, before), ERR_OK);
	assert_int_equal(export(q, 2, tip, &changed), ERR_INVAL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		q[1].slug = bad[i];
		assert_false(gitquilt_slug_valid(bad[i]));
		assert_int_equal(export(q, 2, tip, &changed), ERR_INVAL);
		assert_false(changed);
	}
	assert_int_equal(gitrepo_ref(r, GITQUILT_REF, after), ERR_OK);
	assert_string_equal(before, after);
	assert_true(gitquilt_slug_valid("mm-fix-foo-bar_2.v3"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_tree_lines),
		cmocka_unit_test(test_bad_slugs),
	};

	return cmocka_run_group_tests_name("gitquilt", tests, setup, teardown);
}
