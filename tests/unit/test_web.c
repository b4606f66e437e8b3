/*
 * Unit tests of bot/web/: the router without sockets (what serve and
 * publish share), the static site's relative links, the request body
 * parser behind the jansson wall.  tests/integration/web.py drives the
 * real server.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <zlib.h>

#include "bot/web/webcache.h"
#include "bot/web/webmail.h"
#include "bot/web/webmemo.h"
#include "bot/web/webpriv.h"
#include "storage/store_outbox.h"
#include "util/timeutil.h"
#include "util/xalloc.h"
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

static const char *query_page;

static const char *
arg(void *cls, const char *name)
{
	(void)cls;
	return strcmp(name, "page") == 0 ? query_page : NULL;
}

/* Answer method path (statically when root is not "/"). */
static void
req(struct web_resp *rs, const char *method, const char *path, const char *root,
    const char *auth, const char *body)
{
	struct web_req rq;

	memset(&rq, 0, sizeof(rq));
	rq.method = method;
	rq.path = path;
	rq.arg = arg;
	rq.root = root;
	rq.static_site = strcmp(root, "/") != 0;
	rq.authorization = auth;
	rq.body = body;
	rq.body_len = body ? strlen(body) : 0;
	rq.now = time_now();
	web_handle(web, w.st, &rq, rs);
}

static int
status(const char *method, const char *path)
{
	struct web_resp rs;
	int s;

	req(&rs, method, path, "/", NULL, NULL);
	s = rs.status;
	web_resp_free(&rs);
	return s;
}

static void
test_routes(void **state)
{
	(void)state;
	assert_int_equal(status("GET", "/"), 200);
	assert_int_equal(status("HEAD", "/"), 200);
	assert_int_equal(status("GET", "/c/1"), 200);
	assert_int_equal(status("GET", "/c/1/"), 200);
	assert_int_equal(status("GET", "/c/1/mbox"), 200);
	assert_int_equal(status("GET", "/c/1/v1/mbox"), 200);
	assert_int_equal(status("GET", "/c/1/v2/mbox"), 200);
	assert_int_equal(status("GET", "/c/1/v3/mbox"), 404);
	assert_int_equal(status("GET", "/c/1/v2/mboxx"), 404);
	assert_int_equal(status("GET", "/c/1/feed.atom"), 200);
	assert_int_equal(status("GET", "/feed.atom"), 200);
	assert_int_equal(status("GET", "/style.css"), 200);
	assert_int_equal(status("GET", "/c/99"), 404);
	assert_int_equal(status("GET", "/c/01"), 404);
	assert_int_equal(status("GET", "/c/1x"), 404);
	assert_int_equal(status("GET", "/c/"), 404);
	assert_int_equal(status("GET", "/c/1234567890123456789"), 404);
	assert_int_equal(status("GET", "/nothing"), 404);
	assert_int_equal(status("GET", "/api/contributions"), 200);
	assert_int_equal(status("GET", "/api/contributions/1"), 200);
	assert_int_equal(status("GET", "/api/contributions/9"), 404);
	assert_int_equal(status("GET", "/api/patches/1"), 200);
	assert_int_equal(status("GET", "/api/patches/1/checks"), 200);
	assert_int_equal(status("GET", "/api/events"), 200);
	assert_int_equal(status("GET", "/api/nothing"), 404);
	assert_int_equal(status("GET", "/api/checks"), 405);
	assert_int_equal(status("PUT", "/"), 405);
	assert_int_equal(status("POST", "/"), 405);
	assert_int_equal(status("POST", "/api/checks"), 403);
}

static void
test_msgid_redirect(void **state)
{
	struct web_resp rs;

	(void)state;
	req(&rs, "GET", "/m/<20261105090000.2000-2-ada@example.org>", "/", NULL,
	    NULL);
	assert_int_equal(rs.status, 302);
	assert_non_null(rs.location);
	assert_int_equal(strncmp(rs.location, "/c/1#patch-", 11), 0);
	web_resp_free(&rs);
	req(&rs, "GET", "/m/ 20261105090000.2000-0-ada@example.org ", "/", NULL,
	    NULL);
	assert_int_equal(rs.status, 302);
	assert_int_equal(strncmp(rs.location, "/c/1#mail-", 10), 0);
	web_resp_free(&rs);
	/* A reply lands on itself. */
	req(&rs, "GET", "/m/r4.mia@frob.example.org", "/", NULL, NULL);
	assert_int_equal(rs.status, 302);
	assert_int_equal(strncmp(rs.location, "/c/1#mail-", 10), 0);
	web_resp_free(&rs);
	assert_int_equal(status("GET", "/m/nobody@nowhere"), 404);
	assert_int_equal(status("GET", "/m/<\"x\"@y>"), 404);
	assert_int_equal(status("GET", "/m/"), 404);
}

static void
test_limits(void **state)
{
	char *path = malloc(WEB_MAX_URL + 2);

	(void)state;
	memset(path, 'x', WEB_MAX_URL + 1);
	path[0] = '/';
	path[WEB_MAX_URL + 1] = '\0';
	assert_int_equal(status("GET", path), 414);
	free(path);
}

/* A request's body is delimited one way only: the readings a proxy and
 * the server could disagree on are refused (request smuggling). */
static void
test_framing(void **state)
{
	static const struct web_hdr
	    one_cl[] = { { "Content-Length", "12" } },
	    same_cl[] = { { "Content-Length", "12" },
		    { "content-length", "12" } },
	    two_cl[] = { { "Content-Length", "12" }, { "Host", "x" },
		    { "CONTENT-LENGTH", "5" } },
	    cl_te[] = { { "Content-Length", "5" },
		    { "Transfer-Encoding", "chunked" } },
	    te_cl[] = { { "transfer-encoding", "chunked" },
		    { "Content-Length", "5" } },
	    te[] = { { "Transfer-Encoding", "Chunked" } },
	    two_te[] = { { "Transfer-Encoding", "chunked" },
		    { "Transfer-Encoding", "chunked" } },
	    gzip[] = { { "Transfer-Encoding", "gzip, chunked" } };
	const char *why = NULL;

	(void)state;
	assert_int_equal(web_framing(NULL, 0, &why), 0);
	assert_int_equal(web_framing(one_cl, 1, &why), 0);
	assert_int_equal(web_framing(same_cl, 2, &why), 0);
	assert_int_equal(web_framing(te, 1, &why), 0);
	assert_null(why);
	assert_int_equal(web_framing(two_cl, 3, &why), 400);
	assert_string_equal(why, "two Content-Length values");
	assert_int_equal(web_framing(cl_te, 2, &why), 400);
	assert_int_equal(web_framing(te_cl, 2, &why), 400);
	assert_string_equal(why, "both Content-Length and Transfer-Encoding");
	assert_int_equal(web_framing(two_te, 2, &why), 400);
	assert_int_equal(web_framing(gzip, 1, &why), 501);
}

/* A NUL in a request target, raw or percent-encoded. */
static void
test_uri_nul(void **state)
{
	(void)state;
	assert_false(web_uri_nul("/m/a%40b", 8));
	assert_false(web_uri_nul("/m/%0", 5));
	assert_false(web_uri_nul("/c/100?page=2", 13));
	assert_true(web_uri_nul("/m/a%00b", 8));
	assert_true(web_uri_nul("/?q=%00", 7));
	assert_true(web_uri_nul("/c/1\0/x", 7));
}

/* libmicrohttpd's messages name the request's target, percent-decoded:
 * its control characters reach the log escaped, the message's own line
 * break dropped. */
static void
test_mhd_text(void **state)
{
	char q[128];

	(void)state;
	assert_string_equal(web_mhd_text(q, sizeof(q),
	                        "Failed to send data in request for "
	                        "/x\r\x1b[2J\nweb: forged.\n"),
	    "Failed to send data in request for "
	    "/x\\x0d\\x1b[2J\\x0aweb: forged.");
	assert_string_equal(
	    web_mhd_text(q, sizeof(q), "select failed: EINTR\n"),
	    "select failed: EINTR");
	assert_string_equal(web_mhd_text(q, sizeof(q), ""), "");
}

/* Static pages: every local link relative to the page, dates absolute. */
static void
test_static_links(void **state)
{
	struct web_resp rs;

	(void)state;
	req(&rs, "GET", "/c/2", "../../", NULL, NULL);
	assert_int_equal(rs.status, 200);
	assert_non_null(strstr(buf_cstr(&rs.body), "href=\"../../style.css\""));
	assert_non_null(strstr(buf_cstr(&rs.body), "href=\"../../c/2/mbox\""));
	assert_non_null(strstr(
	    buf_cstr(&rs.body), "href=\"../../api/contributions/2.json\""));
	assert_null(strstr(buf_cstr(&rs.body), "href=\"/"));
	assert_null(strstr(buf_cstr(&rs.body), " ago<"));
	web_resp_free(&rs);
	req(&rs, "GET", "/", "", NULL, NULL);
	assert_non_null(strstr(buf_cstr(&rs.body), "href=\"c/1/\""));
	assert_null(strstr(buf_cstr(&rs.body), "<form"));
	web_resp_free(&rs);
}

static void
test_check_tokens(void **state)
{
	struct web_resp rs;
	const char *ok = "{\"patch\": 1, \"state\": \"success\", \"context\": "
	                 "\"lab/build\"}";

	(void)state;
	req(&rs, "POST", "/api/checks", "/", "Token wrong", ok);
	assert_int_equal(rs.status, 403);
	web_resp_free(&rs);
	req(&rs, "POST", "/api/checks", "/", "Bearer sekrit-token", ok);
	assert_int_equal(rs.status, 403);
	web_resp_free(&rs);
	req(&rs, "POST", "/api/checks", "/", "Token sekrit-token ", ok);
	assert_int_equal(rs.status, 201);
	assert_non_null(strstr(buf_cstr(&rs.body), "\"reporter\":\"lab\""));
	web_resp_free(&rs);
	req(&rs, "POST", "/api/checks", "/", "Token sekrit-token", "[]");
	assert_int_equal(rs.status, 400);
	web_resp_free(&rs);
}

static bool
body(const char *json, struct web_check_in *in)
{
	static struct arena *a;
	const char *why = NULL;

	arena_free(a);
	a = arena_new();
	return webbody_check(a, json, strlen(json), 0, in, &why);
}

static void
test_body(void **state)
{
	struct web_check_in in;

	(void)state;
	assert_true(body("{\"patch\": \"<a@b>\", \"state\": \"fail\", "
	                 "\"context\": \"x\", \"target_url\": "
	                 "\"https://ci/1\", \"description\": \"d\"}",
	    &in));
	assert_string_equal(in.msgid, "<a@b>");
	assert_string_equal(in.state, "fail");
	assert_string_equal(in.url, "https://ci/1");
	assert_string_equal(in.description, "d");
	assert_true(body("{\"patch\": 7, \"state\": \"pending\", \"context\": "
	                 "\"x\", \"target_url\": null}",
	    &in));
	assert_int_equal(in.patch, 7);
	assert_null(in.url);
	assert_false(body("", &in));
	assert_false(body("{\"patch\": 7, \"state\": \"passed\", \"context\": "
	                  "\"x\"}",
	    &in));
	assert_false(body("{\"patch\": 7, \"state\": \"fail\"}", &in));
	assert_false(body("{\"patch\": 7, \"state\": \"fail\", \"context\": "
	                  "\"two words\"}",
	    &in));
	assert_false(body("{\"patch\": -1, \"state\": \"fail\", \"context\": "
	                  "\"x\"}",
	    &in));
	assert_false(body("{\"patch\": 7, \"state\": \"fail\", \"context\": "
	                  "\"x\", \"target_url\": \"javascript:1\"}",
	    &in));
	assert_false(body("{\"patch\": 7, \"state\": \"fail\", \"context\": "
	                  "\"x\", \"description\": \"a\\nb\"}",
	    &in));
	assert_false(body("{\"patch\": 7, \"patch\": 8, \"state\": \"fail\", "
	                  "\"context\": \"x\"}",
	    &in));
	assert_false(body("{\"patch\": 7, \"state\": \"fail\", \"context\": "
	                  "\"a\\u0000b\"}",
	    &in));
}

static const char *
page(const char *path)
{
	static struct web_resp rs;

	web_resp_free(&rs);
	req(&rs, "GET", path, "/", NULL, NULL);
	assert_int_equal(rs.status, 200);
	return buf_cstr(&rs.body);
}

#define HAS(page, s)                                                           \
	do {                                                                   \
		if (strstr(page, s) == NULL)                                   \
			fail_msg("the page lacks %s", s);                      \
	} while (0)

/* The contribution page: per version the cover letter, the commit
 * messages, diffstats and diffs, the replies under what they answer,
 * each with its anchor; reviews marked; the timeline in order. */
static void
test_contrib_page(void **state)
{
	const char *p, *cover, *r1, *r2, *r3, *v1, *v2;

	(void)state;
	p = page("/c/1");
	/* The cover letter and the mails answering it, once each. */
	HAS(p, "Cover letter from <bdi>Ada Lovelace</bdi>");
	HAS(p, "Nice work.");
	HAS(p,
	    "<details class=\"quote\"><summary>1 quoted line</summary>"
	    "<pre class=\"text\">&gt; Widget lookups were linear</pre>");
	HAS(p, "<details class=\"sig\"><summary>signature</summary>");
	HAS(p, "Works on my frobnicator.");
	HAS(p, "Oops, this breaks the old API users.");
	/* Commit messages, diffstats as git prints them, diffs. */
	HAS(p,
	    "<pre class=\"stat\"> src/cache.c | 2 +-\n 1 file changed, 1 "
	    "insertion(+), 1 deletion(-)</pre>");
	HAS(p, "<details class=\"diff\">");
	HAS(p, "<span class=\"d-hunk\">@@ ");
	HAS(p, "<span class=\"d-add\">+");
	/* v2 comes first; under v1 the cover, its reply, then patch 2 and
	 * Tom's reply to it. */
	v2 = strstr(p, "id=\"v2\"");
	v1 = strstr(p, "id=\"v1\"");
	assert_true(v2 && v1 && v2 < v1);
	cover = strstr(v1, "Cover letter from");
	r1 = strstr(v1, "Nice work.");
	r2 = strstr(v1, "Works on my frobnicator.");
	r3 = strstr(v1, "Oops, this breaks");
	assert_true(cover && r1 && r2 && r3);
	assert_true(cover < r1 && r1 < r2 && r2 < r3);
	assert_true(
	    strstr(v1, "widget: look widgets up through the cache") < r2);
	/* Replies carry their anchor, author, date and links. */
	HAS(p, "class=\"msg reply depth-1\" id=\"mail-");
	HAS(p, "<bdi>Tom Tester</bdi> &lt;<bdi>tom@example.com</bdi>&gt;");
	HAS(p, ">2026-11-03 13:00</time>");
	HAS(p, "href=\"https://lists.example.org/frob/r2.tom@example.com/\"");
	HAS(p, "href=\"/m/r2.tom%40example.com/raw\"");
	/* A review someone else sent for Bob: marked so, in the reply and
	 * in the patch's list. */
	HAS(p,
	    "Reviewed-by: <bdi>Bob Builder &lt;bob@example.net&gt;</bdi> "
	    "<span class=\"mark mark-theirs\"");
	/* Own Signed-off-by lines are the commit message's, not listed. */
	assert_null(strstr(p, "<li>Signed-off-by:"));
	/* The timeline, oldest first, with versions. */
	HAS(p,
	    "<span class=\"ver\">v1</span> <span class=\"kind "
	    "kind-posted\">posted</span>");
	assert_true(strstr(p, "kind-posted") < strstr(p, "kind-staged"));
	HAS(p, "title=\"the worst latest result of each context\"");
}

static void
test_helpers(void **state)
{
	struct arena *a = arena_new();
	const char *s;

	(void)state;
	assert_string_equal(web_clip(a, "short", 10), "short");
	assert_string_equal(web_clip(a, "abcdef", 3), "abc\xe2\x80\xa6");
	/* Characters, not bytes; never half of one. */
	s = web_clip(a, "\xc3\xa9\xc3\xa9\xc3\xa9", 2);
	assert_string_equal(s, "\xc3\xa9\xc3\xa9\xe2\x80\xa6");
	assert_true(web_accepts_gzip("gzip, deflate, br"));
	assert_true(web_accepts_gzip("deflate, GZIP;q=0.5"));
	assert_true(web_accepts_gzip("*"));
	assert_false(web_accepts_gzip("gzip;q=0"));
	assert_false(web_accepts_gzip("gzip; q=0.000, br"));
	assert_false(web_accepts_gzip("deflate, br, xgzip"));
	assert_false(web_accepts_gzip(""));
	assert_false(web_accepts_gzip(NULL));
	assert_true(webcache_etag_match("\"abc\"", "abc"));
	assert_true(webcache_etag_match("W/\"x\", \"abc-gz\"", "abc"));
	assert_true(webcache_etag_match("*", "abc"));
	assert_false(webcache_etag_match("\"abcd\"", "abc"));
	assert_false(webcache_etag_match("\"ab\"", "abc"));
	assert_false(webcache_etag_match("abc", "abc"));
	assert_false(webcache_etag_match(NULL, "abc"));
	arena_free(a);
}

static void
test_blocks(void **state)
{
	struct webmail_block b[8];
	size_t n, cut;
	const char *text = "On Mon, Bob wrote:\n> one\n>\n> two\n\n> three\n\n"
	                   "My answer.\n\nSecond paragraph.\n\n-- \nBob\n";

	(void)state;
	n = webmail_blocks(str_from(text), b, 8, &cut);
	assert_int_equal(n, 4);
	assert_int_equal(cut, 0);
	assert_int_equal(b[0].kind, WEBMAIL_TEXT);
	assert_true(str_eqs(b[0].text, "On Mon, Bob wrote:"));
	assert_int_equal(b[1].kind, WEBMAIL_QUOTE);
	assert_true(str_eqs(b[1].text, "> one\n>\n> two\n\n> three"));
	assert_int_equal(b[1].lines, 5);
	assert_int_equal(b[2].kind, WEBMAIL_TEXT);
	assert_true(str_eqs(b[2].text, "My answer.\n\nSecond paragraph."));
	assert_int_equal(b[3].kind, WEBMAIL_SIG);
	assert_true(str_eqs(b[3].text, "-- \nBob"));
	/* Out of blocks: the rest as written. */
	n = webmail_blocks(str_from(text), b, 2, &cut);
	assert_int_equal(n, 2);
	assert_int_equal(b[1].kind, WEBMAIL_TEXT);
	assert_true(str_startswith(b[1].text, "> one"));
	assert_true(str_endswith(b[1].text, "Bob"));
	n = webmail_blocks(str_from("\n\n"), b, 8, &cut);
	assert_int_equal(n, 0);
}

static void
test_diff_lines(void **state)
{
	const char *d = "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n"
	                "+++ b/x\n@@ -1,2 +1,2 @@\n a\n--- not a header\n"
	                "+++ nor this\n\\ No newline at end of file\n"
	                "diff --git a/y b/y\n@@ -1 +1 @@\n-y\n+z\n";
	enum webmail_line want[] = { WEBMAIL_FILE, WEBMAIL_FILE, WEBMAIL_FILE,
		WEBMAIL_FILE, WEBMAIL_HUNK, WEBMAIL_CTX, WEBMAIL_DEL,
		WEBMAIL_ADD, WEBMAIL_CTX, WEBMAIL_FILE, WEBMAIL_HUNK,
		WEBMAIL_DEL, WEBMAIL_ADD };
	struct webmail_diffpos at = { 0, 0 };
	struct str rest = str_from(d), line;
	size_t i = 0;

	(void)state;
	while (str_nextline(&rest, &line)) {
		assert_true(i < sizeof(want) / sizeof(want[0]));
		if (webmail_diff_line(line, &at) != want[i])
			fail_msg("line %zu: %.*s", i, (int)line.n, line.p);
		i++;
	}
	assert_int_equal(i, sizeof(want) / sizeof(want[0]));
}

/* A hunk header's numbers are read within its line: not from the line
 * after it, nor past the end of a line that ends its buffer. */
static void
test_diff_line_bounds(void **state)
{
	const char *d = "@@ -\n+1,5 +1,5\n-x\n--- a/y\n";
	enum webmail_line want[] = { WEBMAIL_HUNK, WEBMAIL_ADD, WEBMAIL_DEL,
		WEBMAIL_FILE };
	struct webmail_diffpos at = { 0, 0 };
	struct str rest = str_from(d), line;
	char *own = xmalloc(7);
	size_t i = 0;

	(void)state;
	while (str_nextline(&rest, &line)) {
		assert_true(i < sizeof(want) / sizeof(want[0]));
		if (webmail_diff_line(line, &at) != want[i])
			fail_msg("line %zu: %.*s", i, (int)line.n, line.p);
		i++;
	}
	assert_int_equal(i, sizeof(want) / sizeof(want[0]));
	/* Exactly the line's bytes, no NUL after them. */
	memcpy(own, "@@ -1,2", 7);
	memset(&at, 0, sizeof(at));
	assert_int_equal(
	    webmail_diff_line(str_make(own, 7), &at), WEBMAIL_HUNK);
	assert_int_equal(at.old_left, 2);
	assert_int_equal(at.new_left, 1);
	memcpy(own, "@@ -12 ", 7);
	memset(&at, 0, sizeof(at));
	assert_int_equal(
	    webmail_diff_line(str_make(own, 6), &at), WEBMAIL_HUNK);
	assert_int_equal(at.old_left, 1);
	free(own);
}

static void
test_memo(void **state)
{
	struct webmemo *m = webmemo_new(8000);
	struct buf b = BUF_INIT;
	char key[16], value[500];
	int i;

	(void)state;
	memset(value, 'v', sizeof(value));
	assert_false(webmemo_get(m, "nothing", &b));
	webmemo_put(m, "empty", "", 0);
	assert_true(webmemo_get(m, "empty", &b));
	assert_int_equal(b.n, 0);
	for (i = 0; i < 40; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		webmemo_put(m, key, value, sizeof(value));
		/* The oldest goes first; one used lately stays. */
		assert_true(webmemo_get(m, "k0", &b));
		buf_reset(&b);
	}
	assert_true(webmemo_size(m) <= 8000);
	assert_false(webmemo_get(m, "k1", &b));
	assert_true(webmemo_get(m, "k39", &b));
	assert_int_equal(b.n, sizeof(value));
	/* Too large to keep. */
	webmemo_put(m, "big", value, 1001);
	buf_reset(&b);
	assert_false(webmemo_get(m, "big", &b));
	buf_free(&b);
	webmemo_free(m);
}

/* Answers kept until the database changes; 304 for the client that
 * holds one; gzip for the client that takes it. */
static void
test_cache(void **state)
{
	struct store *stamp, *ro;
	struct webcache *c;
	struct web_resp rs;
	struct web_req rq;
	char etag[64];
	uint64_t g1, g2;

	(void)state;
	assert_int_equal(store_open(w.db, STORE_RO, &stamp), ERR_OK);
	assert_int_equal(store_open(w.db, STORE_RO, &ro), ERR_OK);
	c = webcache_new(stamp, 1 << 20, 60);
	memset(&rq, 0, sizeof(rq));
	rq.method = "GET";
	rq.path = "/c/1";
	rq.arg = arg;
	rq.root = "/";
	rq.now = time_now();
	g1 = webcache_begin(c);
	webcache_handle(c, web, ro, &rq, "/c/1", g1, &rs);
	assert_int_equal(rs.status, 200);
	assert_non_null(rs.etag);
	assert_true(rs.modified > 0 && rs.vary);
	assert_null(rs.encoding);
	snprintf(etag, sizeof(etag), "%s", rs.etag);
	web_resp_free(&rs);
	/* Nothing changed: the same generation, a 304 for the etag. */
	g2 = webcache_begin(c);
	assert_true(g2 == g1);
	rq.if_none_match = etag;
	webcache_handle(c, web, ro, &rq, "/c/1", g2, &rs);
	assert_int_equal(rs.status, 304);
	assert_int_equal(rs.body.n, 0);
	web_resp_free(&rs);
	rq.if_none_match = NULL;
	rq.if_modified_since = "Fri, 01 Jan 2100 00:00:00 GMT";
	webcache_handle(c, web, ro, &rq, "/c/1", g2, &rs);
	assert_int_equal(rs.status, 304);
	web_resp_free(&rs);
	rq.if_modified_since = "Thu, 01 Jan 1970 00:00:00 GMT";
	rq.gzip = true;
	webcache_handle(c, web, ro, &rq, "/c/1", g2, &rs);
	assert_int_equal(rs.status, 200);
	assert_string_equal(rs.encoding, "gzip");
	assert_true(rs.body.n > 10 && (unsigned char)rs.body.p[0] == 0x1f &&
	    (unsigned char)rs.body.p[1] == 0x8b);
	assert_true(strstr(rs.etag, "-gz\"") != NULL);
	web_resp_free(&rs);
	/* Another connection writes: a new generation, a new page. */
	assert_int_equal(store_begin(w.st), ERR_OK);
	assert_int_equal(store_meta_set(w.st, "test-cache", "1"), ERR_OK);
	assert_int_equal(store_commit(w.st), ERR_OK);
	g2 = webcache_begin(c);
	assert_true(g2 > g1);
	assert_int_equal(webcache_begin(c), g2);
	rq.gzip = false;
	rq.if_modified_since = NULL;
	rq.if_none_match = etag;
	webcache_handle(c, web, ro, &rq, "/c/1", g2, &rs);
	/* Built again, the same body: still the client's. */
	assert_int_equal(rs.status, 304);
	web_resp_free(&rs);
	/* Only 200 answers are kept; others pass through. */
	rq.if_none_match = NULL;
	rq.path = "/c/99";
	webcache_handle(c, web, ro, &rq, "/c/99", g2, &rs);
	assert_int_equal(rs.status, 404);
	assert_null(rs.etag);
	web_resp_free(&rs);
	webcache_free(c);
	store_close(ro);
}

#define ANSWER(from, id, extra, body)                                          \
	"From: " from "\nTo: frob@lists.example.org\n"                         \
	"Subject: Re: [PATCH 0/3] speed up widget lookups\n"                   \
	"Message-ID: <" id ">\n"                                               \
	"In-Reply-To: <20261103100000.1000-0-ada@example.org>\n"               \
	"References: <20261103100000.1000-0-ada@example.org>\n"                \
	"Date: Wed, 04 Nov 2026 10:00:00 +0000\n" extra "\n" body "\n"

/* The outbox's record of a mail the bot composed as <msgid>. */
static void
sent_by_bot(const char *msgid)
{
	struct store_outbox o = { 0 };

	o.kind = "staged";
	o.message_id = msgid;
	o.rcpt = "ada@example.org\n";
	o.body = "x";
	o.body_len = 1;
	o.state = "sent";
	assert_int_equal(store_outbox_add(w.st, &o, NULL), ERR_OK);
}

/* "(patchyard)" is the bot's own mail, From its [bot] address, and only
 * that is left out of the timeline: a header anyone can write
 * (X-Patchyard-Event, Auto-Submitted) makes a stranger's mail neither
 * look like the bot's nor vanish; automated mail of others (a CI, a
 * vacation reply) is shown as such, under its sender, in the timeline. */
static void
test_bot_label(void **state)
{
	const char *p;

	(void)state;
	webtest_ingest(&w, "frob",
	    ANSWER("Mallory <mallory@evil.example>", "f1.mallory",
	        "X-Patchyard-Event: staged\n", "Forged: staged by the bot."));
	webtest_ingest(&w, "frob",
	    ANSWER("CI Lab <ci@lab.example.org>", "c1.lab",
	        "Auto-Submitted: auto-generated\n", "Builds on the lab."));
	webtest_ingest(&w, "frob",
	    ANSWER("Patchyard <yard@frob.example.org>", "y1.yard",
	        "Auto-Submitted: auto-replied\nX-Patchyard-Event: staged\n",
	        "Staged for real."));
	/* From the bot's address, but not a mail the bot composed. */
	webtest_ingest(&w, "frob",
	    ANSWER("Yard Bot <yard@frob.example.org>", "f2.mallory",
	        "Auto-Submitted: auto-replied\nX-Patchyard-Event: dropped\n",
	        "Dropped, says a forger."));
	sent_by_bot("y1.yard");
	p = page("/c/1");
	/* Each in the discussion, what follows the address says what it
	 * is: the stranger's says it is automated, and is taken at its
	 * word for no more than that. */
	HAS(p, "&lt;<bdi>mallory@evil.example</bdi>&gt; (automated) ·");
	HAS(p, "&lt;<bdi>ci@lab.example.org</bdi>&gt; (automated) ·");
	HAS(p, "&lt;<bdi>yard@frob.example.org</bdi>&gt; (patchyard) ·");
	HAS(p, "&lt;<bdi>yard@frob.example.org</bdi>&gt; (automated) ·");
	HAS(p, "Dropped, says a forger.");
	HAS(p, "<bdi>Yard Bot</bdi></a> wrote");
	HAS(p, "<bdi>Mallory</bdi></a> wrote");
	HAS(p, "<bdi>CI Lab</bdi></a> wrote");
	assert_null(strstr(p, "<bdi>Patchyard</bdi></a> wrote"));
}

/* The paths the threads of test_cache_shared ask for. */
static const char *const shared_paths[] = { "/c/1", "/c/2", "/",
	"/api/contributions", "/c/3" };
#define NSHARED (sizeof(shared_paths) / sizeof(shared_paths[0]))
#define SHARED_THREADS 4
#define SHARED_ROUNDS 150

struct shared {
	struct webcache *c;
	int64_t now;
	struct buf want[NSHARED]; /* each path's body, built alone */
	atomic_uint next; /* requests asked so far, of every thread */
	atomic_uint bad; /* answers that were not the body built alone */
	atomic_uint gzipped; /* answers in gzip, from the table's copy */
};

/* The gzip body p[0..n) unpacked into out. */
static bool
gunzip(const char *p, size_t n, struct buf *out)
{
	unsigned char chunk[16384];
	z_stream z;
	int rc = Z_OK;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return false;
	z.next_in = (Bytef *)p;
	z.avail_in = (uInt)n;
	while (rc == Z_OK) {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		rc = inflate(&z, Z_NO_FLUSH);
		buf_add(out, (const char *)chunk, sizeof(chunk) - z.avail_out);
	}
	inflateEnd(&z);
	return rc == Z_STREAM_END;
}

static void *
shared_thread(void *arg_)
{
	struct shared *sh = arg_;
	struct store *ro;
	struct buf got = BUF_INIT;
	unsigned k, i;

	if (store_open(w.db, STORE_RO, &ro) != ERR_OK) {
		atomic_fetch_add(&sh->bad, 1);
		return NULL;
	}
	for (i = 0; i < SHARED_ROUNDS; i++) {
		struct web_resp rs;
		struct web_req rq;
		size_t p;

		k = atomic_fetch_add(&sh->next, 1);
		p = k % NSHARED;
		memset(&rq, 0, sizeof(rq));
		rq.method = "GET";
		rq.path = shared_paths[p];
		rq.arg = arg;
		rq.root = "/";
		rq.now = sh->now;
		rq.gzip = k % 3 == 0;
		/* A new generation now and then: pages built again while
		 * others are sent from the table. */
		webcache_handle(
		    sh->c, web, ro, &rq, shared_paths[p], 1 + k / 40, &rs);
		buf_reset(&got);
		if (rs.encoding && !gunzip(rs.body.p, rs.body.n, &got))
			atomic_fetch_add(&sh->bad, 1);
		else if (rs.encoding == NULL)
			buf_add(&got, rs.body.p, rs.body.n);
		if (rs.status != 200 || got.n != sh->want[p].n ||
		    memcmp(got.p, sh->want[p].p, got.n) != 0)
			atomic_fetch_add(&sh->bad, 1);
		if (rs.encoding)
			atomic_fetch_add(&sh->gzipped, 1);
		web_resp_free(&rs);
	}
	buf_free(&got);
	store_close(ro);
	return NULL;
}

/*
 * The table's bodies are shared by the threads that send them (each
 * takes a reference under the lock and copies the bytes after letting
 * go of it): four threads asking for five pages, some with gzip, while
 * new generations replace the answers and a table the size of two pages
 * drops them, each get the very body the page has when built alone.
 * AddressSanitizer (make check's second run) holds the references:
 * a body freed while a thread still copies it, or never freed, fails.
 */
static void
test_cache_shared(void **state)
{
	pthread_t t[SHARED_THREADS];
	struct shared sh;
	struct store *stamp;
	size_t i, most = 0;

	(void)state;
	memset(&sh, 0, sizeof(sh));
	sh.now = time_now();
	for (i = 0; i < NSHARED; i++) {
		struct web_resp rs;
		struct web_req rq;

		memset(&rq, 0, sizeof(rq));
		rq.method = "GET";
		rq.path = shared_paths[i];
		rq.arg = arg;
		rq.root = "/";
		rq.now = sh.now;
		web_handle(web, w.st, &rq, &rs);
		assert_int_equal(rs.status, 200);
		buf_add(&sh.want[i], rs.body.p, rs.body.n);
		if (rs.body.n > most)
			most = rs.body.n;
		web_resp_free(&rs);
	}
	assert_int_equal(store_open(w.db, STORE_RO, &stamp), ERR_OK);
	sh.c = webcache_new(stamp, 2 * most, 60);
	atomic_init(&sh.next, 0);
	atomic_init(&sh.bad, 0);
	atomic_init(&sh.gzipped, 0);
	for (i = 0; i < SHARED_THREADS; i++)
		assert_int_equal(
		    pthread_create(&t[i], NULL, shared_thread, &sh), 0);
	for (i = 0; i < SHARED_THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	assert_int_equal(atomic_load(&sh.bad), 0);
	assert_true(atomic_load(&sh.gzipped) > 0);
	webcache_free(sh.c);
	for (i = 0; i < NSHARED; i++)
		buf_free(&sh.want[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_msgid_redirect),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_framing),
		cmocka_unit_test(test_uri_nul),
		cmocka_unit_test(test_mhd_text),
		cmocka_unit_test(test_static_links),
		cmocka_unit_test(test_check_tokens),
		cmocka_unit_test(test_body),
		cmocka_unit_test(test_contrib_page),
		cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_diff_lines),
		cmocka_unit_test(test_diff_line_bounds),
		cmocka_unit_test(test_memo),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_bot_label),
		cmocka_unit_test(test_cache_shared),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
