/*
 * Every limit the parsers enforce, in one place, each with its reason.
 * A mail over a limit is stored raw, marked with the limit's name, and not
 * parsed any further: never half-parsed, never a crash, never an OOM.
 */
#ifndef PARSERS_LIMITS_H
#define PARSERS_LIMITS_H

/* Whole mail, as far as the parsers read it.  The largest patch series
 * mails on lore are a few MB; list servers refuse far less (vger: 10 MB).
 * A larger mail is stored whole, marked ("mail size") and not parsed. */
#define LIMIT_MAIL_SIZE (16u * 1024 * 1024)

/*
 * Whole mail, as far as it is stored: four times what is parsed.  A
 * source holds a mail whole in memory before it is stored (an import's
 * queue holds a few, and SQLite binds a copy), so there must be a cap;
 * no list passes such a mail, and the IMAP transport refuses a literal
 * above it (bot/source/imap_guard.c: libetpan allocates what a literal
 * announces).  SQLite's blob limit (1,000,000,000 bytes) is far above.
 * A larger mail is not stored at all, rather than cut: it is refused
 * with a log line naming where it is (its mbox byte offset, Maildir
 * file, public-inbox epoch and commit or IMAP UID), and `ingest` exits
 * 65 for the MTA to bounce it to its sender (docs/DECISIONS.md).  A
 * public-inbox mail is a git blob, inflated whole with the delta bases
 * it is built on: one larger than this (or built on a base that is) is
 * skipped from the sizes in the headers, never inflated, as inflating
 * it is the attack (a blob of 400 MB of zeros deflates to 400 KB, and
 * took 832 MB).
 */
#define LIMIT_MAIL_STORE (64u * 1024 * 1024)

/* Header block.  Real headers are a few KB; long Received chains and
 * References lists stay far under 256 KB. */
#define LIMIT_HEADER_SIZE (256u * 1024)

/* Header fields in one mail (or one MIME part). */
#define LIMIT_HEADER_COUNT 1000

/* One unfolded header field value. */
#define LIMIT_FIELD_SIZE (64u * 1024)

/* MIME nesting: real mail nests 3-4 deep (signed, alternative, mixed). */
#define LIMIT_MIME_DEPTH 16

/* MIME parts in one mail. */
#define LIMIT_MIME_PARTS 256

/* One line of a patch or body text.  Generated files can carry long lines;
 * a longer one is not text we can review or apply. */
#define LIMIT_LINE_LEN (64u * 1024)

/* Message-IDs kept from References (the newest are kept: JWZ needs only
 * the nearest ancestors). */
#define LIMIT_REFERENCES 128

/* One Message-ID (RFC 5322 has no limit; 250 covers every real one and
 * keeps keys, refs and URLs bounded). */
#define LIMIT_MSGID_LEN 250

/* Addresses in To plus Cc. */
#define LIMIT_ADDRESSES 512

/* Files touched by one patch; a larger one is refused by the stager too. */
#define LIMIT_PATCH_FILES 10000

/* Hunks in one patch. */
#define LIMIT_PATCH_HUNKS 100000

/* Trailers collected from one mail. */
#define LIMIT_TRAILERS 256

/* Command lines in one mail. */
#define LIMIT_COMMANDS 32

/* Developer signatures (X-Developer-Signature) in one mail: patatt adds
 * one per signer, and a mail has one signer; each costs a hash of the
 * header fields and an ed25519 check.  More: none is verified. */
#define LIMIT_DEVSIGS 8

/* Header fields one developer signature's h= may name: patatt signs
 * from, subject and message-id.  A longer list is not patatt's, and
 * would make one signature cost a walk of every field per name. */
#define LIMIT_DEVSIG_FIELDS 16

/* DKIM signatures in one mail: the author's domain, a list's, a mail
 * provider's make three; each costs a key lookup (a DNS query) and an
 * RSA check.  More: none is checked. */
#define LIMIT_DKIM_SIGNATURES 8

/* Words of one search (the pages' and the API's q=) asked of the
 * full-text index: each is a phrase whose last token is a prefix, and a
 * one-letter prefix walks the postings of every token it starts, so
 * the 2,000 words a URL holds would keep a web thread for seconds on a
 * large archive.  Words past these are left out. */
#define LIMIT_SEARCH_WORDS 8

/* Decoded output of one mail (all text parts together): base64 and
 * quoted-printable never grow, so this is the mail size. */
#define LIMIT_DECODED_SIZE LIMIT_MAIL_SIZE

/* Config file size and line length. */
#define LIMIT_CONFIG_SIZE (1024u * 1024)

#endif
