/*
 * Fuzz target: address parsing and the Authentication-Results check.
 * The input is a mail header block; its From and its Authentication-
 * Results fields are read as patchyard reads them.
 */
#include <stdint.h>
#include <string.h>

#include "parsers/addr.h"
#include "parsers/hdr.h"
#include "parsers/limits.h"
#include "util/arena.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(const struct addr *ad)
{
	if (ad->name == NULL || ad->email == NULL ||
	    !utf8_valid(ad->name, strlen(ad->name)) ||
	    strchr(ad->email, '@') == NULL)
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena *a = arena_new();
	struct hdr h;
	struct addr from, *list;
	size_t n, i;
	const char *why;

	if (hdr_split(a, (const char *)data, size, &h) == ERR_OK) {
		if (addr_parse(a, hdr_value(a, &h, "From"), &from) == ERR_OK) {
			check(&from);
			addr_org_domain(a, addr_domain(from.email));
		}
		if (addr_parse_list(a, hdr_value(a, &h, "To"), &list, &n) ==
		    ERR_OK) {
			if (n > LIMIT_ADDRESSES)
				__builtin_trap();
			for (i = 0; i < n; i++)
				check(&list[i]);
		}
		addr_auth_check(a, &h, "mx.example.net",
		    addr_parse(a, hdr_value(a, &h, "From"), &from) == ERR_OK
		        ? from.email
		        : NULL,
		    &why);
	}
	arena_free(a);
	return 0;
}
