/* cgslot report: the memory report of a manifest, as `cgslot plan` prints it. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/report.h"
#include "common/error.h"
#include "manifest/manifest.h"

int cgs_cmd_report(int argc, char **argv)
{
	static const struct option options[] = {
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cgs_error err = {0};
	struct cgs_manifest *m = NULL;
	struct cgs_report *r = NULL;
	enum cgs_format format = CGS_FORMAT_TEXT;
	int opt, rc;

	optind = 1;
	while ((opt = cgs_cli_getopt(argc, argv, "f:h", options)) != -1) {
		switch (opt) {
		case 'f':
			rc = cgs_cli_parse_format("report", optarg,
						  CGS_FORMAT_TEXT | CGS_FORMAT_JSON,
						  &format);
			if (rc)
				return rc;
			break;
		case 'h':
			return cgs_cli_help("report");
		default:
			return cgs_cli_bad_option("report", opt, argv);
		}
	}
	if (argc - optind != 1)
		return cgs_cli_usage_error("report",
					   "expected one MANIFEST, got %d",
					   argc - optind);
	rc = cgs_manifest_open_file(argv[optind], &m, &err);
	if (rc == 0)
		rc = cgs_report_from_manifest(m, &r, &err);
	if (rc == 0) {
		rc = format == CGS_FORMAT_JSON
			     ? cgs_report_print_json(stdout, r)
			     : cgs_report_print_text(stdout, r);
		if (rc)
			cgs_error_set(&err, rc, "cannot print the report");
	}
	cgs_report_destroy(&r);
	cgs_manifest_close(&m);
	return rc ? cgs_cli_report(&err) : cgs_cli_finish(CGS_EXIT_OK);
}
