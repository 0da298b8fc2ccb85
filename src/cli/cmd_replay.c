/*
 * cgslot replay: the GPU self-test of a manifest.  Captures a pattern
 * kernel for every graph of one rank through libcgslot, replays random
 * iterations (random reachable counts, random variant per microbatch) and
 * counts bytes that a later graph found overwritten.  With --overlap-test
 * one frame is moved onto a neighbour that is live at the same time, and
 * the test passes only if that corruption is caught.  With --overrun-test
 * the forward graphs of one frame also write a few bytes just past its
 * ranges, into a neighbour frame's bytes or padding, which
 * compute-sanitizer's memcheck (--nvtx yes) must report: the check of
 * libcgslot's NVTX annotations.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/commands.h"

/* Exit status of a test that cannot run here (meson: skipped). */
#define CGS_EXIT_SKIP 77

struct replay_opts {
	const char *path;
	unsigned rank;
	int have_rank;
	unsigned iterations;
	unsigned long long seed;
	unsigned device;
	int overlap;
	int overrun;
};

static int parse_seed(const char *arg, unsigned long long *out)
{
	char *end;

	if (!arg || !*arg || *arg == '-')
		return -1;
	*out = strtoull(arg, &end, 0);
	return *end ? -1 : 0;
}

static int parse_args(int argc, char **argv, struct replay_opts *o)
{
	enum { OPT_RANK = 256, OPT_ITER, OPT_SEED, OPT_DEVICE, OPT_OVERLAP,
	       OPT_OVERRUN };
	static const struct option options[] = {
		{"rank", required_argument, NULL, OPT_RANK},
		{"iterations", required_argument, NULL, OPT_ITER},
		{"seed", required_argument, NULL, OPT_SEED},
		{"device", required_argument, NULL, OPT_DEVICE},
		{"overlap-test", no_argument, NULL, OPT_OVERLAP},
		{"overrun-test", no_argument, NULL, OPT_OVERRUN},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int opt, rc = 0;

	memset(o, 0, sizeof(*o));
	o->iterations = 100;
	o->seed = 1;
	optind = 1;
	while ((opt = cgs_cli_getopt(argc, argv, "h", options)) != -1) {
		switch (opt) {
		case OPT_RANK:
			rc = cgs_cli_parse_u32("replay", "--rank", optarg, 0,
					       UINT32_MAX, &o->rank);
			o->have_rank = 1;
			break;
		case OPT_ITER:
			rc = cgs_cli_parse_u32("replay", "--iterations", optarg,
					       1, 100000000, &o->iterations);
			break;
		case OPT_SEED:
			if (parse_seed(optarg, &o->seed))
				rc = cgs_cli_usage_error("replay",
					"--seed '%s' is not an unsigned integer",
					optarg);
			break;
		case OPT_DEVICE:
			rc = cgs_cli_parse_u32("replay", "--device", optarg, 0,
					       1023, &o->device);
			break;
		case OPT_OVERLAP:
			o->overlap = 1;
			break;
		case OPT_OVERRUN:
			o->overrun = 1;
			break;
		case 'h':
			return cgs_cli_help("replay") == 0 ? -1 : CGS_EXIT_SYSTEM;
		default:
			return cgs_cli_bad_option("replay", opt, argv);
		}
		if (rc)
			return rc;
	}
	if (argc - optind != 1)
		return cgs_cli_usage_error("replay",
			"expected one MANIFEST, got %d arguments", argc - optind);
	o->path = argv[optind];
	return 0;
}

#ifndef CGS_HAVE_REPLAY

int cgs_cmd_replay(int argc, char **argv)
{
	struct replay_opts o;
	int rc = parse_args(argc, argv, &o);

	if (rc)
		return rc < 0 ? CGS_EXIT_OK : rc;
	printf("cgslot replay: skipped: this cgslot was built without CUDA (meson -Dcuda=enabled and nvcc are needed)\n");
	return cgs_cli_finish(CGS_EXIT_SKIP);
}

#else

#include <cuda_runtime_api.h>

#include "cgslot/cgslot.h"
#include "common/error.h"
#include "manifest/manifest.h"
#include "cli/selftest.h"

/* Launch timing: the median over this many replays of the largest count. */
#define TIMING_RUNS 51

/* A saved frame by (chunk, slot, layer). */
struct frame_id {
	uint32_t chunk, slot, layer;
};

struct replay {
	struct replay_opts o;
	struct cgs_runtime *rt;
	struct cgs_runtime_info info;
	struct cgs_selftest *st;
	cudaStream_t stream;
	/* --overlap-test: victim's ranges are moved onto the neighbour's. */
	struct frame_id victim, neighbour;
	uint32_t shifted_graphs;
	/*
	 * --overrun-test: per variant, the bytes just past the ranges of
	 * frame (0, 0, 0), written by every iteration.
	 */
	struct cgs_selftest_range *stray;
	uint64_t rng;
};

static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t random_below(uint64_t *state, uint32_t n)
{
	return (uint32_t)(next_random(state) % n);
}

static int cuda_report(cudaError_t rc, const char *what)
{
	struct cgs_error err = {0};
	char buf[CGS_ERROR_MESSAGE_MAX + 64];

	cgs_error_set(&err, CGS_E_CUDA, "%s: %s: %s", what,
		      cudaGetErrorName(rc), cudaGetErrorString(rc));
	fflush(stdout);
	fprintf(stderr, "cgslot: %s\n", cgs_error_format(&err, buf, sizeof(buf)));
	return CGS_EXIT_SYSTEM;
}

/* Device address and size of a role of (variant, chunk, layer, slot). */
static void *slot_address(const struct replay *r, uint32_t v, uint32_t c,
			  uint32_t l, uint32_t s, enum cgs_runtime_role role,
			  uint64_t *bytes)
{
	uint32_t arena;
	uint64_t offset;
	void *base;

	*bytes = 0;
	if (cgs_runtime_slot_locate(r->rt, v, c, l, s, role, &arena, &offset,
				    bytes, NULL) != 0 || *bytes == 0 ||
	    cgs_runtime_arena(r->rt, arena, &base, NULL, NULL) != 0) {
		*bytes = 0;
		return NULL;
	}
	return (char *)base + offset;
}

/* Layers of chunk c of the open runtime (c < vpp, so the lookup holds). */
static uint32_t chunk_layers(const struct replay *r, uint32_t c)
{
	uint32_t layers = 0;

	(void)cgs_runtime_chunk_layers(r->rt, c, &layers, NULL);
	return layers;
}

/* Reachable count i of the open runtime (i < n_reachable). */
static uint32_t reachable(const struct replay *r, uint32_t i)
{
	uint32_t n = 0;

	(void)cgs_runtime_reachable(r->rt, i, &n, NULL);
	return n;
}

static int same_frame(const struct cgs_graph_desc *g,
		      const struct frame_id *f)
{
	return g->chunk == f->chunk && g->slot == f->slot &&
	       g->layer == f->layer;
}

/*
 * The record callback: the graph's kernels read and write exactly the
 * ranges the manifest gives, except under --overlap-test, where the
 * victim frame's ranges are moved onto its neighbour's (clamped to the
 * neighbour's sizes so they stay inside the arena).
 */
static int record_graph(void *user, const struct cgs_graph_desc *g,
			cudaStream_t stream)
{
	struct replay *r = user;
	struct cgs_selftest_graph sg;
	uint32_t layers = chunk_layers(r, g->chunk);
	uint64_t bytes;
	void *p;
	int i;

	memset(&sg, 0, sizeof(sg));
	sg.variant = g->variant;
	sg.chunk = g->chunk;
	sg.layer = g->layer;
	sg.direction = g->direction;
	sg.last_layer = g->layer + 1 == layers;
	for (i = 0; i < 3; i++) {
		sg.frame[i].ptr = g->addr[i];
		sg.frame[i].bytes = g->bytes[i];
	}
	sg.grad.ptr = g->addr[CGS_RUNTIME_USER_GRAD];
	sg.grad.bytes = g->bytes[CGS_RUNTIME_USER_GRAD];
	if (g->layer + 1 < layers) {
		p = slot_address(r, g->variant, g->chunk, g->layer + 1, g->slot,
				 CGS_RUNTIME_USER_GRAD, &bytes);
		sg.grad_above.ptr = p;
		sg.grad_above.bytes = bytes;
	}
	if (r->o.overlap && same_frame(g, &r->victim)) {
		for (i = 0; i < 3; i++) {
			p = slot_address(r, g->variant, r->neighbour.chunk,
					 r->neighbour.layer, r->neighbour.slot,
					 (enum cgs_runtime_role)i, &bytes);
			if (!p || !sg.frame[i].ptr)
				continue;
			sg.frame[i].ptr = p;
			if (sg.frame[i].bytes > bytes)
				sg.frame[i].bytes = bytes;
		}
		r->shifted_graphs++;
	}
	/*
	 * Every variant's first forward graph of (chunk 0, slot 0, layer 0)
	 * carries the stray write: microbatch 0 runs one of them in every
	 * iteration, whichever variant it draws.
	 */
	if (r->o.overrun && g->frame == 0 && g->direction == CGS_RUNTIME_FORWARD)
		sg.stray = r->stray[g->variant];
	return cgs_selftest_record(r->st, &sg, stream) == cudaSuccess ?
	       0 : CGS_E_CUDA;
}

/*
 * Pick a frame and a neighbour that are live together in every iteration
 * of the replay: two layers of one event if a chunk has two, else two
 * slots of one chunk (two microbatches in flight), else two chunks.
 */
static int choose_overlap(struct replay *r)
{
	const struct cgs_runtime_info *in = &r->info;

	r->neighbour = (struct frame_id){0, 0, 0};
	if (chunk_layers(r, 0) >= 2)
		r->victim = (struct frame_id){0, 0, 1};
	else if (in->slots >= 2)
		r->victim = (struct frame_id){0, 1, 0};
	else if (in->vpp >= 2)
		r->victim = (struct frame_id){1, 0, 0};
	else
		return -1;
	return 0;
}

/* Bytes written past a frame's ranges by --overrun-test. */
#define OVERRUN_BYTES 16

/*
 * For each variant, the OVERRUN_BYTES just past the last range of frame
 * (chunk 0, slot 0, layer 0), from its end rounded up to the alignment
 * (the NVTX annotations' granularity), or just before its first range
 * where the frame ends its arena: a neighbour's bytes, a larger variant's
 * or padding, never bytes of the variant's own graph.
 */
static int choose_overrun(struct replay *r)
{
	uint32_t v, role, arena = 0;
	uint64_t offset, bytes, lo, hi, arena_bytes;
	uint64_t a = r->info.alignment ? r->info.alignment : 1;
	void *base;

	r->stray = calloc(r->info.n_variants, sizeof(*r->stray));
	if (!r->stray)
		return -1;
	for (v = 0; v < r->info.n_variants; v++) {
		lo = UINT64_MAX;
		hi = 0;
		for (role = 0; role < 3; role++) {
			if (cgs_runtime_slot_locate(r->rt, v, 0, 0, 0,
						    (enum cgs_runtime_role)role,
						    &arena, &offset, &bytes,
						    NULL) != 0 || bytes == 0)
				continue;
			if (offset < lo)
				lo = offset;
			if (offset + bytes > hi)
				hi = offset + bytes;
		}
		if (hi == 0 || cgs_runtime_arena(r->rt, arena, &base,
						 &arena_bytes, NULL) != 0)
			return -1;
		hi = (hi + a - 1) / a * a;
		if (hi + OVERRUN_BYTES <= arena_bytes)
			r->stray[v].ptr = (char *)base + hi;
		else if (lo >= OVERRUN_BYTES)
			r->stray[v].ptr = (char *)base + lo - OVERRUN_BYTES;
		else
			return -1;
		r->stray[v].bytes = OVERRUN_BYTES;
	}
	return 0;
}

/* Set up the device: skip (77) when there is none. */
static int open_device(struct replay *r, char *name, size_t name_len,
		       int *sms)
{
	struct cudaDeviceProp prop;
	cudaError_t rc;
	int n = 0;

	rc = cudaGetDeviceCount(&n);
	if (rc != cudaSuccess || n == 0) {
		printf("cgslot replay: skipped: no CUDA device (%s: %s)\n",
		       rc != cudaSuccess ? cudaGetErrorName(rc) : "cudaGetDeviceCount",
		       rc != cudaSuccess ? cudaGetErrorString(rc) : "no devices");
		return CGS_EXIT_SKIP;
	}
	if (r->o.device >= (unsigned)n)
		return cgs_cli_usage_error("replay",
			"--device %u is out of range; this machine has %d device%s (0..%d)",
			r->o.device, n, n == 1 ? "" : "s", n - 1);
	rc = cudaSetDevice((int)r->o.device);
	if (rc == cudaSuccess)
		rc = cudaFree(NULL); /* create the context before measuring */
	if (rc == cudaSuccess)
		rc = cudaGetDeviceProperties(&prop, (int)r->o.device);
	if (rc != cudaSuccess)
		return cuda_report(rc, "cannot initialise the CUDA device");
	snprintf(name, name_len, "%s", prop.name);
	*sms = prop.multiProcessorCount;
	rc = cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking);
	if (rc != cudaSuccess)
		return cuda_report(rc, "cannot create a stream");
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Replay K random iterations; the totals are read at the end. */
static int run_iterations(struct replay *r, uint64_t *mismatched,
			  uint64_t *checked, uint64_t *launches,
			  uint64_t *elapsed_ns)
{
	struct cgs_error err = {0};
	uint32_t *variants, n, k, it;
	cudaError_t rc;
	uint64_t t0;
	int status = 0;

	variants = malloc(((size_t)r->info.max_microbatches + 1) *
			  sizeof(*variants));
	if (!variants) {
		fprintf(stderr, "cgslot: error: out of memory\n");
		return CGS_EXIT_SYSTEM;
	}
	*launches = 0;
	t0 = now_ns();
	for (it = 0; it < r->o.iterations; it++) {
		n = reachable(r, random_below(&r->rng, r->info.n_reachable));
		for (k = 0; k < n; k++)
			variants[k] = random_below(&r->rng, r->info.n_variants);
		rc = cgs_selftest_begin(r->st, it + 1, 1, r->stream);
		if (rc != cudaSuccess) {
			status = cuda_report(rc, "cannot start an iteration");
			goto out;
		}
		if (cgs_runtime_replay(r->rt, n, variants, r->stream, &err)) {
			status = cgs_cli_report(&err);
			goto out;
		}
		*launches += cgs_runtime_launch_count(r->rt, n);
	}
	rc = cgs_selftest_totals(r->st, r->stream, mismatched, checked);
	*elapsed_ns = now_ns() - t0;
	if (rc != cudaSuccess)
		status = cuda_report(rc, "replay failed on the device");
out:
	free(variants);
	return status;
}

/*
 * Host cost per launch of cgs_runtime_replay against a bare
 * cudaGraphLaunch loop over the same executables in the same order, with
 * the kernels disabled so the device keeps up; medians of TIMING_RUNS
 * alternating runs of the largest reachable count.
 */
static int time_launches(struct replay *r, double *replay_ns, double *bare_ns,
			 uint64_t *per_run)
{
	uint64_t replay_t[TIMING_RUNS], bare_t[TIMING_RUNS], n_launch, i, t0;
	uint32_t n = reachable(r, r->info.n_reachable - 1);
	struct cgs_error err = {0};
	cudaGraphExec_t *execs = NULL;
	uint32_t *variants = NULL, *graphs = NULL, k;
	cudaError_t rc = cudaSuccess;
	int run, status = 0;

	n_launch = cgs_runtime_launch_count(r->rt, n);
	variants = malloc(((size_t)n + 1) * sizeof(*variants));
	graphs = malloc((size_t)(n_launch + 1) * sizeof(*graphs));
	execs = malloc((size_t)(n_launch + 1) * sizeof(*execs));
	if (!variants || !graphs || !execs) {
		fprintf(stderr, "cgslot: error: out of memory\n");
		status = CGS_EXIT_SYSTEM;
		goto out;
	}
	for (k = 0; k < n; k++)
		variants[k] = random_below(&r->rng, r->info.n_variants);
	if (cgs_runtime_sequence(r->rt, n, variants, graphs, n_launch, &err)) {
		status = cgs_cli_report(&err);
		goto out;
	}
	for (i = 0; i < n_launch; i++)
		execs[i] = cgs_runtime_graph_exec(r->rt, graphs[i]);
	rc = cgs_selftest_begin(r->st, 0, 0, r->stream);
	/* One untimed run of each warms both paths. */
	for (run = -1; run < TIMING_RUNS && rc == cudaSuccess; run++) {
		t0 = now_ns();
		if (cgs_runtime_replay(r->rt, n, variants, r->stream, &err)) {
			status = cgs_cli_report(&err);
			goto out;
		}
		if (run >= 0)
			replay_t[run] = now_ns() - t0;
		rc = cudaStreamSynchronize(r->stream);
		t0 = now_ns();
		for (i = 0; i < n_launch && rc == cudaSuccess; i++)
			rc = cudaGraphLaunch(execs[i], r->stream);
		if (run >= 0)
			bare_t[run] = now_ns() - t0;
		if (rc == cudaSuccess)
			rc = cudaStreamSynchronize(r->stream);
	}
	if (rc != cudaSuccess) {
		status = cuda_report(rc, "launch timing failed");
		goto out;
	}
	qsort(replay_t, TIMING_RUNS, sizeof(uint64_t), compare_u64);
	qsort(bare_t, TIMING_RUNS, sizeof(uint64_t), compare_u64);
	*replay_ns = (double)replay_t[TIMING_RUNS / 2] / (double)n_launch;
	*bare_ns = (double)bare_t[TIMING_RUNS / 2] / (double)n_launch;
	*per_run = n_launch;
out:
	free(variants);
	free(graphs);
	free(execs);
	return status;
}

static void print_header(const struct replay *r, const char *device)
{
	const struct cgs_runtime_info *in = &r->info;

	printf("manifest: %s\n", r->o.path);
	printf("rank: %u, device %u (%s)\n", in->rank, r->o.device, device);
	printf("pipeline: P %u, M %u, G %u, L %u, %u layers per rank, %u variants, %u slots\n",
	       in->pp, in->vpp, in->group, in->max_microbatches,
	       in->layers_total, in->n_variants, in->slots);
}

static int replay_run(struct replay *r)
{
	struct cgs_runtime_stats stats = {.size = sizeof(stats)};
	struct cgs_error err = {0};
	size_t free0 = 0, free1 = 0, total = 0;
	uint64_t bad = 0, checked = 0, launches = 0, elapsed = 0, per_run = 0;
	uint64_t arena_bytes = 0;
	double replay_ns = 0, bare_ns = 0;
	char device[256];
	cudaError_t rc;
	int sms = 1, status;

	status = open_device(r, device, sizeof(device), &sms);
	if (status)
		return status;
	rc = cgs_selftest_create(&r->st, r->info.vpp, sms);
	if (rc == cudaSuccess)
		rc = cudaDeviceSynchronize();
	if (rc != cudaSuccess)
		return cuda_report(rc, "cannot create the self-test state");
	print_header(r, device);

	rc = cudaMemGetInfo(&free0, &total);
	if (rc != cudaSuccess)
		return cuda_report(rc, "cudaMemGetInfo");
	if (cgs_runtime_allocate(r->rt, &arena_bytes, &err))
		return cgs_cli_report(&err);
	rc = cudaMemGetInfo(&free1, &total);
	if (rc != cudaSuccess)
		return cuda_report(rc, "cudaMemGetInfo");
	printf("arenas: %u, %" PRIu64 " bytes (%.3f GiB)\n", r->info.n_arenas,
	       arena_bytes, (double)arena_bytes / 1073741824.0);
	printf("device memory: %zu bytes free before allocation, %zu after: %zu bytes taken, %+" PRId64 " against the manifest's arena bytes\n",
	       free0, free1, free0 - free1,
	       (int64_t)(free0 - free1) - (int64_t)arena_bytes);

	if (r->o.overlap) {
		if (choose_overlap(r)) {
			fprintf(stderr, "cgslot: error: --overlap-test needs two frames that are live together; this rank has one\n");
			return CGS_EXIT_INVALID;
		}
		printf("overlap test: frame (chunk %u, slot %u, layer %u) moved onto (chunk %u, slot %u, layer %u)\n",
		       r->victim.chunk, r->victim.slot, r->victim.layer,
		       r->neighbour.chunk, r->neighbour.slot,
		       r->neighbour.layer);
	}
	if (r->o.overrun) {
		if (choose_overrun(r)) {
			fprintf(stderr, "cgslot: error: --overrun-test found no bytes next to frame (chunk 0, slot 0, layer 0) inside its arena\n");
			return CGS_EXIT_INVALID;
		}
		printf("overrun test: the forward graph of (chunk 0, slot 0, layer 0) also writes %d bytes just outside the frame's ranges (variant 0: at %p); compute-sanitizer memcheck --nvtx yes must report them\n",
		       OVERRUN_BYTES, r->stray[0].ptr);
	}
	if (cgs_runtime_capture(r->rt, record_graph, r, r->stream, &err))
		return cgs_cli_report(&err);
	if (cgs_runtime_stats(r->rt, &stats, &err))
		return cgs_cli_report(&err);
	printf("graphs: %u captured, capture %.1f ms, instantiate %.1f ms\n",
	       stats.graphs_captured, ms(stats.capture_ns),
	       ms(stats.instantiate_ns));

	status = run_iterations(r, &bad, &checked, &launches, &elapsed);
	if (status)
		return status;
	printf("iterations: %u (seed %llu), %" PRIu64 " graph launches, %.3f s, %.2f us per launch with the pattern kernels\n",
	       r->o.iterations, r->o.seed, launches, (double)elapsed / 1e9,
	       launches ? (double)elapsed / 1e3 / (double)launches : 0.0);
	printf("checked bytes: %" PRIu64 "\n", checked);
	printf("corrupted bytes: %" PRIu64 "\n", bad);

	status = time_launches(r, &replay_ns, &bare_ns, &per_run);
	if (status)
		return status;
	printf("launch cost: cgs_runtime_replay %.0f ns per launch, bare cudaGraphLaunch loop %.0f ns per launch (%+.1f%%; median of %d runs of %" PRIu64 " launches)\n",
	       replay_ns, bare_ns, (replay_ns / bare_ns - 1.0) * 100.0,
	       TIMING_RUNS, per_run);

	if (checked == 0) {
		printf("result: FAIL (nothing was checked)\n");
		return CGS_EXIT_INVALID;
	}
	if (r->o.overlap) {
		printf("overlap test: %u graphs moved; corruption %s\n",
		       r->shifted_graphs, bad ? "detected" : "NOT detected");
		printf("result: %s\n", bad ? "PASS" : "FAIL");
		return bad ? CGS_EXIT_OK : CGS_EXIT_INVALID;
	}
	printf("result: %s\n", bad ? "FAIL" : "PASS");
	return bad ? CGS_EXIT_INVALID : CGS_EXIT_OK;
}

/* The first planned rank, for a run without --rank. */
static int first_rank(const char *path, unsigned *rank)
{
	struct cgs_error err = {0};
	struct cgs_manifest *m = NULL;

	if (cgs_manifest_open_file(path, &m, &err))
		return cgs_cli_report(&err);
	*rank = cgs_manifest_rank_id(m, 0);
	cgs_manifest_close(&m);
	return 0;
}

int cgs_cmd_replay(int argc, char **argv)
{
	struct cgs_error err = {0};
	struct replay r;
	int status;

	memset(&r, 0, sizeof(r));
	status = parse_args(argc, argv, &r.o);
	if (status)
		return status < 0 ? CGS_EXIT_OK : status;
	r.rng = r.o.seed;
	if (!r.o.have_rank) {
		status = first_rank(r.o.path, &r.o.rank);
		if (status)
			return status;
	}
	if (cgs_runtime_open(r.o.path, r.o.rank, (int)r.o.device, &r.rt, &err))
		return cgs_cli_report(&err);
	r.info.size = sizeof(r.info);
	if (cgs_runtime_info(r.rt, &r.info, &err))
		status = cgs_cli_report(&err);
	else
		status = replay_run(&r);
	if (r.stream)
		(void)cudaStreamSynchronize(r.stream);
	cgs_runtime_destroy(&r.rt);
	cgs_selftest_destroy(&r.st);
	free(r.stray);
	if (r.stream)
		(void)cudaStreamDestroy(r.stream);
	return cgs_cli_finish(status);
}

#endif
