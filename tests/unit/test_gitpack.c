/*
 * Packs the engine writes (bot/git/gitpack.c) and a local push: the
 * packs that hold what the pushed repository lacks are linked into it
 * whole, not read back object by object and written again; loose
 * objects, and everything when the two are on different file systems,
 * are copied into a pack.  git fsck is the judge of every result.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/git/gitpriv.h"
#include "bot/git/gitremote.h"
#include "tests/unit/gittest.h"
#include "util/log.h"

static const char *tmp;

static int
setup(void **state)
{
	(void)state;
	tmp = gt_setup();
	log_set_level(LOG_ERR);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	gt_teardown(tmp);
	return 0;
}

/* n commits on tip (NULL: a root), each adding a file under d/; the
 * last into tip and tree. */
static void
commits(
    struct gitrepo *r, int from, int n, git_oid *tip, bool root, git_oid *tree)
{
	char text[512], hex[41];
	int i;

	for (i = from; i < from + n; i++) {
		git_tree_update u;
		char path[32], body[64];
		git_oid blob, next;
		int k;

		snprintf(path, sizeof(path), "d/f%03d", i);
		snprintf(body, sizeof(body), "file %d\n", i);
		assert_int_equal(
		    gitpriv_blob(r, body, strlen(body), &blob), ERR_OK);
		memset(&u, 0, sizeof(u));
		u.action = GIT_TREE_UPDATE_UPSERT;
		u.path = path;
		u.id = blob;
		u.filemode = GIT_FILEMODE_BLOB;
		assert_int_equal(gittree_update(r, tree, &u, 1, &next), ERR_OK);
		*tree = next;
		git_oid_tostr(hex, sizeof(hex), tip);
		k = snprintf(text, sizeof(text),
		    "tree %s\n%s%s%sauthor A <a@example.org> %d +0000\n"
		    "committer C <c@example.org> %d +0000\n\nfile %d\n",
		    git_oid_tostr_s(tree), root ? "" : "parent ",
		    root ? "" : hex, root ? "" : "\n", 1700000000 + i,
		    1700000000 + i, i);
		assert_int_equal(gitpriv_object(r, GIT_OBJECT_COMMIT, text,
		                     (size_t)k, &next),
		    ERR_OK);
		*tip = next;
		root = false;
	}
}

/* Persist tip (one pack: far more than loose objects take) and name it
 * refs/heads/b. */
static void
persist(struct gitrepo *r, const git_oid *tip)
{
	char hex[41];

	assert_int_equal(gitpriv_persist(r, tip, 1), ERR_OK);
	git_oid_tostr(hex, sizeof(hex), tip);
	assert_int_equal(
	    gitrepo_set_ref(r, "refs/heads/b", hex, NULL, "t"), ERR_OK);
}

static int
count(const char *what, const char *dir)
{
	char *out =
	    gt_out("find %s/objects/pack -name '*.pack' %s | wc -l", dir, what);
	int n = out ? atoi(out) : -1;

	free(out);
	return n;
}

static void
push_ok(struct gitrepo *r, const char *remote, const git_oid *tip)
{
	struct gitremote_push refs[1] = {
		{ "refs/heads/b", true, false, false, "" },
	};
	char *got;

	assert_int_equal(gitremote_push(r, remote, refs, 1), ERR_OK);
	assert_true(refs[0].ok);
	got = gt_out("git -C %s rev-parse b", remote);
	assert_non_null(got);
	assert_memory_equal(got, git_oid_tostr_s(tip), 40);
	free(got);
	assert_int_equal(
	    gt_sh("git -C %s fsck --strict --no-dangling 2>/dev/null", remote),
	    0);
}

static void
test_push_links_packs(void **state)
{
	struct gitrepo *r = NULL;
	char path[300], remote[300], shm[64];
	git_oid tip, tree;
	git_treebuilder *tb = NULL;

	(void)state;
	snprintf(path, sizeof(path), "%s/staging.git", tmp);
	snprintf(remote, sizeof(remote), "%s/pushed.git", tmp);
	assert_int_equal(gt_sh("git init -q --bare %s", remote), 0);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);
	assert_int_equal(git_treebuilder_new(&tb, r->repo, NULL), 0);
	assert_int_equal(git_treebuilder_write(&tree, tb), 0);
	git_treebuilder_free(tb);

	/* A first build: its pack is linked there, not written again. */
	memset(&tip, 0, sizeof(tip));
	commits(r, 0, 40, &tip, true, &tree);
	persist(r, &tip);
	assert_int_equal(count("", path), 1);
	push_ok(r, remote, &tip);
	assert_int_equal(count("", remote), 1);
	assert_int_equal(count("-links +1", remote), 1);

	/* A second one on top: only its own pack goes; the first is there. */
	commits(r, 40, 40, &tip, false, &tree);
	persist(r, &tip);
	push_ok(r, remote, &tip);
	assert_int_equal(count("", remote), 2);
	assert_int_equal(count("-links +1", remote), 2);

	/* A small one, persisted as loose objects: no pack holds them, so
	 * the push writes them into a pack of its own. */
	commits(r, 80, 5, &tip, false, &tree);
	persist(r, &tip);
	assert_int_equal(count("", path), 2);
	push_ok(r, remote, &tip);
	assert_int_equal(count("", remote), 3);
	assert_int_equal(count("-links +1", remote), 2);

	/* Repacked by git: the new pack holds what the next push lacks. */
	commits(r, 85, 40, &tip, false, &tree);
	persist(r, &tip);
	assert_int_equal(gt_sh("git -C %s repack -q -a -d", path), 0);
	assert_int_equal(git_odb_refresh(r->odb), 0);
	push_ok(r, remote, &tip);
	assert_int_equal(count("", remote), 4);
	assert_int_equal(count("-links +1", remote), 1);
	gitrepo_free(r);

	/* A whole history into an empty repository: one link. */
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);
	snprintf(remote, sizeof(remote), "%s/fresh.git", tmp);
	assert_int_equal(gt_sh("git init -q --bare %s", remote), 0);
	push_ok(r, remote, &tip);
	assert_int_equal(count("", remote), 1);
	assert_int_equal(count("-links +1", remote), 1);

	/* On another file system (tmpfs) no link can be made: the objects
	 * are copied. */
	snprintf(shm, sizeof(shm), "/dev/shm/patchyard-gitpack-XXXXXX");
	if (mkdtemp(shm) != NULL) {
		snprintf(remote, sizeof(remote), "%s/other.git", shm);
		assert_int_equal(gt_sh("git init -q --bare %s", remote), 0);
		push_ok(r, remote, &tip);
		assert_int_equal(count("", remote), 1);
		assert_int_equal(count("-links +1", remote), 0);
		assert_int_equal(gt_sh("rm -rf %s", shm), 0);
	}
	gitrepo_free(r);
}

/* Fetch branch master of url into dst; the tip must be what git says. */
static void
fetch_ok(struct gitrepo *r, const char *url, const char *src, const char *dst)
{
	char tip[41], why[200];
	char *want = gt_out("git -C %s rev-parse master", src);

	assert_non_null(want);
	assert_int_equal(
	    gitremote_fetch_ref(r, url, "master", dst, tip, why, sizeof(why)),
	    ERR_OK);
	assert_string_equal(tip, want);
	free(want);
}

/*
 * A branch of a repository on this machine, fetched again and again as
 * the upstream run fetches upstream and the subsystem trees: the
 * source's pack is linked, its loose objects written into a pack, and
 * every descriptor the process had stays its own.  (A source was opened
 * without the lock file, and freeing it closed descriptor 0: the second
 * fetch of a tree then found its commit "not on disk", the pack that
 * held it having been given descriptor 0 and lost it.)
 */
static void
test_fetch_local(void **state)
{
	struct gitrepo *r = NULL;
	char path[300], src[300], url[320];
	struct stat before, after;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/fetching.git", tmp);
	snprintf(src, sizeof(src), "%s/src", tmp);
	snprintf(url, sizeof(url), "file://%s", src);
	/* Descriptor 0 holds a file of ours the fetches must leave alone. */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	if (fd != 0) {
		assert_int_equal(dup2(fd, 0), 0);
		close(fd);
	}
	assert_int_equal(fstat(0, &before), 0);
	assert_int_equal(gt_sh("git init -q %s && cd %s && "
	                       "for i in 1 2 3; do echo $i >f$i && "
	                       "git add f$i && git commit -qm c$i; done && "
	                       "git gc -q",
	                     src, src),
	    0);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);

	/* Packed there: the pack is linked. */
	fetch_ok(r, src, src, "refs/trees/t");
	assert_int_equal(count("", path), 1);
	assert_int_equal(count("-links +1", path), 1);
	/* Loose there: written into a pack of ours. */
	assert_int_equal(gt_sh("cd %s && echo 4 >f4 && git add f4 && "
	                       "git commit -qm c4",
	                     src),
	    0);
	fetch_ok(r, src, src, "refs/trees/t");
	assert_int_equal(count("", path), 2);
	assert_int_equal(count("-links +1", path), 1);
	/* Nothing new, by path and by file:// URL, into another ref. */
	fetch_ok(r, src, src, "refs/trees/t");
	fetch_ok(r, url, src, "refs/upstream/master");
	assert_int_equal(count("", path), 2);
	gitrepo_free(r);

	/* Each tip is on disk for another process too, and whole. */
	assert_int_equal(
	    gt_sh("git -C %s fsck --strict --no-dangling 2>/dev/null", path),
	    0);
	assert_int_equal(fstat(0, &after), 0);
	assert_true(
	    before.st_dev == after.st_dev && before.st_ino == after.st_ino);
}

/* One upsert (blob body, or remove when body is NULL) of path. */
static void
change(struct gitrepo *r, git_oid *tree, const char *path, const char *body)
{
	git_tree_update u;
	git_oid blob, next;

	memset(&u, 0, sizeof(u));
	u.path = path;
	if (body == NULL) {
		u.action = GIT_TREE_UPDATE_REMOVE;
	} else {
		assert_int_equal(
		    gitpriv_blob(r, body, strlen(body), &blob), ERR_OK);
		u.action = GIT_TREE_UPDATE_UPSERT;
		u.id = blob;
		u.filemode = GIT_FILEMODE_BLOB;
	}
	assert_int_equal(gittree_update(r, tree, &u, 1, &next), ERR_OK);
	*tree = next;
}

/* A commit of tree on parent (NULL: a root), in memory. */
static git_oid
commit_on(
    struct gitrepo *r, const git_oid *tree, const git_oid *parent, int stamp)
{
	char text[512], ph[41];
	git_oid id;
	int k;

	if (parent)
		git_oid_tostr(ph, sizeof(ph), parent);
	k = snprintf(text, sizeof(text),
	    "tree %s\n%s%s%sauthor A <a@example.org> %d +0000\n"
	    "committer C <c@example.org> %d +0000\n\nstep %d\n",
	    git_oid_tostr_s(tree), parent ? "parent " : "", parent ? ph : "",
	    parent ? "\n" : "", 1700000000 + stamp, 1700000000 + stamp, stamp);
	assert_int_equal(
	    gitpriv_object(r, GIT_OBJECT_COMMIT, text, (size_t)k, &id), ERR_OK);
	return id;
}

/*
 * Persisting and pushing walk each new tree beside its parent's and
 * take only what differs (persist_tree in gitrepo.c).  Changes at the
 * first entry, the last, the middle, two far apart, entries added
 * before all and after all, removed, in a subfolder, names that are
 * prefixes of others: after each commit, persisted alone (so its base
 * is on disk) and pushed, git fsck finds every object in both
 * repositories.
 */
static void
test_persist_walks_changed_middle(void **state)
{
	static const char *const steps[][2] = {
		{ "big/f000", "first changed\n" },
		{ "big/f299", "last changed\n" },
		{ "big/f150", "middle changed\n" },
		{ "big/a-before-all", "new first\n" },
		{ "big/zz-after-all", "new last\n" },
		{ "big/f1", "a prefix of f100\n" },
		{ "big/f10", "a prefix too\n" },
		{ "big/f150", NULL },
		{ "big/sub/deep", "a folder inside\n" },
		{ "big/sub/deep", "changed inside\n" },
		{ "big/f000", NULL },
		{ "big/zz-after-all", NULL },
		{ "top", "beside the folder\n" },
	};
	struct gitremote_push refs[1] = {
		{ "refs/heads/b", true, false, false, "" },
	};
	struct gitrepo *r = NULL;
	char path[300], remote[300], body[64], name[32], hex[41], *got;
	git_oid tree, tip, two[2];
	git_treebuilder *tb = NULL;
	size_t i;

	(void)state;
	snprintf(path, sizeof(path), "%s/walk.git", tmp);
	snprintf(remote, sizeof(remote), "%s/walked.git", tmp);
	assert_int_equal(gt_sh("git init -q --bare %s", remote), 0);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);
	assert_int_equal(git_treebuilder_new(&tb, r->repo, NULL), 0);
	assert_int_equal(git_treebuilder_write(&tree, tb), 0);
	git_treebuilder_free(tb);
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "big/f%03zu", i);
		snprintf(body, sizeof(body), "file %zu\n", i);
		change(r, &tree, name, body);
	}
	tip = commit_on(r, &tree, NULL, 0);
	persist(r, &tip);
	for (i = 0; i <= sizeof(steps) / sizeof(steps[0]); i++) {
		if (i < sizeof(steps) / sizeof(steps[0])) {
			change(r, &tree, steps[i][0], steps[i][1]);
		} else {
			/* Two changes far apart in one commit. */
			change(r, &tree, "big/f001", "near the start\n");
			change(r, &tree, "big/f298", "near the end\n");
		}
		two[0] = tip;
		tip = commit_on(r, &tree, &two[0], (int)i + 1);
		assert_int_equal(gitpriv_persist(r, &tip, 1), ERR_OK);
		git_oid_tostr(hex, sizeof(hex), &tip);
		assert_int_equal(
		    gitrepo_set_ref(r, "refs/heads/b", hex, NULL, "t"), ERR_OK);
		assert_int_equal(gt_sh("git -C %s fsck --strict --no-dangling "
		                       "2>/dev/null",
		                     path),
		    0);
		assert_int_equal(gitremote_push(r, remote, refs, 1), ERR_OK);
		assert_true(refs[0].ok);
		assert_int_equal(gt_sh("git -C %s fsck --strict --no-dangling "
		                       "2>/dev/null",
		                     remote),
		    0);
	}
	got = gt_out("git -C %s rev-parse b", remote);
	assert_non_null(got);
	assert_string_equal(got, hex);
	free(got);
	gitrepo_free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_push_links_packs),
		cmocka_unit_test(test_fetch_local),
		cmocka_unit_test(test_persist_walks_changed_middle),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
