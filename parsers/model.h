/*
 * The model's words (docs/DESIGN.md §3): a patch's state and queue, why it
 * was dropped or how it was merged, and the kinds of event.  Each is an
 * enum with one table of names, the strings that the database, the JSON,
 * the pages and the mails show.  storage/ binds and reads the names at
 * its wall (SQL keeps its CHECK constraints on the same strings); the
 * rest of the code compares enums.
 */
#ifndef PARSERS_MODEL_H
#define PARSERS_MODEL_H

#include <stdbool.h>

/* A patch's state.  A series' state is its patches' when they share
 * one, else partial; a contribution's is its newest series'. */
enum model_state {
	STATE_NEW, /* the database's default */
	STATE_STAGED,
	STATE_MERGED,
	STATE_DROPPED,
	STATE_SUPERSEDED,
	STATE_CHANGES_REQUESTED,
	STATE_REJECTED,
	STATE_PARTIAL, /* a series' or contribution's, never a patch's */
	MODEL_NSTATES /* not a state: how many */
};

/* The queue of a staged patch. */
enum model_queue {
	QUEUE_NONE, /* not staged (SQL NULL) */
	QUEUE_UNSTABLE,
	QUEUE_STABLE,
	MODEL_NQUEUES
};

/* Why a patch was dropped (-mm's reasons), or how upstream took it. */
enum model_reason {
	REASON_NONE, /* SQL NULL */
	REASON_NACKED,
	REASON_TO_BE_UPDATED,
	REASON_WITHDRAWN,
	REASON_OBSOLETE,
	REASON_FAILURES, /* the tester's, under test.on-failure = drop */
	REASON_FOLDED, /* by fold */
	REASON_CONFLICT, /* the stager's, under stage.on-conflict = drop */
	REASON_EXACT, /* merged: by patch-id */
	REASON_LINK, /* merged: a Link: or Message-ID: names our mail */
	REASON_CHANGED, /* merged: by author and title */
	MODEL_NREASONS
};

/*
 * What happened: the kinds of event of the timeline, and the mails that
 * tell of them (templates/mail/<name>.txt, X-Patchyard-Event: <name>,
 * docs/DESIGN.md §8).  The last two are mails without an event of their own.
 */
enum model_event {
	EVENT_POSTED,
	EVENT_LINKED,
	EVENT_SUPERSEDED,
	EVENT_STAGED,
	EVENT_UPDATED,
	EVENT_GRADUATED,
	EVENT_MERGED,
	EVENT_EARLIER_MERGED,
	EVENT_DROPPED,
	EVENT_CONFLICT,
	EVENT_RESOLVED,
	EVENT_FOLDED,
	EVENT_WITHDRAWN,
	EVENT_STATE,
	EVENT_CHECK,
	EVENT_REFUSED,
	EVENT_FORWARDED,
	EVENT_VERSION_FROM_OTHER_SENDER,
	EVENT_TREE_CONFLICT,
	EVENT_TEST_FAILED, /* a mail: the event is a check */
	EVENT_COMMAND_REPLY, /* a mail: the transcript of a command mail */
	MODEL_NEVENTS
};

/*
 * The name of each, or NULL for none (QUEUE_NONE, REASON_NONE) and for
 * a value out of range.  _parse() takes a name back, exactly as spelled
 * here, and returns false (*out untouched) for any other string; NULL
 * is QUEUE_NONE and REASON_NONE.
 */
const char *model_state_name(enum model_state s);
bool model_state_parse(const char *name, enum model_state *out);
const char *model_queue_name(enum model_queue q);
bool model_queue_parse(const char *name, enum model_queue *out);
const char *model_reason_name(enum model_reason r);
bool model_reason_parse(const char *name, enum model_reason *out);
const char *model_event_name(enum model_event k);
bool model_event_parse(const char *name, enum model_event *out);

#endif
