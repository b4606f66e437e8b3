/*
 * A least-recently-used map of strings to bytes (bot/web/webmemo.h): a
 * hash table of chains and a list in order of use, under one lock.
 */
#include "bot/web/webmemo.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct entry {
	struct entry *next; /* in its bucket */
	struct entry *newer, *older; /* in order of use */
	char *key;
	char *value;
	size_t n;
	uint64_t hash;
};

struct webmemo {
	pthread_mutex_t lock;
	struct entry **bucket;
	size_t nbuckets, count, bytes, max;
	struct entry *newest, *oldest;
};

/* FNV-1a, 64 bits: keys are short and our own. */
static uint64_t
hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static size_t
cost(const struct entry *e)
{
	return sizeof(*e) + strlen(e->key) + 1 + e->n;
}

struct webmemo *
webmemo_new(size_t max_bytes)
{
	struct webmemo *m = xcalloc(1, sizeof(*m));

	pthread_mutex_init(&m->lock, NULL);
	m->nbuckets = 1024;
	m->bucket = xcalloc(m->nbuckets, sizeof(*m->bucket));
	m->max = max_bytes;
	return m;
}

void
webmemo_free(struct webmemo *m)
{
	struct entry *e, *next;

	if (m == NULL)
		return;
	for (e = m->newest; e; e = next) {
		next = e->older;
		free(e->key);
		free(e->value);
		free(e);
	}
	free(m->bucket);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static void
unlink_use(struct webmemo *m, struct entry *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		m->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		m->oldest = e->newer;
	e->newer = e->older = NULL;
}

static void
link_newest(struct webmemo *m, struct entry *e)
{
	e->older = m->newest;
	e->newer = NULL;
	if (m->newest)
		m->newest->newer = e;
	m->newest = e;
	if (m->oldest == NULL)
		m->oldest = e;
}

static struct entry **
slot(struct webmemo *m, const char *key, uint64_t h)
{
	struct entry **p = &m->bucket[h % m->nbuckets];

	while (*p && ((*p)->hash != h || strcmp((*p)->key, key) != 0))
		p = &(*p)->next;
	return p;
}

static void
drop(struct webmemo *m, struct entry *e)
{
	struct entry **p = slot(m, e->key, e->hash);

	*p = e->next;
	unlink_use(m, e);
	m->bytes -= cost(e);
	m->count--;
	free(e->key);
	free(e->value);
	free(e);
}

bool
webmemo_get(struct webmemo *m, const char *key, struct buf *out)
{
	uint64_t h = hash(key);
	struct entry *e;
	bool found = false;

	pthread_mutex_lock(&m->lock);
	if ((e = *slot(m, key, h)) != NULL) {
		unlink_use(m, e);
		link_newest(m, e);
		buf_add(out, e->value, e->n);
		found = true;
	}
	pthread_mutex_unlock(&m->lock);
	return found;
}

void
webmemo_put(struct webmemo *m, const char *key, const char *value, size_t n)
{
	uint64_t h = hash(key);
	struct entry *e, **p;

	if (n > m->max / 8)
		return;
	e = xcalloc(1, sizeof(*e));
	e->key = xstrdup(key);
	e->value = xmalloc(n ? n : 1);
	memcpy(e->value, value, n);
	e->n = n;
	e->hash = h;
	pthread_mutex_lock(&m->lock);
	if (*(p = slot(m, key, h)) != NULL)
		drop(m, *p);
	p = slot(m, key, h);
	*p = e;
	link_newest(m, e);
	m->bytes += cost(e);
	m->count++;
	while (m->bytes > m->max && m->oldest && m->oldest != e)
		drop(m, m->oldest);
	pthread_mutex_unlock(&m->lock);
}

size_t
webmemo_size(struct webmemo *m)
{
	size_t n;

	pthread_mutex_lock(&m->lock);
	n = m->bytes;
	pthread_mutex_unlock(&m->lock);
	return n;
}
