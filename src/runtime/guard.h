/*
 * Guard bands of the NVTX permissions (guard.c): which bytes each graph
 * must not touch.  Pure computation over the manifest, no CUDA, so it is
 * tested without a GPU.
 *
 * Ranges are taken with their ends rounded up to the schedule's alignment
 * (starts are aligned already), so no aligned access of up to that many
 * bytes straddles two segments.  The arena bytes these ranges cover are
 * cut at every range boundary (all frames, roles and variants) into
 * segments; a segment is therefore inside or outside each range, never
 * across one.  Graph g of variant v
 * and saved frame f = (chunk, slot, layer) owns the variant's three role
 * ranges of f and, when it is a backward graph, the variant's layer
 * ranges of user-gradient frame (chunk, slot); a backward graph of layer
 * 0 may also read every user-gradient frame's layer-0 range (the pending
 * pipeline send of the previous backward event).  Its guard is every
 * segment that touches one of its own ranges, just before or just after
 * it, and that it does not own: an overrun out of an owned range lands
 * there first (or in bytes no frame covers, which the NVTX heap already
 * reports).
 */
#ifndef CGS_RUNTIME_GUARD_H
#define CGS_RUNTIME_GUARD_H

#include <stdint.h>

#include "common/error.h"

struct cgs_runtime;

struct cgs_guard_segment {
	uint32_t arena;
	uint64_t lo, hi; /* [lo, hi) inside the arena */
};

struct cgs_guard {
	uint32_t n_segments;              /* sorted by (arena, lo) */
	struct cgs_guard_segment *segments;
	uint32_t n_graphs;
	uint64_t *guard_start;            /* n_graphs + 1 */
	uint32_t *guard;                  /* segment indices, ascending per graph */
};

/* Compute the segments and every graph's guard; CGS_E_NOMEM on failure. */
int cgs_guard_build(const struct cgs_runtime *rt, struct cgs_guard *out,
		    struct cgs_error *err);
void cgs_guard_free(struct cgs_guard *g);

#endif
