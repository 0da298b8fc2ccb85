/*
 * Command-line pieces that reach into the compiler's stages: the --limit
 * option (input), planner progress (plan) and committing an output file
 * after its summary (atomic_file).  Apart from cli.c so that
 * the runtime-only cgslot links no compiler stage.
 */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#include "cli/cli.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/atomic_file.h"
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

/* Show progress only once planning has taken this long (seconds). */
#define PROGRESS_DELAY 1.0

struct progress {
	double start;
	int tty;       /* stderr is a terminal: redraw one line */
	int shown;     /* a progress line is on the screen */
};

static struct progress progress_state;

static void print_progress(void *user, uint32_t done, uint32_t total)
{
	struct progress *pr = user;
	double spent = cgs_cli_seconds() - pr->start;

	if (done >= total) {
		/* Clear the line for what follows. */
		if (pr->shown)
			fputs("\r\033[K", stderr);
		pr->shown = 0;
		cgs_cli_note("planning done: %u ranks and rings in %.2f s", total,
			     spent);
		fflush(stderr);
		return;
	}
	if (!pr->tty || spent < PROGRESS_DELAY)
		return;
	/* \r redraws the line in place. */
	fprintf(stderr, "\rcgslot: planned %u of %u ranks and rings (%.0f s)",
		done, total, spent);
	fflush(stderr);
	pr->shown = 1;
}

int cgs_cli_default_jobs(const char *cmd, unsigned *jobs)
{
	const char *env = getenv("CGSLOT_JOBS");
	long n = 0;

	if (env && *env)
		return cgs_cli_parse_u32(cmd, "CGSLOT_JOBS", env, 1, 1024,
					 jobs);
#if defined(__linux__)
	{
		/* taskset, cgroups and launchers that bind a rank's cores */
		cpu_set_t set;

		if (sched_getaffinity(0, sizeof(set), &set) == 0)
			n = CPU_COUNT(&set);
	}
#endif
	if (n < 1)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	*jobs = n < 1 ? 1 : n > 1024 ? 1024 : (unsigned)n;
	return 0;
}

void cgs_cli_progress_options(struct cgs_plan_options *opt)
{
	progress_state.start = cgs_cli_seconds();
	progress_state.tty = cgs_cli_verbosity >= 0 && isatty(STDERR_FILENO);
	progress_state.shown = 0;
	if (progress_state.tty || cgs_cli_verbosity > 0) {
		opt->progress = print_progress;
		opt->progress_user = &progress_state;
	}
}

FILE *cgs_cli_summary_stream(const struct cgs_atomic_file *af)
{
	return af->stdio_fd == STDOUT_FILENO ? stderr : stdout;
}

int cgs_cli_commit_output(struct cgs_atomic_file *af, FILE *sum,
			  const char *what, struct cgs_error *err)
{
	if (fflush(sum) != 0 || ferror(sum)) {
		int rc = cgs_error_set(err, CGS_E_IO,
				       "cannot write standard output: %s; the %s was not written",
				       strerror(errno), what);

		cgs_atomic_file_abort(af);
		return rc;
	}
	return cgs_atomic_file_commit(af, err);
}
