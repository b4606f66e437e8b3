/*
 * Tree merges: git_merge_commits() gives an in-memory index; a clean one
 * becomes a tree and a merge commit written through the object database
 * (so into the in-memory store first, then persisted like a build).
 */
#include "bot/git/gitmerge.h"

#include <string.h>

#include "bot/git/gitpriv.h"
#include "util/log.h"

static enum err
lookup(struct gitrepo *r, const char *hex, git_commit **c)
{
	git_oid oid;

	if (!gitpriv_oid(&oid, hex) || !gitpriv_exists(r, &oid) ||
	    git_commit_lookup(c, r->repo, &oid) < 0) {
		git_error_clear();
		log_err("gitmerge: %s: no such commit", hex ? hex : "(null)");
		return ERR_NOTFOUND;
	}
	return ERR_OK;
}

/* Each conflicting path once, in index order. */
static enum err
list_conflicts(git_index *idx, struct buf *out)
{
	git_index_conflict_iterator *it = NULL;
	const git_index_entry *anc, *our, *their;
	const char *last = NULL;

	if (git_index_conflict_iterator_new(&it, idx) < 0)
		return gitpriv_fail("merge", "cannot list conflicts");
	while (git_index_conflict_next(&anc, &our, &their, it) == 0) {
		const char *path = our ? our->path
		    : their            ? their->path
		                       : anc->path;

		if (last && strcmp(last, path) == 0)
			continue;
		last = path;
		buf_addf(out, "%s\n", path);
	}
	git_index_conflict_iterator_free(it);
	return ERR_OK;
}

/* name <email> time +0000, without what an ident cannot hold. */
static void
add_ident(struct buf *b, const char *what, const char *name, const char *email,
    int64_t t)
{
	const char *s;

	buf_addf(b, "%s ", what);
	for (s = name; *s; s++)
		if (*s != '<' && *s != '>' && *s != '\n')
			buf_addc(b, *s);
	buf_adds(b, " <");
	for (s = email; *s; s++)
		if (*s != '<' && *s != '>' && *s != '\n')
			buf_addc(b, *s);
	buf_addf(b, "> %lld +0000\n", (long long)t);
}

static enum err
write_merge(struct gitrepo *r, const git_oid *tree, git_commit *ours,
    git_commit *theirs, const char *message, const char *name,
    const char *email, int64_t time, git_oid *out)
{
	struct buf b = BUF_INIT;
	size_t n = strlen(message);
	enum err e = ERR_OK;

	buf_addf(&b, "tree %s\n", git_oid_tostr_s(tree));
	buf_addf(&b, "parent %s\n", git_oid_tostr_s(git_commit_id(ours)));
	buf_addf(&b, "parent %s\n", git_oid_tostr_s(git_commit_id(theirs)));
	add_ident(&b, "author", name, email, time);
	add_ident(&b, "committer", name, email, time);
	buf_addf(
	    &b, "\n%s%s", message, n && message[n - 1] == '\n' ? "" : "\n");
	if (git_odb_write(out, r->odb, b.p, b.n, GIT_OBJECT_COMMIT) < 0)
		e = gitpriv_fail(r->path, "cannot write merge commit");
	buf_free(&b);
	return e;
}

enum err
gitmerge_commit(struct gitrepo *r, const char *ours_hex, const char *theirs_hex,
    const char *message, const char *name, const char *email, int64_t time,
    char out[41], struct buf *conflicts)
{
	git_commit *ours = NULL, *theirs = NULL;
	git_index *idx = NULL;
	git_merge_options mo;
	git_oid tree, commit;
	enum err e;

	out[0] = '\0';
	if ((e = lookup(r, ours_hex, &ours)) ||
	    (e = lookup(r, theirs_hex, &theirs)))
		goto out;
	git_merge_options_init(&mo, GIT_MERGE_OPTIONS_VERSION);
	mo.flags = GIT_MERGE_FIND_RENAMES;
	if (git_merge_commits(&idx, r->repo, ours, theirs, &mo) < 0) {
		const git_error *ge = git_error_last();

		buf_addf(conflicts, "%s\n",
		    ge && ge->message ? ge->message : "merge failed");
		e = gitpriv_fail(theirs_hex, "cannot merge");
		goto out;
	}
	if (git_index_has_conflicts(idx)) {
		e = list_conflicts(idx, conflicts);
		if (e == ERR_OK)
			e = ERR_CONFLICT;
		goto out;
	}
	if (git_index_write_tree_to(&tree, idx, r->repo) < 0) {
		e = gitpriv_fail(theirs_hex, "cannot write merged tree");
		goto out;
	}
	e = write_merge(
	    r, &tree, ours, theirs, message, name, email, time, &commit);
	if (e == ERR_OK)
		e = gitpriv_persist(r, &commit, 1);
	if (e == ERR_OK)
		git_oid_tostr(out, 41, &commit);
out:
	if (e != ERR_OK)
		gitpriv_discard(r);
	git_index_free(idx);
	git_commit_free(theirs);
	git_commit_free(ours);
	return e;
}

bool
gitmerge_contains(struct gitrepo *r, const char *tip, const char *commit)
{
	git_oid t, c;
	int rc;

	if (!gitpriv_oid(&t, tip) || !gitpriv_oid(&c, commit))
		return false;
	if (git_oid_equal(&t, &c))
		return true;
	/* libgit2 1.5 leaks on the error path of a commit it cannot find. */
	if ((!gitpriv_exists(r, &t) && !gitpriv_on_disk_now(r, &t)) ||
	    (!gitpriv_exists(r, &c) && !gitpriv_on_disk_now(r, &c)))
		return false;
	rc = git_graph_descendant_of(r->repo, &t, &c);
	if (rc < 0)
		git_error_clear();
	return rc == 1;
}
