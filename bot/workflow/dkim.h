/*
 * DKIM verification (RFC 6376) with libopendkim, for docs/DESIGN.md §5: the
 * one file that includes <opendkim/dkim.h>.  Which d= may speak for a
 * From address (alignment) is the caller's question, not this one's.
 */
#ifndef BOT_DKIM_H
#define BOT_DKIM_H

#include <stddef.h>

#include "util/arena.h"
#include "util/err.h"

struct dkimv;

/*
 * keyfile: take keys only from this file (libopendkim's key-file query
 * method: one key a line, "<selector>._domainkey.<domain> <TXT record>",
 * a line starting with '#' a comment) -- never DNS.  NULL: DNS through
 * the system resolver, timeout_s seconds a query (0: libopendkim's 10),
 * and a cache of the keys found for the life of the verifier (bounded).
 * NULL on failure (the key file cannot be read, the library fails),
 * logged.
 */
struct dkimv *dkimv_new(const char *keyfile, unsigned timeout_s);
void dkimv_free(struct dkimv *v);

/*
 * The d= domains (lower case, each once) of the DKIM signatures of
 * raw[0..n) that verify: header and body hash good, "from" among the
 * signed headers (h=), no unsigned body tail (a signature with l=
 * shorter than the canonical body does not count), and a key not in test
 * mode (t=y).  A NULL-terminated array in the arena, *why NULL.  When
 * none verify, (*domains)[0] is NULL and *why says why in a short phrase:
 * "no DKIM signature", "no key for <selector>._domainkey.<d>", "DKIM
 * signature does not verify", "the body changed after the DKIM
 * signature", "DKIM signature does not cover From", "DKIM signature
 * leaves body text after l= unsigned", ... (of several signatures, the
 * one that came closest).  Selector and domain are quoted only when they
 * are plain DNS names.  Mail stored with LF line ends verifies as sent
 * with CRLF.  Returns ERR_OK whatever the verdict; another code (logged)
 * only for an internal failure.
 */
enum err dkimv_verify(struct dkimv *v, struct arena *a, const char *raw,
    size_t n, const char ***domains, const char **why);

#endif
