/*
 * Fuzz target: patch_parse() on a mail body of one text part, and
 * patch_parse_pull() on the same.  The first line of the input, up to 200
 * bytes, is the subject.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/patch.h"
#include "util/arena.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena *a = arena_new();
	/* A copy of exactly size bytes, so that reads past the end show. */
	char *text = malloc(size ? size : 1);
	const char *nl;
	size_t sn;
	struct mime_part part;
	struct mime m;
	struct patch_in in;
	struct patch *p;
	struct pull *pl;

	if (size)
		memcpy(text, data, size);
	nl = size ? memchr(text, '\n', size < 200 ? size : 200) : NULL;
	sn = nl ? (size_t)(nl - text) : 0;
	memset(&part, 0, sizeof(part));
	part.type = "text/plain";
	part.text = true;
	part.data =
	    (struct str){ text + (nl ? sn + 1 : 0), size - (nl ? sn + 1 : 0) };
	m.parts = &part;
	m.nparts = 1;
	m.flags = 0;
	memset(&in, 0, sizeof(in));
	in.body = &m;
	in.from.name = "Fuzz";
	in.from.email = "fuzz@example.org";
	in.subject = (struct str){ text, sn };
	if (patch_parse(a, &in, &p) == ERR_OK) {
		if (p->subject == NULL || p->author.name == NULL ||
		    p->author.email == NULL ||
		    p->diff.p + p->diff.n > text + size)
			abort();
	}
	(void)patch_parse_pull(a, &m, &pl);
	free(text);
	arena_free(a);
	return 0;
}
