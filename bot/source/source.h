/*
 * Room bot/source: mail in, read from mbox, Maildir, public-inbox (by
 * path or mirrored from a URL) and IMAP.
 *
 * Mail sources for import: mbox (mboxrd by default, mboxo on request,
 * plain or gzip), Maildir folders, and public-inbox v2 git archives.  A
 * source hands out one raw mail at a time, streaming (an archive is never
 * held in memory), with a position that can be stored and resumed from.
 */
#ifndef BOT_SOURCE_H
#define BOT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/oid.h"

enum source_kind {
	SOURCE_MBOX,
	SOURCE_MAILDIR,
	SOURCE_PUBINBOX
};

enum source_flag {
	SOURCE_MBOXO = 1 << 0, /* mboxo: ">From " is not un-escaped */
};

struct source;

struct source_mail {
	const char *raw; /* valid until the next source_next() or free */
	size_t n;
	/* Where the next mail starts: store it with the mail's ingest, give
	 * it to source_seek() to resume after this mail.  256 bytes hold a
	 * Maildir file name (NAME_MAX). */
	char pos[256];
};

/*
 * Open path: a directory with cur/ and new/ is a Maildir; a directory
 * holding git/N.git epochs (or itself a git repository with "m" blobs) is
 * a public-inbox v2 archive; anything else is an mbox file (gzip when it
 * starts with the gzip magic).  Errors are logged with the path.
 */
enum err source_open(const char *path, unsigned flags, struct source **out);
void source_free(struct source *s);
enum source_kind source_kind(const struct source *s);

/*
 * A stable name of what is being read, for storing the resume position:
 * "mbox:<absolute path>", "maildir:<absolute path>", "pubinbox:<path>".
 */
const char *source_name(const struct source *s);

/* Resume after the mail whose pos was given; ERR_INVAL for a position
 * this source cannot have made. */
enum err source_seek(struct source *s, const char *pos);

/*
 * The next mail, whole: one over LIMIT_MAIL_SIZE too, for the parser to
 * mark and the store to keep (docs/DESIGN.md §4).  ERR_NOTFOUND at the end.
 * A mail over LIMIT_MAIL_STORE is never cut: it is not handed out but
 * skipped, with a log line saying where it is, and ERR_LIMIT (m->pos
 * set, m->raw NULL): the caller counts it and asks for the next.
 */
enum err source_next(struct source *s, struct source_mail *m);

/*
 * A hold on the mail source_next() handed out last, for the caller to
 * keep its bytes, and the NUL after them, past the next source_next():
 * NULL when this source cannot lend them (the caller copies them then).
 * Give each back with source_release(), on the thread that reads (or
 * once reading is over), before source_free().  A public-inbox archive
 * hands over the buffer it read each mail into: an import's queue saves
 * copying it.
 */
void *source_hold(struct source *s);
void source_release(struct source *s, void *hold);

/* Fraction done, 0..1, for a progress bar; -1 when unknown. */
double source_progress(const struct source *s);

/*
 * Following a public-inbox archive epoch by epoch (bot/daemon/): each
 * epoch's position is its own.  The number of epochs (0 for other
 * kinds), the number N of epoch i (git/N.git), its head commit
 * (ERR_NOTFOUND while it has none), and reading it alone after commit
 * after (NULL: from its start; ERR_CONFLICT: after is no longer in its
 * history).
 */
size_t source_epochs(const struct source *s);
unsigned long source_epoch_num(const struct source *s, size_t i);
enum err source_epoch_head(struct source *s, size_t i, char hex[OID_HEX_SIZE]);
enum err source_epoch_select(struct source *s, size_t i, const char *after);

/*
 * The last mail of a public-inbox archive that source_next() skipped
 * (ERR_LIMIT) as over LIMIT_MAIL_STORE, never inflated, in words with
 * its epoch and commit, for a follower to show as the source's last
 * error: since the source was opened, sought or an epoch selected; NULL
 * when none was (and for other kinds of source, whose skipped mails
 * are in the log only).
 */
const char *source_skipped(const struct source *s);

#endif
