/*
 * A test's init and its namespaces (see spawn.h).
 *
 * The init is made with a raw clone(2) rather than fork(): the flags
 * give it its namespaces at birth, and no fork handler of the (maybe
 * threaded) caller runs in it.  From there on, in the init and in the
 * test's own child until it executes the command, only async-signal-safe
 * calls are made: everything that needs formatting is prepared before.
 *
 * The init reports on a pipe, in fixed-size messages: that it is ready
 * (or why it could not set up its namespaces, and the next way is
 * tried), and later the wait status of the test command.  It leaves the
 * namespace last: it exits when it has no child left, which in a PID
 * namespace means no process at all.
 */
#include "bot/tester/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/log.h"

enum msg_kind {
	MSG_READY = 1,
	MSG_FAIL, /* value: errno; what failed is in step */
	MSG_STATUS, /* value: the test's wait status */
};

struct msg {
	int kind;
	int value;
	int step; /* MSG_FAIL: the index into steps[] */
};

/* What the init does to set up, for the reasons of a failure. */
static const char *const steps[] = { "setsid", "setgroups", "uid_map",
	"gid_map", "private mounts", "mount /proc", "RLIMIT_NPROC" };

enum step {
	STEP_SETSID,
	STEP_SETGROUPS,
	STEP_UID_MAP,
	STEP_GID_MAP,
	STEP_PRIVATE,
	STEP_PROC,
	STEP_NPROC,
};

/* One way of starting, and what it needs, prepared before the clone. */
struct launch {
	const struct spawn_req *q;
	enum spawn_hold hold;
	unsigned long flags; /* CLONE_NEW* */
	char uid_map[64], gid_map[64];
	int ctl; /* the init's end of the report pipe */
};

/* fork() without the caller's fork handlers, or with new namespaces. */
static pid_t
raw_clone(unsigned long flags)
{
#if defined(__s390__) || defined(__CRIS__)
	/* These take the stack first. */
	return (pid_t)syscall(SYS_clone, 0UL, flags | SIGCHLD, 0UL, 0UL, 0UL);
#else
	return (pid_t)syscall(SYS_clone, flags | SIGCHLD, 0UL, 0UL, 0UL, 0UL);
#endif
}

/* ---- in the init and the test's child: async-signal-safe only ---- */

/* Close every descriptor above 2 but a and b: the init keeps nothing of
 * its caller's (databases, sockets, other tests' pipes). */
static void
keep_only(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a, from = 3;

	if (lo >= from) {
		if (lo > from)
			(void)close_range((unsigned)from, (unsigned)lo - 1, 0);
		from = lo + 1;
	}
	if (hi >= from) {
		if (hi > from)
			(void)close_range((unsigned)from, (unsigned)hi - 1, 0);
		from = hi + 1;
	}
	(void)close_range((unsigned)from, ~0U, 0);
}

static void
report(int ctl, int kind, int value, int step)
{
	struct msg m = { kind, value, step };
	ssize_t n;

	do
		n = write(ctl, &m, sizeof(m));
	while (n < 0 && errno == EINTR);
}

static void __attribute__((noreturn))
fail(const struct launch *l, enum step step)
{
	report(l->ctl, MSG_FAIL, errno, (int)step);
	_exit(126);
}

static bool
write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t n = strlen(text);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, text, n) == (ssize_t)n;
	close(fd);
	return ok;
}

static void
limit(int resource, rlim_t v)
{
	struct rlimit rl = { v, v };

	(void)setrlimit(resource, &rl);
}

/* The test: the command with its output, limits and environment. */
static void __attribute__((noreturn)) test_main(const struct launch *l)
{
	const struct spawn_req *q = l->q;
	sigset_t none;
	int fd, out = q->out;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* The test ends when its init does, whatever happens to it. */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* The pipe above 2 first: with the caller's 0-2 closed it may be
	 * there, where /dev/null would overwrite it or dup2() onto its own
	 * number would keep its close-on-exec flag. */
	if (out <= 2 && (out = fcntl(out, F_DUPFD, 3)) < 0)
		_exit(126);
	if ((fd = open("/dev/null", O_RDONLY)) < 0 || dup2(fd, 0) < 0 ||
	    dup2(out, 1) < 0 || dup2(out, 2) < 0)
		_exit(126);
	closefrom(3);
	if (q->dir && chdir(q->dir) != 0)
		_exit(126);
	limit(RLIMIT_CORE, 0);
	limit(RLIMIT_NOFILE, (rlim_t)q->files);
	limit(RLIMIT_AS, (rlim_t)q->memory);
	{
		/* SIGXCPU at the limit, SIGKILL a second later. */
		struct rlimit rl = { (rlim_t)q->cpu, (rlim_t)q->cpu + 1 };

		(void)setrlimit(RLIMIT_CPU, &rl);
	}
	execve(q->argv[0], q->argv, q->env);
	_exit(127);
}

/* The namespaces' settings, from inside them. */
static void
set_up(const struct launch *l)
{
	if (l->flags & CLONE_NEWUSER) {
		/* Our own ids, mapped to themselves: the only mapping an
		 * unprivileged process may write.  A caller that changed its
		 * uid without executing is not dumpable, and then its
		 * /proc/self is root's: this init is (its full capabilities
		 * in the new namespace still keep the test from reading its
		 * memory). */
		(void)prctl(PR_SET_DUMPABLE, 1);
		if (!write_file("/proc/self/setgroups", "deny"))
			fail(l, STEP_SETGROUPS);
		if (!write_file("/proc/self/uid_map", l->uid_map))
			fail(l, STEP_UID_MAP);
		if (!write_file("/proc/self/gid_map", l->gid_map))
			fail(l, STEP_GID_MAP);
	}
	if (l->flags & CLONE_NEWNS) {
		/* A /proc of the namespace, so that /proc/$$ is the test's
		 * own; private, so that nothing of it reaches the host. */
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
			fail(l, STEP_PRIVATE);
		if (mount("proc", "/proc", "proc",
		        MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
			fail(l, STEP_PROC);
	}
	if (l->hold == SPAWN_NS_BOUND) {
		/* Counted in this user namespace: the test's processes and
		 * this init. */
		struct rlimit rl = { (rlim_t)l->q->processes + 1,
			(rlim_t)l->q->processes + 1 };

		if (setrlimit(RLIMIT_NPROC, &rl) != 0)
			fail(l, STEP_NPROC);
	}
}

/*
 * The init: set up, start the test, then reap every child -- the test
 * and, in a namespace, every orphan of it -- until none is left.
 * SIGTERM from outside the namespace goes on to every process in it.
 */
static void __attribute__((noreturn)) init_main(const struct launch *l)
{
	struct sigaction sa;
	sigset_t all, w;
	siginfo_t si;
	pid_t c, p;
	int sig, st;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);
	keep_only(l->ctl, l->q->out);
	if (setsid() < 0)
		fail(l, STEP_SETSID);
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	set_up(l);
	report(l->ctl, MSG_READY, 0, 0);
	if ((c = raw_clone(0)) == 0)
		test_main(l);
	close(l->q->out);
	if (c < 0) {
		report(l->ctl, MSG_STATUS, 126 << 8, 0);
		_exit(126);
	}
	sigemptyset(&w);
	sigaddset(&w, SIGCHLD);
	sigaddset(&w, SIGTERM);
	for (;;) {
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			if (p == c)
				report(l->ctl, MSG_STATUS, st, 0);
		if (p < 0 && errno == ECHILD)
			_exit(0);
		/* si_pid is 0 for a sender outside the namespace: the
		 * runner.  A test that signals its init is not obeyed. */
		if (sigwaitinfo(&w, &si) == SIGTERM && l->hold != SPAWN_GROUP &&
		    si.si_pid == 0)
			(void)kill(-1, SIGTERM);
	}
}

/* ---- in the caller ---- */

static bool
prepare(struct launch *l)
{
	int n = snprintf(l->uid_map, sizeof(l->uid_map), "%lu %lu 1\n",
	    (unsigned long)geteuid(), (unsigned long)geteuid());
	int k = snprintf(l->gid_map, sizeof(l->gid_map), "%lu %lu 1\n",
	    (unsigned long)getegid(), (unsigned long)getegid());

	return n > 0 && (size_t)n < sizeof(l->uid_map) && k > 0 &&
	    (size_t)k < sizeof(l->gid_map);
}

/* Start the init the way l says; *why gets the reason it could not. */
static enum err
try_start(struct launch *l, struct spawn *sp, char *why, size_t whyn)
{
	struct msg m;
	int ctl[2];
	ssize_t n;
	pid_t pid;

	if (!prepare(l) || pipe2(ctl, O_CLOEXEC) != 0) {
		snprintf(why, whyn, "%s", strerror(errno));
		return ERR_IO;
	}
	l->ctl = ctl[1];
	if ((pid = raw_clone(l->flags)) == 0)
		init_main(l);
	close(ctl[1]);
	if (pid < 0) {
		snprintf(why, whyn, "clone: %s", strerror(errno));
		close(ctl[0]);
		return ERR_IO;
	}
	do
		n = read(ctl[0], &m, sizeof(m));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(m) && m.kind == MSG_READY) {
		(void)fcntl(
		    ctl[0], F_SETFL, fcntl(ctl[0], F_GETFL) | O_NONBLOCK);
		sp->pid = pid;
		sp->ctl = ctl[0];
		sp->hold = l->hold;
		return ERR_OK;
	}
	if (n == (ssize_t)sizeof(m) && m.kind == MSG_FAIL && m.step >= 0 &&
	    m.step < (int)(sizeof(steps) / sizeof(steps[0])))
		snprintf(why, whyn, "%s: %s", steps[m.step], strerror(m.value));
	else
		snprintf(why, whyn, "the init ended at once");
	close(ctl[0]);
	(void)waitpid(pid, NULL, 0);
	return ERR_IO;
}

enum err
spawn_start(const struct spawn_req *q, struct spawn *sp)
{
	static bool warned;
	/* Without privileges the user namespace comes first: it is what
	 * bounds the processes.  Root needs none, and is not bounded by
	 * one (RLIMIT_NPROC does not apply to uid 0). */
	const unsigned long user = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS,
	                    pid = CLONE_NEWPID | CLONE_NEWNS;
	bool root = geteuid() == 0;
	struct launch ways[3] = {
		{ q, root ? SPAWN_NS : SPAWN_NS_BOUND, root ? pid : user, "",
		    "", -1 },
		{ q, SPAWN_NS, root ? user : pid, "", "", -1 },
		{ q, SPAWN_GROUP, 0, "", "", -1 },
	};
	char why[3][160];
	size_t i;

	memset(sp, 0, sizeof(*sp));
	sp->ctl = -1;
	fflush(NULL);
	for (i = 0; i < 3; i++)
		if (try_start(&ways[i], sp, why[i], sizeof(why[i])) == ERR_OK)
			break;
	if (i == 3) {
		log_err("tester: cannot start a test: %s", why[2]);
		return ERR_IO;
	}
	if (i == 2 && !warned) {
		warned = true;
		log_warn("tester: no PID namespace for tests here (%s; %s): a "
		         "process that leaves a test's process group is "
		         "neither counted nor ended with it",
		    why[0], why[1]);
	}
	return ERR_OK;
}

bool
spawn_ended(struct spawn *sp, int *status)
{
	struct msg m;
	bool ended = false;
	ssize_t n;

	while (sp->ctl >= 0) {
		n = read(sp->ctl, &m, sizeof(m));
		if (n == (ssize_t)sizeof(m)) {
			if (m.kind == MSG_STATUS) {
				*status = m.value;
				ended = true;
			}
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && errno == EAGAIN) {
			break;
		} else {
			close(sp->ctl);
			sp->ctl = -1;
		}
	}
	return ended;
}

void
spawn_signal(const struct spawn *sp, int sig)
{
	if (sp->hold != SPAWN_GROUP)
		(void)kill(sp->pid, sig);
	else if (kill(-sp->pid, sig) != 0)
		(void)kill(sp->pid, sig);
}

const char *
spawn_hold_str(enum spawn_hold h)
{
	switch (h) {
	case SPAWN_NS_BOUND:
		return "in a PID namespace of its own, ended with the run; a "
		       "fork beyond test.processes fails (RLIMIT_NPROC of "
		       "its own user namespace)";
	case SPAWN_NS:
		return "in a PID namespace of its own, ended with the run; "
		       "counted, and the run ended when it has more than "
		       "test.processes (root: RLIMIT_NPROC does not apply)";
	case SPAWN_GROUP:
		break;
	}
	return "its process group only (no PID namespace here): a process "
	       "that leaves the group (setsid) is neither counted nor "
	       "ended with the run";
}
