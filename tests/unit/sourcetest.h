/*
 * Helpers shared by the tests of the mail sources (test_source.c,
 * test_git_pubinbox.c): drain a source into memory, compare, resume from
 * every position, run a command, make a temporary directory.
 */
#ifndef TESTS_SOURCETEST_H
#define TESTS_SOURCETEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/source/source.h"
#include "bot/source/source_mbox.h"

#define FIX "tests/fixtures/sources/"

/* Every mail of a source, copied out, with its position; one over the
 * source's limit (ERR_LIMIT) as an empty mail with over set. */
struct mails {
	size_t n;
	char **raw;
	size_t *len;
	char (*pos)[256];
	bool *over;
};

static inline void
mails_add(
    struct mails *ms, const char *raw, size_t len, const char *pos, bool over)
{
	size_t i = ms->n++;

	ms->raw = realloc(ms->raw, ms->n * sizeof(*ms->raw));
	ms->len = realloc(ms->len, ms->n * sizeof(*ms->len));
	ms->pos = realloc(ms->pos, ms->n * sizeof(*ms->pos));
	ms->over = realloc(ms->over, ms->n * sizeof(*ms->over));
	assert_non_null(ms->raw);
	assert_non_null(ms->len);
	assert_non_null(ms->pos);
	assert_non_null(ms->over);
	ms->raw[i] = malloc(len + 1);
	assert_non_null(ms->raw[i]);
	if (len)
		memcpy(ms->raw[i], raw, len);
	ms->raw[i][len] = '\0';
	ms->len[i] = len;
	snprintf(ms->pos[i], sizeof(ms->pos[i]), "%s", pos != NULL ? pos : "");
	ms->over[i] = over;
}

static inline void
mails_free(struct mails *ms)
{
	size_t i;

	for (i = 0; i < ms->n; i++)
		free(ms->raw[i]);
	free(ms->raw);
	free(ms->len);
	free(ms->pos);
	free(ms->over);
	memset(ms, 0, sizeof(*ms));
}

/* b holds the mails of a from index from on: all of them when whole. */
static inline void
mails_assert_part(
    const struct mails *a, size_t from, const struct mails *b, bool whole)
{
	size_t i;

	if (whole)
		assert_int_equal(a->n - from, b->n);
	assert_true(a->n - from >= b->n);
	for (i = 0; i < b->n; i++) {
		assert_int_equal(a->len[from + i], b->len[i]);
		assert_memory_equal(a->raw[from + i], b->raw[i], b->len[i]);
		assert_string_equal(a->pos[from + i], b->pos[i]);
		assert_int_equal(a->over[from + i], b->over[i]);
	}
}

static inline void
mails_assert_equal(const struct mails *a, size_t from, const struct mails *b)
{
	mails_assert_part(a, from, b, true);
}

/* Drain a source; seek to pos first when pos is not NULL. */
static inline void
read_source(const char *path, unsigned flags, const char *pos, struct mails *ms)
{
	struct source *s = NULL;
	struct source_mail m;
	enum err e;

	assert_int_equal(source_open(path, flags, &s), ERR_OK);
	if (pos != NULL)
		assert_int_equal(source_seek(s, pos), ERR_OK);
	while ((e = source_next(s, &m)) == ERR_OK || e == ERR_LIMIT)
		mails_add(
		    ms, m.raw, e == ERR_OK ? m.n : 0, m.pos, e == ERR_LIMIT);
	assert_int_equal(e, ERR_NOTFOUND);
	assert_int_equal(source_next(s, &m), ERR_NOTFOUND);
	source_free(s);
}

/* The same, through the mbox reader with small buffers. */
static inline void
read_mbox_opts(
    const char *path, const struct source_mbox_opts *o, struct mails *ms)
{
	struct source_mbox *mb = NULL;
	struct source_mail m;
	enum err e;

	assert_int_equal(source_mbox_open(path, o, &mb), ERR_OK);
	while ((e = source_mbox_next(mb, &m)) == ERR_OK || e == ERR_LIMIT)
		mails_add(
		    ms, m.raw, e == ERR_OK ? m.n : 0, m.pos, e == ERR_LIMIT);
	assert_int_equal(e, ERR_NOTFOUND);
	source_mbox_free(mb);
}

static inline void
run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_true(r > 0 && (size_t)r < sizeof(cmd));
	assert_int_equal(system(cmd), 0);
}

static inline char *
mktmp(void)
{
	char *d = strdup("/tmp/patchyard-source-XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

static inline void
rmtmp(char *d)
{
	run("rm -rf '%s'", d);
	free(d);
}

static inline bool
have_git(void)
{
	return system("git --version >/dev/null 2>&1") == 0;
}

/* A git object id (40 hex digits at h) into its 20 bytes. */
static inline void
unhex(const char *h, unsigned char *out)
{
	for (size_t i = 0; i < 20; i++) {
		unsigned v;

		assert_int_equal(sscanf(h + 2 * i, "%2x", &v), 1);
		out[i] = (unsigned char)v;
	}
}

static inline void
write_file(const char *path, const char *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Resuming from every position gives the mails after it. */
static inline void
assert_resume(const char *path, unsigned flags, const struct mails *all)
{
	struct mails rest = { 0 };
	size_t i;

	for (i = 0; i < all->n; i++) {
		read_source(path, flags, all->pos[i], &rest);
		mails_assert_equal(all, i + 1, &rest);
		mails_free(&rest);
	}
}

static inline void
assert_progress_done(const char *path, unsigned flags)
{
	struct source *s;
	struct source_mail m;
	double p, prev = 0;

	assert_int_equal(source_open(path, flags, &s), ERR_OK);
	while (source_next(s, &m) == ERR_OK) {
		p = source_progress(s);
		assert_true(p >= prev && p <= 1.0);
		prev = p;
	}
	assert_true(source_progress(s) == 1.0);
	source_free(s);
}

#endif
