/*
 * libFuzzer target for patatt_parse(): any bytes as a mail.  Nothing may
 * crash; every signature found is complete (selector, algo and from are
 * set), there are at most LIMIT_DEVSIGS, and only a usable signature can
 * verify, here against a key of zeros and one of the fixtures' keys.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/limits.h"
#include "parsers/patatt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* tests/fixtures/patatt/keyring/ed25519/example.org/ada/yard */
static const unsigned char ada[32] = { 0x89, 0xba, 0x0b, 0xdc, 0x36, 0x3c, 0x8e,
	0x24, 0x8e, 0x7e, 0x9b, 0xdb, 0x3e, 0x0c, 0xd4, 0x44, 0xf1, 0xd5, 0x92,
	0xf9, 0xe9, 0x0e, 0x77, 0x12, 0x4d, 0x8f, 0x5f, 0x03, 0xe3, 0x61, 0x46,
	0x9a };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char zero[32];
	struct arena *a = arena_new();
	struct patatt_sig *s;
	size_t n, i;

	if (patatt_parse(a, (const char *)data, size, &s, &n) == ERR_OK) {
		if (n > LIMIT_DEVSIGS || (n > 0 && s == NULL))
			abort();
		for (i = 0; i < n; i++) {
			if (s[i].selector == NULL || s[i].algo == NULL ||
			    s[i].from == NULL)
				abort();
			if (!s[i].usable &&
			    (patatt_verify_headers(&s[i], ada) ||
			        patatt_verify(&s[i], zero)))
				abort();
			if (patatt_verify(&s[i], ada) && !s[i].body_ok)
				abort();
		}
	}
	arena_free(a);
	return 0;
}
