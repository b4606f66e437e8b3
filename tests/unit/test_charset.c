/* Unit tests of parsers/charset.c: charsets, RFC 2047, RFC 2231. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parsers/addr.h"
#include "parsers/charset.h"
#include "parsers/hdr.h"
#include "parsers/limits.h"
#include "tests/unit/testutil.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/utf8.h"

static struct arena *A;

static int
setup(void **state)
{
	(void)state;
	A = arena_new();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	arena_free(A);
	return 0;
}

/* Convert and compare; *fb tells whether a fallback was used. */
static void
conv(const char *cs, const char *in, size_t n, const char *want, bool want_fb)
{
	struct str out;
	bool fb = false;

	assert_int_equal(charset_to_utf8(A, cs, in, n, &out, &fb), ERR_OK);
	assert_true(utf8_valid(out.p, out.n));
	assert_int_equal(out.n, strlen(want));
	assert_memory_equal(out.p, want, out.n);
	if (fb != want_fb)
		fail_msg("charset %s: fallback %d, want %d", cs ? cs : "(null)",
		    fb, want_fb);
}

#define CONV(cs, in, want, fb) conv(cs, in, sizeof(in) - 1, want, fb)

static void
test_utf8_fast_path(void **state)
{
	static const char in[] = "caf\xc3\xa9 \xe2\x82\xac";
	struct str out;
	bool fb = false;

	(void)state;
	/* Valid UTF-8 declared as UTF-8, ASCII or nothing is not copied. */
	assert_int_equal(
	    charset_to_utf8(A, NULL, in, sizeof(in) - 1, &out, &fb), ERR_OK);
	assert_ptr_equal(out.p, in);
	assert_int_equal(
	    charset_to_utf8(A, "US-ASCII", in, 3, &out, &fb), ERR_OK);
	assert_ptr_equal(out.p, in);
	assert_int_equal(
	    charset_to_utf8(A, " \"UTF8\" ", in, sizeof(in) - 1, &out, &fb),
	    ERR_OK);
	assert_ptr_equal(out.p, in);
	assert_false(fb);
	assert_int_equal(charset_to_utf8(A, "utf-8", "", 0, &out, &fb), ERR_OK);
	assert_int_equal(out.n, 0);
}

static void
test_utf8_repair(void **state)
{
	(void)state;
	/* UTF-8 with stray latin1 bytes: each bad byte read as cp1252. */
	CONV("utf-8", "caf\xe9 \xc3\xa9 \x80",
	    "caf\xc3\xa9 \xc3\xa9 \xe2\x82\xac", true);
	CONV(NULL, "caf\xe9", "caf\xc3\xa9", true);
	/* Truncated and overlong sequences, surrogates. */
	CONV("utf-8", "a\xc3", "a\xc3\x83", true);
	CONV("utf-8", "\xc0\xaf", "\xc3\x80\xc2\xaf", true);
	CONV("utf-8", "\xed\xa0\x80", "\xc3\xad\xc2\xa0\xe2\x82\xac", true);
	/* NUL is U+FFFD and is not a fallback. */
	CONV("utf-8", "a\0b",
	    "a\xef\xbf\xbd"
	    "b",
	    false);
}

static void
test_1252(void **state)
{
	char all[256];
	struct str out;
	bool fb = false;
	int i;

	(void)state;
	CONV("ISO-8859-1", "caf\xe9", "caf\xc3\xa9", false);
	CONV("latin1", "\xa3 5", "\xc2\xa3 5", false);
	CONV("Windows-1252", "\x93quoted\x94 \x80",
	    "\xe2\x80\x9cquoted\xe2\x80\x9d \xe2\x82\xac", false);
	/* The five bytes cp1252 leaves undefined are their C1 points. */
	CONV("cp1252", "\x81\x8d\x8f\x90\x9d",
	    "\xc2\x81\xc2\x8d\xc2\x8f\xc2\x90\xc2\x9d", false);
	/* Every byte maps. */
	for (i = 0; i < 256; i++)
		all[i] = (char)i;
	assert_int_equal(
	    charset_to_utf8(A, "windows-1252", all, 256, &out, &fb), ERR_OK);
	assert_true(utf8_valid(out.p, out.n));
	assert_false(fb);
}

static void
test_iconv(void **state)
{
	(void)state;
	CONV("iso-8859-2", "\xb1", "\xc4\x85", false);
	CONV("KOI8-R", "\xf0\xd2\xc9\xd7\xc5\xd4",
	    "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82", false);
	CONV("iso-2022-jp", "\x1b$B$3$s$K$A$O\x1b(B",
	    "\xe3\x81\x93\xe3\x82\x93\xe3\x81\xab\xe3\x81\xa1\xe3\x81\xaf",
	    false);
	/* Aliases iconv does not know by the name MUAs use. */
	CONV("gb2312", "\xc4\xe3\xba\xc3", "\xe4\xbd\xa0\xe5\xa5\xbd", false);
	CONV("unicode-1-1-utf-7", "Hi Mom -+Jjo--!", "Hi Mom -\xe2\x98\xba-!",
	    false);
	CONV("utf-16le", "a\0b\0", "ab", false);
	/* NUL from a wide charset is U+FFFD too. */
	CONV("utf-16be", "\0a\0\0", "a\xef\xbf\xbd", false);
}

/*
 * Converters are kept open and handed out again (parsers/charset.c's
 * pool): one left mid-sequence by invalid bytes, or in a shifted state,
 * must convert the next text from the initial state; and two threads
 * converting at once each get their own.
 */
static void
test_iconv_reused(void **state)
{
	(void)state;
	for (int i = 0; i < 3; i++) {
		/* Ends shifted into JIS X 0208 without the way back. */
		CONV("iso-2022-jp", "\x1b$B$3$s", "\xe3\x81\x93\xe3\x82\x93",
		    false);
		CONV("iso-2022-jp", "$3", "$3", false);
		/* Shifted, then cut inside a character: falls back, and the
		 * converter is left shifted for the next text. */
		CONV("iso-2022-jp", "\x1b$B$", "\x1b$B$", true);
		CONV("iso-2022-jp", "$3", "$3", false);
		CONV("utf-16le", "a\0b",
		    "a\xef\xbf\xbd"
		    "b",
		    true);
		CONV("utf-16le", "a\0b\0", "ab", false);
	}
}

static void *
convert_many(void *arg)
{
	const char *cs = arg;
	struct arena *a = arena_new();
	bool ok = true;

	for (int i = 0; i < 2000 && ok; i++) {
		struct str out;
		bool fb = false;

		arena_reset(a);
		if (strcmp(cs, "iso-2022-jp") == 0)
			ok = charset_to_utf8(a, cs, "\x1b$B$3$s\x1b(B", 10,
			         &out, &fb) == ERR_OK &&
			    out.n == 6 &&
			    memcmp(out.p, "\xe3\x81\x93\xe3\x82\x93", 6) == 0;
		else
			ok = charset_to_utf8(a, cs, "\xb1", 1, &out, &fb) ==
			        ERR_OK &&
			    out.n == 2 && memcmp(out.p, "\xc4\x85", 2) == 0;
		ok = ok && !fb;
	}
	arena_free(a);
	return ok ? arg : NULL;
}

static void
test_iconv_threads(void **state)
{
	static const char *const cs[] = { "iso-2022-jp", "iso-8859-2",
		"iso-2022-jp", "iso-8859-2" };
	pthread_t th[4];
	void *r;

	(void)state;
	for (int i = 0; i < 4; i++)
		assert_int_equal(
		    pthread_create(&th[i], NULL, convert_many, (void *)cs[i]),
		    0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(th[i], &r), 0);
		assert_ptr_equal(r, cs[i]);
	}
}

static void
test_fallback(void **state)
{
	(void)state;
	/* Unknown charsets: UTF-8, then cp1252, and a flag either way. */
	CONV("x-no-such-charset", "caf\xc3\xa9", "caf\xc3\xa9", true);
	CONV("unknown-8bit", "caf\xe9", "caf\xc3\xa9", true);
	/* Names that must never reach iconv as they are. */
	CONV("utf-8//TRANSLIT", "caf\xc3\xa9", "caf\xc3\xa9", true);
	CONV("iso-8859-2 // IGNORE", "x", "x", true);
	CONV("a-charset-name-that-is-much-too-long-to-be-real", "x", "x", true);
	/* Bytes invalid in the declared charset: the whole text falls back. */
	CONV("iso-8859-3", "\xa5 caf\xc3\xa9", "\xc2\xa5 caf\xc3\xa9", true);
	CONV("utf-16le", "a", "a", true);
	CONV("iso-2022-jp", "\x1b$B$", "\x1b$B$", true);
}

static void
test_limit(void **state)
{
	struct str out;
	char *big = malloc(LIMIT_DECODED_SIZE + 1);

	(void)state;
	memset(big, 'a', LIMIT_DECODED_SIZE + 1);
	assert_int_equal(
	    charset_to_utf8(A, NULL, big, LIMIT_DECODED_SIZE + 1, &out, NULL),
	    ERR_LIMIT);
	/* Under the size limit but growing over it on conversion. */
	memset(big, 0xe9, LIMIT_DECODED_SIZE);
	assert_int_equal(
	    charset_to_utf8(A, "latin1", big, LIMIT_DECODED_SIZE, &out, NULL),
	    ERR_LIMIT);
	free(big);
}

static void
dec(const char *in, const char *want, bool want_fb)
{
	struct str out;
	bool fb = false;

	assert_int_equal(
	    charset_decode_header(A, str_from(in), &out, &fb), ERR_OK);
	if (!str_eqs(out, want))
		fail_msg("decode \"%s\": got \"%.*s\", want \"%s\"", in,
		    (int)out.n, out.p, want);
	assert_int_equal(out.p[out.n], '\0');
	if (fb != want_fb)
		fail_msg("decode \"%s\": fallback %d", in, fb);
}

static void
test_2047(void **state)
{
	(void)state;
	dec("plain text", "plain text", false);
	dec("", "", false);
	dec("=?utf-8?q?caf=C3=A9?=", "caf\xc3\xa9", false);
	dec("=?ISO-8859-1?Q?Andr=E9?= Pirard", "Andr\xc3\xa9 Pirard", false);
	dec("=?UTF-8?B?w6lsw6h2ZQ==?=", "\xc3\xa9l\xc3\xa8ve", false);
	/* Missing padding, lower-case hex. */
	dec("=?utf-8?b?w6lsw6h2ZQ?=", "\xc3\xa9l\xc3\xa8ve", false);
	dec("=?utf-8?q?caf=c3=a9?=", "caf\xc3\xa9", false);
	dec("=?utf-8?q?hello_world?=", "hello world", false);
	/* Adjacent words join; text around them keeps its blanks. */
	dec("=?utf-8?q?a?= =?utf-8?q?b?=", "ab", false);
	dec("=?utf-8?q?a?=  \t =?utf-8?q?b?=", "ab", false);
	dec("=?utf-8?q?a?= b =?utf-8?q?c?=", "a b c", false);
	dec("Re: [PATCH] =?utf-8?q?a?=", "Re: [PATCH] a", false);
	/* A character split over two words. */
	dec("=?utf-8?q?=C3?= =?UTF-8?q?=A9?=", "\xc3\xa9", false);
	dec("=?utf-8?b?w6k=?= =?utf-8?b?w6k=?=", "\xc3\xa9\xc3\xa9", false);
	/* Mixed charsets. */
	dec("=?iso-8859-1?q?=E9?= =?koi8-r?b?8NLJ18XU?=",
	    "\xc3\xa9\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82", false);
	/* Encoded-words inside words, as MUAs decode them. */
	dec("foo=?utf-8?q?bar?=baz", "foobarbaz", false);
	/* RFC 2231 language suffix. */
	dec("=?US-ASCII*EN?Q?Keith_Moore?=", "Keith Moore", false);
	dec("=?utf-8*en?Q?caf=C3=A9?=", "caf\xc3\xa9", false);
	/* Blanks inside a Q word (broken, but seen). */
	dec("=?utf-8?q?a b?=", "a b", false);
}

static void
test_2047_malformed(void **state)
{
	(void)state;
	dec("=?utf-8?x?abc?=", "=?utf-8?x?abc?=", false);
	dec("=?utf-8?q?unterminated", "=?utf-8?q?unterminated", false);
	dec("=?utf-8?b?!!!?=", "=?utf-8?b?!!!?=", false);
	dec("=??q?a?=", "=??q?a?=", false);
	dec("=?", "=?", false);
	dec("=?utf-8?q?a?", "=?utf-8?q?a?", false);
	dec("a =? b ?= c", "a =? b ?= c", false);
	/* A bad escape stays literal. */
	dec("=?utf-8?q?100=%?=", "100=%", false);
	/* An unknown charset inside a word: UTF-8, else cp1252, flagged. */
	dec("=?x-bogus?q?caf=C3=A9?=", "caf\xc3\xa9", true);
	dec("=?x-bogus?q?caf=E9?=", "caf\xc3\xa9", true);
	/* Raw 8-bit text: UTF-8, else cp1252. */
	dec("caf\xc3\xa9", "caf\xc3\xa9", false);
	dec("caf\xe9", "caf\xc3\xa9", true);
}

static void
test_2047_controls(void **state)
{
	struct str out;
	char *big;

	(void)state;
	dec("a\tb\x01"
	    "c\x7f",
	    "a b c ", false);
	dec("=?utf-8?q?a=0Ab=0D=09c?=", "a b  c", false);
	dec("=?utf-8?q?=C2=85x?=", " x", false);
	dec("=?utf-8?q?a=00b?=",
	    "a\xef\xbf\xbd"
	    "b",
	    false);
	big = malloc(LIMIT_FIELD_SIZE + 1);
	memset(big, 'a', LIMIT_FIELD_SIZE + 1);
	assert_int_equal(charset_decode_header(A,
	                     str_make(big, LIMIT_FIELD_SIZE + 1), &out, NULL),
	    ERR_LIMIT);
	free(big);
}

static void
test_2047_pathological(void **state)
{
	struct buf b = BUF_INIT;
	struct str out;
	size_t i;

	(void)state;
	/* Many openers without a close: must stay linear, and stay text. */
	for (i = 0; b.n + 8 < LIMIT_FIELD_SIZE; i++)
		buf_adds(&b, "=?a?q?x");
	assert_int_equal(
	    charset_decode_header(A, buf_str(&b), &out, NULL), ERR_OK);
	assert_int_equal(out.n, b.n);
	/* Many tiny words, all joined. */
	buf_reset(&b);
	for (i = 0; b.n + 16 < LIMIT_FIELD_SIZE; i++)
		buf_adds(&b, "=?utf-8?q?ab?= ");
	assert_int_equal(
	    charset_decode_header(A, buf_str(&b), &out, NULL), ERR_OK);
	assert_int_equal(out.n, 2 * i + 1); /* the last blank is text */
	buf_free(&b);
}

/* A real-shaped header block: Subject, From and To as ingest reads them. */
static void
test_header_fixture(void **state)
{
	size_t n = 0, k, i;
	char *raw =
	    tu_read_file("tests/fixtures/encoding/headers-2047.eml", &n);
	char *want =
	    tu_read_file("tests/fixtures/encoding/headers-2047.expected", NULL);
	struct buf b = BUF_INIT;
	struct hdr h;
	struct str subj;
	struct addr from, *to;

	(void)state;
	assert_non_null(raw);
	assert_non_null(want);
	assert_int_equal(hdr_split(A, raw, n, &h), ERR_OK);
	assert_int_equal(
	    charset_decode_header(A, hdr_value(A, &h, "Subject"), &subj, NULL),
	    ERR_OK);
	buf_addf(&b, "subject: %.*s\n", (int)subj.n, subj.p);
	assert_int_equal(
	    addr_parse(A, hdr_value(A, &h, "From"), &from), ERR_OK);
	buf_addf(&b, "from: %s <%s>\n", from.name, from.email);
	assert_int_equal(
	    addr_parse_list(A, hdr_value(A, &h, "To"), &to, &k), ERR_OK);
	for (i = 0; i < k; i++)
		buf_addf(&b, "to: %s <%s>\n", to[i].name, to[i].email);
	assert_string_equal(buf_cstr(&b), want);
	buf_free(&b);
	free(raw);
	free(want);
}

static void
param(const char *value, const char *name, const char *want)
{
	struct str got = charset_param(A, str_from(value), name);

	if (want == NULL) {
		if (got.p != NULL)
			fail_msg("param %s in \"%s\": got \"%.*s\", want none",
			    name, value, (int)got.n, got.p);
		return;
	}
	if (got.p == NULL || !str_eqs(got, want))
		fail_msg("param %s in \"%s\": got \"%.*s\", want \"%s\"", name,
		    value, got.p ? (int)got.n : 6, got.p ? got.p : "(null)",
		    want);
	assert_int_equal(got.p[got.n], '\0');
}

static void
test_param(void **state)
{
	(void)state;
	param("text/plain; charset=utf-8", "charset", "utf-8");
	param("text/plain;CHARSET=\"UTF-8\"", "charset", "UTF-8");
	param("text/plain ; format=flowed; charset = us-ascii ", "charset",
	    "us-ascii");
	param("text/plain", "charset", NULL);
	param("text/plain; charsetx=a; charset=b", "charset", "b");
	param("text/plain; xcharset=a", "charset", NULL);
	param("multipart/mixed; boundary=\"----=_Part_1;x\"", "boundary",
	    "----=_Part_1;x");
	param("attachment; filename=\"a \\\"b\\\".patch\"", "filename",
	    "a \"b\".patch");
	param("attachment; filename=my file.txt", "filename", "my file.txt");
	param("attachment; filename=\"\"", "filename", "");
	param(
	    "attachment; filename=\"unterminated", "filename", "unterminated");
	param("attachment; filename", "filename", NULL);
	param("attachment; =x; filename=y", "filename", "y");
	/* The first of two wins. */
	param("attachment; filename=a; filename=b", "filename", "a");
}

static void
test_param_2231(void **state)
{
	(void)state;
	param("attachment; filename*=UTF-8''%e2%82%ac%20rates.patch",
	    "filename", "\xe2\x82\xac rates.patch");
	param("attachment; filename*=iso-8859-1'en'%A3%20rates", "filename",
	    "\xc2\xa3 rates");
	param("attachment; filename*=''plain%2Etxt", "filename", "plain.txt");
	param("attachment; filename*=\"utf-8''quoted%21\"", "filename",
	    "quoted!");
	param("attachment; filename*=broken%20no%20quotes", "filename",
	    "broken no quotes");
	param("attachment;\n filename*0*=UTF-8''caf%C3%A9;\n"
	      " filename*1=\"-long\"; filename*2*=%2Epatch",
	    "filename", "caf\xc3\xa9-long.patch");
	param("x; name*1=b; name*0=a", "name", "ab");
	param("x; name*0=a; name*2=c", "name", "a");
	param("x; name*1=b", "name", NULL);
	param("x; name*1=b; name=plain", "name", "plain");
	/* The RFC 2231 form wins over the plain one. */
	param("attachment; filename=fallback.txt; filename*=utf-8''real.txt",
	    "filename", "real.txt");
	/* Bad escapes stay; an unknown charset falls back. */
	param("x; name*=utf-8''100%; n", "name", "100%");
	param("x; name*=x-bogus''caf%E9", "name", "caf\xc3\xa9");
	/* RFC 2047 inside a quoted parameter, as Outlook and others do. */
	param("attachment; filename=\"=?UTF-8?B?w6lsw6h2ZS5wYXRjaA==?=\"",
	    "filename", "\xc3\xa9l\xc3\xa8ve.patch");
	/* Control characters never come out. */
	param("x; name*=utf-8''a%0Ab%00c", "name",
	    "a b\xef\xbf\xbd"
	    "c");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_fast_path),
		cmocka_unit_test(test_utf8_repair),
		cmocka_unit_test(test_1252),
		cmocka_unit_test(test_iconv),
		cmocka_unit_test(test_iconv_reused),
		cmocka_unit_test(test_iconv_threads),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_2047),
		cmocka_unit_test(test_2047_malformed),
		cmocka_unit_test(test_2047_controls),
		cmocka_unit_test(test_2047_pathological),
		cmocka_unit_test(test_header_fixture),
		cmocka_unit_test(test_param),
		cmocka_unit_test(test_param_2231),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
