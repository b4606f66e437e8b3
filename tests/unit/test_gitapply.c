/*
 * Applying patches in memory (bot/git/gitapply.c), with git as the oracle:
 * every tree we make must be the tree `git am -3` makes from the same
 * patch on the same base.  Repositories and patches are made with the
 * git command line in a scratch folder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bot/git/gitapply.h"
#include "bot/git/gitremote.h"
#include "bot/git/gitrepo.h"
#include "tests/unit/gittest.h"
#include "tests/unit/testutil.h"
#include "util/buf.h"
#include "util/log.h"

static const char *tmp;
static struct gitrepo *stage;

/* The work repository: a few files, and one branch per scenario. */
static const char setup_sh[] =
    "set -e; cd %s; git init -q -b master work; cd work; "
    "seq 1 100 | sed 's/^/line /' > f; "
    "seq 1 40 | sed 's/^/other /' > g; "
    "mkdir -p dir/sub; echo deep > dir/sub/x; echo keep > dir/y; "
    "printf 'no newline' > nonl; : > empty; "
    "printf '\\001\\002\\003binary\\000data' > bin; "
    "ln -s g link; "
    "git add -A; git commit -qm base; git tag base";

static int
setup(void **state)
{
	char path[256];

	(void)state;
	tmp = gt_setup();
	log_set_level(LOG_ERR);
	if (gt_sh(setup_sh, tmp) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/stage.git", tmp);
	return gitrepo_open(path, &stage) == ERR_OK ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	gitrepo_free(stage);
	gt_teardown(tmp);
	return 0;
}

/* Fetch a branch of the work repository into the staging one. */
static void
sync_branch(const char *branch)
{
	char url[300], tip[41];

	snprintf(url, sizeof(url), "%s/work", tmp);
	assert_int_equal(gitremote_fetch(stage, url, branch, tip), ERR_OK);
}

static char *
tree_of(const char *rev)
{
	char *t = gt_out("git -C %s/work rev-parse '%s^{tree}'", tmp, rev);

	assert_non_null(t);
	return t;
}

/* The patch of one commit as git format-patch writes it. */
static char *
patch_of(const char *rev, size_t *n)
{
	char path[300];
	char *p;

	snprintf(path, sizeof(path), "%s/p.patch", tmp);
	assert_int_equal(gt_sh("git -C %s/work format-patch -q -1 --stdout "
	                       "'%s' > %s",
	                     tmp, rev, path),
	    0);
	p = tu_read_file(path, n);
	assert_non_null(p);
	return p;
}

/* The tree `git am -3` makes from text on base, or NULL when it fails. */
static char *
am_tree(const char *base, const char *text)
{
	char path[300];
	char *t;

	snprintf(path, sizeof(path), "%s/am.patch", tmp);
	gt_write(path, text);
	gt_sh("rm -rf %s/am && git clone -q %s/work %s/am 2>/dev/null", tmp,
	    tmp, tmp);
	if (gt_sh("cd %s/am && git checkout -q '%s' && "
	          "git am -q -3 %s >/dev/null 2>&1",
	        tmp, base, path) != 0)
		return NULL;
	t = gt_out("git -C %s/am rev-parse 'HEAD^{tree}'", tmp);
	return t;
}

/* Apply text to base's tree; the result tree, or NULL. */
static char *
apply(const char *base, const char *text, struct gitapply_result *res,
    enum err want)
{
	char *bt = tree_of(base);
	char out[41];
	enum err e;

	e = gitapply_tree(stage, bt, text, strlen(text), out, res);
	free(bt);
	if (e != want)
		fprintf(stderr, "apply: got %s (%s), wanted %s\n", err_str(e),
		    res->reason, err_str(want));
	assert_int_equal(e, want);
	return e == ERR_OK ? strdup(out) : NULL;
}

/* Every commit of a linear branch applied to its parent's tree gives
 * the commit's own tree (git am agrees by construction). */
static void
check_chain(const char *branch, int n)
{
	struct gitapply_result res;
	char rev[64], parent[64];
	char *text, *got, *want;
	size_t len;
	int i;

	sync_branch(branch);
	for (i = n - 1; i >= 0; i--) {
		snprintf(rev, sizeof(rev), "%s~%d", branch, i);
		snprintf(parent, sizeof(parent), "%s~%d", branch, i + 1);
		text = patch_of(rev, &len);
		got = apply(parent, text, &res, ERR_OK);
		want = tree_of(rev);
		if (strcmp(got, want) != 0)
			fprintf(stderr, "chain %s: %s\n", rev, text);
		assert_string_equal(got, want);
		assert_int_equal(res.how, GITAPPLY_EXACT);
		free(text);
		free(got);
		free(want);
	}
}

static void
test_exact_kinds(void **state)
{
	(void)state;
	assert_int_equal(
	    gt_sh("set -e; cd %s/work; git checkout -qb kinds base; "
	          "sed -i 's/^line 50$/line fifty/' f; "
	          "echo more >> g; git commit -qam modify; "
	          "echo new > dir/sub/new; git add -A; git commit -qm add; "
	          "git rm -q dir/y; git commit -qm delete; "
	          "git mv g g2; echo tail >> g2; git commit -qam rename; "
	          "chmod +x f; git commit -qam mode; "
	          "printf 'still none' > nonl; git commit -qam nonl; "
	          "echo now >> nonl; git commit -qam nonl-fixed; "
	          "echo x > empty; git commit -qam empty-filled; "
	          ": > new-empty; git add -A; git commit -qm new-empty; "
	          "git rm -q new-empty; git commit -qm del-empty; "
	          "git rm -q -r dir/sub; git commit -qm del-folder; "
	          "ln -s f flink; git add -A; git commit -qm symlink; "
	          "rm link; echo file > link; git add -A; "
	          "git commit -qm typechange; "
	          "printf '\\001\\002\\003binary\\000more' > bin; "
	          "git commit -qam binary-delta; "
	          "head -c 3000 /dev/zero | tr '\\0' '\\001' > bin2; "
	          "git add -A; git commit -qm binary-literal; "
	          "cp f fcopy; echo copied >> fcopy; git add -A; "
	          "git commit -qm copy; git checkout -q master",
	        tmp),
	    0);
	check_chain("kinds", 16);
}

static void
test_relocation(void **state)
{
	struct gitapply_result res;
	char *text, *got, *want;
	size_t len;

	(void)state;
	/* The patch changes lines 50 and 90; upstream added ten lines at
	 * the top and removed three near the end, so the hunks moved. */
	assert_int_equal(
	    gt_sh("set -e; cd %s/work; git checkout -qb reloc-patch base; "
	          "sed -i -e 's/^line 50$/line FIFTY/' "
	          "-e 's/^line 90$/line NINETY/' f; git commit -qam change; "
	          "git checkout -qb reloc-up base; "
	          "(seq 1 10 | sed 's/^/top /'; cat f) > f.new; mv f.new f; "
	          "sed -i -e '/^line 60$/d' -e '/^line 61$/d' "
	          "-e '/^line 62$/d' f; "
	          "git commit -qam upstream; git checkout -q master",
	        tmp),
	    0);
	sync_branch("reloc-patch");
	sync_branch("reloc-up");
	text = patch_of("reloc-patch", &len);
	got = apply("reloc-up", text, &res, ERR_OK);
	want = am_tree("reloc-up", text);
	assert_non_null(want);
	assert_string_equal(got, want);
	assert_int_equal(res.how, GITAPPLY_OFFSET);
	assert_int_equal(res.offset, 10);
	free(text);
	free(got);
	free(want);
}

/*
 * The same context twice, as far above the stated line as below: git
 * tries forward first, and so must we; and a hunk may not land on lines
 * an earlier hunk made.
 */
static void
test_relocation_ties(void **state)
{
	struct gitapply_result res;
	char *got, *want;
	const char *patch = "--- a/tie\n+++ b/tie\n"
	                    "@@ -50,3 +50,3 @@\n same a\n-same b\n+changed b\n"
	                    " same c\n";

	(void)state;
	assert_int_equal(
	    gt_sh("set -e; cd %s/work; git checkout -qb ties base; "
	          "(seq 1 39; printf 'same a\\nsame b\\nsame c\\n'; "
	          "seq 43 59; printf 'same a\\nsame b\\nsame c\\n'; "
	          "seq 63 100) > tie; git add tie; git commit -qm tie; "
	          "git checkout -q master",
	        tmp),
	    0);
	sync_branch("ties");
	got = apply("ties", patch, &res, ERR_OK);
	want = am_tree("ties",
	    "From: A <a@example.org>\nSubject: tie\n\n"
	    "---\n"
	    "--- a/tie\n+++ b/tie\n"
	    "@@ -50,3 +50,3 @@\n same a\n-same b\n"
	    "+changed b\n same c\n");
	assert_non_null(want);
	assert_string_equal(got, want);
	assert_int_equal(res.how, GITAPPLY_OFFSET);
	assert_int_equal(res.offset, 10);
	free(got);
	free(want);
}

static void
test_threeway(void **state)
{
	struct gitapply_result res;
	char *text, *got, *want;
	size_t len;

	(void)state;
	/* Upstream changed a context line of the hunk: no place matches,
	 * but the preimage blob is known, so the merge goes through. */
	assert_int_equal(
	    gt_sh("set -e; cd %s/work; git checkout -qb three-patch base; "
	          "sed -i 's/^line 50$/line FIFTY/' f; echo add >> g; "
	          "git commit -qam change; "
	          "git checkout -qb three-up base; "
	          "sed -i 's/^line 48$/line forty-eight/' f; "
	          "git commit -qam upstream; git checkout -q master",
	        tmp),
	    0);
	sync_branch("three-patch");
	sync_branch("three-up");
	text = patch_of("three-patch", &len);
	got = apply("three-up", text, &res, ERR_OK);
	want = am_tree("three-up", text);
	assert_non_null(want);
	assert_string_equal(got, want);
	assert_int_equal(res.how, GITAPPLY_THREEWAY);
	free(got);
	free(want);

	/* Already applied upstream: the merge changes nothing. */
	got = apply("three-patch", text, &res, ERR_OK);
	assert_int_equal(res.how, GITAPPLY_EMPTY);
	want = tree_of("three-patch");
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(text);
}

/*
 * Upstream renamed the file the patch changes (f to renamed/f.txt, and g
 * to h with an edit of its own): the three-way pass follows the renames,
 * as git's merge-ort does, and the tree is the one `git am -3` makes.
 */
static void
test_threeway_rename(void **state)
{
	struct gitapply_result res;
	char *text, *got, *want, *am;
	size_t len;

	(void)state;
	assert_int_equal(
	    gt_sh("set -e; cd %s/work; git checkout -qb ren-patch base; "
	          "sed -i 's/^line 50$/line FIFTY/' f; "
	          "sed -i 's/^other 30$/other THIRTY/' g; "
	          "git commit -qam change; "
	          "git checkout -qb ren-up base; mkdir renamed; "
	          "git mv f renamed/f.txt; git mv g h; "
	          "sed -i 's/^other 2$/other two/' h; "
	          "git commit -qam 'upstream renames'; "
	          "git checkout -qb ren-want ren-up; "
	          "sed -i 's/^line 50$/line FIFTY/' renamed/f.txt; "
	          "sed -i 's/^other 30$/other THIRTY/' h; "
	          "git commit -qam want; git checkout -q master",
	        tmp),
	    0);
	sync_branch("ren-patch");
	sync_branch("ren-up");
	text = patch_of("ren-patch", &len);
	got = apply("ren-up", text, &res, ERR_OK);
	assert_int_equal(res.how, GITAPPLY_THREEWAY);
	want = tree_of("ren-want");
	assert_string_equal(got, want);
	/* git am -3 is the oracle where it follows the renames too. */
	am = am_tree("ren-up", text);
	if (am != NULL)
		assert_string_equal(got, am);
	free(am);
	free(got);
	free(want);
	free(text);
}

static void
test_conflict(void **state)
{
	struct gitapply_result res;
	char *text, *got;
	size_t len;

	(void)state;
	/* Upstream changed the very line the patch changes. */
	assert_int_equal(
	    gt_sh("set -e; cd %s/work; git checkout -qb conf-up base; "
	          "sed -i 's/^line 50$/line fifty-upstream/' f; "
	          "git commit -qam upstream; git checkout -q master",
	        tmp),
	    0);
	sync_branch("conf-up");
	sync_branch("three-patch");
	text = patch_of("three-patch", &len);
	got = apply("conf-up", text, &res, ERR_CONFLICT);
	assert_null(got);
	assert_int_equal(res.how, GITAPPLY_CONFLICT);
	assert_non_null(strstr(res.reason, "f: hunk #1 (@@ -47,7 +47,7 @@)"));
	assert_null(am_tree("conf-up", text));
	free(text);

	/* A file that is not there, and no index line to merge through. */
	got =
	    apply("base", "--- a/missing\n+++ b/missing\n@@ -1 +1 @@\n-a\n+b\n",
	        &res, ERR_CONFLICT);
	assert_non_null(strstr(res.reason, "missing: does not exist"));
}

static void
test_plain_and_crlf(void **state)
{
	struct gitapply_result res;
	char *got, *want, *text;
	size_t len;
	const char *plain = "diff -u a/g b/g\n"
	                    "--- a/g\t2024-01-01 00:00:00.000000000 +0000\n"
	                    "+++ b/g\t2024-01-01 00:00:01.000000000 +0000\n"
	                    "@@ -1,3 +1,3 @@\n"
	                    " other 1\n"
	                    "-other 2\n"
	                    "+other two\n"
	                    " other 3\n";
	char crlf[4096];
	size_t i, o = 0;

	(void)state;
	assert_int_equal(
	    gt_sh("set -e; cd %s/work; git checkout -qb plain base; "
	          "sed -i 's/^other 2$/other two/' g; git commit -qam plain; "
	          "git checkout -qb dos base; "
	          "printf 'a\\r\\nb\\r\\nc\\r\\n' > dos; git add dos; "
	          "git commit -qm dos; "
	          "printf 'a\\r\\nB\\r\\nc\\r\\n' > dos; git commit -qam dos2; "
	          "git checkout -q master",
	        tmp),
	    0);
	sync_branch("plain");
	sync_branch("dos");
	got = apply("base", plain, &res, ERR_OK);
	want = tree_of("plain");
	assert_string_equal(got, want);
	free(got);
	free(want);

	/* The whole mail in CRLF, the file in LF. */
	for (i = 0; plain[i]; i++) {
		if (plain[i] == '\n')
			crlf[o++] = '\r';
		crlf[o++] = plain[i];
	}
	crlf[o] = '\0';
	got = apply("base", crlf, &res, ERR_OK);
	want = tree_of("plain");
	assert_string_equal(got, want);
	free(got);
	free(want);

	/* A git patch mailed with CRLF line ends throughout. */
	text = patch_of("plain", &len);
	{
		char *c = malloc(2 * len + 1);
		for (i = o = 0; i < len; i++) {
			if (text[i] == '\n')
				c[o++] = '\r';
			c[o++] = text[i];
		}
		c[o] = '\0';
		got = apply("base", c, &res, ERR_OK);
		free(c);
	}
	want = tree_of("plain");
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(text);

	/* A CRLF file whose patch lost its CRs on the way. */
	text = patch_of("dos", &len);
	for (i = o = 0; i < len; i++)
		if (text[i] != '\r')
			text[o++] = text[i];
	text[o] = '\0';
	got = apply("dos~1", text, &res, ERR_OK);
	want = tree_of("dos");
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(text);
}

/* Each bad patch is refused with a reason and leaves nothing behind. */
static void
refuse(const char *text, const char *why)
{
	struct gitapply_result res;
	char *got = apply("base", text, &res, ERR_PERM);

	assert_null(got);
	assert_int_equal(res.how, GITAPPLY_REFUSED);
	if (strstr(res.reason, why) == NULL)
		fprintf(stderr, "reason: %s\n", res.reason);
	assert_non_null(strstr(res.reason, why));
}

static void
test_refusals(void **state)
{
	struct buf big = BUF_INIT;
	size_t i;

	char *before, *after;

	(void)state;
	sync_branch("master");
	before = gt_out("cd %s/stage.git && git count-objects && "
	                "git for-each-ref",
	    tmp);
	assert_non_null(before);
	refuse("diff --git a/.git/config b/.git/config\n"
	       "new file mode 100644\n--- /dev/null\n+++ b/.git/config\n"
	       "@@ -0,0 +1 @@\n+[core]\n",
	    "path not allowed");
	refuse("diff --git a/sub/.GIT/hooks/x b/sub/.GIT/hooks/x\n"
	       "new file mode 100755\n--- /dev/null\n"
	       "+++ b/sub/.GIT/hooks/x\n@@ -0,0 +1 @@\n+rm -rf /\n",
	    "path not allowed");
	refuse("--- a/../outside\n+++ b/../outside\n@@ -0,0 +1 @@\n+x\n",
	    "path not allowed");
	refuse("diff --git a/dir/../../x b/dir/../../x\nnew file mode 100644\n"
	       "--- /dev/null\n+++ b/dir/../../x\n@@ -0,0 +1 @@\n+x\n",
	    "path not allowed");
	refuse("diff --git a//etc/passwd b//etc/passwd\n"
	       "--- a//etc/passwd\n+++ b//etc/passwd\n"
	       "@@ -1 +1 @@\n-root\n+toor\n",
	    "not allowed");
	/* "link" is a symbolic link to g: nothing may go beyond it. */
	refuse("diff --git a/link/x b/link/x\nnew file mode 100644\n"
	       "--- /dev/null\n+++ b/link/x\n@@ -0,0 +1 @@\n+x\n",
	    "beyond a symbolic link");
	/* A new link and a file beyond it in one patch. */
	refuse("diff --git a/l2 b/l2\nnew file mode 120000\n--- /dev/null\n"
	       "+++ b/l2\n@@ -0,0 +1 @@\n+dir\n\\ No newline at end of file\n"
	       "diff --git a/l2/z b/l2/z\nnew file mode 100644\n"
	       "--- /dev/null\n+++ b/l2/z\n@@ -0,0 +1 @@\n+z\n",
	    "beyond a symbolic link");
	refuse("diff --git a/evil b/evil\nnew file mode 120000\n"
	       "--- /dev/null\n+++ b/evil\n@@ -0,0 +1 @@\n+../../etc\n"
	       "\\ No newline at end of file\n",
	    "points out of the tree");
	refuse("diff --git a/dir/evil b/dir/evil\nnew file mode 120000\n"
	       "--- /dev/null\n+++ b/dir/evil\n@@ -0,0 +1 @@\n+/etc/passwd\n"
	       "\\ No newline at end of file\n",
	    "points out of the tree");
	refuse("diff --git a/evil b/evil\nnew file mode 120000\n"
	       "--- /dev/null\n+++ b/evil\n@@ -0,0 +1 @@\n+dir/../.git/config\n"
	       "\\ No newline at end of file\n",
	    "points out of the tree");
	refuse("diff --git a/bin b/bin\nindex 1234567..89abcde 100644\n"
	       "Binary files a/bin and b/bin differ\n",
	    "binary patch without data");
	refuse("diff --git a/sm b/sm\nnew file mode 160000\nindex "
	       "0000000..1234567\n--- /dev/null\n+++ b/sm\n@@ -0,0 +1 @@\n"
	       "+Subproject commit 1234567890123456789012345678901234567890\n",
	    "not supported");
	refuse("this is not a patch at all\n", "parsed");

	/* 100,000 new files. */
	for (i = 0; i < 100000; i++)
		buf_addf(&big,
		    "diff --git a/m/%zu b/m/%zu\nnew file mode "
		    "100644\n--- /dev/null\n+++ b/m/%zu\n"
		    "@@ -0,0 +1 @@\n+x\n",
		    i, i, i);
	refuse(buf_cstr(&big), "more files");
	buf_free(&big);

	/* A link inside the tree is fine. */
	{
		struct gitapply_result res;
		char *t = apply("base",
		    "diff --git a/dir/ok b/dir/ok\nnew file mode 120000\n"
		    "--- /dev/null\n+++ b/dir/ok\n@@ -0,0 +1 @@\n+../g\n"
		    "\\ No newline at end of file\n",
		    &res, ERR_OK);
		free(t);
	}
	/* Nothing of it reached the disk, and the repository is sound. */
	after = gt_out("cd %s/stage.git && git count-objects && "
	               "git for-each-ref",
	    tmp);
	assert_non_null(after);
	assert_string_equal(before, after);
	assert_int_equal(
	    gt_sh("git -C %s/stage.git fsck --strict --no-progress", tmp), 0);
	free(before);
	free(after);
}

/* A patch that makes the symbolic link path -> target. */
static char *
link_patch(const char *path, const char *target)
{
	struct buf b = BUF_INIT;

	buf_addf(&b,
	    "diff --git a/%s b/%s\nnew file mode 120000\n"
	    "--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+%s\n"
	    "\\ No newline at end of file\n",
	    path, path, path, target);
	return buf_detach(&b, NULL);
}

/* link_patch(), freed at the next call with NULL. */
static const char *
link_patch_free_later(const char *path, const char *target)
{
	static char *kept[16];
	static size_t n;

	if (path == NULL) {
		while (n)
			free(kept[--n]);
		return NULL;
	}
	assert_true(n < sizeof(kept) / sizeof(kept[0]));
	return kept[n++] = link_patch(path, target);
}

/* Apply text to the tree tree_hex (a tree a patch made in memory): the
 * new tree (the caller frees it) or NULL, with res. */
static char *
apply_on(const char *tree_hex, const char *text, struct gitapply_result *res)
{
	char out[41];

	if (gitapply_tree(stage, tree_hex, text, strlen(text), out, res) !=
	    ERR_OK)
		return NULL;
	return strdup(out);
}

/* Whether git apply takes text on base (in a fresh clone), and the
 * tree it makes (when tree is not NULL; the caller frees it). */
static bool
git_takes(const char *base, const char *text, char **tree)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/check.patch", tmp);
	gt_write(path, text);
	gt_sh("rm -rf %s/chk && git clone -q %s/work %s/chk 2>/dev/null", tmp,
	    tmp, tmp);
	if (gt_sh("cd %s/chk && git checkout -q '%s' && "
	          "git apply --index %s >/dev/null 2>&1",
	        tmp, base, path) != 0)
		return false;
	if (tree)
		*tree = gt_out("git -C %s/chk write-tree", tmp);
	return true;
}

static void
assert_refused(
    const struct gitapply_result *res, const char *tree, const char *why)
{
	if (tree != NULL || strstr(res->reason, why) == NULL)
		fprintf(stderr, "wanted a refusal (%s), got %s: %s\n", why,
		    gitapply_how_str(res->how), res->reason);
	assert_null(tree);
	assert_int_equal(res->how, GITAPPLY_REFUSED);
	assert_non_null(strstr(res->reason, why));
}

/*
 * Symbolic links are followed through the tree's own links, as the
 * kernel follows them in a checkout: with d/l -> "..", the target
 * "d/l/../../etc" leads above the tree, though it reads as "etc".  git
 * apply takes such links (it refuses only paths "beyond a symbolic
 * link", which we refuse too); we refuse the link.
 */
static void
test_symlinks(void **state)
{
	struct gitapply_result res;
	char *up = link_patch("d/l", ".."),
	     *e = link_patch("e", "d/l/../../etc");
	char *both = NULL, *base, *t1, *t2, *want;
	struct buf b = BUF_INIT;

	(void)state;
	sync_branch("master");
	base = tree_of("base");

	/* The review's case, in one patch: git apply takes it, we do not. */
	buf_adds(&b, up);
	buf_adds(&b, e);
	both = buf_detach(&b, NULL);
	assert_true(git_takes("base", both, NULL));
	assert_refused(&res, apply_on(base, both, &res),
	    "e: symbolic link "
	    "points out");

	/* The same as a series: d/l alone leads to the top, inside. */
	t1 = apply_on(base, up, &res);
	assert_non_null(t1);
	assert_refused(&res, apply_on(t1, e, &res), "points out of the tree");
	/* Writing through the link, or with "..", is refused as before. */
	assert_refused(&res,
	    apply_on(t1,
	        "diff --git a/d/l/x b/d/l/x\nnew file mode 100644\n"
	        "--- /dev/null\n+++ b/d/l/x\n@@ -0,0 +1 @@\n+x\n",
	        &res),
	    "beyond a symbolic link");
	assert_refused(&res,
	    apply_on(t1,
	        "diff --git a/d/l/../../x b/d/l/../../x\nnew file mode "
	        "100644\n--- /dev/null\n+++ b/d/l/../../x\n@@ -0,0 +1 @@\n"
	        "+x\n",
	        &res),
	    "not allowed");
	free(t1);

	/* The other order: e first (nothing there yet: it leads to "etc"),
	 * then the link that makes e lead out. */
	t1 = apply_on(base, e, &res);
	assert_non_null(t1);
	assert_refused(&res, apply_on(t1, up, &res),
	    "e: symbolic link now "
	    "points out");
	free(t1);

	/* A chain: dir/sub/up -> ../.. (the top), dir/up2 -> sub/up (the
	 * top, through the first); f2 -> dir/up2/../x reads as dir/x but
	 * leads above the top. */
	t1 = apply_on(base, link_patch_free_later("dir/sub/up", "../.."), &res);
	assert_non_null(t1);
	t2 = apply_on(t1, link_patch_free_later("dir/up2", "sub/up"), &res);
	assert_non_null(t2);
	assert_refused(&res,
	    apply_on(t2, link_patch_free_later("f2", "dir/up2/../x"), &res),
	    "points out of the tree");
	free(t1);
	free(t2);

	/* Links in a loop lead nowhere a checkout can use. */
	buf_adds(&b, link_patch_free_later("la", "lb"));
	buf_adds(&b, link_patch_free_later("lb", "la"));
	assert_refused(&res, apply_on(base, buf_cstr(&b), &res), "loop");
	buf_reset(&b);

	/* Legitimate relative links, one through another, apply as git
	 * applies them. */
	buf_adds(&b, link_patch_free_later("dir/sub/ln", "../../g"));
	buf_adds(&b, link_patch_free_later("dir/l2", "sub/ln"));
	buf_adds(&b, link_patch_free_later("dir/l3", "../dir/./sub/../y"));
	buf_adds(&b, link_patch_free_later("top", "dir/.."));
	t1 = apply_on(base, buf_cstr(&b), &res);
	assert_non_null(t1);
	assert_true(git_takes("base", buf_cstr(&b), &want));
	assert_non_null(want);
	assert_string_equal(t1, want);
	free(t1);
	free(want);
	buf_reset(&b);

	/* A link upstream already has that leads out is not the patch's
	 * doing: a patch beside it (a link too) applies. */
	assert_int_equal(gt_sh("set -e; cd %s/work; git checkout -qb outlink "
	                       "base; ln -s ../../outside out; git add out; "
	                       "git commit -qm out; git checkout -q master",
	                     tmp),
	    0);
	sync_branch("outlink");
	t2 = tree_of("outlink");
	t1 = apply_on(t2, link_patch_free_later("dir/in", "y"), &res);
	if (t1 == NULL)
		fprintf(stderr, "outlink: %s\n", res.reason);
	assert_non_null(t1);
	free(t1);
	free(t2);

	link_patch_free_later(NULL, NULL);
	free(both);
	free(up);
	free(e);
	free(base);
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_kinds),
		cmocka_unit_test(test_relocation),
		cmocka_unit_test(test_relocation_ties),
		cmocka_unit_test(test_threeway),
		cmocka_unit_test(test_threeway_rename),
		cmocka_unit_test(test_conflict),
		cmocka_unit_test(test_plain_and_crlf),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_symlinks),
	};

	return cmocka_run_group_tests_name("gitapply", tests, setup, teardown);
}
