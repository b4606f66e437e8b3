/*
 * Helpers of the corpus tests: the archive gunzipped, split into its
 * mboxrd messages, and commands run on files the test wrote.
 */
#ifndef TESTS_CORPUS_H
#define TESTS_CORPUS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "parsers/diff.h"
#include "parsers/diffname.h"
#include "util/buf.h"

/* The whole gzip file, or NULL. */
static inline char *
corpus_load(const char *path, size_t *n)
{
	gzFile g = gzopen(path, "rb");
	struct buf b = BUF_INIT;
	char chunk[1 << 16];
	int r;

	if (g == NULL)
		return NULL;
	while ((r = gzread(g, chunk, sizeof(chunk))) > 0)
		buf_add(&b, chunk, (size_t)r);
	gzclose(g);
	return buf_detach(&b, n);
}

/*
 * The next message of an mboxrd archive at *pos into out: from its "From "
 * line up to the blank line before the next "From " line, with one '>'
 * taken off every ">From ", ">>From " ... line.
 */
static inline bool
corpus_next(const char *mbox, size_t n, size_t *pos, struct buf *out)
{
	const char *p = mbox + *pos, *end = mbox + n, *first = p;

	buf_reset(out);
	if (p >= end)
		return false;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end, *q = p;

		if (p != first && end - p > 5 && memcmp(p, "From ", 5) == 0 &&
		    out->n >= 2 && out->p[out->n - 1] == '\n' &&
		    out->p[out->n - 2] == '\n')
			break;
		while (q < next && *q == '>')
			q++;
		if (q > p && next - q > 5 && memcmp(q, "From ", 5) == 0)
			p++;
		buf_add(out, p, (size_t)(next - p));
		p = next;
	}
	/* The blank line before the next "From " belongs to the archive. */
	if (p < end && out->n && out->p[out->n - 1] == '\n')
		out->n--;
	*pos = (size_t)(p - mbox);
	return true;
}

/* The standard output of a shell command (test-made arguments only). */
static inline char *
corpus_run(const char *cmd, size_t *n)
{
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t k, len;
	FILE *p = popen(cmd, "r");

	if (p == NULL)
		abort();
	while ((k = fread(chunk, 1, sizeof(chunk), p)) > 0)
		buf_add(&b, chunk, k);
	pclose(p);
	return buf_detach(&b, n ? n : &len);
}

/* Write p[0..n) to dir/name. */
static inline void
corpus_write(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		abort();
}

/* What `git apply --numstat` prints for f. */
static inline void
corpus_numstat_line(struct buf *b, const struct diff_file *f)
{
	if (f->binary)
		buf_adds(b, "-\t-\t");
	else
		buf_addf(b, "%lu\t%lu\t", f->added, f->removed);
	diffname_quote(b, f->new_path ? f->new_path : f->old_path);
	buf_addc(b, '\n');
}

/* A rename or copy as `git apply --summary` prints it: only a common
 * directory prefix is factored out. */
static inline void
corpus_rename_line(struct buf *b, const struct diff_file *f)
{
	const char *o = f->old_path, *n = f->new_path;
	const char *kind = f->op == DIFF_RENAME ? "rename" : "copy";

	for (;;) {
		const char *so = strchr(o, '/'), *sn = strchr(n, '/');

		if (!so || !sn || so - o != sn - n ||
		    memcmp(o, n, (size_t)(sn - n)) != 0)
			break;
		o = so + 1;
		n = sn + 1;
	}
	if (o != f->old_path)
		buf_addf(b, " %s %.*s{%s => %s} (%u%%)\n", kind,
		    (int)(o - f->old_path), f->old_path, o, n, f->similarity);
	else
		buf_addf(b, " %s %s => %s (%u%%)\n", kind, o, n, f->similarity);
}

/* What `git apply --summary` prints for f (apply.c summary_patch_list(),
 * which does not quote names). */
static inline void
corpus_summary_line(struct buf *b, const struct diff_file *f)
{
	if (f->op == DIFF_ADD || f->op == DIFF_DELETE) {
		bool add = f->op == DIFF_ADD;
		unsigned mode = add ? f->new_mode : f->old_mode;

		buf_adds(b, add ? " create " : " delete ");
		if (mode)
			buf_addf(b, "mode %06o ", mode);
		buf_addf(b, "%s\n", add ? f->new_path : f->old_path);
		return;
	}
	if (f->op == DIFF_RENAME || f->op == DIFF_COPY)
		corpus_rename_line(b, f);
	if (f->old_mode && f->new_mode && f->old_mode != f->new_mode) {
		buf_addf(
		    b, " mode change %06o => %06o", f->old_mode, f->new_mode);
		if (f->op != DIFF_RENAME && f->op != DIFF_COPY)
			buf_addf(b, " %s", f->new_path);
		buf_addc(b, '\n');
	}
}

/* `git apply --numstat --summary` of d. */
static inline void
corpus_apply_stat(struct buf *b, const struct diff *d)
{
	size_t i;

	for (i = 0; i < d->nfiles; i++)
		corpus_numstat_line(b, &d->files[i]);
	for (i = 0; i < d->nfiles; i++)
		corpus_summary_line(b, &d->files[i]);
}

#endif
