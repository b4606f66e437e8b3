/*
 * Mirroring a public-inbox v2 archive served by URL (public-inbox-v2-
 * format(5)): its epochs are git repositories at URL/git/N.git, fetched
 * with libgit2 into DIR/git/N.git, which git_pubinbox.c then reads like
 * any local archive.  Epochs are numbered from 0 without gaps, so a new
 * one is found by asking for the number after the last: public-inbox
 * writes only to its newest epoch, and that one and the next are what
 * each poll looks at (every epoch on the first).  Object hashes are
 * verified as libgit2 is told process-wide; nothing here changes that.
 */
#include "bot/source/pubinbox_mirror.h"

#include <dirent.h>
#include <errno.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bot/source/git_pubinbox.h"
#include "util/ascii.h"
#include "util/gitmsg.h"
#include "util/log.h"

#define PM_REFSPEC "+refs/heads/master:refs/heads/master"

static enum err
pm_giterr(const char *url, const char *what)
{
	const git_error *ge = git_error_last();
	char plain[1024];

	log_err("source: %s: %s: %s", url, what,
	    gitmsg_plain(plain, sizeof(plain), ge ? ge->message : NULL));
	return ERR_NET;
}

/* "<base><sep>git/<k>.git" or "<base>/<k>.git" into out. */
static bool
pm_epoch_path(char *out, size_t n, const char *base, const char *sep,
    const char *sub, long k)
{
	int r = snprintf(out, n, "%s%s%s%ld.git", base, sep, sub, k);

	return r >= 0 && (size_t)r < n;
}

/* The highest N of DIR/git/N.git, or -1 when there is none. */
static long
pm_last_epoch(const char *gitdir)
{
	struct dirent *de;
	long last = -1;
	DIR *d = opendir(gitdir);

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		const char *s = de->d_name;
		size_t n = strlen(s), i;
		long v = 0;

		if (n < 5 || n > 13 || strcmp(s + n - 4, ".git") != 0)
			continue;
		for (i = 0; i < n - 4 && ascii_isdigit(s[i]); i++)
			v = v * 10 + (s[i] - '0');
		if (i == n - 4 && v > last)
			last = v;
	}
	closedir(d);
	return last;
}

static enum err
pm_mkdir(const char *path)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return ERR_OK;
	log_err("source: %s: mkdir: %s", path, strerror(errno));
	return ERR_IO;
}

/* Does url hold a repository with a master branch?  Any failure to ask
 * counts as no: the epoch is not there (yet). */
static bool
pm_exists(const char *url)
{
	git_remote *remote = NULL;
	const git_remote_head **heads;
	size_t n, i;
	bool found = false;

	if (git_remote_create_detached(&remote, url) != 0)
		return false;
	if (git_remote_connect(remote, GIT_DIRECTION_FETCH, NULL, NULL, NULL) ==
	        0 &&
	    git_remote_ls(&heads, &n, remote) == 0) {
		for (i = 0; i < n && !found; i++)
			found =
			    strcmp(heads[i]->name, "refs/heads/master") == 0;
	}
	git_remote_free(remote);
	return found;
}

/* Fetch epoch url into the bare repository path (made when missing). */
static enum err
pm_fetch(const char *url, const char *path)
{
	char *spec = PM_REFSPEC;
	git_strarray specs = { &spec, 1 };
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	git_fetch_options o;
	git_remote_create_options ro;
	enum err e = ERR_OK;

	if (git_repository_open_bare(&repo, path) != 0 &&
	    git_repository_init(&repo, path, 1) != 0)
		return pm_giterr(path, "cannot make the mirror");
	git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	ro.repository = repo;
	ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF |
	    GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if (git_remote_create_with_opts(&remote, url, &ro) != 0) {
		e = pm_giterr(url, "bad remote");
		goto out;
	}
	git_fetch_options_init(&o, GIT_FETCH_OPTIONS_VERSION);
	o.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	o.update_fetchhead = 0;
	if (git_remote_fetch(remote, &specs, &o, "patchyard: follow") != 0)
		e = pm_giterr(url, "fetch failed");
	if (e == ERR_OK &&
	    git_repository_set_head(repo, "refs/heads/master") != 0)
		e = pm_giterr(path, "HEAD");
out:
	git_remote_free(remote);
	git_repository_free(repo);
	return e;
}

enum err
pubinbox_mirror(const char *url, const char *dir, bool all, unsigned *fetched)
{
	char gitdir[4096], eurl[4096], epath[4096];
	const char *slash;
	long last, k;
	enum err e = ERR_OK;

	*fetched = 0;
	if (git_pubinbox_start() < 0)
		return ERR_GIT;
	slash = url[0] != '\0' && url[strlen(url) - 1] == '/' ? "" : "/";
	if (snprintf(gitdir, sizeof(gitdir), "%s/git", dir) >=
	        (int)sizeof(gitdir) ||
	    (e = pm_mkdir(dir)) != ERR_OK || (e = pm_mkdir(gitdir)) != ERR_OK)
		goto out;
	last = pm_last_epoch(gitdir);
	for (k = all || last < 0 ? 0 : last; e == ERR_OK; k++) {
		if (!pm_epoch_path(eurl, sizeof(eurl), url, slash, "git/", k) ||
		    !pm_epoch_path(epath, sizeof(epath), gitdir, "/", "", k)) {
			log_err("source: %s: URL too long", url);
			e = ERR_INVAL;
			break;
		}
		/* Epochs past the last one we have are probed first, so a
		 * missing one leaves no empty repository behind. */
		if (k > last && !pm_exists(eurl)) {
			if (k == 0) {
				log_err("source: %s: no public-inbox epoch "
				        "git/0.git there",
				    url);
				e = ERR_NET;
			}
			break;
		}
		if ((e = pm_fetch(eurl, epath)) == ERR_OK)
			(*fetched)++;
		if (k > last)
			log_info("source: %s: new epoch %ld", url, k);
	}
out:
	git_libgit2_shutdown();
	return e;
}
