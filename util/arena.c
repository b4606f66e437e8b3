#include "util/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define ARENA_BLOCK (64 * 1024)
#define ARENA_ALIGN 16

struct block {
	struct block *next;
	size_t size; /* usable bytes after the header */
	size_t used;
	_Alignas(16) unsigned char data[];
};

struct arena {
	struct block *head;
	size_t total;
};

static struct block *
block_new(size_t size)
{
	struct block *b = xmalloc(sizeof(*b) + size);

	b->next = NULL;
	b->size = size;
	b->used = 0;
	return b;
}

struct arena *
arena_new(void)
{
	struct arena *a = xcalloc(1, sizeof(*a));

	a->head = block_new(ARENA_BLOCK);
	return a;
}

void
arena_free(struct arena *a)
{
	struct block *b, *next;

	if (a == NULL)
		return;
	for (b = a->head; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a);
}

void
arena_reset(struct arena *a)
{
	struct block *b = a->head, *next, *last = NULL;

	/* Keep the oldest block of the standard size (the last in the list). */
	while (b) {
		next = b->next;
		if (next == NULL && b->size == ARENA_BLOCK)
			last = b;
		else
			free(b);
		b = next;
	}
	if (last == NULL)
		last = block_new(ARENA_BLOCK);
	last->used = 0;
	last->next = NULL;
	a->head = last;
	a->total = 0;
}

void *
arena_alloc(struct arena *a, size_t n)
{
	struct block *b = a->head;
	size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	void *p;

	if (n > SIZE_MAX / 2)
		fatal("arena: allocation too large");
	if (need == 0)
		need = ARENA_ALIGN;
	if (b->size - b->used < need) {
		size_t size = need > ARENA_BLOCK / 4 ? need : ARENA_BLOCK;
		struct block *nb = block_new(size);

		if (size == need) {
			/* A big one-off: keep the current block in front. */
			nb->next = b->next;
			b->next = nb;
			b = nb;
		} else {
			nb->next = b;
			a->head = nb;
			b = nb;
		}
	}
	p = b->data + b->used;
	b->used += need;
	a->total += need;
	return p;
}

void *
arena_zalloc(struct arena *a, size_t n)
{
	void *p = arena_alloc(a, n);

	memset(p, 0, n);
	return p;
}

char *
arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	if (n)
		memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *
arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal("arena: cannot format \"%s\"", fmt);
	s = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

struct str
arena_str(struct arena *a, struct str s)
{
	return str_make(arena_strndup(a, s.p ? s.p : "", s.n), s.n);
}

size_t
arena_used(const struct arena *a)
{
	return a->total;
}
