/*
 * Unit tests of parsers/config.c: golden dumps of valid files, golden
 * error lists of broken ones, and git itself as the oracle for the
 * syntax (`git config --list` on the same file must give our values).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "parsers/config.h"
#include "parsers/limits.h"
#include "tests/unit/testutil.h"
#include "util/arena.h"
#include "util/buf.h"

#define DIR "tests/fixtures/config/"

static const char *const auth_names[] = { "dkim", "none" };
static const char *const tls_names[] = { "required", "try", "never" };
static const char *const conflict_names[] = { "keep", "drop" };
static const char *const mode_names[] = { "stack", "patch", "series" };
static const char *const failure_names[] = { "report", "drop" };
static const char *const forward_names[] = { "series", "pull" };
static const char *const sandbox_names[] = { "bwrap", "none" };

/* One "key = value" line; newlines and tabs escaped to keep one line. */
static void
put(struct buf *b, const char *key, const char *v)
{
	buf_addf(b, "%s = ", key);
	if (v == NULL) {
		buf_adds(b, "(unset)\n");
		return;
	}
	for (; *v; v++) {
		if (*v == '\n')
			buf_adds(b, "\\n");
		else if (*v == '\t')
			buf_adds(b, "\\t");
		else
			buf_addc(b, *v);
	}
	buf_addc(b, '\n');
}

static void
putf(struct buf *b, const char *sec, const char *name, const char *key,
    const char *v)
{
	char k[256];

	snprintf(k, sizeof(k), "%s.%s.%s", sec, name, key);
	put(b, k, v);
}

static void
putn(struct buf *b, const char *key, long long v)
{
	char n[32];

	snprintf(n, sizeof(n), "%lld", v);
	put(b, key, n);
}

static void
putfn(struct buf *b, const char *sec, const char *name, const char *key,
    long long v)
{
	char n[32];

	snprintf(n, sizeof(n), "%lld", v);
	putf(b, sec, name, key, n);
}

/* [promote] as "promote.KEY", [promote "P"] as "promote.P.KEY", as git
 * names them. */
static void
put_promote(struct buf *b, const struct conf_promote *p)
{
	static const char *const keys[] = { "(present)", "(set)", "min-days",
		"min-reviews", "require-test", "per-patch" };
	char k[256], v[6][32];
	size_t i;

	snprintf(v[0], sizeof(v[0]), "%s", p->present ? "true" : "false");
	snprintf(v[1], sizeof(v[1]), "%u", p->set);
	snprintf(v[2], sizeof(v[2]), "%d", p->min_days);
	snprintf(v[3], sizeof(v[3]), "%d", p->min_reviews);
	snprintf(v[4], sizeof(v[4]), "%s", p->require_test ? "true" : "false");
	snprintf(v[5], sizeof(v[5]), "%s", p->per_patch ? "true" : "false");
	for (i = 0; i < 6; i++) {
		if (p->name)
			snprintf(
			    k, sizeof(k), "promote.%s.%s", p->name, keys[i]);
		else
			snprintf(k, sizeof(k), "promote.%s", keys[i]);
		put(b, k, v[i]);
	}
}

static void
dump_named(struct buf *b, const struct config *c)
{
	size_t i, j;

	for (i = 0; i < c->nprojects; i++) {
		const struct conf_project *p = &c->projects[i];
		const char *f = "project";
		char line[16];

		putf(b, f, p->name, "list", p->list);
		putf(b, f, p->name, "archive", p->archive);
		putf(b, f, p->name, "upstream", p->upstream);
		putf(b, f, p->name, "branch", p->branch);
		putf(b, f, p->name, "staging", p->staging);
		putf(b, f, p->name, "push", p->push);
		putf(b, f, p->name, "cc-list", p->cc_list ? "true" : "false");
		putf(b, f, p->name, "forward", forward_names[p->forward]);
		putf(b, f, p->name, "forward-to", p->forward_to);
		for (j = 0; j < p->forward_cc.n; j++)
			putf(b, f, p->name, "forward-cc", p->forward_cc.v[j]);
		assert_null(p->forward_cc.v[p->forward_cc.n]);
		snprintf(line, sizeof(line), "%d", p->line);
		putf(b, f, p->name, "(line)", line);
	}
	for (i = 0; i < c->nmaintainers; i++) {
		const struct conf_maintainer *m = &c->maintainers[i];

		putf(b, "maintainer", m->name, "email", m->email);
		putf(b, "maintainer", m->name, "project", m->project);
		for (j = 0; j < m->paths.n; j++)
			putf(b, "maintainer", m->name, "path", m->paths.v[j]);
		assert_null(m->paths.v[m->paths.n]);
		putf(b, "maintainer", m->name, "token-file", m->token_file);
	}
	for (i = 0; i < c->ntrees; i++) {
		putf(b, "tree", c->trees[i].name, "url", c->trees[i].url);
		putf(b, "tree", c->trees[i].name, "branch", c->trees[i].branch);
		putf(b, "tree", c->trees[i].name, "project",
		    c->trees[i].project);
		putf(b, "tree", c->trees[i].name, "owner", c->trees[i].owner);
	}
	for (i = 0; i < c->ncis; i++) {
		putf(b, "ci", c->cis[i].name, "email", c->cis[i].email);
		putf(b, "ci", c->cis[i].name, "token-file",
		    c->cis[i].token_file);
	}
	for (i = 0; i < c->nsources; i++) {
		const struct conf_source *s = &c->sources[i];
		const char *f = "source";

		putf(b, f, s->name, "imap", s->imap);
		putf(b, f, s->name, "public-inbox", s->public_inbox);
		putf(b, f, s->name, "maildir", s->maildir);
		putf(b, f, s->name, "password-file", s->password_file);
		putf(b, f, s->name, "ca-file", s->ca_file);
		putf(b, f, s->name, "pin-sha256", s->pin_sha256);
		putf(b, f, s->name, "project", s->project);
		putf(b, f, s->name, "seen", s->seen);
		putfn(b, f, s->name, "interval", s->interval);
		putfn(b, f, s->name, "timeout", s->timeout);
	}
	put_promote(b, &c->promote);
	for (i = 0; i < c->npromotes; i++)
		put_promote(b, &c->promotes[i]);
}

/* Every field of a parsed config, one per line, for golden files. */
static void
dump(struct buf *b, const struct config *c)
{
	char n[16];
	size_t i;

	put(b, "core.database", c->database);
	put(b, "bot.address", c->bot_address);
	put(b, "bot.url", c->bot_url);
	put(b, "bot.command-prefix", c->command_prefix);
	put(b, "bot.templates", c->templates);
	dump_named(b, c);
	put(b, "auth.authserv-id", c->auth_authserv_id);
	put(b, "auth.require", auth_names[c->auth_require]);
	put(b, "smtp.url", c->smtp_url);
	put(b, "smtp.starttls", tls_names[c->smtp_starttls]);
	put(b, "smtp.ca-file", c->smtp_ca_file);
	put(b, "smtp.pin-sha256", c->smtp_pin_sha256);
	put(b, "smtp.user", c->smtp_user);
	put(b, "smtp.password-file", c->smtp_password_file);
	put(b, "stage.on-conflict", conflict_names[c->stage_on_conflict]);
	put(b, "test.command", c->test_command);
	snprintf(n, sizeof(n), "%d", c->test_timeout);
	put(b, "test.timeout", n);
	put(b, "test.mode", mode_names[c->test_mode]);
	put(b, "test.on-failure", failure_names[c->test_on_failure]);
	putn(b, "test.jobs", c->test_jobs);
	putn(b, "test.output-cap", c->test_output_cap);
	putn(b, "test.cpu", c->test_cpu);
	putn(b, "test.memory", c->test_memory);
	putn(b, "test.files", c->test_files);
	putn(b, "test.processes", c->test_processes);
	put(b, "test.sandbox", sandbox_names[c->test_sandbox]);
	putn(b, "run.upstream-interval", c->run_upstream_interval);
	putn(b, "run.rebuild-delay", c->run_rebuild_delay);
	putn(b, "run.send-interval", c->run_send_interval);
	putn(b, "run.gc-interval", c->run_gc_interval);
	for (i = 0; i < c->mailmap.n; i++)
		put(b, "mailmap.alias", c->mailmap.v[i]);
	assert_null(c->mailmap.v[c->mailmap.n]);
}

/* Parse a fixture; returns the dump or the error list, file:line: msg. */
static char *
run(const char *path, enum err *rc)
{
	struct arena *a = arena_new();
	struct config c;
	struct config_error *errs;
	size_t n = 0, nerrs, i;
	struct buf b;
	char *text = tu_read_file(path, &n);

	assert_non_null(text);
	buf_init(&b, 0);
	*rc = config_parse(a, path, text, n, &c, &errs, &nerrs);
	if (*rc == ERR_OK) {
		assert_int_equal(nerrs, 0);
		assert_null(errs);
		assert_string_equal(c.file, path);
		dump(&b, &c);
	}
	for (i = 0; i < nerrs; i++) {
		assert_string_equal(errs[i].file, path);
		if (i > 0)
			assert_true(errs[i - 1].line <= errs[i].line);
		if (errs[i].line > 0)
			buf_addf(&b, "%s:%d: %s\n", errs[i].file, errs[i].line,
			    errs[i].msg);
		else
			buf_addf(&b, "%s: %s\n", errs[i].file, errs[i].msg);
	}
	free(text);
	arena_free(a);
	return buf_detach(&b, NULL);
}

/* Compare a fixture's result with <case>.expected beside it
 * (TU_WRITE_GOLDEN=1 rewrites the .expected file first). */
static void
golden(const char *name, enum err want)
{
	char conf[256], exp[256];
	enum err rc;
	char *got, *expected;

	snprintf(conf, sizeof(conf), DIR "%s.conf", name);
	snprintf(exp, sizeof(exp), DIR "%s.expected", name);
	got = run(conf, &rc);
	if (getenv("TU_WRITE_GOLDEN") != NULL)
		tu_write_file(exp, got, strlen(got));
	expected = tu_read_file(exp, NULL);
	if (expected == NULL || strcmp(got, expected) != 0)
		fprintf(stderr, "--- %s: got\n%s", name, got);
	assert_non_null(expected);
	assert_string_equal(got, expected);
	assert_int_equal(rc, want);
	free(got);
	free(expected);
}

static void
test_full(void **state)
{
	(void)state;
	golden("full", ERR_OK);
}

static void
test_minimal_defaults(void **state)
{
	(void)state;
	golden("minimal", ERR_OK);
}

static void
test_syntax(void **state)
{
	(void)state;
	golden("syntax", ERR_OK);
}

static void
test_dkim_without_authserv(void **state)
{
	(void)state;
	golden("dkim-no-authserv", ERR_OK);
}

static void
test_broken_syntax(void **state)
{
	(void)state;
	golden("broken-syntax", ERR_CONFIG);
}

static void
test_broken_schema(void **state)
{
	(void)state;
	golden("broken-schema", ERR_CONFIG);
}

static void
test_broken_empty(void **state)
{
	(void)state;
	golden("broken-empty", ERR_CONFIG);
}

static void
test_broken_nocore(void **state)
{
	(void)state;
	golden("broken-nocore", ERR_CONFIG);
}

/*
 * git as the oracle for the syntax.  The value of every string key we
 * read from syntax.conf and full.conf must equal what `git config
 * --list` prints for it (keys that we convert, like booleans and enums,
 * are left out).  Skips when git is not installed.
 */
static const char *const converted[] = { ".cc-list", ".timeout", ".mode",
	".require", ".starttls", ".on-conflict", ".on-failure", ".pin-sha256",
	".forward", ".output-cap", ".memory", ".sandbox", ".require-test",
	".per-patch", NULL };

static bool
is_converted(const char *key)
{
	size_t i, n = strlen(key);

	for (i = 0; converted[i]; i++) {
		size_t m = strlen(converted[i]);

		if (n >= m && strcmp(key + n - m, converted[i]) == 0)
			return true;
	}
	return false;
}

/* `git config -f path --null --list`, or NULL when git cannot run. */
static char *
git_list(const char *path, size_t *n)
{
	char cmd[512];
	struct buf b;
	FILE *f;
	size_t r;
	char chunk[4096];

	snprintf(cmd, sizeof(cmd), "git config -f '%s' --null --list", path);
	f = popen(cmd, "r");
	if (f == NULL)
		return NULL;
	buf_init(&b, 0);
	while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, r);
	if (pclose(f) != 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_detach(&b, n);
}

static void
oracle(const char *name)
{
	char path[256], *mine, *theirs, *p, *next, *end, line[8192];
	struct buf esc;
	enum err rc;
	size_t n, matched = 0;

	snprintf(path, sizeof(path), DIR "%s.conf", name);
	theirs = git_list(path, &n);
	if (theirs == NULL)
		skip();
	mine = run(path, &rc);
	assert_int_equal(rc, ERR_OK);
	buf_init(&esc, 0);
	for (p = theirs, end = theirs + n; p < end; p = next) {
		char *nl = strchr(p, '\n'), *hit;

		next = p + strlen(p) + 1;
		if (nl == NULL)
			continue; /* a key alone is a boolean: converted */
		*nl = '\0';
		if (is_converted(p))
			continue;
		buf_reset(&esc);
		put(&esc, p, nl + 1);
		snprintf(line, sizeof(line), "%s", buf_cstr(&esc));
		hit = strstr(mine, line);
		if (hit == NULL)
			fprintf(stderr, "git has, we have not: %s", line);
		assert_non_null(hit);
		hit[0] = '#'; /* used: a repeated key must match the next */
		matched++;
	}
	assert_true(matched >= 10);
	buf_free(&esc);
	free(mine);
	free(theirs);
}

static void
test_git_oracle_syntax(void **state)
{
	(void)state;
	oracle("syntax");
}

static void
test_git_oracle_full(void **state)
{
	(void)state;
	oracle("full");
}

/* Run git on text in a temporary file; its stdout, NULL if it failed. */
static char *
git_on(const char *text, const char *args, bool *ran)
{
	char path[] = "/tmp/test_config_XXXXXX", cmd[256], chunk[4096];
	struct buf b;
	int fd = mkstemp(path), status;
	FILE *f;
	size_t r;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	snprintf(
	    cmd, sizeof(cmd), "git config -f %s %s 2>/dev/null", path, args);
	f = popen(cmd, "r");
	assert_non_null(f);
	buf_init(&b, 0);
	while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, r);
	status = pclose(f);
	unlink(path);
	*ran = WIFEXITED(status) && WEXITSTATUS(status) != 127;
	if (status != 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

static const char *const value_cases[] = {
	"plain",
	"  lead and trail  ",
	"a\tb  c",
	"\"q # not a comment\"",
	"a # comment",
	"a;comment",
	"\"unterminated",
	"a\\qb",
	"a\\\\b",
	"a\\\"b",
	"\"a\\nb\\tc\\bd\"",
	"x\\\n  y",
	"\"x\\\n  y\"",
	"a\"b\"c",
	"a \" b \" c",
	"\"a;b\"#c",
	"a\\",
	"tail\\\n",
	"\"open\\\n",
	"\"\" x",
};

/*
 * git as the oracle for values, case by case: where git refuses the
 * value we refuse it (on a line of its own), where git reads it we read
 * the same bytes.
 */
static void
test_git_oracle_values(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(value_cases) / sizeof(value_cases[0]); i++) {
		char text[512], *want;
		struct arena *a = arena_new();
		struct config c;
		struct config_error *errs;
		size_t nerrs;
		enum err rc;
		bool ran;

		snprintf(text, sizeof(text),
		    "[core]\n\tdatabase = d\n[project \"p\"]\n"
		    "\tlist = p@example.org\n[test]\n\tcommand = %s\n",
		    value_cases[i]);
		want = git_on(text, "--get test.command", &ran);
		if (!ran)
			skip();
		rc =
		    config_parse(a, "t", text, strlen(text), &c, &errs, &nerrs);
		if (want == NULL) {
			assert_int_equal(rc, ERR_CONFIG);
			assert_int_equal(nerrs, 1);
			assert_true(errs[0].line >= 6);
		} else {
			want[strlen(want) - 1] = '\0'; /* git's newline */
			if (rc != ERR_OK)
				fprintf(
				    stderr, "case %zu: %s\n", i, errs[0].msg);
			assert_int_equal(rc, ERR_OK);
			assert_string_equal(c.test_command, want);
		}
		free(want);
		arena_free(a);
	}
}

static const char *const header_cases[] = {
	"[maintainer \"a b\"]",
	"[maintainer \"a\\\\b\"]",
	"[maintainer \"a\\qb\"]",
	"[maintainer \"a\\\"b\"]",
	"[maintainer.Ab]",
	"[MainTainer \"X\"]",
	"[maintainer  \"x\"]",
	"[maintainer\t\"x\"]",
	"[maintainer \"x\" ]",
	"[maintainer \"x\"",
	"[maintainer \"x]",
	"[maintainer x]",
	"[ maintainer \"x\"]",
	"[maintainer \"x\"] path = src/",
	"[maintainer \"x\"]path = src/ ; c",
	"[maintainer \"x\"] # c",
	"[maintainer \"\xc3\xa9\"]",
};

/* The same for section headers: the subsection git reads is ours. */
static void
test_git_oracle_headers(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(header_cases) / sizeof(header_cases[0]); i++) {
		char text[512], *got, *eq;
		struct arena *a = arena_new();
		struct config c;
		struct config_error *errs;
		size_t nerrs;
		enum err rc;
		bool ran;

		snprintf(text, sizeof(text),
		    "[core]\n\tdatabase = d\n[project \"p\"]\n"
		    "\tlist = p@example.org\n%s\n\temail = m@example.org\n",
		    header_cases[i]);
		got = git_on(text, "--get-regexp '^maintainer[.]'", &ran);
		if (!ran)
			skip();
		rc =
		    config_parse(a, "t", text, strlen(text), &c, &errs, &nerrs);
		if (got == NULL) {
			assert_int_equal(rc, ERR_CONFIG);
			assert_int_equal(errs[0].line, 5);
		} else {
			/* "maintainer.SUB.email m@example.org\n..." */
			eq = strstr(got, ".email ");
			assert_non_null(eq);
			*eq = '\0';
			if (strrchr(got, '\n') != NULL)
				memmove(got, strrchr(got, '\n') + 1,
				    strlen(strrchr(got, '\n')));
			if (rc != ERR_OK)
				fprintf(
				    stderr, "case %zu: %s\n", i, errs[0].msg);
			assert_int_equal(rc, ERR_OK);
			assert_int_equal(c.nmaintainers, 1);
			assert_string_equal(
			    c.maintainers[0].name, got + strlen("maintainer."));
		}
		free(got);
		arena_free(a);
	}
}

static enum err
parse_text(struct arena *a, const char *text, size_t n, struct config *c,
    struct config_error **errs, size_t *nerrs)
{
	return config_parse(a, "t.conf", text, n, c, errs, nerrs);
}

static void
test_limits_and_bytes(void **state)
{
	struct arena *a = arena_new();
	struct config c;
	struct config_error *errs;
	size_t nerrs, big = LIMIT_CONFIG_SIZE + 1;
	char *text = malloc(big);
	static const char nul[] = "[core]\n\tdatabase = a\0b\n[project \"p\"]\n"
	                          "\tlist = p@example.org\n";
	static const char bad8[] = "[core]\n\tdatabase = a\xff\n"
	                           "[project \"p\"]\n\tlist = p@example.org\n";

	(void)state;
	memset(text, '#', big);
	assert_int_equal(
	    parse_text(a, text, big, &c, &errs, &nerrs), ERR_CONFIG);
	assert_int_equal(nerrs, 1);
	assert_int_equal(errs[0].line, 0);
	free(text);
	assert_int_equal(
	    parse_text(a, nul, sizeof(nul) - 1, &c, &errs, &nerrs), ERR_CONFIG);
	assert_int_equal(nerrs, 1);
	assert_int_equal(errs[0].line, 2);
	assert_string_equal(errs[0].msg, "NUL byte in value");
	assert_int_equal(
	    parse_text(a, bad8, sizeof(bad8) - 1, &c, &errs, &nerrs),
	    ERR_CONFIG);
	assert_int_equal(nerrs, 1);
	assert_int_equal(errs[0].line, 2);
	arena_free(a);
}

/* Many sections: lookups stay cheap, order is kept, lookup works. */
static void
test_many_projects(void **state)
{
	struct arena *a = arena_new();
	struct config c;
	struct config_error *errs;
	size_t nerrs, i;
	struct buf b;

	(void)state;
	buf_init(&b, 0);
	buf_adds(&b, "[core]\ndatabase = d\n");
	for (i = 0; i < 20000; i++)
		buf_addf(
		    &b, "[project \"p%zu\"]\nlist = p%zu@example.org\n", i, i);
	buf_adds(&b, "[project \"p7\"]\nbranch = next\n");
	assert_int_equal(parse_text(a, b.p, b.n, &c, &errs, &nerrs), ERR_OK);
	assert_int_equal(c.nprojects, 20000);
	assert_string_equal(c.projects[19999].name, "p19999");
	assert_string_equal(config_project(&c, "p7")->branch, "next");
	assert_string_equal(config_project(&c, "p7")->list, "p7@example.org");
	assert_int_equal(config_project(&c, "p7")->line, 17);
	assert_null(config_project(&c, "P7"));
	assert_null(config_project(&c, NULL));
	buf_free(&b);
	arena_free(a);
}

/* A text that must parse; the config is filled from the arena. */
static void
parse_ok(struct arena *a, const char *text, struct config *c)
{
	struct config_error *errs;
	size_t nerrs, i;
	enum err e = parse_text(a, text, strlen(text), c, &errs, &nerrs);

	for (i = 0; i < nerrs; i++)
		fprintf(stderr, "%d: %s\n", errs[i].line, errs[i].msg);
	assert_int_equal(e, ERR_OK);
}

/* The errors of a text that must not parse, "line: msg" each. */
static char *
parse_errors(struct arena *a, const char *text)
{
	struct config c;
	struct config_error *errs;
	size_t nerrs, i;
	struct buf b;

	assert_int_equal(
	    parse_text(a, text, strlen(text), &c, &errs, &nerrs), ERR_CONFIG);
	buf_init(&b, 0);
	for (i = 0; i < nerrs; i++)
		buf_addf(&b, "%d: %s\n", errs[i].line, errs[i].msg);
	return buf_detach(&b, NULL);
}

#define HEAD "[core]\n\tdatabase = d\n[project \"p\"]\n\tlist = p@example.org\n"

/*
 * More keys in a section than the parser's old fixed table held (it
 * had room for 8 and indexed it without a bound): every one is kept.
 */
static void
test_many_keys_in_a_section(void **state)
{
	struct arena *a = arena_new();
	struct config c;
	const struct conf_project *p;

	(void)state;
	parse_ok(a,
	    "[core]\n\tdatabase = d\n[project \"p\"]\n"
	    "\tlist = p@example.org\n\tarchive = https://a.example/%s/\n"
	    "\tupstream = u\n\tbranch = main\n\tstaging = s.git\n"
	    "\tpush = git@example.org:p.git\n\tcc-list = no\n"
	    "\tforward = pull\n\tforward-to = up@example.org\n"
	    "\tforward-cc = a@example.org\n\tforward-cc = b@example.org\n"
	    "[test]\n\tcommand = make\n\ttimeout = 5\n\tmode = patch\n"
	    "\ton-failure = drop\n\tjobs = 2\n\toutput-cap = 1M\n"
	    "\tcpu = 60\n\tmemory = 512M\n\tfiles = 64\n\tprocesses = 32\n"
	    "\tsandbox = none\n",
	    &c);
	p = config_project(&c, "p");
	assert_string_equal(p->branch, "main");
	assert_false(p->cc_list);
	assert_int_equal(p->forward, CONF_FORWARD_PULL);
	assert_string_equal(p->forward_to, "up@example.org");
	assert_int_equal(p->forward_cc.n, 2);
	assert_string_equal(p->forward_cc.v[1], "b@example.org");
	assert_null(p->forward_cc.v[2]);
	assert_int_equal(c.test_jobs, 2);
	assert_true(c.test_output_cap == 1024 * 1024);
	assert_int_equal(c.test_cpu, 60);
	assert_true(c.test_memory == 512LL * 1024 * 1024);
	assert_int_equal(c.test_files, 64);
	assert_int_equal(c.test_processes, 32);
	assert_int_equal(c.test_sandbox, CONF_SANDBOX_NONE);
	arena_free(a);
}

static void
test_numbers_and_sizes(void **state)
{
	struct arena *a = arena_new();
	struct config c;
	char *e;

	(void)state;
	parse_ok(a, HEAD, &c);
	/* Sandboxed unless none is written out. */
	assert_int_equal(c.test_sandbox, CONF_SANDBOX_BWRAP);
	assert_true(c.test_output_cap == 10 * 1024 * 1024);
	assert_true(c.test_memory == 4LL * 1024 * 1024 * 1024);
	assert_int_equal(c.run_upstream_interval, 3600);
	assert_int_equal(c.run_rebuild_delay, 10);
	assert_int_equal(c.run_send_interval, 60);
	assert_int_equal(c.test_jobs, 1);
	parse_ok(
	    a, HEAD "[run]\n\trebuild-delay = 0\n[test]\n\tmemory = 4g\n", &c);
	assert_int_equal(c.run_rebuild_delay, 0);
	e = parse_errors(a,
	    HEAD "[test]\n\tjobs = 0\n\toutput-cap = 10X\n\tmemory = 2T\n"
	         "\tcpu = -1\n\tfiles = 9999999999999999999999\n"
	         "[run]\n\tsend-interval = 1.5\n");
	assert_string_equal(e,
	    "6: bad value '0' for 'test.jobs': expected a number from 1 to "
	    "64\n"
	    "7: bad value '10X' for 'test.output-cap': expected a size in "
	    "bytes (k, M or G suffix) from 4096 to 1073741824\n"
	    "8: bad value '2T' for 'test.memory': expected a size in bytes (k, "
	    "M or G suffix) from 16777216 to 1099511627776\n"
	    "9: bad value '-1' for 'test.cpu': expected a number of seconds "
	    "from 1 to 604800\n"
	    "10: bad value '9999999999999999999999' for 'test.files': expected "
	    "a number from 16 to 1048576\n"
	    "12: bad value '1.5' for 'run.send-interval': expected a number of "
	    "seconds from 1 to 86400\n");
	free(e);
	arena_free(a);
}

static void
test_sources(void **state)
{
	struct arena *a = arena_new();
	struct config c;
	char *e;

	(void)state;
	parse_ok(a,
	    HEAD "[source \"lore\"]\n\tpublic-inbox = https://lore.example/p\n"
	         "\tinterval = 5\n[source \"box\"]\n\tmaildir = /srv/Maildir\n"
	         "[source \"imap\"]\n\timap = imaps://u@imap.example/INBOX\n"
	         "\tseen = move:Archive\n\ttimeout = 20\n",
	    &c);
	assert_int_equal(c.nsources, 3);
	assert_string_equal(
	    c.sources[0].public_inbox, "https://lore.example/p");
	assert_int_equal(c.sources[0].interval, 5);
	assert_string_equal(c.sources[0].seen, "leave");
	assert_string_equal(c.sources[1].maildir, "/srv/Maildir");
	assert_int_equal(c.sources[1].interval, 60);
	assert_string_equal(c.sources[2].seen, "move:Archive");
	assert_int_equal(c.sources[2].timeout, 20);
	assert_int_equal(c.sources[0].timeout, 60);
	e = parse_errors(a,
	    HEAD "[source \"none\"]\n\tproject = p\n"
	         "[source \"two\"]\n\timap = imap://h/INBOX\n\tmaildir = m\n"
	         "[source \"pi\"]\n\tpublic-inbox = i\n\tseen = flag\n"
	         "[source \"bad\"]\n\timap = imap://h/INBOX\n\tseen = "
	         "move:\n\ttimeout = 0\n"
	         "[source \"md\"]\n\tmaildir = m\n\ttimeout = 5\n");
	assert_string_equal(e,
	    "5: source 'none' needs one of imap, public-inbox or maildir\n"
	    "7: source 'two' has more than one of imap, public-inbox and "
	    "maildir\n"
	    "12: source.pi.seen applies to imap sources only\n"
	    "15: bad value 'move:' for 'source.bad.seen': expected leave, flag "
	    "or move:FOLDER\n"
	    "16: bad value '0' for 'source.bad.timeout': expected a "
	    "number of seconds from 1 to 3600\n"
	    "19: source.md.timeout applies to imap sources only\n");
	free(e);
	arena_free(a);
}

static void
test_promote(void **state)
{
	struct arena *a = arena_new();
	struct config c;
	struct conf_promote r;
	char *e;

	(void)state;
	parse_ok(a, HEAD, &c);
	assert_false(config_promote(&c, "p").present);
	parse_ok(a,
	    HEAD "[project \"q\"]\n\tlist = q@example.org\n[promote]\n"
	         "\tmin-reviews = 2\n\tper-patch = yes\n"
	         "[promote \"q\"]\n\tmin-days = 3\n\tper-patch = no\n",
	    &c);
	r = config_promote(&c, "p");
	assert_true(r.present);
	assert_int_equal(r.min_days, 7);
	assert_int_equal(r.min_reviews, 2);
	assert_true(r.require_test);
	assert_true(r.per_patch);
	r = config_promote(&c, "q");
	assert_int_equal(r.min_days, 3);
	assert_int_equal(r.min_reviews, 2);
	assert_false(r.per_patch);
	/* Written out and read again, [promote "q"] still takes what it
	 * does not give from [promote]. */
	{
		struct config c2;
		struct config_error *errs;
		struct buf w = BUF_INIT;
		size_t nerrs;

		config_write(&c, &w);
		assert_int_equal(
		    config_parse(a, "w", w.p, w.n, &c2, &errs, &nerrs), ERR_OK);
		r = config_promote(&c2, "q");
		assert_int_equal(r.min_days, 3);
		assert_int_equal(r.min_reviews, 2);
		assert_false(r.per_patch);
		assert_non_null(strstr(
		    buf_cstr(&w), "\t# min-reviews is taken from [promote]\n"));
		buf_free(&w);
	}
	/* A project's own section alone turns the policy on for it only. */
	parse_ok(a,
	    HEAD "[project \"q\"]\n\tlist = q@example.org\n"
	         "[promote \"q\"]\n\tmin-days = 0\n",
	    &c);
	assert_false(config_promote(&c, "p").present);
	r = config_promote(&c, "q");
	assert_true(r.present);
	assert_int_equal(r.min_days, 0);
	assert_int_equal(r.min_reviews, 1);
	e = parse_errors(a, HEAD "[promote \"nosuch\"]\n\tmin-days = 1\n");
	assert_string_equal(e, "5: promote 'nosuch' names unknown project\n");
	free(e);
	arena_free(a);
}

static void
test_mailmap(void **state)
{
	struct arena *a = arena_new();
	struct config c;
	char *e;

	(void)state;
	const char *ad[2];
	size_t len[2];

	(void)ad;
	parse_ok(a,
	    HEAD
	    "[mailmap]\n"
	    "\talias = Mia Maintainer <mia@example.org> <mia@home.example>\n"
	    "\talias = <mia@home.example> Old Mia <mia@old.example>\n"
	    "\talias = <bob@example.org> <robert@example.org>\n",
	    &c);
	assert_int_equal(c.mailmap.n, 3);
	/* Who is who is trust_same_person's (test_trust); the parser
	 * gives the two addresses of a line. */
	assert_true(config_mailmap_split(c.mailmap.v[1], ad, len));
	assert_int_equal(len[0], strlen("mia@home.example"));
	assert_memory_equal(ad[0], "mia@home.example", len[0]);
	assert_memory_equal(ad[1], "mia@old.example", len[1]);
	assert_false(config_mailmap_split("<a@x.org>", ad, len));
	e = parse_errors(a,
	    HEAD "[mailmap]\n\talias = Mia <mia@example.org>\n"
	         "\talias = <a@x.org> <b@x.org> <c@x.org>\n"
	         "\talias = <a@x.org> <not an address>\n");
	assert_true(strstr(e,
	                "6: bad value 'Mia <mia@example.org>' for "
	                "'mailmap.alias'") != NULL);
	assert_true(strstr(e, "\n7: ") != NULL);
	assert_true(strstr(e, "\n8: ") != NULL);
	free(e);
	arena_free(a);
}

/* A dump without its "(line)" lines, in place. */
static char *
drop_lines(char *s)
{
	char *in = s, *out = s, *nl;

	while (*in) {
		nl = strchr(in, '\n');
		nl = nl ? nl + 1 : in + strlen(in);
		if (strstr(in, "(line)") == NULL || strstr(in, "(line)") > nl) {
			memmove(out, in, (size_t)(nl - in));
			out += nl - in;
		}
		in = nl;
	}
	*out = '\0';
	return s;
}

/* config_write() prints every key, and what it prints parses back to
 * the same configuration. */
static void
test_write_round_trip(void **state)
{
	static const char *const files[] = { DIR "full.conf",
		DIR "minimal.conf", DIR "syntax.conf", NULL };
	size_t f;

	(void)state;
	for (f = 0; files[f]; f++) {
		struct arena *a = arena_new();
		struct config c, c2;
		struct config_error *errs;
		size_t n = 0, nerrs;
		struct buf w1, w2, d1, d2;
		char *text = tu_read_file(files[f], &n);

		assert_non_null(text);
		buf_init(&w1, 0);
		buf_init(&w2, 0);
		buf_init(&d1, 0);
		buf_init(&d2, 0);
		assert_int_equal(
		    config_parse(a, "t", text, n, &c, &errs, &nerrs), ERR_OK);
		config_write(&c, &w1);
		if (config_parse(a, "t", w1.p, w1.n, &c2, &errs, &nerrs) !=
		    ERR_OK) {
			fprintf(stderr, "%s\n%d: %s\n", buf_cstr(&w1),
			    errs[0].line, errs[0].msg);
			fail();
		}
		config_write(&c2, &w2);
		assert_string_equal(buf_cstr(&w1), buf_cstr(&w2));
		dump(&d1, &c);
		dump(&d2, &c2);
		/* The dumps differ only in the projects' (line). */
		assert_string_equal(drop_lines(d1.p), drop_lines(d2.p));
		/* Every key of every section, set or not, is named. */
		assert_non_null(strstr(buf_cstr(&w1), "\tgc-interval = "));
		assert_non_null(strstr(buf_cstr(&w1), "min-days = "));
		assert_non_null(strstr(buf_cstr(&w1), "alias"));
		assert_non_null(strstr(buf_cstr(&w1), "\toutput-cap = "));
		/* Named sections too, when the file has none of a kind. */
		assert_non_null(strstr(buf_cstr(&w1), "interval = 60"));
		assert_non_null(strstr(buf_cstr(&w1), "token-file"));
		assert_non_null(strstr(buf_cstr(&w1), "owner"));
		buf_free(&w1);
		buf_free(&w2);
		buf_free(&d1);
		buf_free(&d2);
		free(text);
		arena_free(a);
	}
}

/*
 * The man page documents every section and key: each one used in
 * full.conf (which uses them all, and parses) has its ".SS [section"
 * heading and a ".B key" paragraph in man/bot.conf.5.
 */
static void
test_man_page(void **state)
{
	char *conf = tu_read_file(DIR "full.conf", NULL);
	char *man = tu_read_file("man/bot.conf.5", NULL);
	char want[256], *p, *q, *line;
	size_t keys = 0, sections = 0;

	(void)state;
	assert_non_null(conf);
	assert_non_null(man);
	for (p = q = man; *p; p++) /* roff's "\-" is a plain '-' here */
		if (!(p[0] == '\\' && p[1] == '-'))
			*q++ = *p;
	*q = '\0';
	for (line = strtok(conf, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '[') {
			snprintf(want, sizeof(want), "\n.SS %.*s",
			    (int)strcspn(line, " ]"), line);
			sections++;
		} else if (line[0] == '\t') {
			snprintf(want, sizeof(want), "\n.B %.*s\n",
			    (int)strcspn(line + 1, " ="), line + 1);
			keys++;
		} else {
			continue;
		}
		if (strstr(man, want) == NULL)
			fprintf(stderr, "man/bot.conf.5 lacks %s\n", want + 1);
		assert_non_null(strstr(man, want));
	}
	assert_true(sections >= 11);
	assert_true(keys >= 40);
	free(conf);
	free(man);
}

/*
 * bot.conf.example can never drift from the parser.  Its settings are
 * "\tkey = value" lines in use and "#\tkey = value" and "#[section]" lines
 * commented out; every other line is empty or an explanation starting
 * with "# " (or "\t# " inside a section).  Only core.database and one
 * project's list are in use.  The file must parse as it is and with
 * every setting uncommented; it must name every key that config_write()
 * names, which is every key of the schema; and a commented-out key
 * that has a default must show that default.
 */
#define EXAMPLE "bot.conf.example"
#define MAXLINES 1024

struct exline {
	char *text; /* without its newline */
	bool setting, commented, header;
	char sec[32]; /* the section it stands in, or is the header of */
	char key[32]; /* a setting's key */
	int hdr; /* the line of its section's header, -1 before any */
};

/* The word after *p made of letters, digits and '-', into out. */
static void
word(const char *p, char *out, size_t n)
{
	size_t i = 0;

	while ((*p == '-' || (*p >= 'a' && *p <= 'z') ||
	           (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) &&
	    i + 1 < n)
		out[i++] = *p++;
	out[i] = '\0';
}

static size_t
example_lines(char *text, struct exline *l)
{
	size_t n = 0;
	char *line, *save = NULL;
	int hdr = -1;
	const char *sec = "";

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct exline *e = &l[n];
		const char *p = line;

		assert_true(n < MAXLINES);
		memset(e, 0, sizeof(*e));
		e->text = line;
		e->commented = p[0] == '#' && (p[1] == '[' || p[1] == '\t');
		if (e->commented)
			p++;
		if (p[0] == '[') {
			e->header = true;
			word(p + 1, e->sec, sizeof(e->sec));
			hdr = (int)n;
			sec = e->sec;
		} else if (p[0] == '\t' && p[1] != '#') {
			e->setting = true;
			word(p + 1, e->key, sizeof(e->key));
			assert_non_null(strstr(p, " = "));
			snprintf(e->sec, sizeof(e->sec), "%s", sec);
		} else if (!(p[0] == '#' && (p[1] == ' ' || p[1] == '\0')) &&
		    !(p[0] == '\t' && p[1] == '#' && p[2] == ' ') &&
		    p[0] != '\0') {
			fail_msg(EXAMPLE ": not a setting, a header or an "
			                 "explanation: '%s'",
			    line);
		}
		e->hdr = hdr;
		n++;
	}
	return n;
}

/* The example with every setting in use, but those of key in the
 * section whose header is line hdr (none when key is NULL). */
static char *
example_uncommented(const struct exline *l, size_t n, int hdr, const char *key)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		if (key && l[i].setting && l[i].hdr == hdr &&
		    strcmp(l[i].key, key) == 0)
			continue;
		buf_addf(&b, "%s\n", l[i].text + l[i].commented);
	}
	return buf_detach(&b, NULL);
}

static char *
write_of(struct arena *a, const char *text)
{
	struct config c;
	struct config_error *errs;
	size_t nerrs;
	struct buf w = BUF_INIT;

	if (config_parse(a, EXAMPLE, text, strlen(text), &c, &errs, &nerrs) !=
	    ERR_OK)
		return NULL;
	config_write(&c, &w);
	return buf_detach(&w, NULL);
}

/* Is a line of config_write()'s output a section header, given or not? */
static bool
written_header(const char *line, size_t len)
{
	if (len > 2 && line[0] == '#' && line[1] == ' ')
		line += 2, len -= 2;
	return len > 1 && line[0] == '[' && line[len - 1] == ']';
}

/*
 * The value config_write() gives key in the section headed exactly
 * header, into out; false when it writes the key without a value (not
 * set, taken from [promote]).  The key must be there.
 */
static bool
written_value(
    const char *w, const char *header, const char *key, char *out, size_t n)
{
	const char *p = w, *nl;
	char want[64];
	bool in = false;

	snprintf(want, sizeof(want), "%s = ", key);
	for (; *p; p = nl + 1) {
		size_t len;

		nl = strchr(p, '\n');
		assert_non_null(nl);
		len = (size_t)(nl - p);
		if (written_header(p, len)) {
			in = len == strlen(header) && !strncmp(p, header, len);
			continue;
		}
		if (!in)
			continue;
		if (*p == '#')
			p++;
		if (*p++ != '\t')
			continue;
		if (!strncmp(p, want, strlen(want))) {
			snprintf(out, n, "%.*s", (int)(nl - p - strlen(want)),
			    p + strlen(want));
			return true;
		}
		if (!strncmp(p, "# ", 2) && !strncmp(p + 2, key, strlen(key)) &&
		    p[2 + strlen(key)] == ' ')
			return false;
	}
	fail_msg("config_write() has no %s in %s", key, header);
	return false;
}

/* Every (section, key) config_write() names, as "section.key" lines. */
static char *
written_keys(const char *w)
{
	struct buf b = BUF_INIT;
	const char *p, *nl;
	char sec[32] = "", key[32];

	for (p = w; *p; p = nl + 1) {
		const char *q = p;

		nl = strchr(p, '\n');
		assert_non_null(nl);
		if (written_header(p, (size_t)(nl - p))) {
			word(strchr(p, '[') + 1, sec, sizeof(sec));
			continue;
		}
		if (*q == '#')
			q++;
		if (*q++ != '\t')
			continue;
		if (!strncmp(q, "# ", 2))
			q += 2;
		word(q, key, sizeof(key));
		buf_addf(&b, "%s.%s\n", sec, key);
	}
	return buf_detach(&b, NULL);
}

static void
test_example(void **state)
{
	struct arena *a = arena_new();
	struct exline *l = calloc(MAXLINES, sizeof(*l));
	char *text = tu_read_file(EXAMPLE, NULL), *all, *w, *keys, *k, *save;
	char want[80], v1[256], v2[256];
	size_t n, i, inuse = 0, named = 0, defaults = 0;

	(void)state;
	assert_non_null(text);
	assert_non_null(l);
	/* As it is: the minimal setup, nothing else in use. */
	w = write_of(a, text);
	if (w == NULL)
		fail_msg(EXAMPLE " does not parse; run patchyard -c "
		                 "bot.conf.example config");
	free(w);
	n = example_lines(text, l);
	for (i = 0; i < n; i++) {
		if (!l[i].setting || l[i].commented)
			continue;
		snprintf(want, sizeof(want), "%s.%s", l[i].sec, l[i].key);
		assert_string_equal(
		    want, inuse == 0 ? "core.database" : "project.list");
		inuse++;
	}
	assert_int_equal(inuse, 2);
	/* Everything in use: every key config_write() names is in it. */
	all = example_uncommented(l, n, -1, NULL);
	w = write_of(a, all);
	if (w == NULL)
		fail_msg(EXAMPLE " with every setting uncommented does not "
		                 "parse");
	keys = written_keys(w);
	for (k = strtok_r(keys, "\n", &save); k;
	     k = strtok_r(NULL, "\n", &save)) {
		for (i = 0; i < n; i++) {
			snprintf(
			    want, sizeof(want), "%s.%s", l[i].sec, l[i].key);
			if (l[i].setting && !strcmp(want, k))
				break;
		}
		if (i == n)
			fail_msg(EXAMPLE " lacks %s", k);
		named++;
	}
	/* A commented-out key shows its default, when it has one. */
	for (i = 0; i < n; i++) {
		char *less, *w2;
		const char *hdr;

		if (!l[i].setting || !l[i].commented)
			continue;
		assert_true(l[i].hdr >= 0);
		hdr = l[l[i].hdr].text + l[l[i].hdr].commented;
		less = example_uncommented(l, n, l[i].hdr, l[i].key);
		w2 = write_of(a, less);
		/* NULL: a required key; it has no default to show. */
		if (w2 && written_value(w2, hdr, l[i].key, v2, sizeof(v2))) {
			assert_true(
			    written_value(w, hdr, l[i].key, v1, sizeof(v1)));
			if (strcmp(v1, v2) != 0)
				fail_msg(EXAMPLE
				    ": %s %s shows %s, its default "
				    "is %s",
				    hdr, l[i].key, v1, v2);
			defaults++;
		}
		free(w2);
		free(less);
	}
	assert_true(named >= 80);
	assert_true(defaults >= 30); /* 31 today */
	free(keys);
	free(w);
	free(all);
	free(l);
	free(text);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_minimal_defaults),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_dkim_without_authserv),
		cmocka_unit_test(test_broken_syntax),
		cmocka_unit_test(test_broken_schema),
		cmocka_unit_test(test_broken_empty),
		cmocka_unit_test(test_broken_nocore),
		cmocka_unit_test(test_git_oracle_syntax),
		cmocka_unit_test(test_git_oracle_full),
		cmocka_unit_test(test_git_oracle_values),
		cmocka_unit_test(test_git_oracle_headers),
		cmocka_unit_test(test_limits_and_bytes),
		cmocka_unit_test(test_many_projects),
		cmocka_unit_test(test_many_keys_in_a_section),
		cmocka_unit_test(test_numbers_and_sizes),
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_promote),
		cmocka_unit_test(test_mailmap),
		cmocka_unit_test(test_write_round_trip),
		cmocka_unit_test(test_man_page),
		cmocka_unit_test(test_example),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
