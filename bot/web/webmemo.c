/*
 * A least-recently-used map of strings to bytes (bot/web/webmemo.h): a
 * table of bot/web/weblru.h under one lock.
 */
#include "bot/web/webmemo.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bot/web/weblru.h"
#include "util/xalloc.h"

/* An entry starts with its node (bot/web/weblru.h). */
struct entry {
	struct weblru_node node;
	char *value;
	size_t n;
};

struct webmemo {
	pthread_mutex_t lock;
	struct weblru t;
	size_t count, bytes, max;
};

static struct entry *
entry_of(struct weblru_node *n)
{
	return (struct entry *)n;
}

static size_t
cost(const struct entry *e)
{
	return sizeof(*e) + strlen(e->node.key) + 1 + e->n;
}

static void
entry_free(struct entry *e)
{
	free(e->node.key);
	free(e->value);
	free(e);
}

struct webmemo *
webmemo_new(size_t max_bytes)
{
	struct webmemo *m = xcalloc(1, sizeof(*m));

	pthread_mutex_init(&m->lock, NULL);
	weblru_init(&m->t, 1024);
	m->max = max_bytes;
	return m;
}

void
webmemo_free(struct webmemo *m)
{
	struct weblru_node *n, *older;

	if (m == NULL)
		return;
	for (n = m->t.newest; n; n = older) {
		older = n->older;
		entry_free(entry_of(n));
	}
	weblru_fini(&m->t);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static void
drop(struct webmemo *m, struct entry *e)
{
	weblru_remove(&m->t, &e->node);
	m->bytes -= cost(e);
	m->count--;
	entry_free(e);
}

bool
webmemo_get(struct webmemo *m, const char *key, struct buf *out)
{
	struct weblru_node *n;
	bool found = false;

	pthread_mutex_lock(&m->lock);
	if ((n = weblru_find(&m->t, key)) != NULL) {
		weblru_use(&m->t, n);
		buf_add(out, entry_of(n)->value, entry_of(n)->n);
		found = true;
	}
	pthread_mutex_unlock(&m->lock);
	return found;
}

void
webmemo_put(struct webmemo *m, const char *key, const char *value, size_t n)
{
	struct weblru_node *old;
	struct entry *e;

	if (n > m->max / 8)
		return;
	e = xcalloc(1, sizeof(*e));
	e->node.key = xstrdup(key);
	e->value = xmalloc(n ? n : 1);
	memcpy(e->value, value, n);
	e->n = n;
	pthread_mutex_lock(&m->lock);
	if ((old = weblru_find(&m->t, key)) != NULL)
		drop(m, entry_of(old));
	weblru_add(&m->t, &e->node);
	m->bytes += cost(e);
	m->count++;
	while (m->bytes > m->max && m->t.oldest && m->t.oldest != &e->node)
		drop(m, entry_of(m->t.oldest));
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
