/* cgslot check: validate schedule files and every capture order they imply. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "common/error.h"
#include "input/schedule.h"
#include "order/order.h"
#include "order/rank_orders.h"

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

static int check_file(const char *path, const struct cgs_limits *limits)
{
	struct cgs_error err = {0};
	struct cgs_schedule *s = NULL;
	int rc;

	rc = cgs_schedule_load(path, limits, &s, &err);
	if (!rc)
		rc = check_orders(s, &err);
	cgs_schedule_destroy(&s);
	return rc ? cgs_cli_report(&err) : CGS_EXIT_OK;
}

int cgs_cmd_check(int argc, char **argv)
{
	enum { OPT_LIMIT = 256 };
	static const struct option options[] = {
		{"limit", required_argument, NULL, OPT_LIMIT},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cgs_limits limits;
	int opt, rc, status = CGS_EXIT_OK;

	cgs_limits_init(&limits);
	optind = 1;
	opterr = 0;
	while ((opt = cgs_cli_getopt(argc, argv, ":h", options)) != -1) {
		switch (opt) {
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
	/* check every file even after a failure; the worst status wins */
	for (; optind < argc; optind++) {
		rc = check_file(argv[optind], &limits);
		if (rc > status)
			status = rc;
	}
	return cgs_cli_finish(status);
}
