/* Fuzz target: subject_parse(), subject_norm() and slug_make(). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/slug.h"
#include "parsers/subject.h"
#include "util/arena.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena *a = arena_new();
	/* A copy of exactly size bytes, so that reads past the end show. */
	char *text = malloc(size ? size : 1);
	struct subject s;
	const char *slug;

	if (size)
		memcpy(text, data, size);
	subject_parse(a, (struct str){ text, size }, &s);
	/* An extra patch "3/2" keeps its number (issue 18): number may
	 * exceed total, never be negative, and is 0 when total is. */
	if (s.title == NULL || s.tags == NULL || s.version < 1 ||
	    s.number < 0 || s.total < 0 || (s.total == 0 && s.number != 0))
		abort();
	(void)subject_norm(a, s.title);
	slug = slug_make(a, s.title);
	if (strlen(slug) == 0 || strlen(slug) > 64)
		abort();
	if (strlen(slug_variant(a, slug, 4000000000u)) > 64)
		abort();
	free(text);
	arena_free(a);
	return 0;
}
