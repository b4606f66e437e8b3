/* Messages, their raw bytes, and replies waiting for their ancestors. */
#ifndef STORAGE_STORE_MSG_H
#define STORAGE_STORE_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/mail.h"
#include "storage/store.h"
#include "util/arena.h"

struct store_msg {
	int64_t id;
	int64_t project_id; /* 0: unassigned */
	int64_t series_id; /* 0: none */
	int64_t patch_id; /* 0: none */
	enum mail_kind kind;
	unsigned flags;
	unsigned char hash[20];
	int64_t date;
	const char *msgid; /* these strings live in the caller's arena */
	const char *from_name;
	const char *from_email;
	const char *subject;
	const char *parent; /* the nearest ancestor's Message-ID, or NULL */
	/* How it authenticated (docs/DESIGN.md §5): "dkim d=...", "patatt
	 * i=...", "relay ID", "none required"; NULL when it did not, auth_note
	 * saying why (NULL when it was not judged). */
	const char *auth;
	const char *auth_note;
};

/* The first stored (unflagged) message with this Message-ID: a lookup,
 * its strings (msgid, from, subject) are not read. */
enum err store_msg_find(struct store *st, struct arena *a, const char *msgid,
    struct store_msg *out);
/* Every stored mail under this Message-ID, the first and the flagged
 * ones that reuse it (docs/DESIGN.md §4), oldest first. */
enum err store_msg_copies(
    struct store *st, const char *msgid, int64_t **ids, size_t *n);
enum err store_msg_get(
    struct store *st, struct arena *a, int64_t id, struct store_msg *out);
/* Every mail placed in a contribution's series (covers, patches,
 * replies, the bot's), by date, then as stored: the status page's
 * discussion.  Strings in a. */
enum err store_msg_of_contrib(struct store *st, struct arena *a,
    int64_t contribution, struct store_msg **out, size_t *n);
/* Insert m (its id ignored; series and patch 0 when not known yet) with
 * its raw bytes. */
enum err store_msg_add(struct store *st, const struct store_msg *m,
    const char *parent_msgid, const char *raw, size_t n, int64_t *id);
enum err store_msg_delivered(struct store *st, int64_t id);
enum err store_msg_attach(
    struct store *st, int64_t id, int64_t series_id, int64_t patch_id);
/* Re-point every message about patch from to patch to. */
enum err store_msg_repoint(struct store *st, int64_t from, int64_t to);
/* Raw bytes into the arena. */
enum err store_msg_raw(
    struct store *st, struct arena *a, int64_t id, const char **raw, size_t *n);

enum err store_msg_pending_add(
    struct store *st, const char *ref, int64_t msg_id);
/* Messages waiting for ref, oldest first; their rows for ref are
 * removed. */
enum err store_msg_pending_take(
    struct store *st, const char *ref, int64_t **ids, size_t *n);
/* Messages waiting for ref, without removing anything. */
enum err store_msg_pending_peek(
    struct store *st, const char *ref, int64_t **ids, size_t *n);
/* Forget every row of a message (it is placed again). */
enum err store_msg_pending_clear(struct store *st, int64_t msg_id);
/* Whether a message waits for any ancestor. */
enum err store_msg_pending_waits(struct store *st, int64_t msg_id, bool *waits);

#endif
