/*
 * Room bot/workflow: the rules that turn mail into tracked patches.
 *
 * Ingest: one parsed mail into the model (docs/DESIGN.md §3-4), inside the
 * caller's transaction.  Threading (References first, In-Reply-To second,
 * as JWZ), series, versions, trailers, and replies that arrived before
 * their ancestors.
 */
#ifndef BOT_INGEST_H
#define BOT_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/workflow/trust.h"
#include "parsers/config.h"
#include "parsers/mail.h"
#include "storage/store.h"

struct ingest_stats {
	size_t seen; /* mails handed to ingest */
	size_t stored; /* new messages */
	size_t duplicates; /* second deliveries of a stored mail */
	size_t dupids; /* other mails reusing a stored Message-ID */
	size_t patches, covers, replies, pulls, bots, other;
	size_t overlimit; /* stored but not parsed: over a limit */
	size_t refused; /* not stored: over LIMIT_MAIL_STORE (each logged
	                   where it is, by its source) */
	size_t series; /* series created */
	size_t linked; /* series linked to an older version */
};

enum ingest_result {
	INGEST_STORED,
	INGEST_DUPLICATE,
	INGEST_DUPID
};

struct ingest;

struct ingest *ingest_new(struct store *st, const struct config *conf);
void ingest_free(struct ingest *in);
const struct ingest_stats *ingest_stats(const struct ingest *in);
/*
 * The road the following mails come by (docs/DESIGN.md §5): which relay's
 * header is believed, and whether signatures are checked.  The default
 * believes nothing and checks nothing, as an import.
 */
void ingest_set_road(struct ingest *in, const struct trust_road *road);
/* Count n mails a source skipped as too large to store. */
void ingest_refused(struct ingest *in, size_t n);
/* Options for mail_parse() that follow from the config. */
void ingest_mail_opts(const struct ingest *in, struct mail_opts *o);

/*
 * The project of a mail: the named one (created when new), else the
 * first configured project whose list matches List-Id, To or Cc; 0 when
 * none (stored unassigned).  ERR_CONFIG when name is not configured.
 */
enum err ingest_project(struct ingest *in, const char *name,
    const struct mail *m, int64_t *project_id);

/*
 * How a mail authenticates (docs/DESIGN.md §5), judged before the
 * transaction that stores it: a DKIM key is looked up in DNS, up to
 * seconds a signature, and no write lock may be held meanwhile (other
 * writers give up after the busy timeout).
 */
struct ingest_proof {
	const char *auth; /* trust_judge()'s proof; NULL: none */
	const char *note; /* why not */
};

/*
 * Judge mail m (raw[0..n)) by the road set, into *p, its strings in a,
 * which must outlive ingest_mail() of the mail.  Only what the verdict
 * could matter for is looked at (a reply that may command or give a
 * trailer, a patch that may take another's place); the rest gets no
 * proof.  Call it with no transaction open.  It reads only the road and
 * the configuration: an import's reading thread calls it while the
 * writing one ingests.
 */
void ingest_prove(const struct ingest *in, struct arena *a, const char *raw,
    size_t n, const struct mail *m, struct ingest_proof *p);

/* Whether m is stored already, the same bytes under its Message-ID: a
 * second delivery, which ingest_mail() counts and never judges, so a
 * caller on the store's thread whose proof may wait for DNS leaves
 * ingest_prove() out (its keys would be looked up again for nothing).
 * A read. */
bool ingest_delivered_before(struct ingest *in, const struct mail *m);

/* Whether ingest_prove() may wait for m (trust_may_wait()): a caller
 * that holds a transaction commits it first. */
bool ingest_proof_may_wait(const struct ingest *in, const struct mail *m);

/* Store and thread one mail, with its proof (ingest_prove(), outside the
 * transaction).  The caller holds a transaction. */
enum err ingest_mail(struct ingest *in, const char *raw, size_t n,
    const struct mail *m, const struct ingest_proof *proof, int64_t project_id,
    enum ingest_result *res);

#endif
