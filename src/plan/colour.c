/*
 * Colouring: saved frames conflict when their groups do or when they
 * share one group (all layers of an event are live together); each frame
 * kind is coloured by DSATUR, then, when that uses more colours than the
 * largest live set, by a bounded clique search and a bounded exact
 * colouring.  Colours are upstream's arena ids.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/stage.h"

/* Largest frames x colours table the exact colouring may allocate. */
#define CGS_EXACT_MAX_CELLS (1ull << 24)

static uint64_t search_cells(const struct cgs_plan_options *opt)
{
	return opt->colour_search_cells ? opt->colour_search_cells
					: CGS_EXACT_MAX_CELLS;
}

/* Expand group conflicts to frame conflicts. */
static int build_frame_conflicts(struct cgs_rank_work *x)
{
	uint32_t g, h, f, words;
	uint64_t *row;
	int rc = cgs_graph_init(&x->frame_conflicts, x->rp->n_saved);

	if (rc)
		return rc;
	words = x->frame_conflicts.words;
	row = calloc(words + 1, sizeof(*row));
	if (!row)
		return CGS_E_NOMEM;
	for (g = 0; g < x->n_groups; g++) {
		const uint64_t *grow = cgs_graph_row(&x->group_conflicts, g);

		memset(row, 0, words * sizeof(*row));
		for (h = 0; h < x->n_groups; h++)
			if (h == g || cgs_bit_test(grow, h))
				for (f = x->group_first[h]; f < x->group_first[h + 1]; f++)
					cgs_bit_set(row, f);
		for (f = x->group_first[g]; f < x->group_first[g + 1]; f++) {
			uint64_t *frow = cgs_graph_row(&x->frame_conflicts, f);

			memcpy(frow, row, words * sizeof(*row));
			cgs_bit_clear(frow, f);
		}
	}
	free(row);
	return 0;
}

/* Renumber the colours used of n vertices (each < k) densely; returns
 * how many are used, or CGS_E_NOMEM. */
static int compact_colours(uint32_t *colour, uint32_t n, uint32_t k)
{
	uint32_t *id = malloc(((uint64_t)k + 1) * sizeof(*id)), v, c, used = 0;

	if (!id)
		return CGS_E_NOMEM;
	for (c = 0; c < k; c++)
		id[c] = UINT32_MAX;
	for (v = 0; v < n; v++)
		id[colour[v]] = 0;
	for (c = 0; c < k; c++)
		if (id[c] == 0)
			id[c] = used++;
	for (v = 0; v < n; v++)
		colour[v] = id[colour[v]];
	free(id);
	return (int)used;
}

/*
 * Colour one frame kind's conflicts g.  The clique is searched on `cg`
 * with vertex weights (groups weighted by their layers: the frames of a
 * group stand or fall together), far smaller than g.
 */
static int colour_kind(const struct cgs_graph *g, const struct cgs_graph *cg,
		       const uint32_t *weight, uint32_t live_set,
		       uint64_t budget, uint64_t max_cells, uint32_t *colour,
		       struct cgs_role_stats *st, uint32_t **before,
		       uint32_t *k_before)
{
	int k = cgs_colour_dsatur(g, colour);
	int64_t clique = live_set;
	uint64_t left;
	int proven = 0;

	if (k < 0)
		return k;
	if ((uint32_t)k > live_set) {
		left = budget;
		clique = cgs_clique_max(cg, weight, live_set, (uint64_t)k,
					&left);
		if (clique < 0)
			return (int)clique;
	}
	/* its tables take frames x colours counters: skip it when huge */
	if ((int64_t)k > clique &&
	    (uint64_t)g->n * (uint64_t)k <= max_cells) {
		left = budget;
		k = cgs_colour_exact(g, (uint32_t)clique, (uint32_t)k, colour,
				     &left, &proven);
		if (k < 0)
			return k;
	}
	/*
	 * Above the clique and not proven: tabu search for one colour fewer
	 * at a time, while it finds them within one budget for all tries
	 */
	left = budget;
	*k_before = (uint32_t)k;
	if (!proven && (int64_t)k > clique &&
	    (uint64_t)g->n * (uint64_t)k <= max_cells) {
		*before = malloc(((uint64_t)g->n + 1) * sizeof(**before));
		if (!*before)
			return CGS_E_NOMEM;
		memcpy(*before, colour, g->n * sizeof(*colour));
	}
	while (!proven && (int64_t)k > clique && left > 0 &&
	       (uint64_t)g->n * (uint64_t)k <= max_cells) {
		int found;

		found = cgs_colour_tabu(g, (uint32_t)k - 1, colour, &left);
		if (found < 0)
			return found;
		if (!found)
			break;
		k--;
	}
	/*
	 * A tabu colouring may leave a colour unused: number the colours in
	 * use 0, 1, ... in their order (DSATUR's and the exact search's
	 * colourings use every colour, and stay as they are)
	 */
	if (*before && (uint32_t)k == *k_before) {
		free(*before);   /* the tabu search took no colour off */
		*before = NULL;
	}
	k = compact_colours(colour, g->n, (uint32_t)k);
	if (k < 0)
		return k;
	st->frames = g->n;
	st->colours = (uint32_t)k;
	st->colour_lower_bound = (uint32_t)clique;
	st->colours_floor = proven || (int64_t)k == clique ? (uint32_t)k
							     : (uint32_t)clique;
	return 0;
}

int cgs_colour_frames(struct cgs_rank_work *x, struct cgs_error *err)
{
	struct cgs_rank_plan *rp = x->rp;
	uint32_t f;
	int rc = build_frame_conflicts(x);

	if (rc)
		return cgs_plan_fail(err, rc, rp->rank,
				     "building the saved frames' conflicts");
	rc = colour_kind(&x->frame_conflicts, &x->group_conflicts,
			 x->group_layers, x->live_saved_frames,
			 x->opt->colour_budget, search_cells(x->opt),
			 x->saved_colour,
			 &rp->saved_stats, &x->saved_colour_before,
			 &x->saved_colours_before);
	if (rc)
		return cgs_plan_fail(err, rc, rp->rank,
				     "colouring the saved frames");
	rc = colour_kind(&x->grad_conflicts, &x->grad_conflicts, NULL,
			 x->live_grad_frames, x->opt->colour_budget,
			 search_cells(x->opt),
			 x->grad_colour, &rp->user_grad_stats,
			 &x->grad_colour_before, &x->grad_colours_before);
	if (rc)
		return cgs_plan_fail(err, rc, rp->rank,
				     "colouring the user-gradient frames");
	for (f = 0; f < rp->n_saved; f++)
		rp->saved[f].colour = x->saved_colour[f];
	for (f = 0; f < rp->n_user_grad; f++)
		rp->user_grad[f].colour = x->grad_colour[f];
	return 0;
}
