/* Placeholder: replaced when the 'check' command lands. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"

int cgs_cmd_check(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "cgslot check: not built yet\n");
	return CGS_EXIT_SYSTEM;
}
