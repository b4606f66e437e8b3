/*
 * git's stable patch-id: builtin/patch-id.c of git v2.39 (get_one_patchid()
 * with stable = 1, verbatim = 0, and diff.c's flush_one_hunk()), over
 * nettle's SHA-1.
 *
 * The algorithm, as git runs it on `git patch-id --stable < patchfile`:
 * lines before the first "diff " are skipped; every line after it, with
 * all whitespace (git's four: SP, TAB, LF, CR) removed, goes into a SHA-1;
 * "index " lines are not hashed but remember the two object names, which
 * stand in for the data of a binary patch; hunk headers are not hashed,
 * and hunk bodies are counted by their "@@" numbers; at every new file
 * (and binary patch) the running SHA-1 is finished and added, as a
 * 160-bit little-endian number with carry, into the result: that makes
 * the id independent of the order of the files.  A line that is neither
 * part of a hunk nor of a file header ends the patch; so does a line
 * starting with 40 hex digits (git's "next commit"), after which git
 * starts over and prints the first id whose patch was not empty.
 *
 * We follow git to the letter, quirks included: a line is read as a C
 * string (a NUL ends it), "\ " lines longer than 12 bytes are skipped
 * anywhere, and the hunk header is read with atoi() as git reads it.  One
 * case cannot be followed: a binary patch with no index line holding ".."
 * before it makes git hash its uninitialised stack buffers; we hash "".
 */
#include "parsers/patchid.h"

#include <limits.h>
#include <nettle/sha1.h>
#include <string.h>

#include "util/oid.h"

_Static_assert(sizeof(struct sha1_ctx) <= sizeof(struct patchid_sha1_ctx),
    "patchid_sha1_ctx too small for nettle's sha1_ctx");

void
patchid_sha1_init(struct patchid_sha1_ctx *c)
{
	sha1_init((struct sha1_ctx *)(void *)c->opaque);
}

void
patchid_sha1_update(struct patchid_sha1_ctx *c, const void *p, size_t n)
{
	sha1_update((struct sha1_ctx *)(void *)c->opaque, n, p);
}

void
patchid_sha1_final(struct patchid_sha1_ctx *c, unsigned char out[20])
{
	sha1_digest(
	    (struct sha1_ctx *)(void *)c->opaque, SHA1_DIGEST_SIZE, out);
}

void
patchid_sha1(const void *p, size_t n, unsigned char out[20])
{
	struct patchid_sha1_ctx c;

	patchid_sha1_init(&c);
	patchid_sha1_update(&c, p, n);
	patchid_sha1_final(&c, out);
}

void
patchid_hex(const unsigned char in[20], char out[OID_HEX_SIZE])
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < 20; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[40] = '\0';
}

/* git's isspace() (ctype.c, sane_ctype): these four, as bits of a
 * word (all are below 64). */
#define GIT_SPACES                                                             \
	((1ull << ' ') | (1ull << '\t') | (1ull << '\n') | (1ull << '\r'))

/* git's isalpha(): ASCII only. */
static bool
git_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

/* One line as git sees it: up to and including its LF, cut at a NUL. */
struct pline {
	const char *p;
	size_t n;
};

static bool
starts(struct pline l, const char *prefix)
{
	size_t n = strlen(prefix);

	return l.n >= n && memcmp(l.p, prefix, n) == 0;
}

/* The state of one get_one_patchid() call. */
struct pid {
	struct patchid_sha1_ctx ctx;
	unsigned char result[20];
	long patchlen;
	int before, after;
	bool binary;
	char pre_oid[65], post_oid[65]; /* strlcpy(..., GIT_MAX_HEXSZ + 1) */
};

static void
flush_one_hunk(struct pid *s)
{
	unsigned char hash[20];
	unsigned carry = 0;
	size_t i;

	patchid_sha1_final(&s->ctx, hash);
	patchid_sha1_init(&s->ctx);
	for (i = 0; i < 20; i++) {
		carry += (unsigned)s->result[i] + hash[i];
		s->result[i] = (unsigned char)carry;
		carry >>= 8;
	}
}

/* Hash the line without whitespace; returns the bytes hashed.  Without
 * a branch a byte: each is stored and kept or not by the count (code
 * has a blank every few bytes, and a branch on each mispredicts). */
static size_t
hash_without_space(struct pid *s, struct pline l)
{
	char tmp[512];
	size_t i = 0, k = 0, total = 0;

	while (i < l.n) {
		size_t end = l.n - i > 256 ? i + 256 : l.n;

		for (; i < end; i++) {
			unsigned char c = (unsigned char)l.p[i];

			tmp[k] = (char)c;
			k += (c >= 64) | (((GIT_SPACES >> (c & 63)) & 1) ^ 1);
		}
		if (k >= sizeof(tmp) - 256) {
			patchid_sha1_update(&s->ctx, tmp, k);
			total += k;
			k = 0;
		}
	}
	patchid_sha1_update(&s->ctx, tmp, k);
	return total + k;
}

/* glibc's atoi(): strtol() (blanks, a sign, digits) cast to int. */
static int
git_atoi(const char *p, const char *end)
{
	unsigned long v = 0, limit = LONG_MAX;
	bool neg = false, over = false;

	while (p < end && (*p == ' ' || (*p >= '\t' && *p <= '\r')))
		p++;
	if (p < end && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	if (neg)
		limit = (unsigned long)LONG_MAX + 1;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		unsigned long d = (unsigned long)(*p - '0');

		if (over || v > (limit - d) / 10)
			over = true;
		else
			v = v * 10 + d;
	}
	if (over)
		v = limit; /* strtol() saturates at LONG_MAX or LONG_MIN */
	/* The cast to int keeps the low 32 bits, as gcc does. */
	return (int)(unsigned)(neg ? 0 - v : v);
}

static size_t
span_digits(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && *q >= '0' && *q <= '9')
		q++;
	return (size_t)(q - p);
}

/* git's scan_hunk_header(); its result is ignored by its caller. */
static void
scan_hunk_header(struct pline l, int *before, int *after)
{
	const char *q = l.p + 4, *end = l.p + l.n, *r;
	size_t n = span_digits(q, end);

	if (q + n < end && q[n] == ',') {
		q += n + 1;
		*before = git_atoi(q, end);
		n = span_digits(q, end);
	} else {
		*before = 1;
	}
	if (n == 0 || q + n + 1 >= end || q[n] != ' ' || q[n + 1] != '+')
		return;
	r = q + n + 2;
	n = span_digits(r, end);
	if (r + n < end && r[n] == ',') {
		r += n + 1;
		*after = git_atoi(r, end);
	} else {
		*after = 1;
	}
}

/* Bounded copy, as strlcpy(dst, src, 65) copies a C string. */
static void
copy_oid(char dst[65], const char *p, const char *end)
{
	size_t n = (size_t)(end - p);

	if (n > 64)
		n = 64;
	memcpy(dst, p, n);
	dst[n] = '\0';
}

/*
 * An "index " line: the names before and after "..", up to a blank or,
 * without one, up to the last byte of the line (git cuts that byte, which
 * is the LF).
 */
static void
read_index_line(struct pid *s, struct pline l)
{
	const char *end = l.p + l.n, *dots = NULL, *sp, *p;

	for (p = l.p; p + 1 < end; p++)
		if (p[0] == '.' && p[1] == '.') {
			dots = p;
			break;
		}
	if (dots == NULL)
		return;
	sp = memchr(dots, ' ', (size_t)(end - dots));
	if (sp == NULL)
		sp = end - 1;
	copy_oid(s->pre_oid, l.p + 6, dots);
	copy_oid(s->post_oid, dots + 2 < sp ? dots + 2 : sp, sp);
}

enum step {
	STEP_NEXT, /* the line is done with */
	STEP_HASH, /* hash the line */
	STEP_STOP, /* the patch ends here */
};

/* The header part of git's loop: before == -1. */
static enum step
header_line(struct pid *s, struct pline l)
{
	if (starts(l, "GIT binary patch") || starts(l, "Binary files")) {
		s->binary = true;
		s->before = 0;
		patchid_sha1_update(&s->ctx, s->pre_oid, strlen(s->pre_oid));
		patchid_sha1_update(&s->ctx, s->post_oid, strlen(s->post_oid));
		flush_one_hunk(s);
		return STEP_NEXT;
	}
	if (starts(l, "index ")) {
		read_index_line(s, l);
		return STEP_NEXT;
	}
	if (starts(l, "--- ")) {
		s->before = s->after = 1;
		return STEP_HASH;
	}
	if (l.n == 0 || !git_alpha((unsigned char)l.p[0]))
		return STEP_STOP;
	return STEP_HASH;
}

static enum step
one_line(struct pid *s, struct pline l)
{
	enum step st;

	if (!s->patchlen && !starts(l, "diff "))
		return STEP_NEXT; /* a commit message line */
	if (s->before == -1) {
		st = header_line(s, l);
		if (st != STEP_HASH)
			return st;
	}
	if (s->binary) {
		if (starts(l, "diff ")) {
			s->binary = false;
			s->before = -1;
		}
		return STEP_NEXT;
	}
	if (s->before == 0 && s->after == 0) {
		if (starts(l, "@@ -")) {
			scan_hunk_header(l, &s->before, &s->after);
			return STEP_NEXT;
		}
		if (!starts(l, "diff "))
			return STEP_STOP;
		flush_one_hunk(s);
		s->before = s->after = -1;
	}
	if (l.n && (l.p[0] == '-' || l.p[0] == ' '))
		s->before--;
	if (l.n && (l.p[0] == '+' || l.p[0] == ' '))
		s->after--;
	return STEP_HASH;
}

/* The line at *pos as git's strbuf_getwholeline() and C strings see it. */
static struct pline
next_line(const char *text, size_t n, size_t *pos)
{
	const char *p = text + *pos, *nl, *nul;
	struct pline l;

	nl = memchr(p, '\n', n - *pos);
	l.p = p;
	l.n = nl ? (size_t)(nl - p) + 1 : n - *pos;
	*pos += l.n;
	nul = memchr(p, '\0', l.n);
	if (nul != NULL)
		l.n = (size_t)(nul - p);
	return l;
}

/* "commit <40 hex>", "From <40 hex>" or 40 hex: git's next patch. */
static bool
next_commit(struct pline l)
{
	const char *p = l.p;
	size_t n = l.n, i;

	if (starts(l, "commit ")) {
		p += 7;
		n -= 7;
	} else if (starts(l, "From ")) {
		p += 5;
		n -= 5;
	}
	if (n < 40)
		return false;
	for (i = 0; i < 40; i++)
		if (!is_hex((unsigned char)p[i]))
			return false;
	return true;
}

/* git's get_one_patchid(), from *pos on. */
static void
get_one_patchid(struct pid *s, const char *text, size_t n, size_t *pos)
{
	memset(s, 0, sizeof(*s));
	patchid_sha1_init(&s->ctx);
	s->before = s->after = -1;
	while (*pos < n) {
		struct pline l = next_line(text, n, pos);
		enum step st;

		if (!starts(l, "commit ") && !starts(l, "From ") &&
		    starts(l, "\\ ") && l.n > 12)
			continue;
		if (next_commit(l))
			break;
		st = one_line(s, l);
		if (st == STEP_STOP)
			break;
		if (st == STEP_HASH)
			s->patchlen += (long)hash_without_space(s, l);
	}
	flush_one_hunk(s);
}

bool
patchid_stable(const char *text, size_t n, char hex[OID_HEX_SIZE])
{
	struct pid s;
	size_t pos = 0;

	hex[0] = '\0';
	while (pos < n) {
		get_one_patchid(&s, text, n, &pos);
		if (s.patchlen > 0) {
			patchid_hex(s.result, hex);
			return true;
		}
	}
	return false;
}
