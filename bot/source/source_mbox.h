/*
 * The mbox reader behind source_open(): plain or gzip, mboxrd or mboxo,
 * split exactly where `git mailsplit --mboxrd` splits.  bot/source/source.c is
 * its only user besides the tests and the fuzz target, which shrink the buffer
 * sizes to reach every refill path and the skipping of a mail over the limit
 * with small inputs.
 */
#ifndef BOT_SOURCE_MBOX_H
#define BOT_SOURCE_MBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/source/source.h"
#include "util/err.h"

struct source_mbox;

struct source_mbox_opts {
	bool mboxo; /* un-escape ^>From only, not ^>+From */
	size_t chunk; /* read size and minimum line window; 0: 4 MB */
	size_t limit; /* largest mail handed out; 0: LIMIT_MAIL_STORE */
};

/* Open path (gzip when it starts with the gzip magic).  opts may be NULL. */
enum err source_mbox_open(const char *path, const struct source_mbox_opts *opts,
    struct source_mbox **out);
void source_mbox_free(struct source_mbox *mb);
/* pos: the uncompressed byte offset where a mail starts, in decimal. */
enum err source_mbox_seek(struct source_mbox *mb, const char *pos);
/* As source_next(). */
enum err source_mbox_next(struct source_mbox *mb, struct source_mail *m);
double source_mbox_progress(const struct source_mbox *mb);

#endif
