/*
 * Test-only slot maps: give every rank of a plan the rotation
 * k -> (k + 1) mod S for every reachable count, so that the manifest,
 * the verifier and the runtime see a map the planner did not choose.
 */
#ifndef CGS_TESTS_SLOT_MAPS_H
#define CGS_TESTS_SLOT_MAPS_H

#include "plan/plan.h"

/* 0, or -1 when out of memory (the plan keeps what it had). */
int cgs_test_rotate_slot_maps(struct cgs_plan *p);

#endif
