/* Unit tests of parsers/slug.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "parsers/slug.h"
#include "util/arena.h"

static void
test_make(void **state)
{
	struct arena *a = arena_new();
	const char *s;

	(void)state;
	assert_string_equal(slug_make(a, "mm: fix foo/bar"), "mm-fix-foo-bar");
	assert_string_equal(slug_make(a, "  --Leading and trailing!!  "),
	    "leading-and-trailing");
	assert_string_equal(slug_make(a, "don't panic"), "dont-panic");
	assert_string_equal(slug_make(a, "caf\xc3\xa9 au lait"), "caf-au-lait");
	assert_string_equal(slug_make(a, "v2.40: fix_it"), "v2-40-fix-it");
	assert_string_equal(slug_make(a, ""), "patch");
	assert_string_equal(slug_make(a, NULL), "patch");
	assert_string_equal(slug_make(a, "!!! ???"), "patch");
	/* At most 64 bytes, cut at a '-'. */
	s = slug_make(a,
	    "lib: a very long title that goes on and on well past the "
	    "limit of the slug");
	assert_true(strlen(s) <= 64);
	assert_string_equal(s,
	    "lib-a-very-long-title-that-goes-on-and-on-well-past-the-limit-of");
	s = slug_make(a,
	    "x0123456789012345678901234567890123456789012345678901234"
	    "567890123456789");
	assert_int_equal(strlen(s), 64);
	arena_free(a);
}

static void
test_variant(void **state)
{
	struct arena *a = arena_new();
	const char *base =
	    "lib-a-very-long-title-that-goes-on-and-on-well-past-the-limit-of";
	const char *v;

	(void)state;
	assert_string_equal(slug_variant(a, "mm-fix", 2), "mm-fix-2");
	assert_string_equal(slug_variant(a, "mm-fix", 17), "mm-fix-17");
	v = slug_variant(a, base, 12);
	assert_true(strlen(v) <= 64);
	assert_string_equal(v,
	    "lib-a-very-long-title-that-goes-on-and-on-well-past-the-limit-12");
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_make),
		cmocka_unit_test(test_variant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
