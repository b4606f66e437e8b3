/*
 * Building a staging branch: one commit per patch on top of a base, in
 * memory, persisted once at the end.
 *
 * Reuse: a build mostly repeats the previous one.  Leading entries with
 * the same key whose previous commit still sits on the current tip are
 * taken as they are, after checking that the commit we would write now
 * (same tree, same parent, same author, committer and message) hashes to
 * that very id; from the first changed position on, patches are applied
 * again, and there the blob cache of bot/git/gitapply.c saves the work for
 * files whose preimage did not change.
 */
#include "bot/git/gitstage.h"

#include <stdio.h>
#include <string.h>

#include "bot/git/gitpriv.h"
#include "parsers/diff.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/log.h"

struct build {
	struct gitrepo *r;
	const char *cname, *cemail;
	git_oid tip;
	git_tree *tree; /* the tip's tree */
	struct buf text; /* a commit being composed */
	struct arena *a;
};

/* A name or address as git writes it: without '<', '>' or line breaks
 * (git drops them too), without blanks around it. */
static void
add_ident_part(struct buf *b, const char *s)
{
	size_t n = strlen(s), i;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	for (i = 0; i < n; i++)
		if (s[i] != '<' && s[i] != '>' && s[i] != '\n' && s[i] != '\r')
			buf_addc(b, s[i]);
}

static void
add_ident(struct buf *b, const char *what, const char *name, const char *email,
    int64_t t, int tz)
{
	int a = tz < 0 ? -tz : tz;

	if (name == NULL || *name == '\0')
		name = email ? email : "";
	buf_addf(b, "%s ", what);
	add_ident_part(b, name);
	buf_adds(b, " <");
	add_ident_part(b, email ? email : "");
	buf_addf(b, "> %lld %c%02d%02d\n", (long long)t, tz < 0 ? '-' : '+',
	    a / 60, a % 60);
}

/* The commit object's text for entry e with tree and parent. */
static void
compose(struct build *bd, const struct gitstage_entry *e, const git_oid *tree,
    const git_oid *parent)
{
	struct buf *b = &bd->text;
	const char *msg = e->message ? e->message : "";
	size_t n = strlen(msg);

	buf_reset(b);
	buf_addf(b, "tree %s\n", git_oid_tostr_s(tree));
	buf_addf(b, "parent %s\n", git_oid_tostr_s(parent));
	add_ident(b, "author", e->author_name, e->author_email, e->author_time,
	    e->author_tz);
	add_ident(b, "committer", bd->cname, bd->cemail, e->committer_time,
	    e->committer_tz);
	buf_addc(b, '\n');
	buf_add(b, msg, n);
	if (n == 0 || msg[n - 1] != '\n')
		buf_addc(b, '\n');
}

static enum err
set_tip(struct build *bd, const git_oid *commit)
{
	git_commit *c = NULL;

	git_tree_free(bd->tree);
	bd->tree = NULL;
	if (git_commit_lookup(&c, bd->r->repo, commit) < 0)
		return gitpriv_fail(
		    git_oid_tostr_s(commit), "cannot read commit");
	if (git_commit_tree(&bd->tree, c) < 0) {
		git_commit_free(c);
		return gitpriv_fail(
		    git_oid_tostr_s(commit), "cannot read tree");
	}
	git_commit_free(c);
	bd->tip = *commit;
	return ERR_OK;
}

/*
 * Whether the previous commit p for e can stay: on the current tip, and
 * exactly the commit we would write for its tree now.
 */
static bool
reusable(struct build *bd, const struct gitstage_entry *e,
    const struct gitstage_prev *p)
{
	git_commit *c = NULL;
	git_oid id, again;
	bool ok = false;

	if (p->key == NULL || e->key == NULL || strcmp(p->key, e->key) != 0 ||
	    !gitpriv_oid(&id, p->commit) || !gitpriv_on_disk(bd->r, &id))
		return false;
	if (git_commit_lookup(&c, bd->r->repo, &id) < 0) {
		git_error_clear();
		return false;
	}
	if (git_commit_parentcount(c) == 1 &&
	    git_oid_equal(git_commit_parent_id(c, 0), &bd->tip)) {
		compose(bd, e, git_commit_tree_id(c), &bd->tip);
		ok = git_odb_hash(&again, bd->text.p, bd->text.n,
		         GIT_OBJECT_COMMIT) == 0 &&
		    git_oid_equal(&again, &id);
	}
	git_commit_free(c);
	return ok;
}

/* The fix-ups folded into e, each on the tree the one before made; a
 * fix-up that does not apply makes the whole entry a conflict. */
static enum err
apply_fixups(struct build *bd, const struct gitstage_entry *e, git_oid *tree,
    struct gitapply_result *ar)
{
	size_t i;
	enum err err = ERR_OK;

	for (i = 0; i < e->nfixups && err == ERR_OK; i++) {
		struct gitapply_result fr;
		struct diff *d = NULL;
		git_tree *t = NULL;

		if (git_tree_lookup(&t, bd->r->repo, tree) < 0)
			return gitpriv_fail(bd->r->path, "cannot read a tree");
		err = gitapply_parse(
		    bd->a, e->fixups[i], e->fixup_len[i], &d, &fr);
		if (err == ERR_OK)
			err = gitapply_diff(bd->r, t, d, tree, &fr);
		git_tree_free(t);
		if (err == ERR_CONFLICT || err == ERR_PERM) {
			ar->how = fr.how;
			/* The fix-up's reason, cut to make room for its
			 * number: truncation here only shortens a message. */
			if (snprintf(ar->reason, sizeof(ar->reason),
			        "fix-up %zu: %.200s", i + 1, fr.reason) < 0)
				ar->reason[0] = '\0';
		} else if (err == ERR_OK && fr.how == GITAPPLY_THREEWAY) {
			ar->how = GITAPPLY_THREEWAY;
		}
	}
	return err;
}

/* Apply e on the tip and commit it there when it applies. */
static enum err
build_one(struct build *bd, const struct gitstage_entry *e,
    struct gitstage_result *res)
{
	struct gitapply_result ar;
	struct diff *d = NULL;
	git_oid tree, commit;
	enum err err;

	arena_reset(bd->a);
	err =
	    gitapply_parse(bd->a, e->diff ? e->diff : "", e->diff_len, &d, &ar);
	if (err == ERR_OK)
		err = gitapply_diff(bd->r, bd->tree, d, &tree, &ar);
	if (err == ERR_OK)
		err = apply_fixups(bd, e, &tree, &ar);
	res->how = ar.how;
	res->offset = ar.offset;
	memcpy(res->reason, ar.reason, sizeof(res->reason));
	if (err == ERR_CONFLICT || err == ERR_PERM)
		return ERR_OK; /* left out; the rest builds on */
	if (err)
		return err;
	if (ar.how == GITAPPLY_EMPTY)
		return ERR_OK;
	compose(bd, e, &tree, &bd->tip);
	if ((err = gitpriv_object(
	         bd->r, GIT_OBJECT_COMMIT, bd->text.p, bd->text.n, &commit)))
		return err;
	git_oid_tostr(res->commit, sizeof(res->commit), &commit);
	return set_tip(bd, &commit);
}

static enum err
build_all(struct build *bd, const struct gitstage_entry *e, size_t n,
    const struct gitstage_prev *prev, size_t nprev, struct gitstage_result *res)
{
	bool reuse = true;
	size_t i;
	git_oid id;
	enum err err;

	for (i = 0; i < n; i++) {
		const struct gitstage_prev *p = i < nprev ? &prev[i] : NULL;

		memset(&res[i], 0, sizeof(res[i]));
		reuse = reuse && p && p->key && e[i].key &&
		    strcmp(p->key, e[i].key) == 0;
		if (reuse && p->commit && *p->commit) {
			if (reusable(bd, &e[i], p)) {
				res[i].how = p->how;
				res[i].offset = p->offset;
				res[i].reused = true;
				memcpy(res[i].commit, p->commit, 41);
				gitpriv_oid(&id, p->commit);
				if ((err = set_tip(bd, &id)))
					return err;
				continue;
			}
			reuse = false;
		}
		if ((err = build_one(bd, &e[i], &res[i])))
			return err;
		/* A left-out entry keeps the chain reusable only if it was
		 * left out last time too; one that applies now breaks it. */
		if (reuse && res[i].commit[0] != '\0')
			reuse = false;
	}
	return ERR_OK;
}

enum err
gitstage_build(struct gitrepo *r, const char *base_hex,
    const struct gitstage_entry *e, size_t n, const struct gitstage_prev *prev,
    size_t nprev, const char *committer_name, const char *committer_email,
    struct gitstage_result *res, char tip[41])
{
	struct build bd;
	git_oid base;
	enum err err;

	tip[0] = '\0';
	if (!gitpriv_oid(&base, base_hex) || !gitpriv_on_disk(r, &base)) {
		log_err("gitstage: %s: no such base commit",
		    base_hex ? base_hex : "(null)");
		return ERR_NOTFOUND;
	}
	memset(&bd, 0, sizeof(bd));
	bd.r = r;
	bd.cname = committer_name;
	bd.cemail = committer_email;
	bd.a = arena_new();
	buf_init(&bd.text, 0);
	err = set_tip(&bd, &base);
	if (err == ERR_OK)
		err = build_all(&bd, e, n, prev, nprev, res);
	if (err == ERR_OK)
		err = gitpriv_persist(r, &bd.tip, 1);
	if (err == ERR_OK)
		git_oid_tostr(tip, 41, &bd.tip);
	else
		gitpriv_discard(r);
	git_tree_free(bd.tree);
	buf_free(&bd.text);
	arena_free(bd.a);
	return err;
}

enum err
gitstage_try(struct gitrepo *r, const char *base_hex,
    const struct gitstage_entry *e, size_t n, struct gitstage_result *res)
{
	struct build bd;
	git_oid base;
	enum err err;

	if (!gitpriv_oid(&base, base_hex) || !gitpriv_exists(r, &base)) {
		log_err("gitstage: %s: no such base commit",
		    base_hex ? base_hex : "(null)");
		return ERR_NOTFOUND;
	}
	memset(&bd, 0, sizeof(bd));
	bd.r = r;
	bd.cname = "patchyard";
	bd.cemail = "patchyard@localhost";
	bd.a = arena_new();
	buf_init(&bd.text, 0);
	err = set_tip(&bd, &base);
	if (err == ERR_OK)
		err = build_all(&bd, e, n, NULL, 0, res);
	/* A trial: nothing it made is kept. */
	gitpriv_discard(r);
	git_tree_free(bd.tree);
	buf_free(&bd.text);
	arena_free(bd.a);
	return err;
}
