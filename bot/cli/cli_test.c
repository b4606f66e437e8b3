/*
 * `patchyard test [REF]`: the tester until no test work is left -- REF
 * limits it to the targets that hold REF's patches.  `patchyard retest
 * REF`: ask for REF's tests again, ignoring what is known of them,
 * through the same code path as `#yard retest`, then run them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/cli/clipriv.h"
#include "bot/tester/tester.h"
#include "bot/workflow/show.h"
#include "parsers/command.h"
#include "storage/store_patch.h"
#include "storage/store_series.h"

/* The patches REF names: a patch, a series' patches, or those of a
 * contribution's newest series. */
static enum err
ref_patches(struct cli *c, const char *ref, int64_t **ids, size_t *n)
{
	int64_t cid, sid, pid, *series = NULL;
	size_t ns = 0;
	enum err e = show_resolve(c->st, ref, &cid, &sid, &pid);

	*ids = NULL;
	*n = 0;
	if (e == ERR_NOTFOUND)
		fprintf(stderr, "patchyard: %s: no such contribution\n", ref);
	if (e != ERR_OK)
		return e;
	if (pid) {
		*ids = malloc(sizeof(**ids));
		if (*ids == NULL)
			return ERR_NOMEM;
		(*ids)[0] = pid;
		*n = 1;
		return ERR_OK;
	}
	if (sid == 0) {
		if ((e = store_series_of(c->st, cid, &series, &ns)) != ERR_OK)
			return e;
		sid = ns ? series[0] : 0;
		free(series);
	}
	return store_patch_of_series(c->st, sid, ids, n);
}

static int
run(struct cli *c, const char *ref)
{
	struct tester_stats s;
	struct tester_ref r = { NULL, 0 };
	int64_t *ids = NULL;
	enum err e = ERR_OK;

	if (ref && (e = ref_patches(c, ref, &ids, &r.n)) != ERR_OK)
		return e == ERR_USAGE ? 2 : 1;
	r.patches = ids;
	e = tester_run(c->st, &c->conf, ref ? &r : NULL, &s);
	free(ids);
	fprintf(stderr,
	    "test: %d run%s (%d failed), %d check%s recorded, %d first "
	    "failing patch%s (%d dropped), %d flaky\n",
	    s.runs, s.runs == 1 ? "" : "s", s.failed, s.checks,
	    s.checks == 1 ? "" : "s", s.blamed, s.blamed == 1 ? "" : "es",
	    s.dropped, s.flaky);
	return e == ERR_OK ? 0 : 1;
}

static bool
configured(const struct cli *c)
{
	if (c->conf.test_command)
		return true;
	fprintf(stderr, "patchyard: no tests are configured (test.command)\n");
	return false;
}

int
cli_test_cmd(struct cli *c)
{
	if (c->argc > 2)
		return cli_usage();
	if (cli_load(c) != ERR_OK || !configured(c) ||
	    cli_open_db(c, STORE_RW) != ERR_OK)
		return 1;
	return run(c, c->argc == 2 ? c->argv[1] : NULL);
}

int
cli_retest_cmd(struct cli *c)
{
	struct command cmd;
	int rc;

	if (c->argc != 2)
		return cli_usage();
	if (cli_load(c) != ERR_OK || !configured(c) ||
	    cli_open_db(c, STORE_RW) != ERR_OK)
		return 1;
	memset(&cmd, 0, sizeof(cmd));
	cmd.verb = CMD_RETEST;
	cmd.line = "retest";
	rc = cli_command(c, &cmd);
	return rc == 0 ? run(c, c->argv[1]) : rc;
}
