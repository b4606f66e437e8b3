/*
 * Unit tests of bot/source/mboxout.c: mails written as public-inbox's
 * mboxrd, plain and gzip, read back by our own mbox reader as the mails
 * that went in (less the CRs of CR LF).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <zlib.h>

#include "bot/source/mboxout.h"
#include "bot/source/source.h"
#include "testutil.h"

static const char m1[] = "From: a@example.org\nSubject: one\n\n"
                         "From the start.\n>From quoted.\n>>From twice.\n"
                         "From:not a separator\n";
static const char m2[] = "From: b@example.org\r\nSubject: two\r\n\r\n"
                         "no newline at the end";

static const char want[] =
    "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
    "From: a@example.org\nSubject: one\n\n"
    ">From the start.\n>>From quoted.\n>>>From twice.\n"
    "From:not a separator\n\n"
    "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
    "From: b@example.org\nSubject: two\n\nno newline at the end\n\n";

static void
write_two(struct buf *out, bool gzip)
{
	struct mboxout *m = mboxout_new(out, gzip);

	assert_int_equal(mboxout_add(m, m1, strlen(m1)), ERR_OK);
	assert_int_equal(mboxout_add(m, m2, strlen(m2)), ERR_OK);
	assert_int_equal(mboxout_end(m), ERR_OK);
	mboxout_free(m);
}

static void
test_plain(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	write_two(&out, false);
	assert_string_equal(buf_cstr(&out), want);
	buf_free(&out);
}

static void
test_gzip(void **state)
{
	struct buf out = BUF_INIT;
	unsigned char plain[4096];
	z_stream z;

	(void)state;
	write_two(&out, true);
	assert_true(out.n > 2 && (unsigned char)out.p[0] == 0x1f &&
	    (unsigned char)out.p[1] == 0x8b);
	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)out.p;
	z.avail_in = (uInt)out.n;
	z.next_out = plain;
	z.avail_out = sizeof(plain) - 1;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	plain[z.total_out] = '\0';
	inflateEnd(&z);
	assert_string_equal((char *)plain, want);
	buf_free(&out);
}

/* A mail stored as the MTA piped it, with its envelope's "From " line
 * (Exim's and Postfix's pipes write one): the mboxrd separator takes
 * its place, as hdr_split() skips it; it is no header line ">From ". */
static void
test_envelope_line(void **state)
{
	static const char raw[] = "From a@example.org Thu Jan  1 00:00:00 "
	                          "2026\nFrom: a@example.org\nSubject: x\n\n"
	                          "From the body.\n";
	struct mboxout *m;
	struct buf out = BUF_INIT;

	(void)state;
	m = mboxout_new(&out, false);
	assert_int_equal(mboxout_add(m, raw, strlen(raw)), ERR_OK);
	assert_int_equal(mboxout_end(m), ERR_OK);
	mboxout_free(m);
	assert_string_equal(buf_cstr(&out),
	    "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
	    "From: a@example.org\nSubject: x\n\n>From the body.\n\n");
	buf_free(&out);
}

/* The reader takes back what the writer wrote, mail for mail. */
static void
test_round_trip(void **state)
{
	char path[] = "/tmp/yard-mboxout-XXXXXX";
	struct buf out = BUF_INIT;
	struct source *src = NULL;
	struct source_mail sm;
	int fd = mkstemp(path);
	size_t n = 0;

	(void)state;
	assert_true(fd >= 0);
	write_two(&out, true);
	assert_int_equal(write(fd, out.p, out.n), (ssize_t)out.n);
	close(fd);
	assert_int_equal(source_open(path, 0, &src), ERR_OK);
	while (source_next(src, &sm) == ERR_OK) {
		const char *w = n == 0 ? m1
		                       : "From: b@example.org\n"
		                         "Subject: two\n\n"
		                         "no newline at the end\n";

		assert_true(n < 2);
		assert_int_equal(sm.n, strlen(w) + 1); /* and the blank line */
		assert_memory_equal(sm.raw, w, strlen(w));
		n++;
	}
	assert_int_equal(n, 2);
	source_free(src);
	unlink(path);
	buf_free(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_envelope_line),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
