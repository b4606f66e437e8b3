/* list and show: contributions as text for people and as the JSON of
 * docs/DESIGN.md §12 for scripts. */
#ifndef BOT_SHOW_H
#define BOT_SHOW_H

#include <stdbool.h>
#include <stdint.h>

#include "storage/store.h"
#include "storage/store_read.h"
#include "storage/store_web.h"
#include "util/buf.h"
#include "util/json.h"

/* REF: a contribution id, or a Message-ID with or without brackets. */
enum err show_resolve(struct store *st, const char *ref, int64_t *contribution,
    int64_t *series, int64_t *patch);

/* A contribution as docs/DESIGN.md §12's JSON object; full adds checks,
 * events and outbox (show --json). */
void show_json_contrib(struct json *j, const struct view_contrib *c, bool full);
/* The same fields without the braces, so that callers can add theirs. */
void show_json_contrib_fields(
    struct json *j, const struct view_contrib *c, bool full);
/* A contribution's fields as a summary has them, without its series
 * and patches: id, title, state, submitter, version, patch_count and
 * series_count (the number of series: versions and copies). */
void show_json_summary_head(struct json *j, const struct store_summary *s);
/* What a list summary adds: posted, last_activity, acks, reviews, tests,
 * test_state. */
void show_json_summary_fields(struct json *j, const struct store_summary *s);
/*
 * Whether trailer i of p is the one shown for its name and person (one
 * object per name and person on a patch, docs/DESIGN.md §12): the verified
 * copy when one is, else the first.
 */
bool show_trailer_shown(const struct view_patch *p, size_t i);
/* A patch object of docs/DESIGN.md §12. */
void show_json_patch(struct json *j, const struct view_patch *p);
/* The check objects of docs/DESIGN.md §12, those of one patch or (patch 0)
 * all. */
void show_json_checks(
    struct json *j, const struct store_check *k, size_t n, int64_t patch);

/* `list`: the contributions f selects, as text or JSON summaries. */
int show_list(struct store *st, const struct store_filter *f, bool json);
int show_one(struct store *st, const char *ref, bool json);

#endif
