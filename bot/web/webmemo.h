/*
 * What the pages compute once and keep (DESIGN.md §9): values by key, in
 * memory, the least recently used dropped beyond a size.  For values that
 * never change once computed, such as the interdiff of two stored mails.
 * Safe to share between the server's threads.
 */
#ifndef BOT_WEB_WEBMEMO_H
#define BOT_WEB_WEBMEMO_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

struct webmemo;

/* A memo holding at most max_bytes of keys and values. */
struct webmemo *webmemo_new(size_t max_bytes);
void webmemo_free(struct webmemo *m);

/* The value of key appended to out: true when kept, false else. */
bool webmemo_get(struct webmemo *m, const char *key, struct buf *out);
/* Keep a copy of value under key (replacing what was there); a value
 * larger than an eighth of the memo is not kept. */
void webmemo_put(
    struct webmemo *m, const char *key, const char *value, size_t n);
/* Bytes kept, for the tests. */
size_t webmemo_size(struct webmemo *m);

#endif
