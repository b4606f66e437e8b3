/*
 * Maildir reader.  The files of new/ and cur/ are listed once, at open,
 * and handed out in the order of their unique names: the part before the
 * ":2,flags" info, which stays the same when a mail client moves a mail
 * from new/ to cur/ or changes its flags.  Names are compared with digit
 * runs taken as numbers, as git mailsplit sorts a Maildir, so that
 * "1700000000.M99P1" comes before "1700000000.M100P1"; ties are broken
 * byte by byte so the order is total and the same on every run.
 *
 * The position is the unique name of the last mail handed out; resuming
 * continues with the first name after it, whether or not that file still
 * exists.  A file listed in both new/ and cur/ (seen mid-move) is read
 * once; a file that vanishes between the listing and its reading is
 * skipped with a warning, and so is anything that is not a regular file
 * (a FIFO, a device, a folder, a symbolic link).  Files are handed out as
 * they are: Maildir files hold one message each and carry no mbox
 * escaping.
 */
#include "bot/source/source_maildir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parsers/limits.h"
#include "util/ascii.h"
#include "util/log.h"
#include "util/xalloc.h"

struct source_maildir {
	char *path;
	char **names; /* "new/NAME" or "cur/NAME", sorted */
	size_t n, nalloc, i;
	size_t limit;
	char *data; /* the mail handed out last */
	size_t cap;
};

/* The unique part of "sub/NAME": NAME up to its ':' info. */
static const char *
md_key(const char *name, size_t *n)
{
	const char *k = strchr(name, '/') + 1;

	*n = strcspn(k, ":");
	return k;
}

/* Compare digit runs by value (any length), everything else by byte. */
static int
md_cmp_runs(const char *a, size_t an, const char *b, size_t bn)
{
	size_t i = 0, j = 0, ei, ej;

	while (i < an && j < bn) {
		if (!ascii_isdigit(a[i]) || !ascii_isdigit(b[j])) {
			if (a[i] != b[j])
				return (unsigned char)a[i] < (unsigned char)b[j]
				    ? -1
				    : 1;
			i++;
			j++;
			continue;
		}
		while (i < an && a[i] == '0')
			i++;
		while (j < bn && b[j] == '0')
			j++;
		for (ei = i; ei < an && ascii_isdigit(a[ei]); ei++)
			;
		for (ej = j; ej < bn && ascii_isdigit(b[ej]); ej++)
			;
		if (ei - i != ej - j)
			return ei - i < ej - j ? -1 : 1;
		if (memcmp(a + i, b + j, ei - i) != 0)
			return memcmp(a + i, b + j, ei - i);
		i = ei;
		j = ej;
	}
	return (i < an) - (j < bn);
}

static int
md_cmp_key(const char *a, size_t an, const char *b, size_t bn)
{
	int c = md_cmp_runs(a, an, b, bn);

	if (c != 0)
		return c;
	c = memcmp(a, b, an < bn ? an : bn);
	if (c != 0)
		return c;
	return (an > bn) - (an < bn);
}

static int
md_cmp_names(const void *pa, const void *pb)
{
	const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
	const char *ka, *kb;
	size_t an, bn;
	int c;

	ka = md_key(a, &an);
	kb = md_key(b, &bn);
	c = md_cmp_key(ka, an, kb, bn);
	return c != 0 ? c : strcmp(a, b);
}

static enum err
md_list_sub(struct source_maildir *md, const char *sub)
{
	struct dirent *de;
	char dir[4096];
	DIR *d;
	int r;

	r = snprintf(dir, sizeof(dir), "%s/%s", md->path, sub);
	if (r < 0 || (size_t)r >= sizeof(dir)) {
		log_err("source: %s: path too long", md->path);
		return ERR_INVAL;
	}
	d = opendir(dir);
	if (d == NULL) {
		if (errno == ENOENT)
			return ERR_OK;
		log_err("source: %s: opendir: %s", dir, strerror(errno));
		return ERR_IO;
	}
	while ((errno = 0, de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		char *name;

		if (de->d_name[0] == '.')
			continue;
		name = xmalloc(len + 5);
		memcpy(name, sub, 3);
		name[3] = '/';
		memcpy(name + 4, de->d_name, len + 1);
		md->names = xgrow(
		    md->names, &md->nalloc, md->n + 1, sizeof(*md->names));
		md->names[md->n++] = name;
	}
	r = errno;
	closedir(d);
	if (r != 0) {
		log_err("source: %s: readdir: %s", dir, strerror(r));
		return ERR_IO;
	}
	return ERR_OK;
}

/* Sort, then keep one file per unique name (cur/ sorts first). */
static void
md_sort(struct source_maildir *md)
{
	size_t i, o = 0, an, bn;
	const char *a, *b;

	if (md->n > 1)
		qsort(md->names, md->n, sizeof(*md->names), md_cmp_names);
	for (i = 0; i < md->n; i++) {
		if (o > 0) {
			a = md_key(md->names[o - 1], &an);
			b = md_key(md->names[i], &bn);
			if (an == bn && memcmp(a, b, an) == 0) {
				free(md->names[i]);
				continue;
			}
		}
		md->names[o++] = md->names[i];
	}
	md->n = o;
}

enum err
source_maildir_open(const char *path, size_t limit, struct source_maildir **out)
{
	struct source_maildir *md = xcalloc(1, sizeof(*md));
	enum err e;

	md->path = xstrdup(path);
	md->limit = limit ? limit : LIMIT_MAIL_STORE;
	/* new/ before cur/: a mail moved between the two listings is then
	 * seen twice rather than never. */
	e = md_list_sub(md, "new");
	if (e == ERR_OK)
		e = md_list_sub(md, "cur");
	if (e != ERR_OK) {
		source_maildir_free(md);
		return e;
	}
	md_sort(md);
	*out = md;
	return ERR_OK;
}

void
source_maildir_free(struct source_maildir *md)
{
	size_t i;

	if (md == NULL)
		return;
	for (i = 0; i < md->n; i++)
		free(md->names[i]);
	free(md->names);
	free(md->data);
	free(md->path);
	free(md);
}

enum err
source_maildir_seek(struct source_maildir *md, const char *pos)
{
	size_t lo = 0, hi = md->n, mid, pn = strlen(pos), kn;
	const char *k;

	if (pn == 0 || pn >= sizeof(((struct source_mail *)0)->pos) ||
	    pos[0] == '.' || strpbrk(pos, "/:") != NULL) {
		log_err("source: %s: position is not a Maildir name", md->path);
		return ERR_INVAL;
	}
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		k = md_key(md->names[mid], &kn);
		if (md_cmp_key(k, kn, pos, pn) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	md->i = lo;
	return ERR_OK;
}

/*
 * Read the file into md->data: its size at fstat() time.  A file over
 * the limit is not read: ERR_LIMIT, *n its size.
 */
static enum err
md_read(struct source_maildir *md, int fd, const char *file, size_t *n)
{
	struct stat st;
	size_t want, have = 0;
	ssize_t r;

	if (fstat(fd, &st) != 0) {
		log_err("source: %s: stat: %s", file, strerror(errno));
		return ERR_IO;
	}
	if (!S_ISREG(st.st_mode)) {
		log_warn("source: %s: not a file, skipped", file);
		return ERR_NOTFOUND;
	}
	if ((uint64_t)st.st_size > md->limit) {
		*n = (size_t)st.st_size;
		return ERR_LIMIT;
	}
	want = (size_t)st.st_size;
	if (md->cap < want || md->data == NULL) {
		md->cap = want + 1;
		md->data = xrealloc(md->data, md->cap);
	}
	while (have < want) {
		r = read(fd, md->data + have, want - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			log_err("source: %s: read: %s", file, strerror(errno));
			return ERR_IO;
		}
		if (r == 0)
			break; /* it shrank: hand out what is there */
		have += (size_t)r;
	}
	*n = have;
	return ERR_OK;
}

enum err
source_maildir_next(struct source_maildir *md, struct source_mail *m)
{
	char file[4096];
	const char *k;
	size_t n = 0, kn;
	enum err e;
	int fd, r;

	for (; md->i < md->n; md->i++) {
		r = snprintf(
		    file, sizeof(file), "%s/%s", md->path, md->names[md->i]);
		if (r < 0 || (size_t)r >= sizeof(file)) {
			log_warn("source: %s: %s: path too long, skipped",
			    md->path, md->names[md->i]);
			continue;
		}
		/* Regular files only: O_NONBLOCK so that a FIFO cannot
		 * hold the open (md_read() skips it by its type), and
		 * O_NOFOLLOW so that a link cannot hand us a file that is
		 * not the Maildir's. */
		fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
		if (fd < 0 && errno == ENOENT) {
			log_warn("source: %s: vanished, skipped", file);
			continue;
		}
		if (fd < 0 && errno == ELOOP) {
			log_warn("source: %s: a symbolic link, skipped", file);
			continue;
		}
		if (fd < 0) {
			log_err("source: %s: open: %s", file, strerror(errno));
			md->i++;
			return ERR_IO;
		}
		e = md_read(md, fd, file, &n);
		close(fd);
		if (e == ERR_NOTFOUND)
			continue;
		k = md_key(md->names[md->i], &kn);
		md->i++;
		if (e != ERR_OK && e != ERR_LIMIT)
			return e;
		if (kn >= sizeof(m->pos))
			return ERR_INTERNAL; /* NAME_MAX keeps it shorter */
		memcpy(m->pos, k, kn);
		m->pos[kn] = '\0';
		if (e == ERR_LIMIT) {
			log_err("source: %s: %zu bytes, over the %zu bytes a "
			        "mail may "
			        "have: not imported",
			    file, n, md->limit);
			m->raw = NULL;
			m->n = 0;
			return ERR_LIMIT;
		}
		m->raw = md->data != NULL ? md->data : "";
		m->n = n;
		return ERR_OK;
	}
	return ERR_NOTFOUND;
}

double
source_maildir_progress(const struct source_maildir *md)
{
	return md->n == 0 ? 1.0 : (double)md->i / (double)md->n;
}
