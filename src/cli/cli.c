#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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

int cgs_cli_bad_option(const char *cmd, int opt, char *const *argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	char name[64];

	/* The option as written: --long (without =VALUE), or -c. */
	if (strncmp(arg, "--", 2) == 0)
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	else if (optopt > 0 && optopt < 128)
		snprintf(name, sizeof(name), "-%c", optopt);
	else
		snprintf(name, sizeof(name), "%s", arg);
	if (opt == ':')
		return cgs_cli_usage_error(cmd, "option '%s' needs a value", name);
	return cgs_cli_usage_error(cmd, "unknown option '%s'", name);
}

int cgs_cli_help(const char *cmd)
{
	const struct cgs_command *c;

	for (c = cgs_commands; c->name; c++) {
		if (strcmp(c->name, cmd) == 0) {
			fputs(c->usage, stdout);
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
