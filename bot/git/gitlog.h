/*
 * Reading history for what goes upstream (docs/DESIGN.md §6, forward): the
 * commits of a range as `git log` and `git shortlog` see them, and the
 * patch text of a commit or a range as `git format-patch` and `git diff
 * -M --binary` print it.
 */
#ifndef BOT_GITLOG_H
#define BOT_GITLOG_H

#include <stddef.h>
#include <stdint.h>

#include "bot/git/gitrepo.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/oid.h"

struct gitlog_commit {
	char id[OID_HEX_SIZE];
	char parent[OID_HEX_SIZE]; /* the first parent; "" for a root commit */
	unsigned nparents;
	const char *author_name;
	const char *author_email;
	int64_t author_time;
	int author_tz; /* minutes east of UTC */
	int64_t committer_time;
	int committer_tz;
	/* The first paragraph of the message on one line, each of its
	 * lines without trailing blanks, joined by a space (git's %s). */
	const char *subject;
	/* The message after that paragraph and the empty lines after it
	 * (what format-patch puts after the Subject:), or "". */
	const char *body;
};

/* One commit (strings in the arena).  ERR_NOTFOUND when it is missing. */
enum err gitlog_commit(struct gitrepo *r, struct arena *a, const char *hex,
    struct gitlog_commit *out);

/*
 * The commits reachable from head but not from base, oldest first: the
 * reverse of git's default walk (newest commit date first, a child
 * always before its parents), which is the order `git shortlog` lists
 * each author's commits in.
 */
enum err gitlog_range(struct gitrepo *r, struct arena *a, const char *base,
    const char *head, struct gitlog_commit **out, size_t *n);

/* The best common ancestor of two commits (git merge-base);
 * ERR_NOTFOUND when they share none. */
enum err gitlog_merge_base(
    struct gitrepo *r, const char *a, const char *b, char out[OID_HEX_SIZE]);

/*
 * Append the patch text turning commit from's tree into commit to's, as
 * `git diff -M --binary` prints it (renames found, binary files as
 * GIT binary patch blocks, 3 lines of context).  from "" is the empty
 * tree.
 */
enum err gitlog_diff(
    struct gitrepo *r, const char *from, const char *to, struct buf *out);

#endif
