/*
 * Placed slots: a slot map for frames of different sizes, whose slots
 * come with their offsets.
 *
 * Where every order's forwards are a prefix of the longest order's (the
 * schedule formulas give this), a layout of the longest order alone
 * serves them all: until its last forward a shorter order is the longest
 * one, and after it only frees.  So the map is found on that one order:
 * its forwards are placed one by one, each microbatch at an offset free
 * of the microbatches live then, below a width W, by a depth-first
 * search with backtracking.  A microbatch takes a slot of its chunk that
 * sits at that offset and is free (its last holder's backward has come),
 * or a new slot there while the chunk has fewer than S.  A slot is never
 * taken by the microbatch whose backward, in some order, comes right
 * after its last holder's: the gradient frame the holder's backward
 * wrote is still being sent then (liveness.c).  W is first what brings
 * the rank within 2% of its bound, then halfway to 5% above the saved
 * peak, then 5%; where the rank searches rings above its smallest, it
 * climbs by steps that double instead (1/32 of the way, 1/16, ... half,
 * all of it).  A map found just above the first width may still pack
 * below it, since the packing places each layer on its own: on the
 * bench's q09 rank 0, a map found 2 grains above it packs at 1.006
 * times the bound, where the one found halfway packs at 1.022.  Each
 * width is tried with the gradient parity (below), then without it.
 *
 * The offsets are tried in three orders: lowest first, beside the
 * microbatches that end when this one ends, and (where the rank
 * searches rings above its smallest) nearest a guide.  Placing in time
 * order, the search cannot undo a placement made dozens of forwards
 * before the one that fails; the packing engine (dsa.c), laying out the
 * same forwards as intervals without slots, can.  Its offsets are the
 * guide: where they also keep the slots' rules the search walks
 * straight to them, and elsewhere it leaves them as little as it must.
 *
 * The map's slots keep the offsets the search gave them; the packing
 * takes them (pack.c) when they are a layout of the conflicts and beat
 * its own.  Where every chunk's microbatch is a whole fraction of the
 * largest, the longest order is also laid out in blocks of the largest
 * (placed_blocks, below), which leave no holes a big frame cannot use,
 * and with the bigger chunks' first layers apart from places the rest
 * shares with the smaller chunks' whole microbatches (placed_split).
 * Uniform frames gain nothing here: the colours map already reaches the
 * peak of the order there.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/dsa.h"
#include "plan/stage.h"

/*
 * Search nodes (offsets tried) per width, candidate order and parity,
 * or twice the forwards where more: at most 42 tries once per rank (7
 * widths, 3 orders, with the parity and without), 8 ms median and 18 ms
 * at most each where nothing is found on the bench family.
 */
#define PLACED_NODES 32768u
/*
 * The guide's packing gets this many nodes times buffers at most (its
 * cost grows with both): 0.1 to 0.5 s where it finds nothing.
 */
#define PLACED_GUIDE_WORK 60000000u
/*
 * Widths tried above the first, the last at 5% above the peak, where
 * the rank searches rings above its smallest (else 2: at the smallest
 * ring the ladder moved no rank of the bench's family, and took q29
 * from 2.3 to 3.0 s).  Steps from 1/256 instead moved no further rank.
 */
#define PLACED_STEPS 6
/* Widths above this many grains are not searched. */
#define PLACED_MAX_UNITS (1u << 20)
/* Nor orders whose candidate lists would take more (16 bytes each). */
#define PLACED_MAX_CANDS (1ull << 22)
/* Blocks: most (chunk, block, side, parity) keys (4 bytes each). */
#define PLACED_MAX_BLOCK_KEYS (1ull << 22)

#define NONE UINT32_MAX

/* One way to try the offsets open to a microbatch. */
enum placed_order {
	PLACED_LOWEST,     /* its chunk's slots first, then lowest offset */
	PLACED_LIFETIME,   /* beside microbatches that end when it ends */
	PLACED_GUIDED,     /* nearest the offset of a packing of the order */
	PLACED_ORDERS
};

struct cand {
	uint64_t key;
	uint32_t pos, slot;      /* slot NONE: a new slot at pos */
};

struct placed {
	uint32_t M, S, F, W;       /* chunks, ring, forwards, width */
	uint32_t per;              /* room for one depth's candidates */
	const uint32_t *unit;      /* per chunk: its frames' bytes in grains */
	uint32_t *chunk, *end;     /* per item (forward): chunk, backward */
	uint64_t *guide;           /* per item: its offset in the packing */
	uint32_t *free_first, *free_items; /* backwards before forward i */
	/* the same-chunk items whose backward some order runs right before */
	uint32_t *pred_first, *pred;
	/* search state; the live items are kept sorted by offset */
	uint32_t *pos, *slot, *live_items, n_live;
	uint8_t *live;
	uint32_t *barred;          /* i + 1 where a holder may not hand to i */
	uint32_t *n_pal, *pal_pos, *pal_holder;   /* [c * S + s] */
	/*
	 * Gradient parity: consecutive backwards of any order alternate it
	 * (par[item], 0 or 1; NULL when the backwards admit no such
	 * alternation), and a slot only takes items of its own, so the
	 * gradient frames keep two colours, as with k mod an even ring.
	 */
	uint8_t *par, *pal_par;
	int use_par;               /* par is NULL or this try ignores it */
	/* per depth: candidates, the next one, what it changed */
	struct cand *cands;
	uint32_t *cand_first, *cand_next, *prev_holder, *made_slot;
	uint64_t nodes;
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/*
 * Live items never overlap, so sorted by offset their ends are sorted
 * too: how many of them start below p (binary search).
 */
static uint32_t starting_below(const struct placed *pl, uint32_t p)
{
	uint32_t lo = 0, hi = pl->n_live;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (pl->pos[pl->live_items[mid]] < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t end_of(const struct placed *pl, uint32_t it)
{
	return pl->pos[it] + pl->unit[pl->chunk[it]];
}

/* The live item ending at `at` (below) or starting there (above). */
static uint32_t live_at(const struct placed *pl, uint32_t at, int below)
{
	uint32_t k = starting_below(pl, at);

	if (below)
		return k > 0 && end_of(pl, pl->live_items[k - 1]) == at ?
		       pl->live_items[k - 1] : NONE;
	return k < pl->n_live && pl->pos[pl->live_items[k]] == at ?
	       pl->live_items[k] : NONE;
}

/* Item it becomes live (on) or stops being live. */
static void live_set(struct placed *pl, uint32_t it, int on)
{
	uint32_t k = starting_below(pl, pl->pos[it]);

	pl->live[it] = (uint8_t)on;
	if (on) {
		memmove(pl->live_items + k + 1, pl->live_items + k,
			(pl->n_live - k) * sizeof(*pl->live_items));
		pl->live_items[k] = it;
		pl->n_live++;
	} else {
		pl->n_live--;
		memmove(pl->live_items + k, pl->live_items + k + 1,
			(pl->n_live - k) * sizeof(*pl->live_items));
	}
}

static uint64_t lifetime_key(const struct placed *pl, uint32_t item,
			     uint32_t p, int fresh)
{
	uint32_t w = pl->unit[pl->chunk[item]], nb, side;
	uint64_t key = (uint64_t)fresh << 62;

	for (side = 0; side < 2; side++) {
		uint32_t at = side ? p + w : p;

		if ((side == 0 && p == 0) || (side == 1 && p + w == pl->W))
			continue;
		nb = live_at(pl, at, side == 0);
		if (nb == NONE)
			key += (uint64_t)1 << 40;   /* free bytes beside it */
		else
			key += pl->end[nb] > pl->end[item] ?
			       pl->end[nb] - pl->end[item] :
			       pl->end[item] - pl->end[nb];
	}
	return key;
}

/* Is [p, p + w) free of every live item? */
static int span_free(const struct placed *pl, uint32_t p, uint32_t w)
{
	uint32_t k;

	if (p + w > pl->W)
		return 0;
	/* the last one starting below its top must end by p */
	k = starting_below(pl, p + w);
	return k == 0 || end_of(pl, pl->live_items[k - 1]) <= p;
}

/* List the candidates of item i at depth i into pl->cands. */
static uint32_t list_cands(struct placed *pl, uint32_t i, int order,
			   struct cand *out)
{
	uint32_t c = pl->chunk[i], w = pl->unit[c], n = 0, s, j;

	for (j = pl->pred_first[i]; j < pl->pred_first[i + 1]; j++)
		pl->barred[pl->pred[j]] = i + 1;
	/* its chunk's free slots where the span is free */
	for (s = 0; s < pl->n_pal[c]; s++) {
		uint32_t h = pl->pal_holder[c * pl->S + s],
			 p = pl->pal_pos[c * pl->S + s];

		if (h != NONE && (pl->live[h] || pl->barred[h] == i + 1))
			continue;
		if (pl->use_par && pl->pal_par[c * pl->S + s] != pl->par[i])
			continue;
		if (!span_free(pl, p, w))
			continue;
		out[n++] = (struct cand){0, p, s};
	}
	if (pl->n_pal[c] < pl->S) {
		/*
		 * the gaps between live items, by offset, that hold it: at
		 * their start and at their top (the sort below orders them)
		 */
		uint32_t at = 0, top;

		for (j = 0; j <= pl->n_live; j++) {
			top = j < pl->n_live ? pl->pos[pl->live_items[j]] : pl->W;
			if (top >= at + w) {
				out[n++] = (struct cand){0, at, NONE};
				if (top - w != at)
					out[n++] = (struct cand){0, top - w,
								 NONE};
			}
			if (j < pl->n_live)
				at = end_of(pl, pl->live_items[j]);
		}
		if (order == PLACED_GUIDED && pl->guide[i] + w <= pl->W &&
		    span_free(pl, (uint32_t)pl->guide[i], w))
			out[n++] = (struct cand){0, (uint32_t)pl->guide[i], NONE};
	}
	for (j = 0; j < n; j++) {
		int fresh = out[j].slot == NONE;

		if (order == PLACED_GUIDED) {
			uint64_t g = pl->guide[i], p = out[j].pos;

			out[j].key = ((p > g ? p - g : g - p) << 1) + fresh;
		} else {
			out[j].key = order == PLACED_LOWEST ?
				     ((uint64_t)fresh << 62) + out[j].pos :
				     lifetime_key(pl, i, out[j].pos, fresh);
		}
	}
	qsort(out, n, sizeof(*out), cand_cmp);
	/*
	 * a new slot only where no slot of the chunk is free (gap starts
	 * and tops can meet, and the chunk's slots come first)
	 */
	for (j = s = 0; j < n; j++) {
		uint32_t k;
		int dup = 0;

		for (k = 0; k < s && out[j].slot == NONE; k++)
			dup |= out[k].pos == out[j].pos;
		if (!dup)
			out[s++] = out[j];
	}
	return s;
}

static void take(struct placed *pl, uint32_t i, const struct cand *cd)
{
	uint32_t c = pl->chunk[i], s = cd->slot;

	pl->made_slot[i] = s == NONE;
	if (s == NONE) {
		s = pl->n_pal[c]++;
		pl->pal_pos[c * pl->S + s] = cd->pos;
		pl->pal_holder[c * pl->S + s] = NONE;
		if (pl->use_par)
			pl->pal_par[c * pl->S + s] = pl->par[i];
	}
	pl->prev_holder[i] = pl->pal_holder[c * pl->S + s];
	pl->pal_holder[c * pl->S + s] = i;
	pl->pos[i] = cd->pos;
	pl->slot[i] = s;
	live_set(pl, i, 1);
}


static void untake(struct placed *pl, uint32_t i)
{
	uint32_t c = pl->chunk[i], s = pl->slot[i];

	pl->pal_holder[c * pl->S + s] = pl->prev_holder[i];
	if (pl->made_slot[i])
		pl->n_pal[c]--;
	live_set(pl, i, 0);
}

/* Backwards between forward i - 1 and forward i end (or, undo, live). */
static void frees(struct placed *pl, uint32_t i, int undo)
{
	uint32_t j;

	for (j = pl->free_first[i]; j < pl->free_first[i + 1]; j++)
		live_set(pl, pl->free_items[j], undo);
}

/* Place every forward below W; 1 found, 0 not within the nodes. */
static int search(struct placed *pl, int order, uint64_t budget)
{
	uint32_t i = 0, per = pl->per;
	int back = 0;

	memset(pl->n_pal, 0, pl->M * sizeof(*pl->n_pal));
	memset(pl->live, 0, pl->F);
	pl->n_live = 0;
	pl->nodes = 0;
	for (;;) {
		struct cand *mine = pl->cands + (uint64_t)i * per;

		if (!back) {
			frees(pl, i, 0);
			pl->cand_first[i] = list_cands(pl, i, order, mine);
			pl->cand_next[i] = 0;
		} else {
			untake(pl, i);
		}
		if (pl->cand_next[i] < pl->cand_first[i] &&
		    pl->nodes < budget) {
			pl->nodes++;
			take(pl, i, &mine[pl->cand_next[i]++]);
			if (++i == pl->F)
				return 1;
			back = 0;
			continue;
		}
		frees(pl, i, 1);
		if (i == 0 || pl->nodes >= budget)
			return 0;
		i--;
		back = 1;
	}
}

static void placed_release(struct placed *pl)
{
	free(pl->chunk);
	free(pl->end);
	free(pl->guide);
	free(pl->free_first);
	free(pl->free_items);
	free(pl->pred_first);
	free(pl->pred);
	free(pl->barred);
	free(pl->pos);
	free(pl->slot);
	free(pl->live_items);
	free(pl->live);
	free(pl->n_pal);
	free(pl->pal_pos);
	free(pl->pal_holder);
	free(pl->cands);
	free(pl->cand_first);
	free(pl->cand_next);
	free(pl->prev_holder);
	free(pl->made_slot);
	free(pl->par);
	free(pl->pal_par);
}

/*
 * The pairs of items whose backwards follow each other in some order, as
 * lists per item without repeats (each order adds its own pairs):
 * first[i] .. first[i + 1] in *list (first holds F + 2 zeros on entry).
 * same_chunk: only pairs of one chunk, listed under the later backward
 * (the holders whose slot it may not take); else every pair, listed
 * under both items (the graph the gradient parity colours).
 */
static int backward_pairs(const struct placed *pl,
			  const struct cgs_rank_plan *rp,
			  const uint32_t *item_of, uint32_t width,
			  int same_chunk, uint32_t *first, uint32_t **list)
{
	uint32_t F = pl->F, o, c, i, prev, *bw = calloc(pl->M + 1, sizeof(*bw)),
		 *out = NULL, *seen = calloc(F + 1, sizeof(*seen)), kept = 0,
		 j, from;
	uint64_t e, n = 0;
	int fill;

	*list = NULL;
	if (!bw || !seen)
		goto fail;
	/* count, then fill, each list's start moving to its end */
	for (fill = 0; fill < 2; fill++) {
		if (fill) {
			for (i = 0; i < F; i++)
				first[i + 1] += first[i];
			out = malloc((n + 1) * sizeof(*out));
			if (!out)
				goto fail;
		}
		for (o = 0; o < rp->n_reachable; o++) {
			memset(bw, 0, pl->M * sizeof(*bw));
			prev = NONE;
			for (e = rp->order_start[o]; e < rp->order_start[o + 1];
			     e++) {
				int32_t id = rp->order_entries[e];

				if (id > 0)
					continue;
				c = (uint32_t)(-(int64_t)id) - 1;
				i = item_of[c * width + bw[c]++];
				if (prev != NONE &&
				    (!same_chunk || pl->chunk[prev] == c)) {
					if (fill)
						out[first[i]++] = prev;
					else
						first[i + 1]++;
					n += !fill;
					if (!same_chunk) {
						if (fill)
							out[first[prev]++] = i;
						else
							first[prev + 1]++;
						n += !fill;
					}
				}
				prev = i;
			}
		}
	}
	/* first[i] is now list i's end: drop the repeats, moving lists down */
	for (i = 0, from = 0; i < F; i++) {
		for (j = from; j < first[i]; j++)
			if (seen[out[j]] != i + 1) {
				seen[out[j]] = i + 1;
				out[kept++] = out[j];
			}
		from = first[i];
		first[i] = kept;
	}
	for (i = F; i > 0; i--)
		first[i] = first[i - 1];
	first[0] = 0;
	free(bw);
	free(seen);
	*list = out;
	return 0;
fail:
	free(bw);
	free(seen);
	free(out);
	return CGS_E_NOMEM;
}

/*
 * Give the items alternating parities along every order's backwards
 * (a two-colouring of consecutive backwards, breadth first); pl->par
 * stays NULL when some order's backwards make an odd cycle.
 */
static int gradient_parity(struct placed *pl, const struct cgs_rank_plan *rp,
			   const uint32_t *item_of, uint32_t width)
{
	uint32_t F = pl->F, *deg = calloc(F + 2, sizeof(*deg)), *adj = NULL,
		 *queue = calloc(F + 1, sizeof(*queue)), i, j, head, tail;
	uint8_t *par = malloc(F + 1);
	int rc = CGS_E_NOMEM, odd = 0;

	if (!deg || !queue || !par)
		goto out;
	rc = backward_pairs(pl, rp, item_of, width, 0, deg, &adj);
	if (rc)
		goto out;
	memset(par, 2, F);
	for (i = 0; i < F && !odd; i++) {
		if (par[i] != 2)
			continue;
		par[i] = 0;
		queue[0] = i;
		for (head = 0, tail = 1; head < tail && !odd; head++) {
			uint32_t v = queue[head];

			for (j = deg[v]; j < deg[v + 1]; j++) {
				if (par[adj[j]] == 2) {
					par[adj[j]] = (uint8_t)(1 - par[v]);
					queue[tail++] = adj[j];
				} else if (par[adj[j]] == par[v]) {
					odd = 1;
					break;
				}
			}
		}
	}
	if (!odd) {
		pl->par = par;
		par = NULL;
	}
out:
	free(deg);
	free(adj);
	free(queue);
	free(par);
	return rc;
}

/*
 * Gradient classes, for a map found without the gradient parity.  Its
 * slots keep their offsets, but a microbatch may move to another slot
 * at its slot's offset (the microbatches at one offset of one chunk
 * never live together): a slot per (chunk, offset, class), where the
 * class is a colour of the graph of backwards that follow each other in
 * some order.  With K classes the gradient frames then take at most K
 * colours.  Each group of microbatches (one chunk, one offset) is first
 * allowed every class; classes are taken away one at a time while the
 * graph can still be coloured from what each group allows, in a few
 * orders, and the fewest slots win.  Only where that graph is a forest,
 * where a colouring from lists is a pass from the leaves (on the bench's
 * q40 rank 2 it is one path: every shorter order's neighbours are
 * neighbours in the longest order's backwards too).  K is 2 where that
 * fits the ring, else 3: q40 rank 2's map, found at the width that
 * brings it within 2% only without the parity, splits 68 groups into
 * 46 slots of its ring of 48 for three gradient colours (five before).
 */
#define CLASS_WORK (1u << 25)  /* group classes x items x tries, at most */
#define CLASS_TRIES 64u
#define UNREACHED (NONE - 1)   /* an item the breadth-first walk has not met */

struct classes {
	uint32_t F, *group, *parent, *bfs;  /* per item; bfs: roots first */
	uint8_t *allowed, *mask;            /* per group; per item */
};

/* The classes a parent may take beside a child that may take `m`. */
static uint8_t classes_beside(uint8_t m, uint8_t all)
{
	if (m == 0)
		return 0;
	return (m & (m - 1)) ? all : (uint8_t)(all & ~m);
}

/* Whether every item can take a class its group allows, from the leaves. */
static int classes_fit(struct classes *cl, uint8_t all)
{
	uint32_t j, v;

	for (v = 0; v < cl->F; v++)
		cl->mask[v] = cl->allowed[cl->group[v]];
	for (j = cl->F; j-- > 0;) {
		v = cl->bfs[j];
		if (!cl->mask[v])
			return 0;
		if (cl->parent[v] != NONE)
			cl->mask[cl->parent[v]] &=
				classes_beside(cl->mask[v], all);
	}
	return 1;
}

static uint32_t next_random(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/*
 * The map's new slots (item_slot[i]) and their number per chunk, where
 * some K of 2 and 3 fits every chunk in the ring; else *fits 0.
 */
static int gradient_classes(struct placed *pl, const struct cgs_rank_plan *rp,
			    const uint32_t *item_of, uint32_t width,
			    uint32_t *item_slot, uint32_t *slot_group,
			    uint32_t *n_slots, int *fits)
{
	uint32_t F = pl->F, M = pl->M, S = pl->S, G = M * S, *deg = NULL,
		 *adj = NULL, *cand = NULL, *class_slot = NULL, *count = NULL,
		 i, j, c, s, v, head, tail, n_cand, K, try, tries, state, n,
		 *ordered = NULL, *chunk_order = NULL, *groups = NULL;
	uint8_t *best = NULL, *item_class = NULL;
	struct classes cl = {.F = F};
	int rc = CGS_E_NOMEM, forest = 1;

	*fits = 0;
	deg = calloc(F + 2, sizeof(*deg));
	cl.group = calloc(F + 1, sizeof(*cl.group));
	cl.parent = calloc(F + 1, sizeof(*cl.parent));
	cl.bfs = calloc(F + 1, sizeof(*cl.bfs));
	cl.allowed = calloc(G + 1, 1);
	cl.mask = calloc(F + 1, 1);
	best = calloc(G + 1, 1);
	item_class = calloc(F + 1, 1);
	cand = calloc(3 * (uint64_t)G + 1, sizeof(*cand));
	count = calloc(M + 1, sizeof(*count));
	class_slot = calloc(G * 3 + 1, sizeof(*class_slot));
	ordered = calloc(3 * (uint64_t)G + 1, sizeof(*ordered));
	chunk_order = calloc(M + 1, sizeof(*chunk_order));
	groups = calloc(M + 1, sizeof(*groups));
	if (!deg || !cl.group || !cl.parent || !cl.bfs || !cl.allowed ||
	    !cl.mask || !best || !item_class || !cand || !count ||
	    !class_slot || !ordered || !chunk_order || !groups)
		goto out;
	rc = backward_pairs(pl, rp, item_of, width, 0, deg, &adj);
	if (rc)
		goto out;
	/* a group per chunk and offset: its first slot there */
	for (i = 0; i < F; i++) {
		c = pl->chunk[i];
		for (s = 0; pl->pal_pos[c * S + s] !=
			    pl->pal_pos[c * S + pl->slot[i]]; s++)
			;
		cl.group[i] = c * S + s;
	}
	/* breadth first from each root; a forest has one edge fewer per tree */
	for (i = 0; i < F; i++)
		cl.parent[i] = UNREACHED;
	for (i = 0, tail = 0; i < F && forest; i++) {
		uint32_t first = tail, ends = 0;

		if (cl.parent[i] != UNREACHED)
			continue;
		cl.parent[i] = NONE;
		cl.bfs[tail++] = i;
		for (head = first; head < tail; head++) {
			v = cl.bfs[head];
			ends += deg[v + 1] - deg[v];
			for (j = deg[v]; j < deg[v + 1]; j++)
				if (cl.parent[adj[j]] == UNREACHED) {
					cl.parent[adj[j]] = v;
					cl.bfs[tail++] = adj[j];
				}
		}
		forest = ends / 2 == tail - first - 1;
	}
	if (!forest)
		goto done;
	/* chunks by their groups, most first (an insertion sort: M is small) */
	for (i = 0; i < F; i++)
		cl.allowed[cl.group[i]] = 1;
	for (v = 0; v < G; v++)
		groups[v / S] += cl.allowed[v];
	for (c = 0; c < M; c++) {
		for (j = c; j > 0 && groups[chunk_order[j - 1]] < groups[c]; j--)
			chunk_order[j] = chunk_order[j - 1];
		chunk_order[j] = c;
	}
	for (K = 2; K <= 3 && !*fits; K++) {
		uint8_t all = (uint8_t)((1u << K) - 1);
		uint32_t best_excess = UINT32_MAX, best_total = UINT32_MAX;

		memset(cl.allowed, 0, G);
		for (i = 0; i < F; i++)
			cl.allowed[cl.group[i]] = all;
		for (n_cand = 0, v = 0; v < G; v++)
			for (j = 0; cl.allowed[v] && j < K; j++)
				cand[n_cand++] = v * 3 + j;
		tries = (uint32_t)(CLASS_WORK / ((uint64_t)n_cand * F + 1));
		tries = tries < 1 ? 1 : tries > CLASS_TRIES ? CLASS_TRIES :
			tries;
		for (try = 0, state = 2463534242u; try < tries; try++) {
			uint32_t excess = 0, total = 0;

			for (v = 0; v < G; v++)
				cl.allowed[v] = cl.allowed[v] ? all : 0;
			/*
			 * the first try in group order, then shuffled; the
			 * chunks with the most groups first, where the ring
			 * is tightest
			 */
			for (j = n_cand; try && j > 1; j--) {
				uint32_t r = next_random(&state) % j, t = cand[j - 1];

				cand[j - 1] = cand[r];
				cand[r] = t;
			}
			for (n = 0, c = 0; c < M; c++)
				for (j = 0; j < n_cand; j++)
					if (cand[j] / 3 / S == chunk_order[c])
						ordered[n++] = cand[j];
			for (j = 0; j < n_cand; j++) {
				uint32_t g = ordered[j] / 3;
				uint8_t b = (uint8_t)(1u << (ordered[j] % 3));

				if (cl.allowed[g] == b)
					continue;
				cl.allowed[g] &= (uint8_t)~b;
				if (!classes_fit(&cl, all))
					cl.allowed[g] |= b;
			}
			memset(count, 0, M * sizeof(*count));
			for (v = 0; v < G; v++)
				count[v / S] += (uint32_t)__builtin_popcount(
					cl.allowed[v]);
			for (c = 0; c < M; c++) {
				excess += count[c] > S ? count[c] - S : 0;
				total += count[c];
			}
			if (excess < best_excess ||
			    (excess == best_excess && total < best_total)) {
				best_excess = excess;
				best_total = total;
				memcpy(best, cl.allowed, G);
			}
		}
		*fits = best_excess == 0;
	}
	if (!*fits)
		goto done;
	/*
	 * each item's class: the lowest its subtree and its parent allow
	 * (every class beside a child of two: the groups' lists limit them)
	 */
	memcpy(cl.allowed, best, G);
	classes_fit(&cl, 7);
	for (j = 0; j < F; j++) {
		uint8_t m = cl.mask[v = cl.bfs[j]];

		if (cl.parent[v] != NONE)
			m &= (uint8_t)~(1u << item_class[cl.parent[v]]);
		item_class[v] = (uint8_t)__builtin_ctz(m);
	}
	/* backwards that follow each other never share a class */
	for (v = 0; v < F; v++)
		for (j = deg[v]; j < deg[v + 1]; j++)
			if (item_class[adj[j]] == item_class[v]) {
				*fits = 0;
				goto done;
			}
	/* slots in the order their first microbatches come */
	for (v = 0; v < 3 * G; v++)
		class_slot[v] = NONE;
	memset(n_slots, 0, M * sizeof(*n_slots));
	for (i = 0; i < F; i++) {
		uint32_t *slot = &class_slot[cl.group[i] * 3 + item_class[i]];

		c = pl->chunk[i];
		if (*slot == NONE) {
			*slot = n_slots[c]++;
			slot_group[c * S + *slot] = cl.group[i] % S;
		}
		item_slot[i] = *slot;
	}
done:
	rc = 0;
out:
	free(deg);
	free(adj);
	free(cl.group);
	free(cl.parent);
	free(cl.bfs);
	free(cl.allowed);
	free(cl.mask);
	free(best);
	free(item_class);
	free(cand);
	free(count);
	free(class_slot);
	free(ordered);
	free(chunk_order);
	free(groups);
	return rc;
}

/*
 * The guide: the longest order's forwards packed as intervals, without
 * slots, by the packing engine, stopping at the first height within W
 * (else the lowest it found within its nodes: *height).  Where its offsets
 * also keep the slots' rules the guided search walks straight to them;
 * elsewhere it leaves them as little as it must.
 */
static int pack_guide(struct placed *pl, const struct cgs_rank_plan *rp,
		      uint32_t W, uint64_t *height)
{
	uint32_t L = rp->n_reachable - 1, i = 0;
	int64_t *lo = malloc((pl->F + 1) * sizeof(*lo)),
		*hi = malloc((pl->F + 1) * sizeof(*hi));
	uint64_t *size = malloc((pl->F + 1) * sizeof(*size)), e;
	struct cgs_dsa_options opt = {
		.capacity = W,
		/* 0 would ask for the engine's default */
		.node_budget = pl->F < PLACED_GUIDE_WORK ?
			       PLACED_GUIDE_WORK / pl->F : 1,
	};
	struct cgs_dsa_result res;
	int rc = CGS_E_NOMEM;

	*height = 0;
	pl->guide = calloc(pl->F + 1, sizeof(*pl->guide));
	if (!lo || !hi || !size || !pl->guide)
		goto out;
	for (e = rp->order_start[L]; e < rp->order_start[L + 1]; e++)
		if (rp->order_entries[e] > 0) {
			lo[i] = (int64_t)(e - rp->order_start[L]);
			hi[i] = (int64_t)pl->end[i] + 1;
			size[i] = pl->unit[pl->chunk[i]];
			i++;
		}
	rc = cgs_dsa_pack_intervals(pl->F, lo, hi, size, NULL, &opt,
				    pl->guide, &res);
	if (rc == 0)
		*height = res.height;
out:
	free(lo);
	free(hi);
	free(size);
	return rc;
}

/*
 * Items (the longest order's forwards), the backwards before each, and
 * the same-chunk backward pairs that follow each other in some order.
 * item_of[c * width + k] is the item of (c, k).
 */
static int index_items(struct placed *pl, const struct cgs_rank_plan *rp,
		       uint32_t *item_of, uint32_t width)
{
	uint32_t L = rp->n_reachable - 1, M = pl->M, c, *fw, *bw, i = 0,
		 n_free = 0;
	uint64_t e;
	int rc = CGS_E_NOMEM;

	fw = calloc(M, sizeof(*fw));
	bw = calloc(M, sizeof(*bw));
	if (!fw || !bw)
		goto out;
	for (e = rp->order_start[L]; e < rp->order_start[L + 1]; e++) {
		int32_t id = rp->order_entries[e];

		c = (uint32_t)(id < 0 ? -(int64_t)id : id) - 1;
		if (id > 0) {
			pl->free_first[i + 1] = n_free;
			pl->chunk[i] = c;
			pl->end[i] = UINT32_MAX;
			item_of[c * width + fw[c]++] = i++;
		} else {
			uint32_t it = item_of[c * width + bw[c]++];

			pl->end[it] = (uint32_t)(e - rp->order_start[L]);
			if (i < pl->F)
				pl->free_items[n_free++] = it;
		}
	}
	rc = backward_pairs(pl, rp, item_of, width, 1, pl->pred_first,
			    &pl->pred);
out:
	free(fw);
	free(bw);
	return rc;
}

/*
 * Every order's rows of a map from the slot of each of the longest
 * order's items: row (o, c) holds the slot of microbatch k of chunk c for
 * k below order o's count (a nested order takes the longest one's), 0
 * past it.  NULL when out of memory.
 */
static uint32_t *map_of_items(const struct cgs_rank_plan *rp, uint32_t M,
			      const uint32_t *item_of, uint32_t width,
			      const uint32_t *item_slot)
{
	uint32_t R = rp->n_reachable, o, c, k,
		 *out = malloc(((uint64_t)R * M * width + 1) * sizeof(*out));

	if (!out)
		return NULL;
	for (o = 0; o < R; o++)
		for (c = 0; c < M; c++)
			for (k = 0; k < width; k++)
				out[((uint64_t)o * M + c) * width + k] =
					k < rp->reachable[o] ?
					item_slot[item_of[c * width + k]] : 0;
	return out;
}

/* The map with gradient classes (cls), where they fit the ring. */
static int placed_classes(struct placed *pl, const struct cgs_rank_plan *rp,
			  const uint32_t *item_of, uint32_t width,
			  uint64_t grain, struct cgs_placed_classes *cls)
{
	uint32_t M = pl->M, S = pl->S, c, s,
		 *item_slot = calloc(pl->F + 1, sizeof(*item_slot)),
		 *slot_group = calloc((uint64_t)M * S + 1, sizeof(*slot_group)),
		 *n_slots = calloc(M + 1, sizeof(*n_slots)), *out = NULL;
	uint64_t *offs = NULL;
	int rc = CGS_E_NOMEM, fits = 0;

	if (!item_slot || !slot_group || !n_slots)
		goto out;
	rc = gradient_classes(pl, rp, item_of, width, item_slot, slot_group,
			      n_slots, &fits);
	if (rc || !fits)
		goto out;
	rc = CGS_E_NOMEM;
	out = map_of_items(rp, M, item_of, width, item_slot);
	offs = calloc((uint64_t)M * S + 1, sizeof(*offs));
	if (!out || !offs)
		goto out;
	for (c = 0; c < M; c++) {
		for (s = 0; s < n_slots[c]; s++)
			offs[c * S + s] = (uint64_t)pl->pal_pos[
				c * S + slot_group[c * S + s]] * grain;
		if (n_slots[c] > cls->used)
			cls->used = n_slots[c];
	}
	cls->map = out;
	cls->slot_offset = offs;
	out = NULL;
	offs = NULL;
	rc = 0;
out:
	free(item_slot);
	free(slot_group);
	free(n_slots);
	free(out);
	free(offs);
	return rc;
}

/* The blocks' state (placed_blocks). */
struct blocks {
	const struct placed *pl;
	const uint32_t *item_of;
	uint32_t width, most, mm;   /* longest count, blocks, largest m */
	uint32_t *m;                /* per chunk: microbatches a block */
	uint32_t *fw;               /* per chunk: the longest order's count */
	uint32_t *slot_id;          /* per key: slot of its chunk, or NONE */
	uint32_t *holder;           /* [c * S + s]: the slot's last item */
};

static uint64_t block_key(const struct blocks *bl, uint32_t c, uint32_t b,
			  uint32_t side, uint32_t par)
{
	return (((uint64_t)c * bl->most + b) * bl->mm + side) * 2 + par;
}

/*
 * How many slots group g of chunk c would add in block b, or NONE where
 * one of its members may not take the slot there (the holder's backward
 * comes right before its own in some order).
 */
static uint32_t block_cost(const struct blocks *bl, uint32_t c, uint32_t g,
			   uint32_t b)
{
	const struct placed *pl = bl->pl;
	uint32_t side, added = 0, j;

	for (side = 0; side < bl->m[c] && g * bl->m[c] + side < bl->fw[c];
	     side++) {
		uint32_t it = bl->item_of[c * bl->width + g * bl->m[c] + side],
			 s = bl->slot_id[block_key(bl, c, b, side,
						   pl->par ? pl->par[it] : 0)],
			 h;

		if (s == NONE) {
			added++;
			continue;
		}
		h = bl->holder[c * pl->S + s];
		for (j = pl->pred_first[it];
		     h != NONE && j < pl->pred_first[it + 1]; j++)
			if (pl->pred[j] == h)
				return NONE;
	}
	return added;
}

/*
 * Blocks: where one chunk's microbatches are a whole multiple of
 * another's (m = big / unit), m consecutive microbatches of the smaller
 * chunk (k = m j .. m j + m - 1) share one block of the largest size,
 * microbatch k at side k mod m of it, and every chunk's microbatches take
 * blocks: the longest order's groups are then intervals of one size, and
 * taking any free block at each group's first forward needs no more
 * blocks than groups live at once (the left-edge rule).  Microbatches of
 * several sizes placed one by one leave holes the big ones cannot use;
 * blocks leave none but the sides of a group whose members are not all
 * live, so the width is that of the peak in groups.  Among the free
 * blocks, a group takes the one whose slots (chunk, block, side, gradient
 * parity) its members already have, else the one that makes the fewest
 * new, most recently freed first; never a slot whose last holder's
 * backward comes right before the member's in some order.  No map
 * (out_blocks->map stays NULL) where no chunk is smaller, the sizes do
 * not divide, or a chunk would need more slots than the ring.  On the
 * bench's q40 rank 3 (one layer a chunk, chunk 0's frames twice chunk
 * 1's) it lays out the longest order on 27 blocks, the peak of 53 grains
 * plus one, where placing frames one by one found nothing below 55.
 */
static int placed_blocks(struct placed *pl, const struct cgs_rank_plan *rp,
			 const uint32_t *item_of, uint32_t width,
			 uint32_t most, uint64_t grain,
			 struct cgs_placed_classes *out_blocks)
{
	struct blocks bl = {.pl = pl, .item_of = item_of, .width = width,
			    .most = most, .mm = 1};
	uint32_t M = pl->M, S = pl->S, F = pl->F,
		 big = 0, c, i, j, b, n_blocks = 0, *kk = NULL,
		 *group_block = NULL, *n_slots = NULL, *item_slot = NULL,
		 *out = NULL, any = 0;
	uint64_t *offs = NULL, *freed_at = NULL, n_keys;
	uint8_t *busy = NULL;
	int rc = CGS_E_NOMEM;

	for (c = 0; c < M; c++)
		if (pl->unit[c] > big)
			big = pl->unit[c];
	for (c = 0; c < M; c++) {
		if (big % pl->unit[c])
			return 0;
		any |= big != pl->unit[c];
		if (big / pl->unit[c] > bl.mm)
			bl.mm = big / pl->unit[c];
	}
	/* no more blocks are live than microbatches in flight */
	n_keys = (uint64_t)M * most * bl.mm * 2;
	if (!any || n_keys > PLACED_MAX_BLOCK_KEYS)
		return 0;
	bl.m = calloc(M + 1, sizeof(*bl.m));
	bl.fw = calloc(M + 1, sizeof(*bl.fw));
	bl.slot_id = malloc((n_keys + 1) * sizeof(*bl.slot_id));
	bl.holder = malloc(((uint64_t)M * S + 1) * sizeof(*bl.holder));
	kk = calloc(F + 1, sizeof(*kk));
	group_block = malloc(((uint64_t)M * width + 1) * sizeof(*group_block));
	freed_at = calloc(most + 1, sizeof(*freed_at));
	busy = calloc(most + 1, 1);
	n_slots = calloc(M + 1, sizeof(*n_slots));
	item_slot = calloc(F + 1, sizeof(*item_slot));
	offs = calloc((uint64_t)M * S + 1, sizeof(*offs));
	if (!bl.m || !bl.fw || !bl.slot_id || !bl.holder || !kk ||
	    !group_block || !freed_at || !busy || !n_slots || !item_slot ||
	    !offs)
		goto out;
	for (c = 0; c < M; c++)
		bl.m[c] = big / pl->unit[c];
	for (i = 0; i < F; i++)
		kk[i] = bl.fw[pl->chunk[i]]++;
	memset(bl.slot_id, 0xff, (n_keys + 1) * sizeof(*bl.slot_id));
	memset(bl.holder, 0xff, ((uint64_t)M * S + 1) * sizeof(*bl.holder));
	rc = 0;
	for (i = 0; i < F; i++) {
		uint32_t g, side, key, best = NONE, best_cost = NONE;

		/*
		 * the backwards before forward i; a group's block is free
		 * once its last member in the order has ended
		 */
		for (j = pl->free_first[i]; j < pl->free_first[i + 1]; j++) {
			uint32_t it = pl->free_items[j], ic = pl->chunk[it];

			if ((kk[it] + 1) % bl.m[ic] == 0 ||
			    kk[it] + 1 == bl.fw[ic]) {
				b = group_block[ic * width + kk[it] / bl.m[ic]];
				busy[b] = 0;
				freed_at[b] = i + 1;
			}
		}
		c = pl->chunk[i];
		g = kk[i] / bl.m[c];
		side = kk[i] % bl.m[c];
		if (side == 0) {
			/* the free block adding fewest slots, latest freed */
			for (b = 0; b < n_blocks; b++) {
				uint32_t cost = busy[b] ? NONE
						: block_cost(&bl, c, g, b);

				if (cost != NONE &&
				    (best == NONE || cost < best_cost ||
				     (cost == best_cost &&
				      freed_at[b] > freed_at[best]))) {
					best = b;
					best_cost = cost;
				}
			}
			if (best == NONE && n_blocks < most)
				best = n_blocks++;
			if (best == NONE)
				goto out;
			busy[best] = 1;
			group_block[c * width + g] = best;
		}
		b = group_block[c * width + g];
		key = (uint32_t)block_key(&bl, c, b, side,
					  pl->par ? pl->par[i] : 0);
		if (bl.slot_id[key] == NONE) {
			if (n_slots[c] == S)
				goto out;
			bl.slot_id[key] = n_slots[c];
			offs[c * S + n_slots[c]] =
				((uint64_t)b * big +
				 (uint64_t)side * pl->unit[c]) * grain;
			n_slots[c]++;
		}
		item_slot[i] = bl.slot_id[key];
		bl.holder[c * S + bl.slot_id[key]] = i;
	}
	rc = CGS_E_NOMEM;
	out = map_of_items(rp, M, item_of, width, item_slot);
	if (!out)
		goto out;
	for (c = 0; c < M; c++)
		if (n_slots[c] > out_blocks->used)
			out_blocks->used = n_slots[c];
	out_blocks->map = out;
	out_blocks->slot_offset = offs;
	out = NULL;
	offs = NULL;
	rc = 0;
out:
	free(bl.m);
	free(bl.fw);
	free(bl.slot_id);
	free(bl.holder);
	free(kk);
	free(group_block);
	free(freed_at);
	free(busy);
	free(n_slots);
	free(item_slot);
	free(offs);
	free(out);
	return rc;
}

/* Seeds a split tries before it anneals, then takes one place more. */
#define PLACED_SPLIT_SEEDS 8u
/* W places, and Z places, tried above the most microbatches in flight. */
#define PLACED_SPLIT_EXTRA 2u
#define SPLIT_TRIES ((PLACED_SPLIT_EXTRA + 1) * (PLACED_SPLIT_EXTRA + 1))
/*
 * Most chunks a split chooses among: every set of them is weighed, each
 * over the longest order's forwards (2^M * F * M steps).
 */
#define PLACED_SPLIT_MAX_CHUNKS 8u

/* The split's state (placed_split): places, slots and who holds them. */
struct split {
	uint32_t n_w, n_z, S;
	uint8_t *w_busy, *z_busy;
	uint32_t *w_freed, *z_freed;  /* the forward before which it freed */
	uint8_t *has_w, *has_z;      /* [c * n_w + w], [c * n_z + z] */
	uint32_t *slot_w, *slot_z;   /* [c * S + s]; slot_z NONE: no Z part */
	uint32_t *holder, *n_slots;
	uint32_t *item_slot;
};

/*
 * A free place of `n` (busy[p] zero): with seed 0 the one freed last
 * (freed[p]), else one the chunk's slots already use (has[p]), ties
 * drawn at random.  NONE where none is free.
 */
static uint32_t split_place(const uint8_t *busy, const uint8_t *has,
			    const uint32_t *freed, uint32_t n, uint32_t *seed)
{
	uint32_t p, pick = NONE, best = 2, ties = 0;

	for (p = 0; p < n; p++) {
		uint32_t score = has[p] ? 0 : 1;

		if (busy[p])
			continue;
		if (*seed == 0) {
			if (pick == NONE || freed[p] > freed[pick])
				pick = p;
			continue;
		}
		if (score > best)
			continue;
		if (score < best) {
			best = score;
			ties = 0;
		}
		if (next_random(seed) % ++ties == 0)
			pick = p;
	}
	return pick;
}

/*
 * One pass of the split over the longest order with n_w W places and a
 * seed (0: new slots at the places freed last): 1 when every forward
 * found a slot, 0 when some chunk would need more slots than the ring.
 */
static int split_pass(const struct placed *pl, struct split *sp,
		      const uint8_t *in_z, uint32_t seed)
{
	uint32_t M = pl->M, S = sp->S, i, j, c, s;
	uint32_t *slot_of = sp->item_slot;

	memset(sp->w_busy, 0, sp->n_w);
	memset(sp->z_busy, 0, sp->n_z);
	memset(sp->w_freed, 0, sp->n_w * sizeof(*sp->w_freed));
	memset(sp->z_freed, 0, sp->n_z * sizeof(*sp->z_freed));
	memset(sp->has_w, 0, (uint64_t)M * sp->n_w);
	memset(sp->has_z, 0, (uint64_t)M * sp->n_z);
	memset(sp->n_slots, 0, M * sizeof(*sp->n_slots));
	for (i = 0; i < pl->F; i++) {
		uint32_t best = NONE, best_holder = 0, w, z;

		for (j = pl->free_first[i]; j < pl->free_first[i + 1]; j++) {
			uint32_t it = pl->free_items[j],
				 g = pl->chunk[it] * S + slot_of[it];

			sp->w_busy[sp->slot_w[g]] = 0;
			sp->w_freed[sp->slot_w[g]] = i + 1;
			if (sp->slot_z[g] != NONE) {
				sp->z_busy[sp->slot_z[g]] = 0;
				sp->z_freed[sp->slot_z[g]] = i + 1;
			}
		}
		c = pl->chunk[i];
		/* the free slot held last, unless its holder may not hand */
		for (s = 0; s < sp->n_slots[c]; s++) {
			uint32_t g = c * S + s, h = sp->holder[g], k;

			if (sp->w_busy[sp->slot_w[g]] ||
			    (sp->slot_z[g] != NONE && sp->z_busy[sp->slot_z[g]]))
				continue;
			for (k = pl->pred_first[i]; k < pl->pred_first[i + 1];
			     k++)
				if (pl->pred[k] == h)
					break;
			if (k < pl->pred_first[i + 1])
				continue;
			if (best == NONE || h + 1 > best_holder) {
				best = s;
				best_holder = h + 1;
			}
		}
		if (best == NONE) {
			if (sp->n_slots[c] == S)
				return 0;
			w = split_place(sp->w_busy, sp->has_w + c * sp->n_w,
					sp->w_freed, sp->n_w, &seed);
			z = in_z[c] ? split_place(sp->z_busy,
						  sp->has_z + c * sp->n_z,
						  sp->z_freed, sp->n_z, &seed)
				    : NONE;
			/* no more live than places: cannot happen */
			if (w == NONE || (in_z[c] && z == NONE))
				return 0;
			best = sp->n_slots[c]++;
			sp->slot_w[c * S + best] = w;
			sp->slot_z[c * S + best] = z;
			sp->has_w[c * sp->n_w + w] = 1;
			if (z != NONE)
				sp->has_z[c * sp->n_z + z] = 1;
		}
		sp->holder[c * S + best] = i;
		slot_of[i] = best;
		sp->w_busy[sp->slot_w[c * S + best]] = 1;
		if (sp->slot_z[c * S + best] != NONE)
			sp->z_busy[sp->slot_z[c * S + best]] = 1;
	}
	return 1;
}

/*
 * Annealing the Z places, where no greedy pass fits the ring.  The W
 * places follow the passes' rule (a forward takes the one freed last),
 * which with as many W places as microbatches in flight is no choice in
 * the steady state; what is left is which Z place each split microbatch
 * takes, an interval colouring with as few (W, Z) pairs per chunk as can
 * be, each pair one slot.  Two moves: one microbatch to another Z place
 * free over its whole life, or two Z places swapped for every microbatch
 * that starts between two forwards where neither place is held across.
 * A move is kept when it takes no more pairs, else with probability
 * exp(-more / T), T falling from SPLIT_T0 to SPLIT_T1 over the run.  Two
 * microbatches one of which some order's backward runs right before the
 * other's may not share a slot: each such pair on one slot costs
 * SPLIT_BARRED pairs.
 *
 * It stops at the first colouring that fits, after SPLIT_ANNEAL_WORK
 * item visits (a move visits up to every split item) or
 * SPLIT_ANNEAL_MOVES moves per split item, whichever comes first, or a
 * quarter of the way where the chunks are still more than a quarter of
 * a ring over (as on the bench's q29, where no split fits).  On q12 rank
 * 3 (96 split microbatches, 29 W places, ring 48) no greedy pass fits
 * with 24 or 25 Z places; annealed, 24 take 50 to 52 pairs and 25 fit,
 * with each of ten seeds, within a third of the 345,921 moves.
 *
 * 1 when every chunk fits the ring (sp->item_slot, slot_w, slot_z and
 * n_slots set as a pass sets them), 0 when not, CGS_E_NOMEM.
 */
#define SPLIT_ANNEAL_WORK (1u << 25)
#define SPLIT_ANNEAL_MOVES 4096u
#define SPLIT_T0 0.2
#define SPLIT_T1 0.03
#define SPLIT_BARRED 4

/*
 * a and b into each other's list: with list NULL, counted in first[a + 1]
 * and first[b + 1]; else written at the cursors at[a] and at[b].
 */
static void list_pair(uint32_t *list, uint32_t *first, uint32_t *at,
		      uint32_t a, uint32_t b)
{
	if (!list) {
		first[a + 1]++;
		first[b + 1]++;
		return;
	}
	list[at[a]++] = b;
	list[at[b]++] = a;
}

static int split_anneal(const struct placed *pl, struct split *sp,
			const uint8_t *in_z, uint32_t seed)
{
	uint32_t F = pl->F, M = pl->M, S = sp->S, nw = sp->n_w, nz = sp->n_z,
		 *fat = NULL, *wof = NULL, *zof = NULL, *zi = NULL, n_zi = 0,
		 *adj_first = NULL, *adj = NULL, *bar_first = NULL, *bar = NULL,
		 *cnt = NULL, *pairs = NULL, *chg = NULL, *seen = NULL,
		 *free_z = NULL, *pos = NULL, *live = NULL, *adj_at = NULL,
		 *bar_at = NULL, i, j, k, c, w, z, n_over = 0, stamp = 0;
	uint64_t it, iters;
	int64_t viol = 0;
	int rc = CGS_E_NOMEM, found = 0;

	fat = calloc(F + 1, sizeof(*fat));
	wof = calloc(F + 1, sizeof(*wof));
	zof = calloc(F + 1, sizeof(*zof));
	zi = calloc(F + 1, sizeof(*zi));
	adj_first = calloc(F + 2, sizeof(*adj_first));
	bar_first = calloc(F + 2, sizeof(*bar_first));
	cnt = calloc((uint64_t)M * nw * nz + 1, sizeof(*cnt));
	pairs = calloc(M + 1, sizeof(*pairs));
	chg = calloc(2 * (uint64_t)F + 1, sizeof(*chg));
	seen = calloc(nz + 1, sizeof(*seen));
	free_z = calloc(nz + 1, sizeof(*free_z));
	pos = malloc((F + 1) * sizeof(*pos));
	live = calloc(F + 1, sizeof(*live));
	adj_at = calloc(F + 1, sizeof(*adj_at));
	bar_at = calloc(F + 1, sizeof(*bar_at));
	if (!fat || !wof || !zof || !zi || !adj_first || !bar_first || !cnt ||
	    !pairs || !chg || !seen || !free_z || !pos || !live || !adj_at ||
	    !bar_at)
		goto out;
	memset(pos, 0xff, (F + 1) * sizeof(*pos));
	/* when each item is freed (F: after the last forward) */
	for (i = 0; i < F; i++)
		fat[i] = F;
	for (i = 0; i < F; i++)
		for (j = pl->free_first[i]; j < pl->free_first[i + 1]; j++)
			fat[pl->free_items[j]] = i;
	/* the W places, freed last first (ties: the lowest) */
	memset(sp->w_busy, 0, nw);
	memset(sp->w_freed, 0, nw * sizeof(*sp->w_freed));
	for (i = 0; i < F; i++) {
		uint32_t pick = NONE;

		for (j = pl->free_first[i]; j < pl->free_first[i + 1]; j++) {
			sp->w_busy[wof[pl->free_items[j]]] = 0;
			sp->w_freed[wof[pl->free_items[j]]] = i + 1;
		}
		for (w = 0; w < nw; w++)
			if (!sp->w_busy[w] &&
			    (pick == NONE || sp->w_freed[w] > sp->w_freed[pick]))
				pick = w;
		if (pick == NONE) {
			rc = 0;
			goto out;
		}
		wof[i] = pick;
		sp->w_busy[pick] = 1;
		if (in_z[pl->chunk[i]])
			zi[n_zi++] = i;
	}
	/* a chunk without Z parts: a slot per W place, barred pairs apart */
	for (i = 0; i < F; i++) {
		c = pl->chunk[i];
		if (in_z[c])
			continue;
		for (j = pl->pred_first[i]; j < pl->pred_first[i + 1]; j++)
			if (wof[pl->pred[j]] == wof[i]) {
				rc = 0;
				goto out;
			}
		if (cnt[((uint64_t)c * nw + wof[i]) * nz]++ == 0 &&
		    ++pairs[c] > S) {
			rc = 0;
			goto out;
		}
	}
	/*
	 * Split items live together, and barred pairs on one W place, as
	 * lists by position in zi: a sweep in start order keeps the items
	 * not yet freed (an item freed before a forward is freed before
	 * every later one), each meeting the next as it starts.  Two
	 * passes: the counts, then the lists.
	 */
	for (j = 0; j < n_zi; j++)
		pos[zi[j]] = j;
	for (k = 0; k < 2; k++) {
		uint32_t n_live = 0;

		if (k) {
			for (j = 0; j < n_zi; j++) {
				adj_first[j + 1] += adj_first[j];
				bar_first[j + 1] += bar_first[j];
			}
			adj = calloc(adj_first[n_zi] + 1, sizeof(*adj));
			bar = calloc(bar_first[n_zi] + 1, sizeof(*bar));
			if (!adj || !bar)
				goto out;
			/* cursors: where each list's next entry goes */
			memcpy(adj_at, adj_first, n_zi * sizeof(*adj_at));
			memcpy(bar_at, bar_first, n_zi * sizeof(*bar_at));
		}
		for (j = 0; j < n_zi; j++) {
			uint32_t a = zi[j], m, keep = 0, p;

			for (m = 0; m < n_live; m++) {
				uint32_t h = live[m];

				if (fat[zi[h]] <= a)
					continue;
				live[keep++] = h;
				list_pair(k ? adj : NULL, adj_first, adj_at, h, j);
			}
			n_live = keep;
			live[n_live++] = j;
			for (p = pl->pred_first[a]; p < pl->pred_first[a + 1];
			     p++) {
				uint32_t h = pos[pl->pred[p]];

				if (h == NONE || wof[zi[h]] != wof[a])
					continue;
				list_pair(k ? bar : NULL, bar_first, bar_at, h, j);
			}
		}
	}
	/* a first colouring: in start order, a Z place the W place has */
	for (j = 0; j < n_zi; j++) {
		uint32_t a = zi[j], pick = NONE;
		uint64_t base = ((uint64_t)pl->chunk[a] * nw + wof[a]) * nz;

		stamp++;
		for (k = adj_first[j]; k < adj_first[j + 1]; k++)
			if (adj[k] < j)
				seen[zof[zi[adj[k]]]] = stamp;
		for (z = 0; z < nz; z++)
			if (seen[z] != stamp &&
			    (pick == NONE || (cnt[base + z] && !cnt[base + pick])))
				pick = z;
		if (pick == NONE) {
			rc = 0;
			goto out;
		}
		zof[a] = pick;
		if (cnt[base + pick]++ == 0)
			pairs[pl->chunk[a]]++;
	}
	for (j = 0; j < n_zi; j++)
		for (k = bar_first[j]; k < bar_first[j + 1]; k++)
			if (zof[zi[bar[k]]] == zof[zi[j]])
				viol++;
	viol /= 2;
	for (c = 0; c < M; c++)
		if (in_z[c] && pairs[c] > S)
			n_over++;
	iters = n_zi ? SPLIT_ANNEAL_WORK / (n_zi + 1) : 0;
	if (iters > (uint64_t)SPLIT_ANNEAL_MOVES * n_zi)
		iters = (uint64_t)SPLIT_ANNEAL_MOVES * n_zi;
	for (it = 0; it < iters && !(n_over == 0 && viol == 0); it++) {
		double T = SPLIT_T0 + (SPLIT_T1 - SPLIT_T0) * (double)it /
				      (double)iters;
		uint32_t n_chg = 0, r = next_random(&seed);
		int64_t delta = 0, barred = 0;

		/* a quarter through, more than a quarter of a ring over: out */
		if (it == iters / 4) {
			uint32_t over = 0;

			for (c = 0; c < M; c++)
				if (in_z[c] && pairs[c] > S)
					over += pairs[c] - S;
			if (over > S / 4)
				break;
		}

		if (r & 1) {
			/* one item to a Z place free over its life */
			uint32_t n_free = 0;

			j = (r >> 1) % n_zi;
			stamp++;
			for (k = adj_first[j]; k < adj_first[j + 1]; k++)
				seen[zof[zi[adj[k]]]] = stamp;
			for (z = 0; z < nz; z++)
				if (seen[z] != stamp && z != zof[zi[j]])
					free_z[n_free++] = z;
			if (!n_free)
				continue;
			chg[0] = j;
			chg[1] = free_z[next_random(&seed) % n_free];
			n_chg = 1;
		} else {
			/* swap Z places a and b between forwards t1 and t2 */
			uint32_t t1 = zi[(r >> 1) % n_zi], t2 = F,
				 a = next_random(&seed) % nz,
				 b = next_random(&seed) % nz;

			r = next_random(&seed);
			if (a == b)
				continue;
			if (r & 1) {
				t2 = zi[(r >> 1) % n_zi];
				if (t2 < t1) {
					uint32_t t = t1;

					t1 = t2;
					t2 = t;
				}
			}
			for (j = 0; j < n_zi; j++) {
				uint32_t h = zi[j];

				if (zof[h] != a && zof[h] != b)
					continue;
				if (h < t1 ? fat[h] > t1 :
				    h < t2 && t2 < F && fat[h] > t2)
					break;
				if (h >= t1 && h < t2) {
					chg[2 * n_chg] = j;
					chg[2 * n_chg + 1] = zof[h] == a ? b : a;
					n_chg++;
				}
			}
			if (j < n_zi || !n_chg)
				continue;
		}
		/* apply, counting pairs and barred pairs before and after */
		for (k = 0; k < n_chg; k++) {
			uint32_t m = chg[2 * k], a = zi[m], to = chg[2 * k + 1],
				 from = zof[a], q;
			uint64_t base = ((uint64_t)pl->chunk[a] * nw + wof[a]) *
					nz;

			for (q = bar_first[m]; q < bar_first[m + 1]; q++) {
				uint32_t zb = zof[zi[bar[q]]];

				barred -= zb == from;
				barred += zb == to;
			}
			if (--cnt[base + from] == 0) {
				delta--;
				pairs[pl->chunk[a]]--;
			}
			if (cnt[base + to]++ == 0) {
				delta++;
				pairs[pl->chunk[a]]++;
			}
			chg[2 * k + 1] = from;
			zof[a] = to;
		}
		delta += barred * SPLIT_BARRED;
		if (delta > 0 &&
		    (double)next_random(&seed) >=
			    4294967296.0 * exp(-(double)delta / T)) {
			/* undo, last change first */
			for (k = n_chg; k-- > 0;) {
				uint32_t m = chg[2 * k], a = zi[m],
					 from = chg[2 * k + 1];
				uint64_t base = ((uint64_t)pl->chunk[a] * nw +
						 wof[a]) * nz;

				if (--cnt[base + zof[a]] == 0)
					pairs[pl->chunk[a]]--;
				if (cnt[base + from]++ == 0)
					pairs[pl->chunk[a]]++;
				zof[a] = from;
			}
			continue;
		}
		viol += barred;
		n_over = 0;
		for (c = 0; c < M; c++)
			if (in_z[c] && pairs[c] > S)
				n_over++;
	}
	rc = 0;
	if (n_over || viol)
		goto out;
	/* the slots: each chunk's pairs (W places) in order of first use */
	memset(sp->n_slots, 0, M * sizeof(*sp->n_slots));
	memset(cnt, 0xff, ((uint64_t)M * nw * nz + 1) * sizeof(*cnt));
	for (i = 0; i < F; i++) {
		uint64_t key;

		c = pl->chunk[i];
		z = in_z[c] ? zof[i] : 0;
		key = ((uint64_t)c * nw + wof[i]) * nz + z;
		if (cnt[key] == NONE) {
			cnt[key] = sp->n_slots[c]++;
			sp->slot_w[c * S + cnt[key]] = wof[i];
			sp->slot_z[c * S + cnt[key]] = in_z[c] ? z : NONE;
		}
		sp->item_slot[i] = cnt[key];
	}
	found = 1;
out:
	free(fat);
	free(wof);
	free(zof);
	free(zi);
	free(adj_first);
	free(adj);
	free(bar_first);
	free(bar);
	free(cnt);
	free(pairs);
	free(chg);
	free(seen);
	free(free_z);
	free(pos);
	free(live);
	free(adj_at);
	free(bar_at);
	return rc ? rc : found;
}

/*
 * Split: where one chunk's microbatch is bigger than another's but its
 * layers after the first come close to that whole microbatch, the first
 * layers go to places of their own (Z) and the rest share places (W)
 * with the smaller chunks' whole microbatches.  A W place is as wide as
 * the widest part it takes, and there are as many as microbatches in
 * flight; Z places as many as microbatches in flight of the chunks that
 * have a Z part.  A slot is one W place (and one Z place); a forward
 * takes its chunk's free slot held last (never one whose last holder's
 * backward comes right before its own in some order), else a new slot
 * at the places freed last; where that needs more slots than the ring,
 * passes with new slots at free places its chunk's slots already use,
 * else any, drawn at random, then the Z places annealed (split_anneal),
 * then one W or Z place more, whichever takes fewer bytes.  Which chunks
 * split is chosen by the bytes the places take.  On the bench's q12 rank 1
 * (three layers a chunk: 2280, 1672 and 1672 MiB, and 1140 MiB each)
 * 33 W places of 3420 MiB and 24 Z places of 2280 MiB take 1.011 times
 * the saved frames' bound, where whole microbatches placed one by one
 * found 1.019 (and the packing lays the map's conflicts out at the
 * bound itself).  On its rank 3 (29 W places, 24 Z places of 2280 MiB)
 * no pass nor annealing fits the ring of 48; 25 Z places do, annealed,
 * at 1.028 times the bound (30 W places would take 1140 MiB more).  No
 * map (out->map NULL) where no split takes fewer bytes than whole
 * microbatches in as many places, or nothing fits the ring.
 */
static int placed_split(struct placed *pl, const struct cgs_rank_work *x,
			const struct cgs_rank_plan *rp,
			const uint32_t *item_of, uint32_t width,
			struct cgs_placed_split *out)
{
	uint32_t M = pl->M, S = pl->S, c, l, i, j, mask, best_mask = 0,
		 in_flight = 0, peak = 0, peak_z, best_peak_z = 0, seed,
		 L_max = 0, *n_live = NULL;
	uint64_t whole = 0, w_size, z_size, best_w = 0, best_z = 0,
		 best_bytes, bytes, *offs = NULL;
	uint8_t in_z[PLACED_SPLIT_MAX_CHUNKS] = {0};
	struct split sp = {.S = S};
	struct {
		uint64_t bytes;
		uint32_t n_w, n_z;
	} tries[SPLIT_TRIES];
	int rc = CGS_E_NOMEM, fits = 0;

	if (M < 2 || M > PLACED_SPLIT_MAX_CHUNKS)
		return 0;
	n_live = calloc((uint64_t)M * (pl->F + 1) + 1, sizeof(*n_live));
	if (!n_live)
		return CGS_E_NOMEM;
	/* microbatches in flight at each forward, all and per chunk */
	for (i = 0; i < pl->F; i++) {
		for (j = pl->free_first[i]; j < pl->free_first[i + 1]; j++) {
			c = pl->chunk[pl->free_items[j]];
			n_live[(uint64_t)M * pl->F + c]--;
			in_flight--;
		}
		n_live[(uint64_t)M * pl->F + pl->chunk[i]]++;
		if (++in_flight > peak)
			peak = in_flight;
		for (c = 0; c < M; c++)
			n_live[(uint64_t)i * M + c] =
				n_live[(uint64_t)M * pl->F + c];
	}
	for (c = 0; c < M; c++) {
		uint64_t b = 0;

		for (l = 0; l < x->s->layers[c]; l++)
			b += x->saved_bytes[x->layer_base[c] + l];
		if (b > whole)
			whole = b;
		if (x->s->layers[c] > L_max)
			L_max = x->s->layers[c];
	}
	best_bytes = (uint64_t)peak * whole;
	/* each set of chunks whose first layer goes to a Z place */
	for (mask = 1; mask < (1u << M); mask++) {
		w_size = z_size = 0;
		for (c = 0; c < M; c++) {
			uint32_t first = (mask >> c) & 1;
			uint64_t w = 0;

			if (first && x->s->layers[c] < 2)
				break;
			for (l = first; l < x->s->layers[c]; l++)
				w += x->saved_bytes[x->layer_base[c] + l];
			if (w > w_size)
				w_size = w;
			if (first && x->saved_bytes[x->layer_base[c]] > z_size)
				z_size = x->saved_bytes[x->layer_base[c]];
		}
		if (c < M)
			continue;
		peak_z = 0;
		for (i = 0; i < pl->F; i++) {
			uint32_t n = 0;

			for (c = 0; c < M; c++)
				if ((mask >> c) & 1)
					n += n_live[(uint64_t)i * M + c];
			if (n > peak_z)
				peak_z = n;
		}
		bytes = (uint64_t)peak * w_size + (uint64_t)peak_z * z_size;
		if (bytes < best_bytes) {
			best_bytes = bytes;
			best_mask = mask;
			best_w = w_size;
			best_z = z_size;
			best_peak_z = peak_z;
		}
	}
	free(n_live);
	n_live = NULL;
	rc = 0;
	if (!best_mask)
		goto out;
	for (c = 0; c < M; c++)
		in_z[c] = (best_mask >> c) & 1;
	rc = CGS_E_NOMEM;
	sp.w_busy = calloc(peak + PLACED_SPLIT_EXTRA + 1, 1);
	sp.z_busy = calloc(best_peak_z + PLACED_SPLIT_EXTRA + 1, 1);
	sp.w_freed = calloc(peak + PLACED_SPLIT_EXTRA + 1,
			    sizeof(*sp.w_freed));
	sp.z_freed = calloc(best_peak_z + PLACED_SPLIT_EXTRA + 1,
			    sizeof(*sp.z_freed));
	sp.has_w = calloc((uint64_t)M * (peak + PLACED_SPLIT_EXTRA) + 1, 1);
	sp.has_z = calloc((uint64_t)M * (best_peak_z + PLACED_SPLIT_EXTRA) + 1,
			  1);
	sp.slot_w = calloc((uint64_t)M * S + 1, sizeof(*sp.slot_w));
	sp.slot_z = calloc((uint64_t)M * S + 1, sizeof(*sp.slot_z));
	sp.holder = calloc((uint64_t)M * S + 1, sizeof(*sp.holder));
	sp.n_slots = calloc(M + 1, sizeof(*sp.n_slots));
	sp.item_slot = calloc(pl->F + 1, sizeof(*sp.item_slot));
	if (!sp.w_busy || !sp.z_busy || !sp.w_freed || !sp.z_freed ||
	    !sp.has_w || !sp.has_z ||
	    !sp.slot_w || !sp.slot_z || !sp.holder || !sp.n_slots ||
	    !sp.item_slot)
		goto out;
	/*
	 * Every count of W and Z places up to PLACED_SPLIT_EXTRA above the
	 * most in flight, cheapest first (fewer W places on a tie): one Z
	 * place more can cost less than one W place more.
	 */
	for (i = 0; i < SPLIT_TRIES; i++) {
		uint32_t dw = i / (PLACED_SPLIT_EXTRA + 1),
			 dz = i % (PLACED_SPLIT_EXTRA + 1);
		uint64_t b = (uint64_t)(peak + dw) * best_w +
			     (uint64_t)(best_peak_z + dz) * best_z;

		/* insertion by bytes; ties keep fewer W places first */
		for (j = i; j > 0 && tries[j - 1].bytes > b; j--)
			tries[j] = tries[j - 1];
		tries[j].bytes = b;
		tries[j].n_w = peak + dw;
		tries[j].n_z = best_peak_z + dz;
	}
	for (i = 0; i < SPLIT_TRIES && !fits; i++) {
		sp.n_w = tries[i].n_w;
		sp.n_z = tries[i].n_z;
		for (seed = 0; seed <= PLACED_SPLIT_SEEDS && !fits; seed++)
			fits = split_pass(pl, &sp, in_z, seed * 2654435761u);
		if (!fits) {
			fits = split_anneal(pl, &sp, in_z, 2654435761u);
			if (fits < 0) {
				rc = fits;
				goto out;
			}
		}
	}
	rc = 0;
	if (!fits)
		goto out;
	rc = CGS_E_NOMEM;
	offs = calloc((uint64_t)M * S * L_max + 1, sizeof(*offs));
	out->map = map_of_items(rp, M, item_of, width, sp.item_slot);
	if (!offs || !out->map)
		goto out;
	/*
	 * W places from 0, Z places above them; a part's layers in order.
	 * A slot its chunk leaves unused is never live, but its own frames
	 * still meet one another: it takes W and Z place 0.
	 */
	for (c = 0; c < M; c++) {
		for (i = 0; i < S; i++) {
			uint32_t g = c * S + i, used = i < sp.n_slots[c];
			uint64_t at = used ? (uint64_t)sp.slot_w[g] * best_w : 0;

			for (l = 0; l < x->s->layers[c]; l++) {
				uint64_t *o = &offs[(uint64_t)g * L_max + l];

				if (l == 0 && in_z[c]) {
					*o = (uint64_t)sp.n_w * best_w +
					     (used ? (uint64_t)sp.slot_z[g] *
						     best_z : 0);
					continue;
				}
				*o = at;
				at += x->saved_bytes[x->layer_base[c] + l];
			}
		}
		if (sp.n_slots[c] > out->used)
			out->used = sp.n_slots[c];
	}
	out->frame_offset = offs;
	out->layers = L_max;
	offs = NULL;
	rc = 0;
out:
	if (rc || !out->frame_offset) {
		free(out->map);
		out->map = NULL;
		out->used = 0;
	}
	free(n_live);
	free(offs);
	free(sp.w_busy);
	free(sp.z_busy);
	free(sp.w_freed);
	free(sp.z_freed);
	free(sp.has_w);
	free(sp.has_z);
	free(sp.slot_w);
	free(sp.slot_z);
	free(sp.holder);
	free(sp.n_slots);
	free(sp.item_slot);
	return rc;
}

int cgs_slot_map_placed(const struct cgs_rank_work *x, int guided,
			uint32_t **map, uint32_t *used,
			uint64_t **slot_offset, struct cgs_placed_classes *cls,
			struct cgs_placed_classes *blocks,
			struct cgs_placed_split *split,
			struct cgs_error *err)
{
	const struct cgs_rank_plan *rp = x->rp;
	struct placed pl = {.M = x->chunks, .S = x->slots};
	uint32_t R = rp->n_reachable, width = rp->reachable[R - 1], M = x->chunks,
		 c, l, o, i, *unit = calloc(M + 1, sizeof(*unit)),
		 *item_of = NULL, *out = NULL, widths[PLACED_STEPS + 1], wi,
		 n_widths = 1, top, peak = 0, live = 0,
		 in_flight = 0, most = 0;
	uint64_t *size = calloc(M + 1, sizeof(*size)), grain = 0, *offs = NULL,
		 e, cells = (uint64_t)R * M * width, pending = 0, bound = 0,
		 grad_peak = 0, aim, nodes, guide_h = 0;
	int rc = CGS_E_NOMEM, mixed = 0, try, found = 0;

	*map = NULL;
	*slot_offset = NULL;
	*used = 0;
	if (cls)
		memset(cls, 0, sizeof(*cls));
	if (!unit || !size)
		goto fail;
	for (c = 0; c < M; c++) {
		for (l = 0; l < x->s->layers[c]; l++)
			size[c] += x->saved_bytes[x->layer_base[c] + l];
		grain = cgs_gcd(grain, size[c]);
		mixed |= size[c] != size[0];
	}
	rc = 0;
	if (!mixed || grain == 0 || cells > CGS_SLOT_MAP_MAX_CELLS ||
	    !cgs_orders_nested(rp))
		goto out;
	for (c = 0; c < M; c++) {
		if (size[c] == 0 || size[c] / grain > PLACED_MAX_UNITS)
			goto out;
		unit[c] = (uint32_t)(size[c] / grain);
	}
	pl.unit = unit;
	/*
	 * The longest order's peaks: saved grains, and saved and gradient
	 * bytes together (liveness.c's bound, the gradient frame written by
	 * a backward live through the next)
	 */
	o = R - 1;
	for (e = rp->order_start[o]; e < rp->order_start[o + 1]; e++) {
		int32_t id = rp->order_entries[e];
		uint64_t grad = pending;

		c = (uint32_t)(id < 0 ? -(int64_t)id : id) - 1;
		if (id > 0) {
			pl.F++;
			live += unit[c];
			if (live > peak)
				peak = live;
			if (++in_flight > most)
				most = in_flight;
		} else {
			grad += x->grad_bytes[c];
		}
		if (live * grain + grad > bound)
			bound = live * grain + grad;
		if (grad > grad_peak)
			grad_peak = grad;
		if (id < 0) {
			live -= unit[c];
			in_flight--;
			pending = x->grad_bytes[c];
		}
	}
	/*
	 * Widths: what brings the rank within 2% of that bound with the
	 * gradient arena at its peak, then 1/32, 1/16, ... 1/2 of the way
	 * to 5% above the saved peak (rounded up; with the guide, else
	 * only 1/2), then 5%
	 */
	aim = bound + bound / 50;
	aim = aim > grad_peak ? (aim - grad_peak) / grain : 0;
	widths[0] = aim < peak ? peak : (uint32_t)aim;
	top = peak + peak / 20;
	for (wi = guided ? PLACED_STEPS : 2; wi > 0 && top > widths[0]; wi--) {
		uint32_t gap = top - widths[0], part = 1u << (wi - 1),
			 w = widths[0] + (gap + part - 1) / part;

		if (w > widths[n_widths - 1])
			widths[n_widths++] = w;
	}
	/*
	 * a free slot of the chunk each, a gap's start and top each, and
	 * the guide's offset
	 */
	pl.per = 2 * most + 3 + pl.S;
	if ((uint64_t)pl.F * pl.per > PLACED_MAX_CANDS)
		goto out;
	rc = CGS_E_NOMEM;
	pl.chunk = calloc(pl.F + 1, sizeof(*pl.chunk));
	pl.end = calloc(pl.F + 1, sizeof(*pl.end));
	pl.free_first = calloc(pl.F + 2, sizeof(*pl.free_first));
	pl.free_items = calloc(pl.F + 1, sizeof(*pl.free_items));
	pl.pred_first = calloc(pl.F + 2, sizeof(*pl.pred_first));
	pl.barred = calloc(pl.F + 1, sizeof(*pl.barred));
	pl.pos = calloc(pl.F + 1, sizeof(*pl.pos));
	pl.slot = calloc(pl.F + 1, sizeof(*pl.slot));
	pl.live_items = calloc(pl.F + 1, sizeof(*pl.live_items));
	pl.live = calloc(pl.F + 1, 1);
	pl.n_pal = calloc(M + 1, sizeof(*pl.n_pal));
	pl.pal_pos = calloc((uint64_t)M * pl.S + 1, sizeof(*pl.pal_pos));
	pl.pal_holder = calloc((uint64_t)M * pl.S + 1, sizeof(*pl.pal_holder));
	pl.pal_par = calloc((uint64_t)M * pl.S + 1, 1);
	pl.cands = calloc((uint64_t)pl.F * pl.per + 1, sizeof(*pl.cands));
	pl.cand_first = calloc(pl.F + 1, sizeof(*pl.cand_first));
	pl.cand_next = calloc(pl.F + 1, sizeof(*pl.cand_next));
	pl.prev_holder = calloc(pl.F + 1, sizeof(*pl.prev_holder));
	pl.made_slot = calloc(pl.F + 1, sizeof(*pl.made_slot));
	item_of = calloc((uint64_t)M * width + 1, sizeof(*item_of));
	if (!pl.chunk || !pl.end || !pl.free_first || !pl.free_items ||
	    !pl.pred_first || !pl.barred || !pl.pos || !pl.slot || !pl.live_items ||
	    !pl.live || !pl.n_pal || !pl.pal_pos || !pl.pal_holder ||
	    !pl.pal_par ||
	    !pl.cands || !pl.cand_first || !pl.cand_next ||
	    !pl.prev_holder || !pl.made_slot || !item_of)
		goto fail;
	rc = index_items(&pl, rp, item_of, width);
	if (rc == 0)
		rc = gradient_parity(&pl, rp, item_of, width);
	if (rc == 0 && blocks)
		rc = placed_blocks(&pl, rp, item_of, width, most, grain,
				   blocks);
	if (rc == 0 && split)
		rc = placed_split(&pl, x, rp, item_of, width, split);
	if (rc)
		goto fail;
	/* a dive through every forward fits in the nodes */
	nodes = 2ull * pl.F > PLACED_NODES ? 2ull * pl.F : PLACED_NODES;
	/*
	 * Each width with the gradient parity, then without it (the
	 * gradient frames may then take a third colour, but slots that
	 * need not split by parity fit more rings); the guide last, where
	 * asked for, and only at widths its packing fits
	 */
	for (wi = 0; wi < n_widths && !found; wi++) {
		pl.W = widths[wi];
		for (try = 0; try < 2 * PLACED_ORDERS && !found; try++) {
			pl.use_par = try < PLACED_ORDERS && pl.par;
			if (try >= PLACED_ORDERS && !pl.par)
				break;
			if (try % PLACED_ORDERS == PLACED_GUIDED) {
				if (!guided)
					continue;
				if (!pl.guide) {
					rc = pack_guide(&pl, rp, widths[0],
							&guide_h);
					if (rc)
						goto fail;
				}
				if (guide_h > pl.W)
					continue;
			}
			found = search(&pl, try % PLACED_ORDERS, nodes);
		}
	}
	if (!found)
		goto out;
	rc = CGS_E_NOMEM;
	out = map_of_items(rp, M, item_of, width, pl.slot);
	offs = calloc((uint64_t)M * pl.S + 1, sizeof(*offs));
	if (!out || !offs)
		goto fail;
	for (c = 0; c < M; c++) {
		for (i = 0; i < pl.n_pal[c]; i++)
			offs[c * pl.S + i] = (uint64_t)pl.pal_pos[c * pl.S + i] *
					     grain;
		if (pl.n_pal[c] > *used)
			*used = pl.n_pal[c];
	}
	*map = out;
	*slot_offset = offs;
	out = NULL;
	offs = NULL;
	rc = 0;
	if (cls && !pl.use_par)
		rc = placed_classes(&pl, rp, item_of, width, grain, cls);
	if (rc)
		goto fail;
out:
	placed_release(&pl);
	free(unit);
	free(size);
	free(item_of);
	free(out);
	free(offs);
	return rc;
fail:
	rc = cgs_plan_fail(err, rc, rp->rank, "placing slots");
	goto out;
}
