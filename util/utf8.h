/* UTF-8 validation and repair (RFC 3629: no overlongs, no surrogates). */
#ifndef UTIL_UTF8_H
#define UTIL_UTF8_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

bool utf8_valid(const char *p, size_t n);
/* Length of the valid prefix of p. */
size_t utf8_valid_prefix(const char *p, size_t n);
/* Append p to b, replacing each invalid sequence and NUL by U+FFFD. */
void utf8_repair(struct buf *b, const char *p, size_t n);

#endif
