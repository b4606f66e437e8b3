/*
 * The model's words (docs/DESIGN.md §3): one table of names per enum.  The
 * names are the database's (storage/schema.c checks states and queues
 * against the same strings), so a name never changes once shipped.
 */
#include "parsers/model.h"

#include <stddef.h>
#include <string.h>

static const char *const state_names[MODEL_NSTATES] = {
	[STATE_NEW] = "new",
	[STATE_STAGED] = "staged",
	[STATE_MERGED] = "merged",
	[STATE_DROPPED] = "dropped",
	[STATE_SUPERSEDED] = "superseded",
	[STATE_CHANGES_REQUESTED] = "changes-requested",
	[STATE_REJECTED] = "rejected",
	[STATE_PARTIAL] = "partial",
};

static const char *const queue_names[MODEL_NQUEUES] = {
	[QUEUE_UNSTABLE] = "unstable",
	[QUEUE_STABLE] = "stable",
};

static const char *const reason_names[MODEL_NREASONS] = {
	[REASON_NACKED] = "nacked",
	[REASON_TO_BE_UPDATED] = "to-be-updated",
	[REASON_WITHDRAWN] = "withdrawn",
	[REASON_OBSOLETE] = "obsolete",
	[REASON_FAILURES] = "failures",
	[REASON_FOLDED] = "folded",
	[REASON_CONFLICT] = "conflict",
	[REASON_EXACT] = "exact",
	[REASON_LINK] = "link",
	[REASON_CHANGED] = "changed",
};

static const char *const event_names[MODEL_NEVENTS] = {
	[EVENT_POSTED] = "posted",
	[EVENT_LINKED] = "linked",
	[EVENT_SUPERSEDED] = "superseded",
	[EVENT_STAGED] = "staged",
	[EVENT_UPDATED] = "updated",
	[EVENT_GRADUATED] = "graduated",
	[EVENT_MERGED] = "merged",
	[EVENT_EARLIER_MERGED] = "earlier-merged",
	[EVENT_DROPPED] = "dropped",
	[EVENT_CONFLICT] = "conflict",
	[EVENT_RESOLVED] = "resolved",
	[EVENT_FOLDED] = "folded",
	[EVENT_WITHDRAWN] = "withdrawn",
	[EVENT_STATE] = "state",
	[EVENT_CHECK] = "check",
	[EVENT_REFUSED] = "refused",
	[EVENT_FORWARDED] = "forwarded",
	[EVENT_VERSION_FROM_OTHER_SENDER] = "version-from-other-sender",
	[EVENT_TREE_CONFLICT] = "tree-conflict",
	[EVENT_TEST_FAILED] = "test-failed",
	[EVENT_COMMAND_REPLY] = "command-reply",
};

/* The index of name in names[0..n), or -1. */
static int
find(const char *const *names, int n, const char *name)
{
	int i;

	for (i = 0; name && i < n; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return i;
	return -1;
}

const char *
model_state_name(enum model_state s)
{
	return (unsigned)s < MODEL_NSTATES ? state_names[s] : NULL;
}

bool
model_state_parse(const char *name, enum model_state *out)
{
	int i = find(state_names, MODEL_NSTATES, name);

	if (i < 0)
		return false;
	*out = (enum model_state)i;
	return true;
}

const char *
model_queue_name(enum model_queue q)
{
	return (unsigned)q < MODEL_NQUEUES ? queue_names[q] : NULL;
}

bool
model_queue_parse(const char *name, enum model_queue *out)
{
	int i = name ? find(queue_names, MODEL_NQUEUES, name) : QUEUE_NONE;

	if (i < 0)
		return false;
	*out = (enum model_queue)i;
	return true;
}

const char *
model_reason_name(enum model_reason r)
{
	return (unsigned)r < MODEL_NREASONS ? reason_names[r] : NULL;
}

bool
model_reason_parse(const char *name, enum model_reason *out)
{
	int i = name ? find(reason_names, MODEL_NREASONS, name) : REASON_NONE;

	if (i < 0)
		return false;
	*out = (enum model_reason)i;
	return true;
}

const char *
model_event_name(enum model_event k)
{
	return (unsigned)k < MODEL_NEVENTS ? event_names[k] : NULL;
}

bool
model_event_parse(const char *name, enum model_event *out)
{
	int i = find(event_names, MODEL_NEVENTS, name);

	if (i < 0)
		return false;
	*out = (enum model_event)i;
	return true;
}
