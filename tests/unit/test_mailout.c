/*
 * Unit tests of bot/mailout/mailout.c: a composed acknowledgment against its
 * golden file, header rules checked line by line, hostile values from
 * mail, and RFC 2047 / quoted-printable checked against an independent
 * reader (Python's email package, tests/integration/mailcheck.py; those
 * checks skip when /usr/bin/python3 is missing).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/mailout/mailout.h"
#include "bot/mailout/template.h"
#include "testutil.h"

#define BOT "patchyard@yard.example.org"
#define GOLDEN "tests/fixtures/mailout/"

static const struct mailout_addr jane = { "Jane Hacker",
	"jane.hacker@example.com" };
static const struct mailout_addr list = { NULL, "linux-mm@kvack.example.org" };

/* A message with the usual values; tests change what they test. */
static struct mailout_msg
base_msg(void)
{
	static const char *const refs[] = {
		"cover.1709294400.git.jane.hacker@example.com"
	};
	struct mailout_msg m;

	memset(&m, 0, sizeof(m));
	m.from_email = BOT;
	m.to = &jane;
	m.nto = 1;
	m.cc = &list;
	m.ncc = 1;
	m.subject = "[PATCH v2 1/3] mm: fix the frobnicator";
	m.message_id = "1772366400.0123456789abcdef.staged@yard.example.org";
	m.date = 1772366400; /* 2026-03-01 12:00:00 UTC */
	m.in_reply_to = "20260301120000.4242-2-jane.hacker@example.com";
	m.references = refs;
	m.nreferences = 1;
	m.event = "staged";
	m.body = "Hello.\n";
	m.body_len = strlen(m.body);
	return m;
}

/* Header block rules: CRLF only, continuation lines start with a blank,
 * lines within 78 characters unless one token is longer, encoded-words
 * within 75, no field called name. */
static void
check_headers(const char *msg, size_t n, const char *forbidden)
{
	const char *p = msg, *end = msg + n, *eol, *w;

	for (; p < end; p = eol + 2) {
		eol = strstr(p, "\r\n");
		assert_non_null(eol);
		assert_null(memchr(p, '\n', (size_t)(eol - p)));
		assert_null(memchr(p, '\r', (size_t)(eol - p)));
		if (eol == p)
			return; /* the blank line */
		if (memchr(p, ' ', (size_t)(eol - p)))
			assert_true(eol - p <= 78);
		if (*p != ' ' && *p != '\t') {
			assert_non_null(memchr(p, ':', (size_t)(eol - p)));
			if (forbidden)
				assert_false(strncasecmp(p, forbidden,
				                 strlen(forbidden)) == 0);
		}
		for (w = p; (w = strstr(w, "=?")) != NULL && w < eol;) {
			/* "=?utf-8?q?...?=": the end is after the text. */
			const char *q = strstr(w + 10, "?=");

			assert_non_null(q);
			assert_true(q < eol);
			assert_true(q + 2 - w <= 75);
			w = q + 2;
		}
	}
	fail_msg("no blank line after the header");
}

static bool
have_python(void)
{
	return access("/usr/bin/python3", X_OK) == 0;
}

/* The independent reader's view of a message (static). */
static const char *
read_back(const struct buf *msg)
{
	static char out[1 << 16];
	char path[] = "/tmp/test_mailout.XXXXXX", cmd[256];
	int fd = mkstemp(path);
	size_t n;
	FILE *f;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, msg->p, msg->n), (ssize_t)msg->n);
	close(fd);
	snprintf(cmd, sizeof(cmd),
	    "/usr/bin/python3 tests/integration/mailcheck.py %s", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	assert_int_equal(pclose(f), 0);
	unlink(path);
	return out;
}

/* The view holds line as one of its lines, and no defect. */
static void
assert_line(const char *view, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = view; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, line, n) == 0 && p[n] == '\n')
			break;
	if (p == NULL || *p == '\0')
		fail_msg("missing \"%s\" in:\n%s", line, view);
	if (strstr(view, "\ndefect: ") || strncmp(view, "defect: ", 8) == 0)
		fail_msg("defects in:\n%s", view);
}

static void
compose_ok(const struct mailout_msg *m, struct buf *msg, struct buf *rcpts)
{
	assert_int_equal(mailout_compose(m, msg, rcpts), ERR_OK);
	check_headers(msg->p, msg->n, "Bcc");
}

/* ---- tests ------------------------------------------------------------- */

/* The staged notice of the template fixtures, composed, as a golden. */
static void
test_golden(void **state)
{
	struct template_mail *t = NULL;
	struct template_data *d = template_data_new();
	struct buf subject = BUF_INIT, body = BUF_INIT, msg = BUF_INIT,
	           rcpts = BUF_INIT;
	struct mailout_msg m = base_msg();
	char *want;
	size_t n = 0;

	(void)state;
	assert_int_equal(template_mail_load(NULL, "staged", &t), ERR_OK);
	template_data_set(d, "subject", m.subject);
	template_data_set(d, "title", "mm: fix the frobnicator");
	template_data_set(d, "queue", "unstable");
	template_data_set(d, "project", "mm");
	template_data_set(d, "slug", "mm-fix-the-frobnicator.patch");
	template_data_set(d, "author", "Jane Hacker <jane.hacker@example.com>");
	template_data_set(d, "bot", BOT);
	template_data_set(d, "prefix", "#yard");
	assert_int_equal(template_mail_render(t, d, &subject, &body), ERR_OK);
	m.subject = buf_cstr(&subject);
	m.body = body.p;
	m.body_len = body.n;
	compose_ok(&m, &msg, &rcpts);
	assert_string_equal(buf_cstr(&rcpts),
	    "jane.hacker@example.com\nlinux-mm@kvack.example.org\n");
	if (getenv("PATCHYARD_UPDATE_GOLDEN")) {
		FILE *f = fopen(GOLDEN "staged.eml", "wb");

		assert_non_null(f);
		fwrite(msg.p, 1, msg.n, f);
		fclose(f);
	}
	want = tu_read_file(GOLDEN "staged.eml", &n);
	assert_non_null(want);
	if (n != msg.n || memcmp(want, msg.p, n) != 0)
		fail_msg("staged.eml differs; got:\n%s", buf_cstr(&msg));
	free(want);
	buf_free(&subject);
	buf_free(&body);
	buf_free(&msg);
	buf_free(&rcpts);
	template_data_free(d);
	template_mail_free(t);
}

static void
test_reply_subject(void **state)
{
	static const char *const cases[][2] = { { "x", "Re: x" },
		{ "Re: x", "Re: x" }, { "RE: re:Re[2]: x", "Re: x" },
		{ "  re :x", "Re: re :x" }, { "Reboot: x", "Re: Reboot: x" },
		{ "Re[]: x", "Re: Re[]: x" }, { "Re[12: x", "Re: Re[12: x" },
		{ "Re:", "Re: " }, { "", "Re: " }, { "Aw: x", "Re: Aw: x" } };
	struct buf b = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf_reset(&b);
		mailout_reply_subject(&b, cases[i][0]);
		assert_string_equal(buf_cstr(&b), cases[i][1]);
	}
	buf_free(&b);
}

static void
test_headers(void **state)
{
	struct buf msg = BUF_INIT, rcpts = BUF_INIT;
	struct mailout_msg m = base_msg();
	const char *s;

	(void)state;
	m.subject = "Re: RE: [PATCH v2 1/3] mm: fix the frobnicator";
	compose_ok(&m, &msg, &rcpts);
	s = buf_cstr(&msg);
	assert_non_null(strstr(s,
	    "\r\nSubject: Re: [PATCH v2 1/3] mm: fix the "
	    "frobnicator\r\n"));
	assert_true(strncmp(s, "From: patchyard <" BOT ">\r\n", 36) == 0);
	assert_non_null(strstr(s,
	    "\r\nTo: Jane Hacker "
	    "<jane.hacker@example.com>\r\n"));
	assert_non_null(strstr(s, "\r\nCc: linux-mm@kvack.example.org\r\n"));
	assert_non_null(
	    strstr(s, "\r\nDate: Sun, 01 Mar 2026 12:00:00 +0000\r\n"));
	assert_non_null(strstr(s,
	    "\r\nMessage-ID: <1772366400.0123456789abcdef."
	    "staged@yard.example.org>\r\n"));
	assert_non_null(strstr(s,
	    "\r\nIn-Reply-To: "
	    "<20260301120000.4242-2-jane.hacker@example."
	    "com>\r\n"));
	assert_non_null(strstr(s,
	    "\r\nReferences: "
	    "<cover.1709294400.git.jane.hacker@example."
	    "com>\r\n "
	    "<20260301120000.4242-2-jane.hacker@example."
	    "com>\r\n"));
	assert_non_null(strstr(s,
	    "\r\nAuto-Submitted: auto-replied\r\n"
	    "X-Patchyard-Event: staged\r\n"
	    "MIME-Version: 1.0\r\n"
	    "Content-Type: text/plain; charset=utf-8\r\n"
	    "Content-Transfer-Encoding: 7bit\r\n\r\n"
	    "Hello.\r\n"));
	/* A mail that starts a thread is not a reply. */
	m.in_reply_to = NULL;
	m.nreferences = 0;
	m.subject = "Re: status";
	compose_ok(&m, &msg, &rcpts);
	s = buf_cstr(&msg);
	assert_null(strstr(s, "In-Reply-To:"));
	assert_null(strstr(s, "References:"));
	assert_non_null(strstr(s, "\r\nSubject: Re: status\r\n"));
	buf_free(&msg);
	buf_free(&rcpts);
}

static void
test_recipients(void **state)
{
	static const struct mailout_addr to[] = { { "Jane",
		                                      "Jane@Example.com" },
		{ "Bot", BOT }, { "Bad", "no-at-sign" },
		{ "Evil", "x@y.org\r\nBcc: victim@z.org" }, { "Nul", NULL },
		{ "Space", "a b@c.org" }, { "Quote", "\"a\"@c.org" },
		{ "Dots", "a@c..org" } };
	static const struct mailout_addr cc[] = { { NULL, "jane@example.COM" },
		{ "Rev", "rev@example.org" },
		{ NULL, "PATCHYARD@yard.example.org" },
		{ NULL, "rev@example.org" } };
	struct buf msg = BUF_INIT, rcpts = BUF_INIT;
	struct mailout_msg m = base_msg();
	const char *s;

	(void)state;
	m.to = to;
	m.nto = sizeof(to) / sizeof(to[0]);
	m.cc = cc;
	m.ncc = sizeof(cc) / sizeof(cc[0]);
	compose_ok(&m, &msg, &rcpts);
	assert_string_equal(
	    buf_cstr(&rcpts), "Jane@Example.com\nrev@example.org\n");
	s = buf_cstr(&msg);
	assert_non_null(strstr(s,
	    "\r\nTo: Jane <Jane@Example.com>\r\n"
	    "Cc: Rev <rev@example.org>\r\n"));
	assert_null(strstr(s, "victim"));
	/* Nobody in To: the Cc move up. */
	m.nto = 2;
	compose_ok(&m, &msg, &rcpts);
	s = buf_cstr(&msg);
	assert_non_null(strstr(s, "\r\nTo: Jane <Jane@Example.com>\r\n"));
	m.to = &to[1];
	m.nto = 1;
	m.cc = &cc[1];
	m.ncc = 1;
	compose_ok(&m, &msg, &rcpts);
	s = buf_cstr(&msg);
	assert_non_null(strstr(s, "\r\nTo: Rev <rev@example.org>\r\nSubject:"));
	assert_null(strstr(s, "\r\nCc:"));
	/* Nobody left at all. */
	m.ncc = 0;
	assert_int_equal(mailout_compose(&m, &msg, &rcpts), ERR_NOTFOUND);
	assert_int_equal(rcpts.n, 0);
	buf_free(&msg);
	buf_free(&rcpts);
}

static void
test_hostile(void **state)
{
	static const char *const refs[] = { "ok1@x", "bad\r\nBcc: v@z",
		"with space@x", "<angle@x>", "", "ok2@x", "ok1@x" };
	static const struct mailout_addr to[] = {
		{ "Eve\r\nBcc: victim@z.org\r\n", "eve@example.org" },
		{ "Nul", "nul@example.org" },
		{ "\"Quoted\" \\ Name, Jr.", "q@example.org" },
		{ "=?utf-8?q?fake?=", "f@example.org" },
	};
	struct buf msg = BUF_INIT, rcpts = BUF_INIT;
	struct mailout_msg m = base_msg();
	const char *s, *v;

	(void)state;
	m.to = to;
	m.nto = sizeof(to) / sizeof(to[0]);
	m.subject = "evil\r\nBcc: victim@z.org\r\n\r\nbody\x01\x7f\xc2\x85 end";
	m.in_reply_to = "parent@x";
	m.references = refs;
	m.nreferences = sizeof(refs) / sizeof(refs[0]);
	m.body = "a\0b\r\n.\r\n..\rlone cr\n";
	m.body_len = sizeof("a\0b\r\n.\r\n..\rlone cr\n") - 1;
	compose_ok(&m, &msg, &rcpts);
	s = buf_cstr(&msg);
	assert_non_null(strstr(s,
	    "\r\nSubject: Re: evil Bcc: victim@z.org body "
	    "end\r\n"));
	assert_non_null(strstr(s,
	    "\r\nTo: \"Eve Bcc: victim@z.org\" "
	    "<eve@example.org>,"));
	assert_non_null(strstr(s,
	    "\r\nReferences: <ok2@x> <ok1@x> "
	    "<parent@x>\r\n"));
	/* NUL becomes U+FFFD; every line end is CRLF. */
	assert_non_null(strstr(s,
	    "\r\n\r\na\xef\xbf\xbd"
	    "b\r\n.\r\n..\r\nlone cr\r\n"));
	assert_non_null(strstr(s, "Content-Transfer-Encoding: 8bit\r\n"));
	if (have_python()) {
		v = read_back(&msg);
		assert_line(v, "to: Nul <nul@example.org>");
		assert_line(v, "to: \"Quoted\" \\\\ Name, Jr. <q@example.org>");
		assert_line(v, "to: =?utf-8?q?fake?= <f@example.org>");
		assert_line(v, "subject: Re: evil Bcc: victim@z.org body end");
	}
	/* A patch of a series: threaded to its cover, no "Re:". */
	m.keep_subject = true;
	m.subject = "[PATCH 1/2] a: spell five";
	compose_ok(&m, &msg, &rcpts);
	assert_non_null(strstr(
	    buf_cstr(&msg), "\r\nSubject: [PATCH 1/2] a: spell five\r\n"));
	assert_non_null(
	    strstr(buf_cstr(&msg), "\r\nIn-Reply-To: <parent@x>\r\n"));
	m.keep_subject = false;
	/* The caller's own values are checked, not repaired. */
	m.message_id = "id\r\nBcc: x@y";
	assert_int_equal(mailout_compose(&m, &msg, &rcpts), ERR_INVAL);
	m = base_msg();
	m.event = "Staged\r\n";
	assert_int_equal(mailout_compose(&m, &msg, &rcpts), ERR_INVAL);
	m = base_msg();
	m.from_email = "bot@x\r\nBcc: y@z";
	assert_int_equal(mailout_compose(&m, &msg, &rcpts), ERR_INVAL);
	/* A bad parent id is left out. */
	m = base_msg();
	m.in_reply_to = "bad id";
	m.nreferences = 0;
	compose_ok(&m, &msg, &rcpts);
	assert_null(strstr(buf_cstr(&msg), "In-Reply-To"));
	assert_null(strstr(buf_cstr(&msg), "References"));
	buf_free(&msg);
	buf_free(&rcpts);
}

static void
test_references_bounded(void **state)
{
	const char *refs[300];
	char ids[300][32];
	struct buf msg = BUF_INIT, rcpts = BUF_INIT;
	struct mailout_msg m = base_msg();
	const char *s, *r;
	int i, count = 0;

	(void)state;
	for (i = 0; i < 300; i++) {
		snprintf(ids[i], sizeof(ids[i]), "id%03d@example.org", i);
		refs[i] = ids[i];
	}
	m.references = refs;
	m.nreferences = 300;
	m.in_reply_to = "parent@example.org";
	compose_ok(&m, &msg, &rcpts);
	s = buf_cstr(&msg);
	r = strstr(
	    s, "\r\nReferences: <id000@example.org> <id282@example.org>");
	assert_non_null(r);
	for (r += 2; *r && strncmp(r, "\r\nAuto", 6) != 0; r++)
		count += *r == '<';
	assert_int_equal(count, MAILOUT_MAX_REFS);
	assert_non_null(
	    strstr(s, "<id299@example.org> <parent@example.org>\r\n"));
	buf_free(&msg);
	buf_free(&rcpts);
}

static void
test_rfc2047(void **state)
{
	static const char *const subjects[][2] = {
		{ "[PATCH] docs: fix the \xc3\xbcmlaut in README",
		    "Re: [PATCH] docs: fix the =?utf-8?q?=C3=BCmlaut?= in "
		    "README" },
		{ "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe4\xbb\xb6"
		  "\xe5\x90\x8d",
		    NULL },
		{ "=?utf-8?q?not_encoded?=", NULL },
	};
	static const struct mailout_addr to[] = {
		{ "J\xc3\xb6rg M\xc3\xbcller-L\xc3\xbc"
		  "denscheid",
		    "joerg@example.de" },
		{ "\xe5\xb1\xb1\xe7\x94\xb0 \xe5\xa4\xaa\xe9\x83\x8e",
		    "taro@example.jp" },
		{ "Emoji \xf0\x9f\x90\xa7 Penguin", "tux@example.org" },
	};
	struct buf msg = BUF_INIT, rcpts = BUF_INIT, want = BUF_INIT,
	           longs = BUF_INIT;
	struct mailout_msg m = base_msg();
	const char *v;
	size_t i;

	(void)state;
	m.to = to;
	m.nto = sizeof(to) / sizeof(to[0]);
	for (i = 0; i < sizeof(subjects) / sizeof(subjects[0]); i++) {
		m.subject = subjects[i][0];
		compose_ok(&m, &msg, &rcpts);
		if (subjects[i][1])
			assert_non_null(strstr(buf_cstr(&msg), subjects[i][1]));
		if (!have_python())
			continue;
		v = read_back(&msg);
		buf_reset(&want);
		buf_addf(&want, "subject: Re: %s", subjects[i][0]);
		assert_line(v, buf_cstr(&want));
		assert_line(v,
		    "to: J\xc3\xb6rg M\xc3\xbcller-L\xc3\xbc"
		    "denscheid <joerg@example.de>");
		assert_line(v,
		    "to: \xe5\xb1\xb1\xe7\x94\xb0 \xe5\xa4\xaa\xe9\x83"
		    "\x8e <taro@example.jp>");
		assert_line(v,
		    "to: Emoji \xf0\x9f\x90\xa7 Penguin "
		    "<tux@example.org>");
	}
	/* Long subjects, ASCII and not, fold and come back whole. */
	for (i = 0; i < 40; i++)
		buf_addf(&longs, "w%zu\xc3\xa9 ascii%zu ", i, i);
	buf_adds(&longs,
	    "end-of-a-very-long-word-that-does-not-fit-on-one-line-"
	    "at-all-even-when-folded-0123456789");
	m.subject = buf_cstr(&longs);
	compose_ok(&m, &msg, &rcpts);
	if (have_python()) {
		v = read_back(&msg);
		buf_reset(&want);
		buf_addf(&want, "subject: Re: %s", buf_cstr(&longs));
		assert_line(v, buf_cstr(&want));
	}
	buf_free(&msg);
	buf_free(&rcpts);
	buf_free(&want);
	buf_free(&longs);
}

static void
test_body_qp(void **state)
{
	struct buf msg = BUF_INIT, rcpts = BUF_INIT, body = BUF_INIT,
	           want = BUF_INIT;
	struct mailout_msg m = base_msg();
	const char *s, *v, *p;
	size_t i;

	(void)state;
	buf_adds(&body, "short line\n");
	for (i = 0; i < 1200; i++)
		buf_addc(&body, (char)('a' + i % 26));
	buf_adds(&body,
	    " = \xc3\xa9t\xc3\xa9 \t\nlast line with trailing "
	    "blank \n.\nFrom here\n");
	m.body = body.p;
	m.body_len = body.n;
	compose_ok(&m, &msg, &rcpts);
	s = buf_cstr(&msg);
	assert_non_null(strstr(s,
	    "Content-Transfer-Encoding: "
	    "quoted-printable\r\n\r\nshort line\r\n"));
	/* Encoded lines stay within 76 characters. */
	for (p = strstr(s, "\r\n\r\n") + 4; *p; p = strstr(p, "\r\n") + 2)
		assert_true(strstr(p, "\r\n") - p <= 76);
	assert_non_null(strstr(s, "=C3=A9t=C3=A9 =09\r\n"));
	assert_non_null(strstr(s, "trailing blank=20\r\n"));
	if (have_python()) {
		v = read_back(&msg);
		buf_adds(&want, "body: ");
		for (i = 0; i < body.n; i++) {
			if (body.p[i] == '\n')
				buf_adds(&want, "\\n");
			else
				buf_addc(&want, body.p[i]);
		}
		assert_line(v, buf_cstr(&want));
		assert_line(v, "cte: quoted-printable");
	}
	buf_free(&msg);
	buf_free(&rcpts);
	buf_free(&body);
	buf_free(&want);
}

/* One message, composed into a buffer with the given cap. */
static enum err
compose_capped(const struct mailout_msg *m, size_t max, size_t *n)
{
	struct buf msg, rcpts = BUF_INIT;
	enum err e;

	buf_init(&msg, max);
	e = mailout_compose(m, &msg, &rcpts);
	*n = msg.n;
	buf_free(&msg);
	buf_free(&rcpts);
	return e;
}

/*
 * A message over MAILOUT_MAX_SIZE, or over the smaller cap of the
 * caller's buffer, is an error, never a message cut short; a
 * quoted-printable body counts as it is encoded.
 */
static void
test_cap(void **state)
{
	struct mailout_msg m = base_msg();
	char *body = malloc(MAILOUT_MAX_SIZE);
	size_t i, n, n8, nq;

	(void)state;
	for (i = 0; i < MAILOUT_MAX_SIZE; i++)
		body[i] = i % 64 == 63 ? '\n' : 'a';
	m.body = body;
	m.body_len = MAILOUT_MAX_SIZE;
	assert_int_equal(compose_capped(&m, 0, &n), ERR_LIMIT);
	m.body_len = 1000;
	assert_int_equal(compose_capped(&m, 0, &n8), ERR_OK);
	assert_int_equal(compose_capped(&m, n8, &n), ERR_OK);
	assert_int_equal(n, n8);
	assert_int_equal(compose_capped(&m, n8 - 1, &n), ERR_LIMIT);
	/* "=" is three bytes encoded, and a long line is encoded. */
	memset(body, '=', 1000);
	assert_int_equal(compose_capped(&m, 0, &nq), ERR_OK);
	assert_true(nq > n8 + 1500);
	assert_int_equal(compose_capped(&m, nq, &n), ERR_OK);
	assert_int_equal(compose_capped(&m, nq - 1, &n), ERR_LIMIT);
	free(body);
}

/*
 * The same message for a relay without 8BITMIME: its 8bit body becomes
 * quoted-printable, Python's email package reads the same text from it,
 * and a 7bit or already encoded message is left alone (ERR_INVAL).
 */
static void
test_7bit(void **state)
{
	struct buf msg = BUF_INIT, rcpts = BUF_INIT, seven = BUF_INIT;
	struct mailout_msg m = base_msg();
	const char *s;
	size_t i;

	(void)state;
	m.body = "J\xc3\xb6rg says hello.\n.\nFrom the list = the list\n";
	m.body_len = strlen(m.body);
	compose_ok(&m, &msg, &rcpts);
	assert_non_null(strstr(msg.p, "Content-Transfer-Encoding: 8bit\r\n"));
	assert_int_equal(mailout_7bit(msg.p, msg.n, &seven), ERR_OK);
	s = buf_cstr(&seven);
	for (i = 0; i < seven.n; i++)
		assert_true((unsigned char)s[i] < 0x80);
	assert_non_null(strstr(s,
	    "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
	    "J=C3=B6rg says hello.\r\n.\r\nFrom the list =3D the list\r\n"));
	assert_int_equal(
	    strstr(s, "\r\n\r\n") - s, strstr(msg.p, "\r\n\r\n") - msg.p + 12);
	if (have_python()) {
		const char *v = read_back(&seven);

		assert_line(v,
		    "body: J\xc3\xb6rg says hello.\\n.\\nFrom the "
		    "list = the list\\n");
		assert_line(v, "cte: quoted-printable");
	}
	m.body = "plain ASCII\n";
	m.body_len = strlen(m.body);
	compose_ok(&m, &msg, &rcpts);
	assert_int_equal(mailout_7bit(msg.p, msg.n, &seven), ERR_INVAL);
	buf_free(&msg);
	buf_free(&rcpts);
	buf_free(&seven);
}

static void
test_message_id(void **state)
{
	struct buf a = BUF_INIT, b = BUF_INIT;

	(void)state;
	assert_int_equal(
	    mailout_message_id(&a, 1772366400, "test-failed", BOT), ERR_OK);
	assert_int_equal(
	    mailout_message_id(&b, 1772366400, "test-failed", BOT), ERR_OK);
	assert_int_equal(a.n,
	    strlen("1772366400.0123456789abcdef.test-failed@"
	           "yard.example.org"));
	assert_true(strncmp(a.p, "1772366400.", 11) == 0);
	assert_string_equal(a.p + 27, ".test-failed@yard.example.org");
	assert_string_not_equal(a.p, b.p);
	assert_true(mailout_id_valid(a.p));
	buf_reset(&a);
	assert_int_equal(
	    mailout_message_id(&a, 1, "staged", "nodomain"), ERR_OK);
	assert_non_null(strstr(a.p, ".staged@localhost"));
	assert_int_equal(
	    mailout_message_id(&a, 1, "bad event", BOT), ERR_INVAL);
	buf_free(&a);
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_reply_subject),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_recipients),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_references_bounded),
		cmocka_unit_test(test_rfc2047),
		cmocka_unit_test(test_body_qp),
		cmocka_unit_test(test_7bit),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_message_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
