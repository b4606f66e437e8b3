/*
 * git's rename similarity (bot/git/gitsim.c) against the "similarity index"
 * git itself prints for renamed and changed files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bot/git/gitsim.h"
#include "tests/unit/gittest.h"
#include "tests/unit/testutil.h"

static const char *tmp;

static int
setup(void **state)
{
	(void)state;
	tmp = gt_setup();
	return gt_sh("cd %s && git init -q -b master r", tmp) == 0 ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	gt_teardown(tmp);
	return 0;
}

/*
 * Case: shell that writes file "a", then shell that turns "b" (a copy
 * of a) into the new version.  git renames a to b; compare numbers.
 */
static void
check(const char *make_a, const char *change_b)
{
	char pa[300], pb[300];
	char *want, *a, *b;
	size_t na = 0, nb = 0;
	int got;

	assert_int_equal(gt_sh("set -e; cd %s/r; git rm -qrf --ignore-unmatch "
	                       ". >/dev/null; %s; git add a; git commit -qm a; "
	                       "git mv a b; %s; git add b; git commit -qm b; "
	                       "git cat-file blob HEAD~1:a > ../a; "
	                       "git cat-file blob HEAD:b > ../b",
	                     tmp, make_a, change_b),
	    0);
	want = gt_out("cd %s/r && git show -M --format= HEAD | "
	              "sed -n 's/^similarity index \\([0-9]*\\)%%$/\\1/p'",
	    tmp);
	assert_non_null(want);
	snprintf(pa, sizeof(pa), "%s/a", tmp);
	snprintf(pb, sizeof(pb), "%s/b", tmp);
	a = tu_read_file(pa, &na);
	b = tu_read_file(pb, &nb);
	got = gitsim_percent(a, na, b, nb);
	if (*want == '\0') {
		/* git saw no rename: below its threshold. */
		assert_true(got < 50);
	} else {
		if (got != atoi(want))
			fprintf(stderr, "%s / %s: %d, git %s\n", make_a,
			    change_b, got, want);
		assert_int_equal(got, atoi(want));
	}
	free(a);
	free(b);
	free(want);
}

static void
test_like_git(void **state)
{
	(void)state;
	check("seq 1 30 > a", "sed -i 's/^8$/eight/' b");
	check("seq 1 30 > a", "sed -i -e 's/^8$/eight/' -e '3d' b");
	check("seq 1 1000 > a", "sed -i -e '100,140d' b; echo more >> b");
	check("seq 1 50 | sed 's/^/line /' > a", "echo tail >> b");
	/* Long lines: chunks end after 64 bytes too. */
	check("seq 1 40 | sed 's/$/ xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx/' > a",
	    "sed -i 's/^7 /seven /' b");
	/* CRLF text: the CR before each LF does not count. */
	check("seq 1 40 | sed 's/$/\\r/' > a", "sed -i 's/^9\\r$/nine\\r/' b");
	/* No final newline: the last chunk is not counted. */
	check("seq 1 20 > a; printf end >> a", "sed -i 's/^2$/two/' b");
	/* Binary (a NUL): CRs count. */
	check("(printf '\\000\\r\\n'; seq 1 60 | sed 's/$/\\r/') > a",
	    "sed -i 's/^5\\r$/five\\r/' b");
	/* Half the file replaced: about the threshold. */
	check("seq 1 100 > a", "seq 1 48 > b; seq 500 551 >> b");
	/* Sizes too far apart for a rename. */
	assert_int_equal(
	    gitsim_percent("abc\n", 4, "abc\nlots more text\n", 19), 0);
	assert_int_equal(gitsim_percent("a\n", 2, "", 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_like_git),
	};

	return cmocka_run_group_tests_name("gitsim", tests, setup, teardown);
}
