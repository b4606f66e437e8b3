/*
 * What an IMAP server answers (bot/source/imap.c on libetpan) and the
 * source's URL (parsers/imapurl.c).  The input is a URL, a newline, then
 * everything the server says, in one go: greeting, capabilities, the
 * answers to LOGIN, SELECT, UID SEARCH, UID FETCH, UID STORE, IDLE.  The
 * session runs over a socket pair in the clear.  Nothing may crash or
 * hang or allocate what a literal's announced size says; the UIDs handed
 * out must be ascending and above the one asked for; every mail handed out
 * has a body.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bot/source/imap.h"
#include "parsers/imapurl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__asan_default_options(void);

/* Under ASan (make check's second pass, and libFuzzer), an allocation
 * above 256 MB is a finding: a literal's announced size must not reach
 * malloc (see LITERAL_MAX in bot/source/imap_guard.c). */
const char *
__asan_default_options(void)
{
	return "max_allocation_size_mb=256";
}

#define AFTER 7

static enum err
take(void *arg, uint32_t uid, const char *raw, size_t n)
{
	uint32_t *last = arg;

	/* Whole, or over the limit (4096) and not handed out: never cut. */
	if (uid <= *last || (raw == NULL) != (n > 4096))
		abort();
	*last = uid;
	return ERR_OK;
}

static void
url_checks(const uint8_t *data, size_t n)
{
	char s[1024];
	struct imapurl u;
	const char *why = NULL;

	if (n >= sizeof(s))
		n = sizeof(s) - 1;
	memcpy(s, data, n);
	s[n] = '\0';
	if (imapurl_parse(s, &u, &why) == ERR_OK) {
		if (u.host[0] == '\0' || u.port[0] == '\0' ||
		    u.mailbox[0] == '\0')
			abort();
		if (memchr(u.host, '\0', sizeof(u.host)) == NULL)
			abort();
	} else if (why == NULL) {
		abort();
	}
}

static void
session(const uint8_t *data, size_t size)
{
	static const uint32_t some[] = { 8, 9, 12 };
	struct imap *im = NULL;
	uint32_t *uids = NULL, last = AFTER;
	size_t n = 0, i;
	char err[256];
	int sv[2], buf = 1 << 20;
	ssize_t w;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return;
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	/* What does not fit is lost, as on a connection that broke. */
	w = write(sv[1], data, size);
	(void)w;
	shutdown(sv[1], SHUT_WR);
	if (imap_open_fd(
	        &(struct imap_config){
	            .url = "imap://fuzz@localhost/INBOX", .timeout = 5 },
	        sv[0], &im, err, sizeof(err)) != ERR_OK)
		goto out;
	(void)imap_uidvalidity(im);
	(void)imap_has_idle(im);
	if (imap_search(im, AFTER, &uids, &n, err, sizeof(err)) == ERR_OK)
		for (i = 0; i < n; i++)
			if (uids[i] <= AFTER || (i && uids[i] <= uids[i - 1]))
				abort();
	(void)imap_news(im);
	(void)imap_fetch(im, n ? uids : some, n ? n : 3, 4096, take, &last, err,
	    sizeof(err));
	(void)imap_mark(im, some, 3, "flag", err, sizeof(err));
	(void)imap_mark(im, some, 3, "move:Archive", err, sizeof(err));
	if (imap_idle(im, err, sizeof(err)) == ERR_OK) {
		(void)imap_ready(im);
		(void)imap_idle_done(im, err, sizeof(err));
	}
out:
	free(uids);
	imap_close(im);
	close(sv[1]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t ul = nl ? (size_t)(nl - data) : size;

	signal(SIGPIPE, SIG_IGN);
	if (size > (512u << 10))
		return 0;
	url_checks(data, ul);
	if (nl)
		session(nl + 1, size - ul - 1);
	return 0;
}
