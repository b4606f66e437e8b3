/*
 * The server's answers, kept (bot/web/webcache.h): a table of
 * bot/web/weblru.h under one lock, with a condition variable for the
 * threads that wait for a page another one is building.  The bodies
 * are shared, counted: under the lock a thread only takes a reference,
 * and copies the bytes out (a page may be megabytes) after letting go
 * of it, so that no other request waits for the copy.
 */
#include "bot/web/webcache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/web/webgzip.h"
#include "bot/web/weblru.h"
#include "bot/web/webpriv.h"
#include "parsers/date.h"
#include "parsers/patchid.h"
#include "util/ascii.h"
#include "util/xalloc.h"

/* A body, shared by an entry and the threads sending it: the last one
 * to let go of it frees it. */
struct body {
	atomic_size_t refs;
	size_t n;
	char *p; /* n bytes and a NUL, from xmalloc */
};

/* One kept answer. */
struct answer {
	const char *type; /* a string constant of the handlers */
	struct body *body;
	struct body *gz; /* NULL: not worth compressing */
	char *link;
	char *disposition;
	char etag[20]; /* 16 hex digits of the body's SHA-1 */
	int64_t modified; /* when a body with this etag was first built */
};

/* An entry starts with its node (bot/web/weblru.h). */
struct entry {
	struct weblru_node node;
	uint64_t gen; /* of the answer */
	int64_t born; /* when it was built */
	bool ok; /* holds an answer */
	int builders; /* threads building it: it stays while they do */
	uint64_t busy_gen; /* the newest generation being built */
	struct answer an;
};

struct webcache {
	pthread_mutex_t lock;
	pthread_cond_t built;
	struct store *stamp;
	uint64_t gen;
	struct weblru t;
	size_t bytes, max;
	int ttl;
};

static struct entry *
entry_of(struct weblru_node *n)
{
	return (struct entry *)n;
}

/* A body of the n bytes at *p, which it takes. */
static struct body *
body_new(char **p, size_t n)
{
	struct body *b = xmalloc(sizeof(*b));

	atomic_init(&b->refs, 1);
	b->n = n;
	b->p = *p;
	*p = NULL;
	return b;
}

static struct body *
body_ref(struct body *b)
{
	if (b)
		atomic_fetch_add(&b->refs, 1);
	return b;
}

static void
body_unref(struct body *b)
{
	if (b && atomic_fetch_sub(&b->refs, 1) == 1) {
		free(b->p);
		free(b);
	}
}

static size_t
body_size(const struct body *b)
{
	return b ? b->n : 0;
}

static size_t
cost(const struct entry *e)
{
	return sizeof(*e) + strlen(e->node.key) + body_size(e->an.body) +
	    body_size(e->an.gz);
}

static void
answer_free(struct answer *a)
{
	body_unref(a->body);
	body_unref(a->gz);
	free(a->link);
	free(a->disposition);
	memset(a, 0, sizeof(*a));
}

static void
entry_free(struct entry *e)
{
	answer_free(&e->an);
	free(e->node.key);
	free(e);
}

struct webcache *
webcache_new(struct store *stamp, size_t max_bytes, int ttl)
{
	struct webcache *c = xcalloc(1, sizeof(*c));

	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->built, NULL);
	c->stamp = stamp;
	weblru_init(&c->t, 4096);
	c->max = max_bytes;
	c->ttl = ttl;
	return c;
}

void
webcache_free(struct webcache *c)
{
	struct weblru_node *n, *older;

	if (c == NULL)
		return;
	for (n = c->t.newest; n; n = older) {
		older = n->older;
		entry_free(entry_of(n));
	}
	store_close(c->stamp);
	weblru_fini(&c->t);
	pthread_cond_destroy(&c->built);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

uint64_t
webcache_begin(struct webcache *c)
{
	bool changed = true;
	uint64_t g;

	pthread_mutex_lock(&c->lock);
	/* Outside a transaction each statement reads the newest commit:
	 * one counter for every other connection's commits.  An error
	 * counts as a change. */
	if (store_changed(c->stamp, &changed) != ERR_OK || changed)
		c->gen++;
	g = c->gen;
	pthread_mutex_unlock(&c->lock);
	return g;
}

/* ---- the table ---- */

static void
drop(struct webcache *c, struct entry *e)
{
	weblru_remove(&c->t, &e->node);
	c->bytes -= cost(e);
	entry_free(e);
}

/* Drop the least recently used until the answers fit; never one being
 * built (a thread holds it). */
static void
trim(struct webcache *c)
{
	struct weblru_node *n = c->t.oldest, *newer;

	while (c->bytes > c->max && n) {
		newer = n->newer;
		if (entry_of(n)->builders == 0)
			drop(c, entry_of(n));
		n = newer;
	}
}

static struct entry *
add(struct webcache *c, const char *key)
{
	struct entry *e = xcalloc(1, sizeof(*e));

	e->node.key = xstrdup(key);
	weblru_add(&c->t, &e->node);
	c->bytes += cost(e);
	return e;
}

/* ---- answers ---- */

static bool
keepable(const struct web_resp *rs)
{
	return rs->status == 200 && rs->type && rs->location == NULL &&
	    rs->allow == NULL;
}

/* Text is worth compressing; a gzip file is not, and must reach the
 * client as the file it is (b4 undoes a Content-Encoding). */
static bool
compressible(const char *type)
{
	return strncmp(type, "text/", 5) == 0 ||
	    strncmp(type, "application/json", 16) == 0 ||
	    strncmp(type, "application/atom+xml", 20) == 0 ||
	    strncmp(type, "application/mbox", 16) == 0;
}

/* The answer of rs, taking its body and headers. */
static void
make_answer(struct web_resp *rs, int64_t now, struct answer *an)
{
	unsigned char sha[20];
	struct buf gz = BUF_INIT;
	size_t i;

	char *p;
	size_t n;

	memset(an, 0, sizeof(*an));
	an->type = rs->type;
	p = buf_detach(&rs->body, &n);
	an->body = body_new(&p, n);
	an->link = rs->link;
	an->disposition = rs->disposition;
	rs->link = rs->disposition = NULL;
	patchid_sha1(an->body->p, n, sha);
	for (i = 0; i < 8; i++)
		snprintf(an->etag + 2 * i, 3, "%02x", sha[i]);
	an->modified = now;
	if (n >= WEB_GZIP_MIN && compressible(an->type) &&
	    webgzip(an->body->p, n, &gz) == ERR_OK && gz.n < n) {
		p = buf_detach(&gz, &n);
		an->gz = body_new(&p, n);
	}
	buf_free(&gz);
}

static char *
dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

bool
webcache_etag_match(const char *inm, const char *etag)
{
	const char *p = inm;
	size_t n = strlen(etag);

	if (inm == NULL)
		return false;
	while (*p) {
		const char *q;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '*')
			return true;
		if (p[0] == 'W' && p[1] == '/')
			p += 2;
		if (*p != '"')
			return false;
		q = strchr(++p, '"');
		if (q == NULL)
			return false;
		if (strncmp(p, etag, n) == 0 &&
		    (p + n == q ||
		        (q - p == (long)n + 3 &&
		            strncmp(p + n, "-gz", 3) == 0)))
			return true;
		p = q + 1;
	}
	return false;
}

/* Whether the client holds the answer: its etag, else its date. */
static bool
fresh(const struct web_req *rq, const struct answer *an)
{
	int64_t t;
	int tz;
	unsigned flags = 0;

	if (rq->if_none_match)
		return webcache_etag_match(rq->if_none_match, an->etag);
	return rq->if_modified_since &&
	    date_parse(str_from(rq->if_modified_since), &t, &tz, &flags) ==
	    ERR_OK &&
	    an->modified <= t;
}

/* from's headers, and its bodies shared (under the lock: no bytes are
 * copied here). */
static void
share_answer(struct answer *to, const struct answer *from)
{
	*to = *from;
	to->body = body_ref(from->body);
	to->gz = body_ref(from->gz);
	to->link = dup_or_null(from->link);
	to->disposition = dup_or_null(from->disposition);
}

/* The etag as a header value: quoted, "-gz" for the gzip body. */
static char *
etag_value(const struct answer *an, bool gz)
{
	char v[32];

	snprintf(v, sizeof(v), "\"%s%s\"", an->etag, gz ? "-gz" : "");
	return xstrdup(v);
}

/* Body b as buf out, outside the lock: its bytes when no one else
 * holds it (no one can take it then: only the table hands it out), else
 * a copy. */
static void
body_out(struct buf *out, struct body *b)
{
	char *p = b->p;

	if (atomic_load(&b->refs) == 1) {
		b->p = NULL;
	} else {
		p = xmalloc(b->n + 1);
		memcpy(p, b->p, b->n);
		p[b->n] = '\0';
	}
	out->p = p;
	out->n = b->n;
	out->cap = b->n + 1;
	out->max = 0;
}

/* rs from an answer: 304, gzip or the body; an is used up. */
static void
respond(const struct web_req *rq, struct answer *an, struct web_resp *rs)
{
	bool gz = rq->gzip && an->gz;

	memset(rs, 0, sizeof(*rs));
	rs->type = an->type;
	rs->etag = etag_value(an, gz);
	rs->modified = an->modified;
	rs->vary = true;
	rs->link = an->link;
	rs->disposition = an->disposition;
	an->link = an->disposition = NULL;
	if (fresh(rq, an)) {
		rs->status = 304;
	} else {
		rs->status = 200;
		if (gz)
			rs->encoding = "gzip";
		body_out(&rs->body, gz ? an->gz : an->body);
	}
	answer_free(an);
}

/*
 * Under the lock: a fresh answer for key into *an (true), or the entry
 * this thread is to build, after waiting for another thread that builds
 * it for the same generation.
 */
static bool
claim(struct webcache *c, const struct web_req *rq, const char *key,
    uint64_t gen, struct answer *an, struct entry **out)
{
	struct entry *e;

	for (;;) {
		e = entry_of(weblru_find(&c->t, key));
		if (e && e->ok && e->gen == gen && rq->now >= e->born &&
		    rq->now - e->born < c->ttl) {
			weblru_use(&c->t, &e->node);
			share_answer(an, &e->an);
			return true;
		}
		if (e == NULL || e->builders == 0 || e->busy_gen != gen)
			break;
		/* Another thread builds this very page: wait for it. */
		pthread_cond_wait(&c->built, &c->lock);
	}
	if (e == NULL)
		e = add(c, key);
	e->builders++;
	if (e->busy_gen < gen)
		e->busy_gen = gen;
	*out = e;
	return false;
}

/* Under the lock: keep the answer e's builder made (kept: it is one). */
static void
keep(struct webcache *c, struct entry *e, bool kept, struct answer *an,
    uint64_t gen, int64_t now)
{
	struct answer old;

	e->builders--;
	/* A builder of an older generation that finishes last leaves the
	 * newer answer alone. */
	if (kept && (!e->ok || e->gen <= gen)) {
		/* The same body keeps the date it was first built. */
		if (e->ok && strcmp(e->an.etag, an->etag) == 0)
			an->modified = e->an.modified;
		c->bytes -= cost(e);
		old = e->an;
		share_answer(&e->an, an);
		e->ok = true;
		e->gen = gen;
		e->born = now;
		c->bytes += cost(e);
		answer_free(&old);
	}
	if (!e->ok && e->builders == 0)
		drop(c, e);
	else
		weblru_use(&c->t, &e->node);
	trim(c);
	pthread_cond_broadcast(&c->built);
}

void
webcache_handle(struct webcache *c, struct web *w, struct store *st,
    const struct web_req *rq, const char *key, uint64_t gen,
    struct web_resp *rs)
{
	bool get =
	    strcmp(rq->method, "GET") == 0 || strcmp(rq->method, "HEAD") == 0;
	struct entry *e = NULL;
	struct answer an;
	bool hit, kept;

	if (!get || key == NULL) {
		web_handle(w, st, rq, rs);
		if (get && keepable(rs)) {
			make_answer(rs, rq->now, &an);
			web_resp_free(rs);
			respond(rq, &an, rs);
		}
		return;
	}
	pthread_mutex_lock(&c->lock);
	hit = claim(c, rq, key, gen, &an, &e);
	pthread_mutex_unlock(&c->lock);
	if (hit) {
		respond(rq, &an, rs);
		return;
	}
	web_handle(w, st, rq, rs);
	if ((kept = keepable(rs))) {
		make_answer(rs, rq->now, &an);
		web_resp_free(rs);
	}
	pthread_mutex_lock(&c->lock);
	keep(c, e, kept, &an, gen, rq->now);
	pthread_mutex_unlock(&c->lock);
	if (kept)
		respond(rq, &an, rs);
}
