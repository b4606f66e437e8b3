/*
 * Unit tests of parsers/subject.c: the cases of
 * tests/fixtures/subjects/cases.txt (written by hand from the rules, each
 * subject followed by what it must give), and subject_norm().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parsers/subject.h"
#include "testutil.h"
#include "util/arena.h"
#include "util/buf.h"

/* The same shape as the second line of a case. */
static void
describe(struct buf *b, const struct subject *s)
{
	size_t n0 = b->n;

	if (s->reply)
		buf_addc(b, 'R');
	if (s->forward)
		buf_addc(b, 'F');
	if (s->patch)
		buf_addc(b, 'P');
	if (s->rfc)
		buf_addc(b, 'C');
	if (s->resend)
		buf_addc(b, 'S');
	if (s->pull)
		buf_addc(b, 'L');
	if (b->n == n0)
		buf_addc(b, '-');
	buf_addf(b, " v=%d n=%d/%d tags=<%s> title=<%s>", s->version, s->number,
	    s->total, s->tags, s->title);
}

static void
test_cases(void **state)
{
	char *text = tu_read_file("tests/fixtures/subjects/cases.txt", NULL);
	struct str rest, subj, want;
	struct arena *a = arena_new();
	size_t cases = 0, bad = 0;

	(void)state;
	assert_non_null(text);
	rest = str_from(text);
	while (str_nextline(&rest, &subj)) {
		struct subject s;
		struct buf got = BUF_INIT;

		if (subj.n && subj.p[0] == '#')
			continue;
		assert_true(str_nextline(&rest, &want));
		subject_parse(a, subj, &s);
		describe(&got, &s);
		if (!str_eq(buf_str(&got), want)) {
			print_message("<%.*s>\n  want %.*s\n  got  %s\n",
			    (int)subj.n, subj.p, (int)want.n, want.p,
			    buf_cstr(&got));
			bad++;
		}
		cases++;
		buf_free(&got);
	}
	print_message("%zu subject cases\n", cases);
	assert_true(cases >= 30);
	assert_int_equal(bad, 0);
	arena_free(a);
	free(text);
}

static void
test_empty(void **state)
{
	struct arena *a = arena_new();
	struct subject s;

	(void)state;
	subject_parse(a, STR_NULL, &s);
	assert_string_equal(s.title, "");
	assert_string_equal(s.tags, "");
	assert_int_equal(s.version, 1);
	subject_parse(a, str_make("[PATCH v99999999999] x", 22), &s);
	assert_int_equal(s.version, 1);
	assert_string_equal(s.title, "x");
	arena_free(a);
}

static void
test_norm(void **state)
{
	struct arena *a = arena_new();

	(void)state;
	assert_string_equal(
	    subject_norm(a, "mm: Fix  Foo\tBAR."), "mm: fix foo bar");
	assert_string_equal(
	    subject_norm(a, "  lead and trail  "), "lead and trail");
	assert_string_equal(
	    subject_norm(a, "ends with dots..."), "ends with dots..");
	assert_string_equal(
	    subject_norm(a, "caf\xc3\xa9 Stays"), "caf\xc3\xa9 stays");
	assert_string_equal(subject_norm(a, ""), "");
	assert_string_equal(subject_norm(a, NULL), "");
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_norm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
