/*
 * TLS for the IMAP source with the server's certificate verified
 * (GnuTLS: the chain against the system store or a CA file, the host
 * name, and an optional public-key pin), as a libetpan mailstream_low.
 */
#ifndef BOT_IMAP_TLS_H
#define BOT_IMAP_TLS_H

#include <libetpan/libetpan.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "bot/source/imap_guard.h"
#include "util/err.h"

struct imap_tls_opts {
	const char *host; /* to verify the certificate for */
	const char *ca_file; /* NULL: the system's CAs */
	const char *pin_sha256; /* NULL, 64 hex digits or sha256//B64... */
	int timeout; /* seconds a read may wait */
	volatile sig_atomic_t *stop; /* set: stop waiting; or NULL */
	bool greeting; /* the server's greeting comes next (imaps://) */
};

/*
 * Handshake on the connected socket fd and verify the server.  On
 * success *out reads and writes through TLS and owns fd.  ERR_NET with
 * a one-line reason in err otherwise (fd is the caller's to close).
 */
enum err imap_tls_open(int fd, const struct imap_tls_opts *o,
    mailstream_low **out, char *err, size_t errn);

/*
 * The clear socket fd as a mailstream_low (before STARTTLS, and the fuzz
 * target's session), its reads guarded as the TLS stream's are.  NULL
 * when out of memory.  Like libetpan's socket stream, freeing it leaves
 * fd open; closing it closes fd.
 */
mailstream_low *imap_plain_open(int fd, const struct imap_guard_opts *o);

/* The guard of a stream of ours (imap_guard.h: arm it before each
 * command, ask it why the stream ended); NULL for any other. */
struct imap_guard *imap_stream_guard(mailstream_low *low);

/* Does TLS hold decrypted bytes that no read has taken yet? */
bool imap_tls_pending(mailstream_low *low);

#endif
