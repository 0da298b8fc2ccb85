/* cgslot plan: plan a schedule and print the plan; no manifest is written. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/report.h"
#include "common/error.h"
#include "input/schedule.h"
#include "plan/plan.h"

static int plan_file(const char *path, const struct cgs_limits *limits,
		     enum cgs_format format)
{
	struct cgs_error err = {0};
	struct cgs_schedule *s = NULL;
	struct cgs_plan *p = NULL;
	struct cgs_report *r = NULL;
	struct cgs_plan_options opt;
	int rc;

	cgs_plan_options_init(&opt);
	cgs_cli_progress_options(&opt);
	opt.max_frames = limits->frames;
	rc = cgs_schedule_load(path, limits, &s, &err);
	if (rc == 0)
		rc = cgs_plan_create(s, &opt, &p, &err);
	if (rc == 0)
		rc = cgs_report_from_plan(p, &r, &err);
	if (rc == 0) {
		if (format == CGS_FORMAT_JSON)
			rc = cgs_report_print_json(stdout, r);
		else if (format == CGS_FORMAT_TE_PLAN)
			rc = cgs_report_print_te_plan(stdout, r);
		else
			rc = cgs_report_print_text(stdout, r);
		if (rc)
			cgs_error_set(&err, rc, "cannot write the plan to stdout");
	}
	cgs_report_destroy(&r);
	cgs_plan_destroy(&p);
	cgs_schedule_destroy(&s);
	return rc ? cgs_cli_report(&err) : cgs_cli_finish(CGS_EXIT_OK);
}

int cgs_cmd_plan(int argc, char **argv)
{
	enum { OPT_FORMAT = 256, OPT_LIMIT };
	static const struct option options[] = {
		{"format", required_argument, NULL, OPT_FORMAT},
		{"limit", required_argument, NULL, OPT_LIMIT},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	enum cgs_format format = CGS_FORMAT_TEXT;
	struct cgs_limits limits;
	int opt, rc = 0;

	cgs_limits_init(&limits);
	optind = 1;
	while ((opt = cgs_cli_getopt(argc, argv, "h", options)) != -1) {
		switch (opt) {
		case OPT_FORMAT:
			rc = cgs_cli_parse_format("plan", optarg,
						  CGS_FORMAT_TEXT | CGS_FORMAT_JSON |
						  CGS_FORMAT_TE_PLAN, &format);
			break;
		case OPT_LIMIT:
			rc = cgs_cli_limit_option("plan", &limits, optarg);
			break;
		case 'h':
			return cgs_cli_help("plan");
		default:
			return cgs_cli_usage_error("plan", "unknown option");
		}
		if (rc)
			return rc;
	}
	if (argc - optind != 1)
		return cgs_cli_usage_error("plan", "expected one SCHEDULE, got %d",
					   argc - optind);
	return plan_file(argv[optind], &limits, format);
}
