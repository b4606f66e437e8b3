/*
 * Subject tags.  A subject is read from the left: reply and forward
 * prefixes ("Re:", "AW:", "Re[2]:", "Fwd:") and bracket groups ("[PATCH
 * v3 2/7]", "[util-linux]") may come in any order and number; the first
 * thing that is neither starts the title.  Words in the bracket groups are
 * read as git format-patch, b4 and people write them.
 */
#include "parsers/subject.h"

#include <string.h>

#include "util/ascii.h"

/*
 * Reply prefixes in the languages that lists see most, and forwards.  The
 * weak ones are also subsystem names ("fw: load firmware late"): they
 * count only before any bracket group, where a subsystem never stands.
 */
static const char *const reply_words[] = { "re", "aw", "sv", "antw",
	"\xe5\x9b\x9e\xe5\xa4\x8d", "\xe7\xad\x94\xe5\xa4\x8d", NULL };
static const char *const reply_weak[] = { "vs", "ref", "rif", "odp", "ynt",
	"res", NULL };
static const char *const forward_words[] = { "fwd", "\xe8\xbd\xac\xe5\x8f\x91",
	NULL };
static const char *const forward_weak[] = { "fw", "wg", "tr", "doorst", NULL };

#define MAX_NUMBER 100000 /* larger counts are not patch numbers */

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static const char *
skip_blanks(const char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	return p;
}

/* A non-negative number of at most MAX_NUMBER at p[0..n), or -1. */
static int
number(const char *p, size_t n)
{
	int v = 0;
	size_t i;

	if (n == 0 || n > 6)
		return -1;
	for (i = 0; i < n; i++) {
		if (!ascii_isdigit(p[i]))
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	return v <= MAX_NUMBER ? v : -1;
}

/* The word at p (ASCII letters, or a UTF-8 word of the lists above). */
static size_t
prefix_word(const char *p, const char *end, const char *const *words)
{
	size_t i, n;

	for (i = 0; words[i]; i++) {
		n = strlen(words[i]);
		if ((size_t)(end - p) >= n &&
		    ascii_strnicmp(p, words[i], n) == 0 &&
		    (p + n == end || !ascii_isalpha(p[n])))
			return n;
	}
	return 0;
}

/*
 * A reply or forward prefix at p: a word of the list, an optional "[2]"
 * or "(2)" count, optional blanks and a colon (or a full-width colon).
 * Returns the bytes it takes with the blanks after it, or 0.
 */
static size_t
reply_prefix(
    const char *p, const char *end, bool weak, bool *reply, bool *forward)
{
	size_t n = prefix_word(p, end, reply_words);
	bool fwd = false;
	const char *q;

	if (n == 0 && weak)
		n = prefix_word(p, end, reply_weak);
	if (n == 0) {
		n = prefix_word(p, end, forward_words);
		if (n == 0 && weak)
			n = prefix_word(p, end, forward_weak);
		fwd = true;
	}
	if (n == 0)
		return 0;
	q = p + n;
	if (q < end && (*q == '[' || *q == '(')) {
		char close = *q == '[' ? ']' : ')';
		const char *c = memchr(q, close, (size_t)(end - q));

		if (c == NULL || number(q + 1, (size_t)(c - q - 1)) < 0)
			return 0;
		q = c + 1;
	}
	q = skip_blanks(q, end);
	if (q < end && *q == ':')
		q++;
	else if (end - q >= 3 && memcmp(q, "\xef\xbc\x9a", 3) == 0)
		q += 3;
	else
		return 0;
	if (fwd)
		*forward = true;
	else
		*reply = true;
	return (size_t)(skip_blanks(q, end) - p);
}

/* "Repost: [PATCH] title", "RESEND: ...": a copy sent again.  Returns
 * the bytes it takes with the blanks after it, or 0. */
static size_t
resend_prefix(const char *p, const char *end)
{
	static const char *const words[] = { "repost", "resend", NULL };
	size_t n = prefix_word(p, end, words);
	const char *q = p + n;

	if (n == 0)
		return 0;
	q = skip_blanks(q, end);
	if (q >= end || *q != ':')
		return 0;
	return (size_t)(skip_blanks(q + 1, end) - p);
}

/* A letters-only word equals w, ASCII case-insensitive. */
static bool
word_is(const char *p, size_t n, const char *w)
{
	return strlen(w) == n && ascii_strnicmp(p, w, n) == 0;
}

/* "v3", "V3": the version, or -1. */
static int
version_word(const char *p, size_t n)
{
	if (n < 2 || (p[0] != 'v' && p[0] != 'V'))
		return -1;
	return number(p + 1, n - 1);
}

/* A keyword alone: PATCH, RFC, RESEND, PULL. */
static bool
keyword(struct subject *out, const char *p, size_t n)
{
	if (word_is(p, n, "patch") || word_is(p, n, "patchset") ||
	    word_is(p, n, "patches"))
		out->patch = true;
	else if (word_is(p, n, "rfc"))
		out->rfc = true;
	else if (word_is(p, n, "resend"))
		out->resend = true;
	else if (word_is(p, n, "pull"))
		out->pull = true;
	else
		return false;
	return true;
}

/*
 * One word of a bracket group.  Besides the plain forms, a keyword may
 * carry its version ("PATCHv2", "RFC-v3") and a version may carry a
 * keyword ("v2RESEND").
 */
static void
tag_word(struct subject *out, const char *p, size_t n)
{
	const char *slash = memchr(p, '/', n);
	size_t i;
	int v;

	if (slash != NULL) {
		int a = number(p, (size_t)(slash - p));
		int b = number(slash + 1, n - (size_t)(slash - p) - 1);

		/* An extra patch "3/2" is sent after a series of two. */
		if (a >= 0 && b > 0) {
			out->number = a;
			out->total = b;
		}
		return;
	}
	if (keyword(out, p, n))
		return;
	if ((v = version_word(p, n)) > 0) {
		out->version = v;
		out->versioned = true;
		return;
	}
	/* "PATCHv2", "RFC-v2": a keyword, maybe a '-', then a version. */
	for (i = 1; i + 1 < n; i++) {
		if (p[i] != 'v' && p[i] != 'V')
			continue;
		v = version_word(p + i, n - i);
		if (v > 0 &&
		    (keyword(out, p, i) ||
		        (p[i - 1] == '-' && keyword(out, p, i - 1)))) {
			out->version = v;
			out->versioned = true;
			return;
		}
	}
	/* "v2RESEND": a version, then a keyword. */
	for (i = 2; i < n && ascii_isdigit(p[i]); i++)
		;
	if ((v = version_word(p, i)) > 0 && i < n &&
	    keyword(out, p + i, n - i)) {
		out->version = v;
		out->versioned = true;
	}
}

/* The next word of a bracket group at *p: its length, 0 at the end. */
static size_t
next_word(const char **p, const char *end, const char **w)
{
	while (*p < end && (is_blank(**p) || **p == ','))
		(*p)++;
	for (*w = *p; *p < end && !is_blank(**p) && **p != ','; (*p)++)
		;
	return (size_t)(*p - *w);
}

/*
 * Mercurial's patchbomb numbers "[PATCH 1 of 2]": a number, "of", a
 * number.  Returns the bytes after w that the "of M" takes, or 0.
 */
static size_t
hg_numbering(struct subject *out, const char *w, size_t n, const char *end)
{
	const char *p = w + n, *of, *m;
	size_t nof, nm;
	int a = number(w, n), b;

	if (a < 0)
		return 0;
	nof = next_word(&p, end, &of);
	if (!word_is(of, nof, "of"))
		return 0;
	nm = next_word(&p, end, &m);
	if ((b = number(m, nm)) <= 0)
		return 0;
	out->number = a;
	out->total = b;
	return (size_t)(p - (w + n));
}

/* The words of one [..] group, into out and the tags buffer. */
static void
tag_group(struct subject *out, struct buf *tags, const char *p, const char *end)
{
	for (;;) {
		const char *w;
		size_t n = next_word(&p, end, &w), hg;

		if (n == 0)
			break;
		hg = hg_numbering(out, w, n, end);
		if (tags->n)
			buf_addc(tags, ' ');
		buf_add(tags, w, n + hg);
		if (hg)
			p = w + n + hg;
		else
			tag_word(out, w, n);
	}
}

/* Copy s with every run of blanks made one space, trimmed. */
static const char *
collapse(struct arena *a, const char *p, const char *end, bool lower)
{
	char *out = arena_alloc(a, (size_t)(end - p) + 1);
	size_t n = 0;

	for (; p < end; p++) {
		if (is_blank(*p)) {
			if (n && out[n - 1] != ' ')
				out[n++] = ' ';
			continue;
		}
		out[n++] = lower ? ascii_tolower(*p) : *p;
	}
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	return out;
}

void
subject_parse(struct arena *a, struct str s, struct subject *out)
{
	const char *p = s.p ? s.p : "", *end = p + (s.p ? s.n : 0);
	struct buf tags = BUF_INIT;
	bool group = false;

	memset(out, 0, sizeof(*out));
	out->version = 1;
	for (;;) {
		size_t n;

		p = skip_blanks(p, end);
		n = reply_prefix(p, end, !group, &out->reply, &out->forward);
		if (n == 0 && (n = resend_prefix(p, end)) != 0)
			out->resend = true;
		if (n) {
			p += n;
			continue;
		}
		if (p < end && *p == '[') {
			const char *close = memchr(p, ']', (size_t)(end - p));

			if (close == NULL)
				break;
			tag_group(out, &tags, p + 1, close);
			p = close + 1;
			group = true;
			continue;
		}
		break;
	}
	out->tags = arena_strndup(a, buf_cstr(&tags), tags.n);
	out->title = collapse(a, p, end, false);
	buf_free(&tags);
}

const char *
subject_norm(struct arena *a, const char *title)
{
	const char *t = title ? title : "";
	char *out = (char *)collapse(a, t, t + strlen(t), true);
	size_t n = strlen(out);

	if (n && out[n - 1] == '.') {
		out[--n] = '\0';
		while (n && out[n - 1] == ' ')
			out[--n] = '\0';
	}
	return out;
}
