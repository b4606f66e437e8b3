#include "util/utf8.h"

#include <stdint.h>
#include <string.h>

/* Length of the valid sequence at p (1..4), or 0 when invalid. */
static size_t
seq_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (n >= 2 && (p[1] & 0xc0) == 0x80) ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = 0x80, hi = 0xbf;

		if (c == 0xe0)
			lo = 0xa0;
		if (c == 0xed)
			hi = 0x9f;
		if (n < 3 || p[1] < lo || p[1] > hi || (p[2] & 0xc0) != 0x80)
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = 0x80, hi = 0xbf;

		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f;
		if (n < 4 || p[1] < lo || p[1] > hi || (p[2] & 0xc0) != 0x80 ||
		    (p[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

size_t
utf8_valid_prefix(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		size_t k;
		uint64_t w;

		/* Mail is mostly ASCII: skip it eight bytes at a time. */
		while (i + 8 <= n) {
			memcpy(&w, p + i, 8);
			if (w & UINT64_C(0x8080808080808080))
				break;
			i += 8;
		}
		if (i >= n)
			break;
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		k = seq_len(p + i, n - i);
		if (k == 0)
			break;
		i += k;
	}
	return i;
}

bool
utf8_valid(const char *p, size_t n)
{
	return utf8_valid_prefix(p, n) == n;
}

void
utf8_repair(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, start = 0;

	while (i < n) {
		size_t k = p[i] ? seq_len(p + i, n - i) : 0;

		if (k) {
			i += k;
			continue;
		}
		buf_add(b, s + start, i - start);
		buf_add(b, "\xef\xbf\xbd", 3);
		i++;
		start = i;
	}
	buf_add(b, s + start, n - start);
}
