/*
 * Subsystem trees (docs/DESIGN.md §6): repositories merged into the unstable
 * branch on every rebuild, as -mm merged the subsystem trees and
 * linux-next does every day.  They come from [tree "NAME"] sections
 * (kept in step with the table on every use) or from a `git
 * request-pull` mail a maintainer stages with #yard stage; each is
 * fetched into refs/trees/NAME of the staging repository on the
 * upstream run.  The merging itself happens in bot/workflow/stage.c.
 */
#ifndef BOT_TREES_H
#define BOT_TREES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bot/git/gitrepo.h"
#include "parsers/config.h"
#include "parsers/mail.h"
#include "storage/store.h"
#include "storage/store_tree.h"
#include "util/arena.h"
#include "util/buf.h"

/* The ref a tree is fetched into: refs/trees/<name>. */
enum err trees_ref(const struct store_tree *t, char *out, size_t n);

/*
 * The trees of project p (project_id) in merge order, the configured
 * ones brought in step with the configuration first (added, changed,
 * removed) at time now.  In the caller's transaction.
 */
enum err trees_load(struct store *st, struct arena *a,
    const struct config *conf, const struct conf_project *p, int64_t project_id,
    int64_t now, struct store_tree **out, size_t *n);

/*
 * Fetch t into its ref (a tree from mail: only until the commit it is
 * pinned to is there) and update t: commit and since when the commit
 * changed, last_error ("fetch: ...") when the fetch failed, state
 * "failed" when there is no commit at all.  Returns ERR_OK when the
 * failure is recorded in t; the caller saves t.
 */
enum err trees_fetch(
    struct gitrepo *r, struct arena *a, struct store_tree *t, int64_t now);

/* The merge commit's message, as git writes it for a pull: "Merge
 * branch 'B' of URL" ("tag" for tags). */
const char *trees_merge_message(struct arena *a, const struct store_tree *t);

/* `patchyard trees [--json]` and GET /api/trees: every tree of every
 * project, a line each (name, URL and branch, commit, state and last
 * error) or the JSON array of patchyard(1), appended to out. */
enum err trees_write(struct store *st, bool json, struct buf *out);
/* The same to a stream. */
enum err trees_show(struct store *st, bool json, FILE *out);

/*
 * A maintainer's #yard stage (drop: false) or #yard drop (drop: true)
 * in answer to the pull-request mail pull_msg, in the caller's
 * transaction, once the caller has checked who may (only a maintainer
 * of all of the project; workflow.c's allowed()).  actor: for the event;
 * cmd_msg: the command mail (0 from the terminal). *msg gets what happened or
 * why not; ERR_PERM / ERR_CONFLICT / ERR_INVAL when refused.
 */
enum err trees_stage_pull(struct store *st, const struct config *conf,
    struct arena *a, int64_t pull_msg, bool drop, const char *actor,
    int64_t cmd_msg, int64_t now, struct buf *msg);

#endif
