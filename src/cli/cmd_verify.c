/* Placeholder: replaced when the 'verify' command lands. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"

int cgs_cmd_verify(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cgslot verify: not built yet\n");
	return CGS_EXIT_SYSTEM;
}
