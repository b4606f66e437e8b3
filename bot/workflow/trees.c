/*
 * Subsystem trees: the table kept in step with the configuration, the
 * fetch into refs/trees/NAME, the listing, and trees staged from
 * pull-request mails.
 *
 * A URL from a mail is fetched by the bot with its own credentials, so
 * only the anonymous transports are taken from mail (https, http, git):
 * no local paths, no ssh with the bot's agent.
 */
#include "bot/workflow/trees.h"

#include <stdlib.h>
#include <string.h>

#include "bot/git/gitremote.h"
#include "parsers/addr.h"
#include "storage/store_event.h"
#include "storage/store_msg.h"
#include "util/ascii.h"
#include "util/json.h"
#include "util/log.h"
#include "util/oid.h"
#include "util/timeutil.h"

#define NAME_MAX_LEN 64

enum err
trees_ref(const struct store_tree *t, char *out, size_t n)
{
	int k = snprintf(out, n, "refs/trees/%s", t->name);

	return k < 0 || (size_t)k >= n ? ERR_LIMIT : ERR_OK;
}

/* ---- in step with the configuration ---- */

static const struct conf_tree *
conf_tree(const struct config *conf, const struct conf_project *p,
    const char *name, size_t *pos)
{
	size_t i, k = 0;

	for (i = 0; i < conf->ntrees; i++) {
		const struct conf_tree *c = &conf->trees[i];

		if (c->project && strcmp(c->project, p->name) != 0)
			continue;
		if (strcmp(c->name, name) == 0) {
			*pos = k;
			return c;
		}
		k++;
	}
	return NULL;
}

static bool
same(const char *a, const char *b)
{
	return (a == NULL && b == NULL) ||
	    (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Configured trees in the table: changed ones updated (a new URL or
 * branch starts over), removed ones deleted, new ones added. */
static enum err
sync_config(struct store *st, struct arena *a, const struct config *conf,
    const struct conf_project *p, int64_t project_id, int64_t now)
{
	struct store_tree *v = NULL, t;
	size_t n = 0, i, k, pos = 0;
	enum err e = store_tree_list(st, a, project_id, &v, &n);

	for (i = 0; i < n && e == ERR_OK; i++) {
		const struct conf_tree *c;

		if (v[i].from_mail)
			continue;
		if ((c = conf_tree(conf, p, v[i].name, &pos)) == NULL) {
			e = store_tree_delete(st, v[i].id);
			continue;
		}
		if (same(c->url, v[i].url) && same(c->branch, v[i].branch) &&
		    same(c->owner, v[i].owner) && v[i].pos == (int64_t)pos)
			continue;
		if (!same(c->url, v[i].url) || !same(c->branch, v[i].branch)) {
			v[i].commit = NULL;
			v[i].state = "new";
			v[i].last_error = NULL;
			v[i].reported = NULL;
			v[i].since = now;
		}
		v[i].url = c->url;
		v[i].branch = c->branch;
		v[i].owner = c->owner;
		v[i].pos = (int64_t)pos;
		e = store_tree_update(st, &v[i]);
	}
	for (i = 0, pos = 0; i < conf->ntrees && e == ERR_OK; i++) {
		const struct conf_tree *c = &conf->trees[i];
		bool have = false;

		if (c->project && strcmp(c->project, p->name) != 0)
			continue;
		for (k = 0; k < n && !have; k++)
			have =
			    !v[k].from_mail && strcmp(v[k].name, c->name) == 0;
		if (!have) {
			memset(&t, 0, sizeof(t));
			t.project_id = project_id;
			t.name = c->name;
			t.url = c->url;
			t.branch = c->branch;
			t.owner = c->owner;
			t.state = "new";
			t.since = now;
			t.pos = (int64_t)pos;
			e = store_tree_add(st, &t, NULL);
		}
		pos++;
	}
	return e;
}

enum err
trees_load(struct store *st, struct arena *a, const struct config *conf,
    const struct conf_project *p, int64_t project_id, int64_t now,
    struct store_tree **out, size_t *n)
{
	enum err e = sync_config(st, a, conf, p, project_id, now);

	if (e == ERR_OK)
		e = store_tree_list(st, a, project_id, out, n);
	return e;
}

/* ---- fetching ---- */

enum err
trees_fetch(
    struct gitrepo *r, struct arena *a, struct store_tree *t, int64_t now)
{
	char ref[300], tip[OID_HEX_SIZE], why[256];
	enum err e;

	if (t->pinned && gitrepo_has(r, t->pinned)) {
		if (!same(t->commit, t->pinned)) {
			t->commit = t->pinned;
			t->since = now;
		}
		return ERR_OK;
	}
	if ((e = trees_ref(t, ref, sizeof(ref))) != ERR_OK)
		snprintf(why, sizeof(why), "not a usable tree name");
	else
		e = gitremote_fetch_ref(
		    r, t->url, t->branch, ref, tip, why, sizeof(why));
	if (e == ERR_OK && t->pinned && !gitrepo_has(r, t->pinned)) {
		snprintf(why, sizeof(why), "%s %s does not hold commit %.12s",
		    t->url, t->branch, t->pinned);
		e = ERR_NOTFOUND;
	}
	if (e != ERR_OK) {
		char line[300];

		snprintf(line, sizeof(line), "fetch: %s", why);
		log_warn("trees: %s: %s", t->name, line);
		t->last_error = arena_strdup(a, line);
		if (t->commit == NULL)
			t->state = "failed";
		return ERR_OK;
	}
	if (t->last_error && strncmp(t->last_error, "fetch: ", 7) == 0)
		t->last_error = NULL;
	if (t->pinned)
		strcpy(tip, t->pinned);
	if (!same(t->commit, tip)) {
		t->commit = arena_strdup(a, tip);
		t->since = now;
		if (strcmp(t->state, "failed") == 0)
			t->state = "new";
	}
	return ERR_OK;
}

const char *
trees_merge_message(struct arena *a, const struct store_tree *t)
{
	struct buf b = BUF_INIT;
	const char *br = t->branch, *kind = "branch", *s;

	if (strncmp(br, "refs/heads/", 11) == 0)
		br += 11;
	else if (strncmp(br, "refs/tags/", 10) == 0)
		br += 10, kind = "tag";
	else if (strncmp(br, "tags/", 5) == 0)
		br += 5, kind = "tag";
	buf_addf(&b, "Merge %s '%s' of %s\n\nThe %s tree, commit %s.\n", kind,
	    br, t->url, t->name, t->commit ? t->commit : "");
	s = arena_strdup(a, buf_cstr(&b));
	buf_free(&b);
	return s;
}

/* ---- the listing ---- */

enum err
trees_write(struct store *st, bool json, struct buf *b)
{
	struct arena *a = arena_new();
	struct store_tree *v = NULL;
	struct json j;
	size_t n = 0, i;
	enum err e = store_tree_list(st, a, 0, &v, &n);

	if (json) {
		json_init(&j, b, true);
		json_arr_begin(&j);
	}
	for (i = 0; i < n && e == ERR_OK; i++) {
		if (!json) {
			buf_addf(b, "%s\t%s %s\t%.12s\t%s%s%s\n", v[i].name,
			    v[i].url, v[i].branch,
			    v[i].commit ? v[i].commit : "-", v[i].state,
			    v[i].last_error ? ": " : "",
			    v[i].last_error ? v[i].last_error : "");
			continue;
		}
		json_obj_begin(&j);
		json_key(&j, "name");
		json_str(&j, v[i].name);
		json_key(&j, "project");
		json_str(&j, store_project_name(st, v[i].project_id));
		json_key(&j, "url");
		json_str(&j, v[i].url);
		json_key(&j, "branch");
		json_str(&j, v[i].branch);
		json_key(&j, "commit");
		json_str(&j, v[i].commit);
		json_key(&j, "state");
		json_str(&j, v[i].state);
		json_key(&j, "last_error");
		json_str(&j, v[i].last_error);
		json_key(&j, "origin");
		json_str(&j, v[i].from_mail ? "mail" : "config");
		json_key(&j, "owner");
		json_str(&j, v[i].owner);
		json_obj_end(&j);
	}
	if (json) {
		json_arr_end(&j);
		buf_addc(b, '\n');
	}
	arena_free(a);
	return e;
}

enum err
trees_show(struct store *st, bool json, FILE *out)
{
	struct buf b = BUF_INIT;
	enum err e = trees_write(st, json, &b);

	if (e == ERR_OK &&
	    (fwrite(b.p ? b.p : "", 1, b.n, out) != b.n || fflush(out) != 0))
		e = ERR_IO;
	buf_free(&b);
	return e;
}

/* ---- trees from pull-request mails ---- */

static bool
url_from_mail_ok(const char *url)
{
	const char *p;

	if (!(strncmp(url, "https://", 8) == 0 ||
	        strncmp(url, "http://", 7) == 0 ||
	        strncmp(url, "git://", 6) == 0))
		return false;
	for (p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '\\')
			return false;
	return p - url < 512;
}

static bool
hex40(const char *s)
{
	size_t i;

	for (i = 0; s && i < 40; i++)
		if (!ascii_isxdigit(s[i]))
			return false;
	return s && s[40] == '\0';
}

/* A name from the URL: its last path component without ".git", in
 * letters, digits, '.', '_' and '-'; unique in the project. */
static const char *
pull_name(
    struct arena *a, const char *url, const struct store_tree *v, size_t n)
{
	const char *end = url + strlen(url), *start;
	char base[NAME_MAX_LEN + 1], name[NAME_MAX_LEN + 8];
	size_t k = 0, i;
	int suffix;

	while (end > url && end[-1] == '/')
		end--;
	if (end - url > 4 && strncmp(end - 4, ".git", 4) == 0)
		end -= 4;
	for (start = end; start > url && start[-1] != '/'; start--)
		;
	for (; start < end && k < NAME_MAX_LEN; start++, k++)
		base[k] = ascii_isalnum(*start) || *start == '_' ||
		        *start == '-' || (*start == '.' && k > 0)
		    ? *start
		    : '-';
	base[k] = '\0';
	if (k == 0 || base[0] == '-')
		snprintf(base, sizeof(base), "pull");
	for (suffix = 1;; suffix++) {
		bool taken = false;

		if (suffix == 1)
			snprintf(name, sizeof(name), "%s", base);
		else
			snprintf(name, sizeof(name), "%s-%d", base, suffix);
		for (i = 0; i < n && !taken; i++)
			taken = strcmp(v[i].name, name) == 0;
		if (!taken)
			return arena_strdup(a, name);
	}
}

static enum err
tree_event(struct store *st, enum model_event kind, int64_t cmd_msg,
    const char *actor, const char *detail, int64_t now)
{
	struct store_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.time = now;
	ev.kind = kind;
	ev.message_id = cmd_msg;
	ev.actor = actor;
	ev.detail = detail;
	return store_event_add(st, &ev, NULL);
}

/* The pull request of message id, parsed again from its raw bytes. */
static enum err
read_pull(struct store *st, struct arena *a, int64_t id, struct store_msg *r,
    struct mail *m)
{
	struct mail_opts o;
	const char *raw;
	size_t n;
	enum err e = store_msg_get(st, a, id, r);

	if (e == ERR_OK)
		e = store_msg_raw(st, a, id, &raw, &n);
	if (e != ERR_OK)
		return e;
	memset(&o, 0, sizeof(o));
	mail_parse(a, raw, n, &o, m);
	return m->pull ? ERR_OK : ERR_NOTFOUND;
}

static enum err
drop_pull(struct store *st, struct store_tree *v, size_t n, int64_t pull_msg,
    const char *actor, int64_t cmd_msg, int64_t now, struct buf *msg)
{
	size_t i;
	enum err e = ERR_OK;

	for (i = 0; i < n; i++)
		if (v[i].from_mail && v[i].message_id == pull_msg)
			break;
	if (i == n) {
		buf_adds(msg, "this pull request is not staged");
		return ERR_CONFLICT;
	}
	e = store_tree_delete(st, v[i].id);
	if (e == ERR_OK)
		e = tree_event(
		    st, EVENT_DROPPED, cmd_msg, actor, v[i].name, now);
	if (e == ERR_OK)
		buf_addf(msg,
		    "the tree %s is dropped: the next rebuild leaves it out",
		    v[i].name);
	return e;
}

enum err
trees_stage_pull(struct store *st, const struct config *conf, struct arena *a,
    int64_t pull_msg, bool drop, const char *actor, int64_t cmd_msg,
    int64_t now, struct buf *msg)
{
	const struct conf_project *p;
	struct store_tree *v = NULL, t;
	struct store_msg r;
	struct mail m;
	size_t n = 0, i;
	char detail[700];
	enum err e = read_pull(st, a, pull_msg, &r, &m);

	if (e == ERR_NOTFOUND) {
		buf_adds(msg, "this mail is not a pull request any more");
		return ERR_INVAL;
	}
	if (e != ERR_OK)
		return e;
	p = config_project(conf, store_project_name(st, r.project_id));
	if (p == NULL || p->staging == NULL) {
		buf_addf(msg, "%s has no staging tree to merge trees into",
		    p ? p->name : "this list");
		return ERR_CONFLICT;
	}
	if ((e = store_tree_list(st, a, r.project_id, &v, &n)) != ERR_OK)
		return e;
	if (drop)
		return drop_pull(st, v, n, pull_msg, actor, cmd_msg, now, msg);
	if (!url_from_mail_ok(m.pull->url)) {
		buf_adds(msg,
		    "trees are fetched from https://, http:// or git:// "
		    "URLs only");
		return ERR_INVAL;
	}
	if (m.pull->ref == NULL || !gitremote_ref_valid(m.pull->ref) ||
	    !hex40(m.pull->commit)) {
		buf_adds(msg,
		    "the pull request names no branch or tag and full "
		    "commit id (\"for you to fetch changes up to\")");
		return ERR_INVAL;
	}
	memset(&t, 0, sizeof(t));
	for (i = 0; i < n; i++)
		if (v[i].from_mail && strcmp(v[i].url, m.pull->url) == 0 &&
		    strcmp(v[i].branch, m.pull->ref) == 0)
			t = v[i];
	if (t.id && t.pinned && ascii_stricmp(t.pinned, m.pull->commit) == 0 &&
	    t.message_id == pull_msg) {
		buf_addf(msg, "the tree %s is staged already", t.name);
		return ERR_OK;
	}
	t.project_id = r.project_id;
	if (t.id == 0) {
		t.name = pull_name(a, m.pull->url, v, n);
		t.pos = (int64_t)n;
	}
	t.url = m.pull->url;
	t.branch = m.pull->ref;
	t.owner = *r.from_email ? r.from_email : NULL;
	t.from_mail = true;
	t.message_id = pull_msg;
	t.pinned = m.pull->commit;
	t.commit = NULL;
	t.state = "new";
	t.last_error = NULL;
	t.reported = NULL;
	t.since = now;
	e = t.id ? store_tree_update(st, &t) : store_tree_add(st, &t, NULL);
	snprintf(detail, sizeof(detail), "tree %s %.400s %.200s %.12s", t.name,
	    t.url, t.branch, t.pinned);
	if (e == ERR_OK)
		e = tree_event(st, EVENT_STAGED, cmd_msg, actor, detail, now);
	if (e == ERR_OK)
		buf_addf(msg,
		    "the tree %s (%s %s, up to %.12s) is staged: the "
		    "next rebuild merges it into the unstable branch",
		    t.name, t.url, t.branch, t.pinned);
	return e;
}
