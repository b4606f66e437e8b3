/* Fuzz target: patchid_stable(). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/patchid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes, so that reads past the end show. */
	char *text = malloc(size ? size : 1), hex[41];

	if (size)
		memcpy(text, data, size);
	if (patchid_stable(text, size, hex) && strlen(hex) != 40)
		abort();
	free(text);
	return 0;
}
