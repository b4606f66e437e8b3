/*
 * A commit's files in a throw-away folder, for a test run: libgit2's
 * checkout with a target directory.  The staging repository is bare:
 * the checkout must neither write its index (DONT_UPDATE_INDEX) nor
 * compare with its HEAD (the baseline is the empty tree, so every file
 * is written).
 */
#include "bot/git/gitcheckout.h"

#include <string.h>

#include "bot/git/gitpriv.h"
#include "util/log.h"
#include "util/oid.h"

static enum err
lookup(struct gitrepo *r, const char *hex, git_commit **c)
{
	git_oid oid;

	if (!gitpriv_oid(&oid, hex)) {
		log_err("gitcheckout: %s: not a commit id", hex ? hex : "-");
		return ERR_INVAL;
	}
	if (git_commit_lookup(c, r->repo, &oid) < 0) {
		git_error_clear();
		log_err("gitcheckout: %s: no such commit", hex);
		return ERR_NOTFOUND;
	}
	return ERR_OK;
}

enum err
gitcheckout_info(struct gitrepo *r, const char *hex, char tree[OID_HEX_SIZE],
    char parent[OID_HEX_SIZE])
{
	git_commit *c = NULL;
	enum err e = lookup(r, hex, &c);

	tree[0] = '\0';
	if (parent)
		parent[0] = '\0';
	if (e != ERR_OK)
		return e;
	git_oid_tostr(tree, OID_HEX_SIZE, git_commit_tree_id(c));
	if (parent && git_commit_parentcount(c) > 0)
		git_oid_tostr(parent, OID_HEX_SIZE, git_commit_parent_id(c, 0));
	git_commit_free(c);
	return ERR_OK;
}

enum err
gitcheckout_write(struct gitrepo *r, const char *hex, const char *dir)
{
	git_checkout_options o;
	git_commit *c = NULL;
	git_tree *t = NULL;
	enum err e = lookup(r, hex, &c);

	if (e != ERR_OK)
		return e;
	if (git_commit_tree(&t, c) < 0) {
		e = gitpriv_fail(hex, "cannot read its tree");
		goto out;
	}
	git_checkout_options_init(&o, GIT_CHECKOUT_OPTIONS_VERSION);
	o.checkout_strategy = GIT_CHECKOUT_FORCE |
	    GIT_CHECKOUT_DONT_UPDATE_INDEX | GIT_CHECKOUT_DONT_WRITE_INDEX |
	    GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
	o.target_directory = dir;
	o.baseline = NULL;
	if (git_checkout_tree(r->repo, (git_object *)t, &o) < 0)
		e = gitpriv_fail(hex, "cannot check out");
out:
	git_tree_free(t);
	git_commit_free(c);
	return e;
}
