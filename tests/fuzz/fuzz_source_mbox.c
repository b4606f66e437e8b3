/*
 * Fuzz target of the mbox reader: the input is an mbox file (gzip when it
 * starts with the gzip magic).  Besides not crashing, the reader must
 * split the same way whatever its buffer size, read the same from a gzip
 * copy of the input, keep its positions growing, and resume from each
 * of them to the same mails.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "bot/source/source_mbox.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz_mails {
	size_t n;
	char **raw;
	size_t *len;
	char (*pos)[256];
};

static void
fz_check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_source_mbox: %s\n", what);
		abort();
	}
}

/* A file holding p, named by a path that open() accepts. */
static int
fz_file(const void *p, size_t n, char *path, size_t pathn)
{
	int fd = memfd_create("fuzz_source_mbox", MFD_CLOEXEC);

	fz_check(fd >= 0, "memfd_create");
	fz_check(write(fd, p, n) == (ssize_t)n, "write");
	snprintf(path, pathn, "/proc/self/fd/%d", fd);
	return fd;
}

static void
fz_read(const char *path, const struct source_mbox_opts *o, const char *pos,
    struct fz_mails *ms)
{
	struct source_mbox *mb;
	struct source_mail m;
	enum err e;
	size_t i;

	if (source_mbox_open(path, o, &mb) != ERR_OK)
		return;
	if (pos != NULL && source_mbox_seek(mb, pos) != ERR_OK)
		fz_check(0, "a position made by the reader is refused");
	while ((e = source_mbox_next(mb, &m)) == ERR_OK || e == ERR_LIMIT) {
		/* One over the limit is skipped, never cut: an empty entry
		 * with its position. */
		fz_check(e == ERR_OK || o->limit != 0, "over no limit");
		if (e == ERR_LIMIT)
			m.n = 0;
		fz_check(m.n <= (o->limit ? o->limit : m.n), "over the limit");
		i = ms->n++;
		ms->raw = realloc(ms->raw, ms->n * sizeof(*ms->raw));
		ms->len = realloc(ms->len, ms->n * sizeof(*ms->len));
		ms->pos = realloc(ms->pos, ms->n * sizeof(*ms->pos));
		fz_check(ms->raw && ms->len && ms->pos, "realloc");
		ms->raw[i] = malloc(m.n + 1);
		fz_check(ms->raw[i] != NULL, "malloc");
		if (m.n)
			memcpy(ms->raw[i], m.raw, m.n);
		ms->len[i] = m.n;
		memcpy(ms->pos[i], m.pos, sizeof(m.pos));
	}
	source_mbox_free(mb);
}

static void
fz_free(struct fz_mails *ms)
{
	size_t i;

	for (i = 0; i < ms->n; i++)
		free(ms->raw[i]);
	free(ms->raw);
	free(ms->len);
	free(ms->pos);
	memset(ms, 0, sizeof(*ms));
}

static void
fz_same(const struct fz_mails *a, size_t from, const struct fz_mails *b)
{
	size_t i;

	fz_check(a->n - from == b->n, "a different number of mails");
	for (i = 0; i < b->n; i++) {
		fz_check(a->len[from + i] == b->len[i] &&
		        memcmp(a->raw[from + i], b->raw[i], b->len[i]) == 0,
		    "different mail bytes");
		fz_check(strcmp(a->pos[from + i], b->pos[i]) == 0,
		    "different positions");
	}
}

/* The input as one gzip member. */
static void *
fz_gzip(const uint8_t *data, size_t size, size_t *outn)
{
	z_stream z;
	size_t cap = size + size / 100 + 64;
	unsigned char *out = malloc(cap);

	fz_check(out != NULL, "malloc");
	memset(&z, 0, sizeof(z));
	fz_check(
	    deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK,
	    "deflateInit2");
	z.next_in = (unsigned char *)(uintptr_t)data;
	z.avail_in = (unsigned)size;
	z.next_out = out;
	z.avail_out = (unsigned)cap;
	fz_check(deflate(&z, Z_FINISH) == Z_STREAM_END, "deflate");
	*outn = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* 64 KB stands for the 4 MB default: the inputs are smaller. */
	struct source_mbox_opts big = { false, 65536, 0 };
	struct source_mbox_opts small = { false, 16, 0 };
	struct source_mbox_opts cut = { false, 64, 40 }, o = { true, 65536, 0 };
	struct fz_mails a = { 0 }, b = { 0 };
	char path[64], gzpath[64];
	size_t i, gzn;
	void *gz;
	int fd, gzfd;

	log_set_level(LOG_ERR);
	fd = fz_file(data, size, path, sizeof(path));
	fz_read(path, &big, NULL, &a);
	for (i = 0; i < a.n; i++)
		fz_check(i == 0 ||
		        strtoull(a.pos[i], NULL, 10) >
		            strtoull(a.pos[i - 1], NULL, 10),
		    "positions do not grow");
	fz_read(path, &small, NULL, &b);
	fz_same(&a, 0, &b);
	fz_free(&b);
	for (i = 0; i < a.n && i < 6; i++) {
		fz_read(path, &big, a.pos[i], &b);
		fz_same(&a, i + 1, &b);
		fz_free(&b);
	}
	if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) {
		gz = fz_gzip(data, size, &gzn);
		gzfd = fz_file(gz, gzn, gzpath, sizeof(gzpath));
		fz_read(gzpath, &small, NULL, &b);
		fz_same(&a, 0, &b);
		fz_free(&b);
		close(gzfd);
		free(gz);
	}
	fz_read(path, &cut, NULL, &b);
	for (i = 1; i < b.n; i++)
		fz_check(strtoull(b.pos[i], NULL, 10) >
		        strtoull(b.pos[i - 1], NULL, 10),
		    "positions do not grow past mails over the limit");
	fz_free(&b);
	fz_read(path, &o, NULL, &b);
	fz_check(b.n == a.n, "mboxo splits elsewhere");
	fz_free(&b);
	fz_free(&a);
	close(fd);
	return 0;
}
