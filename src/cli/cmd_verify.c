/*
 * cgslot verify MANIFEST [SCHEDULE]: prove, from the manifest alone, that
 * no two frames that can be live together share bytes; with SCHEDULE, also
 * that the manifest was compiled from it.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "common/error.h"
#include "input/limits.h"
#include "input/schedule.h"
#include "order/schedule_load.h"
#include "manifest/manifest.h"
#include "verify/verify.h"

static int verify(const char *manifest_path, const char *schedule_path,
		  const struct cgs_limits *limits, unsigned jobs, int quiet)
{
	struct cgs_error err = {0};
	struct cgs_manifest *m = NULL;
	struct cgs_schedule *s = NULL;
	struct cgs_verify_stats stats = {0};
	int rc;

	rc = cgs_manifest_open_file(manifest_path, &m, &err);
	if (rc == 0 && schedule_path) {
		rc = cgs_schedule_load(schedule_path, limits, &s, &err);
		if (rc == 0)
			rc = cgs_verify_manifest_schedule(m, s, &err);
	}
	if (rc == 0)
		rc = cgs_verify_manifest_jobs(m, jobs, &stats, &err);
	if (rc == 0 && !quiet)
		printf("%s: verified %" PRIu64 " ranks, %" PRIu64 " orders, %"
		       PRIu64 " events, %" PRIu64 " ranges, %" PRIu64
		       " frame pairs live together%s\n", manifest_path,
		       stats.ranks, stats.orders, stats.events, stats.ranges,
		       stats.pairs, schedule_path ? "; schedule matches" : "");
	cgs_schedule_destroy(&s);
	cgs_manifest_close(&m);
	if (rc) {
		/* Violations name no file of their own: they are the manifest's. */
		if (!err.file[0])
			snprintf(err.file, sizeof(err.file), "%s", manifest_path);
		return cgs_cli_report(&err);
	}
	return cgs_cli_finish(CGS_EXIT_OK);
}

int cgs_cmd_verify(int argc, char **argv)
{
	enum { OPT_LIMIT = 256 };
	static const struct option options[] = {
		{"limit", required_argument, NULL, OPT_LIMIT},
		{"jobs", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cgs_limits limits;
	unsigned jobs = 0;
	int opt, rc;

	cgs_limits_init(&limits);
	optind = 1;
	while ((opt = cgs_cli_getopt(argc, argv, "hj:", options)) != -1) {
		switch (opt) {
		case 'j':
			rc = cgs_cli_parse_u32("verify", "--jobs", optarg, 1,
					       1024, &jobs);
			if (rc)
				return rc;
			break;
		case OPT_LIMIT:
			rc = cgs_cli_limit_option("verify", &limits, optarg);
			if (rc)
				return rc;
			break;
		case 'h':
			return cgs_cli_help("verify");
		default:
			return cgs_cli_bad_option("verify", opt, argv);
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		return cgs_cli_usage_error("verify",
			"expected MANIFEST [SCHEDULE], got %d arguments",
			argc - optind);
	if (jobs == 0 && (rc = cgs_cli_default_jobs("verify", &jobs)) != 0)
		return rc;
	return verify(argv[optind], argc - optind == 2 ? argv[optind + 1] : NULL,
		      &limits, jobs, cgs_cli_verbosity < 0);
}
