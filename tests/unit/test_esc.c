/* Unit tests of util/esc.c: the one escaping family of the pages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/esc.h"

typedef void esc_fn(struct buf *, const char *, size_t);

static const char *
esc(esc_fn *fn, const char *s, size_t n)
{
	static struct buf b;

	buf_free(&b);
	fn(&b, s, n);
	return buf_cstr(&b);
}

#define ESC(fn, s) esc(fn, s, sizeof(s) - 1)

static void
test_text(void **state)
{
	(void)state;
	assert_string_equal(ESC(esc_html_text, "a < b && c > d"),
	    "a &lt; b &amp;&amp; c &gt; d");
	/* Quotes are harmless in element text. */
	assert_string_equal(ESC(esc_html_text, "\"it's\""), "\"it's\"");
	assert_string_equal(ESC(esc_html_text, "<script>alert(1)</script>"),
	    "&lt;script&gt;alert(1)&lt;/script&gt;");
	assert_string_equal(
	    ESC(esc_html_text, "tab\tand\nline\r"), "tab\tand\nline\r");
	assert_string_equal(ESC(esc_html_text, ""), "");
}

static void
test_attr(void **state)
{
	(void)state;
	assert_string_equal(ESC(esc_html_attr, "\"><img src=x onerror=a()>"),
	    "&quot;&gt;&lt;img src=x onerror=a()&gt;");
	assert_string_equal(ESC(esc_html_attr, "it's"), "it&#39;s");
	assert_string_equal(ESC(esc_html_attr, "caf\xc3\xa9 \xe2\x9c\x93"),
	    "caf\xc3\xa9 \xe2\x9c\x93");
}

/* What neither HTML nor XML 1.0 may hold becomes U+FFFD. */
static void
test_controls_and_bad_utf8(void **state)
{
	(void)state;
	assert_string_equal(ESC(esc_html_text, "a\0b"),
	    "a\xef\xbf\xbd"
	    "b");
	assert_string_equal(ESC(esc_html_text, "\x01\x1b[31m\x7f"),
	    "\xef\xbf\xbd\xef\xbf\xbd[31m\xef\xbf\xbd");
	assert_string_equal(ESC(esc_html_attr, "x\xff<y\xc3"),
	    "x\xef\xbf\xbd&lt;y\xef\xbf\xbd");
	/* An overlong '<' is no way around the escaping. */
	assert_string_equal(ESC(esc_html_text, "\xc0\xbcscript"),
	    "\xef\xbf\xbd\xef\xbf\xbdscript");
}

static void
test_url(void **state)
{
	(void)state;
	assert_string_equal(ESC(esc_url, "a-b_c.d~e"), "a-b_c.d~e");
	assert_string_equal(ESC(esc_url, "<x@y> & \"q\"/?#%"),
	    "%3Cx%40y%3E%20%26%20%22q%22%2F%3F%23%25");
	assert_string_equal(ESC(esc_url, "\xc3\xa9\n"), "%C3%A9%0A");
}

/* An escape appends whole; a cap is for the buffer's owner to check
 * (buf_fits), as the template renderer does. */
static void
test_append(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b, 8);
	buf_adds(&b, "x");
	esc_html_text(&b, "<<<", 3);
	assert_string_equal(buf_cstr(&b), "x&lt;&lt;&lt;");
	assert_false(buf_fits(&b, 0));
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_attr),
		cmocka_unit_test(test_controls_and_bad_utf8),
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_append),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
