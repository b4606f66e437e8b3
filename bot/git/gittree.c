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
#include "parsers/patchid.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/xalloc.h"

/* Bytes of trees kept; past it the cache starts over. */
#define TREES_MAX ((size_t)64 << 20)

struct tslot {
	git_oid id;
	unsigned char *raw;
	size_t n;
};

struct gittrees {
	struct tslot *v;
	size_t cap, n, bytes;
};

void
gittrees_free(struct gittrees *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->cap; i++)
		free(t->v[i].raw);
	free(t->v);
	free(t);
}

static struct tslot *
slot_of(struct gittrees *t, const git_oid *id)
{
	size_t h, i;

	memcpy(&h, id->id, sizeof(h));
	for (i = h & (t->cap - 1); t->v[i].raw; i = (i + 1) & (t->cap - 1))
		if (git_oid_equal(&t->v[i].id, id))
			break;
	return &t->v[i];
}

static void
trees_put(struct gittrees *t, const git_oid *id, const void *p, size_t n)
{
	struct tslot *s;
	size_t i;

	if (t->bytes + n > TREES_MAX || 2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? t->cap : 1024;
		if (t->bytes + n <= TREES_MAX)
			cap *= 2;
		for (i = 0; i < t->cap; i++)
			free(t->v[i].raw);
		free(t->v);
		t->v = xcalloc(cap, sizeof(*t->v));
		t->cap = cap;
		t->n = t->bytes = 0;
	}
	s = slot_of(t, id);
	if (s->raw)
		return;
	s->id = *id;
	s->raw = xmalloc(n ? n : 1);
	if (n)
		memcpy(s->raw, p, n);
	s->n = n;
	t->n++;
	t->bytes += n;
}

/* The raw bytes of tree id, from the cache or the object database. */
static enum err
trees_get(
    struct gitrepo *r, const git_oid *id, const unsigned char **p, size_t *n)
{
	struct tslot *s;
	git_odb_object *o = NULL;

	if (r->trees == NULL)
		r->trees = xcalloc(1, sizeof(*r->trees));
	if (r->trees->cap && (s = slot_of(r->trees, id))->raw) {
		*p = s->raw;
		*n = s->n;
		return ERR_OK;
	}
	if (git_odb_read(&o, r->odb, id) < 0)
		return gitpriv_fail(git_oid_tostr_s(id), "cannot read tree");
	if (git_odb_object_type(o) != GIT_OBJECT_TREE) {
		git_odb_object_free(o);
		return ERR_LIMIT;
	}
	trees_put(r->trees, id, git_odb_object_data(o), git_odb_object_size(o));
	git_odb_object_free(o);
	s = slot_of(r->trees, id);
	*p = s->raw;
	*n = s->n;
	return ERR_OK;
}

/* Parse raw into entries; ERR_LIMIT for what is not a well-formed tree. */
static enum err
parse(const unsigned char *p, size_t n, struct gittree_ent **out, size_t *nout,
    size_t extra)
{
	size_t cap = 0, k = 0, i = 0;
	struct gittree_ent *v = NULL;

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
	if (v == NULL)
		v = xcalloc(extra + 1, sizeof(*v));
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

/* Into cache t, owning raw (freed when the cache is full). */
static void
trees_own(struct gittrees *t, const git_oid *id, unsigned char *raw, size_t n)
{
	struct tslot *s;

	trees_put(t, id, "", 0); /* make room, find the slot */
	s = slot_of(t, id);
	if (s->raw && s->n == 0) {
		free(s->raw);
		s->raw = raw;
		s->n = n;
		t->bytes += n;
	} else {
		free(raw);
	}
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

/* The serialised tree of v, hashed, stored in memory and in the cache. */
static enum err
store(struct gitrepo *r, const struct gittree_ent *v, size_t n, git_oid *out)
{
	struct patchid_sha1_ctx c;
	unsigned char *raw, *p;
	char hdr[32];
	size_t i, len = 0;
	int k;

	for (i = 0; i < n; i++)
		len += 12 + v[i].len + 1 + 20;
	p = raw = xmalloc(len + 1);
	for (i = 0; i < n; i++) {
		p += put_mode(p, v[i].mode);
		*p++ = ' ';
		memcpy(p, v[i].name, v[i].len);
		p += v[i].len;
		*p++ = '\0';
		memcpy(p, v[i].id, 20);
		p += 20;
	}
	len = (size_t)(p - raw);
	k = snprintf(hdr, sizeof(hdr), "tree %zu", len);
	if (k < 0 || (size_t)k >= sizeof(hdr)) {
		free(raw);
		return ERR_INVAL;
	}
	patchid_sha1_init(&c);
	patchid_sha1_update(&c, hdr, (size_t)k + 1);
	patchid_sha1_update(&c, raw, len);
	patchid_sha1_final(&c, out->id);
	if (r->mempack->write(r->mempack, out, raw, len, GIT_OBJECT_TREE) < 0) {
		free(raw);
		return gitpriv_fail(r->path, "cannot store tree");
	}
	trees_own(r->trees, out, raw, len);
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
	const unsigned char *raw = (const unsigned char *)"";
	size_t len = 0, nv = 0, i, j, at;
	struct gittree_ent *v = NULL;
	git_oid *sub = xcalloc(n, sizeof(*sub));
	bool found;
	enum err e = ERR_OK;

	if (base && (e = trees_get(r, base, &raw, &len)) != ERR_OK)
		goto out;
	if ((e = parse(raw, len, &v, &nv, n)) != ERR_OK)
		goto out;
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
		}
	}
	*empty = nv == 0;
	if (e == ERR_OK && (nv > 0 || depth == 0))
		e = store(r, v, nv, out);
out:
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
	e = i < n ? ERR_LIMIT : update(r, base, s, n, 0, out, &empty);
	free(s);
	return e;
}

enum err
gittree_bypath(struct gitrepo *r, const git_oid *root, const char *path,
    git_oid *oid, unsigned *mode)
{
	const unsigned char *raw;
	git_oid cur = *root;
	struct gittree_ent *v = NULL;
	size_t len, nv;
	enum err e;

	for (;;) {
		size_t hl = head_len(path), at;
		bool folder = path[hl] == '/', found;

		if ((e = trees_get(r, &cur, &raw, &len)) != ERR_OK ||
		    (e = parse(raw, len, &v, &nv, 0)) != ERR_OK)
			return e;
		at = find(v, nv, path, hl, true, &found);
		if (!found && !folder)
			at = find(v, nv, path, hl, false, &found);
		if (!found || hl == 0) {
			free(v);
			return ERR_NOTFOUND;
		}
		memcpy(cur.id, v[at].id, 20);
		*mode = v[at].mode;
		free(v);
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
	const unsigned char *raw;
	unsigned char *copy;
	struct gittree_ent *v = NULL;
	size_t len, i;
	enum err e;

	*out = NULL;
	*n = 0;
	if (r->trees == NULL)
		r->trees = xcalloc(1, sizeof(*r->trees));
	if ((e = trees_get(r, id, &raw, &len)) != ERR_OK)
		return e;
	/* A copy: the cache may start over while the caller holds these. */
	if ((e = parse(raw, len, &v, n, 0)) != ERR_OK)
		return e;
	v = xrealloc(v, (*n + 1) * sizeof(*v) + len + 1);
	copy = (unsigned char *)(v + *n + 1);
	memcpy(copy, raw, len);
	for (i = 0; i < *n; i++) {
		v[i].name =
		    (const char *)copy + (v[i].name - (const char *)raw);
		v[i].id = copy + (v[i].id - raw);
	}
	*out = v;
	return ERR_OK;
}
