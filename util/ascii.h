/*
 * ASCII character classes and case folding.  Mail headers and keys are
 * ASCII; the C locale's <ctype.h> is never consulted.
 */
#ifndef UTIL_ASCII_H
#define UTIL_ASCII_H

#include <stdbool.h>
#include <stddef.h>

static inline bool
ascii_isspace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	    c == '\v';
}

static inline bool
ascii_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool
ascii_isalpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline bool
ascii_isalnum(char c)
{
	return ascii_isalpha(c) || ascii_isdigit(c);
}

static inline bool
ascii_isxdigit(char c)
{
	return ascii_isdigit(c) || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

static inline char
ascii_tolower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
}

static inline char
ascii_toupper(char c)
{
	return (c >= 'a' && c <= 'z') ? (char)(c - 32) : c;
}

/* Value of a hex digit, or -1. */
static inline int
ascii_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int ascii_strnicmp(const char *a, const char *b, size_t n);
int ascii_stricmp(const char *a, const char *b);
/* Lower-case s in place. */
void ascii_lower(char *s, size_t n);

#endif
