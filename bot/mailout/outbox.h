/* Sending the outbox (DESIGN.md §8): every due mail once through the
 * relay, its fate recorded with it; transient failures back off. */
#ifndef BOT_OUTBOX_H
#define BOT_OUTBOX_H

#include <stdbool.h>
#include <stdint.h>

#include "parsers/config.h"
#include "storage/store.h"

/* The wait before attempt n+1 after n failed ones: 1 minute, doubling,
 * at most an hour. */
int64_t outbox_backoff(int attempts);

/* What a send run did. */
struct outbox_stats {
	unsigned sent, failed, waiting; /* the mails, by their fate */
	unsigned connections; /* SMTP connections opened: 1 as a rule */
	unsigned reconnects; /* of them, after the relay closed one */
};

/*
 * Send what is due (now: also what waits for its back-off), in one SMTP
 * session.  ERR_OK when the run completed, whatever each mail's fate;
 * ERR_CONFIG when no mail can go until the operator acts (no relay
 * configured, TLS or credentials refused); other errors are internal.
 * Why a mail waits or failed is logged (a warning, an error), and a relay
 * out of reach once for the run.
 */
enum err outbox_send(struct store *st, const struct config *conf, bool now,
    struct outbox_stats *out);

#endif
