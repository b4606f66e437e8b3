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
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "connections", required_argument, NULL, 'c' },
		{ "per-client", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "threads", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	bool ok;
	int ch;

	cli_opt_first();
	while ((ch = cli_opt(c, opts)) != -1) {
		if (ch == 'l')
			ok = (o.listen = optarg) != NULL;
		else if (ch == 'c')
			ok = number(optarg, 100000, &o.connections);
		else if (ch == 'p')
			ok = number(optarg, 100000, &o.per_client);
		else if (ch == 't')
			ok = number(optarg, 3600, &o.timeout);
		else if (ch == 'T')
			ok = number(optarg, 64, &o.threads);
		else
			ok = false;
		if (!ok)
			return cli_usage();
	}
	if (optind != c->argc)
		return cli_usage();
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
