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
 * the head down the first parents into an array of commit ids that is
 * then turned round, because a revwalk keeps about 750 bytes a commit
 * (its nodes and the commits it parsed, measured on a 100,000-mail epoch)
 * where the array needs 20, and lore's epochs hold up to a million mails.
 *
 * The objects are read by bot/source/packread.c straight from the
 * epoch's packs (three times as fast as libgit2 on a gc'd epoch, whose
 * mails lie in delta chains), with libgit2 behind it for what no pack
 * holds (loose objects of a live inbox) or what it leaves alone.  Both
 * hash every object again.  libgit2 keeps every commit and tree it reads
 * in a cache of the repository, up to 256 MB by default and with no call
 * to empty it: the epoch is opened again every GP_REOPEN reads through
 * it, which keeps the memory of an import small without touching the
 * process-wide cache settings that the stager shares.
 *
 * The position is "<epoch>:<commit hex>" of the mail handed out last;
 * resuming walks down only to that commit.  A position whose commit is
 * not on the epoch's first-parent line (an inbox rewritten by
 * public-inbox-purge, say) is refused.
 *
 * An archive fetched from a server is not trusted to be small: every
 * object's size is read from its header (the pack's, or libgit2's
 * git_odb_read_header()) before it is inflated.  A mail up to the limit
 * (LIMIT_MAIL_STORE) is handed out whole, for the parser to mark when it
 * is over LIMIT_MAIL_SIZE.  One over it (or built on a delta base that
 * is) is never inflated: it is skipped with ERR_LIMIT and logged with
 * its epoch and commit, and git_pubinbox_skipped() tells the follower,
 * which shows it as the source's last error.  A commit or tree over
 * GP_META_MAX is an error.
 */
#include "bot/source/git_pubinbox.h"
#include "bot/source/packread.h"

#include <dirent.h>
#include <errno.h>
#include <git2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parsers/limits.h"
#include "parsers/pack.h"
#include "parsers/patchid.h"
#include "util/ascii.h"
#include "util/fmap.h"
#include "util/gitmsg.h"
#include "util/log.h"
#include "util/oid.h"
#include "util/xalloc.h"

/* Mails read between two openings of an epoch.  What libgit2 keeps per
 * mail read (its caches of objects and of delta bases) came to about
 * 5 KB: at 4,096 reads an import of util-linux's archive peaked at 66 MB
 * of RSS, at 256 at 44 MB, and ran faster (fresh memory costs a page
 * fault per page; reused memory does not). */
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
	git_repository *repo; /* epochs[ei], once its walk is loaded */
	struct packread *packs; /* its packs, read without libgit2 */
	size_t reads; /* objects libgit2 read since repo was opened */
	git_oid *oids; /* its commits, oldest first */
	git_oid *trees; /* their trees: the walk read them, the reads need
	                   only these */
	size_t noids, oalloc, talloc, oi;
	git_oid hide; /* resume after this commit of epochs[ei] */
	bool has_hide;
	const unsigned char *raw; /* the mail handed out last */
	unsigned char *mail; /* raw when libgit2 read it */
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
	p->raw = NULL;
	packread_free(p->packs);
	p->packs = NULL;
	git_repository_free(p->repo);
	p->repo = NULL;
	p->noids = p->oi = 0;
}

/* libgit2 is started when first needed: an epoch read from its packs
 * alone never needs it. */
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

/* Open epochs[ei] again, dropping what libgit2 cached. */
static enum err
gp_reopen(struct git_pubinbox *p)
{
	git_repository_free(p->repo);
	p->repo = NULL;
	p->reads = 0;
	return gp_open_repo(p, p->ei, &p->repo);
}

/*
 * Object oid from libgit2 into *data (n bytes and a NUL; the caller
 * frees it).  Its size is read from its header first: ERR_LIMIT, with
 * that size in *n, when it is over max (with max 0, that is how to ask
 * an object's size alone).
 */
static enum err
gp_libgit2(struct git_pubinbox *p, const git_oid *oid, const char *what,
    size_t max, enum pack_type *type, unsigned char **data, size_t *n)
{
	git_odb *odb = NULL;
	git_odb_object *o = NULL;
	git_object_t t;
	size_t len;
	enum err e;

	if (p->repo == NULL)
		e = gp_open_repo(p, p->ei, &p->repo);
	else
		e = ++p->reads > GP_REOPEN ? gp_reopen(p) : ERR_OK;
	if (e != ERR_OK)
		return e;
	if (git_repository_odb(&odb, p->repo) != 0 ||
	    git_odb_read_header(&len, &t, odb, oid) != 0) {
		git_odb_free(odb);
		return gp_giterr(p, what);
	}
	if (len > max) {
		git_odb_free(odb);
		*type = (enum pack_type)t;
		*n = len;
		return ERR_LIMIT;
	}
	if (git_odb_read(&o, odb, oid) != 0) {
		git_odb_free(odb);
		return gp_giterr(p, what);
	}
	*type = (enum pack_type)git_odb_object_type(o);
	*n = git_odb_object_size(o);
	*data = xmalloc(*n + 1);
	memcpy(*data, git_odb_object_data(o), *n);
	(*data)[*n] = '\0';
	git_odb_object_free(o);
	git_odb_free(odb);
	return ERR_OK;
}

static enum err
gp_wrong_type(const struct git_pubinbox *p, const git_oid *oid,
    const char *what, enum pack_type type)
{
	log_err("source: %s: %s %s is a %s", p->path, what, GP_HEX(oid),
	    pack_type_name(type) ? pack_type_name(type) : "?");
	return ERR_GIT;
}

/*
 * Object oid of type want into *data (n bytes and a NUL; the caller
 * frees it): from the packs, else from libgit2; one over GP_META_MAX
 * is not read.
 */
static enum err
gp_object(struct git_pubinbox *p, const git_oid *oid, enum pack_type want,
    const char *what, unsigned char **data, size_t *n)
{
	enum pack_type type;
	enum err e =
	    packread_read(p->packs, oid->id, GP_META_MAX, &type, data, n);

	if (e == ERR_NOTFOUND) /* not in a pack: libgit2's */
		e = gp_libgit2(p, oid, what, GP_META_MAX, &type, data, n);
	if (e == ERR_LIMIT) {
		log_err("source: %s: epoch %lu: %s %s is over %u KB: not "
		        "read",
		    p->path, p->epochs[p->ei].num, what, GP_HEX(oid),
		    GP_META_MAX / 1024);
		return ERR_GIT;
	}
	if (e != ERR_OK)
		return e;
	if (type != want) {
		free(*data);
		*data = NULL;
		return gp_wrong_type(p, oid, what, type);
	}
	return ERR_OK;
}

/*
 * Blob oid, a mail, into p->raw (n bytes and a NUL): the reader's cache
 * keeps it (the next mail may be a delta of it) and lends it until the
 * next read; what libgit2 reads is p->mail's.  ERR_LIMIT when it is over
 * p->limit (or needs a base that is), found from the headers before
 * anything that large is inflated, with its size in *n when its header
 * tells (0 when not), and p->raw NULL.
 */
static enum err
gp_mail(struct git_pubinbox *p, const git_oid *oid, size_t *n)
{
	enum pack_type type;
	enum err e =
	    packread_keep(p->packs, oid->id, p->limit, &type, &p->raw, n);

	if (e == ERR_LIMIT) {
		/* The pack reader knows it is too large, not how large:
		 * libgit2 reads its size from the headers of its chain. */
		unsigned char *none = NULL;

		*n = 0;
		if (gp_libgit2(p, oid, "blob", 0, &type, &none, n) != ERR_LIMIT)
			*n = 0;
		free(none);
		p->raw = NULL;
		return ERR_LIMIT;
	}
	if (e == ERR_NOTFOUND) {
		e = gp_libgit2(p, oid, "blob", p->limit, &type, &p->mail, n);
		p->raw = e == ERR_OK ? p->mail : NULL;
	}
	if (e == ERR_OK && type != PACK_BLOB)
		e = gp_wrong_type(p, oid, "blob", type);
	return e;
}

/* "KEY <40 hex>\n" at *at (of the object's end), into oid. */
static bool
gp_line_oid(const char **at, const char *end, const char *key, git_oid *oid)
{
	size_t k = strlen(key);

	if ((size_t)(end - *at) < k + 1 + GIT_OID_HEXSZ + 1 ||
	    memcmp(*at, key, k) != 0 || (*at)[k] != ' ' ||
	    (*at)[k + 1 + GIT_OID_HEXSZ] != '\n' ||
	    git_oid_fromstrn(oid, *at + k + 1, GIT_OID_HEXSZ) != 0)
		return false;
	*at += k + 1 + GIT_OID_HEXSZ + 1;
	return true;
}

/* The first parent of commit oid into *parent (*root when it has none),
 * its tree into *tree. */
static enum err
gp_parent(struct git_pubinbox *p, const git_oid *oid, git_oid *parent,
    git_oid *tree, bool *root)
{
	unsigned char *c;
	const char *at, *end;
	size_t n;
	enum err e = gp_object(p, oid, PACK_COMMIT, "commit", &c, &n);

	if (e != ERR_OK)
		return e;
	at = (const char *)c;
	end = at + n;
	if (!gp_line_oid(&at, end, "tree", tree)) {
		free(c);
		log_err("source: %s: commit %s: no tree", p->path, GP_HEX(oid));
		return ERR_GIT;
	}
	*root = !gp_line_oid(&at, end, "parent", parent);
	free(c);
	return ERR_OK;
}

/* The 40 hex digits at p (then a newline) into oid. */
static bool
gp_hex_line(const char *p, size_t n, git_oid *oid)
{
	return n >= GIT_OID_HEXSZ + 1 && p[GIT_OID_HEXSZ] == '\n' &&
	    git_oid_fromstrn(oid, p, GIT_OID_HEXSZ) == 0;
}

/* gitdir/name, whole, NUL-terminated, if it is a small file. */
static bool
gp_small_file(
    const char *gitdir, const char *name, char *buf, size_t size, size_t *n)
{
	char path[4096];
	FILE *f;
	int k = snprintf(path, sizeof(path), "%s/%s", gitdir, name);

	if (k < 0 || (size_t)k >= sizeof(path) ||
	    (f = fopen(path, "re")) == NULL)
		return false;
	*n = fread(buf, 1, size - 1, f);
	buf[*n] = '\0';
	fclose(f);
	return *n < size - 1;
}

/*
 * The commit HEAD names, read from the files as git writes them: HEAD a
 * "ref: refs/..." line, the ref a loose file or a line of packed-refs.
 * false for anything else (unborn, a symbolic ref of a ref, another ref
 * store), which libgit2 then answers.
 */
static bool
gp_head_files(const char *gitdir, git_oid *oid)
{
	char head[512], ref[256], line[512], *nl;
	size_t n, k;
	FILE *f;

	if (!gp_small_file(gitdir, "HEAD", head, sizeof(head), &n))
		return false;
	if (strncmp(head, "ref: refs/", 10) != 0)
		return gp_hex_line(head, n, oid);
	if ((nl = memchr(head, '\n', n)) == NULL || nl - head - 5 >= 200)
		return false;
	*nl = '\0';
	k = (size_t)(nl - head - 5);
	memcpy(ref, head + 5, k + 1);
	if (strstr(ref, "..") != NULL || strchr(ref, '\\') != NULL)
		return false;
	if (gp_small_file(gitdir, ref, line, sizeof(line), &n))
		return gp_hex_line(line, n, oid);
	snprintf(line, sizeof(line), "%s/packed-refs", gitdir);
	if ((f = fopen(line, "re")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		n = strlen(line);
		if (n == GIT_OID_HEXSZ + 1 + k + 1 &&
		    line[GIT_OID_HEXSZ] == ' ' &&
		    memcmp(line + GIT_OID_HEXSZ + 1, ref, k) == 0 &&
		    line[n - 1] == '\n' &&
		    git_oid_fromstrn(oid, line, GIT_OID_HEXSZ) == 0) {
			fclose(f);
			return true;
		}
	}
	fclose(f);
	return false;
}

/* Commit id (and its tree) at the end of p->oids. */
static void
gp_append(
    struct git_pubinbox *p, const unsigned char *id, const unsigned char *tree)
{
	p->oids = xgrow(p->oids, &p->oalloc, p->noids + 1, sizeof(*p->oids));
	p->trees = xgrow(p->trees, &p->talloc, p->noids + 1, sizeof(*p->trees));
	git_oid_fromraw(&p->oids[p->noids], id);
	if (tree != NULL)
		git_oid_fromraw(&p->trees[p->noids], tree);
	p->noids++;
}

/*
 * The epoch's commit-graph (objects/info/commit-graph, as git gc writes
 * it), mapped into *map when it is one file that is whole: its trailing
 * hash is checked, its entries then trusted as git trusts them.
 */
static bool
gp_graph_open(const struct git_pubinbox *p, struct commitgraph *g,
    unsigned char **map, size_t *len)
{
	char path[4096];
	unsigned char sum[PACK_ID_LEN];
	int k = snprintf(path, sizeof(path), "%s/objects/info/commit-graph",
	    p->epochs[p->ei].path);

	*map = NULL;
	if (k < 0 || (size_t)k >= sizeof(path) ||
	    (*map = fmap_open(path, len)) == NULL)
		return false;
	if (commitgraph_init(g, *map, *len)) {
		patchid_sha1(*map, *len - PACK_ID_LEN, sum);
		if (memcmp(sum, *map + *len - PACK_ID_LEN, PACK_ID_LEN) == 0)
			return true;
	}
	log_debug("source: %s: its commit-graph is not used", path);
	fmap_close(*map, *len);
	*map = NULL;
	return false;
}

/*
 * The walk on in the graph from its commit at pos: *done when it met the
 * root or p->hide (*e then what gp_walk returns).  false when the graph
 * names a parent it does not hold, or goes round: p->oids is then as it
 * was, for the walk to read the commits instead.
 */
static bool
gp_walk_graph(struct git_pubinbox *p, const struct commitgraph *g, uint32_t pos,
    enum err *e)
{
	size_t start = p->noids, steps = 0;

	for (;;) {
		const unsigned char *id = commitgraph_id(g, pos), *tree;
		uint32_t parent;

		if (p->has_hide && memcmp(id, p->hide.id, GIT_OID_RAWSZ) == 0) {
			*e = ERR_OK;
			return true;
		}
		if (!commitgraph_commit(g, pos, &tree, &parent) ||
		    ++steps > g->n) {
			log_err("source: %s: epoch %lu: its commit-graph is "
			        "inconsistent; reading the commits instead",
			    p->path, p->epochs[p->ei].num);
			p->noids = start;
			return false;
		}
		gp_append(p, id, tree);
		if (parent == COMMITGRAPH_NONE) {
			*e = p->has_hide ? ERR_INVAL : ERR_OK;
			return true;
		}
		pos = parent;
	}
}

/*
 * Walk epochs[ei] from its head down the first parents into p->oids, up
 * to p->hide when set (ERR_INVAL when the walk never meets it), then turn
 * the array round: oldest first.  A commit the commit-graph holds is not
 * read: from there the graph gives each commit's tree and first parent
 * (inflating the commits costs 2 us each, the graph nothing).
 */
static enum err
gp_walk(struct git_pubinbox *p)
{
	struct commitgraph g = { 0 };
	unsigned char *map = NULL;
	size_t len = 0;
	git_oid oid;
	uint32_t pos;
	bool root;
	enum err e;
	int r;

	if (!gp_head_files(p->epochs[p->ei].path, &oid)) {
		if (p->repo == NULL &&
		    (e = gp_open_repo(p, p->ei, &p->repo)) != ERR_OK)
			return e;
		r = git_reference_name_to_id(&oid, p->repo, "HEAD");
		if (r == GIT_EUNBORNBRANCH || r == GIT_ENOTFOUND)
			return p->has_hide ? ERR_INVAL
			                   : ERR_OK; /* no commits yet */
		if (r != 0)
			return gp_giterr(p, "HEAD");
	}
	if (!gp_graph_open(p, &g, &map, &len))
		g.n = 0;
	for (;;) {
		if (p->has_hide && git_oid_equal(&oid, &p->hide)) {
			e = ERR_OK;
			break;
		}
		if (commitgraph_find(&g, oid.id, &pos)) {
			if (gp_walk_graph(p, &g, pos, &e))
				break;
			g.n = 0;
		}
		gp_append(p, oid.id, NULL);
		e = gp_parent(p, &oid, &oid, &p->trees[p->noids - 1], &root);
		if (e != ERR_OK)
			break;
		if (root) {
			e = p->has_hide ? ERR_INVAL : ERR_OK;
			break;
		}
	}
	fmap_close(map, len);
	return e;
}

static enum err
gp_load(struct git_pubinbox *p)
{
	git_oid tmp;
	size_t i;
	enum err e;

	e = packread_open(p->epochs[p->ei].path, &p->packs);
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
	/* What libgit2 cached for the walk (when it read any of it). */
	git_repository_free(p->repo);
	p->repo = NULL;
	p->reads = 0;
	return ERR_OK;
}

/*
 * In tree t[0..n), the entry called name: its id, and whether it is a
 * folder (or submodule).  false when absent; *bad when t is malformed.
 */
static bool
gp_tree_entry(const unsigned char *t, size_t n, const char *name, git_oid *id,
    bool *folder, bool *bad)
{
	size_t i = 0, k = strlen(name);

	*bad = false;
	while (i < n) {
		const unsigned char *sp = memchr(t + i, ' ', n - i);
		const unsigned char *nul;

		if (sp == NULL || sp == t + i ||
		    (nul = memchr(sp + 1, '\0', n - (size_t)(sp + 1 - t))) ==
		        NULL ||
		    (size_t)(t + n - (nul + 1)) < GIT_OID_RAWSZ) {
			*bad = true;
			return false;
		}
		if ((size_t)(nul - (sp + 1)) == k &&
		    memcmp(sp + 1, name, k) == 0) {
			/* 40000 a folder, 160000 a submodule; the rest
			 * (100644, 100755, 120000) blobs. */
			*folder = t[i] == '4' ||
			    (t[i] == '1' && sp - (t + i) == 6 &&
			        t[i + 1] == '6');
			git_oid_fromraw(id, nul + 1);
			return true;
		}
		i = (size_t)(nul + 1 - t) + GIT_OID_RAWSZ;
	}
	return false;
}

/*
 * The mail of one commit into p->mail; ERR_NOTFOUND for a commit that
 * holds none (a deletion, or not a v2 commit at all).
 */
static enum err
gp_read_commit(
    struct git_pubinbox *p, const git_oid *oid, const git_oid *tree, size_t *n)
{
	unsigned char *t;
	size_t tn;
	git_oid id;
	bool folder, bad, d;
	enum err e;

	/* The walk read the commit already: its tree is all we need. */
	if ((e = gp_object(p, tree, PACK_TREE, "tree", &t, &tn)) != ERR_OK)
		return e;
	if (!gp_tree_entry(t, tn, "m", &id, &folder, &bad) || folder) {
		d = !bad && gp_tree_entry(t, tn, "d", &id, &folder, &bad);
		free(t);
		if (bad) {
			log_err("source: %s: tree %s is malformed", p->path,
			    GP_HEX(tree));
			return ERR_GIT;
		}
		if (!d)
			log_debug("source: %s: commit %s holds no mail",
			    p->path, GP_HEX(oid));
		return ERR_NOTFOUND;
	}
	free(t);
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
	p->raw = NULL;
	for (;;) {
		if (p->ei >= p->end)
			return ERR_NOTFOUND;
		if (p->packs == NULL) {
			e = gp_load(p);
			if (e != ERR_OK)
				return e;
		}
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
	m->raw = (const char *)p->raw;
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
	/* What libgit2 read is p->mail's, freed at the next read. */
	if (p->raw == NULL || p->mail != NULL)
		return NULL;
	packread_hold(p->raw);
	return (void *)p->raw;
}

void
git_pubinbox_release(void *hold)
{
	packread_release(hold);
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
	if (p->packs != NULL && p->noids > 0)
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
