/*
 * Nesting: user-gradient frames in the saved arena's holes.
 *
 * A user-gradient frame is live only from its backward to the next one,
 * while much of the saved arena is held by saved frames that are not
 * live then.  After packing, each gradient
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
 * raises it.  Holes are found by one walk over the frames sorted by
 * offset (saved frames once per rank, placed gradient frames as they
 * come), not a sort per frame: the nesting is a few per cent of planning
 * time on the bench's largest case.
 */
#include <stdlib.h>

#include "plan/stage.h"

/* A frame in a list sorted by offset: its bytes and whose it is. */
struct span {
	uint64_t start, end;
	uint32_t who;              /* saved: its group; gradient: its frame */
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->who > y->who) - (x->who < y->who);
}

/* Insert s into the sorted list l of *n. */
static void span_insert(struct span *l, uint32_t *n, struct span s)
{
	uint32_t i = *n;

	while (i > 0 && span_cmp(&l[i - 1], &s) > 0) {
		l[i] = l[i - 1];
		i--;
	}
	l[i] = s;
	(*n)++;
}

/*
 * The lowest offset at which `bytes` fit below `top` beside the spans of
 * a (sorted, n_a) whose group is set in `meets` (read only where n_a > 0)
 * and those of b (sorted, n_b) that meet gradient frame g; UINT64_MAX
 * where none.  Both lists are walked once, together, in order of start.
 */
static uint64_t lowest_hole(const struct cgs_rank_work *x, uint32_t g,
			    const struct span *a, uint32_t n_a,
			    const uint64_t *meets, const struct span *b,
			    uint32_t n_b, uint64_t bytes, uint64_t top)
{
	uint64_t at = 0;
	uint32_t i = 0, j = 0;

	for (;;) {
		const struct span *s;

		while (i < n_a && !cgs_bit_test(meets, a[i].who))
			i++;
		while (j < n_b &&
		       !cgs_graph_edge(&x->grad_conflicts, g, b[j].who))
			j++;
		if (i < n_a && (j == n_b || a[i].start <= b[j].start))
			s = &a[i++];
		else if (j < n_b)
			s = &b[j++];
		else
			break;
		if (s->start >= at + bytes)
			break;
		if (s->end > at)
			at = s->end;
	}
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

int cgs_nest_grads(struct cgs_rank_work *x, struct cgs_error *err)
{
	struct cgs_rank_plan *rp = x->rp;
	uint32_t n = x->n_groups, i, g, h, w, f, n_nested = 0, n_rest = 0;
	uint64_t top = rp->saved_stats.bytes, grad_top = 0, *where = NULL;
	struct by_meets *order = NULL;
	struct span *saved = NULL, *nested = NULL, *rest = NULL, *left = NULL;
	int rc = 0;

	rp->n_nested = 0;
	if (n == 0 || rp->user_grad_stats.bytes == 0)
		return 0;
	order = malloc(n * sizeof(*order));
	where = malloc(n * sizeof(*where));
	saved = malloc(((uint64_t)rp->n_saved + 1) * sizeof(*saved));
	nested = malloc(n * sizeof(*nested));
	rest = malloc(n * sizeof(*rest));
	left = malloc(n * sizeof(*left));
	if (!order || !where || !saved || !nested || !rest || !left) {
		rc = cgs_plan_fail(err, CGS_E_NOMEM, rp->rank,
				   "nesting the gradient frames");
		goto out;
	}
	for (h = 0; h < n; h++)
		for (f = x->group_first[h]; f < x->group_first[h + 1]; f++)
			saved[f] = (struct span){
				rp->saved[f].offset,
				rp->saved[f].offset + rp->saved[f].bytes, h};
	qsort(saved, rp->n_saved, sizeof(*saved), span_cmp);
	for (g = 0; g < n; g++) {
		const uint64_t *row = cgs_graph_row(&x->grad_saved, g);
		uint32_t meets = 0;

		for (w = 0; w < x->grad_saved.words; w++)
			meets += (uint32_t)__builtin_popcountll(row[w]);
		order[g] = (struct by_meets){meets, g};
	}
	qsort(order, n, sizeof(*order), meets_cmp);
	for (i = 0; i < n; i++) {
		uint64_t bytes;

		g = order[i].g;
		bytes = rp->user_grad[g].bytes;
		where[g] = bytes ? lowest_hole(x, g, saved, rp->n_saved,
					       cgs_graph_row(&x->grad_saved, g),
					       nested, n_nested, bytes, top)
				 : UINT64_MAX;
		if (where[g] != UINT64_MAX)
			span_insert(nested, &n_nested, (struct span){
				where[g], where[g] + bytes, g});
	}
	/* the rest, first fit by their offsets in the gradient arena */
	for (g = 0; g < n; g++)
		if (where[g] == UINT64_MAX)
			rest[n_rest++] = (struct span){
				rp->user_grad[g].offset,
				rp->user_grad[g].offset + rp->user_grad[g].bytes,
				g};
	qsort(rest, n_rest, sizeof(*rest), span_cmp);
	for (i = 0, h = 0; i < n_rest; i++) {
		uint64_t bytes = rest[i].end - rest[i].start, at;

		g = rest[i].who;
		at = lowest_hole(x, g, NULL, 0, NULL, left, h, bytes,
				 UINT64_MAX - bytes);
		rest[i].start = at;
		rest[i].end = at + bytes;
		span_insert(left, &h, rest[i]);
		if (at + bytes > grad_top)
			grad_top = at + bytes;
	}
	if (grad_top >= rp->user_grad_stats.bytes)
		goto out;
	for (i = 0; i < n_rest; i++)
		rp->user_grad[rest[i].who].offset = rest[i].start;
	for (i = 0; i < n_nested; i++) {
		struct cgs_frame *fr = &rp->user_grad[nested[i].who];

		fr->arena = 0;
		fr->offset = nested[i].start;
	}
	rp->n_nested = n_nested;
	rp->user_grad_stats.bytes = grad_top;
	/*
	 * a gradient frame may nest, so no bytes of the gradient arena are
	 * certain; the saved arena's floor still holds (plan_bound)
	 */
	rp->user_grad_stats.floor_bytes = 0;
	rp->arenas[1].bytes = grad_top;
	rp->bytes = rp->saved_stats.bytes + grad_top;
out:
	free(order);
	free(where);
	free(saved);
	free(nested);
	free(rest);
	free(left);
	return rc;
}
