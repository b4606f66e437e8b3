/*
 * History for forwarding.  The subject rule follows git's pretty.c
 * (format_subject) and the range order git's revision walk: libgit2's
 * time-sorted walk gives the same order for the histories a staging
 * branch has.
 */
#include "bot/git/gitlog.h"

#include <stdlib.h>
#include <string.h>

#include "bot/git/gitpriv.h"
#include "util/log.h"
#include "util/xalloc.h"

static bool
blank_line(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return false;
	return true;
}

/* Split a message into git's %s and what follows the first paragraph. */
static void
split_message(struct arena *a, const char *msg, struct gitlog_commit *out)
{
	struct buf s = BUF_INIT;
	const char *p = msg, *eol;
	size_t n;

	/* Leading empty lines are no part of the subject. */
	while (*p) {
		eol = strchr(p, '\n');
		n = eol ? (size_t)(eol - p) : strlen(p);
		if (!blank_line(p, n))
			break;
		p += n + (eol != NULL);
	}
	while (*p) {
		eol = strchr(p, '\n');
		n = eol ? (size_t)(eol - p) : strlen(p);
		if (blank_line(p, n))
			break;
		while (n > 0 &&
		    (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
			n--;
		if (s.n)
			buf_addc(&s, ' ');
		buf_add(&s, p, n);
		p = eol ? eol + 1 : p + n;
		if (eol == NULL)
			break;
	}
	/* The empty lines after the subject belong to nothing. */
	while (*p) {
		eol = strchr(p, '\n');
		n = eol ? (size_t)(eol - p) : strlen(p);
		if (!blank_line(p, n) || eol == NULL)
			break;
		p = eol + 1;
	}
	out->subject = arena_strdup(a, buf_cstr(&s));
	out->body = arena_strdup(a, blank_line(p, strlen(p)) ? "" : p);
	buf_free(&s);
}

static void
fill(struct arena *a, git_commit *c, struct gitlog_commit *out)
{
	const git_signature *au = git_commit_author(c);
	const git_signature *co = git_commit_committer(c);
	const char *msg = git_commit_message(c);

	memset(out, 0, sizeof(*out));
	git_oid_tostr(out->id, sizeof(out->id), git_commit_id(c));
	out->nparents = git_commit_parentcount(c);
	if (out->nparents)
		git_oid_tostr(out->parent, sizeof(out->parent),
		    git_commit_parent_id(c, 0));
	out->author_name = arena_strdup(a, au->name ? au->name : "");
	out->author_email = arena_strdup(a, au->email ? au->email : "");
	out->author_time = au->when.time;
	out->author_tz = au->when.offset;
	out->committer_time = co->when.time;
	out->committer_tz = co->when.offset;
	split_message(a, msg ? msg : "", out);
}

enum err
gitlog_commit(struct gitrepo *r, struct arena *a, const char *hex,
    struct gitlog_commit *out)
{
	git_commit *c = NULL;
	git_oid oid;

	if (!gitpriv_oid(&oid, hex) || git_commit_lookup(&c, r->repo, &oid)) {
		git_error_clear();
		log_err("gitlog: %s: no such commit", hex ? hex : "(null)");
		return ERR_NOTFOUND;
	}
	fill(a, c, out);
	git_commit_free(c);
	return ERR_OK;
}

enum err
gitlog_range(struct gitrepo *r, struct arena *a, const char *base,
    const char *head, struct gitlog_commit **out, size_t *n)
{
	git_revwalk *w = NULL;
	git_oid b, h, id;
	struct gitlog_commit *v = NULL;
	size_t cap = 0, k = 0, i;
	enum err e = ERR_OK;
	int rc;

	*out = NULL;
	*n = 0;
	if (!gitpriv_oid(&h, head) || (base && *base && !gitpriv_oid(&b, base)))
		return ERR_INVAL;
	if (git_revwalk_new(&w, r->repo) < 0)
		return gitpriv_fail(r->path, "cannot walk history");
	git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
	if (git_revwalk_push(w, &h) < 0 ||
	    (base && *base && git_revwalk_hide(w, &b) < 0)) {
		git_revwalk_free(w);
		git_error_clear();
		return ERR_NOTFOUND;
	}
	while ((rc = git_revwalk_next(&id, w)) == 0) {
		git_commit *c = NULL;

		if (git_commit_lookup(&c, r->repo, &id) < 0) {
			e = gitpriv_fail(git_oid_tostr_s(&id), "commit lost");
			break;
		}
		v = xgrow(v, &cap, k + 1, sizeof(*v));
		fill(a, c, &v[k++]);
		git_commit_free(c);
	}
	if (e == ERR_OK && rc != GIT_ITEROVER)
		e = gitpriv_fail(head, "cannot walk history");
	git_revwalk_free(w);
	if (e == ERR_OK) {
		*out = arena_zalloc(a, (k ? k : 1) * sizeof(**out));
		for (i = 0; i < k; i++)
			(*out)[i] = v[k - 1 - i];
		*n = k;
	}
	free(v);
	return e;
}

enum err
gitlog_merge_base(struct gitrepo *r, const char *a, const char *b, char out[41])
{
	git_oid x, y, m;
	int rc;

	out[0] = '\0';
	if (!gitpriv_oid(&x, a) || !gitpriv_oid(&y, b))
		return ERR_INVAL;
	rc = git_merge_base(&m, r->repo, &x, &y);
	if (rc == GIT_ENOTFOUND) {
		git_error_clear();
		return ERR_NOTFOUND;
	}
	if (rc < 0)
		return gitpriv_fail(a, "cannot find a merge base");
	git_oid_tostr(out, 41, &m);
	return ERR_OK;
}

static enum err
tree_of(struct gitrepo *r, const char *hex, git_tree **t)
{
	git_commit *c = NULL;
	git_oid oid;

	*t = NULL;
	if (hex == NULL || *hex == '\0')
		return ERR_OK;
	if (!gitpriv_oid(&oid, hex) || git_commit_lookup(&c, r->repo, &oid)) {
		git_error_clear();
		return ERR_NOTFOUND;
	}
	if (git_commit_tree(t, c) < 0) {
		git_commit_free(c);
		return gitpriv_fail(hex, "cannot read tree");
	}
	git_commit_free(c);
	return ERR_OK;
}

enum err
gitlog_diff(
    struct gitrepo *r, const char *from, const char *to, struct buf *out)
{
	git_tree *a = NULL, *b = NULL;
	git_diff *d = NULL;
	git_diff_options o;
	git_diff_find_options fo;
	git_buf text = GIT_BUF_INIT;
	enum err e;

	if ((e = tree_of(r, from, &a)) || (e = tree_of(r, to, &b)))
		goto out;
	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.flags |= GIT_DIFF_SHOW_BINARY | GIT_DIFF_INDENT_HEURISTIC;
	git_diff_find_options_init(&fo, GIT_DIFF_FIND_OPTIONS_VERSION);
	fo.flags = GIT_DIFF_FIND_RENAMES;
	if (git_diff_tree_to_tree(&d, r->repo, a, b, &o) < 0 ||
	    git_diff_find_similar(d, &fo) < 0 ||
	    git_diff_to_buf(&text, d, GIT_DIFF_FORMAT_PATCH) < 0) {
		e = gitpriv_fail(to, "cannot diff");
		goto out;
	}
	buf_add(out, text.ptr ? text.ptr : "", text.size);
out:
	git_buf_dispose(&text);
	git_diff_free(d);
	git_tree_free(b);
	git_tree_free(a);
	return e;
}
