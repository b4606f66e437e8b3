/*
 * Building staging branches (bot/git/gitstage.c) against git am -3: the same
 * series on the same base gives the same trees -- and, with the same
 * committer, the very same commit ids -- including a series that needs
 * relocated hunks and one that needs the three-way merge.  Reuse,
 * conflicts in the middle of a queue and determinism are checked too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bot/git/gitremote.h"
#include "bot/git/gitrepo.h"
#include "bot/git/gitstage.h"
#include "tests/unit/gittest.h"
#include "tests/unit/testutil.h"
#include "util/buf.h"
#include "util/log.h"

#define NPATCH 6
#define BOT_NAME "patchyard"
#define BOT_EMAIL "bot@example.org"
#define BOT_TIME 1700001000

static const char *tmp;
static char top[4096]; /* the repository's root: tests run from there */
static struct gitrepo *stage;

/* Entry i of the series and the strings it points to. */
static struct gitstage_entry ent[NPATCH];
static char *fields[NPATCH][5];

static const char setup_sh[] =
    "set -e; cd %s; git init -q -b master work; cd work; "
    "seq 1 100 | sed 's/^/line /' > f; "
    "seq 1 40 | sed 's/^/other /' > g; echo h > h; "
    "git add -A; git commit -qm base; git tag base; "
    /* The series. */
    "git checkout -qb topic; "
    "sed -i 's/^line 50$/line FIFTY/' f; git commit -qam 'f: fifty'; "
    "echo new > n; git add n; "
    "git commit -qm 'n: add' -m 'A body that says why.' "
    "-m 'Reviewed-by: R <r@example.org>'; "
    "sed -i 's/^other 10$/other TEN/' g; git commit -qam 'g: ten'; "
    "sed -i 's/^line 80$/line EIGHTY/' f; git commit -qam 'f: eighty'; "
    "echo more >> h; git commit -qam 'h: more'; "
    "git mv n n2; git commit -qm 'n: rename'; "
    /* Upstream moved on: lines above the hunks of f (relocation), a
     * context line of the hunk in g (three-way). */
    "git checkout -qb up base; "
    "(seq 1 10 | sed 's/^/top /'; cat f) > f.new; mv f.new f; "
    "sed -i 's/^other 8$/other eight/' g; git commit -qam upstream; "
    /* Another upstream where f: eighty conflicts. */
    "git checkout -qb clash base; "
    "sed -i 's/^line 80$/line 80 upstream/' f; git commit -qam clash; "
    "git checkout -q master; "
    "git format-patch -q -o ../series base..topic";

static void
load_entries(void)
{
	char path[300];
	int i, k;

	for (i = 0; i < NPATCH; i++) {
		int back = NPATCH - 1 - i;

		fields[i][0] = gt_out("git -C %s/work log -1 --format=%%an "
		                      "topic~%d",
		    tmp, back);
		fields[i][1] = gt_out("git -C %s/work log -1 --format=%%ae "
		                      "topic~%d",
		    tmp, back);
		fields[i][2] = gt_out("git -C %s/work log -1 --format=%%B "
		                      "topic~%d",
		    tmp, back);
		fields[i][3] = gt_out("ls %s/series/%04d-*", tmp, i + 1);
		fields[i][4] =
		    gt_out("git -C %s/work rev-parse topic~%d", tmp, back);
		for (k = 0; k < 5; k++)
			assert_non_null(fields[i][k]);
		snprintf(path, sizeof(path), "%s", fields[i][3]);
		free(fields[i][3]);
		fields[i][3] = tu_read_file(path, &ent[i].diff_len);
		assert_non_null(fields[i][3]);
		ent[i].key = fields[i][4];
		ent[i].author_name = fields[i][0];
		ent[i].author_email = fields[i][1];
		ent[i].author_time = 1700000000;
		ent[i].author_tz = 60;
		ent[i].message = fields[i][2];
		ent[i].diff = fields[i][3];
		ent[i].committer_time = BOT_TIME;
		ent[i].committer_tz = 0;
	}
}

static int
setup(void **state)
{
	char path[256], url[300], tip[41];
	const char *br[] = { "up", "clash", "master", "topic" };
	size_t i;

	(void)state;
	if (getcwd(top, sizeof(top)) == NULL)
		return -1;
	tmp = gt_setup();
	log_set_level(LOG_ERR);
	if (gt_sh(setup_sh, tmp) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/stage.git", tmp);
	snprintf(url, sizeof(url), "%s/work", tmp);
	if (gitrepo_open(path, &stage) != ERR_OK)
		return -1;
	for (i = 0; i < 3; i++)
		if (gitremote_fetch(stage, url, br[i], tip) != ERR_OK)
			return -1;
	load_entries();
	return 0;
}

static int
teardown(void **state)
{
	int i, k;

	(void)state;
	for (i = 0; i < NPATCH; i++)
		for (k = 0; k < 5; k++)
			free(fields[i][k]);
	gitrepo_free(stage);
	gt_teardown(tmp);
	return 0;
}

static char *
rev(const char *r)
{
	char *s = gt_out("git -C %s/work rev-parse '%s'", tmp, r);

	assert_non_null(s);
	return s;
}

/*
 * git am -3 of the given patches (1-based numbers, 0 ends) on base, with
 * the bot as committer: the commit ids it makes, oldest first, one per
 * line ("" when it failed).
 */
static char *
am_ids(const char *base, const int *which)
{
	char files[2048] = "";
	char *b = rev(base), *ids;
	size_t o = 0;
	int i;

	for (i = 0; which[i]; i++)
		o += (size_t)snprintf(files + o, sizeof(files) - o,
		    " %s/series/%04d-*", tmp, which[i]);
	gt_sh("rm -rf %s/am && git clone -q %s/work %s/am 2>/dev/null", tmp,
	    tmp, tmp);
	if (gt_sh("cd %s/am && git checkout -q %s && "
	          "GIT_COMMITTER_NAME=" BOT_NAME
	          " GIT_COMMITTER_EMAIL=" BOT_EMAIL
	          " GIT_COMMITTER_DATE='%d +0000' git am -q -3 %s "
	          ">/dev/null 2>&1",
	        tmp, b, BOT_TIME, files) != 0)
		ids = strdup("");
	else
		ids =
		    gt_out("git -C %s/am rev-list --reverse %s..HEAD", tmp, b);
	free(b);
	return ids;
}

static char *
our_ids(const struct gitstage_result *res, size_t n)
{
	char *s = calloc(n + 1, 41);
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (res[i].commit[0] == '\0')
			continue;
		o += (size_t)sprintf(
		    s + o, "%s%s", o ? "\n" : "", res[i].commit);
	}
	return s;
}

static void
build(const char *base, const struct gitstage_entry *e, size_t n,
    const struct gitstage_prev *prev, size_t nprev, struct gitstage_result *res,
    char tip[41])
{
	char *b = rev(base);

	assert_int_equal(gitstage_build(stage, b, e, n, prev, nprev, BOT_NAME,
	                     BOT_EMAIL, res, tip),
	    ERR_OK);
	free(b);
}

static void
test_equals_git_am(void **state)
{
	static const int all[] = { 1, 2, 3, 4, 5, 6, 0 };
	struct gitstage_result res[NPATCH];
	char tip[41];
	char *want, *got, *t1, *t2;
	size_t i;

	(void)state;
	/* On its own base: every patch exact, ids those of git am. */
	build("base", ent, NPATCH, NULL, 0, res, tip);
	for (i = 0; i < NPATCH; i++) {
		assert_int_equal(res[i].how, GITAPPLY_EXACT);
		assert_false(res[i].reused);
	}
	want = am_ids("base", all);
	got = our_ids(res, NPATCH);
	assert_string_equal(got, want);
	free(want);
	free(got);
	/* ... and the trees of the original commits. */
	t1 = gt_out("git -C %s/stage.git rev-parse '%s^{tree}'", tmp, tip);
	t2 = gt_out("git -C %s/work rev-parse 'topic^{tree}'", tmp);
	assert_non_null(t1);
	assert_string_equal(t1, t2);
	free(t1);
	free(t2);

	/* On the moved upstream: relocated hunks and a three-way merge. */
	build("up", ent, NPATCH, NULL, 0, res, tip);
	assert_int_equal(res[0].how, GITAPPLY_OFFSET);
	assert_int_equal(res[0].offset, 10);
	assert_int_equal(res[1].how, GITAPPLY_EXACT);
	assert_int_equal(res[2].how, GITAPPLY_THREEWAY);
	assert_int_equal(res[3].how, GITAPPLY_OFFSET);
	want = am_ids("up", all);
	got = our_ids(res, NPATCH);
	assert_string_equal(got, want);
	free(want);
	free(got);
	/* Everything is on disk, sound, and git sees our commits. */
	assert_int_equal(
	    gt_sh("git -C %s/stage.git fsck --strict --no-progress "
	          "--no-dangling %s",
	        tmp, tip),
	    0);
}

static void
test_reuse(void **state)
{
	static const int without4[] = { 1, 2, 3, 5, 6, 0 };
	struct gitstage_result res[NPATCH], again[NPATCH];
	struct gitstage_prev prev[NPATCH];
	struct gitstage_entry less[NPATCH - 1];
	char tip[41], tip2[41];
	char *before, *after, *want, *got;
	size_t i;

	(void)state;
	build("up", ent, NPATCH, NULL, 0, res, tip);
	for (i = 0; i < NPATCH; i++) {
		prev[i].key = ent[i].key;
		prev[i].commit = res[i].commit;
		prev[i].how = res[i].how;
		prev[i].offset = res[i].offset;
	}
	/* The same queue again: every commit reused, nothing written. */
	before = gt_out("git -C %s/stage.git count-objects", tmp);
	build("up", ent, NPATCH, prev, NPATCH, again, tip2);
	after = gt_out("git -C %s/stage.git count-objects", tmp);
	assert_string_equal(before, after);
	assert_string_equal(tip, tip2);
	for (i = 0; i < NPATCH; i++) {
		assert_true(again[i].reused);
		assert_string_equal(again[i].commit, res[i].commit);
		assert_int_equal(again[i].how, res[i].how);
	}
	free(before);
	free(after);

	/* Drop the fourth: the first three reused, the rest rebuilt. */
	for (i = 0; i < NPATCH - 1; i++)
		less[i] = ent[i < 3 ? i : i + 1];
	build("up", less, NPATCH - 1, prev, NPATCH, again, tip2);
	for (i = 0; i < NPATCH - 1; i++) {
		assert_int_equal(again[i].reused, i < 3);
		if (i < 3)
			assert_string_equal(again[i].commit, res[i].commit);
		else
			assert_string_not_equal(
			    again[i].commit, res[i + 1].commit);
	}
	want = am_ids("up", without4);
	got = our_ids(again, NPATCH - 1);
	assert_string_equal(got, want);
	free(want);
	free(got);

	/* Another base: nothing can be reused. */
	build("base", ent, NPATCH, prev, NPATCH, again, tip2);
	for (i = 0; i < NPATCH; i++)
		assert_false(again[i].reused);

	/* A changed message under the same key is not reused either. */
	{
		struct gitstage_entry changed[NPATCH];
		memcpy(changed, ent, sizeof(changed));
		changed[1].message = "n: add\n\nAcked-by: A <a@example.org>\n";
		build("up", changed, NPATCH, prev, NPATCH, again, tip2);
		assert_true(again[0].reused);
		for (i = 1; i < NPATCH; i++)
			assert_false(again[i].reused);
		assert_string_equal(again[0].commit, res[0].commit);
	}
}

/*
 * The results of applying sections are kept in the repository: another
 * process (here: the repository opened again) that builds the queue
 * without one patch takes the sections of the others from there, and
 * its commits are still git am's.  A damaged file is left out.
 */
static void
test_cache_kept(void **state)
{
	static const int without4[] = { 1, 2, 3, 5, 6, 0 };
	struct gitstage_result res[NPATCH];
	struct gitstage_entry less[NPATCH - 1];
	char tip[41], path[300];
	char *want, *got;
	size_t i, len = 0;
	FILE *f;

	(void)state;
	for (i = 0; i < NPATCH - 1; i++)
		less[i] = ent[i < 3 ? i : i + 1];
	want = am_ids("up", without4);
	build("up", ent, NPATCH, NULL, 0, res, tip);
	snprintf(path, sizeof(path), "%s/stage.git", tmp);
	gitrepo_free(stage);
	assert_int_equal(gitrepo_open(path, &stage), ERR_OK);
	assert_int_equal(gitrepo_kept_hits(stage), 0);
	build("up", less, NPATCH - 1, NULL, 0, res, tip);
	/* Every section: f (relocated), the new n, h, and g's two steps
	 * (its patch on its own preimage, then the three-way merge). */
	assert_int_equal(gitrepo_kept_hits(stage), 5);
	got = our_ids(res, NPATCH - 1);
	assert_string_equal(got, want);
	free(got);
	assert_int_equal(gt_sh("git -C %s/stage.git fsck --strict "
	                       "--no-progress --no-dangling %s",
	                     tmp, tip),
	    0);

	/* One byte less: the file is not whole, and is left out. */
	gitrepo_free(stage);
	snprintf(path, sizeof(path), "%s/stage.git/patchyard-apply-cache", tmp);
	f = fopen(path, "r+");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	fclose(f);
	assert_true(len > 40);
	assert_int_equal(truncate(path, (off_t)len - 1), 0);
	snprintf(path, sizeof(path), "%s/stage.git", tmp);
	assert_int_equal(gitrepo_open(path, &stage), ERR_OK);
	build("up", less, NPATCH - 1, NULL, 0, res, tip);
	assert_int_equal(gitrepo_kept_hits(stage), 0);
	got = our_ids(res, NPATCH - 1);
	assert_string_equal(got, want);
	free(got);
	free(want);
}

static void
test_conflict_in_the_middle(void **state)
{
	static const int rest[] = { 1, 2, 3, 5, 6, 0 };
	struct gitstage_result res[NPATCH];
	char tip[41];
	char *want, *got;

	(void)state;
	build("clash", ent, NPATCH, NULL, 0, res, tip);
	assert_int_equal(res[3].how, GITAPPLY_CONFLICT);
	assert_string_equal(res[3].commit, "");
	assert_non_null(strstr(res[3].reason, "f: hunk #1"));
	assert_true(res[4].commit[0] != '\0');
	assert_true(res[5].commit[0] != '\0');
	/* The rest is what git am makes of the series without it. */
	want = am_ids("clash", rest);
	got = our_ids(res, NPATCH);
	assert_string_equal(got, want);
	free(want);
	free(got);
}

static void
test_deterministic_and_errors(void **state)
{
	struct gitstage_result res[NPATCH], res2[NPATCH];
	struct gitrepo *other = NULL;
	char path[256], url[300], tip[41], tip2[41];
	char *b;
	size_t i;

	(void)state;
	/* Another repository, another process life: the same ids. */
	snprintf(path, sizeof(path), "%s/other.git", tmp);
	snprintf(url, sizeof(url), "%s/work", tmp);
	assert_int_equal(gitrepo_open(path, &other), ERR_OK);
	assert_int_equal(gitremote_fetch(other, url, "up", tip), ERR_OK);
	b = rev("up");
	assert_int_equal(gitstage_build(other, b, ent, NPATCH, NULL, 0,
	                     BOT_NAME, BOT_EMAIL, res2, tip2),
	    ERR_OK);
	build("up", ent, NPATCH, NULL, 0, res, tip);
	assert_string_equal(tip, tip2);
	for (i = 0; i < NPATCH; i++)
		assert_string_equal(res[i].commit, res2[i].commit);
	gitrepo_free(other);

	/* A patch that is not one is refused, the others build. */
	{
		struct gitstage_entry bad[2];
		bad[0] = ent[0];
		bad[0].diff = "nothing here\n";
		bad[0].diff_len = strlen(bad[0].diff);
		bad[1] = ent[1];
		assert_int_equal(gitstage_build(stage, b, bad, 2, NULL, 0,
		                     BOT_NAME, BOT_EMAIL, res, tip),
		    ERR_OK);
		assert_int_equal(res[0].how, GITAPPLY_REFUSED);
		assert_string_equal(res[0].commit, "");
		assert_int_equal(res[1].how, GITAPPLY_EXACT);
	}
	/* Bad bases. */
	assert_int_equal(
	    gitstage_build(stage, "0123456789012345678901234567890123456789",
	        ent, 1, NULL, 0, BOT_NAME, BOT_EMAIL, res, tip),
	    ERR_NOTFOUND);
	assert_int_equal(gitstage_build(stage, "nope", ent, 1, NULL, 0,
	                     BOT_NAME, BOT_EMAIL, res, tip),
	    ERR_NOTFOUND);
	/* An empty queue is the base itself. */
	assert_int_equal(gitstage_build(stage, b, ent, 0, NULL, 0, BOT_NAME,
	                     BOT_EMAIL, res, tip),
	    ERR_OK);
	assert_string_equal(tip, b);
	free(b);
}

/*
 * A queue whose build makes more objects than are worth writing one
 * file each: they go to disk as one pack, which git must find sound
 * (verify-pack checks every CRC and both checksums).  One file is larger
 * than a stored deflate block, so its zlib stream has several.
 */
static void
test_big_build_writes_a_pack(void **state)
{
	enum {
		N = 40
	};
	struct gitstage_entry e[N];
	struct gitstage_result res[N];
	char *texts[N], *base, *want, *got, *packs0, *packs1;
	char tip[41];
	size_t len = 0;
	int i;

	(void)state;
	assert_int_equal(
	    gt_sh("set -e; cd %s/work; git checkout -qb many base; "
	          "for i in $(seq 1 %d); do seq 1 $((i * 10)) > m$i; "
	          "git add m$i; git commit -qm \"m$i\"; done; "
	          "head -c 200000 /dev/zero | tr '\\0' 'x' | "
	          "fold -w 99 > m1; git commit -qam big; "
	          "git checkout -q master; rm -rf ../many; "
	          "git format-patch -q -o ../many base..many",
	        tmp, N - 1),
	    0);
	for (i = 0; i < N; i++) {
		got = gt_out("ls %s/many/%04d-*", tmp, i + 1);
		texts[i] = tu_read_file(got, &len);
		free(got);
		assert_non_null(texts[i]);
		memset(&e[i], 0, sizeof(e[i]));
		e[i].key = texts[i];
		e[i].author_name = "A";
		e[i].author_email = "a@example.org";
		e[i].author_time = 1700000000;
		e[i].message = "many\n";
		e[i].diff = texts[i];
		e[i].diff_len = len;
		e[i].committer_time = BOT_TIME;
	}
	packs0 = gt_out("ls %s/stage.git/objects/pack/ | grep -c idx", tmp);
	base = rev("base");
	assert_int_equal(gitstage_build(stage, base, e, N, NULL, 0, BOT_NAME,
	                     BOT_EMAIL, res, tip),
	    ERR_OK);
	for (i = 0; i < N; i++)
		assert_int_equal(res[i].how, GITAPPLY_EXACT);
	packs1 = gt_out("ls %s/stage.git/objects/pack/ | grep -c idx", tmp);
	assert_int_equal(atoi(packs1), atoi(packs0) + 1);
	got = gt_out("git -C %s/stage.git rev-parse '%s^{tree}'", tmp, tip);
	want = gt_out("git -C %s/work rev-parse 'many^{tree}'", tmp);
	assert_non_null(got);
	assert_string_equal(got, want);
	assert_int_equal(
	    gt_sh("cd %s/stage.git/objects/pack && for i in *.idx; "
	          "do git verify-pack $i || exit 1; done",
	        tmp),
	    0);
	assert_int_equal(
	    gt_sh("git -C %s/stage.git fsck --strict --no-progress "
	          "--no-dangling %s",
	        tmp, tip),
	    0);
	/* And what libgit2 reads back is what git reads. */
	free(got);
	got = gt_out("git -C %s/stage.git cat-file -p %s:m1 | wc -c", tmp, tip);
	assert_string_equal(got, "202020");
	for (i = 0; i < N; i++)
		free(texts[i]);
	free(base);
	free(want);
	free(got);
	free(packs0);
	free(packs1);
}

/*
 * The fixture series of tests/fixtures/staging/: <case>.base is a git
 * fast-export stream (tag "base", branches "topic" and "upstream"),
 * <case>.mbox the series format-patch made of base..topic.  Built on
 * upstream, the series must give the tree git am -3 gives, each patch
 * applied as <case>.expected says.
 */
static void
run_fixture(const char *name)
{
	struct gitstage_entry e[16];
	struct gitstage_result res[16];
	struct gitrepo *r = NULL;
	char path[4400], url[300], tip[41], *texts[16], *want, *got, *up;
	char *expected;
	struct buf hows = BUF_INIT;
	size_t len = 0, n, i;

	assert_int_equal(gt_sh("set -e; cd %s; rm -rf fx fx.git fxmail; "
	                       "git init -q fx; cd fx; git fast-import --quiet "
	                       "< %s/tests/fixtures/staging/%s.base; "
	                       "mkdir ../fxmail; git mailsplit -o../fxmail "
	                       "%s/tests/fixtures/staging/%s.mbox >/dev/null",
	                     tmp, top, name, top, name),
	    0);
	got = gt_out("ls %s/fxmail | wc -l", tmp);
	n = (size_t)atoi(got);
	free(got);
	assert_true(n > 0 && n <= 16);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/fxmail/%04zu", tmp, i + 1);
		texts[i] = tu_read_file(path, &len);
		assert_non_null(texts[i]);
		memset(&e[i], 0, sizeof(e[i]));
		e[i].key = texts[i];
		e[i].author_name = "A Contributor";
		e[i].author_email = "a@example.org";
		e[i].author_time = 1700000000;
		e[i].message = "fixture\n";
		e[i].diff = texts[i];
		e[i].diff_len = len;
		e[i].committer_time = BOT_TIME;
	}
	snprintf(path, sizeof(path), "%s/fx.git", tmp);
	snprintf(url, sizeof(url), "%s/fx", tmp);
	assert_int_equal(gitrepo_open(path, &r), ERR_OK);
	assert_int_equal(gitremote_fetch(r, url, "upstream", tip), ERR_OK);
	up = strdup(tip);
	assert_int_equal(
	    gitstage_build(r, up, e, n, NULL, 0, BOT_NAME, BOT_EMAIL, res, tip),
	    ERR_OK);
	for (i = 0; i < n; i++)
		buf_addf(&hows, "%s %ld\n", gitapply_how_str(res[i].how),
		    res[i].offset);
	snprintf(path, sizeof(path), "%s/tests/fixtures/staging/%s.expected",
	    top, name);
	expected = tu_read_file(path, NULL);
	assert_non_null(expected);
	assert_string_equal(buf_cstr(&hows), expected);
	/* The tree of git am -3 of the same mails on the same commit. */
	assert_int_equal(gt_sh("cd %s/fx && git checkout -q %s && "
	                       "git am -q -3 ../fxmail/* >/dev/null",
	                     tmp, up),
	    0);
	want = gt_out("git -C %s/fx rev-parse 'HEAD^{tree}'", tmp);
	got = gt_out("git -C %s/fx.git rev-parse '%s^{tree}'", tmp, tip);
	assert_non_null(want);
	assert_string_equal(got, want);
	for (i = 0; i < n; i++)
		free(texts[i]);
	free(want);
	free(got);
	free(up);
	free(expected);
	buf_free(&hows);
	gitrepo_free(r);
}

static void
test_fixture_series(void **state)
{
	(void)state;
	run_fixture("relocation");
	run_fixture("threeway");
	run_fixture("kinds");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equals_git_am),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_cache_kept),
		cmocka_unit_test(test_conflict_in_the_middle),
		cmocka_unit_test(test_deterministic_and_errors),
		cmocka_unit_test(test_big_build_writes_a_pack),
		cmocka_unit_test(test_fixture_series),
	};

	return cmocka_run_group_tests_name("gitstage", tests, setup, teardown);
}
