/*
 * Mail sources for import: tells an mbox file, a Maildir folder and a
 * public-inbox archive apart and hands each call on to its reader
 * (bot/source/source_mbox.c, bot/source/source_maildir.c,
 * bot/source/git_pubinbox.c).
 */
#include "bot/source/source.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/source/git_pubinbox.h"
#include "bot/source/source_maildir.h"
#include "bot/source/source_mbox.h"
#include "util/log.h"
#include "util/xalloc.h"

struct source {
	enum source_kind kind;
	char *name;
	struct source_mbox *mbox;
	struct source_maildir *maildir;
	struct git_pubinbox *pubinbox;
};

static bool
src_is(const char *dir, const char *sub, bool want_dir)
{
	char path[PATH_MAX];
	struct stat st;
	int r = snprintf(path, sizeof(path), "%s/%s", dir, sub);

	if (r < 0 || (size_t)r >= sizeof(path) || stat(path, &st) != 0)
		return false;
	return want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

/* What a directory holds: a Maildir, a public-inbox, or neither. */
static enum err
src_dir_kind(const char *path, enum source_kind *kind)
{
	if (src_is(path, "cur", true) || src_is(path, "new", true)) {
		*kind = SOURCE_MAILDIR;
		return ERR_OK;
	}
	if (src_is(path, "git", true) ||
	    (src_is(path, "HEAD", false) && src_is(path, "objects", true))) {
		*kind = SOURCE_PUBINBOX;
		return ERR_OK;
	}
	log_err("source: %s: neither a Maildir (cur/, new/) nor a "
	        "public-inbox archive (git/N.git)",
	    path);
	return ERR_INVAL;
}

/* "<kind>:<absolute path>", the same for every spelling of the path. */
static char *
src_name(enum source_kind kind, const char *path)
{
	static const char *const prefix[] = { "mbox", "maildir", "pubinbox" };
	char *abs = realpath(path, NULL), *name;
	size_t n;

	if (abs == NULL)
		abs = xstrdup(path);
	n = strlen(prefix[kind]) + 1 + strlen(abs) + 1;
	name = xmalloc(n);
	if (snprintf(name, n, "%s:%s", prefix[kind], abs) != (int)n - 1)
		fatal("source: name of %s", path);
	free(abs);
	return name;
}

enum err
source_open(const char *path, unsigned flags, struct source **out)
{
	struct source_mbox_opts mo = { 0 };
	struct source *s;
	struct stat st;
	enum source_kind kind = SOURCE_MBOX;
	enum err e;

	if (stat(path, &st) != 0) {
		log_err("source: %s: %s", path, strerror(errno));
		return errno == ENOENT ? ERR_NOTFOUND : ERR_IO;
	}
	if (S_ISDIR(st.st_mode)) {
		e = src_dir_kind(path, &kind);
		if (e != ERR_OK)
			return e;
	}
	s = xcalloc(1, sizeof(*s));
	s->kind = kind;
	mo.mboxo = (flags & SOURCE_MBOXO) != 0;
	switch (kind) {
	case SOURCE_MBOX:
		e = source_mbox_open(path, &mo, &s->mbox);
		break;
	case SOURCE_MAILDIR:
		e = source_maildir_open(path, 0, &s->maildir);
		break;
	default:
		e = git_pubinbox_open(path, 0, &s->pubinbox);
		break;
	}
	if (e != ERR_OK) {
		free(s);
		return e;
	}
	s->name = src_name(kind, path);
	*out = s;
	return ERR_OK;
}

void
source_free(struct source *s)
{
	if (s == NULL)
		return;
	source_mbox_free(s->mbox);
	source_maildir_free(s->maildir);
	git_pubinbox_free(s->pubinbox);
	free(s->name);
	free(s);
}

enum source_kind
source_kind(const struct source *s)
{
	return s->kind;
}

const char *
source_name(const struct source *s)
{
	return s->name;
}

enum err
source_seek(struct source *s, const char *pos)
{
	switch (s->kind) {
	case SOURCE_MBOX:
		return source_mbox_seek(s->mbox, pos);
	case SOURCE_MAILDIR:
		return source_maildir_seek(s->maildir, pos);
	default:
		return git_pubinbox_seek(s->pubinbox, pos);
	}
}

enum err
source_next(struct source *s, struct source_mail *m)
{
	switch (s->kind) {
	case SOURCE_MBOX:
		return source_mbox_next(s->mbox, m);
	case SOURCE_MAILDIR:
		return source_maildir_next(s->maildir, m);
	default:
		return git_pubinbox_next(s->pubinbox, m);
	}
}

void *
source_hold(struct source *s)
{
	return s->kind == SOURCE_PUBINBOX ? git_pubinbox_hold(s->pubinbox)
	                                  : NULL;
}

void
source_release(struct source *s, void *hold)
{
	if (hold != NULL && s->kind == SOURCE_PUBINBOX)
		git_pubinbox_release(hold);
}

double
source_progress(const struct source *s)
{
	switch (s->kind) {
	case SOURCE_MBOX:
		return source_mbox_progress(s->mbox);
	case SOURCE_MAILDIR:
		return source_maildir_progress(s->maildir);
	default:
		return git_pubinbox_progress(s->pubinbox);
	}
}

size_t
source_epochs(const struct source *s)
{
	return s->kind == SOURCE_PUBINBOX ? git_pubinbox_nepochs(s->pubinbox)
	                                  : 0;
}

unsigned long
source_epoch_num(const struct source *s, size_t i)
{
	return git_pubinbox_epoch(s->pubinbox, i);
}

enum err
source_epoch_head(struct source *s, size_t i, char hex[41])
{
	return git_pubinbox_head(s->pubinbox, i, hex);
}

enum err
source_epoch_select(struct source *s, size_t i, const char *after)
{
	return git_pubinbox_select(s->pubinbox, i, after);
}

const char *
source_skipped(const struct source *s)
{
	return s->kind == SOURCE_PUBINBOX ? git_pubinbox_skipped(s->pubinbox)
	                                  : NULL;
}
