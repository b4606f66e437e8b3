/*
 * Inside bot/daemon/: one followed source, and the IMAP follower
 * (follow_imap.c) that follow.c hands IMAP sources to.
 */
#ifndef BOT_DAEMON_FOLLOW_H
#define BOT_DAEMON_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/daemon/daemonpriv.h"

struct imap;

struct follower {
	const struct conf_source *cs; /* in the daemon's config */
	double next_poll; /* monotonic seconds */
	bool polled; /* --once: done */
	bool mirrored; /* public-inbox URL: every epoch fetched once */
	char *last_error; /* as last reported, NULL: fine */
	/* IMAP */
	struct imap *imap; /* connected, or NULL */
	double backoff; /* seconds before the next reconnection */
	double next_connect;
	double idle_since; /* the IDLE in progress began, 0: none */
	bool more; /* news left after a poll's searches: poll at once */
};

/* "imap", "public-inbox" or "maildir". */
const char *follow_kind(const struct conf_source *cs);
/* The outcome of a poll (error NULL: it went well): logged when it
 * changed, and recorded for `status`. */
void follow_report(struct daemon *d, struct follower *f, const char *error);
/* The mail that follows comes by f's road (its relay, if it names one). */
void follow_road(struct daemon *d, const struct follower *f);

bool follow_imap_due(struct follower *f, double now);
enum err follow_imap_poll(
    struct daemon *d, struct follower *f, double now, size_t *got);
double follow_imap_next(const struct follower *f);
int follow_imap_fd(const struct follower *f);
void follow_imap_close(struct follower *f);

#endif
