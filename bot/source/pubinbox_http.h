/*
 * The one thing the public-inbox mirror fetches besides git: the inbox's
 * grokmirror manifest, a small file over HTTP(S) (or file://), through
 * libcurl, the HTTP client the binary carries for SMTP already (libgit2
 * keeps its own to itself).  Loaded with the network parts at first use
 * (bot/ext.c).
 */
#ifndef BOT_PUBINBOX_HTTP_H
#define BOT_PUBINBOX_HTTP_H

#include <signal.h>
#include <stddef.h>

#include "util/err.h"

/*
 * GET url into *out (n bytes, the caller frees it), at most max bytes,
 * within PUBINBOX_HTTP_TIMEOUT seconds, given up at once when *stop is
 * set (stop may be NULL).  ERR_NOTFOUND: the server has no such file
 * (404, 410, or no file for file://); ERR_LIMIT: it is larger than max;
 * ERR_NET: anything else, with a one-line reason in err.
 */
enum err pubinbox_http_get(const char *url, size_t max,
    volatile sig_atomic_t *stop, char **out, size_t *n, char *err, size_t errn);

/* A manifest is a few hundred bytes an epoch: a minute is plenty. */
#define PUBINBOX_HTTP_TIMEOUT 60

#endif
