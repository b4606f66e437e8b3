/*
 * libFuzzer target for config_parse(): any bytes are a config file; the
 * parser must neither crash nor leak, and every error must name a line
 * inside the file.
 */
#include <stdint.h>
#include <stdlib.h>

#include "parsers/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena *a = arena_new();
	struct config c;
	struct config_error *errs;
	size_t nerrs, i, lines = 1;
	enum err rc;

	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	rc = config_parse(
	    a, "fuzz.conf", (const char *)data, size, &c, &errs, &nerrs);
	if ((rc == ERR_OK) != (nerrs == 0))
		abort();
	for (i = 0; i < nerrs; i++) {
		if (errs[i].line < 0 || (size_t)errs[i].line > lines ||
		    errs[i].msg == NULL || errs[i].msg[0] == '\0')
			abort();
		if (i > 0 && errs[i - 1].line > errs[i].line)
			abort();
	}
	if (rc == ERR_OK && (c.database == NULL || c.nprojects == 0))
		abort();
	arena_free(a);
	return 0;
}
