/*
 * Trees kept in memory across a build, and updated there.
 *
 * A queue of patches on a project with a large folder (man-pages' man3/
 * holds 1,700 files, a 70 KB tree) rewrites that folder's tree for every
 * patch that touches it.  Through libgit2 each rewrite loaded the whole
 * tree into a tree builder, wrote it through the object database (which
 * hashes it with the collision-detecting SHA-1), and every later look at
 * the new tree read it back and hashed it again.  Here a tree is raw
 * bytes in git's format ("MODE NAME\0" and 20 bytes of id, entries in
 * git's order), read from the object database once (verified there) or
 * made here; an update splices the changed entries into a copy, hashes
 * it once (nettle's SHA-1, as gitpriv_blob) and stores it in the
 * in-memory object store and in this cache, where the next patch finds
 * it.  The entries stay sorted because each one goes in where git's
 * order puts it.
 *
 * Only plain cases are done here: upserting and removing files, folders
 * made and (when emptied) removed on the way.  A path that would turn a
 * file into a folder or the other way, or removing what is not there,
 * is ERR_LIMIT: the caller asks libgit2, which knows every case.
 */
#include <git2/sys/odb_backend.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/git/gitpriv.h"
#include "parsers/pack.h"
#include "parsers/patchid.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/xalloc.h"

/* Deltas in a row before a made tree is kept whole, in memory and so in
 * the pack: reading a version back (libgit2 in the next rebuild, which
 * starts from one of them) applies at most this many.  git's pack.depth
 * is 50; git also keeps the newest versions whole, where a build's
 * chains start at the oldest, so shorter chains here. */
#define DELTA_DEPTH 16

/* Bytes of trees kept; past it the cache starts over. */
#define TREES_MAX ((size_t)32 << 20)

/* A tree: its bytes, and its entries once someone asked (views into
 * raw, which does not move while the slot lives).  A tree a build made
 * is "made": this slot is its only copy until gitpriv_persist() writes
 * it or gitpriv_discard() forgets it, so the cache never lets it go and
 * the object database reads it here (gittrees_backend()). */
struct tslot {
	git_oid id;
	bool used;
	unsigned char *raw; /* NULL: rebuilt from delta when asked for */
	size_t n;
	struct gittree_ent *ents;
	size_t nents;
	bool made;
	bool has_from; /* made here as from + chg[0..nchg) */
	git_oid from;
	struct gittree_chg *chg;
	size_t nchg;
	unsigned char *delta; /* raw as a git delta against from, or NULL */
	size_t ndelta;
	unsigned depth; /* deltas to follow to bytes kept whole */
};

/* Slots that keep their parsed entries.  A build reads and updates the
 * newest version of a folder: the entries of older versions are freed,
 * and their memory taken by the next version's, instead of fresh pages
 * for every version (each page costs a fault; a 1,700-file folder's
 * entries are 14 pages). */
#define PARSED_MAX 8

struct gittrees {
	struct tslot *v;
	size_t cap, n, bytes; /* bytes: of the trees not made here */
	unsigned busy; /* callers hold views: no starting over */
	git_oid parsed[PARSED_MAX]; /* the slots with entries, a ring */
	size_t nparsed, next;
};

static void
slot_clear(struct tslot *s)
{
	free(s->raw);
	free(s->ents);
	free(s->chg);
	free(s->delta);
	memset(s, 0, sizeof(*s));
}

void
gittrees_free(struct gittrees *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->cap; i++)
		slot_clear(&t->v[i]);
	free(t->v);
	free(t);
}

static struct tslot *
slot_of(struct tslot *v, size_t cap, const git_oid *id)
{
	size_t h, i;

	memcpy(&h, id->id, sizeof(h));
	for (i = h & (cap - 1); v[i].used; i = (i + 1) & (cap - 1))
		if (git_oid_equal(&v[i].id, id))
			break;
	return &v[i];
}

static struct tslot *
trees_find(struct gittrees *t, const git_oid *id)
{
	struct tslot *s;

	if (t->cap == 0)
		return NULL;
	s = slot_of(t->v, t->cap, id);
	return s->used ? s : NULL;
}

/* The table rebuilt at capacity cap from the slots keep() takes; the
 * others are freed. */
static void
trees_rehash(struct gittrees *t, size_t cap, bool (*keep)(const struct tslot *))
{
	struct tslot *v = xcalloc(cap, sizeof(*v));
	size_t i;

	t->n = t->bytes = 0;
	for (i = 0; i < t->cap; i++) {
		struct tslot *s = &t->v[i];

		if (!s->used)
			continue;
		if (!keep(s)) {
			slot_clear(s);
			continue;
		}
		*slot_of(v, cap, &s->id) = *s;
		t->n++;
		if (!s->made)
			t->bytes += s->n;
	}
	free(t->v);
	t->v = v;
	t->cap = cap;
}

static bool
keep_all(const struct tslot *s)
{
	(void)s;
	return true;
}

static bool
keep_made(const struct tslot *s)
{
	return s->made;
}

static bool
keep_read(const struct tslot *s)
{
	return !s->made;
}

/* Room for one more: over the byte budget start over (unless views are
 * held), keeping the trees made here, else grow the table when half
 * full, keeping every tree. */
static void
trees_room(struct gittrees *t, size_t n)
{
	size_t i;

	if (t->bytes + n > TREES_MAX && t->busy == 0) {
		/* Entries go with the ring that tracks them. */
		for (i = 0; i < t->cap; i++) {
			free(t->v[i].ents);
			t->v[i].ents = NULL;
			t->v[i].nents = 0;
		}
		t->nparsed = t->next = 0;
		trees_rehash(t, t->cap, keep_made);
	}
	if (2 * (t->n + 1) <= t->cap)
		return;
	trees_rehash(t, t->cap ? 2 * t->cap : 1024, keep_all);
}

/* Into cache t, owning raw (freed when already there); made: a tree
 * made here, which is nowhere else. */
static struct tslot *
trees_own(struct gittrees *t, const git_oid *id, unsigned char *raw, size_t n,
    bool made)
{
	struct tslot *s;

	trees_room(t, made ? 0 : n);
	s = slot_of(t->v, t->cap, id);
	if (s->used) {
		if (s->raw == NULL) {
			s->raw = raw; /* the same bytes, whole again */
			return s;
		}
		free(raw);
		return s;
	}
	s->used = true;
	s->id = *id;
	s->raw = raw;
	s->n = n;
	s->made = made;
	t->n++;
	if (!made)
		t->bytes += n;
	return s;
}

/* Slot s has just been given its entries: the oldest of the slots that
 * have theirs gives them up when there are too many.  Callers copy the
 * entries they keep (update(), gittree_entries()) before the next
 * trees_get(), so only a view into raw outlives it. */
static void
parsed_add(struct gittrees *t, const struct tslot *s)
{
	if (t->nparsed == PARSED_MAX) {
		struct tslot *old = trees_find(t, &t->parsed[t->next]);

		if (old && old != s) {
			free(old->ents);
			old->ents = NULL;
			old->nents = 0;
		}
	} else {
		t->nparsed++;
	}
	t->parsed[t->next] = s->id;
	t->next = (t->next + 1) % PARSED_MAX;
}

static enum err parse(const unsigned char *p, size_t n,
    struct gittree_ent **out, size_t *nout, size_t extra);
static enum err trees_get(
    struct gitrepo *r, const git_oid *id, struct tslot **out);

/*
 * The bytes of the tree in *sp when only its delta was kept: its base's
 * (from the cache, or read again), the delta applied.  *sp may move
 * (the base's arrival can grow the table).
 */
static enum err
slot_raw(struct gitrepo *r, struct tslot **sp)
{
	struct tslot *s = *sp, *b;
	git_oid id = s->id, from = s->from;
	unsigned char *raw;
	enum err e;

	if (s->raw)
		return ERR_OK;
	if (s->delta == NULL)
		return ERR_LIMIT;
	r->trees->busy++;
	e = trees_get(r, &from, &b);
	r->trees->busy--;
	if (e != ERR_OK)
		return e;
	if ((s = trees_find(r->trees, &id)) == NULL)
		return ERR_LIMIT;
	raw = xmalloc(s->n + 1);
	if (!pack_delta_apply(b->raw, b->n, s->delta, s->ndelta, raw, s->n)) {
		free(raw);
		log_err("gittree: %s: its delta does not apply",
		    git_oid_tostr_s(&id));
		return ERR_LIMIT;
	}
	s->raw = raw;
	*sp = s;
	return ERR_OK;
}

/* Give up the bytes (and entries) of tree s, which its delta rebuilds. */
static void
slot_thin(struct gittrees *t, struct tslot *s)
{
	if (s->delta == NULL || s->raw == NULL || t->busy > 1)
		return;
	free(s->raw);
	free(s->ents);
	s->raw = NULL;
	s->ents = NULL;
	s->nents = 0;
}

/* The slot of tree id, from the cache or the object database (read
 * there once, verified), its entries parsed. */
static enum err
trees_get(struct gitrepo *r, const git_oid *id, struct tslot **out)
{
	struct tslot *s;
	git_odb_object *o = NULL;
	unsigned char *raw;
	size_t n;
	enum err e;

	if (r->trees == NULL)
		r->trees = xcalloc(1, sizeof(*r->trees));
	if ((s = trees_find(r->trees, id)) == NULL) {
		if (git_odb_read(&o, r->odb, id) < 0)
			return gitpriv_fail(
			    git_oid_tostr_s(id), "cannot read tree");
		if (git_odb_object_type(o) != GIT_OBJECT_TREE) {
			git_odb_object_free(o);
			return ERR_LIMIT;
		}
		n = git_odb_object_size(o);
		raw = xmalloc(n + 1);
		memcpy(raw, git_odb_object_data(o), n);
		git_odb_object_free(o);
		s = trees_own(r->trees, id, raw, n, false);
	}
	if (s->raw == NULL && (e = slot_raw(r, &s)) != ERR_OK)
		return e;
	if (s->ents == NULL) {
		if ((e = parse(s->raw, s->n, &s->ents, &s->nents, 0)) != ERR_OK)
			return e;
		parsed_add(r->trees, s);
	}
	*out = s;
	return ERR_OK;
}

/* Parse raw into entries; ERR_LIMIT for what is not a well-formed tree.
 * Room for extra more entries. */
static enum err
parse(const unsigned char *p, size_t n, struct gittree_ent **out, size_t *nout,
    size_t extra)
{
	size_t cap = 0, k = 0, i = 0;
	struct gittree_ent *v = NULL;

	/* About 40 bytes an entry: one allocation mostly. */
	v = xgrow(v, &cap, n / 30 + extra + 1, sizeof(*v));
	while (i < n) {
		const unsigned char *sp = memchr(p + i, ' ', n - i), *nul;
		unsigned mode = 0;
		size_t j;

		if (sp == NULL)
			break;
		for (j = i; p + j < sp; j++) {
			if (p[j] < '0' || p[j] > '7')
				break;
			mode = mode * 8 + (unsigned)(p[j] - '0');
		}
		nul = memchr(sp + 1, '\0', n - (size_t)(sp + 1 - p));
		if (p + j != sp || nul == NULL || (size_t)(nul - p) + 21 > n)
			break;
		v = xgrow(v, &cap, k + 1 + extra, sizeof(*v));
		v[k].name = (const char *)sp + 1;
		v[k].len = (size_t)(nul - sp - 1);
		v[k].mode = mode;
		v[k].id = nul + 1;
		k++;
		i = (size_t)(nul - p) + 21;
	}
	if (i != n) {
		free(v);
		return ERR_LIMIT;
	}
	*out = v;
	*nout = k;
	return ERR_OK;
}

/* git's order: a folder's name compares as if it ended in '/'. */
int
gittree_name_cmp(
    const char *a, size_t na, bool ta, const char *b, size_t nb, bool tb)
{
	size_t n = na < nb ? na : nb;
	int c = memcmp(a, b, n);
	unsigned char ca, cb;

	if (c != 0)
		return c;
	ca = n < na ? (unsigned char)a[n] : ta ? '/' : '\0';
	cb = n < nb ? (unsigned char)b[n] : tb ? '/' : '\0';
	return (int)ca - (int)cb;
}

bool
gittree_is_tree(unsigned mode)
{
	return (mode & 0170000) == 0040000;
}

/* The index of name in v (as a file or a folder), or where it goes. */
static size_t
find(const struct gittree_ent *v, size_t n, const char *name, size_t len,
    bool folder, bool *found)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = gittree_name_cmp(v[mid].name, v[mid].len,
		    gittree_is_tree(v[mid].mode), name, len, folder);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* A mode in octal as git writes it: no leading zeros. */
static size_t
put_mode(unsigned char *p, unsigned mode)
{
	unsigned char tmp[12];
	size_t k = 0, i;

	do {
		tmp[k++] = (unsigned char)('0' + (mode & 7));
		mode >>= 3;
	} while (mode);
	for (i = 0; i < k; i++)
		p[i] = tmp[k - 1 - i];
	return k;
}

/*
 * A tree as a git delta (gitformat-pack: the sizes, then copies from the
 * base and bytes inserted) against the tree it was updated from: the
 * entries it kept are runs of the base's bytes, so a change to a
 * 1,700-entry folder is a delta of a few dozen bytes where the tree is
 * 70 KB, and the pack that persists a build writes that instead
 * (bot/git/gitpack.c).
 */
struct delta {
	struct buf b;
	size_t copy_off, copy_n; /* the pending copy */
	size_t ins_from, ins_n; /* the pending insert, in the new tree */
};

static void
delta_varint(struct buf *b, size_t v)
{
	unsigned char c[10];
	size_t k = 0;

	do {
		c[k] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			c[k] |= 0x80;
		k++;
	} while (v);
	buf_add(b, c, k);
}

static void
delta_flush_copy(struct delta *d)
{
	while (d->copy_n > 0) {
		size_t n = d->copy_n > 0x10000 ? 0x10000 : d->copy_n;
		size_t off = d->copy_off, sz = n == 0x10000 ? 0 : n;
		unsigned char op[8];
		size_t k = 1, i;

		op[0] = 0x80;
		for (i = 0; i < 4; i++)
			if ((off >> (8 * i)) & 0xff) {
				op[0] |= (unsigned char)(1u << i);
				op[k++] = (unsigned char)(off >> (8 * i));
			}
		for (i = 0; i < 3; i++)
			if ((sz >> (8 * i)) & 0xff) {
				op[0] |= (unsigned char)(0x10u << i);
				op[k++] = (unsigned char)(sz >> (8 * i));
			}
		buf_add(&d->b, op, k);
		d->copy_off += n;
		d->copy_n -= n;
	}
}

static void
delta_flush_insert(struct delta *d, const unsigned char *raw)
{
	while (d->ins_n > 0) {
		unsigned char n =
		    (unsigned char)(d->ins_n > 127 ? 127 : d->ins_n);

		buf_add(&d->b, &n, 1);
		buf_add(&d->b, raw + d->ins_from, n);
		d->ins_from += n;
		d->ins_n -= n;
	}
}

/* The new tree's bytes [at, at + n) are the base's [boff, boff + n),
 * or (boff SIZE_MAX) its own. */
static void
delta_add(
    struct delta *d, const unsigned char *raw, size_t at, size_t n, size_t boff)
{
	if (boff == SIZE_MAX) {
		delta_flush_copy(d);
		if (d->ins_n == 0)
			d->ins_from = at;
		d->ins_n += n;
		return;
	}
	delta_flush_insert(d, raw);
	if (d->copy_n > 0 && d->copy_off + d->copy_n == boff) {
		d->copy_n += n;
		return;
	}
	delta_flush_copy(d);
	d->copy_off = boff;
	d->copy_n = n;
}

/* Where the entry serialised at [at, at + n), whose name and id are
 * name (len bytes) and id, is in the base's bytes: its offset there,
 * or SIZE_MAX when those are not the base's (a changed entry). */
static size_t
in_base(const struct tslot *bs, const char *name, size_t len,
    const unsigned char *id, const unsigned char *at, size_t n)
{
	uintptr_t lo = (uintptr_t)bs->raw, hi = lo + bs->n;
	uintptr_t nm = (uintptr_t)name, head = n - len - 21;

	/* The name and id are the base's bytes already (views into them):
	 * only the mode before them may be written otherwise there. */
	if (nm < lo + head || nm + len + 21 > hi ||
	    (uintptr_t)id != nm + len + 1 ||
	    memcmp(bs->raw + (nm - lo - head), at, head) != 0)
		return SIZE_MAX;
	return (size_t)(nm - lo - head);
}

/* The serialised tree of v, hashed, stored in memory and in the cache;
 * with base, what it changed of base (chg, which store() takes). */
static enum err
store(struct gitrepo *r, const struct gittree_ent *v, size_t n, git_oid *out,
    const git_oid *base, const struct tslot *bs, struct gittree_chg *chg,
    size_t nchg)
{
	struct patchid_sha1_ctx c;
	struct gittree_ent *ne = xmalloc((n + 1) * sizeof(*ne));
	unsigned char *raw, *p;
	struct delta d;
	struct tslot *s;
	char hdr[32];
	size_t i, len = 0, blen = 0;
	unsigned bdepth = 0;
	int k;

	for (i = 0; i < n; i++)
		len += 12 + v[i].len + 1 + 20;
	p = raw = xmalloc(len + 1);
	memset(&d, 0, sizeof(d));
	buf_init(&d.b, 0);
	/* The entries of the new tree come with it: the next look at it
	 * needs no parse. */
	for (i = 0; i < n; i++) {
		unsigned char *at = p;
		size_t boff = SIZE_MAX;

		p += put_mode(p, v[i].mode);
		*p++ = ' ';
		memcpy(p, v[i].name, v[i].len);
		ne[i].name = (const char *)p;
		ne[i].len = v[i].len;
		ne[i].mode = v[i].mode;
		p += v[i].len;
		*p++ = '\0';
		memcpy(p, v[i].id, 20);
		ne[i].id = p;
		p += 20;
		/* An entry kept from the base: the same bytes are there. */
		if (bs)
			boff = in_base(bs, v[i].name, v[i].len, v[i].id, at,
			    (size_t)(p - at));
		if (bs)
			delta_add(&d, raw, (size_t)(at - raw), (size_t)(p - at),
			    boff);
	}
	len = (size_t)(p - raw);
	if (bs) {
		delta_flush_copy(&d);
		delta_flush_insert(&d, raw);
		/* (bs may move when the new tree goes in) */
		blen = bs->n;
		bdepth = bs->delta ? bs->depth : 0;
	}
	k = snprintf(hdr, sizeof(hdr), "tree %zu", len);
	if (k < 0 || (size_t)k >= sizeof(hdr)) {
		free(ne);
		free(raw);
		free(chg);
		return ERR_INVAL;
	}
	patchid_sha1_init(&c);
	patchid_sha1_update(&c, hdr, (size_t)k + 1);
	patchid_sha1_update(&c, raw, len);
	patchid_sha1_final(&c, out->id);
	/* Kept here only, not copied into the in-memory object store as
	 * well: a 300-patch build on a 1,700-file folder made 22 MB of
	 * trees, and every fresh page costs a fault. */
	if (r->trees == NULL)
		r->trees = xcalloc(1, sizeof(*r->trees));
	s = trees_own(r->trees, out, raw, len, true);
	if (s->raw == raw && s->ents == NULL) {
		s->ents = ne;
		s->nents = n;
		parsed_add(r->trees, s);
	} else {
		free(ne);
	}
	if (base && !s->has_from) {
		s->has_from = true;
		s->from = *base;
		s->chg = chg;
		s->nchg = nchg;
		/* Worth it when it is much smaller than the tree; whole
		 * again every DELTA_DEPTH versions. */
		if (bs && d.b.n < len / 4 && bdepth + 1 < DELTA_DEPTH) {
			struct buf h = BUF_INIT;

			delta_varint(&h, blen);
			delta_varint(&h, len);
			buf_add(&h, d.b.p, d.b.n);
			s->delta = (unsigned char *)buf_detach(&h, &s->ndelta);
			s->depth = bdepth + 1;
		}
	} else {
		free(chg);
	}
	buf_free(&d.b);
	return ERR_OK;
}

/* The length of path's first component. */
static size_t
head_len(const char *path)
{
	const char *s = strchr(path, '/');

	return s ? (size_t)(s - path) : strlen(path);
}

/*
 * Apply u[0..n) (paths below depth bytes of prefix, all in this folder)
 * to tree base (NULL: a new folder); *out is the new tree, *empty when
 * it has no entries left.
 */
static enum err
update(struct gitrepo *r, const git_oid *base, const git_tree_update *u,
    size_t n, size_t depth, git_oid *out, bool *empty)
{
	struct tslot *bs;
	size_t nv = 0, i, j, at, nchg = 0;
	struct gittree_ent *v = NULL;
	git_oid *sub = xcalloc(n, sizeof(*sub));
	struct gittree_chg *chg = xcalloc(n ? n : 1, sizeof(*chg)), *c;
	bool found;
	enum err e = ERR_OK;

	/* A copy of the entries with room for n more; they point into the
	 * base's bytes, which stay while the cache is busy. */
	if (base && (e = trees_get(r, base, &bs)) != ERR_OK)
		goto out;
	nv = base ? bs->nents : 0;
	v = xmalloc((nv + n + 1) * sizeof(*v));
	if (nv)
		memcpy(v, bs->ents, nv * sizeof(*v));
	for (i = 0; i < n && e == ERR_OK; i = j) {
		const char *name = u[i].path + depth;
		size_t hl = head_len(name);
		bool folder = name[hl] == '/';

		/* Updates of one subfolder are neighbours: the caller sorts. */
		for (j = i + 1; folder && j < n &&
		     strncmp(u[j].path + depth, name, hl + 1) == 0;
		     j++)
			;
		if (!folder)
			j = i + 1;
		if (hl == 0 || (!folder && name[hl] != '\0')) {
			e = ERR_LIMIT;
			break;
		}
		at = find(v, nv, name, hl, folder, &found);
		/* The same name as the other kind is libgit2's case. */
		{
			bool other;
			find(v, nv, name, hl, !folder, &other);
			if (other) {
				e = ERR_LIMIT;
				break;
			}
		}
		/* What this entry was, before it changes. */
		c = &chg[nchg];
		c->has_old = found;
		if (found)
			memcpy(c->old, v[at].id, 20);
		if (folder) {
			bool gone;
			e = update(r, found ? (const git_oid *)v[at].id : NULL,
			    u + i, j - i, depth + hl + 1, &sub[i], &gone);
			if (e != ERR_OK)
				break;
			if (gone && found) {
				memmove(&v[at], &v[at + 1],
				    (nv - at - 1) * sizeof(*v));
				nv--;
			} else if (!gone) {
				if (!found) {
					memmove(&v[at + 1], &v[at],
					    (nv - at) * sizeof(*v));
					nv++;
				}
				v[at].name = name;
				v[at].len = hl;
				v[at].mode = 0040000;
				v[at].id = sub[i].id;
				c->mode = 0040000;
				memcpy(c->id, sub[i].id, 20);
				nchg++;
			}
		} else if (u[i].action == GIT_TREE_UPDATE_REMOVE) {
			if (!found) {
				e = ERR_LIMIT;
				break;
			}
			memmove(&v[at], &v[at + 1], (nv - at - 1) * sizeof(*v));
			nv--;
		} else {
			if (!found) {
				memmove(
				    &v[at + 1], &v[at], (nv - at) * sizeof(*v));
				nv++;
			}
			v[at].name = name;
			v[at].len = hl;
			v[at].mode = (unsigned)u[i].filemode;
			v[at].id = u[i].id.id;
			c->mode = (unsigned)u[i].filemode;
			memcpy(c->id, u[i].id.id, 20);
			nchg++;
		}
	}
	*empty = nv == 0;
	if (e == ERR_OK && (nv > 0 || depth == 0)) {
		/* The updates of subfolders put trees in the cache, which may
		 * have moved the base's slot (its bytes stay): find it again.
		 */
		e = store(r, v, nv, out, base,
		    base ? trees_find(r->trees, base) : NULL, chg, nchg);
		chg = NULL;
		/* The base's bytes were copied: a made version that its delta
		 * rebuilds needs only that (22 MB for a cold build of 300
		 * patches on a 1,700-file folder, where each fresh page
		 * costs a fault). */
		if (e == ERR_OK && base && (bs = trees_find(r->trees, base)) &&
		    bs->made)
			slot_thin(r->trees, bs);
	}
out:
	free(chg);
	free(v);
	free(sub);
	return e;
}

static int
upd_cmp(const void *a, const void *b)
{
	const git_tree_update *x = a, *y = b;

	return strcmp(x->path, y->path);
}

enum err
gittree_update(struct gitrepo *r, const git_oid *base, const git_tree_update *u,
    size_t n, git_oid *out)
{
	git_tree_update *s;
	bool empty;
	size_t i;
	enum err e;

	if (r->trees == NULL)
		r->trees = xcalloc(1, sizeof(*r->trees));
	s = xcalloc(n ? n : 1, sizeof(*s));
	memcpy(s, u, n * sizeof(*s));
	qsort(s, n, sizeof(*s), upd_cmp);
	/* A path twice, or a mode that is not a file's: libgit2 decides. */
	for (i = 0; i < n; i++)
		if ((i > 0 && strcmp(s[i - 1].path, s[i].path) == 0) ||
		    (s[i].action == GIT_TREE_UPDATE_UPSERT &&
		        s[i].filemode != GIT_FILEMODE_BLOB &&
		        s[i].filemode != GIT_FILEMODE_BLOB_EXECUTABLE &&
		        s[i].filemode != GIT_FILEMODE_LINK))
			break;
	r->trees->busy++;
	e = i < n ? ERR_LIMIT : update(r, base, s, n, 0, out, &empty);
	r->trees->busy--;
	free(s);
	return e;
}

enum err
gittree_bypath(struct gitrepo *r, const git_oid *root, const char *path,
    git_oid *oid, unsigned *mode)
{
	git_oid cur = *root;
	struct tslot *ts;
	enum err e;

	for (;;) {
		size_t hl = head_len(path), at;
		bool folder = path[hl] == '/', found;

		if ((e = trees_get(r, &cur, &ts)) != ERR_OK)
			return e;
		at = find(ts->ents, ts->nents, path, hl, true, &found);
		if (!found && !folder)
			at = find(ts->ents, ts->nents, path, hl, false, &found);
		if (!found || hl == 0)
			return ERR_NOTFOUND;
		memcpy(cur.id, ts->ents[at].id, 20);
		*mode = ts->ents[at].mode;
		if (!folder || path[hl + 1] == '\0') {
			*oid = cur;
			return ERR_OK;
		}
		if (!gittree_is_tree(*mode))
			return ERR_NOTFOUND;
		path += hl + 1;
	}
}

enum err
gittree_entries(
    struct gitrepo *r, const git_oid *id, struct gittree_ent **out, size_t *n)
{
	struct gittree_ent *v;
	struct tslot *ts;
	unsigned char *copy;
	size_t i;
	enum err e;

	*out = NULL;
	*n = 0;
	if ((e = trees_get(r, id, &ts)) != ERR_OK)
		return e;
	/* A copy: the cache may start over while the caller holds these. */
	v = xmalloc((ts->nents + 1) * sizeof(*v) + ts->n + 1);
	copy = (unsigned char *)(v + ts->nents + 1);
	memcpy(copy, ts->raw, ts->n);
	for (i = 0; i < ts->nents; i++) {
		v[i] = ts->ents[i];
		v[i].name = (const char *)copy +
		    (ts->ents[i].name - (const char *)ts->raw);
		v[i].id = copy + (ts->ents[i].id - ts->raw);
	}
	*out = v;
	*n = ts->nents;
	return ERR_OK;
}

bool
gittree_changes(struct gitrepo *r, const git_oid *id, git_oid *from,
    struct gittree_chg **chg, size_t *n)
{
	struct tslot *s = r->trees ? trees_find(r->trees, id) : NULL;

	if (s == NULL || !s->has_from)
		return false;
	*from = s->from;
	*chg = xmalloc((s->nchg + 1) * sizeof(**chg));
	memcpy(*chg, s->chg, s->nchg * sizeof(**chg));
	*n = s->nchg;
	return true;
}

bool
gittree_delta(struct gitrepo *r, const git_oid *id, git_oid *base,
    const void **p, size_t *n)
{
	struct tslot *s = r->trees ? trees_find(r->trees, id) : NULL;

	if (s == NULL || s->delta == NULL)
		return false;
	*base = s->from;
	*p = s->delta;
	*n = s->ndelta;
	return true;
}

bool
gittree_cached(struct gitrepo *r, const git_oid *id, const void **p, size_t *n)
{
	struct tslot *s = r->trees ? trees_find(r->trees, id) : NULL;

	if (s == NULL || slot_raw(r, &s) != ERR_OK)
		return false;
	*p = s->raw;
	*n = s->n;
	return true;
}

/* ---- the trees made here, as an object database backend ---- */

static struct tslot *
made_find(struct gitrepo *r, const git_oid *id)
{
	struct tslot *s = r->trees ? trees_find(r->trees, id) : NULL;

	return s && s->made ? s : NULL;
}

bool
gittree_made(struct gitrepo *r, const git_oid *id)
{
	return made_find(r, id) != NULL;
}

void
gittrees_settle(struct gitrepo *r, const git_oid *ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct tslot *s = made_find(r, &ids[i]);

		if (s) {
			s->made = false;
			r->trees->bytes += s->n;
		}
	}
	gittrees_forget_made(r);
}

void
gittrees_forget_made(struct gitrepo *r)
{
	struct gittrees *t = r->trees;
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->cap; i++)
		if (t->v[i].made)
			break;
	if (i == t->cap)
		return;
	/* The ring may name a slot that goes: it starts again. */
	for (i = 0; i < t->cap; i++) {
		free(t->v[i].ents);
		t->v[i].ents = NULL;
		t->v[i].nents = 0;
	}
	t->nparsed = t->next = 0;
	trees_rehash(t, t->cap, keep_read);
}

struct madeback {
	git_odb_backend parent;
	struct gitrepo *r;
};

static int
made_read(void **data, size_t *len, git_object_t *type, git_odb_backend *b,
    const git_oid *id)
{
	struct gitrepo *r = ((struct madeback *)b)->r;
	struct tslot *s = made_find(r, id);

	if (s == NULL)
		return GIT_ENOTFOUND;
	if (slot_raw(r, &s) != ERR_OK)
		return -1;
	if ((*data = git_odb_backend_data_alloc(b, s->n ? s->n : 1)) == NULL)
		return -1;
	memcpy(*data, s->raw, s->n);
	*len = s->n;
	*type = GIT_OBJECT_TREE;
	return 0;
}

static int
made_read_header(
    size_t *len, git_object_t *type, git_odb_backend *b, const git_oid *id)
{
	struct tslot *s = made_find(((struct madeback *)b)->r, id);

	if (s == NULL)
		return GIT_ENOTFOUND;
	*len = s->n;
	*type = GIT_OBJECT_TREE;
	return 0;
}

static int
made_exists(git_odb_backend *b, const git_oid *id)
{
	return made_find(((struct madeback *)b)->r, id) != NULL;
}

static void
made_free(git_odb_backend *b)
{
	free(b);
}

git_odb_backend *
gittrees_backend(struct gitrepo *r)
{
	struct madeback *b = xcalloc(1, sizeof(*b));

	if (git_odb_init_backend(&b->parent, GIT_ODB_BACKEND_VERSION) < 0) {
		free(b);
		return NULL;
	}
	b->r = r;
	b->parent.read = made_read;
	b->parent.read_header = made_read_header;
	b->parent.exists = made_exists;
	b->parent.free = made_free;
	return &b->parent;
}
