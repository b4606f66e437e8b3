#include "bot/web/webpub.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/web/webpriv.h"
#include "storage/store_read.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define STAMP_FILE ".patchyard-publish"

struct pub {
	struct web *web;
	struct store *st;
	const char *dir;
	struct webpub_stats *stats;
	int64_t now;
	const char *page; /* the "page" query argument, or NULL */
	const char *per_page; /* the "per_page" one */
};

static const char *
pub_arg(void *cls, const char *name)
{
	struct pub *p = cls;

	if (strcmp(name, "per_page") == 0)
		return p->per_page;
	return strcmp(name, "page") == 0 ? p->page : NULL;
}

/* mkdir -p of the folders above path. */
static enum err
parents(char *path)
{
	char *s;

	for (s = path + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST) {
			log_err("publish: %s: %s", path, strerror(errno));
			*s = '/';
			return ERR_IO;
		}
		*s = '/';
	}
	return ERR_OK;
}

/* Whether the file at path holds exactly p[0..n). */
static bool
same(const char *path, const char *p, size_t n)
{
	char chunk[65536];
	FILE *f = fopen(path, "rb");
	size_t off = 0, r;
	bool eq = true;

	if (f == NULL)
		return false;
	while (eq && (r = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		eq = off + r <= n && memcmp(chunk, p + off, r) == 0;
		off += r;
	}
	fclose(f);
	return eq && off == n;
}

/* Write rel under the folder atomically, unless it already holds it. */
static enum err
put(struct pub *p, const char *rel, const char *data, size_t n)
{
	struct buf path = BUF_INIT, tmp = BUF_INIT;
	FILE *f = NULL;
	enum err e = ERR_OK;

	buf_addf(&path, "%s/%s", p->dir, rel);
	if (same(buf_cstr(&path), data, n))
		goto out;
	if ((e = parents(path.p)) != ERR_OK)
		goto out;
	buf_addf(&tmp, "%s.tmp%ld", buf_cstr(&path), (long)getpid());
	if ((f = fopen(tmp.p, "wb")) == NULL || fwrite(data, 1, n, f) != n ||
	    fflush(f) != 0 || fsync(fileno(f)) != 0) {
		log_err("publish: %s: %s", tmp.p, strerror(errno));
		e = ERR_IO;
	}
	if (f && fclose(f) != 0 && e == ERR_OK) {
		log_err("publish: %s: %s", tmp.p, strerror(errno));
		e = ERR_IO;
	}
	if (e == ERR_OK && rename(tmp.p, path.p) != 0) {
		log_err("publish: %s: %s", path.p, strerror(errno));
		e = ERR_IO;
	}
	if (e != ERR_OK && tmp.p)
		unlink(tmp.p);
	if (e == ERR_OK)
		p->stats->written++;
out:
	buf_free(&path);
	buf_free(&tmp);
	return e;
}

/* Render path (depth folders below the top) and write it to rel. */
static enum err
page(struct pub *p, const char *path, int depth, const char *rel)
{
	static const char *const roots[] = { "", "../", "../../", "../../../" };
	struct web_req rq;
	struct web_resp rs;
	enum err e;

	memset(&rq, 0, sizeof(rq));
	rq.method = "GET";
	rq.path = path;
	rq.arg = pub_arg;
	rq.cls = p;
	rq.static_site = true;
	rq.root = roots[depth];
	rq.now = p->now;
	web_handle(p->web, p->st, &rq, &rs);
	if (rs.status != 200) {
		log_err("publish: %s: %d", path, rs.status);
		e = rs.status == 404 ? ERR_NOTFOUND : ERR_DB;
	} else {
		e = put(p, rel, rs.body.p ? rs.body.p : "", rs.body.n);
	}
	web_resp_free(&rs);
	return e;
}

/* Whether a Message-ID can be a folder name that a web server maps its
 * percent-decoded URL to: no '/', no leading '.' (msgid_valid already
 * keeps out blanks, controls and brackets). */
static bool
path_safe(const char *msgid)
{
	return msgid && *msgid && *msgid != '.' && !strchr(msgid, '/') &&
	    strlen(msgid) < 200;
}

/* m/MESSAGE-ID/index.html: what /m/ redirects do on a server. */
static enum err
moved(struct pub *p, const char *msgid, int64_t id, int64_t patch,
    const char *title)
{
	struct web_req rq;
	struct web_resp rs;
	struct buf target = BUF_INIT, rel = BUF_INIT;
	enum err e;

	if (!path_safe(msgid))
		return ERR_OK;
	memset(&rq, 0, sizeof(rq));
	rq.method = "GET";
	rq.path = "/";
	rq.static_site = true;
	rq.root = "../../";
	rq.now = p->now;
	buf_addf(&target, "../../c/%" PRId64 "/", id);
	if (patch)
		buf_addf(&target, "#patch-%" PRId64, patch);
	buf_addf(&rel, "m/%s/index.html", msgid);
	memset(&rs, 0, sizeof(rs));
	webpage_moved(p->web, &rq, &rs, buf_cstr(&target), title);
	e = put(p, buf_cstr(&rel), rs.body.p ? rs.body.p : "", rs.body.n);
	web_resp_free(&rs);
	buf_free(&target);
	buf_free(&rel);
	return e;
}

static enum err
contribution(struct pub *p, int64_t id)
{
	struct arena *a = arena_new();
	struct view_contrib c;
	char path[96], rel[96];
	size_t i, k;
	enum err e = store_read_contrib(p->st, a, id, false, &c);

#define ONE(fmt_path, depth, fmt_rel, ...)                                     \
	do {                                                                   \
		snprintf(path, sizeof(path), fmt_path, __VA_ARGS__);           \
		snprintf(rel, sizeof(rel), fmt_rel, __VA_ARGS__);              \
		if (e == ERR_OK)                                               \
			e = page(p, path, depth, rel);                         \
	} while (0)
	ONE("/c/%" PRId64, 2, "c/%" PRId64 "/index.html", id);
	ONE("/c/%" PRId64 "/feed.atom", 2, "c/%" PRId64 "/feed.atom", id);
	ONE("/api/contributions/%" PRId64, 2,
	    "api/contributions/%" PRId64 ".json", id);
	if (e == ERR_OK && c.newest && c.newest->npatches)
		ONE("/c/%" PRId64 "/mbox", 2, "c/%" PRId64 "/mbox", id);
	for (i = 0; e == ERR_OK && i < c.nseries; i++) {
		const struct view_series *s = &c.series[i];

		e = moved(p, s->message_id, id, 0, s->title);
		for (k = 0; e == ERR_OK && k < s->npatches; k++)
			if (strcmp(s->patches[k].message_id, s->message_id))
				e = moved(p, s->patches[k].message_id, id,
				    s->patches[k].id, s->title);
		if (e == ERR_OK && s->npatches)
			ONE("/c/%" PRId64 "/v%d/mbox", 3,
			    "c/%" PRId64 "/v%d/mbox", id, s->version);
		for (k = 0; k < s->npatches; k++)
			ONE("/api/patches/%" PRId64, 2,
			    "api/patches/%" PRId64 ".json", s->patches[k].id);
	}
#undef ONE
	arena_free(a);
	return e;
}

/* The stamps of the last run, by id (sorted), from DIR/STAMP_FILE. */
static void
old_stamps(struct pub *p, struct store_web_stamp **out, size_t *n)
{
	struct buf path = BUF_INIT;
	struct store_web_stamp s;
	size_t cap = 0;
	FILE *f;

	*out = NULL;
	*n = 0;
	buf_addf(&path, "%s/%s", p->dir, STAMP_FILE);
	f = fopen(path.p, "r");
	buf_free(&path);
	if (f == NULL)
		return;
	while (fscanf(f,
	           "%" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64,
	           &s.id, &s.activity, &s.event, &s.message, &s.outbox) == 5) {
		*out = xgrow(*out, &cap, *n + 1, sizeof(**out));
		(*out)[(*n)++] = s;
	}
	fclose(f);
}

/* Whether contribution s needs its pages again. */
static bool
changed(struct pub *p, const struct store_web_stamp *s,
    const struct store_web_stamp *old, size_t nold, size_t *at)
{
	struct buf path = BUF_INIT;
	bool missing;

	while (*at < nold && old[*at].id < s->id)
		(*at)++;
	buf_addf(&path, "%s/c/%" PRId64 "/index.html", p->dir, s->id);
	missing = access(path.p, F_OK) != 0;
	buf_free(&path);
	return missing || *at >= nold || old[*at].id != s->id ||
	    old[*at].activity != s->activity || old[*at].event != s->event ||
	    old[*at].message != s->message || old[*at].outbox != s->outbox;
}

static enum err
shared(struct pub *p, size_t total)
{
	char num[32], rel[64];
	size_t pages = total ? (total + WEB_PER_PAGE - 1) / WEB_PER_PAGE : 1;
	size_t i;
	enum err e = page(p, "/", 0, "index.html");

	if (e == ERR_OK)
		e = page(p, "/style.css", 0, "style.css");
	if (e == ERR_OK)
		e = page(p, "/feed.atom", 0, "feed.atom");
	for (i = 2; e == ERR_OK && i <= pages; i++) {
		snprintf(num, sizeof(num), "%zu", i);
		snprintf(rel, sizeof(rel), "page/%zu/index.html", i);
		p->page = num;
		e = page(p, "/", 2, rel);
	}
	p->page = NULL;
	return e;
}

/* api/contributions.json: the newest WEB_MAX_PER_PAGE summaries. */
static enum err
api_list(struct pub *p)
{
	static char per_page[16];
	struct web_req rq;
	struct web_resp rs;
	enum err e;

	snprintf(per_page, sizeof(per_page), "%d", WEB_MAX_PER_PAGE);
	memset(&rq, 0, sizeof(rq));
	rq.method = "GET";
	rq.path = "/api/contributions";
	rq.arg = pub_arg;
	rq.cls = p;
	rq.static_site = true;
	rq.root = "";
	rq.now = p->now;
	p->page = NULL;
	p->per_page = per_page;
	web_handle(p->web, p->st, &rq, &rs);
	p->per_page = NULL;
	e = rs.status == 200
	    ? put(p, "api/contributions.json", rs.body.p, rs.body.n)
	    : ERR_DB;
	web_resp_free(&rs);
	return e;
}

static enum err
save_stamps(struct pub *p, const struct store_web_stamp *s, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;
	enum err e;

	for (i = 0; i < n; i++)
		buf_addf(&b,
		    "%" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
		    "\n",
		    s[i].id, s[i].activity, s[i].event, s[i].message,
		    s[i].outbox);
	e = put(p, STAMP_FILE, b.p ? b.p : "", b.n);
	buf_free(&b);
	return e;
}

enum err
webpub_run(const struct config *conf, struct store *st, const char *dir,
    struct webpub_stats *stats)
{
	struct arena *a = arena_new();
	struct store_web_stamp *now = NULL, *old = NULL;
	size_t n = 0, nold = 0, at = 0, i;
	struct pub p;
	enum err e;

	memset(stats, 0, sizeof(*stats));
	memset(&p, 0, sizeof(p));
	p.st = st;
	p.dir = dir;
	p.stats = stats;
	p.now = time_now();
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		log_err("publish: %s: %s", dir, strerror(errno));
		arena_free(a);
		return ERR_IO;
	}
	p.web = web_new(conf);
	old_stamps(&p, &old, &nold);
	e = store_web_stamps(st, a, &now, &n);
	for (i = 0; e == ERR_OK && i < n; i++) {
		if (!changed(&p, &now[i], old, nold, &at))
			continue;
		stats->changed++;
		e = contribution(&p, now[i].id);
	}
	stats->contributions = n;
	if (e == ERR_OK)
		e = shared(&p, n);
	if (e == ERR_OK)
		e = api_list(&p);
	/* Last: a run that failed half-way renders the rest next time. */
	if (e == ERR_OK)
		e = save_stamps(&p, now, n);
	free(old);
	web_free(p.web);
	arena_free(a);
	return e;
}
