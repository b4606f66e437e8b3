/*
 * `patchyard am`: what `b4 am` makes of a thread, from the database: each
 * patch of a series as git format-patch would mail it, its commit message
 * followed by the trailers people gave in replies (verified ones only, no
 * duplicates), mboxrd-escaped.
 */
#include "bot/am.h"

#include <stdlib.h>
#include <string.h>

#include "bot/ingest.h"
#include "bot/show.h"
#include "parsers/mail.h"
#include "storage/store_msg.h"
#include "util/ascii.h"
#include "util/log.h"

/* RFC 2047 B-encoding of a header value when it is not plain ASCII. */
static enum err
put_encoded(struct buf *out, const char *s)
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(s), i;
	bool ascii = true;
	enum err e = ERR_OK;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80 || s[i] == '\r' || s[i] == '\n')
			ascii = false;
	if (ascii)
		return buf_add(out, s, n);
	/* Chunks of 45 bytes keep each encoded-word under 75 characters;
	 * a chunk may split a UTF-8 sequence, which RFC 2047 decoders
	 * (git mailinfo among them) join again. */
	for (i = 0; i < n && e == ERR_OK; i += 45) {
		size_t k, len = n - i < 45 ? n - i : 45;

		e = buf_adds(out, i ? "\n =?UTF-8?B?" : "=?UTF-8?B?");
		for (k = 0; k < len && e == ERR_OK; k += 3) {
			unsigned v = (unsigned char)s[i + k] << 16;
			char q[4];

			if (k + 1 < len)
				v |= (unsigned char)s[i + k + 1] << 8;
			if (k + 2 < len)
				v |= (unsigned char)s[i + k + 2];
			q[0] = b64[(v >> 18) & 63];
			q[1] = b64[(v >> 12) & 63];
			q[2] = k + 1 < len ? b64[(v >> 6) & 63] : '=';
			q[3] = k + 2 < len ? b64[v & 63] : '=';
			e = buf_add(out, q, 4);
		}
		if (e == ERR_OK)
			e = buf_adds(out, "?=");
	}
	return e;
}

/* Body lines: mboxrd-escape "From " lines (any number of '>' first). */
static enum err
put_body(struct buf *out, struct str text)
{
	struct str rest = text, line;
	enum err e = ERR_OK;

	while (e == ERR_OK && str_nextline(&rest, &line)) {
		struct str t = line;

		while (t.n && t.p[0] == '>')
			t = str_skip(t, 1);
		if (str_startswith(t, "From "))
			e = buf_addc(out, '>');
		if (e == ERR_OK)
			e = buf_addstr(out, line);
		if (e == ERR_OK)
			e = buf_addc(out, '\n');
	}
	return e;
}

static bool
has_trailer(
    const struct view_patch *p, size_t upto, const struct view_trailer *t)
{
	size_t i;

	for (i = 0; i < upto; i++) {
		const struct view_trailer *o = &p->trailers[i];

		if (o == t || (!o->own && !o->verified))
			continue;
		if (ascii_stricmp(o->name, t->name) != 0)
			continue;
		if (o->email && t->email ? addr_same(o->email, t->email)
		                         : strcmp(o->value, t->value) == 0)
			return true;
	}
	return false;
}

static enum err
put_trailers(struct buf *out, const struct view_patch *p, bool *any)
{
	size_t i;
	enum err e = ERR_OK;

	for (i = 0; i < p->ntrailers && e == ERR_OK; i++) {
		const struct view_trailer *t = &p->trailers[i];

		if (t->own || !t->verified || has_trailer(p, i, t))
			continue;
		*any = true;
		e = buf_addf(out, "%s: %s\n", t->name, t->value);
	}
	return e;
}

static enum err
put_header(struct buf *out, const struct view_series *s,
    const struct view_patch *vp, const struct patch *p)
{
	enum err e = buf_adds(out,
	    "From 0000000000000000000000000000000000000000"
	    " Mon Sep 17 00:00:00 2001\nFrom: ");

	if (e == ERR_OK)
		e = put_encoded(out, p->author.name);
	if (e == ERR_OK)
		e = buf_addf(out, "%s<%s>\nDate: ", *p->author.name ? " " : "",
		    p->author.email);
	if (e == ERR_OK)
		e = buf_addstr(out, p->date);
	if (e == ERR_OK) {
		if (s->expected > 1 && s->version > 1)
			e = buf_addf(out, "\nSubject: [PATCH v%d %d/%d] ",
			    s->version, vp->number, s->expected);
		else if (s->expected > 1)
			e = buf_addf(out, "\nSubject: [PATCH %d/%d] ",
			    vp->number, s->expected);
		else if (s->version > 1)
			e = buf_addf(
			    out, "\nSubject: [PATCH v%d] ", s->version);
		else
			e = buf_adds(out, "\nSubject: [PATCH] ");
	}
	if (e == ERR_OK)
		e = put_encoded(out, p->subject);
	if (e == ERR_OK)
		e = buf_addf(out,
		    "\nMessage-ID: <%s>\nMIME-Version: 1.0\n"
		    "Content-Type: text/plain; charset=UTF-8\n"
		    "Content-Transfer-Encoding: 8bit\n\n",
		    vp->message_id);
	return e;
}

static enum err
put_patch(struct buf *out, const struct view_series *s,
    const struct view_patch *vp, const struct patch *p)
{
	struct str msg = str_trim(p->message);
	bool any = false;
	size_t mark;
	enum err e = put_header(out, s, vp, p);

	if (e == ERR_OK && msg.n) {
		e = put_body(out, msg);
		if (e == ERR_OK)
			e = buf_addc(out, '\n');
	}
	mark = out->n;
	if (e == ERR_OK)
		e = put_trailers(out, vp, &any);
	/* Collected trailers join the message's own trailer block; with no
	 * block to join they start one after a blank line. */
	if (e == ERR_OK && any && !(vp->ntrailers && vp->trailers[0].own)) {
		char *t = str_dup(str_make(out->p + mark, out->n - mark));

		out->n = mark;
		e = buf_addc(out, '\n');
		if (e == ERR_OK)
			e = buf_adds(out, t);
		free(t);
	}
	if (e == ERR_OK && !str_startswith(p->diff, "---"))
		e = buf_adds(out, "---\n");
	if (e == ERR_OK)
		e = put_body(out, p->diff);
	if (e == ERR_OK)
		e = buf_addc(out, '\n');
	return e;
}

enum err
am_series(struct store *st, const struct config *conf,
    const struct view_series *s, struct buf *out)
{
	struct mail_opts o;
	size_t i;
	enum err e = ERR_OK;

	memset(&o, 0, sizeof(o));
	o.bot_address = conf ? conf->bot_address : NULL;
	for (i = 0; i < s->npatches && e == ERR_OK; i++) {
		const struct view_patch *vp = &s->patches[i];
		struct arena *a = arena_new();
		struct mail m;
		const char *raw;
		size_t n;

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
			e = put_patch(out, s, vp, m.patch);
		arena_free(a);
	}
	return e;
}

int
am_write(struct store *st, const struct config *conf, const char *ref, FILE *f)
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
		e = am_series(st, conf, s, &out);
	if (e == ERR_OK && fwrite(out.p, 1, out.n, f) != out.n)
		e = ERR_IO;
	buf_free(&out);
	arena_free(a);
	return e == ERR_OK ? 0 : e == ERR_USAGE ? 2 : 1;
}
