/*
 * The contribution page, /c/ID (DESIGN.md §9): what a maintainer reads
 * before `#yard stage`.  Per version, newest first: the cover letter,
 * each patch with its reviews, commit message, diffstat and diff, and
 * under each the mails that answer it in thread order; the interdiff
 * against the version before; then the checks, the timeline in the order
 * things happened and the mails the bot sent.  The rules (which trailer
 * is listed and how it is marked, the orders) are bot/web/webview.c's;
 * one mail's text is bot/web/webmail.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/git/gitdiff.h"
#include "bot/web/webmail.h"
#include "bot/web/webmemo.h"
#include "bot/web/webpriv.h"
#include "bot/web/webview.h"
#include "bot/workflow/trust.h"
#include "storage/store_msg.h"
#include "storage/store_outbox.h"
#include "storage/store_read.h"
#include "util/esc.h"
#include "util/xalloc.h"

/* More versions than this: all but the newest are folded. */
#define WEB_OPEN_VERSIONS 3
/* Replies nest this deep on the page, deeper ones no further. */
#define WEB_MAX_DEPTH 8
/* An interdiff is shown up to this many lines per patch. */
#define WEB_MAX_DIFF_LINES 3000

/* One rendering of the page. */
struct page {
	struct web *w;
	struct store *st;
	struct arena *a;
	const struct web_req *rq;
	const struct view_contrib *c;
	struct mail_opts mo;
	struct store_msg *msgs; /* the contribution's mails, by date */
	size_t nmsgs;
	struct webmail **parsed; /* per mail, read when first needed */
	struct webview_place *places; /* the non-roots in thread order */
	size_t nplaces;
	size_t *from, *to; /* per root: its run of places */
	size_t *patch_msg; /* per patch (series-major): its mail, or NONE */
	size_t *cover; /* per series: its cover letter's mail, or NONE */
	size_t *series_of; /* per mail: the index of its series */
};

#define NONE WEBVIEW_NOWHERE

/* ---- finding things ---- */

static size_t
msg_by_row(const struct page *pg, int64_t row)
{
	size_t i;

	for (i = 0; i < pg->nmsgs; i++)
		if (pg->msgs[i].id == row)
			return i;
	return NONE;
}

static size_t
series_by_id(const struct view_contrib *c, int64_t id)
{
	size_t i;

	for (i = 0; i < c->nseries; i++)
		if (c->series[i].id == id)
			return i;
	return NONE;
}

/* The index of patch k of series i among all patches. */
static size_t
patch_slot(const struct view_contrib *c, size_t i, size_t k)
{
	size_t n = 0, j;

	for (j = 0; j < i; j++)
		n += c->series[j].npatches;
	return n + k;
}

static size_t
npatches(const struct view_contrib *c)
{
	return patch_slot(c, c->nseries, 0);
}

/* The mail at index i, parsed (NULL when it cannot be read). */
static const struct webmail *
mail_at(struct page *pg, size_t i)
{
	if (pg->parsed[i] == NULL) {
		struct webmail *m = arena_alloc(pg->a, sizeof(*m));

		if (webmail_read(pg->st, pg->a, pg->msgs[i].id, &pg->mo, m) !=
		    ERR_OK)
			return NULL;
		pg->parsed[i] = m;
	}
	return pg->parsed[i];
}

/* ---- the thread ---- */

/* Where a mail goes when what it answers is not here: its patch, else
 * its series' cover letter, else its series' first patch. */
static void
homes(struct page *pg, struct webview_msg *v)
{
	const struct view_contrib *c = pg->c;
	size_t i, k;

	for (i = 0; i < pg->nmsgs; i++) {
		size_t s = pg->series_of[i];

		if (v[i].root || s == NONE)
			continue;
		for (k = 0; k < c->series[s].npatches; k++)
			if (c->series[s].patches[k].id == pg->msgs[i].patch_id)
				v[i].home = pg->patch_msg[patch_slot(c, s, k)];
		if (v[i].home == NONE)
			v[i].home = pg->cover[s];
		if (v[i].home == NONE && c->series[s].npatches)
			v[i].home = pg->patch_msg[patch_slot(c, s, 0)];
	}
}

static void
thread(struct page *pg)
{
	const struct view_contrib *c = pg->c;
	struct webview_msg *v;
	size_t i, k, n = pg->nmsgs;

	pg->patch_msg = arena_alloc(pg->a, (npatches(c) + 1) * sizeof(size_t));
	pg->cover = arena_alloc(pg->a, (c->nseries + 1) * sizeof(size_t));
	pg->series_of = arena_alloc(pg->a, (n + 1) * sizeof(size_t));
	pg->from = arena_alloc(pg->a, (n + 1) * sizeof(size_t));
	pg->to = arena_alloc(pg->a, (n + 1) * sizeof(size_t));
	pg->places = arena_alloc(pg->a, (n + 1) * sizeof(*pg->places));
	v = xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++) {
		pg->series_of[i] = series_by_id(c, pg->msgs[i].series_id);
		pg->from[i] = pg->to[i] = 0;
		v[i].msgid = pg->msgs[i].msgid;
		v[i].parent = pg->msgs[i].parent;
		v[i].date = pg->msgs[i].date;
		v[i].id = pg->msgs[i].id;
		v[i].home = NONE;
	}
	for (i = 0; i < c->nseries; i++) {
		pg->cover[i] = NONE;
		for (k = 0; k < c->series[i].npatches; k++) {
			size_t m =
			    msg_by_row(pg, c->series[i].patches[k].message_row);

			pg->patch_msg[patch_slot(c, i, k)] = m;
			if (m != NONE)
				v[m].root = true;
		}
	}
	/* A series' cover letter: its first mail of that kind. */
	for (i = 0; i < n; i++) {
		size_t s = pg->series_of[i];

		if (s != NONE && pg->msgs[i].kind == MAIL_COVER &&
		    pg->cover[s] == NONE && !v[i].root) {
			pg->cover[s] = i;
			v[i].root = true;
		}
	}
	homes(pg, v);
	pg->nplaces = webview_thread(v, n, pg->places);
	for (i = pg->nplaces; i-- > 0;) {
		size_t r = pg->places[i].root;

		if (r == NONE)
			continue;
		if (pg->to[r] == 0)
			pg->to[r] = i + 1;
		pg->from[r] = i;
	}
	free(v);
}

/* ---- one mail ---- */

static const char *
archive(struct page *pg, const char *msgid)
{
	return web_archive(pg->a, pg->w->conf, pg->c->project, msgid);
}

/* /m/<id>/raw, as public-inbox names a raw mail; serve only. */
static const char *
raw_url(struct page *pg, const char *msgid)
{
	struct buf b = BUF_INIT;
	const char *out;

	if (pg->rq->static_site || msgid == NULL)
		return NULL;
	buf_adds(&b, "m/");
	esc_url(&b, msgid, strlen(msgid));
	buf_adds(&b, "/raw");
	out = web_link(pg->a, pg->rq, buf_cstr(&b), false);
	buf_free(&b);
	return out;
}

/* Who sent a mail, how it proved it, when, and where to read it whole. */
static void
mail_head(struct page *pg, struct template_data *d, const struct store_msg *m)
{
	template_data_setf(d, "row", "%" PRId64, m->id);
	template_data_set(d, "from_name",
	    m->from_name && *m->from_name ? m->from_name : m->from_email);
	template_data_set(d, "from_email", m->from_email);
	template_data_set(d, "date", NULL);
	template_data_set(d, "date_iso", NULL);
	template_data_set(d, "date_ago", NULL);
	web_when_abs(d, "date", m->date, pg->rq);
	template_data_set(d, "msgid", m->msgid);
	template_data_set(d, "archive_url", archive(pg, m->msgid));
	template_data_set(d, "raw_url", raw_url(pg, m->msgid));
	template_data_set(d, "auth", m->auth);
	template_data_set(d, "auth_note", m->auth ? NULL : m->auth_note);
}

/* The text blocks of a mail: quotes and signature folded. */
static void
blocks(struct template_data *d, struct str text)
{
	struct webmail_block b[WEBMAIL_MAX_BLOCKS];
	size_t n, i, cut;

	n = webmail_blocks(text, b, WEBMAIL_MAX_BLOCKS, &cut);
	for (i = 0; i < n; i++) {
		struct template_data *r = template_data_add(d, "blocks");

		template_data_set(r, "btext", NULL);
		template_data_set(r, "bquote", NULL);
		template_data_set(r, "bsig", NULL);
		template_data_setn(r,
		    b[i].kind == WEBMAIL_QUOTE     ? "bquote"
		        : b[i].kind == WEBMAIL_SIG ? "bsig"
		                                   : "btext",
		    b[i].text.p, b[i].text.n);
		template_data_setf(r, "blines", "%zu quoted line%s", b[i].lines,
		    b[i].lines == 1 ? "" : "s");
	}
	if (cut)
		template_data_setf(d, "cut", "%zu", cut);
	else
		template_data_set(d, "cut", NULL);
}

static const char *const mark_class[] = { "plain", "verified", "unchecked",
	"theirs" };

/* What a reply's own trailers and command lines say. */
static void
reply_says(struct page *pg, struct template_data *d, const struct store_msg *sm,
    const struct webmail *m)
{
	size_t i;

	template_data_set(d, "has_rtrailers", NULL);
	template_data_set(d, "has_commands", NULL);
	for (i = 0; i < m->m.ntrailers; i++) {
		const struct trailer *t = &m->m.trailers[i];
		struct template_data *r;
		struct view_trailer v;
		enum webview_mark k;

		memset(&v, 0, sizeof(v));
		v.name = t->name;
		v.value = t->value;
		v.email = t->person.email;
		v.from_email = sm->from_email;
		v.verified = trust_trailer_verified(
		    pg->w->conf, sm->from_email, t, sm->auth != NULL);
		k = webview_trailer_mark(pg->w->conf, &v);
		template_data_set(d, "has_rtrailers", "1");
		r = template_data_add(d, "rtrailers");
		template_data_set(r, "tname", t->name);
		template_data_set(r, "tvalue", t->value);
		template_data_set(r, "mark", webview_mark_words(k));
		template_data_set(r, "mark_class", mark_class[k]);
	}
	for (i = 0; i < m->m.ncommands; i++) {
		struct template_data *r;

		template_data_set(d, "has_commands", "1");
		r = template_data_add(d, "commands");
		template_data_set(r, "line", m->m.commands[i].line);
		template_data_set(r, "error", m->m.commands[i].error);
	}
}

/* webview_bots_own(), the outbox asked only for automated mail. */
static bool
bots_own(struct page *pg, const struct store_msg *sm)
{
	int64_t id;

	return sm->kind == MAIL_BOT &&
	    webview_bots_own(pg->w->conf, sm->kind, sm->from_email,
	        store_outbox_by_msgid(pg->st, sm->msgid, &id) == ERR_OK);
}

static void
reply_item(struct page *pg, struct template_data *series, size_t place)
{
	const struct webview_place *p = &pg->places[place];
	const struct store_msg *sm = &pg->msgs[p->msg];
	const struct webmail *m = mail_at(pg, p->msg);
	struct template_data *r =
	    template_data_add(template_data_add(series, "items"), "reply");
	bool ours;

	mail_head(pg, r, sm);
	template_data_setf(r, "depth", "%d",
	    p->depth < WEB_MAX_DEPTH ? p->depth : WEB_MAX_DEPTH);
	template_data_set(r, "subject", sm->subject);
	ours = bots_own(pg, sm);
	template_data_set(r, "bot", ours ? "1" : NULL);
	template_data_set(
	    r, "automated", sm->kind == MAIL_BOT && !ours ? "1" : NULL);
	/* A mail over a limit is stored, not parsed (DESIGN.md §4). */
	template_data_set(
	    r, "unread", m && !(m->m.flags & MAIL_F_OVERLIMIT) ? NULL : "1");
	if (m == NULL)
		return;
	blocks(r, m->text);
	reply_says(pg, r, sm, m);
}

/* The replies hanging from root mail i. */
static void
replies(struct page *pg, struct template_data *series, size_t i)
{
	size_t k;

	if (i == NONE || pg->to[i] == 0)
		return;
	for (k = pg->from[i]; k < pg->to[i]; k++)
		reply_item(pg, series, k);
}

static size_t
count_replies(const struct page *pg, size_t i)
{
	return i == NONE || pg->to[i] == 0 ? 0 : pg->to[i] - pg->from[i];
}

/* ---- a patch ---- */

/* The link to the mail of row: on this page when it is, else /m/. */
static const char *
mail_link(struct page *pg, int64_t row, const char *msgid)
{
	size_t i = msg_by_row(pg, row);
	struct buf b = BUF_INIT;
	const char *out;

	if (i != NONE)
		return arena_printf(pg->a, "#mail-%" PRId64, row);
	if (msgid == NULL)
		return NULL;
	buf_adds(&b, "m/");
	esc_url(&b, msgid, strlen(msgid));
	out = web_link(pg->a, pg->rq, buf_cstr(&b), true);
	buf_free(&b);
	return out;
}

static void
trailers(struct page *pg, struct template_data *pd, const struct view_patch *p)
{
	int counts[WEBVIEW_NREVIEWS];
	struct buf words = BUF_INIT;
	size_t i;

	template_data_set(pd, "has_trailers", NULL);
	for (i = 0; i < p->ntrailers; i++) {
		const struct view_trailer *t = &p->trailers[i];
		struct template_data *td;
		enum webview_mark k;

		if (!webview_trailer_listed(p, i))
			continue;
		k = webview_trailer_mark(pg->w->conf, t);
		template_data_set(pd, "has_trailers", "1");
		td = template_data_add(pd, "trailers");
		template_data_set(td, "tname", t->name);
		template_data_set(td, "tvalue", t->value);
		template_data_set(td, "mark", webview_mark_words(k));
		template_data_set(td, "mark_class", mark_class[k]);
		/* How the mail that gave it authenticated, or why not. */
		template_data_set(td, "how",
		    t->auth            ? t->auth
		        : t->auth_note ? t->auth_note
		                       : "not checked");
		template_data_set(td, "sender",
		    t->from_name && *t->from_name ? t->from_name
		                                  : t->from_email);
		template_data_set(td, "sender_url",
		    t->own ? NULL
		           : mail_link(pg, t->message_row, t->message_id));
	}
	webview_review_counts(p, counts);
	for (i = 0; i < WEBVIEW_NREVIEWS; i++)
		if (counts[i])
			buf_addf(&words, "%s%d %s", words.n ? " · " : "",
			    counts[i], webview_reviews[i]);
	template_data_set(pd, "counts", words.n ? buf_cstr(&words) : NULL);
	buf_free(&words);
}

/* A patch's diff in runs of lines of one kind, coloured as the
 * interdiff is. */
static void
patch_diff(struct template_data *pd, struct str diff)
{
	static const char *const kinds[] = { "ctx", "add", "del", "hunk",
		"file" };
	struct webmail_diffpos at = { 0, 0 };
	struct str rest = diff, line;
	const char *run = NULL, *end = NULL;
	enum webmail_line kind = WEBMAIL_CTX, k;
	size_t lines = 0, cut = 0;

	while (str_nextline(&rest, &line)) {
		if (++lines > WEBMAIL_MAX_DIFF_LINES) {
			cut++;
			continue;
		}
		k = webmail_diff_line(line, &at);
		if (run && k != kind) {
			struct template_data *l =
			    template_data_add(pd, "dlines");

			template_data_set(l, "k", kinds[kind]);
			template_data_setn(l, "t", run, (size_t)(end - run));
			run = NULL;
		}
		if (run == NULL) {
			run = line.p;
			kind = k;
		}
		end = line.p + line.n;
	}
	if (run) {
		struct template_data *l = template_data_add(pd, "dlines");

		template_data_set(l, "k", kinds[kind]);
		template_data_setn(l, "t", run, (size_t)(end - run));
	}
	template_data_set(pd, "has_diff", lines ? "1" : NULL);
	if (cut)
		template_data_setf(pd, "dcut", "%zu", cut);
	else
		template_data_set(pd, "dcut", NULL);
}

/* The summary line of a diffstat ("3 files changed, ..."). */
static const char *
stat_summary(struct arena *a, const char *stat)
{
	struct str rest = str_from(stat), line;
	const char *out = NULL;

	while (str_nextline(&rest, &line))
		if (str_findstr(line, " changed", 8) >= 0)
			out = arena_strndup(a, line.p, line.n);
	return out ? str_trim(str_from(out)).p : NULL;
}

static void
patch_item(struct page *pg, struct template_data *series,
    const struct view_series *s, const struct view_patch *p, size_t mi)
{
	struct template_data *pd =
	    template_data_add(template_data_add(series, "items"), "patch");
	const struct webmail *m = mi == NONE ? NULL : mail_at(pg, mi);

	if (mi != NONE)
		mail_head(pg, pd, &pg->msgs[mi]);
	else
		template_data_set(pd, "row", "0");
	template_data_setf(pd, "pid", "%" PRId64, p->id);
	template_data_setf(pd, "number", "%d", p->number);
	template_data_set(pd, "ptitle", p->title);
	template_data_set(pd, "pstate", model_state_name(p->state));
	template_data_set(pd, "queue", model_queue_name(p->queue));
	template_data_set(pd, "reason", model_reason_name(p->reason));
	template_data_set(pd, "conflict", p->conflict ? "1" : NULL);
	template_data_set(pd, "older_copy", p->older_copy ? "1" : NULL);
	if (strcmp(p->author_email, s->submitter_email) != 0)
		template_data_setf(
		    pd, "author", "%s <%s>", p->author_name, p->author_email);
	else
		template_data_set(pd, "author", NULL);
	template_data_set(pd, "slug", p->slug);
	template_data_set(pd, "auth", p->auth);
	template_data_set(pd, "auth_note", p->auth ? NULL : p->auth_note);
	template_data_set(pd, "reused", p->msgid_reused ? "1" : NULL);
	template_data_set(pd, "patch_id", p->patch_id);
	if (p->patch_id)
		template_data_setn(pd, "patch_id_short", p->patch_id,
		    strnlen(p->patch_id, 12));
	trailers(pg, pd, p);
	if (m == NULL || m->m.patch == NULL) {
		template_data_set(pd, "unread", "1");
		template_data_set(pd, "has_diff", NULL);
		return;
	}
	template_data_set(pd, "unread", NULL);
	template_data_setn(pd, "message", m->message.p, m->message.n);
	template_data_set(pd, "diffstat", m->diffstat);
	template_data_set(pd, "stat_summary",
	    m->diffstat ? stat_summary(pg->a, m->diffstat) : NULL);
	patch_diff(pd, m->diff);
}

/* ---- the interdiff ---- */

/* A patch as range-diff compares it: subject, message, diff. */
static bool
patch_text(struct page *pg, int64_t row, struct buf *out)
{
	size_t i = msg_by_row(pg, row);
	const struct webmail *m;
	struct webmail own;
	struct str rest, line;

	if (i != NONE)
		m = mail_at(pg, i);
	else if (webmail_read(pg->st, pg->a, row, &pg->mo, &own) == ERR_OK)
		m = &own;
	else
		m = NULL;
	if (m == NULL || m->m.patch == NULL)
		return false;
	buf_adds(out, m->m.patch->subject ? m->m.patch->subject : "");
	buf_adds(out, "\n\n");
	buf_addstr(out, m->m.patch->message);
	buf_addc(out, '\n');
	/* Blob ids change with any base; range-diff leaves them out too. */
	rest = m->m.patch->diff;
	while (str_nextline(&rest, &line))
		if (!str_startswith(line, "index ")) {
			buf_addstr(out, line);
			buf_addc(out, '\n');
		}
	return true;
}

/* The interdiff of two stored patch mails, computed once: mails never
 * change, so the memo keeps it for every page after. */
static bool
interdiff(struct page *pg, int64_t old_row, int64_t new_row, struct buf *d)
{
	struct buf o = BUF_INIT, nw = BUF_INIT;
	char key[64];
	bool ok;

	snprintf(key, sizeof(key), "interdiff:%" PRId64 ":%" PRId64, old_row,
	    new_row);
	if (webmemo_get(pg->w->memo, key, d))
		return true;
	ok = patch_text(pg, old_row, &o) && patch_text(pg, new_row, &nw) &&
	    gitdiff_text(o.p, o.n, "old version", nw.p, nw.n, "new version",
	        d) == ERR_OK;
	if (ok)
		webmemo_put(pg->w->memo, key, d->p ? d->p : "", d->n);
	buf_free(&o);
	buf_free(&nw);
	return ok;
}

static void
diff_lines(struct template_data *ch, const struct buf *diff)
{
	struct str rest = buf_str(diff), line;
	size_t k = 0;

	while (str_nextline(&rest, &line)) {
		struct template_data *l;
		const char *kind = "ctx";

		if (++k > WEB_MAX_DIFF_LINES) {
			l = template_data_add(ch, "lines");
			template_data_set(l, "k", "hunk");
			template_data_set(l, "t", "[... cut]");
			break;
		}
		if (k <= 2 &&
		    (str_startswith(line, "--- ") ||
		        str_startswith(line, "+++ ")))
			kind = "file";
		else if (str_startswith(line, "@@"))
			kind = "hunk";
		else if (line.n && line.p[0] == '+')
			kind = "add";
		else if (line.n && line.p[0] == '-')
			kind = "del";
		l = template_data_add(ch, "lines");
		template_data_set(l, "k", kind);
		template_data_setn(l, "t", line.p, line.n);
	}
}

/* The interdiff of each patch against the version it replaced, as b4
 * and patchwork show a range-diff. */
static void
changes(struct page *pg, struct template_data *sd, const struct view_series *s)
{
	struct store_web_pred *pred = NULL;
	size_t n = 0, i, k;

	if (store_web_predecessors(pg->st, pg->a, s->id, &pred, &n) != ERR_OK ||
	    !n)
		return;
	template_data_set(sd, "has_changes", "1");
	template_data_setf(sd, "old_version", "%d", pred[0].old_version);
	for (i = 0; i < n; i++) {
		struct buf d = BUF_INIT;
		struct template_data *ch = template_data_add(sd, "changes");
		const struct view_patch *p = NULL;

		for (k = 0; k < s->npatches; k++)
			if (s->patches[k].id == pred[i].patch_id)
				p = &s->patches[k];
		template_data_setf(ch, "number", "%d", p ? p->number : 0);
		template_data_set(ch, "ctitle", p ? p->title : "");
		template_data_set(ch, "changed", NULL);
		if (interdiff(
		        pg, pred[i].old_message_row, pred[i].message_row, &d) &&
		    d.n) {
			template_data_set(ch, "changed", "1");
			diff_lines(ch, &d);
		}
		buf_free(&d);
	}
}

/* ---- a version ---- */

static void
series_data(struct page *pg, struct template_data *d, size_t si)
{
	const struct view_contrib *c = pg->c;
	const struct view_series *s = &c->series[si];
	struct template_data *sd = template_data_add(d, "series");
	size_t k, i, cover = pg->cover[si];

	template_data_setf(sd, "version", "%d", s->version);
	template_data_set(sd, "state", model_state_name(s->state));
	template_data_setf(sd, "received", "%d", s->received);
	template_data_setf(sd, "expected", "%d", s->expected);
	template_data_set(sd, "complete", s->complete ? "1" : NULL);
	/* Many versions make a long page: the newest open, the rest
	 * folded under their one-line summaries. */
	template_data_set(sd, "folded",
	    c->nseries > WEB_OPEN_VERSIONS && &c->series[si] != c->newest
	        ? "1"
	        : NULL);
	web_when_abs(sd, "sdate", s->date, pg->rq);
	template_data_set(sd, "message_id", s->message_id);
	template_data_set(sd, "sarchive_url", archive(pg, s->message_id));
	template_data_set(sd, "base", s->base_commit);
	template_data_set(sd, "mbox_url",
	    web_link(pg->a, pg->rq,
	        arena_printf(
	            pg->a, "c/%" PRId64 "/v%d/mbox", c->id, s->version),
	        false));
	if (cover != NONE) {
		const struct webmail *m = mail_at(pg, cover);
		struct template_data *cd =
		    template_data_add(template_data_add(sd, "items"), "cover");

		mail_head(pg, cd, &pg->msgs[cover]);
		if (m)
			blocks(cd, m->text);
		replies(pg, sd, cover);
	}
	for (k = 0; k < s->npatches; k++) {
		size_t mi = pg->patch_msg[patch_slot(c, si, k)];

		patch_item(pg, sd, s, &s->patches[k], mi);
		replies(pg, sd, mi);
	}
	/* Mails of this series that answer nothing here. */
	for (i = 0; i < pg->nplaces; i++)
		if (pg->places[i].root == NONE &&
		    pg->series_of[pg->places[i].msg] == si)
			reply_item(pg, sd, i);
	if (si > 0)
		changes(pg, sd, s);
}

/* The compact list of versions at the top. */
static void
versions(struct page *pg, struct template_data *d)
{
	const struct view_contrib *c = pg->c;
	size_t i, k;

	for (i = c->nseries; i-- > 0;) {
		const struct view_series *s = &c->series[i];
		struct template_data *v = template_data_add(d, "versions");
		size_t n = count_replies(pg, pg->cover[i]);

		for (k = 0; k < s->npatches; k++)
			n += count_replies(
			    pg, pg->patch_msg[patch_slot(c, i, k)]);
		template_data_setf(v, "vversion", "%d", s->version);
		template_data_set(v, "vstate", model_state_name(s->state));
		template_data_setf(
		    v, "vcount", "%d/%d", s->received, s->expected);
		web_when_abs(v, "vdate", s->date, pg->rq);
		template_data_set(v, "vreplies",
		    n ? arena_printf(
		            pg->a, "%zu repl%s", n, n == 1 ? "y" : "ies")
		      : NULL);
	}
}

/* ---- checks, timeline, mails sent ---- */

static const char *
patch_label(const struct view_contrib *c, int64_t patch)
{
	size_t i, k;

	for (i = 0; i < c->nseries; i++)
		for (k = 0; k < c->series[i].npatches; k++)
			if (c->series[i].patches[k].id == patch)
				return c->series[i].patches[k].slug;
	return "";
}

static void
checks(struct page *pg, struct template_data *d)
{
	const struct view_contrib *c = pg->c;
	size_t i;

	for (i = 0; i < c->nchecks; i++) {
		const struct store_check *k = &c->checks[i];
		struct template_data *kd = template_data_add(d, "checks");

		template_data_set(d, "has_checks", "1");
		template_data_set(kd, "patch", patch_label(c, k->patch_id));
		template_data_set(kd, "context", k->context);
		template_data_set(kd, "state", k->state);
		template_data_set(kd, "summary", k->summary);
		template_data_set(kd, "reporter", k->reporter);
		/* Set even when empty: the page's own url is in scope. */
		template_data_set(
		    kd, "url", k->url && web_http_url(k->url) ? k->url : NULL);
		web_when_abs(kd, "time", k->time, pg->rq);
	}
}

static const char *
version_of(struct arena *a, const struct view_contrib *c, int64_t series)
{
	size_t i = series_by_id(c, series);

	return i == NONE ? NULL : arena_printf(a, "%d", c->series[i].version);
}

/* What a reply was about and what it gave, in a few words. */
static void
timeline_mail(struct page *pg, struct template_data *t, size_t mi)
{
	const struct store_msg *sm = &pg->msgs[mi];
	const struct webmail *m = mail_at(pg, mi);
	const struct view_contrib *c = pg->c;
	struct buf gave = BUF_INIT;
	size_t s = pg->series_of[mi], k;
	const char *about = NULL;

	template_data_setf(t, "trow", "%" PRId64, sm->id);
	template_data_set(t, "tfrom",
	    sm->from_name && *sm->from_name ? sm->from_name : sm->from_email);
	if (s != NONE && sm->patch_id)
		for (k = 0; k < c->series[s].npatches; k++)
			if (c->series[s].patches[k].id == sm->patch_id)
				about = arena_printf(pg->a, "%d/%d %s",
				    c->series[s].patches[k].number,
				    c->series[s].expected,
				    c->series[s].patches[k].title);
	if (about == NULL && s != NONE)
		about = arena_printf(pg->a, "v%d", c->series[s].version);
	template_data_set(t, "tabout", about);
	for (k = 0; m && k < m->m.ntrailers; k++)
		buf_addf(
		    &gave, "%s%s", gave.n ? ", " : "", m->m.trailers[k].name);
	for (k = 0; m && k < m->m.ncommands; k++)
		buf_addf(
		    &gave, "%s%s", gave.n ? ", " : "", m->m.commands[k].line);
	template_data_set(t, "tgave", gave.n ? buf_cstr(&gave) : NULL);
	buf_free(&gave);
}

static void
timeline(struct page *pg, struct template_data *d)
{
	const struct view_contrib *c = pg->c;
	struct webview_entry *e =
	    xcalloc(c->nevents + pg->nmsgs + 1, sizeof(*e));
	size_t n = 0, i;

	for (i = 0; i < c->nevents; i++) {
		e[n].time = c->events[i].time;
		e[n].what = WEBVIEW_EVENT;
		e[n].id = c->events[i].id;
		e[n++].index = i;
	}
	/* The mails that answer: the postings are the posted events, and
	 * the bot's own mails are its events. */
	for (i = 0; i < pg->nplaces; i++) {
		const struct store_msg *sm = &pg->msgs[pg->places[i].msg];

		if (bots_own(pg, sm))
			continue;
		e[n].time = sm->date;
		e[n].what = WEBVIEW_MAIL;
		e[n].id = sm->id;
		e[n++].index = pg->places[i].msg;
	}
	webview_timeline_sort(e, n);
	for (i = 0; i < n; i++) {
		struct template_data *t = template_data_add(d, "timeline");
		struct template_data *x;
		int64_t series;

		web_when_abs(t, "when", e[i].time, pg->rq);
		if (e[i].what == WEBVIEW_MAIL) {
			series = pg->msgs[e[i].index].series_id;
			timeline_mail(
			    pg, template_data_add(t, "tmail"), e[i].index);
		} else {
			const struct view_event *ev = &c->events[e[i].index];

			series = ev->series_id;
			x = template_data_add(t, "tevent");
			template_data_set(
			    x, "kind", model_event_name(ev->kind));
			template_data_set(x, "slug", ev->slug);
			template_data_set(x, "actor", ev->actor);
			template_data_set(x, "detail", ev->detail);
			template_data_set(x, "elink",
			    ev->message_row
			        ? mail_link(pg, ev->message_row, ev->message_id)
			        : NULL);
		}
		template_data_set(t, "tversion", version_of(pg->a, c, series));
	}
	free(e);
}

static void
outbox(struct template_data *d, const struct view_contrib *c)
{
	size_t i;

	for (i = 0; i < c->noutbox; i++) {
		const struct store_outbox *o = &c->outbox[i];
		struct template_data *od = template_data_add(d, "outbox");
		struct str rest = str_from(o->rcpt), line;
		struct buf to = BUF_INIT;

		template_data_set(d, "has_outbox", "1");
		template_data_set(od, "event", o->kind);
		while (str_nextline(&rest, &line))
			if (line.n) {
				if (to.n)
					buf_adds(&to, ", ");
				buf_addstr(&to, line);
			}
		template_data_set(od, "to", buf_cstr(&to));
		buf_free(&to);
		template_data_set(od, "state", o->state);
		template_data_setf(od, "attempts", "%d", o->attempts);
		template_data_set(od, "last_error", o->last_error);
	}
}

/* ---- the page ---- */

void
webpage_contrib(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, int64_t id)
{
	struct arena *a = arena_new();
	struct template_data *d = template_data_new();
	struct store_summary *sum = NULL;
	struct store_filter f;
	struct view_contrib c;
	struct page pg;
	size_t n = 0, i;
	bool more;
	enum err e;

	memset(&f, 0, sizeof(f));
	memset(&pg, 0, sizeof(pg));
	f.id = id;
	e = store_web_summaries(st, a, &f, &sum, &n, &more);
	if (e == ERR_OK && n == 0)
		e = ERR_NOTFOUND;
	if (e == ERR_OK)
		e = store_read_contrib(st, a, id, true, &c);
	if (e == ERR_OK)
		e = store_msg_of_contrib(st, a, id, &pg.msgs, &pg.nmsgs);
	if (e == ERR_NOTFOUND) {
		webpage_error(w, rq, rs, 404, "No such contribution",
		    "There is no contribution with this number.");
		goto out;
	} else if (e != ERR_OK) {
		webpage_error(w, rq, rs, 503, "Not available",
		    "The database could not be read; try again.");
		goto out;
	}
	pg.w = w;
	pg.st = st;
	pg.a = a;
	pg.rq = rq;
	pg.c = &c;
	pg.mo.command_prefix = w->conf->command_prefix;
	pg.mo.bot_address = w->conf->bot_address;
	pg.parsed = arena_zalloc(a, (pg.nmsgs + 1) * sizeof(*pg.parsed));
	thread(&pg);
	webpage_common(w, a, d, rq, sum->title);
	webpage_summary(d, a, sum, rq);
	web_when_abs(d, "posted", sum->posted, rq);
	web_when_abs(d, "activity", sum->last_activity, rq);
	template_data_set(d, "project", c.project);
	template_data_set(d, "feed_url",
	    web_link(
	        a, rq, arena_printf(a, "c/%" PRId64 "/feed.atom", id), false));
	template_data_set(d, "feed_title", sum->title);
	template_data_set(d, "mbox_url",
	    web_link(a, rq, arena_printf(a, "c/%" PRId64 "/mbox", id), false));
	template_data_set(d, "json_url",
	    web_link(a, rq,
	        arena_printf(a,
	            rq->static_site ? "api/contributions/%" PRId64 ".json"
	                            : "api/contributions/%" PRId64,
	            id),
	        false));
	if (*sum->submitter_name)
		template_data_set(d, "submitter", sum->submitter_name);
	versions(&pg, d);
	for (i = c.nseries; i-- > 0;)
		series_data(&pg, d, i);
	checks(&pg, d);
	timeline(&pg, d);
	outbox(d, &c);
	webpage_render(w, WEB_PAGE_CONTRIB, d, rs, 200);
out:
	template_data_free(d);
	arena_free(a);
}
