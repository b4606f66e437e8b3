/* Unit tests of parsers/hdr.c: the cheap header pass. */
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
#include "parsers/mail.h"
#include "tests/unit/testutil.h"
#include "util/arena.h"
#include "util/buf.h"

/* "Name=unfolded value" per field, then the body after a marker. */
static char *
dump(struct arena *a, const struct hdr *h, const char *raw, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < h->n; i++) {
		struct str v = hdr_unfold(a, h->f[i].value);

		buf_addstr(&b, h->f[i].name);
		buf_addc(&b, '=');
		buf_addstr(&b, v);
		buf_addc(&b, '\n');
	}
	if (h->no_body) {
		assert_int_equal(h->body_off, n);
		buf_adds(&b, "--no body--\n");
	} else {
		buf_adds(&b, "--body--\n");
		buf_add(&b, raw + h->body_off, n - h->body_off);
	}
	return buf_detach(&b, NULL);
}

/* LF to CRLF, for running every fixture both ways. */
static char *
to_crlf(const char *p, size_t n, size_t *outn)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '\n')
			buf_addc(&b, '\r');
		buf_addc(&b, p[i]);
	}
	return buf_detach(&b, outn);
}

static char *
from_crlf(const char *p)
{
	struct buf b = BUF_INIT;

	for (; *p; p++)
		if (!(p[0] == '\r' && p[1] == '\n'))
			buf_addc(&b, *p);
	return buf_detach(&b, NULL);
}

static void
golden(const char *name)
{
	char path[256], *raw, *want, *got, *crlf;
	size_t n = 0, cn = 0;
	struct arena *a = arena_new();
	struct hdr h;

	assert_true(snprintf(path, sizeof(path), "tests/fixtures/broken/%s.eml",
	                name) < (int)sizeof(path));
	raw = tu_read_file(path, &n);
	assert_non_null(raw);
	assert_true(
	    snprintf(path, sizeof(path), "tests/fixtures/broken/%s.expected",
	        name) < (int)sizeof(path));
	want = tu_read_file(path, NULL);
	assert_non_null(want);

	assert_int_equal(hdr_split(a, raw, n, &h), ERR_OK);
	got = dump(a, &h, raw, n);
	assert_string_equal(got, want);
	free(got);

	crlf = to_crlf(raw, n, &cn);
	assert_int_equal(hdr_split(a, crlf, cn, &h), ERR_OK);
	got = dump(a, &h, crlf, cn);
	free(crlf);
	crlf = from_crlf(got);
	assert_string_equal(crlf, want);
	free(crlf);
	free(got);
	free(raw);
	free(want);
	arena_free(a);
}

static void
test_garbage_lines(void **state)
{
	(void)state;
	golden("header-garbage");
}

static void
test_header_only(void **state)
{
	(void)state;
	golden("header-only");
	golden("truncated-header");
}

static void
test_get(void **state)
{
	static const char raw[] = "X-A: 1\nx-a: 2\nSubject:\n\tfolded\n\nbody";
	struct arena *a = arena_new();
	struct hdr h;
	const struct hdr_field *f;

	(void)state;
	assert_int_equal(hdr_split(a, raw, sizeof(raw) - 1, &h), ERR_OK);
	assert_int_equal(h.n, 3);
	f = hdr_get(&h, "X-A");
	assert_ptr_equal(f, &h.f[0]);
	assert_true(str_eqs(hdr_value(a, &h, "x-A"), "1"));
	/* Raw values are views, with the fold kept. */
	assert_true(str_eqs(h.f[2].value, "\n\tfolded"));
	assert_true(str_eqs(hdr_value(a, &h, "SUBJECT"), "folded"));
	assert_null(hdr_get(&h, "X-B"));
	assert_null(hdr_value(a, &h, "X-B").p);
	assert_null(hdr_get(&h, "X-"));
	assert_true(str_eqs(str_make(raw + h.body_off, 4), "body"));
	arena_free(a);
}

static void
test_empty(void **state)
{
	struct arena *a = arena_new();
	struct hdr h;

	(void)state;
	assert_int_equal(hdr_split(a, "", 0, &h), ERR_OK);
	assert_int_equal(h.n, 0);
	assert_true(h.no_body);
	assert_int_equal(hdr_split(a, "\n\nbody", 6, &h), ERR_OK);
	assert_int_equal(h.n, 0);
	assert_false(h.no_body);
	assert_int_equal(h.body_off, 1);
	assert_int_equal(hdr_split(a, "From x\n", 7, &h), ERR_OK);
	assert_int_equal(h.n, 0);
	assert_true(h.no_body);
	arena_free(a);
}

static void
test_unfold(void **state)
{
	struct arena *a = arena_new();
	struct str s;
	char *big;

	(void)state;
	s = hdr_unfold(a, str_make(" a\r\n\t b\n c\0d  ", 15));
	assert_true(str_eqs(s, "a b c d"));
	assert_int_equal(s.p[s.n], '\0');
	s = hdr_unfold(a, STR_LIT("   "));
	assert_int_equal(s.n, 0);
	big = malloc(LIMIT_FIELD_SIZE * 2);
	memset(big, 'x', LIMIT_FIELD_SIZE * 2);
	/* Never cut: hdr_split() refuses a field over the limit instead. */
	s = hdr_unfold(a, str_make(big, LIMIT_FIELD_SIZE * 2));
	assert_int_equal(s.n, LIMIT_FIELD_SIZE * 2);
	free(big);
	arena_free(a);
}

static void
test_limits(void **state)
{
	struct arena *a = arena_new();
	struct buf b = BUF_INIT;
	struct hdr h;
	size_t i;

	(void)state;
	/* A 1 MB header block. */
	buf_adds(&b, "Subject: x\n");
	for (i = 0; i < 1024 * 1024 / 64; i++)
		buf_adds(&b,
		    "X-Filler: 0123456789012345678901234567890123456789"
		    "012\n");
	buf_adds(&b, "\nbody\n");
	assert_int_equal(hdr_split(a, b.p, b.n, &h), ERR_LIMIT);
	/* One 1 MB line with no newline at all. */
	buf_reset(&b);
	buf_adds(&b, "Subject: ");
	for (i = 0; i < 1024 * 1024 / 16; i++)
		buf_adds(&b, "0123456789abcdef");
	assert_int_equal(hdr_split(a, b.p, b.n, &h), ERR_LIMIT);
	/* Too many fields, each small. */
	buf_reset(&b);
	for (i = 0; i <= LIMIT_HEADER_COUNT; i++)
		buf_adds(&b, "A: b\n");
	assert_int_equal(hdr_split(a, b.p, b.n, &h), ERR_LIMIT);
	/* Exactly the limit is fine. */
	buf_reset(&b);
	for (i = 0; i < LIMIT_HEADER_COUNT; i++)
		buf_adds(&b, "A: b\n");
	buf_adds(&b, "\n");
	assert_int_equal(hdr_split(a, b.p, b.n, &h), ERR_OK);
	assert_int_equal(h.n, LIMIT_HEADER_COUNT);
	buf_free(&b);
	arena_free(a);
}

/*
 * One field longer than LIMIT_FIELD_SIZE: the header is over a limit
 * (docs/STYLE.md: store, mark, do not parse), whether the field is one long
 * line or folded over many; a value of exactly the limit is fine.
 */
static void
test_field_limit(void **state)
{
	struct arena *a = arena_new();
	struct buf b = BUF_INIT;
	struct hdr h;
	size_t i;

	(void)state;
	buf_adds(&b, "From: a@example.org\nSubject:");
	for (i = 0; i <= LIMIT_FIELD_SIZE; i++)
		buf_addc(&b, 'x');
	buf_adds(&b, "\nTo: b@example.org\n\nbody\n");
	assert_int_equal(hdr_split(a, b.p, b.n, &h), ERR_LIMIT);
	assert_string_equal(h.limit, "header field");
	/* Folded: 2,000 lines of 38 bytes. */
	buf_reset(&b);
	buf_adds(&b, "References:");
	for (i = 0; i < 2000; i++)
		buf_adds(&b, " <0123456789012345678901234567@x.org>\n");
	buf_adds(&b, "Subject: hi\n\nbody\n");
	assert_int_equal(hdr_split(a, b.p, b.n, &h), ERR_LIMIT);
	assert_string_equal(h.limit, "header field");
	/* Exactly the limit (the value after the colon, as written). */
	buf_reset(&b);
	buf_adds(&b, "Subject:");
	for (i = 0; i < LIMIT_FIELD_SIZE; i++)
		buf_addc(&b, i ? 'x' : ' ');
	buf_adds(&b, "\n\nbody\n");
	assert_int_equal(hdr_split(a, b.p, b.n, &h), ERR_OK);
	assert_int_equal(hdr_unfold(a, h.f[0].value).n, LIMIT_FIELD_SIZE - 1);
	buf_free(&b);
	arena_free(a);
}

/* The same through mail_parse(): stored and marked, not parsed. */
static void
test_mail_field_limit(void **state)
{
	struct arena *a = arena_new();
	struct buf b = BUF_INIT;
	struct mail_opts o;
	struct mail m;
	size_t i;

	(void)state;
	memset(&o, 0, sizeof(o));
	buf_adds(&b,
	    "From: A <a@example.org>\nMessage-ID: <big@example.org>\n"
	    "Subject: [PATCH] ");
	for (i = 0; i < LIMIT_FIELD_SIZE; i++)
		buf_addc(&b, 'x');
	buf_adds(&b, "\n\nbody\n");
	assert_int_equal(mail_parse(a, b.p, b.n, &o, &m), ERR_LIMIT);
	assert_true(m.flags & MAIL_F_OVERLIMIT);
	assert_string_equal(m.limit, "header field");
	assert_int_equal(m.kind, MAIL_OTHER);
	assert_non_null(m.msgid);
	buf_free(&b);
	arena_free(a);
}

/* The change-id and base-commit of a body (mail_parse's footers). */
static void
footers(const char *body, const char *change_id, const char *base_commit)
{
	struct arena *a = arena_new();
	struct buf b = BUF_INIT;
	struct mail_opts o;
	struct mail m;

	memset(&o, 0, sizeof(o));
	buf_adds(&b,
	    "From: A <a@example.org>\nMessage-ID: <f@example.org>\n"
	    "Subject: Re: x\n\n");
	buf_adds(&b, body);
	assert_int_equal(mail_parse(a, b.p, b.n, &o, &m), ERR_OK);
	if (change_id)
		assert_string_equal(m.change_id, change_id);
	else
		assert_null(m.change_id);
	if (base_commit)
		assert_string_equal(m.base_commit, base_commit);
	else
		assert_null(m.base_commit);
	buf_free(&b);
	arena_free(a);
}

/* A footer counts at the start of a line only, the first whose value
 * has a length it can have; CRLF and a last line without LF too. */
static void
test_footer_ids(void **state)
{
	char big[200];

	(void)state;
	footers("hi\n---\nchange-id: 20261206-fix-abc123\n"
	        "base-commit: 0123456789abcdef\n",
	    "20261206-fix-abc123", "0123456789abcdef");
	footers("change-id: first\nbase-commit: abcdef0", "first", "abcdef0");
	footers("see change-id: nope\nxbase-commit: 0123456789\n", NULL, NULL);
	footers("change-id: \nchange-id: second\nchange-id: third\n", "second",
	    NULL);
	footers("base-commit: abc\nbase-commit: 0123456\n", NULL, "0123456");
	footers("change-id: crlf-id \r\nbase-commit: 0123456789\r\n", "crlf-id",
	    "0123456789");
	footers(
	    "change-id:\nchange-id:\tx\nbase-commit:0123456789\n", NULL, NULL);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "change-id: ", 11);
	footers(big, NULL, NULL);
}

static void
test_big_mail(void **state)
{
	size_t n = 50u * 1024 * 1024, i;
	char *raw = malloc(n);
	struct arena *a = arena_new();
	struct hdr h;
	static const char head[] = "Subject: big\nFrom: a@b\n\n";

	(void)state;
	for (i = 0; i < n; i++)
		raw[i] = (i % 77 == 76) ? '\n' : 'x';
	memcpy(raw, head, sizeof(head) - 1);
	assert_int_equal(hdr_split(a, raw, n, &h), ERR_OK);
	assert_int_equal(h.n, 2);
	assert_int_equal(h.body_off, sizeof(head) - 1);
	free(raw);
	arena_free(a);
}

static void
test_binary_garbage(void **state)
{
	struct arena *a = arena_new();
	uint32_t x = 12345;
	char buf[4096];
	int round;

	(void)state;
	for (round = 0; round < 2000; round++) {
		size_t i, n = (size_t)(x % sizeof(buf));
		struct hdr h;

		for (i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = (char)(x >> 16);
			if ((x >> 8) % 7 == 0)
				buf[i] = ':';
			else if ((x >> 8) % 11 == 0)
				buf[i] = '\n';
		}
		assert_int_equal(hdr_split(a, buf, n, &h), ERR_OK);
		assert_true(h.body_off <= n);
		for (i = 0; i < h.n; i++) {
			assert_true(h.f[i].name.p >= buf);
			assert_true(h.f[i].value.p + h.f[i].value.n <= buf + n);
			hdr_unfold(a, h.f[i].value);
		}
		arena_reset(a);
	}
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_garbage_lines),
		cmocka_unit_test(test_header_only),
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_unfold),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_field_limit),
		cmocka_unit_test(test_mail_field_limit),
		cmocka_unit_test(test_footer_ids),
		cmocka_unit_test(test_big_mail),
		cmocka_unit_test(test_binary_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
