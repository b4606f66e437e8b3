/*
 * Room bot/mailout: mail out, from template to SMTP relay.
 *
 * Composing the mails the bot sends (DESIGN.md §8): an RFC 5322 message
 * with CRLF line ends, threaded to the mail it answers, marked as an
 * automatic reply, with RFC 2047 encoded subject and display names.
 *
 * Everything that may come from mail (subject, names, addresses, ids)
 * is made harmless here, whatever the caller did: CR, LF, NUL and other
 * control characters never reach a header (they become blanks in text,
 * and an address or id holding one is dropped), invalid UTF-8 is
 * repaired, and every header line is folded to at most 78 characters
 * where the text allows (an id or address longer than that stays whole).
 */
#ifndef BOT_MAILOUT_H
#define BOT_MAILOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

/* At most this many ids in References: the thread's root and the
 * nearest ancestors (RFC 5322 §3.6.4 allows trimming the middle). */
#define MAILOUT_MAX_REFS 20
/* Display names are cut to this many bytes (at a character boundary). */
#define MAILOUT_MAX_NAME 256
/* Subjects are cut to this many bytes (at a character boundary). */
#define MAILOUT_MAX_SUBJECT 1024
/* A composed message is never larger (the body is the bulk of it). */
#define MAILOUT_MAX_SIZE (8u * 1024 * 1024)

struct mailout_addr {
	const char *name; /* display name, UTF-8; NULL or "" for none */
	const char *email; /* local@domain, ASCII */
};

struct mailout_msg {
	const char *from_email; /* the bot's address (bot.address) */
	const char *from_name; /* NULL: "patchyard" */
	const struct mailout_addr *to;
	size_t nto;
	const struct mailout_addr *cc;
	size_t ncc;
	/* UTF-8.  With in_reply_to set, it becomes "Re: <subject>" with any
	 * "Re:" chain in front of it collapsed to one. */
	const char *subject;
	/* Without angle brackets, unique (mailout_message_id()). */
	const char *message_id;
	int64_t date; /* seconds since the epoch; written in UTC */
	/* The parent: its Message-ID and its own References (oldest first),
	 * without angle brackets.  NULL / 0 for a mail that starts a thread. */
	const char *in_reply_to;
	const char *const *references;
	size_t nreferences;
	/* Threaded but not a reply: the subject stays as it is (the
	 * patches of a series answer its cover letter, as git send-email
	 * threads them). */
	bool keep_subject;
	const char *event; /* X-Patchyard-Event: [a-z-]+ */
	const char *body; /* UTF-8 text, LF or CRLF line ends */
	size_t body_len;
};

/*
 * Compose m into msg (reset first).  The envelope recipients go to rcpts
 * (reset first), one address per line ("a@b\n"): every valid address of
 * To and Cc once (ASCII case-insensitive), without the bot's own
 * address, in header order; this is the text smtp_send() takes and the
 * outbox keeps.  Recipients without a valid address are left out (and
 * logged).  When To ends up empty, the Cc addresses move to To.
 *
 * ERR_INVAL for a bad from_email, message_id or event (the caller's
 * values, not mail's); ERR_NOTFOUND when no recipient is left;
 * ERR_LIMIT when the message would exceed MAILOUT_MAX_SIZE.
 */
enum err mailout_compose(
    const struct mailout_msg *m, struct buf *msg, struct buf *rcpts);

/*
 * A new Message-ID, without angle brackets:
 * "<now>.<16 random hex digits>.<event>@<domain of bot_address>", so that
 * it is known before the mail is sent and stored with it.  ERR_IO when
 * the system has no randomness to give; ERR_INVAL for a bad event.
 */
enum err mailout_message_id(
    struct buf *out, int64_t now, const char *event, const char *bot_address);

/*
 * A composed message (mailout_compose) whose body went out as 8bit, with
 * that body quoted-printable instead: for a relay that does not offer
 * 8BITMIME (RFC 6152 section 3).  Only the Content-Transfer-Encoding
 * field and the body change.  ERR_INVAL when msg has no 8bit body.
 */
enum err mailout_7bit(const char *msg, size_t n, struct buf *out);

/*
 * The subject of a reply: "Re: " and subject without its leading chain of
 * "Re:" prefixes (any case, "Re[2]:", blanks between), appended to out.
 */
void mailout_reply_subject(struct buf *out, const char *subject);

/*
 * One header field, "Name: value" with its CRLF, as mailout_compose()
 * writes them: text (unstructured: Subject) or one mailbox (From), made
 * safe, RFC 2047 encoded where needed and folded.  For other writers of
 * mail: `patchyard am`.
 */
void mailout_field_text(struct buf *out, const char *name, const char *text);
enum err mailout_field_mailbox(
    struct buf *out, const char *name, const struct mailout_addr *a);

/* Whether an address is one we put in a header and an SMTP envelope:
 * local@domain, printable ASCII, no blanks, quotes, brackets or commas. */
bool mailout_addr_valid(const char *email);

/* Whether an id may go between angle brackets in a header: printable
 * ASCII without blanks, '<', '>', at most 250 bytes (LIMIT_MSGID_LEN). */
bool mailout_id_valid(const char *id);

#endif
