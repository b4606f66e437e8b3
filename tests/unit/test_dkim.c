/*
 * Unit tests of bot/workflow/dkim.c.  The mails in tests/fixtures/dkim/
 * were signed by dkimpy with RSA keys made by openssl
 * (scripts/make-dkim-fixtures); the keys come from keys.txt, in
 * libopendkim's key-file format, never from DNS.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bot/workflow/dkim.h"
#include "parsers/limits.h"
#include "testutil.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/log.h"

#define FIX "tests/fixtures/dkim/"
#define KEYS FIX "keys.txt"

static char *
fixture(const char *name, size_t *n)
{
	char path[256];
	char *p;

	assert_true((size_t)snprintf(path, sizeof(path), FIX "%s", name) <
	    sizeof(path));
	p = tu_read_file(path, n);
	if (p == NULL)
		fail_msg("cannot read %s", path);
	return p;
}

/* dkimv_verify() of raw[0..n) with keys.txt: the domains, joined by
 * spaces ("" for none), and *why, both in the arena. */
static const char *
verdict_of(struct arena *a, const char *raw, size_t n, const char **why)
{
	struct dkimv *v = dkimv_new(KEYS, 5);
	const char **domains = NULL;
	struct buf b = BUF_INIT;
	const char *out;
	size_t k;

	assert_non_null(v);
	assert_int_equal(dkimv_verify(v, a, raw, n, &domains, why), ERR_OK);
	assert_non_null(domains);
	for (k = 0; domains[k] != NULL; k++)
		buf_addf(&b, "%s%s", k ? " " : "", domains[k]);
	out = arena_strdup(a, buf_cstr(&b));
	buf_free(&b);
	dkimv_free(v);
	return out;
}

static void
expect(const char *name, const char *domains, const char *reason)
{
	struct arena *a = arena_new();
	const char *why = "unset";
	size_t n;
	char *raw = fixture(name, &n);
	const char *got = verdict_of(a, raw, n, &why);

	print_message("%s\n", name);
	if (strcmp(got, domains) != 0)
		fail_msg("%s: got \"%s\" (%s), want \"%s\"", name, got,
		    why ? why : "no reason", domains);
	if (reason == NULL)
		assert_null(why);
	else
		assert_string_equal(why, reason);
	free(raw);
	arena_free(a);
}

static void
test_valid(void **state)
{
	(void)state;
	expect("relaxed.eml", "example.org", NULL);
	expect("relaxed-crlf.eml", "example.org", NULL);
	/* simple/simple, with folded fields stored with LF. */
	expect("simple.eml", "example.org", NULL);
	expect("simple-crlf.eml", "example.org", NULL);
	/* l= covering the whole body counts. */
	expect("l-whole.eml", "example.org", NULL);
	/* Both, topmost first. */
	expect("list-and-author.eml", "lists.example.org example.org", NULL);
	/* A bad signature does not spoil the good one after it. */
	expect("two-sigs.eml", "example.org", NULL);
}

static void
test_refused(void **state)
{
	(void)state;
	expect("unsigned.eml", "", "no DKIM signature");
	expect("body-changed.eml", "",
	    "the body changed after the DKIM signature");
	expect("subject-changed.eml", "", "DKIM signature does not verify");
	expect("no-from.eml", "", "DKIM signature does not cover From");
	expect("l-appended.eml", "",
	    "DKIM signature leaves body text after l= unsigned");
	expect("no-key.eml", "", "no key for missing._domainkey.example.org");
	expect("test-key.eml", "", "DKIM key in test mode (t=y)");
}

/* A mail made from base (relaxed.eml when NULL) by replacing the first
 * from with to (from "" appends): the verdict. */
static void
expect_edited_of(const char *base, const char *what, const char *from,
    const char *to, const char *domains, const char *reason)
{
	struct arena *a = arena_new();
	struct buf b = BUF_INIT;
	const char *why = "unset", *got;
	size_t n;
	char *raw = fixture(base ? base : "relaxed.eml", &n);
	char *at = *from ? strstr(raw, from) : raw + n;

	print_message("%s\n", what);
	assert_non_null(at);
	buf_add(&b, raw, (size_t)(at - raw));
	buf_adds(&b, to);
	buf_adds(&b, at + strlen(from));
	got = verdict_of(a, b.p, b.n, &why);
	assert_string_equal(got, domains);
	if (reason == NULL)
		assert_null(why);
	else
		assert_string_equal(why, reason);
	buf_free(&b);
	free(raw);
	arena_free(a);
}

static void
expect_edited(const char *what, const char *from, const char *to,
    const char *domains, const char *reason)
{
	expect_edited_of(NULL, what, from, to, domains, reason);
}

/* What may follow l=: only what canonicalization drops anyway. */
static void
test_length(void **state)
{
	(void)state;
	expect_edited_of("l-whole.eml", "relaxed: blank lines after l=", "",
	    "\n \t\n\n", "example.org", NULL);
	expect_edited_of("l-whole.eml", "relaxed: text after l=", "", "x\n", "",
	    "DKIM signature leaves body text after l= unsigned");
	expect_edited_of("l-whole-simple.eml",
	    "simple: empty lines after l=", "", "\n\n", "example.org", NULL);
	expect_edited_of("l-whole-simple.eml", "simple: a blank after l=", "",
	    " \n", "", "DKIM signature leaves body text after l= unsigned");
	expect_edited_of("l-whole-simple.eml", "simple: a changed blank",
	    "past the end.\t \n", "past the end. \t\n", "",
	    "the body changed after the DKIM signature");
}

static void
test_edits(void **state)
{
	struct arena *a = arena_new();
	struct buf b = BUF_INIT;
	const char *why;
	size_t n, k;
	char *raw;

	(void)state;
	/* Relaxed canonicalization forgives blanks at line ends. */
	expect_edited("blank at a line end", "past the end.", "past the end. ",
	    "example.org", NULL);
	expect_edited("blank line at the end", "2.39.5\n", "2.39.5\n\n\n",
	    "example.org", NULL);
	expect_edited("From changed", "From: Ada Lovelace <ada@",
	    "From: Ada Lovelace <eve@", "", "DKIM signature does not verify");
	expect_edited("a selector that is no DNS name", "s=yard;", "s=y/rd;",
	    "", "no key for the signature's selector and domain");
	expect_edited("a broken tag list", "a=rsa-sha256;", "a=rsa-sha256;;=;",
	    "", "DKIM signature malformed");
	expect_edited("no From", "From: Ada", "X-From: Ada", "",
	    "no From address DKIM can read");
	/* A signature that does not parse is refused, the good one not. */
	expect_edited("a broken signature above", "DKIM-Signature:",
	    "DKIM-Signature: v=1; a==;;\nDKIM-Signature:", "example.org", NULL);
	expect_edited("a tab before the colon", "Cc:", "Cc\t:", "",
	    "a header field DKIM cannot read");
	/* Over LIMIT_DKIM_SIGNATURES: none is checked. */
	raw = fixture("relaxed.eml", &n);
	for (k = 0; k <= LIMIT_DKIM_SIGNATURES; k++)
		buf_adds(&b, "DKIM-Signature: v=1; d=example.org; s=yard\n");
	buf_add(&b, raw, n);
	assert_string_equal(verdict_of(a, b.p, b.n, &why), "");
	assert_string_equal(why, "too many DKIM signatures: none checked");
	/* Not a mail at all. */
	assert_string_equal(verdict_of(a, "", 0, &why), "");
	assert_string_equal(why, "no DKIM signature");
	assert_string_equal(verdict_of(a, "DKIM-Signature: x\n", 18, &why), "");
	assert_string_equal(why, "no From address DKIM can read");
	assert_string_equal(
	    verdict_of(a, "From: a@b.example\nDKIM-Signature: x\n", 36, &why),
	    "");
	assert_string_equal(why, "DKIM signature malformed");
	buf_free(&b);
	free(raw);
	arena_free(a);
}

/* The key file: comments and blank lines are skipped (keys.txt has both,
 * and a commented-out wrong key before the right one); a file that is
 * not there is refused at once. */
static void
test_keyfile(void **state)
{
	struct arena *a = arena_new();
	struct dkimv *v;
	const char **domains;
	const char *why;
	size_t n;
	char *raw = fixture("relaxed.eml", &n);

	(void)state;
	assert_null(dkimv_new(FIX "no-such-keys.txt", 5));
	dkimv_free(NULL);
	/* One verifier for many mails. */
	v = dkimv_new(KEYS, 5);
	assert_non_null(v);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(
		    dkimv_verify(v, a, raw, n, &domains, &why), ERR_OK);
		assert_string_equal(domains[0], "example.org");
		assert_null(domains[1]);
	}
	dkimv_free(v);
	free(raw);
	arena_free(a);
}

/* DNS mode, without the network: a verifier is made and freed, and an
 * unsigned mail needs no lookup. */
static void
test_dns_mode(void **state)
{
	struct arena *a = arena_new();
	struct dkimv *v = dkimv_new(NULL, 1);
	const char **domains;
	const char *why;
	size_t n;
	char *raw = fixture("unsigned.eml", &n);

	(void)state;
	assert_non_null(v);
	assert_int_equal(dkimv_verify(v, a, raw, n, &domains, &why), ERR_OK);
	assert_null(domains[0]);
	assert_string_equal(why, "no DKIM signature");
	dkimv_free(v);
	free(raw);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_edits),
		cmocka_unit_test(test_length),
		cmocka_unit_test(test_keyfile),
		cmocka_unit_test(test_dns_mode),
	};

	log_set_level(LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
