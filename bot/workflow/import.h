/*
 * Bulk import (docs/DESIGN.md §2): a source read on one thread while the
 * other writes the database, each parsing what the other has not, in
 * batches of one transaction that also record the source position, so a
 * crash resumes where it stopped.
 */
#ifndef BOT_IMPORT_H
#define BOT_IMPORT_H

#include <signal.h>
#include <stdbool.h>

#include "bot/source/source.h"
#include "bot/workflow/ingest.h"

struct import_opts {
	const char *project; /* --project, or NULL */
	bool mboxo;
	bool progress; /* draw a progress bar on stderr */
	unsigned batch; /* mails per transaction; 0: the default */
	/* When set and non-zero, stop after the mail being written: the
	 * batch so far is committed with its position (the daemon's
	 * SIGTERM). */
	const volatile sig_atomic_t *stop;
	bool quiet; /* the summary line at debug level: the caller logs */
};

enum err import_path(struct ingest *in, struct store *st, const char *path,
    const struct import_opts *o);

/*
 * Import what src hands out from where it stands, storing the position
 * of each batch under key (import_pos) in the batch's transaction.
 * *done counts the mails written.  import_path() is this after opening
 * path and seeking to its stored position.
 */
enum err import_source(struct ingest *in, struct store *st, struct source *src,
    const char *key, const struct import_opts *o, size_t *done);

#endif
