/*
 * The one escaping family for text that leaves the program as markup or
 * a URL: status pages, the Atom feed, links.  Every string from mail goes
 * through one of these on its way into a page.
 *
 *   esc_html_text  element content (HTML and XML): & < > escaped
 *   esc_html_attr  a double- or single-quoted attribute value: & < > " '
 *   esc_url        one URL path segment or query value: every byte but
 *                  A-Z a-z 0-9 - . _ ~ percent-encoded (RFC 3986)
 *
 * The two HTML ones also make the text valid UTF-8 and drop what neither
 * HTML nor XML 1.0 may hold: NUL and the other control characters but
 * tab, LF and CR become U+FFFD, invalid bytes too.
 */
#ifndef UTIL_ESC_H
#define UTIL_ESC_H

#include <stddef.h>

#include "util/buf.h"

void esc_html_text(struct buf *out, const char *s, size_t n);
void esc_html_attr(struct buf *out, const char *s, size_t n);
void esc_url(struct buf *out, const char *s, size_t n);

#endif
