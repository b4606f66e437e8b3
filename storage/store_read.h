/*
 * The read side: contributions as people and the JSON contract see them
 * (docs/DESIGN.md §12), built in an arena.
 */
#ifndef STORAGE_STORE_READ_H
#define STORAGE_STORE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/model.h"
#include "storage/store.h"
#include "storage/store_outbox.h"
#include "util/arena.h"

struct view_trailer {
	const char *name;
	const char *value;
	const char *message_id;
	const char *email;
	bool verified;
	bool own;
	const char *auth; /* how its mail authenticated, or NULL */
	const char *auth_note; /* why not, or NULL */
	int64_t message_row; /* the mail that gave it */
	const char *from_name; /* and who sent that mail */
	const char *from_email;
};

struct view_patch {
	int64_t id;
	int64_t message_row;
	const char *message_id;
	int number;
	const char *title;
	const char *author_name;
	const char *author_email;
	const char *slug;
	enum model_state state;
	enum model_queue queue;
	enum model_reason reason;
	bool conflict;
	const char *patch_id;
	const char *files;
	const char *auth; /* how its mail authenticated, or NULL */
	const char *auth_note; /* why not, or NULL */
	bool msgid_reused; /* another mail reuses its Message-ID */
	struct view_trailer *trailers;
	size_t ntrailers;
	bool older_copy; /* superseded by a copy sent again in its series:
	                    listed, not counted (docs/DESIGN.md §12) */
};

struct view_series {
	int64_t id;
	const char *message_id;
	int version;
	int expected;
	int received;
	bool complete;
	enum model_state state; /* its patches', or STATE_PARTIAL */
	const char *title;
	const char *submitter_name;
	const char *submitter_email;
	int64_t date;
	const char *base_commit;
	const char *change_id;
	struct view_patch *patches;
	size_t npatches;
};

struct view_event {
	int64_t time;
	enum model_event kind;
	const char *actor;
	const char *detail;
	const char *message_id;
	const char *slug;
	int64_t id;
	int64_t message_row; /* 0: none */
	int64_t series_id; /* its own, else its patch's; 0: none */
	int64_t patch_id; /* 0: none */
};

struct view_contrib {
	int64_t id;
	const char *project;
	int64_t activity;
	struct view_series *series; /* oldest first */
	size_t nseries;
	struct view_series *newest; /* NULL only for an empty one */
	struct view_event *events;
	size_t nevents;
	struct store_check *checks; /* with events only */
	size_t nchecks;
	struct store_outbox *outbox; /* with events only */
	size_t noutbox;
};

/* Contribution ids, newest activity first; project 0: all. */
enum err store_read_list(
    struct store *st, int64_t project, int64_t **ids, size_t *n);
/* One contribution; events only when with_events. */
enum err store_read_contrib(struct store *st, struct arena *a, int64_t id,
    bool with_events, struct view_contrib *out);
/* The state of a contribution (its newest series'). */
enum model_state store_read_state(const struct view_contrib *c);

/* The trailers of one patch (own, collected, and its series'). */
enum err store_read_trailers(struct store *st, struct arena *a,
    int64_t patch_id, int64_t series_id, struct view_trailer **out, size_t *n);

/* Where a Message-ID lives: its contribution, series and patch (0: the
 * message is the cover letter or about the whole series). */
enum err store_read_msgid(struct store *st, const char *msgid,
    int64_t *contribution, int64_t *series, int64_t *patch);

#endif
