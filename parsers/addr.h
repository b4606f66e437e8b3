/*
 * Addresses and domains: mailbox parsing, the organizational domain by
 * the public suffix list (libpsl), Authentication-Results (RFC 8601) and
 * DMARC-style relaxed alignment of a DKIM pass with the From domain.
 */
#ifndef PARSERS_ADDR_H
#define PARSERS_ADDR_H

#include <stdbool.h>
#include <stddef.h>

#include "parsers/hdr.h"
#include "util/arena.h"
#include "util/buf.h"

struct addr {
	const char *name; /* display name, decoded UTF-8; "" when none */
	const char *email; /* local@domain, domain lower-cased; never NULL */
};

/*
 * The first mailbox of an unfolded From/To/Cc value:
 * "Name <a@b>", "\"Last, First\" <a@b>", "a@b (Name)", "a@b", RFC 2047
 * names.  ERR_PARSE when there is no address at all.
 */
enum err addr_parse(struct arena *a, struct str value, struct addr *out);

/* Every mailbox of an address list (groups flattened), at most
 * LIMIT_ADDRESSES; unparsable entries are skipped. */
enum err addr_parse_list(
    struct arena *a, struct str value, struct addr **out, size_t *n);

/* ASCII case-insensitive comparison of two addresses. */
bool addr_same(const char *a, const char *b);

/*
 * b4's leniency (LoreTrailer.email_eq, b4 0.12): the same address but for
 * ASCII case, a "+tag" in the local part, or one more subdomain label on
 * one side (foo@linux.intel.com is foo@intel.com).
 */
bool addr_alike(struct arena *a, const char *x, const char *y);

/* The domain part of an address (after the last '@'), or "". */
const char *addr_domain(const char *email);

/*
 * The organizational domain (registrable domain by the public suffix
 * list) of a domain, lower case, into the arena; NULL when the domain is
 * itself a public suffix ("org", "co.uk") or not a domain name.
 */
const char *addr_org_domain(struct arena *a, const char *domain);

/*
 * Whether a DKIM signature of domain d speaks for an address of
 * from_domain (docs/DESIGN.md §5): d is from_domain or a parent of it, at or
 * below the organizational domain (never a bare public suffix, never a
 * sibling: lists.example.org says nothing about maint.example.org).
 * ASCII case ignored.
 */
bool addr_dkim_covers(struct arena *a, const char *from_domain, const char *d);

enum addr_auth {
	ADDR_AUTH_PASS, /* a covering dkim=pass in the topmost header */
	ADDR_AUTH_NONE, /* the topmost Authentication-Results is not
	                   authserv_id's */
	ADDR_AUTH_FAIL, /* it says no dkim=pass */
	ADDR_AUTH_UNALIGNED /* dkim=pass, but no passing d= covers From */
};

/*
 * Judge a mail by a relay's header: only the topmost
 * Authentication-Results field counts, and only when its authserv-id is
 * authserv_id (ASCII case-insensitive): a header further down may be the
 * sender's own forgery.  It must hold a dkim=pass whose header.d (or
 * header.i domain) covers the domain of from_email (addr_dkim_covers).
 * *why gets a short English reason.
 */
enum addr_auth addr_auth_check(struct arena *a, const struct hdr *h,
    const char *authserv_id, const char *from_email, const char **why);

#endif
