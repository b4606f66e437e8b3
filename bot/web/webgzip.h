/* gzip for HTTP responses (bot/web/webgzip.c: the room's zlib wall). */
#ifndef BOT_WEB_WEBGZIP_H
#define BOT_WEB_WEBGZIP_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/* Append the gzip member of p[0..n) to out.  Bodies are at most what a
 * page is (the callers' caps), well under zlib's 4 GB. */
enum err webgzip(const char *p, size_t n, struct buf *out);

#endif
