/*
 * bot.conf reader.  The syntax is git-config(1)'s "CONFIGURATION FILE"
 * section, checked against git 2.39 itself: where git accepts a file we
 * read the same values, where git refuses one we refuse the same line.
 * On top of the syntax comes our schema (DESIGN.md §10): unknown
 * sections and keys, bad values, missing required keys and dangling
 * project names are errors.  Unlike git we do not stop at the first
 * error: every error is collected with its line, so an operator fixes a
 * file in one round.
 *
 * A single-valued key given twice is an error (git would silently take
 * the last one); only maintainer.path repeats.  A section may be opened
 * again further down, as git allows, and its keys are merged.
 */
#include "parsers/config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/imapurl.h"
#include "parsers/limits.h"
#include "util/ascii.h"
#include "util/utf8.h"
#include "util/xalloc.h"

#define LEX_EOF (-1)
#define HASH_SIZE 1024
#define WEEK (7 * 24 * 3600)
#define KEY_NONE ((size_t)-1)

_Static_assert(sizeof(enum conf_auth) == sizeof(int), "enum size");
_Static_assert(sizeof(enum conf_tls) == sizeof(int), "enum size");
_Static_assert(sizeof(enum conf_conflict) == sizeof(int), "enum size");
_Static_assert(sizeof(enum conf_test_mode) == sizeof(int), "enum size");
_Static_assert(sizeof(enum conf_failure) == sizeof(int), "enum size");
_Static_assert(sizeof(enum conf_forward) == sizeof(int), "enum size");
_Static_assert(sizeof(enum conf_sandbox) == sizeof(int), "enum size");
/* item_open() writes the subsection through the first member. */
_Static_assert(offsetof(struct conf_project, name) == 0, "name first");
_Static_assert(offsetof(struct conf_maintainer, name) == 0, "name first");
_Static_assert(offsetof(struct conf_tree, name) == 0, "name first");
_Static_assert(offsetof(struct conf_ci, name) == 0, "name first");
_Static_assert(offsetof(struct conf_source, name) == 0, "name first");
_Static_assert(offsetof(struct conf_promote, name) == 0, "name first");

enum ktype {
	KT_STR,
	KT_BOOL,
	KT_INT, /* int, from lo to hi, in unit */
	KT_SIZE, /* long long bytes, k/M/G suffixes (1024-based), lo to hi */
	KT_ENUM,
	KT_LIST /* repeatable string into a struct conf_list */
};

enum kcheck {
	KC_ANY, /* any single-line text */
	KC_TEXT, /* any text, newlines and tabs too (a shell command) */
	KC_EMAIL,
	KC_HTTP,
	KC_SMTP,
	KC_IMAP,
	KC_ARCHIVE,
	KC_PREFIX,
	KC_PIN,
	KC_PROJECT, /* names a [project]: checked once the file is read */
	KC_SOURCE, /* a path, or an http(s):// URL */
	KC_SEEN, /* leave, flag or move:FOLDER */
	KC_MAILMAP /* "[Name] <addr> [Name] <addr>" */
};

struct key {
	const char *name;
	enum ktype type;
	size_t off;
	bool required;
	enum kcheck check;
	const char *const *enums; /* KT_ENUM: values in enum order */
	long long lo, hi; /* KT_INT, KT_SIZE: the range */
	const char *unit; /* KT_INT: "seconds", "days", ... or NULL */
};

/* How a section is named: [core], [project "x"], or either ([promote]). */
enum naming {
	NAME_NONE,
	NAME_REQUIRED,
	NAME_OPTIONAL
};

enum secid {
	SEC_CORE,
	SEC_BOT,
	SEC_PROJECT,
	SEC_MAINTAINER,
	SEC_TREE,
	SEC_CI,
	SEC_SOURCE,
	SEC_AUTH,
	SEC_SMTP,
	SEC_STAGE,
	SEC_TEST,
	SEC_RUN,
	SEC_PROMOTE,
	SEC_MAILMAP,
	SEC_COUNT
};

struct section {
	const char *name;
	enum secid id;
	enum naming named; /* [name "sub"]: one object per subsection */
	const struct key *keys;
	size_t nkeys;
};

static const char *const auth_values[] = { "dkim", "none", NULL };
static const char *const tls_values[] = { "required", "try", "never", NULL };
static const char *const conflict_values[] = { "keep", "drop", NULL };
static const char *const mode_values[] = { "stack", "patch", "series", NULL };
static const char *const failure_values[] = { "report", "drop", NULL };
static const char *const forward_values[] = { "series", "pull", NULL };
static const char *const sandbox_values[] = { "bwrap", "none", NULL };

#define C(f) offsetof(struct config, f)
#define P(f) offsetof(struct conf_project, f)
#define M(f) offsetof(struct conf_maintainer, f)
#define T(f) offsetof(struct conf_tree, f)
#define S(f) offsetof(struct conf_source, f)
#define PR(f) offsetof(struct conf_promote, f)
#define CI(f) offsetof(struct conf_ci, f)
/* Integer and size keys: the range, then the unit for messages. */
#define RANGE(lo, hi, unit) NULL, lo, hi, unit
#define NORANGE 0, 0, NULL
#define GIB (1024LL * 1024 * 1024)

static const struct key core_keys[] = {
	{ "database", KT_STR, C(database), true, KC_ANY, NULL, NORANGE },
};
static const struct key bot_keys[] = {
	{ "address", KT_STR, C(bot_address), false, KC_EMAIL, NULL, NORANGE },
	{ "url", KT_STR, C(bot_url), false, KC_HTTP, NULL, NORANGE },
	{ "command-prefix", KT_STR, C(command_prefix), false, KC_PREFIX, NULL,
	    NORANGE },
	{ "templates", KT_STR, C(templates), false, KC_ANY, NULL, NORANGE },
};
static const struct key project_keys[] = {
	{ "list", KT_STR, P(list), true, KC_EMAIL, NULL, NORANGE },
	{ "archive", KT_STR, P(archive), false, KC_ARCHIVE, NULL, NORANGE },
	{ "upstream", KT_STR, P(upstream), false, KC_ANY, NULL, NORANGE },
	{ "branch", KT_STR, P(branch), false, KC_ANY, NULL, NORANGE },
	{ "staging", KT_STR, P(staging), false, KC_ANY, NULL, NORANGE },
	{ "push", KT_STR, P(push), false, KC_ANY, NULL, NORANGE },
	{ "cc-list", KT_BOOL, P(cc_list), false, KC_ANY, NULL, NORANGE },
	{ "forward", KT_ENUM, P(forward), false, KC_ANY, forward_values,
	    NORANGE },
	{ "forward-to", KT_STR, P(forward_to), false, KC_EMAIL, NULL, NORANGE },
	{ "forward-cc", KT_LIST, P(forward_cc), false, KC_EMAIL, NULL,
	    NORANGE },
};
static const struct key maintainer_keys[] = {
	{ "email", KT_STR, M(email), true, KC_EMAIL, NULL, NORANGE },
	{ "project", KT_STR, M(project), false, KC_PROJECT, NULL, NORANGE },
	{ "path", KT_LIST, M(paths), false, KC_ANY, NULL, NORANGE },
	{ "token-file", KT_STR, M(token_file), false, KC_ANY, NULL, NORANGE },
};
static const struct key tree_keys[] = {
	{ "url", KT_STR, T(url), true, KC_ANY, NULL, NORANGE },
	{ "branch", KT_STR, T(branch), false, KC_ANY, NULL, NORANGE },
	{ "project", KT_STR, T(project), false, KC_PROJECT, NULL, NORANGE },
	{ "owner", KT_STR, T(owner), false, KC_EMAIL, NULL, NORANGE },
};
static const struct key ci_keys[] = {
	{ "email", KT_STR, CI(email), true, KC_EMAIL, NULL, NORANGE },
	{ "token-file", KT_STR, CI(token_file), false, KC_ANY, NULL, NORANGE },
};
static const struct key source_keys[] = {
	{ "imap", KT_STR, S(imap), false, KC_IMAP, NULL, NORANGE },
	{ "public-inbox", KT_STR, S(public_inbox), false, KC_SOURCE, NULL,
	    NORANGE },
	{ "maildir", KT_STR, S(maildir), false, KC_ANY, NULL, NORANGE },
	{ "password-file", KT_STR, S(password_file), false, KC_ANY, NULL,
	    NORANGE },
	{ "ca-file", KT_STR, S(ca_file), false, KC_ANY, NULL, NORANGE },
	{ "pin-sha256", KT_STR, S(pin_sha256), false, KC_PIN, NULL, NORANGE },
	{ "project", KT_STR, S(project), false, KC_PROJECT, NULL, NORANGE },
	{ "seen", KT_STR, S(seen), false, KC_SEEN, NULL, NORANGE },
	{ "interval", KT_INT, S(interval), false, KC_ANY,
	    RANGE(1, 24 * 3600, "seconds") },
	{ "timeout", KT_INT, S(timeout), false, KC_ANY,
	    RANGE(1, 3600, "seconds") },
	{ "authserv-id", KT_STR, S(authserv_id), false, KC_ANY, NULL, NORANGE },
};
static const struct key auth_keys[] = {
	{ "authserv-id", KT_STR, C(auth_authserv_id), false, KC_ANY, NULL,
	    NORANGE },
	{ "require", KT_ENUM, C(auth_require), false, KC_ANY, auth_values,
	    NORANGE },
	{ "keyring", KT_STR, C(auth_keyring), false, KC_ANY, NULL, NORANGE },
	{ "dkim-keys", KT_STR, C(auth_dkim_keys), false, KC_ANY, NULL,
	    NORANGE },
};
static const struct key smtp_keys[] = {
	{ "url", KT_STR, C(smtp_url), false, KC_SMTP, NULL, NORANGE },
	{ "starttls", KT_ENUM, C(smtp_starttls), false, KC_ANY, tls_values,
	    NORANGE },
	{ "ca-file", KT_STR, C(smtp_ca_file), false, KC_ANY, NULL, NORANGE },
	{ "pin-sha256", KT_STR, C(smtp_pin_sha256), false, KC_PIN, NULL,
	    NORANGE },
	{ "user", KT_STR, C(smtp_user), false, KC_ANY, NULL, NORANGE },
	{ "password-file", KT_STR, C(smtp_password_file), false, KC_ANY, NULL,
	    NORANGE },
};
static const struct key stage_keys[] = {
	{ "on-conflict", KT_ENUM, C(stage_on_conflict), false, KC_ANY,
	    conflict_values, NORANGE },
};
static const struct key test_keys[] = {
	{ "command", KT_STR, C(test_command), false, KC_TEXT, NULL, NORANGE },
	{ "timeout", KT_INT, C(test_timeout), false, KC_ANY,
	    RANGE(1, WEEK, "seconds") },
	{ "mode", KT_ENUM, C(test_mode), false, KC_ANY, mode_values, NORANGE },
	{ "on-failure", KT_ENUM, C(test_on_failure), false, KC_ANY,
	    failure_values, NORANGE },
	{ "jobs", KT_INT, C(test_jobs), false, KC_ANY, RANGE(1, 64, NULL) },
	{ "output-cap", KT_SIZE, C(test_output_cap), false, KC_ANY,
	    RANGE(4096, GIB, NULL) },
	{ "cpu", KT_INT, C(test_cpu), false, KC_ANY,
	    RANGE(1, WEEK, "seconds") },
	{ "memory", KT_SIZE, C(test_memory), false, KC_ANY,
	    RANGE(16 * 1024 * 1024, 1024 * GIB, NULL) },
	{ "files", KT_INT, C(test_files), false, KC_ANY,
	    RANGE(16, 1048576, NULL) },
	{ "processes", KT_INT, C(test_processes), false, KC_ANY,
	    RANGE(1, 1048576, NULL) },
	{ "sandbox", KT_ENUM, C(test_sandbox), false, KC_ANY, sandbox_values,
	    NORANGE },
};
static const struct key run_keys[] = {
	{ "upstream-interval", KT_INT, C(run_upstream_interval), false, KC_ANY,
	    RANGE(1, WEEK, "seconds") },
	{ "rebuild-delay", KT_INT, C(run_rebuild_delay), false, KC_ANY,
	    RANGE(0, 24 * 3600, "seconds") },
	{ "send-interval", KT_INT, C(run_send_interval), false, KC_ANY,
	    RANGE(1, 24 * 3600, "seconds") },
	{ "gc-interval", KT_INT, C(run_gc_interval), false, KC_ANY,
	    RANGE(3600, 365 * 24 * 3600, "seconds") },
};
/* Bit i of conf_promote.set is key i here: keep the order. */
static const struct key promote_keys[] = {
	{ "min-days", KT_INT, PR(min_days), false, KC_ANY,
	    RANGE(0, 3650, "days") },
	{ "min-reviews", KT_INT, PR(min_reviews), false, KC_ANY,
	    RANGE(0, 100, NULL) },
	{ "require-test", KT_BOOL, PR(require_test), false, KC_ANY, NULL,
	    NORANGE },
	{ "per-patch", KT_BOOL, PR(per_patch), false, KC_ANY, NULL, NORANGE },
};
static const struct key mailmap_keys[] = {
	{ "alias", KT_LIST, C(mailmap), false, KC_MAILMAP, NULL, NORANGE },
};

#define KEYS(k) k, sizeof(k) / sizeof(k[0])

/* In enum secid order, which is also the order config_write() uses. */
static const struct section sections[] = {
	{ "core", SEC_CORE, NAME_NONE, KEYS(core_keys) },
	{ "bot", SEC_BOT, NAME_NONE, KEYS(bot_keys) },
	{ "project", SEC_PROJECT, NAME_REQUIRED, KEYS(project_keys) },
	{ "maintainer", SEC_MAINTAINER, NAME_REQUIRED, KEYS(maintainer_keys) },
	{ "tree", SEC_TREE, NAME_REQUIRED, KEYS(tree_keys) },
	{ "ci", SEC_CI, NAME_REQUIRED, KEYS(ci_keys) },
	{ "source", SEC_SOURCE, NAME_REQUIRED, KEYS(source_keys) },
	{ "auth", SEC_AUTH, NAME_NONE, KEYS(auth_keys) },
	{ "smtp", SEC_SMTP, NAME_NONE, KEYS(smtp_keys) },
	{ "stage", SEC_STAGE, NAME_NONE, KEYS(stage_keys) },
	{ "test", SEC_TEST, NAME_NONE, KEYS(test_keys) },
	{ "run", SEC_RUN, NAME_NONE, KEYS(run_keys) },
	{ "promote", SEC_PROMOTE, NAME_OPTIONAL, KEYS(promote_keys) },
	{ "mailmap", SEC_MAILMAP, NAME_NONE, KEYS(mailmap_keys) },
};
#define NSECTIONS (sizeof(sections) / sizeof(sections[0]))
_Static_assert(NSECTIONS == SEC_COUNT, "a section per secid");
_Static_assert(
    sizeof(promote_keys) / sizeof(promote_keys[0]) <= sizeof(unsigned) * 8,
    "conf_promote.set holds a bit per key");

static const size_t obj_size[SEC_COUNT] = {
	[SEC_PROJECT] = sizeof(struct conf_project),
	[SEC_MAINTAINER] = sizeof(struct conf_maintainer),
	[SEC_TREE] = sizeof(struct conf_tree),
	[SEC_CI] = sizeof(struct conf_ci),
	[SEC_SOURCE] = sizeof(struct conf_source),
	[SEC_PROMOTE] = sizeof(struct conf_promote),
};

struct strnode {
	const char *s;
	size_t key; /* index of its KT_LIST key in the section */
	struct strnode *next;
};

/* One section object: a named [project "x"] or a global [smtp]. */
struct item {
	const struct section *sec;
	const char *name; /* subsection, NULL for global sections */
	int line; /* its first header */
	int *set; /* per key of the section: line where set, 0: unset */
	void *obj;
	struct strnode *lists, **ltail; /* KT_LIST values, file order */
	struct item *next; /* in file order */
	struct item *hnext; /* hash chain */
};

struct errnode {
	struct config_error e;
	size_t seq;
	struct errnode *next;
};

struct lex {
	const char *p;
	size_t n, i;
	int line; /* line of the character returned last */
	bool nl; /* that character was a newline */
};

struct parser {
	struct arena *a;
	const char *file;
	struct config *c;
	struct lex l;
	struct item *items, **itail;
	struct item *global[SEC_COUNT];
	struct item **hash; /* named items by section and name */
	struct errnode *errs;
	size_t nerrs;
	struct item *cur; /* section being read */
	bool cur_bad; /* its header was refused: skip its keys */
	struct buf tmp;
};

static void perr(struct parser *ps, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
perr(struct parser *ps, int line, const char *fmt, ...)
{
	struct errnode *e = arena_zalloc(ps->a, sizeof(*e));
	struct buf b;
	va_list ap;
	int r;

	buf_init(&b, 0);
	va_start(ap, fmt);
	r = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (r < 0) {
		e->e.msg = "(unprintable error)";
	} else {
		buf_reserve(&b, (size_t)r + 1);
		va_start(ap, fmt);
		vsnprintf(b.p, (size_t)r + 1, fmt, ap);
		va_end(ap);
		e->e.msg = arena_strndup(ps->a, b.p, (size_t)r);
	}
	buf_free(&b);
	e->e.file = ps->file;
	e->e.line = line;
	e->seq = ps->nerrs++;
	e->next = ps->errs;
	ps->errs = e;
}

/*
 * A value or name quoted in a message: control characters escaped, cut
 * at 60 bytes (on a UTF-8 boundary) so one bad line cannot flood a log.
 */
static const char *
show(struct parser *ps, const char *s)
{
	struct buf *b = &ps->tmp;
	size_t i, n = strlen(s);

	buf_reset(b);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (b->n >= 60 && (c & 0xc0) != 0x80) {
			buf_adds(b, "...");
			break;
		}
		if (c < 0x20 || c == 0x7f || c == '\\')
			buf_addf(b, "\\x%02x", c);
		else
			buf_addc(b, (char)c);
	}
	return arena_strdup(ps->a, buf_cstr(b));
}

static int
lex_get(struct lex *l)
{
	int c;

	if (l->nl) {
		l->line++;
		l->nl = false;
	}
	if (l->i >= l->n)
		return LEX_EOF;
	c = (unsigned char)l->p[l->i++];
	if (c == '\r' && l->i < l->n && l->p[l->i] == '\n')
		c = (unsigned char)l->p[l->i++];
	if (c == '\n')
		l->nl = true;
	return c;
}

/* After an error on a line: drop the rest of it (c was read last). */
static void
lex_recover(struct lex *l, int c)
{
	while (c != '\n' && c != LEX_EOF)
		c = lex_get(l);
}

static bool
is_keychar(int c)
{
	return c >= 0 && c < 0x80 && (ascii_isalnum((char)c) || c == '-');
}

/* How a character is shown in a message about syntax. */
static const char *
show_char(struct parser *ps, int c)
{
	char s[8];

	if (c == '\n')
		return "the end of the line";
	if (c == LEX_EOF)
		return "the end of the file";
	if (c == ' ' || c == '\t')
		return "a blank";
	if (c > 0x20 && c < 0x7f)
		snprintf(s, sizeof(s), "'%c'", c);
	else
		snprintf(s, sizeof(s), "\\x%02x", (unsigned)c & 0xff);
	return arena_strdup(ps->a, s);
}

/*
 * The quoted part of [section "subsection"]: git keeps every byte but
 * newline and NUL, and a backslash takes the next character literally.
 */
static bool
lex_subsection(struct parser *ps, struct buf *sub)
{
	int c, line = ps->l.line;

	for (;;) {
		c = lex_get(&ps->l);
		if (c == '\\')
			c = lex_get(&ps->l);
		else if (c == '"')
			break;
		if (c == '\n' || c == LEX_EOF) {
			perr(ps, line, "unterminated subsection name");
			return false;
		}
		if (c == 0) {
			perr(ps, line, "NUL byte in subsection name");
			lex_recover(&ps->l, c);
			return false;
		}
		buf_addc(sub, (char)c);
	}
	c = lex_get(&ps->l);
	if (c != ']') {
		perr(ps, line,
		    "expected ']' after the subsection name, "
		    "found %s",
		    show_char(ps, c));
		lex_recover(&ps->l, c);
		return false;
	}
	if (!utf8_valid(sub->p, sub->n)) {
		perr(ps, line, "subsection name is not valid UTF-8");
		return false;
	}
	return true;
}

/*
 * "[name]", "[name "sub"]" or the deprecated "[name.sub]" (sub lowered),
 * after the '['.  *has_sub tells the quoted and dotted forms apart from
 * none at all.
 */
static bool
lex_section(struct parser *ps, struct buf *name, struct buf *sub, bool *has_sub)
{
	int c, line = ps->l.line;
	long dot;

	*has_sub = false;
	for (;;) {
		c = lex_get(&ps->l);
		if (c == ']')
			break;
		if (c == ' ' || c == '\t') {
			if (name->n == 0)
				goto bad;
			do
				c = lex_get(&ps->l);
			while (c == ' ' || c == '\t');
			if (c != '"')
				goto bad;
			*has_sub = true;
			if (!lex_subsection(ps, sub))
				return false;
			break;
		}
		if (c == '\n' || c == LEX_EOF) {
			perr(ps, line, "unterminated section header");
			return false;
		}
		if (!is_keychar(c) && c != '.')
			goto bad;
		buf_addc(name, ascii_tolower((char)c));
	}
	if (name->n == 0) {
		perr(ps, line, "empty section name");
		return false;
	}
	dot = str_find(buf_str(name), '.');
	if (dot >= 0 && !*has_sub) {
		*has_sub = true;
		buf_add(sub, name->p + dot + 1, name->n - (size_t)dot - 1);
		name->n = (size_t)dot;
		name->p[dot] = '\0';
	}
	return true;
bad:
	perr(ps, line,
	    "bad section header: %s where a section name, "
	    "'\"' or ']' belongs",
	    show_char(ps, c));
	lex_recover(&ps->l, c);
	return false;
}

/*
 * A value after '=', to the end of its (continued) line, as git reads
 * it: blanks outside quotes are trimmed at both ends and each one inside
 * becomes a space, '#' and ';' outside quotes start a comment, '"'
 * toggles quoting, and \" \\ \n \t \b are the only escapes.
 */
static bool
lex_value(struct parser *ps, struct buf *v)
{
	bool quote = false, comment = false;
	size_t spaces = 0;
	int c, line = ps->l.line;

	for (;;) {
		c = lex_get(&ps->l);
		if (c == '\n' || c == LEX_EOF) {
			if (!quote)
				return true;
			perr(ps, ps->l.line, "unterminated quoted string");
			return false;
		}
		if (comment)
			continue;
		if (!quote && ascii_isspace((char)c)) {
			if (v->n)
				spaces++;
			continue;
		}
		if (!quote && (c == '#' || c == ';')) {
			comment = true;
			continue;
		}
		for (; spaces; spaces--)
			buf_addc(v, ' ');
		if (c == '\\') {
			c = lex_get(&ps->l);
			if (c == '\n' || c == LEX_EOF) {
				if (c == LEX_EOF && !quote)
					return true;
				continue;
			}
			if (c == 't')
				c = '\t';
			else if (c == 'b')
				c = '\b';
			else if (c == 'n')
				c = '\n';
			else if (c != '\\' && c != '"') {
				perr(ps, ps->l.line,
				    "unknown escape in value: a backslash "
				    "before %s (\\\" \\\\ \\n \\t \\b are "
				    "known)",
				    show_char(ps, c));
				lex_recover(&ps->l, c);
				return false;
			}
		} else if (c == '"') {
			quote = !quote;
			continue;
		} else if (c == 0) {
			perr(ps, line, "NUL byte in value");
			lex_recover(&ps->l, c);
			return false;
		}
		buf_addc(v, (char)c);
	}
}

static size_t
hash_name(enum secid id, const char *s)
{
	size_t h = 5381 + (size_t)id;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h % HASH_SIZE;
}

/* name NULL: the section's one unnamed object. */
static struct item *
item_find(struct parser *ps, const struct section *sec, const char *name)
{
	struct item *it;

	if (name == NULL)
		return ps->global[sec->id];
	for (it = ps->hash[hash_name(sec->id, name)]; it; it = it->hnext)
		if (it->sec == sec && strcmp(it->name, name) == 0)
			return it;
	return NULL;
}

static void
defaults_named(const struct section *sec, void *obj)
{
	if (sec->id == SEC_PROJECT) {
		struct conf_project *p = obj;

		p->branch = "master";
		p->cc_list = true;
	} else if (sec->id == SEC_TREE) {
		((struct conf_tree *)obj)->branch = "master";
	} else if (sec->id == SEC_SOURCE) {
		((struct conf_source *)obj)->seen = "leave";
		((struct conf_source *)obj)->interval = 60;
		((struct conf_source *)obj)->timeout = 60;
	} else if (sec->id == SEC_PROMOTE) {
		struct conf_promote *pr = obj;

		pr->min_days = 7;
		pr->min_reviews = 1;
		pr->require_test = true;
	}
}

/* The object an unnamed section's keys are stored into. */
static void *
global_obj(struct parser *ps, const struct section *sec)
{
	if (sec->id == SEC_PROMOTE)
		return &ps->c->promote;
	return ps->c;
}

static struct item *
item_open(
    struct parser *ps, const struct section *sec, const char *name, int line)
{
	struct item *it = item_find(ps, sec, name);
	size_t h;

	if (it != NULL)
		return it;
	it = arena_zalloc(ps->a, sizeof(*it));
	it->sec = sec;
	it->line = line;
	it->set = arena_zalloc(ps->a, sizeof(*it->set) * sec->nkeys);
	it->ltail = &it->lists;
	if (name != NULL) {
		it->name = arena_strdup(ps->a, name);
		it->obj = arena_zalloc(ps->a, obj_size[sec->id]);
		/* Every named struct starts with its name. */
		*(const char **)it->obj = it->name;
		defaults_named(sec, it->obj);
		h = hash_name(sec->id, name);
		it->hnext = ps->hash[h];
		ps->hash[h] = it;
	} else {
		it->obj = global_obj(ps, sec);
		ps->global[sec->id] = it;
	}
	*ps->itail = it;
	ps->itail = &it->next;
	return it;
}

/* Project names end up in refs, URLs and --project: keep them plain. */
static bool
project_name_ok(const char *s)
{
	size_t i;

	if (s[0] == '\0' || s[0] == '.' || s[0] == '-')
		return false;
	for (i = 0; s[i]; i++)
		if (!ascii_isalnum(s[i]) && s[i] != '.' && s[i] != '_' &&
		    s[i] != '-')
			return false;
	return i <= 64;
}

/* A section header was read: find its schema and its object. */
static void
section_enter(struct parser *ps, const char *name, const char *sub,
    bool has_sub, int line)
{
	size_t i;

	ps->cur = NULL;
	ps->cur_bad = true;
	for (i = 0; i < NSECTIONS; i++)
		if (strcmp(sections[i].name, name) == 0)
			break;
	if (i == NSECTIONS) {
		perr(ps, line, "unknown section '%s'", show(ps, name));
		return;
	}
	if (sections[i].named == NAME_REQUIRED && !has_sub) {
		perr(ps, line, "section '%s' needs a name: [%s \"NAME\"]", name,
		    name);
		return;
	}
	if (sections[i].named == NAME_NONE && has_sub) {
		perr(ps, line, "section '%s' takes no name", name);
		return;
	}
	if (has_sub && sub[0] == '\0') {
		perr(ps, line, "empty %s name", name);
		return;
	}
	if (sections[i].id == SEC_PROJECT && !project_name_ok(sub)) {
		perr(ps, line,
		    "bad project name '%s': use letters, digits, '.', '_' "
		    "and '-' (at most 64, not starting with '.' or '-')",
		    show(ps, sub));
		return;
	}
	ps->cur = item_open(ps, &sections[i], has_sub ? sub : NULL, line);
	ps->cur_bad = false;
}

/* "section.sub.key" or "section.key", for messages. */
static const char *
key_path(struct parser *ps, const struct item *it, const struct key *k)
{
	struct buf b;
	const char *s;

	buf_init(&b, 0);
	buf_adds(&b, it->sec->name);
	buf_addc(&b, '.');
	if (it->name) {
		buf_adds(&b, show(ps, it->name));
		buf_addc(&b, '.');
	}
	buf_adds(&b, k->name);
	s = arena_strdup(ps->a, buf_cstr(&b));
	buf_free(&b);
	return s;
}

static bool
has_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* A bare addr-spec, local@domain: what a list, a maintainer or the bot
 * is known by.  Display names belong in mail headers, not here. */
static bool
email_ok(const char *s)
{
	const char *at = strchr(s, '@'), *d;

	if (at == NULL || at == s || strchr(at + 1, '@') != NULL)
		return false;
	for (d = s; d < at; d++)
		if (*d == ' ' || strchr("()<>[]:;,\\\"", *d) != NULL)
			return false;
	d = at + 1;
	if (*d == '\0' || *d == '.' || d[strlen(d) - 1] == '.' ||
	    strstr(d, "..") != NULL)
		return false;
	for (; *d; d++)
		if (!ascii_isalnum(*d) && *d != '-' && *d != '.' &&
		    (unsigned char)*d < 0x80)
			return false;
	return true;
}

/* scheme:// or schemes:// and a host: "http" takes https:// too. */
static bool
url_ok(const char *s, const char *scheme)
{
	size_t n = strlen(scheme);

	if (ascii_strnicmp(s, scheme, n) != 0)
		return false;
	s += n;
	if (*s == 's' || *s == 'S')
		s++;
	if (strncmp(s, "://", 3) != 0)
		return false;
	s += 3;
	return *s != '\0' && *s != '/' && strchr(s, ' ') == NULL;
}

static bool
http_ok(const char *s)
{
	return url_ok(s, "http");
}

static bool
smtp_ok(const char *s)
{
	return url_ok(s, "smtp");
}

/* What the IMAP source can connect to (parsers/imapurl.c). */
static bool
imap_ok(const char *s)
{
	struct imapurl u;
	const char *why;

	return imapurl_parse(s, &u, &why) == ERR_OK;
}

/* Exactly one %s, for the Message-ID; a literal percent is %%. */
static bool
archive_ok(const char *s)
{
	int conversions = 0;
	const char *p;

	for (p = s; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == 's')
			conversions++;
		else if (p[1] != '%')
			return false;
		p++;
	}
	return conversions == 1 && strchr(s, ' ') == NULL;
}

/* The prefix starts a line of its own; a quote marker could never do. */
static bool
prefix_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 32 || s[0] == '>' || s[0] == '|')
		return false;
	return strchr(s, ' ') == NULL;
}

/* 64 hex digits, colons allowed as openssl prints them, into out (65
 * bytes) lower-case without colons, so consumers compare with memcmp. */
static bool
pin_norm(const char *s, char *out)
{
	size_t n = 0;

	for (; *s; s++) {
		if (*s == ':')
			continue;
		if (!ascii_isxdigit(*s) || n == 64)
			return false;
		out[n++] = ascii_tolower(*s);
	}
	out[n] = '\0';
	return n == 64;
}

/* curl's own form, kept as written: "sha256//" and 44 base64 digits,
 * several joined by ';'. */
static bool
pin_curl_ok(const char *s)
{
	size_t n;

	for (;;) {
		if (strncmp(s, "sha256//", 8) != 0)
			return false;
		s += 8;
		n = strspn(s,
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789+/=");
		if (n != 44)
			return false;
		s += n;
		if (*s == '\0')
			return true;
		if (*s++ != ';')
			return false;
	}
}

static bool
pin_ok(const char *s)
{
	char out[65];

	return pin_norm(s, out) || pin_curl_ok(s);
}

/* A local path, or where a public-inbox is served over HTTP(S); file://
 * mirrors a local one with git as a remote one would be. */
static bool
source_ok(const char *s)
{
	if (strncmp(s, "file:///", 8) == 0)
		return strpbrk(s, " \t") == NULL;
	if (strstr(s, "://") != NULL)
		return http_ok(s);
	return s[0] != '\0';
}

/* leave, flag, or move:FOLDER with a folder name that IMAP can carry. */
static bool
seen_ok(const char *s)
{
	if (strcmp(s, "leave") == 0 || strcmp(s, "flag") == 0)
		return true;
	if (strncmp(s, "move:", 5) != 0 || s[5] == '\0')
		return false;
	return strpbrk(s + 5, "\"\\*%") == NULL;
}

/*
 * The addresses of a mailmap line, "[Name] <addr> [Name] <addr>", into
 * addr[2] as views into s; false unless there are exactly two, each an
 * address.
 */
bool
config_mailmap_split(const char *s, const char **addr, size_t *len)
{
	const char *open, *close;
	char tmp[256];
	int n = 0;

	while ((open = strchr(s, '<')) != NULL) {
		if ((close = strchr(open, '>')) == NULL || n == 2)
			return false;
		if ((size_t)(close - open - 1) >= sizeof(tmp))
			return false;
		memcpy(tmp, open + 1, (size_t)(close - open - 1));
		tmp[close - open - 1] = '\0';
		if (!email_ok(tmp))
			return false;
		addr[n] = open + 1;
		len[n++] = (size_t)(close - open - 1);
		s = close + 1;
	}
	return n == 2 && strchr(s, '>') == NULL;
}

static bool
mailmap_ok(const char *s)
{
	const char *addr[2];
	size_t len[2];

	return config_mailmap_split(s, addr, len);
}

/* How each kind of string value is checked, and what it should be. */
static const struct {
	bool (*ok)(const char *);
	const char *expects;
} checks[] = {
	[KC_ANY] = { NULL, "single-line text" },
	[KC_TEXT] = { NULL, "text" },
	[KC_EMAIL] = { email_ok, "an address like name@example.org" },
	[KC_HTTP] = { http_ok, "an http:// or https:// URL" },
	[KC_SMTP] = { smtp_ok, "an smtp:// or smtps:// URL" },
	[KC_IMAP] = { imap_ok, "an imap:// or imaps:// URL" },
	[KC_ARCHIVE] = { archive_ok,
	    "a URL with exactly one %s for the Message-ID" },
	[KC_PREFIX] = { prefix_ok,
	    "a word of at most 32 bytes, not starting with '>' or '|'" },
	[KC_PIN] = { pin_ok,
	    "64 hex digits (colons allowed) or sha256//BASE64" },
	[KC_PROJECT] = { NULL, "single-line text" },
	[KC_SOURCE] = { source_ok,
	    "a path or an http://, https:// or file:/// URL" },
	[KC_SEEN] = { seen_ok, "leave, flag or move:FOLDER" },
	[KC_MAILMAP] = { mailmap_ok,
	    "two addresses as in .mailmap: [Name] <addr> [Name] <addr>" },
};

/* Check a string value; the stored form (normally v itself) or NULL. */
static const char *
check_str(struct parser *ps, const struct key *k, const char *v)
{
	char pin[65];

	if (k->check != KC_TEXT && has_ctl(v))
		return NULL;
	if (checks[k->check].ok != NULL && !checks[k->check].ok(v))
		return NULL;
	if (k->check == KC_PIN && pin_norm(v, pin))
		return arena_strdup(ps->a, pin);
	return v;
}

static const char *const bool_values[] = { "false", "true", "no", "yes", "off",
	"on", "0", "1", NULL };

/*
 * A decimal number, with a k, M or G suffix (powers of 1024, as git's
 * integer values) when suffixes is true, from lo to hi; false when it
 * is not one.
 */
static bool
parse_number(
    const char *v, bool suffixes, long long lo, long long hi, long long *out)
{
	long long n = 0, mul = 1;

	if (!ascii_isdigit(*v))
		return false;
	for (; ascii_isdigit(*v); v++) {
		n = n * 10 + (*v - '0');
		if (n > hi)
			return false;
	}
	if (suffixes && *v != '\0' && v[1] == '\0') {
		switch (ascii_tolower(*v)) {
		case 'k':
			mul = 1024;
			break;
		case 'm':
			mul = 1024 * 1024;
			break;
		case 'g':
			mul = 1024 * 1024 * 1024;
			break;
		default:
			return false;
		}
		v++;
	}
	if (*v != '\0' || n > hi / mul)
		return false;
	n *= mul;
	if (n < lo)
		return false;
	*out = n;
	return true;
}

static int
parse_enum(const char *const *values, const char *v)
{
	int i;

	for (i = 0; values[i]; i++)
		if (ascii_stricmp(values[i], v) == 0)
			return i;
	return -1;
}

static const char *
enum_list(struct parser *ps, const char *const *values)
{
	struct buf b;
	const char *s;
	int i;

	buf_init(&b, 0);
	for (i = 0; values[i]; i++) {
		if (i > 0)
			buf_adds(&b, values[i + 1] ? ", " : " or ");
		buf_adds(&b, values[i]);
	}
	s = arena_strdup(ps->a, buf_cstr(&b));
	buf_free(&b);
	return s;
}

static void
store(void *obj, const struct key *k, const void *v, size_t n)
{
	memcpy((char *)obj + k->off, v, n);
}

/* Convert and store one value; false (and an error) when it is bad. */
static bool
key_store(struct parser *ps, struct item *it, const struct key *k,
    const char *v, int line)
{
	const char *path = key_path(ps, it, k), *s;
	long long ll;
	bool b;
	int i;

	switch (k->type) {
	case KT_BOOL:
		if ((i = parse_enum(bool_values, v)) < 0)
			break;
		b = i % 2 == 1;
		store(it->obj, k, &b, sizeof(b));
		return true;
	case KT_INT:
		if (!parse_number(v, false, k->lo, k->hi, &ll)) {
			perr(ps, line,
			    "bad value '%s' for '%s': expected a number%s%s "
			    "from %lld to %lld",
			    show(ps, v), path, k->unit ? " of " : "",
			    k->unit ? k->unit : "", k->lo, k->hi);
			return false;
		}
		i = (int)ll;
		store(it->obj, k, &i, sizeof(i));
		return true;
	case KT_SIZE:
		if (!parse_number(v, true, k->lo, k->hi, &ll)) {
			perr(ps, line,
			    "bad value '%s' for '%s': expected a size in bytes "
			    "(k, M or G suffix) from %lld to %lld",
			    show(ps, v), path, k->lo, k->hi);
			return false;
		}
		store(it->obj, k, &ll, sizeof(ll));
		return true;
	case KT_ENUM:
		if ((i = parse_enum(k->enums, v)) < 0) {
			perr(ps, line, "bad value '%s' for '%s': expected %s",
			    show(ps, v), path, enum_list(ps, k->enums));
			return false;
		}
		store(it->obj, k, &i, sizeof(i));
		return true;
	case KT_STR:
	case KT_LIST:
		if ((s = check_str(ps, k, v)) == NULL) {
			perr(ps, line, "bad value '%s' for '%s': expected %s",
			    show(ps, v), path, checks[k->check].expects);
			return false;
		}
		if (k->type == KT_STR) {
			store(it->obj, k, &s, sizeof(s));
		} else {
			struct strnode *sn = arena_zalloc(ps->a, sizeof(*sn));

			sn->s = s;
			sn->key = (size_t)(k - it->sec->keys);
			*it->ltail = sn;
			it->ltail = &sn->next;
		}
		return true;
	}
	perr(ps, line,
	    "bad value '%s' for '%s': expected yes, no, on, off, true, false, "
	    "1 or 0",
	    show(ps, v), path);
	return false;
}

/* The value of a line the lexer refused (and reported). */
static const char bad_value[] = "(bad)";

/*
 * A "key = value" (v NULL: the key alone; bad_value: the line had a
 * syntax error, so only note that the key was there) in the current
 * section.
 */
static void
key_set(struct parser *ps, const char *name, const char *v, int line)
{
	struct item *it = ps->cur;
	const struct key *k = NULL;
	size_t i;

	if (it == NULL) {
		if (!ps->cur_bad && v != bad_value)
			perr(ps, line, "key '%s' outside any section",
			    show(ps, name));
		return;
	}
	for (i = 0; i < it->sec->nkeys; i++)
		if (strcmp(it->sec->keys[i].name, name) == 0)
			k = &it->sec->keys[i];
	if (k == NULL) {
		if (v != bad_value)
			perr(ps, line, "unknown key '%s' in section '%s'",
			    show(ps, name), it->sec->name);
		return;
	}
	i = (size_t)(k - it->sec->keys);
	if (it->set[i] != 0 && k->type != KT_LIST) {
		perr(ps, line, "duplicate key '%s' (first set on line %d)",
		    key_path(ps, it, k), it->set[i]);
		return;
	}
	/* Set even when refused below: one error per line, not a second
	 * "missing key" for the same mistake. */
	it->set[i] = line;
	if (v == bad_value)
		return;
	if (v == NULL && k->type == KT_BOOL)
		v = "true";
	if (v == NULL || v[0] == '\0') {
		perr(ps, line, "missing value for '%s'", key_path(ps, it, k));
		return;
	}
	key_store(ps, it, k, v, line);
}

/* "name", then blanks, then '=' and a value or the end of the line. */
static void
lex_key(struct parser *ps, int c)
{
	struct buf name, v;
	int line = ps->l.line;

	buf_init(&name, 0);
	buf_init(&v, 0);
	do {
		buf_addc(&name, ascii_tolower((char)c));
		c = lex_get(&ps->l);
	} while (is_keychar(c));
	while (c == ' ' || c == '\t')
		c = lex_get(&ps->l);
	if (c == '\n' || c == LEX_EOF) {
		key_set(ps, buf_cstr(&name), NULL, line);
	} else if (c != '=') {
		perr(ps, line, "expected '=' after key '%s', found %s",
		    buf_cstr(&name), show_char(ps, c));
		lex_recover(&ps->l, c);
		key_set(ps, buf_cstr(&name), bad_value, line);
	} else if (!lex_value(ps, &v)) {
		key_set(ps, buf_cstr(&name), bad_value, line);
	} else if (!utf8_valid(buf_cstr(&v), v.n)) {
		perr(ps, line, "value of '%s' is not valid UTF-8",
		    buf_cstr(&name));
		key_set(ps, buf_cstr(&name), bad_value, line);
	} else {
		key_set(ps, buf_cstr(&name),
		    arena_strndup(ps->a, buf_cstr(&v), v.n), line);
	}
	buf_free(&name);
	buf_free(&v);
}

static void
lex_file(struct parser *ps)
{
	struct buf name, sub;
	bool has_sub;
	int c, line;

	buf_init(&name, 0);
	buf_init(&sub, 0);
	if (ps->l.n >= 3 && memcmp(ps->l.p, "\xef\xbb\xbf", 3) == 0)
		ps->l.i = 3;
	while ((c = lex_get(&ps->l)) != LEX_EOF) {
		if (c == '\n' || ascii_isspace((char)c))
			continue;
		if (c == '#' || c == ';') {
			lex_recover(&ps->l, c);
		} else if (c == '[') {
			line = ps->l.line;
			buf_reset(&name);
			buf_reset(&sub);
			if (lex_section(ps, &name, &sub, &has_sub))
				section_enter(ps, buf_cstr(&name),
				    buf_cstr(&sub), has_sub, line);
			else
				ps->cur = NULL, ps->cur_bad = true;
		} else if (c < 0x80 && ascii_isalpha((char)c)) {
			lex_key(ps, c);
		} else {
			perr(ps, ps->l.line,
			    "bad line: %s where a section, a key or a comment "
			    "belongs",
			    show_char(ps, c));
			lex_recover(&ps->l, c);
		}
	}
	buf_free(&name);
	buf_free(&sub);
}

static const char *
project_ref(const struct item *it)
{
	switch (it->sec->id) {
	case SEC_MAINTAINER:
		return ((struct conf_maintainer *)it->obj)->project;
	case SEC_TREE:
		return ((struct conf_tree *)it->obj)->project;
	case SEC_SOURCE:
		return ((struct conf_source *)it->obj)->project;
	default:
		return NULL;
	}
}

/* The index of a key of a section, or KEY_NONE. */
static size_t
key_index(const struct section *sec, const char *name)
{
	size_t i;

	for (i = 0; i < sec->nkeys; i++)
		if (strcmp(sec->keys[i].name, name) == 0)
			return i;
	return KEY_NONE;
}

/* The line where a key of an item was set, 0 when it was not. */
static int
key_line(const struct item *it, const char *name)
{
	size_t i;

	if (it == NULL || (i = key_index(it->sec, name)) == KEY_NONE)
		return 0;
	return it->set[i];
}

/* The [source] keys that only an IMAP source may have. */
static const char *const imap_keys[] = { "password-file", "ca-file",
	"pin-sha256", "seen", "timeout", NULL };

static bool
imap_only(const char *key)
{
	size_t i;

	for (i = 0; imap_keys[i]; i++)
		if (strcmp(key, imap_keys[i]) == 0)
			return true;
	return false;
}

/* A source reads from exactly one place; IMAP-only keys need IMAP. */
static void
check_source(struct parser *ps, const struct item *it)
{
	const struct conf_source *src = it->obj;
	int kinds = (src->imap != NULL) + (src->public_inbox != NULL) +
	    (src->maildir != NULL);
	size_t i;
	int line;

	if (kinds == 0 && key_line(it, "imap") == 0 &&
	    key_line(it, "public-inbox") == 0 && key_line(it, "maildir") == 0)
		perr(ps, it->line,
		    "source '%s' needs one of imap, public-inbox or maildir",
		    show(ps, it->name));
	if (kinds > 1)
		perr(ps, it->line,
		    "source '%s' has more than one of imap, public-inbox and "
		    "maildir",
		    show(ps, it->name));
	if (src->imap != NULL || kinds != 1)
		return;
	for (i = 0; imap_keys[i]; i++)
		if ((line = key_line(it, imap_keys[i])) != 0)
			perr(ps, line,
			    "source.%s.%s applies to imap sources only",
			    show(ps, it->name), imap_keys[i]);
}

/* What can only be judged once the whole file is read. */
static void
check_file(struct parser *ps)
{
	const struct section *proj = &sections[SEC_PROJECT];
	struct item *it, *smtp = ps->global[SEC_SMTP];
	size_t i, nprojects = 0;
	const char *ref;
	int line;

	for (it = ps->items; it; it = it->next) {
		if (it->sec->id == SEC_PROJECT)
			nprojects++;
		if (it->sec->id == SEC_SOURCE)
			check_source(ps, it);
		if (it->sec->id == SEC_PROMOTE && it->name != NULL &&
		    item_find(ps, proj, it->name) == NULL)
			perr(ps, it->line, "promote '%s' names unknown project",
			    show(ps, it->name));
		for (i = 0; i < it->sec->nkeys; i++) {
			const struct key *k = &it->sec->keys[i];

			if (k->required && it->set[i] == 0)
				perr(ps, it->line, "missing required key '%s'",
				    key_path(ps, it, k));
			if (k->check == KC_PROJECT && it->set[i] != 0 &&
			    (ref = project_ref(it)) != NULL &&
			    item_find(ps, proj, ref) == NULL)
				perr(ps, it->set[i],
				    "%s '%s' names unknown project '%s'",
				    it->sec->name, show(ps, it->name),
				    show(ps, ref));
		}
	}
	if (ps->global[SEC_CORE] == NULL)
		perr(ps, 0, "missing required key 'core.database'");
	if (nprojects == 0)
		perr(ps, 0,
		    "no project: at least one [project \"NAME\"] "
		    "section with its list is required");
	if ((line = key_line(smtp, "starttls")) != 0 &&
	    (ps->c->smtp_url == NULL ||
	        ascii_strnicmp(ps->c->smtp_url, "smtp://", 7) != 0))
		perr(ps, line,
		    "smtp.starttls applies only to an smtp:// smtp.url "
		    "(smtps:// is TLS from the start)");
}

/* Turn an item's KT_LIST values into the struct conf_list of each key. */
static void
lists_fill(struct parser *ps, struct item *it)
{
	size_t i, j;
	struct strnode *sn;

	for (i = 0; i < it->sec->nkeys; i++) {
		const struct key *k = &it->sec->keys[i];
		struct conf_list *l;

		if (k->type != KT_LIST)
			continue;
		l = (struct conf_list *)((char *)it->obj + k->off);
		l->n = 0;
		for (sn = it->lists; sn; sn = sn->next)
			l->n += sn->key == i;
		l->v = arena_zalloc(ps->a, sizeof(*l->v) * (l->n + 1));
		j = 0;
		for (sn = it->lists; sn; sn = sn->next)
			if (sn->key == i)
				l->v[j++] = sn->s;
	}
	if (it->sec->id == SEC_PROMOTE) {
		struct conf_promote *pr = it->obj;

		pr->present = true;
		for (i = 0; i < it->sec->nkeys; i++)
			if (it->set[i] != 0)
				pr->set |= 1u << i;
	}
}

/* Every list of every object filled (empty lists too). */
static void
lists_all(struct parser *ps)
{
	struct item *it;

	for (it = ps->items; it; it = it->next)
		lists_fill(ps, it);
}

/* Copy the named objects into arrays, in file order. */
static void *
collect(struct parser *ps, enum secid id, size_t *n)
{
	size_t size = obj_size[id], i = 0;
	struct item *it;
	char *arr;

	*n = 0;
	for (it = ps->items; it; it = it->next)
		if (it->sec->id == id && it->name != NULL)
			(*n)++;
	if (*n == 0)
		return NULL;
	arr = arena_zalloc(ps->a, size * *n);
	for (it = ps->items; it; it = it->next) {
		if (it->sec->id != id || it->name == NULL)
			continue;
		if (id == SEC_PROJECT)
			((struct conf_project *)it->obj)->line = it->line;
		memcpy(arr + size * i++, it->obj, size);
	}
	return arr;
}

static int
err_cmp(const void *x, const void *y)
{
	const struct errnode *a = *(struct errnode *const *)x;
	const struct errnode *b = *(struct errnode *const *)y;

	if (a->e.line != b->e.line)
		return a->e.line < b->e.line ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The errors, sorted by line (and in the order found within a line). */
static struct config_error *
errors_sorted(struct parser *ps)
{
	struct errnode **v, *e;
	struct config_error *out;
	size_t i = 0;

	v = arena_alloc(ps->a, sizeof(*v) * ps->nerrs);
	for (e = ps->errs; e; e = e->next)
		v[i++] = e;
	qsort(v, ps->nerrs, sizeof(*v), err_cmp);
	out = arena_alloc(ps->a, sizeof(*out) * ps->nerrs);
	for (i = 0; i < ps->nerrs; i++)
		out[i] = v[i]->e;
	return out;
}

static const char *empty_list[] = { NULL };

static void
config_defaults(struct config *c, const char *file)
{
	memset(c, 0, sizeof(*c));
	c->file = file;
	c->bot_address = "patchyard@localhost";
	c->command_prefix = "#yard";
	c->auth_require = CONF_AUTH_DKIM;
	c->smtp_starttls = CONF_TLS_REQUIRED;
	c->stage_on_conflict = CONF_CONFLICT_KEEP;
	c->test_timeout = 600;
	c->test_mode = CONF_TEST_STACK;
	c->test_on_failure = CONF_FAILURE_REPORT;
	c->test_jobs = 1;
	c->test_output_cap = 10 * 1024 * 1024;
	c->test_cpu = 3600;
	c->test_memory = 4 * GIB;
	c->test_files = 1024;
	c->test_processes = 256;
	c->test_sandbox = CONF_SANDBOX_BWRAP;
	c->run_upstream_interval = 3600;
	c->run_rebuild_delay = 10;
	c->run_send_interval = 60;
	c->run_gc_interval = WEEK;
	defaults_named(&sections[SEC_PROMOTE], &c->promote);
	c->mailmap.v = empty_list;
}

enum err
config_parse(struct arena *a, const char *file, const char *text, size_t n,
    struct config *out, struct config_error **errs, size_t *nerrs)
{
	struct parser ps;

	memset(&ps, 0, sizeof(ps));
	ps.a = a;
	ps.file = arena_strdup(a, file ? file : "(config)");
	ps.c = out;
	ps.itail = &ps.items;
	ps.hash = arena_zalloc(a, sizeof(*ps.hash) * HASH_SIZE);
	ps.l.p = text;
	ps.l.n = n;
	ps.l.line = 1;
	buf_init(&ps.tmp, 0);
	config_defaults(out, ps.file);
	if (n > LIMIT_CONFIG_SIZE) {
		perr(&ps, 0, "file is larger than %u bytes",
		    (unsigned)LIMIT_CONFIG_SIZE);
	} else {
		lex_file(&ps);
		check_file(&ps);
		lists_all(&ps);
		out->projects = collect(&ps, SEC_PROJECT, &out->nprojects);
		out->maintainers =
		    collect(&ps, SEC_MAINTAINER, &out->nmaintainers);
		out->trees = collect(&ps, SEC_TREE, &out->ntrees);
		out->cis = collect(&ps, SEC_CI, &out->ncis);
		out->sources = collect(&ps, SEC_SOURCE, &out->nsources);
		out->promotes = collect(&ps, SEC_PROMOTE, &out->npromotes);
	}
	buf_free(&ps.tmp);
	*errs = NULL;
	*nerrs = ps.nerrs;
	if (ps.nerrs == 0)
		return ERR_OK;
	*errs = errors_sorted(&ps);
	return ERR_CONFIG;
}

const struct conf_project *
config_project(const struct config *c, const char *name)
{
	size_t i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < c->nprojects; i++)
		if (strcmp(c->projects[i].name, name) == 0)
			return &c->projects[i];
	return NULL;
}

struct conf_promote
config_promote(const struct config *c, const char *name)
{
	struct conf_promote r = c->promote;
	size_t i, k;

	r.name = name;
	for (i = 0; name != NULL && i < c->npromotes; i++) {
		const struct conf_promote *p = &c->promotes[i];

		if (strcmp(p->name, name) != 0)
			continue;
		r.present = true;
		for (k = 0; k < sizeof(promote_keys) / sizeof(promote_keys[0]);
		     k++) {
			const struct key *key = &promote_keys[k];
			size_t n =
			    key->type == KT_BOOL ? sizeof(bool) : sizeof(int);

			if (p->set & (1u << k))
				memcpy((char *)&r + key->off,
				    (const char *)p + key->off, n);
		}
		r.set |= p->set;
	}
	return r;
}

/* A value as git-config reads it back: quoted when it must be. */
static void
write_value(struct buf *out, const char *v)
{
	size_t n = strlen(v);
	bool quote = n == 0 || v[0] == ' ' || v[0] == '\t' || v[n - 1] == ' ' ||
	    v[n - 1] == '\t' || strpbrk(v, "#;\"\\\n\t");

	if (!quote) {
		buf_adds(out, v);
		return;
	}
	buf_addc(out, '"');
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			buf_addc(out, '\\'), buf_addc(out, *v);
		else if (*v == '\n')
			buf_adds(out, "\\n");
		else if (*v == '\t')
			buf_adds(out, "\\t");
		else
			buf_addc(out, *v);
	}
	buf_addc(out, '"');
}

static void
write_size(struct buf *out, long long v)
{
	static const char suffix[] = "kMG";
	int i = -1;

	while (i < 2 && v != 0 && v % 1024 == 0)
		v /= 1024, i++;
	if (i >= 0)
		buf_addf(out, "%lld%c", v, suffix[i]);
	else
		buf_addf(out, "%lld", v);
}

/* One key of an object; prefix is "\t" or "#\t" for a section not given. */
static void
write_key(
    struct buf *out, const char *prefix, const struct key *k, const void *obj)
{
	const char *p = (const char *)obj + k->off;
	const struct conf_list *l;
	const char *s;
	size_t i;
	int v;

	switch (k->type) {
	case KT_STR:
		memcpy(&s, p, sizeof(s));
		if (s == NULL) {
			buf_addf(out, "%s# %s is not set\n", prefix, k->name);
			return;
		}
		buf_addf(out, "%s%s = ", prefix, k->name);
		write_value(out, s);
		break;
	case KT_LIST:
		l = (const struct conf_list *)(const void *)p;
		if (l->n == 0)
			buf_addf(out, "%s# %s is not set\n", prefix, k->name);
		for (i = 0; i < l->n; i++) {
			buf_addf(out, "%s%s = ", prefix, k->name);
			write_value(out, l->v[i]);
			buf_addc(out, '\n');
		}
		return;
	case KT_BOOL:
		buf_addf(out, "%s%s = %s", prefix, k->name,
		    *(const bool *)(const void *)p ? "true" : "false");
		break;
	case KT_INT:
		memcpy(&v, p, sizeof(v));
		buf_addf(out, "%s%s = %d", prefix, k->name, v);
		break;
	case KT_SIZE: {
		long long ll;

		memcpy(&ll, p, sizeof(ll));
		buf_addf(out, "%s%s = ", prefix, k->name);
		write_size(out, ll);
		break;
	}
	case KT_ENUM:
		memcpy(&v, p, sizeof(v));
		buf_addf(out, "%s%s = %s", prefix, k->name, k->enums[v]);
		break;
	}
	buf_addc(out, '\n');
}

/*
 * Keys that do not apply where they stand (starttls without an smtp://
 * URL, IMAP keys of other sources) are written as comments: reading
 * them would be an error.
 */
static bool
key_applies(const struct section *sec, const struct key *k, const void *obj)
{
	if (sec->id == SEC_SMTP && strcmp(k->name, "starttls") == 0) {
		const char *url = ((const struct config *)obj)->smtp_url;

		return url != NULL && ascii_strnicmp(url, "smtp://", 7) == 0;
	}
	if (sec->id == SEC_SOURCE &&
	    ((const struct conf_source *)obj)->imap == NULL)
		return !imap_only(k->name);
	return true;
}

static void
write_section(struct buf *out, const struct section *sec, const char *name,
    const void *obj, bool given)
{
	const char *prefix = given ? "\t" : "#\t";
	size_t i;

	if (!given && name == NULL)
		buf_addf(
		    out, "# [%s] is not given; its defaults:\n", sec->name);
	else if (!given)
		buf_addf(
		    out, "# no [%s] is given; the keys of one:\n", sec->name);
	buf_addf(out, "%s[%s", given ? "" : "# ", sec->name);
	if (name != NULL) {
		/* A subsection is always quoted; only " and \ escaped. */
		buf_adds(out, " \"");
		for (; *name; name++) {
			if (*name == '"' || *name == '\\')
				buf_addc(out, '\\');
			buf_addc(out, *name);
		}
		buf_addc(out, '"');
	}
	buf_adds(out, "]\n");
	for (i = 0; i < sec->nkeys; i++) {
		/* [promote "P"] overrides [promote] key by key: a key it
		 * does not give must stay unset, or it would hide the
		 * value of [promote] with the default. */
		if (sec->id == SEC_PROMOTE && name != NULL && given &&
		    !(((const struct conf_promote *)obj)->set & (1u << i))) {
			buf_addf(out, "\t# %s is taken from [promote]\n",
			    sec->keys[i].name);
			continue;
		}
		write_key(out,
		    key_applies(sec, &sec->keys[i], obj) ? prefix : "#\t",
		    &sec->keys[i], obj);
	}
}

/* The array of a named section's objects in a config, and its length. */
static const void *
named_objects(const struct config *c, enum secid id, size_t *n)
{
	switch (id) {
	case SEC_PROJECT:
		*n = c->nprojects;
		return c->projects;
	case SEC_MAINTAINER:
		*n = c->nmaintainers;
		return c->maintainers;
	case SEC_TREE:
		*n = c->ntrees;
		return c->trees;
	case SEC_CI:
		*n = c->ncis;
		return c->cis;
	case SEC_SOURCE:
		*n = c->nsources;
		return c->sources;
	case SEC_PROMOTE:
		*n = c->npromotes;
		return c->promotes;
	default:
		*n = 0;
		return NULL;
	}
}

/*
 * A kind of named section the file has none of: its keys with their
 * defaults, as comments, so that the output names every key there is
 * (an operator reads it as the list of what could be set).
 */
static void
write_skeleton(struct buf *out, const struct section *sec)
{
	void *obj = xcalloc(1, obj_size[sec->id]);

	defaults_named(sec, obj);
	write_section(out, sec, "NAME", obj, false);
	free(obj);
}

void
config_write(const struct config *c, struct buf *out)
{
	size_t s, i, n;

	for (s = 0; s < NSECTIONS; s++) {
		const struct section *sec = &sections[s];
		const char *arr;

		if (sec->named != NAME_REQUIRED) {
			if (sec->id == SEC_PROMOTE)
				write_section(out, sec, NULL, &c->promote,
				    c->promote.present);
			else
				write_section(out, sec, NULL, c, true);
		}
		if (sec->named == NAME_NONE)
			continue;
		arr = named_objects(c, sec->id, &n);
		if (n == 0 && sec->named == NAME_REQUIRED)
			write_skeleton(out, sec);
		for (i = 0; i < n; i++) {
			const void *obj = arr + i * obj_size[sec->id];

			write_section(
			    out, sec, *(const char *const *)obj, obj, true);
		}
	}
}
