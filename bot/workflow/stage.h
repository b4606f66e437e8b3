/*
 * The staging tree (DESIGN.md §6): `patchyard rebuild` builds the
 * stable and unstable branches from the queue, exports it as quilt,
 * pushes, and lets the held acknowledgments go; `patchyard upstream`
 * fetches mainline and marks the patches it took as merged.
 */
#ifndef BOT_STAGE_H
#define BOT_STAGE_H

#include "parsers/config.h"
#include "storage/store.h"

/* Rebuild every project that has a staging repository. */
enum err stage_rebuild(struct store *st, const struct config *conf);

/* Fetch and scan upstream for every project that has one. */
enum err stage_upstream(struct store *st, const struct config *conf);

#endif
