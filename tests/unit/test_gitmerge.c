/*
 * Tree merges (bot/gitmerge.c) and history for forwarding
 * (bot/gitlog.c) against git itself: a clean merge gives the tree `git
 * merge-tree --write-tree` gives, a conflict names the files git names,
 * the same merge twice is the same commit; ranges, subjects and merge
 * bases as git log and git merge-base say; the diff of a range, its
 * diffstat at 80 columns as `git diff -M --stat --summary` prints it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bot/git/gitlog.h"
#include "bot/git/gitmerge.h"
#include "bot/git/gitremote.h"
#include "bot/git/gitrepo.h"
#include "parsers/diff.h"
#include "tests/unit/gittest.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/log.h"

static const char *tmp;
static struct gitrepo *stage;

static const char setup_sh[] =
    "set -e; cd %s; git init -q -b master work; cd work; "
    "seq 1 100 | sed 's/^/line /' > f; seq 1 40 | sed 's/^/g /' > g; "
    "mkdir -p d/e; seq 1 30 | sed 's/^/deep /' > d/e/x.c; "
    "git add -A; git commit -qm base; git tag base; "
    /* ours: the staging side */
    "git checkout -qb ours base; "
    "sed -i 's/^line 10$/line TEN/' f; git commit -qam 'f: ten'; "
    /* a tree that merges cleanly, with a rename and a new file */
    "git checkout -qb clean base; "
    "sed -i 's/^g 30$/g THIRTY/' g; "
    "git commit -qam 'g: thirty' -m 'Why thirty.' -m 'Acked-by: X <x@e.org>'; "
    "git mv d/e/x.c d/e/y.c; echo new > d/n.txt; git add -A; "
    "git -c user.name=Zed -c user.email=z@e.org commit -qm 'd: move x "
    "to y'; "
    /* a tree touching line 10 too */
    "git checkout -qb clash base; "
    "sed -i 's/^line 10$/line ten, clashing/' f; echo c >> g; "
    "sed -i 's/^g 1$/g one/' g; git commit -qam 'f: clash'; "
    "git checkout -q master";

static int
setup(void **state)
{
	(void)state;
	tmp = gt_setup();
	log_set_level(LOG_ERR);
	if (gt_sh(setup_sh, tmp) != 0)
		return -1;
	if (gt_sh("git init -q --bare %s/stage.git && git -C %s/stage.git "
	          "fetch -q %s/work 'refs/heads/*:refs/heads/*'",
	        tmp, tmp, tmp) != 0)
		return -1;
	{
		char path[300];

		snprintf(path, sizeof(path), "%s/stage.git", tmp);
		return gitrepo_open(path, &stage) == ERR_OK ? 0 : -1;
	}
}

static int
teardown(void **state)
{
	(void)state;
	gitrepo_free(stage);
	gt_teardown(tmp);
	return 0;
}

static char *
rev(const char *what)
{
	char *s = gt_out("git -C %s/stage.git rev-parse %s", tmp, what);

	assert_non_null(s);
	return s;
}

static void
test_clean_merge(void **state)
{
	char *ours = rev("ours"), *theirs = rev("clean"), *want, *got;
	char out[41], again[41];
	struct buf conf = BUF_INIT;

	(void)state;
	assert_int_equal(
	    gitmerge_commit(stage, ours, theirs, "Merge branch 'clean'\n",
	        "patchyard", "bot@example.org", 1700000500, out, &conf),
	    ERR_OK);
	assert_int_equal(conf.n, 0);
	want = gt_out("git -C %s/stage.git merge-tree --write-tree %s %s", tmp,
	    ours, theirs);
	got = gt_out("git -C %s/stage.git rev-parse %s^{tree}", tmp, out);
	assert_non_null(want);
	assert_string_equal(got, want);
	free(got);
	got = gt_out("git -C %s/stage.git log -1 --format='%%P|%%an <%%ae> "
	             "%%at|%%cn|%%B' %s",
	    tmp, out);
	assert_non_null(got);
	{
		char expect[300];

		snprintf(expect, sizeof(expect),
		    "%s %s|patchyard <bot@example.org> 1700000500|patchyard|"
		    "Merge branch 'clean'",
		    ours, theirs);
		assert_string_equal(got, expect);
	}
	/* The same inputs, the same commit: rebuilds reuse what is on top. */
	assert_int_equal(
	    gitmerge_commit(stage, ours, theirs, "Merge branch 'clean'\n",
	        "patchyard", "bot@example.org", 1700000500, again, &conf),
	    ERR_OK);
	assert_string_equal(out, again);
	assert_int_equal(
	    gt_sh("git -C %s/stage.git fsck --strict --no-progress %s "
	          "2>/dev/null",
	        tmp, out),
	    0);
	assert_true(gitmerge_contains(stage, out, theirs));
	assert_true(gitmerge_contains(stage, out, ours));
	assert_true(gitmerge_contains(stage, ours, ours));
	assert_false(gitmerge_contains(stage, ours, theirs));
	free(want);
	free(got);
	free(ours);
	free(theirs);
	buf_free(&conf);
}

static void
test_conflict(void **state)
{
	char *ours = rev("ours"), *theirs = rev("clash"), *git;
	char out[41];
	struct buf conf = BUF_INIT;

	(void)state;
	assert_int_equal(
	    gitmerge_commit(stage, ours, theirs, "Merge\n", "patchyard",
	        "bot@example.org", 1700000500, out, &conf),
	    ERR_CONFLICT);
	assert_string_equal(out, "");
	/* git names the same files (g merges cleanly). */
	git = gt_out("git -C %s/stage.git merge-tree --write-tree "
	             "--name-only %s %s | sed -n '2,/^$/p' | sed '/^$/d'",
	    tmp, ours, theirs);
	assert_non_null(git);
	assert_string_equal(git, "f");
	assert_string_equal(buf_cstr(&conf), "f\n");
	free(git);
	free(ours);
	free(theirs);
	buf_free(&conf);
}

static void
test_range_and_subjects(void **state)
{
	struct arena *a = arena_new();
	struct gitlog_commit *c = NULL, one;
	char *base = rev("base"), *head = rev("clean"), *git, mb[41];
	struct buf b = BUF_INIT;
	size_t n = 0, i;

	(void)state;
	assert_int_equal(gitlog_range(stage, a, base, head, &c, &n), ERR_OK);
	for (i = 0; i < n; i++)
		buf_addf(&b, "%s %s <%s> %s|", c[i].id, c[i].author_name,
		    c[i].author_email, c[i].subject);
	git = gt_out("git -C %s/stage.git log --reverse --format='%%H %%an "
	             "<%%ae> %%s|' %s..%s | tr -d '\\n'",
	    tmp, base, head);
	assert_string_equal(buf_cstr(&b), git);
	free(git);
	assert_int_equal(gitlog_commit(stage, a, c[0].id, &one), ERR_OK);
	assert_string_equal(one.subject, "g: thirty");
	assert_string_equal(one.body, "Why thirty.\n\nAcked-by: X <x@e.org>\n");
	assert_string_equal(one.parent, base);
	assert_int_equal(one.author_tz, 60);
	git = rev("ours");
	assert_int_equal(gitlog_merge_base(stage, head, git, mb), ERR_OK);
	assert_string_equal(mb, base);
	free(git);
	buf_free(&b);
	free(base);
	free(head);
	arena_free(a);
}

/* The diffstat of a range at 80 columns is request-pull's. */
static void
test_diff_stat(void **state)
{
	struct arena *a = arena_new();
	struct buf d = BUF_INIT, st = BUF_INIT;
	struct diff *df = NULL;
	char *base = rev("base"), *head = rev("clean"), *git;

	(void)state;
	assert_int_equal(gitlog_diff(stage, base, head, &d), ERR_OK);
	assert_int_equal(diff_parse(a, d.p, d.n, &df), ERR_OK);
	diff_stat_width(&st, df, 80);
	git = gt_out("COLUMNS= git -C %s/stage.git diff -M --stat --summary "
	             "%s..%s",
	    tmp, base, head);
	assert_non_null(git);
	while (st.n && st.p[st.n - 1] == '\n')
		st.p[--st.n] = '\0';
	assert_string_equal(buf_cstr(&st), git);
	free(git);
	buf_free(&d);
	buf_free(&st);
	free(base);
	free(head);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_merge),
		cmocka_unit_test(test_conflict),
		cmocka_unit_test(test_range_and_subjects),
		cmocka_unit_test(test_diff_stat),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
