/*
 * Test-only slot maps: give the ranks of a plan maps the planner did not
 * choose, so that the manifest, the verifier and the runtime see them.
 */
#ifndef CGS_TESTS_SLOT_MAPS_H
#define CGS_TESTS_SLOT_MAPS_H

#include "plan/plan.h"

/*
 * Every rank takes the rotation k -> (k + 1) mod S for every reachable
 * count, shared by every chunk.  0, or -1 when out of memory (the plan
 * keeps what it had).
 */
int cgs_test_rotate_slot_maps(struct cgs_plan *p);

/*
 * Every rank takes a map per count and chunk: microbatch k of chunk c in
 * slot (k + c) mod S.  With `relabel`, frame (c, s) of the plan is moved
 * to slot (s + c) mod S with everything it holds (place, colour, layout,
 * graphs), so each microbatch keeps its bytes and the plan stays exactly
 * as safe as the planner made it; without, the frames stay where they
 * were and only the map changes.  0, or -1 when out of memory.
 */
int cgs_test_chunk_slot_maps(struct cgs_plan *p, int relabel);

#endif
