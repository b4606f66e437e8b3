/*
 * A file section's hunks applied to a file's text, the way git's apply.c
 * (v2.39: apply_one_fragment, find_pos, match_fragment, update_image)
 * does it, so that results equal `git am`'s:
 *
 *  - a hunk's preimage (context and '-' lines) must match the file
 *    exactly; it is tried first at the hunk's new-side line, then one
 *    line further, one line back, two further and so on, never over
 *    lines an earlier hunk produced;
 *  - a hunk starting at line 0 or 1 must match at the beginning, and a
 *    hunk without trailing context at the end;
 *  - context is never reduced (git apply's default: no fuzz);
 *  - a line followed by "\ No newline at end of file" loses its LF; an
 *    empty line is an empty context line (mailers strip the blank).
 *
 * When the lines as written find no place, CRs are stripped (a CRLF
 * mail against an LF file) or added (a CRLF file whose patch lost its
 * CRs on the way) and the hunks tried again.
 */
#include "bot/git/githunk.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct line {
	size_t off, len; /* into the text, LF included when there is one */
	bool patched; /* made by an earlier hunk: later ones keep off */
};

struct image {
	struct buf text;
	struct line *l;
	size_t nr, cap;
};

/* How a file section's lines are taken: as written, or with the CR of
 * CRLF line ends removed or added to fit the file. */
enum crmode {
	CR_ASIS,
	CR_STRIP,
	CR_ADD
};

/* One hunk's preimage and postimage as images of their own. */
struct hunkimg {
	struct image pre, post;
	unsigned long leading, trailing; /* context lines before and after
	                                    the first and last change */
};

static void
image_addline(struct image *im, const char *p, size_t n, bool patched)
{
	im->l = xgrow(im->l, &im->cap, im->nr + 1, sizeof(*im->l));
	im->l[im->nr].off = im->text.n;
	im->l[im->nr].len = n;
	im->l[im->nr].patched = patched;
	im->nr++;
	buf_add(&im->text, p, n);
}

static void
image_load(struct image *im, const char *p, size_t n)
{
	size_t i = 0, j;

	buf_reset(&im->text);
	im->nr = 0;
	buf_reserve(&im->text, n);
	while (i < n) {
		const char *nl = memchr(p + i, '\n', n - i);
		j = nl ? (size_t)(nl - p) + 1 : n;
		image_addline(im, p + i, j - i, false);
		i = j;
	}
}

static void
image_free(struct image *im)
{
	buf_free(&im->text);
	free(im->l);
	im->l = NULL;
	im->nr = im->cap = 0;
}

/* Add one hunk line's text to an image, CR adjusted as cr says. */
static void
hunk_addline(struct image *im, const char *p, size_t n, enum crmode cr)
{
	char tmp[2] = { '\r', '\n' };

	if (cr == CR_STRIP && n >= 2 && p[n - 1] == '\n' && p[n - 2] == '\r') {
		image_addline(im, p, n - 2, false);
		buf_addc(&im->text, '\n');
		im->l[im->nr - 1].len++;
		return;
	}
	if (cr == CR_ADD && n >= 1 && p[n - 1] == '\n' &&
	    (n == 1 || p[n - 2] != '\r')) {
		image_addline(im, p, n - 1, false);
		buf_add(&im->text, tmp, 2);
		im->l[im->nr - 1].len += 2;
		return;
	}
	image_addline(im, p, n, false);
}

/*
 * Split a hunk body into its preimage and postimage, as git's
 * apply_one_fragment does: a line followed by "\ No newline at end of
 * file" loses its LF; an empty line is an empty context line (mailers
 * strip the blank of " \n").  False for a line git would not take.
 */
static bool
hunk_build(const struct diff_hunk *h, enum crmode cr, struct hunkimg *hi)
{
	const char *p = h->lines.p, *end = h->lines.p + h->lines.n;
	bool changed = false;

	hi->pre.nr = hi->post.nr = 0;
	buf_reset(&hi->pre.text);
	buf_reset(&hi->post.text);
	hi->leading = hi->trailing = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		bool nonl = p + len < end && p[len] == '\\';
		long plen = (long)len - 1 - (nonl ? 1 : 0);
		bool context = false;

		if (plen < 0 && p[0] != '\n')
			plen = 0;
		switch (p[0]) {
		case '\n':
			if (plen < 0)
				break;
			hunk_addline(&hi->pre, "\n", 1, cr);
			hunk_addline(&hi->post, "\n", 1, cr);
			context = true;
			break;
		case ' ':
			hunk_addline(&hi->pre, p + 1, (size_t)plen, cr);
			hunk_addline(&hi->post, p + 1, (size_t)plen, cr);
			context = true;
			break;
		case '-':
			hunk_addline(&hi->pre, p + 1, (size_t)plen, cr);
			changed = true;
			hi->trailing = 0;
			break;
		case '+':
			hunk_addline(&hi->post, p + 1, (size_t)plen, cr);
			changed = true;
			hi->trailing = 0;
			break;
		case '\\':
			break;
		default:
			return false;
		}
		if (context) {
			if (!changed)
				hi->leading++;
			hi->trailing++;
		}
		p += len;
	}
	return true;
}

static bool
match_at(const struct image *im, const struct hunkimg *hi, size_t lno,
    bool mbegin, bool mend)
{
	size_t i;

	if (hi->pre.nr + lno > im->nr)
		return false;
	if (mend && hi->pre.nr + lno != im->nr)
		return false;
	if (mbegin && lno != 0)
		return false;
	for (i = 0; i < hi->pre.nr; i++) {
		const struct line *a = &im->l[lno + i], *b = &hi->pre.l[i];
		if (a->patched || a->len != b->len ||
		    memcmp(im->text.p + a->off, hi->pre.text.p + b->off,
		        a->len) != 0)
			return false;
	}
	return true;
}

/* git's find_pos: the stated line, then +1, -1, +2, -2 ...; -1 when the
 * preimage is nowhere. */
static long
find_pos(const struct image *im, const struct hunkimg *hi, long line,
    bool mbegin, bool mend)
{
	size_t back, fwd, cur;
	unsigned long i;

	if (mbegin)
		line = 0;
	else if (mend)
		line = (long)im->nr - (long)hi->pre.nr;
	if (line < 0 || (size_t)line > im->nr)
		line = (long)im->nr;
	back = fwd = cur = (size_t)line;
	for (i = 0;; i++) {
		if (match_at(im, hi, cur, mbegin, mend))
			return (long)cur;
	again:
		if (back == 0 && fwd == im->nr)
			break;
		if (i & 1) {
			if (back == 0) {
				i++;
				goto again;
			}
			cur = --back;
		} else {
			if (fwd == im->nr) {
				i++;
				goto again;
			}
			cur = ++fwd;
		}
	}
	return -1;
}

/* Replace the preimage's lines at lno by the postimage's, marked. */
static void
image_update(struct image *im, size_t lno, const struct hunkimg *hi)
{
	struct image out = { BUF_INIT, NULL, 0, 0 };
	size_t i;

	buf_init(&out.text, 0);
	for (i = 0; i < lno; i++)
		image_addline(&out, im->text.p + im->l[i].off, im->l[i].len,
		    im->l[i].patched);
	for (i = 0; i < hi->post.nr; i++)
		image_addline(&out, hi->post.text.p + hi->post.l[i].off,
		    hi->post.l[i].len, true);
	for (i = lno + hi->pre.nr; i < im->nr; i++)
		image_addline(&out, im->text.p + im->l[i].off, im->l[i].len,
		    im->l[i].patched);
	image_free(im);
	*im = out;
}

/*
 * Apply the hunks of f to im in order.  On failure *failed is the index
 * of the hunk that found no place.  *offset gets the relocation of
 * largest size.
 */
static bool
apply_hunks(const struct diff_file *f, struct image *im, enum crmode cr,
    long *offset, size_t *failed)
{
	struct hunkimg hi;
	size_t k;
	bool ok = true;

	memset(&hi, 0, sizeof(hi));
	*offset = 0;
	for (k = 0; k < f->nhunks && ok; k++) {
		const struct diff_hunk *h = &f->hunks[k];
		bool mbegin = h->old_start <= 1;
		long pos = h->new_start ? (long)h->new_start - 1 : 0, at;

		if (!hunk_build(h, cr, &hi)) {
			ok = false;
			break;
		}
		at = find_pos(im, &hi, pos, mbegin, hi.trailing == 0);
		if (at < 0) {
			ok = false;
			break;
		}
		if (labs(at - pos) > labs(*offset))
			*offset = at - pos;
		image_update(im, (size_t)at, &hi);
	}
	if (!ok)
		*failed = k;
	image_free(&hi.pre);
	image_free(&hi.post);
	return ok;
}

static bool
hunks_have_cr(const struct diff_file *f)
{
	size_t k;

	for (k = 0; k < f->nhunks; k++)
		if (memchr(f->hunks[k].lines.p, '\r', f->hunks[k].lines.n))
			return true;
	return false;
}

bool
githunk_apply(const struct diff_file *f, const char *pre, size_t n,
    struct buf *out, long *offset, size_t *failed)
{
	struct image im = { BUF_INIT, NULL, 0, 0 };
	bool patch_cr = hunks_have_cr(f), file_cr = memchr(pre, '\r', n);
	enum crmode tries[3] = { CR_ASIS, CR_ASIS, CR_ASIS };
	size_t ntries = 1, t, first_failed = 0;
	bool ok = false;

	if (patch_cr && !file_cr)
		tries[ntries++] = CR_STRIP;
	else if (!patch_cr && file_cr)
		tries[ntries++] = CR_ADD;
	for (t = 0; t < ntries && !ok; t++) {
		image_load(&im, pre, n);
		ok = apply_hunks(f, &im, tries[t], offset, failed);
		if (t == 0 && !ok)
			first_failed = *failed;
	}
	if (ok) {
		buf_reset(out);
		buf_addstr(out, buf_str(&im.text));
	} else {
		*failed = first_failed;
	}
	image_free(&im);
	return ok;
}
