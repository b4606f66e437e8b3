/*
 * A bump allocator: parser output lives in one arena and is freed in one
 * call.  Allocations are 16-byte aligned and never fail (OOM is fatal);
 * parsers bound what they allocate with parsers/limits.h.
 */
#ifndef UTIL_ARENA_H
#define UTIL_ARENA_H

#include <stddef.h>

#include "util/buf.h"

struct arena;

struct arena *arena_new(void);
void arena_free(struct arena *a);
/* Drop everything allocated but keep the first block for reuse. */
void arena_reset(struct arena *a);
void *arena_alloc(struct arena *a, size_t n);
void *arena_zalloc(struct arena *a, size_t n);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
/* A formatted string in the arena (never truncated). */
char *arena_printf(struct arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A NUL-terminated copy of a view; .p of the result is the copy. */
struct str arena_str(struct arena *a, struct str s);
/* Bytes handed out so far (for limits and tests). */
size_t arena_used(const struct arena *a);

#endif
