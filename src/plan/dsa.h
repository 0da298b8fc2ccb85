/*
 * Dynamic storage allocation: place buffers at byte offsets so that
 * buffers in conflict never share a byte, keeping the height (the largest
 * offset + size) small.  Internal to src/plan; used by `cgslot pack` and
 * by the planner for frames of different sizes.
 *
 * Two entry points share one engine:
 *
 *   cgs_dsa_pack_intervals: buffers with lifetimes [lower, upper); two
 *     buffers conflict when their lifetimes intersect.  Scales to 10^5
 *     buffers and more.
 *
 *   cgs_dsa_pack_graph: buffers with an explicit conflict relation (a
 *     struct cgs_graph), for relations that are not interval graphs, such
 *     as the planner's union over every reachable order.
 *
 * The engine:
 *   1. a lower bound: the heaviest time (intervals) or the heaviest of the
 *      cliques it finds (graphs), raised to opt->lower when given;
 *   2. a greedy placement (intervals: fill the lowest, leftmost gap of the
 *      skyline with the widest buffer that fits in it, forwards and
 *      backwards in time, O(n log n); graphs: first fit under four buffer
 *      priorities, and the search's first dive);
 *   3. when the greedy height is above the bound (and above the capacity)
 *      and there are at most CGS_DSA_SEARCH_MAX buffers, a branch and
 *      bound over canonical placements: buffers in nondecreasing offset,
 *      each on top of its highest placed conflict; a branch dies when a
 *      clique's remaining bytes no longer fit under the target, when a
 *      buffer could fit below the offset chosen (a gap), or when a buffer
 *      can no longer be placed.  For intervals, a time that no unplaced
 *      buffer crosses splits the search into parts searched apart, each
 *      with its buffers ranked again by the cliques' bytes left.  It asks
 *      for the capacity (with the whole budget) or the bound first, then
 *      bisects between the bound and the best height found, trying the
 *      priorities in turn per target with node limits that double (four
 *      for graphs; for intervals the three led by the heaviest clique,
 *      and the bisection stops within 1/8192 of the best once a target
 *      ran out of nodes).
 *
 * Results are deterministic: the search is limited by a node budget, not
 * by the clock, unless opt->time_limit is set (then a slower machine may
 * stop earlier with a worse, still valid, placement).  When the bound is
 * out of reach the whole budget is spent (about 0.3 to 1.5 microseconds a
 * node for a few hundred buffers): a caller that packs many instances
 * (the planner) should pass a smaller node_budget.
 *
 * Offsets are multiples of each buffer's alignment (any value >= 1); no
 * two conflicting buffers overlap; the height is at least the bound.
 */
#ifndef CGS_PLAN_DSA_H
#define CGS_PLAN_DSA_H

#include <stdint.h>

#include "plan/graph.h"

/*
 * Above this many buffers (or, for intervals, 2^25 conflict pairs) only
 * the greedy runs.
 */
#define CGS_DSA_SEARCH_MAX 2000u

/* Greatest common divisor (0 with 0 gives 0): the grain of a set of sizes. */
static inline uint64_t cgs_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

struct cgs_dsa_options {
	/*
	 * Stop as soon as a placement of height <= capacity is found (0: no
	 * capacity, minimise down to the lower bound).
	 */
	uint64_t capacity;
	/* A lower bound the caller knows (e.g. a max-weight clique); 0: none. */
	uint64_t lower;
	/*
	 * Nodes of the improving search; 0: CGS_DSA_DEFAULT_NODES.  (The
	 * graph greedy's dives come on top, at most 4 * (64 n + 1024).)
	 */
	uint64_t node_budget;
	/* Seconds of search at most; 0: no clock limit (deterministic). */
	double time_limit;
};

/*
 * On the challenging suite a second million nodes found nothing lower
 * than the first, at twice the time.
 */
#define CGS_DSA_DEFAULT_NODES 1000000u

struct cgs_dsa_result {
	uint64_t height;      /* max over buffers of offset + size */
	uint64_t lower_bound; /* the engine's bound (>= opt->lower) */
	uint64_t nodes;       /* search nodes spent */
	int optimal;          /* 1 when height == lower_bound */
};

/*
 * Pack n buffers with lifetimes [lower[i], upper[i]) (lower < upper),
 * sizes size[i] >= 1 and alignments align[i] >= 1 (align may be NULL for
 * 1).  The sum over buffers of size + align - 1 must not exceed INT64_MAX.
 * Writes offset[n] and *res (res may be NULL); opt may be NULL for the
 * defaults.  Returns 0, CGS_E_ARG (a buffer breaks the rules above) or
 * CGS_E_NOMEM.
 */
int cgs_dsa_pack_intervals(uint32_t n, const int64_t *lower,
			   const int64_t *upper, const uint64_t *size,
			   const uint64_t *align,
			   const struct cgs_dsa_options *opt,
			   uint64_t *offset, struct cgs_dsa_result *res);

/*
 * Pack g->n buffers with sizes size[v] >= 1 and alignments align[v] >= 1
 * (align may be NULL) so that adjacent vertices never overlap.  The graph
 * must be symmetric without self loops.  Same rules, outputs and return
 * codes as cgs_dsa_pack_intervals, and CGS_E_LIMIT when the graph has
 * more than 2^26 conflict pairs (a conflict list would not fit).
 */
int cgs_dsa_pack_graph(const struct cgs_graph *g, const uint64_t *size,
		       const uint64_t *align,
		       const struct cgs_dsa_options *opt, uint64_t *offset,
		       struct cgs_dsa_result *res);

/*
 * The heaviest clique of g that cgs_clique_max finds with vertex v
 * weighing size[v] bytes (counted in their greatest common divisor),
 * stopping at `upper` bytes or when *budget runs out (any clique will do:
 * no layout of g is lower).  0 where the sizes do not fit its 32-bit
 * weights; CGS_E_NOMEM.
 */
int64_t cgs_dsa_clique_bytes(const struct cgs_graph *g, const uint64_t *size,
			     uint64_t upper, uint64_t *budget);

/*
 * The largest sum of sizes live at one time of the intervals (half-open:
 * a buffer ending at t and one starting at t are never live together)
 * into *bound (0 for n == 0).  Returns 0 or CGS_E_NOMEM.
 */
int cgs_dsa_interval_bound(uint32_t n, const int64_t *lower,
			   const int64_t *upper, const uint64_t *size,
			   uint64_t *bound);

#endif
