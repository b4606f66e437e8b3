/*
 * Unit tests of the IMAP session (bot/source/imap.c, imap_tls.c) against
 * scripted server answers over a socket pair, in the clear: what the
 * server says is written in one go, as tests/fuzz/fuzz_imap.c does, with
 * libetpan's own tags (1, 2, ...).  The real server (Dovecot, in TLS) is
 * tests/integration/imap.py's.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/source/imap.h"

#define URL "imap://bot@localhost/INBOX"

/* The greeting, LOGIN's answer, CAPABILITY's, SELECT's. */
#define OPENING                                                                \
	"* OK [CAPABILITY IMAP4rev1 IDLE MOVE UIDPLUS] hi\r\n"                 \
	"1 OK [CAPABILITY IMAP4rev1 IDLE MOVE UIDPLUS] in\r\n"                 \
	"* CAPABILITY IMAP4rev1 IDLE MOVE UIDPLUS\r\n"                         \
	"2 OK done\r\n"                                                        \
	"* 3 EXISTS\r\n"                                                       \
	"* OK [UIDVALIDITY 42] v\r\n"                                          \
	"3 OK [READ-WRITE] sel\r\n"

/* The server's end of the last session opened. */
static int peer = -1;

/* The server says text; with last, nothing after it. */
static void
say(const char *text, bool last)
{
	size_t n = strlen(text);

	assert_int_equal(write(peer, text, n), (ssize_t)n);
	if (last)
		shutdown(peer, SHUT_WR);
}

/* Open a session on a server that says script, whatever it is asked,
 * and then nothing unless more: its end stays open for our commands. */
static enum err
open_on2(
    const char *script, bool more, struct imap **im, char *err, size_t errn)
{
	int sv[2];

	if (peer >= 0)
		close(peer);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	peer = sv[1];
	say(script, !more);
	return imap_open_plain_fd(URL, sv[0], im, err, errn);
}

static enum err
open_on(const char *script, struct imap **im, char *err, size_t errn)
{
	return open_on2(script, false, im, err, errn);
}

static void
turned_away(const char *script, const char *want)
{
	struct imap *im = NULL;
	char err[256] = "";

	assert_int_equal(open_on(script, &im, err, sizeof(err)), ERR_NET);
	assert_null(im);
	assert_string_equal(err, want);
}

/* A busy server's "* BYE" greeting: refused at the transport (libetpan
 * 1.9.4 would leak the greeting it parsed), in the server's words. */
static void
test_bye_greeting(void **state)
{
	(void)state;
	turned_away("* BYE Too many connections from your host\r\n",
	    "the server turned us away: Too many connections from your host");
	turned_away("  *  bye  busy\r\n", "the server turned us away: busy");
	turned_away("* BYE\r\n", "the server turned us away: ");
	turned_away(
	    "* BYE \x1b[2Jgone\r\n", "the server turned us away: ?[2Jgone");
}

/* Not a BYE: an empty stream and a garbled greeting are still errors,
 * named as libetpan's. */
static void
test_bad_greeting(void **state)
{
	struct imap *im = NULL;
	char err[256] = "";

	(void)state;
	assert_int_equal(open_on("", &im, err, sizeof(err)), ERR_NET);
	assert_null(im);
	assert_non_null(strstr(err, "greeting"));
	assert_int_equal(
	    open_on("* BYEBYE now\r\n", &im, err, sizeof(err)), ERR_NET);
	assert_non_null(strstr(err, "turned us away"));
	assert_int_equal(
	    open_on("+ hello\r\n", &im, err, sizeof(err)), ERR_NET);
	assert_null(im);
	assert_null(strstr(err, "turned us away"));
}

struct got {
	uint32_t uid[4];
	size_t n;
	char first[64];
	size_t len[4];
	bool over[4];
};

static enum err
take(void *arg, uint32_t uid, const char *raw, size_t n)
{
	struct got *g = arg;

	if (g->n == 0 && raw != NULL)
		snprintf(g->first, sizeof(g->first), "%.*s", (int)n, raw);
	if (g->n < 4) {
		g->len[g->n] = n;
		g->over[g->n] = raw == NULL;
		g->uid[g->n++] = uid;
	}
	return ERR_OK;
}

/* A whole session: a "{N}" in a mail's text and an untagged BYE later
 * on are not the greeting's nor a literal's business. */
static void
test_session(void **state)
{
	struct imap *im = NULL;
	uint32_t *uids = NULL;
	size_t n = 0;
	struct got g = { { 0 }, 0, "", { 0 }, { 0 } };
	char err[256] = "";

	(void)state;
	enum err e =
	    open_on(OPENING "* SEARCH 12 9 8\r\n"
	                    "4 OK s\r\n"
	                    "* 1 FETCH (UID 9 RFC822.SIZE 29 BODY[]<0> {29}\r\n"
	                    "Subject: {4000000000}\r\n"
	                    "\r\n"
	                    "hi\r\n"
	                    ")\r\n"
	                    "5 OK f\r\n"
	                    "* BYE shutting down\r\n",
	        &im, err, sizeof(err));
	assert_int_equal(e, ERR_OK);
	assert_int_equal(imap_uidvalidity(im), 42);
	assert_true(imap_has_idle(im));
	assert_int_equal(
	    imap_search(im, 7, &uids, &n, err, sizeof(err)), ERR_OK);
	assert_int_equal(n, 3);
	assert_int_equal(uids[0], 8);
	assert_int_equal(uids[1], 9);
	assert_int_equal(uids[2], 12);
	free(uids);
	assert_int_equal(imap_fetch(im, (uint32_t[]){ 9 }, 1, 4096, take, &g,
	                     err, sizeof(err)),
	    ERR_OK);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.uid[0], 9);
	assert_string_equal(g.first, "Subject: {4000000000}\r\n\r\nhi\r\n");
	imap_close(im);
}

/* A literal announced above 64 MB fails the fetch, nothing allocated
 * for it, nothing handed out. */
static void
test_huge_literal(void **state)
{
	struct imap *im = NULL;
	struct got g = { { 0 }, 0, "", { 0 }, { 0 } };
	char err[256] = "";

	(void)state;
	assert_int_equal(
	    open_on2(OPENING, true, &im, err, sizeof(err)), ERR_OK);
	say("* 1 FETCH (UID 9 RFC822.SIZE 9 BODY[]<0> {4000000000}\r\n"
	    "Subject: x\r\n",
	    true);
	assert_int_not_equal(imap_fetch(im, (uint32_t[]){ 9 }, 1, 4096, take,
	                         &g, err, sizeof(err)),
	    ERR_OK);
	assert_int_equal(g.n, 0);
	imap_close(im);
}

/*
 * Mails are handed out whole or not at all: one the first command
 * brought short of its RFC822.SIZE is fetched again alone, one over the
 * limit is not fetched (raw NULL, its size), and neither is cut.
 */
static void
test_whole_or_nothing(void **state)
{
	struct imap *im = NULL;
	struct got g = { { 0 }, 0, "", { 0 }, { 0 } };
	char err[256] = "";

	(void)state;
	assert_int_equal(
	    open_on(OPENING
	        "* 1 FETCH (UID 9 RFC822.SIZE 40 BODY[]<0> {17}\r\n"
	        "Subject: long\r\n\r\n"
	        ")\r\n"
	        "* 2 FETCH (UID 10 RFC822.SIZE 5000 BODY[]<0> {17}\r\n"
	        "Subject: huge\r\n\r\n"
	        ")\r\n"
	        "* 3 FETCH (UID 11 RFC822.SIZE 5 BODY[]<0> {5}\r\n"
	        "tiny\n"
	        ")\r\n"
	        "4 OK f\r\n"
	        "* 1 FETCH (UID 9 RFC822.SIZE 40 BODY[]<0> {40}\r\n"
	        "Subject: long\r\n\r\nall forty bytes of it.\n"
	        ")\r\n"
	        "5 OK f\r\n",
	        &im, err, sizeof(err)),
	    ERR_OK);
	assert_int_equal(imap_fetch(im, (uint32_t[]){ 9, 10, 11 }, 3, 4096,
	                     take, &g, err, sizeof(err)),
	    ERR_OK);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.uid[0], 9);
	assert_false(g.over[0]);
	assert_int_equal(g.len[0], 40);
	assert_string_equal(
	    g.first, "Subject: long\r\n\r\nall forty bytes of it.\n");
	assert_int_equal(g.uid[1], 10);
	assert_true(g.over[1]);
	assert_int_equal(g.len[1], 5000);
	assert_int_equal(g.uid[2], 11);
	assert_false(g.over[2]);
	assert_int_equal(g.len[2], 5);
	imap_close(im);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bye_greeting),
		cmocka_unit_test(test_bad_greeting),
		cmocka_unit_test(test_session),
		cmocka_unit_test(test_huge_literal),
		cmocka_unit_test(test_whole_or_nothing),
	};

	int r;

	/* A server that hung up is an error, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	if (peer >= 0)
		close(peer);
	return r;
}
