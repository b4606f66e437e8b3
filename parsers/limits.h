/*
 * Every limit the parsers enforce, in one place, each with its reason.
 * A mail over a limit is stored raw, marked with the limit's name, and not
 * parsed any further: never half-parsed, never a crash, never an OOM.
 */
#ifndef PARSERS_LIMITS_H
#define PARSERS_LIMITS_H

/* Whole mail.  The largest patch series mails on lore are a few MB; list
 * servers refuse far less (vger: 10 MB).  Above this we store and mark. */
#define LIMIT_MAIL_SIZE (16u * 1024 * 1024)

/* A mail of a public-inbox archive is a git blob, inflated whole (with
 * the delta bases it is built on) before its first LIMIT_MAIL_SIZE
 * bytes can be stored.  One larger than this is skipped and logged
 * instead, its size read from its header: inflating it is the attack
 * (a blob of 400 MB of zeros deflates to 400 KB, and took 832 MB).  Four
 * times the mail limit, what the IMAP source's transport allows one
 * literal (64 MB); a mail between the two is stored cut to
 * LIMIT_MAIL_SIZE and marked, as from any source. */
#define LIMIT_ARCHIVE_MAIL (4 * LIMIT_MAIL_SIZE)

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

/* Decoded output of one mail (all text parts together): base64 and
 * quoted-printable never grow, so this is the mail size. */
#define LIMIT_DECODED_SIZE LIMIT_MAIL_SIZE

/* Config file size and line length. */
#define LIMIT_CONFIG_SIZE (1024u * 1024)

#endif
