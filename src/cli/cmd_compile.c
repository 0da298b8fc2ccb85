/* Placeholder: replaced when the 'compile' command lands. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"

int cgs_cmd_compile(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cgslot compile: not built yet\n");
	return CGS_EXIT_SYSTEM;
}
