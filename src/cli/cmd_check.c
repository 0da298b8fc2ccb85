/*
 * cgslot check: validate schedule files, every capture order they imply
 * and everything compile would check, planning included; write nothing.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "common/error.h"
#include "input/schedule.h"
#include "order/schedule_load.h"
#include "order/order.h"
#include "order/rank_orders.h"
#include "manifest/manifest.h"
#include "manifest/writer.h"
#include "plan/plan.h"

_Static_assert(CGS_LIMIT_FRAMES_MAX == CGS_PLAN_MAX_FRAMES,
	       "--limit frames may not exceed what the planner handles");

/*
 * Explicit orders are checked while loading; the generated ones are
 * checked here too, so a fault in generation cannot pass unnoticed.
 */
static int check_orders(const struct cgs_schedule *s, struct cgs_error *err)
{
	struct cgs_rank_orders ro;
	uint32_t r, i;
	int rc = 0;

	for (r = 0; r < s->n_ranks && !rc; r++) {
		rc = cgs_rank_orders_init(&ro, s, s->ranks[r], err);
		if (rc)
			break;
		for (i = 0; i < ro.n_reachable && !rc; i++) {
			uint64_t start = ro.order_start[i];
			struct cgs_error local = {0};

			if (cgs_order_check(ro.entries + start,
					    ro.order_start[i + 1] - start,
					    s->vpp, ro.reachable[i], NULL,
					    &local))
				rc = cgs_error_at(err, local.code, s->path, 0, 0,
						  "the order of rank %u for %u "
						  "microbatches: %s", ro.rank,
						  ro.reachable[i], local.message);
		}
		cgs_rank_orders_release(&ro);
	}
	return rc;
}

/*
 * Everything compile does short of writing: plan with the same options,
 * serialise, and open the result with the reader, so that a schedule
 * check passes is one compile accepts.
 */
static int check_plan(const struct cgs_schedule *s,
		      const struct cgs_limits *limits, unsigned threads,
		      struct cgs_error *err)
{
	struct cgs_plan_options opt;
	struct cgs_plan *plan = NULL;
	struct cgs_manifest *m = NULL;
	void *buf = NULL;
	size_t len = 0;
	int rc;

	cgs_plan_options_init(&opt);
	/* at the planner's own ceiling, its message says more */
	opt.max_frames = limits->frames < CGS_PLAN_MAX_FRAMES ? limits->frames : 0;
	opt.threads = threads;
	rc = cgs_plan_create(s, &opt, &plan, err);
	if (!rc)
		rc = cgs_manifest_write(plan, cgs_schedule_hash(s), &buf, &len,
					err);
	if (!rc && (rc = cgs_manifest_open_buffer(buf, len, &m, err))) {
		char msg[CGS_ERROR_MESSAGE_MAX];

		snprintf(msg, sizeof(msg), "%s", err->message);
		cgs_error_clear(err);
		cgs_error_at(err, rc, s->path, 0, 0,
			     "internal error: the planned manifest does not validate (%s)",
			     msg);
	}
	cgs_manifest_close(&m);
	free(buf);
	cgs_plan_destroy(&plan);
	return rc;
}

static int check_file(const char *path, const struct cgs_limits *limits,
		      unsigned threads)
{
	struct cgs_error err = {0};
	struct cgs_schedule *s = NULL;
	int rc;

	rc = cgs_schedule_load(path, limits, &s, &err);
	if (!rc)
		rc = check_orders(s, &err);
	if (!rc)
		rc = check_plan(s, limits, threads, &err);
	cgs_schedule_destroy(&s);
	return rc ? cgs_cli_report(&err) : CGS_EXIT_OK;
}

int cgs_cmd_check(int argc, char **argv)
{
	enum { OPT_LIMIT = 256 };
	static const struct option options[] = {
		{"limit", required_argument, NULL, OPT_LIMIT},
		{"jobs", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cgs_limits limits;
	unsigned threads = 0;
	int opt, rc, status = CGS_EXIT_OK;

	cgs_limits_init(&limits);
	optind = 1;
	while ((opt = cgs_cli_getopt(argc, argv, "j:h", options)) != -1) {
		switch (opt) {
		case 'j':
			rc = cgs_cli_parse_u32("check", "--jobs", optarg, 1, 1024,
					       &threads);
			if (rc)
				return rc;
			break;
		case OPT_LIMIT:
			rc = cgs_cli_limit_option("check", &limits, optarg);
			if (rc)
				return rc;
			break;
		case 'h':
			return cgs_cli_help("check");
		default:
			return cgs_cli_bad_option("check", opt, argv);
		}
	}
	if (optind >= argc)
		return cgs_cli_usage_error("check", "expected SCHEDULE...");
	if (threads == 0 && (rc = cgs_cli_default_jobs("check", &threads)))
		return rc;
	/* check every file even after a failure; the worst status wins */
	for (; optind < argc; optind++) {
		rc = check_file(argv[optind], &limits, threads);
		if (rc > status)
			status = rc;
	}
	return cgs_cli_finish(status);
}
