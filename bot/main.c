/* patchyard: the command line (DESIGN.md §12). */
#include <stdio.h>

#include "bot/cli/cli.h"

int
main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
