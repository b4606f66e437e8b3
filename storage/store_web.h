/*
 * The read side of the status pages and of `list`: contribution summaries
 * (one query with the filters and paging, docs/DESIGN.md §9 and §12), events
 * after an id, the feed, and what `publish` compares to know which pages
 * changed.
 */
#ifndef STORAGE_STORE_WEB_H
#define STORAGE_STORE_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/model.h"
#include "storage/store.h"
#include "util/arena.h"
#include "util/buf.h"

/* Which contributions, and which page of them.  Zeroed: all. */
struct store_filter {
	int64_t id; /* 0: any; else only this contribution */
	const char *project; /* a project name, or NULL */
	const char *state; /* as docs/DESIGN.md §3, or "partial" */
	const char *submitter; /* an address (exact, any case), else a
	                          part of the name or address */
	const char *q; /* words, in any order, each the start of a word of
	                  a title (of the contribution or a patch), of a
	                  submitter's or author's name or address, or of a
	                  Message-ID (the search index; DESIGN.md §9) */
	int64_t since; /* last activity at or after; 0: any */
	size_t offset;
	size_t limit; /* 0: no limit */
};

/* A contribution as the list shows it, newest series first. */
struct store_summary {
	int64_t id;
	const char *project; /* "" when unassigned */
	int64_t series_id; /* the newest series */
	const char *title;
	const char *submitter_name;
	const char *submitter_email;
	int version;
	int expected;
	int patch_count; /* patches received, one copy per number */
	enum model_state state;
	int64_t posted; /* the newest series' "posted" event */
	int64_t last_activity;
	int acks, reviews, tests; /* Acked-by, Reviewed-by, Tested-by,
	                             each person once per patch */
	/* The worst of the latest result of each context on each patch:
	 * fail, warning, pending, success; NULL without checks. */
	const char *test_state;
	int series_count; /* versions and copies of the series */
};

/*
 * The summaries f selects, newest activity first, into the arena.
 * *more says whether rows follow the page (when f->limit is set).
 */
enum err store_web_summaries(struct store *st, struct arena *a,
    const struct store_filter *f, struct store_summary **out, size_t *n,
    bool *more);

/*
 * The FTS5 query of the search words q (struct store_filter's q)
 * appended to out: each blank-separated word a phrase of its tokens
 * whose last one is a prefix, all of them required.  Nothing is
 * appended for words without a letter or digit; a word given again
 * (ASCII case ignored) is asked once, and only the first
 * LIMIT_SEARCH_WORDS words are asked.
 */
void store_web_match(const char *q, struct buf *out);

/* Project names, sorted (for the filter form). */
enum err store_web_projects(
    struct store *st, struct arena *a, const char ***out, size_t *n);

struct store_web_event {
	int64_t id;
	int64_t time;
	enum model_event kind;
	int64_t contribution_id; /* 0: none */
	const char *actor;
	const char *detail;
	const char *message_id;
	const char *slug;
	const char *title; /* feed only: the series' title */
	const char *patch_title; /* feed only: the patch's, or NULL */
};

/* Events with an id above since, oldest first, at most limit. */
enum err store_web_events(struct store *st, struct arena *a, int64_t since,
    size_t limit, struct store_web_event **out, size_t *n);
/* The feed's events (new contributions, state changes), newest first;
 * contribution 0: of every contribution. */
enum err store_web_feed(struct store *st, struct arena *a, int64_t contribution,
    size_t limit, struct store_web_event **out, size_t *n);

/* What a contribution's published pages depend on. */
struct store_web_stamp {
	int64_t id;
	int64_t activity, event, message, outbox;
};
enum err store_web_stamps(
    struct store *st, struct arena *a, struct store_web_stamp **out, size_t *n);

/* The series and contribution of a patch id. */
enum err store_web_patch(
    struct store *st, int64_t patch, int64_t *series, int64_t *contribution);

/* For each patch of a series that replaced an older version's patch: its
 * message row, the older patch's message row and version. */
struct store_web_pred {
	int64_t patch_id;
	int64_t message_row;
	int64_t old_message_row;
	int old_version;
};
enum err store_web_predecessors(struct store *st, struct arena *a,
    int64_t series, struct store_web_pred **out, size_t *n);

/* Where a mail is shown: the contribution, series and patch it is
 * placed in (patch 0: about the whole series), its kind ("patch",
 * "cover", "reply", ...) and row. */
struct store_web_place {
	int64_t contribution;
	int64_t series;
	int64_t patch;
	const char *kind;
	int64_t message_row;
};
/* The place of the first stored mail with this Message-ID (one reusing
 * another's is never placed); ERR_NOTFOUND when none is placed. */
enum err store_web_place(struct store *st, struct arena *a, const char *msgid,
    struct store_web_place *out);

#endif
