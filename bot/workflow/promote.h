/*
 * The promotion policy (docs/DESIGN.md §6, [promote] in §10): a staged patch
 * moves from the unstable to the stable queue by itself when it has
 * been there long enough, its tests pass (or at least nothing fails),
 * enough people other than its author reviewed or acked it, nobody
 * nacked it, no changes were requested since it was staged, and -- unless
 * the policy says per-patch -- every staged patch of its contribution
 * qualifies too.  `#yard graduate` keeps working by hand and overrides
 * all of it.
 */
#ifndef BOT_PROMOTE_H
#define BOT_PROMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "parsers/config.h"
#include "storage/store.h"
#include "util/arena.h"

/* What holds a patch back; promote_hold_word() names each bit. */
enum promote_hold {
	PROMOTE_DAYS = 1 << 0, /* too young in unstable */
	PROMOTE_TEST = 1 << 1, /* no passing test, or a failing check */
	PROMOTE_REVIEW = 1 << 2, /* too few reviews or acks from others */
	PROMOTE_NACK = 1 << 3, /* somebody nacked it */
	PROMOTE_CHANGES = 1 << 4, /* changes requested since staged */
	PROMOTE_SERIES = 1 << 5, /* another patch of its series is held */
	PROMOTE_CONFLICT = 1 << 6, /* it does not apply: not in the build */
	PROMOTE_POLICY = 1 << 7, /* its project has no [promote] policy */
};

/* One patch of an unstable queue, judged. */
struct promote_item {
	int64_t patch_id;
	const char *project;
	const char *slug;
	const char *title;
	const char *message_id;
	unsigned held; /* enum promote_hold bits; 0: it moves */
	/* The conditions, said for people: what holds it ("days (2 of 7),
	 * review (0 of 1)"), or, when it moves, what it met. */
	const char *why;
};

/* "days", "test", "review", "nack", "changes", "series", "conflict",
 * "policy"; NULL for anything else. */
const char *promote_hold_word(unsigned bit);

/*
 * The plan: every patch of every project's unstable queue, in queue
 * order, and whether the policy moves it now (at time now).  A read:
 * nothing changes.  Items and their strings live in the arena.
 */
enum err promote_plan(struct store *st, const struct config *conf,
    struct arena *a, int64_t now, struct promote_item **out, size_t *n);

/*
 * Apply the policy once, as the daemon does on its timer: every patch
 * the plan moves graduates (one transaction per project), with the
 * event and the acknowledgment #yard graduate gives.  *moved counts them
 * (may be NULL); when it is not 0 the queue changed and a rebuild is
 * due.  out (may be NULL) gets a line per patch moved.
 */
enum err promote_auto(
    struct store *st, const struct config *conf, size_t *moved, FILE *out);

#endif
