/*
 * Secrets kept in files (password-file keys of bot.conf): the first
 * line, without its line end.
 */
#ifndef UTIL_SECRET_H
#define UTIL_SECRET_H

#include <stddef.h>

#include "util/err.h"

/* The first line of the file at path into out (n bytes, NUL-terminated;
 * empty for an empty file).  ERR_CONFIG with "path: reason" in why (whyn
 * bytes) when it cannot be read. */
enum err secret_read(
    const char *path, char *out, size_t n, char *why, size_t whyn);

#endif
