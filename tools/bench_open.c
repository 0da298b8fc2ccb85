/*
 * cgs-bench-open: time cgs_runtime_open (read, validate the whole
 * manifest, expand every reachable count's launch sequence) for each
 * planned rank of a manifest, and the NVTX guard segments that
 * cgs_runtime_allocate computes when a memory-checking tool is attached.
 * No GPU is needed: neither makes a CUDA call.  Run by tools/bench-open.
 *
 * usage: cgs-bench-open MANIFEST [REPEATS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cgslot/cgslot.h"
#include "manifest/manifest.h"
#include "runtime/guard.h"
#include "runtime/runtime.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of this thread: robust to other processes sharing the cores. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct cgs_error err = {0};
	struct cgs_manifest *m = NULL;
	struct cgs_runtime *rt = NULL;
	struct cgs_runtime_info in;
	struct cgs_guard gd;
	uint64_t *t, *c, t0, c0, worst = 0, worst_cpu = 0, launches;
	uint32_t ri, n_ranks, rank, k, n;
	int reps = argc > 2 ? atoi(argv[2]) : 21, i;

	if (argc < 2 || reps < 1) {
		fprintf(stderr, "usage: cgs-bench-open MANIFEST [REPEATS]\n");
		return 2;
	}
	if (cgs_manifest_open_file(argv[1], &m, &err)) {
		fprintf(stderr, "cgs-bench-open: %s\n", err.message);
		return 1;
	}
	n_ranks = cgs_manifest_info(m)->n_ranks;
	t = malloc((size_t)reps * sizeof(*t));
	c = malloc((size_t)reps * sizeof(*c));
	if (!t || !c)
		return 3;
	for (i = 0; i < reps; i++) {
		cgs_manifest_close(&m);
		t0 = now_ns();
		c0 = cpu_ns();
		if (cgs_manifest_open_file(argv[1], &m, &err)) {
			fprintf(stderr, "cgs-bench-open: %s\n", err.message);
			return 1;
		}
		c[i] = cpu_ns() - c0;
		t[i] = now_ns() - t0;
	}
	qsort(t, (size_t)reps, sizeof(*t), compare_u64);
	qsort(c, (size_t)reps, sizeof(*c), compare_u64);
	printf("manifest reader alone: median %.3f ms wall, %.3f ms CPU over %d opens\n",
	       (double)t[reps / 2] / 1e6, (double)c[reps / 2] / 1e6, reps);
	for (ri = 0; ri < n_ranks; ri++) {
		rank = cgs_manifest_rank_id(m, ri);
		for (i = 0; i < reps; i++) {
			t0 = now_ns();
			c0 = cpu_ns();
			if (cgs_runtime_open(argv[1], rank, 0, &rt, &err)) {
				fprintf(stderr, "cgs-bench-open: %s\n",
					err.message);
				return 1;
			}
			c[i] = cpu_ns() - c0;
			t[i] = now_ns() - t0;
			if (i + 1 < reps)
				cgs_runtime_destroy(&rt);
		}
		in.size = sizeof(in);
		if (cgs_runtime_info(rt, &in, &err)) {
			fprintf(stderr, "cgs-bench-open: %s\n", err.message);
			return 1;
		}
		qsort(t, (size_t)reps, sizeof(*t), compare_u64);
		qsort(c, (size_t)reps, sizeof(*c), compare_u64);
		for (launches = 0, k = 0; k < in.n_reachable; k++)
			if (cgs_runtime_reachable(rt, k, &n, NULL) == 0)
				launches += cgs_runtime_launch_count(rt, n);
		printf("rank %u: cgs_runtime_open median %.3f ms wall, %.3f ms CPU (%u reachable counts, %u graphs, %llu launches precomputed)\n",
		       rank, (double)t[reps / 2] / 1e6, (double)c[reps / 2] / 1e6,
		       in.n_reachable, in.n_graphs, (unsigned long long)launches);
		if (t[reps / 2] > worst)
			worst = t[reps / 2];
		if (c[reps / 2] > worst_cpu)
			worst_cpu = c[reps / 2];
		for (i = 0; i < reps; i++) {
			t0 = now_ns();
			if (cgs_guard_build(rt, &gd, &err)) {
				fprintf(stderr, "cgs-bench-open: %s\n",
					err.message);
				return 1;
			}
			t[i] = now_ns() - t0;
			if (i + 1 < reps)
				cgs_guard_free(&gd);
		}
		qsort(t, (size_t)reps, sizeof(*t), compare_u64);
		printf("rank %u: NVTX guard segments (at allocation, under a tool) median %.3f ms: %u segments, %llu guard entries over %u graphs\n",
		       rank, (double)t[reps / 2] / 1e6, gd.n_segments,
		       (unsigned long long)gd.guard_start[gd.n_graphs],
		       gd.n_graphs);
		cgs_guard_free(&gd);
		cgs_runtime_destroy(&rt);
	}
	printf("slowest rank: median %.3f ms wall, %.3f ms CPU\n",
	       (double)worst / 1e6, (double)worst_cpu / 1e6);
	cgs_manifest_close(&m);
	free(t);
	free(c);
	return 0;
}
