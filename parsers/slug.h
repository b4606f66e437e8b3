/*
 * A patch's slug: its quilt file name without ".patch", made from the
 * subject the way -mm names its files ("mm: fix foo/bar" ->
 * "mm-fix-foo-bar").  Uniqueness in a project is the storage layer's job:
 * it asks for slug_variant(base, 2), (base, 3) ... until one is free.
 */
#ifndef PARSERS_SLUG_H
#define PARSERS_SLUG_H

#include <stddef.h>

#include "util/arena.h"

/* ASCII lower case letters, digits and single '-', at most 64 bytes, cut
 * at a '-'; "patch" when nothing is left. */
const char *slug_make(struct arena *a, const char *title);

/* base + "-" + n. */
const char *slug_variant(struct arena *a, const char *base, unsigned n);

#endif
