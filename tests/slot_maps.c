#include "slot_maps.h"

#include <stdlib.h>

int cgs_test_rotate_slot_maps(struct cgs_plan *p)
{
	uint32_t r, i, k, width;

	for (r = 0; r < p->n_ranks; r++) {
		struct cgs_rank_plan *rp = &p->ranks[r];
		uint32_t *map;

		width = rp->reachable[rp->n_reachable - 1];
		map = calloc((size_t)rp->n_reachable * width, sizeof(*map));
		if (!map)
			return -1;
		for (i = 0; i < rp->n_reachable; i++)
			for (k = 0; k < rp->reachable[i]; k++)
				map[i * width + k] = (k + 1) % rp->slots;
		free(rp->slot_map);
		rp->slot_map = map;
	}
	return 0;
}
