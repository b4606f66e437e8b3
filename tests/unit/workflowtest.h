/*
 * The fixture of the tests of bot/workflow/'s rules and of ingest: a
 * configuration parsed from the test's text, a store (in memory unless
 * the test needs a file), mail ingested the way `patchyard ingest` takes
 * it, mails made here (a lone patch, a reply), and the views `show`
 * prints, to read the outcome.
 *
 * The mail is ingested into the project "demo", whose list the mails
 * made here are addressed to.  With auth.require = none in the test's
 * configuration every mail of wt_ingest() authenticates, so the rules
 * alone decide.
 */
#ifndef TESTS_WORKFLOWTEST_H
#define TESTS_WORKFLOWTEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bot/workflow/ingest.h"
#include "bot/workflow/show.h"
#include "parsers/config.h"
#include "parsers/mail.h"
#include "storage/store.h"
#include "storage/store_outbox.h"
#include "storage/store_read.h"
#include "util/arena.h"
#include "util/buf.h"

#define WT_PROJECT "demo"

struct wt {
	struct store *st;
	struct arena *a; /* the configuration, made mails, views */
	struct config conf;
	int n; /* mails made so far: the number of the next one, less 1 */
};

/*
 * Parse conf_text and open the store at db (":memory:" for one of the
 * test's own).  0, or -1 with the reason on stderr, as a cmocka setup
 * returns.
 */
static inline int
wt_open(struct wt *w, const char *conf_text, const char *db)
{
	struct config_error *errs = NULL;
	size_t nerrs = 0, i;

	memset(w, 0, sizeof(*w));
	w->a = arena_new();
	if (config_parse(w->a, "test.conf", conf_text, strlen(conf_text),
	        &w->conf, &errs, &nerrs) != ERR_OK) {
		for (i = 0; i < nerrs; i++)
			fprintf(stderr, "%s:%d: %s\n", errs[i].file,
			    errs[i].line, errs[i].msg);
		return -1;
	}
	return store_open(db, STORE_CREATE, &w->st) == ERR_OK ? 0 : -1;
}

static inline void
wt_close(struct wt *w)
{
	store_close(w->st);
	arena_free(w->a);
	memset(w, 0, sizeof(*w));
}

/* A cmocka teardown for a struct wt the setup allocated. */
static inline int
wt_teardown(void **state)
{
	struct wt *f = *state;

	wt_close(f);
	free(f);
	return 0;
}

/*
 * Parse raw and ingest it into WT_PROJECT in the caller's transaction,
 * by road (NULL: an import's, which believes nothing and checks
 * nothing).  What ingest said; *res its result.
 */
static inline enum err
wt_ingest_in(struct wt *w, const struct trust_road *road, const char *raw,
    size_t n, enum ingest_result *res)
{
	struct ingest *in = ingest_new(w->st, &w->conf);
	struct arena *a = arena_new();
	struct ingest_proof proof;
	struct mail_opts o;
	struct mail m;
	int64_t pid;
	enum err e;

	if (road)
		ingest_set_road(in, road);
	ingest_mail_opts(in, &o);
	mail_parse(a, raw, n, &o, &m);
	ingest_prove(in, a, raw, n, &m, &proof);
	e = ingest_project(in, WT_PROJECT, &m, &pid);
	if (e == ERR_OK)
		e = ingest_mail(in, raw, n, &m, &proof, pid, res);
	ingest_free(in);
	arena_free(a);
	return e;
}

/* Ingest raw as `patchyard ingest` does (its road checks signatures), in
 * a transaction of its own. */
static inline void
wt_ingest(struct wt *w, const char *raw)
{
	struct trust_road road = { NULL, true };
	enum ingest_result res;

	assert_int_equal(store_begin(w->st), ERR_OK);
	assert_int_equal(
	    wt_ingest_in(w, &road, raw, strlen(raw), &res), ERR_OK);
	assert_int_equal(store_commit(w->st), ERR_OK);
}

/*
 * A lone patch from `from` changing `file` (renamed to `to` when set),
 * with extra lines at the end of its message; its Message-ID
 * ("pN@example.org").  Each patch changes other lines, so no two have
 * the same patch-id.
 */
static inline const char *
wt_patch(struct wt *w, const char *from, const char *file, const char *to,
    const char *extra)
{
	const char *id = arena_printf(w->a, "p%d@example.org", ++w->n);
	const char *diff = to
	    ? arena_printf(w->a,
	          "diff --git a/%s b/%s\nsimilarity index 100%%\n"
	          "rename from %s\nrename to %s\n",
	          file, to, file, to)
	    : arena_printf(w->a,
	          "diff --git a/%s b/%s\nindex 1111111..2222222 100644\n"
	          "--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-old %d\n+new %d\n",
	          file, file, file, file, w->n, w->n);

	wt_ingest(w,
	    arena_printf(w->a,
	        "From: %s\nTo: demo@lists.example.org\n"
	        "Subject: [PATCH] change %d\nMessage-ID: <%s>\n"
	        "Date: Mon, 7 Dec 2026 10:00:00 +0000\n\n"
	        "Change number %d.\n\n%sSigned-off-by: %s\n---\n%s",
	        from, w->n, id, w->n, extra ? extra : "", from, diff));
	return id;
}

/* A reply to parent from `from` with body; its Message-ID
 * ("rN@example.org"). */
static inline const char *
wt_reply(struct wt *w, const char *parent, const char *from, const char *body)
{
	const char *id = arena_printf(w->a, "r%d@example.org", ++w->n);

	wt_ingest(w,
	    arena_printf(w->a,
	        "From: %s\nTo: demo@lists.example.org\n"
	        "Subject: Re: [PATCH]\nMessage-ID: <%s>\n"
	        "In-Reply-To: <%s>\nReferences: <%s>\n"
	        "Date: Mon, 7 Dec 2026 11:00:00 +0000\n\n%s\n",
	        from, id, parent, parent, body));
	return id;
}

/* The contribution holding msgid, with its events, checks and outbox. */
static inline struct view_contrib *
wt_show(struct wt *w, const char *msgid)
{
	struct view_contrib *c = arena_zalloc(w->a, sizeof(*c));
	int64_t cid, sid, pid;

	assert_int_equal(show_resolve(w->st, msgid, &cid, &sid, &pid), ERR_OK);
	assert_int_equal(store_read_contrib(w->st, w->a, cid, true, c), ERR_OK);
	assert_non_null(c->newest);
	return c;
}

/* The (only) patch of msgid's contribution. */
static inline const struct view_patch *
wt_the_patch(struct wt *w, const char *msgid)
{
	struct view_contrib *c = wt_show(w, msgid);

	assert_int_equal(c->newest->npatches, 1);
	return &c->newest->patches[0];
}

static inline const char *
wt_state_of(struct wt *w, const char *msgid)
{
	return model_state_name(wt_the_patch(w, msgid)->state);
}

/* The recipients of the outbox mail of kind `kind` about msgid's
 * contribution, a line each ("" when none); *count how many such. */
static inline const char *
wt_outbox_to(struct wt *w, const char *msgid, const char *kind, int *count)
{
	struct view_contrib *c = wt_show(w, msgid);
	const char *r = "";
	size_t i;

	*count = 0;
	for (i = 0; i < c->noutbox; i++) {
		if (strcmp(c->outbox[i].kind, kind) != 0)
			continue;
		(*count)++;
		r = c->outbox[i].rcpt;
	}
	return r;
}

/* The body of the newest transcript queued (a transcript answers the
 * command mail, whatever contribution it is about), its soft line breaks
 * undone, or "". */
static inline const char *
wt_transcript(struct wt *w)
{
	struct store_outbox o;
	int64_t *ids = NULL;
	const char *r = "";
	size_t n = 0, i, k;

	assert_int_equal(
	    store_outbox_due(w->st, INT64_MAX, true, &ids, &n), ERR_OK);
	for (i = 0; i < n; i++) {
		struct buf b = BUF_INIT;

		assert_int_equal(
		    store_outbox_get(w->st, w->a, ids[i], &o), ERR_OK);
		if (strcmp(o.kind, "command-reply") != 0)
			continue;
		for (k = 0; k < o.body_len; k++) {
			if (o.body[k] == '=' && k + 2 < o.body_len &&
			    o.body[k + 1] == '\r' && o.body[k + 2] == '\n')
				k += 2;
			else
				buf_addc(&b, o.body[k]);
		}
		r = arena_strdup(w->a, buf_cstr(&b));
		buf_free(&b);
	}
	free(ids);
	return r;
}

#endif
