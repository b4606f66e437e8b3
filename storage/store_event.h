/* The timeline: every state change is an event, written in the same
 * transaction as the change. */
#ifndef STORAGE_STORE_EVENT_H
#define STORAGE_STORE_EVENT_H

#include <stdint.h>

#include "parsers/model.h"
#include "storage/store.h"

struct store_event {
	int64_t time;
	enum model_event kind;
	int64_t contribution_id;
	int64_t series_id;
	int64_t patch_id;
	int64_t message_id;
	const char *actor; /* NULL: the bot */
	const char *detail; /* reason, words, or NULL */
};

enum err store_event_add(
    struct store *st, const struct store_event *e, int64_t *id);

#endif
