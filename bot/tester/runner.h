/*
 * Running one test command (docs/DESIGN.md §7): under a small init of its
 * own, in a PID namespace of its own where one can be made (spawn.h),
 * with a clean environment given by the caller, resource limits, a
 * timeout that ends the whole test -- SIGTERM, then SIGKILL after a
 * grace period -- and an output cap that keeps the head and the tail of
 * what it wrote.  Processes are counted in the test's namespace (or,
 * without one, its process group), never by RLIMIT_NPROC of the user
 * (docs/PLATFORM.md: that counts every process of the user).  Optionally
 * inside bubblewrap: no network, the system read-only, only the work
 * tree and HOME writable.
 *
 * Several runners run at once: the caller starts them and calls
 * runner_poll() until each is done.  Nothing of a finished runner is left
 * in the process table: when its command ends, what remains of the test
 * is ended the same way a timeout ends it -- in a namespace, setsid and
 * double forks included -- and without a namespace the runner's caller
 * is the reaper of the group's orphans (runner_reaper).
 */
#ifndef BOT_TESTER_RUNNER_H
#define BOT_TESTER_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/tester/spawn.h"
#include "util/err.h"

struct runner_spec {
	const char *command; /* from the configuration, run by /bin/sh -c */
	const char *dir; /* the working directory: the work tree */
	const char *home; /* the temporary HOME, writable in the sandbox */
	char *const *env; /* the whole environment, NAME=VALUE, NULL-ended */
	bool bwrap; /* inside bubblewrap */
	/* Files the sandbox shows empty (the bot's own config and secrets),
	 * NULL-terminated; may be NULL. */
	const char *const *hide;
	int timeout; /* seconds */
	int grace_ms; /* from SIGTERM to SIGKILL */
	size_t output_cap; /* bytes of output kept, head and tail */
	int cpu; /* RLIMIT_CPU, seconds */
	long long memory; /* RLIMIT_AS, bytes */
	int files; /* RLIMIT_NOFILE */
	int processes; /* most processes of the test at once */
};

enum runner_end {
	RUNNER_EXITED, /* code: the exit status */
	RUNNER_SIGNALED, /* code: the signal that ended it */
	RUNNER_TIMEOUT, /* ended at the timeout */
	RUNNER_PROCESSES, /* ended for having more processes than allowed */
};

struct runner_result {
	enum runner_end end;
	int code;
	int64_t duration_ms;
	unsigned long long output; /* bytes the test wrote */
	unsigned long long cut; /* of which cut from the middle */
	int left; /* processes still running when the command ended */
	int most; /* most processes of the test seen at once */
	int group; /* the process group (and session) of its init */
	enum spawn_hold hold; /* how its processes were held */
	char *log; /* what was kept, NUL-terminated (malloc'd) */
	size_t log_len;
};

struct runner;

/*
 * Start s.  ERR_NOTFOUND when s->bwrap and there is no bwrap program,
 * ERR_IO when the process cannot be made (logged).
 */
enum err runner_start(const struct runner_spec *s, struct runner **out);

/* How r's processes are held (known once it has started). */
enum spawn_hold runner_hold(const struct runner *r);

/* Read output, reap, count processes, enforce deadlines: returns after
 * at most max_ms, earlier when something happened. */
void runner_poll(struct runner *const *rs, size_t n, int max_ms);

bool runner_done(const struct runner *r);

/* The result of a runner that is done; the runner is freed. */
void runner_finish(struct runner *r, struct runner_result *res);
void runner_result_free(struct runner_result *res);

/* End a runner now (SIGKILL to all of it), wait for it, free it. */
void runner_abort(struct runner *r);

/* Whether bubblewrap can be found on PATH. */
bool runner_have_bwrap(void);

/*
 * Make this process the reaper of its orphaned descendants while tests
 * run (PR_SET_CHILD_SUBREAPER), so that a test's background processes
 * can be reaped rather than left as zombies where no namespace holds
 * them; false turns it off.
 */
void runner_reaper(bool on);

#endif
