#include "util/xalloc.h"

#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void
fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("patchyard: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		fatal("out of memory (%zu bytes)", n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		fatal("out of memory (%zu x %zu bytes)", nmemb, size);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		fatal("out of memory (%zu bytes)", n);
	return q;
}

void *
xgrow(void *p, size_t *nmemb, size_t need, size_t size)
{
	size_t n = *nmemb;

	if (need <= n)
		return p;
	if (n < 8)
		n = 8;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			fatal("array too large");
		n *= 2;
	}
	if (size && n > SIZE_MAX / size)
		fatal("array too large");
	p = xrealloc(p, n * size);
	*nmemb = n;
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* Blocks at least this big are mapped on their own (glibc's default
 * ceiling for its sliding threshold); below it they come from a heap. */
#define MMAP_FROM ((size_t)32 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

void
xalloc_huge_heap(size_t pad)
{
	struct mallinfo2 mi;
	uintptr_t lo, hi, at = 0;
	size_t nb;
	void *p, *end;

	if (pad > (size_t)1 << 30)
		pad = (size_t)1 << 30;
	/* Big blocks from the heap too, and nothing given back early: the
	 * region keeps its advice only while it stays mapped. */
	mallopt(M_MMAP_THRESHOLD, (int)MMAP_FROM);
	mallopt(M_TOP_PAD, (int)pad);
	mallopt(M_TRIM_THRESHOLD, (int)(2 * pad));
	/*
	 * A block bigger than the free top of the heap and than all its
	 * other free memory makes the heap grow, by it and the pad, in one
	 * step.  Later growth does not inherit the advice (the kernel maps
	 * it apart), hence the pad.  The block is small: allocating it
	 * writes past its end, and a 2 MB page already touched gets no
	 * huge page.
	 */
	mi = mallinfo2();
	nb = (mi.keepcost > mi.fordblks - mi.keepcost
	             ? mi.keepcost
	             : mi.fordblks - mi.keepcost) +
	    4096;
	if (mi.keepcost < pad && nb < MMAP_FROM && (p = malloc(nb)) != NULL) {
		at = (uintptr_t)p + nb + 4096;
		free(p);
	}
	end = sbrk(0);
	mi = mallinfo2();
	if (end == (void *)-1 || mi.keepcost > (uintptr_t)end)
		return;
	if (at < (uintptr_t)end - mi.keepcost)
		at = (uintptr_t)end - mi.keepcost;
	lo = (at + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	hi = (uintptr_t)end;
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

void
xalloc_huge_thread(size_t pad)
{
	const uintptr_t heap = (uintptr_t)64 << 20;
	void *p = malloc(64);
	uintptr_t at = (uintptr_t)p, base = at & ~(heap - 1);

	free(p);
	/* The main arena's blocks lie in the data segment, below sbrk(0).
	 * Advice on memory that is not a glibc heap (a sanitizer's) costs
	 * nothing until it is touched. */
	if (at == 0 || at < (uintptr_t)sbrk(0))
		return;
	(void)madvise((void *)base, heap, MADV_HUGEPAGE);
	/* A thread's heap is made writable as it grows, a few pages at a
	 * time, and a huge page needs its 2 MB writable when first
	 * touched: grow it by pad in one step (given back only above the
	 * trim threshold). */
	if (pad >= MMAP_FROM)
		pad = MMAP_FROM - HUGE_PAGE;
	if ((p = malloc(pad)) != NULL)
		free(p);
}
