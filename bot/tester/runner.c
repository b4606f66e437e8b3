/*
 * The test runner's process handling (see runner.h).
 *
 * Life of a runner: spawn_start() makes the test's init -- pid 1 of a
 * PID namespace of its own where one can be made -- which runs /bin/sh
 * -c COMMAND (or bwrap ... /bin/sh -c COMMAND) with the caller's
 * environment, the resource limits and stdout and stderr on one pipe.
 * The runner reads the pipe into a capped capture, learns from the init
 * when the command has ended and how, counts the test's processes from
 * /proc -- the init's descendants in a namespace, its process group
 * otherwise -- and ends the test -- SIGTERM, then SIGKILL after the
 * grace period -- at the timeout, when it holds too many processes, or
 * when the command has ended and others are still there.  A runner is
 * done when its init has been reaped and no process of the test is
 * left.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bot/tester/capture.h"
#include "bot/tester/spawn.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* How often the process table is read while a test runs. */
#define SCAN_MS 200
/* Bytes read from one runner in one round, so that a test that writes
 * fast cannot starve the others or its own timeout. */
#define READ_ROUND (4u << 20)

enum phase {
	PH_RUN, /* the test runs */
	PH_TERM, /* SIGTERM sent; SIGKILL at kill_at */
	PH_KILL, /* SIGKILL sent */
	PH_DONE,
};

struct runner {
	struct spawn sp; /* the init: its pid is the group's id too */
	int fd; /* the output pipe, -1 once closed */
	enum phase phase;
	bool over; /* the command has ended, with status */
	int status; /* the command's wait status */
	bool reaped; /* the init */
	int init_status;
	bool ended; /* end is decided */
	enum runner_end end;
	double start, deadline, kill_at, last_scan;
	double over_at; /* when the command was first seen ended, or 0 */
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

	/* --unshare-all but the cgroup namespace: nothing of /sys is shown,
	 * and the systemd unit need not allow it (contrib/). */
	args(a, bwrap, "--unshare-user-try", "--unshare-ipc");
	args(a, "--unshare-pid", "--unshare-net", "--unshare-uts");
	arg(a, "--die-with-parent");
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

enum err
runner_start(const struct runner_spec *s, struct runner **out)
{
	struct argv a = { NULL, 0, 0 };
	struct spawn_req q;
	struct spawn sp;
	struct runner *r;
	char *bwrap = NULL;
	enum err e;
	int p[2];

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
	memset(&q, 0, sizeof(q));
	q.argv = a.v;
	q.env = s->env;
	q.dir = s->bwrap ? NULL : s->dir; /* bwrap has --chdir */
	q.files = s->files;
	q.memory = s->memory;
	q.cpu = s->cpu;
	q.processes = s->processes;
	q.out = p[1];
	e = spawn_start(&q, &sp);
	close(p[1]);
	argv_free(&a);
	if (e != ERR_OK) {
		close(p[0]);
		return e;
	}
	(void)fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	r = xcalloc(1, sizeof(*r));
	r->sp = sp;
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

enum spawn_hold
runner_hold(const struct runner *r)
{
	return r->sp.hold;
}

/* ---- watching ---- */

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

/* What the init said, and what can be reaped: the init, and without a
 * namespace any orphan of the group that was handed to us as their
 * reaper. */
static void
reap(struct runner *r)
{
	pid_t pid = r->sp.pid, p;
	int st;

	if (!r->over && spawn_ended(&r->sp, &r->status))
		r->over = true;
	while ((p = waitpid(-pid, &st, WNOHANG)) > 0)
		if (p == pid) {
			r->reaped = true;
			r->init_status = st;
		}
	if (!r->reaped && waitpid(pid, &st, WNOHANG) == pid) {
		r->reaped = true;
		r->init_status = st;
	}
	/* Its last word, if it had one, came before it died. */
	if (r->reaped && !r->over && spawn_ended(&r->sp, &r->status))
		r->over = true;
}

/* One line of the process table. */
struct proc {
	pid_t pid, ppid, pgrp;
	int owner; /* the runner it belongs to, -1: none, -2: not known */
};

/* pid, ppid and process group of /proc/NAME/stat; false for a zombie
 * or on error. */
static bool
read_stat(int dirfd, const char *name, struct proc *p)
{
	char path[64], buf[1024], *s, state;
	long pgrp, ppid;
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/stat", name) >= (int)sizeof(path))
		return false;
	if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "pid (comm) state ppid pgrp ...": comm may hold anything. */
	if ((s = strrchr(buf, ')')) == NULL ||
	    sscanf(s + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3 ||
	    state == 'Z' || state == 'X')
		return false;
	p->pid = (pid_t)strtol(name, NULL, 10);
	p->ppid = (pid_t)ppid;
	p->pgrp = (pid_t)pgrp;
	p->owner = -2;
	return true;
}

static int
by_pid(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The living processes, sorted by pid. */
static struct proc *
read_procs(size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct proc *v = NULL;
	size_t cap = 0;

	*n = 0;
	if (d == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		v = xgrow(v, &cap, *n + 1, sizeof(*v));
		if (read_stat(dirfd(d), de->d_name, &v[*n]))
			(*n)++;
	}
	closedir(d);
	if (*n > 1)
		qsort(v, *n, sizeof(*v), by_pid);
	return v;
}

static struct proc *
find_proc(struct proc *v, size_t n, pid_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].pid == pid)
			return &v[mid];
		if (v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Which runner's init p descends from (-1: none), remembered on the
 * way.  The walk is bounded: a table read while processes come and go
 * may hold a cycle of reused pids. */
static int
owner_of(struct proc *v, size_t n, struct proc *p)
{
	struct proc *q = p;
	size_t steps = 0;
	int owner = -1;

	while (q && q->owner == -2 && steps++ < n)
		q = q->ppid > 0 ? find_proc(v, n, q->ppid) : NULL;
	if (q && q->owner != -2)
		owner = q->owner;
	for (q = p; q && q->owner == -2; q = find_proc(v, n, q->ppid))
		q->owner = owner;
	return owner;
}

/* Count the living processes of every runner's test, its init aside:
 * in a namespace the init's descendants, otherwise its process group. */
static void
scan(struct runner *const *rs, size_t n)
{
	size_t np = 0, i, k;
	struct proc *v = read_procs(&np), *p;

	for (i = 0; i < n; i++) {
		if (rs[i]->phase == PH_DONE)
			continue;
		rs[i]->alive = 0;
		if (rs[i]->sp.hold != SPAWN_GROUP &&
		    (p = find_proc(v, np, rs[i]->sp.pid)) != NULL)
			p->owner = (int)i;
	}
	for (k = 0; k < np; k++) {
		int o = owner_of(v, np, &v[k]);

		for (i = 0; i < n; i++) {
			struct runner *r = rs[i];

			if (r->phase == PH_DONE || v[k].pid == r->sp.pid)
				continue;
			if (r->sp.hold == SPAWN_GROUP ? v[k].pgrp == r->sp.pid
			                              : o == (int)i)
				r->alive++;
		}
	}
	free(v);
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
			spawn_signal(&r->sp, SIGKILL);
			r->phase = PH_KILL;
			return;
		} else if (!(r->over || r->reaped) || r->alive == 0) {
			/* Running; or done, and its init is about to be. */
			return;
		} else if (r->over_at == 0 ||
		    now < r->over_at + SCAN_MS / 1000.0) {
			/* What ends by itself just after the command -- bwrap's
			 * own init, whose word its parent does not wait past --
			 * was not left behind: look once more first. */
			if (r->over_at == 0)
				r->over_at = now;
			return;
		} else {
			/* The test is over; what it left behind is not. */
			r->left = r->alive;
		}
		spawn_signal(&r->sp, SIGTERM);
		r->phase = PH_TERM;
		r->kill_at = now + r->grace_ms / 1000.0;
		return;
	case PH_TERM:
		if (r->reaped && r->alive == 0) {
			r->phase = PH_DONE;
		} else if (now >= r->kill_at) {
			spawn_signal(&r->sp, SIGKILL);
			r->phase = PH_KILL;
		}
		return;
	case PH_KILL:
		if (r->reaped && r->alive == 0)
			r->phase = PH_DONE;
		else
			spawn_signal(&r->sp, SIGKILL);
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
	struct pollfd *pf = xcalloc(n ? 2 * n : 1, sizeof(*pf));
	double now = time_mono();
	bool any_scan = false;
	size_t i, np = 0;

	for (i = 0; i < n; i++) {
		if (rs[i]->phase == PH_DONE)
			continue;
		if (rs[i]->fd >= 0) {
			pf[np].fd = rs[i]->fd;
			pf[np++].events = POLLIN;
		}
		if (rs[i]->sp.ctl >= 0) {
			pf[np].fd = rs[i]->sp.ctl;
			pf[np++].events = POLLIN;
		}
	}
	(void)poll(pf, np, wait_ms(rs, n, now, max_ms));
	free(pf);
	now = time_mono();
	for (i = 0; i < n; i++) {
		struct runner *r = rs[i];
		bool was = r->over, had = r->reaped;

		if (r->phase == PH_DONE)
			continue;
		read_output(r);
		reap(r);
		if (r->over != was || r->reaped != had || r->phase != PH_RUN ||
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
	/* The command's own status; the init's when it died before it
	 * could tell (killed from outside). */
	int st = r->over ? r->status : r->init_status;

	memset(res, 0, sizeof(*res));
	/* Whatever still holds the pipe escaped the test: stop reading. */
	if (r->fd >= 0)
		close(r->fd);
	if (r->sp.ctl >= 0)
		close(r->sp.ctl);
	if (r->ended) {
		res->end = r->end;
	} else if (WIFSIGNALED(st)) {
		res->end = RUNNER_SIGNALED;
		res->code = WTERMSIG(st);
	} else {
		res->end = RUNNER_EXITED;
		res->code = WEXITSTATUS(st);
	}
	res->duration_ms = (int64_t)((time_mono() - r->start) * 1000.0);
	res->left = r->left;
	res->most = r->most;
	res->group = (int)r->sp.pid;
	res->hold = r->sp.hold;
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
		spawn_signal(&r->sp, SIGKILL);
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
