/*
 * The cgslot of a runtime-only build (meson -Druntime_only=true): the
 * replay self-test alone, for GPU machines that lack the compiler's
 * dependencies (libyaml, jansson).  Manifests are compiled elsewhere.
 */
#include <stdio.h>
#include <string.h>

#include "cgs_version.h"
#include "cli/cli.h"
#include "cli/commands.h"

const struct cgs_command cgs_commands[] = {
	{"replay", cgs_cmd_replay, "capture and replay a manifest on the GPU",
	 CGS_REPLAY_USAGE},
	{NULL, NULL, NULL, NULL},
};

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("cgslot %s (runtime-only build)\n", CGS_VERSION_STRING);
		return cgs_cli_finish(CGS_EXIT_OK);
	}
	if (argc >= 2 && strcmp(argv[1], "replay") == 0)
		return cgs_cmd_replay(argc - 1, argv + 1);
	fprintf(stderr,
		"usage: cgslot replay MANIFEST [options]\n"
		"This runtime-only build has the replay command alone; see 'cgslot replay --help'.\n");
	return CGS_EXIT_USAGE;
}
