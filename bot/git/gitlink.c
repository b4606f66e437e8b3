/*
 * Where a symbolic link of a tree leads, resolved the way the kernel
 * resolves it in a checkout of that tree (path_resolution(7)): one
 * component after the other, from the link's folder, following every
 * link met on the way, so that a ".." after a link climbs from where
 * the link led, not from the link's name.  Reading the target as text
 * (dropping "x/.." pairs) is wrong as soon as a link is in the way:
 * with d/l -> "..", the target "d/l/../../etc" reads as "etc" but leads
 * to the folder above the tree.
 *
 * git apply does not look at where links lead at all: it refuses only
 * to write a path "beyond a symbolic link" (under a link the tree or the
 * patch has), and a checkout never follows a link itself.  The staging
 * tree is checked out for tests and pushed for people to check out,
 * where a link that leads out of the tree reads and writes what it
 * finds there, so the stager refuses such links too.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bot/git/gitpriv.h"
#include "util/ascii.h"
#include "util/buf.h"
#include "util/xalloc.h"

/* Links followed in one resolution: Linux's MAXSYMLINKS.  More is a loop
 * (or as good as one: the kernel gives up with ELOOP). */
#define GITLINK_HOPS 40
/* A longer path or target fails in a checkout (PATH_MAX). */
#define GITLINK_PATH 4096

/* Whether a link target's bytes can name a path: not empty, relative,
 * without NUL or newline, and no ".git" component (any case). */
static bool
target_sane(const char *t, size_t n)
{
	size_t i, j;

	if (n == 0 || n > GITLINK_PATH || t[0] == '/' || memchr(t, '\0', n) ||
	    memchr(t, '\n', n))
		return false;
	for (i = 0; i < n; i = j + 1) {
		const char *sl = memchr(t + i, '/', n - i);

		j = sl ? (size_t)(sl - t) : n;
		if (j - i == 4 && ascii_strnicmp(t + i, ".git", 4) == 0)
			return false;
	}
	return true;
}

/* rest becomes t, a '/', then what rest held from pos on. */
static void
expand(struct buf *rest, size_t pos, const char *t, size_t n)
{
	struct buf b = BUF_INIT;

	buf_add(&b, t, n);
	buf_addc(&b, '/');
	if (rest->n > pos)
		buf_add(&b, rest->p + pos, rest->n - pos);
	buf_free(rest);
	*rest = b;
}

/* The target of the link whose blob is oid put in front of what rest
 * holds from pos on; *where GITLINK_OUT when it cannot be a path. */
static enum err
follow(const struct gitlink_view *v, const git_oid *oid, struct buf *rest,
    size_t pos, enum gitlink_where *where)
{
	git_blob *b;
	const char *t;
	size_t n;

	if (git_blob_lookup(&b, v->repo, oid) < 0)
		return gitpriv_fail(git_oid_tostr_s(oid), "cannot read blob");
	t = git_blob_rawcontent(b);
	n = (size_t)git_blob_rawsize(b);
	if (target_sane(t, n))
		expand(rest, pos, t, n);
	else
		*where = GITLINK_OUT;
	git_blob_free(b);
	return ERR_OK;
}

/* at (the path resolved so far) without its last component. */
static void
up(char *at, size_t *n)
{
	while (*n > 0 && at[*n - 1] != '/')
		(*n)--;
	if (*n > 0)
		(*n)--;
	at[*n] = '\0';
}

/*
 * A component that is not there, or not a link, is taken as a folder,
 * even a missing one or a file: the answer is then the same whatever
 * folders and files a later patch adds, and only a change of a link can
 * change it (gitapply.c checks every link again then).  The kernel
 * would fail on a missing component (ENOENT) or a file (ENOTDIR) and
 * lead nowhere; that is a dangling link, until the folder comes.
 */
enum err
gitlink_resolve(const struct gitlink_view *v, const char *path,
    const git_oid *oid, enum gitlink_where *where)
{
	char at[GITLINK_PATH + 1];
	struct buf rest = BUF_INIT;
	size_t atn, pos = 0, hops = 0;
	enum err e;

	*where = GITLINK_IN;
	atn = strlen(path);
	if (atn > GITLINK_PATH)
		return *where = GITLINK_OUT, ERR_OK;
	memcpy(at, path, atn + 1);
	up(at, &atn);
	if ((e = follow(v, oid, &rest, 0, where)) != ERR_OK ||
	    *where != GITLINK_IN)
		goto out;
	while (pos < rest.n) {
		const char *p = rest.p + pos,
		           *sl = memchr(p, '/', rest.n - pos);
		size_t n = sl ? (size_t)(sl - p) : rest.n - pos;
		size_t base = atn;
		git_oid id;
		unsigned mode = 0;
		int kind;

		pos += n + (sl != NULL);
		if (n == 0 || (n == 1 && p[0] == '.'))
			continue;
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (atn == 0) {
				*where = GITLINK_OUT;
				break;
			}
			up(at, &atn);
			continue;
		}
		if (atn + 1 + n > GITLINK_PATH) {
			*where = GITLINK_OUT;
			break;
		}
		if (atn > 0)
			at[atn++] = '/';
		memcpy(at + atn, p, n);
		atn += n;
		at[atn] = '\0';
		kind = v->get(v->cls, at, &id, &mode);
		if (kind < 0) {
			e = ERR_GIT;
			break;
		}
		if (kind != 1 || mode != GIT_FILEMODE_LINK)
			continue;
		/* A link: its target is read from the link's folder. */
		atn = base;
		at[atn] = '\0';
		if (++hops > GITLINK_HOPS) {
			*where = GITLINK_LOOP;
			break;
		}
		if ((e = follow(v, &id, &rest, pos, where)) != ERR_OK ||
		    *where != GITLINK_IN)
			break;
		pos = 0;
	}
out:
	buf_free(&rest);
	return e;
}
