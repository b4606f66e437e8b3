/*
 * patatt's developer signatures, as patatt 0.6 (patatt/__init__.py, what
 * `b4 send` runs) makes and checks them.  patatt signs the mail as
 * `git mailinfo --encoding=utf-8 --no-scissors` reads it, with DKIM's
 * machinery (RFC 6376) around it:
 *
 * - the body is mailinfo's msg file followed by its patch file, the line
 *   breaks at its end cut, every line (any CR at its end dropped) ended
 *   with CRLF; bh= is the base64 of its SHA-256;
 * - the header fields are the mail's, but every From: holds
 *   " Author <Email>" and every Subject: " Subject" of mailinfo's output;
 *   h= names those signed (from, subject, and message-id when there is
 *   one), taken bottom-up as DKIM takes them, each "name:value" in DKIM's
 *   "relaxed" form (line breaks removed, blank runs made one space, ends
 *   trimmed, CRLF after);
 * - after them comes "x-developer-signature:" and the signature field's
 *   own relaxed value up to its last "b=";
 * - the SHA-256 of all that is what ed25519 signs, and b= holds what
 *   PyNaCl's SigningKey.sign() returns: the 64-byte signature, then that
 *   32-byte digest again.
 *
 * patatt checks bh= before the signature; so does patatt_verify().  With
 * git 2.39, mailinfo's --encoding=utf-8 re-encodes nothing (a bug: only -u
 * does), so a sender whose git has it signs a non-UTF-8 mail in its own
 * charset's bytes; we read mailinfo's view as it is meant to be, UTF-8,
 * which is the same for every mail git format-patch writes.  patatt also
 * decodes RFC 2047 words in a signed value that holds "?q?": mailinfo's
 * From and Subject are decoded already, and a Message-ID holds none.
 */
#include "parsers/patatt.h"

#include <nettle/eddsa.h>
#include <nettle/sha2.h>
#include <string.h>

#include "parsers/charset.h"
#include "parsers/hdr.h"
#include "parsers/limits.h"
#include "parsers/mime.h"
#include "parsers/patch.h"
#include "util/ascii.h"
#include "util/base64.h"

#define DEVSIG_NAME "x-developer-signature"

_Static_assert(ED25519_KEY_SIZE == 32, "ed25519 keys are 32 bytes");
_Static_assert(ED25519_SIGNATURE_SIZE == 64, "ed25519 signatures: 64 bytes");
_Static_assert(SHA256_DIGEST_SIZE == 32, "SHA-256 digests are 32 bytes");

/* A header field as patatt signs it: lower-case name, the value. */
struct pfield {
	struct str name;
	struct str value;
	bool used; /* taken by an earlier h= entry of this signature */
};

/* The tags of a signature field that matter here. */
struct tags {
	struct str a, t, i, s, h, bh;
};

/* Where canonical bytes go: a buffer, a hash, or both. */
struct sink {
	char *out;
	struct sha256_ctx *c;
	size_t n; /* bytes put */
	size_t k; /* bytes in chunk */
	char chunk[256];
};

static void
sink_flush(struct sink *s)
{
	if (s->c != NULL && s->k > 0)
		sha256_update(s->c, s->k, (const uint8_t *)s->chunk);
	s->k = 0;
}

static void
sink_put(struct sink *s, char ch)
{
	if (s->out != NULL)
		s->out[s->n] = ch;
	s->n++;
	if (s->c != NULL) {
		s->chunk[s->k++] = ch;
		if (s->k == sizeof(s->chunk))
			sink_flush(s);
	}
}

/*
 * DKIM's relaxed form of a value as patatt makes it
 * (_dkim_canonicalize_header()): CR and LF removed, runs of blanks
 * (Python's \s: SP, TAB, LF, CR, FF, VT) made one space, the ends
 * trimmed, CRLF after.  Into out when out is not NULL (v.n + 2 bytes
 * are enough), hashed into c when c is not NULL; returns the length.
 */
static size_t
relaxed(struct str v, char *out, struct sha256_ctx *c)
{
	struct sink s;
	bool blank = false;
	size_t i;

	memset(&s, 0, sizeof(s));
	s.out = out;
	s.c = c;
	for (i = 0; i < v.n; i++) {
		char ch = v.p[i];

		if (ch == '\r' || ch == '\n')
			continue;
		if (ascii_isspace(ch)) {
			blank = true;
			continue;
		}
		if (blank && s.n > 0)
			sink_put(&s, ' ');
		blank = false;
		sink_put(&s, ch);
	}
	sink_put(&s, '\r');
	sink_put(&s, '\n');
	sink_flush(&s);
	return s.n;
}

/*
 * The tags of a signature field's relaxed value, as patatt's from_bytes()
 * reads them: every blank removed, "name=value" pairs split at ';', a
 * pair without '=' ignored, the last of a name winning.
 */
static void
parse_tags(struct arena *a, struct str canon, struct tags *t)
{
	char *s = arena_alloc(a, canon.n + 1);
	const char *p, *end;
	size_t i, n = 0;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < canon.n; i++)
		if (!ascii_isspace(canon.p[i]))
			s[n++] = canon.p[i];
	for (p = s, end = s + n; p < end;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *stop = semi ? semi : end;
		const char *eq = memchr(p, '=', (size_t)(stop - p));

		if (eq != NULL) {
			struct str name = str_make(p, (size_t)(eq - p));
			struct str val =
			    str_make(eq + 1, (size_t)(stop - eq - 1));

			if (str_eqs(name, "a"))
				t->a = val;
			else if (str_eqs(name, "t"))
				t->t = val;
			else if (str_eqs(name, "i"))
				t->i = val;
			else if (str_eqs(name, "s"))
				t->s = val;
			else if (str_eqs(name, "h"))
				t->h = val;
			else if (str_eqs(name, "bh"))
				t->bh = val;
		}
		p = semi ? semi + 1 : end;
	}
}

/*
 * The canonical body's SHA-256, base64 (45 bytes with the NUL): msg and
 * patch together, the line breaks at the end cut, every line without
 * the CRs at its end and with CRLF after it (one "\r\n" for nothing).
 */
static void
body_hash(struct arena *a, struct str msg, struct str patch, char out[45])
{
	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_SIZE];
	size_t n = msg.n + patch.n, start = 0;
	char *p = arena_alloc(a, n + 1);

	if (msg.n)
		memcpy(p, msg.p, msg.n);
	if (patch.n)
		memcpy(p + msg.n, patch.p, patch.n);
	while (n > 0 && (p[n - 1] == '\r' || p[n - 1] == '\n'))
		n--;
	sha256_init(&c);
	for (;;) {
		const char *nl = memchr(p + start, '\n', n - start);
		size_t end = nl ? (size_t)(nl - p) : n, len = end - start;

		while (len > 0 && p[start + len - 1] == '\r')
			len--;
		sha256_update(&c, len, (const uint8_t *)p + start);
		sha256_update(&c, 2, (const uint8_t *)"\r\n");
		if (nl == NULL)
			break;
		start = end + 1;
	}
	sha256_digest(&c, sizeof(d), d);
	base64_encode(out, d, sizeof(d));
}

/* The unfolded value of the last field called name: mailinfo lets a
 * later From: or Subject: win.  STR_NULL when there is none. */
static struct str
last_value(struct arena *a, const struct hdr *h, const char *name)
{
	size_t k;

	for (k = h->n; k-- > 0;)
		if (str_ieqs(h->f[k].name, name))
			return hdr_unfold(a, h->f[k].value);
	return STR_NULL;
}

/* The mail as `git mailinfo` sees it. */
static enum err
mailinfo(struct arena *a, const char *raw, size_t n, const struct hdr *h,
    struct patch_mailinfo *mi)
{
	struct patch_in in;
	struct mime body;
	struct str v;
	enum err e;

	e = mime_parse(a, raw, n, h, &body);
	if (e != ERR_OK)
		return e;
	memset(&in, 0, sizeof(in));
	in.body = &body;
	v = last_value(a, h, "From");
	if (v.p != NULL) {
		e = charset_decode_header(a, v, &in.from_value, NULL);
		if (e != ERR_OK)
			return e;
	}
	v = last_value(a, h, "Subject");
	if (v.p != NULL) {
		e = charset_decode_header(a, v, &in.subject, NULL);
		if (e != ERR_OK)
			return e;
	}
	return patch_mailinfo(a, &in, 0, mi);
}

/*
 * The header fields as patatt signs them: names lower-cased, and every
 * From: and Subject: (so named, no blank before the colon) holding
 * mailinfo's values.
 */
static struct pfield *
signed_fields(
    struct arena *a, const struct hdr *h, const struct patch_mailinfo *mi)
{
	struct pfield *f = arena_zalloc(a, (h->n + 1) * sizeof(*f));
	size_t k;

	for (k = 0; k < h->n; k++) {
		const struct hdr_field *hf = &h->f[k];
		bool exact = hf->name.p + hf->name.n + 1 == hf->value.p;
		char *name = arena_strndup(a, hf->name.p, hf->name.n);

		ascii_lower(name, hf->name.n);
		f[k].name = str_make(name, hf->name.n);
		f[k].value = hf->value;
		if (exact && str_eqs(f[k].name, "from"))
			f[k].value = str_from(arena_printf(
			    a, " %s <%s>", mi->author.name, mi->author.email));
		else if (exact && str_eqs(f[k].name, "subject"))
			f[k].value =
			    str_from(arena_printf(a, " %s", mi->subject));
	}
	return f;
}

/*
 * Hash the fields h= names (bottom-up, each field once) into c; false
 * when h= does not name both from and subject, or names more than
 * LIMIT_DEVSIG_FIELDS.
 */
static bool
hash_fields(struct sha256_ctx *c, struct pfield *f, size_t nf, struct str h)
{
	const char *p = h.p, *end = h.p + h.n;
	bool from = false, subject = false;
	size_t k, count = 0;

	for (k = 0; k < nf; k++)
		f[k].used = false;
	while (p <= end && h.p != NULL) {
		const char *colon = memchr(p, ':', (size_t)(end - p));
		struct str name =
		    str_make(p, (size_t)((colon ? colon : end) - p));

		if (++count > LIMIT_DEVSIG_FIELDS)
			return false;
		from = from || str_eqs(name, "from");
		subject = subject || str_eqs(name, "subject");
		for (k = nf; k-- > 0;) {
			if (f[k].used || !str_eq(f[k].name, name))
				continue;
			f[k].used = true;
			sha256_update(c, name.n, (const uint8_t *)name.p);
			sha256_update(c, 1, (const uint8_t *)":");
			relaxed(f[k].value, NULL, c);
			break;
		}
		if (colon == NULL)
			break;
		p = colon + 1;
	}
	return from && subject;
}

/* The last "b=" of s, or -1. */
static long
last_b(struct str s)
{
	size_t i;

	for (i = s.n; i-- > 1;)
		if (s.p[i - 1] == 'b' && s.p[i] == '=')
			return (long)(i - 1);
	return -1;
}

static enum patatt_kind
kind_of(struct str algo)
{
	if (str_eqs(algo, "ed25519-sha256"))
		return PATATT_ED25519;
	if (str_startswith(algo, "openpgp"))
		return PATATT_OPENPGP;
	if (str_startswith(algo, "openssh"))
		return PATATT_OPENSSH;
	return PATATT_UNKNOWN;
}

/* One signature field: its tags, the body check and, for an ed25519
 * one, the digest its signature must cover. */
static void
read_sig(struct arena *a, struct str value, struct pfield *f, size_t nf,
    const char *bh, struct patatt_sig *s)
{
	char *cv = arena_alloc(a, value.n + 3);
	struct str canon;
	struct sha256_ctx c;
	struct tags t;
	char *sigb64;
	size_t i, n = 0;
	uint8_t blob[64 + 32 + 3];
	long b;
	bool bad = false;

	canon = str_make(cv, relaxed(value, cv, NULL));
	parse_tags(a, canon, &t);
	s->identity = t.i.p ? arena_strndup(a, t.i.p, t.i.n) : NULL;
	s->selector = t.s.p ? arena_strndup(a, t.s.p, t.s.n) : "default";
	s->algo = arena_strndup(a, t.a.p ? t.a.p : "", t.a.n);
	s->kind = kind_of(t.a);
	s->body_ok = t.bh.p != NULL && str_eqs(t.bh, bh);
	b = last_b(canon);
	if (s->kind != PATATT_ED25519 || t.t.n == 0 || t.i.n == 0 || b < 0)
		return;
	sha256_init(&c);
	if (!hash_fields(&c, f, nf, t.h))
		return;
	sha256_update(
	    &c, strlen(DEVSIG_NAME ":"), (const uint8_t *)DEVSIG_NAME ":");
	sha256_update(&c, (size_t)b + 2, (const uint8_t *)canon.p);
	sha256_digest(&c, sizeof(s->digest), s->digest);
	/* b= is the rest of the value, blanks and the CRLF left out. */
	sigb64 = arena_alloc(a, canon.n + 1);
	for (i = (size_t)b + 2; i < canon.n; i++)
		if (!ascii_isspace(canon.p[i]))
			sigb64[n++] = canon.p[i];
	if (n > 4 * ((sizeof(blob) + 2) / 3))
		return;
	n = base64_decode((char *)blob, sigb64, n, &bad);
	if (bad || n != 64 + 32 || memcmp(blob + 64, s->digest, 32) != 0)
		return;
	memcpy(s->sig, blob, 64);
	s->usable = true;
}

enum err
patatt_parse(struct arena *a, const char *raw, size_t n,
    struct patatt_sig **sigs, size_t *nsigs)
{
	struct patch_mailinfo mi;
	struct pfield *f;
	struct hdr h;
	char bh[45];
	size_t k, count = 0;
	enum err e;

	*sigs = NULL;
	*nsigs = 0;
	if (n > LIMIT_MAIL_SIZE)
		return ERR_LIMIT;
	e = hdr_split(a, raw, n, &h);
	if (e != ERR_OK)
		return e;
	for (k = 0; k < h.n; k++)
		if (str_ieqs(h.f[k].name, DEVSIG_NAME))
			count++;
	if (count == 0)
		return ERR_OK;
	if (count > LIMIT_DEVSIGS)
		return ERR_LIMIT;
	e = mailinfo(a, raw, n, &h, &mi);
	if (e != ERR_OK)
		return e;
	body_hash(a, mi.msg, mi.patch, bh);
	f = signed_fields(a, &h, &mi);
	*sigs = arena_zalloc(a, count * sizeof(**sigs));
	for (k = 0; k < h.n; k++) {
		struct patatt_sig *s = &(*sigs)[*nsigs];

		if (!str_ieqs(h.f[k].name, DEVSIG_NAME))
			continue;
		s->from = mi.author.email;
		read_sig(a, h.f[k].value, f, h.n, bh, s);
		(*nsigs)++;
	}
	return ERR_OK;
}

bool
patatt_verify_headers(const struct patatt_sig *s, const unsigned char pub[32])
{
	return s->usable &&
	    ed25519_sha512_verify(pub, sizeof(s->digest), s->digest, s->sig) ==
	    1;
}

bool
patatt_verify(const struct patatt_sig *s, const unsigned char pub[32])
{
	return s->body_ok && patatt_verify_headers(s, pub);
}
