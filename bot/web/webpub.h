/*
 * `patchyard publish DIR`: the status pages and JSON as static files, for
 * a plain web server or a git-hosted site.  Every file is written to a
 * temporary name and renamed into place, so a reader never sees half a
 * page; only the pages of contributions that changed since the last run
 * are rendered again (DIR/.patchyard-publish remembers what each was
 * made from), and the shared pages are rewritten only when their bytes
 * differ.
 *
 * Layout (links between the pages are relative, so DIR may be served
 * from any path):
 *   index.html, page/N/index.html      the list, WEB_PER_PAGE a page
 *   style.css, feed.atom
 *   c/ID/index.html, c/ID/feed.atom
 *   c/ID/mbox, c/ID/vN/mbox
 *   api/contributions.json             the newest WEB_MAX_PER_PAGE
 *                                      summaries
 *   api/contributions/ID.json          as GET /api/contributions/ID
 *   api/patches/ID.json                as GET /api/patches/ID
 *   m/MESSAGE-ID/index.html            for each patch and cover letter:
 *                                      a page that refreshes to its
 *                                      contribution (a static /m/)
 */
#ifndef BOT_WEB_WEBPUB_H
#define BOT_WEB_WEBPUB_H

#include <stddef.h>

#include "parsers/config.h"
#include "storage/store.h"
#include "util/err.h"

struct webpub_stats {
	size_t contributions; /* published */
	size_t changed; /* whose pages were rendered again */
	size_t written; /* files written (new or different) */
};

enum err webpub_run(const struct config *conf, struct store *st,
    const char *dir, struct webpub_stats *stats);

#endif
