/*
 * How large what libgit2 would build an object from can be, read from
 * the headers of a repository's packs: the public-inbox reader asks this
 * before it asks libgit2 for an object of an archive, which may come
 * from a hostile server.  libgit2 allocates and inflates every base of a
 * delta chain whole, and tells only the size of the object at its top
 * (git_odb_read_header()): a small mail stored as a delta of a base of
 * gigabytes would be inflated to read it.
 *
 * Nothing is inflated but the few bytes at the start of each delta that
 * say what it makes; what a chain needs is remembered by offset, so an
 * object is looked at once however many chains cross it.  Objects are
 * read through libgit2 as before, which checks them against their ids.
 */
#ifndef BOT_SOURCE_PACKBOUND_H
#define BOT_SOURCE_PACKBOUND_H

#include <stdint.h>

#include "parsers/pack.h"
#include "util/err.h"

struct packbound;

/* The packs of the repository at gitdir (GITDIR/objects/pack/ *.idx and
 * their .pack).  A pack that cannot be read or whose index or header is
 * malformed is left out (libgit2 then meets it); a repository without
 * packs is no error. */
enum err packbound_open(const char *gitdir, struct packbound **out);
void packbound_free(struct packbound *b);

/*
 * The largest object object id's delta chain holds, as a pack here
 * stores it: the object, every base and every delta and what each delta
 * makes, into *most.  ERR_NOTFOUND when no pack here holds it (a loose
 * object is whole: libgit2's header tells its size) or a base of its
 * chain (a REF_DELTA on an object no pack holds).  ERR_GIT when the
 * headers on its chain are malformed or the chain deeper than git makes.
 */
enum err packbound_most(
    struct packbound *b, const unsigned char id[PACK_ID_LEN], uint64_t *most);

#endif
