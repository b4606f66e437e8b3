/*
 * Fuzz target: the stager's apply engine (bot/git/gitapply.c) on a patch
 * against a small tree.  Input: two bytes (little-endian) giving the
 * length L of a file's content, L bytes of it, then the patch text.
 * The tree holds that content as "f", "dir/g" and "x" (executable), a
 * symbolic link "l" to "f", and "empty"; the patch applies to it.  The
 * repository lives in a scratch folder made once; every object stays in
 * memory and is dropped after each input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/git/gitapply.h"
#include "bot/git/gitpriv.h"
#include "util/arena.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct gitrepo *repo;

static void
cleanup(void)
{
	char cmd[128];

	if (repo == NULL)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", gitrepo_path(repo));
	gitrepo_free(repo);
	if (system(cmd) != 0)
		fprintf(
		    stderr, "fuzz_gitapply: could not remove scratch repo\n");
}

static void
open_repo(void)
{
	char dir[] = "/tmp/patchyard-fuzz-gitapply-XXXXXX";

	if (mkdtemp(dir) == NULL || gitrepo_open(dir, &repo) != ERR_OK)
		abort();
	log_set_level(LOG_ERR);
	atexit(cleanup);
}

static int
put(git_treebuilder *tb, const char *name, const git_oid *id, unsigned mode)
{
	return git_treebuilder_insert(NULL, tb, name, id, (git_filemode_t)mode);
}

/* The tree described above; false when libgit2 refuses (never here). */
static bool
make_tree(const char *p, size_t n, git_tree **out)
{
	git_treebuilder *tb = NULL, *sub = NULL;
	git_oid blob, link, empty, subid, id;
	bool ok;

	ok = gitpriv_blob(repo, p, n, &blob) == ERR_OK &&
	    gitpriv_blob(repo, "f", 1, &link) == ERR_OK &&
	    gitpriv_blob(repo, "", 0, &empty) == ERR_OK &&
	    git_treebuilder_new(&sub, repo->repo, NULL) == 0 &&
	    put(sub, "g", &blob, GIT_FILEMODE_BLOB) == 0 &&
	    git_treebuilder_write(&subid, sub) == 0 &&
	    git_treebuilder_new(&tb, repo->repo, NULL) == 0 &&
	    put(tb, "f", &blob, GIT_FILEMODE_BLOB) == 0 &&
	    put(tb, "x", &blob, GIT_FILEMODE_BLOB_EXECUTABLE) == 0 &&
	    put(tb, "l", &link, GIT_FILEMODE_LINK) == 0 &&
	    put(tb, "empty", &empty, GIT_FILEMODE_BLOB) == 0 &&
	    put(tb, "dir", &subid, GIT_FILEMODE_TREE) == 0 &&
	    git_treebuilder_write(&id, tb) == 0 &&
	    git_tree_lookup(out, repo->repo, &id) == 0;
	git_treebuilder_free(sub);
	git_treebuilder_free(tb);
	return ok;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gitapply_result res;
	struct arena *a;
	struct diff *d = NULL;
	git_tree *tree = NULL;
	git_oid out;
	size_t len;
	char *pre, *patch;

	if (repo == NULL)
		open_repo();
	if (size < 2)
		return 0;
	len = (size_t)data[0] | (size_t)data[1] << 8;
	if (len > size - 2)
		len = size - 2;
	/* Copies of exactly their size, so that reads past the end show. */
	pre = malloc(len ? len : 1);
	patch = malloc(size - 2 - len ? size - 2 - len : 1);
	memcpy(pre, data + 2, len);
	memcpy(patch, data + 2 + len, size - 2 - len);
	a = arena_new();
	if (make_tree(pre, len, &tree) &&
	    gitapply_parse(a, patch, size - 2 - len, &d, &res) == ERR_OK) {
		enum err e = gitapply_diff(repo, tree, d, &out, &res);
		/* Every outcome is one of the documented ones. */
		if ((e == ERR_OK) != (res.how <= GITAPPLY_EMPTY))
			abort();
		if (e != ERR_OK && res.reason[0] == '\0')
			abort();
	}
	git_tree_free(tree);
	arena_free(a);
	gitpriv_discard(repo);
	free(pre);
	free(patch);
	return 0;
}
