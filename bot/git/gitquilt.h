/*
 * The queue exported as quilt does it (docs/DESIGN.md §6): patches/series
 * and patches/<slug>.patch, committed on refs/heads/patches of the
 * staging repository.  The branch only grows: each change of the queue
 * is one commit with the previous tip as parent, the history of the
 * proving ground.
 */
#ifndef BOT_GITQUILT_H
#define BOT_GITQUILT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/git/gitrepo.h"
#include "util/err.h"
#include "util/oid.h"

#define GITQUILT_REF "refs/heads/patches"

/* One patch of the queue, in queue order. */
struct gitquilt_patch {
	/* The file name without ".patch": letters, digits, '-', '_', '.',
	 * not starting with '.', at most 200 bytes, unique. */
	const char *slug;
	/* "stable", "unstable" or NULL: series gets a "# <queue>" comment
	 * line wherever the queue changes. */
	const char *queue;
	const char *text; /* the patch as a mail (mbox-ish), LF ends */
	size_t len;
	/* Set instead of a slug: a "# <comment>" line in series at this
	 * place, and no file (the subsystem trees merged there). */
	const char *comment;
};

/* Whether slug can name a patch file (see above). */
bool gitquilt_slug_valid(const char *slug);

/*
 * Write the queue p[0..n) as the tree of a new commit on
 * refs/heads/patches, when that tree differs from the tip's; otherwise
 * nothing is written and *changed is false.  message, author/committer
 * name, email, time and tz (minutes east) describe the change.  tip gets
 * the branch's commit either way.  ERR_INVAL for a bad or repeated
 * slug; ERR_CONFLICT when the ref moved meanwhile.
 */
enum err gitquilt_export(struct gitrepo *r, const struct gitquilt_patch *p,
    size_t n, const char *message, const char *name, const char *email,
    int64_t time, int tz, char tip[OID_HEX_SIZE], bool *changed);

#endif
