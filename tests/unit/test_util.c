/* Unit tests of util/: buffers, views, arena, UTF-8, JSON, time,
 * libgit2's words. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/arena.h"
#include "util/ascii.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/fdio.h"
#include "util/gitmsg.h"
#include "util/json.h"
#include "util/log.h"
#include "util/qp.h"
#include "util/thread.h"
#include "util/timeutil.h"
#include "util/utf8.h"
#include "util/xalloc.h"

/* The appends always add; the cap is for the owner to ask buf_fits. */
static void
test_buf_cap(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b, 8);
	assert_true(buf_fits(&b, 8));
	assert_false(buf_fits(&b, 9));
	assert_false(buf_fits(&b, (size_t)-1));
	buf_adds(&b, "12345678");
	assert_true(buf_fits(&b, 0));
	assert_false(buf_fits(&b, 1));
	buf_addc(&b, '9');
	buf_addf(&b, "%d", 10);
	assert_string_equal(buf_cstr(&b), "12345678910");
	assert_false(buf_fits(&b, 0));
	buf_reset(&b);
	buf_addf(&b, "%s-%d", "ab", 42);
	assert_string_equal(buf_cstr(&b), "ab-42");
	assert_true(buf_fits(&b, 3));
	buf_free(&b);
	/* Without a cap everything fits. */
	buf_init(&b, 0);
	assert_true(buf_fits(&b, (size_t)-1));
	buf_free(&b);
}

static void
test_str(void **state)
{
	struct str s = str_from("  Hello World \r\n"), line, rest;

	(void)state;
	assert_true(str_eqs(str_trim(s), "Hello World"));
	assert_true(str_ieqs(str_trim(s), "hello world"));
	assert_true(str_istartswith(str_trim(s), "HELLO"));
	assert_int_equal(str_findstr(s, "World", 5), 8);
	assert_int_equal(str_find(s, 'x'), -1);
	rest = str_from("a\r\nb\n\nc");
	assert_true(str_nextline(&rest, &line));
	assert_true(str_eqs(line, "a"));
	assert_true(str_nextline(&rest, &line));
	assert_true(str_eqs(line, "b"));
	assert_true(str_nextline(&rest, &line));
	assert_int_equal(line.n, 0);
	assert_true(str_nextline(&rest, &line));
	assert_true(str_eqs(line, "c"));
	assert_false(str_nextline(&rest, &line));
}

static void
test_arena(void **state)
{
	struct arena *a = arena_new();
	char *big;
	int i;

	(void)state;
	for (i = 0; i < 10000; i++) {
		char *p = arena_strdup(a, "abcdefghij");

		assert_string_equal(p, "abcdefghij");
		assert_int_equal((uintptr_t)p % 16, 0);
	}
	big = arena_zalloc(a, 1 << 20);
	assert_int_equal(big[(1 << 20) - 1], 0);
	arena_reset(a);
	assert_int_equal(arena_used(a), 0);
	assert_string_equal(arena_strndup(a, "xyz", 2), "xy");
	arena_free(a);
	arena_free(NULL);
}

static void
test_utf8(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_true(utf8_valid("h\xc3\xa9llo", 6));
	assert_false(utf8_valid("\xc0\xaf", 2)); /* overlong */
	assert_false(utf8_valid("\xed\xa0\x80", 3)); /* surrogate */
	assert_false(utf8_valid("\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
	assert_false(utf8_valid("\xe2\x82", 2)); /* truncated */
	utf8_repair(&b, "a\xffz\0b", 5);
	assert_memory_equal(b.p,
	    "a\xef\xbf\xbdz\xef\xbf\xbd"
	    "b",
	    9);
	buf_free(&b);
}

static void
test_json(void **state)
{
	struct buf b = BUF_INIT;
	struct json j;

	(void)state;
	json_init(&j, &b, false);
	json_arr_begin(&j);
	json_obj_begin(&j);
	json_key(&j, "id");
	json_int(&j, 7);
	json_key(&j, "t");
	json_str(&j, "a\"b\\\n\x01\xff");
	json_key(&j, "n");
	json_null(&j);
	json_key(&j, "e");
	json_arr_begin(&j);
	json_arr_end(&j);
	json_key(&j, "b");
	json_bool(&j, true);
	json_obj_end(&j);
	json_str(&j, NULL);
	json_arr_end(&j);
	assert_string_equal(buf_cstr(&b),
	    "[{\"id\":7,\"t\":\"a\\\"b\\\\\\n\\u0001\xef\xbf\xbd\","
	    "\"n\":null,\"e\":[],\"b\":true},null]");
	buf_free(&b);
}

static void
test_time(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(time_from_civil(1970, 1, 1, 0, 0, 0), 0);
	assert_int_equal(time_from_civil(2026, 12, 3, 6, 53, 51), 1796280831);
	assert_int_equal(
	    time_fmt_rfc5322(out, sizeof(out), 1796280831, 60), ERR_OK);
	assert_string_equal(out, "Thu, 03 Dec 2026 07:53:51 +0100");
	assert_int_equal(time_fmt_iso(out, sizeof(out), 0), ERR_OK);
	assert_string_equal(out, "1970-01-01T00:00:00Z");
	assert_int_equal(time_fmt_iso(out, 5, 0), ERR_LIMIT);
	assert_int_equal(
	    time_fmt_git(out, sizeof(out), 1796280831, -330), ERR_OK);
	assert_string_equal(out, "2026-12-03 01:23:51 -0530");
}

static void
test_time_words(void **state)
{
	int64_t now = time_from_civil(2026, 12, 3, 12, 0, 0), t;
	char out[48];

	(void)state;
	assert_int_equal(time_fmt_date(out, sizeof(out), now), ERR_OK);
	assert_string_equal(out, "2026-12-03");
	assert_int_equal(time_fmt_ago(out, sizeof(out), now - 30, now), 0);
	assert_string_equal(out, "just now");
	time_fmt_ago(out, sizeof(out), now - 60, now);
	assert_string_equal(out, "1 minute ago");
	time_fmt_ago(out, sizeof(out), now - 3 * 86400 - 5, now);
	assert_string_equal(out, "3 days ago");
	time_fmt_ago(out, sizeof(out), now - 15 * 86400, now);
	assert_string_equal(out, "2 weeks ago");
	time_fmt_ago(out, sizeof(out), now - 800 * 86400, now);
	assert_string_equal(out, "2 years ago");
	time_fmt_ago(out, sizeof(out), now + 3600, now);
	assert_string_equal(out, "in the future");
	assert_int_equal(time_fmt_ago(out, 4, now - 90000, now), ERR_LIMIT);

	assert_int_equal(time_parse_iso("2026-12-03", &t), ERR_OK);
	assert_int_equal(t, time_from_civil(2026, 12, 3, 0, 0, 0));
	assert_int_equal(time_parse_iso("2026-12-03T06:53:51Z", &t), ERR_OK);
	assert_int_equal(t, 1796280831);
	assert_int_equal(time_parse_iso("2026-12-03 06:53", &t), ERR_OK);
	assert_int_equal(t, 1796280780);
	assert_int_equal(time_parse_iso("2026-13-03", &t), ERR_PARSE);
	assert_int_equal(time_parse_iso("2026-12-3", &t), ERR_PARSE);
	assert_int_equal(time_parse_iso("2026-12-03T", &t), ERR_PARSE);
	assert_int_equal(time_parse_iso("2026-12-03x", &t), ERR_PARSE);
	assert_int_equal(time_parse_iso("yesterday", &t), ERR_PARSE);
}

static void
test_log_quote(void **state)
{
	char out[16];

	(void)state;
	assert_string_equal(log_quote(out, sizeof(out), "a\nb", 3), "a\\x0ab");
	assert_string_equal(
	    log_quote(out, sizeof(out), "0123456789abcdefghij", 20),
	    "0123456789ab...");
	assert_int_equal(ascii_strnicmp("ABC", "abd", 2), 0);
}

static void
unb64(const char *in, const char *want, bool want_bad)
{
	char out[256];
	bool bad = false;
	size_t n = base64_decode(out, in, strlen(in), &bad);

	assert_int_equal(n, strlen(want));
	assert_memory_equal(out, want, n);
	assert_int_equal(bad, want_bad);
}

static void
unqp(const char *in, bool q, const char *want, bool want_bad)
{
	char out[256];
	bool bad = false;
	size_t n = qp_decode(out, in, strlen(in), q, &bad);

	if (n != strlen(want) || memcmp(out, want, n) != 0)
		fail_msg("unqp \"%s\": got \"%.*s\"", in, (int)n, out);
	assert_int_equal(bad, want_bad);
}

/* The decoders, lenient as mail needs them. */
static void
test_decode(void **state)
{
	(void)state;
	unb64("aGVsbG8=", "hello", false);
	unb64("aGVsbG8", "hello", false);
	unb64("aGV\r\nsbG8\n", "hello", false);
	unb64("aGVs*bG8", "hello", true);
	unb64("aGVsbG8=aGk=", "hellohi", false);
	unb64("a", "", true);
	unb64("", "", false);
	unqp("caf=C3=A9", false, "caf\xc3\xa9", false);
	unqp("caf=c3=a9", false, "caf\xc3\xa9", false);
	unqp("abc=\r\ndef", false, "abcdef", false);
	unqp("abc=\ndef", false, "abcdef", false);
	unqp("abc= \t\ndef", false, "abcdef", false);
	unqp("a=", false, "a", false);
	unqp("a=zz b=4", false, "a=zz b=4", true);
	unqp("a_b", false, "a_b", false);
	unqp("a_b=20", true, "a b ", false);
	unqp("a=\nb", true, "a=\nb", true);
	unqp("line  \nnext", false, "line  \nnext", false);
}

/* RFC 4648 §10's vectors, and every length round trip. */
static void
test_base64(void **state)
{
	static const char *const vec[][2] = { { "", "" }, { "f", "Zg==" },
		{ "fo", "Zm8=" }, { "foo", "Zm9v" }, { "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" } };
	unsigned char all[256];
	char enc[400], dec[400];
	struct buf b = BUF_INIT;
	size_t i, n;
	bool bad;

	(void)state;
	for (i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		assert_int_equal(
		    base64_len(strlen(vec[i][0])), strlen(vec[i][1]));
		base64_encode(enc, vec[i][0], strlen(vec[i][0]));
		assert_string_equal(enc, vec[i][1]);
		buf_reset(&b);
		base64_encode_buf(&b, vec[i][0], strlen(vec[i][0]));
		assert_string_equal(buf_cstr(&b), vec[i][1]);
	}
	for (i = 0; i < sizeof(all); i++)
		all[i] = (unsigned char)(255 - i);
	for (n = 0; n <= sizeof(all); n++) {
		base64_encode(enc, all, n);
		bad = false;
		assert_int_equal(base64_decode(dec, enc, strlen(enc), &bad), n);
		assert_false(bad);
		assert_memory_equal(dec, all, n);
	}
	assert_true(base64_digit('+') && base64_digit('/') &&
	    base64_digit('z') && !base64_digit('=') && !base64_digit('-'));
	buf_free(&b);
}

static void
qp(const char *in, const char *want)
{
	struct buf b = BUF_INIT;
	char back[1024];
	size_t n;
	bool bad = false;

	qp_encode(&b, in, strlen(in));
	if (strcmp(buf_cstr(&b), want) != 0)
		fail_msg("qp \"%s\": got \"%s\"", in, buf_cstr(&b));
	/* Decoding gives the text back, with CRLF line ends. */
	n = qp_decode(back, b.p ? b.p : "", b.n, false, &bad);
	assert_false(bad);
	back[n] = '\0';
	{
		struct buf crlf = BUF_INIT;
		struct str rest = str_from(in), line;

		while (str_nextline(&rest, &line)) {
			buf_addstr(&crlf, line);
			buf_adds(&crlf, "\r\n");
		}
		assert_string_equal(back, buf_cstr(&crlf));
		buf_free(&crlf);
	}
	buf_free(&b);
}

/* RFC 2045 §6.7: escapes, blanks at a line end, soft breaks at 76. */
static void
test_qp_encode(void **state)
{
	char line[200];
	struct buf b = BUF_INIT;
	struct str rest, l;

	(void)state;
	qp("", "");
	qp("plain\n", "plain\r\n");
	qp("a=b\r\nc", "a=3Db\r\nc\r\n");
	qp("caf\xc3\xa9 ok", "caf=C3=A9 ok\r\n");
	qp("trailing \nand\ttab\t\n", "trailing=20\r\nand\ttab=09\r\n");
	qp("nul\001x", "nul=01x\r\n");
	memset(line, 'x', 150);
	line[150] = '\0';
	qp_encode(&b, line, 150);
	rest = buf_str(&b);
	while (str_nextline(&rest, &l))
		assert_true(l.n <= QP_LINE_MAX);
	assert_string_equal(b.p + b.n - 2, "\r\n");
	qp(line, buf_cstr(&b));
	/* An escape is never split by a soft break. */
	memset(line, '=', 60);
	line[60] = '\0';
	buf_reset(&b);
	qp_encode(&b, line, 60);
	rest = buf_str(&b);
	while (str_nextline(&rest, &l)) {
		assert_true(l.n <= QP_LINE_MAX);
		assert_true(
		    l.n % 3 == 0 || (l.n % 3 == 1 && l.p[l.n - 1] == '='));
	}
	qp(line, buf_cstr(&b));
	buf_free(&b);
}

/* A megabyte whole to a file (and back the same); an error with errno
 * for a descriptor that is not one. */
static void
test_fd_write_all(void **state)
{
	size_t n = 1 << 20, i;
	unsigned char *p = malloc(n), *q = malloc(n);
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(p);
	assert_non_null(q);
	assert_non_null(f);
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + i / 251);
	assert_int_equal(fd_write_all(fileno(f), p, n), 0);
	assert_int_equal(fd_write_all(fileno(f), p, 0), 0);
	rewind(f);
	assert_int_equal(fread(q, 1, n, f), n);
	assert_memory_equal(p, q, n);
	assert_int_equal(fgetc(f), EOF);
	fclose(f);
	errno = 0;
	assert_int_equal(fd_write_all(-1, p, 1), -1);
	assert_int_equal(errno, EBADF);
	free(p);
	free(q);
}

/* In a child with 0 and 2 closed: both open again (on /dev/null) and
 * the next file opened takes a number above 2; 1 is left as it was. */
static void
test_fd_std_open(void **state)
{
	int status, pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct stat a, b;
		int fd, bad = 0;

		close(0);
		close(2);
		if (fstat(1, &a) != 0 || fd_std_open() != 0)
			_exit(10);
		if (fcntl(0, F_GETFD) < 0 || fcntl(2, F_GETFD) < 0)
			bad |= 1;
		if (fstat(1, &b) != 0 || a.st_ino != b.st_ino ||
		    a.st_dev != b.st_dev)
			bad |= 2;
		if ((fd = open("/dev/null", O_RDONLY)) <= 2)
			bad |= 4;
		/* With 0-2 open it holds on to nothing. */
		close(fd);
		if (fd_std_open() != 0 || open("/dev/null", O_RDONLY) != fd)
			bad |= 8;
		_exit(bad);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* What a helper thread sees after thread_helper(): written by it. */
struct helper_seen {
	bool term, intr, hup, usr1;
	char name[16];
};

static void *
helper_thread(void *arg)
{
	struct helper_seen *s = arg;
	sigset_t cur;

	thread_helper("yard-test");
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	s->term = sigismember(&cur, SIGTERM) == 1;
	s->intr = sigismember(&cur, SIGINT) == 1;
	s->hup = sigismember(&cur, SIGHUP) == 1;
	s->usr1 = sigismember(&cur, SIGUSR1) == 1;
	pthread_getname_np(pthread_self(), s->name, sizeof(s->name));
	return NULL;
}

/* A helper blocks every signal and takes its name; the thread that
 * started it keeps its own mask. */
static void
test_thread_helper(void **state)
{
	struct helper_seen s = { false, false, false, false, "" };
	sigset_t cur;
	pthread_t th;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, helper_thread, &s), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_true(s.term && s.intr && s.hup && s.usr1);
	assert_string_equal(s.name, "yard-test");
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	assert_int_equal(sigismember(&cur, SIGTERM), 0);
}

/* libgit2's "is locked" for a permission error, said plainly; any other
 * message as it is. */
static void
test_gitmsg_plain(void **state)
{
	char out[256], want[256], small[16];
	const char *m;

	(void)state;
	m = gitmsg_plain(out, sizeof(out),
	    "failed open - '/a/refs/heads/master' is locked: "
	    "Permission denied");
	snprintf(want, sizeof(want),
	    "'/a/refs/heads/master' is not readable by uid %ld: "
	    "Permission denied",
	    (long)geteuid());
	assert_string_equal(m, want);
	m = gitmsg_plain(out, sizeof(out),
	    "failed unlink - '/a/x.lock' is locked: Operation not permitted");
	snprintf(want, sizeof(want),
	    "cannot unlink '/a/x.lock' (uid %ld): Operation not permitted",
	    (long)geteuid());
	assert_string_equal(m, want);
	m = "failed to lock file '/a/HEAD.lock' for writing";
	assert_ptr_equal(gitmsg_plain(out, sizeof(out), m), m);
	m = "failed open - '/a' is locked";
	assert_ptr_equal(gitmsg_plain(out, sizeof(out), m), m);
	assert_string_equal(
	    gitmsg_plain(out, sizeof(out), NULL), "unknown error");
	/* Too long for out: libgit2's words rather than a cut. */
	m = "failed open - '/a/refs/heads/master' is locked: Permission denied";
	assert_ptr_equal(gitmsg_plain(small, sizeof(small), m), m);
}

/* A user configuration that stat() cannot look at (a link to itself:
 * ELOOP, as root meets it) is reported; a missing one, or one under a
 * file, is not. */
static void
test_gitmsg_config(void **state)
{
	char dir[] = "/tmp/test_util.XXXXXX", sub[64], dirs[160];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/f", dir);
	assert_int_equal(close(open(sub, O_CREAT | O_WRONLY, 0644)), 0);
	snprintf(dirs, sizeof(dirs), "%s:%s:/nonexistent", dir, sub);
	assert_false(gitmsg_config_unreadable(dirs, ".gitconfig"));
	assert_false(gitmsg_config_unreadable("", ".gitconfig"));
	snprintf(sub, sizeof(sub), "%s/.gitconfig", dir);
	assert_int_equal(symlink(".gitconfig", sub), 0);
	log_set_level(LOG_ERR);
	assert_true(gitmsg_config_unreadable(dirs, ".gitconfig"));
	snprintf(dirs, sizeof(dirs), "/nonexistent:%s", dir);
	assert_true(gitmsg_config_unreadable(dirs, ".gitconfig"));
	log_set_level(LOG_WARN);
	unlink(sub);
	snprintf(sub, sizeof(sub), "%s/f", dir);
	unlink(sub);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_cap),
		cmocka_unit_test(test_str),
		cmocka_unit_test(test_arena),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_time_words),
		cmocka_unit_test(test_log_quote),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_qp_encode),
		cmocka_unit_test(test_fd_write_all),
		cmocka_unit_test(test_fd_std_open),
		cmocka_unit_test(test_thread_helper),
		cmocka_unit_test(test_gitmsg_plain),
		cmocka_unit_test(test_gitmsg_config),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
