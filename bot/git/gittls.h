/*
 * libgit2's CA bundle, parsed at the first TLS handshake instead of at
 * git_libgit2_init() (see bot/git/gittls.c).  What is here is for tests:
 * the two functions tell what the deferral did.
 */
#ifndef BOT_GIT_GITTLS_H
#define BOT_GIT_GITTLS_H

#define GITTLS_NOT_YET (-0x7fff) /* gittls_parsed(): no handshake yet */

/* The file whose parse is put off, or NULL (none noted, or done). */
const char *gittls_noted(void);

/* What mbedTLS's parse of it gave at the first handshake (0, or the
 * count of certificates it skipped; below 0 an error), GITTLS_NOT_YET
 * before. */
int gittls_parsed(void);

#endif
