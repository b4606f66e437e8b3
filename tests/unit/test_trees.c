/*
 * Subsystem trees (bot/workflow/trees.c) on a store in memory: the
 * table kept in step with [tree "NAME"] sections, the ref and the merge
 * message, the listing in text and JSON (read back with jansson), and
 * trees staged and dropped from `git request-pull` mails by a
 * maintainer's `#yard stage` and `#yard drop`, with the refusals.  The
 * fetch runs against repositories made with git in a scratch folder
 * (tests/unit/gittest.h): a local path is a URL the configuration may
 * name.
 */
/* jansson's json_null() and util/json.h's (through show.h) share a
 * name; this file calls neither, so jansson's is named apart here. */
#define json_null jansson_json_null
#include <jansson.h>
#undef json_null

#include "bot/git/gitrepo.h"
#include "bot/workflow/trees.h"
#include "storage/store_msg.h"
#include "storage/store_tree.h"
#include "storage/store_web.h"
#include "tests/unit/gittest.h"
#include "tests/unit/workflowtest.h"
#include "util/log.h"

#define MIA "Mia Maint <mia@maint.example.org>"
#define NOW 1800000000

#define CONF_HEAD                                                              \
	"[core]\n\tdatabase = unused\n"                                        \
	"[bot]\n\taddress = yard@bot.example.org\n"                            \
	"[project \"demo\"]\n\tlist = demo@lists.example.org\n"
#define CONF_TAIL                                                              \
	"[project \"other\"]\n\tlist = other@lists.example.org\n"              \
	"[maintainer \"mia\"]\n\temail = mia@maint.example.org\n"              \
	"[maintainer \"doc\"]\n\temail = doc@maint.example.org\n"              \
	"\tpath = doc/\n"                                                      \
	"[auth]\n\trequire = none\n"
/* demo's staging repository is never opened here: nothing is built. */
#define STAGING "\tstaging = unused.git\n"

static const char conf_trees[] = CONF_HEAD STAGING CONF_TAIL
    "[tree \"net\"]\n\turl = https://git.example.org/net.git\n"
    "\tbranch = main\n\towner = net@example.org\n"
    "[tree \"fs\"]\n\turl = git://git.example.org/fs.git\n"
    "\tproject = demo\n"
    "[tree \"misc\"]\n\turl = /srv/git/misc.git\n\tproject = other\n";

static const char conf_nostaging[] = CONF_HEAD CONF_TAIL;

static int
setup(void **state)
{
	struct wt *f = calloc(1, sizeof(*f));
	const char *text = *state ? *state : conf_trees;

	if (f == NULL || wt_open(f, text, ":memory:") != 0)
		return -1;
	*state = f;
	return 0;
}

static int64_t
project_id(struct wt *f, const char *name)
{
	int64_t id = 0;

	assert_int_equal(store_project_id(f->st, name, &id), ERR_OK);
	return id;
}

/* trees_load for project name with conf, in a transaction. */
static struct store_tree *
load(struct wt *f, const struct config *conf, const char *name, int64_t now,
    size_t *n)
{
	struct store_tree *v = NULL;

	assert_int_equal(store_begin(f->st), ERR_OK);
	assert_int_equal(
	    trees_load(f->st, f->a, conf, config_project(conf, name),
	        project_id(f, name), now, &v, n),
	    ERR_OK);
	assert_int_equal(store_commit(f->st), ERR_OK);
	return v;
}

/* The tree called name in v, or NULL. */
static struct store_tree *
find(struct store_tree *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

/* The names of v, blank-separated, in their order. */
static const char *
names(struct wt *f, const struct store_tree *v, size_t n)
{
	struct buf b = BUF_INIT;
	const char *s;
	size_t i;

	for (i = 0; i < n; i++)
		buf_addf(&b, "%s%s", i ? " " : "", v[i].name);
	s = arena_strdup(f->a, buf_cstr(&b));
	buf_free(&b);
	return s;
}

/* Another configuration, as after a SIGHUP; it lives in f's arena. */
static const struct config *
reconfigure(struct wt *f, const char *text)
{
	struct config *c = arena_zalloc(f->a, sizeof(*c));
	struct config_error *errs;
	size_t nerrs;

	assert_int_equal(config_parse(f->a, "test.conf", text, strlen(text), c,
	                     &errs, &nerrs),
	    ERR_OK);
	return c;
}

static void
save(struct wt *f, const struct store_tree *t)
{
	assert_int_equal(store_begin(f->st), ERR_OK);
	assert_int_equal(store_tree_update(f->st, t), ERR_OK);
	assert_int_equal(store_commit(f->st), ERR_OK);
}

/*
 * Each project gets the trees configured for it and those for every
 * project, in the order of the file; a second load adds nothing.
 */
static void
test_load_per_project(void **state)
{
	struct wt *f = *state;
	struct store_tree *v, *t;
	size_t n;

	v = load(f, &f->conf, "demo", NOW, &n);
	assert_string_equal(names(f, v, n), "net fs");
	t = find(v, n, "net");
	assert_string_equal(t->url, "https://git.example.org/net.git");
	assert_string_equal(t->branch, "main");
	assert_string_equal(t->owner, "net@example.org");
	assert_string_equal(t->state, "new");
	assert_null(t->commit);
	assert_null(t->last_error);
	assert_false(t->from_mail);
	assert_int_equal(t->since, NOW);
	assert_int_equal(t->pos, 0);
	t = find(v, n, "fs");
	assert_string_equal(t->branch, "master");
	assert_null(t->owner);
	assert_int_equal(t->pos, 1);
	assert_int_equal(t->project_id, project_id(f, "demo"));
	v = load(f, &f->conf, "other", NOW, &n);
	assert_string_equal(names(f, v, n), "net misc");
	assert_int_equal(
	    find(v, n, "misc")->project_id, project_id(f, "other"));
	v = load(f, &f->conf, "demo", NOW + 60, &n);
	assert_int_equal(n, 2);
	assert_int_equal(find(v, n, "net")->since, NOW);
}

/* The trees of conf_trees with net's URL and fs's owner changed and mm
 * added; net's and fs's places swapped when swap. */
#define TREE_NET                                                               \
	"[tree \"net\"]\n\turl = https://git.example.org/net-next.git\n"       \
	"\tbranch = main\n\towner = net@example.org\n"
#define TREE_FS                                                                \
	"[tree \"fs\"]\n\turl = git://git.example.org/fs.git\n"                \
	"\tproject = demo\n\towner = fs@example.org\n"
#define TREE_MM "[tree \"mm\"]\n\turl = https://git.example.org/mm.git\n"

/*
 * A changed configuration: a new URL starts the tree over (no commit,
 * state new, the error gone, since now); a new owner or place keeps
 * what was fetched; a removed section deletes the tree, a new one is
 * added; a tree from mail is left alone.
 */
static void
test_load_follows_config(void **state)
{
	struct wt *f = *state;
	static const char changed[] =
	    CONF_HEAD STAGING CONF_TAIL TREE_NET TREE_FS TREE_MM;
	static const char swapped[] =
	    CONF_HEAD STAGING CONF_TAIL TREE_FS TREE_NET TREE_MM;
	static const char fewer[] = CONF_HEAD STAGING CONF_TAIL TREE_MM;
	struct store_tree *v, *t, mail;
	size_t n, i;

	v = load(f, &f->conf, "demo", NOW, &n);
	for (i = 0; i < n; i++) {
		v[i].commit = i ? "2222222222222222222222222222222222222222"
		                : "1111111111111111111111111111111111111111";
		v[i].state = "merged";
		v[i].last_error = "fetch: it was down once";
		save(f, &v[i]);
	}
	memset(&mail, 0, sizeof(mail));
	mail.project_id = project_id(f, "demo");
	mail.name = "doc";
	mail.url = "https://example.org/doc.git";
	mail.branch = "for-demo";
	mail.from_mail = true;
	mail.pinned = "3333333333333333333333333333333333333333";
	mail.state = "new";
	assert_int_equal(store_begin(f->st), ERR_OK);
	assert_int_equal(store_tree_add(f->st, &mail, NULL), ERR_OK);
	assert_int_equal(store_commit(f->st), ERR_OK);

	v = load(f, reconfigure(f, changed), "demo", NOW + 100, &n);
	assert_string_equal(names(f, v, n), "net fs mm doc");
	t = find(v, n, "net");
	assert_string_equal(t->url, "https://git.example.org/net-next.git");
	assert_null(t->commit);
	assert_string_equal(t->state, "new");
	assert_null(t->last_error);
	assert_int_equal(t->since, NOW + 100);
	t = find(v, n, "fs");
	assert_string_equal(t->owner, "fs@example.org");
	assert_string_equal(
	    t->commit, "2222222222222222222222222222222222222222");
	assert_string_equal(t->state, "merged");
	assert_string_equal(t->last_error, "fetch: it was down once");
	assert_int_equal(t->since, NOW);
	t = find(v, n, "mm");
	assert_string_equal(t->state, "new");
	assert_int_equal(t->since, NOW + 100);
	assert_int_equal(t->pos, 2);
	assert_true(find(v, n, "doc")->from_mail);
	/* other's list is its own: misc went with its section. */
	v = load(f, reconfigure(f, changed), "other", NOW + 100, &n);
	assert_string_equal(names(f, v, n), "net mm");

	v = load(f, reconfigure(f, swapped), "demo", NOW + 200, &n);
	assert_string_equal(names(f, v, n), "fs net mm doc");
	assert_int_equal(find(v, n, "fs")->pos, 0);
	assert_int_equal(find(v, n, "net")->pos, 1);
	assert_string_equal(find(v, n, "fs")->commit,
	    "2222222222222222222222222222222222222222");
	assert_int_equal(find(v, n, "net")->since, NOW + 100);

	v = load(f, reconfigure(f, fewer), "demo", NOW + 300, &n);
	assert_string_equal(names(f, v, n), "mm doc");
	assert_int_equal(find(v, n, "mm")->pos, 0);
	assert_int_equal(find(v, n, "mm")->since, NOW + 100);
	v = load(f, reconfigure(f, conf_nostaging), "demo", NOW + 400, &n);
	assert_string_equal(names(f, v, n), "doc");
}

static void
test_ref(void **state)
{
	struct store_tree t;
	char ref[32];

	(void)state;
	memset(&t, 0, sizeof(t));
	t.name = "net-next";
	assert_int_equal(trees_ref(&t, ref, sizeof(ref)), ERR_OK);
	assert_string_equal(ref, "refs/trees/net-next");
	/* Exactly the room it needs, then one byte less. */
	assert_int_equal(
	    trees_ref(&t, ref, strlen("refs/trees/net-next") + 1), ERR_OK);
	assert_int_equal(
	    trees_ref(&t, ref, strlen("refs/trees/net-next")), ERR_LIMIT);
	assert_int_equal(trees_ref(&t, ref, 8), ERR_LIMIT);
}

/* git's words for a pull: "Merge branch 'B' of URL", "Merge tag". */
static void
test_merge_message(void **state)
{
	static const struct {
		const char *branch, *want;
	} cases[] = {
		{ "main",
		    "Merge branch 'main' of https://example.org/net.git" },
		{ "refs/heads/for-linus",
		    "Merge branch 'for-linus' of https://example.org/net.git" },
		{ "refs/tags/net-6.9",
		    "Merge tag 'net-6.9' of https://example.org/net.git" },
		{ "tags/net-6.9",
		    "Merge tag 'net-6.9' of https://example.org/net.git" },
	};
	struct arena *a = arena_new();
	struct store_tree t;
	size_t i;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.name = "net";
	t.url = "https://example.org/net.git";
	t.commit = "0123456789abcdef0123456789abcdef01234567";
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		t.branch = cases[i].branch;
		assert_string_equal(trees_merge_message(a, &t),
		    arena_printf(a,
		        "%s\n\nThe net tree, commit "
		        "0123456789abcdef0123456789abcdef01234567.\n",
		        cases[i].want));
	}
	arena_free(a);
}

/* `patchyard trees` and `trees --json` (GET /api/trees). */
static void
test_write(void **state)
{
	struct wt *f = *state;
	struct store_tree *v;
	struct buf b = BUF_INIT;
	json_error_t jerr;
	json_t *arr, *o;
	size_t n;

	v = load(f, &f->conf, "demo", NOW, &n);
	v[0].commit = "0123456789abcdef0123456789abcdef01234567";
	v[0].state = "conflict";
	v[0].last_error = "conflict in src/a.c";
	save(f, &v[0]);
	load(f, &f->conf, "other", NOW, &n);

	assert_int_equal(trees_write(f->st, false, &b), ERR_OK);
	assert_string_equal(buf_cstr(&b),
	    "net\thttps://git.example.org/net.git main\t0123456789ab\t"
	    "conflict: conflict in src/a.c\n"
	    "fs\tgit://git.example.org/fs.git master\t-\tnew\n"
	    "net\thttps://git.example.org/net.git main\t-\tnew\n"
	    "misc\t/srv/git/misc.git master\t-\tnew\n");
	buf_reset(&b);

	assert_int_equal(trees_write(f->st, true, &b), ERR_OK);
	arr = json_loads(buf_cstr(&b), 0, &jerr);
	if (arr == NULL)
		fail_msg("not JSON: %s: %s", jerr.text, buf_cstr(&b));
	assert_true(json_is_array(arr));
	assert_int_equal(json_array_size(arr), 4);
	o = json_array_get(arr, 0);
	assert_string_equal(
	    json_string_value(json_object_get(o, "name")), "net");
	assert_string_equal(
	    json_string_value(json_object_get(o, "project")), "demo");
	assert_string_equal(json_string_value(json_object_get(o, "url")),
	    "https://git.example.org/net.git");
	assert_string_equal(
	    json_string_value(json_object_get(o, "branch")), "main");
	assert_string_equal(json_string_value(json_object_get(o, "commit")),
	    "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(
	    json_string_value(json_object_get(o, "state")), "conflict");
	assert_string_equal(json_string_value(json_object_get(o, "last_error")),
	    "conflict in src/a.c");
	assert_string_equal(
	    json_string_value(json_object_get(o, "origin")), "config");
	assert_string_equal(
	    json_string_value(json_object_get(o, "owner")), "net@example.org");
	assert_int_equal(json_object_size(o), 9);
	o = json_array_get(arr, 1);
	assert_true(json_is_null(json_object_get(o, "commit")));
	assert_true(json_is_null(json_object_get(o, "last_error")));
	assert_true(json_is_null(json_object_get(o, "owner")));
	o = json_array_get(arr, 3);
	assert_string_equal(
	    json_string_value(json_object_get(o, "project")), "other");
	assert_string_equal(
	    json_string_value(json_object_get(o, "name")), "misc");
	json_decref(arr);
	buf_free(&b);
}

/* ---- pull requests ---- */

#define UP_TO "b2b243f8dd874dc8f9373bd018319443eedfcb26"

/*
 * A mail as `git request-pull` writes it, from `from`: url_ref is the
 * line after "are available in the Git repository at:", up_to the
 * commit of "for you to fetch changes up to"; its Message-ID.
 */
static const char *
pull_mail(
    struct wt *f, const char *from, const char *url_ref, const char *up_to)
{
	const char *id = arena_printf(f->a, "pull%d@example.org", ++f->n);
	struct store_msg r;

	wt_ingest(f,
	    arena_printf(f->a,
	        "From: %s\nTo: demo@lists.example.org\n"
	        "Subject: [GIT PULL] doc: spelling\nMessage-ID: <%s>\n"
	        "Date: Mon, 7 Dec 2026 10:00:00 +0000\n\n"
	        "Hi,\n\nplease pull these fixes.\n\n"
	        "The following changes since commit "
	        "c6133c21f0d029eb32b2a90119d55fe843563771:\n\n"
	        "  doc: start (2026-12-03 07:12:37 +0000)\n\n"
	        "are available in the Git repository at:\n\n  %s\n\n"
	        "for you to fetch changes up to %s:\n\n"
	        "  doc: spell three (2026-12-05 08:00:00 +0000)\n\n"
	        "-------------------------------------------------------"
	        "---------\nMia Maint (1):\n      doc: spell three\n\n"
	        " doc/x.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 "
	        "deletion(-)\n",
	        from, id, url_ref, up_to));
	assert_int_equal(store_msg_find(f->st, f->a, id, &r), ERR_OK);
	assert_int_equal(r.kind, MAIL_PULL);
	return id;
}

/* The trees of demo that came from mail. */
static struct store_tree *
mail_trees(struct wt *f, size_t *n)
{
	struct store_tree *v = NULL, *out;
	size_t all = 0, i;

	assert_int_equal(
	    store_tree_list(f->st, f->a, project_id(f, "demo"), &v, &all),
	    ERR_OK);
	out = arena_zalloc(f->a, (all ? all : 1) * sizeof(*out));
	for (i = *n = 0; i < all; i++)
		if (v[i].from_mail)
			out[(*n)++] = v[i];
	return out;
}

/* The newest event. */
static struct store_web_event
last_event(struct wt *f)
{
	struct store_web_event *v = NULL;
	size_t n = 0;

	assert_int_equal(
	    store_web_events(f->st, f->a, 0, 10000, &v, &n), ERR_OK);
	assert_true(n > 0);
	return v[n - 1];
}

static int64_t
row_of(struct wt *f, const char *msgid)
{
	struct store_msg r;

	assert_int_equal(store_msg_find(f->st, f->a, msgid, &r), ERR_OK);
	return r.id;
}

/*
 * A whole-project maintainer's `#yard stage` on the pull request adds a
 * tree named after the URL, pinned to the commit the mail names, owned
 * by its sender, with its event and an answer; again, nothing changes.
 * `#yard drop` takes it out; a second drop is refused.
 */
static void
test_stage_and_drop_pull(void **state)
{
	struct wt *f = *state;
	const char *p = pull_mail(
	    f, MIA, "https://git.example.org/mia/doc.git for-demo", UP_TO);
	struct store_web_event ev;
	struct store_tree *t;
	const char *cmd;
	size_t n;

	cmd = wt_reply(f, p, MIA, "Thanks.\n\n#yard stage");
	t = mail_trees(f, &n);
	assert_int_equal(n, 1);
	assert_string_equal(t->name, "doc");
	assert_string_equal(t->url, "https://git.example.org/mia/doc.git");
	assert_string_equal(t->branch, "for-demo");
	assert_string_equal(t->pinned, UP_TO);
	assert_null(t->commit);
	assert_string_equal(t->owner, "mia@maint.example.org");
	assert_string_equal(t->state, "new");
	assert_int_equal(t->message_id, row_of(f, p));
	assert_non_null(strstr(wt_transcript(f),
	    "the tree doc (https://git.example.org/mia/doc.git for-demo, up "
	    "to b2b243f8dd87) is staged"));
	ev = last_event(f);
	assert_int_equal(ev.kind, EVENT_STAGED);
	assert_string_equal(ev.detail,
	    "tree doc https://git.example.org/mia/doc.git for-demo "
	    "b2b243f8dd87");
	assert_string_equal(ev.message_id, cmd);
	assert_string_equal(ev.actor, "Mia Maint");

	wt_reply(f, p, MIA, "#yard stage");
	assert_non_null(
	    strstr(wt_transcript(f), "the tree doc is staged already"));
	mail_trees(f, &n);
	assert_int_equal(n, 1);

	cmd = wt_reply(f, p, MIA, "#yard drop obsolete");
	assert_non_null(strstr(wt_transcript(f),
	    "the tree doc is dropped: the next rebuild leaves it out"));
	mail_trees(f, &n);
	assert_int_equal(n, 0);
	ev = last_event(f);
	assert_int_equal(ev.kind, EVENT_DROPPED);
	assert_string_equal(ev.detail, "doc");
	assert_string_equal(ev.message_id, cmd);
	wt_reply(f, p, MIA, "#yard drop obsolete");
	assert_non_null(
	    strstr(wt_transcript(f), "this pull request is not staged"));
}

/*
 * A newer pull request for the same URL and branch moves the tree's pin;
 * another URL whose last part is the same name gets a name of its own.
 */
static void
test_pull_again(void **state)
{
	struct wt *f = *state;
	const char *p1 = pull_mail(
	    f, MIA, "https://git.example.org/mia/doc.git for-demo", UP_TO);
	const char *p2, *p3;
	struct store_tree *t;
	size_t n;

	wt_reply(f, p1, MIA, "#yard stage");
	p2 = pull_mail(f, MIA, "https://git.example.org/mia/doc.git for-demo",
	    "c0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ff");
	wt_reply(f, p2, MIA, "#yard stage");
	t = mail_trees(f, &n);
	assert_int_equal(n, 1);
	assert_string_equal(t->name, "doc");
	assert_string_equal(
	    t->pinned, "c0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ff");
	assert_int_equal(t->message_id, row_of(f, p2));
	p3 = pull_mail(
	    f, MIA, "git://git.example.org/tom/doc.git/ doc-next", UP_TO);
	wt_reply(f, p3, MIA, "#yard stage");
	t = mail_trees(f, &n);
	assert_int_equal(n, 2);
	assert_string_equal(t[1].name, "doc-2");
	assert_string_equal(t[1].url, "git://git.example.org/tom/doc.git/");
	assert_string_equal(t[1].branch, "doc-next");
}

/*
 * What a pull request may not do: come from a URL the bot would fetch
 * with its own credentials or from its own disk, name no branch or a
 * short commit, be staged by a maintainer of some paths only or by a
 * stranger, be graduated; a project without a staging repository has
 * nothing to merge it into (test_no_staging).
 */
static void
test_pull_refused(void **state)
{
	struct wt *f = *state;
	static const char *const urls[] = {
		"ssh://git@git.example.org/mia/doc.git for-demo",
		"git@git.example.org:mia/doc.git for-demo",
		"/srv/git/doc.git for-demo",
		"file:///srv/git/doc.git for-demo",
		"https://git.example.org/mia\\doc.git for-demo",
	};
	/* Short, long, not hex: the parser takes none as the commit. */
	static const char *const commits[] = {
		"b2b243f8dd874dc8f9373bd018319443eedfcb2",
		"b2b243f8dd874dc8f9373bd018319443eedfcb26a",
		"g2b243f8dd874dc8f9373bd018319443eedfcb26",
		"b2b243f8",
	};
	const char *p;
	size_t i, n;

	for (i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		p = pull_mail(f, MIA, urls[i], UP_TO);
		wt_reply(f, p, MIA, "#yard stage");
		if (!strstr(wt_transcript(f),
		        "trees are fetched from https://, http:// or git:// "
		        "URLs only"))
			fail_msg("%s: %s", urls[i], wt_transcript(f));
	}
	for (i = 0; i < sizeof(commits) / sizeof(commits[0]); i++) {
		p = pull_mail(f, MIA,
		    "https://git.example.org/mia/doc.git for-demo", commits[i]);
		wt_reply(f, p, MIA, "#yard stage");
		if (!strstr(wt_transcript(f), "names no branch or tag"))
			fail_msg("%s: %s", commits[i], wt_transcript(f));
	}
	p = pull_mail(f, MIA, "https://git.example.org/mia/doc.git", UP_TO);
	wt_reply(f, p, MIA, "#yard stage");
	assert_non_null(strstr(wt_transcript(f), "names no branch or tag"));
	p = pull_mail(
	    f, MIA, "https://git.example.org/mia/doc.git for..demo", UP_TO);
	wt_reply(f, p, MIA, "#yard stage");
	assert_non_null(strstr(wt_transcript(f), "names no branch or tag"));

	p = pull_mail(
	    f, MIA, "https://git.example.org/mia/doc.git for-demo", UP_TO);
	wt_reply(f, p, "Doc <doc@maint.example.org>", "#yard stage");
	assert_non_null(strstr(wt_transcript(f), "needs a maintainer of all"));
	wt_reply(f, p, "Eve <eve@evil.example.net>", "#yard stage");
	assert_non_null(
	    strstr(wt_transcript(f), "you are not a maintainer of demo"));
	wt_reply(f, p, MIA, "#yard graduate");
	assert_non_null(strstr(wt_transcript(f),
	    "a pull request is staged or dropped as a whole"));
	mail_trees(f, &n);
	assert_int_equal(n, 0);
}

/* Called on a mail that is no pull request, trees_stage_pull says so. */
static void
test_not_a_pull(void **state)
{
	struct wt *f = *state;
	const char *p = wt_patch(f, MIA, "doc/x.txt", NULL, NULL);
	struct buf msg = BUF_INIT;

	assert_int_equal(store_begin(f->st), ERR_OK);
	assert_int_equal(trees_stage_pull(f->st, &f->conf, f->a, row_of(f, p),
	                     false, "Mia", 0, NOW, &msg),
	    ERR_INVAL);
	store_rollback(f->st);
	assert_string_equal(
	    buf_cstr(&msg), "this mail is not a pull request any more");
	buf_free(&msg);
}

static void
test_no_staging(void **state)
{
	struct wt *f = *state;
	const char *p = pull_mail(
	    f, MIA, "https://git.example.org/mia/doc.git for-demo", UP_TO);
	size_t n;

	wt_reply(f, p, MIA, "#yard stage");
	assert_non_null(strstr(
	    wt_transcript(f), "demo has no staging tree to merge trees into"));
	mail_trees(f, &n);
	assert_int_equal(n, 0);
}

/* ---- fetching, from repositories on this disk ---- */

static const char *scratch;

/* The fixture and a scratch folder, removed even when the test fails. */
static int
setup_git(void **state)
{
	scratch = gt_setup();
	return setup(state);
}

static int
teardown_git(void **state)
{
	gt_teardown(scratch);
	return wt_teardown(state);
}

/*
 * A configured tree at a local path: fetched into refs/trees/NAME, its
 * commit and since following the branch; a failed fetch is recorded
 * and keeps the last commit (a tree never fetched is "failed"), and the
 * next good one clears it; a tree pinned by its mail takes the pinned
 * commit, and says so when the branch does not hold it.
 */
static void
test_fetch(void **state)
{
	struct wt *f = *state;
	const char *tmp = scratch;
	struct gitrepo *r = NULL;
	struct store_tree t;
	char src[256], stage[256], missing[256], *tip1, *tip2, hex[41];

	(void)f;
	log_set_level(LOG_ERR);
	snprintf(src, sizeof(src), "%s/src", tmp);
	snprintf(stage, sizeof(stage), "%s/stage.git", tmp);
	snprintf(missing, sizeof(missing), "%s/missing.git", tmp);
	assert_int_equal(gt_sh("git init -q -b master %s && cd %s && "
	                       "echo one > a && git add a && "
	                       "git commit -qm one",
	                     src, src),
	    0);
	tip1 = gt_out("git -C %s rev-parse HEAD", src);
	assert_non_null(tip1);
	assert_int_equal(gitrepo_open(stage, &r), ERR_OK);

	memset(&t, 0, sizeof(t));
	t.name = "src";
	t.url = missing;
	t.branch = "master";
	t.state = "new";
	assert_int_equal(trees_fetch(r, f->a, &t, NOW), ERR_OK);
	assert_null(t.commit);
	assert_string_equal(t.state, "failed");
	assert_non_null(t.last_error);
	assert_int_equal(strncmp(t.last_error, "fetch: ", 7), 0);
	assert_non_null(strstr(t.last_error, "missing.git"));

	t.url = src;
	assert_int_equal(trees_fetch(r, f->a, &t, NOW + 1), ERR_OK);
	assert_string_equal(t.commit, tip1);
	assert_int_equal(t.since, NOW + 1);
	assert_string_equal(t.state, "new");
	assert_null(t.last_error);
	assert_int_equal(gitrepo_ref(r, "refs/trees/src", hex), ERR_OK);
	assert_string_equal(hex, tip1);
	/* Nothing new: since stays. */
	assert_int_equal(trees_fetch(r, f->a, &t, NOW + 2), ERR_OK);
	assert_int_equal(t.since, NOW + 1);

	assert_int_equal(
	    gt_sh("cd %s && echo two >> a && git commit -qam two", src), 0);
	tip2 = gt_out("git -C %s rev-parse HEAD", src);
	assert_non_null(tip2);
	assert_int_equal(trees_fetch(r, f->a, &t, NOW + 3), ERR_OK);
	assert_string_equal(t.commit, tip2);
	assert_int_equal(t.since, NOW + 3);

	/* Down: the last commit stays, the error is recorded. */
	t.state = "merged";
	t.url = missing;
	assert_int_equal(trees_fetch(r, f->a, &t, NOW + 4), ERR_OK);
	assert_string_equal(t.commit, tip2);
	assert_string_equal(t.state, "merged");
	assert_int_equal(t.since, NOW + 3);
	assert_non_null(t.last_error);
	t.url = src;
	assert_int_equal(trees_fetch(r, f->a, &t, NOW + 5), ERR_OK);
	assert_null(t.last_error);

	/* Pinned to a commit the repository has: no fetch at all. */
	t.url = missing;
	t.pinned = tip1;
	assert_int_equal(trees_fetch(r, f->a, &t, NOW + 6), ERR_OK);
	assert_string_equal(t.commit, tip1);
	assert_int_equal(t.since, NOW + 6);
	assert_null(t.last_error);
	/* Pinned to one the branch does not hold. */
	t.url = src;
	t.pinned = "1111111111111111111111111111111111111111";
	assert_int_equal(trees_fetch(r, f->a, &t, NOW + 7), ERR_OK);
	assert_string_equal(t.commit, tip1);
	assert_non_null(t.last_error);
	assert_non_null(
	    strstr(t.last_error, "does not hold commit 111111111111"));

	gitrepo_free(r);
	free(tip1);
	free(tip2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_load_per_project, setup, wt_teardown),
		cmocka_unit_test_setup_teardown(
		    test_load_follows_config, setup, wt_teardown),
		cmocka_unit_test(test_ref),
		cmocka_unit_test(test_merge_message),
		cmocka_unit_test_setup_teardown(test_write, setup, wt_teardown),
		cmocka_unit_test_setup_teardown(
		    test_stage_and_drop_pull, setup, wt_teardown),
		cmocka_unit_test_setup_teardown(
		    test_pull_again, setup, wt_teardown),
		cmocka_unit_test_setup_teardown(
		    test_pull_refused, setup, wt_teardown),
		cmocka_unit_test_setup_teardown(
		    test_not_a_pull, setup, wt_teardown),
		cmocka_unit_test_prestate_setup_teardown(test_no_staging, setup,
		    wt_teardown, (void *)conf_nostaging),
		/* Last: it opens a repository, which starts libgit2, and the
		 * pull requests above are refused as `patchyard ingest` does
		 * it, with libgit2 not started (for..demo crashed there). */
		cmocka_unit_test_setup_teardown(
		    test_fetch, setup_git, teardown_git),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
