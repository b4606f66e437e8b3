/*
 * The pack reader (bot/source/packread.c, parsers/pack.c) on packs the
 * input describes: four bytes (big-endian) give the length of a pack
 * index, then the index, then the pack.  Both are written where the
 * reader looks for them and every id the index lists is read: nothing
 * may crash, and an object handed out must hash to its id, unless the
 * index is whole: the reader checks objects by the CRC-32s of their bytes
 * that the index records, and trusts the index's ids where its trailing
 * hash holds and it names the pack's own (as git does), hashing every
 * object otherwise.  (The fuzzer learns to write an index's hash: it
 * made indexes whole that lie about ids within a minute.)  The whole
 * input is also applied as a delta to a fixed base.  Seeds are real packs
 * (tests/fixtures/regress/pack/, made by git with deltas by offset and by
 * id).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/source/packread.h"
#include "parsers/pack.h"
#include "parsers/patchid.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256];

static void
put(const char *name, const uint8_t *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/objects/pack/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL)
		abort();
	if (n && fwrite(p, 1, n, f) != n)
		abort();
	fclose(f);
}

static void
cleanup(void)
{
	char path[512];
	static const char *const parts[] = { "objects/pack/pack-f.idx",
		"objects/pack/pack-f.pack", "objects/pack", "objects", "" };

	for (size_t i = 0; i < sizeof(parts) / sizeof(*parts); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, parts[i]);
		remove(path);
	}
}

static void
setup(void)
{
	char path[512];
	const char *shm = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	snprintf(dir, sizeof(dir), "%s/fuzz-pack-%d", shm, (int)getpid());
	mkdir(dir, 0700);
	snprintf(path, sizeof(path), "%s/objects", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/objects/pack", dir);
	mkdir(path, 0700);
	atexit(cleanup);
	log_set_level(getenv("FUZZ_LOG") ? LOG_DEBUG : LOG_ERR);
	/* Refusals are logged: expected, and kept out of the fuzzer's
	 * output. */
	if (getenv("FUZZ_LOG") == NULL &&
	    freopen("/dev/null", "w", stderr) == NULL)
		abort();
}

static void
delta(const uint8_t *data, size_t size)
{
	static const unsigned char base[] = "the base of every delta the "
	                                    "fuzzer writes, 64 bytes long!!";
	uint64_t bsz, rsz;
	size_t start;
	unsigned char *out;

	if (!pack_delta_sizes(data, size, &bsz, &rsz, &start) ||
	    rsz > (1u << 20))
		return;
	out = malloc(rsz ? (size_t)rsz : 1);
	if (out == NULL)
		abort();
	(void)pack_delta_apply(
	    base, sizeof(base) - 1, data, size, out, (size_t)rsz);
	free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct packread *r;
	struct packidx x;
	size_t ilen, i;

	if (dir[0] == '\0')
		setup();
	delta(data, size);
	if (size < 4)
		return 0;
	ilen = (size_t)data[0] << 24 | (size_t)data[1] << 16 |
	    (size_t)data[2] << 8 | data[3];
	if (ilen > size - 4)
		return 0;
	put("pack-f.idx", data + 4, ilen);
	put("pack-f.pack", data + 4 + ilen, size - 4 - ilen);
	if (packread_open(dir, &r) != ERR_OK)
		abort();
	if (packread_npacks(r) == 1 && packidx_init(&x, data + 4, ilen)) {
		unsigned char isum[20];
		bool whole;

		patchid_sha1(x.map, ilen - 20, isum);
		whole = memcmp(isum, x.map + ilen - 20, 20) == 0 &&
		    memcmp(x.map + ilen - 40, data + size - 20, 20) == 0;
		for (i = 0; i < x.n && i < 512; i++) {
			const unsigned char *id = x.map + 8 + 1024 + i * 20;
			struct patchid_sha1_ctx c;
			unsigned char sum[20], *out = NULL;
			const unsigned char *got;
			char head[64];
			enum pack_type t;
			size_t n;
			int k;

			if (i & 1) {
				if (packread_keep(r, id, UINT64_MAX, &t, &got,
				        &n) != ERR_OK)
					continue;
			} else {
				if (packread_read(r, id, UINT64_MAX, &t, &out,
				        &n) != ERR_OK)
					continue;
				got = out;
			}
			k = snprintf(
			    head, sizeof(head), "%s %zu", pack_type_name(t), n);
			patchid_sha1_init(&c);
			patchid_sha1_update(&c, head, (size_t)k + 1);
			patchid_sha1_update(&c, got, n);
			patchid_sha1_final(&c, sum);
			if ((!whole && memcmp(sum, id, 20) != 0) ||
			    got[n] != '\0' || pack_type_name(t) == NULL)
				abort();
			free(out);
		}
	}
	packread_free(r);
	return 0;
}
