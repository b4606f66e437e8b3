/*
 * The way to upstream from the command line: `graduate --plan|--auto`
 * (the promotion policy), `forward` (the stable queue upstream) and
 * `trees` (the subsystem trees merged into unstable).  DESIGN.md §12.
 */
#include <stdio.h>
#include <string.h>

#include "bot/cli/clipriv.h"
#include "bot/workflow/forward.h"
#include "bot/workflow/promote.h"
#include "bot/workflow/stage.h"
#include "bot/workflow/trees.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/timeutil.h"

static void
plan_json(const struct promote_item *it, size_t n, struct buf *out)
{
	struct json j;
	size_t i;
	unsigned bit;

	json_init(&j, out, true);
	json_arr_begin(&j);
	for (i = 0; i < n; i++) {
		json_obj_begin(&j);
		json_key(&j, "project");
		json_str(&j, it[i].project);
		json_key(&j, "slug");
		json_str(&j, it[i].slug);
		json_key(&j, "title");
		json_str(&j, it[i].title);
		json_key(&j, "message_id");
		json_str(&j, it[i].message_id);
		json_key(&j, "move");
		json_bool(&j, it[i].held == 0);
		json_key(&j, "held_by");
		json_arr_begin(&j);
		for (bit = 1; bit && bit <= it[i].held; bit <<= 1)
			if (it[i].held & bit)
				json_str(&j, promote_hold_word(bit));
		json_arr_end(&j);
		json_key(&j, "why");
		json_str(&j, it[i].why);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	buf_addc(out, '\n');
}

/* A line per patch: slug, title, then "stable (what it met)" or
 * "held: days (2 of 7), review (0 of 1)". */
static void
plan_text(const struct promote_item *it, size_t n, struct buf *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		buf_addf(out, "%s\t%s\t", it[i].slug, it[i].title);
		if (it[i].held)
			buf_addf(out, "held: %s\n", it[i].why);
		else
			buf_addf(out, "stable%s%s%s\n", *it[i].why ? " (" : "",
			    it[i].why, *it[i].why ? ")" : "");
	}
}

static int
graduate_plan(struct cli *c, bool json)
{
	struct promote_item *it = NULL;
	struct buf out = BUF_INIT;
	size_t n = 0;
	int rc = 0;

	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_RW) != ERR_OK)
		return 1;
	if (promote_plan(c->st, &c->conf, c->a, time_now(), &it, &n) != ERR_OK)
		return 1;
	if (json)
		plan_json(it, n, &out);
	else
		plan_text(it, n, &out);
	if (fwrite(out.p ? out.p : "", 1, out.n, stdout) != out.n ||
	    fflush(stdout) != 0) {
		perror("patchyard: graduate");
		rc = 1;
	}
	buf_free(&out);
	return rc;
}

static int
graduate_auto(struct cli *c)
{
	size_t moved = 0;

	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_RW) != ERR_OK)
		return 1;
	if (promote_auto(c->st, &c->conf, &moved, stdout) != ERR_OK)
		return 1;
	if (moved == 0)
		fprintf(stderr,
		    "patchyard: the promotion policy moves "
		    "nothing now (graduate --plan says why)\n");
	return 0;
}

int
cli_graduate_cmd(struct cli *c)
{
	static const struct option opts[] = {
		{ "plan", no_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "auto", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	bool plan = false, json = false, aut = false;
	int ch;

	cli_opt_first();
	while ((ch = cli_opt(c, opts)) != -1) {
		if (ch == 'p')
			plan = true;
		else if (ch == 'j')
			json = true;
		else if (ch == 'a')
			aut = true;
		else
			return cli_usage();
	}
	/* graduate REF: the mail verb from the terminal. */
	if (!plan && !aut && !json)
		return cli_verb_cmd(c);
	if (plan == aut || (json && !plan) || optind != c->argc)
		return cli_usage();
	return plan ? graduate_plan(c, json) : graduate_auto(c);
}

/* `patchyard trees [--json]`: the configured trees are brought in step
 * with the configuration first, so a new [tree] shows at once. */
int
cli_trees_cmd(struct cli *c)
{
	bool json;
	size_t i;
	enum err e;

	if (!cli_json_only(c, &json, 0))
		return cli_usage();
	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_RW) != ERR_OK)
		return 1;
	e = store_begin(c->st);
	for (i = 0; i < c->conf.nprojects && e == ERR_OK; i++) {
		struct store_tree *v;
		size_t n;
		int64_t pid;

		e = store_project_id(c->st, c->conf.projects[i].name, &pid);
		if (e == ERR_OK)
			e = trees_load(c->st, c->a, &c->conf,
			    &c->conf.projects[i], pid, time_now(), &v, &n);
	}
	if (e == ERR_OK)
		e = store_commit(c->st);
	else
		store_rollback(c->st);
	if (e == ERR_OK)
		e = trees_show(c->st, json, stdout);
	return e == ERR_OK ? 0 : 1;
}

/*
 * `patchyard forward [--dry-run]`: every project that forwards is
 * rebuilt (and pushed) and its stable queue goes upstream; the mails
 * are queued for `patchyard send` (the daemon sends them at once).
 */
int
cli_forward_cmd(struct cli *c)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct buf rep = BUF_INIT;
	bool dry = false;
	size_t i, n = 0;
	enum err e = ERR_OK;
	int ch;

	cli_opt_first();
	while ((ch = cli_opt(c, opts)) != -1) {
		if (ch != 'n')
			return cli_usage();
		dry = true;
	}
	if (optind != c->argc)
		return cli_usage();
	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_RW) != ERR_OK)
		return 1;
	for (i = 0; i < c->conf.nprojects && e == ERR_OK; i++) {
		const struct conf_project *p = &c->conf.projects[i];

		if (p->forward_to == NULL || p->staging == NULL)
			continue;
		n++;
		if (dry) {
			e = stage_rebuild_one(c->st, &c->conf, p, &rep, true);
			continue;
		}
		e = store_begin(c->st);
		if (e == ERR_OK)
			e = forward_request(c->st, p, cli_local_user());
		if (e == ERR_OK)
			e = store_commit(c->st);
		else
			store_rollback(c->st);
		if (e == ERR_OK)
			e = stage_rebuild_one(c->st, &c->conf, p, &rep, false);
	}
	fputs(buf_cstr(&rep), stdout);
	buf_free(&rep);
	if (n == 0) {
		fprintf(stderr,
		    "patchyard: no project forwards (it needs "
		    "project.NAME.staging and forward-to)\n");
		return 1;
	}
	return e == ERR_OK ? 0 : 1;
}
