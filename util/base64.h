/*
 * Base64 (RFC 4648 §4: the alphabet of MIME, RFC 2045 §6.8, and of
 * RFC 2047's "B" encoding): the one encoder and decoder of the project.
 */
#ifndef UTIL_BASE64_H
#define UTIL_BASE64_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* The length of n bytes encoded, padding included: 4 * ceil(n / 3). */
size_t base64_len(size_t n);

/* Encode src[0..n) into dst (base64_len(n) bytes, then a NUL). */
void base64_encode(char *dst, const void *src, size_t n);

/* The same, appended to out. */
void base64_encode_buf(struct buf *out, const void *src, size_t n);

/* Whether c is one of the 64 digits ('=' is not). */
bool base64_digit(char c);

/*
 * Decode src[0..n) into dst (n bytes are enough: the output is never
 * longer than the input); returns the bytes written.  Lenient as mail needs it:
 * blanks and line breaks are skipped, padding may be missing, and data after
 * '=' starts a new quantum (concatenated blocks).  *bad (when not NULL) is set
 * on anything else: other characters, a lone digit left over.
 */
size_t base64_decode(char *dst, const char *src, size_t n, bool *bad);

#endif
