/*
 * Addresses (RFC 5322 §3.4, read leniently), organizational domains by
 * the public suffix list (libpsl's built-in copy: no file is read), and
 * Authentication-Results (RFC 8601) judged as DMARC's relaxed DKIM
 * alignment (RFC 7489 §3.1.1) would.
 */
#include "parsers/addr.h"

#include <libpsl.h>
#include <string.h>

#include "parsers/charset.h"
#include "parsers/limits.h"
#include "util/ascii.h"

/* Longest address kept (RFC 5321: 64 + 1 + 255). */
#define ADDR_MAX 320

/* --- lexing -------------------------------------------------------------- */

/* Offset after the comment or quoted string at s[i] ('(' or '"'); the end
 * of s when it is never closed. */
static size_t
skip_cq(struct str s, size_t i)
{
	char open = s.p[i];
	size_t depth = 1;

	for (i++; i < s.n; i++) {
		char c = s.p[i];

		if (c == '\\') {
			i++;
		} else if (open == '"') {
			if (c == '"')
				return i + 1;
		} else if (c == '(') {
			depth++;
		} else if (c == ')' && --depth == 0) {
			return i + 1;
		}
	}
	return s.n;
}

/* The offset of the first c in s outside quotes and comments, or -1. */
static long
find_top(struct str s, char c)
{
	size_t i = 0;

	while (i < s.n) {
		if (s.p[i] == c)
			return (long)i;
		if (s.p[i] == '"' || s.p[i] == '(')
			i = skip_cq(s, i);
		else
			i++;
	}
	return -1;
}

/*
 * A display name: quoted strings unquoted, comments dropped, blanks
 * collapsed, then RFC 2047 and raw 8-bit text decoded (also inside
 * quotes, which is not allowed but what MUAs write).  *comment gets the
 * text of the first comment, the name of "a@b (Name)".
 */
static const char *
phrase(struct arena *a, struct str s, struct str *comment)
{
	char *o = arena_alloc(a, s.n + 1);
	size_t i = 0, w = 0;
	struct str dec;

	while (i < s.n) {
		char c = s.p[i];

		if (c == '(') {
			size_t e = skip_cq(s, i);

			if (comment && comment->p == NULL)
				*comment = str_make(s.p + i + 1,
				    e - i - (s.p[e - 1] == ')' ? 2 : 1));
			i = e;
			c = ' ';
		} else if (c == '"') {
			for (i++; i < s.n && s.p[i] != '"'; i++) {
				if (s.p[i] == '\\' && i + 1 < s.n)
					i++;
				o[w++] = s.p[i];
			}
			i++;
			continue;
		} else {
			i++;
		}
		if (ascii_isspace(c)) {
			if (w > 0 && o[w - 1] != ' ')
				o[w++] = ' ';
		} else {
			o[w++] = c;
		}
	}
	dec = str_trim(str_make(o, w));
	if (charset_decode_header(a, dec, &dec, NULL) != ERR_OK)
		return "";
	return arena_str(a, str_trim(dec)).p;
}

/*
 * An address: blanks and comments dropped, a source route ("@a,@b:x@y")
 * dropped, the domain lower-cased.  NULL unless it is local@domain.
 */
static const char *
clean_email(struct arena *a, struct str s)
{
	char *o;
	size_t i = 0, w = 0;
	long at;

	s = str_trim(s);
	if (s.n > 0 && s.p[0] == '@' && find_top(s, ':') >= 0)
		s = str_skip(s, (size_t)find_top(s, ':') + 1);
	if (s.n == 0 || s.n > ADDR_MAX)
		return NULL;
	o = arena_alloc(a, s.n + 1);
	while (i < s.n) {
		unsigned char c = (unsigned char)s.p[i];

		if (c == '(') {
			i = skip_cq(s, i);
			continue;
		}
		if (c == '"') {
			size_t e = skip_cq(s, i);

			memcpy(o + w, s.p + i, e - i);
			w += e - i;
			i = e;
			continue;
		}
		if (c < 0x20 || c == 0x7f)
			return NULL;
		if (c != ' ' && c != '<' && c != '>')
			o[w++] = (char)c;
		i++;
	}
	o[w] = '\0';
	at = -1;
	for (i = 0; i < w; i++)
		if (o[i] == '@')
			at = (long)i;
	if (at <= 0 || (size_t)at + 1 == w)
		return NULL;
	ascii_lower(o + at + 1, w - (size_t)at - 1);
	return o;
}

/* Whether s has a quote that is never closed. */
static bool
open_quote(struct str s)
{
	size_t i = 0;

	while (i < s.n) {
		if (s.p[i] == '"') {
			size_t e = skip_cq(s, i);

			if (e == s.n && (e - i < 2 || s.p[e - 1] != '"'))
				return true;
			i = e;
		} else {
			i += s.p[i] == '\\' ? 2 : 1;
		}
	}
	return false;
}

/* s without its double quotes, for reading a mailbox whose quoting is
 * broken the way a human would. */
static struct str
drop_quotes(struct arena *a, struct str s)
{
	char *o = arena_alloc(a, s.n + 1);
	size_t i, w = 0;

	for (i = 0; i < s.n; i++)
		if (s.p[i] != '"')
			o[w++] = s.p[i];
	o[w] = '\0';
	return str_make(o, w);
}

/* One mailbox of a list: "Name <a@b>", "a@b (Name)", "Name a@b", "a@b". */
static bool
mailbox(struct arena *a, struct str s, struct addr *out)
{
	struct str comment = STR_NULL;
	long lt;

	if (open_quote(s))
		s = drop_quotes(a, s);
	lt = find_top(s, '<');

	if (lt >= 0) {
		struct str rest = str_skip(s, (size_t)lt + 1);
		long gt = str_find(rest, '>');
		struct str inner =
		    gt >= 0 ? str_make(rest.p, (size_t)gt) : rest;

		out->email = clean_email(a, inner);
		out->name = phrase(a, str_make(s.p, (size_t)lt), &comment);
		if (*out->name == '\0' && gt >= 0)
			out->name =
			    phrase(a, str_skip(rest, (size_t)gt + 1), &comment);
		if (*out->name == '\0' && comment.p != NULL)
			out->name = phrase(a, comment, NULL);
	} else {
		/* No brackets: the word with an '@' is the address, the
		 * rest (or the first comment) the name. */
		size_t i = 0, b = 0, e = 0;

		while (i < s.n) {
			if (s.p[i] == '(') {
				i = skip_cq(s, i);
				continue;
			}
			if (ascii_isspace(s.p[i])) {
				i++;
				continue;
			}
			/* A word, quoted parts included ("a b"@c). */
			b = i;
			while (
			    i < s.n && !ascii_isspace(s.p[i]) && s.p[i] != '(')
				i = s.p[i] == '"' ? skip_cq(s, i) : i + 1;
			if (memchr(s.p + b, '@', i - b) != NULL) {
				e = i;
				break;
			}
		}
		if (e == 0)
			return false;
		out->email = clean_email(a, str_make(s.p + b, e - b));
		out->name = phrase(a, str_make(s.p, b), &comment);
		if (*out->name == '\0')
			out->name = phrase(a, str_skip(s, e), &comment);
		if (*out->name == '\0' && comment.p != NULL)
			out->name = phrase(a, comment, NULL);
	}
	return out->email != NULL;
}

/*
 * Call fn on every mailbox of an address list, groups flattened
 * ("team: a@b, c@d;"), until it returns false.
 */
static void
each_mailbox(
    struct arena *a, struct str v, bool (*fn)(void *, struct addr *), void *ctx)
{
	size_t i = 0, start = 0;
	bool angle = false;

	while (i <= v.n) {
		char c = i < v.n ? v.p[i] : ',';

		if (i < v.n && (c == '"' || c == '(') && !angle) {
			i = skip_cq(v, i);
			continue;
		}
		if (c == '<')
			angle = true;
		else if (c == '>')
			angle = false;
		if (c == ':' && !angle) {
			/* A group's name is not an address. */
			start = i + 1;
		} else if ((c == ',' || c == ';') && (!angle || i == v.n)) {
			struct addr ad;

			if (mailbox(a, str_make(v.p + start, i - start), &ad) &&
			    !fn(ctx, &ad))
				return;
			start = i + 1;
			angle = false;
		}
		i++;
	}
}

/* --- parsing entry points ------------------------------------------------ */

static bool
take_first(void *ctx, struct addr *ad)
{
	*(struct addr *)ctx = *ad;
	return false;
}

enum err
addr_parse(struct arena *a, struct str value, struct addr *out)
{
	out->name = "";
	out->email = NULL;
	if (value.p == NULL || value.n > LIMIT_FIELD_SIZE)
		return value.p == NULL ? ERR_PARSE : ERR_LIMIT;
	each_mailbox(a, value, take_first, out);
	return out->email ? ERR_OK : ERR_PARSE;
}

struct list_ctx {
	struct addr *v;
	size_t n, cap;
	struct arena *a;
};

static bool
take_all(void *ctx, struct addr *ad)
{
	struct list_ctx *lc = ctx;

	if (lc->n == lc->cap) {
		struct addr *nv;

		lc->cap = lc->cap ? 2 * lc->cap : 8;
		nv = arena_alloc(lc->a, lc->cap * sizeof(*nv));
		if (lc->n)
			memcpy(nv, lc->v, lc->n * sizeof(*nv));
		lc->v = nv;
	}
	lc->v[lc->n++] = *ad;
	return lc->n < LIMIT_ADDRESSES;
}

enum err
addr_parse_list(struct arena *a, struct str value, struct addr **out, size_t *n)
{
	struct list_ctx lc = { NULL, 0, 0, a };

	*out = NULL;
	*n = 0;
	if (value.p == NULL)
		return ERR_OK;
	if (value.n > LIMIT_FIELD_SIZE)
		return ERR_LIMIT;
	each_mailbox(a, value, take_all, &lc);
	*out = lc.v;
	*n = lc.n;
	return ERR_OK;
}

bool
addr_same(const char *a, const char *b)
{
	return a != NULL && b != NULL && ascii_stricmp(a, b) == 0;
}

const char *
addr_domain(const char *email)
{
	const char *at = email ? strrchr(email, '@') : NULL;

	return at ? at + 1 : "";
}

/* --- domains ------------------------------------------------------------- */

/* A host name we hand to libpsl: labels of 1..63 letters, digits, '-',
 * '_' or UTF-8 bytes (IDN), none empty. */
static bool
domain_ok(const char *d, size_t n)
{
	size_t i, label = 0;

	if (n == 0 || n > 253)
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)d[i];

		if (c == '.') {
			if (label == 0)
				return false;
			label = 0;
			continue;
		}
		if (!ascii_isalnum((char)c) && c != '-' && c != '_' && c < 0x80)
			return false;
		if (++label > 63)
			return false;
	}
	return label > 0;
}

const char *
addr_org_domain(struct arena *a, const char *domain)
{
	size_t n;
	char *d;

	if (domain == NULL)
		return NULL;
	n = strlen(domain);
	if (n > 0 && domain[n - 1] == '.')
		n--;
	if (!domain_ok(domain, n))
		return NULL;
	d = arena_strndup(a, domain, n);
	/* libpsl matches its rules on lower-case names only. */
	ascii_lower(d, n);
	return psl_registrable_domain(psl_builtin(), d);
}

bool
addr_dkim_covers(struct arena *a, const char *from_domain, const char *d)
{
	size_t nf, nd;

	if (from_domain == NULL || d == NULL)
		return false;
	nf = strlen(from_domain);
	nd = strlen(d);
	if (nd == 0 || nd > nf)
		return false;
	if (ascii_strnicmp(from_domain + (nf - nd), d, nd) != 0)
		return false;
	if (nd < nf && from_domain[nf - nd - 1] != '.')
		return false;
	/* Not a public suffix itself: "org" signs for nobody. */
	return addr_org_domain(a, d) != NULL;
}

/* --- Authentication-Results (RFC 8601) ----------------------------------- */

struct lex {
	struct str s;
	size_t i;
};

static void
skip_cfws(struct lex *l)
{
	while (l->i < l->s.n) {
		if (ascii_isspace(l->s.p[l->i]))
			l->i++;
		else if (l->s.p[l->i] == '(')
			l->i = skip_cq(l->s, l->i);
		else
			break;
	}
}

/* A value after CFWS: a quoted string's contents, or a run of characters
 * up to a blank, a comment, ';' or one of stops. */
static struct str
lex_word(struct lex *l, const char *stops)
{
	size_t b;

	skip_cfws(l);
	b = l->i;
	if (l->i < l->s.n && l->s.p[l->i] == '"') {
		l->i = skip_cq(l->s, l->i);
		return str_make(l->s.p + b + 1,
		    l->i - b -
		        (l->s.p[l->i - 1] == '"' && l->i - b > 1 ? 2 : 1));
	}
	while (l->i < l->s.n) {
		char c = l->s.p[l->i];

		if (ascii_isspace(c) || c == '(' || c == ';' || c == '"' ||
		    strchr(stops, c) != NULL)
			break;
		l->i++;
	}
	return str_make(l->s.p + b, l->i - b);
}

static bool
lex_eat(struct lex *l, char c)
{
	skip_cfws(l);
	if (l->i < l->s.n && l->s.p[l->i] == c) {
		l->i++;
		return true;
	}
	return false;
}

/* What one resinfo says about DKIM. */
struct dkim {
	bool is_dkim;
	struct str result, d, i;
};

/* One "method=result ptype.prop=value ..." up to the next ';'. */
static void
resinfo(struct lex *l, struct dkim *dk)
{
	struct str method = lex_word(l, "=/");

	memset(dk, 0, sizeof(*dk));
	if (lex_eat(l, '/'))
		lex_word(l, "=");
	if (!lex_eat(l, '='))
		return;
	dk->is_dkim = str_ieqs(method, "dkim");
	dk->result = lex_word(l, "");
	for (;;) {
		struct str key, val;
		size_t before;

		skip_cfws(l);
		if (l->i >= l->s.n || l->s.p[l->i] == ';')
			return;
		before = l->i;
		key = lex_word(l, "=");
		if (lex_eat(l, '=')) {
			val = lex_word(l, "");
			if (str_ieqs(key, "header.d"))
				dk->d = val;
			else if (str_ieqs(key, "header.i"))
				dk->i = val;
		}
		if (l->i == before)
			l->i++;
	}
}

/* The authserv-id of an Authentication-Results value; l is left after
 * it and its optional version. */
static struct str
authserv(struct lex *l)
{
	struct str id = lex_word(l, "");
	struct lex save;
	struct str ver;

	save = *l;
	ver = lex_word(l, "");
	if (ver.n == 0 || ver.n > 9 || str_find(ver, '.') >= 0)
		*l = save;
	else {
		size_t k;

		for (k = 0; k < ver.n; k++)
			if (!ascii_isdigit(ver.p[k]))
				*l = save;
	}
	return id;
}

/* The DKIM domain a result vouches for: header.d, else the domain of
 * header.i; NUL-terminated in the arena. */
static const char *
dkim_domain(struct arena *a, const struct dkim *dk)
{
	struct str d = dk->d;

	if (d.n == 0 && dk->i.n > 0) {
		long at = -1;
		size_t k;

		for (k = 0; k < dk->i.n; k++)
			if (dk->i.p[k] == '@')
				at = (long)k;
		d = str_skip(dk->i, (size_t)(at + 1));
	}
	return d.n ? arena_str(a, d).p : NULL;
}

/* The topmost Authentication-Results, unfolded, when it is
 * authserv_id's; else STR_NULL. */
static struct str
ours(struct arena *a, const struct hdr *h, const char *authserv_id,
    struct lex *l)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		struct str v;

		if (!str_ieqs(h->f[i].name, "Authentication-Results"))
			continue;
		v = hdr_unfold(a, h->f[i].value);
		l->s = v;
		l->i = 0;
		return str_ieqs(authserv(l), authserv_id) ? v : STR_NULL;
	}
	return STR_NULL;
}

enum addr_auth
addr_auth_check(struct arena *a, const struct hdr *h, const char *authserv_id,
    const char *from_email, const char **why)
{
	struct lex l;
	bool passed = false;
	const char *from = addr_domain(from_email);
	const char *dummy;

	if (why == NULL)
		why = &dummy;
	if (authserv_id == NULL || *authserv_id == '\0' ||
	    ours(a, h, authserv_id, &l).p == NULL) {
		*why = "the topmost Authentication-Results is not the "
		       "relay's";
		return ADDR_AUTH_NONE;
	}
	while (l.i < l.s.n) {
		struct dkim dk;
		const char *d;

		if (!lex_eat(&l, ';')) {
			/* Junk ("none", or what we cannot read) up to the
			 * next ';'. */
			while (l.i < l.s.n && l.s.p[l.i] != ';')
				l.i++;
			continue;
		}
		resinfo(&l, &dk);
		if (!dk.is_dkim || !str_ieqs(dk.result, "pass"))
			continue;
		passed = true;
		d = dkim_domain(a, &dk);
		if (d != NULL && addr_dkim_covers(a, from, d)) {
			*why = "dkim=pass for the From domain";
			return ADDR_AUTH_PASS;
		}
	}
	if (passed) {
		*why = "dkim=pass, but for a domain that is not the From "
		       "domain or a parent of it";
		return ADDR_AUTH_UNALIGNED;
	}
	*why = "no dkim=pass in the relay's Authentication-Results";
	return ADDR_AUTH_FAIL;
}

/*
 * An address with b4's leniency (LoreTrailer.email_eq, b4 0.12): ASCII
 * case ignored, a "+tag" dropped from the local part, and one more level
 * of subdomain on either side (foo@linux.intel.com is foo@intel.com).
 */
bool
addr_alike(struct arena *a, const char *x, const char *y)
{
	const char *in[2] = { x, y };
	char *v[2], *at[2];
	size_t i, dots[2];

	for (i = 0; i < 2; i++) {
		char *plus, *q, *r;

		v[i] = arena_strdup(a, in[i]);
		ascii_lower(v[i], strlen(v[i]));
		at[i] = strchr(v[i], '@');
		plus = strchr(v[i], '+');
		if (at[i] && plus && plus + 1 < at[i]) {
			for (q = plus, r = at[i]; (*q = *r) != '\0'; q++, r++)
				;
			at[i] = plus;
		}
	}
	if (strcmp(v[0], v[1]) == 0)
		return true;
	if (!at[0] || !at[1] || at[0] - v[0] != at[1] - v[1] ||
	    strncmp(v[0], v[1], (size_t)(at[0] - v[0])) != 0)
		return false;
	for (i = 0; i < 2; i++) {
		const char *c;

		for (dots[i] = 0, c = at[i]; *c; c++)
			dots[i] += *c == '.';
	}
	/* One domain is the other with one more label in front. */
	for (i = 0; i < 2; i++) {
		const char *big = at[i] + 1, *small = at[1 - i] + 1;
		size_t nb = strlen(big), ns = strlen(small);

		if (dots[i] == dots[1 - i] + 1 && nb > ns + 1 &&
		    big[nb - ns - 1] == '.' &&
		    strcmp(big + nb - ns, small) == 0)
			return true;
	}
	return false;
}
