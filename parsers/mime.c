/*
 * The body of a mail as decoded leaf parts (RFC 2045, RFC 2046).
 *
 * A mail that is not multipart (most list mail) never reaches libetpan:
 * its one part is decoded here straight from the raw bytes.  A multipart
 * mail is split by libetpan's MIME parser; every part's own header is
 * then read by hdr_split() and charset.c, and its body decoded here, so
 * the same lenient rules apply at every level.
 *
 * libetpan recurses once per nesting level and rescans the part at each
 * level: a mail nested thousands deep exhausts the stack or takes
 * quadratic time.  A cheap line scan in front of it bounds both by
 * counting Content-Type lines, which bounds libetpan's depth however it
 * reads the mail (see max_type_lines), and cuts the mail where the count
 * goes over.  libetpan also has quirks with headerless parts and missing
 * delimiters; the copy it is given and the walk over its tree correct
 * them, and part data is always taken from the mail itself.
 */
#include "parsers/mime.h"

#include <libetpan/mailmime.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/charset.h"
#include "parsers/limits.h"
#include "parsers/mime_etpan.h"
#include "util/ascii.h"
#include "util/base64.h"
#include "util/qp.h"

enum cte {
	CTE_RAW, /* 7bit, 8bit, binary, or none */
	CTE_BASE64,
	CTE_QP,
	CTE_UNKNOWN /* kept raw, and the mail flagged */
};

/* What a part's header says about it. */
struct info {
	const char *type;
	const char *charset;
	const char *filename;
	bool attachment;
	enum cte cte;
	bool flowed; /* format=flowed (RFC 3676) */
	bool delsp; /* ... with delsp=yes */
};

struct walk {
	struct arena *a;
	struct mime *m;
	size_t cap;
	size_t decoded; /* bytes of data so far, against LIMIT_DECODED_SIZE */
	const char *base; /* the buffer handed to libetpan */
	size_t hlen; /* its header of ours; the copied body follows */
	const char *body; /* the body it is a copy of */
	size_t *fills; /* where copy_body added lines, from base + hlen */
	size_t nfills;
};

/* --- one part ---------------------------------------------------------- */

static bool
token_char(char c)
{
	return c > ' ' && c < 0x7f && strchr("()<>@,;:\\\"/[]?=", c) == NULL;
}

/* "type/subtype" in lower case, or NULL when v does not start with one. */
static const char *
media_type(struct arena *a, struct str v)
{
	size_t i = 0, slash;
	char *t;

	v = str_ltrim(v);
	while (i < v.n && token_char(v.p[i]))
		i++;
	if (i == 0 || i >= v.n || v.p[i] != '/')
		return NULL;
	slash = i++;
	while (i < v.n && token_char(v.p[i]))
		i++;
	if (i == slash + 1)
		return NULL;
	t = arena_strndup(a, v.p, i);
	ascii_lower(t, i);
	return t;
}

static enum cte
cte_of(struct str v)
{
	v = str_trim(v);
	if (v.p == NULL || v.n == 0 || str_ieqs(v, "7bit") ||
	    str_ieqs(v, "8bit") || str_ieqs(v, "binary"))
		return CTE_RAW;
	if (str_ieqs(v, "base64"))
		return CTE_BASE64;
	if (str_ieqs(v, "quoted-printable"))
		return CTE_QP;
	return CTE_UNKNOWN;
}

static void
part_info(struct arena *a, const struct hdr *h, bool digest, struct info *in)
{
	struct str ct = hdr_value(a, h, "Content-Type");
	struct str cd = hdr_value(a, h, "Content-Disposition");
	struct str s;
	char *cs;

	in->type = ct.p ? media_type(a, ct) : NULL;
	if (in->type == NULL)
		in->type = digest ? "message/rfc822" : "text/plain";
	in->charset = NULL;
	s = charset_param(a, ct, "charset");
	if (s.n > 0) {
		cs = arena_strndup(a, s.p, s.n);
		ascii_lower(cs, s.n);
		in->charset = cs;
	}
	s = charset_param(a, cd, "filename");
	if (s.p == NULL)
		s = charset_param(a, ct, "name");
	in->filename = s.p;
	s = str_ltrim(cd);
	in->attachment = s.p != NULL && str_istartswith(s, "attachment") &&
	    (s.n == 10 || !token_char(s.p[10]));
	in->cte = cte_of(hdr_value(a, h, "Content-Transfer-Encoding"));
	in->flowed =
	    str_ieqs(str_trim(charset_param(a, ct, "format")), "flowed");
	in->delsp = str_ieqs(str_trim(charset_param(a, ct, "delsp")), "yes");
}

/* s with every CRLF turned into LF (s itself when it has no CR). */
static struct str
crlf_to_lf(struct arena *a, struct str s)
{
	size_t i, w = 0;
	char *o;

	if (memchr(s.p, '\r', s.n) == NULL)
		return s;
	o = arena_alloc(a, s.n + 1);
	for (i = 0; i < s.n; i++) {
		size_t j = i;

		/* A run of CRs before a LF ("\r\r\n" from converting twice)
		 * goes with it. */
		while (j < s.n && s.p[j] == '\r')
			j++;
		if (j > i && j < s.n && s.p[j] == '\n')
			i = j;
		o[w++] = s.p[i];
	}
	o[w] = '\0';
	return str_make(o, w);
}

/*
 * Undo format=flowed (RFC 3676) the way git mailinfo does it
 * (handle_filter_flowed), so that a patch mailed by a client that flows
 * its text reads as git am reads it: a line ending in a space continues
 * on the next (without that space when delsp=yes), a leading space is
 * unstuffed, and the signature separator "-- " is kept as it is, after
 * whatever partial line was pending (which git emits without its line
 * end: the two are glued).
 */
static struct str
unflow(struct arena *a, struct str s, bool delsp)
{
	char *o = arena_alloc(a, s.n + 1);
	struct str rest = s, line;
	size_t w = 0;

	while (str_nextline(&rest, &line)) {
		bool last = rest.n == 0 && (s.n == 0 || s.p[s.n - 1] != '\n');

		if (str_eqs(line, "-- ")) {
			/* mailinfo flushes the pending text without a line end,
			 * then the separator line: they end up on one line. */
			memcpy(o + w, "-- \n", 4);
			w += 4;
			continue;
		}
		if (line.n && line.p[0] == ' ')
			line = str_skip(line, 1);
		if (line.n && line.p[line.n - 1] == ' ') {
			size_t k = line.n - (delsp ? 1 : 0);

			memcpy(o + w, line.p, k);
			w += k;
			continue;
		}
		memcpy(o + w, line.p, line.n);
		w += line.n;
		if (!last)
			o[w++] = '\n';
	}
	o[w] = '\0';
	return str_make(o, w);
}

/* Decode one leaf and append it to the list. */
static enum err
add_leaf(struct walk *w, const struct info *in, const char *p, size_t n)
{
	struct mime_part *part;
	struct str data = str_make(p, n), before = STR_NULL, raw = STR_NULL;
	bool bad = false, fb = false;
	enum err e;

	if (w->m->nparts == LIMIT_MIME_PARTS) {
		w->m->flags |= MIME_F_PARTS;
		return ERR_OK;
	}
	if (in->cte == CTE_BASE64 || in->cte == CTE_QP) {
		char *o = arena_alloc(w->a, n + 1);

		data.n = in->cte == CTE_BASE64
		    ? base64_decode(o, p, n, &bad)
		    : qp_decode(o, p, n, false, &bad);
		o[data.n] = '\0';
		data.p = o;
	} else if (in->cte == CTE_UNKNOWN) {
		bad = true;
	}
	if (bad)
		w->m->flags |= MIME_F_BROKEN;
	if (strncmp(in->type, "text/", 5) == 0) {
		before = data;
		e = charset_to_utf8(
		    w->a, in->charset, data.p, data.n, &data, &fb);
		if (e != ERR_OK)
			return e;
		if (fb)
			w->m->flags |= MIME_F_CHARSET;
		data = crlf_to_lf(w->a, data);
		/* The sender's bytes, for the patch (see mime.h). */
		raw = data.p == before.p || before.p == NULL
		    ? data
		    : crlf_to_lf(w->a, before);
		if (in->flowed) {
			bool same = raw.p == data.p;

			data = unflow(w->a, data, in->delsp);
			raw = same ? data : unflow(w->a, raw, in->delsp);
		}
	}
	w->decoded += data.n;
	if (w->decoded > LIMIT_DECODED_SIZE)
		return ERR_LIMIT;
	if (w->m->nparts == w->cap) {
		struct mime_part *np;

		w->cap = w->cap ? 2 * w->cap : 4;
		np = arena_alloc(w->a, w->cap * sizeof(*np));
		if (w->m->nparts)
			memcpy(np, w->m->parts, w->m->nparts * sizeof(*np));
		w->m->parts = np;
	}
	part = &w->m->parts[w->m->nparts++];
	part->type = in->type;
	part->charset = in->charset;
	part->filename = in->filename;
	part->attachment = in->attachment;
	part->text = strncmp(in->type, "text/", 5) == 0;
	part->data = data;
	part->raw = part->text ? raw : data;
	return ERR_OK;
}

/* --- the guard in front of libetpan ------------------------------------ */

/*
 * Bytes libetpan may scan for one mail.  It scans a part once or twice
 * per nesting level (about 1.5 GB/s here), so depth times size must stay
 * bounded, not only depth.
 */
#define MIME_SCAN_BUDGET (512u * 1024 * 1024)

/*
 * How many "Content-Type" lines libetpan may see.  Every nesting level in
 * libetpan's parse needs a Content-Type field of its own at least every
 * other level (a multipart needs its boundary; an encapsulated message
 * without one is a leaf unless its parent is a digest, which has one),
 * and every field starts a line.  So counting those lines bounds its
 * recursion by 2 * count + 2 however it reads the mail: no need to agree
 * with libetpan on boundaries, header ends or its quirks.
 */
static size_t
max_type_lines(size_t len)
{
	size_t levels = MIME_SCAN_BUDGET / (2 * (len ? len : 1)), c;

	c = levels > 2 ? (levels - 2) / 2 : 0;
	if (c < 8)
		c = 8;
	return c < LIMIT_MIME_PARTS ? c : LIMIT_MIME_PARTS;
}

/*
 * Move a cut back to the delimiter line that opened the part being cut,
 * over that part's header lines: libetpan drops a whole multipart whose
 * last delimiter is followed by nothing.
 */
static size_t
back_to_delimiter(const char *p, size_t cut)
{
	size_t at = cut, lines = 0;

	while (at > 0 && lines++ < LIMIT_HEADER_COUNT) {
		size_t start = at - 1;

		while (start > 0 && p[start - 1] != '\n')
			start--;
		if (at - start >= 2 && p[start] == '-' && p[start + 1] == '-')
			return start;
		if (at - start <= 2 && (p[start] == '\n' || p[start] == '\r'))
			break;
		at = start;
	}
	return cut;
}

/* The header line copy_body adds (see there). */
static const char fill[] = "X-Patchyard-No-Header: 1\r\n";
#define FILL_LEN (sizeof(fill) - 1)

/* What the guard's line scan learns about a body. */
struct scan {
	size_t cut; /* libetpan sees body[0..cut) */
	struct str *bnd; /* boundaries declared by Content-Type lines */
	size_t nbnd;
};

/* The field starting at p[off], its continuation lines included. */
static struct str
field_span(const char *p, size_t len, size_t off)
{
	size_t e = off;

	for (;;) {
		const char *nl = memchr(p + e, '\n', len - e);

		if (nl == NULL)
			return str_make(p + off, len - off);
		e = (size_t)(nl - p) + 1;
		if (e >= len || (p[e] != ' ' && p[e] != '\t') ||
		    e - off > LIMIT_FIELD_SIZE)
			return str_make(p + off, e - off);
	}
}

/*
 * One pass over the lines of the body: cut it at the Content-Type line
 * that is one too many (see max_type_lines), and collect the boundaries
 * the others declare.
 */
static void
scan_body(
    struct arena *a, const char *p, size_t len, struct str top, struct scan *sc)
{
	size_t max = max_type_lines(len), off = 0, count = 0;

	sc->cut = len;
	sc->bnd = arena_alloc(a, (max + 1) * sizeof(*sc->bnd));
	sc->bnd[0] = top;
	sc->nbnd = 1;
	while (off < len) {
		const char *nl;

		if (len - off >= 12 &&
		    ascii_strnicmp(p + off, "content-type", 12) == 0) {
			struct str b;

			if (++count > max) {
				sc->cut = back_to_delimiter(p, off);
				return;
			}
			b = charset_param(
			    a, field_span(p, len, off), "boundary");
			if (b.n > 0)
				sc->bnd[sc->nbnd++] = b;
		}
		nl = memchr(p + off, '\n', len - off);
		if (nl == NULL)
			break;
		off = (size_t)(nl - p) + 1;
	}
}

/* Whether the line p[0..n) is "--b" and blanks, for a declared b. */
static bool
is_delimiter(const struct scan *sc, const char *p, size_t n)
{
	size_t i, k;

	if (n < 3 || p[0] != '-' || p[1] != '-')
		return false;
	for (i = 0; i < sc->nbnd; i++) {
		const struct str *b = &sc->bnd[i];

		if (n < 2 + b->n || memcmp(p + 2, b->p, b->n) != 0)
			continue;
		for (k = 2 + b->n; k < n; k++)
			if (p[k] != ' ' && p[k] != '\t' && p[k] != '\r' &&
			    p[k] != '\n')
				break;
		if (k == n)
			return true;
	}
	return false;
}

/* Whether the line at p[at] holds nothing but blanks. */
static bool
blank_line(const char *p, size_t at, size_t end)
{
	while (at < end && (p[at] == ' ' || p[at] == '\t' || p[at] == '\r'))
		at++;
	return at < end && p[at] == '\n';
}

/*
 * Copy body[0..cut) to q (or only count, with q NULL), with a header line
 * of ours after every delimiter that a blank line follows.  After the
 * first delimiter of a multipart libetpan skips blank lines, and with
 * them the empty header of a part that has none: it then reads the
 * part's first lines as its header, or an empty part and the delimiter
 * after it as one part.
 */
static size_t
copy_body(char *q, const char *p, const struct scan *sc, size_t *fills,
    size_t *nfills)
{
	size_t off = 0, w = 0, nf = 0;

	while (off < sc->cut) {
		const char *nl = memchr(p + off, '\n', sc->cut - off);
		size_t end = nl ? (size_t)(nl - p) + 1 : sc->cut;

		if (q)
			memcpy(q + w, p + off, end - off);
		w += end - off;
		if (nl && nf < LIMIT_MIME_PARTS &&
		    blank_line(p, end, sc->cut) &&
		    is_delimiter(sc, p + off, end - off)) {
			if (q) {
				memcpy(q + w, fill, FILL_LEN);
				fills[nf] = w;
			}
			w += FILL_LEN;
			nf++;
		}
		off = end;
	}
	*nfills = nf;
	return w;
}

/*
 * The byte of the mail's body that p, in the copy handed to libetpan, is
 * a copy of: part data is taken from the mail itself, so that no line of
 * ours ever shows in it (as it would where a line looks like a delimiter
 * inside a part that libetpan does not split).
 */
static const char *
orig(const struct walk *w, const char *p)
{
	size_t off = (size_t)(p - w->base), k = 0;

	if (off < w->hlen)
		return w->body;
	off -= w->hlen;
	while (k < w->nfills && w->fills[k] < off) {
		if (off < w->fills[k] + FILL_LEN)
			return w->body + w->fills[k] - k * FILL_LEN;
		k++;
	}
	return w->body + off - k * FILL_LEN;
}

/* --- the libetpan tree ------------------------------------------------- */

static enum err walk(struct walk *w, struct mailmime *mm, size_t depth,
    bool digest, const char *end);

/*
 * multipart/alternative: keep its text/plain leaves; when it has none,
 * keep the first alternative (RFC 2046 puts the plainest first).
 */
static void
keep_alternative(struct walk *w, size_t first, size_t second)
{
	struct mime *m = w->m;
	size_t i, k = first;

	for (i = first; i < m->nparts; i++)
		if (strcmp(m->parts[i].type, "text/plain") == 0)
			break;
	if (i == m->nparts) {
		if (second < m->nparts)
			m->nparts = second;
		return;
	}
	for (i = first; i < m->nparts; i++)
		if (strcmp(m->parts[i].type, "text/plain") == 0)
			m->parts[k++] = m->parts[i];
	m->nparts = k;
}

/* The offset of the first line of p that is a delimiter "--b" (with
 * close, a closing one "--b--"), or -1. */
static long
delimiter_at(const char *p, size_t n, const char *b, size_t bn, bool close)
{
	size_t off = 0;

	while (bn > 0 && off + bn + 2 <= n) {
		const char *q = memmem(p + off + 2, n - off - 2, b, bn);
		size_t at;

		if (q == NULL)
			return -1;
		at = (size_t)(q - p);
		if (p[at - 1] == '-' && p[at - 2] == '-' &&
		    (at == 2 || p[at - 3] == '\n') &&
		    (!close ||
		        (at + bn + 2 <= n && p[at + bn] == '-' &&
		            p[at + bn + 1] == '-')))
			return (long)at - 2;
		off = at - 1;
	}
	return -1;
}

static enum err
walk_multi(struct walk *w, struct mailmime *mm, const char *type, size_t depth)
{
	const char *sub = type + strlen("multipart/");
	const char *body = mm->mm_body->dt_data.dt_text.dt_data;
	size_t blen = mm->mm_body->dt_data.dt_text.dt_length;
	bool digest = strcmp(sub, "digest") == 0, open = false;
	size_t first = w->m->nparts, second = w->m->nparts;
	char *b;
	clistiter *it;
	enum err e;

	if (depth > LIMIT_MIME_DEPTH) {
		w->m->flags |= MIME_F_DEPTH;
		return ERR_OK;
	}
	/*
	 * Without a closing delimiter libetpan ends the last part at its
	 * last line starting with '-' (every removed line of a patch): that
	 * part then runs to the end of this one instead.
	 */
	if ((b = mime_etpan_boundary(mm->mm_content_type)) != NULL) {
		open = delimiter_at(body, blen, b, strlen(b), true) < 0;
		free(b);
	}
	if (open)
		w->m->flags |= MIME_F_BROKEN;
	for (it = clist_begin(mm->mm_data.mm_multipart.mm_mp_list); it;
	     it = clist_next(it)) {
		bool last = clist_next(it) == NULL;

		e = walk(w, clist_content(it), depth + 1, digest,
		    last && open ? body + blen : NULL);
		if (e != ERR_OK)
			return e;
		if (it == clist_begin(mm->mm_data.mm_multipart.mm_mp_list))
			second = w->m->nparts;
		/* multipart/signed: the signed text, not the signature. */
		if (strcmp(sub, "signed") == 0)
			break;
	}
	if (strcmp(sub, "alternative") == 0)
		keep_alternative(w, first, second);
	return ERR_OK;
}

/*
 * Whether p follows a line of blanks.  After the first delimiter of a
 * multipart libetpan skips such lines, and with them the empty header of
 * a part that has none: it then reads the part's first lines as header.
 */
static bool
after_blank_line(const char *base, const char *p)
{
	size_t i = (size_t)(p - base);

	if (i < 2 || base[i - 1] != '\n')
		return false;
	for (i -= 2; i > 0 && base[i] != '\n'; i--)
		if (base[i] != ' ' && base[i] != '\t' && base[i] != '\r')
			return false;
	return base[i] == '\n';
}

/* A leaf whose data is from..to in the copy, taken from the mail. */
static enum err
add_leaf_at(
    struct walk *w, const struct info *in, const char *from, const char *to)
{
	const char *a = orig(w, from), *b = orig(w, to);

	return add_leaf(w, in, a, (size_t)(b - a));
}

static enum err
walk(struct walk *w, struct mailmime *mm, size_t depth, bool digest,
    const char *end)
{
	const char *body, *start = mm->mm_mime_start;
	size_t blen;
	struct hdr h = { NULL, 0, 0, true, NULL };
	struct info in;

	if (mm->mm_body == NULL || mm->mm_body->dt_type != MAILMIME_DATA_TEXT)
		return ERR_OK;
	body = mm->mm_body->dt_data.dt_text.dt_data;
	blen = mm->mm_body->dt_data.dt_text.dt_length;
	if (start == NULL || start > body)
		start = body;
	if (end != NULL && end > body + blen)
		blen = (size_t)(end - body);
	if (depth > 1 && start < body && after_blank_line(w->base, start)) {
		/* The part had no header: all of it is body. */
		part_info(w->a, &h, digest, &in);
		return add_leaf_at(w, &in, start, body + blen);
	}
	/* The part's own header, read by our rules: libetpan has already
	 * decided where it ends. */
	switch (hdr_split(w->a, start, (size_t)(body - start), &h)) {
	case ERR_OK:
		break;
	case ERR_LIMIT:
		/* A part's field over the limit: the mail is, too. */
		if (h.limit && strcmp(h.limit, "header field") == 0)
			return ERR_LIMIT;
		/* fall through */
	default:
		w->m->flags |= MIME_F_BROKEN;
		h.n = 0;
	}
	part_info(w->a, &h, digest, &in);
	if (mm->mm_type == MAILMIME_MULTIPLE &&
	    strncmp(in.type, "multipart/", 10) == 0)
		return walk_multi(w, mm, in.type, depth);
	if (strncmp(in.type, "multipart/", 10) == 0) {
		/* A multipart without a usable boundary: read it as text. */
		w->m->flags |= MIME_F_BROKEN;
		in.type = "text/plain";
	}
	return add_leaf_at(w, &in, body, body + blen);
}

/* The body as one text part, when its structure cannot be read. */
static enum err
as_text(struct walk *w, struct info *in, const char *body, size_t len)
{
	w->m->flags |= MIME_F_BROKEN;
	w->m->nparts = 0;
	in->type = "text/plain";
	in->cte = CTE_RAW;
	return add_leaf(w, in, body, len);
}

/*
 * Hand a multipart body to libetpan behind a header of our own: the
 * mail's header was already read by hdr_split(), which is more lenient
 * than libetpan's (garbage lines would end libetpan's header early and
 * turn the rest into body).
 */
static enum err
parse_multipart(struct walk *w, struct info *in, struct str ct, struct str b,
    const char *body, size_t len)
{
	static const char pre[] = "Content-Type: ", post[] = "\r\n\r\n";
	struct mailmime *mm = NULL;
	size_t hlen = sizeof(pre) - 1 + ct.n + sizeof(post) - 1, n, idx = 0;
	struct scan sc;
	char *buf;
	long first;
	enum err e = ERR_OK;

	/* No delimiter at all: text; a closing one first: no parts.  (libetpan
	 * makes a part of the latter.) */
	first = delimiter_at(body, len, b.p, b.n, false);
	if (first < 0)
		return as_text(w, in, body, len);
	if (first == delimiter_at(body, len, b.p, b.n, true)) {
		w->m->flags |= MIME_F_BROKEN;
		return ERR_OK;
	}
	scan_body(w->a, body, len, b, &sc);
	if (sc.cut < len)
		w->m->flags |= MIME_F_PARTS;
	w->fills = arena_alloc(w->a, LIMIT_MIME_PARTS * sizeof(*w->fills));
	n = hlen + copy_body(NULL, body, &sc, w->fills, &w->nfills);
	buf = arena_alloc(w->a, n + 1);
	memcpy(buf, pre, sizeof(pre) - 1);
	memcpy(buf + sizeof(pre) - 1, ct.p, ct.n);
	memcpy(buf + sizeof(pre) - 1 + ct.n, post, sizeof(post) - 1);
	copy_body(buf + hlen, body, &sc, w->fills, &w->nfills);
	buf[n] = '\0';
	w->base = buf;
	w->hlen = hlen;
	w->body = body;
	if (mime_etpan_parse(buf, n, &idx, &mm) != MAILIMF_NO_ERROR)
		return as_text(w, in, body, len);
	if (mm->mm_type == MAILMIME_MESSAGE &&
	    mm->mm_data.mm_message.mm_msg_mime != NULL)
		e = walk(w, mm->mm_data.mm_message.mm_msg_mime, 1, false, NULL);
	mime_etpan_free(mm);
	if (e == ERR_OK && w->m->nparts == 0)
		w->m->flags |= MIME_F_BROKEN;
	return e;
}

enum err
mime_parse(struct arena *a, const char *raw, size_t n, const struct hdr *h,
    struct mime *out)
{
	struct walk w = { a, out, 0, 0, NULL, 0, NULL, NULL, 0 };
	size_t off = h->body_off < n ? h->body_off : n;
	struct info in;
	struct str ct, b;

	memset(out, 0, sizeof(*out));
	out->has_raw = true;
	if (n > LIMIT_MAIL_SIZE)
		return ERR_LIMIT;
	part_info(a, h, false, &in);
	if (strncmp(in.type, "multipart/", 10) != 0)
		return add_leaf(&w, &in, raw + off, n - off);
	ct = hdr_value(a, h, "Content-Type");
	b = charset_param(a, ct, "boundary");
	if (b.n == 0)
		return as_text(&w, &in, raw + off, n - off);
	return parse_multipart(&w, &in, ct, b, raw + off, n - off);
}
