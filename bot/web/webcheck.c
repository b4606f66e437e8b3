/*
 * POST /api/checks (and POST /api/patches/ID/checks): a CI's test result
 * in the shape of patchwork's checks API — {patch, state, context,
 * target_url, description} with "Authorization: Token T" — stored as a
 * check of that CI exactly as its "#yard check" mail would be, through
 * the same workflow code (workflow_check).  The body is parsed by jansson
 * in bot/web/webbody.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/web/webpriv.h"
#include "bot/workflow/show.h"
#include "bot/workflow/workflow.h"
#include "parsers/msgid.h"
#include "storage/store_outbox.h"
#include "storage/store_read.h"
#include "util/ascii.h"
#include "util/json.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* A token file holds one line; anything bigger is not a token file. */
#define TOKEN_FILE_MAX 4096

static char *
read_token(const char *path)
{
	char buf[TOKEN_FILE_MAX + 1];
	FILE *f = fopen(path, "r");
	size_t n;
	struct str t;

	if (f == NULL) {
		log_err("web: %s: %s", path, strerror(errno));
		return NULL;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n > TOKEN_FILE_MAX) {
		log_err("web: %s: larger than %d bytes", path, TOKEN_FILE_MAX);
		return NULL;
	}
	t = str_trim(str_make(buf, n));
	if (t.n == 0) {
		log_err("web: %s: empty token file", path);
		return NULL;
	}
	return str_dup(t);
}

bool
webcheck_tokens(struct web *w)
{
	const struct config *c = w->conf;
	size_t i;
	bool ok = true;

	w->tokens = xcalloc(c->ncis ? c->ncis : 1, sizeof(*w->tokens));
	for (i = 0; i < c->ncis; i++) {
		char *tok;

		if (c->cis[i].token_file == NULL)
			continue;
		if ((tok = read_token(c->cis[i].token_file)) == NULL) {
			ok = false;
			continue;
		}
		w->tokens[w->ntokens].ci = c->cis[i].name;
		w->tokens[w->ntokens].email = c->cis[i].email;
		w->tokens[w->ntokens].token = tok;
		w->ntokens++;
	}
	return ok;
}

/* Compare without leaking where they differ through the time taken. */
static bool
same_secret(const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b), i;
	unsigned char d = an != bn;

	for (i = 0; i < an; i++)
		d |= (unsigned char)a[i] ^ (unsigned char)b[i % (bn ? bn : 1)];
	return d == 0;
}

/* The CI whose token the Authorization header carries, or NULL. */
static const struct web_token *
who(const struct web *w, const char *auth)
{
	const struct web_token *found = NULL;
	struct str t;
	size_t i;

	if (auth == NULL)
		return NULL;
	t = str_trim(str_from(auth));
	if (!str_istartswith(t, "Token "))
		return NULL;
	t = str_trim(str_skip(t, 6));
	for (i = 0; i < w->ntokens; i++)
		if (same_secret(t.p, t.n, w->tokens[i].token))
			found = &w->tokens[i];
	return t.n ? found : NULL;
}

/* Answer 201 with the check as `show --json` shows it. */
static void
created(struct web_resp *rs, const struct store_check *k)
{
	struct json j;

	buf_reset(&rs->body);
	json_init(&j, &rs->body, false);
	show_json_checks(&j, k, 1, 0);
	/* One check: the object, not the array of one. */
	if (rs->body.n > 2 && rs->body.p[0] == '[') {
		memmove(rs->body.p, rs->body.p + 1, rs->body.n - 2);
		rs->body.n -= 2;
		rs->body.p[rs->body.n] = '\0';
	}
	buf_addc(&rs->body, '\n');
	rs->status = 201;
	rs->type = "application/json";
}

/* Store the check in a short write transaction of its own. */
static void
store_check(struct web *w, struct web_resp *rs, const struct web_token *t,
    const struct web_check_in *in)
{
	struct store *st = NULL;
	struct workflow *wf = NULL;
	struct buf msg = BUF_INIT;
	struct store_check k;
	int64_t cid = 0, sid = 0, pid = in->patch;
	char *id = NULL;
	enum err e;

	if ((e = store_open(w->conf->database, STORE_RW, &st)) != ERR_OK ||
	    (e = store_begin(st)) != ERR_OK) {
		webapi_error(rs, 503, "the database cannot be written now");
		goto out;
	}
	if (in->msgid) {
		struct str m = msgid_from_user(str_from(in->msgid));

		id = m.p ? str_dup(m) : NULL;
		e = id ? store_read_msgid(st, id, &cid, &sid, &pid)
		       : ERR_NOTFOUND;
	} else {
		e = store_web_patch(st, pid, &sid, &cid);
	}
	if (e == ERR_OK && pid == 0)
		e = ERR_NOTFOUND; /* a reply or a cover letter: no patch */
	memset(&k, 0, sizeof(k));
	k.patch_id = pid;
	k.series_id = sid;
	k.context = in->context;
	k.state = in->state;
	k.url = in->url;
	k.summary = in->description;
	k.reporter = t->ci;
	k.time = time_now();
	if (e == ERR_OK) {
		wf = workflow_new(st, w->conf);
		e = workflow_check(wf, t->email, t->ci, &k, &msg);
	}
	if (e == ERR_OK)
		e = store_commit(st);
	if (e != ERR_OK)
		store_rollback(st);
	if (e == ERR_OK)
		created(rs, &k);
	else if (e == ERR_NOTFOUND)
		webapi_error(rs, 404, "patch: no such patch");
	else if (e == ERR_PERM || e == ERR_INVAL || e == ERR_CONFLICT)
		webapi_error(rs, 403, buf_cstr(&msg));
	else
		webapi_error(rs, 503, "the check could not be stored");
out:
	workflow_free(wf);
	buf_free(&msg);
	free(id);
	store_close(st);
}

void
webcheck_post(
    struct web *w, const struct web_req *rq, struct web_resp *rs, int64_t patch)
{
	const struct web_token *t = who(w, rq->authorization);
	struct arena *a;
	struct web_check_in in;
	const char *why = NULL;

	if (t == NULL) {
		webapi_error(rs, 403, "a CI's token is needed");
		return;
	}
	if (rq->body_len > WEB_MAX_BODY) {
		webapi_error(rs, 413, "the body is too large");
		return;
	}
	a = arena_new();
	if (webbody_check(a, rq->body, rq->body_len, patch, &in, &why))
		store_check(w, rs, t, &in);
	else
		webapi_error(rs, 400, why);
	arena_free(a);
}
