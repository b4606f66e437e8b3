#include "bot/mailout/notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/mailout/mailout.h"
#include "bot/mailout/template.h"
#include "parsers/addr.h"
#include "parsers/hdr.h"
#include "parsers/msgid.h"
#include "storage/store_msg.h"
#include "storage/store_outbox.h"
#include "storage/store_patch.h"
#include "storage/store_read.h"
#include "storage/store_series.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

struct notify {
	struct store *st;
	const struct config *conf;
	struct template_mail *tpl[TEMPLATE_MAIL_NEVENTS];
};

struct notify *
notify_new(struct store *st, const struct config *conf)
{
	struct notify *n = xcalloc(1, sizeof(*n));

	n->st = st;
	n->conf = conf;
	return n;
}

void
notify_free(struct notify *n)
{
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < TEMPLATE_MAIL_NEVENTS; i++)
		template_mail_free(n->tpl[i]);
	free(n);
}

static enum err
load(struct notify *n, const char *event, struct template_mail **t)
{
	size_t i;
	enum err e;

	for (i = 0; i < TEMPLATE_MAIL_NEVENTS && template_mail_events[i]; i++) {
		if (strcmp(template_mail_events[i], event) != 0)
			continue;
		if (n->tpl[i] == NULL &&
		    (e = template_mail_load(
		         n->conf->templates, event, &n->tpl[i])) != ERR_OK)
			return e;
		*t = n->tpl[i];
		return ERR_OK;
	}
	log_err("notify: %s: no such mail event", event);
	return ERR_INTERNAL;
}

/* The ancestors a reply to this mail must name: its References (or
 * In-Reply-To), oldest first. */
static enum err
mail_refs(struct notify *n, struct arena *a, int64_t msg_id, const char ***refs,
    size_t *nrefs)
{
	const char *raw;
	size_t len, i;
	struct hdr h;
	struct str *ids = NULL;
	enum err e = store_msg_raw(n->st, a, msg_id, &raw, &len);

	*refs = NULL;
	*nrefs = 0;
	if (e != ERR_OK)
		return e;
	if (hdr_split(a, raw, len, &h) != ERR_OK)
		return ERR_OK;
	if (msgid_list(a, hdr_value(a, &h, "References"), &ids, nrefs) !=
	        ERR_OK ||
	    *nrefs == 0) {
		struct str irt =
		    msgid_first(a, hdr_value(a, &h, "In-Reply-To"));

		*nrefs = 0;
		if (irt.p) {
			ids = arena_alloc(a, sizeof(*ids));
			ids[0] = irt;
			*nrefs = 1;
		}
	}
	*refs = arena_alloc(a, (*nrefs + 1) * sizeof(**refs));
	for (i = 0; i < *nrefs; i++)
		(*refs)[i] = ids[i].p;
	return ERR_OK;
}

/* The archive link of a Message-ID: the project's template with its one
 * "%s" replaced by the percent-encoded id. */
static const char *
archive_link(struct arena *a, const char *tmpl, const char *msgid)
{
	struct buf b = BUF_INIT;
	const char *s;
	char *out;

	if (tmpl == NULL || (s = strstr(tmpl, "%s")) == NULL)
		return NULL;
	buf_add(&b, tmpl, (size_t)(s - tmpl));
	msgid_urlencode(&b, str_from(msgid));
	buf_adds(&b, s + 2);
	out = arena_strdup(a, buf_cstr(&b));
	buf_free(&b);
	return out;
}

static void
common(struct notify *n, struct template_data *d, const struct conf_project *p,
    int64_t contribution)
{
	template_data_set(d, "project", p ? p->name : "");
	template_data_set(d, "list", p ? p->list : "");
	template_data_set(d, "bot", n->conf->bot_address);
	template_data_set(d, "prefix", n->conf->command_prefix);
	if (n->conf->bot_url && contribution)
		template_data_setf(d, "url", "%s/c/%lld", n->conf->bot_url,
		    (long long)contribution);
}

struct draft {
	const char *event;
	struct template_mail *tpl;
	struct template_data *d;
	struct mailout_addr *to, *cc;
	size_t nto, ncc;
	const char *parent; /* Message-ID answered */
	const char **refs;
	size_t nrefs;
	int64_t contribution, patch, event_id;
	bool held;
};

static enum err
queue(struct notify *n, struct arena *a, struct draft *dr)
{
	struct buf subject = BUF_INIT, body = BUF_INIT, msg = BUF_INIT;
	struct buf rcpts = BUF_INIT, mid = BUF_INIT;
	struct mailout_msg m;
	struct store_outbox o;
	int64_t now = time_now();
	enum err e;

	(void)a;
	e = template_mail_render(dr->tpl, dr->d, &subject, &body);
	if (e == ERR_OK)
		e = mailout_message_id(
		    &mid, now, dr->event, n->conf->bot_address);
	if (e == ERR_OK) {
		memset(&m, 0, sizeof(m));
		m.from_email = n->conf->bot_address;
		m.to = dr->to;
		m.nto = dr->nto;
		m.cc = dr->cc;
		m.ncc = dr->ncc;
		m.subject = buf_cstr(&subject);
		m.message_id = buf_cstr(&mid);
		m.date = now;
		m.in_reply_to = dr->parent;
		m.references = dr->refs;
		m.nreferences = dr->nrefs;
		m.event = dr->event;
		m.body = buf_cstr(&body);
		m.body_len = body.n;
		e = mailout_compose(&m, &msg, &rcpts);
	}
	if (e == ERR_OK) {
		memset(&o, 0, sizeof(o));
		o.event_id = dr->event_id;
		o.contribution_id = dr->contribution;
		o.patch_id = dr->patch;
		o.kind = dr->event;
		o.message_id = buf_cstr(&mid);
		o.in_reply_to = dr->parent;
		o.rcpt = buf_cstr(&rcpts);
		o.body = msg.p;
		o.body_len = msg.n;
		o.state = dr->held ? "held" : "queued";
		o.next_attempt = now;
		o.created = now;
		e = store_outbox_add(n->st, &o, NULL);
	} else if (e == ERR_NOTFOUND) {
		log_warn("notify: %s mail has no recipient left", dr->event);
		e = ERR_OK;
	}
	buf_free(&subject);
	buf_free(&body);
	buf_free(&msg);
	buf_free(&rcpts);
	buf_free(&mid);
	return e;
}

/* The project's maintainers, into dr->to. */
static void
to_maintainers(struct notify *n, struct arena *a, const struct conf_project *pr,
    struct draft *dr)
{
	size_t i;

	dr->to = arena_zalloc(a, (n->conf->nmaintainers + 1) * sizeof(*dr->to));
	for (i = 0; i < n->conf->nmaintainers; i++) {
		const struct conf_maintainer *m = &n->conf->maintainers[i];

		if (m->project && (pr == NULL || strcmp(m->project, pr->name)))
			continue;
		dr->to[dr->nto].email = m->email;
		dr->to[dr->nto].name = "";
		dr->nto++;
	}
}

/* Recipients of one acknowledgment at most (DESIGN.md §8): a patch whose
 * trailers name hundreds of people must not make the bot a mailer. */
#define NOTIFY_MAX_RCPT 30

/* Add email to the Cc list unless it is there already, is the bot, or
 * the list is full. */
static void
cc_add(struct notify *n, struct draft *dr, size_t max, const char *email)
{
	size_t i;

	if (email == NULL || *email == '\0' || dr->nto + dr->ncc >= max ||
	    addr_same(email, n->conf->bot_address))
		return;
	for (i = 0; i < dr->nto; i++)
		if (addr_same(dr->to[i].email, email))
			return;
	for (i = 0; i < dr->ncc; i++)
		if (addr_same(dr->cc[i].email, email))
			return;
	dr->cc[dr->ncc].email = email;
	dr->cc[dr->ncc].name = "";
	dr->ncc++;
}

/*
 * To the author; Cc the addresses the patch's own commit message names,
 * the people whose reply trailers are verified, and the list — never an
 * address only a stranger's reply wrote (DESIGN.md §8) — and for a
 * conflict its maintainers too: someone has to resolve it.  At most
 * NOTIFY_MAX_RCPT in all, in that order of precedence: the list, the
 * maintainers, the reviewers, then the commit message's addresses.  A version
 * from another sender goes to the maintainers alone: they decide whether
 * it replaces the staged patch.
 */
static void
recipients(struct notify *n, struct arena *a, const struct store_patch *p,
    const struct view_trailer *t, size_t nt, const struct conf_project *pr,
    struct draft *dr)
{
	bool conflict = strcmp(dr->event, "conflict") == 0;
	size_t i, max = NOTIFY_MAX_RCPT;

	if (strcmp(dr->event, "version-from-other-sender") == 0) {
		to_maintainers(n, a, pr, dr);
		return;
	}
	dr->to = arena_zalloc(a, sizeof(*dr->to));
	dr->to[0].name = p->author_name;
	dr->to[0].email = p->author_email;
	dr->nto = 1;
	dr->cc = arena_zalloc(a, max * sizeof(*dr->cc));
	if (pr && pr->cc_list)
		cc_add(n, dr, max, pr->list);
	for (i = 0; conflict && i < n->conf->nmaintainers; i++) {
		const struct conf_maintainer *m = &n->conf->maintainers[i];

		if (m->project && (pr == NULL || strcmp(m->project, pr->name)))
			continue;
		cc_add(n, dr, max, m->email);
	}
	/* Reviewers who sent their trailers before the addresses the
	 * commit message names: a long Cc: list is cut, not them. */
	for (i = 0; i < nt; i++)
		if (!t[i].own && t[i].verified)
			cc_add(n, dr, max, t[i].email);
	for (i = 0; i < nt; i++)
		if (t[i].own)
			cc_add(n, dr, max, t[i].email);
}

static void
patch_values(struct notify *n, struct arena *a, struct template_data *d,
    const struct store_patch *p, const struct store_series *s,
    const struct store_msg *msg, const struct conf_project *pr)
{
	template_data_set(d, "subject", msg->subject);
	template_data_set(d, "title", p->title);
	template_data_set(d, "slug", p->slug);
	template_data_setf(d, "author", "%s%s<%s>", p->author_name,
	    *p->author_name ? " " : "", p->author_email);
	template_data_set(d, "author_name", p->author_name);
	template_data_set(d, "author_email", p->author_email);
	template_data_set(d, "message_id", msg->msgid);
	template_data_setf(d, "version", "%d", s->version);
	template_data_set(d, "queue", p->queue);
	template_data_set(
	    d, "link", archive_link(a, pr ? pr->archive : NULL, msg->msgid));
	/* Stage, update and graduate mails of a project with a staging tree
	 * wait for the build (and push) that holds the change: what they say
	 * is true when they go (DESIGN.md §6). */
	template_data_set(d, "staging", pr && pr->staging ? "yes" : NULL);
	(void)n;
}

enum err
notify_patch(struct notify *n, const char *event, int64_t patch_id,
    int64_t event_id, const char *actor, const struct notify_kv *kv, bool held)
{
	struct arena *a = arena_new();
	struct draft dr;
	struct store_patch p;
	struct store_series s;
	struct store_msg msg;
	const struct conf_project *pr;
	struct view_trailer *t = NULL;
	const char *project;
	size_t nt = 0;
	enum err e;

	memset(&dr, 0, sizeof(dr));
	dr.event = event;
	e = load(n, event, &dr.tpl);
	if (e == ERR_OK)
		e = store_patch_get(n->st, a, patch_id, &p);
	if (e == ERR_OK)
		e = store_series_get(n->st, a, p.series_id, &s);
	if (e == ERR_OK)
		e = store_msg_get(n->st, a, p.message_id, &msg);
	if (e == ERR_OK)
		e = store_read_trailers(n->st, a, p.id, s.id, &t, &nt);
	if (e == ERR_OK)
		e = mail_refs(n, a, p.message_id, &dr.refs, &dr.nrefs);
	if (e == ERR_OK)
		e = store_project_get(n->st, p.project_id, &project);
	if (e != ERR_OK)
		goto out;
	pr = config_project(n->conf, project);
	dr.d = template_data_new();
	common(n, dr.d, pr, s.contribution_id);
	patch_values(n, a, dr.d, &p, &s, &msg, pr);
	template_data_set(dr.d, "actor", actor);
	for (; kv && kv->name; kv++)
		template_data_set(dr.d, kv->name, kv->value);
	dr.event = event;
	recipients(n, a, &p, t, nt, pr, &dr);
	dr.parent = msg.msgid;
	dr.contribution = s.contribution_id;
	dr.patch = p.id;
	dr.event_id = event_id;
	dr.held = held;
	e = queue(n, a, &dr);
	template_data_free(dr.d);
out:
	arena_free(a);
	return e;
}

enum err
notify_transcript(struct notify *n, int64_t msg_id, int64_t contribution_id,
    const struct notify_line *lines, size_t nlines)
{
	struct arena *a = arena_new();
	struct draft dr;
	struct store_msg msg;
	const char *project;
	size_t i;
	enum err e;

	memset(&dr, 0, sizeof(dr));
	dr.event = "command-reply";
	e = load(n, dr.event, &dr.tpl);
	if (e == ERR_OK)
		e = store_msg_get(n->st, a, msg_id, &msg);
	if (e == ERR_OK)
		e = mail_refs(n, a, msg_id, &dr.refs, &dr.nrefs);
	if (e == ERR_OK)
		e = store_project_get(n->st, msg.project_id, &project);
	if (e != ERR_OK)
		goto out;
	dr.d = template_data_new();
	common(n, dr.d, config_project(n->conf, project), contribution_id);
	template_data_set(dr.d, "subject", msg.subject);
	template_data_set(
	    dr.d, "requester", *msg.from_name ? msg.from_name : msg.from_email);
	for (i = 0; i < nlines; i++) {
		struct template_data *it = template_data_add(dr.d, "commands");

		template_data_set(it, "line", lines[i].line);
		template_data_set(it, "status", lines[i].status);
		template_data_set(it, "message", lines[i].message);
	}
	dr.to = arena_zalloc(a, sizeof(*dr.to));
	dr.to[0].name = msg.from_name;
	dr.to[0].email = msg.from_email;
	dr.nto = 1;
	dr.parent = msg.msgid;
	dr.contribution = contribution_id;
	e = queue(n, a, &dr);
	template_data_free(dr.d);
out:
	arena_free(a);
	return e;
}

/* To the tree's owner, Cc the project's maintainers: someone has to fix
 * the tree or the queue. */
static void
tree_recipients(struct notify *n, struct arena *a, const struct notify_tree *t,
    struct draft *dr)
{
	size_t i;

	dr->to = arena_zalloc(a, sizeof(*dr->to));
	if (t->owner) {
		dr->to[0].email = t->owner;
		dr->to[0].name = t->owner_name ? t->owner_name : "";
		dr->nto = 1;
	}
	dr->cc = arena_zalloc(a, (n->conf->nmaintainers + 1) * sizeof(*dr->cc));
	for (i = 0; i < n->conf->nmaintainers; i++) {
		const struct conf_maintainer *m = &n->conf->maintainers[i];

		if (m->project &&
		    (t->project == NULL ||
		        strcmp(m->project, t->project->name) != 0))
			continue;
		dr->cc[dr->ncc].email = m->email;
		dr->cc[dr->ncc].name = "";
		dr->ncc++;
	}
}

enum err
notify_tree_conflict(struct notify *n, const struct notify_tree *t)
{
	struct arena *a = arena_new();
	struct draft dr;
	struct store_msg msg;
	struct str rest, line;
	enum err e;

	memset(&dr, 0, sizeof(dr));
	dr.event = "tree-conflict";
	e = load(n, dr.event, &dr.tpl);
	if (e == ERR_OK && t->message_id) {
		e = store_msg_get(n->st, a, t->message_id, &msg);
		if (e == ERR_OK)
			e = mail_refs(n, a, t->message_id, &dr.refs, &dr.nrefs);
		dr.parent = e == ERR_OK ? msg.msgid : NULL;
	}
	if (e != ERR_OK)
		goto out;
	dr.d = template_data_new();
	common(n, dr.d, t->project, 0);
	if (dr.parent)
		template_data_set(dr.d, "subject", msg.subject);
	template_data_set(dr.d, "tree", t->name);
	template_data_set(dr.d, "tree_url", t->url);
	template_data_set(dr.d, "tree_branch", t->branch);
	template_data_set(dr.d, "commit", t->commit);
	template_data_set(dr.d, "base", t->base);
	template_data_set(dr.d, "owner", t->owner);
	template_data_set(dr.d, "owner_name", t->owner_name);
	template_data_set(dr.d, "against", t->against);
	template_data_set(dr.d, "details", t->details);
	rest = str_from(t->files ? t->files : "");
	while (str_nextline(&rest, &line))
		if (line.n)
			template_data_setn(template_data_add(dr.d, "files"),
			    "file", line.p, line.n);
	tree_recipients(n, a, t, &dr);
	dr.contribution = t->contribution_id;
	dr.event_id = t->event_id;
	e = queue(n, a, &dr);
	template_data_free(dr.d);
out:
	arena_free(a);
	return e;
}
