#include "util/xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("patchyard: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		fatal("out of memory (%zu bytes)", n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		fatal("out of memory (%zu x %zu bytes)", nmemb, size);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		fatal("out of memory (%zu bytes)", n);
	return q;
}

void *
xgrow(void *p, size_t *nmemb, size_t need, size_t size)
{
	size_t n = *nmemb;

	if (need <= n)
		return p;
	if (n < 8)
		n = 8;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			fatal("array too large");
		n *= 2;
	}
	if (size && n > SIZE_MAX / size)
		fatal("array too large");
	p = xrealloc(p, n * size);
	*nmemb = n;
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}
