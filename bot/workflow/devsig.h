/*
 * Developer signatures against the operator's keyring (docs/DESIGN.md §5,
 * auth.keyring): patatt's checks are pure (parsers/patatt.h); this reads
 * the public keys, laid out as patatt's own keyring has them.
 */
#ifndef BOT_DEVSIG_H
#define BOT_DEVSIG_H

#include <stddef.h>

#include "util/arena.h"

/*
 * The i= of an ed25519 X-Developer-Signature of raw[0..n) that
 * verifies against keyring (patatt's layout:
 * KEYRING/ed25519/<domain>/<local>/<selector>, the file holding the
 * base64 public key; names lower-cased and %-escaped as patatt makes
 * them), or NULL with *why saying why: "no developer signature", "an
 * openpgp developer signature (not verified)", "no key for <i> (selector
 * <s>) in auth.keyring", "developer signature does not verify", "the body
 * changed after the developer signature", and a few more for malformed
 * signatures and unreadable keys.  Of several signatures none of which
 * verifies, *why tells of the one that came closest.  keyring NULL:
 * NULL, *why "auth.keyring is not set" when the mail carries a
 * signature.  The result and *why live in the arena or are constants;
 * *why may quote i= and s=, which are printable ASCII without blanks.
 * Of several that verify, the one whose i= is `want` (the From address;
 * NULL: any) is told, wherever it stands: a co-signer's signature before
 * the author's hides nothing.  The caller still compares i= with the
 * From address.
 */
const char *devsig_identity(struct arena *a, const char *keyring,
    const char *raw, size_t n, const char *want, const char **why);

#endif
