/*
 * Following a rename made upstream, for the three-way pass of
 * gitapply.c: a patch against old.c, where upstream has since renamed
 * old.c to new.c, applies to new.c, as git's merge-ort finds it by
 * rename detection between the merge base and our side.  We have no
 * base tree, only the preimage blob the patch's index line names, so the
 * search is from that blob: a path of the current tree holding exactly
 * it (a pure rename, anywhere), else the most similar file among those
 * of the same folder or the same name (a rename with edits, or a moved
 * folder).  Similar means what git's default means: at least half of
 * the content in common, counted here in lines.  Only the fallback of
 * a patch that failed pays for the search.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/git/gitpriv.h"

/* Candidates looked at, at most, for similarity; past it, exact only. */
#define RENAME_CANDIDATES 256
/* Lines compared per file, at most (a bound on the work). */
#define RENAME_LINES 20000

struct rsearch {
	const git_oid *base;
	const char *old_path; /* the path the patch names */
	const char *old_name; /* its last component */
	size_t dir_len; /* of its folder, with the slash */
	char exact[4096];
	char cand[RENAME_CANDIDATES][4096];
	size_t ncand;
};

static int
walk_cb(const char *root, const git_tree_entry *te, void *payload)
{
	struct rsearch *s = payload;
	const char *name = git_tree_entry_name(te);
	size_t rl = strlen(root);
	int k;

	if (git_tree_entry_type(te) != GIT_OBJECT_BLOB ||
	    (git_tree_entry_filemode(te) != GIT_FILEMODE_BLOB &&
	        git_tree_entry_filemode(te) != GIT_FILEMODE_BLOB_EXECUTABLE))
		return 0;
	if (git_oid_equal(git_tree_entry_id(te), s->base)) {
		k = snprintf(s->exact, sizeof(s->exact), "%s%s", root, name);
		if (k > 0 && (size_t)k < sizeof(s->exact) &&
		    strcmp(s->exact, s->old_path) != 0)
			return -1; /* found: stop the walk */
		s->exact[0] = '\0';
	}
	if (s->ncand < RENAME_CANDIDATES &&
	    (strcmp(name, s->old_name) == 0 ||
	        (rl == s->dir_len &&
	            strncmp(root, s->old_path, s->dir_len) == 0))) {
		k = snprintf(
		    s->cand[s->ncand], sizeof(s->cand[0]), "%s%s", root, name);
		if (k > 0 && (size_t)k < sizeof(s->cand[0]))
			s->ncand++;
	}
	return 0;
}

/* FNV-1a of each line, sorted. */
static size_t
line_hashes(const char *p, size_t n, uint64_t **out)
{
	size_t cap = 0, k = 0, i = 0;
	uint64_t *v = NULL;

	while (i < n && k < RENAME_LINES) {
		uint64_t h = 1469598103934665603ull;

		while (i < n && p[i] != '\n')
			h = (h ^ (unsigned char)p[i++]) * 1099511628211ull;
		i++;
		if (k == cap) {
			cap = cap ? cap * 2 : 256;
			v = realloc(v, cap * sizeof(*v));
			if (v == NULL)
				abort();
		}
		v[k++] = h;
	}
	*out = v;
	return k;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static size_t
common(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	size_t i = 0, j = 0, c = 0;

	while (i < na && j < nb) {
		if (a[i] == b[j]) {
			c++;
			i++;
			j++;
		} else if (a[i] < b[j]) {
			i++;
		} else {
			j++;
		}
	}
	return c;
}

static size_t
blob_lines(struct gitrepo *r, const git_oid *id, uint64_t **out)
{
	git_blob *b = NULL;
	size_t n;

	*out = NULL;
	if (git_blob_lookup(&b, r->repo, id) < 0) {
		git_error_clear();
		return 0;
	}
	n = line_hashes(
	    git_blob_rawcontent(b), (size_t)git_blob_rawsize(b), out);
	git_blob_free(b);
	if (n > 1)
		qsort(*out, n, sizeof(**out), cmp_u64);
	return n;
}

/* The most similar candidate, when one shares at least half. */
static bool
best_similar(struct gitrepo *r, git_tree *tree, struct rsearch *s, char *out,
    size_t outn)
{
	uint64_t *bl = NULL, *cl = NULL;
	size_t nb = blob_lines(r, s->base, &bl), i, best = 0, at = 0;

	for (i = 0; i < s->ncand && nb > 0; i++) {
		git_tree_entry *te = NULL;
		size_t nc, score;

		if (strcmp(s->cand[i], s->old_path) == 0 ||
		    git_tree_entry_bypath(&te, tree, s->cand[i]) < 0)
			continue;
		nc = blob_lines(r, git_tree_entry_id(te), &cl);
		git_tree_entry_free(te);
		score = nc ? 2 * 100 * common(bl, nb, cl, nc) / (nb + nc) : 0;
		free(cl);
		if (score >= 50 && score > best) {
			best = score;
			at = i;
		}
	}
	free(bl);
	git_error_clear();
	if (best == 0 || strlen(s->cand[at]) >= outn)
		return false;
	memcpy(out, s->cand[at], strlen(s->cand[at]) + 1);
	return true;
}

bool
gitrename_find(struct gitrepo *r, git_tree *tree, const char *old_path,
    const git_oid *base, char *out, size_t outn)
{
	struct rsearch *s = calloc(1, sizeof(*s));
	const char *slash = strrchr(old_path, '/');
	bool found = false;

	if (s == NULL)
		abort();
	s->base = base;
	s->old_path = old_path;
	s->old_name = slash ? slash + 1 : old_path;
	s->dir_len = slash ? (size_t)(slash - old_path) + 1 : 0;
	git_tree_walk(tree, GIT_TREEWALK_PRE, walk_cb, s);
	git_error_clear();
	if (s->exact[0] != '\0' && strlen(s->exact) < outn) {
		memcpy(out, s->exact, strlen(s->exact) + 1);
		found = true;
	} else {
		found = best_similar(r, tree, s, out, outn);
	}
	free(s);
	return found;
}
