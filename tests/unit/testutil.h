/*
 * Helpers shared by the unit tests: read a fixture, find the corpus.
 * Tests run from the repository's root (tests/run-tests cds there).
 */
#ifndef TESTS_TESTUTIL_H
#define TESTS_TESTUTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The whole file, NUL-terminated, or NULL; *n gets its length. */
static inline char *
tu_read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *p = NULL;
	size_t cap = 0, len = 0, r;

	if (f == NULL)
		return NULL;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536 * 2;
			p = realloc(p, cap + 1);
			if (p == NULL)
				abort();
		}
		r = fread(p + len, 1, cap - len, f);
		if (r == 0)
			break;
		len += r;
	}
	fclose(f);
	p[len] = '\0';
	if (n)
		*n = len;
	return p;
}

/*
 * Write a golden file (tests do so only when $TU_WRITE_GOLDEN is set; the
 * result is then reviewed by hand before it is committed).
 */
static inline void
tu_write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		abort();
}

/*
 * The util-linux corpus (gzip), or NULL when this clone has none: tests
 * that need it skip.  $PATCHYARD_CORPUS overrides the default place,
 * ../shared/corpus/ beside the repository.
 */
static inline const char *
tu_corpus(void)
{
	const char *p = getenv("PATCHYARD_CORPUS");

	if (p == NULL || *p == '\0')
		p = "../shared/corpus/util-linux.mboxrd.gz";
	return access(p, R_OK) == 0 ? p : NULL;
}

/*
 * Compare got with the golden file path: true when equal.  On a
 * difference (or a missing file) what was got is printed, so that a new
 * golden file can be checked by hand and written.
 */
static inline bool
tu_golden(const char *path, const char *got)
{
	char *expected = tu_read_file(path, NULL);
	bool same = expected != NULL && strcmp(got, expected) == 0;

	if (!same)
		fprintf(stderr, "--- %s: got\n%s", path, got);
	free(expected);
	return same;
}

#endif
