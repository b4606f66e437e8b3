/*
 * The staging repository's remotes: fetch upstream into
 * refs/upstream/<branch> (`patchyard upstream`), push the staging
 * branches to the configured remote (docs/DESIGN.md §6).  URLs are local
 * paths, file://, https:// or ssh; credentials for ssh come from the
 * ssh agent.
 */
#ifndef BOT_GITREMOTE_H
#define BOT_GITREMOTE_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/git/gitrepo.h"
#include "util/err.h"
#include "util/oid.h"

/*
 * Fetch branch of url (a local path, file://, https:// or ssh URL) into
 * refs/upstream/<branch>, forced (upstream may rewind), without tags.
 * tip gets the fetched commit.  Errors are logged with the URL:
 * ERR_INVAL for a bad branch name, ERR_NOTFOUND when the remote has no
 * such branch, ERR_NET for transport failures, ERR_GIT otherwise.
 */
enum err gitremote_fetch(struct gitrepo *r, const char *url, const char *branch,
    char tip[OID_HEX_SIZE]);

/*
 * Fetch ref of url into dst, forced, without tags: ref is a branch name
 * ("master" is refs/heads/master), "tags/NAME", or a full "refs/..."
 * name.  tip gets the fetched commit (a tag peeled).  why (when not
 * NULL) gets a line saying what went wrong.  Errors as gitremote_fetch.
 */
enum err gitremote_fetch_ref(struct gitrepo *r, const char *url,
    const char *ref, const char *dst, char tip[OID_HEX_SIZE], char *why,
    size_t whylen);

/* Whether ref is something gitremote_fetch_ref() takes. */
bool gitremote_ref_valid(const char *ref);

/*
 * What ref (as for gitremote_fetch_ref) names at url now, without
 * fetching anything (git ls-remote).  ERR_NOTFOUND when url has no such
 * ref, ERR_NET when it cannot be reached.
 */
enum err gitremote_head(struct gitrepo *r, const char *url, const char *ref,
    char hex[OID_HEX_SIZE]);

/* The most refs one push takes. */
#define GITREMOTE_MAX_PUSH 16

/* One ref to push and what became of it. */
struct gitremote_push {
	const char *ref; /* "refs/heads/stable" */
	bool force; /* false: fast-forward only */
	/* Results: */
	bool ok; /* the remote now has our value */
	bool skipped; /* no such local ref: nothing pushed */
	char reason[160]; /* why not, when !ok && !skipped */
};

/*
 * Push refs to url (same kinds of URL as fetch): each forced one with a
 * leading '+', the others fast-forward only.  Refs are pushed in two
 * rounds (forced, then fast-forward) so that a rejected fast-forward does
 * not hold back the forced ones.  At most GITREMOTE_MAX_PUSH refs
 * (ERR_INVAL).  Returns ERR_OK when every ref is ok or
 * skipped, ERR_CONFLICT when some was rejected (see its reason), ERR_NET
 * when the remote could not be reached.
 */
enum err gitremote_push(
    struct gitrepo *r, const char *url, struct gitremote_push *refs, size_t n);

#endif
