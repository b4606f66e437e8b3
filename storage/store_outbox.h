/* The outbox (mails to send, docs/DESIGN.md §8) and test results (checks). */
#ifndef STORAGE_STORE_OUTBOX_H
#define STORAGE_STORE_OUTBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage/store.h"
#include "util/arena.h"

struct store_outbox {
	int64_t id;
	int64_t event_id;
	int64_t contribution_id;
	int64_t patch_id;
	const char *kind; /* the X-Patchyard-Event */
	const char *message_id; /* ours, without brackets */
	const char *in_reply_to; /* without brackets, or NULL */
	const char *rcpt; /* "a@b\n" per envelope recipient */
	const char *body; /* the composed message, CRLF */
	size_t body_len;
	const char *state; /* held, queued, sent, failed */
	int attempts;
	int64_t next_attempt;
	int64_t created;
	int64_t sent_at;
	const char *last_error;
};

enum err store_outbox_add(
    struct store *st, const struct store_outbox *o, int64_t *id);
enum err store_outbox_get(
    struct store *st, struct arena *a, int64_t id, struct store_outbox *o);
/* Queued mails due at now (all queued ones when all), oldest first. */
/* The id of the mail we composed with Message-ID msgid (no brackets):
 * ERR_NOTFOUND when it is not one of ours. */
enum err store_outbox_by_msgid(
    struct store *st, const char *msgid, int64_t *id);
enum err store_outbox_due(
    struct store *st, int64_t now, bool all, int64_t **ids, size_t *n);
/* Record an attempt: state, attempts, next attempt, error, sent time. */
enum err store_outbox_result(struct store *st, const struct store_outbox *o);
/* Held mails of these patches become queued (the build or push that
 * holds their change succeeded). */
enum err store_outbox_release(
    struct store *st, int64_t patch_id, int *released);
/* Held mails of a patch will never go (it conflicts: its conflict mail
 * replaces them). */
enum err store_outbox_cancel(struct store *st, int64_t patch_id);
/* A contribution's mails, oldest first (body not loaded). */
enum err store_outbox_of(struct store *st, struct arena *a,
    int64_t contribution_id, struct store_outbox **out, size_t *n);

struct store_check {
	int64_t id; /* set when read */
	int64_t patch_id;
	int64_t series_id;
	const char *context;
	const char *state; /* pending, success, warning, fail */
	const char *url;
	const char *summary;
	const char *log; /* read back: its last 4 KB only (the tail) */
	const char *base_commit;
	const char *reporter;
	int64_t time;
	const char *commit; /* the commit tested, or NULL */
	int64_t duration_ms; /* how long the run took (with run_id 0 and
	                        duration 0: unknown, a check from outside) */
	int64_t run_id; /* the test_run it reports, 0: from outside */
};

enum err store_check_add(struct store *st, const struct store_check *c);
/* The checks of every patch of a contribution's series, oldest first,
 * each with the tail of its log. */
enum err store_check_of(struct store *st, struct arena *a,
    int64_t contribution_id, struct store_check **out, size_t *n);
/* The whole (capped) log of a check, or NULL when it has none. */
enum err store_check_log(
    struct store *st, struct arena *a, int64_t check_id, const char **log);
/* Is there a check of context about commit reporting run run_id (any
 * run when run_id is 0)? */
enum err store_check_exists(struct store *st, const char *commit,
    int64_t run_id, const char *context, bool *found);
/* Is the newest check of context about commit one of state with this
 * summary (so that saying it again would add nothing)? */
enum err store_check_last_is(struct store *st, const char *commit,
    const char *context, const char *state, const char *summary, bool *same);

#endif
