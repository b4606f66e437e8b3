#include "util/ascii.h"

int
ascii_strnicmp(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char x = ascii_tolower(a[i]), y = ascii_tolower(b[i]);

		if (x != y)
			return (unsigned char)x - (unsigned char)y;
	}
	return 0;
}

int
ascii_stricmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		char x = ascii_tolower(*a), y = ascii_tolower(*b);

		if (x != y)
			return (unsigned char)x - (unsigned char)y;
		if (x == '\0')
			return 0;
	}
}

void
ascii_lower(char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		s[i] = ascii_tolower(s[i]);
}
