/*
 * A hash table of chains and a list in order of use (bot/web/weblru.h).
 */
#include "bot/web/weblru.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* FNV-1a, 64 bits: keys are short and our own. */
static uint64_t
hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

void
weblru_init(struct weblru *t, size_t nbuckets)
{
	memset(t, 0, sizeof(*t));
	t->nbuckets = nbuckets;
	t->bucket = xcalloc(nbuckets, sizeof(*t->bucket));
}

void
weblru_fini(struct weblru *t)
{
	free(t->bucket);
	memset(t, 0, sizeof(*t));
}

static struct weblru_node **
slot(struct weblru *t, const char *key, uint64_t h)
{
	struct weblru_node **p = &t->bucket[h % t->nbuckets];

	while (*p && ((*p)->hash != h || strcmp((*p)->key, key) != 0))
		p = &(*p)->next;
	return p;
}

struct weblru_node *
weblru_find(struct weblru *t, const char *key)
{
	return *slot(t, key, hash(key));
}

static void
unlink_use(struct weblru *t, struct weblru_node *n)
{
	if (n->newer)
		n->newer->older = n->older;
	else
		t->newest = n->older;
	if (n->older)
		n->older->newer = n->newer;
	else
		t->oldest = n->newer;
	n->newer = n->older = NULL;
}

static void
link_newest(struct weblru *t, struct weblru_node *n)
{
	n->older = t->newest;
	n->newer = NULL;
	if (t->newest)
		t->newest->newer = n;
	t->newest = n;
	if (t->oldest == NULL)
		t->oldest = n;
}

void
weblru_add(struct weblru *t, struct weblru_node *n)
{
	n->hash = hash(n->key);
	n->next = t->bucket[n->hash % t->nbuckets];
	t->bucket[n->hash % t->nbuckets] = n;
	link_newest(t, n);
}

void
weblru_use(struct weblru *t, struct weblru_node *n)
{
	if (t->newest == n)
		return;
	unlink_use(t, n);
	link_newest(t, n);
}

void
weblru_remove(struct weblru *t, struct weblru_node *n)
{
	*slot(t, n->key, n->hash) = n->next;
	unlink_use(t, n);
}
