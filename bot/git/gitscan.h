/*
 * Scanning upstream for graduation (docs/DESIGN.md §6): the commits new since
 * the last scan, each with what matching a tracked patch needs -- its
 * stable patch-id (what `git patch-id --stable` says of `git show`), its
 * author's address and subject, and the Message-IDs its Link: and
 * Message-ID: trailers name.
 */
#ifndef BOT_GITSCAN_H
#define BOT_GITSCAN_H

#include <stddef.h>

#include "bot/git/gitrepo.h"
#include "util/arena.h"
#include "util/err.h"
#include "util/oid.h"

struct gitscan_commit {
	char commit[OID_HEX_SIZE];
	const char *author_email;
	const char *subject; /* the first paragraph on one line, as git
	                        log's %s */
	const char *subject_norm; /* its title (any [PATCH] tags dropped)
	                             through subject_norm(), for matching */
	/* The stable patch-id of the diff against the first parent (the
	 * empty tree for a root commit), as git show | git patch-id
	 * --stable prints it; "" for merges, empty commits and commits with
	 * binary files (git hashes abbreviated blob ids there, abbreviated
	 * to a length that depends on the repository). */
	char patch_id[OID_HEX_SIZE];
	/* From "Link: <url>/<msgid>[/...]" (the last path segment holding
	 * an '@', percent-decoded) and "Message-ID: <msgid>" trailers,
	 * without angle brackets; only those msgid_valid() accepts. */
	const char **msgids;
	size_t nmsgids;
};

struct gitscan;

/*
 * The commits reachable from new_hex but not from old_hex, oldest first
 * (topological order).  old_hex NULL or "" is the first scan: nothing is
 * listed, the caller only records new_hex.  ERR_NOTFOUND when a commit
 * is not in the repository.
 */
enum err gitscan_range(struct gitrepo *r, const char *old_hex,
    const char *new_hex, struct gitscan **out);
size_t gitscan_count(const struct gitscan *s);
const struct gitscan_commit *gitscan_at(const struct gitscan *s, size_t i);
void gitscan_free(struct gitscan *s);

/*
 * The Message-ID a Link: URL names: the last path segment that holds an
 * '@', percent-decoded, into the arena; NULL when there is none.
 */
const char *gitscan_link_msgid(struct arena *a, const char *url);

#endif
