#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"

int cgs_cli_exit_code(int status)
{
	switch (status) {
	case CGS_OK:
		return CGS_EXIT_OK;
	case CGS_E_ARG:
		return CGS_EXIT_USAGE;
	case CGS_E_NOMEM:
	case CGS_E_IO:
	case CGS_E_CUDA:
	case CGS_E_CUDA_FATAL:
	case CGS_E_NODEVICE:
		return CGS_EXIT_SYSTEM;
	default:
		return CGS_EXIT_INVALID;
	}
}

int cgs_cli_report(const struct cgs_error *err)
{
	char buf[CGS_ERROR_FILE_MAX + CGS_ERROR_MESSAGE_MAX + 64];

	fflush(stdout);
	fprintf(stderr, "cgslot: %s\n", cgs_error_format(err, buf, sizeof(buf)));
	return cgs_cli_exit_code(err->code);
}

int cgs_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "cgslot %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'cgslot %s --help'.\n", cmd);
	return CGS_EXIT_USAGE;
}

/* The refused option as written, worded by cgs_cli_getopt. */
static char bad_name[64];
static int bad_takes_no_value;

int cgs_cli_bad_option(const char *cmd, int opt, char *const *argv)
{
	(void)argv;
	if (opt == ':')
		return cgs_cli_usage_error(cmd, "option '%s' needs a value",
					   bad_name);
	if (bad_takes_no_value)
		return cgs_cli_usage_error(cmd, "option '%s' takes no value",
					   bad_name);
	return cgs_cli_usage_error(cmd, "unknown option '%s'", bad_name);
}

/*
 * Word the option getopt refused: --long as written (without =VALUE), or
 * -c.  getopt sets optopt to 0 for an unknown long option, to the
 * option's value for a known long one given a value it takes none of or
 * missing its value, and to the character for a short one.  A long
 * option always advances optind past itself; a short one inside a
 * cluster ("-Xq") leaves optind where it was, so argv[optind - 1] can be
 * an earlier long option: it is the refused one only if it is long and
 * names an option with that value.
 */
static void word_bad_option(char **argv, const struct option *longopts)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	size_t len = strcspn(arg, "=");
	const struct option *o;

	bad_takes_no_value = 0;
	if (strncmp(arg, "--", 2) == 0 && optopt == 0) {
		snprintf(bad_name, sizeof(bad_name), "%.*s", (int)len, arg);
		return;
	}
	if (strncmp(arg, "--", 2) == 0)
		for (o = longopts; o->name; o++)
			if (o->val == optopt && len > 2 &&
			    strncmp(o->name, arg + 2, len - 2) == 0) {
				snprintf(bad_name, sizeof(bad_name), "%.*s",
					 (int)len, arg);
				bad_takes_no_value = arg[len] == '=' &&
						     o->has_arg == no_argument;
				return;
			}
	if (optopt > 0 && optopt < 128)
		snprintf(bad_name, sizeof(bad_name), "-%c", optopt);
	else
		snprintf(bad_name, sizeof(bad_name), "%s", arg);
}

int cgs_cli_help(const char *cmd)
{
	const struct cgs_command *c;

	if (strcmp(cmd, "help") == 0) {
		fputs("usage: cgslot help [COMMAND]\n"
		      "\n"
		      "Describe COMMAND (the same text as 'cgslot COMMAND --help'), or\n"
		      "without one, list the commands ('cgslot --help').\n", stdout);
		return cgs_cli_finish(CGS_EXIT_OK);
	}

	for (c = cgs_commands; c->name; c++) {
		if (strcmp(c->name, cmd) == 0) {
			fputs(c->usage, stdout);
			fputs("\n"
			      "  -q, --quiet        print only the requested output and errors\n"
			      "                     (no summary, notes or progress)\n"
			      "  -v, --verbose      notes on stderr: what was done, how long it took\n"
			      "  -h, --help         this text\n", stdout);
			return cgs_cli_finish(CGS_EXIT_OK);
		}
	}
	fprintf(stderr, "cgslot: '%s' is not a cgslot command; see 'cgslot --help'\n",
		cmd);
	return CGS_EXIT_USAGE;
}

int cgs_cli_finish(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cgslot: error: cannot write standard output: %s\n",
			strerror(errno));
		return CGS_EXIT_SYSTEM;
	}
	return code;
}

int cgs_cli_parse_u32(const char *cmd, const char *option, const char *arg,
		      unsigned long min, unsigned long max, unsigned *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (!arg || !*arg || *arg == '-' || *arg == '+')
		goto bad;
	v = strtoull(arg, &end, 10);
	if (errno || *end || v < min || v > max)
		goto bad;
	*out = (unsigned)v;
	return 0;
bad:
	return cgs_cli_usage_error(cmd, "%s '%s' is not an integer in %lu..%lu",
				   option, arg ? arg : "", min, max);
}

int cgs_cli_verbosity;

int cgs_cli_getopt(int argc, char **argv, const char *shortopts,
		   const struct option *longopts)
{
	static struct option merged[64];
	static char shorts[64];
	size_t n = 0;
	int opt;

	/* The command's options first, then the ones every command has. */
	while (longopts[n].name && n < sizeof(merged) / sizeof(merged[0]) - 3) {
		merged[n] = longopts[n];
		n++;
	}
	merged[n++] = (struct option){"quiet", no_argument, NULL, 'q'};
	merged[n++] = (struct option){"verbose", no_argument, NULL, 'v'};
	merged[n] = (struct option){NULL, 0, NULL, 0};
	/* a leading ':' makes getopt return ':' for a missing value, which
	 * cgs_cli_bad_option words; the commands print every message */
	snprintf(shorts, sizeof(shorts), "%s%sqv",
		 shortopts[0] == ':' ? "" : ":", shortopts);
	opterr = 0;
	for (;;) {
		opt = getopt_long(argc, argv, shorts, merged, NULL);
		if (opt == '?' || opt == ':')
			word_bad_option(argv, merged);
		if (opt == 'q')
			cgs_cli_verbosity = -1;
		else if (opt == 'v')
			cgs_cli_verbosity = 1;
		else
			return opt;
	}
}

int cgs_cli_global_option(const char *arg)
{
	if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0)
		cgs_cli_verbosity = -1;
	else if (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0)
		cgs_cli_verbosity = 1;
	else
		return 0;
	return 1;
}

void cgs_cli_note(const char *fmt, ...)
{
	va_list ap;

	if (cgs_cli_verbosity < 1)
		return;
	fflush(stdout);
	fputs("cgslot: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

double cgs_cli_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cgs_cli_parse_format(const char *cmd, const char *arg, unsigned accepted,
			 enum cgs_format *out)
{
	static const struct {
		const char *name;
		enum cgs_format format;
	} formats[] = {
		{"text", CGS_FORMAT_TEXT},
		{"json", CGS_FORMAT_JSON},
		{"te-plan", CGS_FORMAT_TE_PLAN},
	};
	char list[64] = "";
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (!(accepted & formats[i].format))
			continue;
		if (strcmp(arg, formats[i].name) == 0) {
			*out = formats[i].format;
			return 0;
		}
		if (list[0])
			strcat(list, ", ");
		strcat(list, formats[i].name);
	}
	return cgs_cli_usage_error(cmd, "--format '%s' is not known; accepted: %s",
				   arg, list);
}

const char *cgs_cli_human(uint64_t bytes, char *buf, size_t size)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB",
					   "PiB", "EiB"};
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 6) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%" PRIu64 " B", bytes);
	else
		snprintf(buf, size, "%.2f %s", v, unit[u]);
	return buf;
}
