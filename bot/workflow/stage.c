/*
 * The staging tree (DESIGN.md §6), driving the libgit2 engine of
 * bot/git/ from the database: the queue becomes commits (stable =
 * upstream + stable patches; unstable = stable + unstable patches), the
 * quilt export and the push follow, and only then do the stage, update
 * and graduate acknowledgments go.  Upstream commits are matched to every
 * tracked patch: by patch-id, by a Link:/Message-ID: naming our mail, by
 * author and subject.
 */
#include "bot/workflow/stage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/git/gitmerge.h"
#include "bot/git/gitquilt.h"
#include "bot/git/gitremote.h"
#include "bot/git/gitscan.h"
#include "bot/git/gitstage.h"
#include "bot/mailout/notify.h"
#include "bot/workflow/forward.h"
#include "bot/workflow/trees.h"
#include "parsers/date.h"
#include "parsers/mail.h"
#include "parsers/msgid.h"
#include "parsers/patchid.h"
#include "parsers/subject.h"
#include "storage/store_event.h"
#include "storage/store_msg.h"
#include "storage/store_outbox.h"
#include "storage/store_patch.h"
#include "storage/store_promote.h"
#include "storage/store_read.h"
#include "storage/store_series.h"
#include "storage/store_stage.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

struct stager {
	struct store *st;
	const struct config *conf;
	const struct conf_project *p;
	int64_t project_id;
	struct gitrepo *repo;
	struct notify *nt;
	struct arena *a;
	int64_t now;
	char upref[320];
	char base[41];
	struct buf *report; /* what a forward did, for the command line */
	/* A forward's dry run: build, forward without sending, keep
	 * nothing (no ref moves, no push; the caller rolls back). */
	bool dry_run;
	char tip_s[41]; /* the stable branch this build made */
};

/* One queued patch, composed for the build and the quilt export. */
struct qpatch {
	struct store_patch row;
	int64_t contribution;
	struct buf msg; /* the commit message */
	struct buf diff; /* its diff, folded fix-ups appended */
	struct buf text; /* the quilt file */
	const char *date;
	char key[41];
	const char **fixups; /* folded fix-ups' diffs, in order */
	size_t *fixup_len;
	size_t nfixups;
};

/* A subsystem tree during one rebuild. */
struct tbuild {
	struct store_tree t;
	bool skip; /* left out of this build (after a conflict) */
	bool in; /* merged into this build */
	bool upstream; /* nothing to merge: the base has it */
	bool conflict;
	bool missing; /* its commit is not in the repository */
	bool fetched; /* by load_trees(), just now */
	char tip[41]; /* the unstable base just after its merge */
	struct buf files; /* conflicting paths, one a line */
	const char *against; /* the slug of the patch it broke */
	const char *details;
	char line[700]; /* its line in the quilt series */
};

static enum err
event(struct stager *s, const char *kind, const struct qpatch *q,
    const char *detail, int64_t *id)
{
	struct store_event e;

	memset(&e, 0, sizeof(e));
	e.time = s->now;
	e.kind = kind;
	e.contribution_id = q->contribution;
	e.series_id = q->row.series_id;
	e.patch_id = q->row.id;
	e.detail = detail;
	return store_event_add(s->st, &e, id);
}

static bool
same_str(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* ---- composing a patch ---- */

/* Collected trailers after the message's own, then Link:. */
static enum err
put_trailers(struct stager *s, struct qpatch *q, const char *msgid)
{
	struct view_trailer *t = NULL;
	size_t nt = 0, i, k;
	bool own = false;
	struct buf link = BUF_INIT;
	enum err e = store_read_trailers(
	    s->st, s->a, q->row.id, q->row.series_id, &t, &nt);

	for (i = 0; i < nt; i++)
		own |= t[i].own;
	for (i = 0; i < nt && e == ERR_OK; i++) {
		bool dup = false;

		if (t[i].own || !t[i].verified)
			continue;
		for (k = 0; k < i && !dup; k++)
			dup = (t[k].own || t[k].verified) &&
			    strcmp(t[k].name, t[i].name) == 0 &&
			    (t[k].email && t[i].email
			            ? strcmp(t[k].email, t[i].email) == 0
			            : strcmp(t[k].value, t[i].value) == 0);
		if (dup)
			continue;
		if (!own) {
			buf_addc(&q->msg, '\n');
			own = true;
		}
		buf_addf(&q->msg, "%s: %s\n", t[i].name, t[i].value);
	}
	if (e == ERR_OK && s->p->archive && strstr(s->p->archive, "%s")) {
		const char *pct = strstr(s->p->archive, "%s");

		buf_add(&link, s->p->archive, (size_t)(pct - s->p->archive));
		msgid_urlencode(&link, str_from(msgid));
		buf_adds(&link, pct + 2);
		if (!own)
			buf_addc(&q->msg, '\n');
		buf_addf(&q->msg, "Link: %s\n", buf_cstr(&link));
	}
	buf_free(&link);
	return e;
}

static enum err
parse_patch(
    struct stager *s, int64_t msg_id, struct mail *m, const char **msgid)
{
	struct store_msg r;
	struct mail_opts o;
	const char *raw;
	size_t n;
	enum err e = store_msg_get(s->st, s->a, msg_id, &r);

	if (e == ERR_OK)
		e = store_msg_raw(s->st, s->a, msg_id, &raw, &n);
	if (e != ERR_OK)
		return e;
	memset(&o, 0, sizeof(o));
	mail_parse(s->a, raw, n, &o, m);
	*msgid = r.msgid;
	if (m->patch == NULL) {
		log_err("stage: <%s>: the patch no longer parses", r.msgid);
		return ERR_PARSE;
	}
	return ERR_OK;
}

/* The fix-ups folded into this patch go into its commit too. */
static enum err
add_folded(struct stager *s, struct qpatch *q)
{
	int64_t *ids = NULL;
	size_t n = 0, i;
	enum err e = store_stage_folded(s->st, q->row.id, &ids, &n);

	q->fixups = arena_zalloc(s->a, (n ? n : 1) * sizeof(*q->fixups));
	q->fixup_len = arena_zalloc(s->a, (n ? n : 1) * sizeof(*q->fixup_len));
	for (i = 0; i < n && e == ERR_OK; i++) {
		struct store_patch f;
		struct mail m;
		const char *msgid;

		e = store_patch_get(s->st, s->a, ids[i], &f);
		if (e == ERR_OK)
			e = parse_patch(s, f.message_id, &m, &msgid);
		if (e == ERR_OK) {
			q->fixups[q->nfixups] = m.patch->diff.p;
			q->fixup_len[q->nfixups++] = m.patch->diff.n;
		}
	}
	free(ids);
	return e;
}

static void
make_key(struct qpatch *q)
{
	struct patchid_sha1_ctx c;
	unsigned char h[20];
	char num[64];
	size_t i;
	int n;

	patchid_sha1_init(&c);
	patchid_sha1_update(&c, q->msg.p, q->msg.n);
	patchid_sha1_update(&c, "", 1);
	patchid_sha1_update(&c, q->diff.p, q->diff.n);
	patchid_sha1_update(&c, "", 1);
	for (i = 0; i < q->nfixups; i++) {
		patchid_sha1_update(&c, q->fixups[i], q->fixup_len[i]);
		patchid_sha1_update(&c, "", 1);
	}
	patchid_sha1_update(&c, q->row.author_name, strlen(q->row.author_name));
	patchid_sha1_update(
	    &c, q->row.author_email, strlen(q->row.author_email));
	n = snprintf(num, sizeof(num), "%lld %d %lld",
	    (long long)q->row.author_time, q->row.author_tz,
	    (long long)q->row.queued_at);
	patchid_sha1_update(&c, num, n > 0 ? (size_t)n : 0);
	patchid_sha1_final(&c, h);
	patchid_hex(h, q->key);
}

static void
quilt_text(struct qpatch *q, const struct patch *p)
{
	/* The body of the commit message, after its subject line. */
	const char *body = strchr(buf_cstr(&q->msg), '\n');
	size_t i;

	buf_addf(&q->text, "From: %s%s<%s>\nSubject: %s\n", q->row.author_name,
	    *q->row.author_name ? " " : "", q->row.author_email, p->subject);
	if (q->date)
		buf_addf(&q->text, "Date: %s\n", q->date);
	buf_addf(&q->text, "\n%s", body ? body + 1 : "");
	if (!str_startswith(buf_str(&q->diff), "---"))
		buf_adds(&q->text, "---\n");
	buf_addstr(&q->text, buf_str(&q->diff));
	for (i = 0; i < q->nfixups; i++)
		buf_add(&q->text, q->fixups[i], q->fixup_len[i]);
}

static enum err
compose(struct stager *s, int64_t patch_id, struct qpatch *q)
{
	struct store_series ser;
	struct mail m;
	struct str body;
	const char *msgid;
	int64_t t;
	int tz;
	enum err e = store_patch_get(s->st, s->a, patch_id, &q->row);

	if (e == ERR_OK)
		e = store_series_get(s->st, s->a, q->row.series_id, &ser);
	if (e == ERR_OK)
		e = parse_patch(s, q->row.message_id, &m, &msgid);
	if (e != ERR_OK)
		return e;
	q->contribution = ser.contribution_id;
	/* The mail's own date, as git am takes it. */
	if (m.patch->date.p &&
	    date_parse(m.patch->date, &t, &tz, NULL) == ERR_OK) {
		q->row.author_time = t;
		q->row.author_tz = tz;
		q->date = arena_str(s->a, m.patch->date).p;
	}
	/* The body as git am keeps it ends in a newline: the collected
	 * trailers join its trailer block without an empty line. */
	body = m.patch->message;
	while (body.n && body.p[body.n - 1] == '\n')
		body.n--;
	buf_addf(&q->msg, "%s\n", m.patch->subject);
	if (body.n)
		buf_addf(&q->msg, "\n%.*s\n", (int)body.n, body.p);
	e = put_trailers(s, q, msgid);
	if (e == ERR_OK) {
		buf_addstr(&q->diff, m.patch->diff);
		e = add_folded(s, q);
	}
	if (e == ERR_OK)
		quilt_text(q, m.patch);
	make_key(q);
	return e;
}

/* ---- building ---- */

static void
entry_of(const struct qpatch *q, struct gitstage_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->key = q->key;
	e->author_name = q->row.author_name;
	e->author_email = q->row.author_email;
	e->author_time = q->row.author_time;
	e->author_tz = q->row.author_tz;
	e->message = buf_cstr(&q->msg);
	e->diff = buf_cstr(&q->diff);
	e->diff_len = q->diff.n;
	e->fixups = q->fixups;
	e->fixup_len = q->fixup_len;
	e->nfixups = q->nfixups;
	e->committer_time = q->row.queued_at;
	e->committer_tz = 0;
}

/* Build one branch: entries q[0..n) on base, reusing the last build. */
static enum err
build_branch(struct stager *s, const char *branch, const char *base,
    struct qpatch *q, size_t n, struct gitstage_result *res, char tip[41])
{
	struct gitstage_entry *ents = xcalloc(n ? n : 1, sizeof(*ents));
	struct gitstage_prev *prev = NULL;
	struct store_build *old = NULL, *now = NULL;
	size_t nold = 0, i;
	enum err e =
	    store_stage_prev(s->st, s->a, s->project_id, branch, &old, &nold);

	if (e == ERR_OK) {
		prev = xcalloc(nold ? nold : 1, sizeof(*prev));
		for (i = 0; i < nold; i++) {
			prev[i].key = old[i].key;
			prev[i].commit = old[i].commit;
			prev[i].how = (enum gitapply_how)old[i].how;
			prev[i].offset = old[i].offset;
		}
		for (i = 0; i < n; i++)
			entry_of(&q[i], &ents[i]);
		e = gitstage_build(s->repo, base, ents, n, prev, nold,
		    "patchyard", s->conf->bot_address, res, tip);
	}
	if (e == ERR_OK) {
		now = xcalloc(n ? n : 1, sizeof(*now));
		for (i = 0; i < n; i++) {
			now[i].patch_id = q[i].row.id;
			now[i].key = q[i].key;
			now[i].commit = res[i].commit;
			now[i].how = (int)res[i].how;
			now[i].offset = res[i].offset;
		}
		e = store_stage_save(s->st, s->project_id, branch, now, n);
	}
	free(now);
	free(prev);
	free(ents);
	return e;
}

/* What a build made of a patch: conflicts are reported once, and its
 * held acknowledgments go or give way to the conflict mail. */
static enum err
judge(struct stager *s, struct qpatch *q, const struct gitstage_result *r,
    bool pushed)
{
	bool left_out =
	    r->how == GITAPPLY_CONFLICT || r->how == GITAPPLY_REFUSED;
	int64_t ev;
	enum err e = ERR_OK;

	if (!left_out) {
		if (q->row.conflict) {
			q->row.conflict = false;
			e = store_patch_update(s->st, &q->row);
			if (e == ERR_OK)
				e = event(s, "resolved", q, NULL, NULL);
		}
		if (e == ERR_OK && pushed)
			e = store_outbox_release(s->st, q->row.id, NULL);
		return e;
	}
	if (q->row.conflict)
		return ERR_OK; /* reported when it began */
	q->row.conflict = true;
	e = store_outbox_cancel(s->st, q->row.id);
	if (e == ERR_OK && s->conf->stage_on_conflict == CONF_CONFLICT_DROP) {
		struct notify_kv kv[] = { { "reason", "conflict" },
			{ "queue", q->row.queue }, { NULL, NULL } };

		q->row.state = "dropped";
		q->row.reason = "conflict";
		q->row.queue = NULL;
		q->row.queue_pos = 0;
		if ((e = store_patch_update(s->st, &q->row)) == ERR_OK)
			e = event(s, "dropped", q, r->reason, &ev);
		if (e == ERR_OK)
			e = notify_patch(
			    s->nt, "dropped", q->row.id, ev, NULL, kv, false);
	} else if (e == ERR_OK) {
		struct notify_kv kv[] = { { "base", s->base },
			{ "details", r->reason }, { NULL, NULL } };

		if ((e = store_patch_update(s->st, &q->row)) == ERR_OK)
			e = event(s, "conflict", q, r->reason, &ev);
		if (e == ERR_OK)
			e = notify_patch(
			    s->nt, "conflict", q->row.id, ev, NULL, kv, false);
	}
	return e;
}

/* The queue as quilt: stable patches, the trees merged into unstable
 * ("# tree NAME URL BRANCH COMMIT"), the unstable patches. */
static enum err
export_quilt(struct stager *s, struct qpatch *q, size_t n, size_t nstable,
    const struct tbuild *tb, size_t ntb)
{
	struct gitquilt_patch *qp = xcalloc(n + ntb + 1, sizeof(*qp));
	char tip[41];
	bool changed;
	size_t i, k = 0;
	enum err e;

	for (i = 0; i <= n; i++) {
		size_t t;

		for (t = 0; i == nstable && t < ntb; t++) {
			if (!tb[t].in)
				continue;
			qp[k].queue = "unstable";
			qp[k++].comment = arena_strdup(s->a, tb[t].line);
		}
		if (i == n)
			break;
		qp[k].slug = q[i].row.slug;
		qp[k].queue = q[i].row.queue;
		qp[k].text = buf_cstr(&q[i].text);
		qp[k++].len = q[i].text.n;
	}
	e = gitquilt_export(s->repo, qp, k, "patchyard: the queue changed",
	    "patchyard", s->conf->bot_address, s->now, 0, tip, &changed);
	free(qp);
	return e;
}

static enum err
push(struct stager *s, bool *pushed)
{
	struct gitremote_push refs[3];
	enum err e;

	*pushed = s->p->push == NULL;
	if (s->p->push == NULL)
		return ERR_OK;
	memset(refs, 0, sizeof(refs));
	refs[0].ref = "refs/heads/stable";
	refs[0].force = true;
	refs[1].ref = "refs/heads/unstable";
	refs[1].force = true;
	refs[2].ref = GITQUILT_REF;
	e = gitremote_push(s->repo, s->p->push, refs, 3);
	if (e == ERR_OK) {
		*pushed = true;
		return ERR_OK;
	}
	/* The acknowledgments wait for the next push that works. */
	log_warn("stage: %s: push to %s failed: %s", s->p->name, s->p->push,
	    refs[0].reason[0]       ? refs[0].reason
	        : refs[1].reason[0] ? refs[1].reason
	                            : refs[2].reason);
	return ERR_OK;
}

static enum err
base_commit(struct stager *s)
{
	enum err e;
	int n = snprintf(
	    s->upref, sizeof(s->upref), "refs/upstream/%s", s->p->branch);

	if (n < 0 || (size_t)n >= sizeof(s->upref))
		return ERR_LIMIT;
	e = gitrepo_ref(s->repo, s->upref, s->base);
	if (e == ERR_NOTFOUND && s->p->upstream)
		e = gitremote_fetch(
		    s->repo, s->p->upstream, s->p->branch, s->base);
	if (e == ERR_NOTFOUND)
		log_err("stage: %s: no upstream to build on (set "
		        "project.%s.upstream and run patchyard upstream)",
		    s->p->name, s->p->name);
	return e;
}

/* ---- subsystem trees ---- */

/* The project's trees, each fetched once if it never was. */
static enum err
load_trees(struct stager *s, struct tbuild **out, size_t *n)
{
	struct store_tree *v = NULL;
	size_t i;
	enum err e = trees_load(
	    s->st, s->a, s->conf, s->p, s->project_id, s->now, &v, n);

	*out = xcalloc(*n ? *n : 1, sizeof(**out));
	for (i = 0; i < *n && e == ERR_OK; i++) {
		(*out)[i].t = v[i];
		buf_init(&(*out)[i].files, 0);
		if (v[i].commit == NULL && strcmp(v[i].state, "failed") != 0) {
			e = trees_fetch(s->repo, s->a, &(*out)[i].t, s->now);
			(*out)[i].fetched = true;
		}
	}
	return e;
}

static void
free_trees(struct tbuild *tb, size_t n)
{
	size_t i;

	for (i = 0; tb && i < n; i++)
		buf_free(&tb[i].files);
	free(tb);
}

/*
 * Merge the trees in order onto tip (the stable branch): each that is
 * not skipped, has a commit, and is not in the base already.  A tree
 * that conflicts is left out; the next merges on what was merged
 * before it.  *top gets the unstable base.
 */
static enum err
merge_trees(struct stager *s, struct tbuild *tb, size_t n, const char *tip,
    char top[41])
{
	size_t i;
	enum err e = ERR_OK;

	snprintf(top, 41, "%s", tip);
	for (i = 0; i < n && e == ERR_OK; i++) {
		struct tbuild *t = &tb[i];
		char out[41];

		t->in = t->upstream = t->missing = false;
		if (!t->skip)
			buf_reset(&t->files);
		if (t->skip || t->t.commit == NULL)
			continue;
		if (!gitrepo_has(s->repo, t->t.commit)) {
			t->details = "its commit is not in the staging "
			             "repository (run patchyard upstream)";
			t->missing = true;
			continue;
		}
		if (gitmerge_contains(s->repo, s->base, t->t.commit)) {
			t->upstream = true;
			continue;
		}
		e = gitmerge_commit(s->repo, top, t->t.commit,
		    trees_merge_message(s->a, &t->t), "patchyard",
		    s->conf->bot_address, t->t.since, out, &t->files);
		if (e == ERR_GIT) {
			/* libgit2's message, not a list of files. */
			t->details = arena_strdup(s->a, buf_cstr(&t->files));
			buf_reset(&t->files);
		}
		if (e == ERR_CONFLICT || e == ERR_GIT) {
			t->conflict = true;
			t->skip = true;
			log_warn("stage: %s: the %s tree does not merge",
			    s->p->name, t->t.name);
			e = ERR_OK;
			continue;
		}
		if (e != ERR_OK)
			break;
		t->in = true;
		snprintf(t->tip, sizeof(t->tip), "%s", out);
		snprintf(top, 41, "%s", out);
		snprintf(t->line, sizeof(t->line), "tree %s %s %s %s",
		    t->t.name, t->t.url, t->t.branch, t->t.commit);
	}
	return e;
}

static bool
left_out(const struct gitstage_result *r)
{
	return r->how == GITAPPLY_CONFLICT || r->how == GITAPPLY_REFUSED;
}

/*
 * After a build whose unstable patches conflicted: did a tree do it?
 * A patch that applies on stable alone but not on stable + trees is
 * broken by the first tree after whose merge it stops applying; that
 * tree is left out (the mailed patches are the core of the proving
 * ground; a tree's owner can rebase) and true returned, for another
 * build.  False when the trees are not to blame.
 */
static enum err
blame_trees(struct stager *s, struct tbuild *tb, size_t ntb, const char *tip_s,
    struct qpatch *q, size_t n, const struct gitstage_result *res, bool *again)
{
	struct gitstage_entry *ents = NULL;
	struct gitstage_result *alone = NULL, *try = NULL;
	bool *cand = NULL, any = false, merged = false;
	size_t i, k;
	enum err e = ERR_OK;

	*again = false;
	for (i = 0; i < n; i++)
		any |= left_out(&res[i]);
	for (k = 0; k < ntb; k++)
		merged |= tb[k].in;
	if (!any || !merged)
		return ERR_OK;
	ents = xcalloc(n, sizeof(*ents));
	alone = xcalloc(n, sizeof(*alone));
	try = xcalloc(n, sizeof(*try));
	cand = xcalloc(n, sizeof(*cand));
	for (i = 0; i < n; i++)
		entry_of(&q[i], &ents[i]);
	e = gitstage_try(s->repo, tip_s, ents, n, alone);
	for (i = 0, any = false; i < n && e == ERR_OK; i++)
		any |= cand[i] = left_out(&res[i]) && !left_out(&alone[i]);
	for (k = 0; k < ntb && e == ERR_OK && any && !*again; k++) {
		if (!tb[k].in)
			continue;
		e = gitstage_try(s->repo, tb[k].tip, ents, n, try);
		for (i = 0; i < n && e == ERR_OK && !*again; i++) {
			if (!cand[i] || !left_out(&try[i]))
				continue;
			tb[k].skip = tb[k].conflict = true;
			tb[k].in = false;
			tb[k].against = q[i].row.slug;
			tb[k].details = arena_strdup(s->a, try[i].reason);
			*again = true;
			log_warn("stage: %s: the %s tree breaks %s", s->p->name,
			    tb[k].t.name, q[i].row.slug);
		}
	}
	free(cand);
	free(try);
	free(alone);
	free(ents);
	return e;
}

/* The tree-conflict mail, once per tree commit (linux-next style). */
static enum err
report_tree(
    struct stager *s, struct tbuild *t, const struct qpatch *q, size_t n)
{
	struct notify_tree nt;
	struct store_event ev;
	int64_t evid, contribution = 0;
	size_t i;
	enum err e;

	for (i = 0; t->against && i < n; i++)
		if (strcmp(q[i].row.slug, t->against) == 0)
			contribution = q[i].contribution;
	memset(&ev, 0, sizeof(ev));
	ev.time = s->now;
	ev.kind = "tree-conflict";
	ev.contribution_id = contribution;
	ev.message_id = t->t.message_id;
	ev.detail = t->t.last_error;
	if ((e = store_event_add(s->st, &ev, &evid)) != ERR_OK)
		return e;
	memset(&nt, 0, sizeof(nt));
	nt.project = s->p;
	nt.name = t->t.name;
	nt.url = t->t.url;
	nt.branch = t->t.branch;
	nt.commit = t->t.commit;
	nt.base = s->base;
	nt.owner = t->t.owner;
	nt.against = t->against;
	nt.files = t->files.n ? buf_cstr(&t->files) : NULL;
	nt.details = t->details;
	nt.message_id = t->t.message_id;
	nt.contribution_id = contribution;
	nt.event_id = evid;
	return notify_tree_conflict(s->nt, &nt);
}

/* What the build made of each tree, saved; new conflicts reported. */
static enum err
judge_trees(struct stager *s, struct tbuild *tb, size_t ntb,
    const struct qpatch *q, size_t n)
{
	size_t i;
	enum err e = ERR_OK;

	for (i = 0; i < ntb && e == ERR_OK; i++) {
		struct tbuild *t = &tb[i];
		bool fetch_error = t->t.last_error &&
		    strncmp(t->t.last_error, "fetch: ", 7) == 0;

		if (t->t.commit == NULL) {
			/* Never fetched: trees_fetch() said why. */
		} else if (t->in || t->upstream) {
			t->t.state = t->in ? "merged" : "upstream";
			t->t.reported = NULL;
			if (!fetch_error)
				t->t.last_error = NULL;
		} else if (t->missing) {
			t->t.state = "failed";
			t->t.last_error = t->details;
		} else if (t->conflict) {
			struct buf why = BUF_INIT;
			struct str rest = buf_str(&t->files), line;

			if (t->against)
				buf_addf(&why, "breaks %s", t->against);
			else if (t->files.n)
				buf_adds(&why, "conflict in");
			while (!t->against && str_nextline(&rest, &line))
				buf_addf(&why, " %.*s%s", (int)line.n, line.p,
				    rest.n ? "," : "");
			if (t->details)
				buf_addf(&why, "%s%s", why.n ? ": " : "",
				    t->details);
			t->t.state = "conflict";
			t->t.last_error = arena_strdup(s->a, buf_cstr(&why));
			buf_free(&why);
			if (!same_str(t->t.reported, t->t.commit)) {
				e = report_tree(s, t, q, n);
				t->t.reported = t->t.commit;
			}
		}
		if (e == ERR_OK)
			e = store_tree_update(s->st, &t->t);
	}
	return e;
}

/*
 * #yard forward (or patchyard forward) asked for the stable queue to go
 * upstream: now the branch is built and pushed.  A push that failed
 * keeps the request for the next rebuild; a project that cannot forward
 * drops it (the log says why).
 */
static enum err
forward_asked(struct stager *s)
{
	char *actor = NULL;
	enum err e;

	if (!s->dry_run && !forward_requested(s->st, s->p, &actor))
		return ERR_OK;
	e = forward_built(s->st, s->conf, s->p, s->project_id, s->repo, s->base,
	    s->tip_s, actor, s->dry_run, s->report, NULL);
	if (s->dry_run)
		return e;
	free(actor);
	if (e == ERR_CONFLICT || e == ERR_NET)
		return ERR_OK;
	if (e == ERR_OK || e == ERR_CONFIG || e == ERR_INVAL)
		return forward_done(s->st, s->p);
	return e;
}

static enum err
rebuild_project(struct stager *s)
{
	int64_t *ids = NULL;
	size_t n = 0, i, nstable = 0, ntb = 0;
	struct qpatch *q = NULL;
	struct gitstage_result *res = NULL;
	struct tbuild *tb = NULL;
	char tip_s[41], tip_m[41], tip_u[41];
	bool pushed = false, again = true;
	enum err e = base_commit(s);

	if (e == ERR_OK)
		e = store_stage_queue(s->st, s->project_id, &ids, &n);
	if (e == ERR_OK) {
		q = xcalloc(n ? n : 1, sizeof(*q));
		res = xcalloc(n ? n : 1, sizeof(*res));
	}
	for (i = 0; i < n && e == ERR_OK; i++) {
		e = compose(s, ids[i], &q[i]);
		if (e == ERR_OK && strcmp(q[i].row.queue, "stable") == 0)
			nstable = i + 1;
	}
	if (e == ERR_OK)
		e = build_branch(s, "stable", s->base, q, nstable, res, tip_s);
	if (e == ERR_OK)
		e = load_trees(s, &tb, &ntb);
	/* unstable = stable + the trees + the unstable patches; a tree
	 * that breaks a patch is left out and the build runs again. */
	while (e == ERR_OK && again) {
		e = merge_trees(s, tb, ntb, tip_s, tip_m);
		if (e == ERR_OK)
			e = build_branch(s, "unstable", tip_m, q + nstable,
			    n - nstable, res + nstable, tip_u);
		if (e == ERR_OK)
			e = blame_trees(s, tb, ntb, tip_s, q + nstable,
			    n - nstable, res + nstable, &again);
	}
	if (e == ERR_OK)
		snprintf(s->tip_s, sizeof(s->tip_s), "%s", tip_s);
	if (e == ERR_OK && !s->dry_run)
		e = gitrepo_set_ref(s->repo, "refs/heads/stable", tip_s, NULL,
		    "patchyard: rebuild");
	if (e == ERR_OK && !s->dry_run)
		e = gitrepo_set_ref(s->repo, "refs/heads/unstable", tip_u, NULL,
		    "patchyard: rebuild");
	if (e == ERR_OK && !s->dry_run)
		e = export_quilt(s, q, n, nstable, tb, ntb);
	if (e == ERR_OK && !s->dry_run)
		e = push(s, &pushed);
	for (i = 0; i < n && e == ERR_OK; i++)
		e = judge(s, &q[i], &res[i], pushed);
	if (e == ERR_OK)
		e = judge_trees(s, tb, ntb, q, n);
	if (e == ERR_OK)
		e = forward_asked(s);
	if (e == ERR_OK)
		log_info("stage: %s: %zu stable, %zu unstable patches on %.12s",
		    s->p->name, nstable, n - nstable, s->base);
	for (i = 0; q && i < n; i++) {
		buf_free(&q[i].msg);
		buf_free(&q[i].diff);
		buf_free(&q[i].text);
	}
	free_trees(tb, ntb);
	free(q);
	free(res);
	free(ids);
	return e;
}

static enum err
with_project(struct store *st, const struct config *conf,
    const struct conf_project *p, enum err (*fn)(struct stager *),
    struct buf *report, bool dry_run)
{
	struct stager s;
	enum err e;

	memset(&s, 0, sizeof(s));
	s.report = report;
	s.dry_run = dry_run;
	s.st = st;
	s.conf = conf;
	s.p = p;
	s.now = time_now();
	s.a = arena_new();
	s.nt = notify_new(st, conf);
	e = gitrepo_open(p->staging, &s.repo);
	if (e == ERR_OK)
		e = store_begin(st);
	if (e == ERR_OK) {
		e = store_project_id(st, p->name, &s.project_id);
		if (e == ERR_OK)
			e = fn(&s);
		if (e == ERR_OK && !dry_run)
			e = store_commit(st);
		if (e != ERR_OK)
			store_rollback(st);
	}
	gitrepo_free(s.repo);
	notify_free(s.nt);
	arena_free(s.a);
	return e;
}

enum err
stage_rebuild(struct store *st, const struct config *conf)
{
	size_t i;
	enum err e = ERR_OK, first = ERR_OK;

	for (i = 0; i < conf->nprojects; i++) {
		if (conf->projects[i].staging == NULL)
			continue;
		e = with_project(
		    st, conf, &conf->projects[i], rebuild_project, NULL, false);
		if (e != ERR_OK && first == ERR_OK)
			first = e;
	}
	return first;
}

enum err
stage_rebuild_one(struct store *st, const struct config *conf,
    const struct conf_project *p, struct buf *report, bool dry_run)
{
	if (p->staging == NULL) {
		log_err("stage: %s: no staging repository (set "
		        "project.%s.staging)",
		    p->name, p->name);
		return ERR_CONFIG;
	}
	return with_project(st, conf, p, rebuild_project, report, dry_run);
}

/* ---- upstream ---- */

/* "<msgid> on 2026-12-03" when the patch was forwarded upstream, for
 * the merged mail; NULL otherwise. */
static const char *
forwarded_as(struct stager *s, int64_t patch_id)
{
	struct store_forward f;
	char date[32], line[400];

	if (store_forward_last(s->st, s->a, patch_id, &f) != ERR_OK ||
	    time_fmt_iso(date, sizeof(date), f.time) != ERR_OK)
		return NULL;
	date[10] = '\0';
	if (snprintf(line, sizeof(line), "<%s> on %s", f.message_id, date) >=
	    (int)sizeof(line))
		return NULL;
	return arena_strdup(s->a, line);
}

/* A chain of versions and copies is never longer than this; a longer
 * one is a bug, not a reason to loop. */
#define CHAIN_MAX 10000

/*
 * Upstream took an older version (or copy) than the newest: each newer
 * one still open gets an "earlier-merged" event, not "merged" (its code
 * may differ from what went in; a staged one meets the conflict or
 * "updated" handling on the next rebuild).
 */
static enum err
earlier_merged(struct stager *s, const struct qpatch *merged,
    const struct gitscan_commit *c)
{
	int64_t *todo = NULL, *ids = NULL;
	size_t cap = 0, n = 0, head = 0, nids, i;
	enum err e = ERR_OK;

	todo = xgrow(todo, &cap, 1, sizeof(*todo));
	todo[n++] = merged->row.id;
	while (head < n && n < CHAIN_MAX && e == ERR_OK) {
		if ((e = store_patch_successors(
		         s->st, todo[head++], &ids, &nids)) != ERR_OK)
			break;
		for (i = 0; i < nids && e == ERR_OK; i++) {
			struct qpatch q;

			todo = xgrow(todo, &cap, n + 1, sizeof(*todo));
			todo[n++] = ids[i];
			memset(&q, 0, sizeof(q));
			q.contribution = merged->contribution;
			if ((e = store_patch_get(s->st, s->a, ids[i], &q.row)))
				break;
			if (strcmp(q.row.state, "merged") == 0 ||
			    strcmp(q.row.state, "superseded") == 0)
				continue;
			e = event(s, "earlier-merged", &q,
			    arena_printf(
			        s->a, "%s as %s", merged->row.slug, c->commit),
			    NULL);
		}
		free(ids);
		ids = NULL;
	}
	free(todo);
	return e;
}

/*
 * Mark patch_id merged by c, unless its contribution had its match of
 * c already (*done: those contributions, *ndone of them): one upstream
 * commit matches at most one patch per contribution.
 */
static enum err
merge_patch(struct stager *s, int64_t patch_id, const char *how,
    const struct gitscan_commit *c, int64_t **done, size_t *ndone, size_t *cap)
{
	struct qpatch q;
	struct notify_kv kv[6];
	struct store_series ser;
	int64_t ev;
	size_t i;
	enum err e;

	memset(&q, 0, sizeof(q));
	if ((e = store_patch_get(s->st, s->a, patch_id, &q.row)) != ERR_OK)
		return e;
	if (strcmp(q.row.state, "merged") == 0)
		return ERR_OK;
	if ((e = store_series_get(s->st, s->a, q.row.series_id, &ser)))
		return e;
	q.contribution = ser.contribution_id;
	for (i = 0; i < *ndone; i++)
		if ((*done)[i] == q.contribution)
			return ERR_OK;
	*done = xgrow(*done, cap, *ndone + 1, sizeof(**done));
	(*done)[(*ndone)++] = q.contribution;
	q.row.state = "merged";
	q.row.reason = how;
	q.row.queue = NULL;
	q.row.queue_pos = 0;
	q.row.conflict = false;
	if ((e = store_patch_update(s->st, &q.row)) != ERR_OK)
		return e;
	/* Its stage acknowledgment would come too late to matter. */
	if ((e = store_outbox_cancel(s->st, q.row.id)) != ERR_OK)
		return e;
	if ((e = event(s, "merged", &q, c->commit, &ev)) != ERR_OK)
		return e;
	kv[0] = (struct notify_kv){ "how", how };
	kv[1] = (struct notify_kv){ "commit", c->commit };
	kv[2] = (struct notify_kv){ "commit_title", c->subject };
	kv[3] = (struct notify_kv){ "upstream", s->p->upstream };
	kv[4] = (struct notify_kv){ "forwarded", forwarded_as(s, q.row.id) };
	kv[5] = (struct notify_kv){ NULL, NULL };
	if ((e = notify_patch(s->nt, "merged", q.row.id, ev, NULL, kv, false)))
		return e;
	return earlier_merged(s, &q, c);
}

/* Contributions c matched already (one patch each). */
struct matched {
	int64_t *ids;
	size_t n, cap;
};

static enum err
merge_ids(struct stager *s, int64_t *ids, size_t n, const char *how,
    const struct gitscan_commit *c, bool *any, struct matched *done)
{
	size_t i;
	enum err e = ERR_OK;

	for (i = 0; i < n && e == ERR_OK; i++) {
		e = merge_patch(
		    s, ids[i], how, c, &done->ids, &done->n, &done->cap);
		*any = true;
	}
	free(ids);
	return e;
}

/* Exact (patch-id) before link (Message-ID) before changed (author and
 * title), one patch per contribution (DESIGN.md §6). */
static enum err
match_commit(struct stager *s, const struct gitscan_commit *c)
{
	struct matched done = { NULL, 0, 0 };
	int64_t *ids = NULL;
	size_t n = 0, i;
	bool any = false;
	enum err e = ERR_OK;

	if (c->patch_id[0] &&
	    (e = store_stage_by_patchid(
	         s->st, s->project_id, c->patch_id, &ids, &n)) == ERR_OK)
		e = merge_ids(s, ids, n, "exact", c, &any, &done);
	for (i = 0; i < c->nmsgids && e == ERR_OK && !any; i++) {
		struct store_msg m;

		if (!msgid_valid(str_from(c->msgids[i])) ||
		    store_msg_find(s->st, s->a, c->msgids[i], &m) != ERR_OK ||
		    m.kind != MAIL_PATCH || m.patch_id == 0)
			continue;
		ids = xmalloc(sizeof(*ids));
		ids[0] = m.patch_id;
		e = merge_ids(s, ids, 1, "link", c, &any, &done);
	}
	if (e == ERR_OK && !any && c->author_email && c->subject &&
	    (e = store_stage_by_author(s->st, s->project_id, c->author_email,
	         subject_norm(s->a, c->subject), &ids, &n)) == ERR_OK)
		e = merge_ids(s, ids, n, "changed", c, &any, &done);
	free(done.ids);
	return e;
}

/*
 * The upstream run fetches every tree too.  A tree whose commit
 * upstream has now has nothing left to merge; one from a pull request
 * is done then, and its pull request is recorded as merged.
 */
static enum err
fetch_trees(struct stager *s, const char *up)
{
	struct tbuild *tb = NULL;
	size_t n = 0, i;
	enum err e = load_trees(s, &tb, &n);

	for (i = 0; i < n && e == ERR_OK; i++) {
		struct store_tree *t = &tb[i].t;
		bool was_upstream = strcmp(t->state, "upstream") == 0;

		if (!tb[i].fetched)
			e = trees_fetch(s->repo, s->a, t, s->now);
		if (e == ERR_OK && t->commit &&
		    gitmerge_contains(s->repo, up, t->commit)) {
			t->state = "upstream";
			if (!was_upstream && t->from_mail) {
				struct store_event ev;

				memset(&ev, 0, sizeof(ev));
				ev.time = s->now;
				ev.kind = "merged";
				ev.message_id = t->message_id;
				ev.detail = t->name;
				e = store_event_add(s->st, &ev, NULL);
				log_info("stage: %s: upstream has the %s tree",
				    s->p->name, t->name);
			}
		} else if (e == ERR_OK && was_upstream) {
			t->state = "new"; /* new commits to merge */
		}
		if (e == ERR_OK)
			e = store_tree_update(s->st, t);
	}
	free_trees(tb, n);
	return e;
}

static enum err
upstream_project(struct stager *s)
{
	struct gitscan *scan = NULL;
	char tip[41], key[300], *old = NULL;
	size_t i;
	int k;
	enum err e;

	k = snprintf(key, sizeof(key), "upstream.%s", s->p->name);
	if (k < 0 || (size_t)k >= sizeof(key))
		return ERR_LIMIT;
	e = gitremote_fetch(s->repo, s->p->upstream, s->p->branch, tip);
	if (e == ERR_OK) {
		e = store_meta_get(s->st, key, &old);
		if (e == ERR_NOTFOUND)
			e = ERR_OK; /* the first scan only records */
	}
	if (e == ERR_OK && old && strcmp(old, tip) != 0)
		e = gitscan_range(s->repo, old, tip, &scan);
	for (i = 0; scan && e == ERR_OK && i < gitscan_count(scan); i++)
		e = match_commit(s, gitscan_at(scan, i));
	if (e == ERR_OK)
		e = store_meta_set(s->st, key, tip);
	if (e == ERR_OK)
		e = fetch_trees(s, tip);
	gitscan_free(scan);
	free(old);
	return e;
}

enum err
stage_upstream(struct store *st, const struct config *conf)
{
	size_t i;
	enum err e, first = ERR_OK;

	for (i = 0; i < conf->nprojects; i++) {
		const struct conf_project *p = &conf->projects[i];

		if (p->staging == NULL || p->upstream == NULL)
			continue;
		e = with_project(st, conf, p, upstream_project, NULL, false);
		if (e != ERR_OK && first == ERR_OK)
			first = e;
	}
	return first;
}
