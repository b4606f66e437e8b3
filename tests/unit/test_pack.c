/*
 * Unit tests of git's pack formats (parsers/pack.c) on bytes made by
 * hand, and of the pack reader (bot/source/packread.c) against git
 * itself: every object of packs git wrote (deltas by offset and by id,
 * chains 50 deep, more bytes than the cache holds) reads as `git cat-file
 * --batch` prints it, and no corrupted byte ever reads as another object.
 * The reader checks what it reads by the index's CRC-32s, which a pack git
 * wrote always passes; an index it cannot trust makes it hash instead.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bot/source/packread.h"
#include "parsers/pack.h"
#include "parsers/patchid.h"
#include "tests/unit/sourcetest.h"
#include "tests/unit/testutil.h"
#include "util/log.h"

/* ---- deltas ---- */

/* A delta's size header: little-endian base-128. */
static size_t
put_size(unsigned char *d, uint64_t v)
{
	size_t n = 0;

	do {
		d[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			d[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

static void
test_delta_apply(void **state)
{
	static const char base[] = "hello world, the base";
	unsigned char d[64], out[64];
	size_t n;

	(void)state;
	n = put_size(d, sizeof(base) - 1);
	n += put_size(d + n, 8);
	d[n++] = 0x91; /* copy: one offset byte, one size byte */
	d[n++] = 0;
	d[n++] = 5;
	d[n++] = 3; /* insert 3 */
	memcpy(d + n, "abc", 3);
	n += 3;
	assert_true(pack_delta_apply(
	    (const unsigned char *)base, sizeof(base) - 1, d, n, out, 8));
	assert_memory_equal(out, "helloabc", 8);
	/* The sizes must be the base's and the result's. */
	assert_false(pack_delta_apply(
	    (const unsigned char *)base, sizeof(base) - 2, d, n, out, 8));
	assert_false(pack_delta_apply(
	    (const unsigned char *)base, sizeof(base) - 1, d, n, out, 9));
	/* Cut anywhere, it is refused (never read past its end). */
	for (size_t k = 0; k < n; k++)
		assert_false(pack_delta_apply((const unsigned char *)base,
		    sizeof(base) - 1, d, k, out, 8));
	/* A copy reaching past the base. */
	d[3] = 20;
	assert_false(pack_delta_apply(
	    (const unsigned char *)base, sizeof(base) - 1, d, n, out, 8));
	d[3] = 0;
	/* The reserved instruction 0. */
	d[5] = 0;
	assert_false(pack_delta_apply(
	    (const unsigned char *)base, sizeof(base) - 1, d, n, out, 8));
}

/* A copy without size bytes copies 64 KB; an insert cannot overflow. */
static void
test_delta_big_copy(void **state)
{
	unsigned char *base = malloc(0x10000), *out = malloc(0x10000 + 2);
	unsigned char d[32];
	size_t n;

	(void)state;
	assert_non_null(base);
	assert_non_null(out);
	for (size_t i = 0; i < 0x10000; i++)
		base[i] = (unsigned char)(i * 7);
	n = put_size(d, 0x10000);
	n += put_size(d + n, 0x10000);
	d[n++] = 0x80; /* copy offset 0, size 0 = 64 KB */
	assert_true(pack_delta_apply(base, 0x10000, d, n, out, 0x10000));
	assert_memory_equal(out, base, 0x10000);
	/* One more byte promised than the instructions give. */
	n = put_size(d, 0x10000);
	n += put_size(d + n, 0x10001);
	d[n++] = 0x80;
	assert_false(pack_delta_apply(base, 0x10000, d, n, out, 0x10001));
	/* An insert longer than the result. */
	n = put_size(d, 0x10000);
	n += put_size(d + n, 2);
	d[n++] = 3;
	memcpy(d + n, "xyz", 3);
	n += 3;
	assert_false(pack_delta_apply(base, 0x10000, d, n, out, 2));
	free(base);
	free(out);
}

/* ---- object headers ---- */

static size_t
put_hdr(unsigned char *p, int type, uint64_t size)
{
	size_t n = 0;

	p[n] = (unsigned char)(type << 4 | (size & 15));
	size >>= 4;
	while (size) {
		p[n++] |= 0x80;
		p[n] = size & 0x7f;
		size >>= 7;
	}
	return n + 1;
}

static size_t
put_ofs(unsigned char *p, uint64_t d)
{
	unsigned char tmp[16];
	size_t k = sizeof(tmp) - 1, n;

	tmp[k] = d & 0x7f;
	while (d >>= 7) {
		d--;
		tmp[--k] = 0x80 | (d & 0x7f);
	}
	n = sizeof(tmp) - k;
	memcpy(p, tmp + k, n);
	return n;
}

static void
test_obj_parse(void **state)
{
	unsigned char pack[2048];
	struct pack_obj o;
	uint32_t count;
	size_t at = 12, blob, ofs, ref;

	(void)state;
	memset(pack, 0, sizeof(pack));
	memcpy(pack, "PACK\0\0\0\2\0\0\0\3", 12);
	assert_true(pack_check(pack, sizeof(pack), &count));
	assert_int_equal(count, 3);
	blob = at;
	at += put_hdr(pack + at, PACK_BLOB, 300);
	at += 40; /* its stream, not looked at here */
	ofs = at;
	at += put_hdr(pack + at, PACK_OFS_DELTA, 20);
	at += put_ofs(pack + at, ofs - blob);
	at += 10;
	ref = at;
	at += put_hdr(pack + at, PACK_REF_DELTA, 5);
	memset(pack + at, 0xab, PACK_ID_LEN);
	at += PACK_ID_LEN;

	assert_true(pack_obj_parse(pack, sizeof(pack), blob, &o));
	assert_int_equal(o.type, PACK_BLOB);
	assert_int_equal(o.size, 300);
	assert_int_equal(o.data, blob + 2);
	assert_true(pack_obj_parse(pack, sizeof(pack), ofs, &o));
	assert_int_equal(o.type, PACK_OFS_DELTA);
	assert_int_equal(o.size, 20);
	assert_int_equal(o.base, blob);
	assert_true(pack_obj_parse(pack, sizeof(pack), ref, &o));
	assert_int_equal(o.type, PACK_REF_DELTA);
	assert_non_null(o.base_id);
	assert_int_equal(o.base_id[0], 0xab);
	assert_int_equal(o.data, ref + 1 + PACK_ID_LEN);

	/* Distances of every length round-trip. */
	for (uint64_t d = 1; d < (1ull << 40); d = d * 3 + 1) {
		size_t n = put_hdr(pack + 500, PACK_OFS_DELTA, 1);

		put_ofs(pack + 500 + n, d);
		if (d <= 500) {
			assert_true(
			    pack_obj_parse(pack, sizeof(pack), 500, &o));
			assert_int_equal(o.base, 500 - d);
		} else { /* before the pack's start */
			assert_false(
			    pack_obj_parse(pack, sizeof(pack), 500, &o));
		}
	}
	/* Distance 0: the object its own base. */
	put_ofs(pack + 501, 0);
	assert_false(pack_obj_parse(pack, sizeof(pack), 500, &o));
	/* Types 0 and 5 do not exist. */
	pack[600] = 0x00;
	assert_false(pack_obj_parse(pack, sizeof(pack), 600, &o));
	pack[600] = 0x50;
	assert_false(pack_obj_parse(pack, sizeof(pack), 600, &o));
	/* A size that never ends, an offset in the header or the hash. */
	memset(pack + 700, 0xff, 20);
	assert_false(pack_obj_parse(pack, sizeof(pack), 700, &o));
	assert_false(pack_obj_parse(pack, sizeof(pack), 4, &o));
	assert_false(
	    pack_obj_parse(pack, sizeof(pack), sizeof(pack) - PACK_ID_LEN, &o));
	assert_false(pack_check(pack, 12 + PACK_ID_LEN - 1, &count));
	memcpy(pack + 4, "\0\0\0\4", 4);
	assert_false(pack_check(pack, sizeof(pack), &count));
}

/* ---- the index ---- */

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* An index of three ids (first bytes 0x01, 0x01, 0xfe), the last at a
 * 64-bit offset; its length. */
static size_t
make_idx(unsigned char *x, unsigned char ids[3][PACK_ID_LEN])
{
	static const uint64_t offs[3] = { 12, 4000, 0x123456789ull };
	size_t at, i;

	memset(ids, 0, 3 * PACK_ID_LEN);
	ids[0][0] = 0x01;
	ids[0][1] = 0x10;
	ids[1][0] = 0x01;
	ids[1][1] = 0x20;
	ids[2][0] = 0xfe;
	memcpy(x, "\377tOc\0\0\0\2", 8);
	for (i = 0; i < 256; i++)
		put32(x + 8 + 4 * i, i < 0x01 ? 0 : i < 0xfe ? 2 : 3);
	at = 8 + 1024;
	for (i = 0; i < 3; i++, at += PACK_ID_LEN)
		memcpy(x + at, ids[i], PACK_ID_LEN);
	for (i = 0; i < 3; i++, at += 4)
		put32(x + at, 0x11111111u * (uint32_t)(i + 1));
	put32(x + at, 12);
	put32(x + at + 4, 4000);
	put32(x + at + 8, 0x80000000u);
	at += 12;
	put32(x + at, (uint32_t)(offs[2] >> 32));
	put32(x + at + 4, (uint32_t)offs[2]);
	at += 8;
	memset(x + at, 0, 2 * PACK_ID_LEN);
	return at + 2 * PACK_ID_LEN;
}

static void
test_idx(void **state)
{
	unsigned char x[2048], ids[3][PACK_ID_LEN], other[PACK_ID_LEN];
	struct packidx idx;
	uint64_t off;
	uint32_t pos;
	size_t n;

	(void)state;
	n = make_idx(x, ids);
	assert_true(packidx_init(&idx, x, n));
	assert_int_equal(idx.n, 3);
	assert_true(packidx_find(&idx, ids[0], &off));
	assert_int_equal(off, 12);
	assert_true(packidx_find(&idx, ids[1], &off));
	assert_int_equal(off, 4000);
	assert_true(packidx_find(&idx, ids[2], &off));
	assert_int_equal(off, 0x123456789ull);
	/* The same in two steps, and each object's CRC. */
	assert_true(packidx_pos(&idx, ids[1], &pos));
	assert_int_equal(pos, 1);
	assert_true(packidx_offset(&idx, pos, &off));
	assert_int_equal(off, 4000);
	assert_int_equal(packidx_crc(&idx, 0), 0x11111111u);
	assert_int_equal(packidx_crc(&idx, 2), 0x33333333u);
	assert_false(packidx_offset(&idx, 3, &off));
	assert_ptr_equal(packidx_self_sum(&idx), x + n - PACK_ID_LEN);
	assert_ptr_equal(packidx_pack_sum(&idx), x + n - 2 * PACK_ID_LEN);
	memcpy(other, ids[1], PACK_ID_LEN);
	other[19] = 1;
	assert_false(packidx_find(&idx, other, &off));
	/* A 64-bit offset the table does not hold. */
	put32(x + 8 + 1024 + 3 * 24 + 8, 0x80000001u);
	assert_false(packidx_find(&idx, ids[2], &off));
	/* Too short for its count; a fan-out that goes down; version 1. */
	assert_false(packidx_init(&idx, x, n - 9));
	n = make_idx(x, ids);
	put32(x + 8 + 4 * 0x80, 1);
	assert_false(packidx_init(&idx, x, n));
	n = make_idx(x, ids);
	x[7] = 1;
	assert_false(packidx_init(&idx, x, n));
	memset(&idx, 0, sizeof(idx));
	assert_false(packidx_find(&idx, ids[0], &off));
}

/* ---- the reader against git ---- */

struct obj {
	unsigned char id[PACK_ID_LEN];
	char type[8];
	unsigned char *data;
	size_t n;
};

/* Every object of the repository at dir, as git cat-file prints it. */
static struct obj *
git_objects(const char *dir, size_t *count)
{
	char cmd[4200], line[256];
	struct obj *v = NULL;
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
	    "git -C '%s' cat-file --batch-all-objects --batch", dir);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		char hex[41], type[8];
		size_t size;

		assert_int_equal(
		    sscanf(line, "%40s %7s %zu", hex, type, &size), 3);
		v = realloc(v, (n + 1) * sizeof(*v));
		assert_non_null(v);
		unhex(hex, v[n].id);
		snprintf(v[n].type, sizeof(v[n].type), "%s", type);
		v[n].n = size;
		v[n].data = malloc(size + 1);
		assert_non_null(v[n].data);
		assert_int_equal(fread(v[n].data, 1, size + 1, f), size + 1);
		n++;
	}
	assert_int_equal(pclose(f), 0);
	*count = n;
	return v;
}

static void
free_objects(struct obj *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].data);
	free(v);
}

/*
 * A repository (dir/r.git) whose pack holds deltas of every depth: a
 * mail-like file "m" written 120 times, a 150 KB file "big" 40 times
 * (6 MB in all, more than the reader's cache), a tree and a commit each
 * time.  git fast-import makes each blob a delta of the blob before it,
 * so the versions of m are written in a row: chains 50 deep (git's
 * limit), which repack -ad keeps.
 */
static char *
make_repo(void)
{
	char *d = mktmp(), path[4200];
	static char text[200000];
	FILE *f;
	int i, k;

	snprintf(path, sizeof(path), "%s/fi", d);
	f = fopen(path, "w");
	assert_non_null(f);
	for (i = 0; i < 120; i++) {
		size_t n = (size_t)snprintf(text, sizeof(text),
		    "Message-ID: <%d@x>\nSubject: [PATCH] part %d\n\n", i, i);

		for (k = 1; k <= i * 3; k++)
			n += (size_t)snprintf(text + n, sizeof(text) - n,
			    "line of text number %d\n", k);
		fprintf(f, "blob\nmark :%d\ndata %zu\n", i + 1, n);
		fwrite(text, 1, n, f);
		fputc('\n', f);
	}
	for (i = 0; i < 40; i++) {
		size_t n = 0;

		for (k = i; n < 150000 - 64; k++)
			n += (size_t)snprintf(text + n, sizeof(text) - n,
			    "%d padding to make it big\n", k);
		fprintf(f, "blob\nmark :%d\ndata %zu\n", i + 1001, n);
		fwrite(text, 1, n, f);
		fputc('\n', f);
	}
	for (i = 0; i < 120; i++)
		fprintf(f,
		    "commit refs/heads/master\n"
		    "committer T <t@example.org> %d +0000\n"
		    "data 3\nc%d\nM 100644 :%d m\nM 100644 :%d big\n",
		    1700000000 + i, i % 10, i + 1, i / 3 + 1001);
	assert_int_equal(fclose(f), 0);
	run("cd '%s' && git init -q --bare r.git && "
	    "git -C r.git fast-import --quiet < fi && git -C r.git repack -adq",
	    d);
	return d;
}

/* Every object of dir/r read by the reader equals v[0..n), git's: how
 * many of the reads were checked by hashing (not by the index's CRCs). */
static size_t
reads_as(const char *d, const struct obj *v, size_t n)
{
	char r[4200];
	struct packread *pr;
	size_t i, hashed;

	snprintf(r, sizeof(r), "%s/r.git", d);
	assert_true(n > 360);
	assert_int_equal(packread_open(r, &pr), ERR_OK);
	assert_int_equal(packread_npacks(pr), 1);
	/* Twice, the second time mostly from the cache. */
	for (int round = 0; round < 2; round++)
		for (i = 0; i < n; i++) {
			size_t k = round ? n - 1 - i : i, got;
			enum pack_type t;
			unsigned char *data = NULL;
			const unsigned char *kept;

			if (k % 3 != 0) {
				assert_int_equal(
				    packread_keep(pr, v[k].id, UINT64_MAX, &t,
				        &kept, &got),
				    ERR_OK);
			} else {
				assert_int_equal(
				    packread_read(pr, v[k].id, UINT64_MAX, &t,
				        &data, &got),
				    ERR_OK);
				kept = data;
			}
			assert_string_equal(pack_type_name(t), v[k].type);
			assert_int_equal(got, v[k].n);
			assert_memory_equal(kept, v[k].data, got);
			assert_int_equal(kept[got], '\0');
			free(data);
		}
	hashed = packread_hashed(pr);
	packread_free(pr);
	return hashed;
}

/* make_repo() into *d: its repository's path into r (rn bytes) and its
 * objects as git prints them (*n). */
static struct obj *
repo_objects(char **d, char *r, size_t rn, size_t *n)
{
	*d = make_repo();
	snprintf(r, rn, "%s/r.git", *d);
	return git_objects(r, n);
}

static size_t
reads_as_git(const char *d)
{
	char r[4200];
	struct obj *v;
	size_t n, hashed;

	snprintf(r, sizeof(r), "%s/r.git", d);
	v = git_objects(r, &n);
	hashed = reads_as(d, v, n);
	free_objects(v, n);
	return hashed;
}

/* The pack of dir/r holds deltas, all of kind want (by git show-index's
 * offsets, read with pack_obj_parse). */
static void
assert_delta_kinds(const char *d, enum pack_type want)
{
	char cmd[4400], line[256];
	size_t n, deltas = 0, objs = 0;
	uint32_t count;
	unsigned char *pack;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "cat '%s'/r.git/objects/pack/*.pack", d);
	f = popen(cmd, "r");
	assert_non_null(f);
	pack = malloc(64u << 20);
	assert_non_null(pack);
	n = fread(pack, 1, 64u << 20, f);
	pclose(f);
	assert_true(pack_check(pack, n, &count));
	assert_true(count > 360);
	snprintf(cmd, sizeof(cmd),
	    "cat '%s'/r.git/objects/pack/*.idx | git show-index", d);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long long off;
		struct pack_obj o;

		assert_int_equal(sscanf(line, "%llu", &off), 1);
		assert_true(pack_obj_parse(pack, n, off, &o));
		objs++;
		if (o.type == PACK_OFS_DELTA || o.type == PACK_REF_DELTA) {
			assert_int_equal(o.type, want);
			deltas++;
		}
	}
	pclose(f);
	free(pack);
	assert_true(objs > 360);
	assert_true(deltas > objs / 2);
}

/*
 * make_repo()'s pack, repacked by git -c CONFIG repack -ad when config is
 * given: its chains as deep as git makes them, its deltas all of kind
 * want, and every object read as git reads it.
 */
static void
assert_reader_on(const char *config, enum pack_type want)
{
	char *d = make_repo();

	if (config != NULL)
		run("git -C '%s/r.git' -c %s repack -q -ad", d, config);
	run("cd '%s/r.git' && git verify-pack -v objects/pack/*.idx | "
	    "grep -q 'chain length = 50:'",
	    d);
	assert_delta_kinds(d, want);
	assert_int_equal(reads_as_git(d), 0);
	rmtmp(d);
}

/*
 * A bound on what may be built: an object above max is ERR_LIMIT, found
 * from the headers before it is inflated; one whose chain needs a larger
 * base or delta is too; with the bound at its own size, every other
 * object reads as git's.
 */
static void
test_reader_max(void **state)
{
	char *d, r[4200];
	struct obj *v;
	struct packread *pr;
	size_t n, i, on_larger = 0;

	(void)state;
	if (!have_git())
		skip();
	v = repo_objects(&d, r, sizeof(r), &n);
	assert_int_equal(packread_open(r, &pr), ERR_OK);
	for (i = 0; i < n; i++) {
		enum pack_type t;
		unsigned char *data = NULL;
		size_t got;
		enum err e;

		if (v[i].n > 0)
			assert_int_equal(packread_read(pr, v[i].id, v[i].n - 1,
			                     &t, &data, &got),
			    ERR_LIMIT);
		assert_null(data);
		e = packread_read(pr, v[i].id, v[i].n, &t, &data, &got);
		if (e == ERR_LIMIT) {
			on_larger++;
			continue;
		}
		assert_int_equal(e, ERR_OK);
		assert_int_equal(got, v[i].n);
		assert_memory_equal(data, v[i].data, got);
		free(data);
	}
	/* git makes the smaller objects deltas of the larger ones. */
	assert_true(on_larger > 10);
	packread_free(pr);
	free_objects(v, n);
	rmtmp(d);
}

static void
test_reader_ofs_deltas(void **state)
{
	(void)state;
	if (!have_git())
		skip();
	assert_reader_on(NULL, PACK_OFS_DELTA);
}

/*
 * A hold keeps an object's bytes whatever is read after it: every fifth
 * object read (kept) is held while the rest pass through the cache, 6 MB
 * of them, which empties it more than once; then the reader is freed.
 * Each held object still reads as git's (ASan sees any use after free).
 */
static void
test_reader_holds(void **state)
{
	char *d, r[4200];
	struct packread *pr;
	struct obj *v;
	const unsigned char **held;
	size_t n, i, nheld = 0;

	(void)state;
	if (!have_git())
		skip();
	v = repo_objects(&d, r, sizeof(r), &n);
	held = calloc(n, sizeof(*held));
	assert_non_null(held);
	assert_int_equal(packread_open(r, &pr), ERR_OK);
	for (i = 0; i < n; i++) {
		const unsigned char *kept;
		enum pack_type t;
		size_t got;

		assert_int_equal(
		    packread_keep(pr, v[i].id, UINT64_MAX, &t, &kept, &got),
		    ERR_OK);
		assert_int_equal(got, v[i].n);
		if (i % 5 == 0) {
			packread_hold(kept);
			held[i] = kept;
			nheld++;
		}
	}
	packread_free(pr);
	assert_true(nheld > 70);
	for (i = 0; i < n; i++) {
		if (held[i] == NULL)
			continue;
		assert_memory_equal(held[i], v[i].data, v[i].n);
		assert_int_equal(held[i][v[i].n], '\0');
		packread_release(held[i]);
	}
	free(held);
	free_objects(v, n);
	rmtmp(d);
}

/* Bases named by id, as packs written without --delta-base-offset. */
static void
test_reader_ref_deltas(void **state)
{
	(void)state;
	if (!have_git())
		skip();
	assert_reader_on("repack.useDeltaBaseOffset=false", PACK_REF_DELTA);
}

/* What the reader leaves to libgit2: loose objects, bad packs. */
static void
test_reader_leaves(void **state)
{
	char *d, r[4200], *hex;
	unsigned char id[PACK_ID_LEN];
	struct packread *pr;
	enum pack_type t;
	unsigned char *data;
	size_t n;
	FILE *f;
	char cmd[4400], buf[64];

	(void)state;
	if (!have_git())
		skip();
	d = mktmp();
	snprintf(r, sizeof(r), "%s/r.git", d);
	run("git init -q --bare '%s'", r);
	assert_int_equal(packread_open(r, &pr), ERR_OK);
	assert_int_equal(packread_npacks(pr), 0);
	packread_free(pr);
	snprintf(cmd, sizeof(cmd),
	    "echo loose | git -C '%s' hash-object -w --stdin", r);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	pclose(f);
	hex = buf;
	unhex(hex, id);
	assert_int_equal(packread_open(r, &pr), ERR_OK);
	assert_int_equal(
	    packread_read(pr, id, UINT64_MAX, &t, &data, &n), ERR_NOTFOUND);
	packread_free(pr);
	/* Packed, then its .pack cut short: the pack is left out. */
	run("cd '%s' && echo %.40s | git pack-objects -q objects/pack/pack "
	    ">/dev/null && rm -rf objects/[0-9a-f][0-9a-f] && "
	    "p=$(ls objects/pack/*.pack) && chmod u+w $p && truncate -s 11 $p",
	    r, hex);
	assert_int_equal(packread_open(r, &pr), ERR_OK);
	assert_int_equal(packread_npacks(pr), 0);
	assert_int_equal(
	    packread_read(pr, id, UINT64_MAX, &t, &data, &n), ERR_NOTFOUND);
	packread_free(pr);
	rmtmp(d);
}

/* The index of dir/r.git, read whole into *n bytes; its path in path. */
static unsigned char *
read_idx(const char *d, char *path, size_t size, size_t *n)
{
	char cmd[4400];
	unsigned char *x = malloc(1u << 20);
	FILE *f;

	assert_non_null(x);
	snprintf(cmd, sizeof(cmd), "ls %s/r.git/objects/pack/*.idx", d);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(path, (int)size, f));
	pclose(f);
	path[strcspn(path, "\n")] = '\0';
	f = fopen(path, "rb");
	assert_non_null(f);
	*n = fread(x, 1, 1u << 20, f);
	fclose(f);
	assert_true(*n > 1100 && *n < (1u << 20));
	return x;
}

/* x[0..n) written over path; with its trailing hash made again when
 * rehash. */
static void
write_idx(const char *path, unsigned char *x, size_t n, bool rehash)
{
	FILE *f;

	if (rehash)
		patchid_sha1(x, n - PACK_ID_LEN, x + n - PACK_ID_LEN);
	run("chmod u+w '%s'", path);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(x, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/*
 * What the index vouches for.  Its CRC of an object changed (its own hash
 * then failing): every object is hashed, and reads as git's.  The same
 * with the index's hash made again, so that the index is whole but for
 * that CRC: the object is hashed, and the rest still go by their CRCs.
 * An index whose record of its pack's hash is not the pack's: hashed.
 */
static void
test_reader_index(void **state)
{
	char *d, path[4200], r[4200];
	unsigned char *x, *orig;
	struct packidx idx;
	struct obj *v;
	size_t n, nv, all, one;

	(void)state;
	if (!have_git())
		skip();
	v = repo_objects(&d, r, sizeof(r), &nv);
	x = read_idx(d, path, sizeof(path), &n);
	orig = malloc(n);
	assert_non_null(orig);
	memcpy(orig, x, n);
	assert_true(packidx_init(&idx, x, n));
	/* The CRC of the object at position 7. */
	x[8 + 1024 + (size_t)idx.n * PACK_ID_LEN + 7 * 4] ^= 0x40;
	write_idx(path, x, n, false);
	all = reads_as(d, v, nv);
	assert_int_equal(all, 2 * nv);
	write_idx(path, x, n, true);
	one = reads_as(d, v, nv);
	assert_true(one >= 1);
	assert_true(one < all / 4);
	memcpy(x, orig, n);
	x[n - 2 * PACK_ID_LEN] ^= 1;
	write_idx(path, x, n, true);
	assert_int_equal(reads_as(d, v, nv), all);
	memcpy(x, orig, n);
	write_idx(path, x, n, false);
	assert_int_equal(reads_as(d, v, nv), 0);
	free_objects(v, nv);
	free(orig);
	free(x);
	rmtmp(d);
}

/*
 * A byte of the pack changed, anywhere: each object reads as git read it
 * before, or is refused; never as other bytes under its id.
 */
static void
test_reader_corrupt(void **state)
{
	char *d, r[4200], pack[4400], cmd[4600];
	struct obj *v;
	size_t n, size, pos, refused = 0;
	long k = 0;
	int err2;
	FILE *f;

	(void)state;
	if (!have_git())
		skip();
	v = repo_objects(&d, r, sizeof(r), &n);
	snprintf(cmd, sizeof(cmd), "ls %s/objects/pack/*.pack", r);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(pack, sizeof(pack), f));
	pclose(f);
	pack[strcspn(pack, "\n")] = '\0';
	run("chmod u+w '%s'", pack);
	f = fopen(pack, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	size = (size_t)ftell(f);
	/* Each refusal is logged: ~1,000 lines kept out of the output. */
	fflush(stderr);
	err2 = dup(2);
	assert_true(err2 >= 0);
	assert_true(freopen("/dev/null", "w", stderr) != NULL);
	for (pos = 12; pos < size - PACK_ID_LEN; pos += size / 61 + 1, k++) {
		struct packread *pr;
		int c;

		assert_int_equal(fseek(f, (long)pos, SEEK_SET), 0);
		c = fgetc(f);
		assert_int_equal(fseek(f, (long)pos, SEEK_SET), 0);
		fputc(c ^ (k % 2 ? 0x01 : 0x5a), f);
		fflush(f);
		assert_int_equal(packread_open(r, &pr), ERR_OK);
		for (size_t i = 0; i < n; i++) {
			enum pack_type t;
			unsigned char *data = NULL;
			const unsigned char *kept = NULL;
			size_t got;
			enum err e = i % 2 ? packread_keep(pr, v[i].id,
			                         UINT64_MAX, &t, &kept, &got)
			                   : packread_read(pr, v[i].id,
			                         UINT64_MAX, &t, &data, &got);

			if (e != ERR_OK) {
				assert_true(e == ERR_GIT || e == ERR_NOTFOUND);
				refused++;
				continue;
			}
			if (data != NULL)
				kept = data;
			assert_string_equal(pack_type_name(t), v[i].type);
			assert_int_equal(got, v[i].n);
			assert_memory_equal(kept, v[i].data, got);
			free(data);
		}
		packread_free(pr);
		assert_int_equal(fseek(f, (long)pos, SEEK_SET), 0);
		fputc(c, f);
		fflush(f);
	}
	fflush(stderr);
	assert_int_equal(dup2(err2, 2), 2);
	close(err2);
	fclose(f);
	/* Most changed bytes break some object; all were caught. */
	assert_true(refused > (size_t)k);
	free_objects(v, n);
	rmtmp(d);
}

/* ---- commit-graph ---- */

/*
 * A graph git wrote (with merges, an octopus' extra edges and Bloom
 * filters as chunks the parser passes over) reads as `git log` prints
 * each commit: its tree and first parent.  Then every prefix of the file
 * and each broken header is refused or read within its bytes.
 */
static void
test_commitgraph(void **state)
{
	char *d = mktmp(), cmd[4400], line[256], path[4200];
	unsigned char *map, *bad;
	struct commitgraph g;
	size_t len = 0, n = 0, k;
	FILE *f;

	(void)state;
	if (!have_git())
		skip();
	run("cd '%s' && git init -q r && cd r && "
	    "c() { git -c user.name=a -c user.email=a@b commit -qm \"$1\"; } "
	    "&& "
	    "for i in 1 2 3 4 5 6; do echo $i > f; git add f; c $i; done && "
	    "git checkout -q -b s HEAD~2 && echo s > g && git add g && c s && "
	    "git checkout -q -b t master~4 && echo t > h && git add h && c t "
	    "&& "
	    "git checkout -q master && "
	    "git -c user.name=a -c user.email=a@b merge -q --no-edit s t "
	    ">/dev/null && "
	    "git commit-graph write --reachable --changed-paths",
	    d);
	snprintf(path, sizeof(path), "%s/r/.git/objects/info/commit-graph", d);
	map = (unsigned char *)tu_read_file(path, &len);
	assert_non_null(map);
	assert_true(commitgraph_init(&g, map, len));
	snprintf(cmd, sizeof(cmd),
	    "git -C '%s/r' log --all --format='%%H %%T %%P'", d);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned char id[PACK_ID_LEN], want[PACK_ID_LEN];
		const unsigned char *tree;
		uint32_t pos, parent;

		unhex(line, id);
		assert_true(commitgraph_find(&g, id, &pos));
		assert_memory_equal(commitgraph_id(&g, pos), id, PACK_ID_LEN);
		assert_true(commitgraph_commit(&g, pos, &tree, &parent));
		unhex(line + 41, want);
		assert_memory_equal(tree, want, PACK_ID_LEN);
		if (strlen(line) < 41 + 41 + 40) {
			assert_int_equal(parent, COMMITGRAPH_NONE);
		} else {
			unhex(line + 82, want);
			assert_memory_equal(
			    commitgraph_id(&g, parent), want, PACK_ID_LEN);
		}
		n++;
	}
	assert_int_equal(pclose(f), 0);
	assert_int_equal(n, 9);
	assert_int_equal(g.n, 9);
	/* An id it does not hold. */
	{
		unsigned char none[PACK_ID_LEN] = { 0 };
		uint32_t pos;

		assert_false(commitgraph_find(&g, none, &pos));
	}
	/* Every prefix: refused, or (the hash cut off, not checked here)
	 * every chunk still inside it. */
	bad = malloc(len);
	assert_non_null(bad);
	for (k = 0; k < len; k++) {
		memcpy(bad, map, k);
		if (commitgraph_init(&g, bad, k))
			assert_true(g.data + (size_t)g.n * 36 <= bad + k);
	}
	/* A header, a fan-out or a count that is not git's. */
	for (k = 0; k < 8; k++) {
		memcpy(bad, map, len);
		bad[k] ^= 0x40;
		if (k != 6)
			assert_false(commitgraph_init(&g, bad, len));
	}
	memcpy(bad, map, len);
	/* The first chunk starts inside the chunk table. */
	bad[8 + 4 + 7] = 8;
	bad[8 + 4 + 6] = 0;
	bad[8 + 4 + 5] = 0;
	bad[8 + 4 + 4] = 0;
	assert_false(commitgraph_init(&g, bad, len));
	free(bad);
	free(map);
	rmtmp(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta_apply),
		cmocka_unit_test(test_delta_big_copy),
		cmocka_unit_test(test_obj_parse),
		cmocka_unit_test(test_idx),
		cmocka_unit_test(test_reader_max),
		cmocka_unit_test(test_reader_ofs_deltas),
		cmocka_unit_test(test_reader_ref_deltas),
		cmocka_unit_test(test_reader_holds),
		cmocka_unit_test(test_reader_leaves),
		cmocka_unit_test(test_reader_corrupt),
		cmocka_unit_test(test_reader_index),
		cmocka_unit_test(test_commitgraph),
	};

	/* The corrupt packs log errors; that is expected. */
	log_set_level(getenv("SOURCE_TEST_LOG") != NULL ? LOG_DEBUG : LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
