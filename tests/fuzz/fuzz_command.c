/*
 * libFuzzer target for command_parse(): any bytes are a reply body.  The
 * first byte picks the prefix, so custom prefixes are fuzzed too.  At
 * most LIMIT_COMMANDS + 1 commands come back, and each one is either
 * valid or carries its reason.
 */
#include <stdint.h>
#include <stdlib.h>

#include "parsers/command.h"
#include "parsers/limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const prefixes[] = { "#yard", "@bot", "!", "#" };
	struct arena *a = arena_new();
	struct command *cmds;
	const char *prefix = "#yard";
	size_t n, i;

	if (size > 0) {
		prefix = prefixes[data[0] % 4];
		data++;
		size--;
	}
	if (command_parse(a, str_make((const char *)data, size), prefix, &cmds,
	        &n) != ERR_OK)
		abort();
	if (n > LIMIT_COMMANDS + 1)
		abort();
	for (i = 0; i < n; i++) {
		if (cmds[i].line == NULL)
			abort();
		if ((cmds[i].verb == CMD_BAD) != (cmds[i].error != NULL))
			abort();
		if (cmds[i].verb == CMD_DROP || cmds[i].verb == CMD_FOLD ||
		    cmds[i].verb == CMD_STATE || cmds[i].verb == CMD_CHECK)
			if (cmds[i].arg == NULL)
				abort();
	}
	arena_free(a);
	return 0;
}
