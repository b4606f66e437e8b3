/*
 * The public-inbox mirror's reading of a grokmirror manifest
 * (parsers/manifest.c): nothing may crash or read past the input; the
 * same input gives the same epochs; a refused input sets nothing that
 * counts, an accepted one only epochs below the bound.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX 64

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes, so that reads past the end show. */
	char *text = malloc(size ? size : 1);
	bool have[MAX + 1], again[MAX + 1], beyond, beyond2;
	enum err e, e2;

	if (size)
		memcpy(text, data, size);
	have[MAX] = again[MAX] = true; /* a guard the parser must not touch */
	e = manifest_epochs(text, size, have, MAX, &beyond);
	e2 = manifest_epochs(text, size, again, MAX, &beyond2);
	if ((e != ERR_OK && e != ERR_PARSE) || e != e2 || !have[MAX] ||
	    !again[MAX])
		abort();
	if (e == ERR_OK &&
	    (beyond != beyond2 || memcmp(have, again, sizeof(have)) != 0))
		abort();
	free(text);
	return 0;
}
