/* Fuzz target: diff_parse(), then everything that reads its result. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/diff.h"
#include "util/arena.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena *a = arena_new();
	struct buf out = BUF_INIT;
	struct diff *d = NULL;
	/* A copy of exactly size bytes, so that reads past the end show. */
	char *text = malloc(size ? size : 1);
	size_t i, k;

	if (size)
		memcpy(text, data, size);
	if (diff_parse(a, text, size, &d) == ERR_OK) {
		for (i = 0; i < d->nfiles; i++) {
			const struct diff_file *f = &d->files[i];

			if (f->old_path)
				(void)diff_path_safe(f->old_path);
			if (f->new_path)
				(void)diff_path_safe(f->new_path);
			for (k = 0; k < f->nhunks; k++)
				if (f->hunks[k].lines.n &&
				    f->hunks[k].lines.p < text)
					abort();
		}
		diff_stat(&out, d);
	}
	buf_free(&out);
	free(text);
	arena_free(a);
	return 0;
}
