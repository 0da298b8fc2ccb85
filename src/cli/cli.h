/* Shared pieces of the cgslot command-line tool. */
#ifndef CGS_CLI_CLI_H
#define CGS_CLI_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cgslot/error.h"

struct cgs_atomic_file;
struct cgs_limits;

enum cgs_exit {
	CGS_EXIT_OK = 0,
	CGS_EXIT_INVALID = 1, /* invalid input or a failed check */
	CGS_EXIT_USAGE = 2,   /* bad command line */
	CGS_EXIT_SYSTEM = 3,  /* I/O or system error */
};

struct cgs_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const char *usage;  /* full --help text */
};

extern const struct cgs_command cgs_commands[];

/* Bytes in binary units, for people: "1.25 GiB" (below 1 KiB: "100 B"). */
const char *cgs_cli_human(uint64_t bytes, char *buf, size_t size);

/* The exit status for a library status code. */
int cgs_cli_exit_code(int status);

/* Print `cgslot: file:line:col: error: message` to stderr; return exit code. */
int cgs_cli_report(const struct cgs_error *err);

/* Print a usage error for `cmd` and return CGS_EXIT_USAGE. */
int cgs_cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The usage error for what getopt_long returned as `opt` ('?' or ':',
 * with opterr 0 and ':' leading the option string): "unknown option
 * '--x'" or "option '-o' needs a value", one line.  Returns
 * CGS_EXIT_USAGE.
 */
int cgs_cli_bad_option(const char *cmd, int opt, char *const *argv);

/* Print the command's --help text to stdout. */
int cgs_cli_help(const char *cmd);

/*
 * Flush stdout and check it for errors (a closed pipe, a full disk): the
 * last step of every command that printed.  Returns `code` when stdout is
 * fine, CGS_EXIT_SYSTEM otherwise.
 */
int cgs_cli_finish(int code);

/*
 * Handle a `--limit NAME=VALUE` option: parse into limits or print an
 * error.  Returns 0 or CGS_EXIT_USAGE.  (cli_stages.c)
 */
int cgs_cli_limit_option(const char *cmd, struct cgs_limits *limits,
			 const char *arg);



/*
 * Parse a decimal option value in [min, max]; on failure print a usage
 * error naming the option and return CGS_EXIT_USAGE, else 0.
 */
int cgs_cli_parse_u32(const char *cmd, const char *option, const char *arg,
		      unsigned long min, unsigned long max, unsigned *out);

/*
 * Planner progress on stderr ("planned 3 of 32 ranks and rings"), redrawn
 * in place once planning has taken a second, and only when stderr is a
 * terminal, so logs and pipes stay clean; --quiet turns it off.  With
 * --verbose the planner's time is noted when it is done.
 * cgs_cli_progress_options() installs it in plan options.  (cli_stages.c)
 */
struct cgs_plan_options;
void cgs_cli_progress_options(struct cgs_plan_options *opt);

/*
 * Planning threads when -j is not given: $CGSLOT_JOBS where set (1 to
 * 1024, else a usage error naming it), otherwise the processors this
 * process may run on (its affinity mask; the processors online where
 * that is unknown), at most 1024.  Returns 0 or CGS_EXIT_USAGE.
 */
int cgs_cli_default_jobs(const char *cmd, unsigned *jobs);

/*
 * The options every command has, handled here once:
 *   -q, --quiet    nothing on stdout or stderr but the requested output
 *                  and errors: no summaries, notes or progress
 *   -v, --verbose  notes on stderr (what was planned, how long it took)
 * cgs_cli_verbosity is -1 (quiet), 0 (default) or 1 (verbose); the last
 * of the two options given wins.
 */
extern int cgs_cli_verbosity;

/*
 * getopt_long() over the command's options plus --quiet and --verbose,
 * which it handles itself: it returns only the command's options (and
 * '?' or ':' for a bad one, -1 at the end), as getopt_long does.  It
 * silences getopt's own messages and reports a missing value as ':', so
 * every command words both through cgs_cli_bad_option().
 */
struct option;
int cgs_cli_getopt(int argc, char **argv, const char *shortopts,
		   const struct option *longopts);

/* Take a global -q/--quiet/-v/--verbose (before the command); 1 if it was. */
int cgs_cli_global_option(const char *arg);

/* A --verbose note on stderr, prefixed "cgslot: "; nothing otherwise. */
void cgs_cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A monotonic clock in seconds, for the notes. */
double cgs_cli_seconds(void);

/* Output formats of plan, report and dump. */
enum cgs_format {
	CGS_FORMAT_TEXT = 1u << 0,
	CGS_FORMAT_JSON = 1u << 1,
	CGS_FORMAT_TE_PLAN = 1u << 2,
};

/*
 * Parse a --format value among the `accepted` formats (a mask of enum
 * cgs_format); otherwise print a usage error listing them and return
 * CGS_EXIT_USAGE.
 */
int cgs_cli_parse_format(const char *cmd, const char *arg, unsigned accepted,
			 enum cgs_format *out);

/*
 * Where a command that writes an output file prints its summary: standard
 * error when the output itself is standard output, else standard output.
 * (cli_stages.c)
 */
FILE *cgs_cli_summary_stream(const struct cgs_atomic_file *af);

/*
 * Commit af once the summary printed on `sum` has reached it: a failed
 * stream aborts af, so no output replaces an earlier one.  `what` names
 * the output in the message ("manifest").  Returns 0 or a CGS_E_* code
 * with err set.  (cli_stages.c)
 */
int cgs_cli_commit_output(struct cgs_atomic_file *af, FILE *sum,
			  const char *what, struct cgs_error *err);

#endif
