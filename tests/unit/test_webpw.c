/*
 * Unit tests of the field's protocols in bot/web/ (docs/DESIGN.md §9):
 * patchwork's REST API 1.2 (the state mapping both ways, the shapes and
 * filters of its lists, checks and a maintainer's PATCH) and
 * public-inbox's message URLs (raw, t.mbox.gz), through the router
 * without sockets, on webtest.h's database.  The real git-pw and b4 run
 * against the server in tests/integration/protocols.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>
#include <zlib.h>

#include "bot/web/webpriv.h"
#include "parsers/limits.h"
#include "parsers/mail.h"
#include "storage/store_msg.h"
#include "util/timeutil.h"
#include "webtest.h"

static struct webtest w;
static struct web *web;

static int
setup(void **state)
{
	(void)state;
	if (webtest_setup(&w) != 0)
		return -1;
	web = web_new(&w.conf);
	return web ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	web_free(web);
	return webtest_teardown(&w);
}

/* One request: path may carry a query ("?a=1&a=2", not encoded). */
static void
req(struct web_resp *rs, const char *method, const char *path, const char *auth,
    const char *type, const char *body)
{
	static struct web_arg args[16];
	static char copy[1024];
	struct web_req rq;
	char *q, *tok, *save = NULL;

	memset(&rq, 0, sizeof(rq));
	snprintf(copy, sizeof(copy), "%s", path);
	rq.method = method;
	rq.path = copy;
	rq.root = "/";
	rq.host = "yard.test";
	rq.args = args;
	if ((q = strchr(copy, '?')) != NULL) {
		*q++ = '\0';
		for (tok = strtok_r(q, "&", &save); tok && rq.nargs < 16;
		     tok = strtok_r(NULL, "&", &save)) {
			char *eq = strchr(tok, '=');

			if (eq)
				*eq++ = '\0';
			args[rq.nargs].name = tok;
			args[rq.nargs].value = eq ? eq : "";
			rq.nargs++;
		}
	}
	rq.authorization = auth;
	rq.content_type = type;
	rq.body = body;
	rq.body_len = body ? strlen(body) : 0;
	rq.now = time_now();
	web_handle(web, w.st, &rq, rs);
}

/* GET path as JSON (the caller frees it); asserts the status. */
static json_t *
get_json(const char *path, int status, struct web_resp *keep)
{
	struct web_resp rs;
	json_error_t e;
	json_t *j;

	req(&rs, "GET", path, NULL, NULL, NULL);
	assert_int_equal(rs.status, status);
	assert_string_equal(rs.type, "application/json");
	j = json_loadb(rs.body.p, rs.body.n, 0, &e);
	assert_non_null(j);
	if (keep)
		*keep = rs;
	else
		web_resp_free(&rs);
	return j;
}

static const char *
str_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_non_null(v);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static int64_t
int_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_integer(v));
	return (int64_t)json_integer_value(v);
}

static void
has_fields(json_t *o, const char *const *names)
{
	size_t i;

	assert_true(json_is_object(o));
	for (i = 0; names[i]; i++) {
		if (json_object_get(o, names[i]) == NULL)
			fail_msg("no field %s", names[i]);
	}
}

/* The ids of a list, in order, as "4,5,6". */
static const char *
ids(json_t *list)
{
	static char out[256];
	size_t i, n = 0;

	out[0] = '\0';
	assert_true(json_is_array(list));
	for (i = 0; i < json_array_size(list); i++)
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%lld",
		    i ? "," : "",
		    (long long)int_of(json_array_get(list, i), "id"));
	return out;
}

static const char *
list_ids(const char *path)
{
	json_t *j = get_json(path, 200, NULL);
	const char *s = ids(j);

	json_decref(j);
	return s;
}

/* The state table of docs/DESIGN.md §9, in C and in the SQL that filters. */
static void
test_state_map(void **state)
{
	static const char *const t[][4] = {
		{ "new", NULL, NULL, "new" },
		{ "staged", "unstable", NULL, "under-review" },
		{ "staged", "stable", NULL, "accepted" },
		{ "merged", NULL, NULL, "accepted" },
		{ "dropped", NULL, "to-be-updated", "changes-requested" },
		{ "dropped", NULL, "withdrawn", "not-applicable" },
		{ "dropped", NULL, "nacked", "rejected" },
		{ "dropped", NULL, "obsolete", "rejected" },
		{ "dropped", NULL, "failures", "rejected" },
		{ "dropped", NULL, "folded", "rejected" },
		{ "dropped", NULL, "conflict", "rejected" },
		{ "dropped", NULL, NULL, "rejected" },
		{ "superseded", NULL, NULL, "superseded" },
		{ "changes-requested", NULL, NULL, "changes-requested" },
		{ "rejected", NULL, NULL, "rejected" },
	};
	struct arena *a = arena_new();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *sql = NULL;
		enum webpw_state known;
		enum model_state st;
		enum model_queue q = QUEUE_NONE;
		enum model_reason r = REASON_NONE;

		assert_true(model_state_parse(t[i][0], &st));
		assert_true(t[i][1] == NULL || model_queue_parse(t[i][1], &q));
		assert_true(t[i][2] == NULL || model_reason_parse(t[i][2], &r));
		assert_string_equal(
		    webpw_state_name(webpw_state(st, q, r)), t[i][3]);
		assert_int_equal(
		    store_pw_state(w.st, a, t[i][0], t[i][1], t[i][2], &sql),
		    ERR_OK);
		assert_string_equal(sql, t[i][3]);
		assert_true(webpw_state_parse(t[i][3], &known));
	}
	{
		enum webpw_state known;

		assert_false(webpw_state_parse("staged", &known));
	}
	arena_free(a);
}

/* patchwork's state asked for, as the mail command that makes it. */
static void
test_command_map(void **state)
{
	static const struct {
		const char *state, *queue, *reason, *want;
		int todo;
		enum command_verb verb;
		const char *arg;
	} t[] = {
		{ "new", NULL, NULL, "under-review", 1, CMD_STAGE, NULL },
		{ "rejected", NULL, NULL, "under-review", 1, CMD_STAGE, NULL },
		{ "staged", "unstable", NULL, "accepted", 1, CMD_GRADUATE,
		    NULL },
		{ "staged", "unstable", NULL, "rejected", 1, CMD_DROP,
		    "nacked" },
		{ "staged", "stable", NULL, "changes-requested", 1, CMD_DROP,
		    "to-be-updated" },
		{ "new", NULL, NULL, "rejected", 1, CMD_STATE, "rejected" },
		{ "new", NULL, NULL, "changes-requested", 1, CMD_STATE,
		    "changes-requested" },
		{ "changes-requested", NULL, NULL, "new", 1, CMD_STATE, "new" },
		{ "staged", "unstable", NULL, "new", 1, CMD_STATE, "new" },
		{ "new", NULL, NULL, "new", 0, CMD_BAD, NULL },
		{ "staged", "unstable", NULL, "under-review", 0, CMD_BAD,
		    NULL },
		{ "dropped", NULL, "to-be-updated", "changes-requested", 0,
		    CMD_BAD, NULL },
		{ "new", NULL, NULL, "accepted", -1, CMD_BAD, NULL },
		{ "staged", "stable", NULL, "under-review", -1, CMD_BAD, NULL },
		{ "new", NULL, NULL, "deferred", -1, CMD_BAD, NULL },
		{ "new", NULL, NULL, "not-applicable", -1, CMD_BAD, NULL },
		{ "new", NULL, NULL, "superseded", -1, CMD_BAD, NULL },
		{ "new", NULL, NULL, "staged", -1, CMD_BAD, NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct command c;
		const char *why = NULL;
		enum model_state st;
		enum model_queue q = QUEUE_NONE;
		enum model_reason re = REASON_NONE;
		int r;

		assert_true(model_state_parse(t[i].state, &st));
		assert_true(
		    t[i].queue == NULL || model_queue_parse(t[i].queue, &q));
		assert_true(t[i].reason == NULL ||
		    model_reason_parse(t[i].reason, &re));
		r = webpw_command(st, q, re, t[i].want, &c, &why);

		assert_int_equal(r, t[i].todo);
		if (r < 0)
			assert_non_null(why);
		if (r <= 0)
			continue;
		assert_int_equal(c.verb, t[i].verb);
		if (t[i].arg)
			assert_string_equal(c.arg, t[i].arg);
		else
			assert_null(c.arg);
		assert_non_null(c.line);
		/* What the workflow reads: the parsed reason or state. */
		if (c.verb == CMD_DROP)
			assert_string_equal(model_reason_name(c.reason), c.arg);
		if (c.verb == CMD_STATE)
			assert_string_equal(model_state_name(c.state), c.arg);
	}
}

static const char *const patch_fields[] = { "id", "url", "web_url", "project",
	"msgid", "list_archive_url", "date", "name", "commit_ref", "pull_url",
	"state", "archived", "hash", "submitter", "delegate", "mbox", "series",
	"comments", "check", "checks", "tags", "related", NULL };
static const char *const detail_fields[] = { "headers", "content", "diff",
	"prefixes", NULL };
static const char *const series_fields[] = { "id", "url", "web_url", "project",
	"name", "date", "submitter", "version", "total", "received_total",
	"received_all", "mbox", "cover_letter", "patches", NULL };
static const char *const project_fields[] = { "id", "url", "name", "link_name",
	"list_id", "list_email", "web_url", "scm_url", "webscm_url",
	"list_archive_url", "list_archive_url_format", "commit_url_format",
	NULL };
static const char *const person_fields[] = { "id", "url", "name", "email",
	NULL };
static const char *const embedded_fields[] = { "id", "url", "web_url", "msgid",
	"list_archive_url", "date", "name", "mbox", NULL };

static void
test_index(void **state)
{
	static const char *const names[] = { "bundles", "covers", "events",
		"patches", "people", "projects", "users", "series", NULL };
	json_t *j;

	(void)state;
	j = get_json("/api/1.2/", 200, NULL);
	has_fields(j, names);
	assert_string_equal(
	    str_of(j, "patches"), "http://yard.test/api/1.2/patches/");
	json_decref(j);
	json_decref(get_json("/api/1.2", 200, NULL));
	json_decref(get_json("/api/1.2/nothing/", 404, NULL));
	json_decref(get_json("/api/1.2/patches/99/", 404, NULL));
	json_decref(get_json("/api/1.2/patches/x/", 404, NULL));
	j = get_json("/api/1.2/bundles/", 200, NULL);
	assert_int_equal(json_array_size(j), 0);
	json_decref(j);
}

static void
test_patch_shape(void **state)
{
	json_t *j, *s, *h, *p;

	(void)state;
	j = get_json("/api/1.2/patches/5/", 200, NULL);
	has_fields(j, patch_fields);
	has_fields(j, detail_fields);
	assert_int_equal(int_of(j, "id"), 5);
	assert_string_equal(
	    str_of(j, "url"), "http://yard.test/api/1.2/patches/5/");
	assert_string_equal(
	    str_of(j, "msgid"), "<20261105090000.2000-2-ada@example.org>");
	assert_string_equal(str_of(j, "state"), "under-review");
	assert_string_equal(str_of(j, "name"),
	    "[v2,2/3] widget: look widgets up through the cache");
	assert_string_equal(str_of(j, "web_url"),
	    "http://yard.test/project/frob/patch/"
	    "20261105090000.2000-2-ada@example.org/");
	assert_string_equal(str_of(j, "mbox"),
	    "http://yard.test/project/frob/patch/"
	    "20261105090000.2000-2-ada@example.org/mbox/");
	assert_string_equal(str_of(j, "list_archive_url"),
	    "https://lists.example.org/frob/"
	    "20261105090000.2000-2-ada@example.org/");
	assert_true(json_is_false(json_object_get(j, "archived")));
	assert_true(json_is_null(json_object_get(j, "delegate")));
	assert_string_equal(str_of(j, "check"), "pending");
	assert_int_equal(strlen(str_of(j, "hash")), 40);
	p = json_object_get(j, "project");
	has_fields(p, project_fields);
	assert_string_equal(str_of(p, "link_name"), "frob");
	assert_string_equal(str_of(p, "list_id"), "frob.lists.example.org");
	assert_string_equal(str_of(p, "list_archive_url_format"),
	    "https://lists.example.org/frob/{}/");
	has_fields(json_object_get(j, "submitter"), person_fields);
	assert_string_equal(str_of(json_object_get(j, "submitter"), "email"),
	    "ada@example.org");
	s = json_object_get(j, "series");
	assert_int_equal(json_array_size(s), 1);
	assert_int_equal(int_of(json_array_get(s, 0), "id"), 2);
	assert_int_equal(int_of(json_array_get(s, 0), "version"), 2);
	h = json_object_get(j, "headers");
	assert_string_equal(
	    str_of(h, "Message-ID"), "<20261105090000.2000-2-ada@example.org>");
	assert_int_equal(strncmp(str_of(j, "diff"), "diff --git", 10), 0);
	assert_non_null(strstr(str_of(j, "content"), "Signed-off-by"));
	assert_int_equal(json_array_size(json_object_get(j, "prefixes")), 2);
	assert_string_equal(json_string_value(json_array_get(
	                        json_object_get(j, "prefixes"), 0)),
	    "v2");
	json_decref(j);
	/* The list's items are the detail less its mail. */
	j = get_json(
	    "/api/1.2/patches/?msgid=20261105090000.2000-2-ada@example.org",
	    200, NULL);
	assert_int_equal(json_array_size(j), 1);
	has_fields(json_array_get(j, 0), patch_fields);
	assert_null(json_object_get(json_array_get(j, 0), "diff"));
	json_decref(j);
}

static void
test_patch_filters(void **state)
{
	struct web_resp rs;
	json_t *j;

	(void)state;
	assert_string_equal(list_ids("/api/1.2/patches/"), "1,2,3,4,5,6,7,8,9");
	assert_string_equal(list_ids("/api/1.2/patches"), "1,2,3,4,5,6,7,8,9");
	assert_string_equal(
	    list_ids("/api/1.2/patches/?order=-id"), "9,8,7,6,5,4,3,2,1");
	assert_string_equal(
	    list_ids("/api/1.2/patches/?state=under-review"), "4,5,6");
	assert_string_equal(
	    list_ids("/api/1.2/patches/?state=new&state=under-review"),
	    "4,5,6,7,8,9");
	assert_string_equal(
	    list_ids("/api/1.2/patches/?state=superseded&project=frob"),
	    "1,2,3");
	assert_string_equal(
	    list_ids("/api/1.2/patches/?project=1&series=4"), "8,9");
	assert_string_equal(
	    list_ids("/api/1.2/patches/?submitter=bob@example.net"), "7");
	assert_string_equal(
	    list_ids("/api/1.2/patches/?submitter=BOB@example.net&q=TYPO"),
	    "7");
	assert_string_equal(
	    list_ids("/api/1.2/patches/?archived=false"), "1,2,3,4,5,6,7,8,9");
	assert_string_equal(list_ids("/api/1.2/patches/?archived=true"), "");
	assert_string_equal(list_ids("/api/1.2/patches/?delegate=mia"), "");
	assert_string_equal(
	    list_ids("/api/1.2/patches/?msgid=<20261107080000.4000-2-"
	             "carol@example.org>"),
	    "9");
	assert_string_equal(
	    list_ids("/api/1.2/patches/?since=2026-11-06T00:00:00"), "7,8,9");
	assert_string_equal(
	    list_ids("/api/1.2/patches/?before=2026-11-04"), "1,2,3");
	json_decref(get_json("/api/1.2/patches/?state=staged", 400, NULL));
	json_decref(get_json("/api/1.2/patches/?project=nosuch", 400, NULL));
	json_decref(get_json("/api/1.2/patches/?since=yesterday", 400, NULL));
	json_decref(get_json("/api/1.2/patches/?archived=maybe", 400, NULL));
	/* Paging: per_page, page and the Link header. */
	j = get_json("/api/1.2/patches/?state=new&per_page=2", 200, &rs);
	assert_string_equal(ids(j), "7,8");
	assert_non_null(rs.link);
	assert_non_null(strstr(rs.link,
	    "<http://yard.test/api/1.2/patches/?state=new&page=2&per_page=2>; "
	    "rel=\"next\""));
	assert_null(strstr(rs.link, "rel=\"prev\""));
	web_resp_free(&rs);
	json_decref(j);
	j = get_json("/api/1.2/patches/?state=new&per_page=2&page=2", 200, &rs);
	assert_string_equal(ids(j), "9");
	assert_null(strstr(rs.link, "rel=\"next\""));
	assert_non_null(strstr(rs.link, "page=1&per_page=2>; rel=\"prev\""));
	web_resp_free(&rs);
	json_decref(j);
}

static void
test_series_shape(void **state)
{
	json_t *j, *c, *p;

	(void)state;
	j = get_json("/api/1.2/series/2/", 200, NULL);
	has_fields(j, series_fields);
	assert_int_equal(int_of(j, "version"), 2);
	assert_int_equal(int_of(j, "total"), 3);
	assert_int_equal(int_of(j, "received_total"), 3);
	assert_true(json_is_true(json_object_get(j, "received_all")));
	assert_string_equal(str_of(j, "name"), "speed up widget lookups");
	assert_string_equal(
	    str_of(j, "mbox"), "http://yard.test/series/2/mbox/");
	c = json_object_get(j, "cover_letter");
	has_fields(c, embedded_fields);
	assert_int_equal(int_of(c, "id"), 8);
	assert_string_equal(
	    str_of(c, "msgid"), "<20261105090000.2000-0-ada@example.org>");
	p = json_object_get(j, "patches");
	assert_string_equal(ids(p), "4,5,6");
	has_fields(json_array_get(p, 0), embedded_fields);
	json_decref(j);
	assert_string_equal(list_ids("/api/1.2/series/"), "1,2,3,4");
	assert_string_equal(list_ids("/api/1.2/series/?q=widget"), "1,2");
	assert_string_equal(
	    list_ids("/api/1.2/series/?submitter=carol@example.org"), "4");
	assert_string_equal(list_ids("/api/1.2/covers/"), "1,8");
	j = get_json("/api/1.2/covers/8/", 200, NULL);
	assert_non_null(strstr(str_of(j, "content"), "widget"));
	assert_non_null(json_object_get(j, "headers"));
	json_decref(j);
	json_decref(get_json("/api/1.2/covers/5/", 404, NULL));
}

static void
test_comments_people(void **state)
{
	json_t *j, *c;

	(void)state;
	j = get_json("/api/1.2/patches/6/comments/", 200, NULL);
	assert_string_equal(ids(j), "12");
	c = json_array_get(j, 0);
	assert_string_equal(str_of(c, "msgid"), "<r4.mia@frob.example.org>");
	assert_string_equal(
	    str_of(json_object_get(c, "submitter"), "name"), "Mia Maintainer");
	assert_non_null(str_of(c, "content"));
	json_decref(j);
	assert_string_equal(list_ids("/api/1.2/covers/8/comments/"), "19");
	assert_string_equal(list_ids("/api/1.2/covers/1/comments/"), "5");
	j = get_json("/api/1.2/people/?q=tom", 200, NULL);
	assert_int_equal(json_array_size(j), 1);
	has_fields(json_array_get(j, 0), person_fields);
	assert_string_equal(
	    str_of(json_array_get(j, 0), "email"), "tom@example.com");
	json_decref(j);
	j = get_json("/api/1.2/people/5/", 200, NULL);
	assert_string_equal(str_of(j, "email"), "mia@frob.example.org");
	assert_string_equal(
	    str_of(json_object_get(j, "user"), "username"), "mia");
	json_decref(j);
	j = get_json("/api/1.2/users/", 200, NULL);
	assert_string_equal(ids(j), "1,2");
	assert_string_equal(
	    str_of(json_array_get(j, 0), "email"), "mia@frob.example.org");
	assert_string_equal(str_of(json_array_get(j, 1), "username"), "lab");
	json_decref(j);
	j = get_json("/api/1.2/projects/frob/", 200, NULL);
	has_fields(j, project_fields);
	assert_int_equal(json_array_size(json_object_get(j, "maintainers")), 1);
	json_decref(j);
}

/* Whether list holds an event of category (about patch, when not 0). */
static json_t *
event_of(json_t *list, const char *category, int64_t patch)
{
	size_t i;

	for (i = 0; i < json_array_size(list); i++) {
		json_t *e = json_array_get(list, i), *p;

		if (strcmp(str_of(e, "category"), category) != 0)
			continue;
		p = json_object_get(json_object_get(e, "payload"), "patch");
		if (patch == 0 || (p && int_of(p, "id") == patch))
			return e;
	}
	return NULL;
}

static void
test_events(void **state)
{
	static const char *const fields[] = { "id", "category", "project",
		"date", "actor", "payload", NULL };
	json_t *j, *e, *pl;
	size_t i;

	(void)state;
	j = get_json("/api/1.2/events/?per_page=250", 200, NULL);
	for (i = 0; i < json_array_size(j); i++)
		has_fields(json_array_get(j, i), fields);
	assert_non_null(event_of(j, "series-created", 0));
	assert_non_null(event_of(j, "series-completed", 0));
	assert_non_null(event_of(j, "cover-created", 0));
	assert_non_null(event_of(j, "patch-created", 9));
	assert_non_null(event_of(j, "patch-comment-created", 6));
	assert_non_null(event_of(j, "cover-comment-created", 0));
	e = event_of(j, "patch-state-changed", 5);
	assert_non_null(e);
	pl = json_object_get(e, "payload");
	assert_string_equal(str_of(pl, "previous_state"), "new");
	assert_string_equal(str_of(pl, "current_state"), "under-review");
	assert_string_equal(
	    str_of(json_object_get(e, "actor"), "username"), "mia");
	e = event_of(j, "patch-state-changed", 2);
	assert_string_equal(
	    str_of(json_object_get(e, "payload"), "current_state"),
	    "superseded");
	/* Newest first. */
	for (i = 1; i < json_array_size(j); i++)
		assert_true(strcmp(str_of(json_array_get(j, i - 1), "date"),
		                str_of(json_array_get(j, i), "date")) >= 0);
	json_decref(j);
	j = get_json(
	    "/api/1.2/events/?category=patch-created&order=date", 200, NULL);
	assert_int_equal(json_array_size(j), 9);
	json_decref(j);
	j = get_json(
	    "/api/1.2/events/?category=patch-state-changed&patch=4", 200, NULL);
	assert_int_equal(json_array_size(j), 1);
	json_decref(j);
	j = get_json(
	    "/api/1.2/events/?since=2026-11-07&category=series-created", 200,
	    NULL);
	assert_int_equal(json_array_size(j), 1);
	json_decref(j);
	json_decref(get_json("/api/1.2/events/?category=nothing", 400, NULL));
}

/* The events of path as "id@date" lines, and how many. */
static size_t
event_lines(const char *path, struct buf *out)
{
	json_t *j = get_json(path, 200, NULL);
	size_t i, n = json_array_size(j);

	buf_reset(out);
	for (i = 0; i < n; i++) {
		json_t *e = json_array_get(j, i);

		buf_addf(out, "%lld@%s\n", (long long)int_of(e, "id"),
		    str_of(e, "date"));
	}
	json_decref(j);
	return n;
}

/*
 * The events are read a page at a time from the indexes of their rows
 * (migration 11): the same events, in the same order, as one list, page
 * by page, backwards with order=date, and cut by since and before where
 * the whole list says.  A complete series is dated by its last patch.
 */
static void
test_events_pages(void **state)
{
	struct buf all = BUF_INIT, part = BUF_INIT, pages = BUF_INIT;
	char path[256], mid[32];
	const char *line, *at, *cut;
	json_t *j, *p;
	size_t n, k, page;
	int64_t last = 0;

	(void)state;
	n = event_lines("/api/1.2/events/?per_page=250", &all);
	assert_true(n > 20 && n < 250);
	/* Newest first, the greater id first on the same date. */
	for (line = all.p, at = NULL; *line; line = strchr(line, '\n') + 1) {
		const char *date = strchr(line, '@') + 1;
		long long id = atoll(line);
		int c;

		if (at) {
			c = strncmp(date, at, 19);
			assert_true(c < 0 || (c == 0 && id < last));
		}
		at = date;
		last = id;
	}
	last = 0;
	/* Page by page. */
	for (page = 1;; page++) {
		snprintf(path, sizeof(path),
		    "/api/1.2/events/?per_page=4&page=%zu", page);
		k = event_lines(path, &part);
		buf_add(&pages, part.p, part.n);
		if (k < 4)
			break;
	}
	assert_string_equal(buf_cstr(&pages), buf_cstr(&all));
	/* Oldest first is the same list backwards. */
	k = event_lines("/api/1.2/events/?per_page=250&order=date", &part);
	assert_int_equal(k, n);
	buf_reset(&pages);
	for (k = part.n; k > 0;) {
		size_t end = k, start;

		for (start = end - 1; start > 0 && part.p[start - 1] != '\n';
		     start--)
			;
		buf_add(&pages, part.p + start, end - start);
		k = start;
	}
	assert_string_equal(buf_cstr(&pages), buf_cstr(&all));
	/* since and before cut the list at a date in its middle: at or
	 * after it the lines before the first older one, strictly before
	 * it the rest. */
	line = all.p;
	for (k = 0; k < n / 2; k++)
		line = strchr(line, '\n') + 1;
	at = strchr(line, '@') + 1;
	snprintf(mid, sizeof(mid), "%.*s", (int)(strchr(at, '\n') - at), at);
	for (cut = all.p; *cut; cut = strchr(cut, '\n') + 1)
		if (strncmp(strchr(cut, '@') + 1, mid, strlen(mid)) < 0)
			break;
	snprintf(
	    path, sizeof(path), "/api/1.2/events/?per_page=250&since=%s", mid);
	event_lines(path, &part);
	assert_int_equal(part.n, (size_t)(cut - all.p));
	assert_memory_equal(part.p, all.p, part.n);
	snprintf(
	    path, sizeof(path), "/api/1.2/events/?per_page=250&before=%s", mid);
	event_lines(path, &part);
	assert_string_equal(buf_cstr(&part), cut);
	/* Series 2 (three patches) was complete at its last patch. */
	j = get_json(
	    "/api/1.2/events/?category=series-completed&series=2", 200, NULL);
	assert_int_equal(json_array_size(j), 1);
	for (k = 4; k <= 6; k++) {
		snprintf(path, sizeof(path), "/api/1.2/patches/%zu/", k);
		p = get_json(path, 200, NULL);
		if (last == 0 || strcmp(str_of(p, "date"), mid) > 0)
			snprintf(mid, sizeof(mid), "%s", str_of(p, "date"));
		last = 1;
		json_decref(p);
	}
	assert_string_equal(str_of(json_array_get(j, 0), "date"), mid);
	json_decref(j);
	buf_free(&all);
	buf_free(&part);
	buf_free(&pages);
}

/* Whether the comments at path hold one with id and msgid. */
static bool
has_comment(const char *path, int64_t id, const char *msgid)
{
	json_t *j = get_json(path, 200, NULL);
	bool found = false;
	size_t i;

	for (i = 0; i < json_array_size(j) && !found; i++) {
		json_t *c = json_array_get(j, i);

		found = int_of(c, "id") == id &&
		    strcmp(str_of(c, "msgid"), msgid) == 0;
	}
	json_decref(j);
	return found;
}

/*
 * Each event's payload is its own rows, each read by its key: the reply
 * of a comment event is one of the comments of its patch or cover
 * letter, the patch and series those the event names.
 */
static void
test_event_payloads(void **state)
{
	json_t *j, *e, *pl, *c, *p, *s;
	char path[128];
	size_t i, comments = 0;

	(void)state;
	j = get_json("/api/1.2/events/?per_page=250", 200, NULL);
	for (i = 0; i < json_array_size(j); i++) {
		e = json_array_get(j, i);
		pl = json_object_get(e, "payload");
		p = json_object_get(pl, "patch");
		s = json_object_get(pl, "series");
		if (p) {
			snprintf(path, sizeof(path), "/api/1.2/patches/%lld/",
			    (long long)int_of(p, "id"));
			json_decref(get_json(path, 200, NULL));
		}
		if (s && strcmp(str_of(e, "category"), "series-created") == 0)
			assert_int_equal(int_of(s, "version") > 0, 1);
		if ((c = json_object_get(pl, "comment")) == NULL)
			continue;
		comments++;
		if (p)
			snprintf(path, sizeof(path),
			    "/api/1.2/patches/%lld/comments/",
			    (long long)int_of(p, "id"));
		else
			snprintf(path, sizeof(path),
			    "/api/1.2/covers/%lld/comments/",
			    (long long)int_of(
			        json_object_get(pl, "cover"), "id"));
		assert_true(
		    has_comment(path, int_of(c, "id"), str_of(c, "msgid")));
		assert_non_null(strstr(str_of(c, "web_url"), "#"));
	}
	/* The demo's replies to a patch or a cover letter. */
	assert_int_equal(comments, 7);
	json_decref(j);
	/* One object by its key; none under a key of another kind. */
	j = get_json("/api/1.2/covers/8/", 200, NULL);
	assert_int_equal(
	    int_of(json_array_get(json_object_get(j, "series"), 0), "id"), 2);
	json_decref(j);
	json_decref(get_json("/api/1.2/series/99/", 404, NULL));
	json_decref(get_json("/api/1.2/patches/99/comments/", 404, NULL));
	json_decref(get_json("/api/1.2/covers/2/comments/", 404, NULL));
}

/* The mails of a t.mbox.gz answer: how many, and whether one is a
 * mail of contribution 1's first version (a Message-ID of "1000-"). */
static size_t
mbox_mails(const struct web_resp *rs, bool *v1)
{
	static unsigned char out[1 << 17];
	size_t k, n, mails = 0;
	z_stream z;

	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)rs->body.p;
	z.avail_in = (uInt)rs->body.n;
	z.next_out = out;
	z.avail_out = (uInt)sizeof(out) - 1;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	n = z.total_out;
	inflateEnd(&z);
	out[n] = '\0';
	for (k = 0; k + 14 <= n; k++)
		if ((k == 0 || out[k - 1] == '\n') &&
		    memcmp(out + k, "From mboxrd@z ", 14) == 0)
			mails++;
	*v1 = strstr((char *)out, "Message-ID: <20261103100000.1000-") != NULL;
	return mails;
}

/*
 * A thread larger than the server sends at once (WEB_MAX_THREAD, here
 * lowered) is the series of the mail asked for, its version and the
 * replies to it, when that is within the bound: what b4 am needs.  A
 * series larger still is refused with a 403 that says why, never cut.
 */
static void
test_inbox_bound(void **state)
{
	const char *url = "/m/20261105090000.2000-2-ada@example.org/t.mbox.gz";
	struct web_resp rs;
	uint64_t bound = web->max_thread, whole, series;
	int64_t *rows;
	size_t all, n;
	bool v1;

	(void)state;
	/* Contribution 1 and its v2, series 2 (patch 5's). */
	assert_int_equal(
	    store_pw_thread(w.st, 1, 0, &rows, &all, &whole), ERR_OK);
	free(rows);
	assert_int_equal(
	    store_pw_thread(w.st, 1, 2, &rows, &n, &series), ERR_OK);
	free(rows);
	assert_true(n >= 4 && n < all && series < whole);
	req(&rs, "GET", url, NULL, NULL, NULL);
	assert_int_equal(rs.status, 200);
	assert_int_equal(mbox_mails(&rs, &v1), all);
	assert_true(v1);
	web_resp_free(&rs);
	/* The whole thread a byte over: the mails of v2. */
	web->max_thread = whole - 1;
	req(&rs, "GET", url, NULL, NULL, NULL);
	assert_int_equal(rs.status, 200);
	assert_string_equal(rs.type, "application/gzip");
	assert_int_equal(mbox_mails(&rs, &v1), n);
	assert_false(v1);
	web_resp_free(&rs);
	web->max_thread = series;
	req(&rs, "GET", url, NULL, NULL, NULL);
	assert_int_equal(rs.status, 200);
	web_resp_free(&rs);
	/* The series a byte over too: refused, and why. */
	web->max_thread = series - 1;
	req(&rs, "GET", url, NULL, NULL, NULL);
	assert_int_equal(rs.status, 403);
	assert_non_null(strstr(buf_cstr(&rs.body), "Thread too large"));
	web_resp_free(&rs);
	web->max_thread = bound;
}

/* The stored mail and its thread, as public-inbox serves them. */
static void
test_inbox(void **state)
{
	struct web_resp rs;
	struct store_msg m;
	struct arena *a = arena_new();
	const char *raw;
	unsigned char out[1 << 16];
	uLongf n = sizeof(out);
	z_stream z;
	size_t k, len, mails = 0;

	(void)state;
	assert_int_equal(
	    store_msg_find(w.st, a, "r4.mia@frob.example.org", &m), ERR_OK);
	assert_int_equal(store_msg_raw(w.st, a, m.id, &raw, &len), ERR_OK);
	req(&rs, "GET", "/m/<r4.mia@frob.example.org>/raw", NULL, NULL, NULL);
	assert_int_equal(rs.status, 200);
	assert_int_equal(rs.body.n, len);
	assert_memory_equal(rs.body.p, raw, len);
	web_resp_free(&rs);
	req(&rs, "GET", "/c/r4.mia@frob.example.org/raw", NULL, NULL, NULL);
	assert_int_equal(rs.status, 200);
	assert_int_equal(rs.body.n, len);
	web_resp_free(&rs);
	/* The thread: every mail of the contribution, gzip mboxrd. */
	req(&rs, "GET", "/c/20261105090000.2000-2-ada@example.org/t.mbox.gz",
	    NULL, NULL, NULL);
	assert_int_equal(rs.status, 200);
	assert_string_equal(rs.type, "application/gzip");
	assert_true(rs.body.n > 2 && (unsigned char)rs.body.p[0] == 0x1f &&
	    (unsigned char)rs.body.p[1] == 0x8b);
	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)rs.body.p;
	z.avail_in = (uInt)rs.body.n;
	z.next_out = out;
	z.avail_out = (uInt)n - 1;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	n = z.total_out;
	inflateEnd(&z);
	out[n] = '\0';
	for (k = 0; k + 5 <= n; k++)
		if ((k == 0 || out[k - 1] == '\n') &&
		    memcmp(out + k, "From mboxrd@z ", 14) == 0)
			mails++;
	/* Contribution 1: two versions of four mails, five replies. */
	assert_int_equal(mails, 13);
	assert_non_null(strstr((char *)out, "r7.mia@frob.example.org"));
	assert_null(strstr((char *)out, "bob@example.net>\nSubject: [PATCH]"));
	web_resp_free(&rs);
	req(&rs, "HEAD", "/m/20261105090000.2000-2-ada@example.org", NULL, NULL,
	    NULL);
	assert_int_equal(rs.status, 302);
	assert_string_equal(rs.location, "/c/1#patch-5");
	web_resp_free(&rs);
	/* A cover letter lands on itself on the page (issue 45). */
	req(&rs, "GET", "/m/20261105090000.2000-0-ada@example.org/", NULL, NULL,
	    NULL);
	assert_int_equal(rs.status, 302);
	assert_int_equal(strncmp(rs.location, "/c/1#mail-", 10), 0);
	web_resp_free(&rs);
	req(&rs, "GET", "/m/nobody@nowhere/t.mbox.gz", NULL, NULL, NULL);
	assert_int_equal(rs.status, 404);
	web_resp_free(&rs);
	arena_free(a);
}

/* patchwork's pages and downloads. */
static void
test_downloads(void **state)
{
	struct web_resp rs;

	(void)state;
	req(&rs, "GET",
	    "/project/frob/patch/20261107080000.4000-2-carol@example.org/mbox/",
	    NULL, NULL, NULL);
	assert_int_equal(rs.status, 200);
	assert_string_equal(rs.disposition,
	    "attachment; filename=v1-2-2-frob-print-the-count-on-exit.patch");
	assert_non_null(strstr(rs.body.p, "Subject: [PATCH 2/2] frob: print"));
	assert_null(strstr(rs.body.p, "[PATCH 1/2]"));
	web_resp_free(&rs);
	/* git pw patch apply asks for the patches before it too. */
	req(&rs, "GET",
	    "/project/frob/patch/20261107080000.4000-2-carol@example.org/mbox/"
	    "?series=*",
	    NULL, NULL, NULL);
	assert_int_equal(rs.status, 200);
	assert_non_null(strstr(rs.body.p, "[PATCH 1/2]"));
	assert_true(strstr(rs.body.p, "[PATCH 1/2]") <
	    strstr(rs.body.p, "[PATCH 2/2]"));
	web_resp_free(&rs);
	req(&rs, "GET",
	    "/project/frob/patch/20261107080000.4000-2-carol@example.org/raw/",
	    NULL, NULL, NULL);
	assert_int_equal(rs.status, 200);
	assert_int_equal(strncmp(rs.body.p, "diff --git", 10), 0);
	assert_non_null(rs.disposition);
	web_resp_free(&rs);
	req(&rs, "GET", "/series/2/mbox/", NULL, NULL, NULL);
	assert_int_equal(rs.status, 200);
	assert_non_null(rs.disposition);
	assert_non_null(strstr(rs.body.p, "[PATCH v2 3/3]"));
	/* Threaded as on the list, for b4 am -m. */
	assert_non_null(strstr(rs.body.p, "\nTo: frob@lists.example.org\n"));
	assert_non_null(strstr(rs.body.p,
	    "\nIn-Reply-To: <20261105090000.2000-0-ada@example.org>"));
	web_resp_free(&rs);
	req(&rs, "GET",
	    "/project/frob/cover/20261105090000.2000-0-ada@example.org/mbox/",
	    NULL, NULL, NULL);
	assert_int_equal(rs.status, 200);
	assert_int_equal(strncmp(rs.body.p, "From mboxrd@z ", 14), 0);
	web_resp_free(&rs);
	req(&rs, "GET",
	    "/project/frob/patch/20261107080000.4000-2-carol@example.org/",
	    NULL, NULL, NULL);
	assert_int_equal(rs.status, 302);
	assert_string_equal(rs.location, "/c/3#patch-9");
	web_resp_free(&rs);
	req(&rs, "GET", "/project/frob/list/?series=2", NULL, NULL, NULL);
	assert_int_equal(rs.status, 302);
	assert_string_equal(rs.location, "/c/1");
	web_resp_free(&rs);
	req(&rs, "GET", "/series/99/mbox/", NULL, NULL, NULL);
	assert_int_equal(rs.status, 404);
	web_resp_free(&rs);
	/* The list of a project named in the path: its name a query value
	 * in the Location, percent-encoded. */
	req(&rs, "GET", "/project/frob/list/", NULL, NULL, NULL);
	assert_int_equal(rs.status, 302);
	assert_string_equal(rs.location, "/?project=frob");
	web_resp_free(&rs);
	req(&rs, "GET", "/project/a b\"&state=x\r\n#/list/", NULL, NULL, NULL);
	assert_int_equal(rs.status, 302);
	assert_string_equal(
	    rs.location, "/?project=a%20b%22%26state%3Dx%0D%0A%23");
	web_resp_free(&rs);
}

static void
test_form(void **state)
{
	struct arena *a = arena_new();
	struct web_arg *f;
	struct web_check_in in;
	const char *why = NULL;
	size_t n;

	(void)state;
	assert_true(webbody_form(a,
	    "state=warning&context=ci%2Fspell&"
	    "description=two+typos&flag",
	    strlen("state=warning&context=ci%2Fspell&description=two+typos&"
	           "flag"),
	    8, &f, &n, &why));
	assert_int_equal(n, 4);
	assert_string_equal(f[1].value, "ci/spell");
	assert_string_equal(f[2].value, "two typos");
	assert_string_equal(f[3].name, "flag");
	assert_string_equal(f[3].value, "");
	assert_true(webbody_check_form(a, f, 3, 7, &in, &why));
	assert_string_equal(in.state, "warning");
	assert_int_equal(in.patch, 7);
	assert_false(webbody_form(a, "a=%zz", 5, 8, &f, &n, &why));
	assert_false(webbody_form(a, "a=%00", 5, 8, &f, &n, &why));
	assert_false(webbody_form(a, "a=%4", 4, 8, &f, &n, &why));
	assert_false(webbody_form(a, "a&b&c", 5, 2, &f, &n, &why));
	assert_true(
	    webbody_form(a, "state=fail&state=success", 24, 8, &f, &n, &why));
	assert_false(webbody_check_form(a, f, n, 7, &in, &why));
	assert_true(webbody_fields(a,
	    "{\"state\": \"new\", \"archived\": false, "
	    "\"delegate\": null}",
	    strlen("{\"state\": \"new\", \"archived\": false, \"delegate\": "
	           "null}"),
	    8, &f, &n, &why));
	assert_int_equal(n, 3);
	assert_string_equal(f[1].value, "false");
	assert_null(f[2].value);
	assert_false(webbody_fields(a, "[1]", 3, 8, &f, &n, &why));
	assert_false(webbody_fields(a, "{\"a\": [1]}", 10, 8, &f, &n, &why));
	arena_free(a);
}

/* A CI posts a check as patchwork's API takes it, and reads it back. */
static void
test_checks(void **state)
{
	static const char *const fields[] = { "id", "url", "user", "date",
		"state", "target_url", "context", "description", NULL };
	const char *url = "/api/1.2/patches/7/checks/";
	struct web_resp rs;
	json_error_t e;
	json_t *j, *c;

	(void)state;
	req(&rs, "POST", url, "Token sekrit-token", "application/json",
	    "{\"state\": \"success\", \"context\": \"ci-boot\", "
	    "\"target_url\": \"https://ci.example.org/1\", \"description\": "
	    "\"ok\"}");
	assert_int_equal(rs.status, 201);
	j = json_loadb(rs.body.p, rs.body.n, 0, &e);
	has_fields(j, fields);
	assert_string_equal(str_of(j, "context"), "ci-boot");
	assert_string_equal(
	    str_of(json_object_get(j, "user"), "username"), "lab");
	json_decref(j);
	web_resp_free(&rs);
	req(&rs, "POST", url, "Token sekrit-token",
	    "application/x-www-form-urlencoded",
	    "state=warning&context=ci-spell&description=two+typos");
	assert_int_equal(rs.status, 201);
	web_resp_free(&rs);
	req(&rs, "POST", url, "Token wrong", "application/json",
	    "{\"state\": \"fail\", \"context\": \"forged\"}");
	assert_int_equal(rs.status, 403);
	web_resp_free(&rs);
	/* A maintainer's token reports no test results. */
	req(&rs, "POST", url, "Token mia-token", "application/json",
	    "{\"state\": \"fail\", \"context\": \"forged\"}");
	assert_int_equal(rs.status, 403);
	web_resp_free(&rs);
	req(&rs, "POST", url, "Token sekrit-token", "application/json",
	    "{\"state\": \"passed\", \"context\": \"x\"}");
	assert_int_equal(rs.status, 400);
	j = json_loadb(rs.body.p, rs.body.n, 0, &e);
	assert_true(json_is_array(json_object_get(j, "state")));
	json_decref(j);
	web_resp_free(&rs);
	j = get_json(url, 200, NULL);
	assert_int_equal(json_array_size(j), 2);
	c = json_array_get(j, 0);
	has_fields(c, fields);
	assert_string_equal(str_of(c, "state"), "success");
	assert_string_equal(
	    str_of(c, "target_url"), "https://ci.example.org/1");
	assert_string_equal(
	    str_of(json_array_get(j, 1), "description"), "two typos");
	json_decref(j);
	j = get_json("/api/1.2/patches/7/", 200, NULL);
	assert_string_equal(str_of(j, "check"), "warning");
	json_decref(j);
	assert_string_equal(
	    list_ids("/api/1.2/patches/7/checks/?state=warning"), "2");
	assert_string_equal(
	    list_ids("/api/1.2/patches/7/checks/?state=fail"), "");
	j = get_json("/api/1.2/patches/7/checks/?context=ci-spell", 200, NULL);
	assert_int_equal(json_array_size(j), 1);
	json_decref(j);
	/* Each check's event, newest first, names it (read by its key). */
	j = get_json("/api/1.2/events/?category=check-created", 200, NULL);
	assert_int_equal(json_array_size(j), 2);
	c = json_object_get(
	    json_object_get(json_array_get(j, 0), "payload"), "check");
	assert_int_equal(int_of(c, "id"), 2);
	assert_string_equal(str_of(c, "context"), "ci-spell");
	assert_string_equal(
	    str_of(c, "url"), "http://yard.test/api/1.2/patches/7/checks/2/");
	c = json_object_get(
	    json_object_get(json_array_get(j, 1), "payload"), "check");
	assert_int_equal(int_of(c, "id"), 1);
	assert_string_equal(str_of(c, "state"), "success");
	json_decref(j);
}

/* PATCH patches/ID/: the state as the maintainer's mail would set it. */
static void
test_update(void **state)
{
	struct web_resp rs;
	json_error_t e;
	json_t *j;

	(void)state;
	req(&rs, "PATCH", "/api/1.2/patches/7/", "Token sekrit-token",
	    "application/x-www-form-urlencoded", "state=under-review");
	assert_int_equal(rs.status, 403);
	web_resp_free(&rs);
	req(&rs, "PATCH", "/api/1.2/patches/7/", NULL,
	    "application/x-www-form-urlencoded", "state=under-review");
	assert_int_equal(rs.status, 403);
	web_resp_free(&rs);
	req(&rs, "PATCH", "/api/1.2/patches/7/", "Token mia-token",
	    "application/x-www-form-urlencoded", "state=deferred");
	assert_int_equal(rs.status, 400);
	j = json_loadb(rs.body.p, rs.body.n, 0, &e);
	assert_true(json_is_array(json_object_get(j, "state")));
	json_decref(j);
	web_resp_free(&rs);
	req(&rs, "PATCH", "/api/1.2/patches/7/", "Token mia-token",
	    "application/json", "{\"state\": \"accepted\"}");
	assert_int_equal(rs.status, 400);
	web_resp_free(&rs);
	req(&rs, "PATCH", "/api/1.2/patches/7/", "Token mia-token",
	    "application/json", "{\"commit_ref\": \"abc\"}");
	assert_int_equal(rs.status, 400);
	web_resp_free(&rs);
	/* git pw patch update --state under-review: #yard stage. */
	req(&rs, "PATCH", "/api/1.2/patches/7/", "Token mia-token",
	    "application/x-www-form-urlencoded", "state=under-review");
	assert_int_equal(rs.status, 200);
	j = json_loadb(rs.body.p, rs.body.n, 0, &e);
	assert_string_equal(str_of(j, "state"), "under-review");
	has_fields(j, detail_fields);
	json_decref(j);
	web_resp_free(&rs);
	req(&rs, "PATCH", "/api/1.2/patches/7/", "Token mia-token",
	    "application/json",
	    "{\"state\": \"accepted\", \"archived\": false}");
	assert_int_equal(rs.status, 200);
	web_resp_free(&rs);
	j = get_json("/api/1.2/patches/7/", 200, NULL);
	assert_string_equal(str_of(j, "state"), "accepted");
	json_decref(j);
	/* rejected on a staged patch: #yard drop nacked. */
	req(&rs, "PUT", "/api/1.2/patches/7/", "Token mia-token",
	    "application/json", "{\"state\": \"rejected\"}");
	assert_int_equal(rs.status, 200);
	web_resp_free(&rs);
	assert_string_equal(
	    list_ids("/api/1.2/patches/?state=rejected&project=frob"), "7");
	/* A dropped patch is not staged again this way. */
	req(&rs, "PATCH", "/api/1.2/patches/7/", "Token mia-token",
	    "application/json", "{\"state\": \"under-review\"}");
	assert_int_equal(rs.status, 400);
	web_resp_free(&rs);
	/* changes-requested on a new patch: #yard state changes-requested. */
	req(&rs, "PATCH", "/api/1.2/patches/8/", "Token mia-token", NULL,
	    "{\"state\": \"changes-requested\"}");
	assert_int_equal(rs.status, 200);
	web_resp_free(&rs);
	j = get_json(
	    "/api/1.2/events/?category=patch-state-changed&patch=7", 200, NULL);
	assert_int_equal(json_array_size(j), 3);
	assert_string_equal(
	    str_of(json_object_get(json_array_get(j, 0), "payload"),
	        "current_state"),
	    "rejected");
	assert_string_equal(
	    str_of(json_object_get(json_array_get(j, 0), "payload"),
	        "previous_state"),
	    "accepted");
	json_decref(j);
	req(&rs, "DELETE", "/api/1.2/patches/8/", "Token mia-token", NULL,
	    NULL);
	assert_int_equal(rs.status, 405);
	web_resp_free(&rs);
	req(&rs, "PATCH", "/api/1.2/series/2/", "Token mia-token", NULL, "{}");
	assert_int_equal(rs.status, 405);
	web_resp_free(&rs);
}

/*
 * A comment's headers as patchwork has them: one key per name, at its
 * first field, whatever the case of the others, with the list of its
 * values when given more than once, each unfolded; hundreds of fields
 * of many names, as long mails carry.
 */
static void
test_headers(void **state)
{
	static const char *const first[] = { "From", "To", "Received",
		"Subject", "X-Tag", "X-Folded" };
	static const char *const last[] = { "Date", "Message-ID", "In-Reply-To",
		"References" };
	struct buf raw = BUF_INIT;
	const char *key;
	struct web_resp rs;
	json_t *j, *c = NULL, *h, *v;
	json_error_t e;
	size_t i, pos = 0;

	(void)state;
	buf_adds(&raw,
	    "From: Tom <tom@example.com>\n"
	    "To: frob@lists.example.org\n"
	    "Received: from a\n"
	    "Subject: Re: [PATCH v2 3/3] frob: drop the old lookup helper\n"
	    "X-Tag: one\n"
	    "received: from b\n"
	    "X-Folded: first\n  second\n");
	for (i = 0; i < 400; i++)
		buf_addf(&raw, "X-Field-%zu: value %zu\n", i, i);
	buf_adds(&raw,
	    "RECEIVED: from c\n"
	    "x-tag: two\n"
	    "Date: Thu, 05 Nov 2026 12:00:00 +0000\n"
	    "Message-ID: <hdr.tom@example.com>\n"
	    "In-Reply-To: <20261105090000.2000-3-ada@example.org>\n"
	    "References: <20261105090000.2000-3-ada@example.org>\n"
	    "\n"
	    "Looks fine.\n");
	webtest_ingest(&w, "frob", buf_cstr(&raw));
	req(&rs, "GET", "/api/1.2/patches/6/comments/?per_page=250", NULL, NULL,
	    NULL);
	assert_int_equal(rs.status, 200);
	j = json_loadb(rs.body.p, rs.body.n, 0, &e);
	assert_non_null(j);
	for (i = 0; i < json_array_size(j); i++)
		if (strcmp(str_of(json_array_get(j, i), "msgid"),
		        "<hdr.tom@example.com>") == 0)
			c = json_array_get(j, i);
	assert_non_null(c);
	h = json_object_get(c, "headers");
	/* From, To, Received, Subject, X-Tag, X-Folded, the 400, Date,
	 * Message-ID, In-Reply-To, References. */
	assert_int_equal(json_object_size(h), 6 + 400 + 4);
	v = json_object_get(h, "Received");
	assert_int_equal(json_array_size(v), 3);
	assert_string_equal(json_string_value(json_array_get(v, 0)), "from a");
	assert_string_equal(json_string_value(json_array_get(v, 1)), "from b");
	assert_string_equal(json_string_value(json_array_get(v, 2)), "from c");
	assert_null(json_object_get(h, "received"));
	v = json_object_get(h, "X-Tag");
	assert_int_equal(json_array_size(v), 2);
	assert_string_equal(json_string_value(json_array_get(v, 1)), "two");
	assert_string_equal(str_of(h, "X-Folded"), "first second");
	assert_string_equal(str_of(h, "X-Field-399"), "value 399");
	assert_string_equal(str_of(h, "Subject"),
	    "Re: [PATCH v2 3/3] frob: drop the old lookup helper");
	/* In the order of their first fields, as the mail has them
	 * (jansson keeps the order of an object's keys). */
	json_object_foreach(h, key, v)
	{
		char want[32];

		if (pos < 6)
			snprintf(want, sizeof(want), "%s", first[pos]);
		else if (pos < 406)
			snprintf(want, sizeof(want), "X-Field-%zu", pos - 6);
		else
			snprintf(want, sizeof(want), "%s", last[pos - 406]);
		assert_string_equal(key, want);
		pos++;
	}
	assert_int_equal(pos, 410);
	json_decref(j);
	web_resp_free(&rs);
	buf_free(&raw);
}

/*
 * A reply over a limit (here trailers: stored whole, marked, never
 * parsed further) is a mail of its thread: t.mbox.gz holds it.
 */
static void
test_inbox_overlimit(void **state)
{
	const char *url = "/m/20261105090000.2000-2-ada@example.org/t.mbox.gz";
	struct buf raw = BUF_INIT;
	struct web_resp rs;
	struct store_msg m;
	struct arena *a = arena_new();
	size_t before, i;
	bool v1;

	(void)state;
	req(&rs, "GET", url, NULL, NULL, NULL);
	before = mbox_mails(&rs, &v1);
	web_resp_free(&rs);
	buf_adds(&raw,
	    "From: Tom <tom@example.com>\n"
	    "To: frob@lists.example.org\n"
	    "Subject: Re: [PATCH v2 3/3] frob: drop the old lookup helper\n"
	    "Date: Thu, 05 Nov 2026 13:00:00 +0000\n"
	    "Message-ID: <many.tom@example.com>\n"
	    "In-Reply-To: <20261105090000.2000-3-ada@example.org>\n"
	    "References: <20261105090000.2000-3-ada@example.org>\n\n"
	    "Everyone agrees.\n\n");
	for (i = 0; i < LIMIT_TRAILERS + 10; i++)
		buf_addf(
		    &raw, "Acked-by: Person %zu <p%zu@example.org>\n", i, i);
	webtest_ingest(&w, "frob", buf_cstr(&raw));
	assert_int_equal(
	    store_msg_find(w.st, a, "many.tom@example.com", &m), ERR_OK);
	assert_true(m.flags & MAIL_F_OVERLIMIT);
	req(&rs, "GET", url, NULL, NULL, NULL);
	assert_int_equal(rs.status, 200);
	assert_int_equal(mbox_mails(&rs, &v1), before + 1);
	web_resp_free(&rs);
	buf_free(&raw);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_map),
		cmocka_unit_test(test_command_map),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_patch_shape),
		cmocka_unit_test(test_patch_filters),
		cmocka_unit_test(test_series_shape),
		cmocka_unit_test(test_comments_people),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_events_pages),
		cmocka_unit_test(test_event_payloads),
		cmocka_unit_test(test_inbox),
		cmocka_unit_test(test_inbox_bound),
		cmocka_unit_test(test_downloads),
		cmocka_unit_test(test_form),
		/* These two write: last. */
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_update),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_inbox_overlimit),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
