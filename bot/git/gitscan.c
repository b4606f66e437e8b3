/*
 * Upstream scan: walk the new commits, compute each one's stable
 * patch-id with libgit2 the way `git show | git patch-id --stable` sees
 * it (renames detected and the indent heuristic on, as git's defaults
 * are), and collect the Message-IDs its trailers name.
 */
#include "bot/git/gitscan.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bot/git/gitpriv.h"
#include "bot/git/gitsim.h"
#include "parsers/msgid.h"
#include "parsers/patchid.h"
#include "parsers/subject.h"
#include "util/arena.h"
#include "util/ascii.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/thread.h"
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
		/* Strict before it is looked up as a key (STYLE.md). */
		if (id == NULL || !msgid_valid(str_from(id)))
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

/*
 * Why not one git_diff_tree_to_tree per commit: libgit2 walks every
 * entry of both trees, identical subtrees included, which for a tree of
 * thousands of files costs more than everything else together.  So the
 * trees are compared here first, descending only into subtrees that
 * differ, and libgit2 diffs just the folders where files changed, with
 * "a/<folder>/" and "b/<folder>/" as prefixes so that the patch text --
 * and so the patch-id -- is the one of the whole diff.  Stable patch-ids
 * are sums of per-file hashes, so the folders' ids add up.  Renames are
 * found within each folder's diff; when a file is added in one folder
 * and another deleted in a different one, a rename may cross them, and
 * the whole trees are diffed instead.
 */
struct folder {
	git_tree *old, *new; /* owned */
	char *prefix; /* "" or "dir/sub/" */
};

struct folders {
	struct folder *v;
	size_t n, cap;
};

static void
folders_free(struct folders *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		git_tree_free(fs->v[i].old);
		git_tree_free(fs->v[i].new);
		free(fs->v[i].prefix);
	}
	free(fs->v);
}

static void
folders_add(
    struct folders *fs, git_tree *old, git_tree *new, const char *prefix)
{
	fs->v = xgrow(fs->v, &fs->cap, fs->n + 1, sizeof(*fs->v));
	fs->v[fs->n].old = old;
	fs->v[fs->n].new = new;
	fs->v[fs->n].prefix = xstrdup(prefix);
	fs->n++;
}

/* a + b + c in a new allocation. */
static char *
join3(const char *a, const char *b, const char *c)
{
	size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
	char *p = xmalloc(na + nb + nc + 1);

	memcpy(p, a, na);
	memcpy(p + na, b, nb);
	memcpy(p + na + nb, c, nc + 1);
	return p;
}

/* A pair of differing subtrees, found before descending. */
struct subpair {
	git_oid old, new;
	char *name;
};

/*
 * Compare old and new (both owned by the caller, given to fs or freed)
 * under prefix: when files differ here, the folder goes to fs whole;
 * otherwise each differing subtree is searched in turn.
 */
static int
find_folders(git_repository *repo, git_tree *old, git_tree *new,
    const char *prefix, struct folders *fs)
{
	size_t i, n = git_tree_entrycount(new), m = git_tree_entrycount(old);
	struct subpair *sub = xcalloc(n + 1, sizeof(*sub));
	size_t nsub = 0, k;
	bool files = false;
	int rc = 0;

	for (i = 0; i < n; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(new, i);
		const git_tree_entry *o =
		    git_tree_entry_byname(old, git_tree_entry_name(e));
		bool et = git_tree_entry_type(e) == GIT_OBJECT_TREE;

		if (o == NULL) {
			files = true;
		} else if (git_oid_equal(
		               git_tree_entry_id(e), git_tree_entry_id(o)) &&
		    git_tree_entry_filemode(e) == git_tree_entry_filemode(o)) {
			continue;
		} else if (et && git_tree_entry_type(o) == GIT_OBJECT_TREE) {
			sub[nsub].old = *git_tree_entry_id(o);
			sub[nsub].new = *git_tree_entry_id(e);
			sub[nsub++].name = xstrdup(git_tree_entry_name(e));
		} else {
			files = true;
		}
	}
	for (i = 0; i < m; i++)
		if (!git_tree_entry_byname(new,
		        git_tree_entry_name(git_tree_entry_byindex(old, i))))
			files = true;
	if (files) {
		folders_add(fs, old, new, prefix);
	} else {
		git_tree_free(old);
		git_tree_free(new);
	}
	for (k = 0; k < nsub; k++) {
		git_tree *so = NULL, *sn = NULL;
		char *p;

		if (!files && rc == 0) {
			p = join3(prefix, sub[k].name, "/");
			rc = git_tree_lookup(&so, repo, &sub[k].old);
			if (rc == 0)
				rc = git_tree_lookup(&sn, repo, &sub[k].new);
			if (rc == 0)
				rc = find_folders(repo, so, sn, p, fs);
			else {
				git_tree_free(so);
				git_tree_free(sn);
			}
			free(p);
		}
		free(sub[k].name);
	}
	free(sub);
	return rc;
}

/* The patch-id of one diff of old and new, added to sum; *binary set
 * when a file of it is binary. */
struct idsum {
	git_oid sum;
	size_t nfiles;
	size_t units_added, units_deleted; /* folders with such files */
	bool binary;
	bool renamed; /* in a folder: "rename from" lines lack the prefix */
	bool inexact; /* a rename with changes: see commit_patchid() */
};

static int
add_patchid(git_repository *repo, git_tree *old, git_tree *new,
    const char *prefix, struct idsum *is)
{
	git_diff_options dopt;
	git_diff_find_options fopt;
	git_diff *diff = NULL;
	char *a = join3("a/", prefix, ""), *b = join3("b/", prefix, "");
	git_oid pid;
	unsigned short carry = 0;
	size_t i, n = 0;
	int rc;

	git_diff_options_init(&dopt, GIT_DIFF_OPTIONS_VERSION);
	dopt.flags |= GIT_DIFF_INDENT_HEURISTIC;
	dopt.old_prefix = a;
	dopt.new_prefix = b;
	git_diff_find_options_init(&fopt, GIT_DIFF_FIND_OPTIONS_VERSION);
	fopt.flags = GIT_DIFF_FIND_RENAMES;
	bool added = false, deleted = false;

	rc = git_diff_tree_to_tree(&diff, repo, old, new, &dopt);
	if (rc == 0)
		rc = git_diff_find_similar(diff, &fopt);
	if (rc == 0 && (n = git_diff_num_deltas(diff)) > 0)
		rc = git_diff_patchid(&pid, diff, NULL);
	for (i = 0; rc == 0 && i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		is->binary |= (d->flags & GIT_DIFF_FLAG_BINARY) != 0;
		added |= d->status == GIT_DELTA_ADDED;
		deleted |= d->status == GIT_DELTA_DELETED;
		is->renamed |= *prefix && d->status == GIT_DELTA_RENAMED;
		is->inexact |=
		    d->status == GIT_DELTA_RENAMED && d->similarity < 100;
	}
	/* 160-bit addition with carry, as git's flush_one_hunk(). */
	for (i = 0; rc == 0 && n > 0 && i < GIT_OID_RAWSZ; i++) {
		carry += is->sum.id[i] + pid.id[i];
		is->sum.id[i] = (unsigned char)carry;
		carry >>= 8;
	}
	is->nfiles += n;
	is->units_added += added;
	is->units_deleted += deleted;
	git_diff_free(diff);
	free(a);
	free(b);
	return rc;
}

/*
 * One file's patch text, with git's similarity index for a rename with
 * changes (libgit2 prints its own); false when git would not call it a
 * rename at all.
 */
static bool
file_text(git_repository *repo, git_patch *p, struct buf *out)
{
	const git_diff_delta *d = git_patch_get_delta(p);
	git_blob *a = NULL, *b = NULL;
	git_buf pb = GIT_BUF_INIT;
	const char *at, *end;
	bool ok = git_patch_to_buf(&pb, p) == 0;
	int pct = 100;

	if (ok && d->status == GIT_DELTA_RENAMED && d->similarity < 100) {
		ok = git_blob_lookup(&a, repo, &d->old_file.id) == 0 &&
		    git_blob_lookup(&b, repo, &d->new_file.id) == 0;
		if (ok)
			pct = gitsim_percent(git_blob_rawcontent(a),
			    (size_t)git_blob_rawsize(a), git_blob_rawcontent(b),
			    (size_t)git_blob_rawsize(b));
		ok = ok && pct >= 50;
	}
	at = ok ? strstr(pb.ptr, "\nsimilarity index ") : NULL;
	if (ok && at && pct < 100) {
		at++;
		end = strchr(at, '\n');
		ok = end != NULL;
		if (ok) {
			buf_add(out, pb.ptr, (size_t)(at - pb.ptr));
			buf_addf(out, "similarity index %d%%", pct);
			buf_adds(out, end);
		}
	} else if (ok) {
		buf_add(out, pb.ptr, pb.size);
	}
	git_error_clear();
	git_blob_free(a);
	git_blob_free(b);
	git_buf_dispose(&pb);
	return ok;
}

/*
 * The patch-id of a diff holding renames with changes: its text as git
 * prints it, hashed by parsers/patchid.c.  "" when that text cannot be
 * made.
 */
static int
text_patchid(git_repository *repo, git_tree *old, git_tree *new, char hex[41])
{
	git_diff_options dopt;
	git_diff_find_options fopt;
	git_diff *diff = NULL;
	git_patch *p;
	struct buf text = BUF_INIT;
	size_t i, n = 0;
	bool ok = true;
	int rc;

	hex[0] = '\0';
	git_diff_options_init(&dopt, GIT_DIFF_OPTIONS_VERSION);
	dopt.flags |= GIT_DIFF_INDENT_HEURISTIC;
	git_diff_find_options_init(&fopt, GIT_DIFF_FIND_OPTIONS_VERSION);
	fopt.flags = GIT_DIFF_FIND_RENAMES;
	rc = git_diff_tree_to_tree(&diff, repo, old, new, &dopt);
	if (rc == 0)
		rc = git_diff_find_similar(diff, &fopt);
	if (rc == 0)
		n = git_diff_num_deltas(diff);
	for (i = 0; rc == 0 && ok && i < n; i++) {
		if ((rc = git_patch_from_diff(&p, diff, i)) < 0)
			break;
		ok = file_text(repo, p, &text);
		git_patch_free(p);
	}
	if (rc == 0 && ok && !patchid_stable(buf_cstr(&text), text.n, hex))
		hex[0] = '\0';
	git_diff_free(diff);
	buf_free(&text);
	return rc;
}

/* The patch-id of co against its first parent, "" when git's and ours
 * could differ or there is none. */
static enum err
commit_patchid(git_repository *repo, git_commit *co, char hex[41])
{
	struct folders fs;
	struct idsum is;
	git_tree *old = NULL, *new = NULL;
	git_commit *parent = NULL;
	size_t i;
	int rc;

	hex[0] = '\0';
	memset(&fs, 0, sizeof(fs));
	memset(&is, 0, sizeof(is));
	if (git_commit_parentcount(co) > 1)
		return ERR_OK;
	rc = git_commit_tree(&new, co);
	if (rc == 0 && git_commit_parentcount(co) == 1) {
		rc = git_commit_parent(&parent, co, 0);
		if (rc == 0)
			rc = git_commit_tree(&old, parent);
	}
	if (rc == 0 && old) {
		rc = find_folders(repo, old, new, "", &fs);
		old = new = NULL; /* fs owns them now */
	}
	for (i = 0; rc == 0 && i < fs.n; i++)
		rc = add_patchid(
		    repo, fs.v[i].old, fs.v[i].new, fs.v[i].prefix, &is);
	if (rc == 0 &&
	    (parent == NULL || is.renamed ||
	        (is.units_added && is.units_deleted &&
	            (is.units_added > 1 || is.units_deleted > 1 ||
	                fs.n > 1)))) {
		/* A root commit, a rename may cross folders, or one in a
		 * folder is printed without the folder. */
		memset(&is, 0, sizeof(is));
		if (parent)
			rc = git_commit_tree(&old, parent);
		if (rc == 0 && new == NULL)
			rc = git_commit_tree(&new, co);
		if (rc == 0)
			rc = add_patchid(repo, old, new, "", &is);
	}
	if (rc == 0 && is.nfiles > 0 && !is.binary && !is.inexact)
		git_oid_tostr(hex, 41, &is.sum);
	/* git prints a rename's "similarity index" (which its patch-id
	 * hashes) from its own measure, libgit2 from another: such commits
	 * are hashed from their text with git's number put in. */
	if (rc == 0 && !is.binary && is.inexact) {
		if (old == NULL && parent)
			rc = git_commit_tree(&old, parent);
		if (rc == 0 && new == NULL)
			rc = git_commit_tree(&new, co);
		if (rc == 0)
			rc = text_patchid(repo, old, new, hex);
	}
	git_tree_free(old);
	git_tree_free(new);
	folders_free(&fs);
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
	struct subject sp;
	const char *sum;
	git_commit *co = NULL;

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
	subject_parse(s->a, str_from(c->subject), &sp);
	c->subject_norm = subject_norm(s->a, sp.title);
	collect_msgids(s, c, git_commit_message(co));
	git_commit_free(co);
	return ERR_OK;
}

/*
 * Patch-ids are most of a scan's work (reading and diffing blobs), and
 * independent per commit: two threads share them, as the two processes
 * of `git log -p | git patch-id` share theirs.  libgit2 wants a
 * repository object per thread, so the helper opens its own.
 */
#define SCAN_THREADS 2
#define SCAN_THREADED_FROM 64 /* commits; fewer are not worth a thread */

struct idjob {
	const char *path;
	struct gitscan *s;
	atomic_size_t *next; /* the next commit to take, shared */
	enum err e;
};

static enum err
patchids(git_repository *repo, struct idjob *j)
{
	git_commit *co = NULL;
	git_oid id;
	size_t i;
	enum err e = ERR_OK;

	/* Each thread takes the next commit nobody took: a thread slowed
	 * down by the machine's other work does less. */
	while (e == ERR_OK && (i = atomic_fetch_add(j->next, 1)) < j->s->n) {
		git_oid_fromstr(&id, j->s->v[i].commit);
		if (git_commit_lookup(&co, repo, &id) < 0)
			return gitpriv_fail(
			    j->s->v[i].commit, "cannot read commit");
		e = commit_patchid(repo, co, j->s->v[i].patch_id);
		git_commit_free(co);
	}
	return e;
}

static void *
patchid_thread(void *p)
{
	struct idjob *j = p;
	git_repository *repo = NULL;

	/* A signal to a daemon mid-scan is the main thread's to take. */
	thread_helper("yard-scan");
	if (git_repository_open_ext(&repo, j->path,
	        GIT_REPOSITORY_OPEN_NO_SEARCH | GIT_REPOSITORY_OPEN_BARE,
	        NULL) < 0)
		j->e = gitpriv_fail(j->path, "cannot open repository");
	else
		j->e = patchids(repo, j);
	git_repository_free(repo);
	return NULL;
}

static enum err
all_patchids(struct gitrepo *r, struct gitscan *s)
{
	struct idjob jobs[SCAN_THREADS];
	pthread_t th[SCAN_THREADS];
	bool started[SCAN_THREADS] = { false };
	size_t k, nt = s->n >= SCAN_THREADED_FROM ? SCAN_THREADS : 1;
	atomic_size_t next;
	enum err e = ERR_OK;

	atomic_init(&next, 0);
	for (k = 0; k < nt; k++) {
		jobs[k].path = git_repository_path(r->repo);
		jobs[k].s = s;
		jobs[k].next = &next;
		jobs[k].e = ERR_OK;
	}
	for (k = 1; k < nt; k++)
		started[k] =
		    pthread_create(&th[k], NULL, patchid_thread, &jobs[k]) == 0;
	/* This thread works too, and takes over what a helper that did
	 * not start would have done. */
	jobs[0].e = patchids(r->repo, &jobs[0]);
	for (k = 1; k < nt; k++)
		if (started[k])
			pthread_join(th[k], NULL);
	for (k = 0; k < nt; k++)
		if (jobs[k].e && e == ERR_OK)
			e = jobs[k].e;
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
	if (e == ERR_OK)
		e = all_patchids(r, s);
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
