/*
 * `patchyard gc [--project P]`: pack and prune each project's staging
 * repository (bot/git/gitgc.h), what the daemon does every [run]
 * gc-interval.  Exit 1 when one failed, 75 (EX_TEMPFAIL) when one was
 * busy with a build.
 */
#include <stdio.h>
#include <string.h>

#include "bot/cli/clipriv.h"
#include "bot/workflow/collect.h"

int
cli_gc_cmd(struct cli *c)
{
	static const struct option opts[] = {
		{ "project", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	const char *only = NULL;
	bool busy = false, failed = false, any = false;
	size_t i;
	int ch;

	cli_opt_first();
	while ((ch = cli_opt(c, opts)) != -1) {
		if (ch != 'p')
			return cli_usage();
		only = optarg;
	}
	if (optind != c->argc)
		return cli_usage();
	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_RO) != ERR_OK)
		return 1;
	for (i = 0; i < c->conf.nprojects; i++) {
		const struct conf_project *p = &c->conf.projects[i];
		struct gitgc_stats s;
		enum err e;

		if (p->staging == NULL || (only && strcmp(only, p->name) != 0))
			continue;
		any = true;
		e = collect_project(c->st, p, &s);
		if (e == ERR_BUSY) {
			fprintf(stderr, "gc: %s: busy with a build, not now\n",
			    p->name);
			busy = true;
			continue;
		}
		if (e != ERR_OK) {
			fprintf(stderr, "gc: %s: %s\n", p->name, err_str(e));
			failed = true;
			continue;
		}
		printf("gc: %s: %zu objects in one pack (were %zu loose, %zu "
		       "packs); %llu KB -> %llu KB\n",
		    p->name, s.objects, s.loose_before, s.packs_before,
		    s.bytes_before / 1024, s.bytes_after / 1024);
	}
	if (!any)
		fprintf(stderr, "gc: %s\n",
		    only ? "no such project with a staging repository"
		         : "no project has a staging repository");
	return failed || (!any && only) ? 1 : busy ? 75 : 0;
}
