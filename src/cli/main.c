/* cgslot: the command-line front end.  One cmd_<name>.c per subcommand. */
#include <stdio.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cgs_version.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/nearest.h"

const struct cgs_command cgs_commands[] = {
	{"check", cgs_cmd_check, "validate schedules: everything compile checks",
	 CGS_CHECK_USAGE},
	{"orders", cgs_cmd_orders, "print capture orders",
	 CGS_ORDERS_USAGE},
	{"plan", cgs_cmd_plan, "plan slots, colours and offsets; print the plan",
	 CGS_PLAN_USAGE},
	{"compile", cgs_cmd_compile, "write a binary slot manifest",
	 CGS_COMPILE_USAGE},
	{"report", cgs_cmd_report, "print the memory report of a manifest",
	 CGS_REPORT_USAGE},
	{"dump", cgs_cmd_dump, "print every section of a manifest",
	 CGS_DUMP_USAGE},
	{"verify", cgs_cmd_verify, "prove that no two live frames share bytes",
	 CGS_VERIFY_USAGE},
	{"plot", cgs_cmd_plot, "draw a manifest's plan as an SVG picture",
	 CGS_PLOT_USAGE},
	{"replay", cgs_cmd_replay, "capture and replay a manifest on the GPU",
	 CGS_REPLAY_USAGE},
	{"pack", cgs_cmd_pack, "place buffers with lifetimes at offsets (CSV)",
	 CGS_PACK_USAGE},
	{NULL, NULL, NULL, NULL},
};

/* Refuse an unknown command, naming the closest one when it is close. */
static int unknown_command(const char *name)
{
	const char *names[sizeof(cgs_commands) / sizeof(cgs_commands[0])];
	const struct cgs_command *c;
	const char *best;
	size_t n = 0;

	/* the table ends with a NULL name, which ends the list too */
	for (c = cgs_commands; c->name; c++)
		names[n++] = c->name;
	names[n] = NULL;
	best = cgs_nearest(name, strlen(name), names, 2);
	if (best)
		fprintf(stderr, "cgslot: '%s' is not a cgslot command; did you mean '%s'?\n",
			name, best);
	else
		fprintf(stderr, "cgslot: '%s' is not a cgslot command; see 'cgslot --help'\n",
			name);
	return CGS_EXIT_USAGE;
}

static void print_main_help(FILE *out)
{
	const struct cgs_command *c;

	fputs("usage: cgslot [--version] [--help] [-q|-v] <command> [<args>]\n"
	      "\n"
	      "cgslot compiles the CUDA-graph capture orders of a pipeline-parallel,\n"
	      "dynamic context-parallel training schedule into a slot manifest.\n"
	      "\n"
	      "commands:\n", out);
	for (c = cgs_commands; c->name; c++)
		fprintf(out, "  %-9s %s\n", c->name, c->summary);
	fputs("\n"
	      "'cgslot help <command>' or 'cgslot <command> --help' describes one.\n"
	      "Every command takes -q (--quiet) and -v (--verbose), also before it.\n"
	      "Exit status: 0 ok, 1 invalid input or failed check, 2 usage,\n"
	      "3 I/O or system error.\n", out);
}

/* Run a command; with --verbose, note how long it took. */
static int run(const struct cgs_command *c, int argc, char **argv)
{
	double start = cgs_cli_seconds();
	int code = c->run(argc, argv);

	cgs_cli_note("%s: exit %d after %.3f s", c->name, code,
		     cgs_cli_seconds() - start);
	return code;
}

/*
 * The planner's threads take blocks of a few hundred KiB to a few MiB for
 * each rank and ring (conflict matrices, colourings, role ranges) and give
 * them back when it is planned.  glibc serves blocks past its mmap
 * threshold from mmap and unmaps them on free, so every rank faults its
 * pages in afresh, and every unmap stops the other planning threads'
 * processors to flush their address caches: on P 32, M 8, L 2048
 * (tools/bench), with the orders already in huge pages, keeping the
 * blocks took about 40% off the planning time.  Kept in the heap, they
 * are reused rank after rank.  The process is short-lived and its peak
 * is reached anyway, so freed memory is not handed back before exit.
 */
static void keep_freed_memory(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
	(void)mallopt(M_MMAP_THRESHOLD, 32 << 20);   /* glibc's largest */
	(void)mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

int main(int argc, char **argv)
{
	const struct cgs_command *c;

	keep_freed_memory();

	/* -q and -v may come before the command too. */
	while (argc >= 2 && cgs_cli_global_option(argv[1])) {
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	if (argc < 2) {
		print_main_help(stderr);
		return CGS_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_main_help(stdout);
		return cgs_cli_finish(CGS_EXIT_OK);
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("cgslot %s\n", CGS_VERSION_STRING);
		return cgs_cli_finish(CGS_EXIT_OK);
	}
	if (strcmp(argv[1], "help") == 0) {
		if (argc < 3) {
			print_main_help(stdout);
			return cgs_cli_finish(CGS_EXIT_OK);
		}
		return cgs_cli_help(argv[2]);
	}
	for (c = cgs_commands; c->name; c++)
		if (strcmp(c->name, argv[1]) == 0)
			return run(c, argc - 1, argv + 1);
	return unknown_command(argv[1]);
}
