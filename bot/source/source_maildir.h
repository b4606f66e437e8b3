/*
 * The Maildir reader behind source_open(): the files of cur/ and new/
 * (never tmp/), in a stable order, each handed out whole as one mail.
 */
#ifndef BOT_SOURCE_MAILDIR_H
#define BOT_SOURCE_MAILDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/source/source.h"
#include "util/err.h"

struct source_maildir;

/* limit: the largest mail handed out; 0 for LIMIT_MAIL_STORE. */
enum err source_maildir_open(
    const char *path, size_t limit, struct source_maildir **out);
void source_maildir_free(struct source_maildir *md);
/* pos: the unique part of a file name (before ":2,flags"). */
enum err source_maildir_seek(struct source_maildir *md, const char *pos);
enum err source_maildir_next(struct source_maildir *md, struct source_mail *m);
double source_maildir_progress(const struct source_maildir *md);

#endif
