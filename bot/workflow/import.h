/*
 * Bulk import (DESIGN.md §2): a source read and parsed on one thread
 * while the other writes the database, in batches of one transaction that
 * also record the source position, so a crash resumes where it stopped.
 */
#ifndef BOT_IMPORT_H
#define BOT_IMPORT_H

#include <stdbool.h>

#include "bot/workflow/ingest.h"

struct import_opts {
	const char *project; /* --project, or NULL */
	bool mboxo;
	bool progress; /* draw a progress bar on stderr */
	unsigned batch; /* mails per transaction; 0: the default */
};

enum err import_path(struct ingest *in, struct store *st, const char *path,
    const struct import_opts *o);

#endif
