/*
 * Starting one test's processes so that all of them can be counted and
 * ended (docs/DESIGN.md §10, test.processes): a small init of ours, pid 1 of
 * a PID namespace of its own, runs the test command as its one child.
 * Every process the test makes stays in that namespace whatever it does
 * (setsid, double forks), orphans are reparented to the init, which
 * reaps them, and when the init dies the kernel kills whatever is left.
 *
 * As root the namespace is made directly; as any other user inside a
 * user namespace of its own, which also bounds the test's processes:
 * since Linux 5.14 RLIMIT_NPROC counts a user's processes per user
 * namespace, so the limit set there counts the test's processes alone
 * (docs/PLATFORM.md: outside one it counts every process of the user), and a
 * fork beyond it fails.  Root is exempt from RLIMIT_NPROC: its tests are
 * counted by the runner and ended when they have too many.  Where no
 * namespace can be made the test gets a session and process group of
 * its own, as before: what leaves the group is then beyond reach, and
 * the runner says so.
 */
#ifndef BOT_TESTER_SPAWN_H
#define BOT_TESTER_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/err.h"

/* How a test's processes are held together. */
enum spawn_hold {
	/* Its own PID namespace in its own user namespace: ended with the
	 * run, and at most `processes` at once (RLIMIT_NPROC there). */
	SPAWN_NS_BOUND,
	/* Its own PID namespace (root): ended with the run; counted by
	 * the runner, which ends a run that has too many. */
	SPAWN_NS,
	/* Its session and process group only: what leaves the group is
	 * neither counted nor ended with the run. */
	SPAWN_GROUP,
};

struct spawn_req {
	char *const *argv; /* argv[0] is a full path */
	char *const *env; /* the whole environment */
	const char *dir; /* the working directory, or NULL: keep it */
	int files; /* RLIMIT_NOFILE */
	long long memory; /* RLIMIT_AS, bytes */
	int cpu; /* RLIMIT_CPU, seconds */
	int processes; /* at once, not counting the init */
	int out; /* the test's stdout and stderr */
};

struct spawn {
	pid_t pid; /* the init; its session and process group too */
	int ctl; /* the init's reports (non-blocking), -1 once closed */
	enum spawn_hold hold;
};

/*
 * Start q: the init, and under it the test.  ERR_IO when no process can
 * be made (logged).  The first time no namespace can be made, a warning
 * says why.
 */
enum err spawn_start(const struct spawn_req *q, struct spawn *sp);

/* Read what the init reported: true, with the test's wait status, once
 * its command has ended.  Closes ctl when the init is gone. */
bool spawn_ended(struct spawn *sp, int *status);

/*
 * SIGTERM or SIGKILL to the whole test.  In a namespace SIGTERM goes to
 * the init, which passes it to every process there, and SIGKILL kills
 * the init and with it the namespace; otherwise both go to the group.
 */
void spawn_signal(const struct spawn *sp, int sig);

/* What h means, for the log: "its own PID namespace ...". */
const char *spawn_hold_str(enum spawn_hold h);

#endif
