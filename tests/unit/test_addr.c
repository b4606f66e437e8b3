/* Unit tests of parsers/addr.c: mailboxes, domains, DKIM alignment. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parsers/addr.h"
#include "parsers/hdr.h"
#include "parsers/limits.h"
#include "tests/unit/testutil.h"
#include "util/arena.h"
#include "util/buf.h"

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

static void
one(const char *value, const char *name, const char *email)
{
	struct addr ad;
	enum err e = addr_parse(A, str_from(value), &ad);

	if (email == NULL) {
		if (e != ERR_PARSE)
			fail_msg("\"%s\": parsed as <%s>", value, ad.email);
		return;
	}
	if (e != ERR_OK)
		fail_msg("\"%s\": %s", value, err_str(e));
	if (strcmp(ad.email, email) != 0 || strcmp(ad.name, name) != 0)
		fail_msg("\"%s\": got \"%s\" <%s>, want \"%s\" <%s>", value,
		    ad.name, ad.email, name, email);
}

static void
test_mailbox(void **state)
{
	(void)state;
	one("Ann Author <ann@Example.ORG>", "Ann Author", "ann@example.org");
	one("\"Last, First\" <first.last@example.org>", "Last, First",
	    "first.last@example.org");
	one("first.last@example.org (First Last)", "First Last",
	    "first.last@example.org");
	one("a@b.org", "", "a@b.org");
	one("<a@b.org>", "", "a@b.org");
	one("  Name   a@b.org  ", "Name", "a@b.org");
	one("Name (comment) <a@b.org> (trailing)", "Name", "a@b.org");
	one("<a@b.org> (Name After)", "Name After", "a@b.org");
	one("\"A \\\"B\\\" C\" <a@b.org>", "A \"B\" C", "a@b.org");
	one("Name <a@b.org", "Name", "a@b.org");
	one("<@route1,@route2:user@host.org>", "", "user@host.org");
	one("a@b.org, c@d.org", "", "a@b.org");
	one("Ann <Ann.Author@EXAMPLE.org>", "Ann", "Ann.Author@example.org");
	one("\"quoted local\"@example.org", "", "\"quoted local\"@example.org");
	/* Names in RFC 2047, also inside quotes, and raw 8-bit. */
	one("=?utf-8?q?Andr=C3=A9?= Pirard <andre@example.org>",
	    "Andr\xc3\xa9 Pirard", "andre@example.org");
	one("\"=?utf-8?q?Andr=C3=A9?=\" <andre@example.org>", "Andr\xc3\xa9",
	    "andre@example.org");
	one("J\xc3\xb6rg <j@b.org>", "J\xc3\xb6rg", "j@b.org");
	one("J\xf6rg <j@b.org>", "J\xc3\xb6rg", "j@b.org");
	one("=?iso-8859-1?q?J=F6rg?= <j@b.org>", "J\xc3\xb6rg", "j@b.org");
	/* Control characters never come out of a name. */
	one("\"a\x01"
	    "b\" <a@b.org>",
	    "a b", "a@b.org");
	/* No address at all. */
	one("", NULL, NULL);
	one("undisclosed-recipients:;", NULL, NULL);
	one("foo bar", NULL, NULL);
	one("Name <>", NULL, NULL);
	one("Name <broken@>", NULL, NULL);
	one("Name <@nolocal.org>", NULL, NULL);
	/* A quote never closed is read as if it were not there. */
	one("\"unterminated <a@b.org>", "unterminated", "a@b.org");
	one("\"Ann, \"Bob\" <b@c.org>", "Ann, Bob", "b@c.org");
	assert_int_equal(
	    addr_parse(A, STR_NULL, &(struct addr){ 0 }), ERR_PARSE);
}

static void
test_list(void **state)
{
	struct addr *v;
	size_t n, i;
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(addr_parse_list(A,
	                     STR_LIT("team: a@x.org, \"B, C\" <b@y.org>; "
	                             "d@z.org, junk, , undisclosed:;"),
	                     &v, &n),
	    ERR_OK);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].email, "a@x.org");
	assert_string_equal(v[1].name, "B, C");
	assert_string_equal(v[1].email, "b@y.org");
	assert_string_equal(v[2].email, "d@z.org");
	assert_int_equal(addr_parse_list(A, STR_NULL, &v, &n), ERR_OK);
	assert_int_equal(n, 0);
	for (i = 0; i < LIMIT_ADDRESSES + 100; i++)
		buf_addf(&b, "u%zu@example.org, ", i);
	assert_int_equal(addr_parse_list(A, buf_str(&b), &v, &n), ERR_OK);
	assert_int_equal(n, LIMIT_ADDRESSES);
	assert_string_equal(v[LIMIT_ADDRESSES - 1].email, "u511@example.org");
	buf_free(&b);
}

static void
test_same_domain(void **state)
{
	(void)state;
	assert_true(addr_same("Ann@Example.org", "ann@example.ORG"));
	assert_false(addr_same("ann@example.org", "ann@example.com"));
	assert_false(addr_same(NULL, "a@b"));
	assert_string_equal(addr_domain("a@b.org"), "b.org");
	assert_string_equal(addr_domain("\"a@b\"@c.org"), "c.org");
	assert_string_equal(addr_domain("nodomain"), "");
	assert_string_equal(addr_domain(NULL), "");
}

static void
org(const char *domain, const char *want)
{
	const char *got = addr_org_domain(A, domain);

	if (want == NULL ? got != NULL : got == NULL || strcmp(got, want))
		fail_msg("org(%s): got %s, want %s", domain ? domain : "NULL",
		    got ? got : "NULL", want ? want : "NULL");
}

static void
test_org_domain(void **state)
{
	(void)state;
	org("example.org", "example.org");
	org("mail.example.org", "example.org");
	org("Mail.EXAMPLE.Org", "example.org");
	org("mail.example.org.", "example.org");
	org("vger.kernel.org", "kernel.org");
	org("a.b.co.uk", "b.co.uk");
	org("foo.github.io", "foo.github.io");
	org("b\xc3\xbc"
	    "cher.de",
	    "b\xc3\xbc"
	    "cher.de");
	/* Public suffixes and non-names have none. */
	org("org", NULL);
	org("co.uk", NULL);
	org("github.io", NULL);
	org("localhost", NULL);
	org("", NULL);
	org(NULL, NULL);
	org(".org", NULL);
	org("a..example.org", NULL);
	org("a b.example.org", NULL);
	org("example.org/x", NULL);
}

static void
test_dkim_covers(void **state)
{
	(void)state;
	assert_true(addr_dkim_covers(A, "example.org", "example.org"));
	assert_true(addr_dkim_covers(A, "mail.example.org", "example.org"));
	assert_true(addr_dkim_covers(A, "EXAMPLE.org", "example.ORG"));
	assert_true(addr_dkim_covers(A, "mail.foo.co.uk", "foo.co.uk"));
	assert_true(addr_dkim_covers(A, "x.a.github.io", "a.github.io"));
	/* A child or a sibling speaks for nobody above or beside it. */
	assert_false(addr_dkim_covers(A, "example.org", "lists.example.org"));
	assert_false(
	    addr_dkim_covers(A, "maint.example.org", "lists.example.org"));
	assert_false(addr_dkim_covers(A, "badexample.org", "example.org"));
	/* Nor does a public suffix, nor another domain. */
	assert_false(addr_dkim_covers(A, "example.org", "org"));
	assert_false(addr_dkim_covers(A, "foo.co.uk", "co.uk"));
	assert_false(addr_dkim_covers(A, "a.github.io", "github.io"));
	assert_false(addr_dkim_covers(A, "org", "org"));
	assert_false(addr_dkim_covers(A, "example.org", "example.net"));
	assert_false(addr_dkim_covers(A, "", ""));
	assert_false(addr_dkim_covers(A, "example.org", NULL));
}

static const char *const auth_names[] = { "pass", "none", "fail", "unaligned" };

/* Every tests/fixtures/auth/<case>.eml against its .expected verdict. */
static void
test_auth_fixtures(void **state)
{
	DIR *d = opendir("tests/fixtures/auth");
	struct dirent *e;
	int count = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char path[512], *raw, *want;
		size_t n = 0, len = strlen(e->d_name);
		struct hdr h;
		struct addr from;
		const char *why = NULL;
		enum addr_auth r;

		if (len < 5 || strcmp(e->d_name + len - 4, ".eml") != 0)
			continue;
		snprintf(
		    path, sizeof(path), "tests/fixtures/auth/%s", e->d_name);
		raw = tu_read_file(path, &n);
		snprintf(path, sizeof(path),
		    "tests/fixtures/auth/%.*s.expected", (int)(len - 4),
		    e->d_name);
		want = tu_read_file(path, NULL);
		assert_non_null(raw);
		assert_non_null(want);
		assert_int_equal(hdr_split(A, raw, n, &h), ERR_OK);
		assert_int_equal(
		    addr_parse(A, hdr_value(A, &h, "From"), &from), ERR_OK);
		r = addr_auth_check(A, &h, "mx.example.net", from.email, &why);
		assert_non_null(why);
		if (strncmp(want, auth_names[r], strlen(auth_names[r])) != 0 ||
		    want[strlen(auth_names[r])] != '\n')
			fail_msg("%s: got %s (%s), want %s", e->d_name,
			    auth_names[r], why, want);
		free(raw);
		free(want);
		count++;
	}
	closedir(d);
	assert_true(count >= 14);
}

static void
test_auth_inline(void **state)
{
	static const char raw[] =
	    "Authentication-Results: mx.example.net; dkim=pass "
	    "header.d=example.org\n\n";
	struct hdr h;
	const char *why;

	(void)state;
	assert_int_equal(hdr_split(A, raw, sizeof(raw) - 1, &h), ERR_OK);
	/* Our authserv-id is compared without case. */
	assert_int_equal(
	    addr_auth_check(A, &h, "MX.EXAMPLE.NET", "x@example.org", &why),
	    ADDR_AUTH_PASS);
	assert_int_equal(
	    addr_auth_check(A, &h, "mx.example", "x@example.org", &why),
	    ADDR_AUTH_NONE);
	assert_int_equal(
	    addr_auth_check(A, &h, "", "x@example.org", &why), ADDR_AUTH_NONE);
	assert_int_equal(
	    addr_auth_check(A, &h, "mx.example.net", "x@example.com", NULL),
	    ADDR_AUTH_UNALIGNED);
	assert_int_equal(
	    addr_auth_check(A, &h, "mx.example.net", "nodomain", &why),
	    ADDR_AUTH_UNALIGNED);
	assert_int_equal(addr_auth_check(A, &h, "mx.example.net", NULL, &why),
	    ADDR_AUTH_UNALIGNED);
}

/* Junk in every position must not crash or loop. */
static void
test_auth_junk(void **state)
{
	static const char *const values[] = { "", ";", ";;;", "(", "\"",
		"mx.example.net", "mx.example.net;",
		"mx.example.net; =", "mx.example.net; dkim",
		"mx.example.net; dkim=", "mx.example.net; dkim=pass header.d",
		"mx.example.net; dkim=pass "
		"header.d=",
		"mx.example.net; dkim=pass (unclosed header.d=example.org",
		"mx.example.net; dkim=pass header.d=\"example.org",
		"mx.example.net 1 2 3; dkim=pass header.d=example.org",
		"mx.example.net; /=; =/; dkim/=pass", NULL };
	size_t i;

	(void)state;
	for (i = 0; values[i]; i++) {
		char raw[256];
		struct hdr h;
		const char *why;
		int n = snprintf(raw, sizeof(raw),
		    "Authentication-Results: %s\n\n", values[i]);

		assert_int_equal(hdr_split(A, raw, (size_t)n, &h), ERR_OK);
		addr_auth_check(A, &h, "mx.example.net", "a@example.org", &why);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mailbox),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_same_domain),
		cmocka_unit_test(test_org_domain),
		cmocka_unit_test(test_dkim_covers),
		cmocka_unit_test(test_auth_fixtures),
		cmocka_unit_test(test_auth_inline),
		cmocka_unit_test(test_auth_junk),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
