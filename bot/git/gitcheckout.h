/*
 * What the tester needs of the staging repository: a commit's tree and
 * parent, and a commit's files written into a throw-away folder -- with
 * libgit2, no `git` process and no work tree or index of the bare
 * repository touched.
 */
#ifndef BOT_GITCHECKOUT_H
#define BOT_GITCHECKOUT_H

#include "bot/git/gitrepo.h"
#include "util/err.h"
#include "util/oid.h"

/*
 * The tree of commit hex into tree, its first parent into parent ("" for
 * a root commit; parent may be NULL).  ERR_NOTFOUND when there is no
 * such commit.
 */
enum err gitcheckout_info(struct gitrepo *r, const char *hex,
    char tree[OID_HEX_SIZE], char parent[OID_HEX_SIZE]);

/*
 * Write the files of commit hex into dir, an existing empty folder:
 * regular and executable files, symbolic links and folders as the tree
 * says (submodules stay empty folders).  libgit2 refuses paths that git
 * itself would not check out (".git", "..", names with '/').
 */
enum err gitcheckout_write(struct gitrepo *r, const char *hex, const char *dir);

#endif
