/*
 * Nesting: user-gradient frames in the saved arena's holes.
 *
 * A user-gradient frame is live only from its backward to the next one,
 * so at any instant most of the saved arena it could share is held by
 * saved frames that are not live then.  After packing, each gradient
 * frame, those that meet the fewest saved groups first, takes the lowest
 * offset of the saved arena where it meets no saved frame it is live
 * with (liveness.c keeps which: x->grad_saved) and no gradient frame
 * already nested that it meets; the frames left are laid out again in the
 * gradient arena, first fit in the order of their offsets there, so no
 * frame moves up and the arena never grows.  The plan keeps this only
 * where the gradient arena shrinks; its frames keep their colours (the
 * seven-field plan's arena ids), and cgslot verify replays both kinds in
 * one live set, as it always has.
 *
 * The saved arena's bytes stay as they were: a gradient frame never
 * raises it.  On the bench's family this moves 18 of 294 ranks, q01 rank
 * 0 (two arenas of their own kept it 2.2% above its bound) to the bound.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/stage.h"

struct span {
	uint64_t start, end;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* The lowest offset below `top` where `bytes` meet none of busy[0, n). */
static uint64_t lowest_hole(struct span *busy, uint64_t n, uint64_t bytes,
			    uint64_t top)
{
	uint64_t at = 0, i;

	qsort(busy, n, sizeof(*busy), span_cmp);
	for (i = 0; i < n && busy[i].start < at + bytes; i++)
		if (busy[i].end > at)
			at = busy[i].end;
	return at <= top && bytes <= top - at ? at : UINT64_MAX;
}

/* Gradient frames by how many saved groups they meet, fewest first. */
struct by_meets {
	uint32_t meets, g;
};

static int meets_cmp(const void *a, const void *b)
{
	const struct by_meets *x = a, *y = b;

	if (x->meets != y->meets)
		return x->meets < y->meets ? -1 : 1;
	return (x->g > y->g) - (x->g < y->g);
}

/* Frames left in the gradient arena, by their offset there. */
struct by_offset {
	uint64_t offset;
	uint32_t g;
};

static int offset_cmp(const void *a, const void *b)
{
	const struct by_offset *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (x->g > y->g) - (x->g < y->g);
}

int cgs_nest_grads(struct cgs_rank_work *x, struct cgs_error *err)
{
	struct cgs_rank_plan *rp = x->rp;
	uint32_t n = x->n_groups, i, j, g, h, w, n_busy_max = 0, left = 0;
	uint64_t top = rp->saved_stats.bytes, grad_top = 0, *where = NULL;
	uint64_t *placed = NULL;
	struct by_meets *order = NULL;
	struct span *busy = NULL;
	struct by_offset *rest = NULL;
	int rc = 0;

	rp->n_nested = 0;
	if (n == 0 || rp->user_grad_stats.bytes == 0)
		return 0;
	order = malloc(n * sizeof(*order));
	where = malloc(n * sizeof(*where));
	placed = malloc(n * sizeof(*placed));
	rest = malloc(n * sizeof(*rest));
	for (g = 0; order && g < n; g++) {
		const uint64_t *row = cgs_graph_row(&x->grad_saved, g);
		uint32_t meets = 0, frames = 0;

		for (w = 0; w < x->grad_saved.words; w++)
			meets += (uint32_t)__builtin_popcountll(row[w]);
		for (h = 0; h < n; h++)
			if (cgs_bit_test(row, h))
				frames += x->group_layers[h];
		order[g] = (struct by_meets){meets, g};
		if (frames + n > n_busy_max)
			n_busy_max = frames + n;
	}
	busy = malloc(((uint64_t)n_busy_max + 1) * sizeof(*busy));
	if (!order || !where || !placed || !rest || !busy) {
		rc = cgs_plan_fail(err, CGS_E_NOMEM, rp->rank,
				   "nesting the gradient frames");
		goto out;
	}
	qsort(order, n, sizeof(*order), meets_cmp);
	for (i = 0; i < n; i++) {
		uint64_t n_busy = 0, bytes;

		g = order[i].g;
		bytes = rp->user_grad[g].bytes;
		for (h = 0; h < n; h++) {
			uint32_t f;

			if (!cgs_bit_test(cgs_graph_row(&x->grad_saved, g), h))
				continue;
			for (f = x->group_first[h]; f < x->group_first[h + 1];
			     f++)
				busy[n_busy++] = (struct span){
					rp->saved[f].offset,
					rp->saved[f].offset + rp->saved[f].bytes};
		}
		for (j = 0; j < i; j++) {
			h = order[j].g;
			if (where[h] != UINT64_MAX &&
			    cgs_graph_edge(&x->grad_conflicts, g, h))
				busy[n_busy++] = (struct span){
					where[h], where[h] + rp->user_grad[h].bytes};
		}
		where[g] = bytes ? lowest_hole(busy, n_busy, bytes, top)
				 : UINT64_MAX;
	}
	/* the rest, first fit by their offsets in the gradient arena */
	for (g = 0; g < n; g++)
		if (where[g] == UINT64_MAX)
			rest[left++] = (struct by_offset){
				rp->user_grad[g].offset, g};
	qsort(rest, left, sizeof(*rest), offset_cmp);
	for (i = 0; i < left; i++) {
		uint64_t n_busy = 0;

		g = rest[i].g;
		for (j = 0; j < i; j++) {
			h = rest[j].g;
			if (cgs_graph_edge(&x->grad_conflicts, g, h))
				busy[n_busy++] = (struct span){
					placed[h], placed[h] + rp->user_grad[h].bytes};
		}
		placed[g] = lowest_hole(busy, n_busy, rp->user_grad[g].bytes,
					UINT64_MAX - rp->user_grad[g].bytes);
		if (placed[g] + rp->user_grad[g].bytes > grad_top)
			grad_top = placed[g] + rp->user_grad[g].bytes;
	}
	if (grad_top >= rp->user_grad_stats.bytes)
		goto out;
	for (g = 0; g < n; g++) {
		struct cgs_frame *f = &rp->user_grad[g];

		if (where[g] != UINT64_MAX) {
			f->arena = 0;
			f->offset = where[g];
			rp->n_nested++;
		} else {
			f->offset = placed[g];
		}
	}
	rp->user_grad_stats.bytes = grad_top;
	/*
	 * a gradient frame may nest, so no bytes of the gradient arena are
	 * certain; the saved arena's floor still holds
	 */
	rp->user_grad_stats.floor_bytes = 0;
	rp->arenas[1].bytes = grad_top;
	rp->bytes = rp->saved_stats.bytes + grad_top;
out:
	free(order);
	free(where);
	free(placed);
	free(rest);
	free(busy);
	return rc;
}
