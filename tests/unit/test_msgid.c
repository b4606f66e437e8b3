/* Unit tests of parsers/msgid.c: lenient extraction, strict keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parsers/hdr.h"
#include "parsers/limits.h"
#include "parsers/msgid.h"
#include "tests/unit/testutil.h"
#include "util/arena.h"
#include "util/buf.h"

static struct str
first(struct arena *a, const char *v)
{
	return msgid_first(a, str_from(v));
}

static void
test_valid(void **state)
{
	char big[LIMIT_MSGID_LEN + 2];

	(void)state;
	assert_true(msgid_valid(STR_LIT("a@b")));
	assert_true(msgid_valid(STR_LIT("20240101.x-y_z+q/r=s$@host.example")));
	assert_true(msgid_valid(STR_LIT("no-at-sign")));
	assert_false(msgid_valid(STR_NULL));
	assert_false(msgid_valid(STR_LIT("")));
	assert_false(msgid_valid(STR_LIT("a b@c")));
	assert_false(msgid_valid(STR_LIT("a<b@c")));
	assert_false(msgid_valid(STR_LIT("a>b@c")));
	assert_false(msgid_valid(STR_LIT("a\"b@c")));
	assert_false(msgid_valid(STR_LIT("a\\b@c")));
	assert_false(msgid_valid(STR_LIT(".a@c")));
	assert_false(msgid_valid(STR_LIT("a..b@c")));
	assert_false(msgid_valid(STR_LIT("..")));
	assert_false(msgid_valid(STR_LIT("a\tb")));
	assert_false(msgid_valid(STR_LIT("a\x7f"
	                                 "b")));
	assert_false(msgid_valid(STR_LIT("caf\xc3\xa9@x")));
	assert_false(msgid_valid(str_make("a\0b", 3)));
	memset(big, 'x', sizeof(big));
	assert_true(msgid_valid(str_make(big, LIMIT_MSGID_LEN)));
	assert_false(msgid_valid(str_make(big, LIMIT_MSGID_LEN + 1)));
}

static void
test_first(void **state)
{
	struct arena *a = arena_new();
	struct str s;

	(void)state;
	s = first(a, "<a@b>");
	assert_true(str_eqs(s, "a@b"));
	assert_int_equal(s.p[s.n], '\0');
	assert_true(str_eqs(first(a, "  < a@b >  "), "a@b"));
	assert_true(str_eqs(first(a, "<Case@Kept>"), "Case@Kept"));
	assert_true(
	    str_eqs(first(a, "<x@y> (Your message of \"Mon\" <z@w>)"), "x@y"));
	assert_true(
	    str_eqs(first(a, "Your message of \"Mon, 1 Jan\" <x@y>"), "x@y"));
	assert_true(str_eqs(first(a, "(<c@d>) <x@y>"), "x@y"));
	assert_true(str_eqs(first(a, "<bad id> <x@y>"), "x@y"));
	/* Bare ids only when there are no brackets at all. */
	assert_true(str_eqs(first(a, "x@y"), "x@y"));
	assert_true(str_eqs(first(a, "junk, x@y (comment)"), "x@y"));
	assert_null(first(a, "junk <> x@y").p);
	assert_null(first(a, "").p);
	assert_null(first(a, "no ids here").p);
	assert_null(msgid_first(a, STR_NULL).p);
	/* Unbalanced openers are junk, not a reason to lose the id. */
	assert_true(str_eqs(first(a, "(unclosed <x@y>"), "x@y"));
	assert_true(str_eqs(first(a, "\"unclosed <x@y>"), "x@y"));
	assert_true(str_eqs(first(a, "<x@y"), "x@y"));
	assert_true(str_eqs(first(a, "<x@y <z@w>"), "x@y"));
	arena_free(a);
}

static void
test_list_fixture(void **state)
{
	struct arena *a = arena_new();
	struct buf b = BUF_INIT;
	struct hdr h;
	struct str *ids, irt;
	size_t n = 0, k, i;
	char *raw =
	    tu_read_file("tests/fixtures/broken/references-junk.eml", &n);
	char *want = tu_read_file(
	    "tests/fixtures/broken/references-junk.expected", NULL);

	(void)state;
	assert_non_null(raw);
	assert_non_null(want);
	assert_int_equal(hdr_split(a, raw, n, &h), ERR_OK);
	irt = msgid_first(a, hdr_value(a, &h, "In-Reply-To"));
	buf_adds(&b, "in-reply-to: ");
	buf_addstr(&b, irt);
	buf_addc(&b, '\n');
	assert_int_equal(
	    msgid_list(a, hdr_value(a, &h, "References"), &ids, &k), ERR_OK);
	for (i = 0; i < k; i++) {
		buf_adds(&b, "references: ");
		buf_addstr(&b, ids[i]);
		buf_addc(&b, '\n');
	}
	assert_string_equal(buf_cstr(&b), want);
	buf_free(&b);
	free(raw);
	free(want);
	arena_free(a);
}

static void
test_list(void **state)
{
	struct arena *a = arena_new();
	struct buf b = BUF_INIT;
	struct str *ids;
	size_t n, i;
	char id[32];

	(void)state;
	assert_int_equal(
	    msgid_list(a, STR_LIT("a@b c@d, e@f"), &ids, &n), ERR_OK);
	assert_int_equal(n, 3);
	assert_true(str_eqs(ids[2], "e@f"));
	assert_int_equal(
	    msgid_list(a, STR_LIT("<a@b> c@d <e@f>"), &ids, &n), ERR_OK);
	assert_int_equal(n, 2);
	assert_int_equal(msgid_list(a, STR_NULL, &ids, &n), ERR_OK);
	assert_int_equal(n, 0);
	assert_int_equal(
	    msgid_list(a, STR_LIT("<a@b><a@b><a@b>"), &ids, &n), ERR_OK);
	assert_int_equal(n, 1);
	/* Over the limit the newest ids are kept, in order, deduplicated. */
	for (i = 0; i < 3 * LIMIT_REFERENCES; i++) {
		snprintf(id, sizeof(id), "<id%zu@x> ", i);
		buf_adds(&b, id);
		if (i % 2 == 0)
			buf_adds(&b, "<id0@x>");
	}
	assert_int_equal(msgid_list(a, buf_str(&b), &ids, &n), ERR_OK);
	assert_int_equal(n, LIMIT_REFERENCES);
	assert_true(str_eqs(ids[n - 1], "id383@x"));
	assert_true(str_eqs(ids[n - 2], "id0@x"));
	assert_true(str_eqs(ids[0], "id257@x"));
	buf_free(&b);
	arena_free(a);
}

static void
test_from_user(void **state)
{
	(void)state;
	assert_true(str_eqs(msgid_from_user(STR_LIT(" <a@b> ")), "a@b"));
	assert_true(str_eqs(msgid_from_user(STR_LIT("a@b")), "a@b"));
	assert_true(str_eqs(msgid_from_user(STR_LIT("< a@b >")), "a@b"));
	assert_null(msgid_from_user(STR_LIT("<<a@b>>")).p);
	assert_null(msgid_from_user(STR_LIT("../etc/passwd")).p);
	assert_null(msgid_from_user(STR_LIT("<a b>")).p);
	assert_null(msgid_from_user(STR_LIT("")).p);
}

static void
test_urlencode(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	/* As public-inbox's mid_escape: '/', '%', '?', '#' and the like are
	 * escaped; sub-delims, ':' and '@' are not. */
	msgid_urlencode(&b, STR_LIT("a/b%c?d#e[f]g@h!$&'()*+,;=:-._~"));
	assert_string_equal(
	    buf_cstr(&b), "a%2Fb%25c%3Fd%23e%5Bf%5Dg@h!$&'()*+,;=:-._~");
	buf_reset(&b);
	msgid_urlencode(&b, STR_LIT("caf\xc3\xa9\x01"));
	assert_string_equal(buf_cstr(&b), "caf%C3%A9%01");
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_first),
		cmocka_unit_test(test_list_fixture),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_from_user),
		cmocka_unit_test(test_urlencode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
