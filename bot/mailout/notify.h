/*
 * Acknowledgments and transcripts (docs/DESIGN.md §8): rendered from the
 * templates when their event happens, composed, and put in the outbox in
 * the caller's transaction.  Sending is bot/mailout/outbox.c's job.
 */
#ifndef BOT_NOTIFY_H
#define BOT_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "parsers/config.h"
#include "parsers/model.h"
#include "storage/store.h"
#include "util/buf.h"

struct notify;

struct notify *notify_new(struct store *st, const struct config *conf);
void notify_free(struct notify *n);

/* Extra values for a patch mail: name/value pairs, NULL-terminated. */
struct notify_kv {
	const char *name;
	const char *value;
};

/*
 * Queue the mail of event (staged, updated, graduated, merged, dropped,
 * conflict, test-failed, version-from-other-sender) about patch_id,
 * threaded to the patch's mail.  held: wait for the build or push that
 * contains the change.  version-from-other-sender goes to the project's
 * maintainers only.
 */
enum err notify_patch(struct notify *n, enum model_event event,
    int64_t patch_id, int64_t event_id, const char *actor,
    const struct notify_kv *kv, bool held);

struct notify_line {
	const char *line; /* the command as written */
	const char *status; /* done, refused */
	const char *message; /* what happened, or why not */
};

/* Queue the transcript answering the command mail msg_id. */
enum err notify_transcript(struct notify *n, int64_t msg_id,
    int64_t contribution_id, const struct notify_line *lines, size_t nlines);

/* A subsystem tree that did not merge (or broke a patch on top). */
struct notify_tree {
	const struct conf_project *project;
	const char *name;
	const char *url;
	const char *branch;
	const char *commit; /* what was merged */
	const char *base; /* the stable branch it was merged on */
	const char *owner; /* told; NULL: the maintainers only */
	const char *owner_name;
	const char *against; /* the slug of the patch it broke, or NULL */
	const char *files; /* conflicting paths, one a line, or NULL */
	const char *details; /* what went wrong otherwise */
	int64_t message_id; /* the pull-request mail to answer, or 0 */
	int64_t contribution_id; /* for the outbox (a patch's), or 0 */
	int64_t event_id;
};

/* Queue the tree-conflict mail, linux-next style: to the owner, Cc the
 * project's maintainers. */
enum err notify_tree_conflict(struct notify *n, const struct notify_tree *t);

#endif
