/*
 * Room bot/workflow.  Garbage collection of a project's staging
 * repository (bot/git/gitgc.h) with what the database still needs kept:
 * the commits of test runs queued or running, which a rebuild may have
 * taken off every branch.  `patchyard gc` and the daemon's gc worker.
 */
#ifndef BOT_COLLECT_H
#define BOT_COLLECT_H

#include "bot/git/gitgc.h"
#include "parsers/config.h"
#include "storage/store.h"

/* ERR_BUSY when a build holds the repository: try again later. */
enum err collect_project(
    struct store *st, const struct conf_project *p, struct gitgc_stats *s);

#endif
