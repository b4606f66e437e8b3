/*
 * The test runner's process handling (see runner.h).
 *
 * Life of a runner: fork; the child makes a session of its own (setsid:
 * process group = its pid, no controlling terminal), resets signals,
 * applies the resource limits, points stdout and stderr at one pipe,
 * closes every other descriptor and executes /bin/sh -c COMMAND (or
 * bwrap ... /bin/sh -c COMMAND) with the caller's environment.  The
 * parent reads the pipe into a capped capture, reaps the group, counts
 * the group's processes from /proc, and ends the group -- SIGTERM, then
 * SIGKILL after the grace period -- at the timeout, when it holds too
 * many processes, or when the first process has ended and others of the
 * group are still there.  A runner is done when its first process has
 * been reaped and no process of its group is left.
 */
#include "bot/tester/runner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bot/tester/capture.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* How often the process table is read while a test runs. */
#define SCAN_MS 200
/* Bytes read from one runner in one round, so that a test that writes
 * fast cannot starve the others or its own timeout. */
#define READ_ROUND (4u << 20)

enum phase {
	PH_RUN, /* the first process runs */
	PH_TERM, /* SIGTERM sent; SIGKILL at kill_at */
	PH_KILL, /* SIGKILL sent */
	PH_DONE,
};

struct runner {
	pid_t pid; /* the first process; also the group's id */
	int fd; /* the output pipe, -1 once closed */
	enum phase phase;
	bool reaped; /* the first process */
	int status;
	bool ended; /* end is decided */
	enum runner_end end;
	double start, deadline, kill_at, last_scan;
	int grace_ms, limit, alive, left, most;
	struct capture out;
};

/* ---- starting ---- */

/* The full path of prog on PATH, or NULL (malloc'd). */
static char *
find_program(const char *prog)
{
	const char *path = getenv("PATH"), *p, *colon;
	char full[PATH_MAX];

	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *colon ? colon + 1 : colon) {
		int n;

		colon = strchr(p, ':');
		if (colon == NULL)
			colon = p + strlen(p);
		n = snprintf(full, sizeof(full), "%.*s/%s", (int)(colon - p),
		    colon == p ? "." : p, prog);
		if (n > 0 && (size_t)n < sizeof(full) &&
		    access(full, X_OK) == 0)
			return xstrdup(full);
	}
	return NULL;
}

bool
runner_have_bwrap(void)
{
	char *p = find_program("bwrap");

	free(p);
	return p != NULL;
}

struct argv {
	char **v;
	size_t n, cap;
};

static void
arg(struct argv *a, const char *s)
{
	a->v = xgrow(a->v, &a->cap, a->n + 2, sizeof(*a->v));
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

static void
args(struct argv *a, const char *x, const char *y, const char *z)
{
	arg(a, x);
	if (y)
		arg(a, y);
	if (z)
		arg(a, z);
}

static void
argv_free(struct argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

/* Is path inside one of the folders bound into the sandbox? */
static bool
shown(const char *path, const char *const *dirs)
{
	size_t i, n;

	for (i = 0; dirs[i]; i++) {
		n = strlen(dirs[i]);
		if (strncmp(path, dirs[i], n) == 0 && path[n] == '/')
			return true;
	}
	return false;
}

/*
 * The sandbox: an empty root made read-only, the system's folders bound
 * read-only into it, a private /dev and /proc, the work tree and HOME
 * bound writable at their own paths, the bot's own files shown empty,
 * and new namespaces for everything (no network but a loopback of its
 * own).  bwrap dies with its parent, and with it the whole sandbox.
 */
static void
bwrap_args(struct argv *a, const char *bwrap, const struct runner_spec *s)
{
	static const char *const ro[] = { "/usr", "/etc", "/opt", "/bin",
		"/sbin", "/lib", "/lib32", "/lib64", "/libx32", NULL };
	char link[PATH_MAX];
	struct stat sb;
	size_t i;

	args(a, bwrap, "--unshare-all", "--die-with-parent");
	for (i = 0; ro[i]; i++) {
		ssize_t n;

		if (lstat(ro[i], &sb) != 0)
			continue;
		if (S_ISLNK(sb.st_mode) &&
		    (n = readlink(ro[i], link, sizeof(link) - 1)) > 0) {
			link[n] = '\0';
			args(a, "--symlink", link, ro[i]);
		} else if (S_ISDIR(sb.st_mode)) {
			args(a, "--ro-bind", ro[i], ro[i]);
		}
	}
	for (i = 0; s->hide && s->hide[i]; i++) {
		char *real = realpath(s->hide[i], NULL);

		/* Only what the sandbox shows needs hiding; bwrap wants
		 * absolute paths that exist in it. */
		if (real && stat(real, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    shown(real, ro))
			args(a, "--ro-bind", "/dev/null", real);
		free(real);
	}
	args(a, "--dev", "/dev", NULL);
	args(a, "--proc", "/proc", NULL);
	args(a, "--bind", s->dir, s->dir);
	args(a, "--bind", s->home, s->home);
	args(a, "--remount-ro", "/", NULL);
	args(a, "--chdir", s->dir, NULL);
	arg(a, "--");
}

static void
limit(int resource, rlim_t v)
{
	struct rlimit rl = { v, v };

	(void)setrlimit(resource, &rl);
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn))
child(const struct runner_spec *s, int out, char *const *argv)
{
	struct sigaction sa;
	sigset_t none;
	int fd, sig;

	if (setsid() < 0)
		_exit(126);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* The test ends when the runner does, whatever happens to it. */
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
	if (!s->bwrap && chdir(s->dir) != 0)
		_exit(126);
	limit(RLIMIT_CORE, 0);
	limit(RLIMIT_NOFILE, (rlim_t)s->files);
	limit(RLIMIT_AS, (rlim_t)s->memory);
	{
		/* SIGXCPU at the limit, SIGKILL a second later. */
		struct rlimit rl = { (rlim_t)s->cpu, (rlim_t)s->cpu + 1 };

		(void)setrlimit(RLIMIT_CPU, &rl);
	}
	execve(argv[0], argv, s->env);
	_exit(127);
}

enum err
runner_start(const struct runner_spec *s, struct runner **out)
{
	struct argv a = { NULL, 0, 0 };
	struct runner *r;
	char *bwrap = NULL;
	int p[2];
	pid_t pid;

	*out = NULL;
	if (s->bwrap) {
		if ((bwrap = find_program("bwrap")) == NULL) {
			log_err("tester: test.sandbox is bwrap, but there is "
			        "no bwrap on PATH (apt-get install "
			        "bubblewrap)");
			return ERR_NOTFOUND;
		}
		bwrap_args(&a, bwrap, s);
		free(bwrap);
	}
	args(&a, "/bin/sh", "-c", s->command);
	if (pipe2(p, O_CLOEXEC) != 0) {
		log_err("tester: pipe: %s", strerror(errno));
		argv_free(&a);
		return ERR_IO;
	}
	fflush(NULL);
	if ((pid = fork()) < 0) {
		log_err("tester: fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		argv_free(&a);
		return ERR_IO;
	}
	if (pid == 0)
		child(s, p[1], a.v);
	close(p[1]);
	argv_free(&a);
	(void)fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	r = xcalloc(1, sizeof(*r));
	r->pid = pid;
	r->fd = p[0];
	r->phase = PH_RUN;
	r->start = time_mono();
	r->deadline = r->start + s->timeout;
	r->grace_ms = s->grace_ms;
	r->limit = s->processes;
	r->alive = 1;
	r->out.cap = s->output_cap;
	*out = r;
	return ERR_OK;
}

/* ---- watching ---- */

static void
signal_group(struct runner *r, int sig)
{
	/* The group exists once the child has called setsid; until then
	 * the child alone is all there is. */
	if (kill(-r->pid, sig) != 0)
		(void)kill(r->pid, sig);
}

static void
end_as(struct runner *r, enum runner_end end)
{
	if (!r->ended) {
		r->ended = true;
		r->end = end;
	}
}

static void
read_output(struct runner *r)
{
	char chunk[65536];
	size_t got = 0;
	ssize_t k;

	while (r->fd >= 0 && got < READ_ROUND) {
		k = read(r->fd, chunk, sizeof(chunk));
		if (k > 0) {
			capture_add(&r->out, chunk, (size_t)k);
			got += (size_t)k;
		} else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
			close(r->fd);
			r->fd = -1;
		} else if (errno == EAGAIN) {
			break;
		}
	}
}

/* Reap what can be reaped of the group: the first process, and any
 * orphan that was handed to us as their reaper. */
static void
reap(struct runner *r)
{
	int st;
	pid_t p;

	while ((p = waitpid(-r->pid, &st, WNOHANG)) > 0)
		if (p == r->pid) {
			r->reaped = true;
			r->status = st;
		}
	if (!r->reaped && waitpid(r->pid, &st, WNOHANG) == r->pid) {
		r->reaped = true;
		r->status = st;
	}
}

/* The process group of /proc/PID/stat, or -1 for a zombie or on error. */
static pid_t
group_of(int dirfd, const char *name)
{
	char path[64], buf[1024], *p, state;
	long pgrp, ppid;
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/stat", name) >= (int)sizeof(path))
		return -1;
	if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) state ppid pgrp ...": comm may hold anything. */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3 ||
	    state == 'Z' || state == 'X')
		return -1;
	return (pid_t)pgrp;
}

/* Count the living processes of every runner's group. */
static void
scan(struct runner *const *rs, size_t n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t i;

	for (i = 0; i < n; i++)
		if (rs[i]->phase != PH_DONE)
			rs[i]->alive = 0;
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		pid_t g;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if ((g = group_of(dirfd(d), de->d_name)) <= 0)
			continue;
		for (i = 0; i < n; i++)
			if (rs[i]->phase != PH_DONE && rs[i]->pid == g)
				rs[i]->alive++;
	}
	closedir(d);
	for (i = 0; i < n; i++)
		if (rs[i]->alive > rs[i]->most)
			rs[i]->most = rs[i]->alive;
}

/* Decide what happens next to r (after a scan). */
static void
step(struct runner *r, double now)
{
	switch (r->phase) {
	case PH_RUN:
		if (r->reaped && r->alive == 0) {
			r->phase = PH_DONE;
			return;
		} else if (now >= r->deadline) {
			end_as(r, RUNNER_TIMEOUT);
		} else if (r->alive > r->limit) {
			end_as(r, RUNNER_PROCESSES);
			signal_group(r, SIGKILL);
			r->phase = PH_KILL;
			return;
		} else if (!r->reaped) {
			return;
		} else {
			/* The test is over; what it left behind is not. */
			r->left = r->alive;
		}
		signal_group(r, SIGTERM);
		r->phase = PH_TERM;
		r->kill_at = now + r->grace_ms / 1000.0;
		return;
	case PH_TERM:
		if (r->reaped && r->alive == 0) {
			r->phase = PH_DONE;
		} else if (now >= r->kill_at) {
			signal_group(r, SIGKILL);
			r->phase = PH_KILL;
		}
		return;
	case PH_KILL:
		if (r->reaped && r->alive == 0)
			r->phase = PH_DONE;
		else
			signal_group(r, SIGKILL);
		return;
	case PH_DONE:
		return;
	}
}

/* How long poll() may sleep: until the next deadline or scan. */
static int
wait_ms(struct runner *const *rs, size_t n, double now, int max_ms)
{
	double until = now + max_ms / 1000.0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct runner *r = rs[i];

		if (r->phase == PH_DONE)
			continue;
		if (r->last_scan + SCAN_MS / 1000.0 < until)
			until = r->last_scan + SCAN_MS / 1000.0;
		if (r->phase == PH_RUN && r->deadline < until)
			until = r->deadline;
		if (r->phase == PH_TERM && r->kill_at < until)
			until = r->kill_at;
	}
	if (until <= now)
		return 0;
	return (int)((until - now) * 1000.0) + 1;
}

void
runner_poll(struct runner *const *rs, size_t n, int max_ms)
{
	struct pollfd *pf = xcalloc(n ? n : 1, sizeof(*pf));
	double now = time_mono();
	bool any_scan = false;
	size_t i, np = 0;

	for (i = 0; i < n; i++)
		if (rs[i]->phase != PH_DONE && rs[i]->fd >= 0) {
			pf[np].fd = rs[i]->fd;
			pf[np].events = POLLIN;
			np++;
		}
	(void)poll(pf, np, wait_ms(rs, n, now, max_ms));
	free(pf);
	now = time_mono();
	for (i = 0; i < n; i++) {
		struct runner *r = rs[i];
		bool was = r->reaped;

		if (r->phase == PH_DONE)
			continue;
		read_output(r);
		reap(r);
		if (r->reaped != was || r->phase != PH_RUN ||
		    now >= r->last_scan + SCAN_MS / 1000.0 ||
		    now >= r->deadline)
			any_scan = true;
	}
	if (!any_scan)
		return;
	scan(rs, n);
	for (i = 0; i < n; i++) {
		struct runner *r = rs[i];

		if (r->phase == PH_DONE)
			continue;
		r->last_scan = now;
		reap(r);
		step(r, now);
		if (r->phase == PH_DONE)
			read_output(r); /* what is left in the pipe */
	}
}

bool
runner_done(const struct runner *r)
{
	return r->phase == PH_DONE;
}

void
runner_finish(struct runner *r, struct runner_result *res)
{
	memset(res, 0, sizeof(*res));
	/* Whatever still holds the pipe escaped the group: stop reading. */
	if (r->fd >= 0)
		close(r->fd);
	if (r->ended) {
		res->end = r->end;
	} else if (WIFSIGNALED(r->status)) {
		res->end = RUNNER_SIGNALED;
		res->code = WTERMSIG(r->status);
	} else {
		res->end = RUNNER_EXITED;
		res->code = WEXITSTATUS(r->status);
	}
	res->duration_ms = (int64_t)((time_mono() - r->start) * 1000.0);
	res->left = r->left;
	res->most = r->most;
	res->group = (int)r->pid;
	capture_take(&r->out, res);
	free(r);
}

void
runner_result_free(struct runner_result *res)
{
	free(res->log);
	res->log = NULL;
}

void
runner_abort(struct runner *r)
{
	struct runner_result res;

	if (r == NULL)
		return;
	end_as(r, RUNNER_SIGNALED);
	r->grace_ms = 0;
	if (r->phase == PH_RUN || r->phase == PH_TERM) {
		signal_group(r, SIGKILL);
		r->phase = PH_KILL;
	}
	while (r->phase != PH_DONE)
		runner_poll(&r, 1, 50);
	runner_finish(r, &res);
	runner_result_free(&res);
}

void
runner_reaper(bool on)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, on ? 1 : 0) != 0)
		log_warn("tester: cannot become the reaper of test "
		         "processes: %s",
		    strerror(errno));
}
