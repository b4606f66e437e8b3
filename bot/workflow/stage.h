/*
 * The staging tree (docs/DESIGN.md §6): `patchyard rebuild` builds the
 * stable and unstable branches from the queue, exports it as quilt,
 * pushes, and lets the held acknowledgments go; `patchyard upstream`
 * fetches mainline and marks the patches it took as merged.
 */
#ifndef BOT_STAGE_H
#define BOT_STAGE_H

#include "parsers/config.h"
#include "storage/store.h"
#include "util/buf.h"

/* Rebuild every project that has a staging repository. */
enum err stage_rebuild(struct store *st, const struct config *conf);

/*
 * Rebuild one project (which must have a staging repository); a forward
 * asked for it (bot/workflow/forward.h) happens then, and report (may
 * be NULL) says what it sent.  dry_run: build and forward as that would,
 * but send, record and move nothing (the branches, the push, the
 * database stay as they were).
 */
enum err stage_rebuild_one(struct store *st, const struct config *conf,
    const struct conf_project *p, struct buf *report, bool dry_run);

/* Fetch and scan upstream for every project that has one, and fetch the
 * subsystem trees. */
enum err stage_upstream(struct store *st, const struct config *conf);

#endif
