/* cgslot plan: plan a schedule and print the plan; no manifest is written. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/report.h"
#include "common/error.h"
#include "input/schedule.h"
#include "order/schedule_load.h"
#include "plan/plan.h"

/* What the command line asks of the planner beyond the schedule. */
struct plan_request {
	enum cgs_format format;
	uint32_t max_slots, threads;
	int per_rank, explore, slot_maps;
};

/*
 * The ring search's trade-off, rank by rank: every ring tried, its
 * graphs, bytes and ratio to the lower bound, the ring's floor (no
 * layout of it with k mod S goes lower) as a ratio, upstream's bytes and
 * ratio; '*' marks the plan's ring.
 * With slot maps tried, a last column says whether the ring's plan took
 * a map or k mod S.
 */
static int print_trials(FILE *out, const struct cgs_plan *p, int maps)
{
	uint32_t i;

	fprintf(out, "ring search: smallest safe ring %u, rings %s\n",
		p->smallest_slots, p->per_rank ? "per rank" :
		"shared by every rank");
	fprintf(out, "%6s %6s %8s %16s %8s %8s %16s %8s%s\n", "rank",
		"slots", "graphs", "bytes", "x bound", "floor", "upstream bytes",
		"x bound", maps ? "    map" : "");
	for (i = 0; i < p->n_trials; i++) {
		const struct cgs_ring_trial *t = &p->trials[i];
		double lb = t->lower_bound_bytes ? (double)t->lower_bound_bytes : 1;

		fprintf(out, "%6u %6u %8u %16" PRIu64 " %8.3f %8.3f %16" PRIu64
			" %8.3f%s%s\n", t->rank, t->slots, t->graphs, t->bytes,
			(double)t->bytes / lb, (double)t->floor_bytes / lb,
			t->bytes_colour_arenas,
			(double)t->bytes_colour_arenas / lb,
			maps ? (t->slot_map ? "    map" : "    k%S") : "",
			t->chosen ? " *" : "");
	}
	return ferror(out) ? CGS_E_IO : 0;
}

static int plan_file(const char *path, const struct cgs_limits *limits,
		     const struct plan_request *req)
{
	struct cgs_error err = {0};
	struct cgs_schedule *s = NULL;
	struct cgs_plan *p = NULL;
	struct cgs_report *r = NULL;
	struct cgs_plan_options opt;
	int rc;

	cgs_plan_options_init(&opt);
	cgs_cli_progress_options(&opt);
	opt.max_frames = limits->frames < CGS_PLAN_MAX_FRAMES ? limits->frames : 0;
	opt.max_slots = req->max_slots;
	opt.per_rank = req->per_rank;
	opt.explore = req->explore;
	opt.slot_maps = req->slot_maps;
	opt.threads = req->threads;
	rc = cgs_schedule_load(path, limits, &s, &err);
	if (rc == 0)
		rc = cgs_plan_create(s, &opt, &p, &err);
	if (rc == 0 && req->explore) {
		rc = print_trials(stdout, p, opt.slot_maps || s->slots_map);
		if (rc)
			cgs_error_set(&err, rc, "cannot write the table to stdout");
		goto out;
	}
	if (rc == 0)
		rc = cgs_report_from_plan(p, &r, &err);
	if (rc == 0) {
		if (req->format == CGS_FORMAT_JSON)
			rc = cgs_report_print_json(stdout, r);
		else if (req->format == CGS_FORMAT_TE_PLAN)
			rc = cgs_report_print_te_plan(stdout, r);
		else
			rc = cgs_report_print_text(stdout, r);
		if (rc)
			cgs_error_set(&err, rc, "cannot write the plan to stdout");
	}
out:
	cgs_report_destroy(&r);
	cgs_plan_destroy(&p);
	cgs_schedule_destroy(&s);
	return rc ? cgs_cli_report(&err) : cgs_cli_finish(CGS_EXIT_OK);
}

int cgs_cmd_plan(int argc, char **argv)
{
	enum { OPT_FORMAT = 256, OPT_LIMIT, OPT_MAX_SLOTS, OPT_EXPLORE,
	       OPT_PER_RANK, OPT_SLOT_MAPS };
	static const struct option options[] = {
		{"format", required_argument, NULL, OPT_FORMAT},
		{"limit", required_argument, NULL, OPT_LIMIT},
		{"max-slots", required_argument, NULL, OPT_MAX_SLOTS},
		{"explore-slots", no_argument, NULL, OPT_EXPLORE},
		{"per-rank-slots", no_argument, NULL, OPT_PER_RANK},
		{"slot-maps", no_argument, NULL, OPT_SLOT_MAPS},
		{"jobs", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct plan_request req = {.format = CGS_FORMAT_TEXT};
	struct cgs_limits limits;
	unsigned value;
	int opt, rc = 0;

	cgs_limits_init(&limits);
	optind = 1;
	while ((opt = cgs_cli_getopt(argc, argv, "j:h", options)) != -1) {
		switch (opt) {
		case OPT_FORMAT:
			rc = cgs_cli_parse_format("plan", optarg,
						  CGS_FORMAT_TEXT | CGS_FORMAT_JSON |
						  CGS_FORMAT_TE_PLAN, &req.format);
			break;
		case OPT_LIMIT:
			rc = cgs_cli_limit_option("plan", &limits, optarg);
			break;
		case OPT_MAX_SLOTS:
			rc = cgs_cli_parse_u32("plan", "--max-slots", optarg, 1,
					       UINT32_MAX, &value);
			req.max_slots = value;
			break;
		case OPT_EXPLORE:
			req.explore = 1;
			break;
		case OPT_PER_RANK:
			req.per_rank = 1;
			break;
		case OPT_SLOT_MAPS:
			req.slot_maps = 1;
			break;
		case 'j':
			rc = cgs_cli_parse_u32("plan", "--jobs", optarg, 1, 1024,
					       &value);
			req.threads = value;
			break;
		case 'h':
			return cgs_cli_help("plan");
		default:
			return cgs_cli_bad_option("plan", opt, argv);
		}
		if (rc)
			return rc;
	}
	if (argc - optind != 1)
		return cgs_cli_usage_error("plan", "expected one SCHEDULE, got %d",
					   argc - optind);
	if (req.threads == 0 &&
	    (rc = cgs_cli_default_jobs("plan", &req.threads)) != 0)
		return rc;
	return plan_file(argv[optind], &limits, &req);
}
