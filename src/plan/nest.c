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
 * frame moves up and the arena never grows (where that leaves it as it
 * was, the packing engine lays them out again).  The plan keeps this only
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

#include "plan/dsa.h"
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

/*
 * Most items (saved groups and gradient frames together) the joint
 * packing hands the engine: pack.c's limit for one kind, twice.
 */
#define NEST_JOINT_MAX_ITEMS 768u
/*
 * Above this many items the joint packing's engine takes a tenth of the
 * packing budget.  On the bench family's slowest search (q29, about 300
 * joint packings of 124 to 384 items: 4.1 s without them) the whole
 * budget took 8.9 s and this 7.0 s, and the family's plans came out the
 * same; with a tenth for every graph, rank 3 of the bundled example with
 * maps (32 items) missed its bound.
 */
#define NEST_JOINT_FULL_BUDGET_ITEMS 128u
#define NEST_JOINT_BUDGET_SHARE 10u

/*
 * The frames left out of the saved arena, laid out again by the packing
 * engine where first fit in the order of their old offsets took as many
 * bytes as before: that order suits the whole arena, not what is left of
 * it once some frames nest (the bench family's q36, rank 1 of its default
 * plan: 41 of 56 frames find holes, and the other 15 take three colours
 * by first fit where two suffice).  rest[] (n_rest spans in the gradient
 * arena) and *top take the engine's layout where it is lower.  A tenth of
 * the packing budget, as for the joint packing's larger graphs: over the
 * bench family's searches with maps the plans are the same as with all
 * of it, and the time the same as without the engine.
 */
static int rest_engine(const struct cgs_rank_work *x, struct span *rest,
		       uint32_t n_rest, uint64_t *top)
{
	struct cgs_dsa_options opt = {
		.node_budget = x->opt->pack_budget / NEST_JOINT_BUDGET_SHARE};
	struct cgs_dsa_result res;
	struct cgs_graph g = {0};
	uint64_t *size = NULL, *align = NULL, *off = NULL;
	uint32_t *item = NULL, m = 0, a, b;
	int rc = CGS_E_NOMEM;

	if (x->opt->pack_budget < NEST_JOINT_BUDGET_SHARE)
		return 0;
	size = malloc(n_rest * sizeof(*size));
	align = malloc(n_rest * sizeof(*align));
	off = malloc(n_rest * sizeof(*off));
	item = malloc(n_rest * sizeof(*item));
	if (!size || !align || !off || !item)
		goto out;
	/* frames of 0 bytes are no items: they stay where first fit put them */
	for (a = 0; a < n_rest; a++)
		if (rest[a].end > rest[a].start) {
			item[m] = a;
			size[m] = rest[a].end - rest[a].start;
			align[m++] = x->align;
		}
	rc = 0;
	if (m < 2)
		goto out;
	if ((rc = cgs_graph_init(&g, m)))
		goto out;
	for (a = 0; a < m; a++)
		for (b = a + 1; b < m; b++)
			if (cgs_graph_edge(&x->grad_conflicts,
					   rest[item[a]].who,
					   rest[item[b]].who)) {
				cgs_bit_set(cgs_graph_row(&g, a), b);
				cgs_bit_set(cgs_graph_row(&g, b), a);
			}
	rc = cgs_dsa_pack_graph(&g, size, align, &opt, off, &res);
	if (rc == CGS_E_LIMIT)
		rc = 0;        /* too many conflicts to list: first fit stands */
	if (rc == 0 && res.height < *top) {
		for (a = 0; a < m; a++) {
			rest[item[a]].start = off[a];
			rest[item[a]].end = off[a] + size[a];
		}
		*top = res.height;
	}
out:
	cgs_graph_release(&g);
	free(size);
	free(align);
	free(off);
	free(item);
	return rc;
}

/*
 * The conflicts of both kinds as one graph of m items: saved groups
 * h < n and gradient frames n + g (a gradient frame meets the saved
 * groups live with it, x->grad_saved), none of 0 bytes; their sizes in
 * size[].  m 0 where there are more than NEST_JOINT_MAX_ITEMS.
 */
static int joint_graph(const struct cgs_rank_work *x, struct cgs_graph *joint,
		       uint32_t *item, uint64_t *size, uint32_t *m)
{
	const struct cgs_rank_plan *rp = x->rp;
	uint32_t n = x->n_groups, i, j, h, f;

	*m = 0;
	for (h = 0; h < 2 * n; h++) {
		uint64_t b = 0;

		if (h < n)
			for (f = x->group_first[h]; f < x->group_first[h + 1];
			     f++)
				b += rp->saved[f].bytes;
		else
			b = rp->user_grad[h - n].bytes;
		if (b) {
			item[*m] = h;
			size[(*m)++] = b;
		}
	}
	if (*m > NEST_JOINT_MAX_ITEMS) {
		*m = 0;
		return 0;
	}
	if (cgs_graph_init(joint, *m))
		return CGS_E_NOMEM;
	for (i = 0; i < *m; i++)
		for (j = i + 1; j < *m; j++) {
			uint32_t a = item[i], b = item[j];
			int e;

			if (b < n)
				e = cgs_graph_edge(&x->group_conflicts, a, b);
			else if (a >= n)
				e = cgs_graph_edge(&x->grad_conflicts, a - n,
						   b - n);
			else
				e = cgs_graph_edge(&x->grad_saved, b - n, a);
			if (e) {
				cgs_bit_set(cgs_graph_row(joint, i), j);
				cgs_bit_set(cgs_graph_row(joint, j), i);
			}
		}
	return 0;
}

/*
 * Both kinds packed as one: the joint graph's items laid out by the
 * packing engine (dsa.h) in the saved arena.  Where the saved layout's
 * holes are too small or too few for the gradient frames, a layout made
 * with them in view may still leave room.  Kept where the one arena
 * takes fewer bytes than the plan's two; every gradient frame then lies
 * in the saved arena.  The joint graph's clique comes first: it is the
 * joint floor (plan.h) and, where it meets the plan's bytes, no layout
 * could do better.  The engine runs only with a packing budget (not in
 * the ring search's first pass), at least NEST_JOINT_BUDGET_SHARE nodes
 * so that its share is never 0 (which would be the engine's default).
 */
static int nest_joint(struct cgs_rank_work *x, struct cgs_error *err)
{
	struct cgs_rank_plan *rp = x->rp;
	struct cgs_dsa_options opt = {.lower = rp->lower_bound_bytes,
				      .node_budget = x->opt->pack_budget};
	struct cgs_dsa_result res;
	uint32_t n = x->n_groups, m = 0, i, h, f;
	uint32_t *item = NULL;
	uint64_t *size = NULL, *align = NULL, *off = NULL, left;
	struct cgs_graph joint = {0};
	int engine = x->opt->pack_budget >= NEST_JOINT_BUDGET_SHARE &&
		     rp->bytes > rp->lower_bound_bytes;
	int64_t w;
	int rc = 0;

	if (!engine && !x->want_floor)
		return 0;
	item = malloc(2 * (uint64_t)n * sizeof(*item));
	size = malloc(2 * (uint64_t)n * sizeof(*size));
	align = malloc(2 * (uint64_t)n * sizeof(*align));
	off = malloc(2 * (uint64_t)n * sizeof(*off));
	if (!item || !size || !align || !off) {
		rc = CGS_E_NOMEM;
		goto out;
	}
	if ((rc = joint_graph(x, &joint, item, size, &m)) || m == 0)
		goto out;
	/*
	 * any clique will do: every plan of these conflicts, gradient frames
	 * nested or apart, takes at least its bytes
	 */
	left = x->opt->colour_budget;
	w = cgs_dsa_clique_bytes(&joint, size, rp->bytes, &left);
	if (w < 0) {
		rc = (int)w;
		goto out;
	}
	rp->joint_floor_bytes = (uint64_t)w;
	/* at the clique the plan is as low as any layout of both kinds */
	if (!engine || rp->joint_floor_bytes >= rp->bytes)
		goto out;
	for (i = 0; i < m; i++)
		align[i] = x->align;
	if (m > NEST_JOINT_FULL_BUDGET_ITEMS)
		opt.node_budget /= NEST_JOINT_BUDGET_SHARE;
	rc = cgs_dsa_pack_graph(&joint, size, align, &opt, off, &res);
	if (rc == CGS_E_LIMIT)
		rc = 0;        /* too many conflicts to list: the plan stands */
	if (rc)
		goto out;
	if (res.lower_bound > rp->joint_floor_bytes)
		rp->joint_floor_bytes = res.lower_bound;
	if (res.height >= rp->bytes)
		goto out;
	/* frames of 0 bytes are no items: offset 0 */
	for (f = 0; f < rp->n_saved; f++)
		rp->saved[f].offset = 0;
	for (h = 0; h < n; h++)
		rp->user_grad[h].offset = 0;
	rp->n_nested = 0;
	for (i = 0; i < m; i++) {
		uint64_t at = off[i];

		h = item[i];
		if (h >= n) {
			rp->user_grad[h - n].arena = 0;
			rp->user_grad[h - n].offset = at;
			rp->n_nested++;
			continue;
		}
		for (f = x->group_first[h]; f < x->group_first[h + 1]; f++) {
			rp->saved[f].offset = at;
			at += rp->saved[f].bytes;
		}
	}
	rp->saved_stats.bytes = rp->arenas[0].bytes = res.height;
	rp->user_grad_stats.bytes = rp->arenas[1].bytes = 0;
	rp->bytes = res.height;
	rp->joint = 1;
out:
	cgs_graph_release(&joint);
	free(item);
	free(size);
	free(align);
	free(off);
	return rc ? cgs_plan_fail(err, rc, rp->rank,
				  "packing both frame kinds as one") : 0;
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
	rp->joint = 0;
	rp->joint_floor_bytes = 0;
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
	if (n_rest && grad_top >= rp->user_grad_stats.bytes &&
	    (rc = rest_engine(x, rest, n_rest, &grad_top))) {
		rc = cgs_plan_fail(err, rc, rp->rank,
				   "nesting the gradient frames");
		goto out;
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
	rp->arenas[1].bytes = grad_top;
	rp->bytes = rp->saved_stats.bytes + grad_top;
out:
	free(order);
	free(where);
	free(saved);
	free(nested);
	free(rest);
	free(left);
	return rc ? rc : nest_joint(x, err);
}
