/*
 * Command-line pieces that reach into the compiler's stages: the --limit
 * option (input) and planner progress (plan).  Apart from cli.c so that
 * the runtime-only cgslot links no compiler stage.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <unistd.h>

#include "common/error.h"
#include "input/limits.h"
#include "plan/plan.h"

int cgs_cli_limit_option(const char *cmd, struct cgs_limits *limits,
			 const char *arg)
{
	struct cgs_error err = {0};

	if (cgs_limits_set(limits, arg, &err) != 0)
		return cgs_cli_usage_error(cmd, "%s", err.message);
	return 0;
}

static void print_progress(void *user, uint32_t done, uint32_t total)
{
	(void)user;
	/* \r redraws the line; the last call clears it for what follows */
	if (done < total)
		fprintf(stderr, "\rcgslot: planned %u of %u ranks and rings",
			done, total);
	else
		fprintf(stderr, "\r\033[K");
	fflush(stderr);
}

unsigned cgs_cli_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 1024 ? 1024 : (unsigned)n;
}

void cgs_cli_progress_options(struct cgs_plan_options *opt)
{
	if (isatty(STDERR_FILENO)) {
		opt->progress = print_progress;
		opt->progress_user = NULL;
	}
}
