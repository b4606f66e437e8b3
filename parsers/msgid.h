/*
 * Message-IDs: lenient for threading, strict before a value becomes a key.
 *
 * Keys are stored without angle brackets or surrounding space, case kept
 * (DESIGN.md §3).  A key must pass msgid_valid(): 1..LIMIT_MSGID_LEN
 * bytes of printable ASCII other than space, '<', '>', '"', '\\', and no
 * leading '.' or "..", so that it can safely become a database key, a git
 * ref component (after escaping), a URL (percent-encoded) or a file name
 * (escaped).
 */
#ifndef PARSERS_MSGID_H
#define PARSERS_MSGID_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/buf.h"

bool msgid_valid(struct str id);

/*
 * The first Message-ID in a header value ("<a@b>", or a bare "a@b" when
 * there are no brackets at all), without brackets and trimmed; STR_NULL
 * when there is none or it fails msgid_valid().
 */
struct str msgid_first(struct arena *a, struct str value);

/*
 * Every valid <...> Message-ID in a References value, in order, with
 * duplicates removed (the last occurrence kept, as JWZ wants the nearest
 * ancestor last).  Comments and junk between ids are skipped.  When more
 * than LIMIT_REFERENCES ids are found, the last LIMIT_REFERENCES are kept.
 */
enum err msgid_list(
    struct arena *a, struct str value, struct str **ids, size_t *n);

/*
 * A REF from a user or a URL: strips surrounding space and one pair of
 * angle brackets; STR_NULL when the rest is not valid.
 */
struct str msgid_from_user(struct str ref);

/* Percent-encode a key for a URL path segment, as lore does: everything
 * but unreserved characters, '@', and "!$&'()*+,;=:" is %XX-encoded. */
void msgid_urlencode(struct buf *out, struct str id);

#endif
