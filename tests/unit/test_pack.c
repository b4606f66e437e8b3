/*
 * Unit tests of git's pack formats (parsers/pack.c) on bytes made by
 * hand, and of the bound on delta chains (bot/source/packbound.c)
 * against git itself: for every object of packs git wrote (deltas by
 * offset and by id, chains 50 deep), the largest size its chain holds is
 * what git verify-pack and git cat-file say of the objects on it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bot/source/packbound.h"
#include "parsers/pack.h"
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

/* ---- the bound on delta chains, against git ---- */

/* An object of a pack as git verify-pack -v and git cat-file see it. */
struct vobj {
	char hex[41];
	unsigned char id[PACK_ID_LEN];
	uint64_t in_pack; /* verify-pack's size: of the delta, for a delta */
	uint64_t size; /* cat-file's: of the object */
	int base; /* index of its base, or -1 */
};

static int
vobj_find(const struct vobj *v, size_t n, const char *hex)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].hex, hex) == 0)
			return (int)i;
	return -1;
}

/* The objects of dir/r.git's one pack, with their bases. */
static struct vobj *
pack_objects(const char *d, size_t *count)
{
	char cmd[4400], line[512];
	struct vobj *v = NULL;
	size_t n = 0, i;
	char(*bases)[41] = NULL;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
	    "cd '%s/r.git' && git verify-pack -v objects/pack/*.idx", d);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		char hex[64], type[16], base[64] = "";
		unsigned long long size, packed, off;
		int depth, k;

		k = sscanf(line, "%63s %15s %llu %llu %llu %d %63s", hex, type,
		    &size, &packed, &off, &depth, base);
		if (k < 5 || strlen(hex) != 40)
			continue;
		v = realloc(v, (n + 1) * sizeof(*v));
		bases = realloc(bases, (n + 1) * sizeof(*bases));
		assert_non_null(v);
		assert_non_null(bases);
		memcpy(v[n].hex, hex, 41); /* 40 digits, checked above */
		unhex(hex, v[n].id);
		v[n].in_pack = size;
		v[n].size = 0;
		if (k == 7 && strlen(base) == 40)
			memcpy(bases[n], base, 41);
		else
			bases[n][0] = '\0';
		n++;
	}
	assert_int_equal(pclose(f), 0);
	for (i = 0; i < n; i++) {
		v[i].base = bases[i][0] ? vobj_find(v, n, bases[i]) : -1;
		assert_true(bases[i][0] == '\0' || v[i].base >= 0);
	}
	free(bases);
	snprintf(cmd, sizeof(cmd),
	    "git -C '%s/r.git' cat-file --batch-all-objects "
	    "--batch-check='%%(objectname) %%(objectsize)'",
	    d);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		char hex[64];
		unsigned long long size;
		int at;

		assert_int_equal(sscanf(line, "%63s %llu", hex, &size), 2);
		at = vobj_find(v, n, hex);
		assert_true(at >= 0);
		v[at].size = size;
	}
	assert_int_equal(pclose(f), 0);
	*count = n;
	return v;
}

/* What git says the chain of v[i] holds at most. */
static uint64_t
chain_most(const struct vobj *v, size_t i)
{
	uint64_t m = 0;
	int k, steps = 0;

	for (k = (int)i; k >= 0; k = v[k].base, steps++) {
		assert_true(steps <= 60);
		if (v[k].in_pack > m)
			m = v[k].in_pack;
		if (v[k].size > m)
			m = v[k].size;
	}
	return m;
}

/*
 * A repository (dir/r.git) whose pack holds deltas of every depth: a
 * mail-like file "m" written 120 times, a 150 KB file "big" 40 times
 * (6 MB in all), a tree and a commit each time.  git fast-import makes each
 * blob a delta of the blob before it, so the versions of m are written in a
 * row: chains 50 deep (git's limit), which repack -ad keeps.
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
 * want, and for every object the bound what git says its chain holds,
 * twice (the second time from what the first remembered).  Objects built
 * on a base larger than themselves are many.
 */
static void
assert_bound_on(const char *config, enum pack_type want)
{
	char *d = make_repo(), r[4200];
	struct packbound *b;
	struct vobj *v;
	size_t n, i, on_larger = 0;

	if (config != NULL)
		run("git -C '%s/r.git' -c %s repack -q -ad", d, config);
	run("cd '%s/r.git' && git verify-pack -v objects/pack/*.idx | "
	    "grep -q 'chain length = 50:'",
	    d);
	assert_delta_kinds(d, want);
	v = pack_objects(d, &n);
	assert_true(n > 360);
	snprintf(r, sizeof(r), "%s/r.git", d);
	assert_int_equal(packbound_open(r, &b), ERR_OK);
	for (int round = 0; round < 2; round++)
		for (i = 0; i < n; i++) {
			size_t k = round ? n - 1 - i : i;
			uint64_t most = 0;

			assert_int_equal(
			    packbound_most(b, v[k].id, &most), ERR_OK);
			assert_int_equal(most, chain_most(v, k));
			on_larger += round == 0 && most > v[k].size;
		}
	assert_true(on_larger > 10);
	packbound_free(b);
	free(v);
	rmtmp(d);
}

static void
test_bound_ofs_deltas(void **state)
{
	(void)state;
	if (!have_git())
		skip();
	assert_bound_on(NULL, PACK_OFS_DELTA);
}

/* Bases named by id, as packs written without --delta-base-offset. */
static void
test_bound_ref_deltas(void **state)
{
	(void)state;
	if (!have_git())
		skip();
	assert_bound_on("repack.useDeltaBaseOffset=false", PACK_REF_DELTA);
}

/* What no pack holds (a loose object, a repository without packs) is
 * ERR_NOTFOUND, for libgit2's header to tell. */
static void
test_bound_leaves(void **state)
{
	char *d, r[4200], hexpath[4400], hex[64];
	unsigned char id[PACK_ID_LEN];
	struct packbound *b;
	uint64_t most;
	FILE *f;

	(void)state;
	if (!have_git())
		skip();
	d = mktmp();
	snprintf(r, sizeof(r), "%s/r.git", d);
	snprintf(hexpath, sizeof(hexpath), "%s/hex", d);
	run("git init -q --bare '%s' && echo loose | "
	    "git -C '%s' hash-object -w --stdin > '%s'",
	    r, r, hexpath);
	f = fopen(hexpath, "r");
	assert_non_null(f);
	assert_non_null(fgets(hex, sizeof(hex), f));
	fclose(f);
	hex[40] = '\0';
	unhex(hex, id);
	assert_int_equal(packbound_open(r, &b), ERR_OK);
	assert_int_equal(packbound_most(b, id, &most), ERR_NOTFOUND);
	packbound_free(b);
	/* Packed now, it is found. */
	run("cd '%s' && git pack-objects -q objects/pack/pack < '%s' "
	    ">/dev/null",
	    r, hexpath);
	assert_int_equal(packbound_open(r, &b), ERR_OK);
	assert_int_equal(packbound_most(b, id, &most), ERR_OK);
	assert_int_equal(most, 6);
	packbound_free(b);
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
		cmocka_unit_test(test_bound_ofs_deltas),
		cmocka_unit_test(test_bound_ref_deltas),
		cmocka_unit_test(test_bound_leaves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
