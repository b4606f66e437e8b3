/*
 * The public-inbox v2 reader (bot/source/git_pubinbox.c) on inboxes the
 * input describes.  The input is split at NUL bytes: the first part is a
 * position to seek to; each further part is one commit, its first byte
 * choosing the epoch (bits 0-1), what its tree holds (bits 2-3: the mail
 * "m", a deletion "d", "m" as a folder, nothing) and whether it starts a
 * new root (bit 4); the rest is the mail.  Nothing may crash; every mail
 * handed out is at most the limit; a mail's position, sought, resumes
 * with exactly the mails that followed it.
 *
 * The inboxes are built with libgit2 directly (a test may pass the wall
 * of bot/git/) in a folder of its own under /dev/shm when it exists.
 */
#include <ftw.h>
#include <git2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/source/git_pubinbox.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LIMIT 64
#define MAXMAIL 64

static char dir[256];
static unsigned long runs;

static int rm_one(
    const char *path, const struct stat *st, int flag, struct FTW *f);

/*
 * An epoch the input does not use must not exist for the reader: each
 * is kept, empty, under a hidden name (".N.git") and renamed into place
 * when an input commits to it.
 */
static void
rmdir_epoch(const char *path, git_repository **repo)
{
	char hidden[512];
	const char *slash = strrchr(path, '/');
	git_repository *r = NULL;

	*repo = NULL;
	snprintf(hidden, sizeof(hidden), "%.*s/.%s", (int)(slash - path), path,
	    slash + 1);
	if (access(path, F_OK) == 0)
		rename(path, hidden);
	if (git_repository_open_bare(&r, hidden) != 0 &&
	    git_repository_init(&r, hidden, 1) != 0)
		return;
	git_reference_remove(r, "refs/heads/master");
	git_repository_free(r);
}

static void
cleanup(void)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int
rename_back(const char *path)
{
	char hidden[512];
	const char *slash = strrchr(path, '/');

	snprintf(hidden, sizeof(hidden), "%.*s/.%s", (int)(slash - path), path,
	    slash + 1);
	return rename(hidden, path);
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

static void
add_commit(git_repository *r, int kind, bool root, const char *p, size_t n)
{
	git_treebuilder *tb = NULL, *sub = NULL;
	git_oid blob, tree, commit, parent;
	git_signature *sig = NULL;
	git_tree *t = NULL;
	git_commit *pc = NULL;
	const git_commit *parents[1];
	int np = 0;

	if (git_blob_create_from_buffer(&blob, r, p, n) != 0 ||
	    git_treebuilder_new(&tb, r, NULL) != 0)
		goto out;
	if (kind == 0 || kind == 1) {
		git_treebuilder_insert(
		    NULL, tb, kind ? "d" : "m", &blob, GIT_FILEMODE_BLOB);
	} else if (kind == 2 && git_treebuilder_new(&sub, r, NULL) == 0) {
		git_oid st;

		git_treebuilder_insert(
		    NULL, sub, "x", &blob, GIT_FILEMODE_BLOB);
		if (git_treebuilder_write(&st, sub) == 0)
			git_treebuilder_insert(
			    NULL, tb, "m", &st, GIT_FILEMODE_TREE);
	}
	if (git_treebuilder_write(&tree, tb) != 0 ||
	    git_tree_lookup(&t, r, &tree) != 0 ||
	    git_signature_new(&sig, "a", "a@b", 1, 0) != 0)
		goto out;
	if (!root && git_reference_name_to_id(&parent, r, "HEAD") == 0 &&
	    git_commit_lookup(&pc, r, &parent) == 0)
		parents[np++] = pc;
	git_commit_create(
	    &commit, r, NULL, sig, sig, NULL, "m", t, (size_t)np, parents);
	git_reference_create(NULL, r, "refs/heads/master", &commit, 1, NULL);
out:
	git_commit_free(pc);
	git_signature_free(sig);
	git_tree_free(t);
	git_treebuilder_free(sub);
	git_treebuilder_free(tb);
}

struct seen {
	char pos[256];
	size_t n;
	uint32_t sum;
};

static uint32_t
sum(const char *p, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ (unsigned char)*p++) * 16777619u;
	return h;
}

/* Read to the end into out[]; the count read. */
static size_t
read_all(struct git_pubinbox *p, struct seen *out, size_t max)
{
	struct source_mail m;
	size_t k = 0;
	enum err e;

	while (k < max &&
	    ((e = git_pubinbox_next(p, &m)) == ERR_OK || e == ERR_LIMIT)) {
		/* One over the limit is skipped, never cut. */
		if (e == ERR_LIMIT)
			m.n = 0;
		if (m.n > LIMIT || (e == ERR_LIMIT && m.raw != NULL))
			abort();
		snprintf(out[k].pos, sizeof(out[k].pos), "%s", m.pos);
		out[k].n = m.n;
		out[k].sum = sum(m.raw, m.n);
		k++;
	}
	return k;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct seen first[MAXMAIL], again[MAXMAIL];
	git_repository *repos[4] = { 0 };
	struct git_pubinbox *p = NULL;
	const char *s = (const char *)data, *end = s + size, *z;
	char pos[256], path[512];
	size_t n, k, i, ncommits = 0;

	if (dir[0] == '\0') {
		snprintf(dir, sizeof(dir), "%s/fuzz-pubinbox.%ld",
		    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
		    (long)getpid());
		git_libgit2_init();
		/* No user or system git config to look for on every open. */
		for (i = GIT_CONFIG_LEVEL_SYSTEM; i <= GIT_CONFIG_LEVEL_GLOBAL;
		     i++)
			git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, (int)i, "");
		log_set_level(LOG_ERR);
		atexit(cleanup);
	}
	/* The epochs are made once and emptied for each input (their refs
	 * deleted); their objects are thrown away now and then. */
	if (++runs % 4096 == 0)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/git/%zu.git", dir, i);
		rmdir_epoch(path, &repos[i]);
	}
	z = memchr(s, '\0', size);
	n = z ? (size_t)(z - s) : size;
	snprintf(pos, sizeof(pos), "%.*s", (int)(n < 200 ? n : 200), s);
	s = z ? z + 1 : end;
	while (s < end && ncommits < MAXMAIL) {
		unsigned b = (unsigned char)*s++;
		unsigned e = b & 3;

		z = memchr(s, '\0', (size_t)(end - s));
		n = z ? (size_t)(z - s) : (size_t)(end - s);
		if (repos[e] == NULL) {
			snprintf(path, sizeof(path), "%s/git/%u.git", dir, e);
			if (rename_back(path) != 0 ||
			    git_repository_open_bare(&repos[e], path) != 0)
				goto out;
		}
		add_commit(repos[e], (int)(b >> 2 & 3), b & 16, s, n);
		ncommits++;
		s = z ? z + 1 : end;
	}
	for (i = 0; i < 4; i++)
		git_repository_free(repos[i]);
	if (git_pubinbox_open(dir, LIMIT, &p) != ERR_OK)
		goto out;
	k = read_all(p, first, MAXMAIL);
	if (git_pubinbox_progress(p) < 0 || git_pubinbox_progress(p) > 1)
		abort();
	(void)git_pubinbox_seek(p, pos);
	(void)read_all(p, again, MAXMAIL);
	/* Resuming after mail i gives mails i+1.. exactly. */
	for (i = 0; i < k; i += 1 + k / 3) {
		size_t j, m;

		if (git_pubinbox_seek(p, first[i].pos) != ERR_OK)
			abort();
		m = read_all(p, again, MAXMAIL);
		if (m != k - i - 1)
			abort();
		for (j = 0; j < m; j++)
			if (strcmp(again[j].pos, first[i + 1 + j].pos) != 0 ||
			    again[j].sum != first[i + 1 + j].sum)
				abort();
	}
out:
	git_pubinbox_free(p);
	return 0;
}
