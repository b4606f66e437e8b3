/*
 * Fuzz target: the cheap header pass and what threading reads from it
 * (hdr_split, hdr_unfold, the Message-ID extractors).
 */
#include <stdint.h>
#include <string.h>

#include "parsers/hdr.h"
#include "parsers/msgid.h"
#include "util/arena.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena *a = arena_new();
	struct hdr h;
	size_t i;

	if (hdr_split(a, (const char *)data, size, &h) == ERR_OK) {
		for (i = 0; i < h.n; i++) {
			struct str v = hdr_unfold(a, h.f[i].value);
			struct str first = msgid_first(a, v), *ids;
			struct buf b = BUF_INIT;
			size_t n, k;

			if (first.p != NULL) {
				if (!msgid_valid(first))
					__builtin_trap();
				msgid_urlencode(&b, first);
				buf_free(&b);
			}
			msgid_list(a, v, &ids, &n);
			for (k = 0; k < n; k++)
				if (!msgid_valid(ids[k]))
					__builtin_trap();
			msgid_from_user(v);
		}
	}
	arena_free(a);
	return 0;
}
