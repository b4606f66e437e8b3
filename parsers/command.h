/*
 * Command lines in a reply (docs/DESIGN.md §5): a line of its own, outside
 * quoted text and before the signature, starting with the prefix
 * (default "#yard") followed by a blank or the end of the line.  Unknown
 * verbs and bad arguments are kept as errors for the transcript.
 * Canonical forms: verbs, drop reasons, states and check states lower
 * case; a fold slug lower case without ".patch".
 */
#ifndef PARSERS_COMMAND_H
#define PARSERS_COMMAND_H

#include <stddef.h>

#include "parsers/model.h"
#include "util/arena.h"
#include "util/buf.h"

enum command_verb {
	CMD_BAD, /* error says why */
	CMD_STAGE,
	CMD_DROP,
	CMD_GRADUATE,
	CMD_FOLD,
	CMD_STATE,
	CMD_RETEST,
	CMD_CHECK,
	CMD_WITHDRAW,
	CMD_HELP,
	CMD_FORWARD, /* the project's stable queue upstream (docs/DESIGN.md §6)
	              */
};

struct command {
	enum command_verb verb;
	const char *line; /* the whole line as written, trimmed */
	const char *arg; /* STAGE: "series" or NULL; DROP: reason; FOLD:
	                    slug; STATE: new state; CHECK: context */
	const char *arg2; /* DROP: the free words, or NULL; CHECK: state */
	const char *arg3; /* CHECK: URL, or NULL */
	enum model_reason reason; /* DROP: arg's */
	enum model_state state; /* STATE: arg's */
	const char *error; /* CMD_BAD: why, in English */
};

/* Commands of text (UTF-8, LF ends), in order; at most LIMIT_COMMANDS
 * (more are reported as one CMD_BAD). */
enum err command_parse(struct arena *a, struct str text, const char *prefix,
    struct command **out, size_t *n);

/* Drop reasons a command may give, up to REASON_NONE, for validation
 * and help: those of docs/DESIGN.md §3 but "folded" (set by fold) and
 * "conflict" (set by the stager's on-conflict policy). */
extern const enum model_reason command_drop_reasons[];

#endif
