/*
 * The memory report from a manifest alone: every figure cgs_report_from_plan
 * takes from the plan is stored in the manifest, so `cgslot report` prints
 * exactly what `cgslot plan` printed for the schedule.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/report.h"
#include "common/error.h"
#include "manifest/manifest.h"

static char *dup_string(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

static void copy_role(struct cgs_report_role *dst,
		      const struct cgs_manifest_role_stats *src)
{
	dst->frames = src->frames;
	dst->colours = src->colours;
	dst->colour_lower_bound = src->colour_lower_bound;
	dst->bytes = src->bytes;
	dst->lower_bound_bytes = src->lower_bound_bytes;
}

static int fill_rank(struct cgs_report_rank *rr, const struct cgs_manifest *m,
		     uint32_t ri)
{
	struct cgs_manifest_ring ring = cgs_manifest_rank_ring(m, ri);
	const struct cgs_manifest_ring *in = &ring;
	struct cgs_manifest_rank_stats st = cgs_manifest_rank_stats(m, ri);
	uint32_t i;

	rr->rank = cgs_manifest_rank_id(m, ri);
	rr->slots = ring.slots;
	rr->slot_map = ring.slot_map != 0;
	rr->slot_map_per_chunk = ring.slot_map_per_chunk != 0;
	rr->n_reachable = cgs_manifest_reachable_count(m, ri);
	rr->graphs = cgs_manifest_capture_count(m, ri);
	copy_role(&rr->saved, &st.saved);
	copy_role(&rr->user_grad, &st.user_grad);
	rr->bytes = st.bytes;
	rr->lower_bound_bytes = st.lower_bound_bytes;
	rr->joint = st.joint;
	rr->bytes_without_sharing = st.bytes_without_sharing;
	rr->bytes_colour_arenas = st.bytes_colour_arenas;
	rr->n_arenas = cgs_manifest_arena_count(m, ri);

	rr->reachable = calloc(rr->n_reachable ? rr->n_reachable : 1,
			       sizeof(*rr->reachable));
	rr->arenas = calloc(rr->n_arenas ? rr->n_arenas : 1,
			    sizeof(*rr->arenas));
	rr->saved_colours = calloc(in->n_saved ? in->n_saved : 1,
				   sizeof(*rr->saved_colours));
	rr->user_grad_colours = calloc(in->n_user_grad ? in->n_user_grad : 1,
				       sizeof(*rr->user_grad_colours));
	if (!rr->reachable || !rr->arenas || !rr->saved_colours ||
	    !rr->user_grad_colours)
		return CGS_E_NOMEM;
	for (i = 0; i < rr->n_reachable; i++)
		rr->reachable[i] = cgs_manifest_reachable(m, ri, i);
	for (i = 0; i < rr->n_arenas; i++) {
		struct cgs_manifest_arena a = cgs_manifest_arena(m, ri, i);

		rr->arenas[i].id = i;
		rr->arenas[i].role = a.role;
		rr->arenas[i].bytes = a.bytes;
	}
	for (i = 0; i < in->n_saved; i++)
		rr->saved_colours[i] = cgs_manifest_saved_frame(m, ri, i).colour;
	for (i = 0; i < in->n_user_grad; i++) {
		struct cgs_manifest_frame f =
			cgs_manifest_user_grad_frame(m, ri, i);

		rr->user_grad_colours[i] = f.colour;
		rr->user_grad_nested += f.arena < rr->n_arenas &&
					rr->arenas[f.arena].role ==
						CGS_MANIFEST_ARENA_SAVED;
	}
	return 0;
}

int cgs_report_from_manifest(const struct cgs_manifest *m,
			     struct cgs_report **out, struct cgs_error *err)
{
	const struct cgs_manifest_info *in;
	struct cgs_report *r;
	uint32_t i;

	if (!m || !out)
		return cgs_error_set(err, CGS_E_ARG,
				     "cgs_report_from_manifest: NULL argument");
	*out = NULL;
	in = cgs_manifest_info(m);
	r = calloc(1, sizeof(*r));
	if (!r)
		goto nomem;
	r->slots = in->slots;
	r->max_microbatches = in->max_microbatches;
	r->pp = in->pp;
	r->vpp = in->vpp;
	r->group = in->group;
	r->layers_total = in->layers_total;
	r->alignment = in->alignment;
	r->n_variants = in->n_variants;
	r->n_ranks = in->n_ranks;
	r->schedule = dup_string(in->name);
	r->layers = calloc(in->vpp, sizeof(*r->layers));
	r->variants = calloc(in->n_variants, sizeof(*r->variants));
	r->ranks = calloc(in->n_ranks, sizeof(*r->ranks));
	if (!r->schedule || !r->layers || !r->variants || !r->ranks)
		goto nomem;
	for (i = 0; i < in->vpp; i++)
		r->layers[i] = cgs_manifest_chunk_layers(m, i);
	for (i = 0; i < in->n_variants; i++) {
		r->variants[i].cp = cgs_manifest_variant_cp(m, i);
		r->variants[i].name = dup_string(cgs_manifest_variant_name(m, i));
		if (!r->variants[i].name)
			goto nomem;
	}
	for (i = 0; i < in->n_ranks; i++) {
		if (fill_rank(&r->ranks[i], m, i))
			goto nomem;
		/* as the plan's report says it: rings that differ */
		if (r->ranks[i].slots != r->slots)
			r->per_rank = 1;
	}
	*out = r;
	return 0;
nomem:
	cgs_report_destroy(&r);
	return cgs_error_set(err, CGS_E_NOMEM,
			     "out of memory building the memory report");
}
