/*
 * One mail as the contribution page shows it (bot/web/webmail.h).
 */
#include "bot/web/webmail.h"

#include <string.h>

#include "parsers/diff.h"
#include "storage/store_msg.h"

/* The kind of one line of a mail's text. */
static enum webmail_kind
line_kind(struct str l)
{
	return l.n && l.p[0] == '>' ? WEBMAIL_QUOTE : WEBMAIL_TEXT;
}

static bool
blank(struct str l)
{
	return str_trim(l).n == 0;
}

/* The block of [start, end) without the blank lines at its ends; false
 * when nothing is left. */
static bool
make_block(const char *start, const char *end, enum webmail_kind kind,
    struct webmail_block *b)
{
	struct str rest = str_make(start, (size_t)(end - start)), line;
	const char *first = NULL, *last = NULL;
	size_t lines = 0, upto = 0;

	while (str_nextline(&rest, &line)) {
		lines++;
		if (blank(line))
			continue;
		if (first == NULL) {
			first = line.p;
			lines = 1;
		}
		last = line.p + line.n;
		upto = lines;
	}
	if (first == NULL)
		return false;
	b->kind = kind;
	b->text = str_make(first, (size_t)(last - first));
	b->lines = upto;
	return true;
}

size_t
webmail_blocks(
    struct str text, struct webmail_block *out, size_t max, size_t *cut)
{
	struct str rest = text, line;
	const char *start = text.p, *end = text.p + text.n, *gap = NULL;
	enum webmail_kind kind = WEBMAIL_TEXT;
	size_t n = 0, lines = 0;
	bool last = false; /* out of blocks: the rest as written */

	*cut = 0;
	if (text.p == NULL || max == 0)
		return 0;
	while (str_nextline(&rest, &line)) {
		enum webmail_kind k =
		    str_eqs(line, "-- ") ? WEBMAIL_SIG : line_kind(line);

		if (++lines > WEBMAIL_MAX_LINES) {
			if (*cut == 0)
				end = line.p;
			(*cut)++;
			continue;
		}
		if (last || kind == WEBMAIL_SIG)
			continue;
		if (blank(line)) {
			/* Blank lines go with the block after them, unless a
			 * quote goes on after them. */
			if (gap == NULL)
				gap = line.p;
			continue;
		}
		if (k != kind) {
			const char *at =
			    gap && kind == WEBMAIL_QUOTE ? gap : line.p;

			if (make_block(start, at, kind, &out[n]))
				n++;
			start = at;
			kind = k;
			if (n + 1 == max) {
				kind = WEBMAIL_TEXT;
				last = true;
			}
		}
		gap = NULL;
	}
	if (n < max && make_block(start, end, kind, &out[n]))
		n++;
	return n;
}

/* The diff from its first file on (not the diffstat and notes before
 * it), without format-patch's signature ("-- " and git's version) and
 * blank lines at its end. */
static struct str
diff_body(const struct patch *p)
{
	const struct diff *d = p->parsed;
	struct str s = p->diff, rest, line;
	const char *sig = NULL;
	size_t after = 0;

	if (d && d->nfiles && d->files[0].text.p >= s.p &&
	    d->files[0].text.p <= s.p + s.n)
		s = str_make(d->files[0].text.p,
		    (size_t)(s.p + s.n - d->files[0].text.p));
	rest = s;
	while (str_nextline(&rest, &line)) {
		if (str_eqs(line, "-- ")) {
			sig = line.p;
			after = 0;
		} else if (sig && !blank(line)) {
			after++;
		}
	}
	if (sig && after <= 2)
		s.n = (size_t)(sig - s.p);
	return str_rtrim(s);
}

enum err
webmail_read(struct store *st, struct arena *a, int64_t row,
    const struct mail_opts *o, struct webmail *out)
{
	const char *raw;
	size_t n;
	enum err e;

	memset(out, 0, sizeof(*out));
	if ((e = store_msg_raw(st, a, row, &raw, &n)) != ERR_OK)
		return e;
	/* A mail over a limit is parsed no further (ERR_LIMIT): what the
	 * header says is still shown. */
	mail_parse(a, raw, n, o, &out->m);
	out->text = out->m.text;
	if (out->m.patch) {
		struct buf b = BUF_INIT;

		out->message = str_rtrim(out->m.patch->message);
		out->diff = diff_body(out->m.patch);
		/* Computed from the diff rather than taken from what the
		 * sender wrote: as git prints it, and true. */
		if (out->m.patch->parsed)
			diff_stat(&b, out->m.patch->parsed);
		if (b.n == 0)
			buf_addstr(&b, out->m.patch->diffstat);
		while (b.n && b.p[b.n - 1] == '\n')
			b.p[--b.n] = '\0';
		if (b.n)
			out->diffstat = arena_strdup(a, buf_cstr(&b));
		buf_free(&b);
	}
	return ERR_OK;
}

/* The decimal number at p[*i..n), its digits consumed; def when there is
 * none.  Within the line: its bytes are all there is (a line is a view,
 * with no NUL after it).  A count past any real hunk is held there. */
static unsigned long
hunk_num(const char *p, size_t n, size_t *i, unsigned long def)
{
	unsigned long v = 0;
	size_t start = *i;

	for (; *i < n && p[*i] >= '0' && p[*i] <= '9'; (*i)++)
		if (v < 1000000000ul)
			v = v * 10 + (unsigned long)(p[*i] - '0');
	return *i > start ? v : def;
}

enum webmail_line
webmail_diff_line(struct str line, struct webmail_diffpos *at)
{
	bool body = line.n == 0 || line.p[0] == ' ' || line.p[0] == '+' ||
	    line.p[0] == '-' || line.p[0] == '\\';

	/* Inside a hunk every line starts with one of those: anything else
	 * ends it, whatever its counts said. */
	if (!body)
		at->old_left = at->new_left = 0;
	if (at->old_left == 0 && at->new_left == 0) {
		unsigned long oc = 1, nc = 1;
		size_t i = 4;

		if (line.n && line.p[0] == '\\')
			return WEBMAIL_CTX; /* after a hunk's last line */
		if (!str_startswith(line, "@@ -"))
			return WEBMAIL_FILE;
		/* "@@ -a[,b] +c[,d] @@": the hunk's lengths tell where it
		 * ends, so that a removed line "--- x" is not taken for the
		 * next file's header.  The starts a and c do not matter. */
		(void)hunk_num(line.p, line.n, &i, 0);
		if (i < line.n && line.p[i] == ',') {
			i++;
			oc = hunk_num(line.p, line.n, &i, 1);
		}
		if (i + 1 < line.n && line.p[i] == ' ' &&
		    line.p[i + 1] == '+') {
			i += 2;
			(void)hunk_num(line.p, line.n, &i, 0);
			if (i < line.n && line.p[i] == ',') {
				i++;
				nc = hunk_num(line.p, line.n, &i, 1);
			}
		}
		at->old_left = oc;
		at->new_left = nc;
		return WEBMAIL_HUNK;
	}
	if (line.n && line.p[0] == '\\')
		return WEBMAIL_CTX; /* "\ No newline at end of file" */
	if (line.n && line.p[0] == '+') {
		if (at->new_left)
			at->new_left--;
		return WEBMAIL_ADD;
	}
	if (line.n && line.p[0] == '-') {
		if (at->old_left)
			at->old_left--;
		return WEBMAIL_DEL;
	}
	if (at->old_left)
		at->old_left--;
	if (at->new_left)
		at->new_left--;
	return WEBMAIL_CTX;
}
