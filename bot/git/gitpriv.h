/*
 * Private to the bot/git/ family: the insides of struct gitrepo and
 * the helpers its files share.  Nothing outside bot/git/ includes this
 * header (it brings in <git2.h>, which make check-layers fences in).
 */
#ifndef BOT_GITPRIV_H
#define BOT_GITPRIV_H

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/git/gitapply.h"
#include "bot/git/gitrepo.h"
#include "util/arena.h"
#include "util/err.h"

struct diff;
struct gittrees;

/*
 * What applying one file section of a patch to one preimage blob gave,
 * remembered for the life of the process: a rebuild that applies the
 * same section to the same blob again takes the result from here.
 */
struct gitcache_val {
	git_oid post; /* the postimage blob */
	long offset; /* largest relocation of a hunk, in lines */
};

struct gitcache_slot {
	unsigned char key[41]; /* preimage oid, section hash, flavour */
	bool used;
	bool live; /* looked up or made by this process */
	struct gitcache_val val;
};

/*
 * The cache is kept in the staging repository between processes
 * (gitcache_load(), gitcache_save()): a rebuild after one patch of a
 * queue changed is a new process, and every patch after it applies the
 * same sections to the same blobs as the build before.
 */
struct gitcache {
	struct gitcache_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t n;
	char *file; /* where it is kept, or NULL */
	bool loaded; /* the file was read (or there was none) */
	bool dirty; /* something to save */
	size_t nlive;
	size_t kept_hits; /* lookups answered by an earlier process */
};

struct gitrepo {
	git_repository *repo;
	git_odb *odb;
	git_odb_backend *mempack; /* new objects land here first */
	git_odb_backend *made; /* the trees made here (gittrees_backend) */
	git_odb_backend *loose; /* what persisting writes with */
	char *path;
	int lockfd; /* patchyard.lock in the git dir, held shared */
	struct gitcache cache;
	struct gittrees *trees; /* trees in memory (bot/git/gittree.c) */
	bool loose_known; /* loose_dirs was read (gitpriv_on_disk()) */
	unsigned char loose_dirs[32]; /* objects/XX/ folders, a bit each */
};

/*
 * base (a tree id) with the updates u[0..n) applied, into out: in
 * memory, the new trees hashed once and kept for the next update.
 * Files only; ERR_LIMIT for what libgit2's git_tree_create_updated()
 * must do (a file becoming a folder, removing what is not there).
 */
enum err gittree_update(struct gitrepo *r, const git_oid *base,
    const git_tree_update *u, size_t n, git_oid *out);

/* The entry at path under tree root, as git_tree_entry_bypath():
 * ERR_NOTFOUND when there is none. */
enum err gittree_bypath(struct gitrepo *r, const git_oid *root,
    const char *path, git_oid *oid, unsigned *mode);

void gittrees_free(struct gittrees *t);

/*
 * The trees gittree_update() makes are kept in its cache only, not in
 * the in-memory object store too: gittrees_backend() is an object
 * database backend that reads them there (it claims no other object;
 * its one owner is the odb).  gittree_made() says whether id is one of
 * them; gittrees_forget_made() drops them all, with the in-memory store
 * (when a build is discarded).
 */
git_odb_backend *gittrees_backend(struct gitrepo *r);
bool gittree_made(struct gitrepo *r, const git_oid *id);
void gittrees_forget_made(struct gitrepo *r);
/* ids[0..n) are on disk now: those of the made trees stay in the cache
 * as trees read there (the push walks them next); the other made trees
 * are forgotten. */
void gittrees_settle(struct gitrepo *r, const git_oid *ids, size_t n);

/* One entry of a tree (bot/git/gittree.c). */
struct gittree_ent {
	const char *name; /* not NUL-terminated: len bytes */
	size_t len;
	unsigned mode;
	const unsigned char *id; /* 20 bytes */
};

/* The entries of tree id in git's order, in one block the caller frees
 * (names and ids inside it). */
enum err gittree_entries(
    struct gitrepo *r, const git_oid *id, struct gittree_ent **v, size_t *n);

/* An entry a tree update changed or added: its mode and id, and the id
 * it had in the tree the update started from (has_old false: none). */
struct gittree_chg {
	unsigned mode;
	bool has_old;
	unsigned char id[20];
	unsigned char old[20];
};

/*
 * When the cache knows tree id as made here by an update of tree from:
 * true, *from, and a copy of the entries that update changed or added
 * (*chg, which the caller frees; removed entries are not listed).  Every
 * other entry of id is from's.  The walks that persist and push a build
 * look at these instead of comparing two 1,700-entry trees.
 */
bool gittree_changes(struct gitrepo *r, const git_oid *id, git_oid *from,
    struct gittree_chg **chg, size_t *n);

/* When the cache made tree id from tree *base and the difference is
 * small: it as a git delta against *base (gitformat-pack), valid until
 * the next call into gittree. */
bool gittree_delta(struct gitrepo *r, const git_oid *id, git_oid *base,
    const void **p, size_t *n);

/* The bytes of tree id when the cache holds them (read verified, or
 * made and hashed here); valid until the next call into gittree. */
bool gittree_cached(
    struct gitrepo *r, const git_oid *id, const void **p, size_t *n);

/* Whether mode is a folder's; git's order of two names (a folder's as if
 * it ended in '/'). */
bool gittree_is_tree(unsigned mode);
int gittree_name_cmp(
    const char *a, size_t na, bool ta, const char *b, size_t nb, bool tb);

/* ---- gitlink.c: where a symbolic link leads ---- */

/* A tree as a resolution sees it (the tree after a patch, or before). */
struct gitlink_view {
	/* The state of path: 1 a file or link (*oid, *mode set), 0
	 * nothing, 2 a folder, -1 the repository failed. */
	int (*get)(void *cls, const char *path, git_oid *oid, unsigned *mode);
	void *cls;
	git_repository *repo;
};

enum gitlink_where {
	GITLINK_IN, /* inside the tree (or nowhere yet: a dangling link) */
	GITLINK_OUT, /* out of the tree, into a .git, or no path at all */
	GITLINK_LOOP /* through more links than the kernel follows */
};

/*
 * Where the link at path (its target in blob oid) leads in the tree v,
 * through every link of v.  ERR_GIT when v or a blob cannot be read.
 */
enum err gitlink_resolve(const struct gitlink_view *v, const char *path,
    const git_oid *oid, enum gitlink_where *where);

/* Log git_error_last() as "git: obj: what: message" (said plainly,
 * util/gitmsg.h); returns ERR_GIT. */
enum err gitpriv_fail(const char *obj, const char *what);

/*
 * Start libgit2 (balanced by git_libgit2_shutdown()) with the settings
 * every use of ours needs: hashes verified, repositories of other users
 * read, an unreadable user configuration left out.
 */
void gitpriv_start(void);

/* Whether oid is on disk (not merely in memory or in a cache). */
bool gitpriv_on_disk(struct gitrepo *r, const git_oid *oid);

/* The same, looking again after a refresh of the object database when
 * it is not found: for an object a fetch may just have written in a new
 * pack.  A refresh reads the pack folder: not for a loop over objects. */
bool gitpriv_on_disk_now(struct gitrepo *r, const git_oid *oid);

/* Whether oid can be read: on disk or in the in-memory store. */
bool gitpriv_exists(struct gitrepo *r, const git_oid *oid);

/*
 * Write every object reachable from the n commits in tips that is not on
 * disk yet to disk (loose objects), parents before children, then drop
 * the in-memory store.  Only after this may a ref name a tip.
 */
enum err gitpriv_persist(struct gitrepo *r, const git_oid *tips, size_t n);

/*
 * Write the objects oids[0..n) (all readable through the odb) to disk as
 * one packfile without deltas or compression (bot/git/gitpack.c).
 */
enum err gitpack_write(struct gitrepo *r, const git_oid *oids, size_t n);
/* The same, reading the objects from src and writing the pack into r.
 * src's packs that hold some of the objects are linked into r whole
 * instead, when both are on one file system (a superset: what r had
 * already, or what no ref there names, is only unreachable, and a link
 * costs no room); the rest is written. */
enum err gitpack_copy(
    struct gitrepo *src, struct gitrepo *r, const git_oid *oids, size_t n);

/* A repository on this machine to copy from (bare or not, never made):
 * ERR_NOTFOUND when path holds none.  gitrepo_free() frees it. */
enum err gitpriv_open_source(const char *path, struct gitrepo **out);

/*
 * Copy to dst every object reachable from tips that dst does not have on
 * disk, as one pack (a local push or fetch without libgit2's transport:
 * its indexer maps the whole growing pack again for every piece it is
 * handed).  At most max_commits new commits: ERR_LIMIT beyond (a first
 * copy of a whole history wants git's deltas and compression), with
 * nothing written.
 */
enum err gitpriv_copy(struct gitrepo *src, struct gitrepo *dst,
    const git_oid *tips, size_t n, size_t max_commits);

/*
 * gitrename.c: where upstream moved old_path, found from the preimage
 * blob base in tree (exact, else at least 50% similar among the files of
 * the same folder or name).  The path into out.
 */
bool gitrename_find(struct gitrepo *r, git_tree *tree, const char *old_path,
    const git_oid *base, char *out, size_t outn);

/* fsync the folder that holds file, so that its new name is on disk. */
enum err gitpack_sync_dir(const char *file);

/*
 * Store a blob in the in-memory store; its id in out.  Hashed with
 * nettle's SHA-1 (parsers/patchid.h): libgit2's collision-detecting one
 * is several times slower, and blobs are most of what a build hashes.
 */
enum err gitpriv_blob(struct gitrepo *r, const void *p, size_t n, git_oid *out);

/* The same for an object of any type (a commit, a tree). */
enum err gitpriv_object(struct gitrepo *r, git_object_t type, const void *p,
    size_t n, git_oid *out);

/* Drop the in-memory store without writing it (after a failed build). */
void gitpriv_discard(struct gitrepo *r);

/* hex (40 digits) to oid; false when it is not one. */
bool gitpriv_oid(git_oid *oid, const char *hex);

/* The blob cache: key is preimage (zero oid for none), the section's
 * hash and a flavour byte (how it was applied). */
void gitcache_key(unsigned char key[41], const git_oid *pre,
    const git_oid *section, unsigned char flavour);
const struct gitcache_val *gitcache_get(
    struct gitcache *c, const unsigned char key[41]);
void gitcache_put(struct gitcache *c, const unsigned char key[41],
    const struct gitcache_val *val);
void gitcache_free(struct gitcache *c);

/* Read the cache's file, once, when it has one: a file that is not
 * whole, or of another format, is left out (it is only a cache). */
void gitcache_load(struct gitcache *c);

/* Write the cache to its file when this process added to it (by a
 * rename: another process sees the old file or the new one).  Past a
 * bound only what this process used is written. */
void gitcache_save(struct gitcache *c);

/*
 * gitapply_tree() for the builder: the diff parsed already, the tree
 * looked up, the new tree's id in out.
 */
enum err gitapply_diff(struct gitrepo *r, git_tree *tree, const struct diff *d,
    git_oid *out, struct gitapply_result *res);

/* diff_parse(), its failures turned into a refusal (ERR_PERM). */
enum err gitapply_parse(struct arena *a, const char *text, size_t n,
    struct diff **d, struct gitapply_result *res);

#endif
