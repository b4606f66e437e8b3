/* util/secret: the first line of a secret file, and a clear error. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/secret.h"

static void
test_first_line(void **state)
{
	char path[] = "/tmp/yard-secret-XXXXXX", out[64], why[256];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "s3cret\r\nsecond\n", 15), 15);
	close(fd);
	assert_int_equal(
	    secret_read(path, out, sizeof(out), why, sizeof(why)), ERR_OK);
	assert_string_equal(out, "s3cret");
	/* An empty file is an empty secret. */
	fd = open(path, O_WRONLY | O_TRUNC);
	close(fd);
	assert_int_equal(
	    secret_read(path, out, sizeof(out), why, sizeof(why)), ERR_OK);
	assert_string_equal(out, "");
	unlink(path);
	/* A missing file names itself. */
	assert_int_equal(
	    secret_read(path, out, sizeof(out), why, sizeof(why)), ERR_CONFIG);
	assert_non_null(strstr(why, path));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_line),
	};

	return cmocka_run_group_tests_name("secret", tests, NULL, NULL);
}
