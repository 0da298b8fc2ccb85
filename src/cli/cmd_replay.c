/* Placeholder: replaced when the 'replay' command lands. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"

int cgs_cmd_replay(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cgslot replay: not built yet\n");
	return CGS_EXIT_SYSTEM;
}
