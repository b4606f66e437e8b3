/*
 * A local mirror of a public-inbox v2 archive served by URL (https://
 * lore.kernel.org/LIST, or file:// for a local one): each epoch
 * URL/git/N.git fetched with libgit2 into DIR/git/N.git.
 */
#ifndef BOT_PUBINBOX_MIRROR_H
#define BOT_PUBINBOX_MIRROR_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/*
 * Bring DIR up to date with url: fetch the newest epoch DIR holds (all
 * of them when all is set) and every newer one the server has: those
 * its manifest.js.gz lists, or without one those that exist in order,
 * at most 64 either way.  The fetch is forced, so a rewritten epoch
 * shows as a head that no longer descends from what was read.
 * *fetched counts the epochs fetched; note says, even on success, that
 * the server has more epochs than are mirrored ("" when not).  Errors
 * are logged with the URL: ERR_NET when the server cannot be reached or
 * has no epoch 0, ERR_IO for DIR.  Once *stop is set (stop may be NULL)
 * no more is fetched, and a fetch in progress ends.
 */
enum err pubinbox_mirror(const char *url, const char *dir, bool all,
    volatile sig_atomic_t *stop, unsigned *fetched, char *note, size_t noten);

#endif
