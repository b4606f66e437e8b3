/*
 * Following an IMAP mailbox, as mbsync or fetchmail would but keeping
 * its state in the database: the mailbox's UIDVALIDITY and the last UID
 * stored ("V:U" under "source:NAME:imap") advance only in the
 * transaction that stores the mail, so a connection lost at any moment
 * loses nothing and fetches nothing twice.  A new UIDVALIDITY (the
 * mailbox was recreated) reads the mailbox from its start again; mail
 * already stored is recognised by its Message-ID and not stored twice.
 *
 * The connection stays open in IDLE when the server offers it, renewed
 * every IMAP_IDLE_RENEW seconds (RFC 2177: servers may drop an IDLE
 * after 30 minutes); without IDLE the mailbox is polled every
 * `interval` seconds.  A lost or refused connection is tried again after
 * 1 s, doubling up to 5 minutes.  `seen` (flag or move:FOLDER) is
 * applied after the mail's transaction has committed durably.
 */
#include "bot/daemon/follow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/source/imap.h"
#include "parsers/limits.h"
#include "parsers/mail.h"
#include "storage/store_run.h"
#include "util/log.h"
#include "util/timeutil.h"

#define IMAP_IDLE_RENEW (28 * 60)
#define IMAP_BACKOFF_MAX 300.0
/* UIDs fetched in one command and stored in one transaction. */
#define IMAP_CHUNK 16
/* Searches in one poll while the server tells of new mail: a server that
 * says "EXISTS" in every answer must not keep the loop to itself.  The
 * rest waits for the next pass, after the other workers. */
#define IMAP_SYNC_ROUNDS 8

struct chunk {
	struct daemon *d;
	struct follower *f;
	struct arena *a;
	const char *key;
	uint32_t validity;
	uint32_t last; /* the highest UID stored in this transaction */
	bool in_tx;
	size_t stored;
};

static void
key_of(const struct follower *f, char *key, size_t n)
{
	snprintf(key, n, "source:%s:imap", f->cs->name);
}

/* The stored "V:U": the UID to go on after, 0 when V is not validity. */
static uint32_t
stored_uid(
    struct daemon *d, struct follower *f, const char *key, uint32_t validity)
{
	char *pos = NULL;
	unsigned long v = 0, u = 0;

	if (store_pos_get(d->st, key, &pos) != ERR_OK || pos == NULL)
		return 0;
	if (sscanf(pos, "%lu:%lu", &v, &u) != 2)
		v = u = 0;
	free(pos);
	if (v != validity && v != 0) {
		log_warn("source: %s: UIDVALIDITY changed from %lu to %lu: "
		         "reading the mailbox again (mail already stored is "
		         "not stored twice)",
		    f->cs->name, v, (unsigned long)validity);
		return 0;
	}
	return (uint32_t)u;
}

/* The chunk's mail stored so far made durable, with the last UID of it
 * as the position. */
static enum err
chunk_commit(struct chunk *c)
{
	char pos[32];
	enum err e = ERR_OK;

	if (c->last != 0) {
		snprintf(pos, sizeof(pos), "%lu:%lu",
		    (unsigned long)c->validity, (unsigned long)c->last);
		e = store_pos_set(c->d->st, c->key, pos);
	}
	if (e == ERR_OK)
		e = store_commit(c->d->st);
	if (e != ERR_OK)
		store_rollback(c->d->st);
	c->in_tx = false;
	return e;
}

/* The transaction of the chunk, begun when it is not. */
static enum err
chunk_begin(struct chunk *c)
{
	enum err e;

	if (c->in_tx)
		return ERR_OK;
	if ((e = store_begin(c->d->st)) == ERR_OK)
		c->in_tx = true;
	return e;
}

static enum err
store_one(void *arg, uint32_t uid, const char *raw, size_t n)
{
	struct chunk *c = arg;
	struct mail_opts o;
	struct ingest_proof proof;
	struct mail m;
	enum ingest_result res;
	int64_t pid = 0;
	enum err e;

	if (raw == NULL) {
		if ((e = chunk_begin(c)) != ERR_OK)
			return e;
		/* Too large to store: not cut, left on the server, named
		 * here (the position moves past it). */
		log_err("source: %s: UID %lu: the mail is %zu bytes, over the "
		        "%u bytes a mail may have: not stored, left on the "
		        "server",
		    c->f->cs->name, (unsigned long)uid, n, LIMIT_MAIL_STORE);
		c->last = uid;
		return ERR_OK;
	}
	arena_reset(c->a);
	follow_road(c->d, c->f);
	ingest_mail_opts(c->d->in, &o);
	mail_parse(c->a, raw, n, &o, &m);
	/* The transaction begins once the chunk is in memory, and a mail
	 * whose proof may wait for DNS is judged outside it: what the
	 * chunk stored before it is committed first, with its UID.  No
	 * write lock is held while the network is slow.  (Should the rest
	 * of the chunk fail, that part stays stored but unmarked, as when
	 * marking fails.) */
	memset(&proof, 0, sizeof(proof));
	if (!ingest_proof_may_wait(c->d->in, &m)) {
		ingest_prove(c->d->in, c->a, raw, n, &m, &proof);
	} else if (!ingest_delivered_before(c->d->in, &m)) {
		if (c->in_tx && (e = chunk_commit(c)) != ERR_OK)
			return e;
		ingest_prove(c->d->in, c->a, raw, n, &m, &proof);
	}
	if ((e = chunk_begin(c)) != ERR_OK)
		return e;
	e = ingest_project(c->d->in, c->f->cs->project, &m, &pid);
	if (e == ERR_OK)
		e = ingest_mail(c->d->in, raw, n, &m, &proof, pid, &res);
	if (e == ERR_OK) {
		c->last = uid;
		c->stored++;
	}
	return e;
}

/* Fetch and store one chunk of UIDs in one transaction with its UID. */
static enum err
do_chunk(struct chunk *c, struct imap *im, const uint32_t *uids, size_t n,
    char *err, size_t errn)
{
	enum err e;

	c->last = 0;
	c->in_tx = false;
	e = imap_fetch(im, uids, n, LIMIT_MAIL_STORE, store_one, c, err, errn);
	if (c->in_tx && e == ERR_OK)
		e = chunk_commit(c);
	else if (c->in_tx)
		store_rollback(c->d->st);
	c->in_tx = false;
	if (e == ERR_OK && strcmp(c->f->cs->seen, "leave") != 0 &&
	    imap_mark(im, uids, n, c->f->cs->seen, err, errn) != ERR_OK) {
		/* The mail is stored; only its mark on the server failed. */
		log_warn("source: %s: %s", c->f->cs->name, err);
		err[0] = '\0';
	}
	return e;
}

/*
 * Everything above the stored UID, chunk by chunk.  The search hands
 * out a window of UIDs at a time in a large mailbox (bot/source/imap.c):
 * the next one is asked for after the last UID it gave, stored or not
 * (a UID the server lists and then does not send is not asked for
 * again and again), so the UIDs only climb and the loop ends.
 */
static enum err
sync_mailbox(
    struct daemon *d, struct follower *f, size_t *got, char *err, size_t errn)
{
	struct chunk c;
	char key[300];
	uint32_t *uids = NULL, after;
	size_t n = 0, i, k;
	enum err e = ERR_OK;

	memset(&c, 0, sizeof(c));
	key_of(f, key, sizeof(key));
	c.d = d;
	c.f = f;
	c.key = key;
	c.validity = imap_uidvalidity(f->imap);
	c.a = arena_new();
	after = stored_uid(d, f, key, c.validity);
	while (e == ERR_OK && !daemon_stop) {
		e = imap_search(f->imap, after, &uids, &n, err, errn);
		if (e != ERR_OK || n == 0)
			break;
		for (i = 0; i < n && e == ERR_OK && !daemon_stop; i += k) {
			k = n - i < IMAP_CHUNK ? n - i : IMAP_CHUNK;
			e = do_chunk(&c, f->imap, uids + i, k, err, errn);
		}
		after = uids[n - 1];
		free(uids);
		uids = NULL;
	}
	arena_free(c.a);
	free(uids);
	*got += c.stored;
	return e;
}

static void
drop_connection(struct follower *f, double now, bool once, const char *why)
{
	imap_close(f->imap);
	f->imap = NULL;
	f->idle_since = 0;
	f->more = false;
	if (daemon_stop || once)
		return;
	f->next_connect = now + f->backoff;
	log_info("source: %s: %s; connecting again in %.0f s", f->cs->name, why,
	    f->backoff);
	f->backoff = f->backoff * 2 > IMAP_BACKOFF_MAX ? IMAP_BACKOFF_MAX
	                                               : f->backoff * 2;
}

static enum err
connect_source(struct daemon *d, struct follower *f, char *err, size_t errn)
{
	struct imap_config ic;

	memset(&ic, 0, sizeof(ic));
	ic.url = f->cs->imap;
	ic.password_file = f->cs->password_file;
	ic.ca_file = f->cs->ca_file;
	ic.pin_sha256 = f->cs->pin_sha256;
	ic.timeout = f->cs->timeout;
	ic.stop = &daemon_stop;
	(void)d;
	return imap_connect(&ic, &f->imap, err, errn);
}

bool
follow_imap_due(struct follower *f, double now)
{
	if (f->imap == NULL)
		return now >= f->next_connect;
	if (f->more)
		return true;
	if (f->idle_since > 0)
		return imap_ready(f->imap) ||
		    now >= f->idle_since + IMAP_IDLE_RENEW;
	return now >= f->next_poll;
}

enum err
follow_imap_poll(struct daemon *d, struct follower *f, double now, size_t *got)
{
	char err[512] = "";
	enum err e = ERR_OK;
	int rounds = 0;

	*got = 0;
	if (f->backoff < 1)
		f->backoff = 1;
	if (f->imap == NULL) {
		e = connect_source(d, f, err, sizeof(err));
		if (e != ERR_OK) {
			/* Stopping is not the source's failure. */
			if (!daemon_stop)
				follow_report(d, f, err);
			drop_connection(f, now, d->o.once, "not connected");
			return daemon_stop ? ERR_OK : e;
		}
		f->backoff = 1;
		log_debug("source: %s: connected, UIDVALIDITY %lu%s",
		    f->cs->name, (unsigned long)imap_uidvalidity(f->imap),
		    imap_has_idle(f->imap) ? ", IDLE" : "");
	}
	if (f->idle_since > 0) {
		f->idle_since = 0;
		e = imap_idle_done(f->imap, err, sizeof(err));
	}
	/* Again while the server tells of mail that came meanwhile, up to
	 * IMAP_SYNC_ROUNDS times; then at the next pass. */
	if (e == ERR_OK)
		imap_news(f->imap);
	f->more = false;
	do {
		if (e == ERR_OK)
			e = sync_mailbox(d, f, got, err, sizeof(err));
	} while (e == ERR_OK && !daemon_stop && ++rounds < IMAP_SYNC_ROUNDS &&
	    imap_news(f->imap));
	if (e == ERR_OK && rounds == IMAP_SYNC_ROUNDS)
		f->more = imap_news(f->imap);
	if (e != ERR_OK && daemon_stop) {
		follow_imap_close(f);
		return ERR_OK;
	}
	if (e == ERR_OK && !d->o.once && !daemon_stop && !f->more &&
	    imap_has_idle(f->imap)) {
		e = imap_idle(f->imap, err, sizeof(err));
		if (e == ERR_OK)
			f->idle_since = time_mono();
	}
	if (e != ERR_OK && err[0] == '\0')
		snprintf(err, sizeof(err), "%s", err_str(e));
	follow_report(d, f, e == ERR_OK ? NULL : err);
	if (e != ERR_OK)
		drop_connection(f, now, d->o.once, "connection lost");
	else if (d->o.once)
		follow_imap_close(f);
	return e;
}

double
follow_imap_next(const struct follower *f)
{
	if (f->imap == NULL)
		return f->next_connect;
	if (f->more)
		return 0;
	if (f->idle_since > 0)
		return f->idle_since + IMAP_IDLE_RENEW;
	return f->next_poll;
}

int
follow_imap_fd(const struct follower *f)
{
	return f->imap != NULL && f->idle_since > 0 ? imap_fd(f->imap) : -1;
}

void
follow_imap_close(struct follower *f)
{
	imap_close(f->imap);
	f->imap = NULL;
	f->idle_since = 0;
	f->more = false;
}
