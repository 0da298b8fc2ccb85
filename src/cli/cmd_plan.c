/* Placeholder: replaced when the 'plan' command lands. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"

int cgs_cmd_plan(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cgslot plan: not built yet\n");
	return CGS_EXIT_SYSTEM;
}
