/*
 * Fuzz target: a whole mail through hdr_split and mime_parse.  Every
 * text part that comes out must be valid UTF-8 with LF line ends.
 */
#include <stdint.h>
#include <string.h>

#include "parsers/hdr.h"
#include "parsers/limits.h"
#include "parsers/mime.h"
#include "util/arena.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena *a = arena_new();
	const char *raw = (const char *)data;
	struct hdr h;
	struct mime m;
	size_t i;

	if (hdr_split(a, raw, size, &h) == ERR_OK &&
	    mime_parse(a, raw, size, &h, &m) == ERR_OK) {
		if (m.nparts > LIMIT_MIME_PARTS)
			__builtin_trap();
		for (i = 0; i < m.nparts; i++) {
			const struct mime_part *p = &m.parts[i];

			if (p->type == NULL || p->data.n > size)
				__builtin_trap();
			if (p->text &&
			    (!utf8_valid(p->data.p, p->data.n) ||
			        (p->data.n > 0 &&
			            memmem(p->data.p, p->data.n, "\r\n", 2) !=
			                NULL)))
				__builtin_trap();
		}
	}
	arena_free(a);
	return 0;
}
