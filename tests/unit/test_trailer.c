/*
 * Unit tests of parsers/trailer.c: golden fixtures in
 * tests/fixtures/trailers/, and two oracles run on the fixtures and on
 * the util-linux corpus: `git interpret-trailers --parse` for
 * TRAILER_BLOCK (on the message `git mailinfo` extracts) and b4's own
 * follow-up trailer collection for TRAILER_REPLY.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "parsers/limits.h"
#include "parsers/trailer.h"
#include "tests/unit/testutil.h"
#include "util/arena.h"
#include "util/ascii.h"
#include "util/buf.h"

#define DIR "tests/fixtures/trailers/"

/* The body of a fixture mail: after the first empty line. */
static struct str
body_of(const char *mail, size_t n)
{
	const char *p = strstr(mail, "\n\n");

	assert_non_null(p);
	return str_make(p + 2, n - (size_t)(p + 2 - mail));
}

static void
dump(struct buf *b, const struct trailer *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		trailer_format(b, &t[i]);
		buf_addc(b, '\n');
		if (t[i].person.email != NULL)
			buf_addf(b, "\tperson: %s <%s>\n", t[i].person.name,
			    t[i].person.email);
	}
}

static void
golden(const char *name, enum trailer_mode m)
{
	char path[256];
	struct arena *a = arena_new();
	struct trailer *t;
	size_t n = 0, nt;
	char *mail;
	struct buf b;

	snprintf(path, sizeof(path), DIR "%s.eml", name);
	mail = tu_read_file(path, &n);
	assert_non_null(mail);
	assert_int_equal(
	    trailer_parse(a, body_of(mail, n), m, &t, &nt), ERR_OK);
	buf_init(&b, 0);
	dump(&b, t, nt);
	snprintf(path, sizeof(path), DIR "%s.expected", name);
	assert_true(tu_golden(path, buf_cstr(&b)));
	buf_free(&b);
	free(mail);
	arena_free(a);
}

static void
test_block_basic(void **state)
{
	(void)state;
	golden("block-basic", TRAILER_BLOCK);
}

static void
test_block_not_last(void **state)
{
	(void)state;
	golden("block-prose", TRAILER_BLOCK);
	golden("block-nosob", TRAILER_BLOCK);
}

static void
test_block_quarter(void **state)
{
	(void)state;
	golden("block-quarter", TRAILER_BLOCK);
}

/* Found by the corpus oracle: '#' lines are comments to git, and a last
 * paragraph of comments does not hide the trailer block above it. */
static void
test_block_comment(void **state)
{
	(void)state;
	golden("block-comment", TRAILER_BLOCK);
}

static void
test_reply_review(void **state)
{
	(void)state;
	golden("reply-review", TRAILER_REPLY);
}

static void
test_reply_quoted(void **state)
{
	(void)state;
	golden("reply-quoted", TRAILER_REPLY);
}

static void
test_same_and_format(void **state)
{
	struct arena *a = arena_new();
	struct trailer *t;
	size_t n;
	struct buf b;
	struct str text = STR_LIT("Reviewed-by: A <a@example.org>\n"
	                          "reviewed-BY: Other Name <A@EXAMPLE.ORG>\n"
	                          "Acked-by: A <a@example.org>\n"
	                          "Fixes: 0123abcd (\"x\")\n"
	                          "FIXES: 0123ABCD (\"X\")\n"
	                          "Fixes: 0123abce (\"x\")\n");

	(void)state;
	assert_int_equal(trailer_parse(a, text, TRAILER_BLOCK, &t, &n), ERR_OK);
	assert_int_equal(n, 6);
	assert_string_equal(t[1].name, "Reviewed-by");
	assert_true(trailer_same(&t[0], &t[1]));
	assert_false(trailer_same(&t[0], &t[2]));
	assert_true(trailer_same(&t[3], &t[4]));
	assert_false(trailer_same(&t[3], &t[5]));
	assert_null(t[3].person.email);
	buf_init(&b, 0);
	trailer_format(&b, &t[1]);
	assert_string_equal(
	    buf_cstr(&b), "Reviewed-by: Other Name <A@EXAMPLE.ORG>");
	buf_free(&b);
	arena_free(a);
}

static void
test_limit(void **state)
{
	struct arena *a = arena_new();
	struct trailer *t;
	size_t n, i;
	struct buf b;

	(void)state;
	buf_init(&b, 0);
	for (i = 0; i < LIMIT_TRAILERS; i++)
		buf_addf(&b, "Cc: p%zu@example.org\n", i);
	assert_int_equal(
	    trailer_parse(a, buf_str(&b), TRAILER_BLOCK, &t, &n), ERR_OK);
	assert_int_equal(n, LIMIT_TRAILERS);
	buf_adds(&b, "Cc: one-too-many@example.org\n");
	assert_int_equal(
	    trailer_parse(a, buf_str(&b), TRAILER_BLOCK, &t, &n), ERR_LIMIT);
	assert_int_equal(n, 0);
	assert_null(t);
	assert_int_equal(
	    trailer_parse(a, STR_NULL, TRAILER_REPLY, &t, &n), ERR_OK);
	assert_int_equal(n, 0);
	buf_free(&b);
	arena_free(a);
}

/* Everything a command prints, or NULL when it cannot run. */
static char *
slurp_cmd(const char *cmd, size_t *n)
{
	char chunk[65536];
	struct buf b;
	FILE *f = popen(cmd, "r");
	size_t r;

	if (f == NULL)
		return NULL;
	buf_init(&b, 0);
	while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, r);
	if (pclose(f) != 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_detach(&b, n);
}

/* A value without b4's extinfo: a trailing blank, '#' and no '#' after. */
static struct str
no_hashtag(const char *v)
{
	struct str s = str_from(v);
	const char *h = strrchr(v, '#');

	if (h != NULL && h > v && (h[-1] == ' ' || h[-1] == '\t'))
		s.n = (size_t)(h - v);
	return str_rtrim(s);
}

struct tally {
	size_t mails, theirs, ours, missing, extra, noaddr;
};

/* Compare our TRAILER_REPLY of one body with b4's trailer lines. */
static void
compare_reply(struct str body, struct str b4, struct tally *ty)
{
	struct arena *a = arena_new();
	struct trailer *t;
	size_t n, i = 0;
	struct str line;

	assert_int_equal(trailer_parse(a, body, TRAILER_REPLY, &t, &n), ERR_OK);
	ty->mails++;
	ty->ours += n;
	while (str_nextline(&b4, &line)) {
		long tab = str_find(line, '\t');
		struct str name = str_make(line.p, (size_t)tab);
		struct str value = str_skip(line, (size_t)tab + 1);

		ty->theirs++;
		if (i < n && str_ieqs(name, t[i].name) &&
		    str_eq(value, no_hashtag(t[i].value))) {
			i++;
			continue;
		}
		ty->missing++;
		fprintf(
		    stderr, "b4 has, we have not: %.*s\n", (int)line.n, line.p);
	}
	for (; i < n; i++) {
		ty->extra++;
		fprintf(stderr, "we have, b4 has not: %s: %s\n", t[i].name,
		    t[i].value);
	}
	arena_free(a);
}

/* Run the b4 oracle script on paths and compare every record. */
static void
b4_oracle(const char *paths, struct tally *ty)
{
	char cmd[1024];
	char *out, *p, *end;
	size_t n;

	if (access("/usr/bin/python3", X_OK) != 0)
		skip();
	snprintf(cmd, sizeof(cmd),
	    "/usr/bin/python3 tests/unit/trailer_b4.py %s 2>/dev/null", paths);
	out = slurp_cmd(cmd, &n);
	if (out == NULL)
		skip(); /* no b4 here */
	memset(ty, 0, sizeof(*ty));
	for (p = out, end = out + n; p < end;) {
		size_t len = strtoul(p + 2, &p, 10);
		struct str body, trailers;
		char *e;

		assert_true(*p == '\n');
		body = str_make(p + 1, len);
		p += 1 + len + 1;
		e = strstr(p, "\nE\n");
		if (strncmp(p, "E\n", 2) == 0) {
			trailers = STR_NULL;
			p += 2;
		} else {
			assert_non_null(e);
			trailers = str_make(p, (size_t)(e - p) + 1);
			p = e + 3;
		}
		/* "T name\tvalue" lines: drop the "T " of each. */
		{
			struct buf tb;
			struct str l;

			buf_init(&tb, 0);
			while (str_nextline(&trailers, &l))
				if (str_startswith(l, "T ")) {
					buf_addstr(&tb, str_skip(l, 2));
					buf_addc(&tb, '\n');
				}
			compare_reply(body, buf_str(&tb), ty);
			buf_free(&tb);
		}
	}
	free(out);
}

static void
test_b4_oracle_fixtures(void **state)
{
	struct tally ty;

	(void)state;
	b4_oracle(DIR "reply-review.eml " DIR "reply-quoted.eml", &ty);
	assert_int_equal(ty.mails, 2);
	assert_int_equal(ty.theirs, 5);
	assert_int_equal(ty.missing + ty.extra, 0);
}

/* Every reply of the corpus: our follow-up trailers are b4's. */
static void
test_b4_oracle_corpus(void **state)
{
	const char *corpus = tu_corpus();
	struct tally ty;

	(void)state;
	if (corpus == NULL)
		skip();
	b4_oracle(corpus, &ty);
	fprintf(stderr,
	    "b4 oracle: %zu replies, b4 %zu trailers, ours %zu, "
	    "missing %zu, extra %zu\n",
	    ty.mails, ty.theirs, ty.ours, ty.missing, ty.extra);
	assert_true(ty.mails > 1000);
	assert_int_equal(ty.missing + ty.extra, 0);
}

static bool
vocabulary(struct str name)
{
	return (name.n > 3 && str_ieqs(str_skip(name, name.n - 3), "-by")) ||
	    str_ieqs(name, "fixes") || str_ieqs(name, "link") ||
	    str_ieqs(name, "closes") || str_ieqs(name, "cc");
}

/* What b4 calls a person: an '@' and a dot after it. */
static bool
has_email(struct str v)
{
	long at = str_find(v, '@');

	return at > 0 && str_find(str_skip(v, (size_t)at), '.') > 1;
}

/* Compare our TRAILER_BLOCK of one message with git's trailer lines. */
static void
compare_block(struct str msg, struct str git, struct tally *ty)
{
	struct arena *a = arena_new();
	struct trailer *t;
	size_t n, i = 0;
	struct str line;

	assert_int_equal(trailer_parse(a, msg, TRAILER_BLOCK, &t, &n), ERR_OK);
	ty->mails++;
	ty->ours += n;
	while (str_nextline(&git, &line)) {
		long colon = str_find(line, ':');
		struct str name, value;

		if (colon <= 0)
			continue;
		name = str_rtrim(str_make(line.p, (size_t)colon));
		value = str_trim(str_skip(line, (size_t)colon + 1));
		if (!vocabulary(name))
			continue;
		ty->theirs++;
		if (i < n && str_ieqs(name, t[i].name) &&
		    str_eqs(value, t[i].value)) {
			i++;
			continue;
		}
		if (!str_ieqs(name, "fixes") && !str_ieqs(name, "link") &&
		    !str_ieqs(name, "closes") && !has_email(value)) {
			ty->noaddr++; /* a person without an address */
			continue;
		}
		ty->missing++;
		fprintf(stderr, "git has, we have not: %.*s\n", (int)line.n,
		    line.p);
	}
	for (; i < n; i++) {
		ty->extra++;
		fprintf(stderr, "we have, git has not: %s: %s\n", t[i].name,
		    t[i].value);
	}
	arena_free(a);
}

/*
 * git's trailers of many messages at once: the messages become commits
 * of a scratch repository through one `git fast-import` (each behind a
 * subject line, since git skips the first paragraph as the title), and
 * one `git log --format=%(trailers:only,unfold)` reads them back.
 */
static void
block_oracle(const struct str *msgs, size_t n, struct tally *ty)
{
	char dir[] = "/tmp/test_trailer_XXXXXX", cmd[512];
	const char *env = "HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1";
	char *out, *p, *next;
	size_t i, len;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
	    "%s git init -q --bare %s && %s git -C %s fast-import --quiet", env,
	    dir, env, dir);
	f = popen(cmd, "w");
	assert_non_null(f);
	for (i = 0; i < n; i++)
		fprintf(f,
		    "commit refs/heads/b\ncommitter T <t@example.org> 0 "
		    "+0000\ndata %zu\nSubject line\n\n%.*s\n",
		    msgs[i].n + 14, (int)msgs[i].n, msgs[i].p);
	if (pclose(f) != 0)
		skip(); /* no git here */
	snprintf(cmd, sizeof(cmd),
	    "%s git -C %s log --reverse --format='%%x01%%(trailers:only,"
	    "unfold)' b && rm -rf %s",
	    env, dir, dir);
	out = slurp_cmd(cmd, &len);
	assert_non_null(out);
	memset(ty, 0, sizeof(*ty));
	p = strchr(out, '\1');
	for (i = 0; i < n && p != NULL; i++, p = next) {
		next = strchr(p + 1, '\1');
		compare_block(msgs[i],
		    str_make(
		        p + 1, next ? (size_t)(next - p - 1) : strlen(p + 1)),
		    ty);
	}
	assert_int_equal(i, n);
	free(out);
}

/* A commit message from a patch mail's body: up to the "---" line. */
static struct str
commit_message(struct str body)
{
	long cut = str_findstr(body, "\n---\n", 5);

	if (cut >= 0)
		body.n = (size_t)cut + 1;
	return body;
}

static void
test_git_oracle_fixtures(void **state)
{
	static const char *const names[] = { "block-basic", "block-prose",
		"block-quarter", "block-nosob", "block-comment" };
	char *mails[5];
	struct str msgs[5];
	struct tally ty;
	size_t i, n = 0;
	char path[256];

	(void)state;
	for (i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), DIR "%s.eml", names[i]);
		mails[i] = tu_read_file(path, &n);
		assert_non_null(mails[i]);
		msgs[i] = commit_message(body_of(mails[i], n));
	}
	block_oracle(msgs, 5, &ty);
	assert_int_equal(ty.mails, 5);
	assert_int_equal(ty.ours, 16);
	assert_int_equal(ty.noaddr, 2);
	assert_int_equal(ty.missing + ty.extra, 0);
	for (i = 0; i < 5; i++)
		free(mails[i]);
}

/* The corpus, gunzipped into memory. */
static char *
read_corpus(const char *path, size_t *n)
{
	gzFile z = gzopen(path, "rb");
	char chunk[65536];
	struct buf b;
	int r;

	assert_non_null(z);
	buf_init(&b, 0);
	while ((r = gzread(z, chunk, sizeof(chunk))) > 0)
		buf_add(&b, chunk, (size_t)r);
	gzclose(z);
	return buf_detach(&b, n);
}

/* Every patch mail of the corpus: its commit message (the body up to
 * the "---" line) has git's trailers, as far as we keep them. */
static void
test_git_oracle_corpus(void **state)
{
	const char *corpus = tu_corpus();
	struct str rest, *msgs;
	struct tally ty;
	size_t n = 0, nmsgs = 0, cap = 0;
	char *all;

	(void)state;
	if (corpus == NULL)
		skip();
	all = read_corpus(corpus, &n);
	msgs = NULL;
	rest = str_make(all, n);
	while (rest.n > 0) {
		long next = str_findstr(rest, "\nFrom ", 6);
		struct str mail =
		    next < 0 ? rest : str_make(rest.p, (size_t)next);
		long body = str_findstr(mail, "\n\n", 2);

		rest = next < 0 ? STR_NULL : str_skip(rest, (size_t)next + 1);
		if (body < 0 || str_findstr(mail, "\ndiff --git ", 12) < 0)
			continue;
		mail = commit_message(str_skip(mail, (size_t)body + 2));
		if (nmsgs == cap) {
			cap = cap ? cap * 2 : 1024;
			msgs = realloc(msgs, cap * sizeof(*msgs));
			assert_non_null(msgs);
		}
		msgs[nmsgs++] = mail;
	}
	block_oracle(msgs, nmsgs, &ty);
	fprintf(stderr,
	    "git oracle: %zu patches, git %zu trailers (%zu persons "
	    "without address), ours %zu, missing %zu, extra %zu\n",
	    ty.mails, ty.theirs, ty.noaddr, ty.ours, ty.missing, ty.extra);
	assert_true(ty.mails > 800);
	assert_int_equal(ty.missing + ty.extra, 0);
	free(msgs);
	free(all);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_basic),
		cmocka_unit_test(test_block_not_last),
		cmocka_unit_test(test_block_quarter),
		cmocka_unit_test(test_block_comment),
		cmocka_unit_test(test_reply_review),
		cmocka_unit_test(test_reply_quoted),
		cmocka_unit_test(test_same_and_format),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_b4_oracle_fixtures),
		cmocka_unit_test(test_b4_oracle_corpus),
		cmocka_unit_test(test_git_oracle_fixtures),
		cmocka_unit_test(test_git_oracle_corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
