/*
 * A patch mail taken apart as git's mailinfo.c (v2.39) does it, so that
 * what we stage is what `git am` would commit:
 *
 * - the body is read line by line; at its top, in-body "From:",
 *   "Subject:" and "Date:" lines (with continuation lines) override the
 *   mail's, and a "[PATCH] title" line overrides the subject; blank lines
 *   before them are skipped, the first blank line after them ends them;
 * - a scissors line ("-- >8 --") throws away everything above it,
 *   in-body headers included, as `git mailinfo --scissors` (and `git am
 *   --scissors`) does.  patch_parse() honours scissors always: on a list
 *   they mark the patch inside a reply, and a message body rarely holds a
 *   perforated line by chance.  patch_mailinfo() does as it is asked
 *   (patatt runs `git mailinfo --no-scissors`);
 * - the first patch break (a "diff -" or "Index: " line, a "---" line
 *   with only blanks after it, or "--- name") starts the patch; every line
 *   from there on is the patch, as in mailinfo's patch file;
 * - the subject loses leading "Re:", blanks, colons and every leading
 *   [...] group (cleanup_subject()), and runs of blanks become one space;
 * - the author is the in-body From: if any, else the mail's From:; the
 *   name is replaced by the address when it is empty, over 60 bytes or
 *   holds '@', '<' or '>' (get_sane_name());
 * - the message is mailinfo's log with git am's strbuf_stripspace().
 *
 * The body is the mail's text parts in order: inline text and text
 * attachments (text/x-patch, text/x-diff); not text/html, and not
 * non-text parts, which mailinfo would feed through too (a PGP signature
 * then ends up in its patch file, but never in the patch-id).
 */
#include "parsers/patch.h"

#include <stdlib.h>
#include <string.h>

#include "parsers/charset.h"
#include "parsers/diffname.h"
#include "parsers/limits.h"
#include "parsers/patchid.h"
#include "util/ascii.h"

/* git's isspace(): SP, TAB, LF, CR (ctype.c). */
static bool
git_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A line of the body, with its LF when it has one. */
struct mline {
	const char *p;
	size_t n;
};

static bool
ml_starts(struct mline l, const char *prefix)
{
	size_t n = strlen(prefix);

	return l.n >= n && memcmp(l.p, prefix, n) == 0;
}

/* In-body header names, in mailinfo's order. */
enum {
	HDR_FROM,
	HDR_SUBJECT,
	HDR_DATE,
	HDR_COUNT
};
static const char *const hdr_names[HDR_COUNT] = { "From", "Subject", "Date" };

/* The state of mailinfo's handle_commit_msg(). */
struct mi {
	struct arena *a;
	bool scissors; /* honour scissors lines (git mailinfo --scissors) */
	bool header_stage;
	struct buf accum; /* in-body header lines being gathered */
	bool over; /* accum went over its cap: ERR_LIMIT */
	struct str s_hdr[HDR_COUNT]; /* in-body values; p NULL when none */
	struct buf log; /* the commit message so far */
};

/*
 * "Name:" at the start of l (name ASCII case-insensitive): the value
 * after the colon and its leading blanks (git's skip_header()).
 */
static bool
skip_header(struct mline l, const char *name, struct str *val)
{
	size_t n = strlen(name);
	const char *p, *end = l.p + l.n;

	if (l.n <= n || ascii_strnicmp(l.p, name, n) != 0 || l.p[n] != ':')
		return false;
	for (p = l.p + n + 1; p < end && git_space(*p); p++)
		;
	*val = str_make(p, (size_t)(end - p));
	return true;
}

static bool
is_inbody_header(const struct mi *mi, struct mline l)
{
	struct str v;
	int i;

	for (i = 0; i < HDR_COUNT; i++)
		if (mi->s_hdr[i].p == NULL && skip_header(l, hdr_names[i], &v))
			return true;
	return false;
}

/* Whether l holds ">8", ">%", "8<" or "%<", which every scissors line
 * does: most lines hold neither '<' nor '>', and are done with two
 * memchr instead of the walk below. */
static bool
has_scissors(struct mline l)
{
	const char *c, *end = l.p + l.n;

	for (c = l.p; (c = memchr(c, '>', (size_t)(end - c))) != NULL; c++)
		if (end - c >= 2 && (c[1] == '8' || c[1] == '%'))
			return true;
	for (c = l.p; (c = memchr(c, '<', (size_t)(end - c))) != NULL; c++)
		if (c > l.p && (c[-1] == '8' || c[-1] == '%'))
			return true;
	return false;
}

/* git's is_scissors_line(). */
static bool
is_scissors_line(struct mline l)
{
	const char *c, *end = l.p + l.n, *first = NULL, *last = NULL;
	int scissors = 0, gap = 0, perforation = 0, visible;
	bool in_perforation = false;

	if (!has_scissors(l))
		return false;
	for (c = l.p; c < end; c++) {
		if (git_space(*c)) {
			if (in_perforation) {
				perforation++;
				gap++;
			}
			continue;
		}
		last = c;
		if (first == NULL)
			first = c;
		if (*c == '-') {
			in_perforation = true;
			perforation++;
			continue;
		}
		if (end - c >= 2 &&
		    ((c[0] == '>' && (c[1] == '8' || c[1] == '%')) ||
		        ((c[0] == '8' || c[0] == '%') && c[1] == '<'))) {
			in_perforation = true;
			perforation += 2;
			scissors += 2;
			c++;
			continue;
		}
		in_perforation = false;
	}
	visible = first && last ? (int)(last - first + 1) : 0;
	return scissors && 8 <= visible && visible < perforation * 3 &&
	    gap * 2 < perforation;
}

/* git's patchbreak(). */
static bool
patchbreak(struct mline l)
{
	size_t i;

	if (ml_starts(l, "diff -") || ml_starts(l, "Index: "))
		return true;
	if (l.n < 4 || !ml_starts(l, "---"))
		return false;
	/* git reads the NUL after a last line without LF: not a blank. */
	if (l.p[3] == ' ' && (l.n == 4 || !git_space(l.p[4])))
		return true;
	for (i = 3; i < l.n; i++) {
		if (l.p[i] == '\n')
			return true;
		if (!git_space(l.p[i]))
			break;
	}
	return false;
}

/* The first of From/Subject/Date the accumulated lines name, stored
 * unless already known (check_header(..., overwrite 0)). */
static void
flush_accum(struct mi *mi)
{
	struct mline l = { mi->accum.p, mi->accum.n };
	struct str v;
	int i;

	if (mi->accum.n == 0)
		return;
	for (i = 0; i < HDR_COUNT; i++) {
		if (mi->s_hdr[i].p == NULL &&
		    skip_header(l, hdr_names[i], &v)) {
			mi->s_hdr[i] = arena_str(mi->a, v);
			break;
		}
	}
	buf_reset(&mi->accum);
}

/* ">From <40 hex> Mon Sep 17 00:00:00 2001", git's format-patch line. */
static bool
is_format_patch_separator(const char *p, size_t n)
{
	static const char tail[] = " Mon Sep 17 00:00:00 2001\n";
	size_t i;

	if (n != 5 + 40 + sizeof(tail) - 1 || memcmp(p, "From ", 5) != 0)
		return false;
	for (i = 5; i < 45; i++)
		if (!((p[i] >= '0' && p[i] <= '9') ||
		        (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return memcmp(p + 45, tail, sizeof(tail) - 1) == 0;
}

/* Gather l into the in-body header, within LIMIT_FIELD_SIZE. */
static bool
accum_add(struct mi *mi, struct mline l)
{
	if (buf_fits(&mi->accum, l.n))
		buf_add(&mi->accum, l.p, l.n);
	else
		mi->over = true;
	return true;
}

/* git's check_inbody_header(): true when the line was taken as one. */
static bool
check_inbody_header(struct mi *mi, struct mline l)
{
	if (mi->accum.n && l.n && (l.p[0] == ' ' || l.p[0] == '\t')) {
		if (mi->scissors && is_scissors_line(l)) {
			flush_accum(mi);
			return false;
		}
		if (mi->accum.n && mi->accum.p[mi->accum.n - 1] == '\n')
			mi->accum.n--;
		return accum_add(mi, l);
	}
	flush_accum(mi);
	if (ml_starts(l, ">From") && l.n > 5 && git_space(l.p[5]))
		return is_format_patch_separator(l.p + 1, l.n - 1);
	if (ml_starts(l, "[PATCH]") && l.n > 7 && git_space(l.p[7])) {
		mi->s_hdr[HDR_SUBJECT] = arena_str(mi->a, str_make(l.p, l.n));
		return true;
	}
	if (is_inbody_header(mi, l))
		return accum_add(mi, l);
	return false;
}

/* git's handle_commit_msg(): true when the line starts the patch. */
static bool
commit_msg_line(struct mi *mi, struct mline l)
{
	if (mi->header_stage && (l.n == 0 || (l.n == 1 && l.p[0] == '\n'))) {
		if (mi->accum.n) {
			flush_accum(mi);
			mi->header_stage = false;
		}
		return false;
	}
	if (mi->header_stage) {
		mi->header_stage = check_inbody_header(mi, l);
		if (mi->header_stage)
			return false;
	}
	if (mi->scissors && is_scissors_line(l)) {
		int i;

		buf_reset(&mi->log);
		mi->header_stage = true;
		for (i = 0; i < HDR_COUNT; i++)
			mi->s_hdr[i] = STR_NULL;
		return false;
	}
	if (patchbreak(l))
		return true;
	buf_add(&mi->log, l.p, l.n);
	return false;
}

/*
 * The parts mailinfo would read a patch from: text parts but HTML, and
 * patch attachments sent as application/x-patch or with a .patch or .diff
 * name.  (mailinfo reads every part; signatures and HTML are not ours.)
 */
static bool
part_used(const struct mime_part *pt)
{
	size_t n;

	if (pt->data.n == 0)
		return false;
	if (pt->text)
		return pt->type == NULL || strcmp(pt->type, "text/html") != 0;
	if (pt->type &&
	    (strcmp(pt->type, "application/x-patch") == 0 ||
	        strcmp(pt->type, "application/x-diff") == 0))
		return true;
	n = pt->filename ? strlen(pt->filename) : 0;
	return n > 6 &&
	    (ascii_stricmp(pt->filename + n - 6, ".patch") == 0 ||
	        ascii_stricmp(pt->filename + n - 5, ".diff") == 0);
}

/* Copy p[0..n) to out, dropping the CR of every CRLF. */
static size_t
copy_lf(char *out, const char *p, size_t n)
{
	size_t i, j = 0;

	for (i = 0; i < n; i++)
		if (!(p[i] == '\r' && i + 1 < n && p[i + 1] == '\n'))
			out[j++] = p[i];
	return j;
}

/*
 * The body as mailinfo reads it, twice: in UTF-8 (text), and in the
 * bytes the sender's charset gave (raw), line for line the same.  A mail
 * of one part is its text.  In a multipart mail mailinfo also reads the
 * line break before each boundary, and one more at the closing boundary:
 * every part is followed by a LF, and the body by another.
 */
/* The bytes a patch is read from: raw when mime_parse() filled it in. */
static struct str
part_raw(const struct mime *m, const struct mime_part *pt)
{
	return m->has_raw && pt->text && pt->raw.p ? pt->raw : pt->data;
}

static void
body_text(
    struct arena *a, const struct mime *m, struct str *text, struct str *raw)
{
	size_t i, tn = 0, rn = 0, t = 0, r = 0;
	char *tp, *rp;

	*text = *raw = STR_NULL;
	for (i = 0; m && i < m->nparts; i++) {
		if (part_used(&m->parts[i])) {
			tn += m->parts[i].data.n + 1;
			rn += part_raw(m, &m->parts[i]).n + 1;
		}
	}
	if (tn == 0)
		return;
	if (m->nparts == 1 && m->parts[0].text) {
		*text = m->parts[0].data;
		*raw = part_raw(m, &m->parts[0]);
		return;
	}
	tp = arena_alloc(a, tn + 2);
	rp = arena_alloc(a, rn + 2);
	for (i = 0; i < m->nparts; i++) {
		const struct mime_part *pt = &m->parts[i];
		struct str w = part_raw(m, pt);

		if (!part_used(pt))
			continue;
		t += copy_lf(tp + t, pt->data.p, pt->data.n);
		r += copy_lf(rp + r, w.p, w.n);
		tp[t++] = '\n';
		rp[r++] = '\n';
	}
	tp[t++] = '\n';
	rp[r++] = '\n';
	*text = str_make(tp, t);
	*raw = str_make(rp, r);
}

/* Offset of the start of line number k (0-based) in s, or -1. */
static long
line_offset(struct str s, size_t k)
{
	const char *p = s.p, *end = s.p + s.n;

	while (k > 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (nl == NULL)
			return -1;
		p = nl + 1;
		k--;
	}
	return (long)(p - s.p);
}

/* The patch in the raw bytes, from the line where text's patch starts. */
static struct str
raw_patch(struct str text, struct str raw, size_t off)
{
	const char *p = text.p, *end = text.p + off;
	size_t lines = 0;
	long r;

	if (raw.p == text.p)
		return str_make(text.p + off, text.n - off);
	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		lines++;
		p++;
	}
	r = line_offset(raw, lines);
	if (r < 0)
		return str_make(text.p + off, text.n - off);
	return str_make(raw.p + r, raw.n - (size_t)r);
}

/*
 * Run the body through the message state machine; *patch_off is where the
 * patch starts, or text.n when there is none.  ERR_LIMIT on a line over
 * LIMIT_LINE_LEN or an in-body header over LIMIT_FIELD_SIZE.
 */
static enum err
split_body(struct mi *mi, struct str text, size_t *patch_off)
{
	const char *p = text.p, *end = p ? p + text.n : NULL;

	*patch_off = text.n;
	while (p != NULL && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct mline l = { p,
			nl ? (size_t)(nl - p) + 1 : (size_t)(end - p) };

		if (l.n > LIMIT_LINE_LEN)
			return ERR_LIMIT;
		if (commit_msg_line(mi, l)) {
			*patch_off = (size_t)(p - text.p);
			return ERR_OK;
		}
		if (mi->over)
			return ERR_LIMIT;
		p += l.n;
	}
	flush_accum(mi);
	return ERR_OK;
}

/* git's cleanup_space(): every blank becomes ' ', runs become one. */
static size_t
cleanup_space(char *s, size_t n)
{
	size_t i, j = 0;

	for (i = 0; i < n; i++) {
		if (!git_space(s[i]))
			s[j++] = s[i];
		else if (i == 0 || !git_space(s[i - 1]))
			s[j++] = ' ';
	}
	return j;
}

static struct str
trim_git(struct str s)
{
	while (s.n && git_space(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && git_space(s.p[s.n - 1]))
		s.n--;
	return s;
}

/* git's cleanup_subject() (without -k or -b), then cleanup_space(). */
static const char *
clean_subject(struct arena *a, struct str subj)
{
	const char *p = subj.p ? subj.p : "", *end = p + subj.n;
	char *out;
	size_t n;

	while (p < end) {
		if ((*p == 'r' || *p == 'R') && end - p > 3 &&
		    (p[1] == 'e' || p[1] == 'E') && p[2] == ':') {
			p += 3;
		} else if (*p == ' ' || *p == '\t' || *p == ':') {
			p++;
		} else if (*p == '[') {
			const char *close = memchr(p, ']', (size_t)(end - p));

			if (close == NULL)
				break;
			p = close + 1;
		} else {
			break;
		}
	}
	subj = trim_git(str_make(p, (size_t)(end - p)));
	out = arena_strndup(a, subj.p, subj.n);
	n = cleanup_space(out, subj.n);
	out[n] = '\0';
	return out;
}

/* get_sane_name(): the address stands in for a useless name. */
static const char *
sane_name(const char *name, const char *email)
{
	if (name == NULL || *name == '\0' || strlen(name) > 60 ||
	    strpbrk(name, "@<>") != NULL)
		return email;
	return name;
}

/* git's unquote_comment() and unquote_quoted_string() for one level. */
static const char *
unquote_part(struct buf *out, const char *in, const char *end, char close)
{
	bool literal = false;

	if (close == ')')
		buf_addc(out, '(');
	while (in < end) {
		char c = *in++;

		if (literal) {
			literal = false;
		} else if (c == '\\') {
			literal = true;
			continue;
		} else if (c == '(' && close == ')') {
			in = unquote_part(out, in, end, ')');
			continue;
		} else if (c == close) {
			if (close == ')')
				buf_addc(out, ')');
			return in;
		}
		buf_addc(out, c);
	}
	return in;
}

/* git's parse_bogus_from(): "John Doe <johndoe>", no '@' at all. */
static void
parse_bogus_from(struct arena *a, struct str v, struct addr *out)
{
	const char *end = v.p + v.n, *bra, *ket;
	struct str nm;

	bra = memchr(v.p, '<', v.n);
	ket = bra ? memchr(bra, '>', (size_t)(end - bra)) : NULL;
	if (ket == NULL)
		return;
	nm = trim_git(str_make(v.p, (size_t)(bra - v.p)));
	out->email = arena_strndup(a, bra + 1, (size_t)(ket - bra - 1));
	out->name = sane_name(arena_strndup(a, nm.p, nm.n), out->email);
}

/*
 * A display name and address from an in-body From: value, as git's
 * handle_from() reads them: quotes and comment escapes undone, the word
 * around the '@' is the address, what is left is the name.
 */
static void
parse_from(struct arena *a, struct str v, struct addr *out)
{
	struct buf f = BUF_INIT;
	const char *in = v.p, *end = v.p + v.n;
	char *at, *s, *name;
	size_t el, skip, n;
	struct str nm;

	while (in < end) {
		char c = *in++;

		if (c == '"')
			in = unquote_part(&f, in, end, '"');
		else if (c == '(')
			in = unquote_part(&f, in, end, ')');
		else
			buf_addc(&f, c);
	}
	out->name = out->email = "";
	s = arena_strdup(a, buf_cstr(&f));
	buf_free(&f);
	at = strchr(s, '@');
	if (at == NULL) {
		parse_bogus_from(a, v, out);
		return;
	}
	while (at > s && !git_space(at[-1]) && at[-1] != '<')
		at--;
	if (at > s && at[-1] == '<')
		at[-1] = ' ';
	el = strcspn(at, " \n\t\r\v\f>");
	out->email = arena_strndup(a, at, el);
	/* The name is the rest: the address and the byte after it go. */
	skip = el + (at[el] ? 1 : 0);
	n = strlen(s);
	name = arena_alloc(a, n + 1);
	memcpy(name, s, (size_t)(at - s));
	memcpy(name + (at - s), at + skip, n - (size_t)(at - s) - skip + 1);
	nm = trim_git(str_make(name, cleanup_space(name, strlen(name))));
	if (nm.n >= 2 && nm.p[0] == '(' && nm.p[nm.n - 1] == ')') {
		nm.p++;
		nm.n -= 2;
	}
	out->name = sane_name(arena_strndup(a, nm.p, nm.n), out->email);
}

/* git's strbuf_stripspace() without comments: trailing blanks off every
 * line, no leading or trailing empty lines, runs of them made one. */
static struct str
stripspace(struct arena *a, struct str b)
{
	char *out = arena_alloc(a, b.n + 2);
	const char *p = b.p ? b.p : "", *end = p + b.n;
	size_t j = 0, empties = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		size_t keep = len;

		while (keep && git_space(p[keep - 1]))
			keep--;
		if (keep) {
			if (empties && j)
				out[j++] = '\n';
			empties = 0;
			memcpy(out + j, p, keep);
			j += keep;
			out[j++] = '\n';
		} else {
			empties++;
		}
		p += len;
	}
	out[j] = '\0';
	return str_make(out, j);
}

/* A line of a diffstat: " path | 3 ++-", " path | Bin", a summary line. */
static bool
stat_line(struct str l)
{
	static const char *const summary[] = { " create mode ", " delete mode ",
		" rename ", " copy ", " mode change ", " rewrite ", NULL };
	size_t i;

	if (l.n < 2 || l.p[0] != ' ')
		return false;
	if (str_findstr(l, " | ", 3) > 0)
		return true;
	for (i = 0; summary[i]; i++)
		if (str_startswith(l, summary[i]))
			return true;
	return false;
}

static bool
stat_summary(struct str l)
{
	return l.n > 1 && l.p[0] == ' ' &&
	    (str_findstr(l, " file changed", 13) > 0 ||
	        str_findstr(l, " files changed", 14) > 0);
}

/*
 * The diffstat the sender put between the "---" line and the diff: the
 * run of stat lines around git's " N files changed" line (notes such as
 * "v2: ..." may stand before it).
 */
static struct str
sender_diffstat(struct str diff)
{
	struct str rest = diff, l;
	const char *start = NULL, *end = NULL;
	bool summary = false;

	if (!str_nextline(&rest, &l) || !str_startswith(l, "---"))
		return STR_NULL;
	while (str_nextline(&rest, &l)) {
		if (str_startswith(l, "diff ") || str_startswith(l, "Index: "))
			break;
		if (stat_line(l) || (!summary && stat_summary(l))) {
			if (start == NULL)
				start = l.p;
			summary = summary || stat_summary(l);
			end = rest.p;
			continue;
		}
		if (summary)
			break;
		start = NULL;
	}
	if (!summary || start == NULL)
		return STR_NULL;
	return str_make(start, (size_t)(end - start));
}

static int
cmp_path(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The paths a diff touches, sorted and unique: both sides of a rename
 * or copy, so that a maintainer limited to some paths is checked on
 * what leaves them as on what comes in. */
static void
touched_files(struct arena *a, struct patch *p)
{
	const struct diff *d = p->parsed;
	const char **files;
	size_t i, n = 0;

	p->files = NULL;
	p->nfiles = 0;
	if (d == NULL || d->nfiles == 0)
		return;
	files = arena_alloc(a, 2 * d->nfiles * sizeof(*files));
	for (i = 0; i < d->nfiles; i++) {
		if (d->files[i].new_path != NULL)
			files[n++] = d->files[i].new_path;
		if (d->files[i].old_path != NULL &&
		    (d->files[i].new_path == NULL ||
		        strcmp(d->files[i].old_path, d->files[i].new_path)))
			files[n++] = d->files[i].old_path;
	}
	qsort(files, n, sizeof(*files), cmp_path);
	for (i = 0, p->nfiles = 0; i < n; i++)
		if (p->nfiles == 0 ||
		    strcmp(files[p->nfiles - 1], files[i]) != 0)
			files[p->nfiles++] = files[i];
	p->files = files;
}

/*
 * An in-body header value, with its RFC 2047 words decoded as mailinfo's
 * decode_header() does; the mail's own values come decoded already.
 */
static struct str
inbody_value(struct arena *a, struct str v)
{
	struct str out;

	if (v.p == NULL || memmem(v.p, v.n, "=?", 2) == NULL)
		return v;
	if (charset_decode_header(a, v, &out, NULL) != ERR_OK)
		return v;
	return out;
}

/* "a/" or "b/" and a path, quoted as git quotes it, or /dev/null. */
static void
put_name(struct buf *b, const char *prefix, const char *path)
{
	struct buf full = BUF_INIT;

	if (path == NULL) {
		buf_adds(b, "/dev/null");
		return;
	}
	buf_addf(&full, "%s%s", prefix, path);
	diffname_quote(b, buf_cstr(&full));
	buf_free(&full);
}

/*
 * A plain "diff -u" or quilt patch has no git patch-id: `git patch-id`
 * skips everything up to a "diff " line.  DESIGN.md wants one for every
 * patch, so such a patch is hashed as the same change in git form (the
 * names as `git apply -p1` reads them, new files mode 100644): the id
 * git gives once the change is committed and mailed by format-patch.
 */
static void
git_form_patchid(struct patch *p)
{
	struct buf b = BUF_INIT;
	size_t i, k;

	for (i = 0; i < p->parsed->nfiles; i++) {
		const struct diff_file *f = &p->parsed->files[i];
		const char *oldp = f->old_path, *newp = f->new_path;

		if (f->git || f->binary)
			goto out; /* git form already, or nothing to say */
		buf_adds(&b, "diff --git ");
		put_name(&b, "a/", oldp ? oldp : newp);
		buf_addc(&b, ' ');
		put_name(&b, "b/", newp ? newp : oldp);
		if (f->op == DIFF_ADD)
			buf_addf(&b, "\nnew file mode %o",
			    f->new_mode ? f->new_mode : 0100644);
		if (f->op == DIFF_DELETE)
			buf_addf(&b, "\ndeleted file mode %o",
			    f->old_mode ? f->old_mode : 0100644);
		buf_adds(&b, "\n--- ");
		put_name(&b, "a/", oldp);
		buf_adds(&b, "\n+++ ");
		put_name(&b, "b/", newp);
		buf_addc(&b, '\n');
		for (k = 0; k < f->nhunks; k++) {
			buf_addstr(&b, f->hunks[k].header);
			buf_addc(&b, '\n');
			buf_addstr(&b, f->hunks[k].lines);
		}
	}
	patchid_stable(b.p, b.n, p->patch_id);
out:
	buf_free(&b);
}

/*
 * Subject, author and date: in-body values win, but only when the mail
 * holds a patch (mailinfo's handle_info() prints them "only if we output
 * a patch file").
 */
static void
fill_meta(struct arena *a, const struct mi *mi, const struct patch_in *in,
    struct patch_mailinfo *out)
{
	bool inbody = out->patch.p != NULL;
	struct str v;

	out->subject = clean_subject(a,
	    inbody && mi->s_hdr[HDR_SUBJECT].p
	        ? inbody_value(a, mi->s_hdr[HDR_SUBJECT])
	        : in->subject);
	v = inbody && mi->s_hdr[HDR_FROM].p
	    ? inbody_value(a, mi->s_hdr[HDR_FROM])
	    : in->from_value;
	if (v.p != NULL) {
		char *f = arena_strndup(a, v.p, v.n);

		parse_from(
		    a, str_make(f, cleanup_space(f, strlen(f))), &out->author);
	} else {
		out->author.email = in->from.email ? in->from.email : "";
		out->author.name = sane_name(in->from.name, out->author.email);
	}
	v = inbody && mi->s_hdr[HDR_DATE].p ? mi->s_hdr[HDR_DATE] : in->date;
	out->date = trim_git(v.p ? v : STR_LIT(""));
}

/*
 * Run the body through mailinfo's state machine: mi holds the log and
 * the in-body headers after it (the caller frees its buffers), *patch
 * the patch file, STR_NULL when there is none.
 */
static enum err
run_mailinfo(struct arena *a, const struct patch_in *in, bool scissors,
    struct mi *mi, struct str *patch)
{
	struct str text, raw;
	size_t off;
	enum err e;

	*patch = STR_NULL;
	body_text(a, in->body, &text, &raw);
	memset(mi, 0, sizeof(*mi));
	mi->a = a;
	mi->scissors = scissors;
	mi->header_stage = true;
	buf_init(&mi->accum, LIMIT_FIELD_SIZE);
	buf_init(&mi->log, 0);
	e = split_body(mi, text, &off);
	if (e == ERR_OK && off < text.n)
		*patch = raw_patch(text, raw, off);
	return e;
}

enum err
patch_mailinfo(struct arena *a, const struct patch_in *in, unsigned flags,
    struct patch_mailinfo *out)
{
	struct mi mi;
	enum err e;

	memset(out, 0, sizeof(*out));
	e = run_mailinfo(
	    a, in, (flags & PATCH_MI_SCISSORS) != 0, &mi, &out->patch);
	if (e == ERR_OK) {
		fill_meta(a, &mi, in, out);
		out->msg = arena_str(a, buf_str(&mi.log));
	}
	buf_free(&mi.accum);
	buf_free(&mi.log);
	return e;
}

enum err
patch_parse(struct arena *a, const struct patch_in *in, struct patch **out)
{
	struct patch_mailinfo info;
	struct mi mi;
	struct patch *p;
	enum err e;

	*out = NULL;
	memset(&info, 0, sizeof(info));
	e = run_mailinfo(a, in, true, &mi, &info.patch);
	if (e == ERR_OK && info.patch.p == NULL)
		e = ERR_NOTFOUND;
	if (e != ERR_OK)
		goto out;
	p = arena_zalloc(a, sizeof(*p));
	p->diff = info.patch;
	patchid_stable(p->diff.p, p->diff.n, p->patch_id);
	e = diff_parse(a, p->diff.p, p->diff.n, &p->parsed);
	if (e == ERR_LIMIT)
		goto out;
	if (e == ERR_OK && p->patch_id[0] == '\0')
		git_form_patchid(p);
	if (e != ERR_OK && p->patch_id[0] == '\0') {
		e = ERR_NOTFOUND;
		goto out;
	}
	e = ERR_OK;
	fill_meta(a, &mi, in, &info);
	p->author = info.author;
	p->date = info.date;
	p->subject = info.subject;
	p->message = stripspace(a, buf_str(&mi.log));
	p->diffstat = sender_diffstat(p->diff);
	touched_files(a, p);
	*out = p;
out:
	buf_free(&mi.accum);
	buf_free(&mi.log);
	return e;
}

/* The first 40-hex word of s, or NULL. */
static const char *
find_sha(struct arena *a, struct str s)
{
	size_t i, run = 0;

	for (i = 0; i < s.n; i++) {
		if (ascii_isxdigit(s.p[i])) {
			run++;
			continue;
		}
		if (run == 40)
			return arena_strndup(a, s.p + i - 40, 40);
		run = 0;
	}
	return run == 40 ? arena_strndup(a, s.p + s.n - 40, 40) : NULL;
}

/* The text of `git request-pull`: since, the URL and ref, up to. */
enum err
patch_parse_pull(struct arena *a, const struct mime *body, struct pull **out)
{
	struct str text, raw, rest, line;
	struct pull *pl = arena_zalloc(a, sizeof(*pl));
	bool want_url = false;

	*out = NULL;
	body_text(a, body, &text, &raw);
	/* Both ids come from these lines: without them, no need to read
	 * the lines of every mail that is not a patch. */
	if (str_findstr(text, "changes since commit ", 21) < 0 &&
	    str_findstr(text, "fetch changes up to ", 20) < 0)
		return ERR_NOTFOUND;
	rest = text;
	while (str_nextline(&rest, &line)) {
		struct str t = str_trim(line);
		long at;

		if (want_url && t.n) {
			at = str_find(t, ' ');
			pl->url =
			    arena_strndup(a, t.p, at < 0 ? t.n : (size_t)at);
			if (at >= 0) {
				struct str r =
				    str_trim(str_skip(t, (size_t)at));

				pl->ref = arena_strndup(a, r.p, r.n);
			}
			want_url = false;
		} else if ((at = str_findstr(t, "changes since commit ", 21)) >=
		        0 &&
		    pl->base == NULL) {
			pl->base = find_sha(a, str_skip(t, (size_t)at));
		} else if (str_findstr(t, "fetch changes up to ", 20) >= 0 &&
		    pl->commit == NULL) {
			pl->commit = find_sha(a, t);
		} else if (pl->url == NULL && t.n > 22 &&
		    ascii_strnicmp(
		        t.p + t.n - 22, "in the git repository:", 22) == 0) {
			want_url = true;
		} else if (pl->url == NULL && t.n > 25 &&
		    ascii_strnicmp(
		        t.p + t.n - 25, "in the git repository at:", 25) == 0) {
			want_url = true;
		}
	}
	if (pl->url == NULL || (pl->base == NULL && pl->commit == NULL))
		return ERR_NOTFOUND;
	*out = pl;
	return ERR_OK;
}
