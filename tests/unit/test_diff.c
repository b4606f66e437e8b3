/*
 * Unit tests of parsers/diff.c.  The oracles are git's: `git apply
 * --numstat --summary` on every fixture (paths, line counts, binary,
 * creations, deletions, renames, mode changes), and the diffstat that
 * `git format-patch` wrote into the fixtures it made.  Golden .expected
 * files pin what git prints nowhere (modes, ids, hunk positions, where a
 * file section ends).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "corpus.h"
#include "parsers/diff.h"
#include "parsers/diffname.h"
#include "parsers/limits.h"
#include "testutil.h"
#include "util/arena.h"
#include "util/buf.h"

#define FIX "tests/fixtures/patches/"

static const char *const fixtures[] = { "git-many.mbox", "git-many-binary.mbox",
	"git-edge.mbox", "git-nested.mbox", "plain-diff-up.eml", "quilt.eml",
	"nocounts.eml", NULL };

static struct diff *
parse_file(struct arena *a, const char *name, char **text)
{
	char path[256];
	struct diff *d = NULL;
	size_t n = 0;

	snprintf(path, sizeof(path), FIX "%s", name);
	*text = tu_read_file(path, &n);
	assert_non_null(*text);
	assert_int_equal(diff_parse(a, *text, n, &d), ERR_OK);
	assert_non_null(d);
	return d;
}

static char *
run_git_apply(const char *fixture)
{
	char cmd[1024], *abs, *out;
	struct buf b = BUF_INIT;
	FILE *p;
	size_t n;
	char chunk[4096];

	abs = realpath(fixture, NULL);
	assert_non_null(abs);
	/* Outside any repository, so that git does not apply a prefix. */
	snprintf(cmd, sizeof(cmd),
	    "cd / && git apply --numstat --summary '%s' 2>/dev/null", abs);
	free(abs);
	p = popen(cmd, "r");
	assert_non_null(p);
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		buf_add(&b, chunk, n);
	if (pclose(p) != 0) {
		buf_free(&b);
		return NULL;
	}
	out = buf_detach(&b, &n);
	return out;
}

static void
test_vs_git_apply(void **state)
{
	size_t i;

	(void)state;
	if (system("git --version >/dev/null 2>&1") != 0)
		skip();
	for (i = 0; fixtures[i]; i++) {
		struct arena *a = arena_new();
		struct buf ours = BUF_INIT;
		char path[256], *text, *git;
		struct diff *d = parse_file(a, fixtures[i], &text);

		corpus_apply_stat(&ours, d);
		snprintf(path, sizeof(path), FIX "%s", fixtures[i]);
		git = run_git_apply(path);
		assert_non_null(git);
		if (strcmp(git, buf_cstr(&ours)) != 0)
			print_message("%s:\n--- git\n%s--- ours\n%s",
			    fixtures[i], git, buf_cstr(&ours));
		assert_string_equal(buf_cstr(&ours), git);
		free(git);
		free(text);
		buf_free(&ours);
		arena_free(a);
	}
}

/*
 * The stat block format-patch wrote: the lines after the first "---"
 * line up to the first empty line.
 */
static char *
format_patch_stat(const char *text)
{
	const char *p = strstr(text, "\n---\n"), *e;

	assert_non_null(p);
	p += 5;
	e = strstr(p, "\n\n");
	assert_non_null(e);
	return strndup(p, (size_t)(e - p) + 1);
}

/*
 * Our line equals git's, except for one narrow case: a binary file sent
 * as a "delta" (or without data) shows git's "Bin 5000 -> 5000 bytes"
 * as "Bin", because the sizes sit inside the deflated data and parsers/
 * does not link zlib.
 */
static bool
stat_line_agrees(const char *ours, size_t on, const char *git, size_t gn)
{
	const char *bin = memmem(git, gn, "| Bin ", 6);

	if (on == gn && memcmp(ours, git, on) == 0)
		return true;
	return bin && on >= 5 && memcmp(ours + on - 5, "| Bin", 5) == 0 &&
	    on == (size_t)(bin - git) + 5 && memcmp(ours, git, on) == 0;
}

static void
test_stat_vs_format_patch(void **state)
{
	static const char *const made_by_git[] = { "git-many.mbox",
		"git-many-binary.mbox", "git-edge.mbox", "git-nested.mbox",
		NULL };
	size_t i;

	(void)state;
	for (i = 0; made_by_git[i]; i++) {
		struct arena *a = arena_new();
		struct buf ours = BUF_INIT;
		char *text, *git;
		struct diff *d = parse_file(a, made_by_git[i], &text);
		struct str o, g, ol, gl;

		diff_stat(&ours, d);
		git = format_patch_stat(text);
		o = buf_str(&ours);
		g = str_from(git);
		while (str_nextline(&g, &gl)) {
			assert_true(str_nextline(&o, &ol));
			if (!stat_line_agrees(ol.p, ol.n, gl.p, gl.n))
				print_message("%s: ours <%.*s> git <%.*s>\n",
				    made_by_git[i], (int)ol.n, ol.p, (int)gl.n,
				    gl.p);
			assert_true(stat_line_agrees(ol.p, ol.n, gl.p, gl.n));
		}
		assert_false(str_nextline(&o, &ol));
		free(git);
		free(text);
		buf_free(&ours);
		arena_free(a);
	}
}

static const char *const op_names[] = { "modify", "add", "delete", "rename",
	"copy" };

static void
dump(struct buf *b, const struct diff *d, const char *text)
{
	size_t i, k;

	buf_addf(b, "files %zu +%lu -%lu\n", d->nfiles, d->added, d->removed);
	for (i = 0; i < d->nfiles; i++) {
		const struct diff_file *f = &d->files[i];

		buf_addf(b,
		    "file %s old=%s new=%s mode=%o..%o oid=%s..%s sim=%u "
		    "git=%d bin=%d bindata=%zu +%lu -%lu text=%zu+%zu\n",
		    op_names[f->op], f->old_path ? f->old_path : "-",
		    f->new_path ? f->new_path : "-", f->old_mode, f->new_mode,
		    f->old_oid ? f->old_oid : "-",
		    f->new_oid ? f->new_oid : "-", f->similarity, f->git,
		    f->binary, f->binary_data.n, f->added, f->removed,
		    (size_t)(f->text.p - text), f->text.n);
		for (k = 0; k < f->nhunks; k++) {
			const struct diff_hunk *h = &f->hunks[k];

			buf_addf(b,
			    "  hunk -%lu,%lu +%lu,%lu <%.*s> lines=%zu+%zu\n",
			    h->old_start, h->old_count, h->new_start,
			    h->new_count, (int)h->header.n, h->header.p,
			    (size_t)(h->lines.p - text), h->lines.n);
		}
	}
}

static void
test_golden(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; fixtures[i]; i++) {
		struct arena *a = arena_new();
		struct buf got = BUF_INIT;
		char path[256], *text, *want;
		struct diff *d = parse_file(a, fixtures[i], &text);

		dump(&got, d, text);
		snprintf(path, sizeof(path), FIX "%.*s.expected",
		    (int)(strrchr(fixtures[i], '.') - fixtures[i]),
		    fixtures[i]);
		if (getenv("TU_WRITE_GOLDEN") != NULL)
			tu_write_file(path, got.p, got.n);
		want = tu_read_file(path, NULL);
		if (want == NULL || strcmp(want, buf_cstr(&got)) != 0)
			print_message("%s differs\n", path);
		assert_non_null(want);
		assert_string_equal(buf_cstr(&got), want);
		free(want);
		free(text);
		buf_free(&got);
		arena_free(a);
	}
}

/* The last hunk's lines stop where the counts say, before "-- ". */
static void
test_signature_not_a_line(void **state)
{
	struct arena *a = arena_new();
	char *text;
	struct diff *d = parse_file(a, "nocounts.eml", &text);
	const struct diff_file *f = &d->files[1];
	const struct diff_hunk *h = &f->hunks[0];

	(void)state;
	assert_int_equal(f->op, DIFF_DELETE);
	assert_int_equal(f->removed, 2);
	assert_int_equal(h->lines.n, strlen("-- \n--- \n"));
	assert_memory_equal(h->lines.p, "-- \n--- \n", h->lines.n);
	assert_int_equal(f->text.p + f->text.n, h->lines.p + h->lines.n);
	/* "\ No newline" lines belong to the hunk they follow. */
	h = &d->files[0].hunks[0];
	assert_memory_equal(h->lines.p,
	    "-old\n\\ No newline at end of file\n"
	    "+new\n\\ No newline at end of file\n",
	    h->lines.n);
	free(text);
	arena_free(a);
}

static enum err
parse_str(struct arena *a, const char *s, struct diff **d)
{
	return diff_parse(a, s, strlen(s), d);
}

static void
test_errors(void **state)
{
	struct arena *a = arena_new();
	struct diff *d;

	(void)state;
	assert_int_equal(parse_str(a, "", &d), ERR_PARSE);
	assert_null(d);
	assert_int_equal(
	    parse_str(a, "just a message\n---\n text\n", &d), ERR_PARSE);
	/* A hunk cut short. */
	assert_int_equal(
	    parse_str(a, "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n", &d),
	    ERR_PARSE);
	/* A line that cannot be in a hunk. */
	assert_int_equal(
	    parse_str(a, "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n*b\n+c\n", &d),
	    ERR_PARSE);
	/* More removed lines than the header counts. */
	assert_int_equal(parse_str(a,
	                     "diff --git a/f b/f\n--- a/f\n+++ b/f\n"
	                     "@@ -1 +1,2 @@\n-a\n-b\n+c\n",
	                     &d),
	    ERR_PARSE);
	/* A bad hunk header after a file header. */
	assert_int_equal(parse_str(a,
	                     "diff --git a/f b/f\n--- a/f\n+++ b/f\n"
	                     "@@ -x +1 @@\n+c\n",
	                     &d),
	    ERR_PARSE);
	/* A binary patch without its method line. */
	assert_int_equal(parse_str(a,
	                     "diff --git a/f b/f\nindex 1..2 100644\n"
	                     "GIT binary patch\nzzz\n",
	                     &d),
	    ERR_PARSE);
	arena_free(a);
}

static void
test_limits(void **state)
{
	struct arena *a = arena_new();
	struct buf b = BUF_INIT;
	struct diff *d;
	size_t i;

	(void)state;
	for (i = 0; i <= LIMIT_PATCH_FILES; i++)
		buf_addf(&b,
		    "diff --git a/f%zu b/f%zu\nold mode 100644\n"
		    "new mode 100755\n",
		    i, i);
	assert_int_equal(diff_parse(a, b.p, b.n, &d), ERR_LIMIT);
	buf_reset(&b);
	buf_adds(&b, "--- a/f\n+++ b/f\n");
	for (i = 0; i <= LIMIT_PATCH_HUNKS; i++)
		buf_addf(&b, "@@ -%zu +%zu @@\n-a\n+b\n", i + 1, i + 1);
	assert_int_equal(diff_parse(a, b.p, b.n, &d), ERR_LIMIT);
	buf_free(&b);
	arena_free(a);
}

/* Names: C quoting, spaces, a/ b/ prefixes, --no-prefix diffs. */
static void
test_names(void **state)
{
	struct arena *a = arena_new();
	struct diff *d;

	(void)state;
	/* A mode change names its file only on the diff line. */
	assert_int_equal(parse_str(a,
	                     "diff --git a/sp ace/x y b/sp ace/x y\n"
	                     "old mode 100644\nnew mode 100755\n",
	                     &d),
	    ERR_OK);
	assert_string_equal(d->files[0].old_path, "sp ace/x y");
	assert_string_equal(d->files[0].new_path, "sp ace/x y");
	assert_int_equal(d->files[0].old_mode, 0100644);
	assert_int_equal(d->files[0].new_mode, 0100755);
	assert_int_equal(parse_str(a,
	                     "diff --git \"a/t\\tb\\\"\\303\\251\" "
	                     "\"b/t\\tb\\\"\\303\\251\"\n"
	                     "new file mode 100644\nindex 0000000..e69de29\n",
	                     &d),
	    ERR_OK);
	assert_int_equal(d->files[0].op, DIFF_ADD);
	assert_null(d->files[0].old_path);
	assert_string_equal(d->files[0].new_path, "t\tb\"\xc3\xa9");
	assert_string_equal(d->files[0].new_oid, "e69de29");
	/* Renames take their names from the rename lines, unprefixed. */
	assert_int_equal(parse_str(a,
	                     "diff --git x/a b y/c d\nsimilarity index 90%\n"
	                     "rename from a b\nrename to c d\n",
	                     &d),
	    ERR_OK);
	assert_int_equal(d->files[0].op, DIFF_RENAME);
	assert_string_equal(d->files[0].old_path, "a b");
	assert_string_equal(d->files[0].new_path, "c d");
	assert_int_equal(d->files[0].similarity, 90);
	/* A traditional diff whose names have no directory: nothing to
	 * strip (git apply guesses -p0). */
	assert_int_equal(parse_str(a,
	                     "--- foo.c.orig\t2020-01-01 00:00:00\n"
	                     "+++ foo.c\t2020-01-02 00:00:00\n"
	                     "@@ -1 +1 @@\n-a\n+b\n",
	                     &d),
	    ERR_OK);
	assert_string_equal(d->files[0].old_path, "foo.c");
	/* Whitespace damage: the date after blanks instead of a TAB. */
	assert_int_equal(parse_str(a,
	                     "--- a/dir/f.c  2020-01-01 10:00:00.000 +0100\n"
	                     "+++ b/dir/f.c  2020-01-02 10:00:00.000 +0100\n"
	                     "@@ -1 +1 @@\n-a\n+b\n",
	                     &d),
	    ERR_OK);
	assert_string_equal(d->files[0].new_path, "dir/f.c");
	/* GNU diff's epoch timestamp marks a deletion. */
	assert_int_equal(parse_str(a,
	                     "--- a/f\t2020-01-01 10:00:00 +0100\n"
	                     "+++ b/f\t1970-01-01 01:00:00 +0100\n"
	                     "@@ -1 +0,0 @@\n-a\n",
	                     &d),
	    ERR_OK);
	assert_int_equal(d->files[0].op, DIFF_DELETE);
	assert_null(d->files[0].new_path);
	assert_string_equal(d->files[0].old_path, "f");
	arena_free(a);
}

static void
test_path_safe(void **state)
{
	static const char *const good[] = { "a", "a/b.c", "dir with space/f",
		".gitignore", "x/.github/y", "caf\xc3\xa9", "a..b", NULL };
	static const char *const bad[] = { "", "/etc/passwd", "a//b", "a/",
		"./a", "a/./b", "../a", "a/..", ".git", ".GIT/config",
		"x/.Git/hooks", "a\\b", "a\nb", "a\tb", "a\x7f", NULL };
	size_t i;

	(void)state;
	for (i = 0; good[i]; i++)
		assert_true(diff_path_safe(good[i]));
	for (i = 0; bad[i]; i++) {
		if (diff_path_safe(bad[i]))
			print_message("accepted <%s>\n", bad[i]);
		assert_false(diff_path_safe(bad[i]));
	}
	assert_false(diff_path_safe(NULL));
}

/* git's graph scaling and name shortening, against numbers that git
 * format-patch printed for the same shapes (git-edge.mbox covers a long
 * name; these cover the rounding of small changes next to large ones). */
static void
test_stat_scaling(void **state)
{
	struct arena *a = arena_new();
	struct buf text = BUF_INIT, out = BUF_INIT;
	struct diff *d;
	int i;

	(void)state;
	buf_adds(&text,
	    "diff --git a/big b/big\n--- a/big\n+++ b/big\n"
	    "@@ -1,300 +1,0 @@\n");
	for (i = 0; i < 300; i++)
		buf_adds(&text, "-x\n");
	buf_adds(&text,
	    "diff --git a/small b/small\n--- a/small\n"
	    "+++ b/small\n@@ -1 +1 @@\n-a\n+b\n");
	assert_int_equal(diff_parse(a, text.p, text.n, &d), ERR_OK);
	diff_stat(&out, d);
	/* As git 2.39 format-patch printed it for these two files: 300
	 * lines scale to 58 columns, and a 1+1 change keeps its "+-". */
	assert_string_equal(buf_cstr(&out),
	    " big   | 300 "
	    "----------------------------------------------------------\n"
	    " small |   2 +-\n"
	    " 2 files changed, 1 insertion(+), 301 deletions(-)\n");
	buf_free(&text);
	buf_free(&out);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vs_git_apply),
		cmocka_unit_test(test_stat_vs_format_patch),
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_signature_not_a_line),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_path_safe),
		cmocka_unit_test(test_stat_scaling),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
