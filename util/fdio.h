/*
 * Writing to a file descriptor: the staging repository's pack and apply
 * cache (bot/git/), the network parts' object into its memfd (bot/ext.c).
 */
#ifndef UTIL_FDIO_H
#define UTIL_FDIO_H

#include <stddef.h>

/* Write all n bytes of p to fd, again after EINTR and short writes: 0,
 * or -1 with errno set (EIO for a write that wrote nothing). */
int fd_write_all(int fd, const void *p, size_t n);

#endif
