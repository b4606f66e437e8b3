/*
 * TLS for the IMAP source, done with GnuTLS directly: libetpan's own TLS
 * checks no certificate (PLATFORM.md) and hands out only the leaf, which
 * cannot be verified against a CA whose intermediate the server sends.
 * Here the handshake verifies the chain the server sends against the
 * system store (or the configured CA file) and the host name (an IP
 * address against the certificate's IP addresses), and, when a pin is
 * configured, the SHA-256 of the server's public key as well.  The
 * session is then given to libetpan as a mailstream_low driver of ours,
 * so its IMAP parser reads through it.
 */
#include "bot/source/imap_tls.h"

#include <errno.h>
#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/base64.h"
#include "util/xalloc.h"

/*
 * The largest literal ("{N}" CRLF and N bytes) a server may send: the
 * mails are asked for as BODY.PEEK[]<0.LIMIT_MAIL_SIZE>, so a good
 * server never comes near it.  libetpan 1.9.4 allocates a literal's
 * whole announced size before it reads a byte of it, up to 4 GB (found
 * by fuzz_imap); newer libetpan refuses one above 64 MB, and so do we,
 * at the transport, before the parser sees the announcement.
 */
#define LITERAL_MAX (64u * 1024 * 1024)

/* Where the stream is, as far as literals go: in one (skip bytes of it
 * left) or in a line, reading a "{digits}" CRLF announcement. */
struct litguard {
	uint64_t skip;
	uint64_t num;
	enum {
		LG_TEXT,
		LG_NUM,
		LG_CLOSED,
		LG_CR
	} state;
	bool refused;
	/* The greeting, while it is being read: how much of "* BYE" it
	 * has matched (GREET_DONE once it cannot), and the text of a BYE. */
	int greet;
	bool bye_seen;
	char bye[160];
};

#define GREET_DONE (-1)

/*
 * A greeting that is "* BYE": libetpan 1.9.4 leaks the greeting it
 * parsed when it is a BYE (found by fuzz_imap), once per connection a
 * busy server turns away.  The guard refuses the stream there instead,
 * before libetpan reads the line, and keeps the server's words for the
 * error.  libetpan's unstrict syntax allows blanks before the star and
 * several after it; "BYE" is a case-insensitive atom.
 */
static void
greeting_read(struct litguard *g, const char *p, size_t n)
{
	size_t i, k, m;

	for (i = 0; i < n && g->greet != GREET_DONE; i++) {
		char c = p[i];
		bool blank = c == ' ' || c == '\t';

		switch (g->greet) {
		case 0: /* before the star */
			g->greet = c == '*' ? 1 : blank ? 0 : GREET_DONE;
			break;
		case 1: /* right after it: a blank must follow */
			g->greet = blank ? 2 : GREET_DONE;
			break;
		case 2: /* blanks, then B */
			if (!blank)
				g->greet =
				    c == 'B' || c == 'b' ? 3 : GREET_DONE;
			break;
		case 3:
			g->greet = c == 'Y' || c == 'y' ? 4 : GREET_DONE;
			break;
		case 4:
			if (c != 'E' && c != 'e') {
				g->greet = GREET_DONE;
				break;
			}
			/* Its text, to the end of the line or of what came,
			 * printable ASCII only (it goes to the log). */
			for (k = i + 1; k < n && p[k] == ' '; k++)
				;
			for (m = 0; k < n && p[k] != '\r' && p[k] != '\n' &&
			     m + 1 < sizeof(g->bye);
			     k++)
				g->bye[m++] =
				    p[k] >= ' ' && p[k] < 127 ? p[k] : '?';
			g->bye[m] = '\0';
			g->bye_seen = true;
			g->refused = true;
			g->greet = GREET_DONE;
			return;
		}
	}
}

/*
 * Follow the bytes the server sent; false once it announced a literal
 * above LITERAL_MAX.  A "{N}" with N too big is refused whatever follows
 * it (libetpan takes "{N}" and two spaces for a literal too, for Lotus
 * Domino); only "{N}" CRLF starts one to skip, so a mail's own text
 * never counts.
 */
static bool
litguard_read(struct litguard *g, const char *p, size_t n)
{
	size_t i = 0;

	if (g->greet != GREET_DONE)
		greeting_read(g, p, n);
	while (i < n && !g->refused) {
		if (g->skip > 0) {
			size_t k = g->skip < n - i ? (size_t)g->skip : n - i;

			g->skip -= k;
			i += k;
			continue;
		}
		switch (g->state) {
		case LG_NUM:
			if (p[i] >= '0' && p[i] <= '9') {
				g->num = g->num * 10 + (uint64_t)(p[i] - '0');
				if (g->num > LITERAL_MAX)
					g->refused = true;
				i++;
				continue;
			}
			g->state = p[i] == '}' ? LG_CLOSED : LG_TEXT;
			break;
		case LG_CLOSED:
			g->state = p[i] == '\r' ? LG_CR : LG_TEXT;
			break;
		case LG_CR:
			if (p[i] == '\n')
				g->skip = g->num;
			g->state = LG_TEXT;
			break;
		case LG_TEXT:
			break;
		}
		/* In a line (again: "{1{2}" has a second start), "{" starts
		 * an announcement. */
		if (g->state == LG_TEXT && p[i] == '{') {
			g->state = LG_NUM;
			g->num = 0;
		}
		i++;
	}
	return !g->refused;
}

struct tls_data {
	gnutls_session_t s;
	gnutls_certificate_credentials_t cred;
	int fd;
	int timeout_ms;
	struct litguard g;
};

struct plain_data {
	mailstream_low *inner;
	struct litguard g;
};

/*
 * The transport, ours rather than GnuTLS's system functions: those
 * retry a poll() that a signal interrupted, so a handshake with a silent
 * server would outlive SIGTERM by its whole timeout.  Here EINTR reaches
 * GnuTLS, which returns GNUTLS_E_INTERRUPTED, and we give up.
 */
static ssize_t
tls_push(gnutls_transport_ptr_t p, const void *buf, size_t n)
{
	struct tls_data *t = p;
	ssize_t r = send(t->fd, buf, n, MSG_NOSIGNAL);

	if (r < 0)
		gnutls_transport_set_errno(t->s, errno);
	return r;
}

static ssize_t
tls_pull(gnutls_transport_ptr_t p, void *buf, size_t n)
{
	struct tls_data *t = p;
	ssize_t r = recv(t->fd, buf, n, 0);

	if (r < 0)
		gnutls_transport_set_errno(t->s, errno);
	return r;
}

static int
tls_pull_timeout(gnutls_transport_ptr_t p, unsigned int ms)
{
	struct tls_data *t = p;
	struct pollfd pfd = { t->fd, POLLIN, 0 };
	int r = poll(&pfd, 1, ms == GNUTLS_INDEFINITE_TIMEOUT ? -1 : (int)ms);

	if (r < 0)
		gnutls_transport_set_errno(t->s, errno);
	return r;
}

/* Wait for fd to be readable: false on a timeout, a signal or an error. */
static bool
wait_readable(int fd, int timeout_ms)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, timeout_ms) > 0;
}

static ssize_t
tls_read(mailstream_low *low, void *buf, size_t n)
{
	struct tls_data *t = low->data;
	ssize_t r;

	for (;;) {
		if (gnutls_record_check_pending(t->s) == 0 &&
		    !wait_readable(t->fd, t->timeout_ms))
			return -1;
		r = gnutls_record_recv(t->s, buf, n);
		if (r == GNUTLS_E_AGAIN)
			continue;
		/* Interrupted: SIGTERM, and we are stopping.  The end of the
		 * stream is an error too: libetpan 1.9.4 reads the rest of a
		 * literal until it has it, taking 0 bytes for progress, so a
		 * server that closes inside a literal would have it spin for
		 * ever (found by fuzz_imap).  A client has nothing to do with
		 * a closed connection but give up. */
		if (r <= 0 || !litguard_read(&t->g, buf, (size_t)r))
			return -1;
		return r;
	}
}

static ssize_t
tls_write(mailstream_low *low, const void *buf, size_t n)
{
	struct tls_data *t = low->data;
	ssize_t r;

	do
		r = gnutls_record_send(t->s, buf, n);
	while (r == GNUTLS_E_AGAIN);
	return r < 0 ? -1 : r;
}

static int
tls_close(mailstream_low *low)
{
	struct tls_data *t = low->data;

	if (t->fd >= 0) {
		/* SHUT_WR does not wait for the server's answer. */
		gnutls_bye(t->s, GNUTLS_SHUT_WR);
		close(t->fd);
		t->fd = -1;
	}
	return 0;
}

static int
tls_get_fd(mailstream_low *low)
{
	return ((struct tls_data *)low->data)->fd;
}

static void
tls_data_free(struct tls_data *t)
{
	if (t == NULL)
		return;
	if (t->s)
		gnutls_deinit(t->s);
	if (t->cred)
		gnutls_certificate_free_credentials(t->cred);
	free(t);
}

static void
tls_free(mailstream_low *low)
{
	tls_data_free(low->data);
	free(low);
}

/* The clear stream: libetpan's socket stream, the end of it an error
 * (as in tls_read), and its literals watched. */
static ssize_t
plain_read(mailstream_low *low, void *buf, size_t n)
{
	struct plain_data *d = low->data;
	ssize_t r = mailstream_low_read(d->inner, buf, n);

	if (r <= 0 || !litguard_read(&d->g, buf, (size_t)r))
		return -1;
	return r;
}

static ssize_t
plain_write(mailstream_low *low, const void *buf, size_t n)
{
	return mailstream_low_write(
	    ((struct plain_data *)low->data)->inner, buf, n);
}

static int
plain_close(mailstream_low *low)
{
	return mailstream_low_close(((struct plain_data *)low->data)->inner);
}

static int
plain_get_fd(mailstream_low *low)
{
	return mailstream_low_get_fd(((struct plain_data *)low->data)->inner);
}

static void
plain_free(mailstream_low *low)
{
	struct plain_data *d = low->data;

	mailstream_low_free(d->inner);
	free(d);
	free(low);
}

static mailstream_low_driver plain_driver = {
	.mailstream_read = plain_read,
	.mailstream_write = plain_write,
	.mailstream_close = plain_close,
	.mailstream_get_fd = plain_get_fd,
	.mailstream_free = plain_free,
};

mailstream_low *
imap_plain_open(int fd, int timeout)
{
	mailstream_low *inner = mailstream_low_socket_open(fd), *low;
	struct plain_data *d;

	if (inner == NULL)
		return NULL;
	mailstream_low_set_timeout(inner, timeout);
	d = xcalloc(1, sizeof(*d));
	d->inner = inner;
	low = mailstream_low_new(d, &plain_driver);
	if (low == NULL) {
		mailstream_low_free(inner);
		free(d);
	}
	return low;
}

static mailstream_low_driver tls_driver = {
	.mailstream_read = tls_read,
	.mailstream_write = tls_write,
	.mailstream_close = tls_close,
	.mailstream_get_fd = tls_get_fd,
	.mailstream_free = tls_free,
};

const char *
imap_stream_bye(mailstream_low *low)
{
	const struct litguard *g = NULL;

	if (low == NULL)
		return NULL;
	if (low->driver == &tls_driver)
		g = &((struct tls_data *)low->data)->g;
	else if (low->driver == &plain_driver)
		g = &((struct plain_data *)low->data)->g;
	return g != NULL && g->bye_seen ? g->bye : NULL;
}

/* The SHA-256 of the peer's public key (SubjectPublicKeyInfo) as hex
 * and base64; false when there is no certificate to read it from. */
static bool
peer_spki(gnutls_session_t s, char hex[65], char base64[45])
{
	const gnutls_datum_t *certs;
	unsigned int ncerts = 0, i;
	gnutls_pubkey_t key = NULL;
	unsigned char der[8192], h[32];
	size_t dn = sizeof(der);
	bool ok = false;

	certs = gnutls_certificate_get_peers(s, &ncerts);
	if (certs == NULL || ncerts == 0 || gnutls_pubkey_init(&key) < 0)
		return false;
	if (gnutls_pubkey_import_x509_raw(
	        key, &certs[0], GNUTLS_X509_FMT_DER, 0) >= 0 &&
	    gnutls_pubkey_export(key, GNUTLS_X509_FMT_DER, der, &dn) >= 0 &&
	    gnutls_hash_fast(GNUTLS_DIG_SHA256, der, dn, h) >= 0)
		ok = true;
	gnutls_pubkey_deinit(key);
	if (!ok)
		return false;
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", h[i]);
	base64_encode(base64, h, sizeof(h));
	base64[44] = '\0';
	return true;
}

/* pin: 64 hex digits, or "sha256//B64[;sha256//B64...]" as curl has it. */
static bool
pin_matches(const char *pin, const char *hex, const char *base64)
{
	const char *p = pin;

	if (strncmp(pin, "sha256//", 8) != 0)
		return strcmp(pin, hex) == 0;
	while (p != NULL) {
		if (strncmp(p, "sha256//", 8) == 0 &&
		    strncmp(p + 8, base64, 44) == 0 &&
		    (p[52] == '\0' || p[52] == ';'))
			return true;
		p = strchr(p, ';');
		if (p)
			p++;
	}
	return false;
}

static bool
is_ip(const char *host)
{
	return strspn(host, "0123456789.") == strlen(host) ||
	    strchr(host, ':') != NULL;
}

/* The handshake, by the book, with our verification; a reason in err. */
static bool
handshake(
    struct tls_data *t, const struct imap_tls_opts *o, char *err, size_t errn)
{
	gnutls_datum_t out = { NULL, 0 };
	unsigned status;
	int r;

	do {
		r = gnutls_handshake(t->s);
		if (r == GNUTLS_E_AGAIN && !wait_readable(t->fd, t->timeout_ms))
			break;
	} while (r < 0 && gnutls_error_is_fatal(r) == 0 &&
	    r != GNUTLS_E_INTERRUPTED);
	if (r >= 0)
		return true;
	if (r != GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR) {
		snprintf(
		    err, errn, "TLS handshake failed: %s", gnutls_strerror(r));
		return false;
	}
	status = gnutls_session_get_verify_cert_status(t->s);
	if (gnutls_certificate_verification_status_print(
	        status, GNUTLS_CRT_X509, &out, 0) >= 0 &&
	    out.data != NULL) {
		size_t k = strlen((char *)out.data);

		while (
		    k > 0 && (out.data[k - 1] == ' ' || out.data[k - 1] == '.'))
			out.data[--k] = '\0';
		snprintf(err, errn,
		    "the server's certificate does not verify for %s (%s): "
		    "%s",
		    o->host, o->ca_file ? o->ca_file : "the system's CAs",
		    (const char *)out.data);
		gnutls_free(out.data);
	} else {
		snprintf(err, errn, "the server's certificate does not verify");
	}
	return false;
}

enum err
imap_tls_open(int fd, const struct imap_tls_opts *o, mailstream_low **out,
    char *err, size_t errn)
{
	struct tls_data *t = xcalloc(1, sizeof(*t));
	char hex[65], base64[45];
	int r;

	*out = NULL;
	t->fd = fd;
	t->g.greet = o->greeting ? 0 : GREET_DONE;
	t->timeout_ms = o->timeout > 0 ? o->timeout * 1000 : 30000;
	if (gnutls_certificate_allocate_credentials(&t->cred) < 0 ||
	    gnutls_init(&t->s, GNUTLS_CLIENT) < 0 ||
	    gnutls_set_default_priority(t->s) < 0) {
		snprintf(err, errn, "TLS cannot start");
		goto fail;
	}
	r = o->ca_file ? gnutls_certificate_set_x509_trust_file(
	                     t->cred, o->ca_file, GNUTLS_X509_FMT_PEM)
	               : gnutls_certificate_set_x509_system_trust(t->cred);
	if (r <= 0) {
		snprintf(err, errn, "%s: no CA certificate could be read%s%s",
		    o->ca_file ? o->ca_file : "the system's CA store",
		    r < 0 ? ": " : "", r < 0 ? gnutls_strerror(r) : "");
		goto fail;
	}
	gnutls_credentials_set(t->s, GNUTLS_CRD_CERTIFICATE, t->cred);
	if (!is_ip(o->host))
		gnutls_server_name_set(
		    t->s, GNUTLS_NAME_DNS, o->host, strlen(o->host));
	gnutls_session_set_verify_cert(t->s, o->host, 0);
	gnutls_transport_set_ptr(t->s, t);
	gnutls_transport_set_push_function(t->s, tls_push);
	gnutls_transport_set_pull_function(t->s, tls_pull);
	gnutls_transport_set_pull_timeout_function(t->s, tls_pull_timeout);
	gnutls_handshake_set_timeout(t->s, (unsigned)t->timeout_ms);
	if (!handshake(t, o, err, errn))
		goto fail;
	if (o->pin_sha256 != NULL &&
	    (!peer_spki(t->s, hex, base64) ||
	        !pin_matches(o->pin_sha256, hex, base64))) {
		snprintf(err, errn,
		    "the server's public key does not match pin-sha256 "
		    "(it is %s)",
		    hex);
		goto fail;
	}
	*out = mailstream_low_new(t, &tls_driver);
	return ERR_OK;
fail:
	tls_data_free(t);
	return ERR_NET;
}

bool
imap_tls_pending(mailstream_low *low)
{
	if (low == NULL || low->driver != &tls_driver)
		return false;
	return gnutls_record_check_pending(((struct tls_data *)low->data)->s) >
	    0;
}
