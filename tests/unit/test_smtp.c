/*
 * Tests of bot/mailout/smtp.c against a real SMTP server on loopback:
 * tests/integration/smtpd.py (aiosmtpd), started by each test on a free
 * port, told how to misbehave, and always killed and reaped in the
 * teardown.  Certificates are made here with openssl.  Every test skips
 * when /usr/bin/python3 cannot import aiosmtpd or openssl is missing.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/mailout/mailout.h"
#include "bot/mailout/outbox.h"
#include "bot/mailout/smtp.h"
#include "storage/store.h"
#include "storage/store_outbox.h"
#include "testutil.h"
#include "util/log.h"
#include "util/qp.h"

#define FROM "patchyard@yard.example.org"
#define SMTPD "tests/integration/smtpd.py"

static bool deps; /* python3 with aiosmtpd, and openssl */
static char dir[64]; /* the test's scratch directory */
static char pin_hex[65]; /* SHA-256 of cert.pem's public key */
static char message[8192]; /* the composed mail every test sends */
static size_t message_len;

/* The server of the current test. */
static struct {
	pid_t pid;
	int port;
	char maildir[128];
	char control[128];
} srv;

/* ---- helpers ----------------------------------------------------------- */

static void
path(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

/* Sleep a little: polling for a server, never timing a result. */
static void
nap(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

static int
free_port(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* Start smtpd.py with extra arguments (NULL-terminated) on port (0: any
 * free one); waits until it listens. */
static void
start_server(int port, ...)
{
	static int starts;
	const char *argv[40];
	char portfile[160], portarg[16], logfile[160];
	int argc = 0, fd;
	va_list ap;
	size_t n;
	char *text;

	starts++;
	snprintf(portfile, sizeof(portfile), "%s/port.%d", dir, starts);
	unlink(portfile);
	snprintf(logfile, sizeof(logfile), "%s/smtpd.log", dir);
	snprintf(portarg, sizeof(portarg), "%d", port);
	argv[argc++] = "/usr/bin/python3";
	argv[argc++] = SMTPD;
	argv[argc++] = "--maildir";
	argv[argc++] = srv.maildir;
	argv[argc++] = "--control";
	argv[argc++] = srv.control;
	argv[argc++] = "--port";
	argv[argc++] = portarg;
	argv[argc++] = "--port-file";
	argv[argc++] = portfile;
	va_start(ap, port);
	while (argc < 38 && (argv[argc] = va_arg(ap, const char *)) != NULL)
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	srv.pid = fork();
	assert_true(srv.pid >= 0);
	if (srv.pid == 0) {
		fd = open(logfile, O_WRONLY | O_CREAT | O_APPEND, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	for (n = 0; n < 1000; n++) { /* 20 s at most */
		if ((text = tu_read_file(portfile, NULL)) != NULL) {
			srv.port = atoi(text);
			free(text);
			return;
		}
		if (waitpid(srv.pid, NULL, WNOHANG) == srv.pid) {
			srv.pid = 0;
			fail_msg("smtpd.py exited at start, see %s", logfile);
		}
		nap();
	}
	fail_msg("smtpd.py did not start, see %s", logfile);
}

/* Wait for the server to exit by itself; false after 5 s. */
static bool
reap(int *status)
{
	int i;

	for (i = 0; i < 250; i++) {
		if (waitpid(srv.pid, status, WNOHANG) == srv.pid) {
			srv.pid = 0;
			return true;
		}
		nap();
	}
	return false;
}

/* Kill and reap the server (it may be gone already). */
static void
stop_server(void)
{
	int i;

	if (srv.pid <= 0)
		return;
	kill(srv.pid, SIGTERM);
	for (i = 0; i < 250; i++) {
		if (waitpid(srv.pid, NULL, WNOHANG) == srv.pid)
			break;
		nap();
	}
	if (i == 250) {
		kill(srv.pid, SIGKILL);
		waitpid(srv.pid, NULL, 0);
	}
	srv.pid = 0;
}

static void
set_mode(const char *mode)
{
	FILE *f = fopen(srv.control, "w");

	assert_non_null(f);
	fprintf(f, "%s\n", mode);
	fclose(f);
}

/* Mails delivered into the Maildir so far; *last gets the newest one's
 * contents when asked (free it). */
static int
delivered(char **last)
{
	char newdir[160], file[512], best[256] = "";
	struct dirent *de;
	DIR *d;
	int count = 0;

	snprintf(newdir, sizeof(newdir), "%s/new", srv.maildir);
	if ((d = opendir(newdir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		count++;
		if (strcmp(de->d_name, best) > 0)
			snprintf(best, sizeof(best), "%s", de->d_name);
	}
	closedir(d);
	if (last && count) {
		snprintf(file, sizeof(file), "%s/%s", newdir, best);
		*last = tu_read_file(file, NULL);
	}
	return count;
}

/* A count the server keeps in its --stats file ("connections", "mails",
 * "dropped"); -1 when the file or the line is missing. */
static int
server_count(const char *what)
{
	char file[160], *text, *p;
	int v = -1;

	snprintf(file, sizeof(file), "%s/stats", dir);
	if ((text = tu_read_file(file, NULL)) == NULL)
		return -1;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, what, strlen(what)) == 0 &&
		    p[strlen(what)] == ' ')
			v = atoi(p + strlen(what) + 1);
	free(text);
	return v;
}

static int
test_setup(void **state)
{
	(void)state;
	memset(&srv, 0, sizeof(srv));
	if (deps) {
		/* A fresh Maildir the server creates itself (PLATFORM.md). */
		static int n;

		n++;
		snprintf(
		    srv.maildir, sizeof(srv.maildir), "%s/Maildir%d", dir, n);
		snprintf(
		    srv.control, sizeof(srv.control), "%s/control%d", dir, n);
	}
	return 0;
}

static int
test_teardown(void **state)
{
	(void)state;
	stop_server();
	return 0;
}

/* A relay configuration for the current server. */
static struct smtp_config
relay(const char *scheme, enum conf_tls tls)
{
	static char url[64];
	struct smtp_config c;

	memset(&c, 0, sizeof(c));
	snprintf(url, sizeof(url), "%s://127.0.0.1:%d", scheme, srv.port);
	c.url = url;
	c.starttls = tls;
	c.connect_timeout = 10;
	c.timeout = 20;
	return c;
}

static enum smtp_status
send_with(const struct smtp_config *c, const char *rcpts, struct smtp_result *r)
{
	struct smtp *s = NULL;
	enum smtp_status st;

	assert_int_equal(smtp_new(c, &s), ERR_OK);
	st = smtp_send(s, FROM, rcpts, message, message_len, r);
	smtp_free(s);
	return st;
}

#define RCPTS "jane.hacker@example.com\nlinux-mm@kvack.example.org\n"

/* Send the test mail with c; return the status. */
static enum smtp_status
send_one(const struct smtp_config *c, struct smtp_result *r)
{
	return send_with(c, RCPTS, r);
}

/* The delivered file is the trace fields plus exactly our bytes. */
static void
check_delivery(const char *tls, const char *auth)
{
	char *got = NULL, want[256];
	const char *body;

	assert_int_equal(delivered(&got), 1);
	assert_non_null(got);
	snprintf(want, sizeof(want),
	    "X-Smtpd-Mail-From: " FROM "\r\n"
	    "X-Smtpd-Rcpt-To: jane.hacker@example.com, "
	    "linux-mm@kvack.example.org\r\n"
	    "X-Smtpd-Tls: %s\r\nX-Smtpd-Auth: %s\r\n",
	    tls, auth);
	assert_true(strncmp(got, want, strlen(want)) == 0);
	body = got + strlen(want);
	assert_int_equal(strlen(body), message_len);
	assert_memory_equal(body, message, message_len);
	free(got);
}

/* ---- group setup: certificates and the test mail ------------------------ */

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int
sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static void
make_cert(const char *name)
{
	assert_int_equal(sh("cd %s && openssl req -x509 -newkey ec "
	                    "-pkeyopt ec_paramgen_curve:prime256v1 -nodes "
	                    "-keyout %s.key -out %s.pem -days 2 "
	                    "-subj /CN=localhost -addext "
	                    "subjectAltName=DNS:localhost,IP:127.0.0.1 "
	                    ">/dev/null 2>&1",
	                     dir, name, name),
	    0);
}

static void
make_message(void)
{
	static const struct mailout_addr to = { "Jane Hacker",
		"jane.hacker@example.com" };
	static const struct mailout_addr cc = { NULL,
		"linux-mm@kvack.example.org" };
	static const char body[] = "The patch titled\n"
	                           "     Subject: mm: fix the frobnicator\n"
	                           "has been added to the unstable queue.\n"
	                           ".\n"
	                           ".. a line that starts with dots\n"
	                           "..\n"
	                           "J\xc3\xb6rg says hello.\n";
	struct mailout_msg m;
	struct buf msg = BUF_INIT, rcpts = BUF_INIT;

	memset(&m, 0, sizeof(m));
	m.from_email = FROM;
	m.to = &to;
	m.nto = 1;
	m.cc = &cc;
	m.ncc = 1;
	m.subject = "[PATCH] mm: fix the frobnicator";
	m.message_id = "1772366400.0123456789abcdef.staged@yard.example.org";
	m.date = 1772366400;
	m.in_reply_to = "20260301120000.4242-1-jane.hacker@example.com";
	m.event = "staged";
	m.body = body;
	m.body_len = sizeof(body) - 1;
	assert_int_equal(mailout_compose(&m, &msg, &rcpts), ERR_OK);
	assert_string_equal(buf_cstr(&rcpts), RCPTS);
	assert_true(msg.n < sizeof(message));
	memcpy(message, msg.p, msg.n);
	message_len = msg.n;
	buf_free(&msg);
	buf_free(&rcpts);
}

static int
group_setup(void **state)
{
	char cmd[512];
	FILE *f;

	(void)state;
	make_message();
	deps =
	    sh("/usr/bin/python3 -c 'import aiosmtpd' >/dev/null 2>&1") == 0 &&
	    sh("openssl version >/dev/null 2>&1") == 0;
	if (!deps)
		return 0;
	strcpy(dir, "/tmp/test_smtp.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	make_cert("cert");
	make_cert("other");
	snprintf(cmd, sizeof(cmd),
	    "openssl x509 -in %s/cert.pem -pubkey -noout | "
	    "openssl pkey -pubin -outform der | openssl dgst -sha256 -r",
	    dir);
	if ((f = popen(cmd, "r")) == NULL || fread(pin_hex, 1, 64, f) != 64 ||
	    pclose(f) != 0)
		return -1;
	/* Curl's own messages appear at debug level only. */
	log_set_level(LOG_WARN);
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	if (deps && dir[0] && getenv("PATCHYARD_KEEP_TMP") == NULL)
		sh("rm -rf %s", dir);
	return 0;
}

#define NEED_DEPS()                                                            \
	do {                                                                   \
		(void)state;                                                   \
		if (!deps)                                                     \
			skip();                                                \
	} while (0)

/* ---- tests ------------------------------------------------------------- */

static void
test_plain(void **state)
{
	struct smtp_config c;
	struct smtp_result r;

	NEED_DEPS();
	smtp_result_init(&r);
	start_server(0, NULL);
	c = relay("smtp", CONF_TLS_NEVER);
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	assert_int_equal(r.code, 250);
	assert_string_equal(r.last_error, "");
	assert_int_equal(r.rejected.n + r.deferred.n, 0);
	check_delivery("no", "-");
	/* try: a server without STARTTLS gets plain text. */
	c.starttls = CONF_TLS_TRY;
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	assert_int_equal(delivered(NULL), 2);
	smtp_result_free(&r);
}

static void
test_tls_required_not_offered(void **state)
{
	struct smtp_config c;
	struct smtp_result r;

	NEED_DEPS();
	smtp_result_init(&r);
	start_server(0, NULL);
	c = relay("smtp", CONF_TLS_REQUIRED);
	assert_int_equal(send_one(&c, &r), SMTP_CONFIG);
	assert_int_equal(delivered(NULL), 0);
	assert_true(strlen(r.last_error) > 0);
	smtp_result_free(&r);
}

static void
test_starttls(void **state)
{
	char cert[160], key[160], other[160];
	struct smtp_config c;
	struct smtp_result r;

	NEED_DEPS();
	smtp_result_init(&r);
	path(cert, sizeof(cert), "cert.pem");
	path(key, sizeof(key), "cert.key");
	path(other, sizeof(other), "other.pem");
	start_server(0, "--starttls", "--require-starttls", "--tls-cert", cert,
	    "--tls-key", key, NULL);
	c = relay("smtp", CONF_TLS_REQUIRED);
	c.ca_file = cert;
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	check_delivery("yes", "-");
	/* try upgrades too when STARTTLS is offered. */
	c.starttls = CONF_TLS_TRY;
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	assert_int_equal(delivered(NULL), 2);
	/* A certificate our CA did not sign: never delivered. */
	c.starttls = CONF_TLS_REQUIRED;
	c.ca_file = other;
	assert_int_equal(send_one(&c, &r), SMTP_CONFIG);
	c.starttls = CONF_TLS_TRY;
	assert_int_equal(send_one(&c, &r), SMTP_CONFIG);
	assert_int_equal(delivered(NULL), 2);
	smtp_result_free(&r);
}

static void
test_implicit_tls_and_pin(void **state)
{
	char cert[160], key[160], other[160], pin[80];
	struct smtp_config c;
	struct smtp_result r;

	NEED_DEPS();
	smtp_result_init(&r);
	path(cert, sizeof(cert), "cert.pem");
	path(key, sizeof(key), "cert.key");
	path(other, sizeof(other), "other.pem");
	start_server(
	    0, "--implicit-tls", "--tls-cert", cert, "--tls-key", key, NULL);
	c = relay("smtps", CONF_TLS_NEVER); /* smtps is TLS regardless */
	c.ca_file = cert;
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	check_delivery("yes", "-");
	c.ca_file = other;
	assert_int_equal(send_one(&c, &r), SMTP_CONFIG);
	assert_int_equal(delivered(NULL), 1);
	/* The right public key, in both spellings. */
	c.ca_file = cert;
	c.pin_sha256 = pin_hex;
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	snprintf(pin, sizeof(pin), "%.2s:%s", pin_hex, pin_hex + 2);
	c.pin_sha256 = pin;
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	assert_int_equal(delivered(NULL), 3);
	/* Another key: refused before any mail goes out. */
	memcpy(pin, pin_hex, 65);
	pin[0] = pin[0] == '0' ? '1' : '0';
	c.pin_sha256 = pin;
	assert_int_equal(send_one(&c, &r), SMTP_CONFIG);
	assert_int_equal(delivered(NULL), 3);
	smtp_result_free(&r);
}

static void
test_auth(void **state)
{
	char cert[160], key[160];
	struct smtp_config c;
	struct smtp_result r;

	NEED_DEPS();
	smtp_result_init(&r);
	path(cert, sizeof(cert), "cert.pem");
	path(key, sizeof(key), "cert.key");
	start_server(0, "--auth", "yard:s3cret", "--starttls", "--tls-cert",
	    cert, "--tls-key", key, NULL);
	c = relay("smtp", CONF_TLS_REQUIRED);
	c.ca_file = cert;
	c.user = "yard";
	c.password = "s3cret";
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	check_delivery("yes", "yard");
	/* A wrong password: the operator's problem, not the mail's. */
	c.password = "wrong";
	assert_int_equal(send_one(&c, &r), SMTP_CONFIG);
	assert_int_equal(r.code, 535);
	assert_true(strncmp(r.last_error, "535", 3) == 0);
	/* No credentials where the relay wants them. */
	c.user = c.password = NULL;
	assert_int_equal(send_one(&c, &r), SMTP_CONFIG);
	assert_int_equal(r.code, 530);
	assert_int_equal(delivered(NULL), 1);
	smtp_result_free(&r);
}

static void
test_auth_plain_text(void **state)
{
	struct smtp_config c;
	struct smtp_result r;

	NEED_DEPS();
	smtp_result_init(&r);
	start_server(0, "--auth", "yard:s3cret", NULL);
	c = relay("smtp", CONF_TLS_NEVER);
	c.user = "yard";
	c.password = "s3cret";
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	check_delivery("no", "yard");
	c.password = "s3cre";
	assert_int_equal(send_one(&c, &r), SMTP_CONFIG);
	assert_int_equal(delivered(NULL), 1);
	smtp_result_free(&r);
}

static void
test_tempfail_then_accept(void **state)
{
	struct smtp_config c;
	struct smtp_result r;

	NEED_DEPS();
	smtp_result_init(&r);
	start_server(0, NULL);
	set_mode("tempfail-data");
	c = relay("smtp", CONF_TLS_NEVER);
	assert_int_equal(send_one(&c, &r), SMTP_TEMP);
	assert_int_equal(r.code, 451);
	assert_true(strncmp(r.last_error, "451 4.3.0 ", 10) == 0);
	assert_int_equal(delivered(NULL), 0);
	set_mode("tempfail-rcpt");
	assert_int_equal(send_one(&c, &r), SMTP_TEMP);
	assert_string_equal(buf_cstr(&r.deferred), RCPTS);
	assert_int_equal(delivered(NULL), 0);
	/* The relay recovers: the retry delivers exactly once. */
	set_mode("accept");
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	check_delivery("no", "-");
	smtp_result_free(&r);
}

static void
test_reject(void **state)
{
	struct smtp_config c;
	struct smtp_result r;

	NEED_DEPS();
	smtp_result_init(&r);
	start_server(0, NULL);
	set_mode("reject-data");
	c = relay("smtp", CONF_TLS_NEVER);
	assert_int_equal(send_one(&c, &r), SMTP_PERM);
	assert_int_equal(r.code, 550);
	assert_string_equal(r.last_error, "550 5.7.1 Message rejected");
	set_mode("reject-rcpt");
	assert_int_equal(send_one(&c, &r), SMTP_PERM);
	assert_string_equal(buf_cstr(&r.rejected), RCPTS);
	assert_int_equal(delivered(NULL), 0);
	smtp_result_free(&r);
}

static void
test_some_recipients_refused(void **state)
{
	struct smtp_config c;
	struct smtp_result r;
	char *got = NULL;

	NEED_DEPS();
	smtp_result_init(&r);
	start_server(0, "--reject", "gone@example.org", "--defer",
	    "greylist@example.net", NULL);
	c = relay("smtp", CONF_TLS_NEVER);
	assert_int_equal(send_with(&c,
	                     "gone@example.org\njane.hacker@example.com\n"
	                     "greylist@example.net\nnot an address\n"
	                     "x@y.org>\r\nDATA\n",
	                     &r),
	    SMTP_OK);
	assert_string_equal(buf_cstr(&r.rejected),
	    "not an address\nx@y.org>\nDATA\ngone@example.org\n");
	assert_string_equal(buf_cstr(&r.deferred), "greylist@example.net\n");
	assert_true(strncmp(r.last_error, "451 ", 4) == 0);
	assert_int_equal(delivered(&got), 1);
	assert_non_null(
	    strstr(got, "X-Smtpd-Rcpt-To: jane.hacker@example.com\r\n"));
	free(got);
	/* Nobody valid: nothing is sent. */
	assert_int_equal(send_with(&c, "bad\n\n", &r), SMTP_PERM);
	assert_string_equal(buf_cstr(&r.rejected), "bad\n");
	smtp_result_free(&r);
}

static void
test_dropped_mid_data(void **state)
{
	struct smtp_config c;
	struct smtp_result r;

	NEED_DEPS();
	smtp_result_init(&r);
	start_server(0, NULL);
	set_mode("drop-data");
	c = relay("smtp", CONF_TLS_NEVER);
	assert_int_equal(send_one(&c, &r), SMTP_TEMP);
	assert_int_equal(r.code, 354);
	assert_true(strlen(r.last_error) > 0);
	assert_int_equal(delivered(NULL), 0);
	set_mode("accept");
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	check_delivery("no", "-");
	smtp_result_free(&r);
}

/* The same over TLS: a write into a closed TLS connection must come back
 * as an error, not kill us with SIGPIPE. */
static enum smtp_status
send_big(
    const struct smtp_config *c, const struct buf *m, struct smtp_result *r)
{
	struct smtp *s = NULL;
	enum smtp_status st;

	assert_int_equal(smtp_new(c, &s), ERR_OK);
	st = smtp_send(s, FROM, RCPTS, m->p, m->n, r);
	smtp_free(s);
	return st;
}

static void
test_dropped_mid_data_tls(void **state)
{
	struct buf big = BUF_INIT;
	char cert[160], key[160];
	struct smtp_config c;
	struct smtp_result r;

	NEED_DEPS();
	smtp_result_init(&r);
	path(cert, sizeof(cert), "cert.pem");
	path(key, sizeof(key), "cert.key");
	start_server(0, "--implicit-tls", "--tls-cert", cert, "--tls-key", key,
	    "--mode", "drop-data", NULL);
	c = relay("smtps", CONF_TLS_REQUIRED);
	c.ca_file = cert;
	/* Several MB, so that curl is still writing when the server goes. */
	buf_add(&big, message, message_len);
	while (big.n < 4 * 1024 * 1024)
		buf_adds(&big,
		    "0123456789012345678901234567890123456789012345"
		    "678901234567890123456789\r\n");
	assert_true(send_big(&c, &big, &r) == SMTP_TEMP);
	buf_free(&big);
	assert_int_equal(delivered(NULL), 0);
	set_mode("accept");
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	check_delivery("yes", "-");
	smtp_result_free(&r);
}

static void
test_killed_mid_data(void **state)
{
	struct smtp_config c;
	struct smtp_result r;
	int status = 0, port;

	NEED_DEPS();
	smtp_result_init(&r);
	start_server(0, NULL);
	port = srv.port;
	set_mode("die-data");
	c = relay("smtp", CONF_TLS_NEVER);
	assert_int_equal(send_one(&c, &r), SMTP_TEMP);
	assert_true(reap(&status));
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	assert_int_equal(delivered(NULL), 0);
	/* The server is down now: still temporary. */
	assert_int_equal(send_one(&c, &r), SMTP_TEMP);
	assert_int_equal(r.code, 0);
	/* Back on the same port: delivered exactly once. */
	set_mode("accept");
	start_server(port, NULL);
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	check_delivery("no", "-");
	smtp_result_free(&r);
}

static void
test_acknowledged_then_dropped(void **state)
{
	struct smtp_config c;
	struct smtp_result r;

	NEED_DEPS();
	smtp_result_init(&r);
	start_server(0, NULL);
	set_mode("drop-after-ack");
	c = relay("smtp", CONF_TLS_NEVER);
	/* The relay said 250 to the data: sent, whatever happens after. */
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	check_delivery("no", "-");
	smtp_result_free(&r);
}

static void
test_server_down(void **state)
{
	struct smtp_config c;
	struct smtp_result r;

	NEED_DEPS();
	smtp_result_init(&r);
	srv.port = free_port();
	c = relay("smtp", CONF_TLS_REQUIRED);
	assert_int_equal(send_one(&c, &r), SMTP_TEMP);
	assert_int_equal(r.code, 0);
	assert_non_null(strstr(r.last_error, "onnect"));
	/* It comes up: the next attempt delivers. */
	start_server(srv.port, NULL);
	c.starttls = CONF_TLS_NEVER;
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	check_delivery("no", "-");
	smtp_result_free(&r);
}

static void
test_silent_server(void **state)
{
	struct smtp_config c;
	struct smtp_result r;

	NEED_DEPS();
	smtp_result_init(&r);
	start_server(0, "--mode", "hang", NULL);
	c = relay("smtp", CONF_TLS_NEVER);
	c.timeout = 1;
	assert_int_equal(send_one(&c, &r), SMTP_TEMP);
	assert_int_equal(delivered(NULL), 0);
	smtp_result_free(&r);
}

static void
test_config_checks(void **state)
{
	static const char *const bad_urls[] = { "http://relay.example.org",
		"relay.example.org", "smtp://user:pw@relay.example.org",
		"smtp://", "" };
	struct smtp_config c;
	struct smtp *s = NULL;
	size_t i;

	(void)state;
	memset(&c, 0, sizeof(c));
	for (i = 0; i < sizeof(bad_urls) / sizeof(bad_urls[0]); i++) {
		c.url = bad_urls[i];
		assert_int_equal(smtp_new(&c, &s), ERR_CONFIG);
		assert_null(s);
	}
	c.url = NULL;
	assert_int_equal(smtp_new(&c, &s), ERR_CONFIG);
	c.url = "smtps://relay.example.org:465";
	assert_int_equal(smtp_new(&c, &s), ERR_OK);
	smtp_free(s);
	c.ca_file = "/nonexistent/ca.pem";
	assert_int_equal(smtp_new(&c, &s), ERR_CONFIG);
	c.ca_file = NULL;
	c.pin_sha256 = "abcd";
	assert_int_equal(smtp_new(&c, &s), ERR_CONFIG);
	c.pin_sha256 = "sha256//too-short";
	assert_int_equal(smtp_new(&c, &s), ERR_CONFIG);
	c.pin_sha256 = "sha256//ypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLs=;"
	               "sha256//PiPoFgA5WUoziU9lZOGxNIu9egCI1CxKy3PurtWcAJ0=";
	assert_int_equal(smtp_new(&c, &s), ERR_OK);
	smtp_free(s);
	c.pin_sha256 = NULL;
	c.user = "yard";
	assert_int_equal(smtp_new(&c, &s), ERR_CONFIG);
	c.password = "pw";
	c.helo = "bad name\r\n";
	assert_int_equal(smtp_new(&c, &s), ERR_CONFIG);
	c.helo = "yard.example.org";
	assert_int_equal(smtp_new(&c, &s), ERR_OK);
	smtp_free(s);
	smtp_free(NULL);
}

/*
 * A relay that does not offer 8BITMIME gets the 8bit body (the test mail
 * says "J\xc3\xb6rg") quoted-printable: only 7-bit bytes go out, the
 * header but for Content-Transfer-Encoding is as composed, and the body
 * decodes back to the composed one (RFC 6152 section 3).
 */
static void
test_no_8bitmime(void **state)
{
	struct smtp_config c;
	struct smtp_result r;
	char *got = NULL, *want_head, *p;
	const char *body, *mine;
	size_t i, n;

	NEED_DEPS();
	start_server(0, "--no-8bitmime", NULL);
	c = relay("smtp", CONF_TLS_NEVER);
	smtp_result_init(&r);
	assert_int_equal(send_one(&c, &r), SMTP_OK);
	assert_int_equal(delivered(&got), 1);
	for (i = 0; got[i]; i++)
		assert_true((unsigned char)got[i] < 0x80);
	assert_non_null(
	    strstr(got, "\r\nContent-Transfer-Encoding: quoted-printable\r\n"));
	/* Our header, with the one field changed. */
	mine = strstr(message, "\r\n\r\n");
	want_head = strndup(message, (size_t)(mine - message) + 4);
	p = strstr(want_head, "Content-Transfer-Encoding: 8bit");
	assert_non_null(p);
	body = strstr(got, want_head);
	assert_null(body);
	*p = '\0';
	body = strstr(got, want_head);
	assert_non_null(body);
	body = strstr(body, "\r\n\r\n") + 4;
	{
		char *dec = malloc(strlen(body) + 1);

		n = qp_decode(dec, body, strlen(body), false, NULL);
		assert_int_equal(n, strlen(mine + 4));
		assert_memory_equal(dec, mine + 4, n);
		free(dec);
	}
	free(want_head);
	free(got);
	smtp_result_free(&r);
}

/*
 * One session (DESIGN.md §8): ten mails through one struct smtp go over
 * one connection, the first opening it and the others using it.
 */
static void
test_one_session(void **state)
{
	struct smtp_config c;
	struct smtp_result r;
	struct smtp *s = NULL;
	char stats[160];
	int i;

	NEED_DEPS();
	path(stats, sizeof(stats), "stats");
	unlink(stats);
	start_server(0, "--stats", stats, NULL);
	c = relay("smtp", CONF_TLS_NEVER);
	smtp_result_init(&r);
	assert_int_equal(smtp_new(&c, &s), ERR_OK);
	for (i = 0; i < 10; i++) {
		assert_int_equal(
		    smtp_send(s, FROM, RCPTS, message, message_len, &r),
		    SMTP_OK);
		assert_int_equal(r.connects, i == 0 ? 1 : 0);
		assert_false(r.reconnected);
	}
	smtp_free(s);
	assert_int_equal(delivered(NULL), 10);
	assert_int_equal(server_count("connections"), 1);
	assert_int_equal(server_count("mails"), 10);
	smtp_result_free(&r);
}

/*
 * One session over STARTTLS with AUTH: the handshake, the login and the
 * EHLO after it happen once, and what that EHLO said of 8BITMIME holds
 * for every mail of the session (8bit as composed when offered,
 * quoted-printable when not), though later mails see no EHLO at all.
 */
static void
session_tls(bool offer_8bit)
{
	char cert[160], key[160], stats[160], *got = NULL;
	struct smtp_config c;
	struct smtp_result r;
	struct smtp *s = NULL;
	int i;

	path(cert, sizeof(cert), "cert.pem");
	path(key, sizeof(key), "cert.key");
	path(stats, sizeof(stats), "stats");
	unlink(stats);
	start_server(0, "--stats", stats, "--starttls", "--require-starttls",
	    "--tls-cert", cert, "--tls-key", key, "--auth", "yard:sesame",
	    offer_8bit ? NULL : "--no-8bitmime", NULL);
	c = relay("smtp", CONF_TLS_REQUIRED);
	c.ca_file = cert;
	c.user = "yard";
	c.password = "sesame";
	smtp_result_init(&r);
	assert_int_equal(smtp_new(&c, &s), ERR_OK);
	for (i = 0; i < 3; i++) {
		assert_int_equal(
		    smtp_send(s, FROM, RCPTS, message, message_len, &r),
		    SMTP_OK);
		assert_int_equal(delivered(&got), i + 1);
		assert_non_null(strstr(got, "X-Smtpd-Tls: yes\r\n"));
		assert_non_null(strstr(got, "X-Smtpd-Auth: yard\r\n"));
		assert_true((strstr(got, "J\xc3\xb6rg") != NULL) == offer_8bit);
		assert_true(
		    (strstr(got, "quoted-printable") != NULL) == !offer_8bit);
		free(got);
		got = NULL;
	}
	smtp_free(s);
	assert_int_equal(server_count("connections"), 1);
	smtp_result_free(&r);
}

static void
test_session_tls_8bit(void **state)
{
	NEED_DEPS();
	session_tls(true);
}

static void
test_session_tls_7bit(void **state)
{
	NEED_DEPS();
	session_tls(false);
}

/*
 * The relay closes the session's connection at the fifth MAIL FROM,
 * without a word: that mail goes again at once over a new connection, and
 * every mail is delivered once.
 */
static void
test_session_dropped(void **state)
{
	struct smtp_config c;
	struct smtp_result r;
	struct smtp *s = NULL;
	char stats[160];
	int i;

	NEED_DEPS();
	path(stats, sizeof(stats), "stats");
	unlink(stats);
	start_server(0, "--stats", stats, "--drop-at-mail", "5", NULL);
	c = relay("smtp", CONF_TLS_NEVER);
	smtp_result_init(&r);
	assert_int_equal(smtp_new(&c, &s), ERR_OK);
	for (i = 0; i < 10; i++) {
		assert_int_equal(
		    smtp_send(s, FROM, RCPTS, message, message_len, &r),
		    SMTP_OK);
		assert_int_equal(r.reconnected, i == 4);
		assert_int_equal(r.connects, i == 0 || i == 4 ? 1 : 0);
	}
	smtp_free(s);
	assert_int_equal(delivered(NULL), 10);
	assert_int_equal(server_count("dropped"), 1);
	assert_int_equal(server_count("connections"), 2);
	smtp_result_free(&r);
}

/* A connection made for the mail that the relay drops is the mail's own
 * failure: no second try at once (it waits for its back-off). */
static void
test_fresh_connection_dropped(void **state)
{
	struct smtp_config c;
	struct smtp_result r;
	char stats[160];

	NEED_DEPS();
	path(stats, sizeof(stats), "stats");
	unlink(stats);
	start_server(0, "--stats", stats, "--drop-at-mail", "1", NULL);
	c = relay("smtp", CONF_TLS_NEVER);
	smtp_result_init(&r);
	assert_int_equal(send_one(&c, &r), SMTP_TEMP);
	assert_false(r.reconnected);
	assert_false(r.unreachable);
	assert_int_equal(server_count("connections"), 1);
	assert_int_equal(delivered(NULL), 0);
	smtp_result_free(&r);
}

/* ---- the outbox ---------------------------------------------------------- */

/* A database in the scratch folder with the test mail queued. */
static struct store *
outbox_db(int64_t *id)
{
	static int n;
	char path[160];
	struct store *st;
	struct store_outbox o;

	snprintf(path, sizeof(path), "%s/outbox%d.db", dir, ++n);
	assert_int_equal(store_open(path, STORE_CREATE, &st), ERR_OK);
	memset(&o, 0, sizeof(o));
	o.kind = "staged";
	o.message_id = "1772366400.0123456789abcdef.staged@yard.example.org";
	o.rcpt = RCPTS;
	o.body = message;
	o.body_len = message_len;
	o.state = "queued";
	o.created = time(NULL);
	assert_int_equal(store_begin(st), ERR_OK);
	assert_int_equal(store_outbox_add(st, &o, id), ERR_OK);
	assert_int_equal(store_commit(st), ERR_OK);
	return st;
}

static void
outbox_conf(struct config *c)
{
	static char url[64];

	memset(c, 0, sizeof(*c));
	snprintf(url, sizeof(url), "smtp://127.0.0.1:%d", srv.port);
	c->smtp_url = url;
	c->smtp_starttls = CONF_TLS_NEVER;
	c->bot_address = FROM;
}

/*
 * The relay took the mail, and the database is busy when its fate is to
 * be recorded: recording is retried until it is written, so the next
 * run does not send the mail again (issue 16).
 */
static void
test_outbox_busy_after_accept(void **state)
{
	struct config c;
	struct store *st;
	struct store_outbox o;
	struct arena *a = arena_new();
	struct outbox_stats os;
	int64_t id;

	NEED_DEPS();
	start_server(0, NULL);
	outbox_conf(&c);
	st = outbox_db(&id);
	store_fault_busy(st, "begin", 2);
	outbox_send(st, &c, false, &os);
	assert_int_equal(delivered(NULL), 1);
	assert_int_equal(store_outbox_get(st, a, id, &o), ERR_OK);
	assert_string_equal(o.state, "sent");
	assert_int_equal(o.attempts, 1);
	assert_int_equal(outbox_send(st, &c, true, &os), ERR_OK);
	assert_int_equal(os.sent, 0);
	assert_int_equal(delivered(NULL), 1);
	store_close(st);
	arena_free(a);
}

/* A mail the relay did not take: a busy database is not retried then,
 * the mail is simply still queued for the next run. */
static void
test_outbox_busy_after_tempfail(void **state)
{
	struct config c;
	struct store *st;
	struct store_outbox o;
	struct arena *a = arena_new();
	struct outbox_stats os;
	int64_t id;

	NEED_DEPS();
	start_server(0, "--mode", "tempfail-data", NULL);
	outbox_conf(&c);
	st = outbox_db(&id);
	store_fault_busy(st, "begin", 1);
	assert_int_equal(outbox_send(st, &c, false, &os), ERR_BUSY);
	assert_int_equal(store_outbox_get(st, a, id, &o), ERR_OK);
	assert_string_equal(o.state, "queued");
	assert_int_equal(o.attempts, 0);
	assert_int_equal(delivered(NULL), 0);
	store_close(st);
	arena_free(a);
}

/* n more copies of the test mail queued in st (Message-IDs of their own). */
static void
outbox_more(struct store *st, int n)
{
	struct store_outbox o;
	char mid[96];
	int i;

	for (i = 0; i < n; i++) {
		memset(&o, 0, sizeof(o));
		snprintf(
		    mid, sizeof(mid), "%d.more.staged@yard.example.org", i);
		o.kind = "staged";
		o.message_id = mid;
		o.rcpt = RCPTS;
		o.body = message;
		o.body_len = message_len;
		o.state = "queued";
		o.created = time(NULL);
		assert_int_equal(store_begin(st), ERR_OK);
		assert_int_equal(store_outbox_add(st, &o, NULL), ERR_OK);
		assert_int_equal(store_commit(st), ERR_OK);
	}
}

/* A send run of ten mails: one SMTP connection. */
static void
test_outbox_one_session(void **state)
{
	struct outbox_stats os;
	struct config c;
	struct store *st;
	char stats[160];
	int64_t id;

	NEED_DEPS();
	path(stats, sizeof(stats), "stats");
	unlink(stats);
	start_server(0, "--stats", stats, "--drop-at-mail", "7", NULL);
	outbox_conf(&c);
	st = outbox_db(&id);
	outbox_more(st, 9);
	assert_int_equal(outbox_send(st, &c, false, &os), ERR_OK);
	assert_int_equal(os.sent, 10);
	assert_int_equal(os.waiting + os.failed, 0);
	/* The relay dropped it once: one more, and no mail lost. */
	assert_int_equal(os.connections, 2);
	assert_int_equal(os.reconnects, 1);
	assert_int_equal(server_count("connections"), 2);
	assert_int_equal(delivered(NULL), 10);
	store_close(st);
}

/*
 * A relay out of reach: the run tries once, and every due mail waits
 * with the reason, tried again after its back-off.
 */
static void
test_outbox_relay_down(void **state)
{
	struct outbox_stats os;
	struct config c;
	struct store *st;
	struct store_outbox o;
	struct arena *a = arena_new();
	int64_t id;

	NEED_DEPS();
	srv.port = free_port();
	outbox_conf(&c);
	st = outbox_db(&id);
	outbox_more(st, 4);
	assert_int_equal(outbox_send(st, &c, false, &os), ERR_OK);
	assert_int_equal(os.waiting, 5);
	assert_int_equal(os.sent + os.failed, 0);
	assert_int_equal(store_outbox_get(st, a, id, &o), ERR_OK);
	assert_string_equal(o.state, "queued");
	assert_int_equal(o.attempts, 1);
	assert_non_null(o.last_error);
	assert_non_null(strstr(o.last_error, "onnect"));
	assert_true(o.next_attempt > time(NULL));
	/* Nothing is due before the back-off. */
	assert_int_equal(outbox_send(st, &c, false, &os), ERR_OK);
	assert_int_equal(os.waiting + os.sent, 0);
	store_close(st);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_checks),
#define T(f) cmocka_unit_test_setup_teardown(f, test_setup, test_teardown)
		T(test_plain),
		T(test_tls_required_not_offered),
		T(test_starttls),
		T(test_implicit_tls_and_pin),
		T(test_auth),
		T(test_auth_plain_text),
		T(test_tempfail_then_accept),
		T(test_reject),
		T(test_some_recipients_refused),
		T(test_dropped_mid_data),
		T(test_dropped_mid_data_tls),
		T(test_killed_mid_data),
		T(test_acknowledged_then_dropped),
		T(test_server_down),
		T(test_silent_server),
		T(test_no_8bitmime),
		T(test_one_session),
		T(test_session_tls_8bit),
		T(test_session_tls_7bit),
		T(test_session_dropped),
		T(test_fresh_connection_dropped),
		T(test_outbox_one_session),
		T(test_outbox_relay_down),
		T(test_outbox_busy_after_accept),
		T(test_outbox_busy_after_tempfail),
#undef T
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
