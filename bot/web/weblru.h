/*
 * The bookkeeping of the room's bounded caches (webcache, webmemo): a
 * hash table of string keys whose entries are also listed in order of
 * use, so that the least recently used goes first.  An entry starts with
 * a struct weblru_node; its owner allocates and frees the entry and its
 * key, takes the lock and counts the bytes.
 */
#ifndef BOT_WEB_WEBLRU_H
#define BOT_WEB_WEBLRU_H

#include <stddef.h>
#include <stdint.h>

struct weblru_node {
	struct weblru_node *next; /* in its bucket */
	struct weblru_node *newer, *older; /* in order of use */
	char *key; /* the owner's */
	uint64_t hash;
};

struct weblru {
	struct weblru_node **bucket;
	size_t nbuckets;
	struct weblru_node *newest, *oldest;
};

void weblru_init(struct weblru *t, size_t nbuckets);
/* Frees the table, not its entries: walk them first, from t->newest. */
void weblru_fini(struct weblru *t);

/* The entry of key, or NULL. */
struct weblru_node *weblru_find(struct weblru *t, const char *key);
/* Add n, whose key is set and not yet in t, as the most recently used. */
void weblru_add(struct weblru *t, struct weblru_node *n);
/* n becomes the most recently used. */
void weblru_use(struct weblru *t, struct weblru_node *n);
/* Take n out of t (its owner frees it). */
void weblru_remove(struct weblru *t, struct weblru_node *n);

#endif
