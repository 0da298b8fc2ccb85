/*
 * Feed an in-memory plan to the independent verifier, so the planner's
 * results are checked by code the planner does not share.
 */
#ifndef CGS_TESTS_VERIFY_PLAN_H
#define CGS_TESTS_VERIFY_PLAN_H

#include <stdint.h>

#include "plan/plan.h"
#include "verify/verify.h"

struct cgs_verify_plan_rank {
	struct cgs_verify_rank view;  /* points into the plan and below */
	uint64_t *arena_bytes;
	const char **variant_names;
	struct cgs_verify_range *saved;
	struct cgs_verify_range *user_grad;
	struct cgs_verify_range *saved_frames;      /* frame extents */
	struct cgs_verify_range *user_grad_frames;
	uint64_t *slot_map_start;     /* rows of the plan's slot map */
};

/*
 * Describe rank index ri of plan p (absolute ranges: frame offset plus
 * the per-variant offset inside the frame).  The plan must outlive d.
 * Returns 0 or CGS_E_NOMEM.
 */
int cgs_verify_plan_rank_init(struct cgs_verify_plan_rank *d,
			      const struct cgs_plan *p, uint32_t ri);

void cgs_verify_plan_rank_release(struct cgs_verify_plan_rank *d);

/*
 * Verify every rank of p, and that every range holds the schedule's
 * bytes.  Returns 0 or the verifier's error; stats may be NULL.
 */
int cgs_verify_plan(const struct cgs_plan *p, struct cgs_verify_stats *stats,
		    struct cgs_error *err);

#endif
