/*
 * Allocation that never returns NULL: out of memory is fatal.  Input can
 * never make us run out, because every parser allocation is bounded by
 * parsers/limits.h.
 */
#ifndef UTIL_XALLOC_H
#define UTIL_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Grow an array of nmemb elements of size to hold at least need of them. */
void *xgrow(void *p, size_t *nmemb, size_t need, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Print "patchyard: fatal: ..." and exit(1).  Start-up and OOM only. */
_Noreturn void fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

#endif
