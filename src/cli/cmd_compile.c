/*
 * cgslot compile: schedule -> plan -> manifest, written atomically
 * (common/atomic_file.h).  The summary is printed and standard output
 * checked before the manifest is committed, so a failed stdout leaves an
 * earlier manifest untouched.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "input/schedule.h"
#include "order/schedule_load.h"
#include "manifest/manifest.h"
#include "manifest/writer.h"
#include "plan/plan.h"

static void print_summary(FILE *out, const char *schedule,
			  const char *output, const struct cgs_manifest *m,
			  size_t len)
{
	const struct cgs_manifest_info *in = cgs_manifest_info(m);
	char a[32], b[32], c[32], d[32];
	uint32_t ri, v;

	fprintf(out, "compiled %s -> %s\n", schedule, output);
	fprintf(out, "  manifest   %zu bytes, format %u.%u, schedule hash %016llx\n",
	       len, in->major, in->minor,
	       (unsigned long long)in->schedule_hash);
	fprintf(out, "  pipeline   %s%spp %u, vpp %u, %u layers per rank, group %u, max microbatches %u\n",
	       in->name, *in->name ? ": " : "", in->pp, in->vpp,
	       in->layers_total, in->group, in->max_microbatches);
	for (ri = 0; ri < in->n_ranks; ri++)
		if (cgs_manifest_rank_ring(m, ri).slots != in->slots)
			break;
	if (ri == in->n_ranks) {
		fprintf(out, "  ring       %u slots, %u saved and %u user-grad frames per rank\n",
		       in->slots, in->n_saved, in->n_user_grad);
	} else {
		fprintf(out, "  ring       per rank:");
		for (ri = 0; ri < in->n_ranks; ri++)
			fprintf(out, "%s rank %u %u slots", ri ? "," : "",
			       cgs_manifest_rank_id(m, ri),
			       cgs_manifest_rank_ring(m, ri).slots);
		fprintf(out, "\n");
	}
	for (ri = 0; ri < in->n_ranks; ri++)
		if (cgs_manifest_rank_ring(m, ri).slot_map)
			fprintf(out, "  slot map   rank %u: slots from a map per microbatch count%s\n",
			       cgs_manifest_rank_id(m, ri),
			       cgs_manifest_rank_ring(m, ri).slot_map_per_chunk
				       ? " and chunk" : "");
	fprintf(out, "  variants  ");
	for (v = 0; v < in->n_variants; v++)
		fprintf(out, " %s (cp %u)%s", cgs_manifest_variant_name(m, v),
		       cgs_manifest_variant_cp(m, v),
		       v + 1 < in->n_variants ? "," : "");
	fprintf(out, "\n\n  %-5s %7s %7s %14s %14s %14s %14s\n", "rank", "counts",
	       "graphs", "bytes", "lower bound", "colour arenas",
	       "no sharing");
	for (ri = 0; ri < in->n_ranks; ri++) {
		struct cgs_manifest_rank_stats st = cgs_manifest_rank_stats(m, ri);

		fprintf(out, "  %-5u %7u %7u %14s %14s %14s %14s\n",
		       cgs_manifest_rank_id(m, ri),
		       cgs_manifest_reachable_count(m, ri),
		       cgs_manifest_capture_count(m, ri),
		       cgs_cli_human(st.bytes, a, sizeof(a)),
		       cgs_cli_human(st.lower_bound_bytes, b, sizeof(b)),
		       cgs_cli_human(st.bytes_colour_arenas, c, sizeof(c)),
		       cgs_cli_human(st.bytes_without_sharing, d, sizeof(d)));
	}
}

static int compile(const char *schedule, const char *output,
		   const struct cgs_limits *limits, int quiet, unsigned threads)
{
	struct cgs_error err = {0};
	struct cgs_schedule *s = NULL;
	struct cgs_plan *plan = NULL;
	struct cgs_plan_options opt;
	struct cgs_manifest *m = NULL;
	struct cgs_atomic_file af;
	void *buf = NULL;
	size_t len = 0;
	int rc;

	rc = cgs_schedule_load(schedule, limits, &s, &err);
	if (rc)
		goto out;
	cgs_plan_options_init(&opt);
	opt.max_frames = limits->frames < CGS_PLAN_MAX_FRAMES ? limits->frames : 0;
	cgs_cli_progress_options(&opt);
	opt.threads = threads;
	rc = cgs_plan_create(s, &opt, &plan, &err);
	if (rc)
		goto out;
	rc = cgs_manifest_write(plan, cgs_schedule_hash(s), &buf, &len, &err);
	if (rc)
		goto out;
	/* Never install a manifest the reader would refuse. */
	rc = cgs_manifest_open_buffer(buf, len, &m, &err);
	if (rc) {
		char msg[CGS_ERROR_MESSAGE_MAX];

		snprintf(msg, sizeof(msg), "%s", err.message);
		cgs_error_clear(&err);
		cgs_error_at(&err, rc, schedule, 0, 0,
			     "internal error: the planned manifest does not validate (%s); nothing was written",
			     msg);
		goto out;
	}
	rc = cgs_atomic_file_begin(&af, output, &err);
	if (rc == 0)
		rc = cgs_atomic_file_write(&af, buf, len, &err);
	if (rc)
		goto out;
	/*
	 * A stdout that fails must not leave a replaced manifest behind.
	 * When the manifest itself goes to standard output, the summary
	 * goes to standard error.
	 */
	if (!quiet)
		print_summary(cgs_cli_summary_stream(&af), schedule, output, m,
			      len);
	rc = cgs_cli_commit_output(&af, cgs_cli_summary_stream(&af),
				   "manifest", &err);
out:
	cgs_manifest_close(&m);
	free(buf);
	cgs_plan_destroy(&plan);
	cgs_schedule_destroy(&s);
	return rc ? cgs_cli_report(&err) : cgs_cli_finish(CGS_EXIT_OK);
}

int cgs_cmd_compile(int argc, char **argv)
{
	enum { OPT_LIMIT = 256 };
	static const struct option options[] = {
		{"output", required_argument, NULL, 'o'},
		{"limit", required_argument, NULL, OPT_LIMIT},
		{"jobs", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cgs_limits limits;
	const char *output = NULL;
	unsigned threads = 0;
	int opt, rc;

	cgs_limits_init(&limits);
	optind = 1;
	while ((opt = cgs_cli_getopt(argc, argv, "o:j:h", options)) != -1) {
		switch (opt) {
		case 'j':
			rc = cgs_cli_parse_u32("compile", "--jobs", optarg, 1,
					       1024, &threads);
			if (rc)
				return rc;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_LIMIT:
			rc = cgs_cli_limit_option("compile", &limits, optarg);
			if (rc)
				return rc;
			break;
		case 'h':
			return cgs_cli_help("compile");
		default:
			return cgs_cli_bad_option("compile", opt, argv);
		}
	}
	if (argc - optind != 1)
		return cgs_cli_usage_error("compile",
					   "expected one SCHEDULE, got %d",
					   argc - optind);
	if (!output || !*output)
		return cgs_cli_usage_error("compile",
					   "-o MANIFEST is required");
	if (getenv("CGSLOT_PRODUCER") && *getenv("CGSLOT_PRODUCER") &&
	    strcmp(getenv("CGSLOT_PRODUCER"), cgs_manifest_producer()) != 0)
		return cgs_cli_usage_error("compile",
					   "CGSLOT_PRODUCER must be 1 to %d printable ASCII characters",
					   CGS_MANIFEST_PRODUCER_MAX);
	if (threads == 0 &&
	    (rc = cgs_cli_default_jobs("compile", &threads)) != 0)
		return rc;
	if (cgs_atomic_file_same(argv[optind], output))
		return cgs_cli_usage_error("compile",
					   "the output '%s' is the schedule itself; give another -o MANIFEST",
					   output);
	return compile(argv[optind], output, &limits, cgs_cli_verbosity < 0,
		       threads);
}
