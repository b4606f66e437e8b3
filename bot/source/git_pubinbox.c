/*
 * public-inbox v2 reader (see public-inbox-v2-format(5)).  An inbox keeps
 * its mail in epochs, git/0.git, git/1.git ..., read here in numeric
 * order; all.git only ties them together for cloning and is not read.
 * Each commit of an epoch adds one mail as the blob "m" at the root of its
 * tree; a commit holding "d" instead records a deletion and is skipped.
 *
 * An epoch's history is read oldest first along first parents: the order
 * of libgit2's revwalk with GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE and
 * first-parent simplification.  The walk is done by hand instead, from
 * the head down the first parents into an array of commit ids (and their
 * trees) that is then turned round, because a revwalk keeps every commit
 * it met in memory, hundreds of bytes each, where the array needs 40, and
 * lore's epochs hold up to a million mails.
 *
 * Every object is read through libgit2, which checks each against its
 * id.  libgit2 keeps the commits and trees it reads in a cache of the
 * repository, with no call to empty it: the epoch is opened again every
 * GP_REOPEN reads through it, which keeps an import's memory bounded
 * without touching the process-wide cache settings that the stager
 * shares.
 *
 * The position is "<epoch>:<commit hex>" of the mail handed out last;
 * resuming walks down only to that commit.  A position whose commit is
 * not on the epoch's first-parent line (an inbox rewritten by
 * public-inbox-purge, say) is refused.
 *
 * An archive fetched from a server is not trusted to be small: before
 * libgit2 is asked for an object, the headers of the epoch's packs say
 * how large everything its delta chain holds is (bot/source/packbound.c),
 * and libgit2's git_odb_read_header() the size of a loose object.  A
 * mail up to the limit (LIMIT_MAIL_STORE) is handed out whole, for the
 * parser to mark when it is over LIMIT_MAIL_SIZE.  One over it (or built
 * on a delta base that is) is never inflated: it is skipped with
 * ERR_LIMIT and logged with its epoch and commit, and
 * git_pubinbox_skipped() tells the follower, which shows it as the
 * source's last error.  A commit or tree over GP_META_MAX is an error.
 */
#include "bot/source/git_pubinbox.h"
#include "bot/source/packbound.h"

#include <dirent.h>
#include <errno.h>
#include <git2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parsers/limits.h"
#include "util/ascii.h"
#include "util/gitmsg.h"
#include "util/log.h"
#include "util/oid.h"
#include "util/xalloc.h"

/* Objects read between two openings of an epoch: what libgit2 caches
 * per mail read (its commits and trees, and delta bases) stays a few
 * megabytes. */
#define GP_REOPEN 256

/* The largest commit or tree read: a v2 commit holds a subject line and
 * two names, its tree one entry; 1 MB is far above any. */
#define GP_META_MAX (1024u * 1024)

struct gp_epoch {
	unsigned long num;
	char *path;
};

struct git_pubinbox {
	char *path;
	size_t limit; /* a mail larger is skipped, not inflated */
	char skipped[200]; /* the last one skipped, "" when none */
	struct gp_epoch *epochs;
	size_t nepochs, nalloc;
	size_t ei; /* the epoch being read */
	size_t end; /* read up to this epoch index (nepochs: to the end) */
	git_repository *repo; /* epochs[ei], opened when needed */
	struct packbound *bound; /* its packs' headers */
	bool loaded; /* epochs[ei]'s walk is in oids */
	size_t reads; /* objects libgit2 read since repo was opened */
	git_oid *oids; /* its commits, oldest first */
	git_oid *trees; /* their trees: the walk read them, the reads need
	                   only these */
	size_t noids, oalloc, talloc, oi;
	git_oid hide; /* resume after this commit of epochs[ei] */
	bool has_hide;
	unsigned char *mail; /* the mail handed out last, unless held */
	enum err err; /* sticky: an epoch half read is not read again */
	bool initialised;
};

static enum err
gp_giterr(const struct git_pubinbox *p, const char *what)
{
	const git_error *ge = git_error_last();
	char plain[1024];

	log_err("source: %s: %s: %s", p->path, what,
	    gitmsg_plain(plain, sizeof(plain), ge ? ge->message : NULL));
	return ERR_GIT;
}

int
git_pubinbox_start(void)
{
	git_buf dirs = { 0 };
	int n = git_libgit2_init();

	if (n < 0)
		return n;
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 1);
	/* An archive is read whoever owns it, as git does with
	 * safe.directory = *: see gitpriv_start() in bot/git/gitrepo.c for
	 * why that is safe, and why process-wide. */
	git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
	if (git_libgit2_opts(
	        GIT_OPT_GET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, &dirs) == 0 &&
	    dirs.ptr != NULL &&
	    gitmsg_config_unreadable(dirs.ptr, ".gitconfig"))
		git_libgit2_opts(
		    GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, "");
	git_buf_dispose(&dirs);
	return n;
}

/* An id in hex for a message (git_oid_tostr_s needs libgit2 started). */
#define GP_HEX(oid)                                                            \
	git_oid_tostr((char[GIT_OID_HEXSZ + 1]){ 0 }, GIT_OID_HEXSZ + 1, (oid))

/* "N.git" with N decimal: *num = N. */
static bool
gp_epoch_name(const char *name, unsigned long *num)
{
	size_t i, n = strlen(name);
	unsigned long v = 0;

	if (n < 5 || n > 14 || strcmp(name + n - 4, ".git") != 0)
		return false;
	for (i = 0; i < n - 4; i++) {
		if (!ascii_isdigit(name[i]))
			return false;
		v = v * 10 + (unsigned long)(name[i] - '0');
	}
	*num = v;
	return true;
}

static void
gp_add_epoch(struct git_pubinbox *p, unsigned long num, const char *path)
{
	p->epochs =
	    xgrow(p->epochs, &p->nalloc, p->nepochs + 1, sizeof(*p->epochs));
	p->epochs[p->nepochs].num = num;
	p->epochs[p->nepochs].path = xstrdup(path);
	p->nepochs++;
}

static int
gp_cmp_epoch(const void *a, const void *b)
{
	unsigned long x = ((const struct gp_epoch *)a)->num;
	unsigned long y = ((const struct gp_epoch *)b)->num;

	return (x > y) - (x < y);
}

static enum err
gp_list_epochs(struct git_pubinbox *p, const char *gitdir)
{
	char path[4096];
	struct dirent *de;
	unsigned long num;
	DIR *d;
	int r;

	d = opendir(gitdir);
	if (d == NULL) {
		log_err("source: %s: opendir: %s", gitdir, strerror(errno));
		return ERR_IO;
	}
	while ((de = readdir(d)) != NULL) {
		if (!gp_epoch_name(de->d_name, &num))
			continue;
		r = snprintf(path, sizeof(path), "%s/%s", gitdir, de->d_name);
		if (r < 0 || (size_t)r >= sizeof(path)) {
			closedir(d);
			log_err("source: %s: path too long", gitdir);
			return ERR_INVAL;
		}
		gp_add_epoch(p, num, path);
	}
	closedir(d);
	if (p->nepochs == 0) {
		log_err("source: %s: no epochs (N.git) in git/", p->path);
		return ERR_INVAL;
	}
	qsort(p->epochs, p->nepochs, sizeof(*p->epochs), gp_cmp_epoch);
	return ERR_OK;
}

/* The epochs of an inbox, or the one epoch path is. */
static enum err
gp_find_epochs(struct git_pubinbox *p)
{
	char gitdir[4096];
	const char *base;
	unsigned long num = 0;
	struct stat st;
	int r;

	r = snprintf(gitdir, sizeof(gitdir), "%s/git", p->path);
	if (r < 0 || (size_t)r >= sizeof(gitdir)) {
		log_err("source: %s: path too long", p->path);
		return ERR_INVAL;
	}
	if (stat(gitdir, &st) == 0 && S_ISDIR(st.st_mode))
		return gp_list_epochs(p, gitdir);
	base = strrchr(p->path, '/');
	base = base != NULL ? base + 1 : p->path;
	if (!gp_epoch_name(base, &num))
		num = 0;
	gp_add_epoch(p, num, p->path);
	return ERR_OK;
}

static void
gp_close_epoch(struct git_pubinbox *p)
{
	free(p->mail);
	p->mail = NULL;
	packbound_free(p->bound);
	p->bound = NULL;
	git_repository_free(p->repo);
	p->repo = NULL;
	p->loaded = false;
	p->noids = p->oi = 0;
}

/* libgit2 is started when first needed. */
static enum err
gp_open_repo(struct git_pubinbox *p, size_t ei, git_repository **repo)
{
	if (!p->initialised) {
		if (git_pubinbox_start() < 0) {
			log_err("source: %s: libgit2 failed to initialise",
			    p->path);
			return ERR_GIT;
		}
		p->initialised = true;
	}
	if (git_repository_open_ext(repo, p->epochs[ei].path,
	        GIT_REPOSITORY_OPEN_NO_SEARCH | GIT_REPOSITORY_OPEN_BARE,
	        NULL) != 0)
		return gp_giterr(p, p->epochs[ei].path);
	return ERR_OK;
}

/* epochs[ei] for one more read: opened when it is not, and again, to
 * drop what libgit2 cached, every GP_REOPEN reads. */
static enum err
gp_repo(struct git_pubinbox *p)
{
	if (p->repo != NULL && ++p->reads <= GP_REOPEN)
		return ERR_OK;
	git_repository_free(p->repo);
	p->repo = NULL;
	p->reads = 1;
	return gp_open_repo(p, p->ei, &p->repo);
}

static enum err
gp_wrong_type(const struct git_pubinbox *p, const git_oid *oid,
    const char *what, git_object_t type)
{
	log_err("source: %s: %s %s is a %s", p->path, what, GP_HEX(oid),
	    git_object_type2string(type));
	return ERR_GIT;
}

/*
 * Whether object oid can be read with nothing larger than max inflated:
 * ERR_OK with its type and size; ERR_LIMIT when it, or what its delta
 * chain holds, is larger, with its own size in *n.  When a pack here
 * holds it and its chain fits, that is all there is to know before
 * reading it: *type is GIT_OBJECT_ANY and *n 0, and the read tells
 * both (libgit2's header read inflates the start of a delta again).
 */
static enum err
gp_fits(struct git_pubinbox *p, const git_oid *oid, size_t max,
    git_object_t *type, size_t *n)
{
	git_odb *odb = NULL;
	uint64_t most = 0;
	enum err e = packbound_most(p->bound, oid->id, &most);

	if (e != ERR_OK && e != ERR_NOTFOUND)
		return e;
	if (e == ERR_OK && most <= max) {
		*type = GIT_OBJECT_ANY;
		*n = 0;
		return ERR_OK;
	}
	if ((e = gp_repo(p)) != ERR_OK)
		return e;
	/* libgit2 reads only the headers of the chain for this. */
	if (git_repository_odb(&odb, p->repo) != 0 ||
	    git_odb_read_header(n, type, odb, oid) != 0) {
		git_odb_free(odb);
		return gp_giterr(p, GP_HEX(oid));
	}
	git_odb_free(odb);
	return *n > max || most > max ? ERR_LIMIT : ERR_OK;
}

/* A commit or tree of type want over GP_META_MAX is an error. */
static enum err
gp_meta_fits(struct git_pubinbox *p, const git_oid *oid, git_object_t want,
    const char *what)
{
	git_object_t type;
	size_t n;
	enum err e = gp_fits(p, oid, GP_META_MAX, &type, &n);

	if (e == ERR_LIMIT) {
		log_err("source: %s: epoch %lu: %s %s is over %u KB: not "
		        "read",
		    p->path, p->epochs[p->ei].num, what, GP_HEX(oid),
		    GP_META_MAX / 1024);
		return ERR_GIT;
	}
	if (e == ERR_OK && type != want && type != GIT_OBJECT_ANY)
		return gp_wrong_type(p, oid, what, type);
	return e;
}

/*
 * Blob oid, a mail, into p->mail (n bytes and a NUL).  ERR_LIMIT when it
 * is over p->limit (or needs a base that is), found from the headers
 * before anything that large is inflated, with its size in *n.
 */
static enum err
gp_mail(struct git_pubinbox *p, const git_oid *oid, size_t *n)
{
	git_odb *odb = NULL;
	git_odb_object *o = NULL;
	git_object_t t;
	enum err e = gp_fits(p, oid, p->limit, &t, n);

	if (e != ERR_OK)
		return e;
	if (t != GIT_OBJECT_BLOB && t != GIT_OBJECT_ANY)
		return gp_wrong_type(p, oid, "blob", t);
	if ((e = gp_repo(p)) != ERR_OK)
		return e;
	if (git_repository_odb(&odb, p->repo) != 0 ||
	    git_odb_read(&o, odb, oid) != 0) {
		git_odb_free(odb);
		return gp_giterr(p, "blob");
	}
	t = git_odb_object_type(o);
	*n = git_odb_object_size(o);
	if (t != GIT_OBJECT_BLOB) {
		git_odb_object_free(o);
		git_odb_free(odb);
		return gp_wrong_type(p, oid, "blob", t);
	}
	p->mail = xmalloc(*n + 1);
	memcpy(p->mail, git_odb_object_data(o), *n);
	p->mail[*n] = '\0';
	git_odb_object_free(o);
	git_odb_free(odb);
	return ERR_OK;
}

/* Commit id at the end of p->oids, its tree beside it. */
static void
gp_append(struct git_pubinbox *p, const git_oid *id, const git_oid *tree)
{
	p->oids = xgrow(p->oids, &p->oalloc, p->noids + 1, sizeof(*p->oids));
	p->trees = xgrow(p->trees, &p->talloc, p->noids + 1, sizeof(*p->trees));
	git_oid_cpy(&p->oids[p->noids], id);
	git_oid_cpy(&p->trees[p->noids], tree);
	p->noids++;
}

/*
 * Walk epochs[ei] from its head down the first parents into p->oids, up
 * to p->hide when set (ERR_INVAL when the walk never meets it).
 */
static enum err
gp_walk(struct git_pubinbox *p)
{
	git_commit *c = NULL;
	git_oid oid;
	enum err e;
	int r;

	if ((e = gp_repo(p)) != ERR_OK)
		return e;
	r = git_reference_name_to_id(&oid, p->repo, "HEAD");
	if (r == GIT_EUNBORNBRANCH || r == GIT_ENOTFOUND)
		return p->has_hide ? ERR_INVAL : ERR_OK; /* no commits yet */
	if (r != 0)
		return gp_giterr(p, "HEAD");
	for (;;) {
		if (p->has_hide && git_oid_equal(&oid, &p->hide))
			return ERR_OK;
		if ((e = gp_meta_fits(p, &oid, GIT_OBJECT_COMMIT, "commit")) !=
		    ERR_OK)
			return e;
		if (git_commit_lookup(&c, p->repo, &oid) != 0)
			return gp_giterr(p, GP_HEX(&oid));
		gp_append(p, &oid, git_commit_tree_id(c));
		if (git_commit_parentcount(c) == 0) {
			git_commit_free(c);
			return p->has_hide ? ERR_INVAL : ERR_OK;
		}
		git_oid_cpy(&oid, git_commit_parent_id(c, 0));
		git_commit_free(c);
	}
}

/* The walk of epochs[ei], oldest first. */
static enum err
gp_load(struct git_pubinbox *p)
{
	git_oid tmp;
	size_t i;
	enum err e;

	p->noids = p->oi = 0;
	e = packbound_open(p->epochs[p->ei].path, &p->bound);
	if (e == ERR_OK)
		e = gp_walk(p);
	p->has_hide = false;
	if (e != ERR_OK)
		return e;
	for (i = 0; i < p->noids / 2; i++) {
		tmp = p->oids[i];
		p->oids[i] = p->oids[p->noids - 1 - i];
		p->oids[p->noids - 1 - i] = tmp;
		tmp = p->trees[i];
		p->trees[i] = p->trees[p->noids - 1 - i];
		p->trees[p->noids - 1 - i] = tmp;
	}
	/* What libgit2 cached for the walk. */
	git_repository_free(p->repo);
	p->repo = NULL;
	p->loaded = true;
	return ERR_OK;
}

/*
 * The mail of one commit (its tree given) into p->mail; ERR_NOTFOUND for
 * a commit that holds none (a deletion, or not a v2 commit at all).
 */
static enum err
gp_read_commit(
    struct git_pubinbox *p, const git_oid *oid, const git_oid *tree, size_t *n)
{
	const git_tree_entry *te;
	git_tree *t = NULL;
	git_oid id;
	enum err e;

	if ((e = gp_meta_fits(p, tree, GIT_OBJECT_TREE, "tree")) != ERR_OK ||
	    (e = gp_repo(p)) != ERR_OK)
		return e;
	if (git_tree_lookup(&t, p->repo, tree) != 0)
		return gp_giterr(p, GP_HEX(tree));
	te = git_tree_entry_byname(t, "m");
	if (te == NULL || git_tree_entry_type(te) != GIT_OBJECT_BLOB) {
		if (git_tree_entry_byname(t, "d") == NULL)
			log_debug("source: %s: commit %s holds no mail",
			    p->path, GP_HEX(oid));
		git_tree_free(t);
		return ERR_NOTFOUND;
	}
	git_oid_cpy(&id, git_tree_entry_id(te));
	git_tree_free(t);
	return gp_mail(p, &id, n);
}

/* The mail of commit oid (size bytes; 0: unknown) is skipped: say
 * so, in the log and for git_pubinbox_skipped(). */
static void
gp_skip(struct git_pubinbox *p, const git_oid *oid, size_t size)
{
	char sz[64] = "";

	if (size > p->limit)
		snprintf(sz, sizeof(sz), " of %zu bytes", size);
	else if (size > 0) /* small, but built on a base that is not */
		snprintf(sz, sizeof(sz), " of %zu bytes on a delta base", size);
	snprintf(p->skipped, sizeof(p->skipped),
	    "epoch %lu: commit %s: a mail%s over the %zu bytes allowed, "
	    "skipped",
	    p->epochs[p->ei].num, GP_HEX(oid), sz, p->limit);
	log_err(
	    "source: %s: %s (not inflated, not imported)", p->path, p->skipped);
}

static enum err
gp_next(struct git_pubinbox *p, struct source_mail *m)
{
	size_t size = 0;
	char hex[GIT_OID_HEXSZ + 1];
	const git_oid *oid;
	enum err e;
	int r;

	free(p->mail);
	p->mail = NULL;
	for (;;) {
		if (p->ei >= p->end)
			return ERR_NOTFOUND;
		if (!p->loaded && (e = gp_load(p)) != ERR_OK)
			return e;
		if (p->oi == p->noids) {
			gp_close_epoch(p);
			p->ei++;
			continue;
		}
		oid = &p->oids[p->oi];
		e = gp_read_commit(p, oid, &p->trees[p->oi], &size);
		p->oi++;
		if (e == ERR_NOTFOUND)
			continue;
		if (e != ERR_OK && e != ERR_LIMIT)
			return e;
		break;
	}
	m->raw = (const char *)p->mail;
	m->n = e == ERR_OK ? size : 0;
	git_oid_tostr(hex, sizeof(hex), oid);
	r = snprintf(
	    m->pos, sizeof(m->pos), "%lu:%s", p->epochs[p->ei].num, hex);
	if (r < 0 || (size_t)r >= sizeof(m->pos))
		return ERR_INTERNAL;
	if (e == ERR_LIMIT)
		gp_skip(p, oid, size);
	return e;
}

enum err
git_pubinbox_next(struct git_pubinbox *p, struct source_mail *m)
{
	enum err e;

	if (p->err != ERR_OK)
		return p->err;
	e = gp_next(p, m);
	if (e != ERR_OK && e != ERR_NOTFOUND && e != ERR_LIMIT)
		p->err = e;
	return e;
}

void *
git_pubinbox_hold(struct git_pubinbox *p)
{
	/* The buffer goes to the caller, which frees it by a release. */
	void *hold = p->mail;

	p->mail = NULL;
	return hold;
}

void
git_pubinbox_release(void *hold)
{
	free(hold);
}

/* "<epoch>:<40 hex>" into the epoch's index and the commit id. */
static bool
gp_parse_pos(
    const struct git_pubinbox *p, const char *pos, size_t *ei, git_oid *oid)
{
	const char *colon = strchr(pos, ':');
	unsigned long num = 0;
	const char *c;
	size_t i;

	if (colon == NULL || colon == pos || colon - pos > 9 ||
	    strlen(colon + 1) != GIT_OID_HEXSZ)
		return false;
	for (c = pos; c < colon; c++) {
		if (!ascii_isdigit(*c))
			return false;
		num = num * 10 + (unsigned long)(*c - '0');
	}
	for (c = colon + 1; *c != '\0'; c++)
		if (ascii_hexval(*c) < 0)
			return false;
	if (git_oid_fromstr(oid, colon + 1) != 0)
		return false;
	for (i = 0; i < p->nepochs; i++) {
		if (p->epochs[i].num == num) {
			*ei = i;
			return true;
		}
	}
	return false;
}

/*
 * Walking the epoch right away both checks the position (its commit must
 * be on the first-parent line of the epoch's head) and prepares next().
 */
enum err
git_pubinbox_seek(struct git_pubinbox *p, const char *pos)
{
	size_t ei;
	git_oid oid;
	enum err e;

	gp_close_epoch(p);
	p->ei = p->end = p->nepochs; /* at the end until the position proves
	                                good */
	p->err = ERR_OK;
	p->skipped[0] = '\0';
	if (!gp_parse_pos(p, pos, &ei, &oid)) {
		log_err("source: %s: position %.80s is not one of this inbox",
		    p->path, pos);
		return ERR_INVAL;
	}
	p->ei = ei;
	git_oid_cpy(&p->hide, &oid);
	p->has_hide = true;
	e = gp_load(p);
	if (e == ERR_INVAL)
		log_err("source: %s: position %.80s is not in epoch %lu's "
		        "history",
		    p->path, pos, p->epochs[ei].num);
	if (e != ERR_OK) {
		gp_close_epoch(p);
		p->ei = p->nepochs;
	}
	return e;
}

const char *
git_pubinbox_skipped(const struct git_pubinbox *p)
{
	return p->skipped[0] != '\0' ? p->skipped : NULL;
}

size_t
git_pubinbox_nepochs(const struct git_pubinbox *p)
{
	return p->nepochs;
}

unsigned long
git_pubinbox_epoch(const struct git_pubinbox *p, size_t i)
{
	return p->epochs[i].num;
}

enum err
git_pubinbox_head(struct git_pubinbox *p, size_t i, char hex[OID_HEX_SIZE])
{
	git_repository *repo = NULL;
	git_oid oid;
	enum err e;
	int r;

	hex[0] = '\0';
	if ((e = gp_open_repo(p, i, &repo)) != ERR_OK)
		return e;
	r = git_reference_name_to_id(&oid, repo, "HEAD");
	if (r == 0)
		git_oid_tostr(hex, OID_HEX_SIZE, &oid);
	else if (r == GIT_EUNBORNBRANCH || r == GIT_ENOTFOUND)
		e = ERR_NOTFOUND;
	else
		e = gp_giterr(p, "HEAD");
	git_repository_free(repo);
	return e;
}

/*
 * Like seek, but the reading ends with epoch i; and a commit that is not
 * on the epoch's first-parent line is ERR_CONFLICT (history rewritten),
 * told apart from the errors of reading it.
 */
enum err
git_pubinbox_select(struct git_pubinbox *p, size_t i, const char *after)
{
	enum err e = ERR_OK;

	gp_close_epoch(p);
	p->err = ERR_OK;
	p->skipped[0] = '\0';
	p->ei = i;
	p->end = i + 1;
	p->has_hide = false;
	if (after != NULL) {
		if (git_oid_fromstr(&p->hide, after) != 0)
			return ERR_INVAL;
		p->has_hide = true;
		e = gp_load(p);
	}
	if (e == ERR_INVAL)
		e = ERR_CONFLICT;
	if (e != ERR_OK) {
		gp_close_epoch(p);
		p->ei = p->end = p->nepochs;
	}
	return e;
}

double
git_pubinbox_progress(const struct git_pubinbox *p)
{
	double in = 0;

	if (p->nepochs == 0 || p->ei >= p->nepochs)
		return 1.0;
	if (p->loaded && p->noids > 0)
		in = (double)p->oi / (double)p->noids;
	return ((double)p->ei + in) / (double)p->nepochs;
}

enum err
git_pubinbox_open(const char *path, size_t limit, struct git_pubinbox **out)
{
	struct git_pubinbox *p = xcalloc(1, sizeof(*p));
	enum err e;

	p->path = xstrdup(path);
	p->limit = limit ? limit : LIMIT_MAIL_STORE;
	e = gp_find_epochs(p);
	if (e != ERR_OK) {
		git_pubinbox_free(p);
		return e;
	}
	p->end = p->nepochs;
	*out = p;
	return ERR_OK;
}

void
git_pubinbox_free(struct git_pubinbox *p)
{
	size_t i;

	if (p == NULL)
		return;
	gp_close_epoch(p);
	for (i = 0; i < p->nepochs; i++)
		free(p->epochs[i].path);
	free(p->epochs);
	free(p->oids);
	free(p->trees);
	free(p->path);
	if (p->initialised)
		git_libgit2_shutdown();
	free(p);
}
