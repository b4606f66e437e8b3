/*
 * The test runner's process handling (bot/tester/runner.c) with real
 * processes: exit status and signals, the environment given and nothing
 * else, the output cap keeping head and tail, the timeout ending a whole
 * process group, a background process that ignores SIGTERM, the process
 * count, the resource limits, and bubblewrap (when it is installed).
 * "Nothing left" is checked in the process table: no process of the
 * runner's group remains, zombies included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/tester/runner.h"
#include "tests/unit/gittest.h"
#include "util/log.h"

static const char *tmp;
static char tree[256], home[256];
static char *env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", NULL, NULL,
	"LANG=C.UTF-8", "PATCHYARD_COMMIT=0123abcd", NULL };

static int
setup(void **state)
{
	static char h[300];

	(void)state;
	tmp = gt_setup();
	log_set_level(LOG_ERR);
	snprintf(tree, sizeof(tree), "%s/tree", tmp);
	snprintf(home, sizeof(home), "%s/home", tmp);
	snprintf(h, sizeof(h), "HOME=%s", home);
	env[1] = h;
	env[2] = "TMPDIR=/tmp";
	runner_reaper(true);
	return gt_sh("mkdir -p %s %s", tree, home);
}

static int
teardown(void **state)
{
	(void)state;
	gt_teardown(tmp);
	return 0;
}

static struct runner_spec
spec(const char *command)
{
	struct runner_spec s;

	memset(&s, 0, sizeof(s));
	s.command = command;
	s.dir = tree;
	s.home = home;
	s.env = env;
	s.timeout = 30;
	s.grace_ms = 500;
	s.output_cap = 1 << 20;
	s.cpu = 60;
	s.memory = 4LL << 30;
	s.files = 256;
	s.processes = 64;
	return s;
}

/* Processes (zombies too) whose process group is g, from /proc. */
static int
in_group(pid_t g)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		char path[300], buf[1024], *p, st;
		long ppid, pgrp;
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
		    sscanf(p + 1, " %c %ld %ld", &st, &ppid, &pgrp) == 3 &&
		    pgrp == g)
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* Run s to its end; the group it made in *group. */
static void
run(const struct runner_spec *s, struct runner_result *res, pid_t *group)
{
	struct runner *r = NULL;

	assert_int_equal(runner_start(s, &r), ERR_OK);
	while (!runner_done(r))
		runner_poll(&r, 1, 1000);
	runner_finish(r, res);
	*group = (pid_t)res->group;
	assert_true(*group > 1);
}

static void
test_exit_and_environment(void **state)
{
	struct runner_spec s = spec("pwd; env | sort; echo err >&2; exit 3");
	struct runner_result res;
	pid_t g;

	(void)state;
	setenv("SECRET_OF_THE_BOT", "x", 1);
	run(&s, &res, &g);
	assert_int_equal(res.end, RUNNER_EXITED);
	assert_int_equal(res.code, 3);
	assert_non_null(strstr(res.log, tree));
	assert_non_null(strstr(res.log, "PATCHYARD_COMMIT=0123abcd\n"));
	assert_non_null(strstr(res.log, "LANG=C.UTF-8\n"));
	assert_non_null(strstr(res.log, "err\n"));
	assert_null(strstr(res.log, "SECRET_OF_THE_BOT"));
	assert_int_equal(res.cut, 0);
	assert_int_equal(in_group(g), 0);
	runner_result_free(&res);
}

/* Started by a process whose 0 and 1 are closed, the pipe lands there:
 * the test still gets its stdout and stderr, and the log has both. */
static void
test_low_fds(void **state)
{
	struct runner_spec s = spec("echo out; echo err >&2");
	struct runner_result res;
	struct runner *r = NULL;
	int in, out;

	(void)state;
	fflush(stdout);
	in = dup(0);
	out = dup(1);
	assert_true(in > 2 && out > 2);
	close(0);
	close(1);
	assert_int_equal(runner_start(&s, &r), ERR_OK);
	while (!runner_done(r))
		runner_poll(&r, 1, 1000);
	runner_finish(r, &res);
	assert_int_equal(dup2(in, 0), 0);
	assert_int_equal(dup2(out, 1), 1);
	close(in);
	close(out);
	assert_int_equal(res.end, RUNNER_EXITED);
	assert_int_equal(res.code, 0);
	assert_non_null(strstr(res.log, "out\n"));
	assert_non_null(strstr(res.log, "err\n"));
	runner_result_free(&res);
}

static void
test_signal(void **state)
{
	struct runner_spec s = spec("kill -SEGV $$");
	struct runner_result res;
	pid_t g;

	(void)state;
	run(&s, &res, &g);
	assert_int_equal(res.end, RUNNER_SIGNALED);
	assert_int_equal(res.code, SIGSEGV);
	runner_result_free(&res);
}

/* 100 MB of output: the log keeps 1 MB, head and tail, and says so. */
static void
test_output_cap(void **state)
{
	struct runner_spec s = spec("echo FIRST; "
	                            "head -c 104857600 /dev/zero | tr '\\0' x; "
	                            "echo; echo LAST");
	struct runner_result res;
	pid_t g;

	(void)state;
	run(&s, &res, &g);
	assert_int_equal(res.end, RUNNER_EXITED);
	assert_int_equal(res.code, 0);
	assert_true(res.output > 104857600);
	assert_int_equal(res.output - res.cut, 1 << 20);
	assert_true(res.log_len < (1 << 20) + 200);
	assert_non_null(strstr(res.log, "FIRST"));
	assert_non_null(strstr(res.log + res.log_len - 10, "LAST\n"));
	assert_non_null(strstr(res.log, "bytes of output cut here"));
	runner_result_free(&res);
}

/* A test that hangs, with a child of its own: both end at the timeout. */
static void
test_timeout(void **state)
{
	struct runner_spec s = spec("sleep 300 & sleep 300; echo never");
	struct runner_result res;
	pid_t g;

	(void)state;
	s.timeout = 1;
	run(&s, &res, &g);
	assert_int_equal(res.end, RUNNER_TIMEOUT);
	assert_null(strstr(res.log, "never"));
	assert_true(res.duration_ms >= 1000);
	assert_int_equal(in_group(g), 0);
	runner_result_free(&res);
}

/* A background process that ignores SIGTERM outlives the test: it is
 * killed after the grace period, and reaped. */
static void
test_background_ignoring_term(void **state)
{
	struct runner_spec s = spec(""
	                            "sh -c 'trap \"\" TERM; sleep 300' & "
	                            "sleep 0.2; echo done");
	struct runner_result res;
	pid_t g;

	(void)state;
	run(&s, &res, &g);
	assert_int_equal(res.end, RUNNER_EXITED);
	assert_int_equal(res.code, 0);
	assert_true(res.left >= 1);
	assert_non_null(strstr(res.log, "done"));
	assert_int_equal(in_group(g), 0);
	/* And at the timeout too. */
	runner_result_free(&res);
	s = spec("sh -c 'trap \"\" TERM; sleep 300' & "
	         "trap '' TERM; sleep 300");
	s.timeout = 1;
	run(&s, &res, &g);
	assert_int_equal(res.end, RUNNER_TIMEOUT);
	assert_int_equal(in_group(g), 0);
	runner_result_free(&res);
}

static void
test_processes(void **state)
{
	struct runner_spec s = spec("for i in 1 2 3 4 5 6 7 8 9 10; "
	                            "do sleep 300 & done; wait");
	struct runner_result res;
	pid_t g;

	(void)state;
	s.processes = 5;
	run(&s, &res, &g);
	assert_int_equal(res.end, RUNNER_PROCESSES);
	assert_true(res.most > 5);
	assert_int_equal(in_group(g), 0);
	runner_result_free(&res);
}

static void
test_limits(void **state)
{
	struct runner_spec s = spec("ulimit -n; ulimit -v; ulimit -t");
	struct runner_result res;
	pid_t g;

	(void)state;
	/* valgrind keeps RLIMIT_NOFILE to itself: setrlimit() in the child
	 * before exec changes only valgrind's idea of it (make valgrind). */
	if (getenv("LD_PRELOAD") && strstr(getenv("LD_PRELOAD"), "vgpreload"))
		skip();
	s.files = 77;
	s.memory = 512LL << 20;
	s.cpu = 42;
	run(&s, &res, &g);
	assert_int_equal(res.code, 0);
	assert_non_null(strstr(res.log, "77\n524288\n42\n"));
	runner_result_free(&res);
}

/* Inside bubblewrap: the network is not there, nothing outside the
 * tree and HOME can be written, the bot's files are hidden. */
static void
test_bwrap(void **state)
{
	struct runner_spec s;
	struct runner_result res;
	const char *hide[] = { NULL, NULL };
	char secret[300], outside[300];
	pid_t g;

	(void)state;
	if (!runner_have_bwrap()) {
		fprintf(stderr, "test_runner: no bwrap, skipped\n");
		return;
	}
	snprintf(secret, sizeof(secret), "%s/secret", tmp);
	snprintf(outside, sizeof(outside), "%s/outside", tmp);
	gt_write(secret, "password\n");
	hide[0] = secret;
	s = spec("echo in > f && echo tree-ok; "
	         "echo h > \"$HOME/h\" && echo home-ok; "
	         "cat /etc/hostname >/dev/null && echo etc-ok; "
	         "echo x > /etc/escape || echo no-etc; "
	         "echo x > " /* the folder of the tree, outside it */
	         "../outside || echo no-outside; "
	         "cat $SECRET; sleep 300 & echo bg");
	s.bwrap = true;
	s.hide = hide;
	env[2] = NULL;
	{
		char sec[400];
		char *e2[] = { env[0], env[1], "LANG=C.UTF-8", sec, NULL };

		snprintf(sec, sizeof(sec), "SECRET=%s", secret);
		s.env = e2;
		run(&s, &res, &g);
	}
	env[2] = "TMPDIR=/tmp";
	assert_int_equal(res.end, RUNNER_EXITED);
	assert_non_null(strstr(res.log, "tree-ok"));
	assert_non_null(strstr(res.log, "home-ok"));
	assert_non_null(strstr(res.log, "no-etc"));
	assert_non_null(strstr(res.log, "no-outside"));
	assert_non_null(strstr(res.log, "Read-only file system"));
	assert_null(strstr(res.log, "password"));
	assert_int_equal(
	    gt_sh("test ! -e %s && test -e %s/f", outside, tree), 0);
	assert_int_equal(in_group(g), 0);
	runner_result_free(&res);
	/* Its processes are counted in its group, and a timeout ends them
	 * all, in their own PID namespace too. */
	s = spec("for i in 1 2 3 4 5 6 7 8 9 10; do sleep 300 & done; wait");
	s.bwrap = true;
	s.processes = 8;
	run(&s, &res, &g);
	assert_int_equal(res.end, RUNNER_PROCESSES);
	assert_int_equal(in_group(g), 0);
	runner_result_free(&res);
	s = spec("sh -c 'trap \"\" TERM; sleep 300' & sleep 300");
	s.bwrap = true;
	s.timeout = 1;
	run(&s, &res, &g);
	assert_int_equal(res.end, RUNNER_TIMEOUT);
	assert_int_equal(in_group(g), 0);
	runner_result_free(&res);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_and_environment),
		cmocka_unit_test(test_low_fds),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_output_cap),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_background_ignoring_term),
		cmocka_unit_test(test_processes),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_bwrap),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
