/*
 * The packing engine (src/plan/dsa.h) against an exhaustive search and an
 * overlap check written here, sharing no code with the engine: every
 * placement is valid, heights are optimal on small instances, results
 * repeat, and bad arguments are refused.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgslot/error.h"
#include "plan/dsa.h"
#include "plan/graph.h"
#include "testlib.h"

/* A small deterministic generator (xorshift), independent of libc. */
static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t below(uint64_t n)
{
	return rng() % n;
}

/* Conflicts as a plain matrix, for the checks and the exhaustive search. */
struct instance {
	unsigned n;
	uint64_t size[16], align[16];
	int64_t lower[16], upper[16];
	unsigned char adj[16][16];
};

/* Fail unless no two conflicting buffers overlap and offsets align. */
static uint64_t check_valid(const struct instance *in, const uint64_t *off)
{
	uint64_t h = 0;
	unsigned i, j;

	for (i = 0; i < in->n; i++) {
		ck_assert_msg(off[i] % in->align[i] == 0,
			      "buffer %u at %llu, alignment %llu", i,
			      (unsigned long long)off[i],
			      (unsigned long long)in->align[i]);
		if (off[i] + in->size[i] > h)
			h = off[i] + in->size[i];
		for (j = 0; j < in->n; j++)
			if (i != j && in->adj[i][j])
				ck_assert_msg(off[i] + in->size[i] <= off[j] ||
					      off[j] + in->size[j] <= off[i],
					      "conflicting buffers %u and %u overlap",
					      i, j);
	}
	return h;
}

static uint64_t up_to(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

/*
 * The optimum by brute force: every order, each buffer at the lowest
 * aligned offset free of its placed conflicts.  Some order reproduces any
 * placement that no buffer can move down in, so the minimum is optimal.
 */
static uint64_t best_height;

static void exhaust(const struct instance *in, unsigned *order, unsigned k,
		    uint64_t *off, uint64_t h)
{
	unsigned i, j, t;

	if (h >= best_height)
		return;
	if (k == in->n) {
		best_height = h;
		return;
	}
	for (i = k; i < in->n; i++) {
		unsigned v;
		uint64_t at = 0;
		int moved = 1;

		t = order[k];
		order[k] = order[i];
		order[i] = t;
		v = order[k];
		while (moved) {
			moved = 0;
			at = up_to(at, in->align[v]);
			for (j = 0; j < k; j++) {
				unsigned u = order[j];

				if (in->adj[v][u] && off[u] < at + in->size[v] &&
				    at < off[u] + in->size[u]) {
					at = off[u] + in->size[u];
					moved = 1;
				}
			}
		}
		off[v] = at;
		exhaust(in, order, k + 1, off,
			at + in->size[v] > h ? at + in->size[v] : h);
		t = order[k];
		order[k] = order[i];
		order[i] = t;
	}
}

static uint64_t optimum(const struct instance *in)
{
	unsigned order[16], i;
	uint64_t off[16];

	for (i = 0; i < in->n; i++)
		order[i] = i;
	best_height = UINT64_MAX;
	exhaust(in, order, 0, off, 0);
	return best_height;
}

static void random_intervals(struct instance *in, unsigned n, int aligned)
{
	unsigned i, j;

	memset(in, 0, sizeof(*in));
	in->n = n;
	for (i = 0; i < n; i++) {
		in->lower[i] = (int64_t)below(10) - 3;
		in->upper[i] = in->lower[i] + 1 + (int64_t)below(6);
		in->size[i] = 1 + below(9);
		in->align[i] = aligned ? (uint64_t)1 << below(3) : 1;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			in->adj[i][j] = i != j && in->lower[i] < in->upper[j] &&
					in->lower[j] < in->upper[i];
}

START_TEST(intervals_optimal_on_small)
{
	struct instance in;
	struct cgs_dsa_result res;
	uint64_t off[16], again[16], h;
	unsigned trial;

	rng_state = 0x9e3779b97f4a7c15ull;
	for (trial = 0; trial < 300; trial++) {
		random_intervals(&in, 2 + trial % 7, trial % 2);
		ck_assert_int_eq(cgs_dsa_pack_intervals(in.n, in.lower, in.upper,
							in.size, in.align, NULL,
							off, &res), 0);
		h = check_valid(&in, off);
		ck_assert_uint_eq(h, res.height);
		ck_assert_uint_le(res.lower_bound, h);
		ck_assert_uint_eq(h, optimum(&in));
		ck_assert_int_eq(res.optimal, h == res.lower_bound);
		/* The same input gives the same offsets. */
		ck_assert_int_eq(cgs_dsa_pack_intervals(in.n, in.lower, in.upper,
							in.size, in.align, NULL,
							again, NULL), 0);
		ck_assert_int_eq(memcmp(off, again, in.n * sizeof(*off)), 0);
	}
}
END_TEST

/*
 * Sizes and alignments all multiples of one grain: the engine's targets
 * step by grains, and must still land on the optimum (the unscaled
 * optimum times the grain).
 */
START_TEST(intervals_optimal_with_grain)
{
	struct instance in;
	struct cgs_dsa_result res;
	uint64_t off[16], h, opt_h;
	unsigned trial, i;

	rng_state = 0x51ed270b27a1c3d5ull;
	for (trial = 0; trial < 200; trial++) {
		uint64_t grain = (uint64_t)3 << (trial % 11);

		random_intervals(&in, 3 + trial % 6, trial % 2);
		opt_h = optimum(&in);
		for (i = 0; i < in.n; i++) {
			in.size[i] *= grain;
			in.align[i] *= grain;
		}
		ck_assert_int_eq(cgs_dsa_pack_intervals(in.n, in.lower, in.upper,
							in.size, in.align, NULL,
							off, &res), 0);
		h = check_valid(&in, off);
		ck_assert_uint_eq(h, res.height);
		ck_assert_uint_eq(h, opt_h * grain);
	}
}
END_TEST

/* A random conflict graph, not in general an interval graph. */
static void random_graph(struct instance *in, struct cgs_graph *g,
			 unsigned n, unsigned density)
{
	unsigned i, j;

	memset(in, 0, sizeof(*in));
	in->n = n;
	ck_assert_int_eq(cgs_graph_init(g, n), 0);
	for (i = 0; i < n; i++) {
		in->size[i] = 1 + below(8);
		in->align[i] = 1 + below(2);
		in->size[i] = up_to(in->size[i], in->align[i]);
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (below(100) < density) {
				in->adj[i][j] = in->adj[j][i] = 1;
				cgs_bit_set(cgs_graph_row(g, i), j);
				cgs_bit_set(cgs_graph_row(g, j), i);
			}
}

START_TEST(graph_optimal_on_small)
{
	struct instance in;
	struct cgs_graph g;
	struct cgs_dsa_result res;
	uint64_t off[16], again[16], h;
	unsigned trial;

	rng_state = 0x2545f4914f6cdd1dull;
	for (trial = 0; trial < 300; trial++) {
		random_graph(&in, &g, 2 + trial % 7, 20 + trial % 70);
		ck_assert_int_eq(cgs_dsa_pack_graph(&g, in.size, in.align, NULL,
						    off, &res), 0);
		h = check_valid(&in, off);
		ck_assert_uint_eq(h, res.height);
		ck_assert_uint_le(res.lower_bound, h);
		ck_assert_uint_eq(h, optimum(&in));
		ck_assert_int_eq(cgs_dsa_pack_graph(&g, in.size, in.align, NULL,
						    again, NULL), 0);
		ck_assert_int_eq(memcmp(off, again, in.n * sizeof(*off)), 0);
		cgs_graph_release(&g);
	}
}
END_TEST

/* A five-cycle of unit buffers needs three units; its cliques weigh two. */
START_TEST(graph_odd_cycle)
{
	struct cgs_graph g;
	struct cgs_dsa_result res;
	uint64_t size[5] = {1, 1, 1, 1, 1}, off[5];
	unsigned i;

	ck_assert_int_eq(cgs_graph_init(&g, 5), 0);
	for (i = 0; i < 5; i++) {
		cgs_bit_set(cgs_graph_row(&g, i), (i + 1) % 5);
		cgs_bit_set(cgs_graph_row(&g, (i + 1) % 5), i);
	}
	ck_assert_int_eq(cgs_dsa_pack_graph(&g, size, NULL, NULL, off, &res), 0);
	ck_assert_uint_eq(res.height, 3);
	ck_assert_uint_eq(res.lower_bound, 2);
	ck_assert_int_eq(res.optimal, 0);
	for (i = 0; i < 5; i++)
		ck_assert(off[i] != off[(i + 1) % 5]);
	/* A bound from the caller is taken as the engine's. */
	{
		struct cgs_dsa_options opt = {.lower = 3};

		ck_assert_int_eq(cgs_dsa_pack_graph(&g, size, NULL, &opt, off,
						    &res), 0);
		ck_assert_uint_eq(res.lower_bound, 3);
		ck_assert_int_eq(res.optimal, 1);
	}
	cgs_graph_release(&g);
}
END_TEST

/* Larger graphs, past exhaustive search: still valid and aligned. */
START_TEST(graph_larger_valid)
{
	enum { N = 300 };
	/* A small budget: the bound is rarely reachable here. */
	struct cgs_dsa_options opt = {.node_budget = 20000};
	struct cgs_graph g;
	struct cgs_dsa_result res;
	static uint64_t size[N], align[N], off[N];
	unsigned i, j, trial;

	rng_state = 77;
	for (trial = 0; trial < 4; trial++) {
		ck_assert_int_eq(cgs_graph_init(&g, N), 0);
		for (i = 0; i < N; i++) {
			align[i] = (uint64_t)256 << below(3);
			size[i] = up_to(1 + below(1 << 20), align[i]);
		}
		for (i = 0; i < N; i++)
			for (j = i + 1; j < N; j++)
				if (below(100) < 5 + 10 * trial) {
					cgs_bit_set(cgs_graph_row(&g, i), j);
					cgs_bit_set(cgs_graph_row(&g, j), i);
				}
		ck_assert_int_eq(cgs_dsa_pack_graph(&g, size, align, &opt, off,
						    &res), 0);
		/* The budget, plus the greedy's four dives. */
		ck_assert_uint_le(res.nodes, opt.node_budget + 4 * (64 * N + 1024));
		for (i = 0; i < N; i++) {
			ck_assert_uint_eq(off[i] % align[i], 0);
			ck_assert_uint_le(off[i] + size[i], res.height);
			for (j = 0; j < N; j++)
				if (cgs_graph_edge(&g, i, j))
					ck_assert(off[i] + size[i] <= off[j] ||
						  off[j] + size[j] <= off[i]);
		}
		ck_assert_uint_ge(res.height, res.lower_bound);
		cgs_graph_release(&g);
	}
}
END_TEST

/* Past CGS_DSA_SEARCH_MAX buffers only the greedy runs: still valid. */
START_TEST(graph_beyond_search)
{
	enum { N = CGS_DSA_SEARCH_MAX + 100 };
	struct cgs_graph g;
	struct cgs_dsa_result res;
	uint64_t *size = malloc(N * sizeof(*size));
	uint64_t *off = malloc(N * sizeof(*off));
	unsigned i, j;

	ck_assert(size && off);
	rng_state = 1234;
	ck_assert_int_eq(cgs_graph_init(&g, N), 0);
	for (i = 0; i < N; i++) {
		size[i] = 1 + below(1000);
		for (j = 0; j < 8; j++) {
			unsigned u = (unsigned)below(N);

			if (u != i) {
				cgs_bit_set(cgs_graph_row(&g, i), u);
				cgs_bit_set(cgs_graph_row(&g, u), i);
			}
		}
	}
	ck_assert_int_eq(cgs_dsa_pack_graph(&g, size, NULL, NULL, off, &res), 0);
	ck_assert_uint_eq(res.nodes, 0);
	for (i = 0; i < N; i++) {
		ck_assert_uint_le(off[i] + size[i], res.height);
		for (j = 0; j < N; j++)
			if (cgs_graph_edge(&g, i, j))
				ck_assert(off[i] + size[i] <= off[j] ||
					  off[j] + size[j] <= off[i]);
	}
	ck_assert_uint_ge(res.height, res.lower_bound);
	cgs_graph_release(&g);
	free(size);
	free(off);
}
END_TEST

START_TEST(bad_arguments)
{
	int64_t lo[2] = {0, 0}, up[2] = {1, 1};
	uint64_t size[2] = {1, 1}, align[2] = {1, 1}, off[2];
	struct cgs_dsa_result res;

	size[1] = 0;
	ck_assert_int_eq(cgs_dsa_pack_intervals(2, lo, up, size, NULL, NULL,
						off, NULL), CGS_E_ARG);
	size[1] = 1;
	up[1] = 0;
	ck_assert_int_eq(cgs_dsa_pack_intervals(2, lo, up, size, NULL, NULL,
						off, NULL), CGS_E_ARG);
	up[1] = 1;
	align[0] = 0;
	ck_assert_int_eq(cgs_dsa_pack_intervals(2, lo, up, size, align, NULL,
						off, NULL), CGS_E_ARG);
	align[0] = 1;
	size[0] = (uint64_t)INT64_MAX;
	ck_assert_int_eq(cgs_dsa_pack_intervals(2, lo, up, size, align, NULL,
						off, NULL), CGS_E_ARG);
	size[0] = 1;
	ck_assert_int_eq(cgs_dsa_pack_intervals(2, lo, up, size, align, NULL,
						off, &res), 0);
	ck_assert_uint_eq(res.height, 2);
	ck_assert_int_eq(cgs_dsa_pack_intervals(0, NULL, NULL, NULL, NULL,
						NULL, NULL, &res), 0);
	ck_assert_uint_eq(res.height, 0);
	ck_assert_int_eq(cgs_dsa_pack_graph(NULL, size, NULL, NULL, off, NULL),
			 CGS_E_ARG);
}
END_TEST

static Suite *dsa_suite(void)
{
	Suite *s = suite_create("dsa");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, intervals_optimal_on_small);
	tcase_add_test(tc, intervals_optimal_with_grain);
	tcase_add_test(tc, graph_optimal_on_small);
	tcase_add_test(tc, graph_odd_cycle);
	tcase_add_test(tc, graph_larger_valid);
	tcase_add_test(tc, graph_beyond_search);
	tcase_add_test(tc, bad_arguments);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cgs_test_run(dsa_suite());
}
