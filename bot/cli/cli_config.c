/*
 * `patchyard config`: read the configuration as every other command
 * does and either report each error with file:line (exit 1) or print
 * the effective configuration, defaults filled in (exit 0).  Only
 * syntax and values are checked: files a key names are checked when
 * they are used (docs/DESIGN.md §10), so an example config checks anywhere.
 * A setting that is valid but unsafe is warned about on stderr.
 */
#include <stdio.h>

#include "bot/cli/clipriv.h"
#include "util/buf.h"

int
cli_config_cmd(struct cli *c)
{
	struct buf out = BUF_INIT;
	int rc = 0;

	if (c->argc != 1)
		return cli_usage();
	if (cli_load(c) != ERR_OK)
		return 1;
	/* Tests run staged code, which came by mail. */
	if (c->conf.test_sandbox == CONF_SANDBOX_NONE)
		fprintf(stderr,
		    "patchyard: warning: %s: test.sandbox = none: tests of "
		    "staged code (code from mail) run without the bwrap "
		    "sandbox, with the network and everything patchyard's "
		    "user may write\n",
		    c->conf.file);
	config_write(&c->conf, &out);
	if (fwrite(out.p, 1, out.n, stdout) != out.n || fflush(stdout) != 0) {
		perror("patchyard: config");
		rc = 1;
	}
	buf_free(&out);
	return rc;
}
