/*
 * Pack and pack index parsing: see parsers/pack.h.  The layouts are
 * gitformat-pack(5)'s; the comments give only what the code relies on.
 */
#include "parsers/pack.h"

#include <string.h>

/* Index v2: magic, version, fan-out (256 counts), then for n objects
 * their ids, CRC-32s and 31-bit offsets, the 64-bit offsets the high bit
 * of an offset points into, and two trailing hashes. */
#define IDX_HEAD 8
#define IDX_FANOUT 1024
#define IDX_TRAILER (2 * PACK_ID_LEN)

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

bool
packidx_init(struct packidx *x, const unsigned char *map, size_t len)
{
	uint32_t prev = 0, i;

	memset(x, 0, sizeof(*x));
	if (len < IDX_HEAD + IDX_FANOUT + IDX_TRAILER ||
	    memcmp(map, "\377tOc", 4) != 0 || be32(map + 4) != 2)
		return false;
	for (i = 0; i < 256; i++) {
		uint32_t f = be32(map + IDX_HEAD + 4 * i);

		if (f < prev)
			return false;
		prev = f;
	}
	/* ids, CRCs and offsets: 28 bytes an object. */
	if ((len - IDX_HEAD - IDX_FANOUT - IDX_TRAILER) / 28 < prev)
		return false;
	x->map = map;
	x->len = len;
	x->n = prev;
	return true;
}

/* In ids[], sorted, of which fan[b] counts those whose first byte is at
 * most b: the index of id. */
static bool
fanout_search(const unsigned char *fan, const unsigned char *ids,
    const unsigned char id[PACK_ID_LEN], uint32_t *at)
{
	uint32_t lo = id[0] ? be32(fan + 4 * (id[0] - 1)) : 0;
	uint32_t hi = be32(fan + 4 * id[0]);

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c =
		    memcmp(ids + (size_t)mid * PACK_ID_LEN, id, PACK_ID_LEN);

		if (c < 0) {
			lo = mid + 1;
		} else if (c > 0) {
			hi = mid;
		} else {
			*at = mid;
			return true;
		}
	}
	return false;
}

static bool
packidx_pos(
    const struct packidx *x, const unsigned char id[PACK_ID_LEN], uint32_t *pos)
{
	if (x->map == NULL)
		return false;
	return fanout_search(
	    x->map + IDX_HEAD, x->map + IDX_HEAD + IDX_FANOUT, id, pos);
}

static bool
packidx_offset(const struct packidx *x, uint32_t pos, uint64_t *off)
{
	const unsigned char *offs;
	uint32_t o;
	size_t big, at;

	if (x->map == NULL || pos >= x->n)
		return false;
	offs =
	    x->map + IDX_HEAD + IDX_FANOUT + (size_t)x->n * (PACK_ID_LEN + 4);
	o = be32(offs + (size_t)pos * 4);
	if (!(o & 0x80000000u)) {
		*off = o;
		return true;
	}
	/* The 64-bit table lies between the offsets and the trailer. */
	big = (size_t)(o & 0x7fffffffu);
	at = (size_t)(offs - x->map) + (size_t)x->n * 4;
	if (big >= (x->len - IDX_TRAILER - at) / 8)
		return false;
	at += big * 8;
	*off = (uint64_t)be32(x->map + at) << 32 | be32(x->map + at + 4);
	return true;
}

bool
packidx_find(
    const struct packidx *x, const unsigned char id[PACK_ID_LEN], uint64_t *off)
{
	uint32_t pos;

	return packidx_pos(x, id, &pos) && packidx_offset(x, pos, off);
}

bool
pack_check(const unsigned char *pack, size_t len, uint32_t *count)
{
	uint32_t v;

	if (len < 12 + PACK_ID_LEN || memcmp(pack, "PACK", 4) != 0)
		return false;
	v = be32(pack + 4);
	*count = be32(pack + 8);
	return v == 2 || v == 3;
}

bool
pack_obj_parse(
    const unsigned char *pack, size_t len, uint64_t off, struct pack_obj *o)
{
	size_t end = len - PACK_ID_LEN; /* objects end before the hash */
	size_t i = (size_t)off;
	unsigned shift = 4;
	unsigned char c;

	memset(o, 0, sizeof(*o));
	if (len < 12 + PACK_ID_LEN || off < 12 || off >= end)
		return false;
	c = pack[i++];
	o->type = (enum pack_type)((c >> 4) & 7);
	o->size = c & 15;
	while (c & 0x80) {
		if (i >= end || shift > 57)
			return false;
		c = pack[i++];
		o->size |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	}
	switch (o->type) {
	case PACK_COMMIT:
	case PACK_TREE:
	case PACK_BLOB:
	case PACK_TAG:
		break;
	case PACK_OFS_DELTA: {
		/* A big-endian base-128 distance back, each continuation
		 * adding one (so that every distance has one spelling). */
		uint64_t d;

		if (i >= end)
			return false;
		c = pack[i++];
		d = c & 0x7f;
		while (c & 0x80) {
			if (i >= end || d > (UINT64_MAX >> 7) - 1)
				return false;
			c = pack[i++];
			d = ((d + 1) << 7) | (c & 0x7f);
		}
		if (d == 0 || d > off)
			return false;
		o->base = off - d;
		break;
	}
	case PACK_REF_DELTA:
		if (end - i < PACK_ID_LEN)
			return false;
		o->base_id = pack + i;
		i += PACK_ID_LEN;
		break;
	default:
		return false;
	}
	if (i >= end)
		return false;
	o->data = i;
	return true;
}

/* A delta's little-endian base-128 size at d[*i]. */
static bool
delta_size(const unsigned char *d, size_t n, size_t *i, uint64_t *v)
{
	unsigned shift = 0;
	unsigned char c;

	*v = 0;
	do {
		if (*i >= n || shift > 63)
			return false;
		c = d[(*i)++];
		*v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	return true;
}

bool
pack_delta_sizes(const unsigned char *d, size_t n, uint64_t *base,
    uint64_t *result, size_t *start)
{
	size_t i = 0;

	if (!delta_size(d, n, &i, base) || !delta_size(d, n, &i, result))
		return false;
	*start = i;
	return true;
}

bool
pack_delta_apply(const unsigned char *base, size_t blen, const unsigned char *d,
    size_t n, unsigned char *out, size_t olen)
{
	uint64_t bsz, rsz;
	size_t i, o = 0;

	if (!pack_delta_sizes(d, n, &bsz, &rsz, &i) || bsz != blen ||
	    rsz != olen)
		return false;
	while (i < n) {
		unsigned char c = d[i++];

		if (c & 0x80) {
			/* Copy: bits 0-3 say which offset bytes follow,
			 * bits 4-6 which size bytes; size 0 means 64 KB. */
			size_t from = 0, len = 0;
			unsigned k;

			for (k = 0; k < 4; k++)
				if (c & (1u << k)) {
					if (i >= n)
						return false;
					from |= (size_t)d[i++] << (8 * k);
				}
			for (k = 0; k < 3; k++)
				if (c & (0x10u << k)) {
					if (i >= n)
						return false;
					len |= (size_t)d[i++] << (8 * k);
				}
			if (len == 0)
				len = 0x10000;
			if (from > blen || len > blen - from || len > olen - o)
				return false;
			memcpy(out + o, base + from, len);
			o += len;
		} else if (c != 0) {
			/* Insert the next c bytes. */
			if (c > n - i || c > olen - o)
				return false;
			memcpy(out + o, d + i, c);
			i += c;
			o += c;
		} else {
			return false; /* reserved */
		}
	}
	return o == olen;
}
