/*
 * What the files of bot/daemon/ share: the daemon's state, and the mail
 * sources it follows (follow.c).
 */
#ifndef BOT_DAEMON_DAEMONPRIV_H
#define BOT_DAEMON_DAEMONPRIV_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "bot/daemon/daemon.h"
#include "bot/workflow/ingest.h"
#include "storage/store.h"

struct follower;

struct daemon {
	struct daemon_opts o;
	const struct config *conf; /* the one in force */
	struct arena *conf_arena; /* holds conf after a reload, else NULL */
	struct store *st;
	struct ingest *in;
	struct follower **src; /* one per [source "NAME"] */
	size_t nsrc;
	int lockfd;
	/* The workers' timers and marks (monotonic seconds). */
	double next_upstream;
	bool upstream_done; /* --once: scanned already */
	bool rebuild_wanted; /* at start and after an upstream scan */
	int64_t mark_seen; /* the queue's newest change, as last read */
	int64_t mark_built; /* ... as it was when the last rebuild began */
	double mark_changed_at; /* when mark_seen last moved */
	double next_send; /* the mailer's next look at the outbox */
	bool send_kick; /* our own work may have queued mail: look now */
	bool send_stuck; /* --once: the last send made no progress */
	double next_graduate; /* the promotion policy's next look */
	bool graduate_done; /* --once: the policy was applied */
	double next_test; /* after a tester error: when to try again */
	double next_gc_look; /* when to read the gc stamps again */
	unsigned failed; /* --once: bit i, worker i failed; not run again */
};

/* Set by the signal handlers: stop after the current transaction. */
extern volatile sig_atomic_t daemon_stop;

/* The sources of d->conf as followers (again after a reload). */
void follow_setup(struct daemon *d);
void follow_free_all(struct daemon *d);
/* Is a source due now (its timer, or its IDLE connection has news)?
 * With once: has it not been polled yet? */
bool follow_due(struct daemon *d, double now);
/* Poll every due source.  Mail stored: *got set. */
enum err follow_run(struct daemon *d, double now, bool *got);
/* The earliest time a source wants attention, and the descriptors to
 * wait on (IMAP connections in IDLE); returns how many it wrote. */
double follow_next(struct daemon *d);
size_t follow_fds(struct daemon *d, int *fds, size_t max);

#endif
