/*
 * Room bot/daemon: `patchyard run`, the loop of sources, timers and
 * workers.
 *
 * `patchyard run` (docs/DESIGN.md §2): one process, one loop, driving the
 * mail sources ([source "NAME"]: IMAP with IDLE, public-inbox archives,
 * Maildir folders), the ingest and command workflow, the stager
 * (upstream scan and rebuild on the timers of [run]) and the mailer.
 * Each worker is one row of a table in daemon.c: a due check and a run.
 */
#ifndef BOT_DAEMON_H
#define BOT_DAEMON_H

#include <stdbool.h>

#include "parsers/config.h"
#include "util/arena.h"
#include "util/err.h"

struct daemon_opts {
	bool once; /* run every worker until none has work left, then exit */
	/* Read the configuration again (SIGHUP): into *out, strings in a;
	 * errors already reported with file:line.  NULL: no reloading. */
	enum err (*reload)(void *arg, struct arena *a, struct config *out);
	void *reload_arg;
};

/*
 * Run until SIGTERM or SIGINT (or, with once, until no worker has work).
 * conf stays the caller's; configurations read again on SIGHUP are the
 * daemon's.  ERR_BUSY when another `run` holds the database's lock
 * (reported); ERR_OK after a stop by signal.
 */
enum err daemon_run(const struct config *conf, const struct daemon_opts *o);

#endif
