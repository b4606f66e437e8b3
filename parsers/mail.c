/*
 * The one pass over a mail that ingest needs: the cheap header split for
 * every mail, then the body (MIME, patch, trailers, commands) for the
 * rest.  A mail that cannot be parsed still leaves with a key and a hash,
 * so it is stored and never lost.
 */
#include "parsers/mail.h"

#include <string.h>

#include "parsers/charset.h"
#include "parsers/date.h"
#include "parsers/limits.h"
#include "parsers/msgid.h"
#include "parsers/patchid.h"
#include "util/ascii.h"
#include "util/oid.h"

const char *
mail_kind_name(enum mail_kind k)
{
	switch (k) {
	case MAIL_PATCH:
		return "patch";
	case MAIL_COVER:
		return "cover";
	case MAIL_REPLY:
		return "reply";
	case MAIL_PULL:
		return "pull";
	case MAIL_BOT:
		return "bot";
	case MAIL_OTHER:
		break;
	}
	return "other";
}

static void
hash_field(struct patchid_sha1_ctx *c, const struct hdr *h, const char *name)
{
	const struct hdr_field *f = hdr_get(h, name);

	if (f)
		patchid_sha1_update(c, f->value.p, f->value.n);
	patchid_sha1_update(c, "", 1);
}

static void
make_hash(struct mail *m, const char *raw, size_t n, bool have_hdr)
{
	struct patchid_sha1_ctx c;

	if (!have_hdr) {
		patchid_sha1(raw, n, m->hash);
		return;
	}
	patchid_sha1_init(&c);
	hash_field(&c, &m->hdr, "From");
	hash_field(&c, &m->hdr, "Date");
	hash_field(&c, &m->hdr, "Subject");
	hash_field(&c, &m->hdr, "To");
	hash_field(&c, &m->hdr, "Cc");
	patchid_sha1_update(&c, raw + m->hdr.body_off, n - m->hdr.body_off);
	patchid_sha1_final(&c, m->hash);
}

/* A key for a mail without a usable Message-ID, made from its content so
 * that a second delivery finds the first. */
static void
synth_msgid(struct arena *a, struct mail *m)
{
	static const char domain[] = "@msgid.patchyard.invalid";
	char hex[OID_HEX_SIZE], *id;

	patchid_hex(m->hash, hex);
	id = arena_alloc(a, 40 + sizeof(domain));
	memcpy(id, hex, 40);
	memcpy(id + 40, domain, sizeof(domain));
	m->msgid = id;
	m->flags |= MAIL_F_NOMSGID;
}

static void
parse_refs(struct arena *a, struct mail *m)
{
	struct str *ids = NULL;
	size_t n = 0, i, k = 0;
	struct str v = hdr_value(a, &m->hdr, "References");

	if (v.p == NULL || msgid_list(a, v, &ids, &n) != ERR_OK || n == 0) {
		struct str irt =
		    msgid_first(a, hdr_value(a, &m->hdr, "In-Reply-To"));

		n = 0;
		if (irt.p) {
			ids = arena_alloc(a, sizeof(*ids));
			ids[0] = irt;
			n = 1;
		}
	}
	m->refs = arena_alloc(a, (n ? n : 1) * sizeof(*m->refs));
	for (i = 0; i < n; i++) {
		/* A mail naming itself as its ancestor is a loop: drop it. */
		if (str_eqs(ids[i], m->msgid))
			continue;
		m->refs[k++] = ids[i].p;
	}
	m->nrefs = k;
}

static bool
is_auto(struct arena *a, const struct mail *m, const struct mail_opts *o)
{
	struct str v = hdr_value(a, &m->hdr, "Auto-Submitted");

	if (v.p) {
		long semi = str_find(v, ';');

		if (semi >= 0)
			v.n = (size_t)semi;
		if (!str_ieqs(str_trim(v), "no"))
			return true;
	}
	if (hdr_get(&m->hdr, "X-Patchyard-Event"))
		return true;
	return o->bot_address && m->from.email &&
	    addr_same(m->from.email, o->bot_address);
}

/*
 * The value after key (a prefix that ends with a blank) of the first
 * line of text that starts with key and has one from lo to hi bytes
 * long (trimmed), in a; NULL when none has.  memmem() finds the
 * candidates: a line at a time (two compares a line, every line of a
 * 40 KB patch) it took 5% of an import's parsing.
 */
static const char *
footer_value(
    struct arena *a, struct str text, const char *key, size_t lo, size_t hi)
{
	size_t k = strlen(key);
	const char *p = text.p, *end = text.p + text.n, *at;
	struct str rest, line, v;

	while (text.n > 0 && p < end &&
	    (at = memmem(p, (size_t)(end - p), key, k)) != NULL) {
		p = at + 1;
		if (at > text.p && at[-1] != '\n')
			continue; /* not at the start of a line */
		rest = str_make(at, (size_t)(end - at));
		str_nextline(&rest, &line);
		v = str_trim(str_skip(line, k));
		if (v.n >= lo && v.n <= hi)
			return arena_str(a, v).p;
	}
	return NULL;
}

/* "change-id: X" and "base-commit: X" lines, as b4 and format-patch
 * write them. */
static void
footer_ids(struct arena *a, struct mail *m)
{
	m->change_id = footer_value(a, m->text, "change-id: ", 1, 128);
	m->base_commit = footer_value(a, m->text, "base-commit: ", 7, 64);
}

static void
parse_supersedes(struct arena *a, struct mail *m)
{
	struct str v = hdr_value(a, &m->hdr, "Supersedes");
	struct str *ids = NULL;
	size_t n = 0, i;

	if (v.p == NULL || msgid_list(a, v, &ids, &n) != ERR_OK || n == 0)
		return;
	m->supersedes = arena_alloc(a, n * sizeof(*m->supersedes));
	for (i = 0; i < n; i++)
		m->supersedes[i] = ids[i].p;
	m->nsupersedes = n;
}

/* The first inline text/plain part, or STR_NULL. */
static struct str
plain_text(const struct mime *b)
{
	size_t i;

	for (i = 0; i < b->nparts; i++)
		if (b->parts[i].text && !b->parts[i].attachment &&
		    strcmp(b->parts[i].type, "text/plain") == 0)
			return b->parts[i].data;
	return STR_NULL;
}

/* The text people wrote: the first inline text/plain part, else the
 * first text part. */
static struct str
main_text(const struct mime *b)
{
	struct str t = plain_text(b);
	size_t i;

	if (t.p)
		return t;
	for (i = 0; i < b->nparts; i++)
		if (b->parts[i].text)
			return b->parts[i].data;
	return str_make("", 0);
}

/* The From: value as git mailinfo reads it: unfolded and decoded. */
static struct str
from_value(struct arena *a, const struct mail *m)
{
	struct str v = hdr_value(a, &m->hdr, "From");
	bool fallback;

	if (v.p == NULL || charset_decode_header(a, v, &v, &fallback) != ERR_OK)
		return STR_NULL;
	return v;
}

static void
parse_body(struct arena *a, const char *raw, size_t n, struct mail *m)
{
	struct patch_in in;

	if (mime_parse(a, raw, n, &m->hdr, &m->body) != ERR_OK) {
		m->flags |= MAIL_F_OVERLIMIT;
		m->limit = "mime";
		return;
	}
	if (m->body.flags & (MIME_F_BROKEN | MIME_F_DEPTH | MIME_F_PARTS))
		m->flags |= MAIL_F_BROKEN;
	if (m->body.flags & MIME_F_CHARSET)
		m->flags |= MAIL_F_CHARSET;
	m->text = main_text(&m->body);
	footer_ids(a, m);
	if (!m->subj.reply && !(m->flags & MAIL_F_AUTO)) {
		memset(&in, 0, sizeof(in));
		in.body = &m->body;
		in.from = m->from;
		in.from_value = from_value(a, m);
		in.subject = str_from(m->subject);
		in.date = hdr_value(a, &m->hdr, "Date");
		if (patch_parse(a, &in, &m->patch) != ERR_OK)
			m->patch = NULL;
		if (m->patch == NULL || m->subj.pull)
			if (patch_parse_pull(a, &m->body, &m->pull) != ERR_OK)
				m->pull = NULL;
	}
}

static enum mail_kind
classify(const struct mail *m)
{
	if (m->flags & MAIL_F_AUTO)
		return MAIL_BOT;
	if (m->subj.reply)
		return MAIL_REPLY;
	/* A cover letter may quote `git request-pull` for its branch: the
	 * "0/N" tag says what it is. */
	if (m->subj.patch && m->subj.number == 0 && m->subj.total > 0 &&
	    !m->subj.pull)
		return MAIL_COVER;
	if (m->pull)
		return MAIL_PULL;
	if (m->patch && m->subj.number != 0)
		return MAIL_PATCH;
	if (m->patch && m->subj.total == 0)
		return MAIL_PATCH; /* a lone patch, tagged or not */
	if (m->subj.patch && m->subj.number == 0 && m->subj.total > 0)
		return MAIL_COVER;
	if (m->nrefs > 0)
		return MAIL_REPLY;
	return MAIL_OTHER;
}

static void
parse_from(struct arena *a, struct mail *m)
{
	struct str v = hdr_value(a, &m->hdr, "From");

	if (v.p == NULL || addr_parse(a, v, &m->from) != ERR_OK) {
		m->from.name = "";
		m->from.email = "";
	}
}

enum err
mail_parse(struct arena *a, const char *raw, size_t n,
    const struct mail_opts *o, struct mail *m)
{
	struct str v, cmd;
	bool fallback = false;
	unsigned dflags = 0;
	int64_t t;
	int tz;
	enum err e = ERR_OK;

	memset(m, 0, sizeof(*m));
	m->from.name = m->from.email = "";
	m->subject = "";
	if (hdr_split(a, raw, n, &m->hdr) != ERR_OK) {
		m->flags |= MAIL_F_OVERLIMIT;
		m->limit = m->hdr.limit ? m->hdr.limit : "header";
		make_hash(m, raw, n, false);
		synth_msgid(a, m);
		m->refs = arena_alloc(a, sizeof(*m->refs));
		return ERR_LIMIT;
	}
	if (n > LIMIT_MAIL_SIZE) {
		/* The header is whole: keep the key and who sent it, but
		 * do not read a body that big. */
		m->flags |= MAIL_F_OVERLIMIT;
		m->limit = "mail size";
		make_hash(m, raw, n, true);
		m->msgid =
		    msgid_first(a, hdr_value(a, &m->hdr, "Message-ID")).p;
		if (m->msgid == NULL)
			synth_msgid(a, m);
		m->refs = arena_alloc(a, sizeof(*m->refs));
		parse_from(a, m);
		return ERR_LIMIT;
	}
	make_hash(m, raw, n, true);
	m->msgid = msgid_first(a, hdr_value(a, &m->hdr, "Message-ID")).p;
	if (m->msgid == NULL)
		synth_msgid(a, m);
	parse_refs(a, m);
	parse_from(a, m);
	v = hdr_value(a, &m->hdr, "Date");
	if (v.p == NULL || date_parse(v, &m->date, &m->tz, &dflags) != ERR_OK) {
		m->date = 0;
		m->flags |= MAIL_F_NODATE;
	} else if (dflags & DATE_ZONE_UNKNOWN) {
		m->flags |= MAIL_F_DATEZONE;
	}
	v = hdr_value(a, &m->hdr, "Subject");
	if (v.p && charset_decode_header(a, v, &v, &fallback) == ERR_OK)
		m->subject = v.p;
	if (fallback)
		m->flags |= MAIL_F_CHARSET;
	subject_parse(a, str_from(m->subject), &m->subj);
	m->list_id = hdr_value(a, &m->hdr, "List-Id");
	m->to = hdr_value(a, &m->hdr, "To");
	m->cc = hdr_value(a, &m->hdr, "Cc");
	parse_supersedes(a, m);
	if (is_auto(a, m, o))
		m->flags |= MAIL_F_AUTO;
	parse_body(a, raw, n, m);
	/* The patch's own date (an in-body Date: wins) is its commit's. */
	if (m->patch && m->patch->date.p &&
	    date_parse(m->patch->date, &t, &tz, &dflags) == ERR_OK &&
	    (dflags & DATE_ZONE_UNKNOWN))
		m->flags |= MAIL_F_DATEZONE;
	m->kind = (m->flags & MAIL_F_OVERLIMIT) ? MAIL_OTHER : classify(m);
	if (m->kind == MAIL_PATCH)
		e = trailer_parse(a, m->patch->message, TRAILER_BLOCK,
		    &m->trailers, &m->ntrailers);
	else if (m->kind == MAIL_REPLY)
		e = trailer_parse(
		    a, m->text, TRAILER_REPLY, &m->trailers, &m->ntrailers);
	if (e == ERR_LIMIT) {
		/* Hundreds of trailers: none is trusted, the mail is marked. */
		m->trailers = NULL;
		m->ntrailers = 0;
		m->flags |= MAIL_F_OVERLIMIT;
		m->limit = "trailers";
	}
	/* Commands only from text/plain (docs/DESIGN.md §5): an HTML part may
	 * show a command it quotes, in <pre> or not, and a reader cannot
	 * tell what a mail program would render as a line of its own. */
	if (m->kind == MAIL_REPLY && o->command_prefix &&
	    (cmd = plain_text(&m->body)).p != NULL &&
	    command_parse(a, cmd, o->command_prefix, &m->commands,
	        &m->ncommands) != ERR_OK) {
		m->commands = NULL;
		m->ncommands = 0;
	}
	return (m->flags & MAIL_F_OVERLIMIT) ? ERR_LIMIT : ERR_OK;
}
