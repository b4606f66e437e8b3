/*
 * The three calls parsers/mime.c makes into libetpan's MIME parser, in a
 * file of their own: the one place that includes libetpan's headers.
 * The parser is linked in statically (docs/DECISIONS.md, "Network parts
 * ..."), so a multi-part mail loads no shared object.
 */
#ifndef PARSERS_MIME_ETPAN_H
#define PARSERS_MIME_ETPAN_H

#include <stddef.h>

struct mailmime;
struct mailmime_content;

/* mailmime_parse(): MAILIMF_NO_ERROR (0) or libetpan's error. */
int mime_etpan_parse(
    const char *buf, size_t n, size_t *idx, struct mailmime **out);

/* mailmime_extract_boundary(): the boundary (free() it), or NULL. */
char *mime_etpan_boundary(struct mailmime_content *ct);

/* mailmime_free(). */
void mime_etpan_free(struct mailmime *mm);

#endif
