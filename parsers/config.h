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
 * takes the last), only maintainer.path repeats; an empty value is an
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

struct conf_project {
	const char *name; /* the subsection */
	const char *list; /* required: list address (List-Id match too) */
	const char *archive; /* URL template with one %s, or NULL */
	const char *upstream; /* URL or path, or NULL */
	const char *branch; /* default "master" */
	const char *staging; /* bare repository path, or NULL */
	const char *push; /* remote URL, or NULL */
	bool cc_list; /* default true */
	int line; /* where the section starts, for messages */
};

struct conf_maintainer {
	const char *name;
	const char *email; /* required */
	const char *project; /* NULL: every project */
	const char **paths; /* "path" keys, repeatable; MAINTAINERS F: */
	size_t npaths;
};

struct conf_tree {
	const char *name;
	const char *url; /* required */
	const char *branch; /* default "master" */
	const char *project; /* NULL: every project */
};

struct conf_ci {
	const char *name;
	const char *email; /* required */
};

struct conf_source {
	const char *name;
	const char *imap; /* imap:// or imaps:// URL, required */
	const char *password_file;
	const char *ca_file;
	const char *pin_sha256; /* SHA-256 of the server's public key:
	                           64 lower-case hex digits (colons
	                           dropped), or curl's "sha256//BASE64[;...]"
	                           as written; NULL: no pin */
	const char *project; /* NULL: by the mail's headers */
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
	const char *auth_authserv_id;
	enum conf_auth auth_require; /* default dkim */
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

#endif
