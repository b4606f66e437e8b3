/*
 * Packing and pruning the staging repository (see gitgc.h).
 *
 * Order, so that a crash at any point leaves a whole repository: the new
 * pack and its index are written and fsynced (libgit2's indexer, with
 * GIT_OPT_ENABLE_FSYNC_GITDIR set by gitrepo_open) and the folder synced;
 * only then are old packs removed (index first, so that no reader finds
 * an index without its pack) and then loose objects.  Packs with a
 * .keep file are left alone, as git does.  The time of the last run is
 * the mtime of patchyard-gc in the git dir, for the daemon's schedule.
 */
#include "bot/git/gitgc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/git/gitpriv.h"
#include "util/log.h"

#define GC_STAMP "patchyard-gc"

/* snprintf that says whether all of it fit: a cut path is skipped. */
static bool __attribute__((format(printf, 3, 4)))
pathf(char *out, size_t n, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(out, n, fmt, ap);
	va_end(ap);
	return k >= 0 && (size_t)k < n;
}

static bool
hex2(const char *s)
{
	return strlen(s) == 2 && strspn(s, "0123456789abcdef") == 2;
}

/* Bytes of the files under objects/ (packs and loose), and their count. */
static unsigned long long
objects_size(const char *objdir, size_t *packs, size_t *loose)
{
	unsigned long long total = 0;
	char p[4096];
	DIR *d = opendir(objdir), *sub;
	struct dirent *de, *fe;
	struct stat st;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		bool pack = strcmp(de->d_name, "pack") == 0;

		if (!pack && !hex2(de->d_name))
			continue;
		if (!pathf(p, sizeof(p), "%s/%s", objdir, de->d_name) ||
		    (sub = opendir(p)) == NULL)
			continue;
		while ((fe = readdir(sub)) != NULL) {
			char f[4096 + 256];

			if (fe->d_name[0] == '.')
				continue;
			if (!pathf(f, sizeof(f), "%s/%s", p, fe->d_name) ||
			    stat(f, &st) != 0 || !S_ISREG(st.st_mode))
				continue;
			total += (unsigned long long)st.st_size;
			if (!pack && loose)
				(*loose)++;
			else if (pack && packs && strstr(fe->d_name, ".pack"))
				(*packs)++;
		}
		closedir(sub);
	}
	closedir(d);
	return total;
}

/* Every object a ref or a kept commit reaches, into pb. */
static enum err
insert_reachable(git_repository *repo, git_packbuilder *pb,
    const char *const *keep, size_t nkeep)
{
	size_t i;
	git_reference_iterator *it = NULL;
	git_revwalk *walk = NULL;
	git_reference *ref;
	enum err e = ERR_OK;
	int rc;

	if (git_revwalk_new(&walk, repo) < 0 ||
	    git_reference_iterator_new(&it, repo) < 0) {
		e = gitpriv_fail("gc", "cannot list refs");
		goto out;
	}
	for (i = 0; i < nkeep; i++) {
		git_oid id;
		git_commit *co = NULL;

		if (keep[i] != NULL && git_oid_fromstr(&id, keep[i]) == 0 &&
		    git_commit_lookup(&co, repo, &id) == 0 &&
		    git_revwalk_push(walk, &id) < 0)
			e = gitpriv_fail(keep[i], "cannot keep it");
		git_commit_free(co);
		git_error_clear();
	}
	while (e == ERR_OK && (rc = git_reference_next(&ref, it)) == 0) {
		const git_oid *id = git_reference_target(ref);
		git_object *o = NULL, *peeled = NULL;

		if (id != NULL &&
		    git_object_lookup(&o, repo, id, GIT_OBJECT_ANY) == 0) {
			if (git_object_type(o) == GIT_OBJECT_TAG &&
			    git_packbuilder_insert(pb, id, NULL) < 0)
				e = gitpriv_fail("gc", "cannot pack a tag");
			if (e == ERR_OK &&
			    git_object_peel(&peeled, o, GIT_OBJECT_ANY) != 0)
				peeled = NULL;
			if (git_object_type(o) == GIT_OBJECT_COMMIT)
				rc = git_revwalk_push(walk, id);
			else if (peeled != NULL &&
			    git_object_type(peeled) == GIT_OBJECT_COMMIT)
				rc = git_revwalk_push(
				    walk, git_object_id(peeled));
			else
				rc = git_packbuilder_insert_recur(pb,
				    git_object_id(peeled ? peeled : o), NULL);
			if (rc < 0 && e == ERR_OK)
				e = gitpriv_fail(git_reference_name(ref),
				    "cannot pack what it names");
		}
		git_object_free(peeled);
		git_object_free(o);
		git_reference_free(ref);
	}
	if (e == ERR_OK && git_packbuilder_insert_walk(pb, walk) < 0)
		e = gitpriv_fail("gc", "cannot pack the history");
out:
	git_reference_iterator_free(it);
	git_revwalk_free(walk);
	return e;
}

/* Remove pack-*.{idx,pack,rev,bitmap} other than keep's (idx first). */
static void
remove_old_packs(const char *packdir, const char *keep)
{
	static const char *const ext[] = { ".idx", ".bitmap", ".rev", ".pack" };
	DIR *d = opendir(packdir);
	struct dirent *de;
	char base[512], f[4096];
	size_t i, n;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (strncmp(de->d_name, "pack-", 5) != 0 || n < 10 ||
		    strcmp(de->d_name + n - 5, ".pack") != 0 ||
		    n - 5 >= sizeof(base))
			continue;
		memcpy(base, de->d_name, n - 5);
		base[n - 5] = '\0';
		if (keep != NULL && strcmp(base + 5, keep) == 0)
			continue;
		if (!pathf(f, sizeof(f), "%s/%s.keep", packdir, base) ||
		    access(f, F_OK) == 0)
			continue;
		for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
			if (pathf(f, sizeof(f), "%s/%s%s", packdir, base,
			        ext[i]) &&
			    unlink(f) != 0 && errno != ENOENT)
				log_warn("gc: %s: %s", f, strerror(errno));
		}
	}
	closedir(d);
}

/* Remove every loose object (objects/xx/...) and the emptied folders,
 * and temporary files a crashed writer left in objects/pack. */
static void
remove_loose(const char *objdir)
{
	DIR *d = opendir(objdir), *sub;
	struct dirent *de, *fe;
	char p[4096], f[4096 + 256];

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!hex2(de->d_name))
			continue;
		if (!pathf(p, sizeof(p), "%s/%s", objdir, de->d_name) ||
		    (sub = opendir(p)) == NULL)
			continue;
		while ((fe = readdir(sub)) != NULL) {
			if (fe->d_name[0] == '.')
				continue;
			if (pathf(f, sizeof(f), "%s/%s", p, fe->d_name) &&
			    unlink(f) != 0)
				log_warn("gc: %s: %s", f, strerror(errno));
		}
		closedir(sub);
		rmdir(p);
	}
	closedir(d);
	if (!pathf(p, sizeof(p), "%s/pack", objdir) || (d = opendir(p)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "tmp_", 4) != 0)
			continue;
		if (pathf(f, sizeof(f), "%s/%s", p, de->d_name))
			unlink(f);
	}
	closedir(d);
}

static void
stamp(const char *gitdir)
{
	char p[4096];
	int fd;

	if (!pathf(p, sizeof(p), "%s/%s", gitdir, GC_STAMP))
		return;
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		futimens(fd, NULL);
		close(fd);
	}
}

static enum err
pack_and_prune(struct gitrepo *r, const char *objdir, const char *const *keep,
    size_t nkeep, struct gitgc_stats *st)
{
	git_packbuilder *pb = NULL;
	const char *name = NULL;
	char packdir[4096], idx[4096 + 64];
	enum err e;

	if (!pathf(packdir, sizeof(packdir), "%s/pack", objdir))
		return ERR_INVAL;
	if (git_packbuilder_new(&pb, r->repo) < 0)
		return gitpriv_fail(r->path, "cannot start a pack");
	git_packbuilder_set_threads(pb, 1);
	e = insert_reachable(r->repo, pb, keep, nkeep);
	st->objects = e == ERR_OK ? git_packbuilder_object_count(pb) : 0;
	if (e == ERR_OK && st->objects > 0) {
		if (git_packbuilder_write(pb, packdir, 0, NULL, NULL) < 0)
			e = gitpriv_fail(r->path, "cannot write the pack");
		else
			name = git_packbuilder_name(pb);
		if (e == ERR_OK)
			e = pathf(idx, sizeof(idx), "%s/pack-%s.idx", packdir,
			        name)
			    ? gitpack_sync_dir(idx)
			    : ERR_INVAL;
	}
	/* Only once the new pack is whole on disk. */
	if (e == ERR_OK) {
		remove_old_packs(packdir, name);
		remove_loose(objdir);
		if (git_odb_refresh(r->odb) < 0)
			e = gitpriv_fail(r->path, "cannot see the new pack");
	}
	git_packbuilder_free(pb);
	return e;
}

enum err
gitgc_run(const char *path, const char *const *keep, size_t nkeep,
    struct gitgc_stats *st)
{
	struct gitrepo *r = NULL;
	char objdir[4096];
	enum err e;

	memset(st, 0, sizeof(*st));
	if ((e = gitrepo_open(path, &r)) != ERR_OK)
		return e;
	if (flock(r->lockfd, LOCK_EX | LOCK_NB) != 0) {
		log_warn("gc: %s: in use by a build; not now", path);
		gitrepo_free(r);
		return ERR_BUSY;
	}
	if (!pathf(objdir, sizeof(objdir), "%sobjects",
	        git_repository_path(r->repo))) {
		gitrepo_free(r);
		return ERR_INVAL;
	}
	st->bytes_before =
	    objects_size(objdir, &st->packs_before, &st->loose_before);
	e = pack_and_prune(r, objdir, keep, nkeep, st);
	st->bytes_after = objects_size(objdir, NULL, NULL);
	if (e == ERR_OK)
		stamp(git_repository_path(r->repo));
	gitrepo_free(r);
	return e;
}

time_t
gitgc_last(const char *path)
{
	char p[4096];
	struct stat st;

	/* The bare repository is the folder itself. */
	if (!pathf(p, sizeof(p), "%s/%s", path, GC_STAMP) || stat(p, &st) != 0)
		return 0;
	return st.st_mtime;
}
