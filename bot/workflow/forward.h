/*
 * Forwarding the stable queue upstream (docs/DESIGN.md §6, §5 #yard forward,
 * §10 project.forward): what graduated is sent to the upstream address
 * as the project configures it --
 *
 *   series: a numbered series with a cover letter (shortlog, diffstat,
 *     base-commit), one mail per commit of the stable branch with its
 *     collected trailers and Link:, threaded as git send-email does;
 *   pull:   a pull request for the pushed stable branch in the shape of
 *     git request-pull (URL, range, shortlog, diffstat).
 *
 * To project.forward-to, Cc the list and project.forward-cc; every mail
 * carries X-Patchyard-Event: forwarded, and the list's copy coming back
 * is bot mail.  Each patch sent gets a "forwarded" event naming the
 * Message-ID, and is not sent again unless it changed (its build key).
 */
#ifndef BOT_FORWARD_H
#define BOT_FORWARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/git/gitrepo.h"
#include "parsers/config.h"
#include "storage/store.h"
#include "util/buf.h"

/*
 * Forward what the last build put on the stable branch of p (in r: tip,
 * built on upstream commit base) and was not forwarded as it is now, in
 * the caller's transaction.  actor: who asked (NULL: the bot).  With
 * dry_run nothing is queued or recorded.  report (may be NULL) gets a
 * line per mail, or why nothing goes; *npatches (may be NULL) the
 * patches forwarded.  ERR_CONFIG when the project cannot forward (no
 * forward-to; pull mode without a push remote), ERR_CONFLICT when the
 * pushed stable branch is not at the remote (pull mode; a dry run does
 * not ask the remote).
 */
enum err forward_built(struct store *st, const struct config *conf,
    const struct conf_project *p, int64_t project_id, struct gitrepo *r,
    const char *base, const char *tip, const char *actor, bool dry_run,
    struct buf *report, size_t *npatches);

/*
 * #yard forward: ask for the stable queue of p to go upstream with the
 * next rebuild of p (the branch must be built, and pushed for a pull
 * request, first), in the caller's transaction.  actor: who asked.
 */
enum err forward_request(
    struct store *st, const struct conf_project *p, const char *actor);

/* Whether a forward is asked for p; *actor (may be NULL) who asked,
 * malloc'd ("" for the bot). */
bool forward_requested(
    struct store *st, const struct conf_project *p, char **actor);

/* Whether any project has a forward asked for: the daemon rebuilds
 * then (the rebuild forwards). */
bool forward_any_requested(struct store *st, const struct config *conf);

/* The request is done (forwarded or refused). */
enum err forward_done(struct store *st, const struct conf_project *p);

#endif
