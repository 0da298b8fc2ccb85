/*
 * Conflict graphs of the planner: n vertices, an adjacency bitset row per
 * vertex.  Internal to src/plan.
 */
#ifndef CGS_PLAN_GRAPH_H
#define CGS_PLAN_GRAPH_H

#include <stdint.h>

struct cgs_graph {
	uint32_t n;
	uint32_t words;   /* 64-bit words per row */
	uint64_t *adj;    /* n * words; symmetric, no self loops */
};

static inline uint32_t cgs_bits_words(uint32_t n)
{
	return (n + 63) / 64;
}

static inline int cgs_bit_test(const uint64_t *row, uint32_t i)
{
	return (int)((row[i >> 6] >> (i & 63)) & 1);
}

static inline void cgs_bit_set(uint64_t *row, uint32_t i)
{
	row[i >> 6] |= (uint64_t)1 << (i & 63);
}

static inline void cgs_bit_clear(uint64_t *row, uint32_t i)
{
	row[i >> 6] &= ~((uint64_t)1 << (i & 63));
}

/*
 * A number below `bound` from a xorshift64* generator at *state: fast,
 * and the same on every machine, so the local searches that draw from it
 * depend on their input alone.
 */
static inline uint32_t cgs_random(uint64_t *state, uint32_t bound)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return (uint32_t)(((*state * 2685821657736338717ull) >> 33) % bound);
}

static inline uint64_t *cgs_graph_row(const struct cgs_graph *g, uint32_t v)
{
	return g->adj + (uint64_t)v * g->words;
}

static inline int cgs_graph_edge(const struct cgs_graph *g, uint32_t a,
				 uint32_t b)
{
	return cgs_bit_test(cgs_graph_row(g, a), b);
}

/* Allocate an edgeless graph; returns 0 or CGS_E_NOMEM. */
int cgs_graph_init(struct cgs_graph *g, uint32_t n);
void cgs_graph_release(struct cgs_graph *g);

/* Make the graph symmetric (a row set either way becomes an edge). */
void cgs_graph_symmetrise(struct cgs_graph *g);

/* Degree of every vertex into deg[n]. */
void cgs_graph_degrees(const struct cgs_graph *g, uint32_t *deg);

/*
 * Colouring.  Every function writes colour[v] in 0..k-1 and returns k, or
 * a negative CGS_E_* code.
 *
 * cgs_colour_dsatur: Brelaz's heuristic, ties broken by degree, then by the
 * lower index, so the result depends on the graph alone.
 *
 * cgs_colour_exact: a DSATUR-ordered branch and bound starting from the
 * colouring already in colour[] (k colours); stops when it reaches
 * `lower` colours (proven optimal) or after *budget nodes, which it
 * decrements.  Never returns more than k.  *proven (may be NULL) says
 * whether the result is optimal: it reached `lower`, or the search
 * closed every branch within the budget.
 */
int cgs_colour_dsatur(const struct cgs_graph *g, uint32_t *colour);
int cgs_colour_exact(const struct cgs_graph *g, uint32_t lower, uint32_t k,
		     uint32_t *colour, uint64_t *budget, int *proven);

/*
 * A proper colouring with k colours by tabu search from the colouring in
 * colour[] (colours >= k drawn anew), within *budget units of work, which
 * it decrements (a move costs 1 plus the vertices in conflict times k
 * over 1024).  Returns 1 and rewrites colour[] when it found one, 0 when
 * the budget ran out first (colour[] unchanged), or CGS_E_NOMEM.
 * Deterministic: the same graph, start and budget give the same result.
 */
int cgs_colour_tabu(const struct cgs_graph *g, uint32_t k, uint32_t *colour,
		    uint64_t *budget);

/*
 * The weight of the heaviest clique found by a bounded branch and bound
 * (greedy-colouring bound); weight may be NULL for 1 per vertex.  The
 * result is at least `known` (a clique the caller already has) and at
 * least a greedy clique (vertices by falling degree), which costs no
 * budget.  Stops as soon as it reaches `upper` (no clique can be
 * heavier) or after *budget nodes, which it decrements.  Returns the
 * weight or a negative CGS_E_* code.
 */
int64_t cgs_clique_max(const struct cgs_graph *g, const uint32_t *weight,
		       uint64_t known, uint64_t upper, uint64_t *budget);

/*
 * First-fit packing of n items with sizes (multiples of the alignment) so
 * that adjacent items never overlap: items are placed in `order`, each at
 * the lowest offset free of its placed neighbours.  Writes offset[] and
 * returns the arena size through *total.  Returns 0 or CGS_E_NOMEM.
 */
int cgs_pack_first_fit(const struct cgs_graph *g, const uint64_t *size,
		       const uint32_t *order, uint64_t *offset,
		       uint64_t *total);

#endif
