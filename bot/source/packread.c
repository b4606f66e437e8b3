/*
 * The pack reader: see bot/source/packread.h.
 *
 * An object is found by its id in each pack's index; from its offset the
 * reader walks down its delta chain (an OFS_DELTA names its base by a
 * distance back in the same pack, a REF_DELTA by id) until it meets an
 * object whole or a base in its cache, then applies the deltas upwards.
 * Every base it builds on the way is cached: a public-inbox epoch packed
 * by git gc holds its mails in chains up to 50 deep, and reading them in
 * the order they were written crosses every chain many times.
 *
 * zlib streams are inflated raw, past their two header bytes, without
 * their Adler-32.  What is read is checked as git checks the objects it
 * copies from one pack into another: the bytes of each object in the
 * pack (header, zlib stream and Adler-32) against the CRC-32 the index
 * records of them, the index whole against its own trailing hash when
 * the pack is opened, and the index to its pack by the pack's trailing
 * hash, which the index repeats.  Every byte an object handed out was
 * built from is then covered, for a tenth of the cost of hashing what
 * it inflates to (a third of the reading of util-linux's archive).  An
 * object whose bytes, or a base's, fail their CRC, and every object of a
 * pack whose index fails its hash (or of a pack above 4 GB), is hashed
 * instead and must match its id.
 */
#include "bot/source/packread.h"

#include <dirent.h>
#include <libdeflate.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "parsers/patchid.h"
#include "util/fmap.h"
#include "util/log.h"
#include "util/xalloc.h"

/* An object (or delta) larger than this is left to libgit2: no mail is
 * near it, and the reader never holds more than a few of this size. */
#define PR_MAX_OBJECT (256u * 1024 * 1024)

/* Deepest delta chain followed (git packs at most 4,095 deep). */
#define PR_MAX_DEPTH 10000

/* The cache of objects read (each may be the base of the next): direct-
 * mapped slots, emptied whole when its bytes would pass the cap.  On
 * util-linux's archive read in mail order, gc'd as git gc packs it or
 * with its deltas made again (repack -f), every cap from 2 MB up inflates
 * each object once or nearly (10,527 objects: 10,527 and 10,789
 * inflations at 2 MB); 4 MB leaves room for chains read against their
 * grain. */
#define PR_SLOT_BITS 12
#define PR_SLOTS (1u << PR_SLOT_BITS)
#define PR_CACHE_BYTES (4u * 1024 * 1024)

/* Objects read between two drops of the packs' pages (see pr_drop): a
 * drop in a process of several threads interrupts every core to flush
 * its TLB; at 256 the drops cost 6% of util-linux's import, at 2,048
 * none measurable, for 2 MB more of RSS. */
#define PR_DROP_EVERY 2048

struct pr_pack {
	char *name;
	unsigned char *pack, *idxmap;
	size_t plen, ilen;
	size_t lo, hi; /* bytes of pack read since the last drop */
	struct packidx idx;
	/* Whether the index's CRCs count (it is whole and its pack's):
	 * found out at the first object read, so that opening an epoch
	 * with nothing new to read costs nothing. */
	enum {
		PR_UNCHECKED,
		PR_TRUSTED,
		PR_HASHED
	} crc;
	/* The index's objects by offset, offset << 32 | position (made at
	 * the first check), for the CRC of a base named by its offset. */
	uint64_t *byoff;
};

/*
 * An object built (its bytes, then a NUL), as the cache keeps it: held
 * by its slot and by each packread_hold() not yet given back, and freed
 * with the last hold, so that a mail lent to the import's queue outlives
 * its slot.
 */
struct pr_obj {
	size_t holds;
	unsigned char data[];
};

struct pr_slot {
	unsigned char *data; /* a pr_obj's; NULL: empty */
	size_t n;
	uint64_t off;
	size_t pack;
	enum pack_type type;
	bool checked; /* it and its bases matched their CRCs */
};

/* One step down a chain: a delta at off in packs[pack]. */
struct pr_step {
	size_t pack;
	uint64_t off;
	struct pack_obj o;
};

struct packread {
	char *dir;
	struct pr_pack *packs;
	size_t npacks, palloc;
	struct pr_slot slots[PR_SLOTS];
	size_t cached; /* bytes in slots */
	struct pr_step *chain;
	size_t calloc_;
	unsigned char *delta; /* a delta's instructions, inflated */
	size_t dalloc;
	size_t reads; /* objects read since the last drop */
	size_t hashed; /* objects checked by their hash, not their CRCs */
	/* Two decompressors: one for streams that open with a block of
	 * fixed codes (trees, small objects), one for the rest.  libdeflate
	 * builds the fixed codes' tables again after every block of its own
	 * codes, which cost a tree read as much as its inflating. */
	struct libdeflate_decompressor *dz[2];
};

static void
pr_unmap(struct pr_pack *p)
{
	fmap_close(p->pack, p->plen);
	fmap_close(p->idxmap, p->ilen);
	free(p->byoff);
	free(p->name);
}

/* The index of p is whole (its own hash) and of p's pack (the pack's
 * hash it repeats), and every offset fits the sort keys of p->byoff. */
static bool
pr_idx_whole(const struct pr_pack *p)
{
	unsigned char sum[PACK_ID_LEN];

	if (p->plen > UINT32_MAX ||
	    memcmp(packidx_pack_sum(&p->idx), p->pack + p->plen - PACK_ID_LEN,
	        PACK_ID_LEN) != 0)
		return false;
	patchid_sha1(p->idxmap, p->ilen - PACK_ID_LEN, sum);
	return memcmp(sum, packidx_self_sum(&p->idx), PACK_ID_LEN) == 0;
}

/* Add pack NAME (an .idx file name in dir) when it and its .pack are
 * well formed and agree on their count. */
static void
pr_add(struct packread *r, const char *dir, const char *name)
{
	struct pr_pack p;
	char path[4096];
	size_t n = strlen(name) - 4;
	uint32_t count;
	int k;

	memset(&p, 0, sizeof(p));
	k = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (k < 0 || (size_t)k >= sizeof(path))
		return;
	p.idxmap = fmap_open(path, &p.ilen);
	memcpy(path + strlen(path) - 4, ".pack", 6);
	p.pack = fmap_open(path, &p.plen);
	if (p.idxmap == NULL || p.pack == NULL ||
	    !packidx_init(&p.idx, p.idxmap, p.ilen) ||
	    !pack_check(p.pack, p.plen, &count) || count != p.idx.n) {
		log_debug("source: %s: pack %.*s left to libgit2", r->dir,
		    (int)n, name);
		pr_unmap(&p);
		return;
	}
	p.name = xstrndup(name, n);
	p.lo = SIZE_MAX;
	r->packs =
	    xgrow(r->packs, &r->palloc, r->npacks + 1, sizeof(*r->packs));
	r->packs[r->npacks++] = p;
}

enum err
packread_open(const char *gitdir, struct packread **out)
{
	struct packread *r = xcalloc(1, sizeof(*r));
	char dir[4096];
	struct dirent *de;
	DIR *d;
	int k;

	r->dir = xstrdup(gitdir);
	*out = r;
	k = snprintf(dir, sizeof(dir), "%s/objects/pack", gitdir);
	if (k < 0 || (size_t)k >= sizeof(dir))
		return ERR_OK;
	d = opendir(dir);
	if (d == NULL)
		return ERR_OK;
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);

		if (n > 4 && strcmp(de->d_name + n - 4, ".idx") == 0)
			pr_add(r, dir, de->d_name);
	}
	closedir(d);
	return ERR_OK;
}

static struct pr_obj *
pr_obj(const unsigned char *data)
{
	return (struct pr_obj *)(void *)(data - offsetof(struct pr_obj, data));
}

/* Room for an object of n bytes and a NUL: plain, the caller's to
 * free(); else a pr_obj's, held once. */
static unsigned char *
pr_alloc(size_t n, bool plain)
{
	struct pr_obj *o;

	if (plain)
		return xmalloc(n + 1);
	o = xmalloc(sizeof(*o) + n + 1);
	o->holds = 1;
	return o->data;
}

/* Give back a hold on a pr_obj's data (NULL: none). */
static void
pr_put(unsigned char *data)
{
	struct pr_obj *o;

	if (data == NULL)
		return;
	o = pr_obj(data);
	if (--o->holds == 0)
		free(o);
}

/* What pr_alloc() gave, never kept, freed. */
static void
pr_unalloc(unsigned char *data, bool plain)
{
	if (plain)
		free(data);
	else
		pr_put(data);
}

static void
pr_cache_clear(struct packread *r)
{
	size_t i;

	for (i = 0; i < PR_SLOTS; i++) {
		pr_put(r->slots[i].data);
		r->slots[i].data = NULL;
	}
	r->cached = 0;
}

void
packread_free(struct packread *r)
{
	size_t i;

	if (r == NULL)
		return;
	pr_cache_clear(r);
	for (i = 0; i < r->npacks; i++)
		pr_unmap(&r->packs[i]);
	for (i = 0; i < 2; i++)
		if (r->dz[i] != NULL)
			libdeflate_free_decompressor(r->dz[i]);
	free(r->packs);
	free(r->chain);
	free(r->delta);
	free(r->dir);
	free(r);
}

size_t
packread_npacks(const struct packread *r)
{
	return r->npacks;
}

size_t
packread_hashed(const struct packread *r)
{
	return r->hashed;
}

static struct pr_slot *
pr_slot(struct packread *r, size_t pack, uint64_t off)
{
	uint64_t h = (off ^ ((uint64_t)pack << 40)) * 0x9e3779b97f4a7c15u;

	return &r->slots[h >> (64 - PR_SLOT_BITS)];
}

static const struct pr_slot *
pr_cache_get(struct packread *r, size_t pack, uint64_t off)
{
	const struct pr_slot *s = pr_slot(r, pack, off);

	return s->data != NULL && s->off == off && s->pack == pack ? s : NULL;
}

/* Empty slot s. */
static void
pr_slot_free(struct packread *r, struct pr_slot *s)
{
	if (s->data != NULL) {
		r->cached -= s->n;
		pr_put(s->data);
		s->data = NULL;
	}
}

/* Keep data (n bytes, a pr_obj's: the caller's hold passes to the
 * slot) as the object at off; checked when it and its bases matched
 * their CRCs. */
static void
pr_cache_put(struct packread *r, size_t pack, uint64_t off, enum pack_type type,
    unsigned char *data, size_t n, bool checked)
{
	struct pr_slot *s = pr_slot(r, pack, off);

	pr_slot_free(r, s);
	if (r->cached + n > PR_CACHE_BYTES)
		pr_cache_clear(r);
	s->data = data;
	s->n = n;
	s->off = off;
	s->pack = pack;
	s->type = type;
	s->checked = checked;
	r->cached += n;
}

/* The object at off out of the cache. */
static void
pr_cache_drop(struct packread *r, size_t pack, uint64_t off)
{
	struct pr_slot *s = pr_slot(r, pack, off);

	if (s->off == off && s->pack == pack)
		pr_slot_free(r, s);
}

/* Inflate the zlib stream of o in pack p into out: true when it gives
 * exactly o->size bytes; *end is then the offset past its Adler-32. */
static bool
pr_inflate(struct packread *r, struct pr_pack *p, const struct pack_obj *o,
    unsigned char *out, uint64_t *end)
{
	const unsigned char *in = p->pack + o->data;
	size_t avail = p->plen - PACK_ID_LEN - (size_t)o->data;
	size_t used = 0, fixed;
	enum libdeflate_result z;

	/* The zlib header: deflate, a window git uses, no dictionary. */
	if (avail < 2 || (in[0] & 0x0f) != 8 || (in[0] >> 4) > 7 ||
	    (in[1] & 0x20) != 0 || ((unsigned)in[0] << 8 | in[1]) % 31 != 0)
		return false;
	/* BTYPE, the 2 bits after BFINAL: 01 is a block of fixed codes. */
	fixed = avail > 2 && (in[2] >> 1 & 3) == 1;
	if (r->dz[fixed] == NULL &&
	    (r->dz[fixed] = libdeflate_alloc_decompressor()) == NULL)
		return false;
	z = libdeflate_deflate_decompress_ex(
	    r->dz[fixed], in + 2, avail - 2, out, (size_t)o->size, &used, NULL);
	if (2 + (size_t)o->data + used > p->hi)
		p->hi = 2 + (size_t)o->data + used;
	*end = o->data + 2 + used + 4;
	return z == LIBDEFLATE_SUCCESS;
}

/*
 * keys[0..n) in the order of their high 32 bits (offsets up to top, the
 * low bits an index position): a stable radix sort, a pass a byte the
 * offsets use.  An epoch of lore holds millions of objects, which
 * qsort() sorted in 2 ms a 10,000 while the writer waited for the first
 * mail.
 */
static void
pr_sort_keys(uint64_t *keys, size_t n, uint64_t top)
{
	uint64_t *tmp = xmalloc((n ? n : 1) * sizeof(*tmp)), *a = keys,
	         *b = tmp, *t;
	size_t count[256], i, sum, c;
	unsigned shift;

	for (shift = 32; shift < 64 && top >> (shift - 32) != 0; shift += 8) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[a[i] >> shift & 0xff]++;
		for (sum = 0, i = 0; i < 256; i++) {
			c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[count[a[i] >> shift & 0xff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	if (a != keys)
		memcpy(keys, a, n * sizeof(*keys));
	free(tmp);
}

/* p->byoff, made. */
static void
pr_byoff(struct pr_pack *p)
{
	uint32_t i;
	uint64_t off, top = 0;

	p->byoff = xcalloc(p->idx.n ? p->idx.n : 1, sizeof(*p->byoff));
	for (i = 0; i < p->idx.n; i++) {
		if (!packidx_offset(&p->idx, i, &off) || off >= p->plen) {
			p->crc = PR_HASHED; /* an offset no object can have */
			return;
		}
		p->byoff[i] = off << 32 | i;
		if (off > top)
			top = off;
	}
	pr_sort_keys(p->byoff, p->idx.n, top);
}

/* The bytes of the object at off in p, up to end, match the CRC-32 its
 * index records. */
static bool
pr_crc_ok(struct pr_pack *p, uint64_t off, uint64_t end)
{
	size_t lo = 0, hi;

	if (p->crc == PR_UNCHECKED) {
		p->crc = pr_idx_whole(p) ? PR_TRUSTED : PR_HASHED;
		if (p->crc == PR_TRUSTED)
			pr_byoff(p);
		else
			log_debug("source: pack %s: its index fails its hash: "
			          "every object is hashed",
			    p->name);
	}
	if (p->crc != PR_TRUSTED || end > p->plen - PACK_ID_LEN)
		return false;
	hi = p->idx.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k = p->byoff[mid] >> 32;

		if (k < off) {
			lo = mid + 1;
		} else if (k > off) {
			hi = mid;
		} else {
			uint32_t pos = (uint32_t)p->byoff[mid];

			return libdeflate_crc32(
			           0, p->pack + off, (size_t)(end - off)) ==
			    packidx_crc(&p->idx, pos);
		}
	}
	return false;
}

/*
 * A mapped page that was read stays in the process's RSS until it is
 * unmapped, and an import reads every page of an epoch's pack (lore's
 * are a gigabyte): every PR_DROP_EVERY reads, the pages read since the
 * last drop are given back (the page cache keeps them).
 */
static void
pr_drop(struct packread *r)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), i;

	r->reads = 0;
	for (i = 0; i < r->npacks; i++) {
		struct pr_pack *p = &r->packs[i];

		if (p->hi > p->lo) {
			size_t a = p->lo & ~(page - 1);

			madvise(p->pack + a, p->hi - a, MADV_DONTNEED);
		}
		p->lo = SIZE_MAX;
		p->hi = 0;
		madvise(p->idxmap, p->ilen, MADV_DONTNEED);
	}
}

/* Where the object id lies: its pack and offset. */
static bool
pr_find(const struct packread *r, const unsigned char id[PACK_ID_LEN],
    size_t *pack, uint64_t *off)
{
	size_t i;

	for (i = 0; i < r->npacks; i++)
		if (packidx_find(&r->packs[i].idx, id, off) &&
		    *off < r->packs[i].plen) {
			*pack = i;
			return true;
		}
	return false;
}

static enum err
pr_corrupt(struct packread *r, size_t pack, uint64_t off, const char *what)
{
	log_err("source: %s: pack %s: object at %llu: %s", r->dir,
	    r->packs[pack].name, (unsigned long long)off, what);
	return ERR_GIT;
}

/*
 * The object at off in packs[pack], built: *type, *out (malloc'd,
 * NUL-terminated), *n.  *checked when every byte it was built from
 * matched its CRC; else its hash is the caller's to check.  ERR_LIMIT,
 * before anything above max is allocated, when it or an object on its
 * chain (a base, a delta, what a delta makes) is larger than max.
 */
static enum err
pr_build(struct packread *r, size_t pack, uint64_t off, uint64_t max, bool keep,
    enum pack_type *type, unsigned char **out, size_t *n, bool *checked)
{
	const struct pr_slot *hit = NULL;
	unsigned char *cur = NULL;
	bool top = false, ok;
	size_t depth = 0, curn = 0, cpack = pack;
	uint64_t coff = off, end;
	struct pack_obj o;

	/* Down the chain to a cached base or a whole object. */
	for (;;) {
		struct pr_pack *p = &r->packs[cpack];

		if ((hit = pr_cache_get(r, cpack, coff)) != NULL)
			break;
		if (coff < p->lo)
			p->lo = (size_t)coff;
		if (!pack_obj_parse(p->pack, p->plen, coff, &o))
			return pr_corrupt(r, cpack, coff, "bad header");
		if (o.size > max)
			return ERR_LIMIT;
		if (o.size > PR_MAX_OBJECT)
			return ERR_NOTFOUND;
		/* deflate gives at most 1,032 bytes a byte: a larger size
		 * is a lie, refused before it is allocated. */
		if (o.size / 1032 > p->plen - PACK_ID_LEN - o.data)
			return pr_corrupt(
			    r, cpack, coff, "size beyond its data");
		if (o.type != PACK_OFS_DELTA && o.type != PACK_REF_DELTA)
			break;
		if (depth == PR_MAX_DEPTH)
			return ERR_NOTFOUND;
		r->chain =
		    xgrow(r->chain, &r->calloc_, depth + 1, sizeof(*r->chain));
		r->chain[depth].pack = cpack;
		r->chain[depth].off = coff;
		r->chain[depth].o = o;
		depth++;
		if (o.type == PACK_OFS_DELTA) {
			coff = o.base;
		} else if (!pr_find(r, o.base_id, &cpack, &coff)) {
			return ERR_NOTFOUND; /* a base outside the packs */
		}
	}
	if (hit != NULL) {
		*type = hit->type;
		curn = hit->n;
		ok = hit->checked;
		if (curn > max)
			return ERR_LIMIT;
		if (depth == 0) { /* the object itself */
			top = true;
			if (!keep) {
				cur = xmalloc(curn + 1);
				memcpy(cur, hit->data, curn + 1);
			}
		}
	} else {
		bool plain = !keep && depth == 0;

		*type = o.type;
		curn = (size_t)o.size;
		cur = pr_alloc(curn, plain);
		if (!pr_inflate(r, &r->packs[cpack], &o, cur, &end)) {
			pr_unalloc(cur, plain);
			return pr_corrupt(r, cpack, coff, "bad zlib stream");
		}
		cur[curn] = '\0';
		ok = pr_crc_ok(&r->packs[cpack], coff, end);
		if (depth > 0) {
			pr_cache_put(r, cpack, coff, *type, cur, curn, ok);
			hit = pr_cache_get(r, cpack, coff);
			cur = NULL;
		}
	}
	/* Up again, a delta at a time.  hit (cached) is the base of the
	 * next step: each base is cached, so cur is NULL until the last. */
	while (depth > 0) {
		const struct pr_step *s = &r->chain[--depth];
		const unsigned char *base = hit->data;
		bool plain = !keep && depth == 0;
		uint64_t bsz, rsz;
		size_t start;
		unsigned char *res;

		r->delta =
		    xgrow(r->delta, &r->dalloc, (size_t)s->o.size + 1, 1);
		if (!pr_inflate(r, &r->packs[s->pack], &s->o, r->delta, &end))
			return pr_corrupt(
			    r, s->pack, s->o.data, "bad zlib stream");
		ok = ok && pr_crc_ok(&r->packs[s->pack], s->off, end);
		if (!pack_delta_sizes(
		        r->delta, (size_t)s->o.size, &bsz, &rsz, &start) ||
		    bsz != curn)
			return pr_corrupt(r, s->pack, s->o.data, "bad delta");
		if (rsz > max)
			return ERR_LIMIT;
		if (rsz > PR_MAX_OBJECT)
			return ERR_NOTFOUND;
		res = pr_alloc((size_t)rsz, plain);
		if (!pack_delta_apply(base, curn, r->delta, (size_t)s->o.size,
		        res, (size_t)rsz)) {
			pr_unalloc(res, plain);
			return pr_corrupt(r, s->pack, s->o.data, "bad delta");
		}
		res[rsz] = '\0';
		cur = res;
		curn = (size_t)rsz;
		hit = NULL;
		if (depth > 0) { /* the base of the next step: keep it */
			pr_cache_put(r, s->pack, s->off, *type, cur, curn, ok);
			hit = pr_cache_get(r, s->pack, s->off);
			cur = NULL;
		}
	}
	*n = curn;
	*checked = ok;
	if (keep && !top)
		pr_cache_put(r, pack, off, *type, cur, curn, ok);
	else if (!keep)
		*out = cur;
	return ERR_OK;
}

/* The hash of the object (type, n bytes at data) is id's. */
static bool
pr_hash_ok(struct packread *r, enum pack_type type, const unsigned char *data,
    size_t n, const unsigned char id[PACK_ID_LEN])
{
	struct patchid_sha1_ctx c;
	unsigned char sum[PACK_ID_LEN];
	char head[64];
	int k = snprintf(head, sizeof(head), "%s %zu", pack_type_name(type), n);

	r->hashed++;
	patchid_sha1_init(&c);
	patchid_sha1_update(&c, head, (size_t)k + 1);
	patchid_sha1_update(&c, data, n);
	patchid_sha1_final(&c, sum);
	return memcmp(sum, id, PACK_ID_LEN) == 0;
}

/* Where id lies, and the object there built: into *out, or (keep) left
 * in the cache at *pack and *off, *out NULL. */
static enum err
pr_read(struct packread *r, const unsigned char id[PACK_ID_LEN], uint64_t max,
    bool keep, enum pack_type *type, unsigned char **out, size_t *n,
    size_t *pack, uint64_t *off, bool *checked)
{
	*out = NULL;
	*n = 0;
	if (++r->reads >= PR_DROP_EVERY)
		pr_drop(r);
	if (!pr_find(r, id, pack, off))
		return ERR_NOTFOUND;
	return pr_build(r, *pack, *off, max, keep, type, out, n, checked);
}

enum err
packread_read(struct packread *r, const unsigned char id[PACK_ID_LEN],
    uint64_t max, enum pack_type *type, unsigned char **out, size_t *n)
{
	size_t pack;
	uint64_t off;
	bool checked;
	enum err e =
	    pr_read(r, id, max, false, type, out, n, &pack, &off, &checked);

	if (e != ERR_OK)
		return e;
	if (!checked && !pr_hash_ok(r, *type, *out, *n, id)) {
		free(*out);
		*out = NULL;
		return pr_corrupt(
		    r, pack, off, "its bytes do not hash to its id");
	}
	return ERR_OK;
}

void
packread_hold(const unsigned char *data)
{
	pr_obj(data)->holds++;
}

void
packread_release(const unsigned char *data)
{
	pr_put((unsigned char *)data);
}

enum err
packread_keep(struct packread *r, const unsigned char id[PACK_ID_LEN],
    uint64_t max, enum pack_type *type, const unsigned char **data, size_t *n)
{
	const struct pr_slot *s;
	unsigned char *out;
	size_t pack;
	uint64_t off;
	bool checked;
	enum err e =
	    pr_read(r, id, max, true, type, &out, n, &pack, &off, &checked);

	*data = NULL;
	if (e != ERR_OK)
		return e;
	s = pr_cache_get(r, pack, off);
	if (!checked && !pr_hash_ok(r, *type, s->data, *n, id)) {
		/* Not the object it says: out of the cache, for no other
		 * object to be built on it. */
		pr_cache_drop(r, pack, off);
		return pr_corrupt(
		    r, pack, off, "its bytes do not hash to its id");
	}
	*data = s->data;
	return ERR_OK;
}
