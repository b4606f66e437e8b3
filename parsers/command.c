/*
 * Command lines in a reply (docs/DESIGN.md §5).
 *
 * A command is a line of its own that starts with the prefix, exactly
 * (case matters: "#YARD" is prose), followed by a blank or the end of
 * the line: "#yardstage" is not a command.  Blanks (spaces, tabs, and
 * the no-break spaces some MUAs write) may come before the prefix, as
 * they may before a trailer in b4.  Lines are ignored when quoted
 * (first non-blank '>' or '|'), and reading stops at the signature
 * ("-- ") and at an Outlook-style "-----Original Message-----" or
 * underscore rule, below which a top-posted reply quotes its parent
 * without markers: a quoted transcript must never run its commands
 * again.
 *
 * Verbs are case-insensitive, arguments are checked here so that the
 * transcript can say at once what was wrong.  Drop reasons by mail are
 * those of docs/DESIGN.md §3 except "folded" (that is what "fold" does) and
 * "conflict" (the stager's policy decides it).
 */
#include "parsers/command.h"

#include <stdarg.h>
#include <string.h>

#include "parsers/limits.h"
#include "util/ascii.h"

/* Longest word quoted back in an error message. */
#define SHOW_MAX 64
/* A slug is at most 64 bytes (parsers/slug.h) plus a "-N" variant. */
#define SLUG_MAX 80
#define CONTEXT_MAX 64
#define URL_MAX 2048

const enum model_reason command_drop_reasons[] = { REASON_NACKED,
	REASON_TO_BE_UPDATED, REASON_WITHDRAWN, REASON_OBSOLETE,
	REASON_FAILURES, REASON_NONE };

/* The states "state" may set. */
static const enum model_state states[] = { STATE_NEW, STATE_CHANGES_REQUESTED,
	STATE_REJECTED };
static const char *const check_states[] = { "pending", "success", "warning",
	"fail", NULL };

static const struct {
	const char *name;
	enum command_verb verb;
} verbs[] = {
	{ "stage", CMD_STAGE },
	{ "drop", CMD_DROP },
	{ "graduate", CMD_GRADUATE },
	{ "fold", CMD_FOLD },
	{ "state", CMD_STATE },
	{ "retest", CMD_RETEST },
	{ "check", CMD_CHECK },
	{ "withdraw", CMD_WITHDRAW },
	{ "help", CMD_HELP },
	{ "forward", CMD_FORWARD },
};

#define MAX_WORDS 4

/* The words of a command after the prefix; rest[i] is the text from
 * word i to the end of the line (for drop's free words). */
struct words {
	struct str w[MAX_WORDS];
	struct str rest[MAX_WORDS];
	size_t n; /* words seen, up to MAX_WORDS + 1 meaning "more" */
};

/* Length of the blank at s (space, tab, U+00A0 in UTF-8), or 0. */
static size_t
blank_len(struct str s)
{
	if (s.n >= 1 && (s.p[0] == ' ' || s.p[0] == '\t'))
		return 1;
	if (s.n >= 2 && (unsigned char)s.p[0] == 0xc2 &&
	    (unsigned char)s.p[1] == 0xa0)
		return 2;
	return 0;
}

static struct str
skip_blanks(struct str s)
{
	size_t k;

	while ((k = blank_len(s)) > 0)
		s = str_skip(s, k);
	return s;
}

static struct str
trim_blanks(struct str s)
{
	s = skip_blanks(s);
	for (;;) {
		if (s.n >= 1 && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t'))
			s.n--;
		else if (s.n >= 2 && (unsigned char)s.p[s.n - 2] == 0xc2 &&
		    (unsigned char)s.p[s.n - 1] == 0xa0)
			s.n -= 2;
		else
			return s;
	}
}

static void
split_words(struct str s, struct words *w)
{
	size_t i;

	w->n = 0;
	s = trim_blanks(s);
	while (s.n > 0) {
		if (w->n == MAX_WORDS) {
			w->n++;
			return;
		}
		w->rest[w->n] = s;
		for (i = 0; i < s.n && blank_len(str_skip(s, i)) == 0; i++)
			;
		w->w[w->n++] = str_make(s.p, i);
		s = skip_blanks(str_skip(s, i));
	}
}

static const char *cat(struct arena *a, ...) __attribute__((sentinel));

/* A word quoted for a message: at most SHOW_MAX bytes, cut on a UTF-8
 * character boundary. */
static const char *
show(struct arena *a, struct str s)
{
	size_t n = s.n;

	if (n <= SHOW_MAX)
		return arena_strndup(a, s.p, n);
	n = SHOW_MAX;
	while (n > 0 && ((unsigned char)s.p[n] & 0xc0) == 0x80)
		n--;
	return cat(a, arena_strndup(a, s.p, n), "...", NULL);
}

static char *
lower(struct arena *a, struct str s)
{
	char *p = arena_strndup(a, s.p, s.n);

	ascii_lower(p, s.n);
	return p;
}

/* The canonical (listed) spelling of word, or NULL. */
static const char *
one_of(const char *const *list, struct str word)
{
	size_t i;

	for (i = 0; list[i]; i++)
		if (str_ieqs(word, list[i]))
			return list[i];
	return NULL;
}

/* word as the model spells its names (parsers/model.h): lower case;
 * NULL when it holds a NUL, which no name does. */
static const char *
as_name(struct arena *a, struct str word)
{
	return memchr(word.p, '\0', word.n) ? NULL : lower(a, word);
}

/* The names of command_drop_reasons, NULL-terminated, for join(). */
static const char *const *
drop_reason_names(struct arena *a)
{
	const char **v;
	size_t n = 0, i;

	while (command_drop_reasons[n] != REASON_NONE)
		n++;
	v = arena_alloc(a, (n + 1) * sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = model_reason_name(command_drop_reasons[i]);
	v[n] = NULL;
	return v;
}

/* The names of states, NULL-terminated, for join(). */
static const char *const *
state_names(struct arena *a)
{
	size_t n = sizeof(states) / sizeof(states[0]), i;
	const char **v = arena_alloc(a, (n + 1) * sizeof(*v));

	for (i = 0; i < n; i++)
		v[i] = model_state_name(states[i]);
	v[n] = NULL;
	return v;
}

static const char *
join(struct arena *a, const char *const *list)
{
	struct buf b;
	const char *s;
	size_t i;

	buf_init(&b, 0);
	for (i = 0; list[i]; i++) {
		if (i > 0)
			buf_adds(&b, list[i + 1] ? ", " : " or ");
		buf_adds(&b, list[i]);
	}
	s = arena_strdup(a, buf_cstr(&b));
	buf_free(&b);
	return s;
}

/* The strings up to NULL, concatenated into the arena. */
static const char *
cat(struct arena *a, ...)
{
	struct buf b;
	const char *s;
	va_list ap;

	buf_init(&b, 0);
	va_start(ap, a);
	while ((s = va_arg(ap, const char *)) != NULL)
		buf_adds(&b, s);
	va_end(ap);
	s = arena_strdup(a, buf_cstr(&b));
	buf_free(&b);
	return s;
}

static void
bad(struct command *c, const char *why)
{
	c->verb = CMD_BAD;
	c->arg = c->arg2 = c->arg3 = NULL;
	c->error = why;
}

static bool
slug_ok(struct str s)
{
	size_t i;

	if (s.n == 0 || s.n > SLUG_MAX || s.p[0] == '-')
		return false;
	for (i = 0; i < s.n; i++)
		if (!ascii_isalnum(s.p[i]) && s.p[i] != '-')
			return false;
	return true;
}

/* A check context names a CI job: "build", "ci/gcc-13", "kernelci.boot". */
static bool
context_ok(struct str s)
{
	size_t i;

	if (s.n == 0 || s.n > CONTEXT_MAX)
		return false;
	for (i = 0; i < s.n; i++)
		if (!ascii_isalnum(s.p[i]) && strchr("._/:+-", s.p[i]) == NULL)
			return false;
	return true;
}

static bool
url_ok(struct str s)
{
	size_t i;

	if (s.n > URL_MAX ||
	    !(str_istartswith(s, "https://") || str_istartswith(s, "http://")))
		return false;
	for (i = 0; i < s.n; i++)
		if ((unsigned char)s.p[i] < 0x21 || s.p[i] == 0x7f ||
		    s.p[i] == '<' || s.p[i] == '>' || s.p[i] == '"')
			return false;
	return s.n > strlen("https://");
}

static bool
drop_reason(enum model_reason r)
{
	size_t i;

	for (i = 0; command_drop_reasons[i] != REASON_NONE; i++)
		if (command_drop_reasons[i] == r)
			return true;
	return false;
}

static void
parse_drop(struct arena *a, struct command *c, const struct words *w)
{
	const char *name;
	enum model_reason r;

	if (w->n < 2) {
		bad(c,
		    cat(a, "drop needs a reason: ",
		        join(a, drop_reason_names(a)), NULL));
		return;
	}
	name = as_name(a, w->w[1]);
	if (name == NULL || !model_reason_parse(name, &r))
		r = REASON_NONE;
	if (drop_reason(r)) {
		c->arg = model_reason_name(r);
		c->reason = r;
		if (w->n > 2)
			c->arg2 = arena_strndup(a, w->rest[2].p, w->rest[2].n);
		return;
	}
	if (r == REASON_FOLDED)
		bad(c,
		    "'folded' is not given by hand: '#yard fold <slug>' "
		    "folds a patch");
	else if (r == REASON_CONFLICT)
		bad(c,
		    "'conflict' is not given by hand: the bot drops a "
		    "patch that no longer applies when configured to");
	else
		bad(c,
		    cat(a, "unknown drop reason '", show(a, w->w[1]), "': use ",
		        join(a, drop_reason_names(a)), NULL));
}

static void
parse_fold(struct arena *a, struct command *c, const struct words *w)
{
	struct str slug;

	if (w->n != 2) {
		bad(c,
		    "fold needs exactly one word: the slug of the staged "
		    "patch to fold into, e.g. '#yard fold mm-fix-foo'");
		return;
	}
	slug = w->w[1];
	if (str_endswith(slug, ".patch"))
		slug.n -= strlen(".patch");
	if (!slug_ok(slug)) {
		bad(c,
		    cat(a, "'", show(a, w->w[1]),
		        "' is not a patch slug (letters, digits and '-')",
		        NULL));
		return;
	}
	c->arg = lower(a, slug);
}

static void
parse_state(struct arena *a, struct command *c, const struct words *w)
{
	const char *name = w->n == 2 ? as_name(a, w->w[1]) : NULL;
	enum model_state st;
	size_t i;

	if (name && model_state_parse(name, &st))
		for (i = 0; i < sizeof(states) / sizeof(states[0]); i++)
			if (states[i] == st) {
				c->arg = model_state_name(st);
				c->state = st;
				return;
			}
	bad(c, cat(a, "state needs one of ", join(a, state_names(a)), NULL));
}

static void
parse_check(struct arena *a, struct command *c, const struct words *w)
{
	if (w->n < 3 || w->n > 4) {
		bad(c,
		    "check needs a context, a state and optionally a URL: "
		    "'#yard check build success https://ci.example.org/1'");
		return;
	}
	if (!context_ok(w->w[1])) {
		bad(c,
		    cat(a, "'", show(a, w->w[1]),
		        "' is not a check context (letters, digits and "
		        "._/:+- up to 64 bytes)",
		        NULL));
		return;
	}
	c->arg = arena_strndup(a, w->w[1].p, w->w[1].n);
	c->arg2 = one_of(check_states, w->w[2]);
	if (c->arg2 == NULL) {
		bad(c,
		    cat(a, "unknown check state '", show(a, w->w[2]), "': use ",
		        join(a, check_states), NULL));
		return;
	}
	if (w->n == 4) {
		if (!url_ok(w->w[3])) {
			bad(c,
			    cat(a, "'", show(a, w->w[3]),
			        "' is not an http:// or https:// URL", NULL));
			return;
		}
		c->arg3 = arena_strndup(a, w->w[3].p, w->w[3].n);
	}
}

/* Fill c from the words after the prefix. */
static void
parse_words(struct arena *a, struct command *c, const struct words *w)
{
	size_t i;

	if (w->n == 0) {
		bad(c, "no command after the prefix; 'help' lists them");
		return;
	}
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (str_ieqs(w->w[0], verbs[i].name))
			break;
	if (i == sizeof(verbs) / sizeof(verbs[0])) {
		bad(c,
		    cat(a, "unknown command '", show(a, w->w[0]),
		        "'; 'help' lists the commands", NULL));
		return;
	}
	c->verb = verbs[i].verb;
	switch (c->verb) {
	case CMD_STAGE:
		if (w->n == 2 && str_ieqs(w->w[1], "series"))
			c->arg = "series";
		else if (w->n != 1)
			bad(c, "stage takes nothing, or 'series'");
		break;
	case CMD_DROP:
		parse_drop(a, c, w);
		break;
	case CMD_FOLD:
		parse_fold(a, c, w);
		break;
	case CMD_STATE:
		parse_state(a, c, w);
		break;
	case CMD_CHECK:
		parse_check(a, c, w);
		break;
	default:
		if (w->n != 1)
			bad(c,
			    cat(a, verbs[i].name, " takes no arguments", NULL));
		break;
	}
}

/* Below these lines a reply quotes its parent without '>' markers. */
static bool
is_quote_start(struct str line)
{
	size_t i;

	line = str_trim(line);
	if (str_ieqs(line, "-----Original Message-----"))
		return true;
	if (line.n < 10)
		return false;
	for (i = 0; i < line.n; i++)
		if (line.p[i] != '_')
			return false;
	return true;
}

/* The rest of line after the prefix when line is a command, else
 * STR_NULL. */
static struct str
command_rest(struct str line, const char *prefix, size_t plen)
{
	struct str t = skip_blanks(line), rest;

	if (t.n < plen || memcmp(t.p, prefix, plen) != 0)
		return STR_NULL;
	rest = str_skip(t, plen);
	if (rest.n > 0 && blank_len(rest) == 0)
		return STR_NULL;
	/* A non-NULL pointer even for "#yard" alone at the end of text. */
	return rest.p ? rest : str_make(t.p + plen, 0);
}

enum err
command_parse(struct arena *a, struct str text, const char *prefix,
    struct command **out, size_t *n)
{
	struct command *cmds;
	struct str rest = text, line, after;
	size_t plen, found = 0;
	struct words w;

	*out = NULL;
	*n = 0;
	if (prefix == NULL)
		prefix = "#yard";
	plen = strlen(prefix);
	if (plen == 0)
		return ERR_INVAL;
	/* A command's line holds the prefix; most mails hold none (the
	 * line by line reading below was 2% of an import's parsing). */
	if (text.n < plen || memmem(text.p, text.n, prefix, plen) == NULL)
		return ERR_OK;
	cmds = arena_zalloc(a, sizeof(*cmds) * (LIMIT_COMMANDS + 1));
	while (str_nextline(&rest, &line)) {
		struct str t = skip_blanks(line);
		struct command *c;

		if (str_eqs(line, "-- ") || is_quote_start(line))
			break;
		if (t.n > 0 && (t.p[0] == '>' || t.p[0] == '|'))
			continue;
		after = command_rest(line, prefix, plen);
		if (after.p == NULL)
			continue;
		c = &cmds[found++];
		t = trim_blanks(t);
		c->line = arena_strndup(a, t.p, t.n);
		if (found > LIMIT_COMMANDS) {
			bad(c,
			    "too many commands in one mail: the first 32 "
			    "were read, the rest ignored");
			break;
		}
		split_words(after, &w);
		parse_words(a, c, &w);
	}
	*out = found ? cmds : NULL;
	*n = found;
	return ERR_OK;
}
