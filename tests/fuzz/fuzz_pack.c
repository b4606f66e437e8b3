/*
 * Fuzz target: git's pack formats as parsers/pack.c reads them, and the
 * bound on delta chains built on it (bot/source/packbound.c), on packs
 * the input describes: four bytes (big-endian) give the length of a pack
 * index, then the index, then the pack.  Both are written where the bound
 * looks for them and every id the index lists (up to 512) is bounded,
 * twice: nothing may crash or read outside the files, and the second
 * answer (from what the first remembered) must be the first.  The whole
 * input is also applied as a delta to a fixed base.  Seeds are real packs
 * (tests/fixtures/regress/pack/, made by git with deltas by offset and by
 * id).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/source/packbound.h"
#include "parsers/pack.h"
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
	struct packbound *b;
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
	if (packbound_open(dir, &b) != ERR_OK)
		abort();
	if (packidx_init(&x, data + 4, ilen)) {
		for (i = 0; i < x.n && i < 512; i++) {
			const unsigned char *id =
			    x.map + 8 + 1024 + i * PACK_ID_LEN;
			uint64_t m1 = 0, m2 = 0;
			enum err e1 = packbound_most(b, id, &m1);
			enum err e2 = packbound_most(b, id, &m2);

			if (e1 == ERR_OK && (e2 != ERR_OK || m1 != m2))
				abort();
		}
	}
	packbound_free(b);
	return 0;
}
