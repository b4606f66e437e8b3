/*
 * Message-IDs (RFC 5322 §3.6.4): found leniently in the header values
 * real MUAs write, checked strictly before they become keys.
 */
#include "parsers/msgid.h"

#include <stdlib.h>
#include <string.h>

#include "parsers/limits.h"
#include "util/ascii.h"
#include "util/xalloc.h"

bool
msgid_valid(struct str id)
{
	size_t i;

	if (id.p == NULL || id.n == 0 || id.n > LIMIT_MSGID_LEN)
		return false;
	if (id.p[0] == '.')
		return false;
	for (i = 0; i < id.n; i++) {
		unsigned char c = (unsigned char)id.p[i];

		if (c <= ' ' || c >= 0x7f || c == '<' || c == '>' || c == '"' ||
		    c == '\\')
			return false;
		if (c == '.' && i + 1 < id.n && id.p[i + 1] == '.')
			return false;
	}
	return true;
}

/*
 * Skip a comment or quoted string starting at s[i] (which is '(' or
 * '"'), honouring backslash escapes and nested comments.  Returns the
 * offset after it, or i when it is never closed: an unbalanced opener
 * is then plain junk, not a reason to lose the rest of the value.
 */
static size_t
skip_cq(struct str s, size_t i)
{
	char open = s.p[i];
	size_t j = i + 1, depth = 1;

	while (j < s.n) {
		char c = s.p[j++];

		if (c == '\\') {
			j++;
		} else if (open == '"') {
			if (c == '"')
				return j;
		} else if (c == '(') {
			depth++;
		} else if (c == ')' && --depth == 0) {
			return j;
		}
	}
	return i;
}

/*
 * The id in "<...>" starting at s[i] == '<'; *next gets where to go on.
 * A missing '>' ends the id at the first blank or the next '<', which is
 * what a truncated References line leaves.
 */
static struct str
bracketed(struct str s, size_t i, size_t *next)
{
	size_t j;

	for (j = i + 1; j < s.n; j++) {
		if (s.p[j] == '>') {
			*next = j + 1;
			return str_trim(str_make(s.p + i + 1, j - i - 1));
		}
		if (s.p[j] == '<')
			break;
	}
	*next = j;
	for (j = i + 1; j < *next && !ascii_isspace(s.p[j]); j++)
		;
	return str_make(s.p + i + 1, j - i - 1);
}

/* Bare ids: blank-separated words holding an '@', for values that carry
 * no angle brackets at all. */
static struct str
bare_word(struct str s, size_t *i)
{
	while (*i < s.n) {
		size_t b, e;

		while (*i < s.n && (ascii_isspace(s.p[*i]) || s.p[*i] == ','))
			(*i)++;
		b = *i;
		while (*i < s.n && !ascii_isspace(s.p[*i]) && s.p[*i] != ',')
			(*i)++;
		e = *i;
		if (e > b && memchr(s.p + b, '@', e - b) != NULL)
			return str_make(s.p + b, e - b);
	}
	return STR_NULL;
}

/*
 * Call fn for every candidate id of the value, in order, until it
 * returns false.  Comments and quoted strings are skipped, so that
 * "(Your message of ... <a@b>)" does not count.
 */
static void
each_candidate(struct str v, bool (*fn)(void *, struct str), void *ctx)
{
	size_t i = 0;
	bool any_bracket = memchr(v.p, '<', v.n) != NULL;

	if (!any_bracket) {
		struct str w;

		while ((w = bare_word(v, &i)).p != NULL)
			if (!fn(ctx, w))
				return;
		return;
	}
	while (i < v.n) {
		char c = v.p[i];
		size_t j;

		if (c == '(' || c == '"') {
			j = skip_cq(v, i);
			i = j > i ? j : i + 1;
		} else if (c == '<') {
			struct str id = bracketed(v, i, &j);

			i = j;
			if (!fn(ctx, id))
				return;
		} else {
			i++;
		}
	}
}

struct first_ctx {
	struct str id;
};

static bool
take_first(void *ctx, struct str id)
{
	struct first_ctx *fc = ctx;

	if (!msgid_valid(id))
		return true;
	fc->id = id;
	return false;
}

struct str
msgid_first(struct arena *a, struct str value)
{
	struct first_ctx fc = { STR_NULL };

	if (value.p == NULL)
		return STR_NULL;
	each_candidate(value, take_first, &fc);
	return fc.id.p ? arena_str(a, fc.id) : STR_NULL;
}

struct list_ctx {
	struct str *v;
	size_t n, cap;
};

static bool
take_all(void *ctx, struct str id)
{
	struct list_ctx *lc = ctx;

	if (!msgid_valid(id))
		return true;
	lc->v = xgrow(lc->v, &lc->cap, lc->n + 1, sizeof(*lc->v));
	lc->v[lc->n++] = id;
	return true;
}

enum err
msgid_list(struct arena *a, struct str value, struct str **ids, size_t *n)
{
	struct list_ctx lc = { NULL, 0, 0 };
	struct str *out;
	size_t i, k = 0;

	*ids = NULL;
	*n = 0;
	if (value.p == NULL)
		return ERR_OK;
	each_candidate(value, take_all, &lc);
	out = arena_alloc(a,
	    (lc.n < LIMIT_REFERENCES ? lc.n : LIMIT_REFERENCES) * sizeof(*out));
	/* From the end: the last occurrence of an id is the one kept, and
	 * the nearest ancestors are the ones worth keeping over the limit. */
	for (i = lc.n; i-- > 0 && k < LIMIT_REFERENCES;) {
		size_t j;

		for (j = 0; j < k; j++)
			if (str_eq(out[j], lc.v[i]))
				break;
		if (j == k)
			out[k++] = lc.v[i];
	}
	for (i = 0; i < k / 2; i++) {
		struct str t = out[i];

		out[i] = out[k - 1 - i];
		out[k - 1 - i] = t;
	}
	for (i = 0; i < k; i++)
		out[i] = arena_str(a, out[i]);
	free(lc.v);
	*ids = out;
	*n = k;
	return ERR_OK;
}

struct str
msgid_from_user(struct str ref)
{
	struct str s = str_trim(ref);

	if (s.n >= 2 && s.p[0] == '<' && s.p[s.n - 1] == '>')
		s = str_trim(str_make(s.p + 1, s.n - 2));
	return msgid_valid(s) ? s : STR_NULL;
}

static bool
url_plain(char c)
{
	return ascii_isalnum(c) || strchr("-._~@!$&'()*+,;=:", c) != NULL;
}

void
msgid_urlencode(struct buf *out, struct str id)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i;

	for (i = 0; i < id.n; i++) {
		unsigned char c = (unsigned char)id.p[i];
		char esc[3] = { '%', hex[c >> 4], hex[c & 15] };

		if (c != 0 && url_plain((char)c))
			buf_addc(out, (char)c);
		else
			buf_add(out, esc, sizeof(esc));
	}
}
