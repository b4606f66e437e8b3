#include "bot/workflow/import.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parsers/limits.h"
#include "util/log.h"
#include "util/thread.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* Mails per transaction: enough that commits are rare, few enough that a
 * crash repeats little work. */
#define IMPORT_BATCH 1000
/* Mails read ahead of the writer.  Bounds memory: each holds one raw
 * mail (usually a few KB) and its parse; a deeper ring was no faster
 * (docs/DECISIONS.md). */
#define QUEUE_LEN 64
/* Bytes of raw mail in the ring: the reader reads no further past them
 * (but always reads one when the ring is empty).  A mail may be as
 * large as LIMIT_MAIL_STORE: 64 of them would be 4 GB. */
#define QUEUE_BYTES (64u * 1024 * 1024)
/* Mails the reader reads before it parses: what the writer may parse
 * when it has caught up.  Fewer made an archive's import slower, more
 * did not make it faster. */
#define READ_AHEAD 8
/* Mails, and bytes of them, the reader reads ahead raw when the ring is
 * full of parsed mail (the writer is committing, say): when there is
 * room again, reading them is a swap of buffers, and the reader only
 * parses them. */
#define PRE_LEN 512
#define PRE_BYTES (8u * 1024 * 1024)
/* The reader, waiting for room, is woken when this much is free: a
 * wake-up a mail would cost a futex call and two context switches on
 * each side, more than the parse of a small mail. */
#define REFILL 16

/* A raw mail as the source gave it: lent by the source (held), or
 * copied into buf. */
struct raw {
	const char *raw; /* n bytes and a NUL */
	size_t n;
	void *hold; /* the source's, or NULL: raw is buf */
	char *buf;
	size_t cap;
	char pos[sizeof(((struct source_mail *)0)->pos)];
};

struct item {
	struct raw r;
	struct arena *a;
	struct mail m;
	struct ingest_proof proof; /* in a, when proven */
	bool parsed; /* claimed items only: done, not being parsed */
	bool proven; /* parsed items only: proof holds the verdict */
};

/*
 * Two threads share the work: the reader reads each mail into the ring
 * and the writer writes them to the database in order; parsing is done
 * by whichever is free.  The items from head: `claimed` ones being or
 * done parsing, then raw ones, then free room.  Both take the oldest raw
 * item to parse, so claims go in ring order.  The reader reads up to
 * READ_AHEAD mails before it parses; the writer parses only when its
 * next mail is not ready.  For an mbox, whose reading is a memchr, the
 * reader parses nearly everything and the writer (SQLite) is the slower;
 * a public-inbox archive's reading (inflating and hashing git objects)
 * makes the reader the slower, and the writer's waits become parses.
 */
struct queue {
	pthread_mutex_t mu;
	pthread_cond_t not_empty; /* the writer waits for its next mail */
	pthread_cond_t not_full; /* the reader waits for room */
	struct item items[QUEUE_LEN];
	size_t head, count; /* items in use, from head */
	size_t bytes; /* of their raw mails */
	size_t claimed; /* the first of them, being or done parsing */
	bool read_done; /* the reader has read its last */
	bool stop; /* the writer wants no more */
	enum err err; /* the reader's error (ERR_OK at the source's end) */
	struct source *src;
	/* The reader's own: mails read ahead raw, from pre_head. */
	struct raw pre[PRE_LEN];
	size_t pre_head, npre, pre_bytes;
	size_t pre_total; /* mails that went through pre */
	size_t refused; /* over LIMIT_MAIL_STORE: skipped (the source said
	                   where) */
	bool src_done; /* the source is at its end (or failed: src_err) */
	enum err src_err;
	struct mail_opts opts;
	const struct ingest *in; /* for ingest_prove(), on the reader */
	double frac; /* the source's progress (the reader's to ask) */
	double reader_cpu; /* seconds of CPU of the reading thread */
	double reader_idle, writer_idle; /* seconds each waited for the other */
};

static double
thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* r's mail given back, its buffer kept. */
static void
raw_release(struct queue *q, struct raw *r)
{
	source_release(q->src, r->hold);
	r->hold = NULL;
	r->raw = NULL;
}

/* The source's next mail into r (its buffer reused): false at the
 * source's end or on its error, which q then records. */
static bool
read_raw(struct queue *q, struct raw *r)
{
	struct source_mail sm;
	enum err e;

	if (q->src_done)
		return false;
	raw_release(q, r);
	/* A mail too large to store is skipped, never cut: the source
	 * logged where it is, the command's summary counts it. */
	while ((e = source_next(q->src, &sm)) == ERR_LIMIT)
		q->refused++;
	if (e != ERR_OK) {
		q->src_done = true;
		q->src_err = e == ERR_NOTFOUND ? ERR_OK : e;
		return false;
	}
	memcpy(r->pos, sm.pos, sizeof(r->pos));
	r->n = sm.n;
	/* Lent when the source can: a copy less per mail. */
	if ((r->hold = source_hold(q->src)) != NULL) {
		r->raw = sm.raw;
		return true;
	}
	/* Buffers go round between the two rings: one that held a large
	 * mail is cut down again, or each would end the size of the largest
	 * it met (576 of 40 KB on a list of patches). */
	if (r->cap < sm.n + 1 || (r->cap > 16384 && r->cap / 2 > sm.n + 1)) {
		r->cap = sm.n + 1;
		free(r->buf);
		r->buf = xmalloc(r->cap);
	}
	memcpy(r->buf, sm.raw, sm.n);
	r->buf[sm.n] = '\0';
	r->raw = r->buf;
	return true;
}

/* Room to read one more mail ahead raw (the source not at its end). */
static bool
pre_room(const struct queue *q)
{
	return !q->src_done && q->npre < PRE_LEN && q->pre_bytes < PRE_BYTES;
}

/* Read one mail ahead raw. */
static void
read_ahead(struct queue *q)
{
	struct raw *r = &q->pre[(q->pre_head + q->npre) % PRE_LEN];

	if (!read_raw(q, r))
		return;
	q->npre++;
	q->pre_bytes += r->n;
	q->pre_total++;
}

/* The next mail into it, read ahead or from the source: false at the
 * end (or on the source's error). */
static bool
read_one(struct queue *q, struct item *it)
{
	struct raw *p = &q->pre[q->pre_head], mine;

	if (q->npre == 0)
		return read_raw(q, &it->r);
	/* Its mail for the item's, the item's buffer for the next. */
	raw_release(q, &it->r);
	mine = it->r;
	it->r = *p;
	p->raw = NULL;
	p->hold = NULL;
	p->buf = mine.buf;
	p->cap = mine.cap;
	q->pre_head = (q->pre_head + 1) % PRE_LEN;
	q->npre--;
	q->pre_bytes -= it->r.n;
	return true;
}

/*
 * With q->mu held and a raw item in the ring: parse the oldest, the lock
 * let go meanwhile.  The writer is woken when it is its next mail.  The
 * reader also judges it (ingest_prove()), outside any transaction, when
 * that cannot wait for the network; a proof that may wait for DNS (a DKIM
 * key) is left to the writer, which commits its batch first: a SIGTERM
 * reaches the main thread and ends its wait, while the reader, which
 * blocks signals, would hold the stop for the resolver's whole timeout.
 */
static void
parse_oldest(struct queue *q, bool prove)
{
	size_t i = (q->head + q->claimed++) % QUEUE_LEN;
	struct item *it = &q->items[i];
	struct mail_opts o = q->opts;

	it->parsed = false;
	it->proven = false;
	pthread_mutex_unlock(&q->mu);
	arena_reset(it->a);
	mail_parse(it->a, it->r.raw, it->r.n, &o, &it->m);
	if (prove && !ingest_proof_may_wait(q->in, &it->m)) {
		ingest_prove(
		    q->in, it->a, it->r.raw, it->r.n, &it->m, &it->proof);
		it->proven = true;
	}
	pthread_mutex_lock(&q->mu);
	it->parsed = true;
	if (i == q->head)
		pthread_cond_signal(&q->not_empty);
}

/* The reading thread: reads, and parses what the writer does not. */
static void *
reader(void *arg)
{
	struct queue *q = arg;

	/* Signals are the main thread's: its writer decides when to stop. */
	thread_helper("yard-read");
	pthread_mutex_lock(&q->mu);
	while (!q->stop) {
		if (!q->read_done && q->count < QUEUE_LEN &&
		    q->count - q->claimed < READ_AHEAD &&
		    (q->count == 0 || q->bytes < QUEUE_BYTES)) {
			struct item *it =
			    &q->items[(q->head + q->count) % QUEUE_LEN];
			bool ok;

			pthread_mutex_unlock(&q->mu);
			ok = read_one(q, it);
			pthread_mutex_lock(&q->mu);
			if (ok) {
				q->count++;
				q->bytes += it->r.n;
				q->frac = source_progress(q->src);
			} else {
				q->read_done = true;
				q->err = q->src_err;
				pthread_cond_signal(&q->not_empty);
			}
		} else if (q->count > q->claimed) {
			parse_oldest(q, true);
		} else if (q->read_done) {
			break;
		} else if (pre_room(q)) {
			/* Full of parsed mail: read on, raw, meanwhile. */
			pthread_mutex_unlock(&q->mu);
			read_ahead(q);
			pthread_mutex_lock(&q->mu);
		} else {
			/* Full of parsed mail: the writer's turn. */
			double t = time_mono();

			pthread_cond_signal(&q->not_empty);
			pthread_cond_wait(&q->not_full, &q->mu);
			q->reader_idle += time_mono() - t;
		}
	}
	pthread_mutex_unlock(&q->mu);
	q->reader_cpu = thread_cpu();
	return NULL;
}

static void
progress(double f, size_t n, bool final)
{
	if (f >= 0)
		fprintf(stderr, "\rimport: %zu mails, %3.0f%%", n, f * 100);
	else
		fprintf(stderr, "\rimport: %zu mails", n);
	if (final)
		fputc('\n', stderr);
}

struct writer {
	struct ingest *in;
	struct store *st;
	const struct import_opts *o;
	const char *name;
	int64_t project; /* the --project's id, resolved once */
	unsigned batch;
	size_t done, in_tx;
	size_t parsed; /* mails it parsed itself */
	char last_pos[sizeof(((struct source_mail *)0)->pos)];
};

static enum err
commit_batch(struct writer *w)
{
	enum err e = ERR_OK;

	if (w->in_tx == 0)
		return ERR_OK;
	if (w->last_pos[0])
		e = store_pos_set(w->st, w->name, w->last_pos);
	if (e == ERR_OK)
		e = store_commit(w->st);
	if (e != ERR_OK)
		store_rollback(w->st);
	w->in_tx = 0;
	return e;
}

static enum err
write_one(struct writer *w, struct item *it)
{
	enum ingest_result res;
	int64_t project = w->project;
	enum err e;

	/* A mail the writer parsed itself is judged here, outside the
	 * transaction when that may wait for DNS: the batch so far is
	 * committed first, with its position.  A commit costs less than
	 * the lookup it makes room for. */
	if (!it->proven && !ingest_proof_may_wait(w->in, &it->m)) {
		ingest_prove(
		    w->in, it->a, it->r.raw, it->r.n, &it->m, &it->proof);
	} else if (!it->proven && ingest_delivered_before(w->in, &it->m)) {
		memset(&it->proof, 0, sizeof(it->proof));
	} else if (!it->proven) {
		if (w->in_tx && (e = commit_batch(w)) != ERR_OK)
			return e;
		ingest_prove(
		    w->in, it->a, it->r.raw, it->r.n, &it->m, &it->proof);
	}
	it->proven = true;
	if (w->in_tx == 0 && (e = store_begin(w->st)) != ERR_OK)
		return e;
	w->in_tx++;
	if (!w->o->project &&
	    (e = ingest_project(w->in, NULL, &it->m, &project)) != ERR_OK)
		return e;
	e = ingest_mail(
	    w->in, it->r.raw, it->r.n, &it->m, &it->proof, project, &res);
	if (e != ERR_OK)
		return e;
	memcpy(w->last_pos, it->r.pos, sizeof(w->last_pos));
	w->done++;
	if (w->in_tx >= w->batch)
		return commit_batch(w);
	return ERR_OK;
}

/* The writer's side: each mail in order, parsing it first when the
 * reader has not. */
/*
 * Wait on c.  A writer that can be stopped wakes every tick to look at
 * the stop flag: the signal sets it without waking a condition, and the
 * reader may be waiting for DNS (a DKIM key) for seconds.
 */
static void
wait_tick(pthread_cond_t *c, pthread_mutex_t *mu, bool stoppable)
{
	struct timespec ts;

	if (!stoppable) {
		pthread_cond_wait(c, mu);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += 100 * 1000 * 1000;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(c, mu, &ts);
}

static enum err
drain(struct queue *q, struct writer *w)
{
	enum err e = ERR_OK;
	double last = 0;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		struct item *it = &q->items[q->head];

		if (q->claimed == 0 || !it->parsed) {
			if (q->count > q->claimed) {
				parse_oldest(q, false);
				w->parsed++;
			} else if (q->count == 0 && q->read_done) {
				break;
			} else if (w->o->stop != NULL && *w->o->stop) {
				break;
			} else {
				double t = time_mono();

				wait_tick(
				    &q->not_empty, &q->mu, w->o->stop != NULL);
				q->writer_idle += time_mono() - t;
			}
			continue;
		}
		pthread_mutex_unlock(&q->mu);
		if (w->o->stop != NULL && *w->o->stop) {
			pthread_mutex_lock(&q->mu);
			break;
		}
		e = write_one(w, it);
		pthread_mutex_lock(&q->mu);
		if (e != ERR_OK)
			break;
		q->head = (q->head + 1) % QUEUE_LEN;
		q->count--;
		q->claimed--;
		q->bytes -= it->r.n;
		if (QUEUE_LEN - q->count == REFILL ||
		    (q->bytes < QUEUE_BYTES &&
		        q->bytes + it->r.n >= QUEUE_BYTES))
			pthread_cond_signal(&q->not_full);
		if (w->o->progress && time_mono() - last > 0.2) {
			last = time_mono();
			progress(q->frac, w->done, false);
		}
	}
	/* Stopping early (or at the end): the reader is let go. */
	q->stop = true;
	pthread_cond_signal(&q->not_full);
	pthread_mutex_unlock(&q->mu);
	if (e == ERR_OK)
		e = commit_batch(w);
	else if (w->in_tx)
		store_rollback(w->st); /* only a transaction that began */
	return e;
}

static enum err
resume(struct store *st, struct source *src, const char *name)
{
	char *pos = NULL;
	enum err e = store_pos_get(st, name, &pos);

	if (e == ERR_NOTFOUND)
		return ERR_OK;
	if (e != ERR_OK)
		return e;
	if (source_seek(src, pos) != ERR_OK) {
		/* The file changed under that name: read it from the start;
		 * Message-IDs and hashes keep that idempotent. */
		log_warn("import: %s: position %s is stale, reading from the "
		         "start",
		    name, pos);
		source_free(src);
		free(pos);
		return ERR_INVAL;
	}
	free(pos);
	return ERR_OK;
}

static enum err
open_source(struct store *st, const char *path, const struct import_opts *o,
    struct source **src)
{
	unsigned flags = o->mboxo ? SOURCE_MBOXO : 0;
	enum err e;

	if ((e = source_open(path, flags, src)) != ERR_OK)
		return e;
	e = resume(st, *src, source_name(*src));
	if (e == ERR_INVAL)
		e = source_open(path, flags, src);
	if (e != ERR_OK)
		*src = NULL;
	return e;
}

enum err
import_source(struct ingest *in, struct store *st, struct source *src,
    const char *key, const struct import_opts *o, size_t *done)
{
	struct queue q;
	struct writer w;
	pthread_condattr_t ca;
	pthread_t th;
	size_t i;
	enum err e;

	memset(&q, 0, sizeof(q));
	memset(&w, 0, sizeof(w));
	*done = 0;
	q.src = src;
	w.in = in;
	w.st = st;
	w.o = o;
	w.name = key;
	w.batch = o->batch ? o->batch : IMPORT_BATCH;
	if (o->project &&
	    (e = ingest_project(in, o->project, NULL, &w.project)) != ERR_OK)
		return e;
	ingest_mail_opts(in, &q.opts);
	q.in = in;
	for (i = 0; i < QUEUE_LEN; i++)
		q.items[i].a = arena_new();
	pthread_mutex_init(&q.mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q.not_empty, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&q.not_full, NULL);
	if (pthread_create(&th, NULL, reader, &q) != 0)
		fatal("import: cannot start the reading thread");
	e = drain(&q, &w);
	pthread_join(th, NULL);
	log_msg(o->quiet ? LOG_DEBUG : LOG_INFO,
	    "import: %s: %zu mails; CPU: reader %.3f s, writer %.3f s "
	    "(it parsed %zu); %zu read ahead raw; waits: reader %.0f ms, "
	    "writer %.0f ms",
	    w.name, w.done, q.reader_cpu, thread_cpu(), w.parsed, q.pre_total,
	    q.reader_idle * 1000, q.writer_idle * 1000);
	if (e == ERR_OK)
		e = q.err;
	if (q.refused) {
		log_err("import: %s: %zu mails over the %u MB a mail may have "
		        "were not imported: each is named above",
		    w.name, q.refused, LIMIT_MAIL_STORE >> 20);
		ingest_refused(in, q.refused);
	}
	if (o->progress)
		progress(source_progress(q.src), w.done, true);
	pthread_cond_destroy(&q.not_empty);
	pthread_cond_destroy(&q.not_full);
	pthread_mutex_destroy(&q.mu);
	for (i = 0; i < QUEUE_LEN; i++) {
		arena_free(q.items[i].a);
		raw_release(&q, &q.items[i].r);
		free(q.items[i].r.buf);
	}
	for (i = 0; i < PRE_LEN; i++) {
		raw_release(&q, &q.pre[i]);
		free(q.pre[i].buf);
	}
	*done = w.done;
	return e;
}

enum err
import_path(struct ingest *in, struct store *st, const char *path,
    const struct import_opts *o)
{
	struct source *src = NULL;
	size_t done;
	enum err e;

	if ((e = open_source(st, path, o, &src)) != ERR_OK)
		return e;
	e = import_source(in, st, src, source_name(src), o, &done);
	source_free(src);
	return e;
}
