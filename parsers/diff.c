/*
 * Splitting a unified diff into files and hunks.
 *
 * The rules follow git's apply.c (v2.39), because `git am` is what our
 * users compare us with: a file section starts at "diff --git" (whose
 * extended header lines are read as git reads them), or at a "--- " line
 * followed by "+++ " and "@@ -" (a traditional "diff -u" or quilt patch,
 * whose names lose one leading directory as with `git apply -p1`).  Hunk
 * bodies are counted by the numbers in their "@@" header, never by what
 * the lines look like: that is what keeps a trailing "-- " signature out
 * of the last hunk.  Anything between file sections (a commit message, a
 * diffstat, a signature) is skipped.
 *
 * The caller must have turned CRLF into LF; a CR left at a line end stays
 * part of the line.
 */
#include "parsers/diff.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/diffname.h"
#include "parsers/limits.h"
#include "util/ascii.h"
#include "util/xalloc.h"

/* A line of the input: [p, p + n) without its LF; next is the line after. */
struct line {
	const char *p;
	size_t n;
	const char *next;
	bool lf; /* it ended with a LF (the last line may not) */
};

/* Work state of one diff_parse() call. */
struct parser {
	struct arena *a;
	const char *end;
	struct diff_file *files;
	size_t nfiles, capfiles;
	struct diff_hunk *hunks;
	size_t nhunks, caphunks;
	size_t *first_hunk; /* per file: index of its first hunk */
	size_t capfirst;
	int p_value; /* leading components stripped from traditional names */
	bool p_known;
};

static bool
line_at(const char *p, const char *end, struct line *l)
{
	const char *nl;

	if (p >= end)
		return false;
	nl = memchr(p, '\n', (size_t)(end - p));
	l->p = p;
	l->n = nl ? (size_t)(nl - p) : (size_t)(end - p);
	l->next = nl ? nl + 1 : end;
	l->lf = nl != NULL;
	return true;
}

static bool
line_starts(const struct line *l, const char *prefix)
{
	size_t n = strlen(prefix);

	return l->n >= n && memcmp(l->p, prefix, n) == 0;
}

static bool
next_starts(const char *p, const char *end, const char *prefix)
{
	struct line l;

	return line_at(p, end, &l) && line_starts(&l, prefix);
}

static unsigned
parse_octal(const char *s, const char *end)
{
	unsigned v = 0;

	for (; s < end && *s >= '0' && *s <= '7' && v < 0xffffff; s++)
		v = v * 8 + (unsigned)(*s - '0');
	return v;
}

static unsigned long
parse_ulong(const char **pp, const char *end, bool *ok)
{
	const char *p = *pp;
	unsigned long v = 0;

	*ok = p < end && ascii_isdigit(*p);
	for (; p < end && ascii_isdigit(*p); p++) {
		if (v > (ULONG_MAX - 9) / 10)
			*ok = false;
		else
			v = v * 10 + (unsigned long)(*p - '0');
	}
	*pp = p;
	return v;
}

/* "@@ -a[,b] +c[,d] @@ section" (git's parse_fragment_header()). */
static bool
parse_hunk_header(const struct line *l, struct diff_hunk *h)
{
	const char *p = l->p + 4, *end = l->p + l->n;
	bool ok;

	h->old_start = parse_ulong(&p, end, &ok);
	if (!ok)
		return false;
	h->old_count = 1;
	if (p < end && *p == ',') {
		p++;
		h->old_count = parse_ulong(&p, end, &ok);
		if (!ok)
			return false;
	}
	if (end - p < 2 || memcmp(p, " +", 2) != 0)
		return false;
	p += 2;
	h->new_start = parse_ulong(&p, end, &ok);
	if (!ok)
		return false;
	h->new_count = 1;
	if (p < end && *p == ',') {
		p++;
		h->new_count = parse_ulong(&p, end, &ok);
		if (!ok)
			return false;
	}
	if (end - p < 3 || memcmp(p, " @@", 3) != 0)
		return false;
	h->header = str_make(l->p, l->n);
	return true;
}

static enum err
add_hunk(struct parser *ps, const struct diff_hunk *h)
{
	if (ps->nhunks >= LIMIT_PATCH_HUNKS)
		return ERR_LIMIT;
	ps->hunks =
	    xgrow(ps->hunks, &ps->caphunks, ps->nhunks + 1, sizeof(*ps->hunks));
	ps->hunks[ps->nhunks++] = *h;
	return ERR_OK;
}

/*
 * One hunk at p: its header and exactly as many body lines as the header
 * counts, plus a "\ No newline at end of file" line right after them.
 */
static enum err
parse_hunk(struct parser *ps, struct diff_file *f, const char **pp)
{
	struct diff_hunk h;
	struct line l;
	unsigned long old, new;
	const char *body;

	if (!line_at(*pp, ps->end, &l) || !parse_hunk_header(&l, &h))
		return ERR_PARSE;
	body = l.next;
	old = h.old_count;
	new = h.new_count;
	for (*pp = body; old || new; *pp = l.next) {
		if (!line_at(*pp, ps->end, &l))
			return ERR_PARSE;
		switch (l.n ? l.p[0] : '\n') {
		case '\n': /* an empty context line, as newer GNU diff writes */
		case ' ':
			if (!old || !new)
				return ERR_PARSE;
			old--;
			new --;
			break;
		case '-':
			if (!old)
				return ERR_PARSE;
			old--;
			f->removed++;
			break;
		case '+':
			if (!new)
				return ERR_PARSE;
			new --;
			f->added++;
			break;
		case '\\':
			break;
		default:
			return ERR_PARSE;
		}
	}
	if (line_at(*pp, ps->end, &l) && line_starts(&l, "\\ "))
		*pp = l.next;
	h.lines = str_make(body, (size_t)(*pp - body));
	return add_hunk(ps, &h);
}

/*
 * "GIT binary patch" with one or two "literal N"/"delta N" blocks of
 * base85 lines, each ended by an empty line.
 */
static enum err
parse_binary(const struct parser *ps, struct diff_file *f, const char **pp)
{
	const char *start = *pp;
	struct line l;
	int block;

	line_at(*pp, ps->end, &l);
	*pp = l.next;
	for (block = 0; block < 2; block++) {
		if (!line_at(*pp, ps->end, &l) ||
		    !(line_starts(&l, "literal ") ||
		        line_starts(&l, "delta "))) {
			if (block == 0)
				return ERR_PARSE;
			break;
		}
		for (*pp = l.next; line_at(*pp, ps->end, &l); *pp = l.next) {
			if (l.n == 0) {
				*pp = l.next;
				break;
			}
			if (l.n < 6 || (l.n - 1) % 5 != 0 ||
			    !ascii_isalpha(l.p[0]))
				return ERR_PARSE;
		}
	}
	f->binary = true;
	f->binary_data = str_make(start, (size_t)(*pp - start));
	return ERR_OK;
}

/* Hunks, or a binary patch, after a file header ending at *pp. */
static enum err
parse_body(struct parser *ps, struct diff_file *f, const char **pp)
{
	struct line l;
	enum err e;

	while (line_at(*pp, ps->end, &l) && line_starts(&l, "@@ -")) {
		e = parse_hunk(ps, f, pp);
		if (e != ERR_OK)
			return e;
		f->nhunks++;
	}
	if (f->nhunks || !line_at(*pp, ps->end, &l))
		return ERR_OK;
	if (l.n == 16 && memcmp(l.p, "GIT binary patch", 16) == 0)
		return parse_binary(ps, f, pp);
	if (l.n >= 7 && memcmp(l.p + l.n - 7, " differ", 7) == 0 &&
	    (line_starts(&l, "Binary files ") || line_starts(&l, "Files "))) {
		f->binary = true;
		*pp = l.next;
	}
	return ERR_OK;
}

static char *
oid_copy(struct arena *a, const char *s, const char *end)
{
	const char *p;

	for (p = s; p < end; p++)
		if (!ascii_isxdigit(*p))
			return NULL;
	return p > s ? arena_strndup(a, s, (size_t)(end - s)) : NULL;
}

/* "index abc..def[ mode]" (git's gitdiff_index()). */
static void
parse_index(struct arena *a, struct diff_file *f, const struct line *l)
{
	const char *s = l->p + 6, *end = l->p + l->n, *dots, *sp;

	dots = memchr(s, '.', (size_t)(end - s));
	if (dots == NULL || dots + 1 >= end || dots[1] != '.')
		return;
	sp = memchr(dots + 2, ' ', (size_t)(end - (dots + 2)));
	f->old_oid = oid_copy(a, s, dots);
	f->new_oid = oid_copy(a, dots + 2, sp ? sp : end);
	if (sp != NULL)
		f->old_mode = f->new_mode = parse_octal(sp + 1, end);
}

/* Names collected from the lines of a git header. */
struct git_names {
	const char *def, *old, *new;
	bool is_new, is_delete;
};

static const char *const git_header_prefixes[] = { "--- ", "+++ ", "old mode ",
	"new mode ", "deleted file mode ", "new file mode ", "copy from ",
	"copy to ", "rename old ", "rename new ", "rename from ", "rename to ",
	"similarity index ", "dissimilarity index ", "index ", NULL };

/* The line belongs to a git header (git's optable in
 * parse_git_diff_header(); a header line must end in LF). */
static bool
git_header_known(const struct line *l)
{
	size_t i;

	if (!l->lf)
		return false;
	for (i = 0; git_header_prefixes[i]; i++)
		if (line_starts(l, git_header_prefixes[i]))
			return true;
	return false;
}

/*
 * One extended header line of a git diff; false when the line does not
 * belong to the header.
 */
static bool
git_header_line(struct arena *a, struct diff_file *f, struct git_names *g,
    const struct line *l)
{
	const char *end = l->p + l->n;

	if (!git_header_known(l))
		return false;
	if (line_starts(l, "--- ")) {
		if (!diffname_dev_null(l->p + 4, end) && g->old == NULL)
			g->old = diffname_find(a, l->p + 4, end, 1);
	} else if (line_starts(l, "+++ ")) {
		if (!diffname_dev_null(l->p + 4, end) && g->new == NULL)
			g->new = diffname_find(a, l->p + 4, end, 1);
	} else if (line_starts(l, "old mode ")) {
		f->old_mode = parse_octal(l->p + 9, end);
	} else if (line_starts(l, "new mode ")) {
		f->new_mode = parse_octal(l->p + 9, end);
	} else if (line_starts(l, "deleted file mode ")) {
		g->is_delete = true;
		f->old_mode = parse_octal(l->p + 18, end);
	} else if (line_starts(l, "new file mode ")) {
		g->is_new = true;
		f->new_mode = parse_octal(l->p + 14, end);
	} else if (line_starts(l, "copy from ")) {
		f->op = DIFF_COPY;
		g->old = diffname_find(a, l->p + 10, end, 0);
	} else if (line_starts(l, "copy to ")) {
		f->op = DIFF_COPY;
		g->new = diffname_find(a, l->p + 8, end, 0);
	} else if (line_starts(l, "rename from ") ||
	    line_starts(l, "rename old ")) {
		f->op = DIFF_RENAME;
		g->old = diffname_find(a, l->p + 11 + (l->p[7] == 'f'), end, 0);
	} else if (line_starts(l, "rename to ") ||
	    line_starts(l, "rename new ")) {
		f->op = DIFF_RENAME;
		g->new = diffname_find(a, l->p + 10 + (l->p[7] == 'n'), end, 0);
	} else if (line_starts(l, "similarity index ") ||
	    line_starts(l, "dissimilarity index ")) {
		const char *p = l->p + (l->p[0] == 's' ? 17 : 20);
		bool ok;
		unsigned long v = parse_ulong(&p, end, &ok);

		if (ok && v <= 100)
			f->similarity = (unsigned)v;
	} else if (line_starts(l, "index ")) {
		parse_index(a, f, l);
	}
	return true;
}

static enum err
add_file(struct parser *ps, struct diff_file **fp)
{
	if (ps->nfiles >= LIMIT_PATCH_FILES)
		return ERR_LIMIT;
	ps->files =
	    xgrow(ps->files, &ps->capfiles, ps->nfiles + 1, sizeof(*ps->files));
	ps->first_hunk = xgrow(ps->first_hunk, &ps->capfirst, ps->nfiles + 1,
	    sizeof(*ps->first_hunk));
	ps->first_hunk[ps->nfiles] = ps->nhunks;
	*fp = &ps->files[ps->nfiles++];
	memset(*fp, 0, sizeof(**fp));
	return ERR_OK;
}

/*
 * A "diff --git" section at *pp.  ERR_NOTFOUND when the line has no
 * header lines after it (git skips such a line too).
 */
static enum err
parse_git(struct parser *ps, const char **pp)
{
	struct git_names g = { NULL, NULL, NULL, false, false };
	struct diff_file *f;
	struct line l, l2;
	const char *start = *pp, *p;
	enum err e;

	line_at(start, ps->end, &l);
	if (!line_at(l.next, ps->end, &l2) || !git_header_known(&l2))
		return ERR_NOTFOUND;
	e = add_file(ps, &f);
	if (e != ERR_OK)
		return e;
	g.def = diffname_git_header(ps->a, l.p + 11, l.p + l.n);
	f->git = true;
	for (p = l.next;
	     line_at(p, ps->end, &l) && git_header_line(ps->a, f, &g, &l);
	     p = l.next)
		;
	if (g.is_new) {
		f->op = DIFF_ADD;
		g.old = NULL;
	} else if (g.is_delete) {
		f->op = DIFF_DELETE;
		g.new = NULL;
	}
	f->old_path = g.old ? g.old : g.is_new ? NULL : g.def;
	f->new_path = g.new ? g.new : g.is_delete ? NULL : g.def;
	if (f->old_path == NULL && f->new_path == NULL)
		return ERR_PARSE;
	*pp = p;
	e = parse_body(ps, f, pp);
	f->text = str_make(start, (size_t)(*pp - start));
	return e;
}

/*
 * git guesses once per patch whether traditional names carry a leading
 * directory: not when neither name has a '/' (guess_p_value()).
 */
static void
guess_p_value(struct parser *ps, struct str n1, struct str n2)
{
	const char *a, *b;
	int p = -1, q = -1;

	if (ps->p_known)
		return;
	a = diffname_dev_null(n1.p, n1.p + n1.n)
	    ? NULL
	    : diffname_traditional(ps->a, n1.p, n1.p + n1.n, NULL, 0);
	b = diffname_dev_null(n2.p, n2.p + n2.n)
	    ? NULL
	    : diffname_traditional(ps->a, n2.p, n2.p + n2.n, NULL, 0);
	if (a && !strchr(a, '/'))
		p = 0;
	if (b && !strchr(b, '/'))
		q = 0;
	if (p < 0)
		p = q;
	if (p == 0 && q == 0) {
		ps->p_value = 0;
		ps->p_known = true;
	}
}

/* The names and operation of a traditional header (parse_traditional_patch()).
 */
static void
trad_names(struct parser *ps, struct diff_file *f, struct str n1, struct str n2)
{
	const char *e1 = n1.p + n1.n, *e2 = n2.p + n2.n, *old;
	int p = ps->p_value;

	if (diffname_dev_null(n1.p, e1)) {
		f->op = DIFF_ADD;
		f->new_path = diffname_traditional(ps->a, n2.p, e2, NULL, p);
	} else if (diffname_dev_null(n2.p, e2)) {
		f->op = DIFF_DELETE;
		f->old_path = diffname_traditional(ps->a, n1.p, e1, NULL, p);
	} else {
		old = diffname_traditional(ps->a, n1.p, e1, NULL, p);
		old = diffname_traditional(ps->a, n2.p, e2, old, p);
		if (diffname_epoch(n1.p, e1)) {
			f->op = DIFF_ADD;
			f->new_path = old;
		} else if (diffname_epoch(n2.p, e2)) {
			f->op = DIFF_DELETE;
			f->old_path = old;
		} else {
			f->old_path = f->new_path = old;
		}
	}
}

/* A traditional section: "--- " at *pp, "+++ " after it, then hunks. */
static enum err
parse_trad(struct parser *ps, const char *start, const char **pp)
{
	struct line first, second;
	struct diff_file *f;
	struct str n1, n2;
	enum err e;

	if (!line_at(*pp, ps->end, &first) ||
	    !line_at(first.next, ps->end, &second))
		return ERR_PARSE;
	n1 = str_make(first.p + 4, first.n - 4);
	n2 = str_make(second.p + 4, second.n - 4);
	guess_p_value(ps, n1, n2);
	e = add_file(ps, &f);
	if (e != ERR_OK)
		return e;
	trad_names(ps, f, n1, n2);
	if (f->old_path == NULL && f->new_path == NULL)
		return ERR_PARSE;
	*pp = second.next;
	e = parse_body(ps, f, pp);
	f->text = str_make(start, (size_t)(*pp - start));
	return e;
}

/*
 * Where a traditional section's text starts: at a "diff -u ..." line right
 * before its "--- ", or at "Index: " plus a "====" line (quilt, CVS).
 */
static const char *
trad_start(
    const char *cur, const char *prev, const char *prev2, const char *end)
{
	struct line l, l2;

	if (prev == NULL || !line_at(prev, end, &l))
		return cur;
	if (line_starts(&l, "diff ") && !line_starts(&l, "diff --git "))
		return prev;
	if (l.n > 0 && l.p[0] == '=' && prev2 != NULL &&
	    line_at(prev2, end, &l2) && line_starts(&l2, "Index: ")) {
		size_t i;

		for (i = 0; i < l.n && l.p[i] == '='; i++)
			;
		if (i == l.n)
			return prev2;
	}
	return cur;
}

/* Move the collected files and hunks into the arena. */
static struct diff *
finish(struct parser *ps)
{
	struct diff *d = arena_zalloc(ps->a, sizeof(*d));
	struct diff_hunk *hunks;
	size_t i;

	hunks =
	    arena_alloc(ps->a, (ps->nhunks ? ps->nhunks : 1) * sizeof(*hunks));
	if (ps->nhunks)
		memcpy(hunks, ps->hunks, ps->nhunks * sizeof(*hunks));
	d->files = arena_alloc(ps->a, ps->nfiles * sizeof(*d->files));
	memcpy(d->files, ps->files, ps->nfiles * sizeof(*d->files));
	d->nfiles = ps->nfiles;
	for (i = 0; i < d->nfiles; i++) {
		struct diff_file *f = &d->files[i];

		f->hunks = f->nhunks ? hunks + ps->first_hunk[i] : NULL;
		d->added += f->added;
		d->removed += f->removed;
	}
	return d;
}

static bool
is_trad_header(const struct line *l, const char *end)
{
	struct line l2;

	return line_starts(l, "--- ") && line_at(l->next, end, &l2) &&
	    line_starts(&l2, "+++ ") && next_starts(l2.next, end, "@@ -");
}

enum err
diff_parse(struct arena *a, const char *text, size_t n, struct diff **out)
{
	struct parser ps;
	const char *p = text, *prev = NULL, *prev2 = NULL;
	struct line l;
	enum err e = ERR_OK;

	memset(&ps, 0, sizeof(ps));
	ps.a = a;
	ps.end = text + n;
	ps.p_value = 1;
	*out = NULL;
	while (line_at(p, ps.end, &l)) {
		if (line_starts(&l, "diff --git ")) {
			const char *q = p;

			e = parse_git(&ps, &q);
			if (e == ERR_NOTFOUND) {
				e = ERR_OK;
			} else {
				if (e != ERR_OK)
					goto out;
				p = q;
				prev = prev2 = NULL;
				continue;
			}
		} else if (is_trad_header(&l, ps.end)) {
			const char *q = p;

			e = parse_trad(
			    &ps, trad_start(p, prev, prev2, ps.end), &q);
			if (e != ERR_OK)
				goto out;
			p = q;
			prev = prev2 = NULL;
			continue;
		}
		prev2 = prev;
		prev = p;
		p = l.next;
	}
	if (ps.nfiles == 0) {
		e = ERR_PARSE;
		goto out;
	}
	*out = finish(&ps);
out:
	free(ps.files);
	free(ps.hunks);
	free(ps.first_hunk);
	return e;
}

bool
diff_path_safe(const char *path)
{
	const char *p = path, *comp = path;

	if (path == NULL || *path == '\0' || *path == '/')
		return false;
	for (;; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '/' || c == '\0') {
			size_t n = (size_t)(p - comp);

			if (n == 0 || (n == 1 && comp[0] == '.') ||
			    (n == 2 && comp[0] == '.' && comp[1] == '.') ||
			    (n == 4 && ascii_strnicmp(comp, ".git", 4) == 0))
				return false;
			if (c == '\0')
				return true;
			comp = p + 1;
			continue;
		}
		if (c < 0x20 || c == 0x7f || c == '\\')
			return false;
	}
}

/*
 * The diffstat, as git prints it (diff.c: show_stats(), pprint_rename(),
 * diff_summary(); v2.39) with no statGraphWidth or statNameWidth set:
 * format-patch at 72 columns (MAIL_DEFAULT_WRAP), `git diff --stat` on a
 * pipe at 80.
 */
#define STAT_WIDTH 72

/* One file of the stat. */
struct stat_row {
	struct buf name; /* as printed: quoted, renames as "a/{x => y}" */
	unsigned long added, removed; /* lines; bytes for binary */
	bool binary, sizes; /* sizes: binary with both sizes known */
};

static int
decimal_width(unsigned long v)
{
	int w = 1;

	while (v >= 10) {
		v /= 10;
		w++;
	}
	return w;
}

/* git's pprint_rename(): "pfx{mid-a => mid-b}sfx". */
static void
pprint_rename(struct buf *out, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), pfx = 0, sfx = 0, adj, i;
	const char *oa, *ob;

	if (diffname_quoted_len(a) != la || diffname_quoted_len(b) != lb) {
		diffname_quote(out, a);
		buf_adds(out, " => ");
		diffname_quote(out, b);
		return;
	}
	for (i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			pfx = i + 1;
	/* A common prefix ends in a slash, which the suffix may share. */
	adj = pfx ? 1 : 0;
	oa = a + la;
	ob = b + lb;
	while (oa >= a + pfx - adj && ob >= b + pfx - adj && *oa == *ob) {
		if (*oa == '/')
			sfx = la - (size_t)(oa - a);
		if (oa == a || ob == b)
			break;
		oa--;
		ob--;
	}
	{
		size_t ma = la >= pfx + sfx ? la - pfx - sfx : 0;
		size_t mb = lb >= pfx + sfx ? lb - pfx - sfx : 0;

		if (pfx + sfx) {
			buf_add(out, a, pfx);
			buf_addc(out, '{');
		}
		buf_add(out, a + pfx, ma);
		buf_adds(out, " => ");
		buf_add(out, b + pfx, mb);
		if (pfx + sfx) {
			buf_addc(out, '}');
			buf_add(out, a + la - sfx, sfx);
		}
	}
}

/* "literal N" of a binary block: the size of one side, or -1. */
static long
literal_size(struct str line)
{
	const char *p;
	bool ok;
	unsigned long v;

	if (!str_startswith(line, "literal "))
		return -1;
	p = line.p + 8;
	v = parse_ulong(&p, line.p + line.n, &ok);
	return ok && v <= LONG_MAX ? (long)v : -1;
}

/* Both sizes of a binary patch when both of its blocks are literal. */
static bool
binary_sizes(const struct diff_file *f, unsigned long *old, unsigned long *new)
{
	struct str rest = f->binary_data, line;
	long sizes[2];
	int n = 0;
	bool block_start = false;

	str_nextline(&rest, &line); /* "GIT binary patch" */
	block_start = true;
	while (n < 2 && str_nextline(&rest, &line)) {
		if (block_start) {
			sizes[n++] = literal_size(line);
			block_start = false;
		} else if (line.n == 0) {
			block_start = true;
		}
	}
	if (n < 2 || sizes[0] < 0 || sizes[1] < 0)
		return false;
	*new = (unsigned long)sizes[0];
	*old = (unsigned long)sizes[1];
	return true;
}

static void
stat_row_fill(struct stat_row *r, const struct diff_file *f)
{
	const char *name = f->new_path ? f->new_path : f->old_path;

	buf_init(&r->name, 0);
	r->binary = f->binary;
	r->added = f->added;
	r->removed = f->removed;
	if (f->binary)
		r->sizes = binary_sizes(f, &r->removed, &r->added);
	if ((f->op == DIFF_RENAME || f->op == DIFF_COPY) && f->old_path &&
	    f->new_path && strcmp(f->old_path, f->new_path) != 0)
		pprint_rename(&r->name, f->old_path, f->new_path);
	else
		diffname_quote(&r->name, name ? name : "");
}

/* The widths of show_stats(). */
struct stat_widths {
	unsigned long max_change;
	int name, number, graph;
};

static void
stat_widths(
    const struct stat_row *rows, size_t n, int width, struct stat_widths *w)
{
	size_t i, max_len = 0;
	int bin_width = 0;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < n; i++) {
		if (rows[i].name.n > max_len)
			max_len = rows[i].name.n;
		if (rows[i].binary) {
			int bw = 14 + decimal_width(rows[i].added) +
			    decimal_width(rows[i].removed);

			bin_width = bin_width < bw ? bw : bin_width;
			w->number = 3;
		} else if (rows[i].added + rows[i].removed > w->max_change) {
			w->max_change = rows[i].added + rows[i].removed;
		}
	}
	if (decimal_width(w->max_change) > w->number)
		w->number = decimal_width(w->max_change);
	if (width < 16 + 6 + w->number)
		width = 16 + 6 + w->number;
	w->graph = w->max_change + 4 > (unsigned long)bin_width
	    ? (int)(w->max_change > INT_MAX / 2 ? INT_MAX / 2 : w->max_change)
	    : bin_width - 4;
	w->name = max_len > INT_MAX / 2 ? INT_MAX / 2 : (int)max_len;
	if (w->name + w->number + 6 + w->graph > width) {
		if (w->graph > width * 3 / 8 - w->number - 6) {
			w->graph = width * 3 / 8 - w->number - 6;
			if (w->graph < 6)
				w->graph = 6;
		}
		if (w->name > width - w->number - 6 - w->graph)
			w->name = width - w->number - 6 - w->graph;
		else
			w->graph = width - w->number - 6 - w->name;
	}
}

static unsigned long
scale_linear(unsigned long it, int width, unsigned long max_change)
{
	if (it == 0)
		return 0;
	return 1 + (it * (unsigned long)(width - 1) / max_change);
}

static void
stat_line(
    struct buf *out, const struct stat_row *r, const struct stat_widths *w)
{
	const char *name = r->name.p ? r->name.p : "", *prefix = "";
	int len = w->name, name_len = (int)r->name.n, padding;
	unsigned long add = r->added, del = r->removed, total;

	if (w->name < name_len) {
		const char *slash;

		prefix = "...";
		len -= 3;
		name += name_len - len;
		slash = strchr(name, '/');
		if (slash)
			name = slash;
	}
	padding = len - (int)strlen(name);
	if (padding < 0)
		padding = 0;
	if (r->binary) {
		buf_addf(out, " %s%s%*s | %*s", prefix, name, padding, "",
		    w->number, "Bin");
		if (r->sizes)
			buf_addf(out, " %lu -> %lu bytes", del, add);
		buf_addc(out, '\n');
		return;
	}
	if ((unsigned long)w->graph <= w->max_change) {
		total = scale_linear(add + del, w->graph, w->max_change);
		if (total < 2 && add && del)
			total = 2;
		if (add < del) {
			add = scale_linear(add, w->graph, w->max_change);
			del = total - add;
		} else {
			del = scale_linear(del, w->graph, w->max_change);
			add = total - del;
		}
	}
	buf_addf(out, " %s%s%*s | %*lu%s", prefix, name, padding, "", w->number,
	    r->added + r->removed, r->added + r->removed ? " " : "");
	for (; add; add--)
		buf_addc(out, '+');
	for (; del; del--)
		buf_addc(out, '-');
	buf_addc(out, '\n');
}

static void
stat_summary_line(struct buf *out, const struct diff *d)
{
	unsigned long ins = 0, del = 0;
	size_t i;

	for (i = 0; i < d->nfiles; i++) {
		if (!d->files[i].binary) {
			ins += d->files[i].added;
			del += d->files[i].removed;
		}
	}
	buf_addf(
	    out, " %zu file%s changed", d->nfiles, d->nfiles == 1 ? "" : "s");
	if (ins || del == 0)
		buf_addf(out, ", %lu insertion%s(+)", ins, ins == 1 ? "" : "s");
	if (del || ins == 0)
		buf_addf(out, ", %lu deletion%s(-)", del, del == 1 ? "" : "s");
	buf_addc(out, '\n');
}

/* The --summary line(s) of one file (git's diff_summary()). */
static void
stat_file_summary(struct buf *out, const struct diff_file *f)
{
	bool show_name = true;

	if ((f->op == DIFF_ADD && f->new_path) ||
	    (f->op == DIFF_DELETE && f->old_path)) {
		bool add = f->op == DIFF_ADD;
		unsigned mode = add ? f->new_mode : f->old_mode;

		/* Without a mode (a traditional diff) git apply --summary
		 * writes " create name". */
		buf_adds(out, add ? " create " : " delete ");
		if (mode)
			buf_addf(out, "mode %06o ", mode);
		diffname_quote(out, add ? f->new_path : f->old_path);
		buf_addc(out, '\n');
		return;
	}
	if ((f->op == DIFF_RENAME || f->op == DIFF_COPY) && f->old_path &&
	    f->new_path) {
		buf_adds(out, f->op == DIFF_RENAME ? " rename " : " copy ");
		pprint_rename(out, f->old_path, f->new_path);
		buf_addf(out, " (%u%%)\n", f->similarity);
		show_name = false;
	}
	if (f->old_mode && f->new_mode && f->old_mode != f->new_mode &&
	    f->op != DIFF_ADD && f->op != DIFF_DELETE) {
		buf_addf(
		    out, " mode change %06o => %06o", f->old_mode, f->new_mode);
		if (show_name && f->new_path) {
			buf_addc(out, ' ');
			diffname_quote(out, f->new_path);
		}
		buf_addc(out, '\n');
	}
}

void
diff_stat(struct buf *out, const struct diff *d)
{
	diff_stat_width(out, d, STAT_WIDTH);
}

void
diff_stat_width(struct buf *out, const struct diff *d, int width)
{
	struct stat_row *rows;
	struct stat_widths w;
	size_t i;

	if (d == NULL || d->nfiles == 0)
		return;
	rows = xcalloc(d->nfiles, sizeof(*rows));
	for (i = 0; i < d->nfiles; i++)
		stat_row_fill(&rows[i], &d->files[i]);
	stat_widths(rows, d->nfiles, width, &w);
	for (i = 0; i < d->nfiles; i++)
		stat_line(out, &rows[i], &w);
	stat_summary_line(out, d);
	for (i = 0; i < d->nfiles; i++)
		stat_file_summary(out, &d->files[i]);
	for (i = 0; i < d->nfiles; i++)
		buf_free(&rows[i].name);
	free(rows);
}
