/*
 * The staging repository: open or create it, keep new objects in memory
 * until a result needs them, move refs, fetch and push.
 *
 * Why objects wait in memory: a build of a 300-patch queue makes a few
 * thousand blobs, trees and commits, most of which a rebuild throws away
 * again.  libgit2's git_mempack keeps blobs and commits in a hash table,
 * the tree cache of gittree.c the trees the build made (read through a
 * backend of their own, so that a 70 KB tree is not held twice); when a
 * build is done, only the objects reachable from its tip are written to
 * disk, as one pack of our own (gitpack.c) or, when few, as loose
 * objects (writing a pack with git_mempack_dump runs a delta search that
 * costs more than the whole build; `patchyard gc`, gitgc.c, packs them
 * better later).  Refs move only after that, so no ref can name an
 * object that is not on disk.
 */
#include "bot/git/gitrepo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/git/gitpriv.h"
#include "parsers/patchid.h"
#include "util/ascii.h"
#include "util/buf.h"
#include "util/fdio.h"
#include "util/fmap.h"
#include "util/gitmsg.h"
#include "util/log.h"
#include "util/oid.h"
#include "util/xalloc.h"

/* zlib's Z_BEST_SPEED; <zlib.h> itself belongs to the mail sources. */
#define LOOSE_ZLIB_LEVEL 1

enum err
gitpriv_fail(const char *obj, const char *what)
{
	const git_error *e = git_error_last();
	char plain[1024];

	log_err("git: %s: %s: %s", obj, what,
	    gitmsg_plain(plain, sizeof(plain), e ? e->message : NULL));
	return ERR_GIT;
}

void
gitpriv_start(void)
{
	git_buf dirs = { 0 };

	git_libgit2_init();
	/* Every object read is hashed again and checked against its id
	 * (libgit2's default, said out loud): upstream's objects, trees'
	 * and archives' are someone else's, and the option is process-wide,
	 * so it cannot be off for our own objects alone.  It costs a
	 * collision-detecting SHA-1 per object read (docs/DECISIONS.md). */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 1);
	/*
	 * Upstream, trees and archives are read whoever owns them, as git
	 * does with safe.directory = * (docs/DESIGN.md §10): libgit2 1.5
	 * refuses a repository another user owns and matches safe.directory
	 * only path by path ('*' included), so every epoch of an archive would
	 * need its own line.  git's check keeps a repository's config from
	 * running commands as us (core.fsmonitor, hooks, sshCommand);
	 * libgit2 1.5 runs none, we open only the paths bot.conf names
	 * (never a parent found by searching), and what we write (the
	 * staging repository, a mirror) we create ourselves.  The option is
	 * process-wide, and libgit2's local transport opens the upstream of
	 * a fetch itself, so it cannot be off for those opens alone
	 * (docs/DECISIONS.md).
	 */
	git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
	/* An unreadable $HOME: without its .gitconfig, as git goes on. */
	if (git_libgit2_opts(
	        GIT_OPT_GET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, &dirs) == 0 &&
	    dirs.ptr != NULL &&
	    gitmsg_config_unreadable(dirs.ptr, ".gitconfig"))
		git_libgit2_opts(
		    GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, "");
	git_buf_dispose(&dirs);
}

bool
gitpriv_oid(git_oid *oid, const char *hex)
{
	size_t i;

	if (hex == NULL || strlen(hex) != GIT_OID_HEXSZ)
		return false;
	for (i = 0; i < GIT_OID_HEXSZ; i++) {
		char c = hex[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
		        (c >= 'A' && c <= 'F')))
			return false;
	}
	return git_oid_fromstr(oid, hex) == 0;
}

static enum err
add_mempack(struct gitrepo *r)
{
	char objdir[4096];
	int n;

	if (git_repository_odb(&r->odb, r->repo) < 0)
		return gitpriv_fail(r->path, "cannot open object database");
	/* Highest priority: git_odb_write() hands new objects to the first
	 * backend that can write, and reads look here first. */
	if (git_mempack_new(&r->mempack) < 0 ||
	    git_odb_add_backend(r->odb, r->mempack, 1000) < 0)
		return gitpriv_fail(r->path, "cannot add in-memory store");
	/* Trees a build made, kept by bot/git/gittree.c alone. */
	if ((r->made = gittrees_backend(r)) == NULL ||
	    git_odb_add_backend(r->odb, r->made, 999) < 0)
		return gitpriv_fail(r->path, "cannot add the made trees");
	n = snprintf(
	    objdir, sizeof(objdir), "%s/objects", git_repository_path(r->repo));
	if (n < 0 || (size_t)n >= sizeof(objdir)) {
		log_err("gitrepo: %s: path too long", r->path);
		return ERR_INVAL;
	}
	/* do_fsync: an object is on disk before any ref can name it. */
	if (git_odb_backend_loose(
	        &r->loose, objdir, LOOSE_ZLIB_LEVEL, 1, 0, 0) < 0)
		return gitpriv_fail(r->path, "cannot open loose objects");
	return ERR_OK;
}

/* Whether path is missing or an empty folder: a place we may create a
 * repository in without taking over somebody else's files. */
static bool
place_free(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (d == NULL)
		return true; /* missing, or not a folder: init will say */
	while (empty && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			empty = false;
	closedir(d);
	return empty;
}

static enum err
open_or_init(struct gitrepo *r, const char *path)
{
	git_repository_init_options o;
	int rc;

	rc = git_repository_open_ext(&r->repo, path,
	    GIT_REPOSITORY_OPEN_NO_SEARCH | GIT_REPOSITORY_OPEN_BARE, NULL);
	if (rc == 0)
		return ERR_OK;
	if (rc != GIT_ENOTFOUND)
		return gitpriv_fail(path, "cannot open repository");
	/* Nothing there, or an empty folder: make a bare repository.  A
	 * folder holding other files is not ours to take over. */
	if (!place_free(path)) {
		log_err(
		    "gitrepo: %s: not a git repository and not empty", path);
		return ERR_INVAL;
	}
	git_repository_init_options_init(
	    &o, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	o.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH |
	    GIT_REPOSITORY_INIT_NO_REINIT;
	o.initial_head = "stable";
	git_error_clear();
	if (git_repository_init_ext(&r->repo, path, &o) < 0)
		return gitpriv_fail(path, "cannot create repository");
	log_info("gitrepo: %s: created a bare repository", path);
	return ERR_OK;
}

/* The largest tree kept in libgit2's object cache (its default: 4 KB). */
#define TREE_CACHE_MAX ((size_t)1 << 20)
static bool
is_dir(const char *p, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Remove the "*.lock" files git leaves while it writes a ref (refs/...,
 * packed-refs, HEAD) under dir, the repository's folder; depth counts
 * the folders of refs/ walked into.
 */
static void
clear_stale_locks(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[4096];

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		int k;

		if (de->d_name[0] == '.')
			continue;
		k = snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (k < 0 || (size_t)k >= sizeof(p))
			continue;
		if (depth == 0 ? strcmp(de->d_name, "refs") == 0
		               : is_dir(p, de)) {
			if (depth < 16)
				clear_stale_locks(p, depth + 1);
			continue;
		}
		if (n > 5 && strcmp(de->d_name + n - 5, ".lock") == 0 &&
		    (depth > 0 || strcmp(de->d_name, "HEAD.lock") == 0 ||
		        strcmp(de->d_name, "packed-refs.lock") == 0)) {
			if (unlink(p) == 0)
				log_warn("gitrepo: %s: removed a lock a killed "
				         "process left",
				    p);
		}
	}
	closedir(d);
}

/*
 * Held shared for as long as the repository is open, so that `patchyard
 * gc` (gitgc.c), which takes it exclusively, never removes what a build
 * is about to name.  The kernel drops it with the process.
 */
static enum err
take_lock(struct gitrepo *r)
{
	char lp[4096];
	int n = snprintf(
	    lp, sizeof(lp), "%s/patchyard.lock", git_repository_path(r->repo));

	if (n < 0 || (size_t)n >= sizeof(lp)) {
		log_err("gitrepo: %s: path too long", r->path);
		return ERR_INVAL;
	}
	r->lockfd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (r->lockfd < 0) {
		log_err("gitrepo: %s: %s", lp, strerror(errno));
		return ERR_IO;
	}
	/* Alone with the repository (no other patchyard has it open): the
	 * lock files of refs are then left by a process that was killed
	 * while it moved a ref, and would refuse every update from now on.
	 * Remove them, then share the lock as every build does. */
	if (flock(r->lockfd, LOCK_EX | LOCK_NB) == 0)
		clear_stale_locks(git_repository_path(r->repo), 0);
	while (flock(r->lockfd, LOCK_SH) != 0) {
		if (errno != EINTR) {
			log_err("gitrepo: %s: lock: %s", lp, strerror(errno));
			return ERR_IO;
		}
	}
	return ERR_OK;
}

enum err
gitrepo_open(const char *path, struct gitrepo **out)
{
	struct gitrepo *r;
	enum err e;

	*out = NULL;
	if (path == NULL || *path == '\0')
		return ERR_INVAL;
	gitpriv_start();
	/* Hashing again is paid per read from the object database, and
	 * libgit2 caches trees of up to 4 KB only: a folder of 1,700 files
	 * (a 70 KB tree) was read and hashed again by every step of a build
	 * (the path walk, the tree update, the persisting walk, the push).
	 * Cached, a tree is hashed once per process. */
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, (int)GIT_OBJECT_TREE,
	    TREE_CACHE_MAX);
	/* Refs (and the packs of fetches) are fsynced before they are
	 * renamed into place: a ref that survives a crash names objects
	 * that did too (docs/DECISIONS.md). */
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
	r = xcalloc(1, sizeof(*r));
	r->lockfd = -1;
	r->path = xstrdup(path);
	e = open_or_init(r, path);
	if (e == ERR_OK && !git_repository_is_bare(r->repo)) {
		log_err("gitrepo: %s: not a bare repository", path);
		e = ERR_INVAL;
	}
	if (e == ERR_OK)
		e = add_mempack(r);
	if (e == ERR_OK)
		e = take_lock(r);
	if (e == ERR_OK) {
		const char *gd = git_repository_path(r->repo);

		r->cache.file = xmalloc(strlen(gd) + 32);
		sprintf(r->cache.file, "%s%spatchyard-apply-cache", gd,
		    gd[0] && gd[strlen(gd) - 1] == '/' ? "" : "/");
	}
	if (e) {
		gitrepo_free(r);
		return e;
	}
	*out = r;
	return ERR_OK;
}

enum err
gitpriv_open_source(const char *path, struct gitrepo **out)
{
	struct gitrepo *r;

	*out = NULL;
	gitpriv_start();
	r = xcalloc(1, sizeof(*r));
	r->path = xstrdup(path);
	r->lockfd = -1; /* no lock: gitrepo_free() must not close fd 0 */
	if (git_repository_open_ext(
	        &r->repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0 ||
	    git_repository_odb(&r->odb, r->repo) < 0) {
		git_error_clear();
		gitrepo_free(r);
		return ERR_NOTFOUND;
	}
	*out = r;
	return ERR_OK;
}

void
gitrepo_free(struct gitrepo *r)
{
	if (r == NULL)
		return;
	if (r->lockfd >= 0)
		close(r->lockfd);
	if (r->loose)
		r->loose->free(r->loose);
	git_odb_free(r->odb); /* the odb owns the mempack backend */
	git_repository_free(r->repo);
	gitcache_save(&r->cache);
	gitcache_free(&r->cache);
	free(r->cache.file);
	gittrees_free(r->trees);
	free(r->path);
	free(r);
	git_libgit2_shutdown();
}

size_t
gitrepo_kept_hits(const struct gitrepo *r)
{
	return r->cache.kept_hits;
}

const char *
gitrepo_path(const struct gitrepo *r)
{
	return r->path;
}

/*
 * Whether objects/XX/ (XX oid's first byte) exists, so that oid may be
 * a loose object there.  The folders are listed once: a repository we
 * build in or push to holds few loose objects, and every miss through
 * libgit2's loose backend is an access() call (the walks of a cold
 * rebuild make thousands).  A folder made since by
 * another process is not seen: the object is then taken for missing,
 * and written or sent again, which is harmless.
 */
static bool
loose_may_have(struct gitrepo *r, const git_oid *oid)
{
	if (!r->loose_known) {
		char dir[4096];
		struct dirent *de;
		DIR *d;
		int k = snprintf(dir, sizeof(dir), "%s/objects",
		    git_repository_path(r->repo));

		r->loose_known = true;
		if (k < 0 || (size_t)k >= sizeof(dir) ||
		    (d = opendir(dir)) == NULL) {
			memset(r->loose_dirs, 0xff, sizeof(r->loose_dirs));
			return true;
		}
		while ((de = readdir(d)) != NULL) {
			int hi = ascii_hexval(de->d_name[0]), lo;

			if (hi < 0 || (lo = ascii_hexval(de->d_name[1])) < 0 ||
			    de->d_name[2] != '\0')
				continue;
			r->loose_dirs[hi * 2 + lo / 8] |=
			    (unsigned char)(1u << (lo % 8));
		}
		closedir(d);
	}
	return (r->loose_dirs[oid->id[0] >> 3] >> (oid->id[0] & 7)) & 1;
}

/* libgit2's loose backend: the one that streams writes but takes no
 * packs (the pack backend takes packs; ours stream nothing). */
static bool
is_loose(const git_odb_backend *b)
{
	return b->writestream != NULL && b->writepack == NULL;
}

/*
 * The backends of the object database other than the in-memory one:
 * a pack backend and a loose one, plus any alternates.  Asking them
 * directly skips libgit2's object cache, which may still hold objects
 * whose in-memory copy has been discarded.
 */
bool
gitpriv_on_disk(struct gitrepo *r, const git_oid *oid)
{
	size_t i, n = git_odb_num_backends(r->odb);
	git_odb_backend *b;

	for (i = 0; i < n; i++) {
		if (git_odb_get_backend(&b, r->odb, i) < 0 || b == r->mempack ||
		    b == r->made)
			continue;
		if (is_loose(b) && !loose_may_have(r, oid))
			continue;
		if (b->exists && b->exists(b, oid))
			return true;
	}
	return false;
}

bool
gitpriv_on_disk_now(struct gitrepo *r, const git_oid *oid)
{
	if (gitpriv_on_disk(r, oid))
		return true;
	/* The backends' exists() does not look for packs written since they
	 * last looked (git_odb_exists() refreshes, they do not): a pack a
	 * fetch has just written is seen after a refresh. */
	if (git_odb_refresh(r->odb) < 0) {
		git_error_clear();
		return false;
	}
	return gitpriv_on_disk(r, oid);
}

bool
gitpriv_exists(struct gitrepo *r, const git_oid *oid)
{
	return r->mempack->exists(r->mempack, oid) || gittree_made(r, oid) ||
	    gitpriv_on_disk(r, oid);
}

enum err
gitpriv_blob(struct gitrepo *r, const void *p, size_t n, git_oid *out)
{
	return gitpriv_object(r, GIT_OBJECT_BLOB, p, n, out);
}

enum err
gitpriv_object(
    struct gitrepo *r, git_object_t type, const void *p, size_t n, git_oid *out)
{
	struct patchid_sha1_ctx c;
	char hdr[32];
	int k = snprintf(
	    hdr, sizeof(hdr), "%s %zu", git_object_type2string(type), n);

	if (k < 0 || (size_t)k >= sizeof(hdr))
		return ERR_INVAL;
	patchid_sha1_init(&c);
	patchid_sha1_update(&c, hdr, (size_t)k + 1); /* with its NUL */
	patchid_sha1_update(&c, p, n);
	patchid_sha1_final(&c, out->id);
	/* Straight into the in-memory store: git_odb_write() would first
	 * look for the object on disk to freshen it, and read the pack
	 * folder again when it is not there, for every new object. */
	if (r->mempack->write(r->mempack, out, p, n, type) < 0)
		return gitpriv_fail(r->path, "cannot store object");
	return ERR_OK;
}

void
gitpriv_discard(struct gitrepo *r)
{
	git_mempack_reset(r->mempack);
	gittrees_forget_made(r);
}

bool
gitrepo_has(struct gitrepo *r, const char *hex)
{
	git_oid oid, full;
	size_t n = hex ? strlen(hex) : 0;

	if (n < 4 || n > GIT_OID_HEXSZ || git_oid_fromstrn(&oid, hex, n) < 0)
		return false;
	if (n == GIT_OID_HEXSZ)
		return gitpriv_exists(r, &oid);
	return git_odb_exists_prefix(&full, r->odb, &oid, n) == 0;
}

bool
gitrepo_branch_valid(const char *branch)
{
	char name[512];
	int valid = 0, n;

	if (branch == NULL || *branch == '\0' || strchr(branch, ':'))
		return false;
	/* As gitremote_ref_valid: no repository need be open yet. */
	git_libgit2_init();
	n = snprintf(name, sizeof(name), "refs/heads/%s", branch);
	if (n < 0 || (size_t)n >= sizeof(name))
		return false;
	return git_reference_name_is_valid(&valid, name) == 0 && valid;
}

enum err
gitrepo_ref(struct gitrepo *r, const char *name, char hex[OID_HEX_SIZE])
{
	git_object *obj = NULL;
	git_reference *ref = NULL;
	int rc;

	hex[0] = '\0';
	rc = git_reference_lookup(&ref, r->repo, name);
	if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC) {
		git_error_clear();
		return ERR_NOTFOUND;
	}
	if (rc < 0)
		return gitpriv_fail(name, "cannot read ref");
	rc = git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT);
	git_reference_free(ref);
	if (rc < 0)
		return gitpriv_fail(name, "ref does not name a commit");
	git_oid_tostr(hex, OID_HEX_SIZE, git_object_id(obj));
	git_object_free(obj);
	return ERR_OK;
}

static enum err
check_commit(struct gitrepo *r, const char *hex, git_oid *oid)
{
	git_object_t type;
	size_t len;

	if (!gitpriv_oid(oid, hex)) {
		log_err("gitrepo: %s: not an object id", hex ? hex : "(null)");
		return ERR_INVAL;
	}
	if (!gitpriv_on_disk_now(r, oid) ||
	    git_odb_read_header(&len, &type, r->odb, oid) < 0) {
		git_error_clear();
		log_err("gitrepo: %s: no such commit on disk", hex);
		return ERR_NOTFOUND;
	}
	if (type != GIT_OBJECT_COMMIT) {
		log_err("gitrepo: %s: not a commit", hex);
		return ERR_INVAL;
	}
	return ERR_OK;
}

enum err
gitrepo_set_ref(struct gitrepo *r, const char *name, const char *hex,
    const char *old_hex, const char *log)
{
	git_reference *ref = NULL;
	git_oid oid, old;
	int valid = 0, rc;
	enum err e;

	if (git_reference_name_is_valid(&valid, name) < 0 || !valid) {
		log_err("gitrepo: %s: not a valid ref name", name);
		return ERR_INVAL;
	}
	if ((e = check_commit(r, hex, &oid)))
		return e;
	if (old_hex == NULL)
		rc = git_reference_create(&ref, r->repo, name, &oid, 1, log);
	else if (*old_hex == '\0')
		rc = git_reference_create(&ref, r->repo, name, &oid, 0, log);
	else if (!gitpriv_oid(&old, old_hex))
		return ERR_INVAL;
	else
		rc = git_reference_create_matching(
		    &ref, r->repo, name, &oid, 1, &old, log);
	git_reference_free(ref);
	if (rc == GIT_EEXISTS || rc == GIT_EMODIFIED) {
		log_warn("gitrepo: %s: changed meanwhile, not updated", name);
		git_error_clear();
		return ERR_CONFLICT;
	}
	if (rc < 0)
		return gitpriv_fail(name, "cannot update ref");
	return ERR_OK;
}

enum err
gitrepo_delete_ref(struct gitrepo *r, const char *name)
{
	int rc = git_reference_remove(r->repo, name);

	if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC) {
		git_error_clear();
		return ERR_OK;
	}
	return rc < 0 ? gitpriv_fail(name, "cannot delete ref") : ERR_OK;
}

/*
 * A set of object ids, for walking each new object once.  Open
 * addressing; the first bytes of an oid are already uniformly spread.
 */
struct oidset {
	git_oid *v;
	bool *used;
	size_t cap, n;
};

/* The objects to write, in the order they are to be written. */
struct oidlist {
	git_oid *v;
	size_t n, cap;
};

static void
oidlist_add(struct oidlist *l, const git_oid *o)
{
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = *o;
}

static size_t
oid_hash(const git_oid *o)
{
	size_t h;

	memcpy(&h, o->id, sizeof(h));
	return h;
}

static bool
oidset_add(struct oidset *s, const git_oid *o)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		struct oidset t = { NULL, NULL, s->cap ? 2 * s->cap : 256, 0 };
		t.v = xcalloc(t.cap, sizeof(*t.v));
		t.used = xcalloc(t.cap, sizeof(*t.used));
		for (i = 0; i < s->cap; i++)
			if (s->used[i])
				oidset_add(&t, &s->v[i]);
		free(s->v);
		free(s->used);
		*s = t;
	}
	for (i = oid_hash(o) & (s->cap - 1); s->used[i];
	     i = (i + 1) & (s->cap - 1))
		if (git_oid_equal(&s->v[i], o))
			return false;
	s->used[i] = true;
	s->v[i] = *o;
	s->n++;
	return true;
}

static void
oidset_free(struct oidset *s)
{
	free(s->v);
	free(s->used);
}

/* Copy one object from wherever libgit2 has it to the loose store. */
static enum err
write_loose(struct gitrepo *r, const git_oid *oid)
{
	git_odb_object *o = NULL;
	int rc;

	if (git_odb_read(&o, r->odb, oid) < 0)
		return gitpriv_fail(git_oid_tostr_s(oid), "object lost");
	rc = r->loose->write(r->loose, oid, git_odb_object_data(o),
	    git_odb_object_size(o), git_odb_object_type(o));
	git_odb_object_free(o);
	/* Its folder exists now (loose_may_have()). */
	r->loose_dirs[oid->id[0] >> 3] |=
	    (unsigned char)(1u << (oid->id[0] & 7));
	if (rc < 0)
		return gitpriv_fail(
		    git_oid_tostr_s(oid), "cannot write object");
	return ERR_OK;
}

static enum err persist_tree(struct gitrepo *r, struct gitrepo *have,
    const git_oid *oid, const git_oid *base, struct oidset *seen,
    struct oidlist *out);

/*
 * persist_tree() of a tree the build made from base (bot/git/gittree.c
 * knows which entries that changed): the same walk over those entries
 * alone, the others being base's.  false when the cache does not know
 * the tree as made from base.
 */
static bool
changed_only(struct gitrepo *r, struct gitrepo *have, const git_oid *oid,
    const git_oid *base, struct oidset *seen, struct oidlist *out, enum err *e)
{
	struct gittree_chg *chg = NULL;
	git_oid from;
	size_t i, n = 0;

	*e = ERR_OK;
	if (!gittree_changes(r, oid, &from, &chg, &n))
		return false;
	if (!git_oid_equal(&from, base)) {
		free(chg);
		return false;
	}
	for (i = 0; i < n && *e == ERR_OK; i++) {
		const struct gittree_chg *c = &chg[i];
		git_oid id, old;

		if (c->has_old && memcmp(c->old, c->id, 20) == 0)
			continue;
		memcpy(id.id, c->id, 20);
		memcpy(old.id, c->old, 20);
		if (gittree_is_tree(c->mode))
			*e = persist_tree(
			    r, have, &id, c->has_old ? &old : NULL, seen, out);
		else if ((c->mode & 0170000) != 0160000 &&
		    oidset_add(seen, &id) && !gitpriv_on_disk(have, &id))
			oidlist_add(out, &id);
	}
	free(chg);
	if (*e == ERR_OK)
		oidlist_add(out, oid);
	return true;
}

/*
 * A tree and everything under it that is not on disk, leaves first: a
 * tree on disk has all of its children on disk too.  base is the same
 * folder in the parent commit's tree (or NULL), which is on disk by the
 * time its child is persisted: entries equal to base's need no look.
 */
static enum err
persist_tree(struct gitrepo *r, struct gitrepo *have, const git_oid *oid,
    const git_oid *base, struct oidset *seen, struct oidlist *out)
{
	struct gittree_ent *t = NULL, *bt = NULL;
	size_t i, k = 0, n = 0, nb = 0;
	enum err e;

	if ((base && git_oid_equal(oid, base)) || !oidset_add(seen, oid) ||
	    gitpriv_on_disk(have, oid))
		return ERR_OK;
	/* Made by an update of base: only what the update changed. */
	if (base && changed_only(r, have, oid, base, seen, out, &e))
		return e;
	/* The trees of a build are in memory already (bot/git/gittree.c). */
	if ((e = gittree_entries(r, oid, &t, &n)) != ERR_OK)
		return e == ERR_LIMIT
		    ? gitpriv_fail(git_oid_tostr_s(oid), "tree lost")
		    : e;
	if (base && gittree_entries(r, base, &bt, &nb) != ERR_OK) {
		git_error_clear();
		nb = 0;
	}
	for (i = 0; i < n && e == ERR_OK; i++) {
		const struct gittree_ent *te = &t[i], *be = NULL;
		bool dir = gittree_is_tree(te->mode);
		git_oid id;
		int c = 1;

		/* Both lists are in git's order: walk them side by side. */
		while (k < nb &&
		    (c = gittree_name_cmp(bt[k].name, bt[k].len,
		         gittree_is_tree(bt[k].mode), te->name, te->len, dir)) <
		        0)
			k++;
		if (k < nb && c == 0)
			be = &bt[k];
		if (be && memcmp(be->id, te->id, 20) == 0)
			continue;
		memcpy(id.id, te->id, 20);
		if (dir) {
			git_oid bid;
			if (be)
				memcpy(bid.id, be->id, 20);
			e = persist_tree(
			    r, have, &id, be ? &bid : NULL, seen, out);
		} else if ((te->mode & 0170000) != 0160000 &&
		    oidset_add(seen, &id) && !gitpriv_on_disk(have, &id)) {
			/* (a submodule's commit is not ours to have) */
			oidlist_add(out, &id);
		}
	}
	free(bt);
	free(t);
	if (e == ERR_OK)
		oidlist_add(out, oid);
	return e;
}

/* The commits reachable from tips that have has not on disk, newest
 * first; ERR_LIMIT beyond max of them. */
static enum err
new_commits(struct gitrepo *r, struct gitrepo *have, const git_oid *tips,
    size_t n, size_t max, git_oid **out, size_t *nout, struct oidset *seen)
{
	git_oid *stack = NULL, *list = NULL;
	size_t ns = 0, caps = 0, nl = 0, capl = 0, i;
	enum err e = ERR_OK;

	for (i = 0; i < n; i++) {
		stack = xgrow(stack, &caps, ns + 1, sizeof(*stack));
		stack[ns++] = tips[i];
	}
	while (ns > 0 && e == ERR_OK) {
		git_oid c = stack[--ns];
		git_commit *co = NULL;
		unsigned p, np;

		if (!oidset_add(seen, &c) || gitpriv_on_disk(have, &c))
			continue;
		if (nl == max) {
			e = ERR_LIMIT;
			break;
		}
		if (git_commit_lookup(&co, r->repo, &c) < 0) {
			e = gitpriv_fail(git_oid_tostr_s(&c), "commit lost");
			break;
		}
		np = git_commit_parentcount(co);
		for (p = 0; p < np; p++) {
			stack = xgrow(stack, &caps, ns + 1, sizeof(*stack));
			stack[ns++] = *git_commit_parent_id(co, p);
		}
		git_commit_free(co);
		list = xgrow(list, &capl, nl + 1, sizeof(*list));
		list[nl++] = c;
	}
	free(stack);
	*out = list;
	*nout = nl;
	return e;
}

/* The first parent's tree id into id; false for a root commit. */
static bool
parent_tree(git_commit *co, git_oid *id)
{
	git_commit *p = NULL;

	if (git_commit_parentcount(co) == 0 ||
	    git_commit_parent(&p, co, 0) < 0) {
		git_error_clear();
		return false;
	}
	git_oid_cpy(id, git_commit_tree_id(p));
	git_commit_free(p);
	return true;
}

/* Up to this many new objects are written loose; more go into a pack:
 * a file per object costs more than the build that made them. */
#define PACK_FROM 64

/* What have lacks of tips' history, read from r: out in the order to
 * write, oldest commits first, each after its tree. */
static enum err
missing(struct gitrepo *r, struct gitrepo *have, const git_oid *tips, size_t n,
    size_t max, struct oidlist *out)
{
	struct oidset seen = { NULL, NULL, 0, 0 };
	git_oid *list = NULL, ptree;
	size_t nl = 0, i;
	enum err e;

	e = new_commits(r, have, tips, n, max, &list, &nl, &seen);
	/* Oldest first (for the linear chains builds make), each after its
	 * tree: loose objects written so, if interrupted, leave only
	 * unreferenced objects; a pack appears whole or not at all. */
	for (i = nl; i-- > 0 && e == ERR_OK;) {
		git_commit *co = NULL;

		if (git_commit_lookup(&co, r->repo, &list[i]) < 0) {
			e = gitpriv_fail(
			    git_oid_tostr_s(&list[i]), "commit lost");
			break;
		}
		e = persist_tree(r, have, git_commit_tree_id(co),
		    parent_tree(co, &ptree) ? &ptree : NULL, &seen, out);
		git_commit_free(co);
		oidlist_add(out, &list[i]);
	}
	free(list);
	oidset_free(&seen);
	return e;
}

enum err
gitpriv_persist(struct gitrepo *r, const git_oid *tips, size_t n)
{
	struct oidlist out = { NULL, 0, 0 };
	size_t i;
	enum err e;

	e = missing(r, r, tips, n, SIZE_MAX, &out);
	if (e == ERR_OK && out.n >= PACK_FROM)
		e = gitpack_write(r, out.v, out.n);
	for (i = 0; e == ERR_OK && out.n < PACK_FROM && i < out.n; i++)
		e = write_loose(r, &out.v[i]);
	if (e == ERR_OK) {
		git_mempack_reset(r->mempack);
		gittrees_settle(r, out.v, out.n);
	}
	free(out.v);
	return e;
}

enum err
gitpriv_copy(struct gitrepo *src, struct gitrepo *dst, const git_oid *tips,
    size_t n, size_t max_commits)
{
	struct oidlist out = { NULL, 0, 0 };
	enum err e;

	e = missing(src, dst, tips, n, max_commits, &out);
	if (e == ERR_OK && out.n > 0)
		e = gitpack_copy(src, dst, out.v, out.n);
	free(out.v);
	return e;
}

/*
 * The blob cache.  Keys are 41 bytes; values small.  It grows to
 * CACHE_MAX entries and then starts over, which bounds a long-running
 * process without any bookkeeping of age.
 */
#define CACHE_MAX (1u << 20)

void
gitcache_key(unsigned char key[GITCACHE_KEY_SIZE], const git_oid *pre,
    const git_oid *section, unsigned char flavour)
{
	if (pre)
		memcpy(key, pre->id, 20);
	else
		memset(key, 0, 20);
	memcpy(key + 20, section->id, 20);
	key[40] = flavour;
}

static size_t
cache_hash(const unsigned char key[GITCACHE_KEY_SIZE])
{
	size_t a, b;

	memcpy(&a, key, sizeof(a));
	memcpy(&b, key + 20, sizeof(b));
	return a ^ (b * 31) ^ key[40];
}

static struct gitcache_slot *
cache_find(struct gitcache *c, const unsigned char key[GITCACHE_KEY_SIZE])
{
	size_t i;

	for (i = cache_hash(key) & (c->cap - 1); c->slots[i].used;
	     i = (i + 1) & (c->cap - 1))
		if (memcmp(c->slots[i].key, key, GITCACHE_KEY_SIZE) == 0)
			return &c->slots[i];
	return &c->slots[i];
}

const struct gitcache_val *
gitcache_get(struct gitcache *c, const unsigned char key[GITCACHE_KEY_SIZE])
{
	struct gitcache_slot *s;

	gitcache_load(c);
	if (c->cap == 0)
		return NULL;
	s = cache_find(c, key);
	if (!s->used)
		return NULL;
	if (!s->live) {
		s->live = true;
		c->nlive++;
		c->kept_hits++;
	}
	return &s->val;
}

/* Into c (which has room), as live or not. */
static void
cache_set(struct gitcache *c, const unsigned char key[GITCACHE_KEY_SIZE],
    const struct gitcache_val *val, bool live)
{
	struct gitcache_slot *s = cache_find(c, key);

	if (!s->used) {
		s->used = true;
		memcpy(s->key, key, GITCACHE_KEY_SIZE);
		c->n++;
	}
	if (live && !s->live)
		c->nlive++;
	s->live = s->live || live;
	s->val = *val;
}

static void
cache_room(struct gitcache *c)
{
	size_t i;

	if (c->n >= CACHE_MAX)
		gitcache_free(c);
	if (2 * (c->n + 1) > c->cap) {
		struct gitcache t = *c;

		t.cap = c->cap ? 2 * c->cap : 1024;
		t.slots = xcalloc(t.cap, sizeof(*t.slots));
		t.n = t.nlive = 0;
		for (i = 0; i < c->cap; i++)
			if (c->slots[i].used)
				cache_set(&t, c->slots[i].key, &c->slots[i].val,
				    c->slots[i].live);
		free(c->slots);
		*c = t;
	}
}

void
gitcache_put(struct gitcache *c, const unsigned char key[GITCACHE_KEY_SIZE],
    const struct gitcache_val *val)
{
	gitcache_load(c);
	cache_room(c);
	cache_set(c, key, val, true);
	c->dirty = true;
}

/*
 * The file: a line naming the format, records of 69 bytes (the key, the
 * postimage id, the offset as 8 bytes little-endian), the SHA-1 of all
 * that.  The format's number changes with what applying a section means.
 */
static const char cache_magic[] = "patchyard apply cache 1\n";
#define CACHE_REC 69
/* Records kept in the file (1.1 MB): a queue of 300 patches on a big
 * project builds about 750 sections, a rebuild after a change a few
 * hundred new ones. */
#define CACHE_KEEP (1u << 14)

void
gitcache_load(struct gitcache *c)
{
	const size_t hl = sizeof(cache_magic) - 1;
	unsigned char *p, sum[20];
	size_t len = 0, i, nrec;

	if (c->loaded || c->file == NULL)
		return;
	c->loaded = true;
	p = fmap_open(c->file, &len);
	if (p == NULL)
		return;
	nrec = len >= hl + 20 ? (len - hl - 20) / CACHE_REC : 0;
	if (len < hl + 20 || (len - hl - 20) % CACHE_REC != 0 ||
	    memcmp(p, cache_magic, hl) != 0) {
		log_info("gitrepo: %s: not a cache of this version, left out",
		    c->file);
		fmap_close(p, len);
		return;
	}
	patchid_sha1(p, len - 20, sum);
	if (memcmp(sum, p + len - 20, 20) != 0) {
		log_info("gitrepo: %s: not whole, left out", c->file);
		fmap_close(p, len);
		return;
	}
	for (i = 0; i < nrec; i++) {
		const unsigned char *r = p + hl + i * CACHE_REC;
		struct gitcache_val v;
		uint64_t off = 0;
		int b;

		memcpy(v.post.id, r + 41, 20);
		for (b = 7; b >= 0; b--)
			off = off << 8 | r[61 + b];
		v.offset = (long)(int64_t)off;
		cache_room(c);
		cache_set(c, r, &v, false);
	}
	fmap_close(p, len);
}

void
gitcache_save(struct gitcache *c)
{
	struct buf b = BUF_INIT;
	unsigned char sum[20];
	struct buf tmp = BUF_INIT;
	bool all;
	size_t i;
	int fd;

	if (c->file == NULL || !c->dirty)
		return;
	/* Past CACHE_KEEP records only what this process used goes back. */
	all = c->n <= CACHE_KEEP;
	buf_add(&b, cache_magic, sizeof(cache_magic) - 1);
	for (i = 0; i < c->cap; i++) {
		const struct gitcache_slot *s = &c->slots[i];
		unsigned char off[8];
		uint64_t o = (uint64_t)(int64_t)s->val.offset;
		int k;

		if (!s->used || !(s->live || all))
			continue;
		for (k = 0; k < 8; k++, o >>= 8)
			off[k] = (unsigned char)(o & 0xff);
		buf_add(&b, s->key, 41);
		buf_add(&b, s->val.post.id, 20);
		buf_add(&b, off, 8);
	}
	patchid_sha1(b.p, b.n, sum);
	buf_add(&b, sum, 20);
	buf_addf(&tmp, "%s.%ld.tmp", c->file, (long)getpid());
	fd = open(tmp.p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || fd_write_all(fd, b.p, b.n) != 0 || close(fd) != 0 ||
	    rename(tmp.p, c->file) != 0) {
		/* Only a cache: the next build applies again. */
		log_info("gitrepo: %s: cannot keep the cache: %s", c->file,
		    strerror(errno));
		if (fd >= 0)
			unlink(tmp.p);
	} else {
		c->dirty = false;
	}
	buf_free(&tmp);
	buf_free(&b);
}

void
gitcache_free(struct gitcache *c)
{
	free(c->slots);
	c->slots = NULL;
	c->cap = 0;
	c->n = 0;
	c->nlive = 0;
}
