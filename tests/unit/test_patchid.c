/*
 * Unit tests of parsers/patchid.c.  The oracle is `git patch-id --stable`
 * itself: every fixture patch, a set of hand-written corner cases, and a
 * few hundred mutants of the fixtures (lines dropped, doubled, or replaced
 * by the kinds of lines the algorithm treats specially) must get the id
 * git prints, byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parsers/patchid.h"
#include "testutil.h"
#include "util/buf.h"

#define FIX "tests/fixtures/patches/"

static const char *const fixtures[] = { "git-many.mbox", "git-many-binary.mbox",
	"git-edge.mbox", "git-nested.mbox", "plain-diff-up.eml", "quilt.eml",
	"nocounts.eml", NULL };

static bool have_git;

static int
setup(void **state)
{
	(void)state;
	have_git = system("git --version >/dev/null 2>&1") == 0;
	return 0;
}

/* What `git patch-id --stable` prints first for data, or "". */
static void
git_patchid(const char *data, size_t n, char out[41])
{
	char tmpl[] = "/tmp/test_patchid.XXXXXX", cmd[128], line[256];
	int fd = mkstemp(tmpl);
	FILE *f, *p;

	assert_true(fd >= 0);
	f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "git patch-id --stable < %s", tmpl);
	p = popen(cmd, "r");
	assert_non_null(p);
	out[0] = '\0';
	if (fgets(line, sizeof(line), p) != NULL && strlen(line) >= 40) {
		memcpy(out, line, 40);
		out[40] = '\0';
	}
	while (fgets(line, sizeof(line), p) != NULL)
		;
	assert_int_equal(pclose(p), 0);
	unlink(tmpl);
}

/* Ours equals git's; returns whether it did (after printing why not). */
static bool
agrees(const char *what, const char *data, size_t n)
{
	char ours[41], git[41];
	bool found = patchid_stable(data, n, ours);

	git_patchid(data, n, git);
	if (found != (git[0] != '\0') || strcmp(ours, git) != 0) {
		print_message("%s: ours <%s> git <%s>\n", what, ours, git);
		return false;
	}
	return true;
}

static void
test_sha1(void **state)
{
	unsigned char d[20];
	char hex[41];
	struct patchid_sha1_ctx c;

	(void)state;
	/* FIPS 180-1 test vectors. */
	patchid_sha1("abc", 3, d);
	patchid_hex(d, hex);
	assert_string_equal(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
	patchid_sha1_init(&c);
	patchid_sha1_update(&c, "abcdbcdecdefdefgefghfghighij", 28);
	patchid_sha1_update(&c, "hijkijkljklmklmnlmnomnopnopq", 28);
	patchid_sha1_final(&c, d);
	patchid_hex(d, hex);
	assert_string_equal(hex, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
}

static void
test_fixtures(void **state)
{
	size_t i, n = 0;

	(void)state;
	if (!have_git)
		skip();
	for (i = 0; fixtures[i]; i++) {
		char path[256], *text;

		snprintf(path, sizeof(path), FIX "%s", fixtures[i]);
		text = tu_read_file(path, &n);
		assert_non_null(text);
		assert_true(agrees(fixtures[i], text, n));
		free(text);
	}
}

/* Corner cases of builtin/patch-id.c, each checked against git. */
static const char *const cases[] = {
	"",
	"no diff here\n",
	"diff --git a/f b/f\n",
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
	/* Whitespace does not count. */
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a b\n+b\t\r\n",
	/* No final newline on the last line. */
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b",
	/* The signature after the last hunk. */
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n-- \n"
	"2.39.5\n\n",
	/* A second diff after the signature: git stops at the signature. */
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n-- \n"
	"diff --git a/g b/g\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n",
	/* Two files, both orders: the same id. */
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
	"diff --git a/g b/g\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-c\n+d\n",
	"diff --git a/g b/g\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-c\n+d\n"
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
	/* "\ No newline" lines are skipped, short "\ " lines are not. */
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n"
	"\\ No newline at end of file\n+b\n\\ x\n",
	/* A 40-hex line in the message: git starts over after it. */
	"0123456789abcdef0123456789abcdef01234567\n"
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
	/* A 40-hex line after the patch ends the first one. */
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
	"commit 0123456789abcdef0123456789abcdef01234567\n"
	"diff --git a/g b/g\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-c\n+d\n",
	/* Binary patches hash the object names of the index line. */
	"diff --git a/b b/b\nindex 1234567..89abcde 100644\n"
	"Binary files a/b and b/b differ\n"
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
	"diff --git a/b b/b\nnew file mode 100644\nindex 0000000..89abcde\n"
	"GIT binary patch\nliteral 3\nKcmZQzU|?ZD00962000\n\nliteral 0\n"
	"HcmV?d00001\n\n",
	/*
	 * An index line without a blank after the names.  (A binary patch
	 * without any index line holding "..", git hashes its uninitialised
	 * stack buffers: undefined behaviour, so no oracle; we hash "".)
	 */
	"diff --git a/b b/b\nindex 12..34\nBinary files a/b and b/b differ\n",
	/* Hunk headers without counts, with odd counts, with junk. */
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,0 +1 @@\n+b\n+c\n",
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,-1 +1,2 @@\n+b\n-x\n",
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,99999999999 +1 @@\n-a\n",
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -x +1 @@\n-a\n+b\n",
	/* Header lines hashed as they are; a non-letter line stops it. */
	"diff --git a/f b/g\nsimilarity index 90%\nrename from f\n"
	"rename to g\n--- a/f\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n",
	"diff --git a/f b/f\n1 odd line\n--- a/f\n",
	/* Traditional patches start at a "diff " line only. */
	"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
	"diff -up a/f b/f\n--- a/f\t2020\n+++ b/f\t2020\n@@ -1 +1 @@\n-a\n+b\n",
	NULL,
};

/*
 * Lines the blank-stripping sees in pieces (it hashes at most 512 bytes
 * at a time, 256 added a step): long lines of every length around those
 * sizes, blanks of each kind, bytes above 127, each checked against git.
 */
static void
test_long_lines(void **state)
{
	static const size_t lens[] = { 255, 256, 257, 511, 512, 513, 767, 768,
		1024, 3001 };
	static const char blank[] = " \t\r";
	struct buf b;
	char what[32];
	size_t i, j;

	(void)state;
	if (!have_git)
		skip();
	buf_init(&b, 0);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		buf_reset(&b);
		buf_adds(&b,
		    "diff --git a/f b/f\n--- a/f\n+++ b/f\n"
		    "@@ -1,2 +1,2 @@\n-");
		for (j = 0; j < lens[i]; j++)
			buf_addc(&b, "abc\xc3\xa9XYZ09"[j % 11]);
		buf_adds(&b, "\n+");
		for (j = 0; j < lens[i]; j++)
			buf_addc(&b,
			    j % (i + 3) == 0 ? blank[j % 3]
			                     : (char)('!' + j % 90));
		buf_adds(&b, "\n ");
		for (j = 0; j < lens[i]; j++)
			buf_addc(&b, ' ');
		buf_adds(&b, "\n");
		snprintf(what, sizeof(what), "long line %zu", lens[i]);
		assert_true(agrees(what, b.p, b.n));
	}
	buf_free(&b);
}

static void
test_cases(void **state)
{
	size_t i, n = 0;
	char what[32], a[41], b[41];

	(void)state;
	if (!have_git)
		skip();
	for (i = 0; cases[i]; i++) {
		n = strlen(cases[i]);
		snprintf(what, sizeof(what), "case %zu", i);
		assert_true(agrees(what, cases[i], n));
	}
	/* A NUL ends the line for git. */
	{
		static const char nul[] =
		    "diff --git a/f b/f\n--- a/f\n+++ b/f\n"
		    "@@ -1 +1 @@\n-a\0zz\n+b\n";

		assert_true(agrees("nul", nul, sizeof(nul) - 1));
	}
	/* Order does not matter (cases 8 and 9). */
	assert_true(patchid_stable(cases[8], strlen(cases[8]), a));
	assert_true(patchid_stable(cases[9], strlen(cases[9]), b));
	assert_string_equal(a, b);
	assert_false(patchid_stable("", 0, a));
	assert_string_equal(a, "");
}

/* A deterministic generator, so that a failure can be replayed. */
static uint32_t
rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static const char *const junk[] = { "-- \n", "\\ No newline at end of file\n",
	"@@ -1,2 +1 @@\n", "@@ -3 +3,2 @@ x\n", "diff --git a/x b/x\n",
	"index 1234567..89abcde 100644\n", "Binary files a/x and b/x differ\n",
	"GIT binary patch\n", "0123456789abcdef0123456789abcdef01234567\n",
	"From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 "
	"2001\n",
	"\n", " \n", "+x\n", "-y\n", "--- a/x\n", "+++ b/x\n", " z\r\n",
	"\\ x\n", "new file mode 100644\n", "Index: x\n", NULL };

/* Mutate text: drop, double or replace one line, or insert junk. */
static void
mutate(struct buf *out, const char *text, size_t n, uint32_t *seed)
{
	size_t lines = 0, i, target, op;
	const char *p = text, *e = text + n;

	for (i = 0; i < n; i++)
		lines += text[i] == '\n';
	target = lines ? rnd(seed) % lines : 0;
	op = rnd(seed) % 4;
	buf_reset(out);
	for (i = 0; p < e; i++) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(e - p);

		if (i == target) {
			size_t j =
			    rnd(seed) % (sizeof(junk) / sizeof(*junk) - 1);

			if (op == 1 || op == 2)
				buf_add(out, p, len);
			if (op >= 2)
				buf_adds(out, junk[j]);
			if (op == 1)
				buf_add(out, p, len);
		} else {
			buf_add(out, p, len);
		}
		p += len;
	}
}

static void
test_mutants(void **state)
{
	struct buf m = BUF_INIT;
	uint32_t seed = 20261203;
	size_t i, k, n = 0, total = 0, ok = 0;

	(void)state;
	if (!have_git)
		skip();
	for (i = 0; fixtures[i]; i++) {
		char path[256], *text;

		snprintf(path, sizeof(path), FIX "%s", fixtures[i]);
		text = tu_read_file(path, &n);
		assert_non_null(text);
		for (k = 0; k < 40; k++) {
			char what[64];

			mutate(&m, text, n, &seed);
			snprintf(what, sizeof(what), "%s mutant %zu",
			    fixtures[i], k);
			total++;
			ok += agrees(what, m.p, m.n);
		}
		free(text);
	}
	print_message(
	    "patch-id agrees with git on %zu/%zu mutants\n", ok, total);
	assert_int_equal(ok, total);
	buf_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha1),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_mutants),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
