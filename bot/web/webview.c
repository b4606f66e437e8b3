/*
 * The contribution page's rules (bot/web/webview.h): trailers listed and
 * marked as DESIGN.md §5 and §12 say, the discussion in thread order
 * (children under their parent, as a mail reader shows a thread), the
 * timeline in the order things happened.
 */
#include "bot/web/webview.h"

#include <stdlib.h>
#include <string.h>

#include "bot/workflow/show.h"
#include "bot/workflow/trust.h"
#include "parsers/addr.h"
#include "util/ascii.h"
#include "util/xalloc.h"

const char *const webview_reviews[WEBVIEW_NREVIEWS] = { "Acked-by",
	"Reviewed-by", "Tested-by", "Reported-by", "Suggested-by",
	"Nacked-by" };

int
webview_review_index(const char *name)
{
	int i;

	for (i = 0; i < WEBVIEW_NREVIEWS; i++)
		if (ascii_stricmp(name, webview_reviews[i]) == 0)
			return i;
	return -1;
}

bool
webview_is_review(const char *name)
{
	return webview_review_index(name) >= 0;
}

bool
webview_trailer_listed(const struct view_patch *p, size_t i)
{
	const struct view_trailer *t = &p->trailers[i];

	if (!show_trailer_shown(p, i))
		return false;
	/* The patch's own lines are its commit message's; a review the
	 * author wrote there is a claim, listed and marked. */
	return !t->own || webview_is_review(t->name);
}

enum webview_mark
webview_trailer_mark(const struct config *conf, const struct view_trailer *t)
{
	if (!webview_is_review(t->name))
		return WEBVIEW_PLAIN;
	if (t->verified)
		return WEBVIEW_VERIFIED;
	/* Not verified: either the mail proved nothing, or its sender is
	 * not the person the trailer names. */
	if (t->email && *t->email && t->from_email && *t->from_email &&
	    trust_same_person(conf, t->email, t->from_email))
		return WEBVIEW_UNCHECKED;
	return WEBVIEW_NOT_THEIRS;
}

const char *
webview_mark_words(enum webview_mark m)
{
	switch (m) {
	case WEBVIEW_VERIFIED:
		return "verified";
	case WEBVIEW_UNCHECKED:
		return "not checked";
	case WEBVIEW_NOT_THEIRS:
		return "not sent by the person named";
	case WEBVIEW_PLAIN:
		break;
	}
	return "";
}

void
webview_review_counts(const struct view_patch *p, int counts[WEBVIEW_NREVIEWS])
{
	size_t i;
	int k;

	memset(counts, 0, sizeof(int) * WEBVIEW_NREVIEWS);
	for (i = 0; i < p->ntrailers; i++)
		if ((k = webview_review_index(p->trailers[i].name)) >= 0 &&
		    webview_trailer_listed(p, i))
			counts[k]++;
}

/* ---- the discussion ---- */

/* Sort keys carry what they compare: the comparators need no state,
 * and pages are built on several threads at once. */
struct by_msgid {
	const char *msgid;
	size_t i;
};

struct by_date {
	int64_t date;
	int64_t id;
	size_t i;
};

static int
cmp_msgid(const void *x, const void *y)
{
	const struct by_msgid *a = x, *b = y;
	int c = strcmp(a->msgid, b->msgid);

	return c ? c : (a->i < b->i ? -1 : a->i > b->i);
}

static int
cmp_date(const void *x, const void *y)
{
	const struct by_date *a = x, *b = y;

	if (a->date != b->date)
		return a->date < b->date ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* The first mail with this Message-ID, or WEBVIEW_NOWHERE. */
static size_t
find(const struct by_msgid *v, size_t n, const char *msgid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid].msgid, msgid) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && strcmp(v[lo].msgid, msgid) == 0 ? v[lo].i
	                                                 : WEBVIEW_NOWHERE;
}

/* Whether following up from i reaches a root in at most n steps. */
static bool
reaches_root(const struct webview_msg *m, const size_t *up, size_t n, size_t i)
{
	size_t k;

	for (k = 0; k <= n && i != WEBVIEW_NOWHERE; k++) {
		if (m[i].root)
			return true;
		i = up[i];
	}
	return false;
}

/* Each mail's parent among m: the one it answers when that leads to a
 * root, else its home; WEBVIEW_NOWHERE for roots and strays. */
static size_t *
parents(const struct webview_msg *m, size_t n)
{
	struct by_msgid *v = xcalloc(n ? n : 1, sizeof(*v));
	size_t *up = xcalloc(n ? n : 1, sizeof(*up)), i;

	for (i = 0; i < n; i++) {
		v[i].msgid = m[i].msgid ? m[i].msgid : "";
		v[i].i = i;
	}
	qsort(v, n, sizeof(*v), cmp_msgid);
	for (i = 0; i < n; i++) {
		size_t p =
		    m[i].parent ? find(v, n, m[i].parent) : WEBVIEW_NOWHERE;

		up[i] = m[i].root || p == i ? WEBVIEW_NOWHERE : p;
	}
	/* A parent that leads nowhere (a loop, a mail outside any thread)
	 * gives way to the mail's home. */
	for (i = 0; i < n; i++)
		if (!m[i].root && !reaches_root(m, up, n, i))
			up[i] = m[i].home < n && m[m[i].home].root
			    ? m[i].home
			    : WEBVIEW_NOWHERE;
	free(v);
	return up;
}

/* Each mail's children, grouped by parent (mail i's are kids[first[i]]
 * to kids[first[i + 1]]), each group by date. */
struct children {
	size_t *first;
	struct by_date *kids;
};

static void
children(const struct webview_msg *m, size_t n, const size_t *up,
    struct children *ch)
{
	size_t *fill = xcalloc(n + 1, sizeof(*fill)), i;

	ch->first = xcalloc(n + 2, sizeof(*ch->first));
	ch->kids = xcalloc(n + 1, sizeof(*ch->kids));
	for (i = 0; i < n; i++)
		if (up[i] != WEBVIEW_NOWHERE)
			ch->first[up[i] + 1]++;
	for (i = 0; i < n; i++)
		ch->first[i + 1] += ch->first[i];
	for (i = 0; i < n; i++) {
		struct by_date d = { m[i].date, m[i].id, i };

		if (up[i] != WEBVIEW_NOWHERE)
			ch->kids[ch->first[up[i]] + fill[up[i]]++] = d;
	}
	for (i = 0; i < n; i++)
		qsort(ch->kids + ch->first[i], ch->first[i + 1] - ch->first[i],
		    sizeof(*ch->kids), cmp_date);
	free(fill);
}

/* Root r's descendants, depth first, into out from k on; the new k. */
static size_t
descend(const struct children *ch, size_t r, size_t n, size_t *stack,
    size_t *depth, struct webview_place *out, size_t k)
{
	size_t top = 0, c;

	/* The children pushed in reverse, so that the first comes first. */
	for (c = ch->first[r + 1]; c-- > ch->first[r];) {
		stack[top] = ch->kids[c].i;
		depth[top++] = 1;
	}
	while (top && k < n) {
		size_t x, d;

		top--;
		x = stack[top];
		d = depth[top];
		out[k].msg = x;
		out[k].root = r;
		out[k++].depth = (int)d;
		for (c = ch->first[x + 1]; c-- > ch->first[x];) {
			stack[top] = ch->kids[c].i;
			depth[top++] = d + 1;
		}
	}
	return k;
}

size_t
webview_thread(const struct webview_msg *m, size_t n, struct webview_place *out)
{
	size_t *up = parents(m, n), i, k = 0, nloose = 0;
	size_t *stack = xcalloc(n + 1, sizeof(*stack));
	size_t *depth = xcalloc(n + 1, sizeof(*depth));
	struct by_date *loose = xcalloc(n + 1, sizeof(*loose));
	struct children ch;

	children(m, n, up, &ch);
	for (i = 0; i < n; i++)
		if (m[i].root)
			k = descend(&ch, i, n, stack, depth, out, k);
	/* What hangs from no root, by date. */
	for (i = 0; i < n; i++)
		if (!m[i].root && up[i] == WEBVIEW_NOWHERE) {
			struct by_date d = { m[i].date, m[i].id, i };

			loose[nloose++] = d;
		}
	qsort(loose, nloose, sizeof(*loose), cmp_date);
	for (i = 0; i < nloose; i++) {
		out[k].msg = loose[i].i;
		out[k].root = WEBVIEW_NOWHERE;
		out[k++].depth = 1;
	}
	free(ch.first);
	free(ch.kids);
	free(loose);
	free(depth);
	free(stack);
	free(up);
	return k;
}

/* ---- the timeline ---- */

static int
cmp_entry(const void *x, const void *y)
{
	const struct webview_entry *a = x, *b = y;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->what != b->what)
		return a->what == WEBVIEW_MAIL ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

void
webview_timeline_sort(struct webview_entry *e, size_t n)
{
	qsort(e, n, sizeof(*e), cmp_entry);
}

bool
webview_bots_own(const struct config *conf, enum mail_kind kind,
    const char *from_email, bool sent)
{
	return kind == MAIL_BOT && sent && conf && conf->bot_address &&
	    from_email && addr_same(from_email, conf->bot_address);
}
