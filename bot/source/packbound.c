/*
 * The sizes a pack's delta chains need: see bot/source/packbound.h.
 *
 * An object is found by its id in each pack's index.  From its offset
 * the chain is walked down (an OFS_DELTA names its base by a distance
 * back in the same pack, a REF_DELTA by id) to an object stored whole,
 * or to an object looked at before; then, back up, each object on it is
 * remembered with the largest size the chain holds from it down.  A
 * whole object's size is in its header; a delta's header gives the size
 * of its instructions, and the first bytes of those, inflated, the sizes
 * of its base and of what it makes.
 */
#include "bot/source/packbound.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <zlib.h>

#include "util/fmap.h"
#include "util/log.h"
#include "util/xalloc.h"

/* Deepest delta chain followed (git packs at most 4,095 deep). */
#define PB_MAX_DEPTH 10000

/* Offsets remembered, at most; then the memory starts over. */
#define PB_MEMO_MAX (1u << 20)

/* Looks between two drops of the packs' pages from the process: the
 * headers are spread over the whole pack, and an epoch's pack may be
 * gigabytes (its pages stay in the page cache, for libgit2). */
#define PB_DROP 1024

/* Compressed bytes given to inflate to read a delta's two sizes: its
 * block header and the first bytes of the delta, far below this. */
#define PB_PREFIX_IN 65536

struct pb_pack {
	unsigned char *idxmap, *pack;
	size_t ilen, plen;
	struct packidx x;
};

struct pb_memo {
	uint64_t off;
	uint64_t most;
	uint32_t pack;
	bool used;
};

struct packbound {
	char *dir; /* the repository, for messages */
	struct pb_pack *packs;
	size_t npacks, cap;
	struct pb_memo *memo;
	size_t mcap, mn;
	z_stream zs;
	bool zinit;
	unsigned long looks;
};

/* One step of a chain: the object at off in packs[pack], and the largest
 * of its own sizes (its header's, and for a delta what it makes). */
struct pb_step {
	size_t pack;
	uint64_t off;
	uint64_t own;
};

static void
pb_add(struct packbound *b, const char *dir, const char *name)
{
	struct pb_pack p;
	char path[4096];
	size_t n = strlen(name);
	uint32_t count;
	int k;

	memset(&p, 0, sizeof(p));
	k = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (k < 0 || (size_t)k >= sizeof(path))
		return;
	p.idxmap = fmap_open(path, &p.ilen);
	k = snprintf(
	    path, sizeof(path), "%s/%.*s.pack", dir, (int)(n - 4), name);
	if (p.idxmap != NULL && k > 0 && (size_t)k < sizeof(path))
		p.pack = fmap_open(path, &p.plen);
	if (p.pack == NULL || !packidx_init(&p.x, p.idxmap, p.ilen) ||
	    !pack_check(p.pack, p.plen, &count)) {
		log_debug("source: %s/%s: pack left to libgit2", dir, name);
		fmap_close(p.pack, p.plen);
		fmap_close(p.idxmap, p.ilen);
		return;
	}
	b->packs = xgrow(b->packs, &b->cap, b->npacks + 1, sizeof(*b->packs));
	b->packs[b->npacks++] = p;
}

enum err
packbound_open(const char *gitdir, struct packbound **out)
{
	struct packbound *b = xcalloc(1, sizeof(*b));
	struct dirent *de;
	char dir[4096];
	DIR *d;
	int k = snprintf(dir, sizeof(dir), "%s/objects/pack", gitdir);

	*out = b;
	b->dir = xstrdup(gitdir);
	if (k < 0 || (size_t)k >= sizeof(dir) || (d = opendir(dir)) == NULL)
		return ERR_OK; /* no packs: every object is libgit2's */
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);

		if (n > 4 && strcmp(de->d_name + n - 4, ".idx") == 0)
			pb_add(b, dir, de->d_name);
	}
	closedir(d);
	return ERR_OK;
}

void
packbound_free(struct packbound *b)
{
	size_t i;

	if (b == NULL)
		return;
	for (i = 0; i < b->npacks; i++) {
		fmap_close(b->packs[i].pack, b->packs[i].plen);
		fmap_close(b->packs[i].idxmap, b->packs[i].ilen);
	}
	if (b->zinit)
		inflateEnd(&b->zs);
	free(b->packs);
	free(b->memo);
	free(b->dir);
	free(b);
}

/* Which pack holds id, and where. */
static bool
pb_find(const struct packbound *b, const unsigned char id[PACK_ID_LEN],
    size_t *pack, uint64_t *off)
{
	size_t i;

	for (i = 0; i < b->npacks; i++) {
		if (packidx_find(&b->packs[i].x, id, off)) {
			*pack = i;
			return true;
		}
	}
	return false;
}

static struct pb_memo *
pb_slot(struct pb_memo *v, size_t cap, size_t pack, uint64_t off)
{
	size_t i = (size_t)((off * 0x9e3779b97f4a7c15ull) >> 32) ^ pack;

	for (i &= cap - 1; v[i].used; i = (i + 1) & (cap - 1))
		if (v[i].off == off && v[i].pack == pack)
			break;
	return &v[i];
}

static const struct pb_memo *
pb_memo_get(const struct packbound *b, size_t pack, uint64_t off)
{
	const struct pb_memo *s;

	if (b->mcap == 0)
		return NULL;
	s = pb_slot(b->memo, b->mcap, pack, off);
	return s->used ? s : NULL;
}

static void
pb_memo_put(struct packbound *b, size_t pack, uint64_t off, uint64_t most)
{
	struct pb_memo *s;
	size_t i;

	if (b->mn >= PB_MEMO_MAX) {
		memset(b->memo, 0, b->mcap * sizeof(*b->memo));
		b->mn = 0;
	}
	if (2 * (b->mn + 1) > b->mcap) {
		size_t cap = b->mcap ? 2 * b->mcap : 4096;
		struct pb_memo *v = xcalloc(cap, sizeof(*v));

		for (i = 0; i < b->mcap; i++)
			if (b->memo[i].used)
				*pb_slot(v, cap, b->memo[i].pack,
				    b->memo[i].off) = b->memo[i];
		free(b->memo);
		b->memo = v;
		b->mcap = cap;
	}
	s = pb_slot(b->memo, b->mcap, pack, off);
	if (!s->used)
		b->mn++;
	s->used = true;
	s->pack = (uint32_t)pack;
	s->off = off;
	s->most = most;
}

/* What the delta o of pack p makes: its size, from the first bytes of
 * its instructions. */
static bool
pb_delta_result(struct packbound *b, const struct pb_pack *p,
    const struct pack_obj *o, uint64_t *result)
{
	unsigned char head[32];
	uint64_t base;
	size_t start, in = p->plen - PACK_ID_LEN - (size_t)o->data;
	int rc;

	if (!b->zinit) {
		memset(&b->zs, 0, sizeof(b->zs));
		if (inflateInit(&b->zs) != Z_OK)
			return false;
		b->zinit = true;
	} else if (inflateReset(&b->zs) != Z_OK) {
		return false;
	}
	b->zs.next_in = p->pack + o->data;
	b->zs.avail_in = (uInt)(in < PB_PREFIX_IN ? in : PB_PREFIX_IN);
	b->zs.next_out = head;
	b->zs.avail_out =
	    (uInt)(o->size < sizeof(head) ? o->size : sizeof(head));
	rc = inflate(&b->zs, Z_SYNC_FLUSH);
	if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
		return false;
	return pack_delta_sizes(
	    head, (size_t)(b->zs.next_out - head), &base, result, &start);
}

static enum err
pb_bad(const struct packbound *b, size_t pack, uint64_t off, const char *what)
{
	log_err("source: %s: pack %zu of %zu: the object at %llu: %s", b->dir,
	    pack + 1, b->npacks, (unsigned long long)off, what);
	return ERR_GIT;
}

/* Let the pages of the packs go from the process (not from the page
 * cache) every PB_DROP looks. */
static void
pb_drop(struct packbound *b)
{
	size_t i;

	if (++b->looks % PB_DROP != 0)
		return;
	for (i = 0; i < b->npacks; i++)
		(void)madvise(
		    b->packs[i].pack, b->packs[i].plen, MADV_DONTNEED);
}

enum err
packbound_most(
    struct packbound *b, const unsigned char id[PACK_ID_LEN], uint64_t *most)
{
	struct pb_step *v = NULL;
	size_t n = 0, cap = 0, pack;
	uint64_t off, m = 0;
	enum err e = ERR_OK;

	if (!pb_find(b, id, &pack, &off))
		return ERR_NOTFOUND;
	pb_drop(b);
	for (;;) {
		const struct pb_memo *hit = pb_memo_get(b, pack, off);
		const struct pb_pack *p = &b->packs[pack];
		struct pack_obj o;
		uint64_t result;

		if (hit != NULL) {
			m = hit->most;
			break;
		}
		if (n == PB_MAX_DEPTH) {
			e = pb_bad(b, pack, off, "delta chain too deep");
			break;
		}
		if (!pack_obj_parse(p->pack, p->plen, off, &o)) {
			e = pb_bad(b, pack, off, "malformed header");
			break;
		}
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n].pack = pack;
		v[n].off = off;
		v[n].own = o.size;
		n++;
		if (o.type != PACK_OFS_DELTA && o.type != PACK_REF_DELTA)
			break; /* whole: the bottom of the chain */
		if (!pb_delta_result(b, p, &o, &result)) {
			e = pb_bad(b, pack, off, "malformed delta");
			break;
		}
		if (result > v[n - 1].own)
			v[n - 1].own = result;
		if (o.type == PACK_OFS_DELTA) {
			off = o.base;
		} else if (!pb_find(b, o.base_id, &pack, &off)) {
			e = ERR_NOTFOUND; /* a base no pack holds */
			break;
		}
	}
	if (e == ERR_OK) {
		while (n-- > 0) {
			if (v[n].own > m)
				m = v[n].own;
			pb_memo_put(b, v[n].pack, v[n].off, m);
		}
		*most = m;
	}
	free(v);
	return e;
}
