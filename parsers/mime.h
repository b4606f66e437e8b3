/*
 * The body of a mail as a list of leaf parts, decoded (base64,
 * quoted-printable) and, for text, converted to UTF-8 with LF line ends.
 *
 * A single-part text/plain mail in 7bit/8bit/binary (most list mail) is
 * handled without libetpan, straight from the raw bytes; everything else
 * goes through libetpan's MIME parser.
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
	/*
	 * text, when struct mime's has_raw is set: the same lines before
	 * the charset conversion (transfer decoded, LF only).  A patch is
	 * read from these bytes, as git am reads it: a latin1 file's patch
	 * must keep its latin1 bytes to apply and to keep its patch-id.  May
	 * be the same view as data (valid UTF-8 already).  Not to be read
	 * when has_raw is false.
	 */
	struct str raw;
};

struct mime {
	struct mime_part *parts; /* leaves, in order */
	size_t nparts;
	unsigned flags; /* enum mime_flag */
	bool has_raw; /* the text parts' raw views are filled in */
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
