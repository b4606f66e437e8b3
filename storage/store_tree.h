/*
 * Subsystem trees (docs/DESIGN.md §6): repositories merged into the unstable
 * branch on every rebuild, from the configuration ([tree "NAME"]) or
 * from a `git request-pull` mail a maintainer staged.
 */
#ifndef STORAGE_STORE_TREE_H
#define STORAGE_STORE_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage/store.h"
#include "util/arena.h"

struct store_tree {
	int64_t id;
	int64_t project_id;
	const char *name; /* unique in its project; refs/trees/<name> */
	const char *url;
	const char *branch; /* a branch name, or a ref ("refs/tags/x") */
	const char *owner; /* told when it does not merge; NULL: nobody */
	bool from_mail; /* staged from a pull-request mail */
	int64_t message_id; /* that mail, or 0 */
	const char *pinned; /* the commit the mail names, or NULL */
	const char *commit; /* what the last fetch gave, or NULL */
	/* new, merged (in the last unstable build), conflict (left out of
	 * it), failed (cannot be fetched), upstream (nothing left to merge:
	 * upstream has it) */
	const char *state;
	const char *last_error; /* NULL when none */
	const char *reported; /* the commit a conflict mail was sent for */
	int64_t since; /* when commit was first seen */
	int64_t pos; /* order among the trees of its origin */
};

/* The trees of a project (0: every project): configured ones first,
 * then those from mail, each in order. */
enum err store_tree_list(struct store *st, struct arena *a, int64_t project_id,
    struct store_tree **out, size_t *n);
enum err store_tree_add(
    struct store *st, const struct store_tree *t, int64_t *id);
/* Update everything but project and origin. */
enum err store_tree_update(struct store *st, const struct store_tree *t);
enum err store_tree_delete(struct store *st, int64_t id);

#endif
