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
	enum am_trailers which = AM_AS_B4;
	const char *ref = NULL;
	int i;

	for (i = 1; i < c->argc; i++) {
		if (strcmp(c->argv[i], "--verified") == 0)
			which = AM_VERIFIED;
		else if (ref == NULL && c->argv[i][0] != '-')
			ref = c->argv[i];
		else
			return cli_usage();
	}
	if (ref == NULL)
		return cli_usage();
	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_RO) != ERR_OK)
		return 1;
	return am_write(c->st, &c->conf, ref, which, stdout);
}
