/*
 * Building a staging branch (docs/DESIGN.md §6): a base commit plus an
 * ordered list of patches, one commit per patch, in memory, reusing what
 * did not change since the previous build.  stable = upstream + stable
 * patches; unstable = stable + unstable patches: one call each.
 *
 * The same entries on the same base always give the same commit ids:
 * author and date come from the mail, the committer and its date from
 * the entry (when the patch entered its queue), nothing from the clock.
 */
#ifndef BOT_GITSTAGE_H
#define BOT_GITSTAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/git/gitapply.h"
#include "bot/git/gitrepo.h"
#include "util/err.h"
#include "util/oid.h"

/* One patch of the queue, as the caller composed it. */
struct gitstage_entry {
	/* Opaque, from the caller: equal keys mean the same patch content
	 * (the caller derives it from slug and patch version). */
	const char *key;
	const char *author_name;
	const char *author_email;
	int64_t author_time; /* seconds since the epoch */
	int author_tz; /* minutes east of UTC */
	/* The whole commit message: subject, body, collected trailers,
	 * Link:.  A final newline is added when missing. */
	const char *message;
	const char *diff; /* the patch (LF line ends) */
	size_t diff_len;
	/* Fix-ups folded into it, applied in order on top of the patch, in
	 * the same commit (`#yard fold`); fixup_len[i] bytes each. */
	const char *const *fixups;
	const size_t *fixup_len;
	size_t nfixups;
	int64_t committer_time; /* when the patch entered its queue */
	int committer_tz;
};

/* What the previous build made of an entry, as the caller stored it. */
struct gitstage_prev {
	const char *key;
	const char *commit; /* NULL or "" when it was left out */
	enum gitapply_how how;
	long offset;
};

/* What this build made of an entry; store key, commit, how and offset
 * to pass them back as gitstage_prev next time. */
struct gitstage_result {
	enum gitapply_how how;
	long offset; /* GITAPPLY_OFFSET: the largest relocation, lines */
	char reason[256]; /* CONFLICT and REFUSED: which file, which hunk */
	char commit[OID_HEX_SIZE]; /* "" when the patch is left out of the build
	                    (CONFLICT, REFUSED, EMPTY) */
	bool reused; /* the previous build's commit, untouched */
};

/*
 * Build on base_hex (a commit) the n entries in order into res[0..n),
 * the last commit (base when none applied) into tip.  Entries that do
 * not apply are left out and the rest builds on; an EMPTY one (already
 * in the tree) is left out too, as git am skips it.
 *
 * prev[0..nprev) is the previous build's result: every leading entry
 * whose key, commit and parent still match is reused as it is.  Every
 * object reachable from tip is on disk when this returns ERR_OK; no ref
 * is moved (gitrepo_set_ref does that).  committer_name/email identify
 * the bot.  ERR_NOTFOUND when base is not a commit on disk, ERR_GIT
 * when the repository fails (then nothing is kept).
 */
enum err gitstage_build(struct gitrepo *r, const char *base_hex,
    const struct gitstage_entry *e, size_t n, const struct gitstage_prev *prev,
    size_t nprev, const char *committer_name, const char *committer_email,
    struct gitstage_result *res, char tip[OID_HEX_SIZE]);

/*
 * Which of the n entries apply on base_hex, in order, each on what the
 * ones before it made: res[i].how as gitstage_build() would say, and
 * nothing is kept (no commit in res, nothing on disk).  For finding
 * what makes a patch conflict: try it without the subsystem trees.
 */
enum err gitstage_try(struct gitrepo *r, const char *base_hex,
    const struct gitstage_entry *e, size_t n, struct gitstage_result *res);

#endif
