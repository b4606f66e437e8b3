/*
 * Applying a patch to a tree in memory so that the trees equal what
 * `git am -3` makes: each file section's hunks applied to its blob as
 * git apply does (bot/git/githunk.c); when any file fails, every file goes
 * through a three-way merge: the patch applied to the blob its "index"
 * line names, merged with the current blob (git_merge_file), as git
 * am's fall_back_threeway does.  New files, deletions, renames, copies,
 * modes, symbolic links and binary patches (libgit2) are handled here,
 * and so are the refusals of bad patches.
 */
#include "bot/git/gitapply.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bot/git/githunk.h"
#include "bot/git/gitpriv.h"
#include "parsers/diff.h"
#include "parsers/limits.h"
#include "parsers/patchid.h"
#include "util/arena.h"
#include "util/ascii.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/xalloc.h"

/* ---- trees: what the patch does to each path ---- */

/* A path's state while one patch is applied: later sections of the same
 * patch see what earlier ones did. */
struct ent {
	const char *path;
	git_oid oid;
	unsigned mode;
	bool gone; /* deleted by this patch */
	bool in_tree; /* the tree had it before */
};

struct pmap {
	struct ent *v;
	size_t cap, n;
};

struct ctx {
	struct gitrepo *r;
	git_tree *tree;
	const struct diff *d;
	struct pmap pm;
	struct arena *a;
	struct gitapply_result *res;
	struct buf out;
	git_oid empty_blob;
};

static size_t
path_hash(const char *s)
{
	size_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static struct ent *
pmap_slot(struct pmap *m, const char *path)
{
	size_t i;

	for (i = path_hash(path) & (m->cap - 1); m->v[i].path;
	     i = (i + 1) & (m->cap - 1))
		if (strcmp(m->v[i].path, path) == 0)
			break;
	return &m->v[i];
}

static struct ent *
pmap_get(struct pmap *m, const char *path)
{
	struct ent *e;

	if (m->cap == 0)
		return NULL;
	e = pmap_slot(m, path);
	return e->path ? e : NULL;
}

static struct ent *
pmap_put(struct pmap *m, const char *path)
{
	struct ent *e;
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		struct pmap t = { NULL, m->cap ? 2 * m->cap : 64, 0 };
		t.v = xcalloc(t.cap, sizeof(*t.v));
		for (i = 0; i < m->cap; i++)
			if (m->v[i].path)
				*pmap_slot(&t, m->v[i].path) = m->v[i];
		t.n = m->n;
		free(m->v);
		*m = t;
	}
	e = pmap_slot(m, path);
	if (e->path == NULL) {
		memset(e, 0, sizeof(*e));
		e->path = path;
		m->n++;
	}
	return e;
}

static void
pmap_clear(struct pmap *m)
{
	if (m->v)
		memset(m->v, 0, m->cap * sizeof(*m->v));
	m->n = 0;
}

/* git's file modes; 0 for what the stager does not take (submodules,
 * folders, nonsense). */
static unsigned
norm_mode(unsigned m)
{
	if (m == GIT_FILEMODE_LINK)
		return GIT_FILEMODE_LINK;
	if ((m & 0170000) == 0100000)
		return (m & 0111) ? GIT_FILEMODE_BLOB_EXECUTABLE
		                  : GIT_FILEMODE_BLOB;
	return 0;
}

/* Record why the patch did not go in; returns the code for it. */
static enum err say(struct ctx *c, enum gitapply_how how, const char *path,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static enum err
say(struct ctx *c, enum gitapply_how how, const char *path, const char *fmt,
    ...)
{
	/* Sized so that path and message always fit the reason: a long
	 * path or message is cut with "..." by log_quote and vsnprintf. */
	char q[128], msg[120];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		msg[0] = '\0';
	else if ((size_t)n >= sizeof(msg))
		memcpy(msg + sizeof(msg) - 4, "...", 4);
	log_quote(q, sizeof(q), path ? path : "", path ? strlen(path) : 0);
	n = snprintf(c->res->reason, sizeof(c->res->reason), "%s%s%s", q,
	    path ? ": " : "", msg);
	if (n < 0 || (size_t)n >= sizeof(c->res->reason))
		fatal("gitapply: reason does not fit");
	c->res->how = how;
	return how == GITAPPLY_REFUSED ? ERR_PERM : ERR_CONFLICT;
}

/*
 * The state of path in the tree the patch applies to: 1 a file (oid,
 * mode set), 0 nothing, 2 a folder, -1 the repository failed.
 */
static int
tree_get(struct ctx *c, const char *path, git_oid *oid, unsigned *mode)
{
	git_tree_entry *te = NULL;
	int rc;

	switch (gittree_bypath(c->r, git_tree_id(c->tree), path, oid, mode)) {
	case ERR_OK:
		return (*mode & 0170000) == 0040000 ? 2 : 1;
	case ERR_NOTFOUND:
		return 0;
	default: /* libgit2 says what is wrong */
		break;
	}
	rc = git_tree_entry_bypath(&te, c->tree, path);
	if (rc == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (rc < 0)
		return -1;
	*oid = *git_tree_entry_id(te);
	*mode = git_tree_entry_filemode(te);
	rc = git_tree_entry_type(te) == GIT_OBJECT_TREE ? 2 : 1;
	git_tree_entry_free(te);
	return rc;
}

/* The same, after what the patch did so far. */
static int
cur_get(struct ctx *c, const char *path, git_oid *oid, unsigned *mode)
{
	struct ent *e = pmap_get(&c->pm, path);

	if (e) {
		if (e->gone)
			return 0;
		*oid = e->oid;
		*mode = e->mode;
		return 1;
	}
	return tree_get(c, path, oid, mode);
}

static bool
in_tree(struct ctx *c, const char *path)
{
	git_tree_entry *te = NULL;
	unsigned mode;
	git_oid oid;

	switch (gittree_bypath(c->r, git_tree_id(c->tree), path, &oid, &mode)) {
	case ERR_OK:
		return true;
	case ERR_NOTFOUND:
		return false;
	default:
		break;
	}
	if (git_tree_entry_bypath(&te, c->tree, path) < 0) {
		git_error_clear();
		return false;
	}
	git_tree_entry_free(te);
	return true;
}

static void
cur_set(struct ctx *c, const char *path, const git_oid *oid, unsigned mode)
{
	struct ent *e = pmap_get(&c->pm, path);

	if (e == NULL) {
		bool was = in_tree(c, path);
		e = pmap_put(&c->pm, path);
		e->in_tree = was;
	}
	e->oid = *oid;
	e->mode = mode;
	e->gone = false;
}

static void
cur_del(struct ctx *c, const char *path)
{
	struct ent *e = pmap_get(&c->pm, path);

	if (e == NULL) {
		bool was = in_tree(c, path);
		e = pmap_put(&c->pm, path);
		e->in_tree = was;
	}
	e->gone = true;
}

static enum err
blob_read(struct ctx *c, const git_oid *oid, git_blob **out)
{
	if (git_blob_lookup(out, c->r->repo, oid) < 0)
		return gitpriv_fail(git_oid_tostr_s(oid), "cannot read blob");
	return ERR_OK;
}

static enum err
blob_write(struct ctx *c, const char *p, size_t n, git_oid *out)
{
	return gitpriv_blob(c->r, p, n, out);
}

/* The "@@ -a,b +c,d @@" part of a hunk header, for reasons. */
static int
hunk_label_len(const struct diff_hunk *h)
{
	long at =
	    h->header.n > 2 ? str_findstr(str_skip(h->header, 2), "@@", 2) : -1;

	return at < 0 ? (int)h->header.n : (int)at + 4;
}

/* What the file section is, as a cache key: its text names the paths,
 * the index line and every hunk line. */
static void
section_hash(const struct diff_file *f, git_oid *out)
{
	struct patchid_sha1_ctx c;
	char hdr[32];
	int k = snprintf(hdr, sizeof(hdr), "blob %zu", f->text.n);

	/* git's blob id of the text (nettle's SHA-1: the key needs no
	 * defence against collisions, and is kept on disk by this value). */
	patchid_sha1_init(&c);
	patchid_sha1_update(&c, hdr, (size_t)k + 1);
	patchid_sha1_update(&c, f->text.p, f->text.n);
	patchid_sha1_final(&c, out->id);
}

/*
 * Apply f's hunks to the blob pre (NULL: the empty preimage of a new
 * file) into post.  The same section on the same blob was maybe applied
 * before in this process: then the cache knows the answer.
 */
static enum err
apply_blob(struct ctx *c, const struct diff_file *f, const git_oid *pre,
    const char *path, git_oid *post, long *offset)
{
	unsigned char key[41];
	const struct gitcache_val *v;
	struct gitcache_val nv;
	git_blob *b = NULL;
	git_oid sec;
	size_t failed = 0;
	const char *p = "";
	size_t n = 0;
	enum err e = ERR_OK;

	*offset = 0;
	if (f->nhunks == 0) {
		*post = pre ? *pre : c->empty_blob;
		return ERR_OK;
	}
	section_hash(f, &sec);
	gitcache_key(key, pre, &sec, 'd');
	v = gitcache_get(&c->r->cache, key);
	if (v && gitpriv_exists(c->r, &v->post)) {
		*post = v->post;
		*offset = v->offset;
		return ERR_OK;
	}
	if (pre) {
		if ((e = blob_read(c, pre, &b)))
			return e;
		p = git_blob_rawcontent(b);
		n = (size_t)git_blob_rawsize(b);
	}
	if (!githunk_apply(f, p, n, &c->out, offset, &failed)) {
		const struct diff_hunk *h = &f->hunks[failed];
		e = say(c, GITAPPLY_CONFLICT, path,
		    "hunk #%zu (%.*s) does not apply", failed + 1,
		    hunk_label_len(h), h->header.p);
	} else if ((e = blob_write(c, buf_cstr(&c->out), c->out.n, post)) ==
	    ERR_OK) {
		nv.post = *post;
		nv.offset = *offset;
		gitcache_put(&c->r->cache, key, &nv);
	}
	git_blob_free(b);
	return e;
}

/* A tree holding only the blob pre at path (or nothing), for libgit2's
 * own apply, which indexes the whole tree it is given. */
static enum err
mini_tree(struct ctx *c, const char *path, const git_oid *pre, unsigned mode,
    git_tree **out)
{
	git_treebuilder *tb = NULL;
	git_tree *empty = NULL;
	git_tree_update u;
	git_oid id;
	int rc;

	rc = git_treebuilder_new(&tb, c->r->repo, NULL);
	if (rc == 0)
		rc = git_treebuilder_write(&id, tb);
	git_treebuilder_free(tb);
	if (rc == 0 && pre) {
		memset(&u, 0, sizeof(u));
		u.action = GIT_TREE_UPDATE_UPSERT;
		u.id = *pre;
		u.filemode = (git_filemode_t)mode;
		u.path = path;
		rc = git_tree_lookup(&empty, c->r->repo, &id);
		if (rc == 0)
			rc = git_tree_create_updated(
			    &id, c->r->repo, empty, 1, &u);
		git_tree_free(empty);
	}
	if (rc == 0)
		rc = git_tree_lookup(out, c->r->repo, &id);
	return rc < 0 ? gitpriv_fail(c->r->path, "cannot make a tree") : ERR_OK;
}

/* What a binary hunk may inflate to; beyond it we refuse the patch. */
#define BINARY_MAX ((size_t)64 << 20)

static int
b85_digit(unsigned char ch)
{
	static const char set[] =
	    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
	const char *at = ch ? strchr(set, ch) : NULL;

	return at ? (int)(at - set) : -1;
}

/* One base85 line ("A".."z" for its length, then groups of five) onto b. */
static bool
b85_line(struct buf *b, const char *p, size_t n)
{
	size_t len, i;

	if (n < 6 || (n - 1) % 5 != 0)
		return false;
	if (p[0] >= 'A' && p[0] <= 'Z')
		len = (size_t)(p[0] - 'A' + 1);
	else if (p[0] >= 'a' && p[0] <= 'z')
		len = (size_t)(p[0] - 'a' + 27);
	else
		return false;
	if ((len + 3) / 4 != (n - 1) / 5)
		return false;
	for (i = 1; i < n && len > 0; i += 5) {
		uint32_t acc = 0;
		unsigned char out[4];
		size_t k;

		for (k = 0; k < 5; k++) {
			int d = b85_digit((unsigned char)p[i + k]);

			if (d < 0 || acc > (UINT32_MAX - (uint32_t)d) / 85)
				return false;
			acc = acc * 85 + (uint32_t)d;
		}
		for (k = 0; k < 4; k++)
			out[k] = (unsigned char)(acc >> (24 - 8 * k));
		k = len < 4 ? len : 4;
		buf_add(b, out, k);
		len -= k;
	}
	return true;
}

/*
 * Whether every "literal N"/"delta N" block of a binary patch decodes
 * and inflates to exactly N bytes, as git apply checks before applying.
 * libgit2 1.5 does not, and loops for ever on a block whose stream
 * ends short of its size (found by fuzz_gitapply).
 */
static bool
binary_sane(const char *p, size_t n)
{
	const char *end = p + n, *nl;
	struct buf raw = BUF_INIT;
	bool ok = true, in = false;
	size_t want = 0, blocks = 0;

	for (; p < end && ok; p = nl + 1) {
		size_t len;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		len = (size_t)(nl - p);
		if (!in) {
			const char *num = NULL;
			char *stop;
			unsigned long long v;

			if (len > 8 && memcmp(p, "literal ", 8) == 0)
				num = p + 8;
			else if (len > 6 && memcmp(p, "delta ", 6) == 0)
				num = p + 6;
			if (num == NULL)
				continue;
			errno = 0;
			v = strtoull(num, &stop, 10);
			ok = stop == nl && errno == 0 && ascii_isdigit(*num) &&
			    v <= BINARY_MAX;
			want = (size_t)v;
			buf_reset(&raw);
			in = true;
			blocks++;
		} else if (len > 0) {
			ok = b85_line(&raw, p, len);
		} else {
			unsigned char *out = xmalloc(want + 1);
			uLongf got = (uLongf)want + 1;

			ok = uncompress(out, &got, (const Bytef *)raw.p,
			         (uLong)raw.n) == Z_OK &&
			    got == want;
			free(out);
			in = false;
		}
	}
	buf_free(&raw);
	return ok && !in && blocks > 0;
}

/* A "GIT binary patch" (literal or delta) through libgit2.  *post is
 * left alone and *gone set when the patch deletes the file. */
static enum err
apply_binary(struct ctx *c, const struct diff_file *f, const git_oid *pre,
    unsigned mode, git_oid *post, bool *gone)
{
	const char *path = f->new_path ? f->new_path : f->old_path;
	const git_index_entry *ie;
	git_diff *diff = NULL;
	git_index *idx = NULL;
	git_tree *mini = NULL;
	enum err e;

	*gone = false;
	if ((e = mini_tree(c, f->old_path, pre, mode, &mini)))
		return e;
	if (!binary_sane(f->text.p, f->text.n) ||
	    git_diff_from_buffer(&diff, f->text.p, f->text.n) < 0)
		e = say(
		    c, GITAPPLY_CONFLICT, path, "binary patch does not parse");
	else if (git_apply_to_tree(&idx, c->r->repo, mini, diff, NULL) < 0)
		e = say(
		    c, GITAPPLY_CONFLICT, path, "binary patch does not apply");
	else if ((ie = git_index_get_bypath(idx, path, 0)) == NULL)
		*gone = true;
	else
		*post = ie->id;
	git_error_clear();
	git_index_free(idx);
	git_diff_free(diff);
	git_tree_free(mini);
	return e;
}

/* Where a section reads from and writes to. */
static const char *
src_path(const struct diff_file *f)
{
	return f->op == DIFF_ADD ? NULL : f->old_path;
}

static const char *
dst_path(const struct diff_file *f)
{
	return f->op == DIFF_DELETE ? NULL : f->new_path;
}

/* A rename or copy must not land on something that is there already;
 * nor may a new file. */
static enum err
check_dst_free(struct ctx *c, const struct diff_file *f)
{
	const char *src = src_path(f), *dst = dst_path(f);
	git_oid o;
	unsigned m;

	if (dst == NULL || f->op == DIFF_MODIFY ||
	    (src && strcmp(src, dst) == 0))
		return ERR_OK;
	switch (cur_get(c, dst, &o, &m)) {
	case 0:
		return ERR_OK;
	case -1:
		return gitpriv_fail(dst, "cannot read tree");
	default:
		return say(c, GITAPPLY_CONFLICT, dst, "already exists");
	}
}

/* The file's content after the section: text hunks, a binary patch, or
 * nothing to change. */
static enum err
section_content(struct ctx *c, const struct diff_file *f, const git_oid *pre,
    unsigned pre_mode, git_oid *post, long *offset, bool *gone)
{
	const char *path = src_path(f) ? src_path(f) : dst_path(f);

	*gone = false;
	*offset = 0;
	if (f->binary)
		return apply_binary(c, f, pre, pre_mode, post, gone);
	return apply_blob(c, f, pre, path, post, offset);
}

/* Apply one section where it stands (the first pass). */
static enum err
file_direct(struct ctx *c, const struct diff_file *f, long *offset)
{
	const char *src = src_path(f), *dst = dst_path(f);
	git_oid pre, post;
	unsigned pre_mode = 0, mode;
	bool gone;
	enum err e;

	if (src) {
		switch (cur_get(c, src, &pre, &pre_mode)) {
		case 1:
			break;
		case -1:
			return gitpriv_fail(src, "cannot read tree");
		case 2:
			return say(c, GITAPPLY_CONFLICT, src, "is a folder");
		default:
			return say(c, GITAPPLY_CONFLICT, src, "does not exist");
		}
	}
	if ((e = check_dst_free(c, f)))
		return e;
	e = section_content(
	    c, f, src ? &pre : NULL, pre_mode, &post, offset, &gone);
	if (e)
		return e;
	if (f->op == DIFF_DELETE || gone) {
		if (!gone && !git_oid_equal(&post, &c->empty_blob))
			return say(c, GITAPPLY_CONFLICT, src,
			    "removal patch leaves file contents");
		cur_del(c, src);
		return ERR_OK;
	}
	mode = f->new_mode ? norm_mode(f->new_mode)
	                   : (src ? pre_mode : GIT_FILEMODE_BLOB);
	if (f->op == DIFF_RENAME && strcmp(src, dst) != 0)
		cur_del(c, src);
	cur_set(c, dst, &post, mode);
	return ERR_OK;
}

/* The blob the section's index line names: the preimage the patch was
 * made against, which the three-way pass merges through. */
static enum err
base_blob(struct ctx *c, const struct diff_file *f, git_oid *base)
{
	const char *path = f->old_path;
	size_t n = f->old_oid ? strlen(f->old_oid) : 0;
	git_object_t type;
	git_oid shorty;
	size_t len;

	if (n == 0)
		return say(c, GITAPPLY_CONFLICT, path,
		    "no index line to merge through");
	if (n < 4 || n > GIT_OID_HEXSZ ||
	    git_oid_fromstrn(&shorty, f->old_oid, n) < 0)
		return say(c, GITAPPLY_CONFLICT, path, "bad index line");
	if (git_odb_exists_prefix(base, c->r->odb, &shorty, n) < 0 ||
	    git_odb_read_header(&len, &type, c->r->odb, base) < 0 ||
	    type != GIT_OBJECT_BLOB) {
		git_error_clear();
		return say(c, GITAPPLY_CONFLICT, path,
		    "preimage %s is not in the repository", f->old_oid);
	}
	return ERR_OK;
}

/* ours and theirs both changed base: git_merge_file, as git's
 * merge-recursive does for a file changed on both sides. */
static enum err
merge_blobs(struct ctx *c, const struct diff_file *f, const git_oid *base,
    const git_oid *ours, const git_oid *theirs, git_oid *out)
{
	const git_oid *ids[3] = { base, ours, theirs };
	git_merge_file_input in[3];
	git_merge_file_result mr;
	git_blob *b[3] = { NULL, NULL, NULL };
	unsigned char key[41];
	const struct gitcache_val *v;
	struct gitcache_val nv;
	git_oid sec;
	enum err e = ERR_OK;
	int i;

	if (git_oid_equal(ours, base) || git_oid_equal(ours, theirs)) {
		*out = *theirs;
		return ERR_OK;
	}
	if (git_oid_equal(theirs, base)) {
		*out = *ours;
		return ERR_OK;
	}
	section_hash(f, &sec);
	gitcache_key(key, ours, &sec, 't');
	v = gitcache_get(&c->r->cache, key);
	if (v && gitpriv_exists(c->r, &v->post)) {
		*out = v->post;
		return ERR_OK;
	}
	memset(&mr, 0, sizeof(mr));
	for (i = 0; i < 3 && e == ERR_OK; i++) {
		git_merge_file_input_init(&in[i], GIT_MERGE_FILE_INPUT_VERSION);
		if ((e = blob_read(c, ids[i], &b[i])))
			break;
		in[i].ptr = git_blob_rawcontent(b[i]);
		in[i].size = (size_t)git_blob_rawsize(b[i]);
		in[i].path = f->old_path;
		in[i].mode = GIT_FILEMODE_BLOB;
	}
	if (e == ERR_OK &&
	    git_merge_file(&mr, &in[0], &in[1], &in[2], NULL) < 0)
		e = gitpriv_fail(f->old_path, "merge failed");
	if (e == ERR_OK && !mr.automergeable)
		e = say(c, GITAPPLY_CONFLICT, f->old_path,
		    "three-way merge has conflicts");
	if (e == ERR_OK && (e = blob_write(c, mr.ptr, mr.len, out)) == ERR_OK) {
		nv.post = *out;
		nv.offset = 0;
		gitcache_put(&c->r->cache, key, &nv);
	}
	git_merge_file_result_free(&mr);
	for (i = 0; i < 3; i++)
		git_blob_free(b[i]);
	return e;
}

/* The mode after a three-way merge: whichever side changed it. */
static bool
merge_mode(unsigned base, unsigned ours, unsigned theirs, unsigned *out)
{
	if (ours == base || ours == theirs)
		*out = theirs;
	else if (theirs == base)
		*out = ours;
	else
		return false;
	return true;
}

/* Additions and deletions in the three-way pass. */
static enum err
threeway_add_del(struct ctx *c, const struct diff_file *f, int have,
    const git_oid *base, const git_oid *ours, const git_oid *theirs,
    unsigned mode)
{
	if (f->op == DIFF_ADD) {
		if (have == 1 && !git_oid_equal(ours, theirs))
			return say(c, GITAPPLY_CONFLICT, f->new_path,
			    "already exists with other content");
		cur_set(c, f->new_path, theirs, mode);
		return ERR_OK;
	}
	if (have == 0)
		return ERR_OK; /* deleted here already */
	if (!git_oid_equal(ours, base))
		return say(c, GITAPPLY_CONFLICT, f->old_path,
		    "changed here, and the patch deletes it");
	if (!git_oid_equal(theirs, &c->empty_blob))
		return say(c, GITAPPLY_CONFLICT, f->old_path,
		    "removal patch leaves file contents");
	cur_del(c, f->old_path);
	return ERR_OK;
}

/* Apply one section through its preimage blob (the second pass). */
static enum err
file_threeway(struct ctx *c, const struct diff_file *f)
{
	const char *src = src_path(f), *dst = dst_path(f);
	const char *path = src ? src : dst;
	git_oid base, theirs, ours, result;
	unsigned ours_mode = 0, base_mode, theirs_mode, mode;
	char moved[4096];

	memset(&base, 0, sizeof(base));
	memset(&ours, 0, sizeof(ours));
	long off;
	int have;
	enum err e;

	if (f->binary)
		return say(
		    c, GITAPPLY_CONFLICT, path, "binary patch does not apply");
	if (src && (e = base_blob(c, f, &base)))
		return e;
	base_mode = f->old_mode ? norm_mode(f->old_mode) : GIT_FILEMODE_BLOB;
	theirs_mode = f->new_mode ? norm_mode(f->new_mode) : base_mode;
	if ((e = apply_blob(c, f, src ? &base : NULL, path, &theirs, &off)))
		return e;
	have = cur_get(c, path, &ours, &ours_mode);
	if (have < 0)
		return gitpriv_fail(path, "cannot read tree");
	/* Gone here: renamed upstream?  Then the patch goes there. */
	if (have == 0 && src && f->op != DIFF_ADD && f->op != DIFF_DELETE &&
	    gitrename_find(c->r, c->tree, src, &base, moved, sizeof(moved)) &&
	    pmap_get(&c->pm, moved) == NULL) {
		/* The map of paths keeps pointers: a copy that lasts. */
		const char *kept;

		if (c->a == NULL)
			c->a = arena_new();
		kept = arena_strdup(c->a, moved);

		have = cur_get(c, kept, &ours, &ours_mode);
		if (f->op != DIFF_RENAME && f->op != DIFF_COPY)
			dst = kept;
		src = path = kept;
	}
	if (have == 2)
		return say(c, GITAPPLY_CONFLICT, path, "is a folder");
	if (f->op == DIFF_ADD || f->op == DIFF_DELETE)
		return threeway_add_del(
		    c, f, have, &base, &ours, &theirs, theirs_mode);
	if (have == 0)
		return say(c, GITAPPLY_CONFLICT, src, "does not exist");
	if ((e = check_dst_free(c, f)))
		return e;
	if ((e = merge_blobs(c, f, &base, &ours, &theirs, &result)))
		return e;
	if (!merge_mode(base_mode, ours_mode, theirs_mode, &mode))
		return say(
		    c, GITAPPLY_CONFLICT, src, "mode changed on both sides");
	if (f->op == DIFF_RENAME && strcmp(src, dst) != 0)
		cur_del(c, src);
	cur_set(c, dst, &result, mode);
	return ERR_OK;
}

/*
 * Whether a folder above path is a symbolic link (after what the patch
 * did so far): writing there would write through the link, which git
 * apply refuses ("beyond a symbolic link") and so do we.
 */
static bool
under_link(struct ctx *c, const char *path)
{
	char pre[4096];
	const char *s;
	struct ent *e;
	git_tree_entry *te;
	bool link;

	for (s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
		size_t n = (size_t)(s - path);
		if (n >= sizeof(pre))
			return true;
		memcpy(pre, path, n);
		pre[n] = '\0';
		if ((e = pmap_get(&c->pm, pre)) != NULL) {
			if (!e->gone && e->mode == GIT_FILEMODE_LINK)
				return true;
			continue;
		}
		te = NULL;
		if (git_tree_entry_bypath(&te, c->tree, pre) < 0) {
			git_error_clear();
			return false;
		}
		link = git_tree_entry_filemode(te) == GIT_FILEMODE_LINK;
		git_tree_entry_free(te);
		if (link)
			return true;
	}
	return false;
}

/* Refusals that need no application: bad paths, modes, binary patches
 * without data, paths beyond a symbolic link. */
static enum err
precheck(struct ctx *c)
{
	size_t i, k;

	if (c->d->nfiles > LIMIT_PATCH_FILES)
		return say(c, GITAPPLY_REFUSED, NULL, "more than %u files",
		    (unsigned)LIMIT_PATCH_FILES);
	for (i = 0; i < c->d->nfiles; i++) {
		const struct diff_file *f = &c->d->files[i];
		const char *paths[2] = { src_path(f), dst_path(f) };

		if ((f->op != DIFF_ADD && !paths[0]) ||
		    (f->op != DIFF_DELETE && !paths[1]))
			return say(c, GITAPPLY_REFUSED, NULL,
			    "file section %zu names no file", i + 1);
		for (k = 0; k < 2; k++) {
			if (paths[k] == NULL)
				continue;
			if (!diff_path_safe(paths[k]))
				return say(c, GITAPPLY_REFUSED, paths[k],
				    "path not allowed");
			if (under_link(c, paths[k]))
				return say(c, GITAPPLY_REFUSED, paths[k],
				    "beyond a symbolic link");
		}
		if ((f->old_mode && !norm_mode(f->old_mode)) ||
		    (f->new_mode && !norm_mode(f->new_mode)))
			return say(c, GITAPPLY_REFUSED, paths[paths[0] ? 0 : 1],
			    "mode %o not supported",
			    f->new_mode ? f->new_mode : f->old_mode);
		if (f->binary && f->binary_data.n == 0)
			return say(c, GITAPPLY_REFUSED, paths[paths[0] ? 0 : 1],
			    "binary patch without data");
	}
	return ERR_OK;
}

/* ---- links: where they lead after the patch (bot/git/gitlink.c) ---- */

static int
view_after(void *cls, const char *path, git_oid *oid, unsigned *mode)
{
	return cur_get(cls, path, oid, mode);
}

static int
view_before(void *cls, const char *path, git_oid *oid, unsigned *mode)
{
	return tree_get(cls, path, oid, mode);
}

/* A link the patch leaves as it was. */
struct old_link {
	const char *path;
	git_oid oid;
};

/* The links of the tree the patch applies to that it leaves as they
 * are, under tree id (at prefix), appended to *v. */
static enum err
old_links(struct ctx *c, const git_oid *id, const char *prefix,
    struct old_link **v, size_t *n, size_t *cap)
{
	struct gittree_ent *ents;
	size_t i, k, np = strlen(prefix);
	enum err e;

	if ((e = gittree_entries(c->r, id, &ents, &k)) != ERR_OK)
		return e;
	for (i = 0; i < k && e == ERR_OK; i++) {
		char *path = arena_alloc(c->a, np + ents[i].len + 2);
		git_oid sub;

		memcpy(path, prefix, np);
		path[np] = np ? '/' : '\0';
		memcpy(path + np + (np > 0), ents[i].name, ents[i].len);
		path[np + (np > 0) + ents[i].len] = '\0';
		if (gittree_is_tree(ents[i].mode)) {
			git_oid_fromraw(&sub, ents[i].id);
			e = old_links(c, &sub, path, v, n, cap);
		} else if (ents[i].mode == GIT_FILEMODE_LINK &&
		    pmap_get(&c->pm, path) == NULL) {
			*v = xgrow(*v, cap, *n + 1, sizeof(**v));
			(*v)[*n].path = path;
			git_oid_fromraw(&(*v)[*n].oid, ents[i].id);
			(*n)++;
		}
	}
	free(ents);
	return e;
}

/* Whether the patch makes, changes or removes a link. */
static bool
touches_links(struct ctx *c)
{
	git_oid oid;
	unsigned mode;
	size_t i;

	for (i = 0; i < c->pm.cap; i++) {
		const struct ent *e = &c->pm.v[i];

		if (e->path == NULL)
			continue;
		if (!e->gone && e->mode == GIT_FILEMODE_LINK)
			return true;
		if (e->in_tree && tree_get(c, e->path, &oid, &mode) == 1 &&
		    mode == GIT_FILEMODE_LINK)
			return true;
	}
	return false;
}

/* The refusal for a link that leads where it must not. */
static enum err
bad_link(struct ctx *c, const char *path, enum gitlink_where w, bool old)
{
	if (w == GITLINK_LOOP)
		return say(
		    c, GITAPPLY_REFUSED, path, "symbolic links in a loop");
	return say(c, GITAPPLY_REFUSED, path,
	    "symbolic link %s out of the tree", old ? "now points" : "points");
}

/*
 * Every link the patch makes or changes must lead inside the tree,
 * followed through every link of the tree after the patch.  A patch that
 * makes, changes or removes a link can change where the tree's other
 * links lead too (d/l -> ".." makes an old e -> "d/l/../../etc" lead
 * out): then each of them that led inside before must still.  Links
 * that already led out (upstream's own) are not the patch's doing.
 */
static enum err
check_links(struct ctx *c)
{
	struct gitlink_view after = { view_after, c, c->r->repo };
	struct gitlink_view before = { view_before, c, c->r->repo };
	enum gitlink_where w, was;
	struct old_link *old = NULL;
	size_t i, n = 0, cap = 0;
	enum err e = ERR_OK;

	if (!touches_links(c))
		return ERR_OK;
	for (i = 0; i < c->pm.cap && e == ERR_OK; i++) {
		const struct ent *en = &c->pm.v[i];

		if (en->path == NULL || en->gone ||
		    en->mode != GIT_FILEMODE_LINK)
			continue;
		e = gitlink_resolve(&after, en->path, &en->oid, &w);
		if (e == ERR_OK && w != GITLINK_IN)
			e = bad_link(c, en->path, w, false);
	}
	if (c->a == NULL)
		c->a = arena_new();
	if (e == ERR_OK)
		e = old_links(c, git_tree_id(c->tree), "", &old, &n, &cap);
	for (i = 0; i < n && e == ERR_OK; i++) {
		e = gitlink_resolve(&after, old[i].path, &old[i].oid, &w);
		if (e != ERR_OK || w == GITLINK_IN)
			continue;
		e = gitlink_resolve(&before, old[i].path, &old[i].oid, &was);
		if (e == ERR_OK && was == GITLINK_IN)
			e = bad_link(c, old[i].path, w, true);
	}
	free(old);
	return e;
}

/* Refusals that need the result: paths beyond links, links that lead
 * out of the tree. */
static enum err
postcheck(struct ctx *c)
{
	size_t i;

	for (i = 0; i < c->pm.cap; i++) {
		const struct ent *e = &c->pm.v[i];

		if (e->path == NULL || e->gone)
			continue;
		if (under_link(c, e->path))
			return say(c, GITAPPLY_REFUSED, e->path,
			    "beyond a symbolic link");
	}
	return check_links(c);
}

static int
tree_update(struct ctx *c, const git_tree_update *u, size_t n, git_oid *out)
{
	git_tree *base = c->tree, *mid = NULL;
	size_t nrm = 0, i;
	int rc;

	/* In memory where it can (bot/git/gittree.c), else libgit2. */
	switch (gittree_update(c->r, git_tree_id(base), u, n, out)) {
	case ERR_OK:
		return 0;
	case ERR_LIMIT:
		break;
	default:
		return -1;
	}
	rc = git_tree_create_updated(out, c->r->repo, base, n, u);
	if (rc == 0)
		return 0;
	/* A file that becomes a folder (or the other way) in one patch:
	 * libgit2 checks the old tree, so remove first, then add. */
	for (i = 0; i < n; i++)
		nrm += u[i].action == GIT_TREE_UPDATE_REMOVE;
	if (nrm == 0 || nrm == n)
		return rc;
	git_error_clear();
	rc = git_tree_create_updated(out, c->r->repo, base, nrm, u);
	if (rc == 0)
		rc = git_tree_lookup(&mid, c->r->repo, out);
	if (rc == 0)
		rc = git_tree_create_updated(
		    out, c->r->repo, mid, n - nrm, u + nrm);
	git_tree_free(mid);
	return rc;
}

/* The new tree: removals first in the list, then the files. */
static enum err
build_tree(struct ctx *c, git_oid *out)
{
	git_tree_update *u = xcalloc(c->pm.n + 1, sizeof(*u));
	size_t n = 0, i, pass;
	const git_error *ge;
	enum err e = ERR_OK;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < c->pm.cap; i++) {
			const struct ent *en = &c->pm.v[i];
			if (en->path == NULL || en->gone != (pass == 0))
				continue;
			if (en->gone && !en->in_tree)
				continue;
			u[n].action = en->gone ? GIT_TREE_UPDATE_REMOVE
			                       : GIT_TREE_UPDATE_UPSERT;
			u[n].id = en->oid;
			u[n].filemode = (git_filemode_t)en->mode;
			u[n].path = en->path;
			n++;
		}
	}
	if (n == 0)
		git_oid_cpy(out, git_tree_id(c->tree));
	else if (tree_update(c, u, n, out) < 0) {
		ge = git_error_last();
		e = say(c, GITAPPLY_CONFLICT, NULL,
		    "the tree cannot be built: %s",
		    ge && ge->message ? ge->message : "unknown error");
		git_error_clear();
	}
	free(u);
	return e;
}

static enum err
run_pass(struct ctx *c, bool threeway, long *offset)
{
	size_t i;
	long off = 0;
	enum err e;

	*offset = 0;
	for (i = 0; i < c->d->nfiles; i++) {
		const struct diff_file *f = &c->d->files[i];

		e = threeway ? file_threeway(c, f) : file_direct(c, f, &off);
		if (e)
			return e;
		if (labs(off) > labs(*offset))
			*offset = off;
	}
	return ERR_OK;
}

/* Both passes: where the patch says (or relocated), else three-way. */
static enum err
apply_passes(struct ctx *c)
{
	char first[sizeof(c->res->reason)];
	long offset;
	enum err e;

	e = run_pass(c, false, &offset);
	if (e == ERR_OK && offset != 0) {
		c->res->how = GITAPPLY_OFFSET;
		c->res->offset = offset;
	}
	if (e != ERR_CONFLICT)
		return e;
	memcpy(first, c->res->reason, sizeof(first));
	pmap_clear(&c->pm);
	e = run_pass(c, true, &offset);
	if (e == ERR_OK) {
		c->res->how = GITAPPLY_THREEWAY;
		c->res->reason[0] = '\0';
	} else if (e == ERR_CONFLICT) {
		/* What failed first is what people need to see. */
		memcpy(c->res->reason, first, sizeof(first));
	}
	return e;
}

enum err
gitapply_diff(struct gitrepo *r, git_tree *tree, const struct diff *d,
    git_oid *out, struct gitapply_result *res)
{
	struct ctx c;
	enum err e;

	memset(&c, 0, sizeof(c));
	memset(res, 0, sizeof(*res));
	res->how = GITAPPLY_EXACT;
	c.r = r;
	c.tree = tree;
	c.d = d;
	c.res = res;
	buf_init(&c.out, 0);
	e = blob_write(&c, "", 0, &c.empty_blob);
	if (e == ERR_OK)
		e = precheck(&c);
	if (e == ERR_OK)
		e = apply_passes(&c);
	if (e == ERR_OK)
		e = postcheck(&c);
	if (e == ERR_OK)
		e = build_tree(&c, out);
	if (e == ERR_OK && res->how == GITAPPLY_THREEWAY &&
	    git_oid_equal(out, git_tree_id(tree)))
		res->how = GITAPPLY_EMPTY;
	if (e == ERR_GIT && res->reason[0] == '\0')
		snprintf(res->reason, sizeof(res->reason), "repository error");
	buf_free(&c.out);
	free(c.pm.v);
	arena_free(c.a);
	return e;
}

const char *
gitapply_how_str(enum gitapply_how how)
{
	switch (how) {
	case GITAPPLY_EXACT:
		return "exact";
	case GITAPPLY_OFFSET:
		return "offset";
	case GITAPPLY_THREEWAY:
		return "three-way";
	case GITAPPLY_EMPTY:
		return "empty";
	case GITAPPLY_CONFLICT:
		return "conflict";
	case GITAPPLY_REFUSED:
		return "refused";
	}
	return "unknown";
}

/*
 * Whether the patch went through a mailer that turned every LF into
 * CRLF: its first header line ends in CRLF.  (A patch for a CRLF file
 * has CRs in its content lines only.)
 */
static bool
crlf_mail(const char *t, size_t n)
{
	const char *p = t, *end = t + n, *nl;
	size_t len;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			return false;
		len = (size_t)(nl - p);
		if (len >= 4 &&
		    (memcmp(p, "--- ", 4) == 0 || memcmp(p, "diff", 4) == 0))
			return p[len - 1] == '\r';
	}
	return false;
}

/* Parse failures and limits make a patch refused, not an error. */
enum err
gitapply_parse(struct arena *a, const char *text, size_t n, struct diff **d,
    struct gitapply_result *res)
{
	enum err e;

	/* Undo the mailer's CRLF, as git mailsplit does: one CR before
	 * each LF.  A CRLF file's lines lose theirs too; applying puts
	 * them back when the file has them (CR_ADD). */
	if (crlf_mail(text, n)) {
		char *c = arena_alloc(a, n + 1);
		size_t i, o = 0;

		for (i = 0; i < n; i++)
			if (!(text[i] == '\r' && i + 1 < n &&
			        text[i + 1] == '\n'))
				c[o++] = text[i];
		c[o] = '\0';
		text = c;
		n = o;
	}
	e = diff_parse(a, text, n, d);

	if (e == ERR_OK)
		return ERR_OK;
	memset(res, 0, sizeof(*res));
	res->how = GITAPPLY_REFUSED;
	snprintf(res->reason, sizeof(res->reason), "%s",
	    e == ERR_LIMIT ? "more files or hunks than allowed"
	                   : "not a patch that can be parsed");
	return ERR_PERM;
}

enum err
gitapply_tree(struct gitrepo *r, const char *tree_hex, const char *diff,
    size_t n, char tree_out[41], struct gitapply_result *res)
{
	struct arena *a = arena_new();
	struct diff *d = NULL;
	git_tree *tree = NULL;
	git_oid id, out;
	enum err e;

	tree_out[0] = '\0';
	memset(res, 0, sizeof(*res));
	if (!gitpriv_oid(&id, tree_hex))
		e = ERR_INVAL;
	else if (git_tree_lookup(&tree, r->repo, &id) < 0)
		e = gitpriv_fail(tree_hex, "no such tree");
	else if ((e = gitapply_parse(a, diff, n, &d, res)) == ERR_OK &&
	    (e = gitapply_diff(r, tree, d, &out, res)) == ERR_OK)
		git_oid_tostr(tree_out, 41, &out);
	git_tree_free(tree);
	arena_free(a);
	return e;
}
