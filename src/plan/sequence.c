/*
 * The capture sequence: graphs in upstream's lockstep order over the
 * rank's largest reachable order, each entry once per variant, smallest
 * CP first; then the graphs of slots that order never reaches.
 */
#include <stdlib.h>

#include "plan/stage.h"

/* Variants by CP, smallest first, stable for equal CP. */
static void variants_by_cp(const struct cgs_schedule *s, uint32_t *by_cp)
{
	uint32_t i, j;

	for (i = 0; i < s->n_variants; i++) {
		for (j = i; j > 0 && s->variants[by_cp[j - 1]].cp > s->variants[i].cp; j--)
			by_cp[j] = by_cp[j - 1];
		by_cp[j] = i;
	}
}

/* Append the graphs of one order entry not yet listed. */
static void capture_event(const struct cgs_rank_work *x, const uint32_t *by_cp,
			  uint32_t c, uint32_t k, uint32_t direction,
			  uint8_t *taken, uint32_t *n)
{
	const struct cgs_rank_plan *rp = x->rp;
	uint32_t L = x->s->layers[c], v, j;
	uint64_t first = (uint64_t)x->layer_base[c] * x->slots +
			 (uint64_t)cgs_slot_of(rp, rp->n_reachable - 1, c, k) * L,
		 g;

	for (v = 0; v < x->s->n_variants; v++) {
		for (j = 0; j < L; j++) {
			uint32_t l = direction == CGS_BACKWARD ? L - 1 - j : j;

			g = ((uint64_t)by_cp[v] * rp->n_saved + first + l) * 2 +
			    direction;
			if (!taken[g]) {
				taken[g] = 1;
				rp->capture[(*n)++] = (uint32_t)g;
			}
		}
	}
}

int cgs_capture_sequence(struct cgs_rank_work *x, struct cgs_error *err)
{
	const struct cgs_schedule *s = x->s;
	struct cgs_rank_plan *rp = x->rp;
	uint32_t *by_cp = calloc(s->n_variants + 1, sizeof(*by_cp));
	uint32_t *forwards = calloc(x->chunks, sizeof(*forwards));
	uint32_t *backwards = calloc(x->chunks, sizeof(*backwards));
	uint8_t *taken = calloc((uint64_t)rp->n_graphs + 1, 1);
	uint32_t n = 0, largest = rp->n_reachable - 1;
	uint64_t e, g;
	int rc = 0;

	rp->capture = calloc((uint64_t)rp->n_graphs + 1, sizeof(*rp->capture));
	if (!by_cp || !forwards || !backwards || !taken || !rp->capture) {
		rc = cgs_plan_fail(err, CGS_E_NOMEM, rp->rank,
				   "listing the graphs to capture");
		goto out;
	}
	variants_by_cp(s, by_cp);
	for (e = rp->order_start[largest]; e < rp->order_start[largest + 1]; e++) {
		int32_t id = rp->order_entries[e];
		uint32_t c = (uint32_t)(id < 0 ? -(int64_t)id : id) - 1;

		if (id > 0)
			capture_event(x, by_cp, c, forwards[c]++, CGS_FORWARD,
				      taken, &n);
		else
			capture_event(x, by_cp, c, backwards[c]++, CGS_BACKWARD,
				      taken, &n);
	}
	for (g = 0; g < rp->n_graphs; g++)
		if (!taken[g])
			rp->capture[n++] = (uint32_t)g;
out:
	free(by_cp);
	free(forwards);
	free(backwards);
	free(taken);
	return rc;
}
