/*
 * The staging repository (bot/git/gitrepo.c) and its remotes
 * (bot/git/gitremote.c), against real repositories made with git.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <git2.h>

#include "bot/git/gitremote.h"
#include "bot/git/gitrepo.h"
#include "tests/unit/gittest.h"
#include "util/log.h"

static const char *tmp;

static int
setup(void **state)
{
	(void)state;
	tmp = gt_setup();
	log_set_level(LOG_ERR);
	/* An upstream with two commits on master and one on "next". */
	if (gt_sh("cd %s && git init -q -b master up && cd up && "
	          "echo one > a && git add a && git commit -qm one && "
	          "echo two >> a && git commit -qam two && "
	          "git checkout -qb next && echo three >> a && "
	          "git commit -qam three && git checkout -q master",
	        tmp) != 0)
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

/*
 * The name checks need no repository: `patchyard ingest` asks whether a
 * pull request's branch is a ref name before anything has started
 * libgit2, which recorded why "for..demo" is not one in an error state
 * it had not set up, and crashed.  First in main(), before any test
 * opens a repository.
 */
static void
test_names_before_any_repository(void **state)
{
	(void)state;
	assert_false(gitremote_ref_valid("for..demo"));
	assert_false(gitremote_ref_valid("a b"));
	assert_false(gitrepo_branch_valid("x.lock"));
	assert_true(gitremote_ref_valid("for-demo"));
	assert_true(gitremote_ref_valid("tags/v1.0"));
	assert_true(gitrepo_branch_valid("feature/x"));
}

static void
test_open_creates_and_reopens(void **state)
{
	struct gitrepo *r = NULL;
	char path[256], hex[41];

	(void)state;
	snprintf(path, sizeof(path), "%s/new/deep/stage.git", tmp);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);
	assert_int_equal(
	    gitrepo_ref(r, "refs/heads/stable", hex), ERR_NOTFOUND);
	gitrepo_free(r);
	/* git agrees it is a bare repository, HEAD on stable. */
	assert_int_equal(gt_sh("test \"$(git -C %s rev-parse "
	                       "--is-bare-repository)\" = true",
	                     path),
	    0);
	assert_int_equal(gt_sh("test \"$(git -C %s symbolic-ref HEAD)\" = "
	                       "refs/heads/stable",
	                     path),
	    0);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);
	gitrepo_free(r);
}

static void
test_open_refuses_foreign_folder(void **state)
{
	struct gitrepo *r = NULL;
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/foreign", tmp);
	assert_int_equal(
	    gt_sh("mkdir -p %s && echo x > %s/file", path, path), 0);
	assert_int_not_equal(gitrepo_open(path, &r), ERR_OK);
	assert_null(r);
	/* A work tree repository is not a staging repository either. */
	snprintf(path, sizeof(path), "%s/up", tmp);
	assert_int_not_equal(gitrepo_open(path, &r), ERR_OK);
	assert_null(r);
	/* Nothing was written into the foreign folder. */
	assert_int_equal(gt_sh("test \"$(ls %s/foreign)\" = file", tmp), 0);
}

static void
test_fetch_and_refs(void **state)
{
	struct gitrepo *r = NULL;
	char path[256], url[300], tip[41], hex[41];
	char *master, *next, *first;

	(void)state;
	master = gt_out("git -C %s/up rev-parse master", tmp);
	next = gt_out("git -C %s/up rev-parse next", tmp);
	first = gt_out("git -C %s/up rev-parse master^", tmp);
	assert_non_null(master);
	snprintf(path, sizeof(path), "%s/fetch.git", tmp);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);

	/* A local path. */
	snprintf(url, sizeof(url), "%s/up", tmp);
	assert_int_equal(gitremote_fetch(r, url, "master", tip), ERR_OK);
	assert_string_equal(tip, master);
	assert_int_equal(gitrepo_ref(r, "refs/upstream/master", hex), ERR_OK);
	assert_string_equal(hex, master);
	assert_true(gitrepo_has(r, master));
	assert_true(gitrepo_has(r, "0000") == false);

	/* file:// and a second branch. */
	snprintf(url, sizeof(url), "file://%s/up", tmp);
	assert_int_equal(gitremote_fetch(r, url, "next", tip), ERR_OK);
	assert_string_equal(tip, next);
	/* No tags, no other branches came along. */
	assert_int_equal(
	    gt_sh("test \"$(git -C %s for-each-ref | wc -l)\" = 2", path), 0);

	/* Upstream rewinds: the forced refspec follows it. */
	assert_int_equal(gt_sh("git -C %s/up branch -qf next master^", tmp), 0);
	assert_int_equal(gitremote_fetch(r, url, "next", tip), ERR_OK);
	assert_string_equal(tip, first);

	/* Errors. */
	assert_int_equal(gitremote_fetch(r, url, "nope", tip), ERR_NOTFOUND);
	assert_string_equal(tip, "");
	assert_int_equal(gitremote_fetch(r, url, "a..b", tip), ERR_INVAL);
	assert_int_equal(gitremote_fetch(r, url, "x:y", tip), ERR_INVAL);
	snprintf(url, sizeof(url), "%s/missing", tmp);
	assert_int_not_equal(gitremote_fetch(r, url, "master", tip), ERR_OK);

	/* Moving refs: forced, compare-and-swap, create-only. */
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/stable", master, NULL, "t"), ERR_OK);
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/stable", first, first, "t"),
	    ERR_CONFLICT);
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/stable", first, master, "t"),
	    ERR_OK);
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/stable", master, "", "t"),
	    ERR_CONFLICT);
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/unstable", master, "", "t"), ERR_OK);
	assert_int_equal(gitrepo_ref(r, "refs/heads/stable", hex), ERR_OK);
	assert_string_equal(hex, first);
	/* Refs name commits that exist, by full id, with valid names. */
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/x",
	        "0123456789012345678901234567890123456789", NULL, "t"),
	    ERR_NOTFOUND);
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/x", "0123", NULL, "t"), ERR_INVAL);
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/a..b", master, NULL, "t"),
	    ERR_INVAL);
	assert_int_equal(gitrepo_delete_ref(r, "refs/heads/unstable"), ERR_OK);
	assert_int_equal(gitrepo_delete_ref(r, "refs/heads/unstable"), ERR_OK);
	assert_int_equal(
	    gitrepo_ref(r, "refs/heads/unstable", hex), ERR_NOTFOUND);

	assert_true(gitrepo_branch_valid("master"));
	assert_true(gitrepo_branch_valid("feature/x"));
	assert_false(gitrepo_branch_valid(""));
	assert_false(gitrepo_branch_valid("-x") && false);
	assert_false(gitrepo_branch_valid("a b"));
	assert_false(gitrepo_branch_valid("x.lock"));
	gitrepo_free(r);
	free(master);
	free(next);
	free(first);
}

static void
test_push(void **state)
{
	struct gitrepo *r = NULL;
	char path[256], remote[256], tip[41], url[300];
	char *master, *first, *got;
	struct gitremote_push refs[3] = {
		{ "refs/heads/stable", true, false, false, "" },
		{ "refs/heads/unstable", true, false, false, "" },
		{ "refs/heads/patches", false, false, false, "" },
	};

	(void)state;
	master = gt_out("git -C %s/up rev-parse master", tmp);
	first = gt_out("git -C %s/up rev-parse master^", tmp);
	snprintf(path, sizeof(path), "%s/push.git", tmp);
	snprintf(remote, sizeof(remote), "%s/remote.git", tmp);
	assert_int_equal(gt_sh("git init -q --bare %s", remote), 0);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);
	snprintf(url, sizeof(url), "%s/up", tmp);
	assert_int_equal(gitremote_fetch(r, url, "master", tip), ERR_OK);

	/* unstable does not exist yet: skipped, the others pushed. */
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/stable", master, NULL, "t"), ERR_OK);
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/patches", first, NULL, "t"), ERR_OK);
	assert_int_equal(gitremote_push(r, remote, refs, 3), ERR_OK);
	assert_true(refs[0].ok);
	assert_true(refs[1].skipped);
	assert_true(refs[2].ok);
	got = gt_out("git -C %s rev-parse stable patches", remote);
	assert_non_null(got);
	assert_non_null(strstr(got, master));
	assert_non_null(strstr(got, first));
	free(got);
	/* A local push writes its own pack there: git finds it whole. */
	assert_int_equal(
	    gt_sh("git -C %s fsck --strict --no-dangling 2>/dev/null", remote),
	    0);

	/* stable rewinds (forced: fine), patches moves forward. */
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/stable", first, NULL, "t"), ERR_OK);
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/unstable", master, NULL, "t"),
	    ERR_OK);
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/patches", master, NULL, "t"),
	    ERR_OK);
	assert_int_equal(gitremote_push(r, remote, refs, 3), ERR_OK);
	assert_true(refs[0].ok && refs[1].ok && refs[2].ok);
	got = gt_out("git -C %s rev-parse stable unstable patches", remote);
	assert_non_null(got);
	assert_memory_equal(got, first, 40);
	assert_memory_equal(got + 41, master, 40);
	assert_memory_equal(got + 82, master, 40);
	free(got);

	/* patches rewinds: refused, and the forced refs still go. */
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/patches", first, NULL, "t"), ERR_OK);
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/stable", master, NULL, "t"), ERR_OK);
	assert_int_equal(gitremote_push(r, remote, refs, 3), ERR_CONFLICT);
	assert_true(refs[0].ok);
	assert_true(refs[1].ok);
	assert_false(refs[2].ok);
	assert_true(refs[2].reason[0] != '\0');
	got = gt_out("git -C %s rev-parse stable patches", remote);
	assert_non_null(got);
	assert_memory_equal(got, master, 40);
	assert_memory_equal(got + 41, master, 40);
	free(got);
	assert_int_equal(
	    gt_sh("git -C %s fsck --strict --no-dangling 2>/dev/null", remote),
	    0);

	/* By file:// too, and to a repository that has it all: no pack. */
	snprintf(url, sizeof(url), "file://%s", remote);
	assert_int_equal(
	    gt_sh("ls %s/objects/pack/*.pack | wc -l >%s/n1", remote, tmp), 0);
	assert_int_equal(gitremote_push(r, url, refs, 2), ERR_OK);
	assert_true(refs[0].ok && refs[1].ok);
	assert_int_equal(gt_sh("ls %s/objects/pack/*.pack | wc -l >%s/n2 && "
	                       "cmp -s %s/n1 %s/n2",
	                     remote, tmp, tmp, tmp),
	    0);

	/* No such remote. */
	snprintf(url, sizeof(url), "%s/nowhere.git", tmp);
	assert_int_not_equal(gitremote_push(r, url, refs, 3), ERR_OK);
	gitrepo_free(r);
	free(master);
	free(first);
}

/*
 * A process killed while it moved a ref leaves refs/heads/X.lock; the
 * next one to open the repository alone removes it, so refs move again
 * (a second opener, sharing the repository, leaves locks alone).
 */
static void
test_stale_ref_lock(void **state)
{
	struct gitrepo *r = NULL, *r2 = NULL;
	char path[256], url[300], tip[41], hex[41];

	(void)state;
	snprintf(path, sizeof(path), "%s/locked.git", tmp);
	snprintf(url, sizeof(url), "%s/up", tmp);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);
	assert_int_equal(gitremote_fetch(r, url, "master", tip), ERR_OK);
	gitrepo_free(r);
	assert_int_equal(gt_sh("mkdir -p %s/refs/heads/q && "
	                       "touch %s/refs/heads/stable.lock "
	                       "%s/refs/heads/q/x.lock %s/packed-refs.lock",
	                     path, path, path, path),
	    0);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);
	assert_int_equal(gt_sh("test ! -e %s/refs/heads/stable.lock && "
	                       "test ! -e %s/refs/heads/q/x.lock && "
	                       "test ! -e %s/packed-refs.lock",
	                     path, path, path),
	    0);
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/stable", tip, NULL, "test"), ERR_OK);
	assert_int_equal(gitrepo_ref(r, "refs/heads/stable", hex), ERR_OK);
	assert_string_equal(hex, tip);
	/* While r has it open, a lock file is someone's: left alone. */
	assert_int_equal(gt_sh("touch %s/refs/heads/busy.lock", path), 0);
	assert_int_equal(gitrepo_open(path, &r2), ERR_OK);
	assert_int_equal(gt_sh("test -e %s/refs/heads/busy.lock", path), 0);
	gitrepo_free(r2);
	gitrepo_free(r);
}

/*
 * An upstream another user owns is read as git reads it with
 * safe.directory = * (docs/DESIGN.md §10): by path (our own copy of the
 * branch) and through libgit2's local transport (a tag).  libgit2 alone
 * refuses both, root included.  Needs root, to give the files away.
 */
static void
test_fetch_from_another_owner(void **state)
{
	struct gitrepo *r = NULL;
	char path[256], url[300], tip[41];
	char *master;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(gt_sh("cp -a %s/up %s/theirs && "
	                       "git -C %s/theirs tag v1 master^ && "
	                       "chown -R 65534:65534 %s/theirs",
	                     tmp, tmp, tmp, tmp),
	    0);
	master = gt_out("git -C %s/up rev-parse master", tmp);
	assert_non_null(master);
	snprintf(path, sizeof(path), "%s/owner.git", tmp);
	snprintf(url, sizeof(url), "%s/theirs", tmp);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);
	assert_int_equal(gitremote_fetch(r, url, "master", tip), ERR_OK);
	assert_string_equal(tip, master);
	assert_int_equal(gitremote_fetch(r, url, "tags/v1", tip), ERR_OK);
	gitrepo_free(r);
	free(master);
}

/*
 * A $HOME whose .gitconfig cannot be looked at (here a link to itself:
 * ELOOP, which even root meets; for other users an unreadable folder,
 * EACCES) stopped libgit2 from opening any repository.  git goes on
 * without the file, and so do we.
 */
static void
test_home_config_unreadable(void **state)
{
	struct gitrepo *r = NULL;
	char home[256], path[256], *saved = getenv("HOME");

	(void)state;
	saved = saved ? strdup(saved) : NULL;
	snprintf(home, sizeof(home), "%s/loophome", tmp);
	assert_int_equal(
	    gt_sh("mkdir -p %s && ln -s .gitconfig %s/.gitconfig", home, home),
	    0);
	setenv("HOME", home, 1);
	/* libgit2 looks at $HOME when it starts, or when told to again;
	 * it may have been started by a test before. */
	git_libgit2_init();
	git_libgit2_opts(
	    GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, NULL);
	snprintf(path, sizeof(path), "%s/home.git", tmp);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);
	gitrepo_free(r);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);
	gitrepo_free(r);
	if (saved)
		setenv("HOME", saved, 1);
	git_libgit2_opts(
	    GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, NULL);
	git_libgit2_shutdown();
	free(saved);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_before_any_repository),
		cmocka_unit_test(test_open_creates_and_reopens),
		cmocka_unit_test(test_open_refuses_foreign_folder),
		cmocka_unit_test(test_fetch_and_refs),
		cmocka_unit_test(test_push),
		cmocka_unit_test(test_stale_ref_lock),
		cmocka_unit_test(test_fetch_from_another_owner),
		cmocka_unit_test(test_home_config_unreadable),
	};

	return cmocka_run_group_tests_name("gitrepo", tests, setup, teardown);
}
