#include "util/base64.h"

#include "util/ascii.h"

static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "abcdefghijklmnopqrstuvwxyz0123456789+/";

static int
value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

size_t
base64_len(size_t n)
{
	return (n + 2) / 3 * 4;
}

void
base64_encode(char *dst, const void *src, size_t n)
{
	const unsigned char *p = src;
	size_t i, o = 0;

	for (i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16;

		v |= i + 1 < n ? (unsigned)p[i + 1] << 8 : 0;
		v |= i + 2 < n ? p[i + 2] : 0;
		dst[o++] = digits[v >> 18];
		dst[o++] = digits[(v >> 12) & 63];
		dst[o++] = i + 1 < n ? digits[(v >> 6) & 63] : '=';
		dst[o++] = i + 2 < n ? digits[v & 63] : '=';
	}
	dst[o] = '\0';
}

void
base64_encode_buf(struct buf *out, const void *src, size_t n)
{
	size_t len = base64_len(n);

	buf_reserve(out, len);
	base64_encode(out->p + out->n, src, n);
	out->n += len;
}

bool
base64_digit(char c)
{
	return value((unsigned char)c) >= 0;
}

size_t
base64_decode(char *dst, const char *src, size_t n, bool *bad)
{
	unsigned acc = 0;
	int bits = 0;
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];
		int v = value(c);

		if (v >= 0) {
			acc = (acc << 6) | (unsigned)v;
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				dst[o++] = (char)(acc >> bits);
				acc &= (1u << bits) - 1;
			}
		} else if (c == '=') {
			/* Padding ends a quantum; data after it starts a new
			 * one (concatenated base64 blocks). */
			if (bits == 6 && bad)
				*bad = true;
			bits = 0;
			acc = 0;
		} else if (!ascii_isspace((char)c) && bad) {
			*bad = true;
		}
	}
	if (bits == 6 && bad)
		*bad = true;
	return o;
}
