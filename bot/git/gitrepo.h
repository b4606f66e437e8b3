/*
 * Room bot/git: the staging engine, built on libgit2.
 *
 * The staging repository: a bare git repository owned by the bot
 * (docs/DESIGN.md §6): opening it, its refs and its objects
 * (bot/git/gitremote.h fetches and pushes).  Object ids travel as 40-digit
 * lowercase hex strings; no libgit2 type leaves the bot/git/ files.
 *
 * Objects made while building live in memory first and reach the disk
 * only when something reachable from a result needs them (as loose
 * objects, or as one pack for a big build, uncompressed but for its trees,
 * which are deltas against each other: run `patchyard gc`
 * now and then, or let `patchyard run` do it), so a build that fails half-way
 * leaves nothing behind, and no ref ever names an object that is not on
 * disk.  A struct gitrepo is used by one thread at a time; it keeps a
 * cache of patch results, saved in the repository when it is freed.
 */
#ifndef BOT_GITREPO_H
#define BOT_GITREPO_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"
#include "util/oid.h"

struct gitrepo;

/*
 * Open the bare repository at path, creating it (and missing parent
 * folders) when there is none: calling it again on the same path opens
 * what the first call made.  A path holding something that is not a
 * git repository is refused with ERR_GIT.
 */
enum err gitrepo_open(const char *path, struct gitrepo **out);
void gitrepo_free(struct gitrepo *r);
const char *gitrepo_path(const struct gitrepo *r);

/*
 * Applying a patch section to a blob gives the same blob every time: the
 * results are kept in the repository (patchyard-apply-cache), and the
 * next process that applies the same section to the same blob (the
 * rebuild after one patch of a queue changed) takes them from there.
 * How many sections this process took so.
 */
size_t gitrepo_kept_hits(const struct gitrepo *r);

/*
 * The commit a ref names ("refs/heads/stable"), peeled through tags and
 * symbolic refs.  ERR_NOTFOUND when the ref does not exist.
 */
enum err gitrepo_ref(
    struct gitrepo *r, const char *name, char hex[OID_HEX_SIZE]);

/*
 * Point ref name at commit hex.  With old_hex NULL the update is forced;
 * otherwise the ref must still name old_hex ("" for: must not exist),
 * else ERR_CONFLICT.  The commit must exist (ERR_NOTFOUND).  log is the
 * reflog message.
 */
enum err gitrepo_set_ref(struct gitrepo *r, const char *name, const char *hex,
    const char *old_hex, const char *log);

/* Remove a ref; not an error when it does not exist. */
enum err gitrepo_delete_ref(struct gitrepo *r, const char *name);

/* Whether hex (full or abbreviated) names an object in the repository. */
bool gitrepo_has(struct gitrepo *r, const char *hex);

/* A ref name built from a branch name: false for anything git refuses. */
bool gitrepo_branch_valid(const char *branch);

#endif
