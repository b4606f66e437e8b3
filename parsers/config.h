/*
 * bot.conf: git-config syntax (DESIGN.md §10) read by our own parser so
 * that every error names its file and line, and all errors are reported
 * at once.  Sections and keys are checked against the schema below;
 * unknown keys and bad values are errors.
 *
 * Syntax as git-config(1): [section] and [section "subsection"] headers,
 * "key = value" lines (keys case-insensitive, [A-Za-z][A-Za-z0-9-]*), a
 * key alone means true, '#' and ';' start comments outside quotes,
 * double-quoted parts with \" \\ \n \t \b escapes, a trailing backslash
 * continues the line, values trimmed outside quotes.
 *
 * Stricter than git: a single-valued key given twice is an error (git
 * takes the last), only list keys (maintainer.path, project.forward-cc,
 * mailmap.alias) repeat; an empty value is an
 * error; booleans are yes/no/on/off/true/false/1/0 and enum values are
 * matched ASCII case-insensitively; string values may hold no control
 * characters (test.command excepted).  man/bot.conf.5 has every key.
 */
#ifndef PARSERS_CONFIG_H
#define PARSERS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/buf.h"

enum conf_auth {
	CONF_AUTH_DKIM,
	CONF_AUTH_NONE
};
enum conf_tls {
	CONF_TLS_REQUIRED,
	CONF_TLS_TRY,
	CONF_TLS_NEVER
};
enum conf_conflict {
	CONF_CONFLICT_KEEP,
	CONF_CONFLICT_DROP
};
enum conf_test_mode {
	CONF_TEST_STACK,
	CONF_TEST_PATCH,
	CONF_TEST_SERIES
};
enum conf_failure {
	CONF_FAILURE_REPORT,
	CONF_FAILURE_DROP
};
enum conf_forward {
	CONF_FORWARD_SERIES,
	CONF_FORWARD_PULL
};
/* bwrap first: a config built without config_defaults() is sandboxed
 * too.  none must be written out (DESIGN.md §10). */
enum conf_sandbox {
	CONF_SANDBOX_BWRAP,
	CONF_SANDBOX_NONE
};

/* A repeatable key's values in file order; v[n] is NULL. */
struct conf_list {
	const char **v;
	size_t n;
};

struct conf_project {
	const char *name; /* the subsection */
	const char *list; /* required: list address (List-Id match too) */
	const char *archive; /* URL template with one %s, or NULL */
	const char *upstream; /* URL or path, or NULL */
	const char *branch; /* default "master" */
	const char *staging; /* bare repository path, or NULL */
	const char *push; /* remote URL, or NULL */
	bool cc_list; /* default true */
	enum conf_forward forward; /* default series */
	const char *forward_to; /* upstream address, or NULL: no forwarding */
	struct conf_list forward_cc; /* "forward-cc", repeatable */
	int line; /* where the section starts, for messages */
};

struct conf_maintainer {
	const char *name;
	const char *email; /* required */
	const char *project; /* NULL: every project */
	struct conf_list paths; /* "path" keys, repeatable; MAINTAINERS F: */
	const char *token_file; /* patchwork API token (PATCH state), or
	                           NULL */
};

struct conf_tree {
	const char *name;
	const char *url; /* required */
	const char *branch; /* default "master" */
	const char *project; /* NULL: every project */
	const char *owner; /* told when the tree does not merge, or NULL */
};

struct conf_ci {
	const char *name;
	const char *email; /* required */
	const char *token_file; /* POST /api/checks token, or NULL */
};

/* Exactly one of imap, public_inbox and maildir is set. */
struct conf_source {
	const char *name;
	const char *imap; /* imap:// or imaps:// URL */
	const char *public_inbox; /* a v2 archive: path or http(s) URL */
	const char *maildir; /* a Maildir folder watched for new mail */
	const char *password_file;
	const char *ca_file;
	const char *pin_sha256; /* SHA-256 of the server's public key:
	                           64 lower-case hex digits (colons
	                           dropped), or curl's "sha256//BASE64[;...]"
	                           as written; NULL: no pin */
	const char *project; /* NULL: by the mail's headers */
	const char *seen; /* IMAP: "leave" (default), "flag", "move:FOLDER" */
	int interval; /* seconds between polls, default 60 */
	int timeout; /* IMAP: seconds a server may stay silent, default 60 */
	/* The relay whose topmost Authentication-Results this source's mail
	 * carries, believed (DESIGN.md §5); NULL: no header is believed. */
	const char *authserv_id;
};

/*
 * [promote] for every project, [promote "PROJECT"] overriding it key by
 * key; config_promote() resolves them.  No section: nothing graduates
 * by itself.
 */
struct conf_promote {
	const char *name; /* the project, NULL for [promote] */
	bool present; /* the section was given */
	unsigned set; /* bit i: key i of the section was given */
	int min_days; /* default 7 */
	int min_reviews; /* default 1 */
	bool require_test; /* default true */
	bool per_patch; /* default false */
};

struct config {
	const char *file; /* the path given to config_parse() */
	const char *database; /* core.database, required */
	const char *bot_address; /* default "patchyard@localhost" */
	const char *bot_url; /* NULL: no status links */
	const char *command_prefix; /* default "#yard" */
	const char *templates; /* override directory, or NULL */
	struct conf_project *projects;
	size_t nprojects;
	struct conf_maintainer *maintainers;
	size_t nmaintainers;
	struct conf_tree *trees;
	size_t ntrees;
	struct conf_ci *cis;
	size_t ncis;
	struct conf_source *sources;
	size_t nsources;
	struct conf_promote promote; /* [promote] */
	struct conf_promote *promotes; /* [promote "PROJECT"] */
	size_t npromotes;
	struct conf_list mailmap; /* "[Name] <addr> [Name] <addr>" lines */
	const char *auth_authserv_id;
	enum conf_auth auth_require; /* default dkim */
	const char *auth_keyring; /* patatt's layout; NULL: none */
	const char *auth_dkim_keys; /* DKIM keys from this file, never DNS */
	const char *smtp_url; /* NULL: mail is queued, never sent */
	enum conf_tls smtp_starttls; /* default required */
	const char *smtp_ca_file;
	const char *smtp_pin_sha256; /* as source pin_sha256 */
	const char *smtp_user;
	const char *smtp_password_file;
	enum conf_conflict stage_on_conflict; /* default keep */
	const char *test_command; /* NULL: no tests */
	int test_timeout; /* seconds, 1 to 604800, default 600 */
	enum conf_test_mode test_mode; /* default stack */
	enum conf_failure test_on_failure; /* default report */
	int test_jobs; /* runs at once, default 1 */
	long long test_output_cap; /* bytes of log kept, default 10M */
	int test_cpu; /* RLIMIT_CPU seconds, default 3600 */
	long long test_memory; /* RLIMIT_AS bytes, default 4G */
	int test_files; /* RLIMIT_NOFILE, default 1024 */
	int test_processes; /* in the test's PID namespace, default 256 */
	enum conf_sandbox test_sandbox; /* default bwrap */
	int run_upstream_interval; /* seconds, default 3600 */
	int run_rebuild_delay; /* seconds, default 10 */
	int run_send_interval; /* seconds, default 60 */
	int run_gc_interval; /* seconds, default a week */
};

struct config_error {
	const char *file;
	int line; /* 0 when the error is about the whole file */
	const char *msg;
};

/*
 * Parse text[0..n) read from file (used in messages only).  Fills *out
 * with defaults, then the file's values; on any error returns ERR_CONFIG
 * with every error in *errs (sorted by line).  Paths are kept as written
 * (relative paths are the caller's business).
 */
enum err config_parse(struct arena *a, const char *file, const char *text,
    size_t n, struct config *out, struct config_error **errs, size_t *nerrs);

/* The project called name, or NULL. */
const struct conf_project *config_project(
    const struct config *c, const char *name);

/*
 * The promotion policy of a project: [promote "name"] over [promote]
 * over the defaults.  present is false when neither section is given.
 */
struct conf_promote config_promote(const struct config *c, const char *name);

/*
 * The two addresses of a [mailmap] alias line, "[Name] <addr> [Name]
 * <addr>", into addr[2] and len[2] as views into s; false unless there
 * are exactly two, each an address.
 */
bool config_mailmap_split(const char *s, const char **addr, size_t *len);

/*
 * The effective configuration in git-config syntax, every key of every
 * section present with its value or default; keys without a value and
 * without a default are written as comments, and so is each kind of
 * section the file does not give (a [source "NAME"] with its keys and
 * their defaults when there is no source), so that the output names
 * every key of the schema.  Parsing the output again gives the same
 * configuration.
 */
void config_write(const struct config *c, struct buf *out);

#endif
