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
#include "bot/source/imap_guard.h"

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

struct tls_data {
	gnutls_session_t s;
	gnutls_certificate_credentials_t cred;
	int fd;
	int timeout_ms;
	struct imap_guard *g;
};

struct plain_data {
	mailstream_low *inner;
	int fd;
	struct imap_guard *g;
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

/* GnuTLS's wait, in the handshake: the guard's, which ends it on the
 * stop flag (errno EINTR, for GNUTLS_E_INTERRUPTED). */
static int
tls_pull_timeout(gnutls_transport_ptr_t p, unsigned int ms)
{
	struct tls_data *t = p;
	int r = imap_guard_wait(t->g, t->fd, POLLIN,
	    ms == GNUTLS_INDEFINITE_TIMEOUT ? -1 : (int)ms);

	if (r < 0)
		gnutls_transport_set_errno(t->s, EINTR);
	return r < 0 ? -1 : r;
}

/* Read what TLS has, or wait for it as the guard allows.  The guard
 * sees every byte (imap_guard.c says what it ends the stream for). */
static ssize_t
tls_read(mailstream_low *low, void *buf, size_t n)
{
	struct tls_data *t = low->data;
	ssize_t r;

	for (;;) {
		if (gnutls_record_check_pending(t->s) == 0 &&
		    imap_guard_wait(t->g, t->fd, POLLIN, -1) <= 0)
			return -1;
		r = gnutls_record_recv(t->s, buf, n);
		if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED)
			continue;
		if (r < 0) {
			imap_guard_fail(t->g, gnutls_strerror((int)r));
			return -1;
		}
		return imap_guard_read(t->g, buf, r) ? r : -1;
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
	imap_guard_free(t->g);
	free(t);
}

static void
tls_free(mailstream_low *low)
{
	tls_data_free(low->data);
	free(low);
}

/* The clear stream: libetpan's socket stream for writing and closing;
 * reading ours, as in tls_read. */
static ssize_t
plain_read(mailstream_low *low, void *buf, size_t n)
{
	struct plain_data *d = low->data;
	ssize_t r;

	if (imap_guard_wait(d->g, d->fd, POLLIN, -1) <= 0)
		return -1;
	do
		r = recv(d->fd, buf, n, 0);
	while (r < 0 && errno == EINTR);
	return imap_guard_read(d->g, buf, r) ? r : -1;
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
	imap_guard_free(d->g);
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
imap_plain_open(int fd, const struct imap_guard_opts *o)
{
	mailstream_low *inner = mailstream_low_socket_open(fd), *low;
	struct plain_data *d;

	if (inner == NULL)
		return NULL;
	mailstream_low_set_timeout(inner, o->timeout);
	d = xcalloc(1, sizeof(*d));
	d->inner = inner;
	d->fd = fd;
	d->g = imap_guard_new(o);
	low = mailstream_low_new(d, &plain_driver);
	if (low == NULL) {
		mailstream_low_free(inner);
		imap_guard_free(d->g);
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

struct imap_guard *
imap_stream_guard(mailstream_low *low)
{
	if (low == NULL)
		return NULL;
	if (low->driver == &tls_driver)
		return ((struct tls_data *)low->data)->g;
	if (low->driver == &plain_driver)
		return ((struct plain_data *)low->data)->g;
	return NULL;
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
	char why[256];
	unsigned status;
	int r;

	do {
		r = gnutls_handshake(t->s);
		if (r == GNUTLS_E_AGAIN &&
		    imap_guard_wait(t->g, t->fd, POLLIN, -1) <= 0)
			break;
	} while (r < 0 && gnutls_error_is_fatal(r) == 0 &&
	    r != GNUTLS_E_INTERRUPTED);
	if (r >= 0)
		return true;
	if (imap_guard_why(t->g, why, sizeof(why))) {
		snprintf(err, errn, "TLS handshake: %s", why);
		return false;
	}
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
	t->timeout_ms = o->timeout > 0 ? o->timeout * 1000 : 30000;
	t->g = imap_guard_new(
	    &(struct imap_guard_opts){ o->timeout, o->stop, o->greeting });
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
