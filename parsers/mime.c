/*
 * The body of a mail as decoded leaf parts (RFC 2045, RFC 2046).
 *
 * A mail that is not multipart (most list mail) never reaches libetpan:
 * its one part is decoded here straight from the raw bytes.  A multipart
 * mail is split by libetpan's MIME parser; every part's own header is
 * then read by hdr_split() and charset.c, and its body decoded here, so
 * the same lenient rules apply at every level.
 *
 * libetpan recurses once per nesting level and scans the whole part at
 * each level, so a mail nested thousands deep would exhaust the stack or
 * take quadratic time.  A cheap line scan (prescan) first follows the
 * boundaries as libetpan will, and cuts the mail where it nests deeper
 * than LIMIT_MIME_DEPTH or holds more than LIMIT_MIME_PARTS parts:
 * libetpan only ever sees the part of the mail that is within limits.
 */
#include "parsers/mime.h"

#include <libetpan/mailmime.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/charset.h"
#include "parsers/limits.h"
#include "util/ascii.h"

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
};

struct walk {
	struct arena *a;
	struct mime *m;
	size_t cap;
	size_t decoded; /* bytes of data so far, against LIMIT_DECODED_SIZE */
	const char *base; /* the buffer handed to libetpan */
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

/* Decode one leaf and append it to the list. */
static enum err
add_leaf(struct walk *w, const struct info *in, const char *p, size_t n)
{
	struct mime_part *part;
	struct str data = str_make(p, n);
	bool bad = false, fb = false;
	enum err e;

	if (w->m->nparts == LIMIT_MIME_PARTS) {
		w->m->flags |= MIME_F_PARTS;
		return ERR_OK;
	}
	if (in->cte == CTE_BASE64 || in->cte == CTE_QP) {
		char *o = arena_alloc(w->a, n + 1);

		data.n = in->cte == CTE_BASE64
		    ? charset_unbase64(o, p, n, &bad)
		    : charset_unqp(o, p, n, false, &bad);
		o[data.n] = '\0';
		data.p = o;
	} else if (in->cte == CTE_UNKNOWN) {
		bad = true;
	}
	if (bad)
		w->m->flags |= MIME_F_BROKEN;
	if (strncmp(in->type, "text/", 5) == 0) {
		e = charset_to_utf8(
		    w->a, in->charset, data.p, data.n, &data, &fb);
		if (e != ERR_OK)
			return e;
		if (fb)
			w->m->flags |= MIME_F_CHARSET;
		data = crlf_to_lf(w->a, data);
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

/* The offset of the line that is one Content-Type line too many, or len. */
static size_t
guard_cut(const char *p, size_t len, size_t max)
{
	size_t off = 0, count = 0;

	while (off < len) {
		const char *nl;

		if (len - off >= 12 &&
		    ascii_strnicmp(p + off, "content-type", 12) == 0 &&
		    ++count > max)
			return off;
		nl = memchr(p + off, '\n', len - off);
		if (nl == NULL)
			break;
		off = (size_t)(nl - p) + 1;
	}
	return len;
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

/* Whether a closing delimiter "--b--" starts a line of p. */
static bool
has_close(const char *p, size_t n, const char *b)
{
	size_t off = 0, bn = strlen(b);

	while (bn > 0 && off + bn + 4 <= n) {
		const char *q = memmem(p + off + 2, n - off - 2, b, bn);
		size_t at;

		if (q == NULL)
			return false;
		at = (size_t)(q - p);
		if (at + bn + 2 <= n && p[at - 1] == '-' && p[at - 2] == '-' &&
		    (at == 2 || p[at - 3] == '\n') && p[at + bn] == '-' &&
		    p[at + bn + 1] == '-')
			return true;
		off = at - 1;
	}
	return false;
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
	if ((b = mailmime_extract_boundary(mm->mm_content_type)) != NULL) {
		open = !has_close(body, blen, b);
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

static enum err
walk(struct walk *w, struct mailmime *mm, size_t depth, bool digest,
    const char *end)
{
	const char *body, *start = mm->mm_mime_start;
	size_t blen;
	struct hdr h = { NULL, 0, 0, true };
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
		return add_leaf(w, &in, start, (size_t)(body + blen - start));
	}
	/* The part's own header, read by our rules: libetpan has already
	 * decided where it ends. */
	if (hdr_split(w->a, start, (size_t)(body - start), &h) != ERR_OK) {
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
	return add_leaf(w, &in, body, blen);
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
parse_multipart(struct walk *w, struct info *in, struct str ct,
    const char *body, size_t len)
{
	static const char pre[] = "Content-Type: ", post[] = "\r\n\r\n";
	size_t cut = guard_cut(body, len, max_type_lines(len)), hlen, idx = 0;

	if (cut < len)
		cut = back_to_delimiter(body, cut);
	struct mailmime *mm = NULL;
	char *buf, *q;
	enum err e = ERR_OK;

	if (cut < len)
		w->m->flags |= MIME_F_PARTS;
	hlen = sizeof(pre) - 1 + ct.n + sizeof(post) - 1;
	q = buf = arena_alloc(w->a, hlen + cut + 1);
	memcpy(q, pre, sizeof(pre) - 1);
	q += sizeof(pre) - 1;
	memcpy(q, ct.p, ct.n);
	q += ct.n;
	memcpy(q, post, sizeof(post) - 1);
	q += sizeof(post) - 1;
	memcpy(q, body, cut);
	q[cut] = '\0';
	w->base = buf;
	if (mailmime_parse(buf, hlen + cut, &idx, &mm) != MAILIMF_NO_ERROR)
		return as_text(w, in, body, len);
	if (mm->mm_type == MAILMIME_MESSAGE &&
	    mm->mm_data.mm_message.mm_msg_mime != NULL)
		e = walk(w, mm->mm_data.mm_message.mm_msg_mime, 1, false, NULL);
	mailmime_free(mm);
	if (e != ERR_OK)
		return e;
	/* No structure found at all (no delimiter lines): read it as text.
	 * A mail cut by a limit keeps what was within the limit. */
	if (w->m->nparts == 0 &&
	    (w->m->flags & (MIME_F_DEPTH | MIME_F_PARTS)) == 0)
		return as_text(w, in, body, len);
	return ERR_OK;
}

enum err
mime_parse(struct arena *a, const char *raw, size_t n, const struct hdr *h,
    struct mime *out)
{
	struct walk w = { a, out, 0, 0, NULL };
	size_t off = h->body_off < n ? h->body_off : n;
	struct info in;
	struct str ct, b;

	memset(out, 0, sizeof(*out));
	if (n > LIMIT_MAIL_SIZE)
		return ERR_LIMIT;
	part_info(a, h, false, &in);
	if (strncmp(in.type, "multipart/", 10) != 0)
		return add_leaf(&w, &in, raw + off, n - off);
	ct = hdr_value(a, h, "Content-Type");
	b = charset_param(a, ct, "boundary");
	if (b.n == 0)
		return as_text(&w, &in, raw + off, n - off);
	return parse_multipart(&w, &in, ct, raw + off, n - off);
}
