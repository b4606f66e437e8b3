#include "bot/tester/workdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"

static enum err
path(char *out, size_t n, const char *a, const char *b)
{
	int k = snprintf(out, n, "%s/%s", a, b);

	if (k < 0 || (size_t)k >= n) {
		log_err("tester: %s: path too long", a);
		return ERR_LIMIT;
	}
	return ERR_OK;
}

enum err
workdir_make(struct workdir *w)
{
	const char *t = getenv("TMPDIR");
	char tmpl[4096];
	enum err e;

	memset(w, 0, sizeof(*w));
	if (t == NULL || *t != '/')
		t = "/tmp";
	if ((e = path(tmpl, sizeof(tmpl), t, "patchyard-test.XXXXXX")))
		return e;
	if (mkdtemp(tmpl) == NULL) {
		log_err("tester: %s: %s", tmpl, strerror(errno));
		return ERR_IO;
	}
	memcpy(w->root, tmpl, strlen(tmpl) + 1);
	if ((e = path(w->tree, sizeof(w->tree), w->root, "tree")) ||
	    (e = path(w->home, sizeof(w->home), w->root, "home")) ||
	    (e = path(w->tmp, sizeof(w->tmp), w->home, "tmp")))
		goto fail;
	if (mkdir(w->tree, 0700) != 0 || mkdir(w->home, 0700) != 0 ||
	    mkdir(w->tmp, 0700) != 0) {
		log_err("tester: %s: %s", w->root, strerror(errno));
		e = ERR_IO;
		goto fail;
	}
	return ERR_OK;
fail:
	workdir_remove(w);
	return e;
}

/* Empty the folder open as fd (which this closes), depth first. */
static int
empty(int fd)
{
	DIR *d;
	struct dirent *de;
	int rc = 0;

	(void)fchmod(fd, 0700);
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		int sub;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			continue;
		sub = openat(dirfd(d), de->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			rc = -1;
			continue;
		}
		if (empty(sub) != 0 ||
		    unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) != 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

enum err
workdir_remove(struct workdir *w)
{
	int fd;

	if (w->root[0] == '\0')
		return ERR_OK;
	fd = open(w->root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || empty(fd) != 0 || rmdir(w->root) != 0) {
		log_err(
		    "tester: %s: cannot remove: %s", w->root, strerror(errno));
		return ERR_IO;
	}
	w->root[0] = '\0';
	return ERR_OK;
}
