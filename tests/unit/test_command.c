/*
 * Unit tests of parsers/command.c: reply bodies in
 * tests/fixtures/commands/ against their golden .expected parse, plus the
 * prefix and limit rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "parsers/command.h"
#include "parsers/limits.h"
#include "tests/unit/testutil.h"
#include "util/arena.h"
#include "util/buf.h"

#define DIR "tests/fixtures/commands/"

static const char *const verb_names[] = { "bad", "stage", "drop", "graduate",
	"fold", "state", "retest", "check", "withdraw", "help", "forward" };

/* The body of a fixture mail: after the first empty line.  The fixtures
 * are plain 8-bit text, so no MIME decoding is needed here. */
static struct str
body_of(const char *mail, size_t n)
{
	const char *p = strstr(mail, "\n\n");
	const char *q = strstr(mail, "\r\n\r\n");

	if (q != NULL && (p == NULL || q < p))
		return str_make(q + 4, n - (size_t)(q + 4 - mail));
	assert_non_null(p);
	return str_make(p + 2, n - (size_t)(p + 2 - mail));
}

static void
field(struct buf *b, const char *name, const char *v)
{
	if (v != NULL)
		buf_addf(b, "  %s: %s\n", name, v);
}

/* One block per command, for golden files. */
static void
dump(struct buf *b, const struct command *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		buf_addf(b, "%s <- %s\n", verb_names[c[i].verb], c[i].line);
		field(b, "arg", c[i].arg);
		field(b, "arg2", c[i].arg2);
		field(b, "arg3", c[i].arg3);
		field(b, "error", c[i].error);
		if (c[i].verb == CMD_BAD)
			assert_non_null(c[i].error);
		else
			assert_null(c[i].error);
	}
}

static void
golden(const char *name)
{
	char path[256];
	struct arena *a = arena_new();
	struct command *cmds;
	size_t n = 0, ncmds;
	char *mail;
	struct buf b;

	snprintf(path, sizeof(path), DIR "%s.eml", name);
	mail = tu_read_file(path, &n);
	assert_non_null(mail);
	assert_int_equal(
	    command_parse(a, body_of(mail, n), NULL, &cmds, &ncmds), ERR_OK);
	buf_init(&b, 0);
	dump(&b, cmds, ncmds);
	snprintf(path, sizeof(path), DIR "%s.expected", name);
	assert_true(tu_golden(path, buf_cstr(&b)));
	buf_free(&b);
	free(mail);
	arena_free(a);
}

static void
test_simple(void **state)
{
	(void)state;
	golden("simple");
}

static void
test_several(void **state)
{
	(void)state;
	golden("several");
}

static void
test_bad(void **state)
{
	(void)state;
	golden("bad");
}

static void
test_crlf_nbsp(void **state)
{
	(void)state;
	golden("crlf");
}

static void
test_outlook(void **state)
{
	(void)state;
	golden("outlook");
	golden("underscore");
}

static void
test_too_many(void **state)
{
	char path[] = DIR "toomany.eml";
	struct arena *a = arena_new();
	struct command *cmds;
	size_t n = 0, ncmds, i;
	char *mail = tu_read_file(path, &n);

	(void)state;
	assert_non_null(mail);
	assert_int_equal(
	    command_parse(a, body_of(mail, n), "#yard", &cmds, &ncmds), ERR_OK);
	assert_int_equal(ncmds, LIMIT_COMMANDS + 1);
	for (i = 0; i < LIMIT_COMMANDS; i++)
		assert_int_equal(cmds[i].verb, CMD_RETEST);
	assert_int_equal(cmds[LIMIT_COMMANDS].verb, CMD_BAD);
	assert_non_null(strstr(cmds[LIMIT_COMMANDS].error, "too many"));
	free(mail);
	arena_free(a);
}

/* The prefix is configurable and matched exactly. */
static void
test_prefix(void **state)
{
	struct arena *a = arena_new();
	struct command *cmds;
	size_t n;
	struct str text = STR_LIT("#yard stage\n@bot stage\n@bots stage\n"
	                          "@BOT retest\n@bot\tgraduate\n@bot");

	(void)state;
	assert_int_equal(command_parse(a, text, "@bot", &cmds, &n), ERR_OK);
	assert_int_equal(n, 3);
	assert_int_equal(cmds[0].verb, CMD_STAGE);
	assert_string_equal(cmds[0].line, "@bot stage");
	assert_int_equal(cmds[1].verb, CMD_GRADUATE);
	assert_int_equal(cmds[2].verb, CMD_BAD);
	assert_string_equal(cmds[2].line, "@bot");
	assert_int_equal(command_parse(a, text, "", &cmds, &n), ERR_INVAL);
	assert_int_equal(
	    command_parse(a, STR_LIT("no commands\n"), NULL, &cmds, &n),
	    ERR_OK);
	assert_int_equal(n, 0);
	assert_null(cmds);
	assert_int_equal(command_parse(a, STR_NULL, NULL, &cmds, &n), ERR_OK);
	assert_int_equal(n, 0);
	arena_free(a);
}

static void
test_drop_reasons(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; command_drop_reasons[i] != REASON_NONE; i++)
		assert_true(command_drop_reasons[i] != REASON_FOLDED &&
		    command_drop_reasons[i] != REASON_CONFLICT);
	assert_int_equal(i, 5);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simple),
		cmocka_unit_test(test_several),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_crlf_nbsp),
		cmocka_unit_test(test_outlook),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_drop_reasons),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
