/*
 * Unit tests of bot/mailout/template.c: every mail template rendered for a
 * fixture event against its golden file in tests/fixtures/templates/, and the
 * renderer's edge cases.  PATCHYARD_UPDATE_GOLDEN=1 rewrites the golden
 * files (review the diff before committing it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/mailout/template.h"
#include "testutil.h"

#define FIXTURES "tests/fixtures/templates/"

/* ---- golden files ------------------------------------------------------ */

/* The fixture patch every template is rendered for. */
static struct template_data *
fixture_event(void)
{
	struct template_data *d = template_data_new();

	template_data_set(d, "project", "mm");
	template_data_set(d, "list", "linux-mm@kvack.example.org");
	template_data_set(d, "bot", "patchyard@yard.example.org");
	template_data_set(d, "prefix", "#yard");
	template_data_set(d, "url", "https://yard.example.org/c/42");
	template_data_set(d, "subject", "[PATCH v2] mm: fix the frobnicator");
	template_data_set(d, "title", "mm: fix the frobnicator");
	template_data_set(d, "slug", "mm-fix-the-frobnicator.patch");
	template_data_set(d, "author", "Jane Hacker <jane.hacker@example.com>");
	template_data_set(d, "author_name", "Jane Hacker");
	template_data_set(d, "author_email", "jane.hacker@example.com");
	template_data_set(
	    d, "message_id", "20260301120000.4242-1-jane.hacker@example.com");
	template_data_set(d, "version", "2");
	template_data_set(d, "actor", "Andrew Maintainer <akpm@example.org>");
	template_data_set(d, "link",
	    "https://lore.example.org/linux-mm/"
	    "20260301120000.4242-1-jane.hacker@example.com/");
	template_data_set(d, "queue", "unstable");
	template_data_set(d, "staging", "yes");
	return d;
}

static void
add_event_values(struct template_data *d, const char *variant)
{
	struct template_data *c;

	if (strcmp(variant, "updated") == 0) {
		template_data_set(d, "version", "3");
		template_data_set(d, "old_version", "2");
		template_data_set(d, "changes", "the code and the description");
		template_data_set(d, "code_changed", "yes");
		template_data_set(d, "description_changed", "yes");
		template_data_set(d, "interdiff",
		    "--- a/mm/frob.c\n+++ b/mm/frob.c\n"
		    "@@ -10,7 +10,7 @@ static int frob(struct page *page)\n"
		    " \tif (!page)\n-\t\treturn 0;\n+\t\treturn -EINVAL;\n"
		    " \treturn frob_one(page);");
	} else if (strcmp(variant, "updated-unchanged") == 0) {
		/* A v3 that only says v3: same code, message and trailers. */
		template_data_set(d, "version", "3");
		template_data_set(d, "old_version", "2");
		template_data_set(d, "unchanged", "yes");
	} else if (strcmp(variant, "updated-folded") == 0) {
		template_data_set(d, "folded", "mm-frobnicator-fix.patch");
	} else if (strcmp(variant, "staged-nostaging") == 0) {
		/* A project without a staging tree: the mail goes at once. */
		template_data_set(d, "staging", "");
	} else if (strcmp(variant, "graduated") == 0) {
		template_data_set(d, "queue", "stable");
	} else if (strcmp(variant, "graduated-policy") == 0) {
		template_data_set(d, "queue", "stable");
		template_data_set(d, "actor", "");
		template_data_set(
		    d, "policy", "8 days in unstable, tests passed, 2 reviews");
	} else if (strncmp(variant, "tree-conflict", 13) == 0) {
		/* About a tree: no patch. */
		static const char *const patch_names[] = { "url", "subject",
			"title", "slug", "author", "author_name",
			"author_email", "message_id", "version", "actor",
			"link", "queue" };
		size_t i;

		for (i = 0; i < sizeof(patch_names) / sizeof(patch_names[0]);
		     i++)
			template_data_set(d, patch_names[i], "");
		template_data_set(d, "tree", "net-next");
		template_data_set(d, "tree_url",
		    "https://git.example.org/netdev/net-next.git");
		template_data_set(d, "tree_branch", "main");
		template_data_set(d, "commit", "0c1d2e3f4a5b");
		template_data_set(d, "base", "9e8d7c6b5a41");
		template_data_set(d, "owner", "netdev@example.org");
		template_data_set(d, "owner_name", "Net Maintainer");
		if (strcmp(variant, "tree-conflict") == 0) {
			c = template_data_add(d, "files");
			template_data_set(c, "file", "mm/frob.c");
			c = template_data_add(d, "files");
			template_data_set(c, "file", "include/linux/frob.h");
		} else {
			template_data_set(
			    d, "against", "mm-fix-the-frobnicator.patch");
			c = template_data_add(d, "files");
			template_data_set(c, "file", "mm/frob.c");
			template_data_set(
			    d, "subject", "[GIT PULL] net-next for mm");
		}
	} else if (strcmp(variant, "merged") == 0) {
		template_data_set(d, "queue", "stable");
		template_data_set(d, "how", "exact");
		template_data_set(d, "commit", "3f2a1b9c8d7e");
		template_data_set(d, "commit_title", "mm: fix the frobnicator");
		template_data_set(d, "upstream", "master");
	} else if (strcmp(variant, "merged-forwarded") == 0) {
		template_data_set(d, "queue", "stable");
		template_data_set(d, "how", "link");
		template_data_set(d, "commit", "3f2a1b9c8d7e");
		template_data_set(d, "commit_title", "mm: fix the frobnicator");
		template_data_set(d, "upstream", "master");
		template_data_set(d, "forwarded",
		    "<1796280831.0123456789abcdef.forwarded@yard.example.org> "
		    "on 2026-12-03");
	} else if (strcmp(variant, "merged-changed") == 0) {
		template_data_set(d, "queue", "");
		template_data_set(d, "how", "changed");
		template_data_set(d, "commit", "3f2a1b9c8d7e");
		template_data_set(d, "upstream", "master");
	} else if (strcmp(variant, "dropped") == 0) {
		template_data_set(d, "reason", "nacked");
		template_data_set(
		    d, "words", "this breaks hugetlb, see my reply");
	} else if (strcmp(variant, "dropped-folded") == 0) {
		template_data_set(d, "reason", "folded");
		template_data_set(d, "into", "mm-frobnicator-rework.patch");
	} else if (strcmp(variant, "dropped-withdrawn") == 0) {
		template_data_set(d, "queue", "");
		template_data_set(d, "reason", "withdrawn");
		template_data_set(d, "actor", "");
	} else if (strcmp(variant, "conflict") == 0) {
		template_data_set(d, "base", "9e8d7c6b5a41");
		template_data_set(d, "details",
		    "error: patch failed: mm/frob.c:10\n"
		    "error: mm/frob.c: patch does not apply");
	} else if (strcmp(variant, "test-failed") == 0) {
		template_data_set(d, "context", "build/x86_64");
		template_data_set(d, "commit", "5d4c3b2a1f0e");
		template_data_set(
		    d, "summary", "make -j2 check failed (exit 2)");
		template_data_set(d, "log",
		    "  CC      mm/frob.o\n"
		    "mm/frob.c:12:16: error: 'EINVAL' undeclared\n"
		    "make[1]: *** [mm/frob.o] Error 1");
	} else if (strcmp(variant, "version-from-other-sender") == 0) {
		template_data_set(d, "queue", "unstable");
		template_data_set(
		    d, "sender", "Mal Lory <mallory@evil.example.net>");
		template_data_set(
		    d, "why", "its sender is not the patch's author");
		template_data_set(d, "new_message_id",
		    "20261201.1-1-mallory@evil.example.net");
		template_data_set(d, "new_version", "3");
		template_data_set(d, "new_link",
		    "https://lore.example.org/mm/20261201.1-1-mallory@evil."
		    "example.net/");
	} else if (strcmp(variant, "test-failed-dropped") == 0) {
		template_data_set(d, "context", "patchyard/test");
		template_data_set(
		    d, "commit", "5d4c3b2a1f0e5d4c3b2a1f0e5d4c3b2a1f0e5d4c");
		template_data_set(
		    d, "base", "0a1b2c3d4e5f0a1b2c3d4e5f0a1b2c3d4e5f0a1b");
		template_data_set(d, "reason", "failures");
		template_data_set(d, "summary",
		    "first failing patch: exit status 2 with it, passed "
		    "without it; confirmed by a second run");
		template_data_set(d, "log",
		    "mm/frob.c:12:16: error: 'EINVAL' undeclared\n"
		    "patchyard: exit status 2 after 0.512 s");
	} else if (strcmp(variant, "command-reply") == 0) {
		template_data_set(
		    d, "subject", "Re: [PATCH v2] mm: fix the frobnicator");
		template_data_set(d, "requester", "Andrew Maintainer");
		c = template_data_add(d, "commands");
		template_data_set(c, "line", "#yard stage");
		template_data_set(c, "status", "accepted");
		template_data_set(c, "message",
		    "Staged as mm-fix-the-frobnicator.patch in the unstable "
		    "queue.");
		c = template_data_add(d, "commands");
		template_data_set(c, "line", "#yard graduate now");
		template_data_set(c, "status", "refused");
		template_data_set(
		    c, "message", "\"graduate\" takes no arguments.");
	}
}

static void
check_golden(const char *event, const char *variant)
{
	struct template_mail *m = NULL;
	struct template_data *d = fixture_event();
	struct buf subject = BUF_INIT, body = BUF_INIT, all = BUF_INIT;
	char path[256];
	char *want;
	size_t n = 0;

	assert_int_equal(template_mail_load(NULL, event, &m), ERR_OK);
	add_event_values(d, variant);
	assert_int_equal(template_mail_render(m, d, &subject, &body), ERR_OK);
	buf_addf(
	    &all, "Subject: %s\n\n%s", buf_cstr(&subject), buf_cstr(&body));
	snprintf(path, sizeof(path), FIXTURES "%s.expected", variant);
	if (getenv("PATCHYARD_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "wb");

		assert_non_null(f);
		fwrite(all.p, 1, all.n, f);
		fclose(f);
	}
	want = tu_read_file(path, &n);
	if (want == NULL)
		fail_msg("%s: missing golden file", path);
	if (n != all.n || memcmp(want, all.p, n) != 0)
		fail_msg("%s differs; got:\n%s", path, buf_cstr(&all));
	free(want);
	buf_free(&subject);
	buf_free(&body);
	buf_free(&all);
	template_data_free(d);
	template_mail_free(m);
}

static void
test_golden(void **state)
{
	static const char *const cases[][2] = { { "staged", "staged" },
		{ "staged", "staged-nostaging" }, { "updated", "updated" },
		{ "updated", "updated-unchanged" },
		{ "updated", "updated-folded" }, { "graduated", "graduated" },
		{ "merged", "merged" }, { "merged", "merged-changed" },
		{ "merged", "merged-forwarded" }, { "dropped", "dropped" },
		{ "dropped", "dropped-folded" },
		{ "dropped", "dropped-withdrawn" }, { "conflict", "conflict" },
		{ "test-failed", "test-failed" },
		{ "test-failed", "test-failed-dropped" },
		{ "command-reply", "command-reply" },
		{ "version-from-other-sender", "version-from-other-sender" },
		{ "graduated", "graduated-policy" },
		{ "tree-conflict", "tree-conflict" },
		{ "tree-conflict", "tree-conflict-patch" } };
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_golden(cases[i][0], cases[i][1]);
	/* Every event has a template, and the golden set covers them all. */
	for (i = 0; template_mail_events[i]; i++) {
		bool covered = false;

		for (j = 0; j < sizeof(cases) / sizeof(cases[0]); j++)
			covered |=
			    strcmp(cases[j][0], template_mail_events[i]) == 0;
		assert_true(covered);
	}
	assert_int_equal(i, template_nbuiltins);
}

/* ---- the renderer ------------------------------------------------------ */

/* Render text with d; returns the output (static) or NULL on error,
 * with the error message in why_out. */
static const char *
render(const char *text, const struct template_data *d, enum err *e_out)
{
	static struct buf out;
	struct template *t = NULL;
	struct buf why = BUF_INIT;
	enum err e;

	buf_free(&out);
	e = template_parse("t", text, strlen(text), 1, &t, &why);
	if (e == ERR_OK)
		e = template_render(t, d, &out);
	template_free(t);
	buf_free(&why);
	if (e_out)
		*e_out = e;
	return e == ERR_OK ? buf_cstr(&out) : NULL;
}

/* Parse text that must fail; returns the message (static). */
static const char *
parse_error(const char *text)
{
	static struct buf why;
	struct template *t = NULL;

	buf_reset(&why);
	assert_int_equal(
	    template_parse("t.txt", text, strlen(text), 1, &t, &why),
	    ERR_PARSE);
	assert_null(t);
	return buf_cstr(&why);
}

static void
test_values(void **state)
{
	struct template_data *d = template_data_new();

	(void)state;
	template_data_set(d, "a", "A");
	template_data_setf(d, "n", "%d-%s", 42, "x");
	assert_string_equal(render("[{{a}}] {{ n }}", d, NULL), "[A] 42-x");
	/* Missing names render as nothing. */
	assert_string_equal(render("<{{nope}}>", d, NULL), "<>");
	/* Set again: replaced. */
	template_data_set(d, "a", "B");
	assert_string_equal(render("{{a}}", d, NULL), "B");
	template_data_set(d, "a", NULL);
	assert_string_equal(render("<{{a}}>", d, NULL), "<>");
	/* Comments vanish; a standalone comment takes its line along. */
	assert_string_equal(
	    render("x{{! note }}y\n  {{! alone }}\nz", d, NULL), "xy\nz");
	template_data_free(d);
	template_data_free(NULL);
}

static void
test_hostile_values(void **state)
{
	struct template_data *d = template_data_new();

	(void)state;
	/* Values are never parsed: "{{" in mail text comes out as it is. */
	template_data_set(d, "title", "{{#x}}{{evil}}{{/x}} }} {{");
	template_data_set(d, "evil", "EVIL");
	assert_string_equal(
	    render("T: {{title}}", d, NULL), "T: {{#x}}{{evil}}{{/x}} }} {{");
	template_data_setn(d, "nul", "a\0b", 3);
	{
		struct template *t = NULL;
		struct buf out = BUF_INIT;

		assert_int_equal(
		    template_parse("t", "{{nul}}", 7, 1, &t, NULL), ERR_OK);
		assert_int_equal(template_render(t, d, &out), ERR_OK);
		assert_int_equal(out.n, 3);
		assert_memory_equal(out.p, "a\0b", 3);
		buf_free(&out);
		template_free(t);
	}
	template_data_free(d);
}

static void
test_sections(void **state)
{
	struct template_data *d = template_data_new(), *it;

	(void)state;
	template_data_set(d, "full", "yes");
	template_data_set(d, "empty", "");
	assert_string_equal(
	    render(
	        "{{#full}}F{{/full}}{{#empty}}E{{/empty}}{{#none}}N{{/none}}",
	        d, NULL),
	    "F");
	assert_string_equal(
	    render(
	        "{{^full}}F{{/full}}{{^empty}}E{{/empty}}{{^none}}N{{/none}}",
	        d, NULL),
	    "EN");
	/* A list repeats; an empty list is falsy. */
	template_data_set(d, "who", "outer");
	it = template_data_add(d, "items");
	template_data_set(it, "x", "1");
	it = template_data_add(d, "items");
	template_data_set(it, "x", "2");
	template_data_set(it, "who", "inner");
	assert_string_equal(
	    render("{{#items}}<{{x}} {{who}}>{{/items}}", d, NULL),
	    "<1 outer><2 inner>");
	assert_string_equal(
	    render(
	        "{{^items}}none{{/items}}{{^nolist}}none{{/nolist}}", d, NULL),
	    "none");
	/* A list used as a value renders nothing; a string replaces it. */
	assert_string_equal(render("<{{items}}>", d, NULL), "<>");
	/* Value tests. */
	template_data_set(d, "reason", "nacked");
	assert_string_equal(render("{{#reason=nacked}}N{{/reason=nacked}}"
	                           "{{#reason=obsolete}}O{{/reason}}"
	                           "{{^reason=obsolete}}!O{{/reason=obsolete}}",
	                        d, NULL),
	    "N!O");
	assert_string_equal(render("{{#items=x}}L{{/items}}", d, NULL), "");
	template_data_free(d);
}

static void
test_nested_lists(void **state)
{
	struct template_data *d = template_data_new(), *a, *b;
	int i, j;

	(void)state;
	template_data_set(d, "top", "T");
	for (i = 0; i < 2; i++) {
		a = template_data_add(d, "series");
		template_data_setf(a, "name", "s%d", i);
		for (j = 0; j < 3 - i; j++) {
			b = template_data_add(a, "patches");
			template_data_setf(b, "n", "%d", j);
		}
	}
	assert_string_equal(render("{{#series}}{{name}}:"
	                           "{{#patches}}[{{top}}{{name}}.{{n}}]"
	                           "{{/patches}};{{/series}}",
	                        d, NULL),
	    "s0:[Ts0.0][Ts0.1][Ts0.2];s1:[Ts1.0][Ts1.1];");
	template_data_free(d);
}

/* Web templates: every value escaped, in text and in attributes. */
static void
test_html_escape(void **state)
{
	struct template_data *d = template_data_new(), *it;
	struct template *t = NULL;
	struct buf out = BUF_INIT;
	const char *text = "<a href=\"{{u}}\" title='{{t}}'>{{t}}</a>"
	                   "{{#l}}<i>{{v}}</i>{{/l}}";

	(void)state;
	template_data_set(d, "u", "/c/1?a=1&b=\"2\"");
	template_data_set(d, "t", "<script>alert('x')</script> & \x01");
	it = template_data_add(d, "l");
	template_data_set(it, "v", "\"><img src=x onerror=alert(1)>");
	assert_int_equal(
	    template_parse("t", text, strlen(text), 1, &t, NULL), ERR_OK);
	template_set_html(t, true);
	assert_int_equal(template_render(t, d, &out), ERR_OK);
	assert_string_equal(buf_cstr(&out),
	    "<a href=\"/c/1?a=1&amp;b=&quot;2&quot;\" "
	    "title='&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; "
	    "\xef\xbf\xbd'>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; "
	    "&amp; \xef\xbf\xbd</a><i>&quot;&gt;&lt;img src=x "
	    "onerror=alert(1)&gt;</i>");
	/* The same template as text (mail) leaves values alone. */
	buf_reset(&out);
	template_set_html(t, false);
	assert_int_equal(template_render(t, d, &out), ERR_OK);
	assert_non_null(strstr(buf_cstr(&out), "<script>alert('x')</script>"));
	buf_free(&out);
	template_free(t);
	template_data_free(d);
}

static void
test_standalone_lines(void **state)
{
	struct template_data *d = template_data_new(), *it;

	(void)state;
	template_data_set(d, "a", "A");
	it = template_data_add(d, "l");
	template_data_set(it, "x", "1");
	it = template_data_add(d, "l");
	template_data_set(it, "x", "2");
	/* Tags alone on their lines (blanks allowed) take the line along. */
	assert_string_equal(render("begin\n"
	                           "  {{#l}}  \n"
	                           "- {{x}}\n"
	                           "\t{{/l}}\r\n"
	                           "{{^a}}\n"
	                           "no a\n"
	                           "{{/a}}\n"
	                           "end\n",
	                        d, NULL),
	    "begin\n- 1\n- 2\nend\n");
	/* Not alone: the line stays. */
	assert_string_equal(
	    render("x {{#a}}\ny{{/a}} z\n", d, NULL), "x \ny z\n");
	/* A standalone tag on the last line without a newline. */
	assert_null(render("x\n{{#a}}", d, NULL));
	assert_string_equal(render("x\n{{#a}}y\n{{/a}}", d, NULL), "x\ny\n");
	/* Variables are never standalone. */
	assert_string_equal(render("{{a}}\n{{none}}\nz", d, NULL), "A\n\nz");
	template_data_free(d);
}

static void
test_parse_errors(void **state)
{
	char deep[1024];
	size_t i, n = 0;

	(void)state;
	assert_string_equal(
	    parse_error("a\nb {{name\nc"), "t.txt:2: unterminated tag");
	assert_string_equal(parse_error("x\n{{#list}}\ny\n"),
	    "t.txt:2: {{#list}} is never closed");
	assert_string_equal(parse_error("{{#a}}\n{{#b}}\n{{/a}}\n{{/b}}"),
	    "t.txt:3: {{/a}} does not close {{#b}} of line 2");
	assert_string_equal(
	    parse_error("\n\n{{/a}}"), "t.txt:3: {{/a}} closes nothing");
	assert_string_equal(parse_error("{{a b}}"), "t.txt:1: bad tag {{a b}}");
	assert_string_equal(parse_error("{{}}"), "t.txt:1: bad tag {{}}");
	assert_string_equal(
	    parse_error("{{#}}{{/}}"), "t.txt:1: bad tag {{#}}");
	assert_string_equal(parse_error("{{a=b}}"),
	    "t.txt:1: a test {{a=b}} works only in a section");
	assert_string_equal(
	    parse_error("{{#a=}}{{/a}}"), "t.txt:1: bad tag {{#a=}}");
	assert_string_equal(parse_error("{{#a=x}}{{/a=y}}"),
	    "t.txt:1: {{/a}} does not close {{#a}} of line 1");
	/* Control characters in a bad tag are shown escaped. */
	assert_string_equal(
	    parse_error("{{a\x1b[31m}}"), "t.txt:1: bad tag {{a\\x1b[31m}}");
	for (i = 0; i <= TEMPLATE_MAX_DEPTH; i++)
		n += (size_t)snprintf(
		    deep + n, sizeof(deep) - n, "{{#s%zu}}", i);
	assert_string_equal(parse_error(deep),
	    "t.txt:1: sections nest deeper "
	    "than 16");
}

static void
test_limits(void **state)
{
	struct template_data *d = template_data_new();
	struct template *t = NULL;
	struct buf out, why = BUF_INIT;
	char *big = malloc(TEMPLATE_MAX_SIZE + 2);

	(void)state;
	memset(big, 'x', TEMPLATE_MAX_SIZE + 1);
	big[TEMPLATE_MAX_SIZE + 1] = '\0';
	assert_int_equal(
	    template_parse("big", big, TEMPLATE_MAX_SIZE + 1, 1, &t, &why),
	    ERR_LIMIT);
	assert_null(t);
	/* Rendering stops at the output buffer's cap. */
	template_data_set(d, "v", "0123456789");
	assert_int_equal(
	    template_parse("t", "{{v}}{{v}}", 10, 1, &t, NULL), ERR_OK);
	buf_init(&out, 15);
	assert_int_equal(template_render(t, d, &out), ERR_LIMIT);
	buf_free(&out);
	buf_init(&out, 20);
	assert_int_equal(template_render(t, d, &out), ERR_OK);
	assert_string_equal(buf_cstr(&out), "01234567890123456789");
	buf_free(&out);
	/* An escaped value counts as it is escaped. */
	template_set_html(t, true);
	template_data_set(d, "v", "<<<<<");
	buf_init(&out, 39);
	assert_int_equal(template_render(t, d, &out), ERR_LIMIT);
	buf_free(&out);
	buf_init(&out, 40);
	assert_int_equal(template_render(t, d, &out), ERR_OK);
	buf_free(&out);
	buf_free(&why);
	template_free(t);
	template_data_free(d);
	free(big);
}

static void
test_check_names(void **state)
{
	static const char *const names[] = { "a", "l", "l.x", "l.m", "l.m.y",
		NULL };
	static const char *const ok[] = { "{{a}}{{#l}}{{x}}{{a}}{{/l}}",
		"{{#l}}{{#m}}{{y}}{{x}}{{a}}{{/m}}{{/l}}",
		"{{^l}}{{a}}{{/l}}{{#a=q}}{{a}}{{/a}}", NULL };
	static const char *const bad[][2] = { { "{{b}}",
		                                  "t:1: unknown name "
		                                  "{{b}}" },
		{ "\n{{x}}", "t:2: unknown name {{x}}" },
		{ "{{#l}}{{/l}}{{x}}", "t:1: unknown name {{x}}" },
		{ "{{#l}}\n{{y}}{{/l}}", "t:2: unknown name {{y}}" },
		/* An inverted section has no item in scope. */
		{ "{{^l}}{{x}}{{/l}}", "t:1: unknown name {{x}}" },
		{ "{{#m}}{{/m}}", "t:1: unknown name {{m}}" } };
	struct template *t;
	struct buf why = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; ok[i]; i++) {
		assert_int_equal(
		    template_parse("t", ok[i], strlen(ok[i]), 1, &t, NULL),
		    ERR_OK);
		assert_int_equal(template_check(t, names, &why), ERR_OK);
		template_free(t);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(template_parse("t", bad[i][0],
		                     strlen(bad[i][0]), 1, &t, NULL),
		    ERR_OK);
		assert_int_equal(template_check(t, names, &why), ERR_PARSE);
		assert_string_equal(buf_cstr(&why), bad[i][1]);
		template_free(t);
	}
	buf_free(&why);
}

/* ---- mail templates ---------------------------------------------------- */

static enum err
mail_parse(const char *event, const char *text, struct buf *why)
{
	struct template_mail *m = NULL;
	enum err e =
	    template_mail_parse(event, "m.txt", text, strlen(text), &m, why);

	template_mail_free(m);
	return e;
}

static void
test_mail_parse(void **state)
{
	struct buf why = BUF_INIT;

	(void)state;
	assert_int_equal(
	    mail_parse("staged", "Subject: {{title}}\n\nhi\n", &why), ERR_OK);
	assert_int_equal(
	    mail_parse("staged", "\nSubject: x\n\nhi", &why), ERR_PARSE);
	assert_string_equal(buf_cstr(&why),
	    "m.txt:1: a mail template starts with a \"Subject:\" line");
	assert_int_equal(
	    mail_parse("staged", "Subject: x\nbody", &why), ERR_PARSE);
	assert_string_equal(buf_cstr(&why),
	    "m.txt:2: an empty line must follow the \"Subject:\" line");
	/* Lines are counted in the whole file. */
	assert_int_equal(
	    mail_parse("staged", "Subject: x\n\none\n{{slgu}}\n", &why),
	    ERR_PARSE);
	assert_string_equal(buf_cstr(&why), "m.txt:4: unknown name {{slgu}}");
	assert_int_equal(
	    mail_parse("staged", "Subject: {{sujbect}}\n\n", &why), ERR_PARSE);
	assert_string_equal(
	    buf_cstr(&why), "m.txt:1: unknown name {{sujbect}}");
	/* Names are per event: interdiff belongs to updated only. */
	assert_int_equal(
	    mail_parse("updated", "Subject: x\n\n{{interdiff}}", &why), ERR_OK);
	assert_int_equal(
	    mail_parse("staged", "Subject: x\n\n{{interdiff}}", &why),
	    ERR_PARSE);
	assert_int_equal(
	    mail_parse("nosuch", "Subject: x\n\n", &why), ERR_PARSE);
	buf_free(&why);
}

static void
test_mail_subject_one_line(void **state)
{
	struct template_mail *m = NULL;
	struct template_data *d = template_data_new();
	struct buf s = BUF_INIT, b = BUF_INIT;
	const char *text = "Subject:   Re: {{subject}}  \n\n{{subject}}\n";

	(void)state;
	assert_int_equal(
	    template_mail_parse("staged", "m", text, strlen(text), &m, NULL),
	    ERR_OK);
	template_data_set(d, "subject", "a\r\nBcc: x@y\t\x01 z \n");
	assert_int_equal(template_mail_render(m, d, &s, &b), ERR_OK);
	assert_string_equal(buf_cstr(&s), "Re: a Bcc: x@y z");
	/* The body keeps the value as it is. */
	assert_string_equal(buf_cstr(&b), "a\r\nBcc: x@y\t\x01 z \n\n");
	buf_free(&b);
	/* Within the cap of the caller's body buffer, or an error. */
	buf_init(&b, 18);
	assert_int_equal(template_mail_render(m, d, &s, &b), ERR_OK);
	buf_free(&b);
	buf_init(&b, 17);
	assert_int_equal(template_mail_render(m, d, &s, &b), ERR_LIMIT);
	buf_free(&s);
	buf_free(&b);
	template_data_free(d);
	template_mail_free(m);
}

static char tmpdir[64];

static void
write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
test_mail_load_override(void **state)
{
	struct template_mail *m = NULL;
	struct template_data *d = fixture_event();
	struct buf s = BUF_INIT, b = BUF_INIT;
	char path[128], *big;

	(void)state;
	strcpy(tmpdir, "/tmp/test_template.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	write_file(
	    "staged.txt", "Subject: [yard] {{title}}\n\nStaged {{slug}}.\n");
	write_file("dropped.txt", "Subject: x\n\n{{#reason}}\n");
	/* An override replaces the built-in template. */
	assert_int_equal(template_mail_load(tmpdir, "staged", &m), ERR_OK);
	snprintf(path, sizeof(path), "%s/staged.txt", tmpdir);
	assert_string_equal(template_mail_source(m), path);
	assert_int_equal(template_mail_render(m, d, &s, &b), ERR_OK);
	assert_string_equal(buf_cstr(&s), "[yard] mm: fix the frobnicator");
	assert_string_equal(
	    buf_cstr(&b), "Staged mm-fix-the-frobnicator.patch.\n");
	template_mail_free(m);
	/* Events without a file there fall back to the built-in one. */
	assert_int_equal(template_mail_load(tmpdir, "merged", &m), ERR_OK);
	assert_string_equal(template_mail_source(m), "built-in:merged");
	template_mail_free(m);
	/* A broken override is a configuration error, not a fallback. */
	assert_int_equal(template_mail_load(tmpdir, "dropped", &m), ERR_CONFIG);
	assert_null(m);
	assert_int_equal(template_mail_load(tmpdir, "../x", &m), ERR_CONFIG);
	assert_int_equal(template_mail_load(NULL, "nosuch", &m), ERR_CONFIG);
	/* So is a file over TEMPLATE_MAX_SIZE. */
	big = malloc(TEMPLATE_MAX_SIZE + 2);
	memset(big, 'x', TEMPLATE_MAX_SIZE + 1);
	big[TEMPLATE_MAX_SIZE + 1] = '\0';
	write_file("merged.txt", big);
	free(big);
	assert_int_equal(template_mail_load(tmpdir, "merged", &m), ERR_CONFIG);
	assert_null(m);
	unlink(path);
	snprintf(path, sizeof(path), "%s/dropped.txt", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/merged.txt", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	buf_free(&s);
	buf_free(&b);
	template_data_free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_hostile_values),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_nested_lists),
		cmocka_unit_test(test_standalone_lines),
		cmocka_unit_test(test_html_escape),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_check_names),
		cmocka_unit_test(test_mail_parse),
		cmocka_unit_test(test_mail_subject_one_line),
		cmocka_unit_test(test_mail_load_override),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
