/*
 * The cheap header pass (RFC 5322 §2.2): one scan with memchr over the
 * header block, field values kept as views into the raw mail.
 */
#include "parsers/hdr.h"

#include <string.h>

#include "parsers/limits.h"
#include "util/ascii.h"

/* Fields most mails carry fit in the first array; it doubles after. */
#define HDR_FIRST_CAP 32

/*
 * A field name is printable ASCII without blanks (RFC 5322 ftext).  A
 * line whose text before the colon holds anything else is not a field
 * but garbage, and is skipped.
 */
static bool
name_ok(const char *p, size_t n)
{
	size_t i;

	if (n == 0)
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c <= ' ' || c >= 0x7f)
			return false;
	}
	return true;
}

static struct hdr_field *
grow(struct arena *a, struct hdr_field *f, size_t n, size_t *cap)
{
	struct hdr_field *nf;

	if (n < *cap)
		return f;
	*cap *= 2;
	nf = arena_alloc(a, *cap * sizeof(*nf));
	memcpy(nf, f, n * sizeof(*nf));
	return nf;
}

/* Skip a leading mbox "From " line; returns where the header starts. */
static size_t
skip_from_line(const char *raw, size_t n)
{
	const char *nl;

	if (n < 5 || memcmp(raw, "From ", 5) != 0)
		return 0;
	nl = memchr(raw, '\n', n);
	return nl ? (size_t)(nl - raw) + 1 : n;
}

enum err
hdr_split(struct arena *a, const char *raw, size_t n, struct hdr *out)
{
	size_t cap = HDR_FIRST_CAP, count = 0, start = skip_from_line(raw, n);
	const char *p = raw + start, *end = raw + n;
	const char *limit =
	    n - start > LIMIT_HEADER_SIZE ? p + LIMIT_HEADER_SIZE : end;
	struct hdr_field *f = arena_alloc(a, cap * sizeof(*f));
	bool in_field = false;

	out->f = f;
	out->n = 0;
	out->body_off = n;
	out->no_body = true;
	out->limit = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(limit - p));
		const char *eol = nl ? nl : limit;
		const char *colon;

		if (nl == NULL && limit < end) {
			out->limit = "header size";
			return ERR_LIMIT;
		}
		if (eol > p && eol[-1] == '\r')
			eol--;
		if (eol == p) {
			out->body_off = (size_t)((nl ? nl + 1 : end) - raw);
			out->no_body = false;
			break;
		}
		if (*p == ' ' || *p == '\t') {
			/* A continuation line belongs to the field above, if
			 * that was a field and not a skipped garbage line. */
			if (in_field)
				f[count - 1].value.n =
				    (size_t)(eol - f[count - 1].value.p);
			if (in_field &&
			    f[count - 1].value.n > LIMIT_FIELD_SIZE) {
				out->limit = "header field";
				return ERR_LIMIT;
			}
		} else if ((colon = memchr(p, ':', (size_t)(eol - p))) !=
		    NULL) {
			struct str name =
			    str_rtrim(str_make(p, (size_t)(colon - p)));

			in_field = name_ok(name.p, name.n);
			if (in_field) {
				if (count == LIMIT_HEADER_COUNT) {
					out->limit = "header fields";
					return ERR_LIMIT;
				}
				f = grow(a, f, count, &cap);
				f[count].name = name;
				f[count].value = str_make(
				    colon + 1, (size_t)(eol - colon - 1));
				if (f[count].value.n > LIMIT_FIELD_SIZE) {
					out->limit = "header field";
					return ERR_LIMIT;
				}
				count++;
			}
		} else {
			in_field = false;
		}
		p = nl ? nl + 1 : end;
	}
	out->f = f;
	out->n = count;
	return ERR_OK;
}

const struct hdr_field *
hdr_get(const struct hdr *h, const char *name)
{
	size_t i, len = strlen(name);

	for (i = 0; i < h->n; i++) {
		const struct hdr_field *f = &h->f[i];

		if (f->name.n == len &&
		    ascii_strnicmp(f->name.p, name, len) == 0)
			return f;
	}
	return NULL;
}

struct str
hdr_value(struct arena *a, const struct hdr *h, const char *name)
{
	const struct hdr_field *f = hdr_get(h, name);

	return f ? hdr_unfold(a, f->value) : STR_NULL;
}

struct str
hdr_unfold(struct arena *a, struct str value)
{
	size_t i = 0, o = 0;
	char *q = arena_alloc(a, value.n + 1);
	struct str t;

	while (i < value.n) {
		char c = value.p[i++];

		if (c == '\r' || c == '\n') {
			while (i < value.n &&
			    (value.p[i] == '\r' || value.p[i] == '\n' ||
			        value.p[i] == ' ' || value.p[i] == '\t'))
				i++;
			c = ' ';
		} else if (c == '\0') {
			c = ' ';
		}
		q[o++] = c;
	}
	t = str_trim(str_make(q, o));
	q[t.p - q + t.n] = '\0';
	return t;
}
