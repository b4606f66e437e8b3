/*
 * The command line (docs/DESIGN.md §12).  Exit status: 0 success, 1 failure,
 * 2 usage; `ingest` exits 75 (EX_TEMPFAIL) when the mail should be
 * retried by the MTA.
 */
#include "bot/cli/cli.h"
#include "bot/cli/clipriv.h"

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/cli/conf.h"
#include "bot/git/gitrepo.h"
#include "bot/mailout/outbox.h"
#include "bot/workflow/am.h"
#include "bot/workflow/import.h"
#include "bot/workflow/ingest.h"
#include "bot/workflow/show.h"
#include "bot/workflow/stage.h"
#include "bot/workflow/workflow.h"
#include "parsers/limits.h"
#include "parsers/msgid.h"
#include "storage/store_run.h"
#include "util/log.h"
#include "util/timeutil.h"

#define EXIT_TEMPFAIL 75
/* sysexits' EX_DATAERR: the MTA returns the mail to its sender. */
#define EXIT_DATAERR 65

static const char usage_text[] =
    "usage: patchyard [-c bot.conf] [-v|-q] COMMAND [ARGS]\n"
    "\n"
    "  init                          create the database\n"
    "  ingest [--project P] < MAIL   store one mail (exit 75: try again)\n"
    "  import [--project P] [--mboxo] PATH...\n"
    "                                mboxrd/mbox (.gz), Maildir, "
    "public-inbox\n"
    "  list [--state S] [--since DATE] [--submitter ADDR] [--project P]\n"
    "       [--limit N] [--json]     contributions, newest activity first\n"
    "  show [--json] REF             one contribution\n"
    "  am [--verified] REF           the newest series as a git-am mbox\n"
    "  stage REF [--series]          add to the unstable queue\n"
    "  drop REF REASON [WORDS...]    drop (nacked, to-be-updated, ...)\n"
    "  graduate REF                  move to the stable queue\n"
    "  graduate --plan [--json]      what the promotion policy moves, and "
    "why not\n"
    "  graduate --auto               apply the promotion policy once\n"
    "  fold REF SLUG                 fold a fix-up into a staged patch\n"
    "  state REF new|changes-requested|rejected\n"
    "  withdraw REF                  drop as withdrawn\n"
    "  retest REF                    test again, ignoring known results\n"
    "  send [--now]                  send the mail that is due\n"
    "  rebuild | upstream            run one staging worker once\n"
    "  gc [--project P]              pack and prune the staging repositories\n"
    "  test [REF]                    test what is staged, until done\n"
    "  run [--once]                  the daemon: sources, workers, timers\n"
    "  status [--json]               sources, queues, outbox, last runs\n"
    "  trees [--json]                the subsystem trees merged into "
    "unstable\n"
    "  forward [--dry-run]           send the stable queue upstream\n"
    "  config                        check the config, print it with "
    "defaults\n"
    "  serve [--listen ADDR:PORT] [--timeout S] [--connections N]\n"
    "        [--per-client N] [--threads N]\n"
    "                                status pages, JSON API, mbox, Atom\n"
    "  publish DIR                   the same pages as static files\n";

int
cli_usage(void)
{
	fputs(usage_text, stderr);
	return 2;
}

enum err
cli_load(struct cli *c)
{
	return conf_load(c->a, conf_path(c->config_path), &c->conf);
}

enum err
cli_open_db(struct cli *c, enum store_mode mode)
{
	return store_open(c->conf.database, mode, &c->st);
}

static int
cmd_init(struct cli *c)
{
	size_t i;

	if (c->argc != 1)
		return cli_usage();
	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_CREATE) != ERR_OK)
		return 1;
	printf("patchyard: %s: database ready (schema %d)\n", c->conf.database,
	    store_schema_version());
	for (i = 0; i < c->conf.nprojects; i++) {
		const struct conf_project *p = &c->conf.projects[i];
		struct gitrepo *r;

		if (p->staging == NULL)
			continue;
		if (gitrepo_open(p->staging, &r) != ERR_OK)
			return 1;
		gitrepo_free(r);
		printf("patchyard: %s: staging repository ready\n", p->staging);
	}
	return 0;
}

/*
 * Read all of stdin, whole, at most max bytes.  A longer mail is read to
 * its end but not kept: ERR_LIMIT, *total its size.
 */
static enum err
read_stdin(struct buf *b, size_t max, uint64_t *total)
{
	char chunk[65536];
	size_t r;

	*total = 0;
	buf_init(b, 0);
	while ((r = fread(chunk, 1, sizeof(chunk), stdin)) > 0) {
		*total += r;
		if (*total <= max)
			buf_add(b, chunk, r);
		else
			buf_free(b);
	}
	if (ferror(stdin)) {
		log_err("ingest: stdin: %s", strerror(errno));
		return ERR_IO;
	}
	return *total > max ? ERR_LIMIT : ERR_OK;
}

static int
ingest_one(struct cli *c, const char *project, const struct buf *raw)
{
	struct ingest *in = ingest_new(c->st, &c->conf);
	struct arena *a = arena_new();
	/* Our MTA hands the mail over: its header is believed. */
	struct trust_road road = { c->conf.auth_authserv_id, true };
	struct mail_opts o;
	struct ingest_proof proof;
	struct mail m;
	enum ingest_result res;
	int64_t pid = 0;
	enum err e;

	ingest_set_road(in, &road);
	ingest_mail_opts(in, &o);
	mail_parse(a, buf_cstr(raw), raw->n, &o, &m);
	/* Judged before the write lock is taken: its DKIM keys may keep
	 * DNS waiting for seconds, and other deliveries, the web's check
	 * POSTs and the daemon write meanwhile.  An MTA's second delivery
	 * is not judged again. */
	memset(&proof, 0, sizeof(proof));
	if (!ingest_proof_may_wait(in, &m) || !ingest_delivered_before(in, &m))
		ingest_prove(in, a, buf_cstr(raw), raw->n, &m, &proof);
	if ((e = store_begin(c->st)) == ERR_OK) {
		e = ingest_project(in, project, &m, &pid);
		if (e == ERR_OK)
			e = ingest_mail(
			    in, buf_cstr(raw), raw->n, &m, &proof, pid, &res);
		if (e == ERR_OK)
			e = store_commit(c->st);
		if (e != ERR_OK)
			store_rollback(c->st);
	}
	arena_free(a);
	ingest_free(in);
	if (e == ERR_OK)
		return 0;
	log_err("ingest: %s: the mail is not stored", err_str(e));
	return EXIT_TEMPFAIL;
}

void
cli_opt_first(void)
{
	optind = 0; /* glibc: start again, from argv[1] */
}

int
cli_opt(struct cli *c, const struct option *opts)
{
	return getopt_long(c->argc, c->argv, "", opts, NULL);
}

const struct option cli_json_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};

bool
cli_json_only(struct cli *c, bool *json, int operands)
{
	int ch;

	*json = false;
	cli_opt_first();
	while ((ch = cli_opt(c, cli_json_opts)) != -1) {
		if (ch != 'j')
			return false;
		*json = true;
	}
	return c->argc - optind == operands;
}

static const struct option project_opts[] = {
	{ "project", required_argument, NULL, 'p' },
	{ NULL, 0, NULL, 0 },
};

static int
cmd_ingest(struct cli *c)
{
	const char *project = NULL;
	struct buf raw;
	uint64_t total;
	int ch, rc;
	enum err e;

	cli_opt_first();
	while ((ch = cli_opt(c, project_opts)) != -1) {
		if (ch != 'p')
			return cli_usage();
		project = optarg;
	}
	if (optind < c->argc)
		return cli_usage();
	/* A broken config or database is the operator's to fix; the MTA
	 * keeps the mail meanwhile. */
	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_CREATE) != ERR_OK)
		return EXIT_TEMPFAIL;
	e = read_stdin(&raw, LIMIT_MAIL_STORE, &total);
	if (e == ERR_LIMIT) {
		/* Stored whole or not at all: the MTA returns it to its
		 * sender, who still has it. */
		log_err("ingest: standard input: the mail is %llu bytes, over "
		        "the %u bytes a mail may have: not stored",
		    (unsigned long long)total, LIMIT_MAIL_STORE);
		buf_free(&raw);
		return EXIT_DATAERR;
	}
	if (e != ERR_OK) {
		buf_free(&raw);
		return EXIT_TEMPFAIL;
	}
	rc = ingest_one(c, project, &raw);
	buf_free(&raw);
	return rc;
}

static void
print_stats(const struct ingest_stats *s, double secs)
{
	fprintf(stderr,
	    "import: %zu mails in %.2f s: %zu stored, %zu second deliveries, "
	    "%zu reusing a Message-ID; %zu patches, %zu cover letters, %zu "
	    "replies, %zu other, %zu over a limit; %zu series, %zu linked to "
	    "an older version",
	    s->seen, secs, s->stored, s->duplicates, s->dupids, s->patches,
	    s->covers, s->replies, s->other + s->pulls + s->bots, s->overlimit,
	    s->series, s->linked);
	if (s->refused)
		fprintf(stderr, "; %zu too large to store, not imported",
		    s->refused);
	fputc('\n', stderr);
}

static int
cmd_import(struct cli *c)
{
	struct import_opts o;
	struct ingest *in;
	double t0 = time_mono();
	static const struct option opts[] = {
		{ "project", required_argument, NULL, 'p' },
		{ "mboxo", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	char **paths;
	int i, ch, npaths, rc = 0;

	memset(&o, 0, sizeof(o));
	cli_opt_first();
	while ((ch = cli_opt(c, opts)) != -1) {
		if (ch == 'p')
			o.project = optarg;
		else if (ch == 'o')
			o.mboxo = true;
		else
			return cli_usage();
	}
	paths = c->argv + optind;
	npaths = c->argc - optind;
	if (npaths == 0)
		return cli_usage();
	if (cli_load(c) != ERR_OK)
		return 1;
	if (cli_open_db(c, STORE_CREATE) != ERR_OK)
		return 1;
	o.progress = isatty(STDERR_FILENO);
	if (store_set_sync(c->st, STORE_SYNC_NORMAL) != ERR_OK ||
	    store_bulk(c->st, true) != ERR_OK)
		return 1;
	in = ingest_new(c->st, &c->conf);
	for (i = 0; i < npaths && rc == 0; i++) {
		enum err e = import_path(in, c->st, paths[i], &o);

		if (e != ERR_OK) {
			log_err("import: %s: %s", paths[i], err_str(e));
			rc = 1;
		}
	}
	if (store_bulk(c->st, false) != ERR_OK)
		rc = 1;
	/* Nothing is lost, but such a mail is not in the database: the
	 * run fails so that someone looks (the log names each). */
	if (ingest_stats(in)->refused)
		rc = 1;
	if (log_get_level() >= LOG_WARN || o.progress)
		print_stats(ingest_stats(in), time_mono() - t0);
	ingest_free(in);
	return rc;
}

/* A count for --limit: 1 to 10^9. */
static bool
parse_count(const char *s, size_t *n)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 1000000000)
		return false;
	*n = (size_t)v;
	return true;
}

static int
cmd_list(struct cli *c)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "state", required_argument, NULL, 's' },
		{ "project", required_argument, NULL, 'p' },
		{ "submitter", required_argument, NULL, 'u' },
		{ "since", required_argument, NULL, 'd' },
		{ "limit", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct store_filter f;
	bool json = false;
	int ch;

	memset(&f, 0, sizeof(f));
	cli_opt_first();
	while ((ch = cli_opt(c, opts)) != -1) {
		if (ch == 'j')
			json = true;
		else if (ch == 's')
			f.state = optarg;
		else if (ch == 'p')
			f.project = optarg;
		else if (ch == 'u')
			f.submitter = optarg;
		else if (ch == 'd' &&
		    time_parse_iso(optarg, &f.since) == ERR_OK)
			continue;
		else if (ch == 'n' && parse_count(optarg, &f.limit))
			continue;
		else
			return cli_usage();
	}
	if (optind < c->argc)
		return cli_usage();
	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_RO) != ERR_OK)
		return 1;
	return show_list(c->st, &f, json);
}

static int
cmd_show(struct cli *c)
{
	bool json;

	if (!cli_json_only(c, &json, 1))
		return cli_usage();
	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_RO) != ERR_OK)
		return 1;
	return show_one(c->st, c->argv[optind], json);
}

/* The local user, as the actor of terminal commands. */
const char *
cli_local_user(void)
{
	const char *u = getenv("USER");
	struct passwd *pw;

	if (u && *u)
		return u;
	pw = getpwuid(getuid());
	return pw ? pw->pw_name : "operator";
}

/* A Message-ID of a mail that is no patch: a pull request's tree. */
static enum err
local_msg(struct cli *c, struct workflow *w, const struct command *cmd,
    struct buf *msg)
{
	struct str id = msgid_from_user(str_from(c->argv[1]));
	char *copy;
	enum err e;

	if (id.p == NULL)
		return ERR_NOTFOUND;
	copy = str_dup(id);
	e = workflow_local_msg(w, cmd, copy, cli_local_user(), msg);
	free(copy);
	return e;
}

/*
 * Carry out one parsed command on REF (c->argv[1]) in a transaction of
 * its own, as a mail command would be: its answer on stdout, a refusal
 * on stderr.  0, 1 (refused or failed) or 2 (a usage error).
 */
int
cli_command(struct cli *c, const struct command *cmd)
{
	struct buf msg = BUF_INIT;
	struct workflow *w = NULL;
	int64_t cid, sid, pid;
	int rc = 1;
	enum err e;

	if ((e = store_begin(c->st)) != ERR_OK)
		return 1;
	e = show_resolve(c->st, c->argv[1], &cid, &sid, &pid);
	w = workflow_new(c->st, &c->conf);
	if (e == ERR_OK)
		e = workflow_local(
		    w, cmd, cid, sid, pid, cli_local_user(), &msg);
	else if (e == ERR_NOTFOUND && cid == 0)
		e = local_msg(c, w, cmd, &msg);
	if (e == ERR_OK && (e = store_commit(c->st)) == ERR_OK) {
		printf("%s\n", buf_cstr(&msg));
		rc = 0;
	} else {
		store_rollback(c->st);
		if (e == ERR_NOTFOUND)
			fprintf(stderr, "patchyard: %s: no such contribution\n",
			    c->argv[1]);
		else if (msg.n)
			fprintf(
			    stderr, "patchyard: refused: %s\n", buf_cstr(&msg));
		rc = e == ERR_USAGE ? 2 : 1;
	}
	workflow_free(w);
	buf_free(&msg);
	return rc;
}

/*
 * stage, drop, graduate, fold, state, withdraw: the mail commands from
 * the terminal.  The words after REF are read as the command line a
 * maintainer would mail, so both paths share the parser and its checks.
 */
int
cli_verb_cmd(struct cli *c)
{
	static const struct option opts[] = {
		{ "series", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct buf line = BUF_INIT;
	struct command *cmds = NULL;
	size_t ncmds = 0;
	bool series = false;
	int i, ch, rc = 1;

	cli_opt_first();
	while ((ch = cli_opt(c, opts)) != -1) {
		if (ch != 's')
			return cli_usage();
		series = true;
	}
	if (optind >= c->argc)
		return cli_usage();
	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_RW) != ERR_OK)
		return 1;
	buf_addf(&line, "%s %s", c->conf.command_prefix, c->argv[0]);
	if (series)
		buf_adds(&line, " series");
	for (i = optind + 1; i < c->argc; i++)
		buf_addf(&line, " %s", c->argv[i]);
	buf_addc(&line, '\n');
	command_parse(
	    c->a, buf_str(&line), c->conf.command_prefix, &cmds, &ncmds);
	if (ncmds != 1 || cmds[0].verb == CMD_BAD) {
		fprintf(stderr, "patchyard: %s\n",
		    ncmds && cmds[0].error ? cmds[0].error : "bad arguments");
		rc = 2;
		goto out;
	}
	c->argv[1] = c->argv[optind]; /* REF, where cli_command() reads it */
	rc = cli_command(c, &cmds[0]);
out:
	buf_free(&line);
	return rc;
}

static int
cmd_send(struct cli *c)
{
	static const struct option opts[] = {
		{ "now", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct outbox_stats os;
	bool now = false;
	enum err e;
	int ch;

	cli_opt_first();
	while ((ch = cli_opt(c, opts)) != -1) {
		if (ch != 'n')
			return cli_usage();
		now = true;
	}
	if (optind < c->argc)
		return cli_usage();
	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_RW) != ERR_OK)
		return 1;
	e = outbox_send(c->st, &c->conf, now, &os);
	if (os.sent + os.failed + os.waiting)
		fprintf(stderr,
		    "send: %u sent, %u failed, %u waiting; %u SMTP "
		    "connection%s\n",
		    os.sent, os.failed, os.waiting, os.connections,
		    os.connections == 1 ? "" : "s");
	if (e == ERR_OK && os.sent + os.failed + os.waiting)
		e = store_run_mark(c->st, "send", time_now());
	return e == ERR_OK ? 0 : 1;
}

/* Has some project a staging repository (and, for need_upstream, an
 * upstream to scan)? */
static bool
has_staging(const struct config *conf, bool need_upstream)
{
	size_t i;

	for (i = 0; i < conf->nprojects; i++)
		if (conf->projects[i].staging &&
		    (!need_upstream || conf->projects[i].upstream))
			return true;
	return false;
}

/* rebuild and upstream: the staging workers.  A project without a
 * staging repository has nothing to build. */
static int
cmd_worker(struct cli *c)
{
	enum err e;

	if (c->argc != 1)
		return cli_usage();
	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_RW) != ERR_OK)
		return 1;
	if (strcmp(c->argv[0], "rebuild") == 0)
		e = stage_rebuild(c->st, &c->conf);
	else
		e = stage_upstream(c->st, &c->conf);
	/* For `status`: when the worker last did its job, if it had one. */
	if (e == ERR_OK && has_staging(&c->conf, c->argv[0][0] == 'u'))
		e = store_run_mark(c->st, c->argv[0], time_now());
	return e == ERR_OK ? 0 : 1;
}

static const struct subcommand {
	const char *name;
	int (*fn)(struct cli *);
} commands[] = {
	{ "init", cmd_init },
	{ "ingest", cmd_ingest },
	{ "import", cmd_import },
	{ "list", cmd_list },
	{ "show", cmd_show },
	{ "am", cli_am_cmd },
	{ "stage", cli_verb_cmd },
	{ "drop", cli_verb_cmd },
	{ "graduate", cli_graduate_cmd },
	{ "fold", cli_verb_cmd },
	{ "state", cli_verb_cmd },
	{ "withdraw", cli_verb_cmd },
	{ "send", cmd_send },
	{ "retest", cli_retest_cmd },
	{ "test", cli_test_cmd },
	{ "rebuild", cmd_worker },
	{ "upstream", cmd_worker },
	{ "trees", cli_trees_cmd },
	{ "forward", cli_forward_cmd },
	{ "config", cli_config_cmd },
	{ "serve", cli_serve_cmd },
	{ "publish", cli_publish_cmd },
	{ "run", cli_run_cmd },
	{ "status", cli_status_cmd },
	{ "gc", cli_gc_cmd },
};

static const struct option main_opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int
cli_main(int argc, char **argv)
{
	struct cli c;
	size_t k;
	int i, ch, rc;

	/* A relay or client that hangs up must not kill the process: the
	 * write fails and the error is handled where it happens. */
	signal(SIGPIPE, SIG_IGN);
	memset(&c, 0, sizeof(c));
	/* "+": the options before the subcommand are patchyard's; what
	 * follows it is the subcommand's. */
	while (
	    (ch = getopt_long(argc, argv, "+c:vqh", main_opts, NULL)) != -1) {
		if (ch == 'c')
			c.config_path = optarg;
		else if (ch == 'v')
			log_set_level(log_get_level() < LOG_DEBUG
			        ? log_get_level() + 1
			        : LOG_DEBUG);
		else if (ch == 'q')
			log_set_level(LOG_ERR);
		else if (ch == 'h') {
			fputs(usage_text, stdout);
			return 0;
		} else
			return cli_usage();
	}
	i = optind;
	if (i >= argc)
		return cli_usage();
	for (k = 0; k < sizeof(commands) / sizeof(commands[0]); k++) {
		if (strcmp(argv[i], commands[k].name) != 0)
			continue;
		c.a = arena_new();
		c.argc = argc - i;
		c.argv = argv + i;
		rc = commands[k].fn(&c);
		store_close(c.st);
		arena_free(c.a);
		return rc;
	}
	fprintf(stderr, "patchyard: '%s' is not a command\n", argv[i]);
	return cli_usage();
}
