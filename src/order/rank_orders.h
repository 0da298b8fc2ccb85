/* Every planned order of one rank of a schedule. */
#ifndef CGS_ORDER_RANK_ORDERS_H
#define CGS_ORDER_RANK_ORDERS_H

#include <stdint.h>

#include "input/schedule.h"

struct cgs_rank_orders {
	uint32_t rank;
	uint32_t n_reachable;
	uint32_t *reachable;    /* ascending microbatch counts */
	uint64_t *order_start;  /* n_reachable + 1 offsets into entries */
	int32_t *entries;
};

/*
 * The orders of `rank`: the schedule's explicit orders for that rank when
 * it lists any (sorted by microbatch count), else Megatron's order for
 * every reachable count.  The schedule must be validated.  Release with
 * cgs_rank_orders_release.
 */
int cgs_rank_orders_init(struct cgs_rank_orders *ro,
			 const struct cgs_schedule *s, uint32_t rank,
			 struct cgs_error *err);

void cgs_rank_orders_release(struct cgs_rank_orders *ro);

/* Total entries over every reachable order of one rank, without building. */
uint64_t cgs_rank_orders_entries(const struct cgs_schedule *s, uint32_t rank);

#endif
