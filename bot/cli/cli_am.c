/*
 * `patchyard am [--verified] REF`: a series as an mbox for git am, with
 * the trailers people gave in replies.  By default those b4 am would
 * take (the maintainer reads the mbox before applying it); --verified
 * takes only the verified ones, as the staging tree does.
 */
#include <stdio.h>
#include <string.h>

#include "bot/cli/clipriv.h"
#include "bot/workflow/am.h"

int
cli_am_cmd(struct cli *c)
{
	static const struct option opts[] = {
		{ "verified", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	enum am_trailers which = AM_AS_B4;
	int ch;

	cli_opt_first();
	while ((ch = cli_opt(c, opts)) != -1) {
		if (ch != 'v')
			return cli_usage();
		which = AM_VERIFIED;
	}
	if (optind != c->argc - 1)
		return cli_usage();
	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_RO) != ERR_OK)
		return 1;
	return am_write(c->st, &c->conf, c->argv[optind], which, stdout);
}
