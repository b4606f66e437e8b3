/*
 * The whole parse of one mail as ingest sees it: headers, MIME, charsets,
 * subject, patch, trailers, commands, dates.  Nothing may crash, and the
 * result must always be storable: a key, a kind and valid UTF-8 text.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/mail.h"
#include "parsers/msgid.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena *a = arena_new();
	struct mail_opts o = { "#yard", "bot@example.org" };
	struct mail m;
	size_t i;

	mail_parse(a, (const char *)data, size, &o, &m);
	if (m.msgid == NULL || !msgid_valid(str_from(m.msgid)))
		abort();
	if (!utf8_valid(m.subject, strlen(m.subject)))
		abort();
	if (m.text.n && !utf8_valid(m.text.p, m.text.n))
		abort();
	for (i = 0; i < m.nrefs; i++)
		if (!msgid_valid(str_from(m.refs[i])))
			abort();
	arena_free(a);
	return 0;
}
