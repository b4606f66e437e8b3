/*
 * Sending one composed mail through the configured SMTP relay (libcurl;
 * this is the only file of ours that speaks to it).  DESIGN.md §8.
 *
 * Transport: smtps:// is TLS from the first byte; smtp:// upgrades with
 * STARTTLS as starttls says (required: no TLS, no mail; try: TLS when the
 * server offers it; never: plain text).  Certificates are always verified
 * against ca_file or the system bundle, host name included.  pin_sha256
 * pins the server's public key in addition (see smtp_config).
 *
 * Outcome of a send:
 *   SMTP_OK      the relay took the mail (its reply to the end of the data
 *                was 2xx).  Recipients it refused are listed in the
 *                result: rejected (5xx, never retry them) and deferred
 *                (4xx: send the mail again later to those only).
 *   SMTP_TEMP    try again later: a 4xx reply, no connection, a timeout,
 *                a connection lost before the relay acknowledged the data
 *                (SMTP cannot tell whether such a mail will be delivered;
 *                RFC 5321 §4.1.1.4 accepts the rare duplicate over loss).
 *   SMTP_PERM    the relay refused this mail with a 5xx (at MAIL or after
 *                the data), or refused every recipient with a 5xx.
 *   SMTP_CONFIG  no mail can go until the operator acts: bad URL, TLS
 *                required but not offered, a certificate or pin that does
 *                not verify (never retried blindly: it may be an attack),
 *                credentials refused (5xx to AUTH), the relay refusing us
 *                before any mail (5xx to EHLO).  The mail itself is fine:
 *                keep it queued, do not count the attempt against it.
 *
 * Recipients: all of them go in one transaction.  A recipient the relay
 * refuses does not stop the others (curl's MAIL_RCPT_ALLOWFAILS, spelt
 * CURLOPT_MAIL_RCPT_ALLLOWFAILS before curl 8.2; Debian 12 has 7.88); the
 * SMTP dialogue is read to tell which recipient got which reply.
 *
 * Dot-stuffing and the final "." are curl's job (it escapes "\r\n." in
 * the data); the message must have CRLF line ends (mailout does that).
 * A message with an 8bit body goes to a relay that does not offer
 * 8BITMIME with its body quoted-printable (mailout_7bit()), unchanged
 * otherwise.
 */
#ifndef BOT_SMTP_H
#define BOT_SMTP_H

#include <stdbool.h>
#include <stddef.h>

#include "parsers/config.h"
#include "util/buf.h"
#include "util/err.h"

struct smtp_config {
	const char *url; /* smtp://host[:port][/ehlo-name] or smtps:// */
	enum conf_tls starttls; /* smtp:// only; smtps:// is always TLS */
	const char *ca_file; /* NULL: the system bundle */
	/*
	 * NULL, or the SHA-256 of the server's public key (its
	 * SubjectPublicKeyInfo, as HPKP and curl pin it: it survives
	 * certificate renewals that keep the key): 64 hex digits, colons
	 * allowed (what config.c keeps), or curl's "sha256//<base64>", several
	 * separated by ';'.  Compute it with
	 *   openssl x509 -in cert.pem -pubkey -noout |
	 *   openssl pkey -pubin -outform der | openssl dgst -sha256
	 */
	const char *pin_sha256;
	const char *user; /* NULL: no AUTH */
	const char *password; /* read from smtp.password-file by the caller */
	/* The name we give in EHLO; NULL: the domain of the sender address
	 * (unless the URL has a path, which curl uses as the name). */
	const char *helo;
	long connect_timeout; /* seconds; 0: 30 */
	long timeout; /* seconds without progress or reply; 0: 300 */
};

enum smtp_status {
	SMTP_OK,
	SMTP_TEMP,
	SMTP_PERM,
	SMTP_CONFIG
};

struct smtp_result {
	enum smtp_status status;
	int code; /* the relay's last reply code, 0 when it said nothing */
	/* The relay's last error reply line ("451 4.3.0 Try later"), else
	 * curl's description of what failed; printable ASCII; "" on success
	 * without any refusal. */
	char last_error[256];
	struct buf rejected; /* "a@b\n" per recipient refused with 5xx */
	struct buf deferred; /* "a@b\n" per recipient refused with 4xx */
	/* Connections opened for this mail: 0 when it went over the one the
	 * session had open. */
	int connects;
	/* The relay closed the session's open connection before it took the
	 * mail, and the mail went again at once over a new one. */
	bool reconnected;
	/* SMTP_TEMP before any mail began: the relay could not be reached,
	 * or refused the session (a 4xx greeting, TLS failing); the next
	 * mail would fare the same. */
	bool unreachable;
};

/*
 * A session with the relay: libcurl's connection is made at the first
 * smtp_send() and kept open for the next ones (one connection, one TLS
 * handshake, one AUTH for a send run, DESIGN.md §8); smtp_free() ends it
 * with QUIT.  When the relay has closed that connection by the time of
 * the next mail (an idle timeout, a limit of mails per connection, a
 * restart), the mail goes again at once over a new connection, once.
 */
struct smtp;

/*
 * Check the configuration (URL scheme and form, CA file readable, pin
 * syntax, user with password) and set up.  Errors are logged; ERR_CONFIG.
 */
enum err smtp_new(const struct smtp_config *c, struct smtp **out);
void smtp_free(struct smtp *s);

void smtp_result_init(struct smtp_result *r);
void smtp_result_free(struct smtp_result *r);

/*
 * Send msg[0..n) from the envelope sender from to rcpts (one address per
 * line, as mailout_compose() gives them).  The result (initialised with
 * smtp_result_init(), reset here) says what happened; the status is also
 * returned.  Invalid recipient addresses are refused without asking the
 * relay (they land in rejected).  Nothing is logged but a new connection
 * after a closed one (info) and the dialogue (debug): the caller records
 * the result with the mail, and logs what it means.
 */
enum smtp_status smtp_send(struct smtp *s, const char *from, const char *rcpts,
    const char *msg, size_t n, struct smtp_result *r);

const char *smtp_status_str(enum smtp_status st);

#endif
