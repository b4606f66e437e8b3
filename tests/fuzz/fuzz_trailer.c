/*
 * libFuzzer target for trailer_parse() in both modes: the first byte
 * picks the mode, the rest is the text.  Every trailer found has a
 * canonical name and a value, person trailers an address, and
 * trailer_format() and trailer_same() work on each.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/limits.h"
#include "parsers/trailer.h"
#include "util/ascii.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena *a = arena_new();
	enum trailer_mode m = TRAILER_BLOCK;
	struct trailer *t;
	struct buf b;
	size_t n, i;

	if (size > 0) {
		m = data[0] & 1 ? TRAILER_REPLY : TRAILER_BLOCK;
		data++;
		size--;
	}
	if (trailer_parse(a, str_make((const char *)data, size), m, &t, &n) ==
	    ERR_OK) {
		if (n > LIMIT_TRAILERS)
			abort();
		buf_init(&b, 0);
		for (i = 0; i < n; i++) {
			if (t[i].name == NULL || t[i].value == NULL ||
			    t[i].name[0] != ascii_toupper(t[i].name[0]))
				abort();
			trailer_format(&b, &t[i]);
			if (!trailer_same(&t[i], &t[i]))
				abort();
		}
		buf_free(&b);
	}
	arena_free(a);
	return 0;
}
