/*
 * The mail sources `run` follows, one per [source "NAME"]:
 *
 * - public-inbox (a path, or a URL mirrored into "<database>.sources/
 *   NAME" first): every `interval` seconds each epoch's new commits are
 *   read and ingested in order, each epoch's position ("N:<commit>" under
 *   "source:NAME:epoch:N") stored with the batch that ends there.  An
 *   epoch whose head no longer descends from that commit was rewritten
 *   (public-inbox-purge, say): it is reported and followed on from its
 *   new head, its mail not read again.
 * - maildir: every `interval` seconds the mails after the last one read
 *   (in the order of their Maildir names, which start with the delivery
 *   time) are ingested, as `patchyard import` would resume.
 * - imap: follow_imap.c.
 *
 * Each poll records its outcome in source_state (what `status` shows);
 * an error is logged once per change, not once per poll.
 */
#include "bot/daemon/follow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bot/source/pubinbox_mirror.h"
#include "bot/source/source.h"
#include "bot/workflow/import.h"
#include "storage/store_run.h"
#include "util/ascii.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

const char *
follow_kind(const struct conf_source *cs)
{
	if (cs->imap)
		return "imap";
	return cs->public_inbox ? "public-inbox" : "maildir";
}

/* A source name can name a folder: [A-Za-z0-9._-], not starting '.'. */
static bool
name_is_safe(const char *s)
{
	size_t i;

	if (s[0] == '\0' || s[0] == '.' || strlen(s) > 200)
		return false;
	for (i = 0; s[i]; i++)
		if (!ascii_isalnum(s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

void
follow_report(struct daemon *d, struct follower *f, const char *error)
{
	bool same = (error == NULL && f->last_error == NULL) ||
	    (error && f->last_error && strcmp(error, f->last_error) == 0);

	if (!same) {
		if (error)
			log_err("source: %s: %s", f->cs->name, error);
		else
			log_info("source: %s: working again", f->cs->name);
		free(f->last_error);
		f->last_error = error ? xstrdup(error) : NULL;
	}
	if (store_source_report(d->st, f->cs->name, follow_kind(f->cs), error,
	        time_now()) != ERR_OK)
		log_warn("source: %s: cannot record its state", f->cs->name);
}

/* What the source's mail proves comes by this source's road: its relay,
 * if it names one, and signatures checked as the mail arrives. */
void
follow_road(struct daemon *d, const struct follower *f)
{
	struct trust_road r = { f->cs->authserv_id, true };

	ingest_set_road(d->in, &r);
}

static void
import_opts_of(struct daemon *d, struct follower *f, struct import_opts *o)
{
	follow_road(d, f);
	memset(o, 0, sizeof(*o));
	o->project = f->cs->project;
	o->stop = &daemon_stop;
	o->quiet = true;
}

/* Ingest what epoch i holds after its stored position. */
static enum err
follow_epoch(struct daemon *d, struct follower *f, struct source *src, size_t i,
    size_t *got, char *err, size_t errn)
{
	unsigned long num = source_epoch_num(src, i);
	char key[300], head[41], *pos = NULL, npos[80];
	const char *after = NULL;
	struct import_opts o;
	size_t done = 0, pn;
	enum err e;

	snprintf(key, sizeof(key), "source:%s:epoch:%lu", f->cs->name, num);
	e = source_epoch_head(src, i, head);
	if (e == ERR_NOTFOUND)
		return ERR_OK;
	if (e == ERR_OK)
		e = store_pos_get(d->st, key, &pos);
	if (e == ERR_NOTFOUND)
		e = ERR_OK;
	if (e != ERR_OK)
		goto out;
	snprintf(npos, sizeof(npos), "%lu:", num);
	pn = strlen(npos);
	if (pos && strncmp(pos, npos, pn) == 0) {
		after = pos + pn;
		if (strcmp(after, head) == 0)
			goto out; /* nothing new */
	}
	e = source_epoch_select(src, i, after);
	if (e == ERR_CONFLICT) {
		snprintf(err, errn,
		    "epoch %lu was rewritten: %.12s is no longer in its "
		    "history; followed on from %.12s, its mail not read again",
		    num, after, head);
		log_err("source: %s: %s", f->cs->name, err);
		snprintf(npos + pn, sizeof(npos) - pn, "%s", head);
		if ((e = store_begin(d->st)) == ERR_OK &&
		    (e = store_pos_set(d->st, key, npos)) == ERR_OK)
			e = store_commit(d->st);
		else
			store_rollback(d->st);
		goto out;
	}
	if (e != ERR_OK)
		goto out;
	import_opts_of(d, f, &o);
	e = import_source(d->in, d->st, src, key, &o, &done);
	*got += done;
	/* A mail skipped for its size is the source's to show. */
	if (source_skipped(src) != NULL && err[0] == '\0')
		snprintf(err, errn, "%s", source_skipped(src));
out:
	free(pos);
	return e;
}

static enum err
poll_pubinbox(struct daemon *d, struct follower *f, size_t *got)
{
	const char *path = f->cs->public_inbox;
	struct source *src = NULL;
	char err[300] = "", dir[4096];
	unsigned fetched;
	size_t i;
	enum err e = ERR_OK;

	if (strstr(path, "://") != NULL) {
		if (!name_is_safe(f->cs->name)) {
			follow_report(d, f,
			    "the source's name cannot name its mirror folder "
			    "(use letters, digits, '.', '_', '-')");
			return ERR_CONFIG;
		}
		snprintf(dir, sizeof(dir), "%s.sources", d->conf->database);
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			log_warn("source: %s: %s", dir, strerror(errno));
		snprintf(dir, sizeof(dir), "%s.sources/%s", d->conf->database,
		    f->cs->name);
		e = pubinbox_mirror(path, dir, !f->mirrored, &daemon_stop,
		    &fetched, err, sizeof(err));
		if (e != ERR_OK) {
			if (daemon_stop)
				return ERR_OK;
			follow_report(d, f,
			    "cannot fetch the archive (see the "
			    "log)");
			return e;
		}
		f->mirrored = true;
		path = dir;
	}
	if ((e = source_open(path, 0, &src)) != ERR_OK ||
	    source_kind(src) != SOURCE_PUBINBOX) {
		source_free(src);
		follow_report(
		    d, f, "not a public-inbox v2 archive (git/N.git)");
		return e != ERR_OK ? e : ERR_CONFIG;
	}
	if (store_set_sync(d->st, STORE_SYNC_NORMAL) != ERR_OK)
		log_warn("source: %s: synchronous=NORMAL refused", f->cs->name);
	for (i = 0; i < source_epochs(src) && e == ERR_OK && !daemon_stop; i++)
		e = follow_epoch(d, f, src, i, got, err, sizeof(err));
	store_set_sync(d->st, STORE_SYNC_FULL);
	source_free(src);
	if (e != ERR_OK && err[0] == '\0')
		snprintf(
		    err, sizeof(err), "reading the archive: %s", err_str(e));
	follow_report(d, f, err[0] ? err : NULL);
	return e;
}

static enum err
poll_maildir(struct daemon *d, struct follower *f, size_t *got)
{
	struct source *src = NULL;
	struct import_opts o;
	char key[300], *pos = NULL;
	size_t done = 0;
	enum err e;

	snprintf(key, sizeof(key), "source:%s:maildir", f->cs->name);
	if ((e = source_open(f->cs->maildir, 0, &src)) != ERR_OK ||
	    source_kind(src) != SOURCE_MAILDIR) {
		source_free(src);
		follow_report(d, f, "not a Maildir (cur/, new/)");
		return e != ERR_OK ? e : ERR_CONFIG;
	}
	e = store_pos_get(d->st, key, &pos);
	if (e == ERR_OK)
		e = source_seek(src, pos);
	if (e == ERR_NOTFOUND)
		e = ERR_OK;
	if (e == ERR_OK) {
		import_opts_of(d, f, &o);
		e = import_source(d->in, d->st, src, key, &o, &done);
		*got += done;
	}
	free(pos);
	source_free(src);
	follow_report(d, f, e == ERR_OK ? NULL : "reading the Maildir failed");
	return e;
}

void
follow_setup(struct daemon *d)
{
	size_t i;

	d->nsrc = d->conf->nsources;
	d->src = xcalloc(d->nsrc ? d->nsrc : 1, sizeof(*d->src));
	for (i = 0; i < d->nsrc; i++) {
		struct follower *f = xcalloc(1, sizeof(*f));

		f->cs = &d->conf->sources[i];
		f->next_poll = 0; /* at once */
		d->src[i] = f;
	}
}

void
follow_free_all(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nsrc; i++) {
		follow_imap_close(d->src[i]);
		free(d->src[i]->last_error);
		free(d->src[i]);
	}
	free(d->src);
	d->src = NULL;
	d->nsrc = 0;
}

static bool
one_due(struct daemon *d, struct follower *f, double now)
{
	if (d->o.once)
		return !f->polled;
	if (f->cs->imap)
		return follow_imap_due(f, now);
	return now >= f->next_poll;
}

bool
follow_due(struct daemon *d, double now)
{
	size_t i;

	for (i = 0; i < d->nsrc; i++)
		if (one_due(d, d->src[i], now))
			return true;
	return false;
}

enum err
follow_run(struct daemon *d, double now, bool *got)
{
	enum err e, first = ERR_OK;
	size_t i, n;

	for (i = 0; i < d->nsrc && !daemon_stop; i++) {
		struct follower *f = d->src[i];

		if (!one_due(d, f, now))
			continue;
		n = 0;
		if (f->cs->imap)
			e = follow_imap_poll(d, f, now, &n);
		else if (f->cs->public_inbox)
			e = poll_pubinbox(d, f, &n);
		else
			e = poll_maildir(d, f, &n);
		f->polled = true;
		f->next_poll = time_mono() + f->cs->interval;
		if (n > 0) {
			*got = true;
			log_info("source: %s: %zu mail%s", f->cs->name, n,
			    n == 1 ? "" : "s");
		}
		/* A source in trouble says so itself; the others go on. */
		if (e != ERR_OK && first == ERR_OK && d->o.once)
			first = e;
	}
	return first;
}

double
follow_next(struct daemon *d)
{
	double next = time_mono() + 3600;
	size_t i;

	for (i = 0; i < d->nsrc; i++) {
		double t = d->src[i]->cs->imap ? follow_imap_next(d->src[i])
		                               : d->src[i]->next_poll;

		if (t < next)
			next = t;
	}
	return next;
}

size_t
follow_fds(struct daemon *d, int *fds, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < d->nsrc && n < max; i++) {
		int fd = d->src[i]->cs->imap ? follow_imap_fd(d->src[i]) : -1;

		if (fd >= 0)
			fds[n++] = fd;
	}
	return n;
}
