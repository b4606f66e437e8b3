/*
 * `patchyard run [--once]`: the daemon (bot/daemon/).  Its events are
 * logged one line each at the info level, so run logs them by default;
 * -v adds the detail, -q keeps only errors.
 */
#include <string.h>

#include "bot/cli/clipriv.h"
#include "bot/cli/conf.h"
#include "bot/daemon/daemon.h"
#include "util/log.h"

static enum err
reload(void *arg, struct arena *a, struct config *out)
{
	const struct cli *c = arg;

	return conf_load_logged(a, conf_path(c->config_path), out);
}

int
cli_run_cmd(struct cli *c)
{
	static const struct option opts[] = {
		{ "once", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct daemon_opts o;
	int ch;

	memset(&o, 0, sizeof(o));
	cli_opt_first();
	while ((ch = cli_opt(c, opts)) != -1) {
		if (ch != 'o')
			return cli_usage();
		o.once = true;
	}
	if (optind != c->argc)
		return cli_usage();
	if (log_get_level() == LOG_WARN || log_get_level() == LOG_INFO)
		log_set_level(log_get_level() + 1);
	if (conf_load_logged(c->a, conf_path(c->config_path), &c->conf) !=
	    ERR_OK)
		return 1;
	o.reload = reload;
	o.reload_arg = c;
	return daemon_run(&c->conf, &o) == ERR_OK ? 0 : 1;
}
