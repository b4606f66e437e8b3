/*
 * Unit tests of parsers/date.c.  tests/fixtures/dates/odd-zones.txt holds
 * Date: values with odd zones, one a line; odd-zones.expected what `git
 * am` made of each (the commit's raw author date, run with TZ=UTC so
 * that git's fall-back to the local zone is UTC too), and "?" where
 * patchyard does not understand the zone and says so.
 * tests/integration/test_dates.sh holds the staged commits against a
 * live `git am` of the same mails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parsers/date.h"
#include "tests/unit/testutil.h"
#include "util/buf.h"

#define FIX "tests/fixtures/dates/"

static void
test_odd_zones(void **state)
{
	char *text = tu_read_file(FIX "odd-zones.txt", NULL);
	struct buf got = BUF_INIT;
	struct str rest, line;

	(void)state;
	assert_non_null(text);
	rest = str_from(text);
	while (str_nextline(&rest, &line)) {
		int64_t t;
		int tz, a;
		unsigned fl;

		buf_addstr(&got, line);
		if (date_parse(line, &t, &tz, &fl) != ERR_OK) {
			buf_adds(&got, "\tinvalid\n");
			continue;
		}
		a = tz < 0 ? -tz : tz;
		buf_addf(&got, "\t%lld %c%02d%02d%s\n", (long long)t,
		    tz < 0 ? '-' : '+', a / 60, a % 60,
		    fl & DATE_ZONE_UNKNOWN ? " ?" : "");
	}
	assert_true(tu_golden(FIX "odd-zones.expected", buf_cstr(&got)));
	buf_free(&got);
	free(text);
}

/* What is not a date at all. */
static void
test_invalid(void **state)
{
	static const char *const bad[] = { "", "garbage", "Mon, 3 Feb",
		"3 Foo 2025 10:00 +0000", "Mon, 3 Feb 1969 10:00:00 +0000",
		"Mon, 30 Feb 2025 10:00:00 +0000",
		"Mon, 3 Feb 2025 25:00:00 +0000", "Mon, 3 Feb 2025 +0000" };
	int64_t t;
	int tz;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (date_parse(str_from(bad[i]), &t, &tz, NULL) != ERR_PARSE)
			fail_msg("\"%s\" parsed", bad[i]);
}

/* The obsolete forms of RFC 5322 §4.3 git am refuses: two- and
 * three-digit years. */
static void
test_obsolete_years(void **state)
{
	int64_t t, u;
	int tz;
	unsigned fl;

	(void)state;
	assert_int_equal(
	    date_parse(str_from("3 Feb 2025 10:00:00 +0100"), &u, &tz, NULL),
	    ERR_OK);
	assert_int_equal(
	    date_parse(str_from("3 Feb 25 10:00:00 +0100"), &t, &tz, &fl),
	    ERR_OK);
	assert_true(t == u);
	assert_int_equal(fl, 0);
	assert_int_equal(
	    date_parse(str_from("3 Feb 125 10:00:00 +0100"), &t, &tz, NULL),
	    ERR_OK);
	assert_true(t == u);
	assert_int_equal(
	    date_parse(str_from("3 Feb 99 10:00:00 +0100"), &t, &tz, NULL),
	    ERR_OK);
	assert_true(t < u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odd_zones),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_obsolete_years),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
