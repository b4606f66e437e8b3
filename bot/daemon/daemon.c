/*
 * The loop of `patchyard run`.  One thread, one database connection, one
 * transaction at a time.  Each pass asks every worker of the table below
 * whether it has work (due) and runs those that do, in table order: mail
 * in first, then what mail sets going (the stager), then mail out.  When
 * no worker is due the loop sleeps in ppoll() on the IMAP connections in
 * IDLE and a self-pipe of the signal handlers, for at most a second, so
 * that work queued by other processes (an MTA's `patchyard ingest`, a
 * maintainer's `patchyard stage`) is seen within a second.
 *
 * Signals: SIGTERM and SIGINT set daemon_stop, which the import checks
 * after every mail (it then commits the batch it holds) and which cuts a
 * blocking network read short (no SA_RESTART for them); the loop then
 * exits.  SIGHUP is blocked except while the loop sleeps, so that it
 * never interrupts a transfer, and reloads the configuration.
 *
 * One `run` per database: a lock file beside the database, held with
 * flock() for the life of the process (the kernel drops it with the
 * process, so a crash leaves no stale lock).
 */
#include "bot/daemon/daemonpriv.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "bot/mailout/outbox.h"
#include "bot/tester/tester.h"
#include "bot/workflow/collect.h"
#include "bot/workflow/promote.h"
#include "bot/workflow/stage.h"
#include "storage/store_run.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* SQLite page cache of the daemon's connection (start() says why). */
#define DAEMON_DB_CACHE_KB 512

volatile sig_atomic_t daemon_stop;
static volatile sig_atomic_t got_hup;
static int sig_pipe[2] = { -1, -1 };

/* ---- the workers ---- */

static bool
has_staging(const struct config *c, bool need_upstream)
{
	size_t i;

	for (i = 0; i < c->nprojects; i++)
		if (c->projects[i].staging &&
		    (!need_upstream || c->projects[i].upstream))
			return true;
	return false;
}

static bool
sources_due(struct daemon *d, double now)
{
	return follow_due(d, now);
}

static enum err
sources_run(struct daemon *d, double now)
{
	bool got = false;
	enum err e = follow_run(d, now, &got);

	if (got)
		d->send_kick = true;
	return e;
}

static bool
upstream_due(struct daemon *d, double now)
{
	if (!has_staging(d->conf, true))
		return false;
	return d->o.once ? !d->upstream_done : now >= d->next_upstream;
}

static enum err
upstream_run(struct daemon *d, double now)
{
	enum err e = stage_upstream(d->st, d->conf);

	d->upstream_done = true;
	d->next_upstream = now + d->conf->run_upstream_interval;
	d->next_graduate = now;
	/* A new base: the branches are built again on it. */
	d->rebuild_wanted = true;
	d->send_kick = true;
	if (e == ERR_OK)
		e = store_run_mark(d->st, "upstream", time_now());
	return e;
}

/*
 * Due rebuild-delay seconds after the queue last changed (a change
 * restarts the wait, so that a burst of commands makes one rebuild), at
 * start, and after an upstream scan.  The mark is read before the
 * rebuild begins, so a change made meanwhile by another process is not
 * lost; the rebuild's own drops (on-conflict = drop) cost one more,
 * empty, rebuild.
 */
static bool
rebuild_due(struct daemon *d, double now)
{
	int64_t mark = 0;

	if (!has_staging(d->conf, false) ||
	    store_run_queue_mark(d->st, &mark) != ERR_OK)
		return false;
	if (mark != d->mark_seen) {
		d->mark_seen = mark;
		d->mark_changed_at = now;
	}
	if (d->rebuild_wanted)
		return true;
	if (d->mark_seen == d->mark_built)
		return false;
	return d->o.once ||
	    now >= d->mark_changed_at + d->conf->run_rebuild_delay;
}

static enum err
rebuild_run(struct daemon *d, double now)
{
	enum err e;

	(void)now;
	d->mark_built = d->mark_seen;
	d->rebuild_wanted = false;
	e = stage_rebuild(d->st, d->conf);
	d->send_kick = true;
	if (e == ERR_OK)
		e = store_run_mark(d->st, "rebuild", time_now());
	return e;
}

/*
 * Due when a queued mail's back-off has passed and either our own work
 * may have queued mail or send-interval has passed since the last look
 * (for mail queued by other processes).  --once stops sending when a
 * run made no progress (the relay refuses everything, say).
 */
static bool
send_due(struct daemon *d, double now)
{
	int64_t next = 0;

	/* No relay: said once (say_relay()), not at every pass. */
	if (d->conf->smtp_url == NULL)
		return false;
	if (d->o.once ? d->send_stuck : !d->send_kick && now < d->next_send)
		return false;
	if (store_run_outbox_next(d->st, &next) != ERR_OK)
		return false;
	if (next == 0 || next > time_now()) {
		d->send_kick = false;
		d->next_send = now + d->conf->run_send_interval;
		return false;
	}
	return true;
}

static enum err
send_run(struct daemon *d, double now)
{
	struct outbox_stats os;
	enum err e = outbox_send(d->st, d->conf, false, &os);
	unsigned all = os.sent + os.failed + os.waiting;

	d->send_kick = false;
	d->next_send = now + d->conf->run_send_interval;
	d->send_stuck = os.sent + os.failed == 0;
	if (all)
		log_info("send: %u sent, %u failed, %u waiting; %u SMTP "
		         "connection%s",
		    os.sent, os.failed, os.waiting, os.connections,
		    os.connections == 1 ? "" : "s");
	if (all && e == ERR_OK)
		e = store_run_mark(d->st, "send", time_now());
	return e;
}

/*
 * The promotion policy ([promote], `graduate --auto`): applied on the
 * upstream timer, and after an upstream scan (a new base, new checks)
 * and a test round (new results) since the conditions may then hold.
 * Only for projects whose policy is configured.  A move changes the
 * queue, so the rebuild follows by the queue mark.
 */
static bool
graduate_due(struct daemon *d, double now)
{
	size_t i;
	bool any = false;

	for (i = 0; i < d->conf->nprojects && !any; i++)
		any =
		    config_promote(d->conf, d->conf->projects[i].name).present;
	if (!any)
		return false;
	return d->o.once ? !d->graduate_done : now >= d->next_graduate;
}

static enum err
graduate_run(struct daemon *d, double now)
{
	size_t moved = 0;
	enum err e = promote_auto(d->st, d->conf, &moved, NULL);

	d->graduate_done = true;
	d->next_graduate = now + d->conf->run_upstream_interval;
	if (moved)
		log_info("graduate: %zu patches moved by the policy", moved);
	if (e == ERR_OK)
		e = store_run_mark(d->st, "graduate", time_now());
	return e;
}

/*
 * The tester: due when test work is waiting (a run queued, a retest
 * asked for, a built tip without a result), read from the database so
 * that a `patchyard retest` from a terminal is seen too.  It runs until
 * no test work is left, the drops and rebuilds of a failure included;
 * SIGTERM ends the tests in hand and puts them back in the queue.  When
 * the runner itself fails (no bwrap, no disk) it waits a minute before
 * trying again rather than failing every second.
 */
static bool
test_due(struct daemon *d, double now)
{
	bool work = false;

	if (!d->conf->test_command || !has_staging(d->conf, false) ||
	    now < d->next_test)
		return false;
	return tester_pending(d->st, d->conf, &work) == ERR_OK && work;
}

static enum err
test_run(struct daemon *d, double now)
{
	struct tester_stats ts = { 0 };
	enum err e = tester_run(d->st, d->conf, NULL, &ts);

	if (e != ERR_OK)
		d->next_test = now + 60;
	else if (ts.runs) {
		/* New results: the policy may move more now. */
		d->graduate_done = false;
		d->next_graduate = now;
	}
	if (ts.runs)
		log_info("test: %d runs, %d failed, %d checks, %d dropped",
		    ts.runs, ts.failed, ts.checks, ts.dropped);
	/* A drop rebuilt the branches and may have queued mail. */
	d->send_kick = true;
	if (e == ERR_OK && ts.runs)
		e = store_run_mark(d->st, "test", time_now());
	return e;
}

/*
 * gc of the staging repositories ([run] gc-interval, a week by default;
 * 0: never): due when a repository's last gc (the stamp gitgc leaves,
 * so that restarts do not reset the clock) is older than the interval.
 * The stamps are read once a minute.  A repository busy with a build
 * (another process's) is tried again at the next look.
 */
static bool
gc_due_project(const struct daemon *d, const struct conf_project *p)
{
	return p->staging != NULL &&
	    (double)gitgc_last(p->staging) + d->conf->run_gc_interval <=
	    time_now();
}

static bool
gc_due(struct daemon *d, double now)
{
	size_t i;

	if (d->o.once || d->conf->run_gc_interval <= 0 || now < d->next_gc_look)
		return false;
	d->next_gc_look = now + 60;
	for (i = 0; i < d->conf->nprojects; i++)
		if (gc_due_project(d, &d->conf->projects[i]))
			return true;
	return false;
}

static enum err
gc_run(struct daemon *d, double now)
{
	struct gitgc_stats s;
	enum err e = ERR_OK, e1;
	size_t i;

	(void)now;
	for (i = 0; i < d->conf->nprojects && !daemon_stop; i++) {
		const struct conf_project *p = &d->conf->projects[i];

		if (!gc_due_project(d, p))
			continue;
		e1 = collect_project(d->st, p, &s);
		if (e1 == ERR_OK)
			log_info("gc: %s: %zu objects, %llu KB -> %llu KB",
			    p->name, s.objects, s.bytes_before / 1024,
			    s.bytes_after / 1024);
		else if (e1 != ERR_BUSY && e == ERR_OK)
			e = e1;
	}
	if (e == ERR_OK)
		e = store_run_mark(d->st, "gc", time_now());
	return e;
}

/*
 * The workers, in the order a pass runs them.  A worker that another
 * room provides is one row: its due check and its run, both given the
 * daemon (d->st, d->conf) and the monotonic time.
 */
static const struct worker {
	const char *name;
	bool (*due)(struct daemon *d, double now);
	enum err (*run)(struct daemon *d, double now);
} workers[] = {
	{ "sources", sources_due, sources_run },
	{ "upstream", upstream_due, upstream_run },
	{ "graduate", graduate_due, graduate_run },
	{ "rebuild", rebuild_due, rebuild_run },
	{ "test", test_due, test_run },
	{ "send", send_due, send_run },
	{ "gc", gc_due, gc_run },
};

#define NWORKERS (sizeof(workers) / sizeof(workers[0]))

/* One pass over the table: how many workers ran. */
static size_t
pass(struct daemon *d)
{
	size_t i, ran = 0;
	enum err e;

	for (i = 0; i < NWORKERS && !daemon_stop; i++) {
		double now = time_mono();

		if ((d->failed & (1u << i)) || !workers[i].due(d, now))
			continue;
		log_debug("run: %s", workers[i].name);
		e = workers[i].run(d, now);
		ran++;
		if (e != ERR_OK) {
			log_warn("run: %s: %s", workers[i].name, err_str(e));
			if (d->o.once)
				d->failed |= 1u << i;
		}
	}
	return ran;
}

/* Without [smtp], mail is queued and never sent (bot.conf(5)): said at
 * the start and after a reload that drops it, and by `status`; the send
 * worker is then not due at all. */
static void
say_relay(const struct config *now, const struct config *before)
{
	if (now->smtp_url == NULL && (before == NULL || before->smtp_url))
		log_warn("send: no [smtp] url: mail is queued, never sent");
}

/* ---- signals, the lock, the configuration ---- */

static void
on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGHUP)
		got_hup = 1;
	else
		daemon_stop = 1;
	if (sig_pipe[1] >= 0 && write(sig_pipe[1], "x", 1) < 0) {
		/* full: the loop wakes up anyway */
	}
	errno = saved;
}

static enum err
signals_setup(sigset_t *sleep_mask)
{
	struct sigaction sa;
	sigset_t hup;

	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		log_err("run: pipe: %s", strerror(errno));
		return ERR_IO;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a read blocked on a silent server must end. */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	sigprocmask(SIG_BLOCK, &hup, sleep_mask);
	sigdelset(sleep_mask, SIGHUP);
	return ERR_OK;
}

static void
signals_restore(void)
{
	sigset_t hup;

	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	sigprocmask(SIG_UNBLOCK, &hup, NULL);
	close(sig_pipe[0]);
	close(sig_pipe[1]);
	sig_pipe[0] = sig_pipe[1] = -1;
}

/* "<database>.lock", held for the life of the process. */
static enum err
lock_take(struct daemon *d)
{
	char path[4096], pid[32] = "";
	ssize_t n;
	int fd, k;

	k = snprintf(path, sizeof(path), "%s.lock", d->conf->database);
	if (k < 0 || (size_t)k >= sizeof(path))
		return ERR_INVAL;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		log_err("run: %s: %s", path, strerror(errno));
		return ERR_IO;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		n = read(fd, pid, sizeof(pid) - 1);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		log_err("run: %s: another patchyard run (pid %s) is using "
		        "this database; only one may",
		    d->conf->database, pid[0] ? pid : "unknown");
		close(fd);
		return ERR_BUSY;
	}
	k = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || write(fd, pid, (size_t)k) != k)
		log_warn("run: %s: cannot write our pid", path);
	d->lockfd = fd;
	return ERR_OK;
}

static void
reload(struct daemon *d)
{
	struct arena *a = arena_new();
	struct config *c = arena_alloc(a, sizeof(*c));

	got_hup = 0;
	if (d->o.reload == NULL ||
	    d->o.reload(d->o.reload_arg, a, c) != ERR_OK) {
		log_err("run: config: not reloaded; going on with the old "
		        "one");
		arena_free(a);
		return;
	}
	if (strcmp(c->database, d->conf->database) != 0)
		log_warn("run: config: core.database changed; the new one "
		         "is used after a restart");
	/* The old configuration's arena goes below: copy, not point. */
	c->database =
	    arena_strndup(a, d->conf->database, strlen(d->conf->database));
	say_relay(c, d->conf);
	follow_free_all(d);
	ingest_free(d->in);
	arena_free(d->conf_arena);
	d->conf_arena = a;
	d->conf = c;
	d->in = ingest_new(d->st, d->conf);
	follow_setup(d);
	d->rebuild_wanted = true;
	/* A relay configured, or another one: what waits may go now. */
	d->send_kick = true;
	log_info("run: config: reloaded");
}

/* Sleep until a source has news, a signal comes, or the next timer. */
static void
wait_for_work(struct daemon *d, const sigset_t *mask)
{
	struct pollfd pfd[65];
	int fds[64];
	struct timespec ts;
	double wait = follow_next(d) - time_mono();
	size_t n, i;
	char drain[64];

	if (wait > 1.0)
		wait = 1.0;
	if (wait < 0)
		wait = 0;
	n = follow_fds(d, fds, 64);
	pfd[0].fd = sig_pipe[0];
	pfd[0].events = POLLIN;
	for (i = 0; i < n; i++) {
		pfd[i + 1].fd = fds[i];
		pfd[i + 1].events = POLLIN;
	}
	ts.tv_sec = (time_t)wait;
	ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
	if (ppoll(pfd, n + 1, &ts, mask) > 0 && (pfd[0].revents & POLLIN))
		while (read(sig_pipe[0], drain, sizeof(drain)) > 0)
			;
}

static enum err
start(struct daemon *d, const struct config *conf, const struct daemon_opts *o)
{
	enum err e;

	memset(d, 0, sizeof(*d));
	d->o = *o;
	d->conf = conf;
	d->lockfd = -1;
	d->rebuild_wanted = true;
	daemon_stop = 0;
	got_hup = 0;
	if ((e = lock_take(d)) != ERR_OK)
		return e;
	if ((e = store_open(conf->database, STORE_CREATE, &d->st)) != ERR_OK)
		return e;
	/* SQLite's page cache fills to its limit over the first minutes of
	 * a run and stays there: that limit is the daemon's only growth of
	 * resident memory.  What it reads again (the newest mails, the
	 * queue) is small, and the kernel's page cache keeps the rest of the
	 * database a read away, so 512 KB rather than SQLite's 2 MB. */
	if ((e = store_cache_limit(d->st, DAEMON_DB_CACHE_KB)) != ERR_OK)
		return e;
	if ((e = store_run_queue_mark(d->st, &d->mark_seen)) != ERR_OK)
		return e;
	d->mark_built = d->mark_seen;
	d->in = ingest_new(d->st, d->conf);
	follow_setup(d);
	say_relay(d->conf, NULL);
	return ERR_OK;
}

static void
finish(struct daemon *d)
{
	follow_free_all(d);
	ingest_free(d->in);
	store_close(d->st);
	if (d->lockfd >= 0)
		close(d->lockfd);
	arena_free(d->conf_arena);
}

enum err
daemon_run(const struct config *conf, const struct daemon_opts *o)
{
	struct daemon d;
	sigset_t sleep_mask;
	bool worked = false;
	enum err e;

	if ((e = signals_setup(&sleep_mask)) != ERR_OK)
		return e;
	e = start(&d, conf, o);
	if (e == ERR_OK)
		log_info("run: %s: started%s", conf->database,
		    o->once ? " (once)" : "");
	while (e == ERR_OK && !daemon_stop) {
		if (got_hup)
			reload(&d);
		if (pass(&d) > 0) {
			worked = true;
			continue;
		}
		if (o->once)
			break;
		/* A rebuild's objects live in memory until it ends; freed,
		 * glibc keeps the pages.  Give them back before sleeping, so
		 * that the process's size is its steady state, not its
		 * largest build (make soak). */
		if (worked)
			malloc_trim(0);
		worked = false;
		wait_for_work(&d, &sleep_mask);
	}
	if (e == ERR_OK && daemon_stop)
		log_info("run: stopped by signal");
	/* --once for cron: say when a worker failed. */
	if (e == ERR_OK && o->once && !daemon_stop && d.failed)
		e = ERR_TEMP;
	finish(&d);
	signals_restore();
	return e;
}
