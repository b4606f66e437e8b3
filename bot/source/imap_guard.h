/*
 * What an IMAP server may make us do, watched at the transport (the TLS
 * and clear streams of imap_tls.c) before libetpan parses a byte: how
 * long a command's answer may take, how large it may be, the literals it
 * announces, a greeting that turns us away, and the stop flag of a
 * daemon that is asked to stop.  imap_guard.c says why each bound is
 * what it is.
 */
#ifndef BOT_IMAP_GUARD_H
#define BOT_IMAP_GUARD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct imap_guard_opts {
	int timeout; /* seconds a read may wait; a command's answer has
	                this long, and more as its bytes come (below) */
	volatile sig_atomic_t *stop; /* once set, every wait ends; or NULL */
	bool greeting; /* the server's greeting comes next */
};

struct imap_guard;

struct imap_guard *imap_guard_new(const struct imap_guard_opts *o);
void imap_guard_free(struct imap_guard *g);

/*
 * A command is about to go out: its answer's clock starts now, and its
 * literals may bring at most literals bytes in all (what the command
 * asked for; IMAP_GUARD_TEXT_MAX for a command that asks for none).
 */
void imap_guard_arm(struct imap_guard *g, uint64_t literals);

/* What a command that asks for no literal may receive in them. */
#define IMAP_GUARD_TEXT_MAX (1024u * 1024)

/*
 * Wait until fd is ready for events, for at most ms milliseconds (-1:
 * as long as the answer's deadline and the read timeout allow).  1:
 * ready; 0: ms passed; -1: the guard gave up (why is kept: the deadline,
 * the read timeout, the stop flag, an error).
 */
int imap_guard_wait(struct imap_guard *g, int fd, short events, int ms);

/*
 * Follow n bytes the server sent (n from read(): 0 is the end of the
 * stream, negative an error): false once the stream must end, why kept.
 */
bool imap_guard_read(struct imap_guard *g, const char *p, ssize_t n);

/* The stream failed below the guard (TLS): what to say. */
void imap_guard_fail(struct imap_guard *g, const char *what);

/* The text of the server's greeting when it was "* BYE", else NULL. */
const char *imap_guard_bye(const struct imap_guard *g);

/* Why the stream was ended, in words; false when the guard did not end
 * it (libetpan refused what it parsed). */
bool imap_guard_why(const struct imap_guard *g, char *out, size_t n);

/*
 * poll() for one descriptor in slices, ending early once *stop is set
 * (stop may be NULL): a signal that came just before the poll began
 * would not interrupt it.  1 ready, 0 ms passed, -1 stopped or failed
 * (errno: EINTR when stopped).
 */
int imap_wait(int fd, short events, int ms, volatile sig_atomic_t *stop);

#endif
