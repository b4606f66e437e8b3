/*
 * Trees updated in memory (bot/git/gittree.c) against libgit2's
 * git_tree_create_updated() on the same updates: the same tree ids, the
 * same lookups as git_tree_entry_bypath(), and ERR_LIMIT where libgit2
 * must decide.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <git2/sys/odb_backend.h>

#include "bot/git/gitpriv.h"
#include "tests/unit/gittest.h"

static const char *tmp;
static struct gitrepo *r;
static git_oid blob[4];

static int
setup(void **state)
{
	char path[300];
	size_t i;

	(void)state;
	tmp = gt_setup();
	snprintf(path, sizeof(path), "%s/t.git", tmp);
	if (gitrepo_open(path, &r) != ERR_OK)
		return -1;
	for (i = 0; i < 4; i++) {
		char text[32];
		snprintf(text, sizeof(text), "blob %zu\n", i);
		if (gitpriv_blob(r, text, strlen(text), &blob[i]) != ERR_OK)
			return -1;
	}
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	gitrepo_free(r);
	gt_teardown(tmp);
	return 0;
}

static git_tree_update
up(const char *path, int b)
{
	git_tree_update u;

	memset(&u, 0, sizeof(u));
	u.path = path;
	if (b < 0) {
		u.action = GIT_TREE_UPDATE_REMOVE;
	} else {
		u.action = GIT_TREE_UPDATE_UPSERT;
		u.id = blob[b];
		u.filemode =
		    b == 3 ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	}
	return u;
}

/*
 * What gittree_changes() says tree was made of: from is base, every
 * entry of tree that base lacks or has otherwise is listed with base's
 * id, and nothing else is (no entry twice); the folders made on the way
 * are checked the same way.
 */
static void
check_changes(const git_oid *base, const git_oid *tree)
{
	struct gittree_chg *chg = NULL;
	git_tree *bt = NULL, *t = NULL;
	git_oid from;
	bool used[64] = { false };
	size_t n = 0, i, k, listed = 0;

	if (git_oid_equal(base, tree))
		return;
	assert_true(gittree_changes(r, tree, &from, &chg, &n));
	assert_true(git_oid_equal(&from, base));
	assert_true(n <= 64);
	assert_int_equal(git_tree_lookup(&bt, r->repo, base), 0);
	assert_int_equal(git_tree_lookup(&t, r->repo, tree), 0);
	/* Entries that changed first (each takes a record of its own), then
	 * unchanged ones an update set again may take what is left. */
	for (int pass = 0; pass < 2; pass++) {
		for (i = 0; i < git_tree_entrycount(t); i++) {
			const git_tree_entry *te = git_tree_entry_byindex(t, i);
			const git_tree_entry *be =
			    git_tree_entry_byname(bt, git_tree_entry_name(te));
			bool same = be &&
			    git_oid_equal(
			        git_tree_entry_id(be), git_tree_entry_id(te)) &&
			    git_tree_entry_filemode(be) ==
			        git_tree_entry_filemode(te);

			if (same != (pass == 1))
				continue;
			for (k = 0; k < n; k++)
				if (!used[k] &&
				    memcmp(chg[k].id, git_tree_entry_id(te)->id,
				        20) == 0 &&
				    chg[k].mode ==
				        (unsigned)git_tree_entry_filemode(te) &&
				    chg[k].has_old == (be != NULL) &&
				    (!be ||
				        memcmp(chg[k].old,
				            git_tree_entry_id(be)->id,
				            20) == 0))
					break;
			if (same && k == n)
				continue;
			assert_true(k < n); /* a change with no record */
			used[k] = true;
			listed++;
			if (!same && be &&
			    git_tree_entry_type(te) == GIT_OBJECT_TREE &&
			    git_tree_entry_type(be) == GIT_OBJECT_TREE)
				check_changes(git_tree_entry_id(be),
				    git_tree_entry_id(te));
		}
	}
	assert_int_equal(listed, n); /* no record of what did not change */
	git_tree_free(bt);
	git_tree_free(t);
	free(chg);
}

/* Apply u with both and check they agree; the new tree into out. */
static void
both(const git_oid *base, const git_tree_update *u, size_t n, git_oid *out)
{
	git_tree *bt = NULL;
	git_oid want;

	assert_int_equal(git_tree_lookup(&bt, r->repo, base), 0);
	assert_int_equal(git_tree_create_updated(&want, r->repo, bt, n, u), 0);
	git_tree_free(bt);
	assert_int_equal(gittree_update(r, base, u, n, out), ERR_OK);
	assert_string_equal(git_oid_tostr_s(out), git_oid_tostr_s(&want));
	check_changes(base, out);
}

static git_oid
empty_tree(void)
{
	git_treebuilder *tb = NULL;
	git_oid id;

	assert_int_equal(git_treebuilder_new(&tb, r->repo, NULL), 0);
	assert_int_equal(git_treebuilder_write(&id, tb), 0);
	git_treebuilder_free(tb);
	return id;
}

/* Names that sort differently as files and as folders ("a" < "a-b" <
 * "a.c" < "a/" < "a0"), nested folders made, changed, emptied. */
static void
test_same_trees_as_libgit2(void **state)
{
	git_oid t0 = empty_tree(), t1, t2, t3, t4, t5;
	git_tree_update u1[] = { up("a.c", 0), up("a/b/c", 1), up("a-b", 2),
		up("a0", 0), up("z/y", 3), up("a/x", 2), up("m/n/o/p", 1) };
	git_tree_update u2[] = { up("a/b/c", 2), up("a/b/d", 0), up("a.c", 3),
		up("b", 1) };
	git_tree_update u3[] = { up("m/n/o/p", -1), up("a0", -1) };
	git_tree_update u4[] = { up("a/b/c", -1), up("a/b/d", -1),
		up("a/x", -1) };
	git_tree_update u5[] = { up("a.c", -1), up("a-b", -1), up("b", -1),
		up("z/y", -1) };

	(void)state;
	both(&t0, u1, 7, &t1);
	both(&t1, u2, 4, &t2);
	both(&t2, u3, 2, &t3); /* m/ and m/n/o/ go with their last file */
	both(&t3, u4, 3, &t4); /* a/ goes too */
	both(&t4, u5, 4, &t5); /* nothing left: the empty tree */
	assert_true(git_oid_equal(&t5, &t0));
}

/* A big folder, changed entry by entry as a queue of patches does. */
static void
test_big_folder(void **state)
{
	static char names[1700][32];
	git_tree_update u[1700];
	git_oid t, t2;
	size_t i;

	(void)state;
	for (i = 0; i < 1700; i++) {
		snprintf(
		    names[i], sizeof(names[i]), "man3/f%zu.3", i * 7919 % 1700);
		u[i] = up(names[i], (int)(i % 3));
	}
	t = empty_tree();
	both(&t, u, 1700, &t2);
	for (i = 0; i < 1700; i += 97) {
		git_tree_update one = up(names[i], (int)((i + 1) % 3));
		t = t2;
		both(&t, &one, 1, &t2);
	}
}

/* A commit of tree t, in memory. */
static git_oid
commit_of(const git_oid *t)
{
	char text[256];
	git_oid id;
	int k = snprintf(text, sizeof(text),
	    "tree %s\nauthor A <a@example.org> 1700000000 +0000\n"
	    "committer C <c@example.org> 1700000000 +0000\n\nmade\n",
	    git_oid_tostr_s(t));

	assert_int_equal(
	    gitpriv_object(r, GIT_OBJECT_COMMIT, text, (size_t)k, &id), ERR_OK);
	return id;
}

/* A commit of tree t on parent p, in memory. */
static git_oid
commit_on(const git_oid *t, const git_oid *p)
{
	char text[320], ph[41];
	git_oid id;
	int k = snprintf(text, sizeof(text),
	    "tree %s\nparent %s\nauthor A <a@example.org> 1700000000 +0000\n"
	    "committer C <c@example.org> 1700000000 +0000\n\nmade\n",
	    git_oid_tostr_s(t), git_oid_tostr(ph, sizeof(ph), p));

	assert_int_equal(
	    gitpriv_object(r, GIT_OBJECT_COMMIT, text, (size_t)k, &id), ERR_OK);
	return id;
}

/*
 * A queue of small changes to a big folder: each new version of the
 * folder goes into the pack as a delta against the
 * one before (OFS_DELTA, as git writes), at most 15 deep, and git reads
 * every one back to its id.
 */
static void
test_trees_packed_as_deltas(void **state)
{
	static char names[400][32];
	git_tree_update u[400];
	git_oid t, t2, c, c2, sub[131];
	git_odb_object *o = NULL;
	git_tree *tree = NULL;
	char *chains;
	size_t i;

	(void)state;
	for (i = 0; i < 400; i++) {
		snprintf(names[i], sizeof(names[i]), "big/f%zu", i);
		u[i] = up(names[i], 0);
	}
	t = empty_tree();
	assert_int_equal(gittree_update(r, &t, u, 400, &t2), ERR_OK);
	c = commit_of(&t2);
	for (i = 0; i < 130; i++) {
		/* (blobs 0 and 1 are on disk: the others went with the
		 * discarded build of test_made_trees_kept_once) */
		git_tree_update one = up(names[i * 3 % 400], 1);

		t = t2;
		assert_int_equal(gittree_update(r, &t, &one, 1, &t2), ERR_OK);
		c2 = commit_on(&t2, &c);
		c = c2;
		assert_int_equal(git_tree_lookup(&tree, r->repo, &t2), 0);
		sub[i] = *git_tree_entry_id(git_tree_entry_byindex(tree, 0));
		git_tree_free(tree);
	}
	/* Older versions keep only their delta: each is rebuilt whole when
	 * read, and libgit2 checks it hashes to its id. */
	for (i = 0; i < 130; i++) {
		assert_int_equal(git_odb_read(&o, r->odb, &sub[i]), 0);
		assert_int_equal(git_odb_object_type(o), GIT_OBJECT_TREE);
		git_odb_object_free(o);
	}
	assert_int_equal(gitpriv_persist(r, &c, 1), ERR_OK);
	assert_int_equal(gt_sh("git -C %s/t.git fsck --strict --no-progress "
	                       "--no-dangling %s",
	                     tmp, git_oid_tostr_s(&c)),
	    0);
	chains = gt_out("cd %s/t.git/objects/pack && for i in *.idx; do "
	                "git verify-pack -v $i | grep 'chain length'; done | "
	                "sed 's/ objects\\?$//' | sort -t= -k2 -n | tail -1",
	    tmp);
	assert_non_null(chains);
	/* 131 versions of big/: whole and 15 deltas, 8 times, then whole
	 * and 2.  (The root, one entry, is not worth a delta.) */
	assert_string_equal(chains, "chain length = 15: 8");
	assert_int_equal(
	    gt_sh("git -C %s/t.git cat-file -p %s:big/f0 >/dev/null", tmp,
	        git_oid_tostr_s(&c)),
	    0);
	free(chains);
}

/*
 * One update that makes 600 folders: putting their trees in the cache
 * grows its table while the root's base is held, so the root's update
 * must find the base's slot again (ASan saw the old one read after it
 * was freed, tests/fixtures/regress/gitapply/uaf-base-slot-moved).
 */
static void
test_update_grows_the_cache(void **state)
{
	static char names[600][24];
	git_tree_update u[600];
	struct gitrepo *r2 = NULL;
	git_treebuilder *tb = NULL;
	git_tree *bt = NULL;
	git_oid b, base, got, want;
	char path[300];
	size_t i;

	(void)state;
	snprintf(path, sizeof(path), "%s/grow.git", tmp);
	assert_int_equal(gitrepo_open(path, &r2), ERR_OK);
	assert_int_equal(gitpriv_blob(r2, "x\n", 2, &b), ERR_OK);
	assert_int_equal(git_treebuilder_new(&tb, r2->repo, NULL), 0);
	assert_int_equal(
	    git_treebuilder_insert(NULL, tb, "top", &b, GIT_FILEMODE_BLOB), 0);
	assert_int_equal(git_treebuilder_write(&base, tb), 0);
	git_treebuilder_free(tb);
	for (i = 0; i < 600; i++) {
		snprintf(names[i], sizeof(names[i]), "d%03zu/f%03zu", i, i);
		memset(&u[i], 0, sizeof(u[i]));
		u[i].action = GIT_TREE_UPDATE_UPSERT;
		u[i].path = names[i];
		u[i].id = b;
		u[i].filemode = GIT_FILEMODE_BLOB;
	}
	assert_int_equal(git_tree_lookup(&bt, r2->repo, &base), 0);
	assert_int_equal(
	    git_tree_create_updated(&want, r2->repo, bt, 600, u), 0);
	git_tree_free(bt);
	assert_int_equal(gittree_update(r2, &base, u, 600, &got), ERR_OK);
	assert_true(git_oid_equal(&got, &want));
	gitrepo_free(r2);
}

/*
 * A loose object is on disk whether its fan-out folder was there when
 * the repository was first asked (git made it, before this open), or was
 * made since by persisting here (test_made_trees_kept_once).
 */
static void
test_loose_objects_found(void **state)
{
	struct gitrepo *r2 = NULL;
	char path[300];
	char *hex;
	git_oid id, none;

	(void)state;
	hex = gt_out("cd %s/t.git && echo made by git | git hash-object -w "
	             "--stdin",
	    tmp);
	assert_non_null(hex);
	assert_true(gitpriv_oid(&id, hex));
	snprintf(path, sizeof(path), "%s/t.git", tmp);
	assert_int_equal(gitrepo_open(path, &r2), ERR_OK);
	assert_true(gitpriv_on_disk(r2, &id));
	memset(none.id, 0xab, sizeof(none.id));
	assert_false(gitpriv_on_disk(r2, &none));
	gitrepo_free(r2);
	free(hex);
}

/*
 * A tree made here is kept once, in the tree cache, not copied into the
 * in-memory object store: the object database still reads it (through
 * gittrees_backend()), nothing takes it for on disk, persisting writes
 * it and keeps it cached, discarding forgets it.
 */
static void
test_made_trees_kept_once(void **state)
{
	git_tree_update u1[] = { up("made/one", 0), up("made/two", 1) };
	git_tree_update u2[] = { up("made/three", 2) };
	git_odb_object *o = NULL;
	git_tree *tree = NULL;
	const void *p;
	size_t n;
	git_oid t0 = empty_tree(), t1, t2, c1, sub;

	(void)state;
	assert_int_equal(gittree_update(r, &t0, u1, 2, &t1), ERR_OK);
	assert_true(gittree_made(r, &t1));
	assert_false(r->mempack->exists(r->mempack, &t1));
	assert_true(gitpriv_exists(r, &t1));
	assert_false(gitpriv_on_disk(r, &t1));
	/* libgit2 reads it, and finds the folder made with it. */
	assert_int_equal(git_odb_read(&o, r->odb, &t1), 0);
	assert_int_equal(git_odb_object_type(o), GIT_OBJECT_TREE);
	git_odb_object_free(o);
	assert_int_equal(git_tree_lookup(&tree, r->repo, &t1), 0);
	assert_int_equal(git_tree_entrycount(tree), 1);
	sub = *git_tree_entry_id(git_tree_entry_byindex(tree, 0));
	git_tree_free(tree);
	assert_true(gittree_made(r, &sub));

	/* Persisted: on disk, no longer made, still cached. */
	c1 = commit_of(&t1);
	assert_int_equal(gitpriv_persist(r, &c1, 1), ERR_OK);
	assert_true(gitpriv_on_disk_now(r, &t1));
	assert_true(gitpriv_on_disk(r, &sub));
	assert_false(gittree_made(r, &t1));
	assert_true(gittree_cached(r, &t1, &p, &n));
	assert_int_equal(
	    gt_sh("git -C %s/t.git cat-file -e %s", tmp, git_oid_tostr_s(&sub)),
	    0);

	/* Discarded: gone. */
	assert_int_equal(gittree_update(r, &t1, u2, 1, &t2), ERR_OK);
	assert_true(gitpriv_exists(r, &t2));
	gitpriv_discard(r);
	assert_false(gittree_made(r, &t2));
	assert_false(gitpriv_exists(r, &t2));
	assert_false(gittree_cached(r, &t2, &p, &n));
	assert_int_not_equal(git_odb_read(&o, r->odb, &t2), 0);
	git_error_clear();
}

/* What libgit2 must do: a file that becomes a folder, a folder that
 * becomes a file, removing what is not there, a path twice. */
static void
test_limits(void **state)
{
	git_oid t0 = empty_tree(), t1, out;
	git_tree_update base[] = { up("f", 0), up("d/x", 1) };
	git_tree_update file_to_dir[] = { up("f/g", 0) };
	git_tree_update dir_to_file[] = { up("d", 0) };
	git_tree_update gone[] = { up("nothere", -1) };
	git_tree_update twice[] = { up("f", 1), up("f", 2) };

	(void)state;
	both(&t0, base, 2, &t1);
	assert_int_equal(
	    gittree_update(r, &t1, file_to_dir, 1, &out), ERR_LIMIT);
	assert_int_equal(
	    gittree_update(r, &t1, dir_to_file, 1, &out), ERR_LIMIT);
	assert_int_equal(gittree_update(r, &t1, gone, 1, &out), ERR_LIMIT);
	assert_int_equal(gittree_update(r, &t1, twice, 2, &out), ERR_LIMIT);
}

/* Lookups by path agree with git_tree_entry_bypath(). */
static void
test_bypath(void **state)
{
	static const char *paths[] = { "a.c", "a", "a/", "a/b", "a/b/c",
		"a/b/c/", "a/x", "a-b", "a0", "z/y", "zz", "a/b/nope", "a.c/x",
		"", "m" };
	git_oid t0 = empty_tree(), t1, oid;
	git_tree_update u[] = { up("a.c", 0), up("a/b/c", 1), up("a-b", 2),
		up("a0", 0), up("z/y", 3), up("a/x", 2) };
	git_tree *t = NULL;
	unsigned mode;
	size_t i;

	(void)state;
	both(&t0, u, 6, &t1);
	assert_int_equal(git_tree_lookup(&t, r->repo, &t1), 0);
	for (i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		git_tree_entry *te = NULL;
		int rc = git_tree_entry_bypath(&te, t, paths[i]);
		enum err e = gittree_bypath(r, &t1, paths[i], &oid, &mode);

		if (rc < 0) {
			git_error_clear();
			assert_int_equal(e, ERR_NOTFOUND);
			continue;
		}
		assert_int_equal(e, ERR_OK);
		assert_true(git_oid_equal(&oid, git_tree_entry_id(te)));
		assert_int_equal(mode, git_tree_entry_filemode(te));
		git_tree_entry_free(te);
	}
	git_tree_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_trees_as_libgit2),
		cmocka_unit_test(test_big_folder),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_bypath),
		cmocka_unit_test(test_made_trees_kept_once),
		cmocka_unit_test(test_trees_packed_as_deltas),
		cmocka_unit_test(test_loose_objects_found),
		cmocka_unit_test(test_update_grows_the_cache),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
