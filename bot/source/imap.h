/*
 * The IMAP source (libetpan): one connection to one mailbox, with TLS
 * verified by imap_tls.c.  imaps:// speaks TLS at once; imap:// must
 * upgrade with STARTTLS before the password goes out.  The follower in
 * bot/daemon/ decides what to fetch (UIDs above the last one stored)
 * and stores each batch with its UID in one transaction.
 */
#ifndef BOT_IMAP_H
#define BOT_IMAP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct imap_config {
	const char *url; /* imap[s]://user@host[:port][/mailbox] */
	const char *password_file; /* first line; NULL: no password */
	const char *ca_file; /* NULL: the system's CAs */
	const char *pin_sha256; /* NULL or as bot.conf(5) says */
	/* Seconds a network read may wait, and a command's answer may take
	 * (and more as its bytes come: bot/source/imap_guard.c); 0: 60. */
	int timeout;
	/* Once set (by a signal handler), whatever waits for the server
	 * gives up within a tenth of a second; NULL: nothing to watch. */
	volatile sig_atomic_t *stop;
};

struct imap;

/*
 * Connect, verify the server, log in and select the mailbox.  On failure
 * a one-line reason is in err: ERR_CONFIG (the URL, the password file),
 * ERR_AUTH (login refused), ERR_NET (connection, TLS, certificate).
 */
enum err imap_connect(
    const struct imap_config *c, struct imap **out, char *err, size_t errn);
/* For tests and the fuzz target only: the same over a connected fd,
 * in the clear (c->url, timeout, stop and password_file count). */
enum err imap_open_fd(const struct imap_config *c, int fd, struct imap **out,
    char *err, size_t errn);
/* Close without waiting for the server. */
void imap_close(struct imap *im);

uint32_t imap_uidvalidity(const struct imap *im);
bool imap_has_idle(const struct imap *im);

/*
 * UIDs above after, ascending: all of them, or (in a large mailbox) the
 * first window of IMAP_SEARCH_SPAN UIDs that holds any.  Ask again after
 * the last one until none is left.
 */
enum err imap_search(struct imap *im, uint32_t after, uint32_t **uids,
    size_t *n, char *err, size_t errn);

/* UIDs asked for in one UID SEARCH (imap.c says why). */
#define IMAP_SEARCH_SPAN 50000u

/* What imap_fetch() asks of every mail in one command: most mail is a
 * few KB, and a chunk of them stays small in memory. */
#define IMAP_PART (1024u * 1024)

/* One fetched mail, whole; or, with raw NULL, one larger than the
 * limit, which is not fetched: n is its size. */
typedef enum err imap_mail_fn(
    void *arg, uint32_t uid, const char *raw, size_t n);

/*
 * Fetch uids[0..n) (BODY.PEEK[], so \Seen stays as it was) and hand
 * them to fn in UID order, each whole, never cut: a mail over limit
 * bytes (by its RFC822.SIZE) is not fetched at all.  The first IMAP_PART
 * bytes of each come in one command; a larger mail is fetched again
 * alone, so that no more than one large mail is in memory.  A
 * connection lost on the way hands out none of the first command's.
 * Each command is bounded by the guard (imap_guard.h): the first's
 * literals to n times IMAP_PART, a large mail's to limit, which is at
 * most LIMIT_MAIL_STORE (a larger one counts as that), the largest
 * literal the guard lets through.
 */
enum err imap_fetch(struct imap *im, const uint32_t *uids, size_t n,
    size_t limit, imap_mail_fn *fn, void *arg, char *err, size_t errn);

/* What becomes of fetched mail on the server: seen is "flag" (\Seen)
 * or "move:FOLDER" (MOVE, else COPY, \Deleted and UID EXPUNGE). */
enum err imap_mark(struct imap *im, const uint32_t *uids, size_t n,
    const char *seen, char *err, size_t errn);

/*
 * Has the server told of new mail (an untagged EXISTS) since the last
 * call?  It may, in the answer to any command: mail that arrived while
 * the last one was being fetched is found so, not by an IDLE that would
 * never report it again.
 */
bool imap_news(struct imap *im);

/* IDLE (RFC 2177): start it, wait on imap_fd() and ask imap_ready(),
 * end it with imap_idle_done() before any other command. */
enum err imap_idle(struct imap *im, char *err, size_t errn);
int imap_fd(const struct imap *im);
/* Has the server said something (buffered, or on the socket)? */
bool imap_ready(struct imap *im);
enum err imap_idle_done(struct imap *im, char *err, size_t errn);

#endif
