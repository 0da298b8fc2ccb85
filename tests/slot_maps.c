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
		rp->slot_map_rows = 1;
	}
	return 0;
}

/* Saved frame index of (c, s, l) in rank plan rp (plan.h). */
static uint32_t frame_index(const struct cgs_plan *p,
			    const struct cgs_rank_plan *rp, uint32_t c,
			    uint32_t s, uint32_t l)
{
	return p->layer_base[c] * rp->slots + s * p->schedule->layers[c] + l;
}

/*
 * Move frame (c, s) of every kind to slot (s + c) mod S.  The role ranges
 * are kept per (variant, layer), the same in every slot (plan.h): they
 * stay.
 */
static int relabel(const struct cgs_plan *p, struct cgs_rank_plan *rp)
{
	const struct cgs_schedule *sc = p->schedule;
	uint32_t S = rp->slots, c, s, l, f, to, g;
	uint32_t *new_of = malloc(((size_t)rp->n_saved + 1) * sizeof(*new_of));
	struct cgs_frame *saved = malloc(((size_t)rp->n_saved + 1) * sizeof(*saved));
	struct cgs_frame *ug = malloc(((size_t)rp->n_user_grad + 1) * sizeof(*ug));

	if (!new_of || !saved || !ug) {
		free(new_of);
		free(saved);
		free(ug);
		return -1;
	}
	for (c = 0; c < sc->vpp; c++)
		for (s = 0; s < S; s++) {
			ug[c * S + (s + c) % S] = rp->user_grad[c * S + s];
			ug[c * S + (s + c) % S].slot = (s + c) % S;
			for (l = 0; l < sc->layers[c]; l++) {
				f = frame_index(p, rp, c, s, l);
				to = frame_index(p, rp, c, (s + c) % S, l);
				new_of[f] = to;
				saved[to] = rp->saved[f];
				saved[to].slot = (s + c) % S;
			}
		}
	/* graph (v, f, d) = (v * n_saved + f) * 2 + d follows its frame */
	for (g = 0; g < rp->n_graphs; g++) {
		uint32_t x = rp->capture[g];

		f = x / 2 % rp->n_saved;
		rp->capture[g] = (x / 2 / rp->n_saved * rp->n_saved +
				  new_of[f]) * 2 + x % 2;
	}
	free(rp->saved);
	free(rp->user_grad);
	rp->saved = saved;
	rp->user_grad = ug;
	free(new_of);
	return 0;
}

int cgs_test_chunk_slot_maps(struct cgs_plan *p, int relabel_frames)
{
	uint32_t r, i, c, k, width, M = p->schedule->vpp;

	for (r = 0; r < p->n_ranks; r++) {
		struct cgs_rank_plan *rp = &p->ranks[r];
		uint32_t *map;

		width = rp->reachable[rp->n_reachable - 1];
		map = calloc((size_t)rp->n_reachable * M * width, sizeof(*map));
		if (!map || (relabel_frames && relabel(p, rp))) {
			free(map);
			return -1;
		}
		for (i = 0; i < rp->n_reachable; i++)
			for (c = 0; c < M; c++)
				for (k = 0; k < rp->reachable[i]; k++)
					map[((size_t)i * M + c) * width + k] =
						(k + c) % rp->slots;
		free(rp->slot_map);
		rp->slot_map = map;
		rp->slot_map_rows = M;
	}
	return 0;
}
