/*
 * What a client sends the web server and we parse ourselves: a check's
 * JSON body (behind jansson's wall, bot/web/webbody.c), the same as a
 * form, a PATCH body's fields, and the ids of a path.  The input is a
 * path, a NUL, then a body.  Nothing may crash; a body taken must hold
 * only what a page may show; a path escaped for a page must hold no
 * markup; a path with a %00 is one the server refuses.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bot/web/webpriv.h"
#include "util/esc.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A check taken from a body: only what a page may show. */
static void taken(const struct web_check_in *in);

static void
plain(const char *s, size_t max)
{
	size_t i, n;

	if (s == NULL)
		return;
	n = strlen(s);
	if (n > max || !utf8_valid(s, n))
		abort();
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			abort();
}

/* A check taken from a body: only what a page may show. */
static void
taken(const struct web_check_in *in)
{
	plain(in->state, 16);
	plain(in->context, 255);
	plain(in->url, 2048);
	plain(in->description, 2000);
	if (in->url && !web_http_url(in->url))
		abort();
	if (in->msgid == NULL && in->patch <= 0)
		abort();
}

/* The same body as a form and as a PATCH's fields. */
static void
form(struct arena *a, const char *body, size_t n)
{
	struct web_check_in in;
	struct web_arg *f = NULL;
	const char *why = NULL;
	size_t nf = 0, i;

	if (webbody_form(a, body, n, 16, &f, &nf, &why)) {
		if (nf > 16)
			abort();
		for (i = 0; i < nf; i++)
			if (f[i].name == NULL || f[i].value == NULL)
				abort();
		if (webbody_check_form(a, f, nf, 1, &in, &why))
			taken(&in);
		else if (why == NULL)
			abort();
	} else if (why == NULL) {
		abort();
	}
	why = NULL;
	if (webbody_fields(a, body, n, 16, &f, &nf, &why)) {
		for (i = 0; i < nf; i++)
			if (f[i].name == NULL)
				abort();
	} else if (why == NULL) {
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	const char *nul = memchr(p, '\0', size);
	size_t plen = nul ? (size_t)(nul - p) : size;
	struct arena *a = arena_new();
	struct web_check_in in;
	struct buf b = BUF_INIT;
	const char *why = NULL;
	int64_t id;
	size_t i;

	if (web_id(p, plen, &id) && id <= 0)
		abort();
	/* The server refuses a target that decodes to a NUL. */
	if (memmem(p, plen, "%00", 3) && !web_uri_nul(p, plen))
		abort();
	esc_html_attr(&b, p, plen);
	if (!utf8_valid(b.p ? b.p : "", b.n))
		abort();
	for (i = 0; i < b.n; i++)
		if (b.p[i] == '<' || b.p[i] == '>' || b.p[i] == '"' ||
		    b.p[i] == '\'')
			abort();
	if (nul && webbody_check(a, nul + 1, size - plen - 1, 0, &in, &why))
		taken(&in);
	else if (nul && why == NULL)
		abort();
	if (nul)
		form(a, nul + 1, size - plen - 1);
	buf_free(&b);
	arena_free(a);
	return 0;
}
