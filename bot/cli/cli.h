/*
 * Room bot/cli: the command line, one subcommand per run.
 *
 * The command line of docs/DESIGN.md §12: parse argv, run one subcommand.
 */
#ifndef BOT_CLI_H
#define BOT_CLI_H

/* Exit status: 0 success, 1 failure, 2 usage (75 for ingest's tempfail). */
int cli_main(int argc, char **argv);

#endif
