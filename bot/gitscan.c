/*
 * Upstream scan: walk the new commits, compute each one's stable
 * patch-id with libgit2 the way `git show | git patch-id --stable` sees
 * it (renames detected and the indent heuristic on, as git's defaults
 * are), and collect the Message-IDs its trailers name.
 */
#include "bot/gitscan.h"

#include <stdlib.h>
#include <string.h>

#include "bot/gitpriv.h"
#include "util/arena.h"
#include "util/ascii.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/xalloc.h"

struct gitscan {
	struct arena *a;
	struct gitscan_commit *v;
	size_t n, cap;
};

size_t
gitscan_count(const struct gitscan *s)
{
	return s ? s->n : 0;
}

const struct gitscan_commit *
gitscan_at(const struct gitscan *s, size_t i)
{
	return s && i < s->n ? &s->v[i] : NULL;
}

void
gitscan_free(struct gitscan *s)
{
	if (s == NULL)
		return;
	arena_free(s->a);
	free(s->v);
	free(s);
}

/* Percent-decode p[0..n) into the arena; NULL on a bad escape or NUL. */
static const char *
pct_decode(struct arena *a, const char *p, size_t n)
{
	char *out = arena_alloc(a, n + 1);
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (p[i] == '%') {
			int hi, lo;
			if (i + 2 >= n)
				return NULL;
			hi = ascii_hexval(p[i + 1]);
			lo = ascii_hexval(p[i + 2]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				return NULL;
			out[o++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			out[o++] = p[i];
		}
	}
	out[o] = '\0';
	return out;
}

const char *
gitscan_link_msgid(struct arena *a, const char *url)
{
	const char *p = strstr(url, "://"), *end, *seg, *best = NULL;
	size_t bestn = 0;

	if (p == NULL)
		return NULL;
	/* Past the authority: an '@' there is a user, not a message. */
	p = strchr(p + 3, '/');
	if (p == NULL)
		return NULL;
	end = p + strcspn(p, "#? \t");
	for (seg = p; seg < end;) {
		const char *s = seg + 1, *e = s;
		while (e < end && *e != '/')
			e++;
		if (memchr(s, '@', (size_t)(e - s)) ||
		    (e - s > 3 &&
		        str_findstr(str_make(s, (size_t)(e - s)), "%40", 3) >=
		            0)) {
			best = s;
			bestn = (size_t)(e - s);
		}
		seg = e;
	}
	return best ? pct_decode(a, best, bestn) : NULL;
}

/* "<id>" or "id" from a Message-ID: trailer value. */
static const char *
trailer_msgid(struct arena *a, const char *v)
{
	struct str s = str_trim(str_from(v));

	if (s.n >= 2 && s.p[0] == '<' && s.p[s.n - 1] == '>')
		s = str_make(s.p + 1, s.n - 2);
	if (s.n == 0 || memchr(s.p, '@', s.n) == NULL)
		return NULL;
	return arena_strndup(a, s.p, s.n);
}

static void
collect_msgids(struct gitscan *s, struct gitscan_commit *c, const char *msg)
{
	git_message_trailer_array ta;
	const char **v = NULL;
	size_t i, n = 0, cap = 0;

	memset(&ta, 0, sizeof(ta));
	if (git_message_trailers(&ta, msg) < 0) {
		git_error_clear();
		return;
	}
	for (i = 0; i < ta.count; i++) {
		const char *id = NULL;
		if (ascii_stricmp(ta.trailers[i].key, "Link") == 0)
			id = gitscan_link_msgid(s->a, ta.trailers[i].value);
		else if (ascii_stricmp(ta.trailers[i].key, "Message-ID") == 0)
			id = trailer_msgid(s->a, ta.trailers[i].value);
		if (id == NULL)
			continue;
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n++] = id;
	}
	git_message_trailer_array_free(&ta);
	if (n) {
		c->msgids = arena_alloc(s->a, n * sizeof(*v));
		memcpy(c->msgids, v, n * sizeof(*v));
		c->nmsgids = n;
	}
	free(v);
}

/* The patch-id of co against its first parent, "" when git's and ours
 * could differ or there is none. */
static enum err
commit_patchid(struct gitrepo *r, git_commit *co, char hex[41])
{
	git_diff_options dopt;
	git_diff_find_options fopt;
	git_tree *old = NULL, *new = NULL;
	git_commit *parent = NULL;
	git_diff *diff = NULL;
	git_oid pid;
	size_t i, n;
	int rc;

	hex[0] = '\0';
	if (git_commit_parentcount(co) > 1)
		return ERR_OK;
	git_diff_options_init(&dopt, GIT_DIFF_OPTIONS_VERSION);
	dopt.flags |= GIT_DIFF_INDENT_HEURISTIC;
	git_diff_find_options_init(&fopt, GIT_DIFF_FIND_OPTIONS_VERSION);
	fopt.flags = GIT_DIFF_FIND_RENAMES;
	rc = git_commit_tree(&new, co);
	if (rc == 0 && git_commit_parentcount(co) == 1) {
		rc = git_commit_parent(&parent, co, 0);
		if (rc == 0)
			rc = git_commit_tree(&old, parent);
	}
	if (rc == 0)
		rc = git_diff_tree_to_tree(&diff, r->repo, old, new, &dopt);
	if (rc == 0)
		rc = git_diff_find_similar(diff, &fopt);
	n = rc == 0 ? git_diff_num_deltas(diff) : 0;
	if (rc == 0 && n > 0)
		rc = git_diff_patchid(&pid, diff, NULL);
	if (rc == 0 && n > 0) {
		for (i = 0; i < n; i++)
			if (git_diff_get_delta(diff, i)->flags &
			    GIT_DIFF_FLAG_BINARY)
				break;
		if (i == n)
			git_oid_tostr(hex, 41, &pid);
	}
	git_diff_free(diff);
	git_tree_free(old);
	git_tree_free(new);
	git_commit_free(parent);
	return rc < 0
	    ? gitpriv_fail(git_oid_tostr_s(git_commit_id(co)), "cannot diff")
	    : ERR_OK;
}

static enum err
scan_one(struct gitrepo *r, struct gitscan *s, const git_oid *id)
{
	struct gitscan_commit *c;
	const git_signature *au;
	const char *sum;
	git_commit *co = NULL;
	enum err e;

	if (git_commit_lookup(&co, r->repo, id) < 0)
		return gitpriv_fail(git_oid_tostr_s(id), "cannot read commit");
	s->v = xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	c = &s->v[s->n++];
	memset(c, 0, sizeof(*c));
	git_oid_tostr(c->commit, sizeof(c->commit), id);
	au = git_commit_author(co);
	c->author_email = arena_strdup(s->a, au && au->email ? au->email : "");
	sum = git_commit_summary(co);
	c->subject = arena_strdup(s->a, sum ? sum : "");
	collect_msgids(s, c, git_commit_message(co));
	e = commit_patchid(r, co, c->patch_id);
	git_commit_free(co);
	return e;
}

static enum err
walk(struct gitrepo *r, struct gitscan *s, const git_oid *old,
    const git_oid *new)
{
	git_revwalk *w = NULL;
	git_oid id;
	enum err e = ERR_OK;
	int rc;

	if (git_revwalk_new(&w, r->repo) < 0)
		return gitpriv_fail(r->path, "cannot walk");
	git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	if (git_revwalk_push(w, new) < 0 || git_revwalk_hide(w, old) < 0) {
		e = gitpriv_fail(git_oid_tostr_s(new), "cannot walk");
		goto out;
	}
	while (e == ERR_OK && (rc = git_revwalk_next(&id, w)) == 0)
		e = scan_one(r, s, &id);
	if (e == ERR_OK && rc != GIT_ITEROVER)
		e = gitpriv_fail(git_oid_tostr_s(new), "walk failed");
out:
	git_revwalk_free(w);
	return e;
}

enum err
gitscan_range(struct gitrepo *r, const char *old_hex, const char *new_hex,
    struct gitscan **out)
{
	struct gitscan *s;
	git_oid old, new;
	enum err e = ERR_OK;

	*out = NULL;
	if (!gitpriv_oid(&new, new_hex) || !gitpriv_exists(r, &new) ||
	    (old_hex && *old_hex &&
	        (!gitpriv_oid(&old, old_hex) || !gitpriv_exists(r, &old)))) {
		log_err("gitscan: %s..%s: no such commits",
		    old_hex ? old_hex : "", new_hex ? new_hex : "(null)");
		return ERR_NOTFOUND;
	}
	s = xcalloc(1, sizeof(*s));
	s->a = arena_new();
	if (old_hex && *old_hex)
		e = walk(r, s, &old, &new);
	if (e) {
		gitscan_free(s);
		return e;
	}
	*out = s;
	return ERR_OK;
}
