/*
 * The writes, each with "Authorization: Token T" and through the same
 * workflow code as the mail that says the same:
 *
 * - POST /api/checks, POST /api/patches/ID/checks and patchwork's POST
 *   /api/1.2/patches/ID/checks/: a CI's test result in the shape of
 *   patchwork's checks API -- {patch, state, context, target_url,
 *   description}, as JSON or a form -- stored as a check of that CI
 *   exactly as its "#yard check" mail would be (workflow_check);
 * - patchwork's PATCH /api/1.2/patches/ID/ with a state: a maintainer's
 *   token, the state mapped to the command that makes it
 *   (webpw_command) and run as that maintainer's mail would run it
 *   (workflow_as), so that `git pw patch update --state under-review`
 *   stages the patch.
 *
 * Bodies are parsed by jansson in bot/web/webbody.c.
 */
#include <errno.h>
#include <inttypes.h>
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

	w->tokens = xcalloc(c->ncis + c->nmaintainers + 1, sizeof(*w->tokens));
	for (i = 0; i < c->nmaintainers; i++) {
		char *tok;

		if (c->maintainers[i].token_file == NULL)
			continue;
		if ((tok = read_token(c->maintainers[i].token_file)) == NULL) {
			ok = false;
			continue;
		}
		w->tokens[w->ntokens].maintainer = c->maintainers[i].name;
		w->tokens[w->ntokens].email = c->maintainers[i].email;
		w->tokens[w->ntokens].token = tok;
		w->ntokens++;
	}
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

const struct web_token *
webcheck_who(const struct web *w, const char *auth)
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

/* Answer 201 with the check as patchwork shows it: the newest of its
 * patch and context, read back for its id. */
static void
created_pw(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, const struct store_check *k)
{
	struct arena *a = arena_new();
	struct store_pw_filter f;
	struct store_check *v = NULL;
	struct json j;
	struct pw pw;
	size_t n = 0;

	memset(&f, 0, sizeof(f));
	f.context = k->context;
	f.order = "-date";
	f.limit = 1;
	buf_reset(&rs->body);
	if (!webpw_init(&pw, w, st, rq, a) ||
	    store_pw_checks(
	        st, a, k->patch_id, k->series_id, &f, &v, &n, NULL) != ERR_OK ||
	    n == 0) {
		webpw_error(rs, 503, "The check could not be read back.");
	} else {
		json_init(&j, &rs->body, false);
		v[0].patch_id = k->patch_id;
		webpw_check(&pw, &j, &v[0], false);
		buf_addc(&rs->body, '\n');
		rs->status = 201;
		rs->type = "application/json";
	}
	arena_free(a);
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

/* An error in the shape the API asked for: patchwork's, or ours. */
static void
refuse(struct web_resp *rs, bool pw, int status, const char *msg)
{
	if (pw && status == 400)
		webpw_field_error(rs, status, "state", msg);
	else if (pw)
		webpw_error(rs, status, msg);
	else
		webapi_error(rs, status, msg);
}

/* Store the check in a short write transaction of its own. */
static void
store_check(struct web *w, const struct web_req *rq, struct web_resp *rs,
    const struct web_token *t, const struct web_check_in *in, bool pw)
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
		refuse(rs, pw, 503, "the database cannot be written now");
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
	if (e == ERR_OK && pw)
		created_pw(w, st, rq, rs, &k);
	else if (e == ERR_OK)
		created(rs, &k);
	else if (e == ERR_NOTFOUND)
		refuse(rs, pw, 404, "patch: no such patch");
	else if (e == ERR_PERM || e == ERR_INVAL || e == ERR_CONFLICT)
		refuse(rs, pw, 403, buf_cstr(&msg));
	else
		refuse(rs, pw, 503, "the check could not be stored");
out:
	workflow_free(wf);
	buf_free(&msg);
	free(id);
	store_close(st);
}

/* Whether the body is a form (else JSON): by its Content-Type, else by
 * its first byte. */
static bool
is_form(const struct web_req *rq)
{
	struct str t =
	    rq->content_type ? str_trim(str_from(rq->content_type)) : STR_NULL;

	if (t.p)
		return str_istartswith(t, "application/x-www-form-urlencoded");
	return rq->body_len && rq->body[0] != '{' && rq->body[0] != '[';
}

void
webcheck_post(struct web *w, const struct web_req *rq, struct web_resp *rs,
    int64_t patch, bool pw)
{
	const struct web_token *t = webcheck_who(w, rq->authorization);
	struct arena *a;
	struct web_check_in in;
	struct web_arg *f = NULL;
	const char *why = NULL;
	size_t n = 0;
	bool ok;

	if (t == NULL || t->ci == NULL) {
		refuse(rs, pw, 403, "a CI's token is needed");
		return;
	}
	if (rq->body_len > WEB_MAX_BODY) {
		refuse(rs, pw, 413, "the body is too large");
		return;
	}
	a = arena_new();
	if (is_form(rq))
		ok =
		    webbody_form(a, rq->body, rq->body_len, 16, &f, &n, &why) &&
		    webbody_check_form(a, f, n, patch, &in, &why);
	else
		ok = webbody_check(a, rq->body, rq->body_len, patch, &in, &why);
	if (ok)
		store_check(w, rq, rs, t, &in, pw);
	else if (pw && strchr(why, ':'))
		webpw_field_error(
		    rs, 400, arena_strndup(a, why, strcspn(why, ":")), why);
	else if (pw)
		webpw_error(rs, 400, why);
	else
		webapi_error(rs, 400, why);
	arena_free(a);
}

/* ---- PATCH /api/1.2/patches/ID/ ---- */

/* The state a PATCH body asks for (NULL: none), or false with *why: the
 * fields patchwork takes that patchyard keeps no value of may only be
 * left as they are. */
static bool
wanted(const struct web_arg *f, size_t n, const char **state,
    const char **field, const char **why)
{
	size_t i;

	*state = NULL;
	for (i = 0; i < n; i++) {
		const char *k = f[i].name, *v = f[i].value;

		*field = k;
		if (strcmp(k, "state") == 0 && v && *v) {
			*state = v;
		} else if (strcmp(k, "archived") == 0) {
			if (v && strcmp(v, "false") && strcmp(v, "False") &&
			    strcmp(v, "0"))
				return *why = "patchyard archives nothing",
				       false;
		} else if (strcmp(k, "delegate") == 0 ||
		    strcmp(k, "commit_ref") == 0 ||
		    strcmp(k, "pull_url") == 0) {
			if (v && *v)
				return *why = "patchyard keeps no such value: "
				              "only the state changes",
				       false;
		} else if (strcmp(k, "related") != 0 || (v && *v)) {
			return *why = "only the state changes", false;
		}
	}
	return true;
}

/* Answer 200 with the patch as it is now. */
static void
updated(struct web *w, struct store *st, const struct web_req *rq,
    struct web_resp *rs, int64_t patch)
{
	struct arena *a = arena_new();
	struct store_pw_patch p;
	struct json j;
	struct pw pw;

	buf_reset(&rs->body);
	json_init(&j, &rs->body, false);
	if (!webpw_init(&pw, w, st, rq, a) ||
	    webpw_get_patch(&pw, patch, &p) != ERR_OK ||
	    webpw_patch(&pw, &j, &p, true) != ERR_OK) {
		webpw_error(rs, 503, "The patch could not be read.");
	} else {
		buf_addc(&rs->body, '\n');
		rs->status = 200;
		rs->type = "application/json";
	}
	arena_free(a);
}

/* Run the command that gives the patch the state, in a transaction. */
static void
change(struct web *w, const struct web_req *rq, struct web_resp *rs,
    const struct web_token *t, int64_t patch, const char *state)
{
	struct arena *a = arena_new();
	struct store *st = NULL;
	struct workflow *wf = NULL;
	struct buf msg = BUF_INIT;
	struct store_pw_patch p;
	struct command c;
	const char *why = NULL;
	struct pw pw;
	int todo = 0;
	enum err e;

	memset(&c, 0, sizeof(c));
	c.line = "";
	if ((e = store_open(w->conf->database, STORE_RW, &st)) != ERR_OK ||
	    (e = store_begin(st)) != ERR_OK) {
		webpw_error(rs, 503, "The database cannot be written now.");
		goto out;
	}
	if (!webpw_init(&pw, w, st, rq, a))
		e = ERR_DB;
	else
		e = webpw_get_patch(&pw, patch, &p);
	if (e == ERR_OK && state &&
	    (todo = webpw_command(
	         p.state, p.queue, p.reason, state, &c, &why)) > 0) {
		wf = workflow_new(st, w->conf);
		e = workflow_as(
		    wf, &c, p.series_id, p.id, t->email, t->email, &msg);
		if (e == ERR_OK)
			log_info("web: %s (%s) set patch %" PRId64 " to %s: %s",
			    t->maintainer, t->email, p.id, state, c.line);
	}
	if (e == ERR_OK && todo >= 0)
		e = store_commit(st);
	else if (store_in_tx(st))
		store_rollback(st);
	if (e == ERR_OK && todo < 0)
		webpw_field_error(
		    rs, 400, "state", arena_printf(a, "%s: %s", state, why));
	else if (e == ERR_OK)
		updated(w, st, rq, rs, patch);
	else if (e == ERR_NOTFOUND)
		webpw_error(rs, 404, "Not found.");
	else if (e == ERR_PERM)
		webpw_error(rs, 403, buf_cstr(&msg));
	else if (e == ERR_CONFLICT || e == ERR_INVAL)
		webpw_field_error(rs, 400, "state",
		    arena_printf(
		        a, "%s (%s): %s", state, c.line, buf_cstr(&msg)));
	else
		webpw_error(rs, 503, "The state could not be changed.");
out:
	workflow_free(wf);
	buf_free(&msg);
	store_close(st);
	arena_free(a);
}

void
webcheck_patch(
    struct web *w, const struct web_req *rq, struct web_resp *rs, int64_t patch)
{
	const struct web_token *t = webcheck_who(w, rq->authorization);
	struct arena *a;
	struct web_arg *f = NULL;
	const char *why = NULL, *state = NULL, *field = "state";
	size_t n = 0;
	bool ok;

	if (t == NULL) {
		webpw_error(rs, 403, "A maintainer's token is needed.");
		return;
	}
	if (t->maintainer == NULL) {
		webpw_error(rs, 403,
		    "Only a maintainer's token changes a patch's state.");
		return;
	}
	if (rq->body_len > WEB_MAX_BODY) {
		webpw_error(rs, 413, "The body is too large.");
		return;
	}
	a = arena_new();
	if (is_form(rq))
		ok = webbody_form(a, rq->body, rq->body_len, 16, &f, &n, &why);
	else
		ok =
		    webbody_fields(a, rq->body, rq->body_len, 16, &f, &n, &why);
	if (ok)
		ok = wanted(f, n, &state, &field, &why);
	if (ok)
		change(w, rq, rs, t, patch, state);
	else
		webpw_field_error(rs, 400, field, why);
	arena_free(a);
}
