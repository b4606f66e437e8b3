/*
 * Quoted-printable (RFC 2045 §6.7), and the Q encoding of RFC 2047 §4.2
 * on the way in: the one encoder and decoder of the project.
 */
#ifndef UTIL_QP_H
#define UTIL_QP_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* RFC 2045 §6.7 (5): encoded lines are at most 76 characters. */
#define QP_LINE_MAX 76

/*
 * Decode src[0..n) into dst (never longer than the input); returns the
 * bytes written.  q_header: RFC 2047's Q ('_' is a space, no soft line
 * breaks).  Lenient: lower-case hex is taken, a soft break may have
 * blanks after its '=' (some gateways add them), and a bad escape is
 * kept as it is and sets *bad (when not NULL).
 */
size_t qp_decode(
    char *dst, const char *src, size_t n, bool q_header, bool *bad);

/*
 * Encode text with CRLF (or LF) line ends: every line end becomes a hard
 * CRLF, '=', controls and bytes over 0x7e are escaped, a blank before a
 * line end too, and soft breaks keep every line within QP_LINE_MAX.
 * Appended to out.
 */
void qp_encode(struct buf *out, const char *src, size_t n);

#endif
