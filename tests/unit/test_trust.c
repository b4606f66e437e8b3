/*
 * bot/workflow/trust.c: how a mail authenticates (docs/DESIGN.md §5) by the
 * road it came, without the network: relays, doubled headers, imports,
 * auth.require = none, and who a trailer is verified for.  The DKIM and
 * patatt verifiers have tests of their own (test_dkim, test_patatt).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bot/workflow/trust.h"

static const char conf_dkim[] =
    "[core]\n\tdatabase = x.db\n"
    "[project \"demo\"]\n\tlist = demo@lists.example.org\n"
    "[mailmap]\n\talias = Mia <mia@maint.example.org> "
    "<mia@home.example>\n";
static const char conf_none[] =
    "[core]\n\tdatabase = x.db\n"
    "[project \"demo\"]\n\tlist = demo@lists.example.org\n"
    "[auth]\n\trequire = none\n";

struct fx {
	struct arena *a;
	struct config conf;
	struct trust *t;
};

static void
fx_open(struct fx *f, const char *text, size_t n)
{
	struct config_error *errs = NULL;
	size_t nerrs = 0;

	f->a = arena_new();
	assert_int_equal(
	    config_parse(f->a, "t.conf", text, n, &f->conf, &errs, &nerrs),
	    ERR_OK);
	f->t = trust_new(&f->conf);
}

static void
fx_close(struct fx *f)
{
	trust_free(f->t);
	arena_free(f->a);
}

/* How raw authenticates by road r: the proof, or "-" and the note. */
static const char *
judge(struct fx *f, const char *raw, const char *relay, bool verify,
    const char **note)
{
	struct trust_road r = { relay, verify };
	struct mail_opts o;
	struct mail m;
	const char *proof;

	memset(&o, 0, sizeof(o));
	o.command_prefix = "#yard";
	mail_parse(f->a, raw, strlen(raw), &o, &m);
	trust_judge(f->t, f->a, &r, &m, raw, strlen(raw), &proof, note);
	return proof ? proof : "-";
}

#define HEAD                                                                   \
	"From: Mia Maint <mia@maint.example.org>\n"                            \
	"To: demo@lists.example.org\n"                                         \
	"Subject: Re: [PATCH] x\n"                                             \
	"Message-ID: <r1@maint.example.org>\n"                                 \
	"In-Reply-To: <p1@example.org>\n"                                      \
	"Date: Mon, 7 Dec 2026 10:00:00 +0000\n"
#define BODY "\n#yard stage\n"
#define AR(id, res, d)                                                         \
	"Authentication-Results: " id "; dkim=" res " header.d=" d "\n"

static void
test_relay(void **state)
{
	struct fx f;
	const char *note;

	(void)state;
	fx_open(&f, conf_dkim, sizeof(conf_dkim) - 1);
	assert_string_equal(
	    judge(&f,
	        AR("lists.example.org", "pass", "maint.example.org") HEAD BODY,
	        "lists.example.org", true, &note),
	    "relay lists.example.org");
	/* A parent of the From domain speaks for it. */
	assert_string_equal(
	    judge(&f, AR("lists.example.org", "pass", "example.org") HEAD BODY,
	        "lists.example.org", true, &note),
	    "relay lists.example.org");
	/* The same header on another road: not believed. */
	assert_string_equal(
	    judge(&f,
	        AR("lists.example.org", "pass", "maint.example.org") HEAD BODY,
	        "mx.yard.example", true, &note),
	    "-");
	assert_non_null(strstr(note, "not the relay's"));
	/* A sibling of the From domain: not believed. */
	assert_string_equal(
	    judge(&f,
	        AR("lists.example.org", "pass", "lists.example.org") HEAD BODY,
	        "lists.example.org", true, &note),
	    "-");
	/* A pass below the relay's own topmost fail: not believed. */
	assert_string_equal(
	    judge(&f,
	        AR("lists.example.org", "fail", "maint.example.org") AR(
	            "lists.example.org", "pass", "maint.example.org") HEAD BODY,
	        "lists.example.org", true, &note),
	    "-");
	fx_close(&f);
}

static void
test_doubled_headers(void **state)
{
	static const char *const twice[] = {
		"From: Eve <eve@maint.example.org>\n",
		"Sender: Eve <eve@maint.example.org>\n",
		"Date: Tue, 8 Dec 2026 10:00:00 +0000\n", "Subject: other\n"
	};
	struct fx f;
	const char *note;
	size_t i;

	(void)state;
	fx_open(&f, conf_dkim, sizeof(conf_dkim) - 1);
	for (i = 0; i < sizeof(twice) / sizeof(twice[0]); i++) {
		char *raw = arena_printf(f.a, "%s%s%s%s",
		    AR("mx", "pass", "maint.example.org"), HEAD,
		    i == 1 ? "Sender: Mia <mia@maint.example.org>\n" : "",
		    twice[i]);

		raw = arena_printf(f.a, "%s%s", raw, BODY);
		assert_string_equal(judge(&f, raw, "mx", true, &note), "-");
		assert_non_null(strstr(note, "two "));
	}
	fx_close(&f);
}

static void
test_import_and_none(void **state)
{
	struct fx f;
	const char *note;

	(void)state;
	fx_open(&f, conf_dkim, sizeof(conf_dkim) - 1);
	/* An import believes no header and checks no signature. */
	assert_string_equal(
	    judge(&f, AR("mx", "pass", "maint.example.org") HEAD BODY, NULL,
	        false, &note),
	    "-");
	assert_non_null(strstr(note, "imported"));
	/* A road without relay nor signature. */
	assert_string_equal(judge(&f, HEAD BODY, NULL, true, &note), "-");
	assert_non_null(strstr(note, "no DKIM or developer signature"));
	fx_close(&f);
	fx_open(&f, conf_none, sizeof(conf_none) - 1);
	assert_string_equal(
	    judge(&f, HEAD BODY, NULL, false, &note), "none required");
	fx_close(&f);
}

/* Whether judging raw by road r may wait for a DKIM key. */
static bool
may_wait(struct fx *f, const char *raw, const char *relay, bool verify)
{
	struct trust_road r = { relay, verify };
	struct mail_opts o;
	struct mail m;

	memset(&o, 0, sizeof(o));
	mail_parse(f->a, raw, strlen(raw), &o, &m);
	return trust_may_wait(f->t, &r, &m);
}

#define SIG                                                                    \
	"DKIM-Signature: v=1; a=rsa-sha256; d=maint.example.org; s=y;\n"       \
	" h=from; bh=AAAA; b=AAAA\n"

/* A key lookup is the one thing of a judgement that waits (for DNS):
 * callers commit before it, so it must be said whenever it may come. */
static void
test_may_wait(void **state)
{
	struct fx f;

	(void)state;
	fx_open(&f, conf_dkim, sizeof(conf_dkim) - 1);
	assert_true(may_wait(&f, SIG HEAD BODY, NULL, true));
	assert_true(may_wait(&f, SIG HEAD BODY, "mx.yard.example", true));
	/* Nothing to look up, or nothing checked (an import). */
	assert_false(may_wait(&f, HEAD BODY, "mx.yard.example", true));
	assert_false(may_wait(&f, SIG HEAD BODY, NULL, false));
	fx_close(&f);
	fx_open(&f, conf_none, sizeof(conf_none) - 1);
	assert_false(may_wait(&f, SIG HEAD BODY, NULL, true));
	fx_close(&f);
}

static void
test_trailer_verified(void **state)
{
	struct fx f;
	struct trailer t;

	(void)state;
	fx_open(&f, conf_dkim, sizeof(conf_dkim) - 1);
	memset(&t, 0, sizeof(t));
	t.name = "Reviewed-by";
	t.person.email = "mia@maint.example.org";
	assert_true(
	    trust_trailer_verified(&f.conf, "MIA@maint.example.org", &t, true));
	assert_true(
	    trust_trailer_verified(&f.conf, "mia@home.example", &t, true));
	assert_false(trust_trailer_verified(
	    &f.conf, "mia@maint.example.org", &t, false));
	assert_false(
	    trust_trailer_verified(&f.conf, "eve@maint.example.org", &t, true));
	t.person.email = NULL;
	t.name = "Fixes";
	assert_true(
	    trust_trailer_verified(&f.conf, "eve@maint.example.org", &t, true));
	fx_close(&f);
}

static const char conf_aliases[] =
    "[core]\n\tdatabase = x.db\n"
    "[project \"demo\"]\n\tlist = demo@lists.example.org\n"
    "[mailmap]\n"
    "\talias = Mia Maintainer <mia@example.org> <mia@home.example>\n"
    "\talias = <mia@home.example> Old Mia <mia@old.example>\n"
    "\talias = <bob@example.org> <robert@example.org>\n"
    "[maintainer \"mia\"]\n\temail = mia@example.org\n"
    "[maintainer \"docs\"]\n\temail = doc@example.org\n"
    "\tpath = doc/\n\tpath = man?/*.1\n"
    "[ci \"bot\"]\n\temail = ci@example.org\n";

static void
test_same_person(void **state)
{
	struct fx f;

	(void)state;
	fx_open(&f, conf_aliases, sizeof(conf_aliases) - 1);
	assert_true(
	    trust_same_person(&f.conf, "Mia@Example.org", "mia@example.ORG"));
	assert_true(
	    trust_same_person(&f.conf, "mia@example.org", "MIA@home.example"));
	assert_true(
	    trust_same_person(&f.conf, "mia@home.example", "mia@example.org"));
	/* Joined through the second line. */
	assert_true(
	    trust_same_person(&f.conf, "mia@old.example", "mia@example.org"));
	assert_false(
	    trust_same_person(&f.conf, "mia@example.org", "bob@example.org"));
	assert_false(trust_same_person(
	    &f.conf, "mallory@evil.example", "mia@example.org"));
	assert_false(trust_same_person(&f.conf, NULL, "mia@example.org"));
	assert_false(trust_same_person(&f.conf, "", ""));
	fx_close(&f);
}

static void
test_maintains(void **state)
{
	struct fx f;
	struct buf out = BUF_INIT;

	(void)state;
	fx_open(&f, conf_aliases, sizeof(conf_aliases) - 1);
	/* A maintainer without paths: everything, through an alias too. */
	assert_true(trust_maintains(
	    &f.conf, "demo", "mia@old.example", "a.c\nlib/b.c", &out));
	assert_int_equal(out.n, 0);
	assert_true(
	    trust_maintains(&f.conf, "demo", "mia@example.org", NULL, &out));
	assert_int_equal(out.n, 0);
	/* Paths: what the patterns leave out is named. */
	assert_true(trust_maintains(
	    &f.conf, "demo", "doc@example.org", "doc/x.txt\nman1/ls.1", &out));
	assert_int_equal(out.n, 0);
	assert_true(trust_maintains(&f.conf, "demo", "doc@example.org",
	    "doc/x.txt\nsrc/a.c\nman1/sub/ls.1", &out));
	assert_string_equal(buf_cstr(&out), "src/a.c, man1/sub/ls.1");
	buf_reset(&out);
	/* The whole project: only without path patterns. */
	assert_true(
	    trust_maintains(&f.conf, "demo", "doc@example.org", NULL, &out));
	assert_string_equal(buf_cstr(&out), "all of demo");
	buf_reset(&out);
	/* Strangers and CI addresses maintain nothing. */
	assert_false(trust_maintains(
	    &f.conf, "demo", "ci@example.org", "doc/x.txt", &out));
	assert_true(trust_ci(&f.conf, "CI@example.org"));
	assert_false(trust_ci(&f.conf, "mia@example.org"));
	buf_free(&out);
	fx_close(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relay),
		cmocka_unit_test(test_doubled_headers),
		cmocka_unit_test(test_import_and_none),
		cmocka_unit_test(test_may_wait),
		cmocka_unit_test(test_trailer_verified),
		cmocka_unit_test(test_same_person),
		cmocka_unit_test(test_maintains),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
