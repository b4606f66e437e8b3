/*
 * Mail out as public-inbox hands it out: an mboxrd file (every mail after
 * a "From mboxrd@z Thu Jan  1 00:00:00 1970" line, a body line matching
 * ^>*From  given one more '>', CR LF made LF, a blank line after each
 * mail), plain or gzip-compressed by zlib as a whole (t.mbox.gz).  The
 * writer beside the reader (source_mbox.c), which undoes exactly this.
 */
#ifndef BOT_SOURCE_MBOXOUT_H
#define BOT_SOURCE_MBOXOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

struct mboxout;

/* Write into out (the caller's, appended to), gzip when asked. */
struct mboxout *mboxout_new(struct buf *out, bool gzip);
/* Add one mail, raw bytes as stored. */
enum err mboxout_add(struct mboxout *m, const char *raw, size_t n);
/* The end of the file: the rest of the gzip stream. */
enum err mboxout_end(struct mboxout *m);
void mboxout_free(struct mboxout *m);

#endif
