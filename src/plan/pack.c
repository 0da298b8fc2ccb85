/*
 * Packing: byte offsets for both frame kinds inside their arenas.  The
 * items packed are groups of frames live over one interval (the layers of
 * a saved group, or a single user-gradient frame); frames never conflict
 * unless their items do.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "plan/dsa.h"
#include "plan/stage.h"

/*
 * Largest conflict graph handed to the packing engine: its conflict
 * lists and clique search grow with the square of the vertices (0.1 s
 * at 512 dense vertices, 1.5 s at 2048, where first-fit takes
 * milliseconds), so bigger graphs keep first-fit's layout.
 */
#define CGS_PACK_ENGINE_MAX_VERTICES 384u

/* One frame kind seen as packable items. */
struct kind_view {
	const struct cgs_graph *items;
	const struct cgs_graph *frames; /* frame conflicts, when items group them */
	const uint32_t *item_first;   /* frames of item i: [first[i], first[i+1]) */
	const uint32_t *birth;        /* per item, CGS_PLAN_NEVER if never live */
	const uint32_t *colour;       /* per frame */
	uint32_t n_frames;
	uint64_t lower;               /* heaviest live set: no layout is lower */
	/*
	 * A bound of this conflict graph: the colours the colouring proved
	 * necessary times the smallest frame.  Above `lower` where the union
	 * over the orders links more frames than any one order holds; a
	 * layout at it is optimal for the graph, and the engine could only
	 * spend time.
	 */
	uint64_t clique_lower;
	uint64_t align;
	uint64_t dsa_nodes;           /* search budget of the engine; 0: none */
	/* nodes for the heaviest clique of items by their bytes; 0: none */
	uint64_t clique_nodes;
	int want_floor;               /* the clique even without the engine */
	const uint64_t *hint;         /* item offsets to take if valid, or NULL */
	int hint_ties;                /* take hint at no fewer bytes too */
	const uint64_t *frame_hint;   /* the same per frame (needs frames) */
	/*
	 * Items of one chunk are numbered together, this many per chunk:
	 * item i is of chunk i / items_per_chunk (0: no charges floor).
	 */
	uint32_t items_per_chunk;
};

struct pack_key {
	uint64_t a, b;
	uint32_t item;
};

static int pack_key_cmp(const void *p, const void *q)
{
	const struct pack_key *x = p, *y = q;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return (x->item > y->item) - (x->item < y->item);
}

/* The first-fit orders over items tried by kind_layout. */
enum item_order {
	BY_SIZE,      /* largest first, then by birth */
	BY_BIRTH,     /* by birth in the largest order */
	BY_COLOUR,    /* colour by colour (an item's smallest colour) */
	AS_LISTED,    /* chunk by chunk, slot by slot */
	ITEM_ORDERS,
};

/* First-fit of single frames, colour by colour, largest first. */
static int pack_frames_by_colour(const struct kind_view *kv,
				 const uint64_t *frame_size, uint64_t *offset,
				 uint64_t *total)
{
	uint32_t n = kv->n_frames, f;
	struct pack_key *key = calloc(n + 1, sizeof(*key));
	uint32_t *order = calloc(n + 1, sizeof(*order));
	int rc = CGS_E_NOMEM;

	if (key && order) {
		for (f = 0; f < n; f++)
			key[f] = (struct pack_key){kv->colour[f], ~frame_size[f], f};
		qsort(key, n, sizeof(*key), pack_key_cmp);
		for (f = 0; f < n; f++)
			order[f] = key[f].item;
		rc = cgs_pack_first_fit(kv->frames, frame_size, order, offset,
					total);
	}
	free(key);
	free(order);
	return rc;
}

static void order_key(enum item_order t, uint32_t i, uint64_t size,
		      uint32_t birth, uint32_t colour, struct pack_key *key)
{
	key->item = i;
	switch (t) {
	case BY_SIZE:
		key->a = ~size;
		key->b = birth;
		break;
	case BY_BIRTH:
		key->a = birth;
		key->b = ~size;
		break;
	case BY_COLOUR:
		key->a = colour;
		key->b = ~size;
		break;
	default:
		key->a = 0;
		key->b = 0;
		break;
	}
}

/* Upstream's layout: one region per colour, sized by its largest member. */
static int colour_regions_bytes(const struct kind_view *kv,
				const uint64_t *frame_size, uint64_t *bytes)
{
	uint32_t n_colours = 0, f, k;
	uint64_t *region, total = 0;

	for (f = 0; f < kv->n_frames; f++)
		if (kv->colour[f] + 1 > n_colours)
			n_colours = kv->colour[f] + 1;
	region = calloc((uint64_t)n_colours + 1, sizeof(*region));
	if (!region)
		return CGS_E_NOMEM;
	for (f = 0; f < kv->n_frames; f++)
		if (frame_size[f] > region[kv->colour[f]])
			region[kv->colour[f]] = frame_size[f];
	for (k = 0; k < n_colours; k++)
		total += region[k];
	free(region);
	*bytes = total;
	return 0;
}

/*
 * The height of the layout `at` gives the vertices of g (sizes `size`),
 * or 0 when it is not one: an offset off the alignment, or two vertices
 * in conflict that share a byte.  kv->hint is such a layout of the items,
 * kv->frame_hint of the frames.
 */
static uint64_t layout_height(const struct cgs_graph *g, const uint64_t *at,
			      const uint64_t *size, uint64_t align)
{
	uint32_t n = g->n, i, j;
	uint64_t top = 0;

	for (i = 0; i < n; i++) {
		const uint64_t *row = cgs_graph_row(g, i);

		if (size[i] == 0)
			continue;
		if (at[i] % align != 0)
			return 0;
		if (at[i] + size[i] > top)
			top = at[i] + size[i];
		for (j = i + 1; j < n; j++)
			if (size[j] && cgs_bit_test(row, j) &&
			    at[i] < at[j] + size[j] && at[j] < at[i] + size[i])
				return 0;
	}
	return top;
}

/*
 * The packing engine (dsa.h) on the item or the frame conflicts, when
 * first-fit left a gap above the lower bound.  Writes offsets of the
 * graph's vertices into off and the height into *total; returns 1 when
 * it ran, 0 when it did not apply (a vertex of no bytes), or a negative
 * CGS_E_* code.
 */
static int pack_engine(const struct kind_view *kv, const struct cgs_graph *g,
		       const uint64_t *size, uint64_t floor, uint64_t *off,
		       uint64_t *total)
{
	struct cgs_dsa_options opt = {.lower = floor,
				      .node_budget = kv->dsa_nodes};
	struct cgs_dsa_result res;
	uint64_t *align;
	uint32_t i;
	int rc;

	/* its conflict lists grow with the square of the vertices */
	if (g->n > CGS_PACK_ENGINE_MAX_VERTICES)
		return 0;
	for (i = 0; i < g->n; i++)
		if (size[i] == 0)
			return 0;
	align = malloc(((uint64_t)g->n + 1) * sizeof(*align));
	if (!align)
		return CGS_E_NOMEM;
	for (i = 0; i < g->n; i++)
		align[i] = kv->align;
	rc = cgs_dsa_pack_graph(g, size, align, &opt, off, &res);
	free(align);
	if (rc == CGS_E_LIMIT)
		return 0;   /* too many conflicts to list: first-fit stands */
	if (rc)
		return rc;
	*total = res.height;
	return 1;
}

/*
 * The heaviest clique of items by their bytes that a bounded search
 * finds (the items pairwise conflict, so no layout is lower), stopping
 * at `upper`; 0 when the weights do not fit the search's 32 bits or
 * memory runs out (no bound is no error: the layout stands).
 */
static uint64_t item_clique_bytes(const struct kind_view *kv,
				  const uint64_t *size, uint64_t upper)
{
	uint64_t left = kv->clique_nodes;
	int64_t w = cgs_dsa_clique_bytes(kv->items, size, upper, &left);

	return w > 0 ? (uint64_t)w : 0;
}

/*
 * Items that ever meet another, at most this many, get a charges floor:
 * its search is a clique search on the items that never meet, which
 * are most of the pairs on long rings.
 */
#define CGS_CHARGES_MAX_ITEMS 384u

/*
 * Weight of the heaviest set of the m vertices of `apart` pairwise
 * joined there, vertex v weighing weight[v]; 0 unless the search closed
 * within the budget (the floor needs the heaviest, not one found).
 */
static uint64_t heaviest_apart(const struct cgs_graph *apart,
			       const uint32_t *weight, uint64_t *budget)
{
	int64_t w;

	if (*budget == 0)
		return 0;
	w = cgs_clique_max(apart, weight, 0, UINT64_MAX, budget);
	/* a search stopped by the budget leaves none of it */
	return w > 0 && *budget > 0 ? (uint64_t)w : 0;
}

/*
 * The charges floor: frames that share a byte of a layout are of items
 * pairwise never in conflict, one frame each (an item's frames conflict
 * with each other).  Charge every byte of an item of chunk c y_c: no
 * byte carries more than Y, the heaviest set of items pairwise apart,
 * so every layout of the graph takes at least sum(size * y) / Y.  Two
 * choices of y: one per chunk, and 1 / (most items of the chunk
 * pairwise apart), scaled to integers.  Items never live, or in
 * conflict with none, are left out (their frames may overlap anything).
 * Returns the higher floor, or 0 where none was proven (too many
 * items, a search stopped by the budget, weights too large).
 */
static uint64_t charges_floor_bytes(const struct kind_view *kv,
				    const uint64_t *size)
{
	const struct cgs_graph *g = kv->items;
	uint32_t per = kv->items_per_chunk, n = g->n, m = 0, i, j, c, chunks;
	uint32_t *keep = NULL, *weight = NULL, *most = NULL, *y = NULL;
	struct cgs_graph apart = {0};
	uint64_t grain = 0, budget = kv->clique_nodes, best = 0, lcm = 1;
	int t;

	if (per == 0 || n == 0)
		return 0;
	chunks = (n + per - 1) / per;
	keep = malloc(((uint64_t)n + 1) * sizeof(*keep));
	weight = malloc(((uint64_t)n + 1) * sizeof(*weight));
	most = calloc((uint64_t)chunks + 1, sizeof(*most));
	y = calloc((uint64_t)chunks + 1, sizeof(*y));
	if (!keep || !weight || !most || !y)
		goto out;
	for (i = 0; i < n; i++) {
		const uint64_t *row = cgs_graph_row(g, i);
		int meets = 0;

		for (j = 0; j < g->words && !meets; j++)
			meets = row[j] != 0;
		if (meets && kv->birth[i] != CGS_PLAN_NEVER && size[i]) {
			keep[m++] = i;
			grain = cgs_gcd(grain, size[i]);
		}
	}
	if (m < 2 || m > CGS_CHARGES_MAX_ITEMS ||
	    cgs_graph_init(&apart, m) != 0)
		goto out;
	for (i = 0; i < m; i++)
		for (j = i + 1; j < m; j++)
			if (!cgs_graph_edge(g, keep[i], keep[j])) {
				cgs_bit_set(cgs_graph_row(&apart, i), j);
				cgs_bit_set(cgs_graph_row(&apart, j), i);
			}
	/* the most items of each chunk pairwise apart (any answer will do) */
	for (c = 0; c < chunks; c++) {
		uint64_t left = budget / (2 * (uint64_t)chunks) + 1;
		int64_t w;

		for (i = 0; i < m; i++)
			weight[i] = keep[i] / per == c;
		w = cgs_clique_max(&apart, weight, 0, UINT64_MAX, &left);
		most[c] = w > 0 ? (uint32_t)w : 1;
		if (lcm <= UINT32_MAX)
			lcm = lcm / cgs_gcd(lcm, most[c]) * most[c];
	}
	for (t = 0; t < 2; t++) {
		uint64_t heaviest, sum = 0, q, r, floor, rest, part;

		if (t == 1 && lcm > UINT16_MAX)
			break;
		for (c = 0; c < chunks; c++)
			y[c] = t == 0 ? 1 : (uint32_t)(lcm / most[c]);
		for (i = 0; i < m; i++)
			weight[i] = y[keep[i] / per];
		heaviest = heaviest_apart(&apart, weight, &budget);
		if (heaviest == 0)
			break;
		/* sum(size * y) / Y in grains, then bytes rounded up */
		for (i = 0; i < m; i++)
			if (cgs_mul_u64(size[keep[i]] / grain, weight[i],
					&part) || cgs_acc_u64(&sum, part))
				goto out;
		q = sum / heaviest;
		r = sum % heaviest;
		if (cgs_mul_u64(q, grain, &floor) ||
		    cgs_mul_u64(r, grain, &rest) ||
		    cgs_acc_u64(&floor, rest / heaviest +
					(rest % heaviest != 0)))
			goto out;
		if (floor > best)
			best = floor;
	}
out:
	cgs_graph_release(&apart);
	free(keep);
	free(weight);
	free(most);
	free(y);
	return best;
}

/*
 * Lay out one frame kind for the given frame sizes: the best of several
 * first-fit orders over items and of a first-fit over single frames
 * colour by colour.  The colour-by-colour first-fit never exceeds
 * upstream's layout (one region per colour sized by its largest member):
 * every frame of colour k fits at the start of region k at the latest,
 * since its neighbours placed before it have smaller colours and lie
 * below.  frame_offset may be NULL when only the totals are wanted.
 */
static int kind_layout(const struct kind_view *kv, const uint64_t *frame_size,
		       uint64_t *frame_offset, uint64_t *bytes,
		       uint64_t *colour_bytes, uint64_t *floor_out)
{
	/* no layout of this graph is lower (the engine's target) */
	uint64_t floor = kv->clique_lower > kv->lower ? kv->clique_lower
						      : kv->lower, clique;
	uint32_t n = kv->items->n, i, f, t, best_t = 0;
	uint64_t *size = calloc(n + 1, sizeof(*size));
	/* one row per first-fit order, one for the engine, one for a hint */
	uint64_t *off = calloc((uint64_t)(n + 1) * (ITEM_ORDERS + 2),
			       sizeof(*off));
	uint64_t *foff = calloc((uint64_t)kv->n_frames + 1, sizeof(*foff));
	uint64_t *eoff_frames = calloc((uint64_t)kv->n_frames + 1,
				       sizeof(*eoff_frames));
	uint64_t best = UINT64_MAX, total;
	uint32_t *min_colour = calloc(n + 1, sizeof(*min_colour));
	uint32_t *order = calloc(n + 1, sizeof(*order));
	struct pack_key *key = calloc(n + 1, sizeof(*key));
	int rc = CGS_E_NOMEM, by_frames = 0;

	if (!size || !off || !foff || !eoff_frames || !min_colour || !order ||
	    !key)
		goto out;
	rc = colour_regions_bytes(kv, frame_size, colour_bytes);
	if (rc)
		goto out;
	for (i = 0; i < n; i++) {
		min_colour[i] = UINT32_MAX;
		for (f = kv->item_first[i]; f < kv->item_first[i + 1]; f++) {
			size[i] += frame_size[f];
			if (kv->colour[f] < min_colour[i])
				min_colour[i] = kv->colour[f];
		}
	}
	for (t = 0; t < ITEM_ORDERS; t++) {
		for (i = 0; i < n; i++)
			order_key((enum item_order)t, i, size[i], kv->birth[i],
				  min_colour[i], &key[i]);
		qsort(key, n, sizeof(*key), pack_key_cmp);
		for (i = 0; i < n; i++)
			order[i] = key[i].item;
		rc = cgs_pack_first_fit(kv->items, size, order,
					off + (uint64_t)t * n, &total);
		if (rc)
			goto out;
		if (total < best) {
			best = total;
			best_t = t;
		}
	}
	if (kv->frames) {
		rc = pack_frames_by_colour(kv, frame_size, foff, &total);
		if (rc)
			goto out;
		if (total < best) {
			best = total;
			by_frames = 1;
		}
	}
	/* single frames colour by colour, or items that are single frames */
	assert(best <= *colour_bytes);
	if (kv->hint) {
		total = layout_height(kv->items, kv->hint, size, kv->align);
		if (total && (total < best ||
			      (kv->hint_ties && total == best))) {
			best = total;
			best_t = ITEM_ORDERS + 1;
			by_frames = 0;
			memcpy(off + (uint64_t)best_t * n, kv->hint,
			       n * sizeof(*off));
		}
	}
	if (kv->frame_hint && kv->frames) {
		total = layout_height(kv->frames, kv->frame_hint, frame_size,
				      kv->align);
		if (total && total < best) {
			best = total;
			by_frames = 1;
			memcpy(foff, kv->frame_hint,
			       kv->n_frames * sizeof(*foff));
		}
	}
	/*
	 * The clique bounds the layout: the engine need not run at it, and
	 * the ring search prunes by it (its conflict lists cap the engine)
	 */
	if (kv->clique_nodes && best > floor &&
	    (kv->want_floor ||
	     (kv->dsa_nodes && best - best / 200 > kv->lower &&
	      kv->items->n <= CGS_PACK_ENGINE_MAX_VERTICES))) {
		clique = item_clique_bytes(kv, size, best);
		if (clique > floor)
			floor = clique;
		if (best > floor) {
			clique = charges_floor_bytes(kv, size);
			if (clique > floor)
				floor = clique;
		}
	}
	/*
	 * The engine searches for what first-fit left above the bound, when
	 * that is more than half a percent: below, its conflict lists cost
	 * more time than the bytes are worth.
	 */
	if (kv->dsa_nodes && best - best / 200 > kv->lower && best > floor) {
		uint64_t *eoff = off + (uint64_t)ITEM_ORDERS * n;

		rc = pack_engine(kv, kv->items, size, floor, eoff, &total);
		if (rc < 0)
			goto out;
		if (rc == 1 && total < best) {
			best = total;
			best_t = ITEM_ORDERS;
			by_frames = 0;
		}
		/*
		 * Frames one per item (one layer per chunk) are the same
		 * graph and sizes again: the engine would repeat itself.
		 */
		if (kv->frames && kv->n_frames > kv->items->n &&
		    best - best / 200 > kv->lower && best > floor) {
			rc = pack_engine(kv, kv->frames, frame_size, floor,
					 eoff_frames, &total);
			if (rc < 0)
				goto out;
			if (rc == 1 && total < best) {
				best = total;
				by_frames = 1;
				memcpy(foff, eoff_frames,
				       kv->n_frames * sizeof(*foff));
			}
		}
	}
	*bytes = best;
	if (floor_out)
		*floor_out = floor < best ? floor : best;
	for (i = 0; frame_offset && i < n; i++) {
		uint64_t at = off[(uint64_t)best_t * n + i];

		for (f = kv->item_first[i]; f < kv->item_first[i + 1]; f++) {
			if (by_frames) {
				frame_offset[f] = foff[f];
			} else {
				frame_offset[f] = at;
				at += frame_size[f];
			}
		}
	}
	rc = 0;
out:
	free(size);
	free(off);
	free(foff);
	free(eoff_frames);
	free(min_colour);
	free(order);
	free(key);
	return rc;
}

/*
 * Whether b is a scaled by p / q, entry by entry (p and q coprime): then
 * every first-fit of b places each item where it places a's, times p / q,
 * since its orders compare sizes and its gaps compare sums of them.
 */
static int scaled_by(const uint64_t *a, const uint64_t *b, uint32_t n,
		     uint64_t *p, uint64_t *q)
{
	uint32_t i;
	uint64_t g;

	for (i = 0; i < n && a[i] == 0 && b[i] == 0; i++)
		;
	if (i == n || a[i] == 0 || b[i] == 0)
		return 0;
	g = cgs_gcd(a[i], b[i]);
	*p = b[i] / g;
	*q = a[i] / g;
	for (i = 0; i < n; i++)
		if (a[i] % *q != 0 || a[i] / *q > UINT64_MAX / *p ||
		    a[i] / *q * *p != b[i])
			return 0;
	return 1;
}

/*
 * One frame kind's first-fit bytes for each variant alone, sizes[v * n +
 * i] the bytes of size class i (a layer, or a chunk's gradient) and
 * class[f] frame f's.  A variant whose sizes scale an earlier one's takes
 * its bytes scaled, exactly, without packing again.
 */
static int variant_bytes(const struct kind_view *kv, const uint64_t *sizes,
			 uint32_t n, uint32_t n_variants,
			 const uint32_t *class_of, uint64_t *size,
			 uint64_t *bytes)
{
	uint32_t v, w, f;
	uint64_t p, q, colour_bytes;
	int rc;

	for (v = 0; v < n_variants; v++) {
		const uint64_t *mine = sizes + (uint64_t)v * n;

		for (w = 0; w < v; w++)
			if (scaled_by(sizes + (uint64_t)w * n, mine, n, &p, &q) &&
			    bytes[w] % q == 0 && bytes[w] / q <= UINT64_MAX / p)
				break;
		if (w < v) {
			bytes[v] = bytes[w] / q * p;
			continue;
		}
		for (f = 0; f < kv->n_frames; f++)
			size[f] = mine[class_of[f]];
		rc = kind_layout(kv, size, NULL, &bytes[v], &colour_bytes,
				 NULL);
		if (rc)
			return rc;
	}
	return 0;
}

/* What every variant alone, in arenas of its own, would take. */
static int bytes_without_sharing(struct cgs_rank_work *x,
				 const struct kind_view *saved_view,
				 const struct kind_view *grad_view,
				 uint64_t *size, uint64_t *without)
{
	struct cgs_rank_plan *rp = x->rp;
	uint32_t V = x->s->n_variants, f, g, v;
	uint32_t *class_of = calloc((uint64_t)rp->n_saved + x->n_groups + 1,
				    sizeof(*class_of));
	uint64_t *bytes = calloc(2 * (uint64_t)V + 1, sizeof(*bytes));
	int rc = CGS_E_NOMEM;

	/*
	 * First-fit alone: the figure every variant on its own would take
	 * is a yardstick, not a layout, and the engine's search would cost
	 * it once per variant.
	 */
	struct kind_view saved_ff = *saved_view, grad_ff = *grad_view;

	saved_ff.dsa_nodes = grad_ff.dsa_nodes = 0;
	saved_ff.clique_nodes = grad_ff.clique_nodes = 0;
	saved_ff.hint = NULL;   /* each variant alone is first-fit's figure */
	saved_ff.frame_hint = NULL;
	*without = 0;
	if (!class_of || !bytes)
		goto out;
	for (f = 0; f < rp->n_saved; f++)
		class_of[f] = x->layer_base[rp->saved[f].chunk] +
			      rp->saved[f].layer;
	for (g = 0; g < x->n_groups; g++)
		class_of[rp->n_saved + g] = g / x->slots;
	rc = variant_bytes(&saved_ff, x->variant_saved_bytes, x->layers_total,
			   V, class_of, size, bytes);
	if (rc == 0)
		rc = variant_bytes(&grad_ff, x->variant_grad_bytes, x->chunks,
				   V, class_of + rp->n_saved, size, bytes + V);
	for (v = 0; rc == 0 && v < 2 * V; v++)
		*without += bytes[v];
out:
	free(class_of);
	free(bytes);
	return rc;
}

/*
 * The fewest colours the colouring proved (its clique, or its colours
 * when the exact search closed) times the smallest of the n frames: no
 * layout is lower, since a layout of frames all as small as the
 * smallest, cut into bands of that size, colours them.
 */
static uint64_t colours_floor_bytes(const struct cgs_role_stats *st,
			     const uint64_t *size, uint32_t n)
{
	uint64_t smallest = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (size[i] < smallest)
			smallest = size[i];
	if (n == 0 || smallest > UINT64_MAX / (st->colours_floor + 1))
		return 0;
	return smallest * st->colours_floor;
}

/*
 * Lay the kind out again with the colouring from before the tabu search
 * (`before`, k_before colours) and keep it, colours and offsets, when it
 * takes strictly fewer bytes: fewer colours can pack into more.
 */
static int try_colouring_before(struct kind_view *kv, const uint64_t *size,
				uint64_t *offset, uint32_t *colour,
				const uint32_t *before, uint32_t k_before,
				struct cgs_role_stats *st,
				uint64_t *colour_bytes)
{
	uint64_t *off = calloc((uint64_t)kv->n_frames + 1, sizeof(*off));
	uint64_t bytes, regions, floor;
	int rc;

	if (!off)
		return CGS_E_NOMEM;
	kv->colour = before;
	rc = kind_layout(kv, size, off, &bytes, &regions, &floor);
	kv->colour = colour;
	if (rc == 0 && bytes < st->bytes) {
		memcpy(colour, before, kv->n_frames * sizeof(*colour));
		memcpy(offset, off, kv->n_frames * sizeof(*offset));
		st->bytes = bytes;
		st->colours = k_before;
		*colour_bytes = regions;
	}
	free(off);
	return rc;
}

int cgs_pack_frames(struct cgs_rank_work *x, struct cgs_error *err)
{
	struct cgs_rank_plan *rp = x->rp;
	uint32_t g;
	uint64_t *size = calloc((uint64_t)rp->n_saved + 1, sizeof(*size));
	uint64_t *offset = calloc((uint64_t)rp->n_saved + 1, sizeof(*offset));
	uint64_t without = 0, saved_colour_bytes, grad_colour_bytes;
	struct kind_view saved_view = {
		.items = &x->group_conflicts, .frames = &x->frame_conflicts,
		.item_first = x->group_first, .birth = x->group_birth,
		.colour = x->saved_colour, .n_frames = rp->n_saved,
		.lower = rp->saved_stats.lower_bound_bytes,
		.align = x->align, .dsa_nodes = x->opt->pack_budget,
		.clique_nodes = x->opt->colour_budget,
		.want_floor = x->want_floor, .hint = x->group_offset_hint,
		.hint_ties = x->group_offset_hint_ties,
		.frame_hint = x->frame_offset_hint,
		.items_per_chunk = x->slots};
	/* gradient frames are their own items: BY_COLOUR is per frame */
	struct kind_view grad_view = {
		.items = &x->grad_conflicts, .item_first = x->grad_first,
		.birth = x->grad_birth, .colour = x->grad_colour,
		.n_frames = x->n_groups,
		.lower = rp->user_grad_stats.lower_bound_bytes,
		.align = x->align, .dsa_nodes = x->opt->pack_budget,
		.clique_nodes = x->opt->colour_budget,
		.want_floor = x->want_floor};
	int rc = CGS_E_NOMEM;

	if (!size || !offset)
		goto out;
	for (g = 0; g < rp->n_saved; g++) {
		struct cgs_frame *f = &rp->saved[g];

		f->bytes = size[g] =
			x->saved_bytes[x->layer_base[f->chunk] + f->layer];
	}
	saved_view.clique_lower = colours_floor_bytes(&rp->saved_stats, size,
						      rp->n_saved);
	rc = kind_layout(&saved_view, size, offset, &rp->saved_stats.bytes,
			 &saved_colour_bytes, &rp->saved_stats.floor_bytes);
	if (rc == 0 && x->saved_colour_before)
		rc = try_colouring_before(&saved_view, size, offset,
					  x->saved_colour,
					  x->saved_colour_before,
					  x->saved_colours_before,
					  &rp->saved_stats, &saved_colour_bytes);
	if (rc)
		goto out;
	for (g = 0; g < rp->n_saved; g++) {
		rp->saved[g].offset = offset[g];
		rp->saved[g].colour = x->saved_colour[g];
	}
	for (g = 0; g < x->n_groups; g++)
		rp->user_grad[g].bytes = size[g] = x->grad_bytes[g / x->slots];
	grad_view.clique_lower = colours_floor_bytes(&rp->user_grad_stats,
						     size, x->n_groups);
	rc = kind_layout(&grad_view, size, offset, &rp->user_grad_stats.bytes,
			 &grad_colour_bytes, &rp->user_grad_stats.floor_bytes);
	if (rc == 0 && x->grad_colour_before)
		rc = try_colouring_before(&grad_view, size, offset,
					  x->grad_colour, x->grad_colour_before,
					  x->grad_colours_before,
					  &rp->user_grad_stats,
					  &grad_colour_bytes);
	if (rc)
		goto out;
	for (g = 0; g < x->n_groups; g++) {
		rp->user_grad[g].offset = offset[g];
		rp->user_grad[g].colour = x->grad_colour[g];
	}
	if (!x->bytes_only) {
		rc = bytes_without_sharing(x, &saved_view, &grad_view, size,
					   &without);
		if (rc)
			goto out;
	}
	rp->n_arenas = 2;
	rp->arenas[0] = (struct cgs_arena){CGS_ARENA_SAVED, rp->saved_stats.bytes};
	rp->arenas[1] = (struct cgs_arena){CGS_ARENA_USER_GRAD,
					   rp->user_grad_stats.bytes};
	rp->bytes = rp->saved_stats.bytes + rp->user_grad_stats.bytes;
	rp->bytes_colour_arenas = saved_colour_bytes + grad_colour_bytes;
	rp->bytes_without_sharing = without;
out:
	free(size);
	free(offset);
	return rc ? cgs_plan_fail(err, rc, rp->rank, "packing the frames") : 0;
}
