/*
 * Unit tests of parsers/patatt.c and of its keyring reader,
 * bot/workflow/devsig.c.  The mails in tests/fixtures/patatt/ were signed
 * by the real patatt library (scripts/make-patatt-fixtures), which also
 * wrote down what it hashes for three of them (<case>.canon, the body;
 * <case>.signed, the header bytes): ours must be the same bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <nettle/sha2.h>

#include "bot/workflow/devsig.h"
#include "parsers/limits.h"
#include "parsers/patatt.h"
#include "testutil.h"
#include "util/arena.h"
#include "util/base64.h"
#include "util/buf.h"

#define FIX "tests/fixtures/patatt/"
#define KEYRING FIX "keyring"

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

/* devsig_identity() on a fixture: the identity, *why. */
static const char *
identity(
    struct arena *a, const char *keyring, const char *name, const char **why)
{
	size_t n;
	char *raw = fixture(name, &n);
	const char *id = devsig_identity(a, keyring, raw, n, NULL, why);

	free(raw);
	return id;
}

static void
expect_ok(const char *name, const char *who)
{
	struct arena *a = arena_new();
	const char *why = NULL;
	const char *id = identity(a, KEYRING, name, &why);

	if (id == NULL)
		fail_msg("%s: %s", name, why);
	assert_string_equal(id, who);
	arena_free(a);
}

static void
expect_fail(const char *keyring, const char *name, const char *reason)
{
	struct arena *a = arena_new();
	const char *why = NULL;

	print_message("%s\n", name);
	assert_null(identity(a, keyring, name, &why));
	assert_non_null(why);
	assert_string_equal(why, reason);
	arena_free(a);
}

/* The bytes patatt hashes, ours: the body hash and the header digest. */
static void
compare_canon(const char *name)
{
	struct arena *a = arena_new();
	char file[64], bh[45], *raw, *canon, *signed_;
	size_t n, cn, sn;
	struct patatt_sig *s;
	struct sha256_ctx c;
	uint8_t d[32];

	print_message("%s\n", name);
	snprintf(file, sizeof(file), "%s.eml", name);
	raw = fixture(file, &n);
	snprintf(file, sizeof(file), "%s.canon", name);
	canon = fixture(file, &cn);
	snprintf(file, sizeof(file), "%s.signed", name);
	signed_ = fixture(file, &sn);
	assert_int_equal(patatt_parse(a, raw, n, &s, &n), ERR_OK);
	assert_int_equal(n, 1);
	/* bh= is patatt's hash of its canonical body; ours agrees. */
	sha256_init(&c);
	sha256_update(&c, cn, (const uint8_t *)canon);
	sha256_digest(&c, sizeof(d), d);
	base64_encode(bh, d, sizeof(d));
	assert_non_null(strstr(raw, bh));
	assert_true(s->body_ok);
	/* The digest is patatt's over its signed header bytes. */
	sha256_init(&c);
	sha256_update(&c, sn, (const uint8_t *)signed_);
	sha256_digest(&c, sizeof(d), d);
	assert_memory_equal(s->digest, d, 32);
	assert_true(s->usable);
	free(raw);
	free(canon);
	free(signed_);
	arena_free(a);
}

static void
test_canonical_as_patatt(void **state)
{
	(void)state;
	compare_canon("patch");
	compare_canon("reply");
	compare_canon("qp-inbody");
}

static void
test_parse(void **state)
{
	struct arena *a = arena_new();
	struct patatt_sig *s;
	size_t n, ns;
	char *raw = fixture("patch.eml", &n);

	(void)state;
	assert_int_equal(patatt_parse(a, raw, n, &s, &ns), ERR_OK);
	assert_int_equal(ns, 1);
	assert_string_equal(s->identity, "ada@example.org");
	assert_string_equal(s->selector, "yard");
	assert_string_equal(s->algo, "ed25519-sha256");
	assert_int_equal(s->kind, PATATT_ED25519);
	assert_string_equal(s->from, "ada@example.org");
	free(raw);
	/* No s=: "default", as patatt has it. */
	raw = fixture("default-selector.eml", &n);
	assert_int_equal(patatt_parse(a, raw, n, &s, &ns), ERR_OK);
	assert_int_equal(ns, 1);
	assert_string_equal(s->selector, "default");
	free(raw);
	/* The in-body From: is the one signed. */
	raw = fixture("qp-inbody.eml", &n);
	assert_int_equal(patatt_parse(a, raw, n, &s, &ns), ERR_OK);
	assert_string_equal(s->from, "bob@example.net");
	assert_string_equal(s->identity, "ada@example.org");
	free(raw);
	raw = fixture("openpgp.eml", &n);
	assert_int_equal(patatt_parse(a, raw, n, &s, &ns), ERR_OK);
	assert_int_equal(ns, 1);
	assert_int_equal(s->kind, PATATT_OPENPGP);
	assert_false(s->usable);
	free(raw);
	raw = fixture("two-sigs.eml", &n);
	assert_int_equal(patatt_parse(a, raw, n, &s, &ns), ERR_OK);
	assert_int_equal(ns, 2);
	assert_string_equal(s[0].identity, "mia@maint.example.org");
	assert_string_equal(s[1].identity, "ada@example.org");
	free(raw);
	/* No signature: the body is not even looked at. */
	raw = fixture("unsigned.eml", &n);
	assert_int_equal(patatt_parse(a, raw, n, &s, &ns), ERR_OK);
	assert_int_equal(ns, 0);
	free(raw);
	arena_free(a);
}

/* patatt_verify() with the key itself, and with another. */
static void
test_verify_key(void **state)
{
	static const unsigned char other[32] = { 1 };
	struct arena *a = arena_new();
	unsigned char pub[33];
	struct patatt_sig *s;
	char *raw, *b64;
	size_t n, ns, kn;
	bool bad = false;

	(void)state;
	b64 = fixture("keyring/ed25519/example.org/ada/yard", &kn);
	assert_int_equal(base64_decode((char *)pub, b64, kn, &bad), 32);
	assert_false(bad);
	raw = fixture("patch.eml", &n);
	assert_int_equal(patatt_parse(a, raw, n, &s, &ns), ERR_OK);
	assert_true(patatt_verify(s, pub));
	assert_true(patatt_verify_headers(s, pub));
	assert_false(patatt_verify(s, other));
	free(raw);
	/* A changed body: the headers still verify, the whole does not. */
	raw = fixture("body-changed.eml", &n);
	assert_int_equal(patatt_parse(a, raw, n, &s, &ns), ERR_OK);
	assert_false(s->body_ok);
	assert_true(patatt_verify_headers(s, pub));
	assert_false(patatt_verify(s, pub));
	free(raw);
	free(b64);
	arena_free(a);
}

static void
test_verifies(void **state)
{
	(void)state;
	expect_ok("patch.eml", "ada@example.org");
	expect_ok("reply.eml", "mia@maint.example.org");
	expect_ok("patch-crlf.eml", "ada@example.org");
	expect_ok("qp-inbody.eml", "ada@example.org");
	expect_ok("default-selector.eml", "ada@example.org");
	expect_ok("plus-tag.eml", "ada+lists@example.org");
	/* Mallory's signature as Mia's fails; Ada's, after it, counts. */
	expect_ok("two-sigs.eml", "ada@example.org");
}

static void
test_refused(void **state)
{
	(void)state;
	expect_fail(KEYRING, "body-changed.eml",
	    "the body changed after the developer signature");
	expect_fail(KEYRING, "subject-changed.eml",
	    "developer signature does not verify");
	expect_fail(
	    KEYRING, "other-key.eml", "developer signature does not verify");
	expect_fail(KEYRING, "unknown-selector.eml",
	    "no key for ada@example.org (selector laptop) in auth.keyring");
	expect_fail(KEYRING, "openpgp.eml",
	    "an openpgp developer signature (not verified)");
	expect_fail(KEYRING, "unsigned.eml", "no developer signature");
	expect_fail(NULL, "patch.eml", "auth.keyring is not set");
	expect_fail(NULL, "unsigned.eml", "no developer signature");
	expect_fail(FIX "no-such-keyring", "patch.eml",
	    "no key for ada@example.org (selector yard) in auth.keyring");
}

/* patch.eml with its first "from" replaced by "to". */
static char *
edited(const char *from, const char *to, size_t *n)
{
	size_t rn;
	char *raw = fixture("patch.eml", &rn), *at = strstr(raw, from);
	struct buf b = BUF_INIT;

	assert_non_null(at);
	buf_add(&b, raw, (size_t)(at - raw));
	buf_adds(&b, to);
	buf_adds(&b, at + strlen(from));
	free(raw);
	return buf_detach(&b, n);
}

/*
 * i= and s= become a file name only when they are a plain name: no '/',
 * no leading '.', printable ASCII, not too long.  A name that passes is
 * lower-cased (the key is found, the edited signature then fails).
 */
static void
test_key_names(void **state)
{
	static const struct {
		const char *from, *to, *why;
	} cases[] = {
		{ "s=yard", "s=..", NULL },
		{ "s=yard", "s=.yard", NULL },
		{ "s=yard", "s=../../../../etc/passwd", NULL },
		{ "i=ada@example.org", "i=..@example.org", NULL },
		{ "i=ada@example.org", "i=ada@..", NULL },
		{ "i=ada@example.org", "i=ada@example.org/..", NULL },
		{ "i=ada@example.org", "i=a/b@example.org", NULL },
		{ "i=ada@example.org", "i=ada", NULL },
		{ "i=ada@example.org", "i=@example.org", NULL },
		{ "s=yard", "s=yard\xc3\xa9", NULL },
		{ "s=yard",
		    "s=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		    "aaaaaaaaaa",
		    NULL },
		{ "s=yard", "s=YARD", "developer signature does not verify" },
		{ "i=ada@example.org", "i=ADA@Example.ORG",
		    "developer signature does not verify" },
		{ "s=yard", "s=a%2Fb",
		    "no key for ada@example.org (selector a%2Fb) in "
		    "auth.keyring" },
	};
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct arena *a = arena_new();
		const char *why = NULL;
		size_t n;
		char *raw = edited(cases[k].from, cases[k].to, &n);

		print_message("%s\n", cases[k].to);
		assert_null(devsig_identity(a, KEYRING, raw, n, NULL, &why));
		assert_string_equal(why,
		    cases[k].why ? cases[k].why
		                 : "a developer signature whose i= or s= "
		                   "names no key");
		free(raw);
		arena_free(a);
	}
}

/* Over LIMIT_DEVSIGS signatures none is read; h= naming too many fields,
 * or not naming from and subject, is no signature of patatt's. */
static void
test_limits(void **state)
{
	struct arena *a = arena_new();
	struct buf b = BUF_INIT;
	struct patatt_sig *s;
	const char *why;
	char *raw, *hdr, *end;
	size_t n, ns, k;

	(void)state;
	raw = fixture("patch.eml", &n);
	hdr = strstr(raw, "X-Developer-Signature:");
	end = strstr(hdr, "X-Developer-Key:");
	buf_add(&b, raw, (size_t)(hdr - raw));
	for (k = 0; k <= LIMIT_DEVSIGS; k++)
		buf_add(&b, hdr, (size_t)(end - hdr));
	buf_adds(&b, end);
	assert_int_equal(patatt_parse(a, b.p, b.n, &s, &ns), ERR_LIMIT);
	assert_null(devsig_identity(a, KEYRING, b.p, b.n, NULL, &why));
	assert_string_equal(
	    why, "the mail is over a limit: developer signatures not read");
	buf_free(&b);
	free(raw);
	raw = edited("h=from:subject", "h=from", &n);
	assert_int_equal(patatt_parse(a, raw, n, &s, &ns), ERR_OK);
	assert_false(s->usable);
	free(raw);
	raw = edited("h=from:subject",
	    "h=from:subject:a:b:c:d:e:f:g:h:i:j:k:l:m:n:o", &n);
	assert_int_equal(patatt_parse(a, raw, n, &s, &ns), ERR_OK);
	assert_false(s->usable);
	free(raw);
	/* A b= that is no signature, or not PyNaCl's 96 bytes. */
	raw = edited("b=", "b=AAAA", &n);
	assert_int_equal(patatt_parse(a, raw, n, &s, &ns), ERR_OK);
	assert_false(s->usable);
	free(raw);
	raw = edited("t=1764583200; ", "", &n);
	assert_int_equal(patatt_parse(a, raw, n, &s, &ns), ERR_OK);
	assert_false(s->usable);
	free(raw);
	/* No i=: patatt would take From's address, we take nobody's. */
	raw = edited(" i=ada@example.org;", "", &n);
	assert_int_equal(patatt_parse(a, raw, n, &s, &ns), ERR_OK);
	assert_null(s->identity);
	assert_false(s->usable);
	assert_null(devsig_identity(a, KEYRING, raw, n, NULL, &why));
	assert_string_equal(
	    why, "a developer signature whose i= or s= names no key");
	free(raw);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonical_as_patatt),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_verify_key),
		cmocka_unit_test(test_verifies),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_key_names),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
