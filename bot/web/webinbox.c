/*
 * Mail by Message-ID, as the field's tools fetch it (docs/DESIGN.md §9):
 *
 * - public-inbox's message URLs, which b4 and archive readers use:
 *   /m/<id>/raw (the stored mail byte for byte), /m/<id>/t.mbox.gz (the
 *   thread as a gzip mboxrd file, application/gzip, never a
 *   Content-Encoding: b4 would undo it), and /m/<id>[/], a 302 to the
 *   contribution.  b4 asks HEAD /m/<id>, takes the Location without its
 *   last segment and asks <that>/<id>/t.mbox.gz: the Location is
 *   /c/<contribution>, so /c/<id>/t.mbox.gz and /c/<id>/raw answer too.
 *   Our thread is the contribution: every mail of every version.
 * - patchwork's pages and downloads, where its API's web_url and mbox
 *   point (git pw downloads them, and needs a Content-Disposition file
 *   name): /project/P/patch/<id>/ with mbox/ and raw/ below it,
 *   /project/P/cover/<id>/ with mbox/, /project/P/list/ and
 *   /series/ID/mbox/.  The mboxes are `patchyard am`'s, with the
 *   verified trailers, as /c/ID/mbox.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/source/mboxout.h"
#include "bot/web/webpriv.h"
#include "bot/workflow/am.h"
#include "parsers/limits.h"
#include "parsers/mail.h"
#include "parsers/msgid.h"
#include "storage/store_msg.h"
#include "storage/store_read.h"
#include "util/ascii.h"
#include "util/esc.h"
#include "util/xalloc.h"

/* Whether s ends with suffix; *n gets the length before it. */
static bool
ends(const char *s, const char *suffix, size_t *n)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	if (ls < lx || strcmp(s + ls - lx, suffix) != 0)
		return false;
	*n = ls - lx;
	return true;
}

/* A Message-ID from n bytes of a path, or NULL. */
static char *
msgid_at(struct arena *a, const char *p, size_t n)
{
	struct str id = msgid_from_user(str_make(p, n));

	return id.p ? arena_strndup(a, id.p, id.n) : NULL;
}

static void
unknown(struct web *w, const struct web_req *rq, struct web_resp *rs)
{
	webpage_error(w, rq, rs, 404, "Unknown message",
	    "No message with this Message-ID is stored (yet: it may not "
	    "have arrived).");
}

static void
unreadable(struct web *w, const struct web_req *rq, struct web_resp *rs)
{
	buf_reset(&rs->body);
	webpage_error(w, rq, rs, 503, "Not available",
	    "The database could not be read; try again.");
}

/* 404 (unknown) or 503 for a failed read, dropping what was written;
 * true when e is ERR_OK and the caller answers. */
static bool
found(struct web *w, const struct web_req *rq, struct web_resp *rs, enum err e)
{
	if (e == ERR_NOTFOUND) {
		buf_reset(&rs->body);
		unknown(w, rq, rs);
	} else if (e != ERR_OK) {
		unreadable(w, rq, rs);
	}
	return e == ERR_OK;
}

/* 302 to path (absolute with bot.url). */
static void
moved(struct web *w, struct arena *a, const struct web_req *rq,
    struct web_resp *rs, const char *path)
{
	rs->location = xstrdup(web_abs(w, a, rq, path));
	rs->status = 302;
	rs->type = "text/plain; charset=utf-8";
	buf_adds(&rs->body, "Found\n");
}

/* The page of a stored Message-ID: the mail on its contribution's page
 * (a patch's own anchor, else the mail's). */
static void
page(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, struct arena *a, const char *id)
{
	struct store_web_place pl;
	enum err e = id ? store_web_place(st, a, id, &pl) : ERR_NOTFOUND;

	if (e == ERR_NOTFOUND) {
		webpage_error(w, rq, rs, 404, "Unknown message",
		    "No contribution holds a message with this Message-ID "
		    "(yet: it may not have arrived).");
	} else if (e != ERR_OK) {
		unreadable(w, rq, rs);
	} else if (pl.patch && strcmp(pl.kind, "patch") == 0) {
		moved(w, a, rq, rs,
		    arena_printf(a, "c/%" PRId64 "#patch-%" PRId64,
		        pl.contribution, pl.patch));
	} else {
		moved(w, a, rq, rs,
		    arena_printf(a, "c/%" PRId64 "#mail-%" PRId64,
		        pl.contribution, pl.message_row));
	}
}

/* The stored mail, byte for byte. */
static void
raw(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, struct arena *a, const char *id)
{
	struct store_msg m;
	const char *bytes;
	size_t n;
	enum err e = id ? store_msg_find(st, a, id, &m) : ERR_NOTFOUND;

	if (e == ERR_OK)
		e = store_msg_raw(st, a, m.id, &bytes, &n);
	if (found(w, rq, rs, e)) {
		buf_add(&rs->body, bytes, n);
		rs->status = 200;
		rs->type = "text/plain";
	}
}

_Static_assert(
    WEB_MAX_THREAD >= LIMIT_MAIL_STORE, "t.mbox.gz sends any one mail stored");

/* The thread is more than the server sends at once. */
static void
too_large(struct web *w, const struct web_req *rq, struct web_resp *rs,
    uint64_t bytes)
{
	struct arena *a = arena_new();

	buf_reset(&rs->body);
	webpage_error(w, rq, rs, 403, "Thread too large",
	    arena_printf(a,
	        "The mails of this thread are %" PRIu64 " MB, more than the "
	        "%" PRIu64 " MB this server sends as one t.mbox.gz.  Each "
	        "mail is at /m/MESSAGE-ID/raw.",
	        (bytes + (1u << 20) - 1) >> 20, w->max_thread >> 20));
	arena_free(a);
}

/*
 * Every mail of the thread of id, as public-inbox's t.mbox.gz.  Our
 * thread is the contribution, every version and reply, when its mails
 * come to at most w->max_thread bytes (WEB_MAX_THREAD: the answer is
 * built in memory); else the series of id, its version and the replies
 * to it, which is what public-inbox calls the thread when each version
 * starts one, and all that b4 am needs of it; else a 403 that says
 * why: a refusal that asking again does not change (b4 prints the
 * status), never a thread cut short.
 *
 * A mail over a limit (stored whole, marked, never parsed) is a mail of
 * the thread all the same: public-inbox serves every mail it holds, b4
 * reads each with a parser of its own, and leaving one out would cut
 * the thread silently.  Only one within LIMIT_MAIL_SIZE can be in a
 * contribution (the References of a larger one are not read, so it is
 * never placed), and the bound counts it like any other.
 */
static void
thread(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, struct arena *a, const char *id)
{
	struct mboxout *mo = NULL;
	int64_t cid = 0, sid = 0, pid = 0, *rows = NULL;
	uint64_t bytes = 0;
	struct store_msg m;
	size_t n = 0, i;
	enum err e =
	    id ? store_read_msgid(st, id, &cid, &sid, &pid) : ERR_NOTFOUND;

	if (e == ERR_OK) {
		e = store_pw_thread(st, cid, 0, &rows, &n, &bytes);
		if (e == ERR_OK && bytes > w->max_thread && sid) {
			free(rows);
			e = store_pw_thread(st, cid, sid, &rows, &n, &bytes);
		}
	} else if (e == ERR_NOTFOUND && id &&
	    (e = store_msg_find(st, a, id, &m)) == ERR_OK) {
		/* A mail of no contribution is a thread of its own, and any
		 * one mail is within the bound (the assertion above). */
		rows = xmalloc(sizeof(*rows));
		rows[0] = m.id;
		n = 1;
	}
	if (e == ERR_OK && bytes > w->max_thread) {
		free(rows);
		too_large(w, rq, rs, bytes);
		return;
	}
	mo = mboxout_new(&rs->body, true);
	for (i = 0; i < n && e == ERR_OK; i++) {
		struct arena *ma = arena_new();
		const char *raw;
		size_t len;

		if ((e = store_msg_raw(st, ma, rows[i], &raw, &len)) == ERR_OK)
			e = mboxout_add(mo, raw, len);
		arena_free(ma);
	}
	if (e == ERR_OK)
		e = mboxout_end(mo);
	mboxout_free(mo);
	free(rows);
	if (found(w, rq, rs, e)) {
		rs->status = 200;
		rs->type = "application/gzip";
	}
}

/* /m/<id>/raw, /m/<id>/t.mbox.gz, and when page_too /m/<id>[/]: false
 * when rest is none of these. */
static bool
by_msgid(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, const char *rest, bool page_too)
{
	struct arena *a = arena_new();
	bool ours = true;
	size_t n;

	if (ends(rest, "/raw", &n) || ends(rest, "/raw/", &n))
		raw(w, st, rq, rs, a, msgid_at(a, rest, n));
	else if (ends(rest, "/t.mbox.gz", &n))
		thread(w, st, rq, rs, a, msgid_at(a, rest, n));
	else if (page_too)
		page(w, st, rq, rs, a,
		    msgid_at(a, rest, ends(rest, "/", &n) ? n : strlen(rest)));
	else
		ours = false;
	arena_free(a);
	return ours;
}

void
webinbox_msg(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, const char *rest)
{
	by_msgid(w, st, rq, rs, rest, true);
}

bool
webinbox_c(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, const char *rest)
{
	return by_msgid(w, st, rq, rs, rest, false);
}

/* A file name of safe bytes for a Content-Disposition: what patchwork
 * names its downloads, "v3-2-3-b-name-the-tenth-entry.patch". */
static const char *
file_name(
    struct arena *a, const char *prefix, const char *title, const char *ext)
{
	struct buf b = BUF_INIT;
	const char *s, *out;
	bool dash = false;

	buf_adds(&b, prefix);
	for (s = title ? title : ""; *s && b.n < 64; s++) {
		if (ascii_isalnum(*s)) {
			if (dash && b.n)
				buf_addc(&b, '-');
			buf_addc(&b, ascii_tolower(*s));
			dash = false;
		} else {
			dash = true;
		}
	}
	if (b.n == 0)
		buf_adds(&b, "patch");
	buf_adds(&b, ext);
	out = arena_strdup(a, buf_cstr(&b));
	buf_free(&b);
	return out;
}

static void
download(struct web_resp *rs, const char *type, const char *name)
{
	char *d = NULL;
	size_t n = strlen(name) + 32;

	d = xmalloc(n);
	snprintf(d, n, "attachment; filename=%s", name);
	rs->status = 200;
	rs->type = type;
	free(rs->disposition);
	rs->disposition = d;
}

/* What patchwork names a download of patch p: "v3-2-3-title" and ext. */
static const char *
patch_name(struct arena *a, const struct store_pw_patch *p, const char *ext)
{
	return file_name(a,
	    arena_printf(a, "v%d-%d-%d-", p->version, p->number, p->expected),
	    p->title, ext);
}

/* The patch p's series and patch as `am` sees them. */
static enum err
views(struct store *st, struct arena *a, const struct store_pw_patch *p,
    struct view_contrib *c, const struct view_series **s,
    const struct view_patch **vp)
{
	size_t i, k;
	enum err e = store_read_contrib(st, a, p->contribution_id, false, c);

	*s = NULL;
	*vp = NULL;
	for (i = 0; e == ERR_OK && i < c->nseries; i++)
		if (c->series[i].id == p->series_id)
			*s = &c->series[i];
	for (k = 0; *s && k < (*s)->npatches; k++)
		if ((*s)->patches[k].id == p->id)
			*vp = &(*s)->patches[k];
	return e == ERR_OK && *vp == NULL ? ERR_NOTFOUND : e;
}

/* A patch as an mbox for git am; with ?series=* (or its series' id, as
 * git pw patch apply asks) the patches before it in its series too. */
static void
patch_mbox(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, struct arena *a, const struct store_pw_patch *p)
{
	const char *deps = web_arg(rq, "series");
	const struct view_series *s;
	const struct view_patch *vp;
	struct view_contrib c;
	struct view_series one;
	int64_t sid = 0;
	size_t k;
	enum err e = views(st, a, p, &c, &s, &vp);

	if (e == ERR_OK) {
		one = *s;
		one.npatches = 0;
		one.patches = arena_alloc(a, (s->npatches + 1) * sizeof(*vp));
		if (deps &&
		    (strcmp(deps, "*") == 0 ||
		        (web_id(deps, strlen(deps), &sid) && sid == s->id)))
			for (k = 0; k < s->npatches; k++)
				if (s->patches[k].number < vp->number &&
				    !s->patches[k].older_copy)
					one.patches[one.npatches++] =
					    s->patches[k];
		one.patches[one.npatches++] = *vp;
		e = am_series(st, w->conf, &one, AM_VERIFIED, &rs->body);
	}
	if (found(w, rq, rs, e))
		download(rs, "application/mbox", patch_name(a, p, ".patch"));
}

/* A patch's diff alone (patchwork's raw/, git pw patch download --diff). */
static void
patch_diff(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, struct arena *a, const struct store_pw_patch *p)
{
	struct mail_opts o;
	struct mail m;
	const char *bytes;
	size_t n;
	enum err e = store_msg_raw(st, a, p->message_row, &bytes, &n);

	memset(&o, 0, sizeof(o));
	if (e == ERR_OK) {
		mail_parse(a, bytes, n, &o, &m);
		if (m.patch == NULL)
			e = ERR_NOTFOUND;
	}
	if (found(w, rq, rs, e)) {
		buf_addstr(&rs->body, webpw_diff(m.patch->diff));
		download(rs, "text/x-patch; charset=utf-8",
		    patch_name(a, p, ".diff"));
	}
}

/* A cover letter as an mbox of one mail. */
static void
cover_mbox(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, struct arena *a, const struct store_pw_series *s)
{
	struct mboxout *mo = mboxout_new(&rs->body, false);
	const char *bytes;
	size_t n;
	enum err e = store_msg_raw(st, a, s->cover_row, &bytes, &n);

	if (e == ERR_OK)
		e = mboxout_add(mo, bytes, n);
	mboxout_free(mo);
	if (e != ERR_OK)
		unreadable(w, rq, rs);
	else
		download(rs, "application/mbox",
		    file_name(a,
		        arena_printf(a, "v%d-0-%d-", s->version, s->expected),
		        s->title, ".mbox"));
}

/* The patch or (cover) series whose mail is id; ERR_NOTFOUND. */
static enum err
find(struct pw *pw, const char *id, bool cover, struct store_pw_patch *p,
    struct store_pw_series *s)
{
	struct store_pw_filter f;

	if (id == NULL)
		return ERR_NOTFOUND;
	memset(&f, 0, sizeof(f));
	f.msgid = id;
	f.limit = 1;
	f.with_cover = cover;
	return cover ? webpw_first_series(pw, &f, s)
	             : webpw_first_patch(pw, &f, p);
}

/* /project/P/patch/<id>/... and /project/P/cover/<id>/... */
static void
submission(struct pw *pw, struct web_resp *rs, const char *rest, bool cover)
{
	struct web *w = pw->w;
	const struct web_req *rq = pw->rq;
	struct store_pw_series s;
	struct store_pw_patch p;
	size_t n = strlen(rest);
	enum {
		PAGE,
		MBOX,
		DIFF
	} what = PAGE;
	enum err e;

	memset(&s, 0, sizeof(s));
	memset(&p, 0, sizeof(p));
	if (n && rest[n - 1] == '/')
		n--;
	if (n >= 5 && memcmp(rest + n - 5, "/mbox", 5) == 0)
		what = MBOX, n -= 5;
	else if (!cover && n >= 4 && memcmp(rest + n - 4, "/raw", 4) == 0)
		what = DIFF, n -= 4;
	e = find(pw, msgid_at(pw->a, rest, n), cover, &p, &s);
	if (!found(w, rq, rs, e))
		return;
	if (what == MBOX && cover)
		cover_mbox(w, pw->st, rq, rs, pw->a, &s);
	else if (what == MBOX)
		patch_mbox(w, pw->st, rq, rs, pw->a, &p);
	else if (what == DIFF)
		patch_diff(w, pw->st, rq, rs, pw->a, &p);
	else if (cover)
		moved(w, pw->a, rq, rs,
		    arena_printf(pw->a, "c/%" PRId64, s.contribution_id));
	else
		moved(w, pw->a, rq, rs,
		    arena_printf(pw->a, "c/%" PRId64 "#patch-%" PRId64,
		        p.contribution_id, p.id));
}

/* "?project=NAME" for the name that runs from p to end, percent-encoded:
 * the path is the client's, and the value goes into a Location. */
static const char *
project_list(struct arena *a, const char *p, const char *end)
{
	struct buf b = BUF_INIT;
	const char *out;

	buf_adds(&b, "?project=");
	esc_url(&b, p, (size_t)(end - p));
	out = arena_strdup(a, buf_cstr(&b));
	buf_free(&b);
	return out;
}

void
webinbox_project(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, const char *rest)
{
	struct arena *a = arena_new();
	const char *slash = strchr(rest, '/'), *v;
	struct store_pw_series s;
	struct pw pw;
	int64_t id;

	if (!webpw_init(&pw, w, st, rq, a)) {
		unreadable(w, rq, rs);
	} else if (slash && strncmp(slash, "/patch/", 7) == 0) {
		submission(&pw, rs, slash + 7, false);
	} else if (slash && strncmp(slash, "/cover/", 7) == 0) {
		submission(&pw, rs, slash + 7, true);
	} else if (slash &&
	    (strcmp(slash, "/list/") == 0 || strcmp(slash, "/list") == 0 ||
	        strcmp(slash, "/") == 0)) {
		/* A series' page is its contribution's; the list is ours. */
		if ((v = web_arg(rq, "series")) && web_id(v, strlen(v), &id) &&
		    webpw_get_series(&pw, id, 0, &s) == ERR_OK)
			moved(w, a, rq, rs,
			    arena_printf(a, "c/%" PRId64, s.contribution_id));
		else
			moved(w, a, rq, rs, project_list(a, rest, slash));
	} else {
		webpage_error(w, rq, rs, 404, "Not found",
		    "There is no page at this address.");
	}
	arena_free(a);
}

void
webinbox_series(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, const char *rest)
{
	struct arena *a = arena_new();
	size_t n = strcspn(rest, "/");
	struct store_pw_series ps;
	const struct view_series *s = NULL;
	struct view_contrib c;
	struct pw pw;
	int64_t id;
	size_t i;
	enum err e = ERR_NOTFOUND;
	bool mbox =
	    strcmp(rest + n, "/mbox/") == 0 || strcmp(rest + n, "/mbox") == 0;

	if (!webpw_init(&pw, w, st, rq, a))
		e = ERR_DB;
	else if (web_id(rest, n, &id) &&
	    (mbox || strcmp(rest + n, "/") == 0 || rest[n] == '\0'))
		e = webpw_get_series(&pw, id, 0, &ps);
	if (e == ERR_OK && !mbox) {
		moved(w, a, rq, rs,
		    arena_printf(a, "c/%" PRId64, ps.contribution_id));
		goto out;
	}
	if (e == ERR_OK)
		e = store_read_contrib(st, a, ps.contribution_id, false, &c);
	for (i = 0; e == ERR_OK && i < c.nseries; i++)
		if (c.series[i].id == id)
			s = &c.series[i];
	if (e == ERR_OK && (s == NULL || s->npatches == 0))
		e = ERR_NOTFOUND;
	if (e == ERR_OK)
		e = am_series(st, w->conf, s, AM_VERIFIED, &rs->body);
	if (e == ERR_NOTFOUND) {
		buf_reset(&rs->body);
		webpage_error(w, rq, rs, 404, "No such series",
		    "There is no series with this number.");
	} else if (e != ERR_OK) {
		unreadable(w, rq, rs);
	} else {
		download(rs, "application/mbox",
		    file_name(a, arena_printf(a, "v%d-", ps.version), ps.title,
		        ".patch"));
	}
out:
	arena_free(a);
}
