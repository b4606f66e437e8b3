/*
 * libgit2's CA bundle parsed at the first TLS handshake, not at
 * git_libgit2_init() (bot/git/gittls.c), against a real TLS server on
 * loopback (Python's ssl module, a certificate made here by openssl):
 *
 * - starting libgit2 notes the bundle and parses nothing;
 * - a connection to a server whose certificate no CA of the bundle
 *   signed parses the bundle first and is refused as libgit2 refuses it
 *   (GIT_ECERTIFICATE): the check still happens;
 * - with that certificate made a CA (GIT_OPT_SET_SSL_CERT_LOCATIONS,
 *   which replaces the chain and is not put off), the handshake passes
 *   and the connection fails later, at HTTP.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <git2.h>

#include "bot/git/gittls.h"
#include "tests/unit/sourcetest.h"
#include "tests/unit/testutil.h"

static const char server_py[] =
    "import socket, ssl, sys, os\n"
    "ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)\n"
    "ctx.load_cert_chain(sys.argv[1], sys.argv[2])\n"
    "s = socket.socket()\n"
    "s.bind(('127.0.0.1', 0))\n"
    "s.listen(8)\n"
    "open(sys.argv[3] + '.tmp', 'w').write(str(s.getsockname()[1]))\n"
    "os.rename(sys.argv[3] + '.tmp', sys.argv[3])\n"
    "while True:\n"
    "    c, _ = s.accept()\n"
    "    try:\n"
    "        t = ctx.wrap_socket(c, server_side=True)\n"
    "        t.recv(65536)\n"
    "        t.sendall(b'HTTP/1.1 404 Not Found\\r\\nContent-Length: 0\\r\\n'\n"
    "                  b'Connection: close\\r\\n\\r\\n')\n"
    "        t.close()\n"
    "    except Exception:\n"
    "        c.close()\n";

/* Connect to url for a fetch: libgit2's error code. */
static int
connect_to(const char *url)
{
	git_remote *remote = NULL;
	int r = git_remote_create_detached(&remote, url);

	assert_int_equal(r, 0);
	r = git_remote_connect(remote, GIT_DIRECTION_FETCH, NULL, NULL, NULL);
	git_remote_free(remote);
	return r;
}

static void
test_bundle_at_first_handshake(void **state)
{
	char *d, path[4200], url[128];
	const char *noted;
	char *port = NULL, *pid = NULL;
	int r;

	(void)state;
	git_libgit2_init();
	noted = gittls_noted();
	if (noted == NULL || access("/usr/bin/openssl", X_OK) != 0 ||
	    access("/usr/bin/python3", X_OK) != 0) {
		/* libgit2 without mbedTLS, or no tools to make a server. */
		git_libgit2_shutdown();
		skip();
	}
	assert_int_equal(access(noted, R_OK), 0);
	assert_int_equal(gittls_parsed(), GITTLS_NOT_YET);

	d = mktmp();
	snprintf(path, sizeof(path), "%s/server.py", d);
	tu_write_file(path, server_py, strlen(server_py));
	run("cd '%s' && openssl req -x509 -newkey rsa:2048 -nodes -days 2 "
	    "-keyout key.pem -out cert.pem -subj /CN=127.0.0.1 "
	    "-addext subjectAltName=DNS:127.0.0.1,IP:127.0.0.1 "
	    "-addext basicConstraints=critical,CA:TRUE 2>/dev/null && "
	    "(python3 server.py cert.pem key.pem port >/dev/null 2>&1 & "
	    "echo $! > pid) && "
	    "for i in $(seq 100); do [ -f port ] && break; sleep 0.1; done && "
	    "test -f port",
	    d);
	snprintf(path, sizeof(path), "%s/port", d);
	port = tu_read_file(path, NULL);
	snprintf(path, sizeof(path), "%s/pid", d);
	pid = tu_read_file(path, NULL);
	assert_non_null(port);
	assert_non_null(pid);
	snprintf(url, sizeof(url), "https://127.0.0.1:%d/r.git", atoi(port));

	/* Unknown to the bundle: the bundle is parsed, the server refused. */
	r = connect_to(url);
	assert_null(gittls_noted());
	assert_true(gittls_parsed() >= 0);
	assert_int_equal(r, GIT_ECERTIFICATE);

	/* Trusted: past the handshake, to the server's 404. */
	snprintf(path, sizeof(path), "%s/cert.pem", d);
	assert_int_equal(
	    git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, path, NULL), 0);
	r = connect_to(url);
	assert_int_not_equal(r, 0);
	assert_int_not_equal(r, GIT_ECERTIFICATE);
	assert_non_null(git_error_last());
	assert_non_null(strstr(git_error_last()->message, "404"));

	kill((pid_t)atoi(pid), SIGTERM);
	free(port);
	free(pid);
	git_libgit2_shutdown();
	rmtmp(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bundle_at_first_handshake),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
