/*
 * A whole regular file mapped read-only: the pack indexes and packs of
 * git repositories (bot/git/gitpack.c, bot/source/packbound.c).
 */
#ifndef UTIL_FMAP_H
#define UTIL_FMAP_H

#include <stddef.h>

/* The file at path, mapped; NULL when it cannot be opened or mapped, or
 * is not a regular file with at least one byte.  *len: its size. */
unsigned char *fmap_open(const char *path, size_t *len);

/* Unmap what fmap_open() mapped (NULL: nothing). */
void fmap_close(unsigned char *map, size_t len);

#endif
