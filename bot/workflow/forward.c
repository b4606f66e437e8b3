/*
 * Forwarding upstream.  The mails are made from the commits of the
 * stable branch, not from the mails that were posted: those commits are
 * what was proved in the proving ground (fix-ups folded in, hunks moved
 * to where they apply, verified trailers and Link: added), and each
 * applies on the one before, so `git am` takes the series in order on
 * the upstream base.  Shapes follow git: format-patch's mails and cover
 * letter (builtin/log.c), shortlog's grouping (builtin/shortlog.c), the
 * request-pull script's text.
 */
#include "bot/workflow/forward.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/git/gitlog.h"
#include "bot/git/gitremote.h"
#include "bot/git/gitscan.h"
#include "bot/mailout/mailout.h"
#include "parsers/diff.h"
#include "storage/store_event.h"
#include "storage/store_outbox.h"
#include "storage/store_patch.h"
#include "storage/store_promote.h"
#include "storage/store_series.h"
#include "storage/store_stage.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/utf8.h"
#include "util/xalloc.h"

/* format-patch's MAIL_DEFAULT_WRAP; request-pull's diffstat is git diff
 * --stat on a pipe, 80 columns. */
#define MAIL_WRAP 72
#define PULL_STAT_WIDTH 80

struct forwarder {
	struct store *st;
	const struct config *conf;
	const struct conf_project *p;
	int64_t project_id;
	struct gitrepo *r;
	const char *base;
	const char *tip; /* the stable branch */
	const char *actor;
	bool dry_run;
	struct buf *report;
	struct arena *a;
	int64_t now;
};

/* A patch on the stable branch. */
struct fpatch {
	struct store_patch row;
	int64_t contribution;
	const char *key;
	struct gitlog_commit c;
	bool pending; /* not forwarded as it is now */
};

static void report(struct forwarder *fw, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
report(struct forwarder *fw, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int k;

	if (fw->report == NULL)
		return;
	va_start(ap, fmt);
	k = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (k >= 0)
		buf_addf(fw->report, "%s: %s\n", fw->p->name, line);
}

/* ---- what is on the stable branch ---- */

static enum err
load(struct forwarder *fw, struct fpatch **out, size_t *n)
{
	struct store_build *b = NULL;
	size_t nb = 0, i;
	enum err e =
	    store_stage_prev(fw->st, fw->a, fw->project_id, "stable", &b, &nb);

	*n = 0;
	*out = arena_zalloc(fw->a, (nb ? nb : 1) * sizeof(**out));
	for (i = 0; i < nb && e == ERR_OK; i++) {
		struct fpatch *f = &(*out)[*n];
		struct store_series s;
		struct store_forward last;

		e = store_patch_get(fw->st, fw->a, b[i].patch_id, &f->row);
		if (e != ERR_OK || strcmp(f->row.state, "staged") != 0 ||
		    f->row.queue == NULL || strcmp(f->row.queue, "stable") != 0)
			continue;
		if (b[i].commit == NULL) {
			report(fw,
			    "%s: left out of the stable branch (it does not "
			    "apply), not forwarded",
			    f->row.slug);
			continue;
		}
		if ((e = store_series_get(
		         fw->st, fw->a, f->row.series_id, &s)) != ERR_OK ||
		    (e = gitlog_commit(fw->r, fw->a, b[i].commit, &f->c)))
			break;
		f->contribution = s.contribution_id;
		f->key = b[i].key;
		e = store_forward_last(fw->st, fw->a, f->row.id, &last);
		f->pending = e == ERR_NOTFOUND || strcmp(last.key, f->key) != 0;
		if (e == ERR_NOTFOUND)
			e = ERR_OK;
		(*n)++;
	}
	return e;
}

/* ---- text ---- */

static size_t
width_of(const char *s, size_t n)
{
	size_t i, w = 0;

	for (i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Words of text greedily on lines of at most width columns, the first
 * indented by in1, the others by in2 (shortlog -w as format-patch's
 * cover letter uses it). */
static void
wrap(struct buf *out, const char *text, size_t in1, size_t in2, size_t width)
{
	const char *p = text;
	size_t col = 0, words = 0;

	buf_addf(out, "%*s", (int)in1, "");
	col = in1;
	while (*p) {
		const char *w;
		size_t n, ww;

		while (*p == ' ')
			p++;
		for (w = p; *p && *p != ' '; p++)
			;
		if ((n = (size_t)(p - w)) == 0)
			break;
		ww = width_of(w, n);
		if (words && col + 1 + ww > width) {
			buf_addf(out, "\n%*s", (int)in2, "");
			col = in2;
			words = 0;
		}
		if (words++) {
			buf_addc(out, ' ');
			col++;
		}
		buf_add(out, w, n);
		col += ww;
	}
	buf_addc(out, '\n');
}

static int
cmp_name(const void *x, const void *y)
{
	const struct gitlog_commit *const *a = x, *const *b = y;

	return strcmp((*a)->author_name, (*b)->author_name);
}

/*
 * git shortlog: authors by name (bytewise), each "Name (N):" and the
 * subjects in order, a blank line after each author.  wrapped: as
 * format-patch's cover letter (-w72,2,4), else six blanks, no wrap.
 */
static void
shortlog(struct buf *out, const struct gitlog_commit *c, size_t n, bool wrapped)
{
	const struct gitlog_commit **v = xcalloc(n ? n : 1, sizeof(*v));
	size_t i, k, j;

	for (i = 0; i < n; i++)
		v[i] = &c[i];
	/* A stable sort keeps each author's commits in order. */
	for (i = 1; i < n; i++)
		for (k = i; k > 0 && cmp_name(&v[k - 1], &v[k]) > 0; k--) {
			const struct gitlog_commit *t = v[k];

			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	for (i = 0; i < n; i = k) {
		for (k = i; k < n && cmp_name(&v[i], &v[k]) == 0; k++)
			;
		buf_addf(out, "%s (%zu):\n", v[i]->author_name, k - i);
		for (j = i; j < k; j++) {
			if (wrapped)
				wrap(out, v[j]->subject, 2, 4, MAIL_WRAP);
			else
				buf_addf(out, "      %s\n", v[j]->subject);
		}
		buf_addc(out, '\n');
	}
	free(v);
}

/* The diff of from..to and its diffstat at width (with --summary). */
static enum err
diff_and_stat(struct forwarder *fw, const char *from, const char *to, int width,
    struct buf *diff, struct buf *stat)
{
	struct diff *d = NULL;
	enum err e = gitlog_diff(fw->r, from, to, diff);

	if (e == ERR_OK && diff->n &&
	    (e = diff_parse(fw->a, diff->p, diff->n, &d)) == ERR_OK)
		diff_stat_width(stat, d, width);
	return e;
}

/* ---- mails ---- */

struct fmail {
	const char *subject;
	struct buf body;
	const char *parent; /* the cover letter, for the patches */
	const struct store_patch *patch;
	int64_t contribution;
	int64_t date;
	char msgid[256];
};

static enum err
send_mail(struct forwarder *fw, struct fmail *m)
{
	struct mailout_addr to, *cc;
	struct buf msg = BUF_INIT, rcpts = BUF_INIT, mid = BUF_INIT;
	struct mailout_msg mm;
	struct store_outbox o;
	size_t ncc = 0, i;
	enum err e;

	cc = xcalloc(fw->p->forward_cc.n + 2, sizeof(*cc));
	to.name = NULL;
	to.email = fw->p->forward_to;
	cc[ncc].name = NULL;
	cc[ncc++].email = fw->p->list;
	for (i = 0; i < fw->p->forward_cc.n; i++) {
		cc[ncc].name = NULL;
		cc[ncc++].email = fw->p->forward_cc.v[i];
	}
	if (m->patch) {
		cc[ncc].name = m->patch->author_name;
		cc[ncc++].email = m->patch->author_email;
	}
	e = mailout_message_id(
	    &mid, fw->now, "forwarded", fw->conf->bot_address);
	if (e == ERR_OK &&
	    snprintf(m->msgid, sizeof(m->msgid), "%s", buf_cstr(&mid)) >=
	        (int)sizeof(m->msgid))
		e = ERR_LIMIT;
	if (e == ERR_OK) {
		memset(&mm, 0, sizeof(mm));
		mm.from_email = fw->conf->bot_address;
		mm.to = &to;
		mm.nto = 1;
		mm.cc = cc;
		mm.ncc = ncc;
		mm.subject = m->subject;
		mm.message_id = m->msgid;
		mm.date = m->date;
		mm.in_reply_to = m->parent;
		mm.references = m->parent ? &m->parent : NULL;
		mm.nreferences = m->parent ? 1 : 0;
		mm.keep_subject = true;
		mm.event = "forwarded";
		mm.body = buf_cstr(&m->body);
		mm.body_len = m->body.n;
		e = mailout_compose(&mm, &msg, &rcpts);
	}
	if (e == ERR_OK && fw->dry_run) {
		report(fw, "would send \"%s\" to %s", m->subject,
		    fw->p->forward_to);
	} else if (e == ERR_OK) {
		memset(&o, 0, sizeof(o));
		o.contribution_id = m->contribution;
		o.patch_id = m->patch ? m->patch->id : 0;
		o.kind = "forwarded";
		o.message_id = m->msgid;
		o.in_reply_to = m->parent;
		o.rcpt = buf_cstr(&rcpts);
		o.body = msg.p;
		o.body_len = msg.n;
		o.state = "queued";
		o.next_attempt = fw->now;
		o.created = fw->now;
		e = store_outbox_add(fw->st, &o, NULL);
		if (e == ERR_OK)
			report(fw, "queued \"%s\" for %s", m->subject,
			    fw->p->forward_to);
	}
	buf_free(&msg);
	buf_free(&rcpts);
	buf_free(&mid);
	free(cc);
	return e;
}

/* The patch went upstream in the mail msgid: event and record. */
static enum err
record(struct forwarder *fw, const struct fpatch *f, const char *msgid,
    const char *mode)
{
	struct store_event ev;
	struct store_forward rec;
	enum err e;

	if (fw->dry_run)
		return ERR_OK;
	memset(&ev, 0, sizeof(ev));
	ev.time = fw->now;
	ev.kind = "forwarded";
	ev.contribution_id = f->contribution;
	ev.series_id = f->row.series_id;
	ev.patch_id = f->row.id;
	ev.actor = fw->actor;
	ev.detail = msgid;
	if ((e = store_event_add(fw->st, &ev, NULL)) != ERR_OK)
		return e;
	memset(&rec, 0, sizeof(rec));
	rec.project_id = fw->project_id;
	rec.patch_id = f->row.id;
	rec.key = f->key;
	rec.message_id = msgid;
	rec.mode = mode;
	rec.time = fw->now;
	return store_forward_add(fw->st, &rec);
}

/* ---- series ---- */

/* One patch as format-patch writes it: in-body From: and Date: (the
 * mail is the bot's), the message, ---, the diffstat, the diff. */
static enum err
patch_mail(struct forwarder *fw, const struct fpatch *f, size_t i, size_t n,
    struct fmail *m)
{
	struct buf diff = BUF_INIT, stat = BUF_INIT, from = BUF_INIT;
	struct mailout_addr au = { f->c.author_name, f->c.author_email };
	char date[64], subject[1200];
	int digits = snprintf(NULL, 0, "%zu", n);
	size_t k;
	enum err e;

	e = diff_and_stat(fw, f->c.parent, f->c.id, MAIL_WRAP, &diff, &stat);
	if (e == ERR_OK && !utf8_valid(diff.p ? diff.p : "", diff.n)) {
		/* Mail out is UTF-8 text; repairing a diff would break it. */
		log_err("forward: %s: %s: the patch is not UTF-8 text; send "
		        "it by hand",
		    fw->p->name, f->row.slug);
		e = ERR_INVAL;
	}
	if (e == ERR_OK)
		e = time_fmt_rfc5322(
		    date, sizeof(date), f->c.author_time, f->c.author_tz);
	if (e == ERR_OK)
		e = mailout_field_mailbox(&from, "From", &au);
	if (e == ERR_OK) {
		for (k = 0; k < from.n; k++)
			if (from.p[k] != '\r')
				buf_addc(&m->body, from.p[k]);
		buf_addf(&m->body,
		    "Date: %s\n\n%s%s---\n%s\n%s-- \n"
		    "patchyard\n",
		    date, f->c.body,
		    *f->c.body && f->c.body[strlen(f->c.body) - 1] != '\n'
		        ? "\n"
		        : "",
		    buf_cstr(&stat), buf_cstr(&diff));
	}
	if (e == ERR_OK &&
	    snprintf(subject, sizeof(subject), "[PATCH %0*zu/%zu] %s", digits,
	        i, n, f->c.subject) >= (int)sizeof(subject))
		e = ERR_LIMIT;
	m->subject = arena_strdup(fw->a, subject);
	m->patch = &f->row;
	m->contribution = f->contribution;
	buf_free(&diff);
	buf_free(&stat);
	buf_free(&from);
	return e;
}

/* format-patch --base: the base and the patch-ids of what the series
 * needs between the base and its first patch (forwarded before). */
static enum err
base_info(struct forwarder *fw, const char *first_parent, struct buf *out)
{
	struct gitscan *scan = NULL;
	size_t i;
	enum err e = ERR_OK;

	buf_addf(out, "base-commit: %s\n", fw->base);
	if (strcmp(first_parent, fw->base) != 0)
		e = gitscan_range(fw->r, fw->base, first_parent, &scan);
	for (i = 0; scan && e == ERR_OK && i < gitscan_count(scan); i++)
		if (gitscan_at(scan, i)->patch_id[0])
			buf_addf(out, "prerequisite-patch-id: %s\n",
			    gitscan_at(scan, i)->patch_id);
	gitscan_free(scan);
	return e;
}

static enum err
cover_mail(
    struct forwarder *fw, const struct fpatch *f, size_t n, struct fmail *m)
{
	struct gitlog_commit *c = xcalloc(n, sizeof(*c));
	struct buf diff = BUF_INIT, stat = BUF_INIT, blurb = BUF_INIT;
	char subject[300];
	size_t i;
	enum err e;

	for (i = 0; i < n; i++)
		c[i] = f[i].c;
	e = diff_and_stat(
	    fw, f[0].c.parent, f[n - 1].c.id, MAIL_WRAP, &diff, &stat);
	if (e == ERR_OK) {
		buf_addf(&blurb,
		    "The stable queue of %s holds %zu patch%s for %s that "
		    "%s not been sent before.  Each was posted to %s, "
		    "reviewed there and proved in the unstable queue before "
		    "it graduated; each carries the trailers given on the "
		    "list and a Link: to its discussion.",
		    fw->p->name, n, n == 1 ? "" : "es", fw->p->branch,
		    n == 1 ? "has" : "have", fw->p->list);
		buf_adds(&m->body, "Hi,\n\n");
		wrap(&m->body, buf_cstr(&blurb), 0, 0, MAIL_WRAP);
		buf_addc(&m->body, '\n');
		shortlog(&m->body, c, n, true);
		buf_addf(&m->body, "%s\n", buf_cstr(&stat));
		e = base_info(fw, f[0].c.parent, &m->body);
	}
	if (e == ERR_OK)
		buf_adds(&m->body, "-- \npatchyard\n");
	if (e == ERR_OK &&
	    snprintf(subject, sizeof(subject),
	        "[PATCH %0*d/%zu] %s: the stable queue",
	        snprintf(NULL, 0, "%zu", n), 0, n,
	        fw->p->name) >= (int)sizeof(subject))
		e = ERR_LIMIT;
	m->subject = arena_strdup(fw->a, subject);
	buf_free(&blurb);
	buf_free(&diff);
	buf_free(&stat);
	free(c);
	return e;
}

/*
 * The series: from the first patch not forwarded as it is now to the end
 * of the branch (a patch after it was made on top of it), the cover
 * letter first, then each patch answering it, a second apart as git
 * send-email dates them.
 */
static enum err
forward_series(struct forwarder *fw, struct fpatch *f, size_t n, size_t *sent)
{
	struct fmail cover, pm;
	size_t first, i;
	enum err e;

	for (first = 0; first < n && !f[first].pending; first++)
		;
	f += first;
	n -= first;
	memset(&cover, 0, sizeof(cover));
	cover.date = fw->now;
	e = cover_mail(fw, f, n, &cover);
	if (e == ERR_OK)
		e = send_mail(fw, &cover);
	for (i = 0; i < n && e == ERR_OK; i++) {
		memset(&pm, 0, sizeof(pm));
		pm.parent = cover.msgid;
		pm.date = fw->now + 1 + (int64_t)i;
		e = patch_mail(fw, &f[i], i + 1, n, &pm);
		if (e == ERR_OK)
			e = send_mail(fw, &pm);
		if (e == ERR_OK)
			e = record(fw, &f[i], pm.msgid, "series");
		buf_free(&pm.body);
	}
	buf_free(&cover.body);
	*sent = e == ERR_OK ? n : 0;
	return e;
}

/* ---- pull ---- */

/* "  %s (%ci)" of a commit, as request-pull shows both ends. */
static enum err
end_line(struct forwarder *fw, const char *hex, struct buf *out)
{
	struct gitlog_commit c;
	char date[64];
	enum err e = gitlog_commit(fw->r, fw->a, hex, &c);

	if (e == ERR_OK)
		e = time_fmt_git(
		    date, sizeof(date), c.committer_time, c.committer_tz);
	if (e == ERR_OK)
		buf_addf(out, "  %s (%s)\n", c.subject, date);
	return e;
}

/*
 * The text `git request-pull BASE URL stable` prints for the pushed
 * stable branch: the range, the URL and branch, the shortlog of
 * ^BASE stable, the diffstat of merge-base..stable at 80 columns.
 */
static enum err
pull_text(
    struct forwarder *fw, const char *tip, const char *url, struct buf *out)
{
	struct gitlog_commit *c = NULL;
	struct buf diff = BUF_INIT, stat = BUF_INIT;
	char mb[41];
	size_t n = 0;
	enum err e = gitlog_merge_base(fw->r, fw->base, tip, mb);

	if (e == ERR_OK) {
		buf_addf(out, "The following changes since commit %s:\n\n", mb);
		e = end_line(fw, mb, out);
	}
	if (e == ERR_OK) {
		buf_addf(out,
		    "\nare available in the Git repository at:\n\n"
		    "  %s stable\n\nfor you to fetch changes up to %s:\n\n",
		    url, tip);
		e = end_line(fw, tip, out);
	}
	if (e == ERR_OK) {
		buf_adds(out,
		    "\n------------------------------------------------"
		    "----------------\n");
		e = gitlog_range(fw->r, fw->a, fw->base, tip, &c, &n);
	}
	if (e == ERR_OK) {
		shortlog(out, c, n, false);
		e = diff_and_stat(fw, mb, tip, PULL_STAT_WIDTH, &diff, &stat);
	}
	if (e == ERR_OK)
		buf_addstr(out, buf_str(&stat));
	buf_free(&diff);
	buf_free(&stat);
	return e;
}

static enum err
forward_pull(struct forwarder *fw, struct fpatch *f, size_t n, size_t *sent)
{
	struct fmail m;
	struct buf greeting = BUF_INIT;
	char tip[41], there[41], subject[300];
	size_t i;
	enum err e;

	if (fw->p->push == NULL) {
		log_err("forward: %s: a pull request needs the stable branch "
		        "pushed: set project.%s.push",
		    fw->p->name, fw->p->name);
		return ERR_CONFIG;
	}
	snprintf(tip, sizeof(tip), "%s", fw->tip);
	e = fw->dry_run ? ERR_OK
	                : gitremote_head(fw->r, fw->p->push, "stable", there);
	if (!fw->dry_run && (e != ERR_OK || strcmp(tip, there) != 0)) {
		log_err("forward: %s: %s does not have the stable branch at "
		        "%.12s yet (is the push failing?)",
		    fw->p->name, fw->p->push, tip);
		report(
		    fw, "the stable branch is not pushed to %s", fw->p->push);
		return ERR_CONFLICT;
	}
	memset(&m, 0, sizeof(m));
	m.date = fw->now;
	buf_addf(&greeting,
	    "please pull the stable queue of %s: %zu patch%s, each posted "
	    "to %s, reviewed there and proved in the unstable queue.",
	    fw->p->name, n, n == 1 ? "" : "es", fw->p->list);
	buf_adds(&m.body, "Hi,\n\n");
	wrap(&m.body, buf_cstr(&greeting), 0, 0, MAIL_WRAP);
	buf_addc(&m.body, '\n');
	e = pull_text(fw, tip, fw->p->push, &m.body);
	if (e == ERR_OK)
		buf_adds(&m.body, "-- \npatchyard\n");
	if (e == ERR_OK &&
	    snprintf(subject, sizeof(subject),
	        "[GIT PULL] %s: the stable queue",
	        fw->p->name) >= (int)sizeof(subject))
		e = ERR_LIMIT;
	m.subject = subject;
	if (e == ERR_OK)
		e = send_mail(fw, &m);
	for (i = 0; i < n && e == ERR_OK; i++)
		e = record(fw, &f[i], m.msgid, "pull");
	buf_free(&greeting);
	buf_free(&m.body);
	*sent = e == ERR_OK ? n : 0;
	return e;
}

enum err
forward_built(struct store *st, const struct config *conf,
    const struct conf_project *p, int64_t project_id, struct gitrepo *r,
    const char *base, const char *tip, const char *actor, bool dry_run,
    struct buf *rep, size_t *npatches)
{
	struct forwarder fw = { st, conf, p, project_id, r, base, tip,
		actor && *actor ? actor : NULL, dry_run, rep, NULL,
		time_now() };
	struct fpatch *f = NULL;
	size_t n = 0, i, pending = 0, sent = 0;
	enum err e;

	if (npatches)
		*npatches = 0;
	if (p->forward_to == NULL) {
		log_err("forward: %s: nowhere to forward to: set "
		        "project.%s.forward-to",
		    p->name, p->name);
		return ERR_CONFIG;
	}
	fw.a = arena_new();
	e = load(&fw, &f, &n);
	for (i = 0; i < n; i++)
		pending += f[i].pending;
	if (e == ERR_OK && pending == 0)
		report(&fw, "nothing new to forward (%s)",
		    n ? "every stable patch went already"
		      : "the stable queue is empty");
	else if (e == ERR_OK && p->forward == CONF_FORWARD_PULL)
		e = forward_pull(&fw, f, n, &sent);
	else if (e == ERR_OK)
		e = forward_series(&fw, f, n, &sent);
	if (e == ERR_OK && sent)
		log_info("forward: %s: %zu patch%s to %s%s", p->name, sent,
		    sent == 1 ? "" : "es", p->forward_to,
		    dry_run ? " (dry run)" : "");
	if (npatches)
		*npatches = sent;
	arena_free(fw.a);
	return e;
}

/* ---- asking for it ---- */

static int
meta_key(char *out, size_t n, const struct conf_project *p)
{
	int k = snprintf(out, n, "forward.%s", p->name);

	return k < 0 || (size_t)k >= n ? -1 : 0;
}

enum err
forward_request(
    struct store *st, const struct conf_project *p, const char *actor)
{
	char key[300];

	if (meta_key(key, sizeof(key), p) < 0)
		return ERR_LIMIT;
	/* "+" marks a request; what follows names who asked. */
	{
		struct buf v = BUF_INIT;
		enum err e;

		buf_addf(&v, "+%s", actor ? actor : "");
		e = store_meta_set(st, key, buf_cstr(&v));
		buf_free(&v);
		return e;
	}
}

bool
forward_requested(struct store *st, const struct conf_project *p, char **actor)
{
	char key[300], *v = NULL;
	bool yes;

	if (actor)
		*actor = NULL;
	if (meta_key(key, sizeof(key), p) < 0 ||
	    store_meta_get(st, key, &v) != ERR_OK)
		return false;
	yes = v && v[0] == '+';
	if (yes && actor)
		*actor = xstrdup(v + 1);
	free(v);
	return yes;
}

bool
forward_any_requested(struct store *st, const struct config *conf)
{
	size_t i;

	for (i = 0; i < conf->nprojects; i++)
		if (forward_requested(st, &conf->projects[i], NULL))
			return true;
	return false;
}

enum err
forward_done(struct store *st, const struct conf_project *p)
{
	char key[300];

	if (meta_key(key, sizeof(key), p) < 0)
		return ERR_LIMIT;
	return store_meta_set(st, key, "");
}
