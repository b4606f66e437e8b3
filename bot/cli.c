#include "bot/cli.h"

#include <stdio.h>
#include <string.h>

int
cli_main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: patchyard [-c bot.conf] COMMAND ...\n");
		return 2;
	}
	fprintf(stderr, "patchyard: unknown command '%s'\n", argv[1]);
	return 2;
}
