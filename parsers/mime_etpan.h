/*
 * The three calls parsers/mime.c makes into libetpan, in a file of their
 * own: the patchyard binary loads libetpan (and what it pulls in, GnuTLS
 * among them) only when a mail is multi-part, through bot/ext.c, so that
 * the commands that never see one start without it.
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
