/*
 * The tester's loop (see tester.h): plan every project, rebuild when a
 * drop asks for it, claim queued runs up to test.jobs, run each in a
 * throw-away work tree, record its result, plan again -- until nothing
 * is queued, running or wanted.
 */
#include "bot/tester/tester.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/git/gitcheckout.h"
#include "bot/tester/runner.h"
#include "bot/tester/testerpriv.h"
#include "bot/tester/workdir.h"
#include "bot/workflow/stage.h"
#include "storage/store_msg.h"
#include "storage/store_outbox.h"
#include "storage/store_stage.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/utf8.h"
#include "util/xalloc.h"

/* From SIGTERM to SIGKILL, when a test is ended. */
#define GRACE_MS 5000
/* What test.sandbox = none means, in a log. */
#define NO_SANDBOX                                                             \
	"test.sandbox = none is written in the configuration: the test may "   \
	"reach the network and write wherever its user may"
/* Processes of the sandbox probe: bwrap takes three for itself, and a
 * small test.processes must not read as a sandbox that does not work. */
#define PROBE_PROCESSES 16
/* How often to look again while another process runs a test we wait
 * for. */
#define OTHERS_MS 500

struct job {
	struct runner *r;
	struct workdir w;
	int64_t run_id;
	struct buf head; /* the log's first lines: what ran, and how */
};

static volatile sig_atomic_t stop_signal;

static void
on_signal(int sig)
{
	stop_signal = sig;
}

/* ---- starting a run ---- */

static const char *
size_str(char *out, size_t n, long long v)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (v >= 1024 && v % 1024 == 0 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(out, n, "%lld", v);
	else
		snprintf(out, n, "%lld%c", v, units[u]);
	return out;
}

/* The environment of a test: nothing but what is named here. */
static char **
environment(struct arena *a, const struct job *j, const char *project,
    const struct store_test_run *r, const char *slug, const char *msgid)
{
	const char *path = getenv("PATH");
	char **env = arena_zalloc(a, 12 * sizeof(*env));
	size_t n = 0;

	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
#define SETENV(name, value)                                                    \
	do {                                                                   \
		size_t l = strlen(name) + strlen(value) + 2;                   \
		env[n] = arena_alloc(a, l);                                    \
		snprintf(env[n++], l, "%s=%s", name, value);                   \
	} while (0)
	SETENV("PATH", path);
	SETENV("HOME", j->w.home);
	SETENV("TMPDIR", j->w.tmp);
	SETENV("LANG", "C.UTF-8");
	SETENV("PATCHYARD_PROJECT", project);
	SETENV("PATCHYARD_COMMIT", r->commit);
	SETENV("PATCHYARD_BASE", r->base ? r->base : "");
	SETENV("PATCHYARD_PATCH", slug);
	SETENV("PATCHYARD_MESSAGE_ID", msgid);
#undef SETENV
	return env;
}

/* Files of the bot a test must not read (bwrap shows them empty). */
static const char **
secrets(struct arena *a, const struct config *c)
{
	const char **v = arena_zalloc(
	    a, (4 + c->nsources + c->nmaintainers + c->ncis) * sizeof(*v));
	size_t n = 0, i;

	v[n++] = c->file;
	if (c->smtp_password_file)
		v[n++] = c->smtp_password_file;
	for (i = 0; i < c->nsources; i++)
		if (c->sources[i].password_file)
			v[n++] = c->sources[i].password_file;
	for (i = 0; i < c->nmaintainers; i++)
		if (c->maintainers[i].token_file)
			v[n++] = c->maintainers[i].token_file;
	for (i = 0; i < c->ncis; i++)
		if (c->cis[i].token_file)
			v[n++] = c->cis[i].token_file;
	return v;
}

static void
header(struct tester *t, struct job *j, const struct store_test_run *r,
    const char *project, const char *slug)
{
	const struct config *c = t->conf;
	char mem[32];

	buf_addf(&j->head,
	    "patchyard: test of %s at %s (%s%s%s), base %s\n"
	    "patchyard: command: %s\n",
	    project, r->commit, r->purpose, *slug ? ": " : "",
	    *slug ? slug : "", r->base ? r->base : "-", c->test_command);
	if (c->test_sandbox == CONF_SANDBOX_BWRAP)
		buf_adds(&j->head,
		    "patchyard: sandbox: bwrap: no network, and only the "
		    "work tree and HOME are writable\n");
	else
		buf_adds(
		    &j->head, "patchyard: sandbox: none: " NO_SANDBOX "\n");
	buf_addf(&j->head,
	    "patchyard: limits: timeout %d s, cpu %d s, memory %s, files "
	    "%d, processes %d\n",
	    c->test_timeout, c->test_cpu,
	    size_str(mem, sizeof(mem), c->test_memory), c->test_files,
	    c->test_processes);
}

/* The patch a run is about: its slug and Message-ID ("" for the base). */
static enum err
about(struct tester *t, struct arena *a, int64_t patch_id, const char **slug,
    const char **msgid)
{
	struct store_patch p;
	struct store_msg m;
	enum err e;

	*slug = *msgid = "";
	if (patch_id == 0)
		return ERR_OK;
	if ((e = store_patch_get(t->st, a, patch_id, &p)) != ERR_OK ||
	    (e = store_msg_get(t->st, a, p.message_id, &m)) != ERR_OK)
		return e;
	*slug = p.slug;
	*msgid = m.msgid;
	return ERR_OK;
}

static enum err
prepare(struct tester *t, struct arena *a, struct job *j,
    const struct store_test_run *r, struct runner_spec *s)
{
	const char *project = store_project_name(t->st, r->project_id);
	const struct conf_project *p = config_project(t->conf, project);
	const char *slug, *msgid;
	struct gitrepo *repo = NULL;
	enum err e;

	project = arena_strdup(a, project);
	if (p == NULL || p->staging == NULL) {
		log_err("tester: run %lld: project %s has no staging tree",
		    (long long)r->id, project);
		return ERR_CONFIG;
	}
	if ((e = about(t, a, r->patch_id, &slug, &msgid)) != ERR_OK)
		return e;
	if ((e = workdir_make(&j->w)) != ERR_OK)
		return e;
	e = gitrepo_open(p->staging, &repo);
	if (e == ERR_OK)
		e = gitcheckout_write(repo, r->commit, j->w.tree);
	gitrepo_free(repo);
	if (e != ERR_OK)
		return e;
	header(t, j, r, project, slug);
	memset(s, 0, sizeof(*s));
	s->command = t->conf->test_command;
	s->dir = j->w.tree;
	s->home = j->w.home;
	s->env = environment(a, j, project, r, slug, msgid);
	s->bwrap = t->conf->test_sandbox == CONF_SANDBOX_BWRAP;
	s->hide = secrets(a, t->conf);
	s->timeout = t->conf->test_timeout;
	s->grace_ms = GRACE_MS;
	s->output_cap = (size_t)t->conf->test_output_cap;
	s->cpu = t->conf->test_cpu;
	s->memory = t->conf->test_memory;
	s->files = t->conf->test_files;
	s->processes = t->conf->test_processes;
	return ERR_OK;
}

/* A run the runner could not make: recorded as an error, not a result. */
static enum err
failed_start(struct tester *t, struct job *j, const char *why)
{
	struct store_test_run r;
	enum err e;

	memset(&r, 0, sizeof(r));
	r.id = j->run_id;
	r.state = "error";
	r.summary = why;
	r.log = buf_cstr(&j->head);
	if ((e = store_begin(t->st)) == ERR_OK) {
		if ((e = store_test_finish(t->st, &r, time_now())) == ERR_OK)
			e = store_commit(t->st);
		else
			store_rollback(t->st);
	}
	workdir_remove(&j->w);
	buf_free(&j->head);
	return e;
}

/*
 * The sandbox does not work and test.sandbox is not none: no test is
 * run, since a test of code from mail without its sandbox is what the
 * configuration did not ask for.  Each target waiting for a run gets a
 * warning check that says why -- not a failure: nothing is known of the
 * patch, and nobody is blamed or mailed -- once; the runs stay queued,
 * so the tests run when bwrap does.  ERR_CONFIG: `patchyard test` exits
 * 1 and the daemon tries again a minute later.
 */
static enum err
not_run(struct tester *t, const char *why, const char *log)
{
	struct arena *a = arena_new();
	struct store_test_run *r = NULL;
	struct buf sum = BUF_INIT;
	size_t n = 0, i;
	enum err e;

	log_err("tester: the bwrap sandbox does not work here (%s): tests "
	        "are not run (test.sandbox = none would run them without "
	        "it)",
	    why);
	buf_addf(&sum,
	    "not run: the bwrap sandbox does not work here (%s); tests run "
	    "without it only where test.sandbox = none is written in the "
	    "configuration",
	    why);
	if ((e = store_begin(t->st)) != ERR_OK)
		goto out;
	e = store_test_open(t->st, a, &r, &n);
	for (i = 0; i < n && e == ERR_OK; i++)
		if (strcmp(r[i].state, "queued") == 0 &&
		    strcmp(r[i].purpose, "target") == 0)
			e = verdict_not_run(t, &r[i], buf_cstr(&sum), log);
	if (e == ERR_OK)
		e = store_commit(t->st);
	else
		store_rollback(t->st);
out:
	buf_free(&sum);
	arena_free(a);
	return e == ERR_OK ? ERR_CONFIG : e;
}

/* The first line of a probe's output, for a summary. */
static const char *
first_line(char *out, size_t n, const struct runner_result *res)
{
	const char *p = res->log ? res->log : "";
	size_t len = strcspn(p, "\n");

	if (len == 0) {
		p = res->end == RUNNER_EXITED ? "it exits non-zero"
		                              : "it ends by a signal";
		len = strlen(p);
	}
	return log_quote(out, n, p, len);
}

/*
 * Before the first run under bwrap: does the sandbox work here at all?
 * A sandbox that cannot start (no user namespaces, say) would make every
 * test fail, and bisection would blame patches for it.
 */
static enum err
check_sandbox(struct tester *t)
{
	struct runner_spec s;
	struct runner_result res;
	struct runner *r = NULL;
	struct workdir w;
	char *env[] = { "PATH=/usr/bin:/bin", NULL };
	char why[256];
	enum err e;

	if (t->conf->test_sandbox == CONF_SANDBOX_NONE || t->sandbox_ok)
		return ERR_OK;
	if (!runner_have_bwrap())
		return not_run(t,
		    "there is no bwrap on PATH: apt-get install bubblewrap",
		    NULL);
	if ((e = workdir_make(&w)) != ERR_OK)
		return e;
	memset(&s, 0, sizeof(s));
	s.command = "exit 0";
	s.dir = w.tree;
	s.home = w.home;
	s.env = env;
	s.bwrap = true;
	s.timeout = 60;
	s.grace_ms = GRACE_MS;
	s.output_cap = 4096;
	s.cpu = 60;
	s.memory = t->conf->test_memory;
	s.files = t->conf->test_files;
	s.processes = PROBE_PROCESSES;
	e = runner_start(&s, &r);
	if (e == ERR_OK) {
		while (!runner_done(r))
			runner_poll(&r, 1, 1000);
		runner_finish(r, &res);
		t->sandbox_ok = res.end == RUNNER_EXITED && res.code == 0;
		if (!t->sandbox_ok) {
			struct buf log = BUF_INIT;

			utf8_repair(&log, res.log, res.log_len);
			e = not_run(t, first_line(why, sizeof(why), &res),
			    buf_cstr(&log));
			buf_free(&log);
		}
		runner_result_free(&res);
	}
	workdir_remove(&w);
	return e;
}

/* Claim a queued run and start it; ERR_NOTFOUND when none is queued. */
static enum err
start(struct tester *t, int64_t project, struct job *j)
{
	struct arena *a = arena_new();
	struct store_test_run r;
	struct runner_spec s;
	enum err e;

	memset(j, 0, sizeof(*j));
	if ((e = store_begin(t->st)) != ERR_OK)
		goto out;
	e = store_test_claim(t->st, project, getpid(), time_now(), &j->run_id);
	if (e == ERR_OK)
		e = store_test_get(t->st, a, j->run_id, &r);
	if (e == ERR_OK)
		e = store_commit(t->st);
	else
		store_rollback(t->st);
	if (e != ERR_OK)
		goto out;
	if ((e = prepare(t, a, j, &r, &s)) == ERR_OK)
		e = runner_start(&s, &j->r);
	if (e != ERR_OK) {
		failed_start(t, j, "the test could not be started");
		goto out;
	}
	buf_addf(&j->head, "patchyard: processes: %s\n",
	    spawn_hold_str(runner_hold(j->r)));
	log_info("tester: run %lld: %s %.12s", (long long)j->run_id, r.purpose,
	    r.commit);
out:
	arena_free(a);
	return e;
}

/* ---- finishing a run ---- */

static const char *
signame(int sig)
{
	switch (sig) {
	case SIGXCPU:
		return "SIGXCPU: over test.cpu";
	case SIGKILL:
		return "SIGKILL";
	case SIGSEGV:
		return "SIGSEGV";
	case SIGABRT:
		return "SIGABRT";
	case SIGTERM:
		return "SIGTERM";
	case SIGBUS:
		return "SIGBUS";
	}
	return "";
}

static void
summarize(
    const struct tester *t, const struct runner_result *res, struct buf *b)
{
	switch (res->end) {
	case RUNNER_EXITED:
		if (res->code == 0)
			buf_adds(b, "passed");
		else
			buf_addf(b, "exit status %d", res->code);
		break;
	case RUNNER_SIGNALED:
		buf_addf(b, "killed by signal %d%s%s%s", res->code,
		    *signame(res->code) ? " (" : "", signame(res->code),
		    *signame(res->code) ? ")" : "");
		break;
	case RUNNER_TIMEOUT:
		buf_addf(b, "timeout after %d s: ended", t->conf->test_timeout);
		break;
	case RUNNER_PROCESSES:
		buf_addf(b, "more than %d processes: ended",
		    t->conf->test_processes);
		break;
	}
	if (res->left)
		buf_addf(b, "; %d process%s left running ended with it",
		    res->left, res->left == 1 ? "" : "es");
	/* A fork beyond the bound failed, most likely, and so did it. */
	if (res->hold == SPAWN_NS_BOUND &&
	    res->most >= t->conf->test_processes &&
	    !(res->end == RUNNER_EXITED && res->code == 0))
		buf_addf(b,
		    "; it had test.processes (%d) at once: a fork "
		    "beyond fails",
		    t->conf->test_processes);
}

/* What the end of a log says besides the result (its tail is what a
 * check shows): how little held the test, where that was little. */
static void
footnotes(
    const struct tester *t, const struct runner_result *res, struct buf *log)
{
	if (t->conf->test_sandbox == CONF_SANDBOX_NONE)
		buf_adds(log, "patchyard: not sandboxed: " NO_SANDBOX "\n");
	if (res->hold == SPAWN_GROUP)
		buf_addf(log, "patchyard: processes: %s\n",
		    spawn_hold_str(res->hold));
}

static enum err
record(struct tester *t, struct job *j, const struct runner_result *res)
{
	struct arena *a = arena_new();
	struct buf sum = BUF_INIT, log = BUF_INIT;
	struct store_test_run r;
	bool pass = res->end == RUNNER_EXITED && res->code == 0;
	enum err e;

	summarize(t, res, &sum);
	buf_addstr(&log, buf_str(&j->head));
	utf8_repair(&log, res->log, res->log_len);
	if (log.n && log.p[log.n - 1] != '\n')
		buf_addc(&log, '\n');
	footnotes(t, res, &log);
	buf_addf(&log, "patchyard: %s after %lld.%03lld s\n", buf_cstr(&sum),
	    (long long)(res->duration_ms / 1000),
	    (long long)(res->duration_ms % 1000));
	if ((e = store_begin(t->st)) != ERR_OK)
		goto out;
	e = store_test_get(t->st, a, j->run_id, &r);
	if (e == ERR_OK) {
		r.state = "done";
		r.result = pass ? "success" : "fail";
		r.summary = buf_cstr(&sum);
		r.log = buf_cstr(&log);
		r.duration_ms = res->duration_ms;
		e = store_test_finish(t->st, &r, time_now());
	}
	if (e == ERR_OK && pass && strcmp(r.purpose, "confirm") == 0)
		e = verdict_flaky(t, &r);
	if (e == ERR_OK)
		e = store_commit(t->st);
	else
		store_rollback(t->st);
	if (e == ERR_OK && t->stats) {
		t->stats->runs++;
		t->stats->failed += !pass;
	}
	log_info("tester: run %lld: %s", (long long)j->run_id, buf_cstr(&sum));
out:
	buf_free(&sum);
	buf_free(&log);
	arena_free(a);
	return e;
}

static enum err
finish(struct tester *t, struct job *j)
{
	struct runner_result res;
	enum err e, e2;

	runner_finish(j->r, &res);
	j->r = NULL;
	e = record(t, j, &res);
	runner_result_free(&res);
	e2 = workdir_remove(&j->w);
	buf_free(&j->head);
	return e != ERR_OK ? e : e2;
}

/* ---- the queue's owners ---- */

/*
 * Runs left running by a process that is gone go back to the queue;
 * *others says whether a living process runs some (we wait for those).
 */
static enum err
recover(struct tester *t, bool *others)
{
	struct arena *a = arena_new();
	struct store_test_run *r = NULL;
	size_t n = 0, i;
	enum err e = store_begin(t->st);

	*others = false;
	if (e == ERR_OK)
		e = store_test_running(t->st, a, &r, &n);
	for (i = 0; i < n && e == ERR_OK; i++) {
		if (r[i].owner == getpid())
			continue;
		if (r[i].owner > 0 &&
		    (kill((pid_t)r[i].owner, 0) == 0 || errno == EPERM)) {
			*others = true;
			continue;
		}
		log_warn("tester: run %lld of %.12s was left running by "
		         "process %lld: queued again",
		    (long long)r[i].id, r[i].commit, (long long)r[i].owner);
		e = store_test_requeue(t->st, r[i].id);
	}
	if (e == ERR_OK)
		e = store_commit(t->st);
	else
		store_rollback(t->st);
	arena_free(a);
	return e;
}

/* Our runs go back to the queue (we were told to stop). */
static void
requeue(struct tester *t, struct job *jobs, size_t n)
{
	size_t i;

	if (store_begin(t->st) != ERR_OK)
		return;
	for (i = 0; i < n; i++)
		store_test_requeue(t->st, jobs[i].run_id);
	if (store_commit(t->st) != ERR_OK)
		store_rollback(t->st);
}

/* ---- the loop ---- */

static bool
project_tested(const struct config *c, const struct conf_project *p)
{
	return c->test_command && p->staging;
}

/* One planning round of every project (or REF's); a rebuild when a drop
 * or a stale build asks for one. */
static enum err
plan_all(struct tester *t)
{
	size_t i;
	enum err e = ERR_OK;

	for (i = 0; i < t->conf->nprojects && e == ERR_OK; i++)
		if (project_tested(t->conf, &t->conf->projects[i]))
			e = plan_project(t, &t->conf->projects[i]);
	if (e == ERR_OK && t->rebuild) {
		t->rebuild = false;
		t->rebuilt = true;
		if ((e = stage_rebuild(t->st, t->conf)) != ERR_OK)
			return e;
		return plan_all(t);
	}
	return e;
}

struct sigs {
	struct sigaction old[3];
};

static const int caught[3] = { SIGINT, SIGTERM, SIGHUP };

static void
catch_signals(struct sigs *s)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	stop_signal = 0;
	for (i = 0; i < 3; i++)
		sigaction(caught[i], &sa, &s->old[i]);
}

static void
restore_signals(struct sigs *s)
{
	size_t i;

	for (i = 0; i < 3; i++)
		sigaction(caught[i], &s->old[i], NULL);
}

static bool
any_done(const struct job *jobs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (runner_done(jobs[i].r))
			return true;
	return false;
}

/* Run and plan until nothing is left. */
static enum err
loop(struct tester *t, struct job *jobs, size_t *njobs)
{
	size_t cap = (size_t)t->conf->test_jobs, i;
	bool others;
	enum err e = ERR_OK;

	for (;;) {
		if ((e = recover(t, &others)) != ERR_OK)
			return e;
		if ((e = plan_all(t)) != ERR_OK)
			return e;
		if ((e = check_sandbox(t)) != ERR_OK)
			return e;
		while (
		    *njobs < cap && (e = start(t, 0, &jobs[*njobs])) == ERR_OK)
			(*njobs)++;
		if (e != ERR_OK && e != ERR_NOTFOUND)
			return e;
		e = ERR_OK;
		if (*njobs == 0 && !others)
			return ERR_OK;
		if (*njobs == 0) {
			usleep(OTHERS_MS * 1000);
			continue;
		}
		do {
			struct runner *rs[64];

			for (i = 0; i < *njobs; i++)
				rs[i] = jobs[i].r;
			runner_poll(rs, *njobs, 1000);
			if (stop_signal)
				return ERR_TEMP;
		} while (!any_done(jobs, *njobs));
		for (i = 0; i < *njobs && e == ERR_OK;) {
			if (!runner_done(jobs[i].r)) {
				i++;
				continue;
			}
			e = finish(t, &jobs[i]);
			jobs[i] = jobs[--*njobs];
		}
		if (e != ERR_OK)
			return e;
	}
}

enum err
tester_run(struct store *st, const struct config *conf,
    const struct tester_ref *ref, struct tester_stats *stats)
{
	struct job jobs[64];
	struct tester t;
	struct sigs sigs;
	size_t njobs = 0, i;
	enum err e;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (conf->test_command == NULL)
		return ERR_OK;
	memset(&t, 0, sizeof(t));
	t.st = st;
	t.conf = conf;
	t.ref = ref;
	t.stats = stats;
	t.nt = notify_new(st, conf);
	catch_signals(&sigs);
	runner_reaper(true);
	e = loop(&t, jobs, &njobs);
	for (i = 0; i < njobs; i++) {
		runner_abort(jobs[i].r);
		workdir_remove(&jobs[i].w);
		buf_free(&jobs[i].head);
	}
	if (njobs)
		requeue(&t, jobs, njobs);
	runner_reaper(false);
	restore_signals(&sigs);
	notify_free(t.nt);
	if (stop_signal) {
		log_warn("tester: stopped by signal %d; %zu run%s queued "
		         "again",
		    (int)stop_signal, njobs, njobs == 1 ? "" : "s");
		raise(stop_signal);
		return ERR_TEMP;
	}
	return e;
}

/* ---- is there work ---- */

/* The commits the last build of a project would test, by test.mode:
 * does each have a check? */
static enum err
targets_checked(struct store *st, const struct config *conf,
    const struct conf_project *p, bool *work)
{
	struct arena *a = arena_new();
	struct store_build *b[2] = { NULL, NULL }, *all;
	size_t nb[2] = { 0, 0 }, n = 0, i;
	int64_t project, *series;
	enum err e = store_project_id(st, p->name, &project);

	if (e == ERR_OK)
		e = store_stage_prev(st, a, project, "stable", &b[0], &nb[0]);
	if (e == ERR_OK)
		e = store_stage_prev(st, a, project, "unstable", &b[1], &nb[1]);
	all = arena_zalloc(a, (nb[0] + nb[1] + 1) * sizeof(*all));
	series = arena_zalloc(a, (nb[0] + nb[1] + 1) * sizeof(*series));
	for (i = 0; i < nb[0] + nb[1] && e == ERR_OK; i++) {
		const struct store_build *x =
		    i < nb[0] ? &b[0][i] : &b[1][i - nb[0]];
		struct store_patch row;

		if (x->commit == NULL)
			continue;
		if (conf->test_mode == CONF_TEST_SERIES &&
		    (e = store_patch_get(st, a, x->patch_id, &row)) == ERR_OK)
			series[n] = row.series_id;
		all[n++] = *x;
	}
	for (i = 0; i < n && e == ERR_OK && !*work; i++) {
		bool target = conf->test_mode == CONF_TEST_PATCH ||
		    i + 1 == n ||
		    (conf->test_mode == CONF_TEST_SERIES &&
		        series[i + 1] != series[i]);
		bool found = true;

		if (target)
			e = store_check_exists(
			    st, all[i].commit, 0, TESTER_CONTEXT, &found);
		*work = !found;
	}
	arena_free(a);
	return e;
}

enum err
tester_pending(struct store *st, const struct config *conf, bool *work)
{
	size_t i;
	enum err e;

	*work = false;
	if (conf->test_command == NULL)
		return ERR_OK;
	if ((e = store_test_work(st, work)) != ERR_OK || *work)
		return e;
	for (i = 0; i < conf->nprojects && e == ERR_OK && !*work; i++)
		if (project_tested(conf, &conf->projects[i]))
			e = targets_checked(st, conf, &conf->projects[i], work);
	return e;
}
