/*
 * The patches branch: the queue as a quilt series, one commit per
 * change of the queue.
 */
#include "bot/git/gitquilt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/git/gitpriv.h"
#include "util/ascii.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/xalloc.h"

#define SLUG_MAX 200

bool
gitquilt_slug_valid(const char *slug)
{
	size_t i, n = slug ? strlen(slug) : 0;

	if (n == 0 || n > SLUG_MAX || slug[0] == '.')
		return false;
	for (i = 0; i < n; i++)
		if (!ascii_isalnum(slug[i]) && slug[i] != '-' &&
		    slug[i] != '_' && slug[i] != '.')
			return false;
	return true;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every slug valid and none twice. */
static bool
slugs_ok(const struct gitquilt_patch *p, size_t n)
{
	const char **v = xcalloc(n + 1, sizeof(*v));
	bool ok = true;
	size_t i;

	for (i = 0; i < n && ok; i++) {
		if (p[i].comment) {
			v[i] = "";
			continue;
		}
		ok = gitquilt_slug_valid(p[i].slug);
		if (!ok)
			log_err("gitquilt: bad slug");
		v[i] = p[i].slug;
	}
	if (ok) {
		qsort(v, n, sizeof(*v), cmp_str);
		for (i = 1; i < n && ok; i++)
			if (*v[i] && strcmp(v[i - 1], v[i]) == 0) {
				log_err("gitquilt: %s: slug given twice", v[i]);
				ok = false;
			}
	}
	free(v);
	return ok;
}

static void
series_text(struct buf *b, const struct gitquilt_patch *p, size_t n)
{
	const char *queue = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i].queue &&
		    (queue == NULL || strcmp(queue, p[i].queue) != 0)) {
			queue = p[i].queue;
			buf_addf(b, "# %s\n", queue);
		}
		if (p[i].comment)
			buf_addf(b, "# %s\n", p[i].comment);
		else
			buf_addf(b, "%s.patch\n", p[i].slug);
	}
}

/* A blob into the tree builder under name.  Straight into the in-memory
 * store (gitpriv_blob()): libgit2's git_blob_create_from_buffer() first
 * looks for each blob on disk to freshen it, and reads the pack folder
 * again when it is not there, 300 times for a queue of 300. */
static int
put_blob(struct gitrepo *r, git_treebuilder *tb, const char *name,
    const char *p, size_t n)
{
	git_oid id;

	if (gitpriv_blob(r, p, n, &id) != ERR_OK)
		return -1;
	return git_treebuilder_insert(NULL, tb, name, &id, GIT_FILEMODE_BLOB);
}

/* The tree: patches/series and patches/<slug>.patch. */
static enum err
make_tree(
    struct gitrepo *r, const struct gitquilt_patch *p, size_t n, git_oid *out)
{
	git_treebuilder *dir = NULL, *root = NULL;
	struct buf b = BUF_INIT;
	char name[SLUG_MAX + 8];
	git_oid dirid;
	int rc;
	size_t i;

	buf_init(&b, 0);
	series_text(&b, p, n);
	rc = git_treebuilder_new(&dir, r->repo, NULL);
	if (rc == 0)
		rc = put_blob(r, dir, "series", buf_cstr(&b), b.n);
	for (i = 0; i < n && rc == 0; i++) {
		if (p[i].comment)
			continue;
		snprintf(name, sizeof(name), "%s.patch", p[i].slug);
		rc = put_blob(r, dir, name, p[i].text ? p[i].text : "",
		    p[i].text ? p[i].len : 0);
	}
	if (rc == 0)
		rc = git_treebuilder_write(&dirid, dir);
	if (rc == 0)
		rc = git_treebuilder_new(&root, r->repo, NULL);
	if (rc == 0)
		rc = git_treebuilder_insert(
		    NULL, root, "patches", &dirid, GIT_FILEMODE_TREE);
	if (rc == 0)
		rc = git_treebuilder_write(out, root);
	git_treebuilder_free(dir);
	git_treebuilder_free(root);
	buf_free(&b);
	return rc < 0 ? gitpriv_fail(r->path, "cannot write the series")
	              : ERR_OK;
}

/* name and email without what a signature cannot hold. */
static char *
clean_ident(const char *s)
{
	char *c = xstrdup(s ? s : "");
	size_t i, o = 0;

	for (i = 0; c[i]; i++)
		if (c[i] != '<' && c[i] != '>' && c[i] != '\n' && c[i] != '\r')
			c[o++] = c[i];
	c[o] = '\0';
	return c;
}

static enum err
make_commit(struct gitrepo *r, const git_oid *tree, git_commit *parent,
    const char *message, const char *name, const char *email, int64_t time,
    int tz, git_oid *out)
{
	char *n = clean_ident(name), *m = clean_ident(email);
	git_signature *sig = NULL;
	git_tree *t = NULL;
	const git_commit *parents[1] = { parent };
	int rc;

	rc = git_signature_new(&sig, *n ? n : "patchyard", m, time, tz);
	if (rc == 0)
		rc = git_tree_lookup(&t, r->repo, tree);
	if (rc == 0)
		rc = git_commit_create(out, r->repo, NULL, sig, sig, NULL,
		    message && *message ? message : "patches: update\n", t,
		    parent ? 1 : 0, parents);
	git_tree_free(t);
	git_signature_free(sig);
	free(n);
	free(m);
	return rc < 0 ? gitpriv_fail(r->path, "cannot commit the series")
	              : ERR_OK;
}

enum err
gitquilt_export(struct gitrepo *r, const struct gitquilt_patch *p, size_t n,
    const char *message, const char *name, const char *email, int64_t time,
    int tz, char tip[41], bool *changed)
{
	char old[41] = "";
	git_commit *parent = NULL;
	git_oid tree, commit, pid;
	enum err e;

	tip[0] = '\0';
	*changed = false;
	if (!slugs_ok(p, n))
		return ERR_INVAL;
	e = gitrepo_ref(r, GITQUILT_REF, old);
	if (e != ERR_OK && e != ERR_NOTFOUND)
		return e;
	if (e == ERR_OK &&
	    (!gitpriv_oid(&pid, old) ||
	        git_commit_lookup(&parent, r->repo, &pid) < 0))
		return gitpriv_fail(GITQUILT_REF, "cannot read the tip");
	if ((e = make_tree(r, p, n, &tree)))
		goto out;
	if (parent && git_oid_equal(&tree, git_commit_tree_id(parent))) {
		memcpy(tip, old, 41);
		goto out;
	}
	if ((e = make_commit(
	         r, &tree, parent, message, name, email, time, tz, &commit)) ||
	    (e = gitpriv_persist(r, &commit, 1)))
		goto out;
	git_oid_tostr(tip, 41, &commit);
	e = gitrepo_set_ref(r, GITQUILT_REF, tip, old, "patchyard: queue");
	*changed = e == ERR_OK;
	if (e)
		tip[0] = '\0';
out:
	/* Objects of an unchanged or failed export are not needed. */
	gitpriv_discard(r);
	git_commit_free(parent);
	return e;
}
