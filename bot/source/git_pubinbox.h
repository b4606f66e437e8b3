/*
 * public-inbox v2 archives for import: the epochs git/0.git, git/1.git ...
 * (or one epoch repository given directly), each a bare git repository
 * whose commits each add one mail as the blob "m" at the root.  The
 * libgit2 side of bot/source/source.c.
 */
#ifndef BOT_GIT_PUBINBOX_H
#define BOT_GIT_PUBINBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/source/source.h"
#include "util/err.h"

struct git_pubinbox;

/* path: the inbox (holding git/N.git) or one epoch repository.  limit:
 * the largest mail handed out, whole (0: LIMIT_MAIL_STORE); a larger
 * one is skipped and logged, its size read from its header, never
 * inflated (git_pubinbox_next() says ERR_LIMIT). */
enum err git_pubinbox_open(
    const char *path, size_t limit, struct git_pubinbox **out);
/* What the last mail skipped for its size was ("epoch N: commit X: a
 * mail of N bytes, over the N allowed, skipped"), since the inbox was
 * opened, sought or an epoch selected; NULL when none was. */
const char *git_pubinbox_skipped(const struct git_pubinbox *p);
void git_pubinbox_free(struct git_pubinbox *p);
/* pos: "<epoch>:<commit hex>", the commit of the mail last handed out. */
enum err git_pubinbox_seek(struct git_pubinbox *p, const char *pos);
/* As source_next(). */
enum err git_pubinbox_next(struct git_pubinbox *p, struct source_mail *m);
double git_pubinbox_progress(const struct git_pubinbox *p);
/* See source_hold() and source_release(). */
void *git_pubinbox_hold(struct git_pubinbox *p);
void git_pubinbox_release(void *hold);

/*
 * Start libgit2 (balanced by git_libgit2_shutdown()) for reading archives
 * and mirroring them: hashes verified, archives of other users read, an
 * unreadable user configuration left out.  As git_libgit2_init().
 */
int git_pubinbox_start(void);

/* Following an inbox (bot/daemon/): its epochs in numeric order. */
size_t git_pubinbox_nepochs(const struct git_pubinbox *p);
unsigned long git_pubinbox_epoch(const struct git_pubinbox *p, size_t i);
/* The head commit of epoch i; ERR_NOTFOUND when it has none yet. */
enum err git_pubinbox_head(struct git_pubinbox *p, size_t i, char hex[41]);
/*
 * Read epoch i alone, after commit after (hex; NULL: from its first
 * mail).  ERR_CONFLICT when after is not on the first-parent line of the
 * epoch's head: its history was rewritten.
 */
enum err git_pubinbox_select(
    struct git_pubinbox *p, size_t i, const char *after);

#endif
