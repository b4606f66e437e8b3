/*
 * Writing a build's new objects to disk as one packfile with its index,
 * in git's formats (Documentation/gitformat-pack.txt: pack version 2,
 * index version 2), for gitpriv_persist().
 *
 * Why: a cold build makes over a thousand objects, and creating a file
 * per loose object (plus its fan-out folder) is what the build would
 * then spend most of its time on.  libgit2's packbuilder writes one file
 * but searches for deltas and deflates at zlib's default level, which
 * costs more than the build; its indexer hashes every object again with
 * the collision-detecting SHA-1.  Here every object goes in whole, as a
 * zlib stream of stored blocks (RFC 1950/1951, BTYPE 00: no compression
 * work; `patchyard gc` makes a small pack of it later), but for the trees
 * a build made by updating an earlier one in the same pack: those go in
 * as the delta the tree cache made (OFS_DELTA), and the index is
 * written from what we know already: each object's id, offset and the
 * CRC-32 of its packed bytes.  The pack appears under its final name
 * first, the index after it, as git does: readers look for indexes.
 *
 * The CRC-32 the index wants and the Adler-32 that ends each zlib
 * stream are libdeflate's (vectorised: zlib 1.2.13's took 3% of a cold
 * rebuild, for 20 MB of trees and blobs).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2/sys/odb_backend.h>

#include "bot/git/gitpriv.h"
#include "parsers/pack.h"
#include "parsers/patchid.h"
#include "util/fdio.h"
#include "util/fmap.h"
#include "util/log.h"
#include "util/oid.h"
#include "util/xalloc.h"

#define STORED_MAX 65535u

/* ---- output ---- */

struct out {
	int fd;
	struct patchid_sha1_ctx sha;
	uint32_t crc; /* of the current object's bytes */
	uint64_t off;
	unsigned char buf[1 << 16];
	size_t n;
	int err; /* errno of the first failed write */
};

static void
out_flush(struct out *o)
{
	if (o->err == 0 && fd_write_all(o->fd, o->buf, o->n) != 0)
		o->err = errno;
	o->n = 0;
}

static void
out_put(struct out *o, const void *p, size_t n)
{
	const unsigned char *s = p;

	patchid_sha1_update(&o->sha, p, n);
	o->crc = libdeflate_crc32(o->crc, s, n);
	o->off += n;
	while (n > 0) {
		size_t k = sizeof(o->buf) - o->n;
		if (k > n)
			k = n;
		memcpy(o->buf + o->n, s, k);
		o->n += k;
		s += k;
		n -= k;
		if (o->n == sizeof(o->buf))
			out_flush(o);
	}
}

static void
out_be32(struct out *o, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)(v >> 24),
		(unsigned char)(v >> 16), (unsigned char)(v >> 8),
		(unsigned char)v };

	out_put(o, b, 4);
}

/* An object's header: its type (or 6, OFS_DELTA) and size. */
static void
out_header(struct out *o, unsigned type, size_t sz)
{
	unsigned char h[16];
	size_t k = 0;

	h[k] = (unsigned char)((type << 4) | (sz & 15));
	sz >>= 4;
	while (sz) {
		h[k++] |= 0x80;
		h[k] = (unsigned char)(sz & 0x7f);
		sz >>= 7;
	}
	out_put(o, h, k + 1);
}

/* Bytes as a zlib stream of stored blocks. */
static void
out_stored(struct out *o, const unsigned char *p, size_t n)
{
	unsigned char blk[5];
	size_t left = n;

	out_put(o, "\x78\x01", 2);
	do {
		size_t len = left < STORED_MAX ? left : STORED_MAX;
		blk[0] = len == left ? 1 : 0; /* BFINAL on the last block */
		blk[1] = (unsigned char)len;
		blk[2] = (unsigned char)(len >> 8);
		blk[3] = (unsigned char)~len;
		blk[4] = (unsigned char)(~len >> 8);
		out_put(o, blk, 5);
		out_put(o, p + (n - left), len);
		left -= len;
	} while (left > 0);
	out_be32(o, libdeflate_adler32(1, p, n));
}

/* One object: type and size, then its bytes as stored blocks. */
static void
out_object(struct out *o, git_object_t type, const unsigned char *p, size_t n)
{
	out_header(o, (unsigned)type, n);
	out_stored(o, p, n);
}

/* A delta against the object dist bytes before this one (OFS_DELTA). */
static void
out_ofs_delta(struct out *o, uint64_t dist, const unsigned char *p, size_t n)
{
	unsigned char b[16];
	size_t k = sizeof(b) - 1;

	out_header(o, 6, n);
	b[k] = (unsigned char)(dist & 127);
	while (dist >>= 7)
		b[--k] = (unsigned char)(128 | (--dist & 127));
	out_put(o, b + k, sizeof(b) - k);
	out_stored(o, p, n);
}

/* ---- the index ---- */

struct ent {
	git_oid id;
	uint32_t crc;
	uint64_t off;
};

static int
ent_cmp(const void *a, const void *b)
{
	return git_oid_cmp(
	    &((const struct ent *)a)->id, &((const struct ent *)b)->id);
}

static void
write_index(struct out *o, struct ent *v, size_t n, const unsigned char *psha)
{
	unsigned char sum[20];
	size_t i, k, nlarge = 0;

	qsort(v, n, sizeof(*v), ent_cmp);
	out_put(o, "\377tOc", 4);
	out_be32(o, 2);
	for (i = 0, k = 0; i < 256; i++) {
		while (k < n && v[k].id.id[0] <= i)
			k++;
		out_be32(o, (uint32_t)k);
	}
	for (i = 0; i < n; i++)
		out_put(o, v[i].id.id, 20);
	for (i = 0; i < n; i++)
		out_be32(o, v[i].crc);
	for (i = 0; i < n; i++)
		out_be32(o,
		    v[i].off < 0x80000000u ? (uint32_t)v[i].off
		                           : 0x80000000u | (uint32_t)nlarge++);
	for (i = 0; i < n; i++) {
		if (v[i].off < 0x80000000u)
			continue;
		out_be32(o, (uint32_t)(v[i].off >> 32));
		out_be32(o, (uint32_t)v[i].off);
	}
	out_put(o, psha, 20);
	patchid_sha1_final(&o->sha, sum);
	out_put(o, sum, 20);
}

static int
open_tmp(struct gitrepo *r, char *path, size_t n, const char *what)
{
	int k = snprintf(path, n, "%s/objects/pack/tmp_%s_XXXXXX",
	    git_repository_path(r->repo), what);
	int fd;

	if (k < 0 || (size_t)k >= n)
		return -1;
	fd = mkstemp(path);
	/* Packs are read-only, as git makes them. */
	if (fd >= 0 && fchmod(fd, 0444) != 0) {
		close(fd);
		unlink(path);
		fd = -1;
	}
	return fd;
}

/*
 * The objects written so far, by id: a tree the build made as a small
 * delta against one of them goes in as that delta (OFS_DELTA), at most
 * DELTA_DEPTH deep (git's pack.depth).
 */
#define DELTA_DEPTH 50

struct written {
	size_t *slot; /* index + 1 into v, 0 when empty */
	unsigned char *depth; /* per index of v */
	size_t cap;
};

static size_t *
written_slot(struct written *w, const struct ent *v, const git_oid *id)
{
	size_t h;

	memcpy(&h, id->id, sizeof(h));
	for (h &= w->cap - 1; w->slot[h]; h = (h + 1) & (w->cap - 1))
		if (git_oid_equal(&v[w->slot[h] - 1].id, id))
			break;
	return &w->slot[h];
}

/* Write object i (oids[i]) of the pack. */
static enum err
write_one(struct gitrepo *r, struct out *o, struct ent *v, size_t i,
    struct written *w)
{
	const git_oid *id = &v[i].id;
	git_odb_object *obj;
	const void *p;
	void *data = NULL;
	git_object_t type;
	git_oid base;
	size_t len, *bs;

	w->depth[i] = 0;
	if (gittree_delta(r, id, &base, &p, &len) &&
	    *(bs = written_slot(w, v, &base)) != 0 &&
	    w->depth[*bs - 1] < DELTA_DEPTH) {
		w->depth[i] = (unsigned char)(w->depth[*bs - 1] + 1);
		out_ofs_delta(o, v[i].off - v[*bs - 1].off, p, len);
		return ERR_OK;
	}
	/* What a build made is in memory, hashed when it was made, and its
	 * trees in the tree cache (made here or read there verified): read
	 * them there, not through the object database, which would hash
	 * them again. */
	if (gittree_cached(r, id, &p, &len)) {
		out_object(o, GIT_OBJECT_TREE, p, len);
	} else if (r->mempack &&
	    r->mempack->read(&data, &len, &type, r->mempack, id) == 0) {
		out_object(o, type, data, len);
		git_odb_backend_data_free(r->mempack, data);
	} else {
		if (git_odb_read(&obj, r->odb, id) < 0)
			return gitpriv_fail(git_oid_tostr_s(id), "object lost");
		out_object(o, git_odb_object_type(obj),
		    git_odb_object_data(obj), git_odb_object_size(obj));
		git_odb_object_free(obj);
	}
	return ERR_OK;
}

/* Write the pack to fd; entries get offsets and CRCs. */
static enum err
write_pack(struct gitrepo *r, struct out *o, const git_oid *oids, size_t n,
    struct ent *v, unsigned char sha[20])
{
	struct written w;
	size_t i;
	enum err e = ERR_OK;

	for (w.cap = 16; w.cap < 2 * n; w.cap *= 2)
		;
	w.slot = xcalloc(w.cap, sizeof(*w.slot));
	w.depth = xcalloc(n ? n : 1, 1);
	out_put(o, "PACK", 4);
	out_be32(o, 2);
	out_be32(o, (uint32_t)n);
	for (i = 0; i < n && e == ERR_OK; i++) {
		v[i].id = oids[i];
		v[i].off = o->off;
		o->crc = 0;
		e = write_one(r, o, v, i, &w);
		v[i].crc = o->crc;
		*written_slot(&w, v, &oids[i]) = i + 1;
	}
	free(w.slot);
	free(w.depth);
	if (e != ERR_OK)
		return e;
	patchid_sha1_final(&o->sha, sha);
	out_put(o, sha, 20);
	out_flush(o);
	return ERR_OK;
}

enum err
gitpack_sync_dir(const char *file)
{
	char dir[4096];
	const char *slash = strrchr(file, '/');
	int fd, k;

	k = snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file) : 1,
	    slash ? file : ".");
	if (k < 0 || (size_t)k >= sizeof(dir))
		return ERR_INVAL;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) != 0) {
		log_err("gitpack: %s: cannot sync: %s", dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ERR_IO;
	}
	close(fd);
	return ERR_OK;
}

/*
 * Close both files and give them their names, pack first.  On failure
 * the temporary files are removed.  The fds are closed either way.
 */
static enum err
install(struct gitrepo *r, int pfd, const char *tp, int ifd, const char *ti,
    const unsigned char sha[20])
{
	const char *dir = git_repository_path(r->repo);
	char fp[4096], fi[4096], hex[OID_HEX_SIZE];
	bool ok;
	int k1, k2;

	patchid_hex(sha, hex);
	k1 = snprintf(fp, sizeof(fp), "%s/objects/pack/pack-%s.pack", dir, hex);
	k2 = snprintf(fi, sizeof(fi), "%s/objects/pack/pack-%s.idx", dir, hex);
	/* On disk before they have their names, and the names on disk
	 * before any ref names what they hold (docs/DECISIONS.md). */
	ok = fsync(pfd) == 0 && fsync(ifd) == 0;
	ok = close(pfd) == 0 && ok;
	ok = close(ifd) == 0 && ok;
	ok = ok && k1 > 0 && (size_t)k1 < sizeof(fp) && k2 > 0 &&
	    (size_t)k2 < sizeof(fi);
	if (ok && rename(tp, fp) == 0) {
		if (rename(ti, fi) == 0 && gitpack_sync_dir(fi) == ERR_OK)
			return ERR_OK;
		unlink(fp);
	}
	log_err("gitpack: %s: cannot install pack-%s: %s", r->path, hex,
	    strerror(errno));
	unlink(tp);
	unlink(ti);
	return ERR_IO;
}

/* Write oids[0..n), read from src, into r as a new pack. */
static enum err
write_new(struct gitrepo *src, struct gitrepo *r, const git_oid *oids, size_t n)
{
	struct out *o = xcalloc(1, sizeof(*o));
	struct ent *v = xcalloc(n + 1, sizeof(*v));
	char tp[4096], ti[4096];
	unsigned char sha[20];
	int pfd, ifd = -1;
	enum err e = ERR_OK;

	if ((pfd = open_tmp(r, tp, sizeof(tp), "pack")) < 0) {
		log_err("gitpack: %s: cannot create a pack: %s", r->path,
		    strerror(errno));
		e = ERR_IO;
		goto out;
	}
	o->fd = pfd;
	patchid_sha1_init(&o->sha);
	e = write_pack(src, o, oids, n, v, sha);
	if (e == ERR_OK && o->err == 0 &&
	    (ifd = open_tmp(r, ti, sizeof(ti), "idx")) >= 0) {
		memset(o, 0, sizeof(*o));
		o->fd = ifd;
		patchid_sha1_init(&o->sha);
		write_index(o, v, n, sha);
		out_flush(o);
	}
	if (e == ERR_OK && (o->err || ifd < 0)) {
		log_err("gitpack: %s: cannot write a pack: %s", r->path,
		    strerror(o->err ? o->err : errno));
		e = ERR_IO;
	}
	if (e == ERR_OK) {
		e = install(r, pfd, tp, ifd, ti, sha);
		pfd = ifd = -1;
	}
	/* The pack backend learns of new packs only when refreshed. */
	if (e == ERR_OK && git_odb_refresh(r->odb) < 0)
		e = gitpriv_fail(r->path, "cannot see the new pack");
out:
	if (pfd >= 0) {
		close(pfd);
		unlink(tp);
	}
	if (ifd >= 0) {
		close(ifd);
		unlink(ti);
	}
	free(o);
	free(v);
	return e;
}

enum err
gitpack_write(struct gitrepo *r, const git_oid *oids, size_t n)
{
	return gitpack_copy(r, r, oids, n);
}

/* ---- linking whole packs ---- */

/*
 * A pack index of src, mapped; parsers/pack.c checks what finding an id
 * needs.  The pack itself is libgit2's to read and verify.
 */
struct idx {
	unsigned char *map;
	size_t len;
	struct packidx x;
};

static bool
idx_open(const char *path, struct idx *x)
{
	x->map = fmap_open(path, &x->len);
	if (x->map == NULL)
		return false;
	if (!packidx_init(&x->x, x->map, x->len)) {
		fmap_close(x->map, x->len);
		return false;
	}
	return true;
}

static bool
idx_has(const struct idx *x, const git_oid *id)
{
	uint64_t off;

	return packidx_find(&x->x, id->id, &off);
}

/* Link pack NAME (its .pack, then its .idx) from src's pack folder into
 * r's.  false when it cannot (another file system, the pack gone). */
static bool
link_pack(struct gitrepo *src, struct gitrepo *r, const char *name)
{
	static const char *const ext[] = { ".pack", ".idx" };
	char from[4096], to[4096];
	bool made = false;
	size_t i;

	for (i = 0; i < 2; i++) {
		int k1 = snprintf(from, sizeof(from), "%s/objects/pack/%s%s",
		    git_repository_path(src->repo), name, ext[i]);
		int k2 = snprintf(to, sizeof(to), "%s/objects/pack/%s%s",
		    git_repository_path(r->repo), name, ext[i]);

		if (k1 < 0 || (size_t)k1 >= sizeof(from) || k2 < 0 ||
		    (size_t)k2 >= sizeof(to))
			break;
		if (link(from, to) == 0)
			made = made || i == 0;
		else if (errno != EEXIST) /* the same name: the same pack */
			break;
	}
	if (i == 2)
		return true;
	if (made &&
	    snprintf(to, sizeof(to), "%s/objects/pack/%s.pack",
	        git_repository_path(r->repo), name) > 0)
		unlink(to);
	return false;
}

/*
 * Link into r every pack of src that holds some of oids[0..n) (on the
 * same file system a link costs nothing, where copying meant inflating,
 * hashing and writing every object again); the ids no linked pack holds
 * into *rest (the caller frees).
 */
static enum err
link_packs(struct gitrepo *src, struct gitrepo *r, const git_oid *oids,
    size_t n, git_oid **rest, size_t *nrest)
{
	char dir[4096];
	bool *done = xcalloc(n ? n : 1, sizeof(*done));
	bool linked = false;
	struct dirent *de;
	size_t i;
	DIR *d;
	int k;
	enum err e = ERR_OK;

	k = snprintf(dir, sizeof(dir), "%s/objects/pack",
	    git_repository_path(src->repo));
	if (k > 0 && (size_t)k < sizeof(dir) && (d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			size_t len = strlen(de->d_name);
			char path[4096], name[256];
			bool want = false;
			struct idx x;

			if (strncmp(de->d_name, "pack-", 5) != 0 || len < 9 ||
			    len >= sizeof(name) ||
			    strcmp(de->d_name + len - 4, ".idx") != 0)
				continue;
			snprintf(name, sizeof(name), "%.*s", (int)(len - 4),
			    de->d_name);
			k = snprintf(
			    path, sizeof(path), "%s/%s", dir, de->d_name);
			if (k < 0 || (size_t)k >= sizeof(path) ||
			    !idx_open(path, &x))
				continue;
			for (i = 0; i < n && !want; i++)
				want = !done[i] && idx_has(&x, &oids[i]);
			if (want && link_pack(src, r, name)) {
				linked = true;
				for (i = 0; i < n; i++)
					done[i] =
					    done[i] || idx_has(&x, &oids[i]);
			}
			fmap_close(x.map, x.len);
		}
		closedir(d);
	}
	*rest = xcalloc(n ? n : 1, sizeof(**rest));
	*nrest = 0;
	for (i = 0; i < n; i++)
		if (!done[i])
			(*rest)[(*nrest)++] = oids[i];
	free(done);
	/* The names on disk before a ref names what they hold; the bytes
	 * were when the packs were written. */
	if (linked) {
		char any[4096];

		k = snprintf(any, sizeof(any), "%s/objects/pack/x",
		    git_repository_path(r->repo));
		e = k > 0 && (size_t)k < sizeof(any) ? gitpack_sync_dir(any)
		                                     : ERR_INVAL;
	}
	return e;
}

enum err
gitpack_copy(
    struct gitrepo *src, struct gitrepo *r, const git_oid *oids, size_t n)
{
	git_oid *rest = NULL;
	size_t nrest = n;
	enum err e = ERR_OK;

	if (src != r &&
	    (e = link_packs(src, r, oids, n, &rest, &nrest)) == ERR_OK)
		oids = rest;
	if (e == ERR_OK && nrest > 0)
		e = write_new(src, r, oids, nrest);
	else if (e == ERR_OK && git_odb_refresh(r->odb) < 0)
		e = gitpriv_fail(r->path, "cannot see the new pack");
	free(rest);
	return e;
}
