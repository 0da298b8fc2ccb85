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

static void print_entries(const int32_t *e, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		printf(i ? " %d" : "%d", (int)e[i]);
	putchar('\n');
}

/*
 * The limits a schedule is held to (cgslot(1), LIMITS), applied to the
 * flags before anything is allocated: each flag's own limit, then the
 * entries of the one order.  Returns 0 or CGS_E_LIMIT.
 */
static int check_limits(const struct cgs_order_params *p,
			const struct cgs_limits *limits, struct cgs_error *err)
{
	static const char *const flag[] = {"--pp", "--vpp", "--microbatches"};
	static const char *const name[] = {"pp", "vpp", "microbatches"};
	const uint64_t value[] = {p->pp, p->vpp, p->microbatches};
	const uint64_t limit[] = {limits->pp, limits->vpp, limits->microbatches};
	char what[128];
	uint64_t entries;
	size_t i;

	for (i = 0; i < sizeof(value) / sizeof(value[0]); i++) {
		if (value[i] <= limit[i])
			continue;
		snprintf(what, sizeof(what), "%s %llu", flag[i],
			 (unsigned long long)value[i]);
		return cgs_limit_error(err, NULL, 0, 0, name[i], limit[i], what);
	}
	entries = 2 * (uint64_t)p->microbatches * p->vpp;
	if (entries > limits->order_entries) {
		snprintf(what, sizeof(what),
			 "the order's entry count (2 x %u microbatches x %u chunks = %llu)",
			 p->microbatches, p->vpp, (unsigned long long)entries);
		return cgs_limit_error(err, NULL, 0, 0, "order_entries",
				       limits->order_entries, what);
	}
	return 0;
}

static int orders_from_params(const struct cgs_order_params *p,
			      const struct cgs_limits *limits)
{
	struct cgs_error err = {0};
	int32_t *entries;
	int rc;

	if (check_limits(p, limits, &err))
		return cgs_cli_report(&err);
	entries = malloc(cgs_order_length(p) * sizeof(*entries));
	if (!entries) {
		fprintf(stderr, "cgslot: error: out of memory\n");
		return CGS_EXIT_SYSTEM;
	}
	rc = cgs_order_generate(p, entries, &err);
	if (rc == 0)
		print_entries(entries, cgs_order_length(p));
	free(entries);
	return rc ? cgs_cli_report(&err) : cgs_cli_finish(CGS_EXIT_OK);
}

static int orders_from_schedule(const char *path,
				const struct cgs_limits *limits)
{
	struct cgs_error err = {0};
	struct cgs_schedule *s = NULL;
	struct cgs_rank_orders ro;
	uint32_t r, i;
	int rc;

	rc = cgs_schedule_load(path, limits, &s, &err);
	if (rc)
		return cgs_cli_report(&err);
	for (r = 0; r < s->n_ranks && rc == 0; r++) {
		rc = cgs_rank_orders_init(&ro, s, s->ranks[r], &err);
		if (rc)
			break;
		for (i = 0; i < ro.n_reachable; i++) {
			printf("rank %u microbatches %u: ", ro.rank,
			       ro.reachable[i]);
			print_entries(ro.entries + ro.order_start[i],
				      ro.order_start[i + 1] - ro.order_start[i]);
		}
		cgs_rank_orders_release(&ro);
	}
	cgs_schedule_destroy(&s);
	return rc ? cgs_cli_report(&err) : cgs_cli_finish(CGS_EXIT_OK);
}

int cgs_cmd_orders(int argc, char **argv)
{
	enum { OPT_PP = 256, OPT_VPP, OPT_GROUP, OPT_MB, OPT_RANK, OPT_LIMIT };
	static const struct option options[] = {
		{"pp", required_argument, NULL, OPT_PP},
		{"vpp", required_argument, NULL, OPT_VPP},
		{"group", required_argument, NULL, OPT_GROUP},
		{"microbatches", required_argument, NULL, OPT_MB},
		{"rank", required_argument, NULL, OPT_RANK},
		{"limit", required_argument, NULL, OPT_LIMIT},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cgs_order_params p = {.vpp = 1};
	unsigned have_pp = 0, have_mb = 0, have_rank = 0, have_group = 0;
	struct cgs_limits limits;
	int opt, rc = 0;

	cgs_limits_init(&limits);
	optind = 1;
	while ((opt = cgs_cli_getopt(argc, argv, "h", options)) != -1) {
		switch (opt) {
		case OPT_PP:
			rc = cgs_cli_parse_u32("orders", "--pp", optarg, 1,
					       UINT32_MAX, &p.pp);
			have_pp = 1;
			break;
		case OPT_VPP:
			rc = cgs_cli_parse_u32("orders", "--vpp", optarg, 1,
					       INT32_MAX, &p.vpp);
			break;
		case OPT_GROUP:
			rc = cgs_cli_parse_u32("orders", "--group", optarg, 1,
					       UINT32_MAX, &p.group);
			have_group = 1;
			break;
		case OPT_MB:
			rc = cgs_cli_parse_u32("orders", "--microbatches",
					       optarg, 1, UINT32_MAX,
					       &p.microbatches);
			have_mb = 1;
			break;
		case OPT_RANK:
			rc = cgs_cli_parse_u32("orders", "--rank", optarg, 0,
					       UINT32_MAX, &p.rank);
			have_rank = 1;
			break;
		case OPT_LIMIT:
			rc = cgs_cli_limit_option("orders", &limits, optarg);
			break;
		case 'h':
			return cgs_cli_help("orders");
		default:
			return cgs_cli_bad_option("orders", opt, argv);
		}
		if (rc)
			return rc;
	}
	if (optind < argc) {
		if (have_pp || have_mb || have_rank || have_group)
			return cgs_cli_usage_error("orders",
				"give either a SCHEDULE or --pp/--microbatches/--rank, not both");
		if (argc - optind > 1)
			return cgs_cli_usage_error("orders",
				"expected one SCHEDULE, got %d", argc - optind);
		return orders_from_schedule(argv[optind], &limits);
	}
	if (!have_pp || !have_mb || !have_rank)
		return cgs_cli_usage_error("orders",
			"--pp, --microbatches and --rank are required without a SCHEDULE");
	if (p.rank >= p.pp)
		return cgs_cli_usage_error("orders",
			"--rank %u is out of range; accepted: 0..%u", p.rank,
			p.pp - 1);
	if (!have_group)
		p.group = p.pp;
	return orders_from_params(&p, &limits);
}
