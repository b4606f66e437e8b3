/*
 * Fuzz target: header decoding (RFC 2047), parameters (RFC 2231), the
 * charset conversion and the transfer decodings.  The first line of the
 * input names a charset for charset_to_utf8; the rest is the text.
 * Whatever comes in, what comes out must be valid UTF-8.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/charset.h"
#include "util/arena.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/qp.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(struct str s)
{
	if (s.p != NULL && !utf8_valid(s.p, s.n))
		__builtin_trap();
}

static void
check_header(struct str s)
{
	size_t i;

	check(s);
	for (i = 0; i < s.n; i++)
		if ((unsigned char)s.p[i] < 0x20 || s.p[i] == 0x7f)
			__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena *a = arena_new();
	const char *p = (const char *)data;
	const char *nl = memchr(p, '\n', size);
	struct str in = str_make(p, size), out;
	char *cs, *dst;

	if (charset_decode_header(a, in, &out, NULL) == ERR_OK)
		check_header(out);
	check_header(charset_param(a, in, "filename"));
	check_header(charset_param(a, in, "charset"));
	if (nl != NULL) {
		cs = arena_strndup(a, p, (size_t)(nl - p));
		if (charset_to_utf8(a, cs, nl + 1, size - (size_t)(nl + 1 - p),
		        &out, NULL) == ERR_OK)
			check(out);
	}
	dst = malloc(size + 1);
	if (base64_decode(dst, p, size, NULL) > size ||
	    qp_decode(dst, p, size, false, NULL) > size ||
	    qp_decode(dst, p, size, true, NULL) > size)
		__builtin_trap();
	free(dst);
	arena_free(a);
	return 0;
}
