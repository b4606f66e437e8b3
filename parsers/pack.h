/*
 * git's pack formats (gitformat-pack(5)), the parts that are parsing
 * only: the version 2 index, an object's header in a pack, and the delta
 * that rebuilds an object from its base.  Everything works on bytes in
 * memory and trusts none of them: a bad count, offset, size or copy is
 * refused, never followed.  The staging engine uses the index and the
 * delta beside libgit2 (bot/git/gitpack.c, bot/git/gittree.c); the
 * public-inbox reader, the headers, to bound what it asks libgit2 to
 * inflate (bot/source/packbound.c).
 */
#ifndef PARSERS_PACK_H
#define PARSERS_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PACK_ID_LEN 20

enum pack_type {
	PACK_COMMIT = 1,
	PACK_TREE = 2,
	PACK_BLOB = 3,
	PACK_TAG = 4,
	PACK_OFS_DELTA = 6,
	PACK_REF_DELTA = 7,
};

/* A version 2 pack index (.idx) in memory. */
struct packidx {
	const unsigned char *map;
	size_t len;
	uint32_t n; /* objects */
};

/* Check map[0..len) is a version 2 index whose tables fit in it and
 * whose fan-out is ordered; false otherwise. */
bool packidx_init(struct packidx *x, const unsigned char *map, size_t len);

/* The offset in the pack of object id; false when the index lacks it
 * (or names an offset the index cannot hold). */
bool packidx_find(const struct packidx *x, const unsigned char id[PACK_ID_LEN],
    uint64_t *off);

/* The header "PACK", version 2 or 3, then the object count (into
 * *count): true when pack[0..len) starts with one and has room for its
 * trailing hash. */
bool pack_check(const unsigned char *pack, size_t len, uint32_t *count);

/* An object's header in a pack. */
struct pack_obj {
	enum pack_type type;
	uint64_t size; /* inflated size (of the delta, for a delta) */
	uint64_t data; /* offset of its zlib stream */
	uint64_t base; /* PACK_OFS_DELTA: offset of its base */
	const unsigned char *base_id; /* PACK_REF_DELTA: id of its base */
};

/* The header of the object at off in pack[0..len) (len includes the
 * pack's trailing hash, which no object may reach). */
bool pack_obj_parse(
    const unsigned char *pack, size_t len, uint64_t off, struct pack_obj *o);

/* A delta's two sizes, the base's and the result's, and where its
 * instructions start. */
bool pack_delta_sizes(const unsigned char *d, size_t n, uint64_t *base,
    uint64_t *result, size_t *start);

/* Apply delta d[0..n) to base[0..blen) into out[0..olen): true only when
 * the sizes in its header are blen and olen, every copy lies inside the
 * base and the instructions fill out exactly. */
bool pack_delta_apply(const unsigned char *base, size_t blen,
    const unsigned char *d, size_t n, unsigned char *out, size_t olen);

#endif
