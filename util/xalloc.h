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

/*
 * For a command about to fill tens of megabytes of heap in one go (a
 * rebuild keeps every version of a big folder's tree in memory): keep
 * the next pad bytes of heap, and ask the kernel for transparent huge
 * pages there.  Fresh memory costs a page fault per 4 KB page touched
 * (16,000 of them for the bench's cold rebuild, a quarter of its CPU);
 * in 2 MB pages it costs one per 512.  Where the kernel gives no huge
 * pages (transparent_hugepage=never) only the padding is left, which
 * costs nothing until touched.  Not for the daemon: its memory is meant
 * to be given back.
 */
void xalloc_huge_heap(size_t pad);

/*
 * The same for the calling thread's own malloc arena, after
 * xalloc_huge_heap: glibc gives a thread arena heaps of 64 MB, mapped
 * whole and aligned to their size (its arena.c, heap_for_ptr); the heap
 * of a block the thread allocates is advised whole, and made writable
 * pad bytes ahead (under 32 MB).  Nothing is done for a thread on the
 * main arena; under another allocator (a sanitizer's) the advice falls
 * on memory that is not a glibc heap, which it does not harm.
 */
void xalloc_huge_thread(size_t pad);

/* Print "patchyard: fatal: ..." and exit(1).  Start-up and OOM only. */
_Noreturn void fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

#endif
