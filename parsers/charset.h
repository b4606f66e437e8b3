/*
 * Charsets to UTF-8 (iconv), RFC 2047 encoded-words and RFC 2231
 * parameters.  Output is always valid UTF-8: the declared charset is tried
 * first, then UTF-8, then windows-1252 (which maps every byte).
 */
#ifndef PARSERS_CHARSET_H
#define PARSERS_CHARSET_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/buf.h"

/*
 * Convert p[0..n) from charset (NULL or "": us-ascii) to UTF-8 in the
 * arena; when p already is valid UTF-8 without NULs and declared as such
 * (or as us-ascii, or not at all), *out is p itself, not a copy.
 * *fallback (may be NULL) is set when the declared charset was unknown or
 * the bytes were not valid in it, so a fallback was used.  NUL bytes
 * become U+FFFD.  Never fails but for limits (ERR_LIMIT beyond
 * LIMIT_DECODED_SIZE).
 */
enum err charset_to_utf8(struct arena *a, const char *charset, const char *p,
    size_t n, struct str *out, bool *fallback);

/*
 * Decode an unfolded unstructured header value (Subject, a display name):
 * RFC 2047 encoded-words ("=?cs?B?...?=" and "=?cs?Q?...?=", adjacent
 * words joined without the blanks between them, mixed charsets), raw 8-bit
 * text treated as UTF-8 else windows-1252.  Result is valid UTF-8 without
 * control characters (CR, LF, TAB and others become spaces).
 */
enum err charset_decode_header(
    struct arena *a, struct str value, struct str *out, bool *fallback);

/*
 * The value of parameter name (ASCII case-insensitive) in a Content-Type
 * or Content-Disposition value: plain (token or quoted-string) or RFC 2231
 * (name*=charset'lang'%XX, continuations name*0*, name*1 ...), decoded
 * to UTF-8.  STR_NULL when absent.
 */
struct str charset_param(struct arena *a, struct str value, const char *name);

#endif
