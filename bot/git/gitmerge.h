/*
 * Merging subsystem trees into the staging branch (docs/DESIGN.md §6), as
 * linux-next does every day: each tree merged in memory (libgit2's
 * three-way merge, no work tree), a merge commit on success, the
 * conflicting paths otherwise.
 */
#ifndef BOT_GITMERGE_H
#define BOT_GITMERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "bot/git/gitrepo.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/oid.h"

/*
 * Merge commit theirs into ours.  Clean: a merge commit with parents
 * ours and theirs, the message, and name <email> as author and
 * committer at time (UTC), written to disk; its id in out.  The same
 * inputs always give the same commit.  A conflict: ERR_CONFLICT, and the
 * conflicting paths, one a line, in conflicts; nothing is kept.
 * ERR_NOTFOUND when a commit is missing, ERR_GIT when libgit2 fails
 * (conflicts then holds its message).
 */
enum err gitmerge_commit(struct gitrepo *r, const char *ours,
    const char *theirs, const char *message, const char *name,
    const char *email, int64_t time, char out[OID_HEX_SIZE],
    struct buf *conflicts);

/* Whether commit is tip or one of its ancestors (both on disk). */
bool gitmerge_contains(struct gitrepo *r, const char *tip, const char *commit);

#endif
