/* Unit tests of util/: buffers, views, arena, UTF-8, JSON, time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/arena.h"
#include "util/ascii.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/utf8.h"

static void
test_buf_cap(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b, 8);
	assert_int_equal(buf_adds(&b, "12345678"), ERR_OK);
	assert_int_equal(buf_addc(&b, '9'), ERR_LIMIT);
	assert_string_equal(buf_cstr(&b), "12345678");
	assert_int_equal(buf_addf(&b, "%d", 1), ERR_LIMIT);
	buf_reset(&b);
	assert_int_equal(buf_addf(&b, "%s-%d", "ab", 42), ERR_OK);
	assert_string_equal(buf_cstr(&b), "ab-42");
	buf_free(&b);
}

static void
test_str(void **state)
{
	struct str s = str_from("  Hello World \r\n"), line, rest;

	(void)state;
	assert_true(str_eqs(str_trim(s), "Hello World"));
	assert_true(str_ieqs(str_trim(s), "hello world"));
	assert_true(str_istartswith(str_trim(s), "HELLO"));
	assert_int_equal(str_findstr(s, "World", 5), 8);
	assert_int_equal(str_find(s, 'x'), -1);
	rest = str_from("a\r\nb\n\nc");
	assert_true(str_nextline(&rest, &line));
	assert_true(str_eqs(line, "a"));
	assert_true(str_nextline(&rest, &line));
	assert_true(str_eqs(line, "b"));
	assert_true(str_nextline(&rest, &line));
	assert_int_equal(line.n, 0);
	assert_true(str_nextline(&rest, &line));
	assert_true(str_eqs(line, "c"));
	assert_false(str_nextline(&rest, &line));
}

static void
test_arena(void **state)
{
	struct arena *a = arena_new();
	char *big;
	int i;

	(void)state;
	for (i = 0; i < 10000; i++) {
		char *p = arena_strdup(a, "abcdefghij");

		assert_string_equal(p, "abcdefghij");
		assert_int_equal((uintptr_t)p % 16, 0);
	}
	big = arena_zalloc(a, 1 << 20);
	assert_int_equal(big[(1 << 20) - 1], 0);
	arena_reset(a);
	assert_int_equal(arena_used(a), 0);
	assert_string_equal(arena_strndup(a, "xyz", 2), "xy");
	arena_free(a);
	arena_free(NULL);
}

static void
test_utf8(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_true(utf8_valid("h\xc3\xa9llo", 6));
	assert_false(utf8_valid("\xc0\xaf", 2)); /* overlong */
	assert_false(utf8_valid("\xed\xa0\x80", 3)); /* surrogate */
	assert_false(utf8_valid("\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
	assert_false(utf8_valid("\xe2\x82", 2)); /* truncated */
	assert_int_equal(utf8_repair(&b, "a\xffz\0b", 5), ERR_OK);
	assert_memory_equal(b.p,
	    "a\xef\xbf\xbdz\xef\xbf\xbd"
	    "b",
	    9);
	buf_free(&b);
}

static void
test_json(void **state)
{
	struct buf b = BUF_INIT;
	struct json j;

	(void)state;
	json_init(&j, &b, false);
	json_arr_begin(&j);
	json_obj_begin(&j);
	json_key(&j, "id");
	json_int(&j, 7);
	json_key(&j, "t");
	json_str(&j, "a\"b\\\n\x01\xff");
	json_key(&j, "n");
	json_null(&j);
	json_key(&j, "e");
	json_arr_begin(&j);
	json_arr_end(&j);
	json_key(&j, "b");
	json_bool(&j, true);
	json_obj_end(&j);
	json_str(&j, NULL);
	json_arr_end(&j);
	assert_string_equal(buf_cstr(&b),
	    "[{\"id\":7,\"t\":\"a\\\"b\\\\\\n\\u0001\xef\xbf\xbd\","
	    "\"n\":null,\"e\":[],\"b\":true},null]");
	buf_free(&b);
}

static void
test_time(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(time_from_civil(1970, 1, 1, 0, 0, 0), 0);
	assert_int_equal(time_from_civil(2026, 12, 3, 6, 53, 51), 1796280831);
	assert_int_equal(
	    time_fmt_rfc5322(out, sizeof(out), 1796280831, 60), ERR_OK);
	assert_string_equal(out, "Thu, 03 Dec 2026 07:53:51 +0100");
	assert_int_equal(time_fmt_iso(out, sizeof(out), 0), ERR_OK);
	assert_string_equal(out, "1970-01-01T00:00:00Z");
	assert_int_equal(time_fmt_iso(out, 5, 0), ERR_LIMIT);
}

static void
test_time_words(void **state)
{
	int64_t now = time_from_civil(2026, 12, 3, 12, 0, 0), t;
	char out[48];

	(void)state;
	assert_int_equal(time_fmt_date(out, sizeof(out), now), ERR_OK);
	assert_string_equal(out, "2026-12-03");
	assert_int_equal(time_fmt_ago(out, sizeof(out), now - 30, now), 0);
	assert_string_equal(out, "just now");
	time_fmt_ago(out, sizeof(out), now - 60, now);
	assert_string_equal(out, "1 minute ago");
	time_fmt_ago(out, sizeof(out), now - 3 * 86400 - 5, now);
	assert_string_equal(out, "3 days ago");
	time_fmt_ago(out, sizeof(out), now - 15 * 86400, now);
	assert_string_equal(out, "2 weeks ago");
	time_fmt_ago(out, sizeof(out), now - 800 * 86400, now);
	assert_string_equal(out, "2 years ago");
	time_fmt_ago(out, sizeof(out), now + 3600, now);
	assert_string_equal(out, "in the future");
	assert_int_equal(time_fmt_ago(out, 4, now - 90000, now), ERR_LIMIT);

	assert_int_equal(time_parse_iso("2026-12-03", &t), ERR_OK);
	assert_int_equal(t, time_from_civil(2026, 12, 3, 0, 0, 0));
	assert_int_equal(time_parse_iso("2026-12-03T06:53:51Z", &t), ERR_OK);
	assert_int_equal(t, 1796280831);
	assert_int_equal(time_parse_iso("2026-12-03 06:53", &t), ERR_OK);
	assert_int_equal(t, 1796280780);
	assert_int_equal(time_parse_iso("2026-13-03", &t), ERR_PARSE);
	assert_int_equal(time_parse_iso("2026-12-3", &t), ERR_PARSE);
	assert_int_equal(time_parse_iso("2026-12-03T", &t), ERR_PARSE);
	assert_int_equal(time_parse_iso("2026-12-03x", &t), ERR_PARSE);
	assert_int_equal(time_parse_iso("yesterday", &t), ERR_PARSE);
}

static void
test_log_quote(void **state)
{
	char out[16];

	(void)state;
	assert_string_equal(log_quote(out, sizeof(out), "a\nb", 3), "a\\x0ab");
	assert_string_equal(
	    log_quote(out, sizeof(out), "0123456789abcdefghij", 20),
	    "0123456789ab...");
	assert_int_equal(ascii_strnicmp("ABC", "abd", 2), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_cap),
		cmocka_unit_test(test_str),
		cmocka_unit_test(test_arena),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_time_words),
		cmocka_unit_test(test_log_quote),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
