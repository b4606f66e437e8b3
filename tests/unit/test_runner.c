/*
 * The test runner's process handling (bot/tester/runner.c, spawn.c)
 * with real processes: exit status and signals, the environment given
 * and nothing else, the output cap keeping head and tail, the timeout
 * ending a whole test, a background process that ignores SIGTERM, one
 * that leaves the group with setsid, the process count, the resource
 * limits, bubblewrap (when it is installed), and all of it again as an
 * unprivileged user, whose test runs in a user namespace of its own
 * where a fork beyond test.processes fails.  "Nothing left" is checked
 * in the process table: no process of the runner's group remains,
 * zombies included, and none that carries the test's mark in its
 * environment (what left the group).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/* Processes (zombies too) whose environment holds the line mark;
 * killed too when kill_them. */
static int
find_marked(const char *mark, bool kill_them)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t len = strlen(mark);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		char path[300], buf[8192];
		ssize_t k, i;
		int fd;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/environ", de->d_name);
		if ((fd = open(path, O_RDONLY)) < 0)
			continue;
		k = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (k <= 0)
			continue;
		buf[k] = '\0';
		for (i = 0; i < k; i += (ssize_t)strlen(buf + i) + 1) {
			if (strlen(buf + i) == len &&
			    !memcmp(buf + i, mark, len)) {
				n++;
				if (kill_them)
					(void)kill(
					    (pid_t)atol(de->d_name), SIGKILL);
				break;
			}
		}
	}
	closedir(d);
	return n;
}

static int
marked(const char *mark)
{
	return find_marked(mark, false);
}

/* env with a mark added, unique to this process and name. */
static char **
with_mark(char *mark, size_t n, const char *name)
{
	static char *e[8];
	size_t i;

	snprintf(mark, n, "PATCHYARD_MARK=%ld-%s", (long)getpid(), name);
	for (i = 0; env[i]; i++)
		e[i] = env[i];
	e[i++] = mark;
	e[i] = NULL;
	return e;
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

/*
 * The review's hole: a test that leaves its process group (setsid, a
 * double fork) was neither counted nor ended.  In its own PID namespace
 * it is both: the run waits for it, counts it as left behind, and ends
 * it with the rest.
 */
static void
test_setsid_escape(void **state)
{
	struct runner_spec s =
	    spec("setsid sh -c 'sleep 300 & sleep 300' & "
	         "setsid -f sleep 300; sleep 0.5; echo done");
	struct runner_result res;
	char mark[80];
	pid_t g;

	(void)state;
	s.env = with_mark(mark, sizeof(mark), "setsid");
	run(&s, &res, &g);
	assert_int_equal(res.hold, SPAWN_NS);
	assert_int_equal(res.end, RUNNER_EXITED);
	assert_int_equal(res.code, 0);
	assert_non_null(strstr(res.log, "done"));
	assert_true(res.left >= 3);
	assert_int_equal(in_group(g), 0);
	assert_int_equal(marked(mark), 0);
	runner_result_free(&res);
	/* Counted too: 10 processes that left the group are too many. */
	s = spec("for i in 1 2 3 4 5 6 7 8 9 10; do setsid sleep 300 & done; "
	         "wait");
	s.env = with_mark(mark, sizeof(mark), "setsid-count");
	s.processes = 5;
	run(&s, &res, &g);
	assert_int_equal(res.end, RUNNER_PROCESSES);
	assert_true(res.most > 5);
	assert_int_equal(marked(mark), 0);
	runner_result_free(&res);
}

/* Its own PID namespace, with a /proc of its own: the shell is pid 2
 * (the init is 1), /proc/$$ is itself, and nothing else is seen. */
static void
test_pid_namespace(void **state)
{
	struct runner_spec s =
	    spec("echo pid=$$; grep -c . /proc/$$/stat; "
	         "ls /proc | grep -c '^[0-9]'; cat /proc/1/cmdline | wc -c");
	struct runner_result res;
	pid_t g;

	(void)state;
	run(&s, &res, &g);
	assert_int_equal(res.hold, SPAWN_NS);
	assert_int_equal(res.code, 0);
	/* 1 line of stat; init, sh, ls and grep; the init's argv is the
	 * runner's own (it does not execute anything). */
	assert_non_null(strstr(res.log, "pid=2\n1\n4\n"));
	runner_result_free(&res);
}

/*
 * A fork bomb of sorts: 40 processes at once where 5 are allowed.  As
 * root the run is ended at the next look; unprivileged (below) the
 * sixth fork fails.
 */
static void
test_fork_bomb(void **state)
{
	struct runner_spec s =
	    spec("i=0; while [ $i -lt 40 ]; do "
	         "setsid sleep 300 & i=$((i+1)); done; wait");
	struct runner_result res;
	char mark[80];
	pid_t g;

	(void)state;
	s.env = with_mark(mark, sizeof(mark), "bomb");
	s.processes = 5;
	run(&s, &res, &g);
	assert_int_equal(res.end, RUNNER_PROCESSES);
	assert_int_equal(marked(mark), 0);
	runner_result_free(&res);
}

/* ---- as an unprivileged user ---- */

#define UNPRIV_UID 65534
#define UNPRIV_SKIP 77

/* A check in the unprivileged child: cmocka's asserts cannot cross the
 * fork, so a failure exits with the line that failed. */
#define CHILD_CHECK(cond)                                                      \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(                                               \
			    stderr, "test_runner: unprivileged: %s\n", #cond); \
			_exit(__LINE__ % 200 + 1);                             \
		}                                                              \
	} while (0)

static void
child_run(const struct runner_spec *s, struct runner_result *res)
{
	struct runner *r = NULL;

	CHILD_CHECK(runner_start(s, &r) == ERR_OK);
	while (!runner_done(r))
		runner_poll(&r, 1, 1000);
	runner_finish(r, res);
}

/* What the unprivileged user runs: the bound, setsid, bwrap. */
static void
unprivileged(const char *utree, const char *uhome)
{
	struct runner_spec s;
	struct runner_result res;
	char mark[80];

	runner_reaper(true);
	log_set_level(LOG_WARN);
	s = spec("echo pid=$$");
	s.dir = utree;
	s.home = uhome;
	child_run(&s, &res);
	if (res.hold != SPAWN_NS_BOUND) {
		fprintf(stderr,
		    "test_runner: no user namespace for uid %d "
		    "here, skipped\n",
		    UNPRIV_UID);
		_exit(UNPRIV_SKIP);
	}
	CHILD_CHECK(strstr(res.log, "pid=2\n") != NULL);
	runner_result_free(&res);
	/* 40 wanted, 5 allowed: the sixth fork fails, and that is all the
	 * run ever has.  The shell stops at the failed fork; the others
	 * are ended with the run. */
	s = spec("i=0; while [ $i -lt 40 ]; do setsid sleep 300 & "
	         "i=$((i+1)); done; wait");
	s.dir = utree;
	s.home = uhome;
	s.env = with_mark(mark, sizeof(mark), "unpriv-bomb");
	s.processes = 5;
	child_run(&s, &res);
	CHILD_CHECK(res.end == RUNNER_EXITED && res.code != 0);
	CHILD_CHECK(strstr(res.log, "Cannot fork") != NULL);
	CHILD_CHECK(res.most <= 5);
	CHILD_CHECK(res.left >= 1);
	CHILD_CHECK(marked(mark) == 0);
	runner_result_free(&res);
	/* The review's case: escaped with setsid, ended all the same. */
	s = spec("setsid sh -c 'sleep 300 & sleep 300' & sleep 0.3");
	s.dir = utree;
	s.home = uhome;
	s.env = with_mark(mark, sizeof(mark), "unpriv-setsid");
	child_run(&s, &res);
	CHILD_CHECK(res.end == RUNNER_EXITED && res.code == 0);
	CHILD_CHECK(res.left >= 2);
	CHILD_CHECK(marked(mark) == 0);
	runner_result_free(&res);
	/* bwrap in the test's user namespace. */
	if (runner_have_bwrap()) {
		s = spec("echo x > f && cat /proc/1/cmdline | tr '\\0' ' '; "
		         "echo; echo x > /etc/escape || echo no-etc");
		s.dir = utree;
		s.home = uhome;
		s.bwrap = true;
		child_run(&s, &res);
		CHILD_CHECK(res.end == RUNNER_EXITED && res.code == 0);
		CHILD_CHECK(strstr(res.log, "bwrap") != NULL);
		CHILD_CHECK(strstr(res.log, "no-etc") != NULL);
		runner_result_free(&res);
	}
	_exit(0);
}

static void
test_unprivileged(void **state)
{
	char utree[300], uhome[300];
	pid_t pid;
	int st;

	(void)state;
	snprintf(utree, sizeof(utree), "%s/u/tree", tmp);
	snprintf(uhome, sizeof(uhome), "%s/u/home", tmp);
	assert_int_equal(gt_sh("mkdir -p %s %s", utree, uhome), 0);
	if (geteuid() == 0)
		assert_int_equal(gt_sh("chmod 755 %s %s/u && chown %d %s %s",
		                     tmp, tmp, UNPRIV_UID, utree, uhome),
		    0);
	fflush(NULL);
	if ((pid = fork()) == 0) {
		if (geteuid() == 0 &&
		    (setgroups(0, NULL) != 0 ||
		        setresgid(UNPRIV_UID, UNPRIV_UID, UNPRIV_UID) != 0 ||
		        setresuid(UNPRIV_UID, UNPRIV_UID, UNPRIV_UID) != 0))
			_exit(1);
		unprivileged(utree, uhome);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == UNPRIV_SKIP)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- where no namespace can be made ---- */

/* A seccomp filter that fails clone(2) and unshare(2) with a new PID
 * or user namespace, as a container's or a unit's filter may. */
static bool
forbid_namespaces(void)
{
#if defined(__x86_64__)
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
		    CLONE_NEWPID | CLONE_NEWUSER, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
#else
	return false;
#endif
}

/* What a test without a namespace still gets: its process group is
 * counted and ended; what leaves the group escapes (and is ended here
 * by hand). */
static void
test_no_namespace(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	fflush(NULL);
	if ((pid = fork()) == 0) {
		struct runner_spec s;
		struct runner_result res;
		char mark[80];
		int escaped;

		if (!forbid_namespaces())
			_exit(UNPRIV_SKIP);
		runner_reaper(true);
		s = spec(
		    "sh -c 'trap \"\" TERM; sleep 300' & setsid -f sleep 300; "
		    "sleep 0.3; echo pid=$$");
		s.env = with_mark(mark, sizeof(mark), "no-ns");
		child_run(&s, &res);
		/* The one that left the group is still there: ended by hand
		 * before anything is checked. */
		escaped = find_marked(mark, true);
		CHILD_CHECK(res.hold == SPAWN_GROUP);
		CHILD_CHECK(res.end == RUNNER_EXITED && res.code == 0);
		CHILD_CHECK(strstr(res.log, "pid=2\n") == NULL);
		CHILD_CHECK(res.left >= 1);
		CHILD_CHECK(in_group(res.group) == 0);
		CHILD_CHECK(escaped == 1);
		runner_result_free(&res);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == UNPRIV_SKIP)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
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
		cmocka_unit_test(test_setsid_escape),
		cmocka_unit_test(test_pid_namespace),
		cmocka_unit_test(test_fork_bomb),
		cmocka_unit_test(test_unprivileged),
		cmocka_unit_test(test_no_namespace),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
