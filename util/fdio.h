/*
 * Writing to a file descriptor: the staging repository's pack and apply
 * cache (bot/git/); and the standard descriptors kept open (bot/main.c).
 */
#ifndef UTIL_FDIO_H
#define UTIL_FDIO_H

#include <stddef.h>

/* Write all n bytes of p to fd, again after EINTR and short writes: 0,
 * or -1 with errno set (EIO for a write that wrote nothing). */
int fd_write_all(int fd, const void *p, size_t n);

/*
 * Descriptors 0, 1 and 2 open, on /dev/null where the caller closed them
 * (`patchyard import ... <&- 2>&-`, a cron line, a parent that closed
 * them), as git's sanitize_stdfds() does at its start: a file opened
 * later would otherwise take the number, a message to stderr would be
 * written into it (a staging repository's object, say), and a test
 * command's pipe would land where the runner's dup2() keeps its
 * close-on-exec flag.  Returns 0, or -1 when /dev/null cannot be opened.
 */
int fd_std_open(void);

#endif
