/*
 * patatt developer signatures (docs/DESIGN.md §5): the X-Developer-Signature
 * header that patatt 0.6 (what `b4 send` uses) writes, read and checked
 * here without files or processes.  The keyring that says whose key is
 * whose is the bot's (bot/workflow/devsig.h).
 */
#ifndef PARSERS_PATATT_H
#define PARSERS_PATATT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/err.h"

enum patatt_kind {
	PATATT_ED25519, /* a=ed25519-sha256: the one kind verified here */
	PATATT_OPENPGP, /* a=openpgp-sha256: gpg's, never verified here */
	PATATT_OPENSSH, /* a=openssh-sha256: ssh-keygen's, likewise */
	PATATT_UNKNOWN, /* anything else */
};

struct patatt_sig {
	/* i=, as written; NULL when absent (patatt itself then takes the
	 * From address; we take no identity the signature does not name,
	 * and such a signature verifies for nobody) */
	const char *identity;
	const char *selector; /* s=, "default" when absent */
	const char *algo; /* a=, as written; "" when absent */
	enum patatt_kind kind; /* from algo */
	/* The address in the From: the signature covers: git mailinfo's
	 * Email line, which for a patch with an in-body From: is that
	 * one's.  "" when the mail has no From:. */
	const char *from;
	bool body_ok; /* bh= equals the canonical body's hash */
	/* An ed25519 signature in patatt's shape: i= and t= are set, h=
	 * names from and subject, b= holds 64 bytes of signature followed
	 * by the 32-byte digest below.  Anything else never verifies. */
	bool usable;
	unsigned char digest[32]; /* SHA-256 of the signed header fields */
	unsigned char sig[64]; /* the ed25519 signature of b= */
};

/*
 * The developer signatures of raw[0..n), topmost first, into the arena:
 * *nsigs is 0 when there is none (and the body is then not parsed at
 * all).  ERR_LIMIT when the mail is over a limit of parsers/limits.h,
 * LIMIT_DEVSIGS signatures included: nothing is then verified.
 */
enum err patatt_parse(struct arena *a, const char *raw, size_t n,
    struct patatt_sig **sigs, size_t *nsigs);

/* The whole verdict: s is usable, signed by the key pub, and the body is
 * the one signed. */
bool patatt_verify(const struct patatt_sig *s, const unsigned char pub[32]);

/* The signature over the header fields alone, body left out: with
 * body_ok false it tells "the body changed" from "not this signature". */
bool patatt_verify_headers(
    const struct patatt_sig *s, const unsigned char pub[32]);

#endif
