/* list and show: contributions as text for people and as the JSON of
 * DESIGN.md §12 for scripts. */
#ifndef BOT_SHOW_H
#define BOT_SHOW_H

#include <stdbool.h>
#include <stdint.h>

#include "storage/store.h"
#include "storage/store_read.h"
#include "util/buf.h"
#include "util/json.h"

/* REF: a contribution id, or a Message-ID with or without brackets. */
enum err show_resolve(struct store *st, const char *ref, int64_t *contribution,
    int64_t *series, int64_t *patch);

void show_json_contrib(struct json *j, const struct view_contrib *c, bool full);

int show_list(struct store *st, const char *state, bool json);
int show_one(struct store *st, const char *ref, bool json);

#endif
