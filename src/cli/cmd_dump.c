/* Placeholder: replaced when the 'dump' command lands. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"

int cgs_cmd_dump(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cgslot dump: not built yet\n");
	return CGS_EXIT_SYSTEM;
}
