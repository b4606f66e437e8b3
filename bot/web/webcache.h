/*
 * The server's answers, kept (DESIGN.md §9): a page is built once after
 * each change of the database and sent from memory until the next, with
 * an ETag and a Last-Modified for conditional requests (304) and a gzip
 * copy for clients that accept one.  Used by `patchyard serve` only: a
 * static site is written once.
 *
 * Whether the database changed is asked of a connection of the cache's
 * own (SQLite's data_version: one counter for every commit of any other
 * connection) before a request takes its snapshot, so that an answer is
 * never older than the last change seen.  Relative times ("3 days ago")
 * age, so an answer is also built again after WEB_CACHE_TTL seconds.
 * While one thread builds a page, others asking for it wait for it
 * instead of building it too.
 */
#ifndef BOT_WEB_WEBCACHE_H
#define BOT_WEB_WEBCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/web/web.h"
#include "storage/store.h"

/* Bytes of answers kept, and for how long at most (seconds). */
#define WEB_CACHE_BYTES (32u * 1024 * 1024)
#define WEB_CACHE_TTL 60
/* A body shorter than this is sent as it is. */
#define WEB_GZIP_MIN 256

struct webcache;

/* stamp: a read-only connection the cache owns from now on (it closes
 * it). */
struct webcache *webcache_new(struct store *stamp, size_t max_bytes, int ttl);
void webcache_free(struct webcache *c);

/* Before a request's snapshot is taken: the generation its answer
 * belongs to (a new one when the database changed since the last
 * request). */
uint64_t webcache_begin(struct webcache *c);

/*
 * Answer rq (read from st, a snapshot taken after webcache_begin gave
 * gen) from the cache or by web_handle(), keeping a 200 answer to a GET
 * or HEAD under key (what the answer depends on: the request target as
 * received, and the Host); then 304 when the client holds it
 * (If-None-Match, else If-Modified-Since) and gzip when the client
 * accepts it and the body is text.  key NULL: no cache, only the rest.
 */
void webcache_handle(struct webcache *c, struct web *w, struct store *st,
    const struct web_req *rq, const char *key, uint64_t gen,
    struct web_resp *rs);

/*
 * Whether an If-None-Match value names etag (or its gzip form): a list
 * of entity tags, weak or strong, or "*".
 */
bool webcache_etag_match(const char *if_none_match, const char *etag);

#endif
