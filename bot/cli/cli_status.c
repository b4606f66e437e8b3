/*
 * `patchyard status [--json]`: the sources with their positions and last
 * errors, contributions by state, the staging queues, the outbox, and
 * when the stager and the mailer last ran.  The JSON is a contract
 * (DESIGN.md §12, patchyard(1)):
 *
 *   {"messages": N, "contributions": {STATE: N, ...},
 *    "outbox": {"due": N, "waiting": N, "failed": N},
 *    "relay": "smtp://..." or null (no [smtp]: queued, never sent),
 *    "sources": [{"name", "kind", "position", "last_error"}],
 *    "last": {"rebuild", "upstream", "graduate", "test", "send"}}
 *
 * with times in ISO 8601 UTC, null when never.
 */
#include <stdio.h>
#include <string.h>

#include "bot/cli/clipriv.h"
#include "storage/store_run.h"
#include "util/json.h"
#include "util/timeutil.h"

/* Every state a contribution can be in, listed even when at 0. */
static const char *const states[] = { "new", "staged", "partial", "merged",
	"dropped", "superseded", "changes-requested", "rejected", NULL };
static const char *const runs[] = { "rebuild", "upstream", "graduate", "test",
	"send", NULL };

static const char *
kind_of(const struct conf_source *s)
{
	if (s->imap)
		return "imap";
	return s->public_inbox ? "public-inbox" : "maildir";
}

static int64_t
count_of(const struct store_status *s, const char *state)
{
	size_t i;

	for (i = 0; i < s->nstates; i++)
		if (strcmp(s->states[i].name, state) == 0)
			return s->states[i].n;
	return 0;
}

static bool
known_state(const char *s)
{
	size_t i;

	for (i = 0; states[i]; i++)
		if (strcmp(states[i], s) == 0)
			return true;
	return false;
}

static void
json_time(struct json *j, int64_t t)
{
	char iso[32];

	if (t > 0 && time_fmt_iso(iso, sizeof(iso), t) == ERR_OK)
		json_str(j, iso);
	else
		json_null(j);
}

static void
write_json(struct cli *c, const struct store_status *s, struct buf *out)
{
	struct json j;
	size_t i;

	json_init(&j, out, true);
	json_obj_begin(&j);
	json_key(&j, "messages");
	json_int(&j, s->messages);
	json_key(&j, "contributions");
	json_obj_begin(&j);
	for (i = 0; states[i]; i++) {
		json_key(&j, states[i]);
		json_int(&j, count_of(s, states[i]));
	}
	for (i = 0; i < s->nstates; i++) {
		if (known_state(s->states[i].name))
			continue;
		json_key(&j, s->states[i].name);
		json_int(&j, s->states[i].n);
	}
	json_obj_end(&j);
	json_key(&j, "outbox");
	json_obj_begin(&j);
	json_key(&j, "due");
	json_int(&j, s->due);
	json_key(&j, "waiting");
	json_int(&j, s->waiting);
	json_key(&j, "failed");
	json_int(&j, s->failed);
	json_obj_end(&j);
	json_key(&j, "relay");
	json_str(&j, c->conf.smtp_url);
	json_key(&j, "sources");
	json_arr_begin(&j);
	for (i = 0; i < c->conf.nsources; i++) {
		const struct conf_source *cs = &c->conf.sources[i];
		struct store_source ss;

		if (store_source_get(c->st, c->a, cs->name, &ss) != ERR_OK)
			memset(&ss, 0, sizeof(ss));
		json_obj_begin(&j);
		json_key(&j, "name");
		json_str(&j, cs->name);
		json_key(&j, "kind");
		json_str(&j, kind_of(cs));
		json_key(&j, "position");
		json_str(&j, ss.position);
		json_key(&j, "last_error");
		json_str(&j, ss.last_error);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_key(&j, "last");
	json_obj_begin(&j);
	for (i = 0; runs[i]; i++) {
		json_key(&j, runs[i]);
		json_time(&j, store_run_last(c->st, runs[i]));
	}
	json_obj_end(&j);
	json_obj_end(&j);
	buf_addc(out, '\n');
}

/* "2026-12-03T06:53:51Z (5 min ago)", or "never". */
static void
text_time(struct buf *out, int64_t t, int64_t now)
{
	char iso[32];
	int64_t ago = now - t;

	if (t <= 0 || time_fmt_iso(iso, sizeof(iso), t) != ERR_OK) {
		buf_addf(out, "never");
		return;
	}
	buf_addf(out, "%s", iso);
	if (ago < 120)
		buf_addf(out, " (%lld s ago)", (long long)ago);
	else if (ago < 7200)
		buf_addf(out, " (%lld min ago)", (long long)(ago / 60));
	else
		buf_addf(out, " (%lld h ago)", (long long)(ago / 3600));
}

static void
write_text(struct cli *c, const struct store_status *s, struct buf *out)
{
	int64_t now = time_now();
	size_t i;

	buf_addf(out, "messages: %lld\ncontributions:", (long long)s->messages);
	for (i = 0; i < s->nstates; i++)
		buf_addf(out, "%s %s %lld", i ? "," : "", s->states[i].name,
		    (long long)s->states[i].n);
	buf_addf(out, "%s\nstaged:", s->nstates ? "" : " none");
	for (i = 0; i < s->nqueues; i++)
		buf_addf(out, "%s %s %lld", i ? "," : "", s->queues[i].name,
		    (long long)s->queues[i].n);
	buf_addf(out, "%s\noutbox: %lld due, %lld waiting, %lld failed",
	    s->nqueues ? "" : " none", (long long)s->due, (long long)s->waiting,
	    (long long)s->failed);
	if (c->conf.smtp_url)
		buf_addf(out, ", through %s\n", c->conf.smtp_url);
	else
		buf_addf(out, "; no [smtp] url: queued, never sent\n");
	for (i = 0; i < c->conf.nsources; i++) {
		const struct conf_source *cs = &c->conf.sources[i];
		struct store_source ss;

		if (store_source_get(c->st, c->a, cs->name, &ss) != ERR_OK)
			memset(&ss, 0, sizeof(ss));
		buf_addf(out, "source %s (%s): at %s, polled ", cs->name,
		    kind_of(cs), ss.position ? ss.position : "the start");
		text_time(out, ss.checked, now);
		if (ss.last_error) {
			buf_addf(out, "\n  error: %s, since ", ss.last_error);
			text_time(out, ss.error_time, now);
		}
		buf_addc(out, '\n');
	}
	for (i = 0; runs[i]; i++) {
		buf_addf(out, "last %s: ", runs[i]);
		text_time(out, store_run_last(c->st, runs[i]), now);
		buf_addc(out, '\n');
	}
}

int
cli_status_cmd(struct cli *c)
{
	struct store_status s;
	struct buf out = BUF_INIT;
	bool json;
	int rc = 0;

	if (!cli_json_only(c, &json, 0))
		return cli_usage();
	if (cli_load(c) != ERR_OK || cli_open_db(c, STORE_RO) != ERR_OK)
		return 1;
	if (store_status_read(c->st, c->a, time_now(), &s) != ERR_OK)
		return 1;
	if (json)
		write_json(c, &s, &out);
	else
		write_text(c, &s, &out);
	if (fwrite(out.p, 1, out.n, stdout) != out.n || fflush(stdout) != 0) {
		perror("patchyard: status");
		rc = 1;
	}
	buf_free(&out);
	return rc;
}
