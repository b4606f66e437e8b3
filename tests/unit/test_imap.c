/*
 * Unit tests of the IMAP session (bot/source/imap.c, imap_tls.c,
 * imap_guard.c) against scripted server answers over a socket pair, in
 * the clear: what the server says is written in one go, as
 * tests/fuzz/fuzz_imap.c does, with libetpan's own tags (1, 2, ...).  A
 * server that takes its time (trickles, floods) is a child process that
 * writes its script as it goes.  The real server (Dovecot, in TLS) is
 * tests/integration/imap.py's; hostile ones over TLS, with `patchyard
 * run`, tests/integration/hostile.py's.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/source/imap.h"
#include "parsers/limits.h"

#define URL "imap://bot@localhost/INBOX"

/* The greeting, LOGIN's answer, CAPABILITY's, SELECT's. */
#define OPENING_PREFIX                                                         \
	"* OK [CAPABILITY IMAP4rev1 IDLE MOVE UIDPLUS] hi\r\n"                 \
	"1 OK [CAPABILITY IMAP4rev1 IDLE MOVE UIDPLUS] in\r\n"                 \
	"* CAPABILITY IMAP4rev1 IDLE MOVE UIDPLUS\r\n"                         \
	"2 OK done\r\n"                                                        \
	"* 3 EXISTS\r\n"                                                       \
	"* OK [UIDVALIDITY 42] v\r\n"
#define OPENING OPENING_PREFIX "3 OK [READ-WRITE] sel\r\n"

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
	return imap_open_fd(&(struct imap_config){ .url = URL, .timeout = 5 },
	    sv[0], im, err, errn);
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

/* A literal within LITERAL_MAX but over what the fetch asked for (one
 * mail of 4096 bytes, and 1 MB for oddities): refused at its
 * announcement. */
static void
test_literal_over_what_was_asked(void **state)
{
	struct imap *im = NULL;
	struct got g = { { 0 }, 0, "", { 0 }, { 0 } };
	char err[256] = "";

	(void)state;
	assert_int_equal(
	    open_on2(OPENING, true, &im, err, sizeof(err)), ERR_OK);
	say("* 1 FETCH (UID 9 RFC822.SIZE 9 BODY[]<0> {3000000}\r\n"
	    "Subject: x\r\n",
	    true);
	assert_int_equal(imap_fetch(im, (uint32_t[]){ 9 }, 1, 4096, take, &g,
	                     err, sizeof(err)),
	    ERR_NET);
	assert_int_equal(g.n, 0);
	assert_non_null(strstr(err,
	    "UID FETCH: the server's answer brought "
	    "literals over the 1.0 MB asked for"));
	imap_close(im);
}

/* The second command, the one that fetches a mail alone, whole, is
 * bounded as the first: a literal over the limit it asked for (and 1 MB
 * for oddities) is refused at its announcement, and nothing is handed
 * out. */
static void
test_refetch_guarded(void **state)
{
	struct imap *im = NULL;
	struct got g = { { 0 }, 0, "", { 0 }, { 0 } };
	char err[256] = "";

	(void)state;
	assert_int_equal(
	    open_on2(OPENING, true, &im, err, sizeof(err)), ERR_OK);
	say("* 1 FETCH (UID 9 RFC822.SIZE 40 BODY[]<0> {17}\r\n"
	    "Subject: long\r\n\r\n"
	    ")\r\n"
	    "4 OK f\r\n"
	    "* 1 FETCH (UID 9 RFC822.SIZE 40 BODY[]<0> {2000000}\r\n"
	    "Subject: long\r\n",
	    true);
	assert_int_equal(imap_fetch(im, (uint32_t[]){ 9 }, 1, 4096, take, &g,
	                     err, sizeof(err)),
	    ERR_NET);
	assert_int_equal(g.n, 0);
	assert_string_equal(err,
	    "UID FETCH: the server's answer brought literals over the 1.0 MB "
	    "asked for: refused");
	imap_close(im);
}

/* ---- servers that take their time: a child writes as it goes ---- */

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Peak resident size of this process, in MB. */
static double
maxrss_mb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

/* Write all of p, false once the client is gone. */
static bool
put(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

enum act {
	TRICKLE, /* a literal, a byte every 20 ms */
	FLOOD, /* untagged lines as fast as the client takes them */
	DRIP, /* an untagged line every 20 ms */
	SEARCH_FLOOD, /* "* SEARCH" and 30 MB of UIDs */
	SILENT, /* nothing more */
	STORE_MAX /* a mail of LIMIT_MAIL_STORE: its first MB, then whole */
};

/* Read what the client sends until the command line "<tag> UID FETCH"
 * has come: false once the client is gone. */
static bool
await_fetch(int fd, const char *tag)
{
	char want[32], seen[256] = "";
	size_t n = 0, w;

	w = (size_t)snprintf(want, sizeof(want), "%s UID FETCH", tag);
	while (strstr(seen, want) == NULL) {
		ssize_t r;

		if (n > sizeof(seen) - 64) { /* keep the tail */
			memmove(seen, seen + n - w, w);
			n = w;
		}
		r = read(fd, seen + n, sizeof(seen) - 1 - n);
		if (r <= 0)
			return false;
		n += (size_t)r;
		seen[n] = '\0';
	}
	return true;
}

/* The answer to a UID FETCH of UID 9 (tag), a mail of LIMIT_MAIL_STORE
 * bytes of which part come, once the command has come; false once the
 * client is gone. */
static bool
put_big(int fd, const char *tag, size_t part, char *chunk, size_t cn)
{
	char head[128];
	size_t k;

	if (!await_fetch(fd, tag))
		return false;
	snprintf(head, sizeof(head),
	    "* 1 FETCH (UID 9 RFC822.SIZE %u BODY[]<0> {%zu}\r\n",
	    LIMIT_MAIL_STORE, part);
	if (!put(fd, head, strlen(head)))
		return false;
	for (k = 0; k < part; k += cn)
		if (!put(fd, chunk, part - k < cn ? part - k : cn))
			return false;
	snprintf(head, sizeof(head), ")\r\n%s OK f\r\n", tag);
	return put(fd, head, strlen(head));
}

/* The server: the opening, then act, for at most 20 s. */
static void
server(int fd, enum act act)
{
	static char chunk[65536];
	double end = now() + 20;
	size_t i;

	if (!put(fd, OPENING, strlen(OPENING)))
		return;
	switch (act) {
	case TRICKLE: {
		static const char head[] =
		    "* 1 FETCH (UID 9 RFC822.SIZE 1000 BODY[]<0> {1000}\r\n";

		if (!put(fd, head, strlen(head)))
			return;
		while (now() < end && put(fd, "x", 1))
			usleep(20000);
		break;
	}
	case FLOOD:
		for (i = 0; i + 12 <= sizeof(chunk); i += 12)
			memcpy(chunk + i, "* 3 EXISTS\r\n", 12);
		while (now() < end && put(fd, chunk, i))
			;
		break;
	case DRIP:
		while (now() < end && put(fd, "* 3 EXISTS\r\n", 12))
			usleep(20000);
		break;
	case SEARCH_FLOOD:
		for (i = 0; i + 8 <= sizeof(chunk); i += 8)
			memcpy(chunk + i, " 1234567", 8);
		if (!put(fd, "* SEARCH", 8))
			return;
		for (size_t k = 0; k < 480 && put(fd, chunk, i); k++)
			;
		break;
	case SILENT:
		break;
	case STORE_MAX:
		memset(chunk, 'x', sizeof(chunk));
		memcpy(chunk, "Subject: big\r\n\r\n", 16);
		if (!put_big(fd, "4", IMAP_PART, chunk, sizeof(chunk)))
			return;
		memcpy(chunk, "Subject: all\r\n\r\n", 16);
		(void)put_big(fd, "5", LIMIT_MAIL_STORE, chunk, sizeof(chunk));
		break;
	}
	while (now() < end)
		usleep(50000);
}

static pid_t child = -1;

/* A session with a server doing act, the client's timeout seconds. */
static struct imap *
open_acting(enum act act, int timeout, volatile sig_atomic_t *stop)
{
	struct imap *im = NULL;
	char err[256] = "";
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(sv[0]);
		server(sv[1], act);
		_exit(0);
	}
	close(sv[1]);
	assert_int_equal(imap_open_fd(
	                     &(struct imap_config){
	                         .url = URL, .timeout = timeout, .stop = stop },
	                     sv[0], &im, err, sizeof(err)),
	    ERR_OK);
	return im;
}

static void
close_acting(struct imap *im)
{
	imap_close(im);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	child = -1;
}

/* Fetch uid 9 from im; the error and the seconds it took. */
static enum err
fetch_timed(struct imap *im, char *err, size_t errn, double *took)
{
	struct got g = { { 0 }, 0, "", { 0 }, { 0 } };
	double t0 = now();
	enum err e =
	    imap_fetch(im, (uint32_t[]){ 9 }, 1, 4096, take, &g, err, errn);

	*took = now() - t0;
	assert_int_equal(g.n, 0);
	return e;
}

/* A literal trickled a byte at a time: each read comes well within the
 * timeout, the answer never does.  The fetch ends at its deadline (the
 * timeout, 1 s, and a few ms for the bytes that came). */
static void
test_trickled_literal(void **state)
{
	struct imap *im = open_acting(TRICKLE, 1, NULL);
	char err[256] = "";
	double took;

	(void)state;
	assert_int_equal(fetch_timed(im, err, sizeof(err), &took), ERR_NET);
	print_message(
	    "trickled literal: given up after %.2f s: %s\n", took, err);
	assert_true(took >= 0.9 && took < 2.0);
	assert_non_null(strstr(err,
	    "UID FETCH: the server's answer was not "
	    "complete after 1 s"));
	close_acting(im);
}

/* Untagged lines without end, as fast as they go: refused at 1 MB of
 * text, long before the deadline, and memory stays as it was. */
static void
test_endless_lines(void **state)
{
	struct imap *im = open_acting(FLOOD, 10, NULL);
	char err[256] = "";
	double took, rss = maxrss_mb();

	(void)state;
	assert_int_equal(fetch_timed(im, err, sizeof(err), &took), ERR_NET);
	print_message("endless lines: refused after %.2f s, peak RSS %.0f -> "
	              "%.0f MB: %s\n",
	    took, rss, maxrss_mb(), err);
	assert_true(took < 5.0);
	assert_true(maxrss_mb() - rss < 64);
	assert_non_null(strstr(err, "passed 1 MB outside its literals"));
	close_acting(im);
}

/* An untagged line every 20 ms: each read is quick, the answer is not
 * complete at its deadline. */
static void
test_dripping_lines(void **state)
{
	struct imap *im = open_acting(DRIP, 1, NULL);
	char err[256] = "";
	double took;

	(void)state;
	assert_int_equal(fetch_timed(im, err, sizeof(err), &took), ERR_NET);
	print_message("dripping lines: given up after %.2f s\n", took);
	assert_true(took >= 0.9 && took < 2.0);
	assert_non_null(strstr(err, "not complete after 1 s"));
	close_acting(im);
}

/* A UID SEARCH answer of 30 MB of UIDs (libetpan would have made a list
 * of 300 MB of it): refused at 1 MB, before libetpan parses a UID. */
static void
test_search_over_the_cap(void **state)
{
	struct imap *im = open_acting(SEARCH_FLOOD, 10, NULL);
	uint32_t *uids = NULL;
	size_t n = 0;
	char err[256] = "";
	double rss = maxrss_mb();

	(void)state;
	assert_int_equal(
	    imap_search(im, 7, &uids, &n, err, sizeof(err)), ERR_NET);
	print_message(
	    "search: peak RSS %.0f -> %.0f MB: %s\n", rss, maxrss_mb(), err);
	assert_null(uids);
	assert_int_equal(n, 0);
	assert_true(maxrss_mb() - rss < 64);
	assert_non_null(
	    strstr(err, "UID SEARCH: the server's answer passed 1 MB outside"));
	close_acting(im);
}

/* A server that says nothing at all has timed out, in those words. */
static void
test_silent_server(void **state)
{
	struct imap *im = open_acting(SILENT, 1, NULL);
	char err[256] = "";
	double took;

	(void)state;
	assert_int_equal(fetch_timed(im, err, sizeof(err), &took), ERR_NET);
	assert_true(took >= 0.9 && took < 2.0);
	assert_string_equal(
	    err, "UID FETCH: the server said nothing for 1 s: timed out");
	close_acting(im);
}

static volatile sig_atomic_t stop_flag;

static void *
stop_later(void *arg)
{
	(void)arg;
	usleep(300000);
	stop_flag = 1;
	return NULL;
}

/* The stop flag ends a wait on a silent server within a slice: set by
 * another thread, no signal interrupts the poll; set before the wait
 * began, the wait does not start.  The timeout (30 s) never comes into
 * it. */
static void
test_stop_flag(void **state)
{
	struct imap *im = open_acting(SILENT, 30, &stop_flag);
	char err[256] = "";
	double took;
	pthread_t t;

	(void)state;
	stop_flag = 0;
	assert_int_equal(pthread_create(&t, NULL, stop_later, NULL), 0);
	assert_int_equal(fetch_timed(im, err, sizeof(err), &took), ERR_NET);
	pthread_join(t, NULL);
	print_message("stop flag: out after %.2f s\n", took);
	assert_true(took >= 0.25 && took < 1.0);
	assert_string_equal(
	    err, "UID FETCH: interrupted: patchyard is stopping");
	close_acting(im);

	stop_flag = 0;
	im = open_acting(SILENT, 30, &stop_flag);
	stop_flag = 1;
	assert_int_equal(fetch_timed(im, err, sizeof(err), &took), ERR_NET);
	assert_true(took < 0.1);
	close_acting(im);
	stop_flag = 0;
}

/* A mail of LIMIT_MAIL_STORE bytes, the largest stored: its first MB
 * comes with the chunk, then the whole of it alone, which the guard lets
 * through (its literal is the limit asked for), and it is handed out
 * whole. */
static void
test_whole_mail_at_the_store_limit(void **state)
{
	struct imap *im = open_acting(STORE_MAX, 5, NULL);
	struct got g = { { 0 }, 0, "", { 0 }, { 0 } };
	char err[256] = "";

	(void)state;
	assert_int_equal(imap_fetch(im, (uint32_t[]){ 9 }, 1, LIMIT_MAIL_STORE,
	                     take, &g, err, sizeof(err)),
	    ERR_OK);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.uid[0], 9);
	assert_false(g.over[0]);
	assert_int_equal(g.len[0], LIMIT_MAIL_STORE);
	assert_memory_equal(g.first, "Subject: all\r\n\r\nxxx", 19);
	close_acting(im);
}

/* A mailbox whose UIDNEXT leaves room for more than IMAP_SEARCH_SPAN
 * UIDs is asked in windows; the first window holding any is the answer,
 * UIDs outside the window left out; past the windows, one search to the
 * end. */
static void
test_search_windows(void **state)
{
	struct imap *im = NULL;
	uint32_t *uids = NULL;
	size_t n = 0;
	char err[256] = "", sent[4096];
	ssize_t k;

	(void)state;
	assert_int_equal(
	    open_on(OPENING_PREFIX "* OK [UIDNEXT 120001] n\r\n"
	                           "3 OK [READ-WRITE] sel\r\n"
	                           "* SEARCH\r\n"
	                           "4 OK s\r\n"
	                           "* SEARCH 60000 50009 3 110000\r\n"
	                           "5 OK s\r\n"
	                           "* SEARCH 100009\r\n"
	                           "6 OK s\r\n",
	        &im, err, sizeof(err)),
	    ERR_OK);
	assert_int_equal(
	    imap_search(im, 7, &uids, &n, err, sizeof(err)), ERR_OK);
	assert_int_equal(n, 2);
	assert_int_equal(uids[0], 50009);
	assert_int_equal(uids[1], 60000);
	free(uids);
	assert_int_equal(
	    imap_search(im, 100007, &uids, &n, err, sizeof(err)), ERR_OK);
	assert_int_equal(n, 1);
	assert_int_equal(uids[0], 100009);
	free(uids);
	imap_close(im);
	k = read(peer, sent, sizeof(sent) - 1);
	assert_true(k > 0);
	sent[k] = '\0';
	assert_non_null(strstr(sent, "4 UID SEARCH UID 8:50007\r\n"));
	assert_non_null(strstr(sent, "5 UID SEARCH UID 50008:100007\r\n"));
	assert_non_null(strstr(sent, "6 UID SEARCH UID 100008:*\r\n"));
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
		cmocka_unit_test(test_literal_over_what_was_asked),
		cmocka_unit_test(test_refetch_guarded),
		cmocka_unit_test(test_trickled_literal),
		cmocka_unit_test(test_endless_lines),
		cmocka_unit_test(test_dripping_lines),
		cmocka_unit_test(test_search_over_the_cap),
		cmocka_unit_test(test_silent_server),
		cmocka_unit_test(test_stop_flag),
		cmocka_unit_test(test_whole_mail_at_the_store_limit),
		cmocka_unit_test(test_search_windows),
	};

	int r;

	/* A server that hung up is an error, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	if (peer >= 0)
		close(peer);
	return r;
}
