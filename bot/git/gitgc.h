/*
 * Room bot/git.  Packing and pruning the staging repository, as `git gc
 * --prune=now` would: libgit2 has no gc.  Every object a ref reaches
 * goes into one new pack (libgit2's packbuilder, with its delta search);
 * then every other pack and every loose object is removed.  The staging
 * repository holds nothing of value that no ref reaches: a rebuild
 * writes its results before it moves a ref, and what it threw away is
 * only garbage.  A build in progress holds the repository (a shared
 * flock of gitrepo_open()); gc takes it exclusively or returns ERR_BUSY.
 */
#ifndef BOT_GITGC_H
#define BOT_GITGC_H

#include <stddef.h>
#include <time.h>

#include "util/err.h"

struct gitgc_stats {
	size_t packs_before, loose_before; /* files found */
	size_t objects; /* in the one pack left */
	unsigned long long bytes_before, bytes_after; /* under objects/ */
};

/* keep: commits (hex) to keep with their history though no ref names
 * them, such as those waiting for a test; unknown ones are skipped. */
enum err gitgc_run(const char *path, const char *const *keep, size_t nkeep,
    struct gitgc_stats *st);

/* When gitgc_run() last completed on path; 0 when never. */
time_t gitgc_last(const char *path);

#endif
