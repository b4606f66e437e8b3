/*
 * An IMAP source's URL (RFC 5092, the parts a mail source needs):
 * imap[s]://[user@]host[:port][/mailbox].  imaps:// speaks TLS from the
 * first byte (port 993), imap:// starts in the clear and must upgrade
 * with STARTTLS (port 143).  User and mailbox are percent-decoded; the
 * mailbox defaults to INBOX.  Pure, for the config's check and the
 * source alike.
 */
#ifndef PARSERS_IMAPURL_H
#define PARSERS_IMAPURL_H

#include <stdbool.h>

#include "util/err.h"

struct imapurl {
	bool tls; /* imaps:// */
	char user[256]; /* "" when the URL names none */
	char host[256]; /* without brackets for IPv6 */
	char port[8]; /* decimal */
	char mailbox[256];
};

/* ERR_PARSE with a reason in *why (static text) when s is not one. */
enum err imapurl_parse(const char *s, struct imapurl *out, const char **why);

#endif
