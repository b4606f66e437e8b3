#include "bot/workflow/import.h"

#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/log.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* Mails per transaction: enough that commits are rare, few enough that a
 * crash repeats little work. */
#define IMPORT_BATCH 1000
/* Mails parsed ahead of the writer.  Bounds memory: each holds one raw
 * mail (at most LIMIT_MAIL_SIZE, usually a few KB) and its parse. */
#define QUEUE_LEN 64

struct item {
	char *raw;
	size_t n, cap;
	struct arena *a;
	struct mail m;
	char pos[sizeof(((struct source_mail *)0)->pos)];
	bool truncated;
};

/*
 * The items form a ring from head: count parsed ones (the writer's), then
 * nraw read but not parsed yet (the parser's), then free room (the
 * reader's).  With one reading thread it reads and parses each mail
 * itself and nraw stays 0; a source whose reading costs as much as the
 * parse (public-inbox: inflating and hashing git objects) gets a thread
 * of its own for that, so that reading, parsing and writing overlap.
 */
struct queue {
	pthread_mutex_t mu;
	pthread_cond_t not_empty; /* the writer waits for mail */
	pthread_cond_t not_full; /* the reader waits for room */
	pthread_cond_t raw_ready; /* the parser waits for read mail */
	struct item items[QUEUE_LEN];
	size_t head, count; /* parsed items, in order */
	size_t nraw; /* read items after them, not parsed yet */
	bool split; /* reading and parsing in two threads */
	bool read_done; /* the reader has finished (split) */
	bool done; /* no more parsed mail will come */
	bool stop; /* the writer wants no more */
	enum err read_err; /* the reader's error (split) */
	enum err err; /* the reading side's error */
	struct source *src;
	struct mail_opts opts;
	double reader_cpu, parser_cpu; /* seconds of CPU of each thread */
};

static double
thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
copy_raw(struct item *it, const struct source_mail *sm)
{
	if (it->cap < sm->n + 1) {
		it->cap = sm->n + 1;
		free(it->raw);
		it->raw = xmalloc(it->cap);
	}
	memcpy(it->raw, sm->raw, sm->n);
	it->raw[sm->n] = '\0';
	it->n = sm->n;
}

static void
block_signals(const char *name)
{
	sigset_t all;

	/* Signals are the main thread's: its writer decides when to stop. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), name);
}

/* Read the next mail into it: ERR_NOTFOUND at the end. */
static enum err
read_one(struct queue *q, struct item *it)
{
	struct source_mail sm;
	bool truncated = false;
	enum err e = source_next(q->src, &sm, &truncated);

	if (e != ERR_OK)
		return e;
	copy_raw(it, &sm);
	memcpy(it->pos, sm.pos, sizeof(it->pos));
	it->truncated = truncated;
	return ERR_OK;
}

static void
parse_one(struct queue *q, struct item *it)
{
	arena_reset(it->a);
	q->opts.truncated = it->truncated;
	mail_parse(it->a, it->raw, it->n, &q->opts, &it->m);
}

/* No more parsed mail: e (ERR_NOTFOUND is the end) for the writer. */
static void
finish(struct queue *q, enum err e)
{
	pthread_mutex_lock(&q->mu);
	q->done = true;
	q->err = e == ERR_NOTFOUND ? ERR_OK : e;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->mu);
}

/* A parsed item is the writer's; wake it only when it may be waiting:
 * futex calls per mail would cost more than the parse. */
static void
hand_over(struct queue *q)
{
	pthread_mutex_lock(&q->mu);
	if (q->count++ == 0)
		pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->mu);
}

/* The reading thread: reads, and parses too unless q->split. */
static void *
reader(void *arg)
{
	struct queue *q = arg;

	block_signals("yard-read");
	for (;;) {
		struct item *it;
		enum err e;

		pthread_mutex_lock(&q->mu);
		while (q->count + q->nraw == QUEUE_LEN && !q->stop)
			pthread_cond_wait(&q->not_full, &q->mu);
		if (q->stop) {
			pthread_mutex_unlock(&q->mu);
			break;
		}
		it = &q->items[(q->head + q->count + q->nraw) % QUEUE_LEN];
		pthread_mutex_unlock(&q->mu);

		e = read_one(q, it);
		if (e != ERR_OK && !q->split) {
			finish(q, e);
			break;
		}
		if (e != ERR_OK) {
			pthread_mutex_lock(&q->mu);
			q->read_done = true;
			q->read_err = e;
			pthread_cond_signal(&q->raw_ready);
			pthread_mutex_unlock(&q->mu);
			break;
		}
		if (!q->split) {
			parse_one(q, it);
			hand_over(q);
			continue;
		}
		pthread_mutex_lock(&q->mu);
		if (q->nraw++ == 0)
			pthread_cond_signal(&q->raw_ready);
		pthread_mutex_unlock(&q->mu);
	}
	q->reader_cpu = thread_cpu();
	return NULL;
}

/* The parsing thread of a split queue: parses what the reader read, in
 * order, and hands it to the writer. */
static void *
parser(void *arg)
{
	struct queue *q = arg;

	block_signals("yard-parse");
	for (;;) {
		struct item *it;
		bool last;

		pthread_mutex_lock(&q->mu);
		while (q->nraw == 0 && !q->read_done && !q->stop)
			pthread_cond_wait(&q->raw_ready, &q->mu);
		if (q->stop) {
			pthread_mutex_unlock(&q->mu);
			break;
		}
		if (q->nraw == 0) {
			enum err e = q->read_err;

			pthread_mutex_unlock(&q->mu);
			finish(q, e);
			break;
		}
		it = &q->items[(q->head + q->count) % QUEUE_LEN];
		pthread_mutex_unlock(&q->mu);

		parse_one(q, it);
		pthread_mutex_lock(&q->mu);
		q->nraw--;
		last = q->count++ == 0;
		if (last)
			pthread_cond_signal(&q->not_empty);
		pthread_mutex_unlock(&q->mu);
	}
	q->parser_cpu = thread_cpu();
	return NULL;
}

static void
progress(const struct source *src, size_t n, bool final)
{
	double f = source_progress(src);

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

	if (w->in_tx == 0 && (e = store_begin(w->st)) != ERR_OK)
		return e;
	w->in_tx++;
	if (!w->o->project &&
	    (e = ingest_project(w->in, NULL, &it->m, &project)) != ERR_OK)
		return e;
	e = ingest_mail(w->in, it->raw, it->n, &it->m, project, &res);
	if (e != ERR_OK)
		return e;
	memcpy(w->last_pos, it->pos, sizeof(w->last_pos));
	w->done++;
	if (w->in_tx >= w->batch)
		return commit_batch(w);
	return ERR_OK;
}

static enum err
drain(struct queue *q, struct writer *w)
{
	enum err e = ERR_OK;
	double last = 0;

	for (;;) {
		struct item *it;

		pthread_mutex_lock(&q->mu);
		while (q->count == 0 && !q->done)
			pthread_cond_wait(&q->not_empty, &q->mu);
		if (q->count == 0) {
			pthread_mutex_unlock(&q->mu);
			break;
		}
		it = &q->items[q->head];
		pthread_mutex_unlock(&q->mu);

		if (w->o->stop != NULL && *w->o->stop) {
			pthread_mutex_lock(&q->mu);
			q->stop = true;
			pthread_cond_signal(&q->not_full);
			pthread_cond_signal(&q->raw_ready);
			pthread_mutex_unlock(&q->mu);
			break;
		}
		e = write_one(w, it);

		pthread_mutex_lock(&q->mu);
		q->head = (q->head + 1) % QUEUE_LEN;
		if (q->count-- + q->nraw == QUEUE_LEN || e != ERR_OK)
			pthread_cond_signal(&q->not_full);
		if (e != ERR_OK) {
			q->stop = true;
			pthread_cond_signal(&q->raw_ready);
		}
		pthread_mutex_unlock(&q->mu);
		if (e != ERR_OK)
			break;
		if (w->o->progress && time_mono() - last > 0.2) {
			last = time_mono();
			progress(q->src, w->done, false);
		}
	}
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
	pthread_t th, pth;
	size_t i;
	enum err e;

	memset(&q, 0, sizeof(q));
	memset(&w, 0, sizeof(w));
	*done = 0;
	/* Mails come and go by the thousand: keep freed memory instead of
	 * handing it back to the kernel and asking again. */
	mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
	mallopt(M_TOP_PAD, 16 * 1024 * 1024);
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
	for (i = 0; i < QUEUE_LEN; i++)
		q.items[i].a = arena_new();
	pthread_mutex_init(&q.mu, NULL);
	pthread_cond_init(&q.not_empty, NULL);
	pthread_cond_init(&q.not_full, NULL);
	pthread_cond_init(&q.raw_ready, NULL);
	q.split = source_kind(src) == SOURCE_PUBINBOX;
	if (pthread_create(&th, NULL, reader, &q) != 0 ||
	    (q.split && pthread_create(&pth, NULL, parser, &q) != 0))
		fatal("import: cannot start the reading threads");
	e = drain(&q, &w);
	pthread_join(th, NULL);
	if (q.split)
		pthread_join(pth, NULL);
	log_msg(o->quiet ? LOG_DEBUG : LOG_INFO,
	    "import: %s: %zu mails; CPU: reading and parsing %.3f s, "
	    "writing %.3f s",
	    w.name, w.done, q.reader_cpu + q.parser_cpu, thread_cpu());
	if (e == ERR_OK)
		e = q.err;
	if (o->progress)
		progress(q.src, w.done, true);
	pthread_cond_destroy(&q.not_empty);
	pthread_cond_destroy(&q.not_full);
	pthread_cond_destroy(&q.raw_ready);
	pthread_mutex_destroy(&q.mu);
	for (i = 0; i < QUEUE_LEN; i++) {
		arena_free(q.items[i].a);
		free(q.items[i].raw);
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
