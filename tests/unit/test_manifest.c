/*
 * Unit tests of parsers/manifest.c: the epochs of a grokmirror manifest
 * as public-inbox writes it, keys that are not epochs, values that name
 * repositories, and text that is not one JSON object.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parsers/manifest.h"

#define MAX 64

/* The epochs text lists, as "0,1,..." ("!" after them: beyond), or
 * "parse" when it is refused. */
static const char *
epochs(const char *text)
{
	static char out[512];
	bool have[MAX], beyond = true;
	size_t i, k = 0;

	if (manifest_epochs(text, strlen(text), have, MAX, &beyond) != ERR_OK)
		return "parse";
	out[0] = '\0';
	for (i = 0; i < MAX; i++)
		if (have[i])
			k += (size_t)snprintf(
			    out + k, sizeof(out) - k, "%s%zu", k ? "," : "", i);
	if (beyond)
		snprintf(out + k, sizeof(out) - k, "!");
	return out;
}

/* What public-inbox serves for an inbox of two epochs (as Perl's JSON
 * writes it, on one line; here folded), the second one referring to
 * the first. */
static void
test_public_inbox(void **state)
{
	(void)state;
	assert_string_equal(
	    epochs("{\"/lkml/git/0.git\":{\"description\":\"LKML\","
	           "\"fingerprint\":\"6a1c\",\"modified\":1700000000,"
	           "\"owner\":null,\"reference\":null},"
	           "\"/lkml/git/1.git\":{\"description\":\"LKML\","
	           "\"fingerprint\":\"9f2e\",\"modified\":1700000001,"
	           "\"owner\":null,\"reference\":\"/lkml/git/7.git\"}}"),
	    "0,1");
	assert_string_equal(epochs(" \n{ \"/a/git/3.git\" : { } ,\r\n"
	                           "\t\"/a/git/10.git\":{\"x\":[1,2,{}]}}\n"),
	    "3,10");
	assert_string_equal(epochs("{}"), "");
	/* JSON may escape a slash. */
	assert_string_equal(epochs("{\"\\/a\\/git\\/2.git\":{}}"), "2");
}

static void
test_not_epochs(void **state)
{
	(void)state;
	assert_string_equal(
	    epochs("{\"/a/git/all.git\":{},\"/a/git/01.git\":{},"
	           "\"/a/git/.git\":{},\"/a/git/3.gitx\":{},\"/a/3.git\":{},"
	           "\"/a/xgit/4.git\":{},\"/a/git/\\u0035.git\":{},"
	           "\"git/5.git\":{},\"/a/git/-1.git\":{}}"),
	    "");
	/* Only the top-level keys: a nested key or a value is not one. */
	assert_string_equal(epochs("{\"x\":{\"/a/git/6.git\":1},"
	                           "\"y\":[\"/a/git/7.git\"],"
	                           "\"z\":\"/a/git/8.git\"}"),
	    "");
	/* At or above the bound: told, not listed. */
	assert_string_equal(
	    epochs("{\"/a/git/0.git\":{},\"/a/git/64.git\":{}}"), "0!");
	assert_string_equal(epochs("{\"/a/git/99999999999999.git\":{}}"), "!");
}

static void
test_not_json(void **state)
{
	char deep[400];
	size_t k;

	(void)state;
	assert_string_equal(epochs(""), "parse");
	assert_string_equal(epochs("[]"), "parse");
	assert_string_equal(epochs("{"), "parse");
	assert_string_equal(epochs("{\"/a/git/0.git\":}"), "parse");
	assert_string_equal(epochs("{\"/a/git/0.git\" {}}"), "parse");
	assert_string_equal(epochs("{\"/a/git/0.git\":{}"), "parse");
	assert_string_equal(epochs("{\"/a/git/0.git\":{]}"), "parse");
	assert_string_equal(epochs("{\"/a/git/0.git\":{},}"), "parse");
	assert_string_equal(epochs("{} {}"), "parse");
	assert_string_equal(epochs("{\"a\nb\":1}"), "parse");
	assert_string_equal(epochs("{\"a\\q\":1}"), "parse");
	assert_string_equal(epochs("{\"a\\u12\":1}"), "parse");
	assert_string_equal(epochs("{\"a\":1"), "parse");
	/* NUL is not JSON, inside a string or out. */
	assert_int_equal(manifest_epochs("{\"a\":1\0}", 8, (bool[MAX]){ 0 },
	                     MAX, &(bool){ false }),
	    ERR_PARSE);
	/* MANIFEST_DEPTH levels in a value, and one more. */
	k = (size_t)snprintf(deep, sizeof(deep), "{\"/a/git/1.git\":");
	memset(deep + k, '[', MANIFEST_DEPTH);
	memset(deep + k + MANIFEST_DEPTH, ']', MANIFEST_DEPTH);
	snprintf(deep + k + 2 * MANIFEST_DEPTH,
	    sizeof(deep) - k - 2 * MANIFEST_DEPTH, "}");
	assert_string_equal(epochs(deep), "1");
	memset(deep + k, '[', MANIFEST_DEPTH + 1);
	memset(deep + k + MANIFEST_DEPTH + 1, ']', MANIFEST_DEPTH + 1);
	snprintf(deep + k + 2 * MANIFEST_DEPTH + 2,
	    sizeof(deep) - k - 2 * MANIFEST_DEPTH - 2, "}");
	assert_string_equal(epochs(deep), "parse");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_public_inbox),
		cmocka_unit_test(test_not_epochs),
		cmocka_unit_test(test_not_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
