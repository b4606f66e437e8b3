/*
 * The header block of a mail (RFC 5322 §2.2), split cheaply: every mail
 * gets this pass; only mails whose body matters get the full MIME parse.
 * Field values are views into the raw mail, folded as they were; fields
 * keep their order (topmost first), which Authentication-Results needs.
 */
#ifndef PARSERS_HDR_H
#define PARSERS_HDR_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/buf.h"

struct hdr_field {
	struct str name; /* as written, without the colon */
	struct str value; /* raw: after the colon, folded, with CR/LF */
};

struct hdr {
	struct hdr_field *f;
	size_t n;
	size_t body_off; /* offset of the body; the raw length if none */
	bool no_body; /* no empty line ended the header block */
	const char *limit; /* with ERR_LIMIT: which limit ("header size",
	                      "header fields", "header field") */
};

/*
 * Split the header block of raw[0..n).  Accepts LF and CRLF, a leading
 * mbox "From " line (skipped), continuation lines, and garbage lines
 * without a colon (skipped).  ERR_LIMIT, with out->limit naming the
 * limit, when the block is over LIMIT_HEADER_SIZE, holds more than
 * LIMIT_HEADER_COUNT fields, or one field's value as written (folded)
 * is over LIMIT_FIELD_SIZE: the mail is then marked, never cut.
 */
enum err hdr_split(struct arena *a, const char *raw, size_t n, struct hdr *out);

/* The first (topmost) field called name, ASCII case-insensitive, or NULL. */
const struct hdr_field *hdr_get(const struct hdr *h, const char *name);

/* The value of the first field called name, unfolded (as hdr_unfold);
 * STR_NULL if none. */
struct str hdr_value(struct arena *a, const struct hdr *h, const char *name);

/*
 * Unfold a raw value: every CR, LF and following run of blanks becomes one
 * space, NUL becomes a space, and the result is trimmed: a NUL-terminated
 * copy in the arena (an empty value has .n == 0, never .p == NULL).  It is
 * never longer than the value, and never cut: values from hdr_split()
 * are within LIMIT_FIELD_SIZE.
 */
struct str hdr_unfold(struct arena *a, struct str value);

#endif
