/* patchyard: the command line (docs/DESIGN.md §12). */
#include <stdio.h>

#include "bot/cli/cli.h"
#include "util/fdio.h"

int
main(int argc, char **argv)
{
	if (fd_std_open() != 0) {
		/* No /dev/null: stderr may itself be closed; say it once. */
		(void)fputs("patchyard: /dev/null cannot be opened\n", stderr);
		return 1;
	}
	return cli_main(argc, argv);
}
