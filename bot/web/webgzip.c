/*
 * gzip (RFC 1952) for responses a client accepts compressed: zlib's
 * deflate with its gzip wrapper.  The room's one file behind the zlib
 * wall (docs/STYLE.md).
 */
#include "bot/web/webgzip.h"

#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "util/log.h"

enum err
webgzip(const char *p, size_t n, struct buf *out)
{
	z_stream z;
	size_t bound;
	int rc;

	memset(&z, 0, sizeof(z));
	/* 15 bits of window, 16 for the gzip wrapper; level 6, zlib's
	 * default: pages are compressed once and kept. */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK) {
		log_err("web: gzip: %s", z.msg ? z.msg : "deflateInit2 failed");
		return ERR_INTERNAL;
	}
	bound = deflateBound(&z, (uLong)n);
	buf_reserve(out, bound);
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)out->p + out->n;
	z.avail_out = (uInt)bound;
	rc = deflate(&z, Z_FINISH);
	if (rc != Z_STREAM_END) {
		log_err("web: gzip: deflate answers %d", rc);
		deflateEnd(&z);
		return ERR_INTERNAL;
	}
	out->n += bound - z.avail_out;
	out->p[out->n] = '\0';
	deflateEnd(&z);
	return ERR_OK;
}
