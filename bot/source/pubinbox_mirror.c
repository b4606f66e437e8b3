/*
 * Mirroring a public-inbox v2 archive served by URL (public-inbox-v2-
 * format(5)): its epochs are git repositories at URL/git/N.git, fetched
 * with libgit2 into DIR/git/N.git, which git_pubinbox.c then reads like
 * any local archive.  public-inbox writes only to its newest epoch, and
 * that one and any newer are what each poll fetches (every epoch on the
 * first).
 *
 * Which epochs there are, the server says in the inbox's grokmirror
 * manifest, URL/manifest.js.gz (public-inbox serves one for each inbox):
 * exactly those are mirrored.  Without one, epochs are probed in order
 * (they are numbered from 0 without gaps) up to the first that does not
 * exist.  Either way no more than PM_EPOCHS_MAX: a server that answers
 * for every number was mirrored for ever.  Object hashes are verified
 * as libgit2 is told process-wide; nothing here changes that.
 */
#include "bot/source/pubinbox_mirror.h"

#include <dirent.h>
#include <errno.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "bot/source/git_pubinbox.h"
#include "bot/source/pubinbox_http.h"
#include "parsers/manifest.h"
#include "util/ascii.h"
#include "util/gitmsg.h"
#include "util/log.h"
#include "util/xalloc.h"

#define PM_REFSPEC "+refs/heads/master:refs/heads/master"

/*
 * Epochs mirrored at most.  public-inbox starts a new epoch after about
 * a gigabyte of mail (public-inbox-v2-format(5)); 64 of them are more
 * than a mailing list writes in decades.  An inbox that grows past it
 * needs this raised; a server that answers for every epoch number is
 * stopped here.
 */
#define PM_EPOCHS_MAX 64

/* A manifest, compressed and inflated: a few hundred bytes an epoch. */
#define PM_MANIFEST_MAX (1024u * 1024)

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

static bool
pm_stopped(volatile sig_atomic_t *stop)
{
	return stop != NULL && *stop;
}

/* libgit2 asks as the pack comes: non-zero cancels the fetch. */
static int
pm_progress(const git_indexer_progress *stats, void *payload)
{
	(void)stats;
	return pm_stopped(payload) ? -1 : 0;
}

/* Fetch epoch url into the bare repository path (made when missing). */
static enum err
pm_fetch(const char *url, const char *path, volatile sig_atomic_t *stop)
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
	o.callbacks.transfer_progress = pm_progress;
	o.callbacks.payload = (void *)stop;
	if (git_remote_fetch(remote, &specs, &o, "patchyard: follow") != 0)
		e = pm_stopped(stop) ? ERR_TEMP
		                     : pm_giterr(url, "fetch failed");
	if (e == ERR_OK &&
	    git_repository_set_head(repo, "refs/heads/master") != 0)
		e = pm_giterr(path, "HEAD");
out:
	git_remote_free(remote);
	git_repository_free(repo);
	return e;
}

/* The gzip file gz[0..n) inflated into *out (*outn bytes and a NUL),
 * at most PM_MANIFEST_MAX; false when it is not gzip or inflates past
 * that. */
static bool
pm_gunzip(const char *gz, size_t n, char **out, size_t *outn)
{
	z_stream z;
	size_t cap = 0;
	int r = Z_OK;

	*out = NULL;
	*outn = 0;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return false;
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)n;
	while (r == Z_OK) {
		if (*outn == PM_MANIFEST_MAX) {
			r = Z_BUF_ERROR;
			break;
		}
		*out = xgrow(*out, &cap, *outn + 4096 + 1, 1);
		if (cap - 1 > PM_MANIFEST_MAX)
			cap = PM_MANIFEST_MAX + 1;
		z.next_out = (Bytef *)*out + *outn;
		z.avail_out = (uInt)(cap - 1 - *outn);
		r = inflate(&z, Z_NO_FLUSH);
		*outn = (size_t)((char *)z.next_out - *out);
	}
	inflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(*out);
		*out = NULL;
		return false;
	}
	(*out)[*outn] = '\0';
	return true;
}

/*
 * The epochs url's manifest lists, into have[0..PM_EPOCHS_MAX) and
 * *beyond.  false when there is none to go by (no manifest, or one that
 * cannot be read, said in the log): the epochs are probed then.
 */
static bool
pm_manifest(const char *url, const char *slash, volatile sig_atomic_t *stop,
    bool *have, bool *beyond)
{
	char murl[4096], err[512], *gz = NULL, *json = NULL;
	size_t gzn = 0, jn = 0, k;
	bool ok = false;
	enum err e;
	int r = snprintf(murl, sizeof(murl), "%s%smanifest.js.gz", url, slash);

	if (r < 0 || (size_t)r >= sizeof(murl))
		return false;
	e = pubinbox_http_get(
	    murl, PM_MANIFEST_MAX, stop, &gz, &gzn, err, sizeof(err));
	if (e == ERR_NOTFOUND) {
		log_debug("source: %s: no manifest.js.gz: epochs probed in "
		          "order",
		    url);
		return false;
	}
	if (e != ERR_OK) {
		log_warn("source: %s: manifest: %s; epochs probed in order",
		    url, err);
		return false;
	}
	if (!pm_gunzip(gz, gzn, &json, &jn))
		log_warn("source: %s: manifest.js.gz is not gzip, or is over "
		         "%u KB inflated; epochs probed in order",
		    url, PM_MANIFEST_MAX / 1024);
	else if (manifest_epochs(json, jn, have, PM_EPOCHS_MAX, beyond) !=
	    ERR_OK)
		log_warn("source: %s: manifest.js.gz is not a JSON object; "
		         "epochs probed in order",
		    url);
	else
		for (k = 0; k < PM_EPOCHS_MAX && !ok; k++)
			ok = have[k];
	if (json != NULL && !ok && !*beyond)
		log_warn(
		    "source: %s: manifest.js.gz lists no epoch (git/N.git); "
		    "epochs probed in order",
		    url);
	free(gz);
	free(json);
	return ok || *beyond;
}

/* Epoch k's URL and local path; false (logged) when too long. */
static bool
pm_paths(const char *url, const char *slash, const char *gitdir, long k,
    char *eurl, char *epath, size_t n)
{
	if (pm_epoch_path(eurl, n, url, slash, "git/", k) &&
	    pm_epoch_path(epath, n, gitdir, "/", "", k))
		return true;
	log_err("source: %s: URL too long", url);
	return false;
}

/* The epochs the manifest lists: those newer than the last we have (all
 * with all), and any we lack. */
static enum err
pm_listed(const char *url, const char *slash, const char *gitdir, bool all,
    long last, const bool *have, volatile sig_atomic_t *stop, unsigned *fetched)
{
	char eurl[4096], epath[4096];
	struct stat st;
	long k;
	enum err e = ERR_OK;

	for (k = 0; k < PM_EPOCHS_MAX && e == ERR_OK && !pm_stopped(stop);
	     k++) {
		if (!have[k])
			continue;
		if (!pm_paths(url, slash, gitdir, k, eurl, epath, sizeof(eurl)))
			return ERR_INVAL;
		if (!all && k < last && stat(epath, &st) == 0)
			continue;
		if ((e = pm_fetch(eurl, epath, stop)) == ERR_OK)
			(*fetched)++;
		if (e == ERR_OK && k > last)
			log_info("source: %s: new epoch %ld", url, k);
	}
	return e;
}

/* No manifest: the newest epoch we have and every one after it that
 * exists, in order, up to PM_EPOCHS_MAX. */
static enum err
pm_probed(const char *url, const char *slash, const char *gitdir, bool all,
    long last, volatile sig_atomic_t *stop, unsigned *fetched, char *note,
    size_t noten)
{
	char eurl[4096], epath[4096];
	long k;
	enum err e = ERR_OK;

	for (k = all || last < 0 ? 0 : last; e == ERR_OK && !pm_stopped(stop);
	     k++) {
		if (!pm_paths(url, slash, gitdir, k, eurl, epath, sizeof(eurl)))
			return ERR_INVAL;
		if (k == PM_EPOCHS_MAX) {
			if (pm_exists(eurl)) {
				snprintf(note, noten,
				    "the server has epochs past %d (no "
				    "manifest.js.gz says how many): only "
				    "0-%d are mirrored",
				    PM_EPOCHS_MAX - 1, PM_EPOCHS_MAX - 1);
				log_err("source: %s: %s", url, note);
			}
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
		if ((e = pm_fetch(eurl, epath, stop)) == ERR_OK)
			(*fetched)++;
		if (e == ERR_OK && k > last)
			log_info("source: %s: new epoch %ld", url, k);
	}
	return e;
}

enum err
pubinbox_mirror(const char *url, const char *dir, bool all,
    volatile sig_atomic_t *stop, unsigned *fetched, char *note, size_t noten)
{
	char gitdir[4096];
	bool have[PM_EPOCHS_MAX], beyond = false;
	const char *slash;
	long last;
	enum err e = ERR_OK;

	*fetched = 0;
	note[0] = '\0';
	if (git_pubinbox_start() < 0)
		return ERR_GIT;
	slash = url[0] != '\0' && url[strlen(url) - 1] == '/' ? "" : "/";
	if (snprintf(gitdir, sizeof(gitdir), "%s/git", dir) >=
	        (int)sizeof(gitdir) ||
	    (e = pm_mkdir(dir)) != ERR_OK || (e = pm_mkdir(gitdir)) != ERR_OK)
		goto out;
	last = pm_last_epoch(gitdir);
	if (pm_manifest(url, slash, stop, have, &beyond)) {
		e = pm_listed(
		    url, slash, gitdir, all, last, have, stop, fetched);
		if (beyond) {
			snprintf(note, noten,
			    "its manifest lists epochs past %d: only 0-%d are "
			    "mirrored",
			    PM_EPOCHS_MAX - 1, PM_EPOCHS_MAX - 1);
			log_err("source: %s: %s", url, note);
		}
	} else {
		e = pm_probed(
		    url, slash, gitdir, all, last, stop, fetched, note, noten);
	}
	if (pm_stopped(stop) && e == ERR_TEMP)
		e = ERR_OK; /* stopping, not failing */
out:
	git_libgit2_shutdown();
	return e;
}
