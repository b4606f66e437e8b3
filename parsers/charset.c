/*
 * Charsets to UTF-8 and the encoded forms of mail text: RFC 2047
 * encoded-words and RFC 2231 parameter values (the transfer decodings
 * themselves are util/base64.c and util/qp.c).
 *
 * Every path ends in valid UTF-8: the declared charset is tried first
 * (iconv), then UTF-8, and any byte that is not part of a valid UTF-8
 * sequence is read as windows-1252, which maps all 256 bytes (the five
 * it leaves undefined map to their C1 code points, as WHATWG's decoder
 * does).  ISO-8859-1 is read as windows-1252 too: that is what every
 * mail reader does, because 0x80-0x9f in "latin1" mail are cp1252.
 */
#include "parsers/charset.h"

#include <errno.h>
#include <iconv.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/limits.h"
#include "util/ascii.h"
#include "util/base64.h"
#include "util/qp.h"
#include "util/utf8.h"
#include "util/xalloc.h"

enum cs_kind {
	CS_UTF8, /* UTF-8, US-ASCII or nothing declared */
	CS_1252, /* windows-1252 and ISO-8859-1: mapped here, no iconv */
	CS_ICONV, /* anything else iconv may know */
	CS_UNKNOWN /* a name we will not hand to iconv */
};

/* Longest charset name we look at; real ones are under 20 bytes. */
#define CS_NAME_MAX 40

/* windows-1252 0x80-0x9f; the rest of the bytes are their code point. */
static const unsigned short cp1252_c1[32] = { 0x20ac, 0x0081, 0x201a, 0x0192,
	0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152,
	0x008d, 0x017d, 0x008f, 0x0090, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022,
	0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x009d, 0x017e,
	0x0178 };

static const char *const cs_utf8[] = { "utf-8", "utf8", "us-ascii", "ascii",
	"us", "ansi_x3.4-1968", "iso646-us", "iso-ir-6", "cp367", "ibm367",
	"unicode-1-1-utf-8", "x-unicode20utf8", "utf-8-sig", NULL };

static const char *const cs_1252[] = { "windows-1252", "cp1252", "x-cp1252",
	"cp-1252", "win-1252", "iso-8859-1", "iso8859-1", "iso_8859-1",
	"iso-8859-1:1987", "iso_8859-1:1987", "latin1", "latin-1", "l1",
	"iso-ir-100", "cp819", "ibm819", "csisolatin1", NULL };

/* Names MUAs write that iconv spells differently, or not at all. */
static const char *const cs_rename[][2] = {
	{ "unicode-1-1-utf-7", "utf-7" },
	{ "x-unicode-1-1-utf-7", "utf-7" },
	{ "gb2312", "gb18030" },
	{ "gbk", "gb18030" },
	{ "x-gbk", "gb18030" },
	{ "cp936", "gb18030" },
	{ "ks_c_5601-1987", "cp949" },
	{ "iso-8859-8-i", "iso-8859-8" },
	{ "iso-8859-6-i", "iso-8859-6" },
	{ "x-mac-roman", "macintosh" },
	{ "x-sjis", "shift_jis" },
	{ "cp-1250", "cp1250" },
	{ "cp-1251", "cp1251" },
	{ NULL, NULL },
};

/* Labels that say "we do not know": no conversion is attempted. */
static const char *const cs_unknown[] = { "unknown-8bit", "unknown",
	"x-unknown", "x-user-defined", "8bit", "7bit", "default", "charset",
	"none", NULL };

static bool
in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/*
 * Classify a declared charset; for CS_ICONV, name gets what to hand to
 * iconv.  Only [a-z0-9._:+()-] reach iconv: glibc reads "//" suffixes
 * in names, and mail must not choose those.
 */
static enum cs_kind
cs_classify(const char *cs, size_t n, char name[CS_NAME_MAX + 1])
{
	size_t i;

	while (n && (ascii_isspace(*cs) || *cs == '"' || *cs == '\'')) {
		cs++;
		n--;
	}
	while (n &&
	    (ascii_isspace(cs[n - 1]) || cs[n - 1] == '"' || cs[n - 1] == '\''))
		n--;
	if (n == 0)
		return CS_UTF8;
	if (n > CS_NAME_MAX)
		return CS_UNKNOWN;
	for (i = 0; i < n; i++) {
		char c = ascii_tolower(cs[i]);

		if (!ascii_isalnum(c) && strchr("._:+()-", c) == NULL)
			return CS_UNKNOWN;
		name[i] = c;
	}
	name[n] = '\0';
	if (in_list(cs_utf8, name))
		return CS_UTF8;
	if (in_list(cs_1252, name))
		return CS_1252;
	if (in_list(cs_unknown, name))
		return CS_UNKNOWN;
	for (i = 0; cs_rename[i][0]; i++) {
		if (strcmp(cs_rename[i][0], name) == 0) {
			strcpy(name, cs_rename[i][1]);
			break;
		}
	}
	return CS_ICONV;
}

/* UTF-8 of one code point below 0x10000; returns its length. */
static size_t
put_bmp(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	o[0] = (char)(0xe0 | (cp >> 12));
	o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[2] = (char)(0x80 | (cp & 0x3f));
	return 3;
}

static unsigned
cp1252(unsigned char c)
{
	return c >= 0x80 && c < 0xa0 ? cp1252_c1[c - 0x80] : c;
}

/*
 * The lenient reading, in two passes over the same walk: with o == NULL
 * it only counts the output bytes.  Valid UTF-8 is kept, NUL becomes
 * U+FFFD, and every other byte is read as windows-1252 (all_1252: every
 * byte, valid UTF-8 or not).  *fb is set when a byte needed windows-1252.
 */
static size_t
lenient(char *o, const char *p, size_t n, bool all_1252, bool *fb)
{
	size_t i = 0, w = 0;

	while (i < n) {
		unsigned char c = (unsigned char)p[i];
		size_t k;

		if (c != 0 && c < 0x80) {
			if (o)
				o[w] = (char)c;
			w++;
			i++;
			continue;
		}
		k = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		if (k > n - i || utf8_valid_prefix(p + i, k) != k)
			k = 0;
		if (c != 0 && !all_1252 && k > 0) {
			/* One valid multibyte sequence. */
			if (o)
				memcpy(o + w, p + i, k);
			w += k;
			i += k;
			continue;
		}
		if (c != 0 && !all_1252 && fb)
			*fb = true;
		if (o)
			put_bmp(o + w, c == 0 ? 0xfffd : cp1252(c));
		w += c == 0 ? 3
		            : (cp1252(c) < 0x80           ? 1
		                      : cp1252(c) < 0x800 ? 2
		                                          : 3);
		i++;
	}
	return w;
}

/* Append the lenient reading of p to b. */
static enum err
add_lenient(struct buf *b, const char *p, size_t n, bool all_1252, bool *fb)
{
	size_t need = lenient(NULL, p, n, all_1252, NULL);

	if (!buf_fits(b, need))
		return ERR_LIMIT;
	buf_reserve(b, need);
	lenient(b->p + b->n, p, n, all_1252, fb);
	b->n += need;
	b->p[b->n] = '\0';
	return ERR_OK;
}

/*
 * Converters kept open, for the process: glibc loads a charset's module
 * (a shared object) at iconv_open() and unloads it when the last
 * converter using it is closed, and unloading unmaps it, which makes the
 * kernel flush the TLB of every core the process runs on, the import's
 * writer's too.  An import meets the same few charsets again and again.
 * A converter is one thread's at a time: taken from the pool, reset,
 * given back.
 */
#define CD_POOL 16

static struct {
	char name[CS_NAME_MAX + 1];
	iconv_t cd; /* NULL: an empty slot */
	bool busy;
} cd_pool[CD_POOL];
static pthread_mutex_t cd_mu = PTHREAD_MUTEX_INITIALIZER;

/* A converter from name to UTF-8 in its initial state, and its slot in
 * the pool (-1: none, close it after use); (iconv_t)-1 when iconv does
 * not know the name. */
static iconv_t
cd_take(const char *name, int *slot)
{
	iconv_t cd;
	int i;

	pthread_mutex_lock(&cd_mu);
	for (i = 0; i < CD_POOL; i++) {
		if (cd_pool[i].cd != NULL && !cd_pool[i].busy &&
		    strcmp(cd_pool[i].name, name) == 0) {
			cd_pool[i].busy = true;
			pthread_mutex_unlock(&cd_mu);
			*slot = i;
			iconv(cd_pool[i].cd, NULL, NULL, NULL, NULL);
			return cd_pool[i].cd;
		}
	}
	pthread_mutex_unlock(&cd_mu);
	*slot = -1;
	cd = iconv_open("UTF-8", name);
	if (cd == (iconv_t)-1 || strlen(name) > CS_NAME_MAX)
		return cd;
	pthread_mutex_lock(&cd_mu);
	for (i = 0; i < CD_POOL; i++) {
		if (cd_pool[i].cd == NULL) {
			strcpy(cd_pool[i].name, name);
			cd_pool[i].cd = cd;
			cd_pool[i].busy = true;
			*slot = i;
			break;
		}
	}
	pthread_mutex_unlock(&cd_mu);
	return cd;
}

static void
cd_give(iconv_t cd, int slot)
{
	if (slot < 0) {
		iconv_close(cd);
		return;
	}
	pthread_mutex_lock(&cd_mu);
	cd_pool[slot].busy = false;
	pthread_mutex_unlock(&cd_mu);
}

/*
 * Append p converted by iconv from name.  ERR_PARSE when iconv does not
 * know the name or the bytes are invalid in it; b is then as it was.
 */
static enum err
add_iconv(struct buf *b, const char *name, const char *p, size_t n)
{
	int slot;
	iconv_t cd = cd_take(name, &slot);
	size_t start = b->n, left = n;
	char *in = (char *)p;
	enum err e = ERR_OK;

	if (cd == (iconv_t)-1)
		return ERR_PARSE;
	for (;;) {
		size_t room, r;
		char *o;

		if (!buf_fits(b, left + 64)) {
			e = ERR_LIMIT;
			break;
		}
		buf_reserve(b, left + 64);
		room = b->cap - b->n - 1;
		o = b->p + b->n;
		r = iconv(cd, left ? &in : NULL, &left, &o, &room);
		b->n = (size_t)(o - b->p);
		if (r != (size_t)-1 && left == 0) {
			/* Flush the state of stateful charsets (ISO-2022). */
			room = b->cap - b->n - 1;
			o = b->p + b->n;
			if (iconv(cd, NULL, NULL, &o, &room) == (size_t)-1) {
				e = ERR_PARSE;
				break;
			}
			b->n = (size_t)(o - b->p);
			break;
		}
		if (r == (size_t)-1 && errno != E2BIG) {
			e = ERR_PARSE;
			break;
		}
	}
	cd_give(cd, slot);
	if (e == ERR_OK && !utf8_valid(b->p + start, b->n - start))
		e = ERR_PARSE;
	if (e != ERR_OK)
		b->n = start;
	if (b->p)
		b->p[b->n] = '\0';
	return e;
}

/* Append p in the given charset to b, following the fallback chain. */
static enum err
add_charset(struct buf *b, enum cs_kind kind, const char *name, const char *p,
    size_t n, bool *fb)
{
	enum err e;

	switch (kind) {
	case CS_1252:
		return add_lenient(b, p, n, true, NULL);
	case CS_ICONV:
		e = add_iconv(b, name, p, n);
		if (e != ERR_PARSE)
			return e;
		break;
	case CS_UTF8:
		return add_lenient(b, p, n, false, fb);
	case CS_UNKNOWN:
		break;
	}
	if (fb)
		*fb = true;
	return add_lenient(b, p, n, false, NULL);
}

/* Copy s to the arena with every NUL turned into U+FFFD. */
static struct str
arena_copy_nul(struct arena *a, const char *s, size_t n)
{
	size_t i, w = 0, nul = 0;
	char *o;

	for (i = 0; i < n; i++)
		nul += s[i] == '\0';
	o = arena_alloc(a, n + 2 * nul + 1);
	for (i = 0; i < n; i++) {
		if (s[i] == '\0')
			w += put_bmp(o + w, 0xfffd);
		else
			o[w++] = s[i];
	}
	o[w] = '\0';
	return str_make(o, w);
}

enum err
charset_to_utf8(struct arena *a, const char *charset, const char *p, size_t n,
    struct str *out, bool *fallback)
{
	char name[CS_NAME_MAX + 1];
	enum cs_kind kind;
	struct buf b;
	enum err e;
	bool fb = false;

	*out = str_make("", 0);
	if (n > LIMIT_DECODED_SIZE)
		return ERR_LIMIT;
	kind = cs_classify(
	    charset ? charset : "", charset ? strlen(charset) : 0, name);
	/* The common case: nothing to convert, nothing to copy. */
	if (kind == CS_UTF8 && utf8_valid(p, n) && memchr(p, '\0', n) == NULL) {
		*out = str_make(p, n);
		return ERR_OK;
	}
	if (kind == CS_UTF8 || kind == CS_1252) {
		bool all = kind == CS_1252;
		size_t need = lenient(NULL, p, n, all, NULL);
		char *o;

		if (need > LIMIT_DECODED_SIZE)
			return ERR_LIMIT;
		o = arena_alloc(a, need + 1);
		lenient(o, p, n, all, &fb);
		o[need] = '\0';
		*out = str_make(o, need);
		if (fallback && fb)
			*fallback = true;
		return ERR_OK;
	}
	buf_init(&b, LIMIT_DECODED_SIZE);
	e = add_charset(&b, kind, name, p, n, &fb);
	if (e == ERR_OK)
		*out = arena_copy_nul(a, b.p ? b.p : "", b.n);
	buf_free(&b);
	if (e == ERR_OK && fallback && fb)
		*fallback = true;
	return e;
}

/* --- RFC 2047 encoded-words -------------------------------------------- */

/* Encoded-words longer than this are not looked for: RFC 2047 allows 75
 * bytes, broken MUAs write a few hundred, and the bound keeps the search
 * for "?=" linear. */
#define EW_MAX 2048

struct ew {
	struct str charset; /* without an RFC 2231 "*lang" suffix */
	char enc; /* 'b' or 'q' */
	struct str text;
	size_t end; /* offset after "?=" */
};

/* Parse the encoded-word starting at v[i] == "=?"; false if it is not
 * one, and then it stays text. */
static bool
ew_parse(struct str v, size_t i, struct ew *w)
{
	size_t k = i + 2, cs = k, lim = v.n - i > EW_MAX ? i + EW_MAX : v.n;
	long e;
	size_t t;

	while (k < lim && v.p[k] != '?' && !ascii_isspace(v.p[k]))
		k++;
	if (k == cs || k + 2 >= lim || v.p[k] != '?' || v.p[k + 2] != '?')
		return false;
	w->enc = ascii_tolower(v.p[k + 1]);
	if (w->enc != 'b' && w->enc != 'q')
		return false;
	w->charset = str_make(v.p + cs, k - cs);
	e = str_find(w->charset, '*');
	if (e >= 0)
		w->charset.n = (size_t)e;
	t = k + 3;
	e = str_findstr(str_make(v.p + t, lim - t), "?=", 2);
	if (e < 0)
		return false;
	w->text = str_make(v.p + t, (size_t)e);
	w->end = t + (size_t)e + 2;
	if (w->enc == 'b') {
		size_t j;

		/* Anything but base64 means this was never an encoded-word. */
		for (j = 0; j < w->text.n; j++) {
			char c = w->text.p[j];

			if (!base64_digit(c) && c != '=')
				return false;
		}
	}
	return true;
}

/* Decoded bytes of encoded-words waiting to be converted together, so
 * that a character split across two adjacent words survives. */
struct pending {
	struct buf bytes;
	struct str charset;
};

static enum err
pending_flush(struct pending *pd, struct buf *out, bool *fb)
{
	char name[CS_NAME_MAX + 1];
	enum cs_kind kind;
	enum err e;

	if (pd->bytes.n == 0)
		return ERR_OK;
	kind = cs_classify(pd->charset.p, pd->charset.n, name);
	e = add_charset(out, kind, name, pd->bytes.p, pd->bytes.n, fb);
	buf_reset(&pd->bytes);
	return e;
}

static enum err
pending_add(struct pending *pd, struct buf *out, const struct ew *w, bool *fb)
{
	enum err e;
	size_t n;

	if (pd->bytes.n > 0 && !str_ieq(pd->charset, w->charset) &&
	    (e = pending_flush(pd, out, fb)) != ERR_OK)
		return e;
	pd->charset = w->charset;
	if (!buf_fits(&pd->bytes, w->text.n))
		return ERR_LIMIT;
	buf_reserve(&pd->bytes, w->text.n);
	if (w->enc == 'b')
		n = base64_decode(
		    pd->bytes.p + pd->bytes.n, w->text.p, w->text.n, NULL);
	else
		n = qp_decode(pd->bytes.p + pd->bytes.n, w->text.p, w->text.n,
		    true, NULL);
	pd->bytes.n += n;
	pd->bytes.p[pd->bytes.n] = '\0';
	return ERR_OK;
}

static bool
all_blank(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t')
			return false;
	return true;
}

/*
 * Copy UTF-8 to the arena with control characters (C0, DEL and C1) as
 * spaces: a decoded header must not smuggle line breaks or terminal
 * escapes into what is built from it.
 */
static struct str
arena_copy_noctl(struct arena *a, const char *s, size_t n)
{
	char *o = arena_alloc(a, n + 1);
	size_t i, w = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f) {
			o[w++] = ' ';
		} else if (c == 0xc2 && i + 1 < n &&
		    (unsigned char)s[i + 1] < 0xa0) {
			o[w++] = ' ';
			i++;
		} else {
			o[w++] = (char)c;
		}
	}
	o[w] = '\0';
	return str_make(o, w);
}

static enum err
decode_words(struct str v, struct buf *out, struct pending *pd, bool *fb)
{
	size_t i = 0, text = 0;
	bool after_word = false;
	enum err e;
	struct ew w;

	while (i + 1 < v.n) {
		long j = str_findstr(str_make(v.p + i, v.n - i), "=?", 2);
		size_t at;

		if (j < 0)
			break;
		at = i + (size_t)j;
		if (!ew_parse(v, at, &w)) {
			i = at + 2;
			continue;
		}
		/* Blanks between two encoded-words vanish; other text
		 * between them, or before the first, is kept. */
		if (!after_word || !all_blank(v.p + text, at - text)) {
			if ((e = pending_flush(pd, out, fb)) != ERR_OK ||
			    (e = add_lenient(out, v.p + text, at - text, false,
			         fb)) != ERR_OK)
				return e;
		}
		if ((e = pending_add(pd, out, &w, fb)) != ERR_OK)
			return e;
		after_word = true;
		i = text = w.end;
	}
	if ((e = pending_flush(pd, out, fb)) != ERR_OK)
		return e;
	return add_lenient(out, v.p + text, v.n - text, false, fb);
}

enum err
charset_decode_header(
    struct arena *a, struct str value, struct str *out, bool *fallback)
{
	struct buf b;
	struct pending pd;
	bool fb = false;
	enum err e;

	*out = str_make("", 0);
	if (value.n > LIMIT_FIELD_SIZE)
		return ERR_LIMIT;
	if (value.p == NULL)
		return ERR_OK;
	/* Conversion grows text at most fourfold (UTF-7 excepted, which
	 * the cap then stops). */
	buf_init(&b, 4 * LIMIT_FIELD_SIZE);
	buf_init(&pd.bytes, LIMIT_FIELD_SIZE);
	pd.charset = STR_NULL;
	e = decode_words(value, &b, &pd, &fb);
	if (e == ERR_OK)
		*out = arena_copy_noctl(a, b.p ? b.p : "", b.n);
	buf_free(&pd.bytes);
	buf_free(&b);
	if (e == ERR_OK && fallback && fb)
		*fallback = true;
	return e;
}

/* --- parameters (RFC 2045 §5.1, RFC 2231) ------------------------------ */

/* RFC 2231 continuations kept per parameter; real ones use a handful. */
#define PARAM_SECTIONS 64

struct section {
	unsigned idx;
	bool ext; /* "name*N*": percent-encoded */
	struct str v;
};

struct param_set {
	struct str plain; /* name=value */
	struct str ext; /* name*=charset'lang'value */
	struct section sec[PARAM_SECTIONS];
	size_t nsec;
};

/* Offset of the next ';' outside a quoted string, or v.n. */
static size_t
next_semicolon(struct str v, size_t i)
{
	bool q = false;

	for (; i < v.n; i++) {
		if (q && v.p[i] == '\\')
			i++;
		else if (v.p[i] == '"')
			q = !q;
		else if (!q && v.p[i] == ';')
			return i;
	}
	return v.n;
}

/* A quoted-string at v[i] == '"', unescaped (into the arena only when it
 * holds a backslash); *next is after its closing quote. */
static struct str
quoted(struct arena *a, struct str v, size_t i, size_t *next)
{
	size_t j = i + 1, w = 0;
	char *o;

	while (j < v.n && v.p[j] != '"')
		j += (v.p[j] == '\\' && j + 1 < v.n) ? 2 : 1;
	*next = j < v.n ? j + 1 : v.n;
	if (memchr(v.p + i + 1, '\\', j - i - 1) == NULL)
		return str_make(v.p + i + 1, j - i - 1);
	o = arena_alloc(a, j - i);
	for (i++; i < j; i++) {
		if (v.p[i] == '\\' && i + 1 < j)
			i++;
		o[w++] = v.p[i];
	}
	return str_make(o, w);
}

static void
param_keep(
    struct param_set *ps, struct str attr, const char *name, struct str val)
{
	size_t nl = strlen(name), i;
	unsigned idx = 0;

	if (attr.n < nl || ascii_strnicmp(attr.p, name, nl) != 0)
		return;
	if (attr.n == nl) {
		if (ps->plain.p == NULL)
			ps->plain = val;
		return;
	}
	if (attr.p[nl] != '*')
		return;
	if (attr.n == nl + 1) {
		if (ps->ext.p == NULL)
			ps->ext = val;
		return;
	}
	for (i = nl + 1; i < attr.n && ascii_isdigit(attr.p[i]) && i < nl + 4;
	     i++)
		idx = idx * 10 + (unsigned)(attr.p[i] - '0');
	if (i == nl + 1 || ps->nsec == PARAM_SECTIONS)
		return;
	if (i < attr.n && !(i + 1 == attr.n && attr.p[i] == '*'))
		return;
	ps->sec[ps->nsec].idx = idx;
	ps->sec[ps->nsec].ext = i < attr.n;
	ps->sec[ps->nsec].v = val;
	ps->nsec++;
}

static void
param_scan(
    struct arena *a, struct str v, const char *name, struct param_set *ps)
{
	size_t i = next_semicolon(v, 0);

	while (i < v.n) {
		size_t s = ++i, e;
		struct str attr, val;

		while (i < v.n && v.p[i] != '=' && v.p[i] != ';')
			i++;
		attr = str_trim(str_make(v.p + s, i - s));
		if (i >= v.n || v.p[i] == ';')
			continue;
		for (i++; i < v.n && ascii_isspace(v.p[i]); i++)
			;
		if (i < v.n && v.p[i] == '"') {
			val = quoted(a, v, i, &e);
			i = next_semicolon(v, e);
		} else {
			e = next_semicolon(v, i);
			val = str_rtrim(str_make(v.p + i, e - i));
			i = e;
		}
		param_keep(ps, attr, name, val);
	}
}

/* Append s to b with %XX decoded (a bad escape stays as it is). */
static void
add_pct(struct buf *b, struct str s)
{
	size_t i;

	for (i = 0; i < s.n; i++) {
		if (s.p[i] == '%' && i + 2 < s.n &&
		    ascii_hexval(s.p[i + 1]) >= 0 &&
		    ascii_hexval(s.p[i + 2]) >= 0) {
			buf_addc(b,
			    (char)(ascii_hexval(s.p[i + 1]) * 16 +
			        ascii_hexval(s.p[i + 2])));
			i += 2;
		} else {
			buf_addc(b, s.p[i]);
		}
	}
}

/* Split "charset'lang'rest": *cs gets the charset (maybe empty); returns
 * rest, or all of s when it lacks the two quotes. */
static struct str
split_ext(struct str s, struct str *cs)
{
	long q1 = str_find(s, '\''), q2;

	*cs = STR_NULL;
	if (q1 < 0)
		return s;
	q2 = str_find(str_skip(s, (size_t)q1 + 1), '\'');
	if (q2 < 0)
		return s;
	*cs = str_make(s.p, (size_t)q1);
	return str_skip(s, (size_t)q1 + 1 + (size_t)q2 + 1);
}

static int
section_cmp(const void *x, const void *y)
{
	const struct section *a = x, *b = y;

	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The RFC 2231 value, raw bytes into b; *cs gets its charset. */
static void
param_2231(struct param_set *ps, struct buf *b, struct str *cs)
{
	size_t i;

	if (ps->ext.p != NULL) {
		add_pct(b, split_ext(ps->ext, cs));
		return;
	}
	qsort(ps->sec, ps->nsec, sizeof(ps->sec[0]), section_cmp);
	*cs = STR_NULL;
	for (i = 0; i < ps->nsec; i++) {
		struct str v = ps->sec[i].v;

		/* A gap or a repeated number ends the value. */
		if (ps->sec[i].idx != i)
			break;
		if (!ps->sec[i].ext)
			buf_addstr(b, v);
		else if (i == 0)
			add_pct(b, split_ext(v, cs));
		else
			add_pct(b, v);
	}
}

struct str
charset_param(struct arena *a, struct str value, const char *name)
{
	struct param_set ps;
	struct str out = STR_NULL, cs, s;
	struct buf b;
	char csname[CS_NAME_MAX + 1];

	if (value.p == NULL || value.n > LIMIT_FIELD_SIZE)
		return STR_NULL;
	memset(&ps, 0, sizeof(ps));
	param_scan(a, value, name, &ps);
	/* The sections are parts of value, and %XX only shrinks them: b
	 * stays within value's limit. */
	buf_init(&b, LIMIT_FIELD_SIZE);
	if (ps.ext.p != NULL || ps.nsec > 0) {
		param_2231(&ps, &b, &cs);
		if (b.n > 0 && buf_fits(&b, 0)) {
			enum cs_kind k =
			    cs_classify(cs.p ? cs.p : "", cs.n, csname);
			struct buf u;

			buf_init(&u, 4 * LIMIT_FIELD_SIZE);
			if (add_charset(&u, k, csname, b.p, b.n, NULL) ==
			    ERR_OK)
				out = arena_copy_noctl(a, u.p ? u.p : "", u.n);
			buf_free(&u);
		}
	}
	buf_free(&b);
	if (out.p != NULL || ps.plain.p == NULL)
		return out;
	if (str_findstr(ps.plain, "=?", 2) >= 0 &&
	    charset_decode_header(a, ps.plain, &s, NULL) == ERR_OK)
		return s;
	buf_init(&b, 4 * LIMIT_FIELD_SIZE);
	if (add_lenient(&b, ps.plain.p, ps.plain.n, false, NULL) == ERR_OK)
		out = arena_copy_noctl(a, b.p ? b.p : "", b.n);
	buf_free(&b);
	return out;
}
