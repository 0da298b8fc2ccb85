/* Placeholder: replaced when the 'report' command lands. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"

int cgs_cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cgslot report: not built yet\n");
	return CGS_EXIT_SYSTEM;
}
