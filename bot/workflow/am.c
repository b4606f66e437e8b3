/*
 * `patchyard am`: what `b4 am` (0.12, its defaults) makes of a thread,
 * from the database: each patch of a series as git format-patch would
 * mail it, its commit message followed by the trailers people gave in
 * replies, in the order they came, those b4 would take (or, asked for,
 * only the verified ones) and without the ones already there.  Unlike
 * b4's defaults, trailers given to the cover letter go to every patch
 * (DESIGN.md section 4, b4's -t).
 * tests/integration/test_b4.sh holds it against b4, docs/ORACLES.md
 * lists where the two still differ and why.
 */
#include "bot/workflow/am.h"

#include <stdlib.h>
#include <string.h>

#include "bot/mailout/mailout.h"
#include "bot/workflow/ingest.h"
#include "bot/workflow/show.h"
#include "parsers/addr.h"
#include "parsers/mail.h"
#include "parsers/msgid.h"
#include "storage/store_msg.h"
#include "util/ascii.h"
#include "util/log.h"

/*
 * Whether git mailsplit would take a body line for the start of the next
 * mail (git's is_from_line: "From ", then a time "hh:mm:ss" followed by
 * a year after 1990 somewhere on the line).
 */
static bool
from_line(struct str l)
{
	size_t c, i;
	long year = 0;

	if (l.n < 20 || !str_startswith(l, "From "))
		return false;
	for (c = l.n - 1; c > 5 && l.p[c - 1] != ':'; c--)
		;
	c--; /* the last ':' */
	if (c < 9 || c + 4 >= l.n)
		return false;
	if (!ascii_isdigit(l.p[c - 4]) || !ascii_isdigit(l.p[c - 2]) ||
	    !ascii_isdigit(l.p[c - 1]) || !ascii_isdigit(l.p[c + 1]) ||
	    !ascii_isdigit(l.p[c + 2]))
		return false;
	/* strtol() of what follows, within the line. */
	for (i = c + 3; i < l.n && ascii_isspace(l.p[i]); i++)
		;
	for (; i < l.n && ascii_isdigit(l.p[i]) && year <= 90; i++)
		year = year * 10 + (l.p[i] - '0');
	return year > 90;
}

/*
 * Body lines as git format-patch and b4 write them: not mboxrd-escaped,
 * since `git am` reads an mbox without unescaping ">From " (it would
 * keep the '>' in the commit); only a line git mailsplit would split at
 * gets a '>' in front, a visible mark instead of a broken series.
 */
static void
put_body(struct buf *out, struct str text)
{
	struct str rest = text, line;

	while (str_nextline(&rest, &line)) {
		if (from_line(line))
			buf_addc(out, '>');
		buf_addstr(out, line);
		buf_addc(out, '\n');
	}
}

/* Where a trailer goes in the commit, in b4's order: the patch's own,
 * then those given in replies to the patch, then those carried over from
 * an older version, then those given to the cover letter. */
enum place {
	PLACE_NONE,
	PLACE_OWN,
	PLACE_PATCH,
	PLACE_CARRIED,
	PLACE_COVER
};

/*
 * b4's test of whose trailer it is (LoreMessage, 0.12): a trailer naming
 * a person counts when its address is the sender's or alike to it, or
 * when its name is the sender's display name.  A display name proves
 * nothing, which is why ingest does not verify by it; b4 takes it.
 */
static bool
b4_takes(
    struct arena *a, const struct view_trailer *t, const struct store_msg *from)
{
	struct addr person;

	if (t->email == NULL)
		return true;
	if (addr_same(t->email, from->from_email) ||
	    addr_alike(a, t->email, from->from_email))
		return true;
	return addr_parse(a, str_from(t->value), &person) == ERR_OK &&
	    *person.name && *from->from_name &&
	    ascii_stricmp(person.name, from->from_name) == 0;
}

/*
 * Whether and where a trailer goes into the commit, in b4's order:
 * verified ones only, or those b4 would take.
 */
static enum place
trailer_place(struct store *st, struct arena *a, const struct view_series *s,
    const struct view_patch *vp, const struct view_trailer *t,
    enum am_trailers which)
{
	struct store_msg m;
	bool ok;

	if (t->own)
		return PLACE_OWN;
	if (t->message_id == NULL ||
	    store_msg_find(st, a, t->message_id, &m) != ERR_OK ||
	    store_msg_get(st, a, m.id, &m) != ERR_OK)
		return PLACE_NONE;
	ok = which == AM_VERIFIED ? t->verified : b4_takes(a, t, &m);
	if (!ok)
		return PLACE_NONE;
	if (m.patch_id == vp->id)
		return PLACE_PATCH;
	if (m.series_id == s->id && m.patch_id == 0)
		return PLACE_COVER;
	return PLACE_CARRIED;
}

/* b4's test for a trailer already there: the same name and the same
 * value, ignoring case. */
static bool
same_trailer(const struct view_trailer *x, const struct view_trailer *y)
{
	return ascii_stricmp(x->name, y->name) == 0 &&
	    ascii_stricmp(x->value, y->value) == 0;
}

/* The collected trailers of vp, in b4's order, without duplicates. */
static void
put_trailers(struct buf *out, struct store *st, const struct view_series *s,
    const struct view_patch *vp, enum am_trailers which)
{
	struct arena *a = arena_new();
	const struct view_trailer **done;
	enum place *where, p;
	size_t i, j, n = 0;

	done = arena_alloc(a, (vp->ntrailers + 1) * sizeof(*done));
	where = arena_alloc(a, (vp->ntrailers + 1) * sizeof(*where));
	for (i = 0; i < vp->ntrailers; i++)
		where[i] = trailer_place(st, a, s, vp, &vp->trailers[i], which);
	for (p = PLACE_OWN; p <= PLACE_COVER; p++)
		for (i = 0; i < vp->ntrailers; i++) {
			const struct view_trailer *t = &vp->trailers[i];

			if (where[i] != p)
				continue;
			for (j = 0; j < n && !same_trailer(done[j], t); j++)
				;
			if (j < n)
				continue;
			done[n++] = t;
			if (p != PLACE_OWN)
				buf_addf(out, "%s: %s\n", t->name, t->value);
		}
	arena_free(a);
}

/* "Token: value", a token of letters, digits and '-' as git's trailer.c
 * takes it. */
static bool
token_line(struct str l)
{
	size_t i = 0;

	while (i < l.n && (ascii_isalnum(l.p[i]) || l.p[i] == '-'))
		i++;
	return i > 0 && i + 1 < l.n && l.p[i] == ':' && l.p[i + 1] == ' ';
}

/*
 * Whether the message ends in a trailer block: its last paragraph starts
 * with a "Token: value" line, and every other line is one too, or a
 * continuation (starting with a blank), or a bracketed note such as
 * "[tweaked the log]".  Collected trailers then join that block, as git
 * interpret-trailers and b4 add them; otherwise they start one after a
 * blank line.
 */
static bool
ends_in_trailers(struct str msg)
{
	struct str rest = msg, line;
	bool ok = false, start = true;

	while (str_nextline(&rest, &line)) {
		if (str_trim(line).n == 0) {
			start = true;
			ok = false;
			continue;
		}
		if (start)
			ok = token_line(line);
		else if (ok)
			ok = token_line(line) || line.p[0] == ' ' ||
			    line.p[0] == '\t' ||
			    (line.n > 2 && line.p[0] == '[' &&
			        line.p[line.n - 1] == ']');
		start = false;
	}
	return ok;
}

/* The commit message without blank lines around it; the first line
 * keeps its indentation, as git mailinfo and git am keep it. */
static struct str
message_text(struct str m)
{
	struct str rest = m, line;

	m = str_rtrim(m);
	while (str_nextline(&rest, &line) && str_trim(line).n == 0)
		m = rest;
	return str_rtrim(m);
}

/* The diff as mailinfo's patch file holds it, without the blank lines
 * the mbox left at its end. */
static struct str
diff_text(struct str d)
{
	while (d.n &&
	    (d.p[d.n - 1] == '\n' ||
	        (d.n > 1 && d.p[d.n - 1] == '\r' && d.p[d.n - 2] == '\n')))
		d.n--;
	return d;
}

/* Header fields as mailout writes them (encoded, folded, safe), with the
 * mbox's LF line ends. */
static void
put_fields(struct buf *out, const struct patch *p, const char *subject)
{
	struct mailout_addr from = { p->author.name, p->author.email };
	struct buf f = BUF_INIT, who = BUF_INIT;
	size_t i;

	if (mailout_field_mailbox(&f, "From", &from) == ERR_INVAL) {
		/* Not an address mailout would send to: keep it as text. */
		buf_addf(&who, "%s <%s>", p->author.name, p->author.email);
		mailout_field_text(&f, "From", buf_cstr(&who));
	}
	mailout_field_text(&f, "Subject", subject);
	for (i = 0; i < f.n; i++)
		if (f.p[i] != '\r')
			buf_addc(out, f.p[i]);
	buf_free(&who);
	buf_free(&f);
}

/* Where a header line is folded, as git format-patch folds. */
#define AM_FOLD 78

/* An address field as the mail had it (To, Cc; unfolded), folded again
 * between its addresses. */
static void
put_addrs(struct buf *out, const char *name, struct str v)
{
	size_t col = strlen(name) + 2, i = 0, start;

	if (v.n == 0)
		return;
	buf_addf(out, "%s: ", name);
	while (i < v.n) {
		bool quoted = false;
		int angle = 0;
		struct str piece;

		for (start = i; i < v.n; i++) {
			if (v.p[i] == '"' && (i == start || v.p[i - 1] != '\\'))
				quoted = !quoted;
			else if (!quoted && v.p[i] == '<')
				angle++;
			else if (!quoted && v.p[i] == '>' && angle)
				angle--;
			else if (!quoted && !angle && v.p[i] == ',')
				break;
		}
		piece = str_trim(str_make(v.p + start, i - start));
		i++; /* the comma */
		if (piece.n == 0)
			continue;
		if (col > strlen(name) + 2) {
			bool fold = col + 2 + piece.n > AM_FOLD;

			buf_adds(out, fold ? ",\n " : ", ");
			col = fold ? 1 : col + 2;
		}
		buf_addstr(out, piece);
		col += piece.n;
	}
	buf_addc(out, '\n');
}

/*
 * The fields that thread the mail, as it had them: To, Cc, In-Reply-To
 * and References, so that b4 (am -m) and mail clients find the series
 * in the mbox as they found it on the list.
 */
static void
put_thread(struct buf *out, const struct mail *m)
{
	struct arena *a = arena_new();
	struct str irt = msgid_first(a, hdr_value(a, &m->hdr, "In-Reply-To"));
	size_t i, col;

	put_addrs(out, "To", m->to);
	put_addrs(out, "Cc", m->cc);
	if (irt.p)
		buf_addf(out, "In-Reply-To: <%.*s>\n", (int)irt.n, irt.p);
	else if (m->nrefs)
		buf_addf(out, "In-Reply-To: <%s>\n", m->refs[m->nrefs - 1]);
	if (m->nrefs)
		buf_adds(out, "References:");
	for (i = 0, col = 11; i < m->nrefs; i++) {
		size_t n = strlen(m->refs[i]) + 3;

		buf_adds(out, col > 11 && col + n > AM_FOLD ? "\n " : " ");
		col = col > 11 && col + n > AM_FOLD ? 1 + n : col + n;
		buf_addf(out, "<%s>", m->refs[i]);
	}
	if (m->nrefs)
		buf_addc(out, '\n');
	arena_free(a);
}

static void
put_header(struct buf *out, const struct view_series *s,
    const struct view_patch *vp, const struct mail *m)
{
	const struct patch *p = m->patch;
	struct buf subj = BUF_INIT;

	if (s->expected > 1 && s->version > 1)
		buf_addf(&subj, "[PATCH v%d %d/%d] ", s->version, vp->number,
		    s->expected);
	else if (s->expected > 1)
		buf_addf(&subj, "[PATCH %d/%d] ", vp->number, s->expected);
	else if (s->version > 1)
		buf_addf(&subj, "[PATCH v%d] ", s->version);
	else
		buf_adds(&subj, "[PATCH] ");
	buf_adds(&subj, p->subject);
	buf_adds(out,
	    "From 0000000000000000000000000000000000000000"
	    " Mon Sep 17 00:00:00 2001\n");
	put_fields(out, p, buf_cstr(&subj));
	buf_adds(out, "Date: ");
	buf_addstr(out, p->date);
	buf_addf(out, "\nMessage-ID: <%s>\n", vp->message_id);
	put_thread(out, m);
	buf_adds(out,
	    "MIME-Version: 1.0\n"
	    "Content-Type: text/plain; charset=UTF-8\n"
	    "Content-Transfer-Encoding: 8bit\n\n");
	buf_free(&subj);
}

static void
put_patch(struct buf *out, struct store *st, const struct view_series *s,
    const struct view_patch *vp, const struct mail *m, enum am_trailers which)
{
	const struct patch *p = m->patch;
	struct str msg = message_text(p->message), diff = diff_text(p->diff);
	struct buf tr = BUF_INIT;

	put_header(out, s, vp, m);
	if (msg.n)
		put_body(out, msg);
	put_trailers(&tr, st, s, vp, which);
	/* The parser found the block by git's rules when the patch has
	 * trailers of its own. */
	if (tr.n && msg.n && !ends_in_trailers(msg) &&
	    !(vp->ntrailers && vp->trailers[0].own))
		buf_addc(out, '\n');
	put_body(out, buf_str(&tr));
	buf_free(&tr);
	if (!str_startswith(diff, "---"))
		buf_adds(out, "---\n");
	put_body(out, diff);
	/* A blank line ends each mail, as git format-patch leaves it. */
	buf_addc(out, '\n');
}

enum err
am_series(struct store *st, const struct config *conf,
    const struct view_series *s, enum am_trailers which, struct buf *out)
{
	struct mail_opts o;
	size_t i;
	enum err e = ERR_OK;

	memset(&o, 0, sizeof(o));
	o.bot_address = conf ? conf->bot_address : NULL;
	for (i = 0; i < s->npatches && e == ERR_OK; i++) {
		const struct view_patch *vp = &s->patches[i];
		struct arena *a;
		struct mail m;
		const char *raw;
		size_t n;

		if (vp->older_copy)
			continue;
		a = arena_new();
		e = store_msg_raw(st, a, vp->message_row, &raw, &n);
		if (e == ERR_OK) {
			mail_parse(a, raw, n, &o, &m);
			if (m.patch == NULL) {
				log_err("am: <%s>: the patch no longer parses",
				    vp->message_id);
				e = ERR_PARSE;
			}
		}
		if (e == ERR_OK)
			put_patch(out, st, s, vp, &m, which);
		arena_free(a);
	}
	return e;
}

/*
 * Whether the mail of patch vp answers, directly or further up its
 * References, a patch with the same number of an older series of the
 * same length: b4's test for a partial re-roll ("[PATCH v2 3/5]" sent in
 * reply to v1 3/5).
 */
static bool
answers_older(struct store *st, const struct view_contrib *c,
    const struct view_series *s, const struct view_patch *vp)
{
	struct arena *a = arena_new();
	struct mail_opts o;
	struct mail m;
	const char *raw;
	size_t n, i, j, k;
	bool found = false;

	memset(&o, 0, sizeof(o));
	if (store_msg_raw(st, a, vp->message_row, &raw, &n) == ERR_OK) {
		mail_parse(a, raw, n, &o, &m);
		for (i = 0; i < m.nrefs && !found; i++)
			for (j = 0; j < c->nseries && !found; j++) {
				const struct view_series *old = &c->series[j];

				if (old->version >= s->version ||
				    old->expected != s->expected)
					continue;
				for (k = 0; k < old->npatches && !found; k++)
					found = old->patches[k].number ==
					        vp->number &&
					    strcmp(old->patches[k].message_id,
					        m.refs[i]) == 0;
			}
	}
	arena_free(a);
	return found;
}

/* Patch number k of s, else of the newest older series of its length. */
static const struct view_patch *
patch_number(const struct view_contrib *c, const struct view_series *s, int k)
{
	const struct view_patch *p = NULL;
	int version = 0;
	size_t i, j;

	/* The newest copy of it. */
	for (i = 0; i < s->npatches; i++)
		if (s->patches[i].number == k)
			p = &s->patches[i];
	if (p)
		return p;
	/* Series come oldest first, so a later one of a version wins. */
	for (j = 0; j < c->nseries; j++) {
		const struct view_series *old = &c->series[j];

		if (old->version >= s->version ||
		    old->expected != s->expected || old->version < version)
			continue;
		for (i = 0; i < old->npatches; i++)
			if (old->patches[i].number == k) {
				p = &old->patches[i];
				version = old->version;
			}
	}
	return p;
}

/*
 * A partial re-roll made whole, as b4 am does it: when an incomplete
 * series re-sends some patches each in reply to its older version, the
 * patches it lacks come from the older versions.  s itself when it is
 * complete, is no partial re-roll, or older versions lack a patch too.
 */
static const struct view_series *
reroll(struct store *st, struct arena *a, const struct view_contrib *c,
    const struct view_series *s)
{
	struct view_series *r;
	struct view_patch *v;
	size_t i, known = 0;
	int k;

	for (i = 0; i < c->nseries; i++)
		known += c->series[i].npatches;
	if (s->version <= 1 || s->expected <= 1 ||
	    s->npatches >= (size_t)s->expected || (size_t)s->expected > known)
		return s;
	for (i = 0; i < s->npatches; i++)
		if (!answers_older(st, c, s, &s->patches[i]))
			return s;
	v = arena_alloc(a, (size_t)s->expected * sizeof(*v));
	for (k = 1; k <= s->expected; k++) {
		const struct view_patch *p = patch_number(c, s, k);

		if (p == NULL)
			return s;
		v[k - 1] = *p;
	}
	r = arena_alloc(a, sizeof(*r));
	*r = *s;
	r->patches = v;
	r->npatches = (size_t)s->expected;
	fprintf(stderr,
	    "patchyard: v%d is a partial re-roll: %zu of its %d patches"
	    " come from earlier versions\n",
	    s->version, (size_t)s->expected - s->npatches, s->expected);
	return r;
}

enum err
am_mbox(struct store *st, const struct config *conf,
    const struct view_contrib *c, const struct view_series *s,
    enum am_trailers which, struct buf *out)
{
	struct arena *a = arena_new();
	enum err e = am_series(st, conf, reroll(st, a, c, s), which, out);

	arena_free(a);
	return e;
}

int
am_write(struct store *st, const struct config *conf, const char *ref,
    enum am_trailers which, FILE *f)
{
	struct arena *a = arena_new();
	struct view_contrib c;
	const struct view_series *s = NULL;
	struct buf out = BUF_INIT;
	int64_t cid, sid, pid;
	size_t i;
	enum err e = show_resolve(st, ref, &cid, &sid, &pid);

	if (e == ERR_OK)
		e = store_read_contrib(st, a, cid, false, &c);
	if (e == ERR_OK) {
		s = c.newest;
		for (i = 0; sid && i < c.nseries; i++)
			if (c.series[i].id == sid)
				s = &c.series[i];
		if (s == NULL || s->npatches == 0) {
			fprintf(stderr, "patchyard: %s: no patches\n", ref);
			e = ERR_NOTFOUND;
		}
	} else if (e == ERR_NOTFOUND) {
		fprintf(stderr, "patchyard: %s: no such contribution\n", ref);
	}
	if (e == ERR_OK)
		e = am_series(st, conf, reroll(st, a, &c, s), which, &out);
	if (e == ERR_OK && fwrite(out.p, 1, out.n, f) != out.n)
		e = ERR_IO;
	buf_free(&out);
	arena_free(a);
	return e == ERR_OK ? 0 : e == ERR_USAGE ? 2 : 1;
}
