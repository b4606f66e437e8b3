/*
 * Sending the outbox.  A mail is sent, then its fate recorded in a
 * transaction of its own.  Once the relay has accepted a mail, that
 * record must be written: were it lost, the next run would send the
 * mail again.  So it is retried until it is written, however long the
 * database stays busy or failing (each failure logged, the wait
 * doubling up to RECORD_WAIT_MAX).  One window remains, and cannot be
 * closed from this side: a crash (or kill -9) between the relay's 250
 * and the commit of the record.  The next run then sends the mail again,
 * with the same Message-ID (it is stored with the mail), so a receiver
 * that de-duplicates by Message-ID, as mail clients and list archives
 * do, shows it once.  RFC 5321 section 4.1.1.4 takes a rare duplicate
 * over a loss for the same reason.
 */
#include "bot/mailout/outbox.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/mailout/smtp.h"
#include "storage/store_outbox.h"
#include "util/log.h"
#include "util/secret.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* A mail that could not go for this long has failed (DESIGN.md §8). */
#define OUTBOX_GIVE_UP (3 * 24 * 3600)
/* Recording a sent mail is retried after 50 ms, doubling up to this. */
#define RECORD_WAIT_MAX 30000

int64_t
outbox_backoff(int attempts)
{
	int64_t wait = 60;
	int i;

	for (i = 1; i < attempts && wait < 3600; i++)
		wait *= 2;
	return wait > 3600 ? 3600 : wait;
}

static enum err
open_relay(
    const struct config *conf, char *password, size_t pn, struct smtp **out)
{
	struct smtp_config c;
	char why[512];
	enum err e;

	if (conf->smtp_url == NULL) {
		log_err("send: no [smtp] url: mail is queued, never sent");
		return ERR_CONFIG;
	}
	memset(&c, 0, sizeof(c));
	c.url = conf->smtp_url;
	c.starttls = conf->smtp_starttls;
	c.ca_file = conf->smtp_ca_file;
	c.pin_sha256 = conf->smtp_pin_sha256;
	c.user = conf->smtp_user;
	if (conf->smtp_password_file &&
	    (e = secret_read(conf->smtp_password_file, password, pn, why,
	         sizeof(why))) != ERR_OK) {
		log_err("send: %s", why);
		return e;
	}
	c.password = conf->smtp_password_file ? password : NULL;
	return smtp_new(&c, out);
}

/* What one attempt did to the mail's row. */
static void
judge(struct store_outbox *o, const struct smtp_result *r, int64_t now)
{
	o->attempts++;
	o->last_error = r->last_error[0] ? r->last_error : NULL;
	if (r->status == SMTP_OK && r->deferred.n == 0) {
		o->state = "sent";
		o->sent_at = now;
		return;
	}
	if (r->status == SMTP_PERM) {
		o->state = "failed";
		return;
	}
	if (r->status == SMTP_OK) {
		/* Only the recipients the relay deferred are tried again. */
		o->rcpt = buf_cstr(&r->deferred);
	}
	o->state = now - o->created >= OUTBOX_GIVE_UP ? "failed" : "queued";
	o->next_attempt = now + outbox_backoff(o->attempts);
}

/* One attempt to write the row, in a transaction of its own. */
static enum err
record_once(struct store *st, const struct store_outbox *o)
{
	enum err e = store_begin(st);

	if (e != ERR_OK)
		return e; /* nothing began: nothing to roll back */
	if ((e = store_outbox_result(st, o)) == ERR_OK)
		e = store_commit(st);
	if (e != ERR_OK)
		store_rollback(st);
	return e;
}

static void
pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/*
 * Record what an attempt did.  When the relay accepted the mail (for
 * some recipients at least), retry until the record is written: see the
 * top of this file.
 */
static enum err
record(struct store *st, const struct store_outbox *o, bool accepted)
{
	long wait = 50;
	unsigned tries = 0;
	enum err e;

	while ((e = record_once(st, o)) != ERR_OK && accepted) {
		tries++;
		log_warn("send: <%s>: the relay has it, but recording that "
		         "failed (%s, attempt %u): trying again in %ld ms",
		    o->message_id, err_str(e), tries, wait);
		pause_ms(wait);
		wait = wait * 2 > RECORD_WAIT_MAX ? RECORD_WAIT_MAX : wait * 2;
	}
	return e;
}

/* What the attempt did to the mail, in the log: the row has it too, but
 * an operator reads the log (the reason a mail waits, or was refused). */
static void
tell(const struct store_outbox *o, const struct smtp_result *r)
{
	if (r->rejected.n)
		log_warn("send: <%s>: recipients refused for good: %.*s",
		    o->message_id, (int)r->rejected.n - 1, r->rejected.p);
	if (strcmp(o->state, "failed") == 0)
		log_err("send: <%s>: not sent, and never will be: %s",
		    o->message_id,
		    r->last_error[0] ? r->last_error : "refused");
	else if (strcmp(o->state, "queued") == 0)
		log_warn("send: <%s>: not sent (%s): trying again in %lld s",
		    o->message_id,
		    r->last_error[0] ? r->last_error : "recipients deferred",
		    (long long)outbox_backoff(o->attempts));
}

/*
 * Send mail id through the relay (with skip, the relay is known to be out
 * of reach: the mail takes *r, the result of the attempt that found so,
 * and waits) and record its fate.  *tried is false when the mail was no
 * longer queued (another process sent or cancelled it meanwhile).
 */
static enum err
send_one(struct store *st, const struct config *conf, struct smtp *relay,
    int64_t id, struct smtp_result *r, bool skip, bool *tried)
{
	struct arena *a = arena_new();
	struct store_outbox o;
	enum err e = store_outbox_get(st, a, id, &o);

	*tried = e == ERR_OK && strcmp(o.state, "queued") == 0;
	if (!*tried)
		goto out;
	if (!skip)
		smtp_send(
		    relay, conf->bot_address, o.rcpt, o.body, o.body_len, r);
	if (r->status == SMTP_CONFIG) {
		log_err("send: <%s>: %s", o.message_id, r->last_error);
		goto out;
	}
	judge(&o, r, time_now());
	if (!skip && !r->unreachable)
		tell(&o, r);
	e = record(st, &o, r->status == SMTP_OK);
out:
	arena_free(a);
	return e;
}

enum err
outbox_send(struct store *st, const struct config *conf, bool now,
    struct outbox_stats *out)
{
	struct smtp *relay = NULL;
	struct smtp_result r;
	char password[512];
	int64_t *ids = NULL;
	size_t n = 0, i;
	bool down = false;
	enum err e = store_outbox_due(st, time_now(), now, &ids, &n);

	memset(out, 0, sizeof(*out));
	smtp_result_init(&r);
	if (e != ERR_OK || n == 0)
		goto out;
	if ((e = open_relay(conf, password, sizeof(password), &relay)))
		goto out;
	/* One session for the run: the relay's connection is kept open from
	 * mail to mail (bot/mailout/smtp.h). */
	for (i = 0; i < n && e == ERR_OK; i++) {
		bool tried;

		e = send_one(st, conf, relay, ids[i], &r, down, &tried);
		if (!tried)
			continue;
		if (!down) {
			out->connections += (unsigned)r.connects;
			out->reconnects += r.reconnected;
		}
		if (r.status == SMTP_CONFIG)
			e = ERR_CONFIG;
		else if (r.status == SMTP_OK && r.deferred.n == 0)
			out->sent++;
		else if (r.status == SMTP_PERM)
			out->failed++;
		else
			out->waiting++;
		/* A relay out of reach is so for the rest of the run too:
		 * say it once, and let the others wait without trying. */
		if (e == ERR_OK && r.unreachable && !down) {
			down = true;
			log_warn("send: %s: cannot reach the relay (%s): %zu "
			         "mail%s wait",
			    conf->smtp_url, r.last_error, n - i,
			    n - i == 1 ? "" : "s");
		}
	}
out:
	explicit_bzero(password, sizeof(password));
	smtp_free(relay);
	smtp_result_free(&r);
	free(ids);
	return e;
}
