/*
 * What the files of bot/cli/ share: the state of one command-line run
 * and its helpers.  Each group of subcommands lives in a file of its own
 * (cli_<area>.c) and is listed in the table of cli.c.  Not for other
 * rooms: they get what they need as arguments.
 */
#ifndef BOT_CLI_CLIPRIV_H
#define BOT_CLI_CLIPRIV_H

#include <getopt.h>
#include <stdbool.h>

#include "parsers/config.h"
#include "storage/store.h"
#include "util/arena.h"
#include "util/err.h"

struct cli {
	const char *config_path; /* -c, or NULL: the default */
	struct arena *a; /* freed when the subcommand returns */
	struct config conf; /* filled by cli_load() */
	struct store *st; /* opened by cli_open_db(), closed after */
	int argc; /* argv[0] is the subcommand's name */
	char **argv;
};

/*
 * A subcommand's options are read with getopt_long over c->argv (argv[0]
 * is the subcommand): options and operands in any order, "--" ends the
 * options, "--opt=value" and "--opt value" alike.  cli_opt() returns
 * each option's val in turn, -1 at the end, when the operands are
 * c->argv[optind .. c->argc); '?' for an unknown option or a missing
 * value (getopt has said which).  cli_opt_first() starts a new scan.
 */
struct option;
void cli_opt_first(void);
int cli_opt(struct cli *c, const struct option *opts);
/* The one option "--json" (val 'j'). */
extern const struct option cli_json_opts[];
/* Read a subcommand whose only option is --json: false on a usage error
 * (then nothing else may follow: operands are left at optind). */
bool cli_json_only(struct cli *c, bool *json, int operands);

/* Print the usage to stderr; returns 2, the usage exit status. */
int cli_usage(void);

/* Read the configuration (errors on stderr with file:line). */
enum err cli_load(struct cli *c);

/* Open the configured database in mode. */
enum err cli_open_db(struct cli *c, enum store_mode mode);

/* The local user, as the actor of terminal commands. */
const char *cli_local_user(void);

/* cli.c: stage, drop, graduate REF, fold, state, withdraw. */
int cli_verb_cmd(struct cli *c);

/* cli.c: carry out one command on REF (argv[1]) as a mail would; its
 * answer on stdout.  0, 1 (refused, failed) or 2 (usage). */
struct command;
int cli_command(struct cli *c, const struct command *cmd);

/* cli_forward.c: `patchyard graduate` (REF, --plan, --auto), `trees`,
 * `forward`. */
int cli_graduate_cmd(struct cli *c);
int cli_trees_cmd(struct cli *c);
int cli_forward_cmd(struct cli *c);

/* cli.c: the local user, the actor of commands from the terminal. */
const char *cli_local_user(void);

/* cli_config.c: `patchyard config`. */
int cli_config_cmd(struct cli *c);

/* cli_web.c: `patchyard serve` and `patchyard publish`. */
int cli_serve_cmd(struct cli *c);
int cli_publish_cmd(struct cli *c);

/* cli_run.c: `patchyard run [--once]`, the daemon. */
int cli_run_cmd(struct cli *c);

/* cli_status.c: `patchyard status [--json]`. */
int cli_status_cmd(struct cli *c);

/* cli_am.c: `patchyard am [--verified] REF`. */
int cli_am_cmd(struct cli *c);

/* cli_gc.c: `patchyard gc [--project P]`. */
int cli_gc_cmd(struct cli *c);

/* cli_test.c: `patchyard test [REF]` and `patchyard retest REF`. */
int cli_test_cmd(struct cli *c);
int cli_retest_cmd(struct cli *c);

#endif
