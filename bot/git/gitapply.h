/*
 * Apply one patch to a tree, in memory, the way `git am -3` does
 * (docs/PLATFORM.md explains why libgit2's own apply is not enough): every
 * hunk at its stated line, else relocated by searching for its context
 * nearest first, as `git apply` does (no fuzz: context is never
 * reduced); when that fails for any file, the whole patch again through
 * a three-way merge with the preimage blobs its "index" lines name.
 * Plain "diff -u" patches and CRLF files are handled; binary patches
 * with data go through libgit2.
 *
 * Safety: paths that diff_path_safe() refuses, paths under a symbolic
 * link, symbolic links that lead out of the tree or into .git (followed
 * through the tree's own links, bot/git/gitlink.c), or in a loop, and
 * links of the tree that a patch's links make lead out, binary
 * patches without data, submodule changes and patches over
 * LIMIT_PATCH_FILES are refused with a reason, before anything is
 * written where a ref could see it.
 */
#ifndef BOT_GITAPPLY_H
#define BOT_GITAPPLY_H

#include <stddef.h>

#include "bot/git/gitrepo.h"
#include "util/err.h"
#include "util/oid.h"

enum gitapply_how {
	GITAPPLY_EXACT, /* every hunk where the patch said */
	GITAPPLY_OFFSET, /* some hunk relocated: see offset */
	GITAPPLY_THREEWAY, /* merged through the preimage blobs */
	GITAPPLY_EMPTY, /* the three-way merge changed nothing: the patch
	                   is already there (git am skips such a patch) */
	GITAPPLY_CONFLICT, /* does not apply: see reason */
	GITAPPLY_REFUSED /* a bad patch: see reason */
};

struct gitapply_result {
	enum gitapply_how how;
	long offset; /* the largest relocation of a hunk, in lines (the
	                sign says which way), for GITAPPLY_OFFSET */
	char reason[256]; /* CONFLICT, REFUSED: file, hunk and why */
};

/* "exact", "offset", "three-way", "empty", "conflict", "refused". */
const char *gitapply_how_str(enum gitapply_how how);

/*
 * Apply the diff in diff[0..n) (LF line ends; a commit message before
 * the first file section is skipped) to the tree tree_hex: a dry run.
 * On EXACT/OFFSET/THREEWAY/EMPTY the new tree's id is in tree_out; its
 * objects stay in memory only (the next build or export drops them).
 * A patch mailed with CRLF line ends is taken as git mailsplit would
 * take it.  Returns ERR_OK when applied (EMPTY included), ERR_CONFLICT
 * or ERR_PERM (refused) with res->reason set, ERR_GIT or ERR_NOTFOUND
 * when the repository fails.
 */
enum err gitapply_tree(struct gitrepo *r, const char *tree_hex,
    const char *diff, size_t n, char tree_out[OID_HEX_SIZE],
    struct gitapply_result *res);

#endif
