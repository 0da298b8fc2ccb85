#include "verify_plan.h"

#include <stdlib.h>

#include "common/error.h"

int cgs_verify_plan_rank_init(struct cgs_verify_plan_rank *d,
			      const struct cgs_plan *p, uint32_t ri)
{
	const struct cgs_schedule *s = p->schedule;
	const struct cgs_rank_plan *rp = &p->ranks[ri];
	uint64_t n = (uint64_t)rp->n_saved * s->n_variants, i, li, lt = 0;
	uint32_t a, v, f, rows;

	*d = (struct cgs_verify_plan_rank){0};
	d->arena_bytes = malloc(((size_t)rp->n_arenas + 1) *
				sizeof(*d->arena_bytes));
	d->variant_names = malloc(s->n_variants * sizeof(*d->variant_names));
	d->saved = malloc((n * 3 + 1) * sizeof(*d->saved));
	d->user_grad = malloc((n + 1) * sizeof(*d->user_grad));
	d->saved_frames = malloc(((size_t)rp->n_saved + 1) *
				 sizeof(*d->saved_frames));
	d->user_grad_frames = malloc(((size_t)rp->n_user_grad + 1) *
				     sizeof(*d->user_grad_frames));
	rows = rp->slot_map_rows > 1 ? rp->slot_map_rows : 1;
	d->slot_map_start = malloc(((size_t)rp->n_reachable * rows + 1) *
				   sizeof(*d->slot_map_start));
	if (!d->arena_bytes || !d->variant_names || !d->saved ||
	    !d->user_grad || !d->saved_frames || !d->user_grad_frames ||
	    !d->slot_map_start) {
		cgs_verify_plan_rank_release(d);
		return CGS_E_NOMEM;
	}
	for (a = 0; a < rp->n_arenas; a++)
		d->arena_bytes[a] = rp->arenas[a].bytes;
	/* plan.h: rows of the largest count's width, per count (and chunk) */
	for (a = 0; a < rp->n_reachable * rows; a++)
		d->slot_map_start[a] = (uint64_t)a *
				       rp->reachable[rp->n_reachable - 1];
	for (v = 0; v < s->n_variants; v++)
		d->variant_names[v] = s->variants[v].name;
	for (a = 0; a < s->vpp; a++)
		lt += s->layers[a];
	for (f = 0; f < rp->n_saved; f++)
		d->saved_frames[f] = (struct cgs_verify_range){
			rp->saved[f].arena, rp->saved[f].offset,
			rp->saved[f].bytes};
	for (f = 0; f < rp->n_user_grad; f++)
		d->user_grad_frames[f] = (struct cgs_verify_range){
			rp->user_grad[f].arena, rp->user_grad[f].offset,
			rp->user_grad[f].bytes};
	for (v = 0; v < s->n_variants; v++)
		for (f = 0; f < rp->n_saved; f++) {
			const struct cgs_frame *sf = &rp->saved[f];
			const struct cgs_frame *ug;
			uint32_t r, c = 0, base = 0;

			/* (c, s) from the index, not from the plan's labels. */
			while (f >= (base + s->layers[c]) * rp->slots)
				base += s->layers[c++];
			ug = &rp->user_grad[c * rp->slots +
					    (f - base * rp->slots) / s->layers[c]];

			i = (uint64_t)v * rp->n_saved + f;
			/* the plan keeps one layout per (variant, layer) */
			li = (uint64_t)v * lt + base +
			     (f - base * rp->slots) % s->layers[c];
			for (r = 0; r < 3; r++)
				d->saved[i * 3 + r] = (struct cgs_verify_range){
					sf->arena,
					sf->offset + rp->saved_roles[li * 3 + r].offset,
					rp->saved_roles[li * 3 + r].bytes};
			d->user_grad[i] = (struct cgs_verify_range){
				ug->arena, ug->offset + rp->user_grad_layers[li].offset,
				rp->user_grad_layers[li].bytes};
		}
	d->view = (struct cgs_verify_rank){
		.rank = rp->rank,
		.slots = rp->slots,
		.vpp = s->vpp,
		.layers = s->layers,
		.n_variants = s->n_variants,
		.variant_names = d->variant_names,
		.n_reachable = rp->n_reachable,
		.reachable = rp->reachable,
		.order_start = rp->order_start,
		.order_entries = rp->order_entries,
		.slot_map = rp->slot_map,
		.slot_map_start = rp->slot_map ? d->slot_map_start : NULL,
		.slot_map_rows = rows,
		.n_arenas = rp->n_arenas,
		.arena_bytes = d->arena_bytes,
		.alignment = s->alignment,
		.n_saved = rp->n_saved,
		.saved = d->saved,
		.user_grad = d->user_grad,
		.saved_frames = d->saved_frames,
		.user_grad_frames = d->user_grad_frames,
	};
	return 0;
}

void cgs_verify_plan_rank_release(struct cgs_verify_plan_rank *d)
{
	if (!d)
		return;
	free(d->arena_bytes);
	free(d->variant_names);
	free(d->saved);
	free(d->user_grad);
	free(d->saved_frames);
	free(d->user_grad_frames);
	free(d->slot_map_start);
	*d = (struct cgs_verify_plan_rank){0};
}

int cgs_verify_plan(const struct cgs_plan *p, struct cgs_verify_stats *stats,
		    struct cgs_error *err)
{
	struct cgs_verify_plan_rank d;
	uint32_t ri;
	int rc = 0;

	for (ri = 0; ri < p->n_ranks && rc == 0; ri++) {
		if (cgs_verify_plan_rank_init(&d, p, ri))
			return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
		rc = cgs_verify_rank_check(&d.view, stats, err);
		if (rc == 0)
			rc = cgs_verify_rank_sizes(&d.view, p->schedule, NULL,
						   err);
		cgs_verify_plan_rank_release(&d);
	}
	return rc;
}
