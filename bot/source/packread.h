/*
 * A reader of the packs of a git repository, for the public-inbox
 * reader: what it reads, in the order it reads it, costs a third of
 * libgit2's time (docs/DECISIONS.md, "public-inbox reads its packs
 * itself").  Objects are inflated from the mapped .pack, deltas applied
 * with parsers/pack.c, the bases a delta needs kept in a small cache, and
 * every byte read checked against the CRC-32 the index records of it
 * (or, where that cannot be trusted, every object handed out hashed
 * again and compared with its id).
 *
 * It reads packs only, and only what it can read whole: an object it
 * does not find in a pack (loose, in an alternate) or cannot resolve
 * there (a base in no pack, a chain deeper or an object larger than it
 * reads) is ERR_NOTFOUND, for the caller to ask libgit2.
 */
#ifndef BOT_SOURCE_PACKREAD_H
#define BOT_SOURCE_PACKREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/pack.h"
#include "util/err.h"

struct packread;

/* The packs of the repository at gitdir (GITDIR/objects/pack/ *.idx and
 * their .pack).  A pack that is unreadable or malformed is left out (the
 * caller's libgit2 then meets it); a repository without packs is no
 * error. */
enum err packread_open(const char *gitdir, struct packread **out);
void packread_free(struct packread *r);

/* Packs opened. */
size_t packread_npacks(const struct packread *r);

/* Objects handed out so far that were checked by hashing them, not by
 * the CRCs of their bytes (for tests: none, on a pack git wrote). */
size_t packread_hashed(const struct packread *r);

/*
 * Object id: its type and its bytes into *out (n bytes, and a NUL after
 * them; the caller frees it).  The bases met on the way are kept.
 * ERR_NOTFOUND: no pack here holds it whole (see above).  ERR_GIT: a pack
 * holds it, but it is corrupt: its bytes fail their CRC and do not hash
 * to id.  ERR_LIMIT: it, or an object its delta chain needs (a base, a
 * delta, what a delta makes), is larger than max bytes, found out from
 * their headers before anything that large is inflated.
 */
enum err packread_read(struct packread *r, const unsigned char id[PACK_ID_LEN],
    uint64_t max, enum pack_type *type, unsigned char **out, size_t *n);

/*
 * The same for an object that may be the base of one read later (the
 * mails of an epoch are): it is kept in the cache, and *data points to
 * it there (n bytes and a NUL) until the next read.
 */
enum err packread_keep(struct packread *r, const unsigned char id[PACK_ID_LEN],
    uint64_t max, enum pack_type *type, const unsigned char **data, size_t *n);

/*
 * A hold on data that packread_keep() gave: its bytes stay, whatever
 * is read next and after packread_free(), until packread_release()
 * gives the hold back.  Holds are counted without atomics: take and
 * give them back on the thread that reads (or once it is done).
 */
void packread_hold(const unsigned char *data);
void packread_release(const unsigned char *data);

#endif
