/*
 * The body of a mail as a list of leaf parts, decoded (base64,
 * quoted-printable) and, for text, converted to UTF-8 with LF line ends.
 *
 * A mail that is not multipart (most list mail: a single text/plain part)
 * is handled without libetpan, straight from the raw bytes; a multipart
 * one goes through libetpan's MIME parser.  Views in the result (data,
 * when nothing had to be decoded) may point into the raw mail, which must
 * outlive the result, as it must for struct hdr, and are not always
 * NUL-terminated.
 */
#ifndef PARSERS_MIME_H
#define PARSERS_MIME_H

#include <stdbool.h>
#include <stddef.h>

#include "parsers/hdr.h"
#include "util/arena.h"
#include "util/buf.h"

enum mime_flag {
	MIME_F_DEPTH = 1 << 0, /* nesting over LIMIT_MIME_DEPTH: cut there */
	MIME_F_PARTS = 1 << 1, /* over LIMIT_MIME_PARTS: the rest ignored */
	MIME_F_BROKEN = 1 << 2, /* bad structure or encoding, best effort */
	MIME_F_CHARSET = 1 << 3, /* an unknown charset or invalid bytes */
};

struct mime_part {
	const char *type; /* lower case, "text/plain" when absent */
	const char *charset; /* lower case as declared, or NULL */
	const char *filename; /* decoded (RFC 2047/2231), or NULL */
	bool attachment; /* Content-Disposition: attachment */
	bool text; /* text/plain, text/x-patch, text/x-diff, any text/ type */
	struct str data; /* text: UTF-8, LF only; else the decoded bytes */
};

struct mime {
	struct mime_part *parts; /* leaves, in order */
	size_t nparts;
	unsigned flags; /* enum mime_flag */
};

/*
 * Parse the body of raw[0..n), whose header h came from hdr_split() on
 * the same bytes.  Fails only with ERR_LIMIT (the mail is over a limit
 * that makes parsing pointless); broken MIME is parsed as far as it goes
 * and flagged.  multipart/alternative keeps its text/plain leaves only;
 * message/rfc822 parts are kept as one opaque part.
 */
enum err mime_parse(struct arena *a, const char *raw, size_t n,
    const struct hdr *h, struct mime *out);

#endif
