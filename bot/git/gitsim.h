/*
 * git's similarity of two files, as its rename detection measures it
 * and prints it ("similarity index 93%"): git's patch-id hashes that
 * line, so a scan that is to give git's patch-id for a renamed and
 * changed file must print git's number, not libgit2's.
 */
#ifndef BOT_GITSIM_H
#define BOT_GITSIM_H

#include <stddef.h>

/*
 * The percentage git would print for src renamed to dst (0..100): the
 * share of dst's bytes copied from src, by diffcore-delta's chunk
 * counts; 0 when the sizes differ too much for a rename at all.
 */
int gitsim_percent(const char *src, size_t sn, const char *dst, size_t dn);

#endif
