/*
 * The planner: slot ring, liveness over every reachable order, colouring
 * and byte packing.  See plan.h for the indexing of frames and graphs.
 *
 * All layers of one (chunk, slot) are live over the same interval, so
 * liveness is computed on (chunk, slot) groups with bitset rows and only
 * expanded to frames for colouring; packing places whole groups.
 */
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "order/rank_orders.h"
#include "plan/graph.h"

#define NONE UINT32_MAX

/* Largest frames x colours table the exact colouring may allocate. */
#define CGS_EXACT_MAX_CELLS (1ull << 24)

void cgs_plan_options_init(struct cgs_plan_options *o)
{
	memset(o, 0, sizeof(*o));
	o->colour_budget = CGS_PLAN_DEFAULT_COLOUR_BUDGET;
	o->max_frames = 0;
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Where an explicit order came from, or NULL for a generated one. */
static const struct cgs_order *find_order(const struct cgs_schedule *s,
					  uint32_t rank, uint32_t n)
{
	size_t i;

	for (i = 0; i < s->n_orders; i++)
		if (s->orders[i].rank == rank && s->orders[i].microbatches == n)
			return &s->orders[i];
	return NULL;
}

/* An error at entry `index` of the order of (rank, n). */
static int order_error(struct cgs_error *err, int code,
		       const struct cgs_schedule *s, uint32_t rank,
		       uint32_t n, uint64_t index, const char *what)
{
	const struct cgs_order *o = find_order(s, rank, n);

	return cgs_error_at(err, code, o ? s->path : NULL,
			    o ? o->pos.line : 0, o ? o->pos.column : 0,
			    "rank %u, %u microbatches, entry %llu: %s", rank, n,
			    (unsigned long long)index, what);
}

/* What the ring must hold: the worst in-flight count and where. */
struct ring_need {
	uint32_t in_flight, rank, n, chunk;
	/* first pair of consecutive backwards of one chunk */
	int ug_same;
	uint32_t ug_rank, ug_n, ug_chunk;
	uint64_t ug_index;
};

static int ring_scan(const struct cgs_schedule *s,
		     const struct cgs_rank_plan *rp, struct ring_need *need,
		     struct cgs_error *err)
{
	uint32_t M = s->vpp, o, c;
	uint32_t *fwd = calloc(M, sizeof(*fwd)), *bwd = calloc(M, sizeof(*bwd));
	char what[200];
	int rc = 0;

	if (!fwd || !bwd) {
		rc = cgs_error_set(err, CGS_E_NOMEM, "out of memory");
		goto out;
	}
	for (o = 0; o < rp->n_reachable; o++) {
		uint32_t n = rp->reachable[o], last_bwd = NONE;
		uint64_t i, start = rp->order_start[o], end = rp->order_start[o + 1];

		memset(fwd, 0, M * sizeof(*fwd));
		memset(bwd, 0, M * sizeof(*bwd));
		for (i = start; i < end; i++) {
			int32_t e = rp->order_entries[i];
			uint32_t id = e < 0 ? (uint32_t)(-(int64_t)e) : (uint32_t)e;

			if (e == 0 || id > M) {
				snprintf(what, sizeof(what),
					 "%d names no chunk; accepted: -%u..-1 and 1..%u",
					 (int)e, M, M);
				rc = order_error(err, CGS_E_ORDER, s, rp->rank,
						 n, i - start, what);
				goto out;
			}
			c = id - 1;
			if (e > 0) {
				uint32_t fl = ++fwd[c] - bwd[c];

				if (fl > need->in_flight) {
					need->in_flight = fl;
					need->rank = rp->rank;
					need->n = n;
					need->chunk = c;
				}
				continue;
			}
			if (bwd[c] >= fwd[c]) {
				snprintf(what, sizeof(what),
					 "backward of chunk %u runs before its forward",
					 id);
				rc = order_error(err, CGS_E_ORDER, s, rp->rank,
						 n, i - start, what);
				goto out;
			}
			bwd[c]++;
			if (last_bwd == c && !need->ug_same) {
				need->ug_same = 1;
				need->ug_rank = rp->rank;
				need->ug_n = n;
				need->ug_chunk = c;
				need->ug_index = i - start;
			}
			last_bwd = c;
		}
		for (c = 0; c < M; c++) {
			if (fwd[c] != bwd[c]) {
				snprintf(what, sizeof(what),
					 "the order ends with %u forwards of chunk %u pending",
					 fwd[c] - bwd[c], c + 1);
				rc = order_error(err, CGS_E_ORDER, s, rp->rank,
						 n, end - start, what);
				goto out;
			}
		}
	}
out:
	free(fwd);
	free(bwd);
	return rc;
}

static int choose_ring(const struct cgs_schedule *s,
		       const struct ring_need *need, uint32_t *slots,
		       struct cgs_error *err)
{
	uint32_t auto_s = need->in_flight ? need->in_flight : 1;
	const struct cgs_pos *at = &s->slots_pos;

	if (need->ug_same && auto_s < 2)
		auto_s = 2;
	if (s->slots == 0) {
		*slots = auto_s;
		return 0;
	}
	if (s->slots < need->in_flight)
		return cgs_error_at(err, CGS_E_PLAN, s->path, at->line, at->column,
			"slots: %u: slot period shorter than liveness: rank %u "
			"with %u microbatches has %u microbatches of chunk %u "
			"in flight; accepted: %u or more",
			s->slots, need->rank, need->n, need->in_flight,
			need->chunk + 1, auto_s);
	if (s->slots < auto_s)
		return cgs_error_at(err, CGS_E_PLAN, s->path, at->line, at->column,
			"slots: %u: slot period shorter than liveness: rank %u "
			"with %u microbatches runs two consecutive backwards "
			"of chunk %u (entry %llu), which would share one "
			"user-gradient frame; accepted: %u or more",
			s->slots, need->ug_rank, need->ug_n, need->ug_chunk + 1,
			(unsigned long long)need->ug_index, auto_s);
	*slots = s->slots;
	return 0;
}

/* Working state for planning one rank. */
struct rank_ctx {
	const struct cgs_schedule *s;
	const struct cgs_plan_options *opt;
	struct cgs_rank_plan *rp;
	const uint32_t *layer_base;
	uint32_t S, M, LT, n_groups;
	uint64_t align;
	uint64_t *fb;      /* [layer_base[c] + l]: saved frame bytes, max */
	uint64_t *vfb;     /* [v * LT + layer_base[c] + l]: per variant */
	uint64_t *ub;      /* [c]: user-grad frame bytes, max */
	uint64_t *vub;     /* [v * M + c]: per variant */
	struct cgs_graph groups, ugs, frames;
	uint32_t *first_live_g, *first_live_u;  /* in the largest order */
	uint32_t clique_saved, clique_ug;       /* largest live sets */
	uint32_t *group_first;                  /* n_groups + 1 */
	uint32_t *ug_first;                     /* n_groups + 1 */
	uint32_t *saved_colour, *ug_colour;
	uint32_t *group_weight;                 /* layers of each group */
};

/* Per-variant layouts inside frames and the frame sizes. */
static int frame_layout(struct rank_ctx *x, struct cgs_error *err)
{
	const struct cgs_schedule *s = x->s;
	struct cgs_rank_plan *rp = x->rp;
	uint32_t V = s->n_variants, v, c, l, sl;
	uint64_t nroles = (uint64_t)V * rp->n_saved;

	x->fb = calloc(x->LT + 1, sizeof(*x->fb));
	x->vfb = calloc((uint64_t)V * x->LT + 1, sizeof(*x->vfb));
	x->ub = calloc(x->M, sizeof(*x->ub));
	x->vub = calloc((uint64_t)V * x->M, sizeof(*x->vub));
	rp->saved_roles = calloc(nroles * 3 + 1, sizeof(*rp->saved_roles));
	rp->user_grad_layers = calloc(nroles + 1, sizeof(*rp->user_grad_layers));
	if (!x->fb || !x->vfb || !x->ub || !x->vub || !rp->saved_roles ||
	    !rp->user_grad_layers)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	for (v = 0; v < V; v++) {
		for (c = 0; c < x->M; c++) {
			uint64_t ug_at = 0;

			for (l = 0; l < s->layers[c]; l++) {
				uint32_t li = x->layer_base[c] + l;
				uint64_t in = cgs_schedule_bytes(s, v, rp->rank, c, l, CGS_ROLE_INPUT);
				uint64_t out = cgs_schedule_bytes(s, v, rp->rank, c, l, CGS_ROLE_OUTPUT);
				uint64_t sv = cgs_schedule_bytes(s, v, rp->rank, c, l, CGS_ROLE_SAVED);
				uint64_t ug = cgs_schedule_bytes(s, v, rp->rank, c, l, CGS_ROLE_USER_GRAD);
				uint64_t a_in = align_up(in, x->align);
				uint64_t a_out = align_up(out, x->align);
				uint64_t total = a_in + a_out + align_up(sv, x->align);

				x->vfb[(uint64_t)v * x->LT + li] = total;
				if (total > x->fb[li])
					x->fb[li] = total;
				for (sl = 0; sl < x->S; sl++) {
					uint64_t f = (uint64_t)x->layer_base[c] * x->S +
						     (uint64_t)sl * s->layers[c] + l;
					struct cgs_range *r = rp->saved_roles +
						((uint64_t)v * rp->n_saved + f) * 3;

					r[0] = (struct cgs_range){0, in};
					r[1] = (struct cgs_range){a_in, out};
					r[2] = (struct cgs_range){a_in + a_out, sv};
					rp->user_grad_layers[(uint64_t)v * rp->n_saved + f] =
						(struct cgs_range){ug_at, ug};
				}
				ug_at += align_up(ug, x->align);
			}
			x->vub[(uint64_t)v * x->M + c] = ug_at;
			if (ug_at > x->ub[c])
				x->ub[c] = ug_at;
		}
	}
	return 0;
}

/*
 * Replay every order: conflicts between groups and between user-gradient
 * frames, the largest live sets (colour lower bounds) and the heaviest
 * live bytes (byte lower bounds).
 */
static int liveness(struct rank_ctx *x, struct cgs_error *err)
{
	struct cgs_rank_plan *rp = x->rp;
	uint32_t S = x->S, M = x->M, words = x->groups.words, o, c, w;
	uint64_t *live = calloc(words + 1, sizeof(*live));
	uint32_t *fwd = calloc(M, sizeof(*fwd)), *bwd = calloc(M, sizeof(*bwd));
	uint64_t *gw = calloc(M, sizeof(*gw));
	uint32_t *nl = x->s->layers;
	uint64_t max_s = 0, max_u = 0, max_all = 0;
	char what[240];
	int rc = 0;

	if (!live || !fwd || !bwd || !gw) {
		rc = cgs_error_set(err, CGS_E_NOMEM, "out of memory");
		goto out;
	}
	for (c = 0; c < M; c++)
		for (w = 0; w < nl[c]; w++)
			gw[c] += x->fb[x->layer_base[c] + w];
	for (o = 0; o < rp->n_reachable; o++) {
		uint64_t i, start = rp->order_start[o], end = rp->order_start[o + 1];
		uint32_t n = rp->reachable[o], prev_u = NONE, prev_i = 0;
		uint32_t live_frames = 0;
		uint64_t ws = 0, wu_prev = 0;
		int last = o + 1 == rp->n_reachable;

		memset(live, 0, words * sizeof(*live));
		memset(fwd, 0, M * sizeof(*fwd));
		memset(bwd, 0, M * sizeof(*bwd));
		for (i = start; i < end; i++) {
			int32_t e = rp->order_entries[i];
			uint32_t k, g, u, n_ug;
			uint64_t wu;

			c = (uint32_t)(e < 0 ? -(int64_t)e : e) - 1;
			if (e > 0) {
				uint64_t *row;

				k = fwd[c]++;
				g = c * S + k % S;
				if (cgs_bit_test(live, g)) {
					snprintf(what, sizeof(what),
						 "forward of microbatch %u of chunk %u "
						 "reuses slot %u while microbatch %u "
						 "still holds it",
						 k, c + 1, k % S, k - S);
					rc = order_error(err, CGS_E_ORDER, x->s,
							 rp->rank, n, i - start, what);
					goto out;
				}
				row = cgs_graph_row(&x->groups, g);
				for (w = 0; w < words; w++)
					row[w] |= live[w];
				cgs_bit_set(live, g);
				live_frames += nl[c];
				ws += gw[c];
				if (last && x->first_live_g[g] == NONE)
					x->first_live_g[g] = (uint32_t)(i - start);
				wu = wu_prev;
				n_ug = prev_u != NONE;
			} else {
				k = bwd[c]++;
				g = c * S + k % S;
				u = g;
				if (u == prev_u) {
					snprintf(what, sizeof(what),
						 "backward of microbatch %u of chunk %u "
						 "would share user-gradient slot %u with "
						 "the previous backward (entry %u)",
						 k, c + 1, k % S, prev_i);
					rc = order_error(err, CGS_E_ORDER, x->s,
							 rp->rank, n, i - start, what);
					goto out;
				}
				if (prev_u != NONE)
					cgs_bit_set(cgs_graph_row(&x->ugs, u), prev_u);
				if (last && x->first_live_u[u] == NONE)
					x->first_live_u[u] = (uint32_t)(i - start);
				wu = wu_prev + x->ub[c];
				n_ug = 1 + (prev_u != NONE);
			}
			if (live_frames > x->clique_saved)
				x->clique_saved = live_frames;
			if (n_ug > x->clique_ug)
				x->clique_ug = n_ug;
			if (ws > max_s)
				max_s = ws;
			if (wu > max_u)
				max_u = wu;
			if (ws + wu > max_all)
				max_all = ws + wu;
			if (e < 0) {
				/* the saved group ends here; the gradient lives on */
				cgs_bit_clear(live, g);
				live_frames -= nl[c];
				ws -= gw[c];
				prev_u = g;
				prev_i = (uint32_t)(i - start);
				wu_prev = x->ub[c];
			}
		}
	}
	cgs_graph_symmetrise(&x->groups);
	cgs_graph_symmetrise(&x->ugs);
	rp->saved_stats.lower_bound_bytes = max_s;
	rp->user_grad_stats.lower_bound_bytes = max_u;
	rp->lower_bound_bytes = max_all;
out:
	free(live);
	free(fwd);
	free(bwd);
	free(gw);
	return rc;
}

/* Saved frames conflict when their groups do, or share one group. */
static int build_frame_graph(struct rank_ctx *x)
{
	uint32_t g, h, f, w, words;
	uint64_t *row;
	int rc = cgs_graph_init(&x->frames, x->rp->n_saved);

	if (rc)
		return rc;
	words = x->frames.words;
	row = calloc(words + 1, sizeof(*row));
	if (!row)
		return CGS_E_NOMEM;
	for (g = 0; g < x->n_groups; g++) {
		const uint64_t *grow = cgs_graph_row(&x->groups, g);

		memset(row, 0, words * sizeof(*row));
		for (h = 0; h < x->n_groups; h++)
			if (h == g || cgs_bit_test(grow, h))
				for (f = x->group_first[h]; f < x->group_first[h + 1]; f++)
					cgs_bit_set(row, f);
		for (f = x->group_first[g]; f < x->group_first[g + 1]; f++) {
			uint64_t *frow = cgs_graph_row(&x->frames, f);

			for (w = 0; w < words; w++)
				frow[w] = row[w];
			cgs_bit_clear(frow, f);
		}
	}
	free(row);
	return 0;
}

/*
 * DSATUR, then, when it uses more colours than the largest clique known,
 * a bounded clique search and a bounded exact colouring.  The clique is
 * searched on `cg` with vertex weights (groups weighted by their layers:
 * the twins of a group stand or fall together), far smaller than g.
 */
static int colour_role(const struct cgs_graph *g, const struct cgs_graph *cg,
		       const uint32_t *weight, uint32_t clique,
		       uint64_t budget, uint32_t *colour,
		       struct cgs_role_stats *st)
{
	int k = cgs_colour_dsatur(g, colour);
	int64_t lb = clique;
	uint64_t b;

	if (k < 0)
		return k;
	if ((uint32_t)k > clique) {
		b = budget;
		lb = cgs_clique_max(cg, weight, clique, (uint64_t)k, &b);
		if (lb < 0)
			return (int)lb;
	}
	/* its tables take frames x colours counters: skip it when huge */
	if ((int64_t)k > lb && (uint64_t)g->n * (uint64_t)k <= CGS_EXACT_MAX_CELLS) {
		b = budget;
		k = cgs_colour_exact(g, (uint32_t)lb, (uint32_t)k, colour, &b);
		if (k < 0)
			return k;
	}
	st->frames = g->n;
	st->colours = (uint32_t)k;
	st->colour_lower_bound = (uint32_t)lb;
	return 0;
}

/* One frame kind seen as packable items (groups of frames). */
struct role_view {
	const struct cgs_graph *items;
	const struct cgs_graph *frames; /* frame conflicts, when items group them */
	const uint32_t *item_first;   /* frames of item i: [first[i], first[i+1]) */
	const uint32_t *first_live;   /* per item, NONE when never live */
	const uint32_t *colour;       /* per frame */
	uint32_t n_frames;
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

#define PACK_ORDERS 4

/* First-fit of single frames, colour by colour, largest first. */
static int pack_frames_by_colour(const struct role_view *rv,
				 const uint64_t *frame_size, uint64_t *offset,
				 uint64_t *total)
{
	uint32_t n = rv->n_frames, f;
	struct pack_key *key = calloc(n + 1, sizeof(*key));
	uint32_t *order = calloc(n + 1, sizeof(*order));
	int rc = CGS_E_NOMEM;

	if (key && order) {
		for (f = 0; f < n; f++)
			key[f] = (struct pack_key){rv->colour[f], ~frame_size[f], f};
		qsort(key, n, sizeof(*key), pack_key_cmp);
		for (f = 0; f < n; f++)
			order[f] = key[f].item;
		rc = cgs_pack_first_fit(rv->frames, frame_size, order, offset,
					total);
	}
	free(key);
	free(order);
	return rc;
}

/*
 * Lay out one frame kind for the given frame sizes: the best of several
 * first-fit orders over items, and of a first-fit over single frames
 * colour by colour, or one region per colour sized by its largest member
 * (upstream's layout) if that is smaller.  The colour-by-colour first-fit
 * alone never exceeds upstream's layout: every frame of colour k fits at
 * the start of region k at the latest, since frames placed before it lie
 * below.  frame_offset may be NULL when only the totals are wanted.
 */
static int role_layout(const struct role_view *rv, const uint64_t *frame_size,
		       uint64_t *frame_offset, uint64_t *bytes,
		       uint64_t *colour_bytes)
{
	uint32_t n = rv->items->n, n_col = 0, i, f, t, best_t = 0;
	uint64_t *size = calloc(n + 1, sizeof(*size));
	uint64_t *off = calloc((uint64_t)(n + 1) * PACK_ORDERS, sizeof(*off));
	uint64_t *foff = calloc((uint64_t)rv->n_frames + 1, sizeof(*foff));
	uint64_t *region = NULL, best = UINT64_MAX, total, col_total = 0;
	uint32_t *min_col = calloc(n + 1, sizeof(*min_col));
	uint32_t *order = calloc(n + 1, sizeof(*order));
	struct pack_key *key = calloc(n + 1, sizeof(*key));
	int rc = CGS_E_NOMEM, by_frames = 0;

	if (!size || !off || !foff || !min_col || !order || !key)
		goto out;
	for (f = 0; f < rv->n_frames; f++)
		if (rv->colour[f] + 1 > n_col)
			n_col = rv->colour[f] + 1;
	region = calloc((uint64_t)n_col + 1, sizeof(*region));
	if (!region)
		goto out;
	for (i = 0; i < n; i++) {
		min_col[i] = UINT32_MAX;
		for (f = rv->item_first[i]; f < rv->item_first[i + 1]; f++) {
			size[i] += frame_size[f];
			if (rv->colour[f] < min_col[i])
				min_col[i] = rv->colour[f];
		}
	}
	for (t = 0; t < PACK_ORDERS; t++) {
		for (i = 0; i < n; i++) {
			uint64_t fl = rv->first_live[i];

			key[i].item = i;
			switch (t) {
			case 0:   /* largest first, then by birth */
				key[i].a = ~size[i];
				key[i].b = fl;
				break;
			case 1:   /* by birth in the largest order */
				key[i].a = fl;
				key[i].b = ~size[i];
				break;
			case 2:   /* colour by colour */
				key[i].a = min_col[i];
				key[i].b = ~size[i];
				break;
			default:  /* as listed: chunk by chunk, slot by slot */
				key[i].a = 0;
				key[i].b = 0;
				break;
			}
		}
		qsort(key, n, sizeof(*key), pack_key_cmp);
		for (i = 0; i < n; i++)
			order[i] = key[i].item;
		rc = cgs_pack_first_fit(rv->items, size, order,
					off + (uint64_t)t * n, &total);
		if (rc)
			goto out;
		if (total < best) {
			best = total;
			best_t = t;
		}
	}
	if (rv->frames) {
		rc = pack_frames_by_colour(rv, frame_size, foff, &total);
		if (rc)
			goto out;
		if (total < best) {
			best = total;
			by_frames = 1;
		}
	}
	for (f = 0; f < rv->n_frames; f++)
		if (frame_size[f] > region[rv->colour[f]])
			region[rv->colour[f]] = frame_size[f];
	for (i = 0; i < n_col; i++) {
		uint64_t r = region[i];

		region[i] = col_total;   /* now the region's offset */
		col_total += r;
	}
	*colour_bytes = col_total;
	*bytes = best <= col_total ? best : col_total;
	if (frame_offset) {
		for (i = 0; i < n; i++) {
			uint64_t at = off[(uint64_t)best_t * n + i];

			for (f = rv->item_first[i]; f < rv->item_first[i + 1]; f++) {
				if (best > col_total) {
					frame_offset[f] = region[rv->colour[f]];
				} else if (by_frames) {
					frame_offset[f] = foff[f];
				} else {
					frame_offset[f] = at;
					at += frame_size[f];
				}
			}
		}
	}
	rc = 0;
out:
	free(size);
	free(off);
	free(foff);
	free(region);
	free(min_col);
	free(order);
	free(key);
	return rc;
}

/* The graphs to capture, in lockstep order over the largest order. */
static int capture_sequence(struct rank_ctx *x, struct cgs_error *err)
{
	const struct cgs_schedule *s = x->s;
	struct cgs_rank_plan *rp = x->rp;
	uint32_t V = s->n_variants, *vorder = calloc(V + 1, sizeof(*vorder));
	uint32_t *fwd = calloc(x->M, sizeof(*fwd)), *bwd = calloc(x->M, sizeof(*bwd));
	uint8_t *taken = calloc((uint64_t)rp->n_graphs + 1, 1);
	uint32_t i, j, n = 0, o = rp->n_reachable - 1;
	uint64_t e, g;

	rp->capture = calloc((uint64_t)rp->n_graphs + 1, sizeof(*rp->capture));
	if (!vorder || !fwd || !bwd || !taken || !rp->capture) {
		free(vorder), free(fwd), free(bwd), free(taken);
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	}
	/* canonical (smallest CP) first; stable for equal CP */
	for (i = 0; i < V; i++) {
		for (j = i; j > 0 && s->variants[vorder[j - 1]].cp > s->variants[i].cp; j--)
			vorder[j] = vorder[j - 1];
		vorder[j] = i;
	}
	for (e = rp->order_start[o]; e < rp->order_start[o + 1]; e++) {
		int32_t id = rp->order_entries[e];
		uint32_t c = (uint32_t)(id < 0 ? -(int64_t)id : id) - 1;
		uint32_t d = id < 0, k = d ? bwd[c]++ : fwd[c]++;
		uint32_t L = s->layers[c];
		uint64_t f0 = (uint64_t)x->layer_base[c] * x->S +
			      (uint64_t)(k % x->S) * L;

		for (i = 0; i < V; i++) {
			for (j = 0; j < L; j++) {
				uint32_t l = d ? L - 1 - j : j;

				g = ((uint64_t)vorder[i] * rp->n_saved + f0 + l) * 2 + d;
				if (!taken[g]) {
					taken[g] = 1;
					rp->capture[n++] = (uint32_t)g;
				}
			}
		}
	}
	/* slots the largest order of this rank never reaches, in index order */
	for (g = 0; g < rp->n_graphs; g++)
		if (!taken[g])
			rp->capture[n++] = (uint32_t)g;
	free(vorder);
	free(fwd);
	free(bwd);
	free(taken);
	return 0;
}

static int check_frames(const struct rank_ctx *x, struct cgs_error *err)
{
	const struct cgs_schedule *s = x->s;
	uint64_t n = (uint64_t)x->S * x->LT;
	const struct cgs_pos *at = s->slots_pos.line ? &s->slots_pos
						     : &s->layers_pos;

	if (x->opt->max_frames && n > x->opt->max_frames)
		return cgs_error_at(err, CGS_E_LIMIT, s->path, at->line, at->column,
			"rank %u needs %llu saved frames (%u slots x %u layers), "
			"more than the frames limit %llu; raise it with "
			"--limit frames=N",
			x->rp->rank, (unsigned long long)n, x->S, x->LT,
			(unsigned long long)x->opt->max_frames);
	/* the conflict matrices grow with the square of the frames */
	if (n > CGS_PLAN_MAX_FRAMES ||
	    (uint64_t)s->n_variants * n * 2 > UINT32_MAX)
		return cgs_error_at(err, CGS_E_LIMIT, s->path, at->line, at->column,
			"rank %u needs %llu saved frames (%u slots x %u layers); "
			"the planner handles at most %u per rank",
			x->rp->rank, (unsigned long long)n, x->S, x->LT,
			CGS_PLAN_MAX_FRAMES);
	return 0;
}

/* Allocate the rank's frames and scratch; name every frame (plan.h). */
static int index_frames(struct rank_ctx *x)
{
	const struct cgs_schedule *s = x->s;
	struct cgs_rank_plan *rp = x->rp;
	uint32_t S = x->S, c, sl, l, g;

	x->n_groups = x->M * S;
	rp->n_saved = x->S * x->LT;
	rp->n_user_grad = x->n_groups;
	rp->n_graphs = s->n_variants * rp->n_saved * 2;
	rp->saved = calloc(rp->n_saved + 1, sizeof(*rp->saved));
	rp->user_grad = calloc(rp->n_user_grad + 1, sizeof(*rp->user_grad));
	rp->arenas = calloc(2, sizeof(*rp->arenas));
	x->first_live_g = malloc((x->n_groups + 1) * sizeof(uint32_t));
	x->first_live_u = malloc((x->n_groups + 1) * sizeof(uint32_t));
	x->group_first = calloc(x->n_groups + 1, sizeof(uint32_t));
	x->ug_first = calloc(x->n_groups + 1, sizeof(uint32_t));
	x->saved_colour = calloc(rp->n_saved + 1, sizeof(uint32_t));
	x->ug_colour = calloc(x->n_groups + 1, sizeof(uint32_t));
	x->group_weight = calloc(x->n_groups + 1, sizeof(uint32_t));
	if (!rp->saved || !rp->user_grad || !rp->arenas || !x->first_live_g ||
	    !x->first_live_u || !x->group_first || !x->ug_first ||
	    !x->saved_colour || !x->ug_colour || !x->group_weight ||
	    cgs_graph_init(&x->groups, x->n_groups) ||
	    cgs_graph_init(&x->ugs, x->n_groups))
		return CGS_E_NOMEM;
	for (g = 0; g < x->n_groups; g++) {
		c = g / S;
		sl = g % S;
		x->first_live_g[g] = x->first_live_u[g] = NONE;
		x->group_first[g] = x->layer_base[c] * S + sl * s->layers[c];
		x->ug_first[g] = g;
		x->group_weight[g] = s->layers[c];
		rp->user_grad[g] = (struct cgs_frame){.chunk = c, .slot = sl,
						      .arena = 1};
		for (l = 0; l < s->layers[c]; l++)
			rp->saved[x->group_first[g] + l] = (struct cgs_frame){
				.chunk = c, .slot = sl, .layer = l, .arena = 0};
	}
	x->group_first[x->n_groups] = rp->n_saved;
	x->ug_first[x->n_groups] = x->n_groups;
	return 0;
}

static int colour_frames(struct rank_ctx *x)
{
	struct cgs_rank_plan *rp = x->rp;
	uint32_t f;
	int rc = build_frame_graph(x);

	if (rc == 0)
		rc = colour_role(&x->frames, &x->groups, x->group_weight,
				 x->clique_saved, x->opt->colour_budget,
				 x->saved_colour, &rp->saved_stats);
	if (rc == 0)
		rc = colour_role(&x->ugs, &x->ugs, NULL, x->clique_ug,
				 x->opt->colour_budget, x->ug_colour,
				 &rp->user_grad_stats);
	for (f = 0; rc == 0 && f < rp->n_saved; f++)
		rp->saved[f].colour = x->saved_colour[f];
	for (f = 0; rc == 0 && f < rp->n_user_grad; f++)
		rp->user_grad[f].colour = x->ug_colour[f];
	return rc;
}

/*
 * Byte offsets of both frame kinds, the arenas, upstream's figure, and
 * what every variant alone would take.
 */
static int place_frames(struct rank_ctx *x)
{
	struct cgs_rank_plan *rp = x->rp;
	uint32_t S = x->S, g, v;
	uint64_t *size = calloc((uint64_t)rp->n_saved + 1, sizeof(*size));
	uint64_t *offset = calloc((uint64_t)rp->n_saved + 1, sizeof(*offset));
	uint64_t without = 0, col_s, col_u, b, cb;
	struct role_view saved_view = {&x->groups, &x->frames, x->group_first,
		x->first_live_g, x->saved_colour, rp->n_saved};
	/* gradient frames are their own items: order 2 is colour by colour */
	struct role_view ug_view = {&x->ugs, NULL, x->ug_first,
		x->first_live_u, x->ug_colour, x->n_groups};
	int rc = CGS_E_NOMEM;

	if (!size || !offset)
		goto out;
	for (g = 0; g < rp->n_saved; g++) {
		struct cgs_frame *f = &rp->saved[g];

		f->bytes = size[g] = x->fb[x->layer_base[f->chunk] + f->layer];
	}
	rc = role_layout(&saved_view, size, offset, &rp->saved_stats.bytes,
			 &col_s);
	if (rc)
		goto out;
	for (g = 0; g < rp->n_saved; g++)
		rp->saved[g].offset = offset[g];
	for (g = 0; g < x->n_groups; g++)
		rp->user_grad[g].bytes = size[g] = x->ub[g / S];
	rc = role_layout(&ug_view, size, offset, &rp->user_grad_stats.bytes,
			 &col_u);
	if (rc)
		goto out;
	for (g = 0; g < x->n_groups; g++)
		rp->user_grad[g].offset = offset[g];

	/* each variant alone, in arenas of its own */
	for (v = 0; v < x->s->n_variants; v++) {
		for (g = 0; g < rp->n_saved; g++) {
			const struct cgs_frame *f = &rp->saved[g];

			size[g] = x->vfb[(uint64_t)v * x->LT +
					 x->layer_base[f->chunk] + f->layer];
		}
		rc = role_layout(&saved_view, size, NULL, &b, &cb);
		if (rc)
			goto out;
		without += b;
		for (g = 0; g < x->n_groups; g++)
			size[g] = x->vub[(uint64_t)v * x->M + g / S];
		rc = role_layout(&ug_view, size, NULL, &b, &cb);
		if (rc)
			goto out;
		without += b;
	}
	rp->n_arenas = 2;
	rp->arenas[0] = (struct cgs_arena){CGS_ARENA_SAVED, rp->saved_stats.bytes};
	rp->arenas[1] = (struct cgs_arena){CGS_ARENA_USER_GRAD,
					   rp->user_grad_stats.bytes};
	rp->bytes = rp->saved_stats.bytes + rp->user_grad_stats.bytes;
	rp->bytes_colour_arenas = col_s + col_u;
	rp->bytes_without_sharing = without;
out:
	free(size);
	free(offset);
	return rc;
}

static int plan_rank(struct rank_ctx *x, struct cgs_error *err)
{
	int rc = check_frames(x, err);

	if (rc)
		return rc;
	if (index_frames(x))
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	rc = frame_layout(x, err);
	if (rc == 0)
		rc = liveness(x, err);
	if (rc)
		return rc;
	if (colour_frames(x) || place_frames(x))
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	return capture_sequence(x, err);
}

static void rank_ctx_release(struct rank_ctx *x)
{
	free(x->fb);
	free(x->vfb);
	free(x->ub);
	free(x->vub);
	cgs_graph_release(&x->groups);
	cgs_graph_release(&x->ugs);
	cgs_graph_release(&x->frames);
	free(x->first_live_g);
	free(x->first_live_u);
	free(x->group_first);
	free(x->ug_first);
	free(x->saved_colour);
	free(x->ug_colour);
	free(x->group_weight);
	memset(x, 0, sizeof(*x));
}

int cgs_plan_create(const struct cgs_schedule *s,
		    const struct cgs_plan_options *opt, struct cgs_plan **out,
		    struct cgs_error *err)
{
	struct cgs_plan_options defaults;
	struct ring_need need = {0};
	struct cgs_plan *p;
	uint32_t r, c;
	uint64_t align;
	int rc = 0;

	if (out)
		*out = NULL;
	if (!s || !out || s->vpp == 0 || s->n_variants == 0 || s->n_ranks == 0)
		return cgs_error_set(err, CGS_E_ARG,
				     "plan needs a validated schedule");
	if (!opt) {
		cgs_plan_options_init(&defaults);
		opt = &defaults;
	}
	align = s->alignment ? s->alignment : 1;
	if (align & (align - 1))
		return cgs_error_set(err, CGS_E_ARG,
				     "alignment %llu is not a power of two",
				     (unsigned long long)align);
	p = calloc(1, sizeof(*p));
	if (!p)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	p->schedule = s;
	p->layer_base = calloc((size_t)s->vpp + 1, sizeof(*p->layer_base));
	p->ranks = calloc(s->n_ranks, sizeof(*p->ranks));
	if (!p->layer_base || !p->ranks) {
		rc = cgs_error_set(err, CGS_E_NOMEM, "out of memory");
		goto fail;
	}
	for (c = 0; c < s->vpp; c++)
		p->layer_base[c + 1] = p->layer_base[c] + s->layers[c];
	p->n_ranks = s->n_ranks;
	for (r = 0; r < s->n_ranks; r++) {
		struct cgs_rank_plan *rp = &p->ranks[r];
		struct cgs_rank_orders ro;

		rc = cgs_rank_orders_init(&ro, s, s->ranks[r], err);
		if (rc)
			goto fail;
		rp->rank = ro.rank;
		rp->n_reachable = ro.n_reachable;
		rp->reachable = ro.reachable;
		rp->order_start = ro.order_start;
		rp->order_entries = ro.entries;
		if (rp->n_reachable == 0) {
			rc = cgs_error_set(err, CGS_E_PLAN,
				"rank %u has no reachable microbatch count",
				rp->rank);
			goto fail;
		}
		rc = ring_scan(s, rp, &need, err);
		if (rc)
			goto fail;
	}
	rc = choose_ring(s, &need, &p->slots, err);
	if (rc)
		goto fail;
	for (r = 0; r < s->n_ranks; r++) {
		struct rank_ctx x = {
			.s = s, .opt = opt, .rp = &p->ranks[r],
			.layer_base = p->layer_base, .S = p->slots, .M = s->vpp,
			.LT = p->layer_base[s->vpp], .align = align,
		};

		rc = plan_rank(&x, err);
		rank_ctx_release(&x);
		if (rc)
			goto fail;
		if (opt->progress)
			opt->progress(opt->progress_user, r + 1, s->n_ranks);
	}
	*out = p;
	return 0;
fail:
	cgs_plan_destroy(&p);
	return rc;
}

void cgs_rank_plan_release(struct cgs_rank_plan *rp)
{
	if (!rp)
		return;
	free(rp->reachable);
	free(rp->order_start);
	free(rp->order_entries);
	free(rp->saved);
	free(rp->user_grad);
	free(rp->saved_roles);
	free(rp->user_grad_layers);
	free(rp->arenas);
	free(rp->capture);
	memset(rp, 0, sizeof(*rp));
}

void cgs_plan_destroy(struct cgs_plan **pp)
{
	struct cgs_plan *p;
	uint32_t r;

	if (!pp || !*pp)
		return;
	p = *pp;
	for (r = 0; r < p->n_ranks; r++)
		cgs_rank_plan_release(&p->ranks[r]);
	free(p->ranks);
	free(p->layer_base);
	free(p);
	*pp = NULL;
}
