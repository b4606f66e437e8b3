/*
 * `patchyard serve` and `patchyard publish`: the status pages, JSON API,
 * mbox and Atom feed over HTTP, or as static files (bot/web/).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/cli/clipriv.h"
#include "bot/web/webpub.h"
#include "bot/web/websrv.h"

/* A count for an option: 1 to max. */
static bool
number(const char *s, unsigned max, unsigned *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || (unsigned long)v > max)
		return false;
	*out = (unsigned)v;
	return true;
}

int
cli_serve_cmd(struct cli *c)
{
	struct websrv_opts o = { WEBSRV_LISTEN, WEBSRV_CONNECTIONS, 0,
		WEBSRV_TIMEOUT, WEBSRV_THREADS };
	int i;

	/* Options and their values, in pairs. */
	for (i = 1; i < c->argc; i += 2) {
		const char *a = c->argv[i], *v;

		if (i + 1 >= c->argc)
			return cli_usage();
		v = c->argv[i + 1];
		if (strcmp(a, "--listen") == 0)
			o.listen = v;
		else if (strcmp(a, "--connections") == 0 &&
		    number(v, 100000, &o.connections))
			;
		else if (strcmp(a, "--per-client") == 0 &&
		    number(v, 100000, &o.per_client))
			;
		else if (strcmp(a, "--timeout") == 0 &&
		    number(v, 3600, &o.timeout))
			;
		else if (strcmp(a, "--threads") == 0 &&
		    number(v, 64, &o.threads))
			;
		else
			return cli_usage();
	}
	if (cli_load(c) != ERR_OK)
		return 1;
	switch (websrv_run(&c->conf, &o)) {
	case ERR_OK:
		return 0;
	case ERR_CONFIG:
		return 2;
	default:
		return 1;
	}
}

int
cli_publish_cmd(struct cli *c)
{
	struct webpub_stats s;
	enum err e;

	if (c->argc != 2 || c->argv[1][0] == '-')
		return cli_usage();
	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_RO) != ERR_OK)
		return 1;
	e = webpub_run(&c->conf, c->st, c->argv[1], &s);
	if (e == ERR_OK)
		fprintf(stderr,
		    "publish: %s: %zu contributions, %zu rewritten, %zu files "
		    "written\n",
		    c->argv[1], s.contributions, s.changed, s.written);
	return e == ERR_OK ? 0 : 1;
}
