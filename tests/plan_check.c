/*
 * Independent plan checker: replays orders from cgs_rank_orders and reads
 * only plan fields; nothing here calls src/plan.
 */
#include "plan_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "order/rank_orders.h"

#define FAIL(...)                                    \
	do {                                         \
		snprintf(msg, size, __VA_ARGS__);    \
		rc = -1;                             \
		goto out;                            \
	} while (0)

static int overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return an && bn && a < b + bn && b < a + an;
}

struct mb {
	uint32_t chunk, k;
	uint32_t slot;  /* the plan's slot map, or k mod S */
};

/*
 * A user-grad frame that lies in a saved arena against the saved frames
 * of microbatch y, live together with it.
 */
static int grad_saved_clash(const struct cgs_schedule *s,
			    const struct cgs_rank_plan *rp, const uint32_t *base,
			    uint32_t S, const struct cgs_frame *ug, struct mb y,
			    char *msg, size_t size);

/*
 * The slot microbatch k of chunk c uses when the o-th reachable count
 * runs: the plan's slot map (plan.h: per count, one row of the largest
 * count for every chunk, or one per chunk when slot_map_rows > 1) or
 * k mod S; UINT32_MAX for a map entry outside the ring.
 */
static uint32_t slot_of(const struct cgs_rank_plan *rp, uint32_t o,
			uint32_t c, uint32_t k)
{
	uint64_t width = rp->reachable[rp->n_reachable - 1], row = o;
	uint32_t s;

	if (!rp->slot_map)
		return k % rp->slots;
	if (rp->slot_map_rows > 1)
		row = (uint64_t)o * rp->slot_map_rows + c;
	s = rp->slot_map[row * width + k];
	return s < rp->slots ? s : UINT32_MAX;
}

/* Layout facts of one rank that need no replay. */
static int check_static(const struct cgs_schedule *s, const struct cgs_plan *p,
			const struct cgs_rank_plan *rp, const uint32_t *base,
			char *msg, size_t size)
{
	uint32_t S = rp->slots, M = s->vpp, LT = base[M], V = s->n_variants;
	uint64_t al = s->alignment ? s->alignment : 1, sum = 0, col = 0;
	uint64_t *region = NULL;
	uint32_t c, sl, l, v, f, r, q, i, a, nested;
	uint8_t *seen = NULL;
	int rc = 0;

	if (rp->n_saved != S * LT || rp->n_user_grad != M * S)
		FAIL("rank %u: %u saved and %u user-grad frames, want %u and %u",
		     rp->rank, rp->n_saved, rp->n_user_grad, S * LT, M * S);
	for (a = 0; a < rp->n_arenas; a++)
		sum += rp->arenas[a].bytes;
	if (sum != rp->bytes ||
	    rp->saved_stats.bytes + rp->user_grad_stats.bytes != rp->bytes)
		FAIL("rank %u: arenas sum to %" PRIu64 ", bytes %" PRIu64,
		     rp->rank, sum, rp->bytes);
	if (rp->lower_bound_bytes > rp->bytes ||
	    rp->bytes > rp->bytes_colour_arenas)
		FAIL("rank %u: bytes %" PRIu64 " outside [%" PRIu64 ", %" PRIu64 "]",
		     rp->rank, rp->bytes, rp->lower_bound_bytes,
		     rp->bytes_colour_arenas);
	f = 0;
	for (c = 0; c < M; c++)
		for (sl = 0; sl < S; sl++)
			for (l = 0; l < s->layers[c]; l++, f++) {
				const struct cgs_frame *fr = &rp->saved[f];
				const struct cgs_frame *ug = &rp->user_grad[c * S + sl];

				if (fr->chunk != c || fr->slot != sl || fr->layer != l)
					FAIL("rank %u: saved frame %u is (%u,%u,%u), want (%u,%u,%u)",
					     rp->rank, f, fr->chunk, fr->slot,
					     fr->layer, c, sl, l);
				if (ug->chunk != c || ug->slot != sl)
					FAIL("rank %u: user-grad frame %u misplaced",
					     rp->rank, c * S + sl);
				if (fr->arena >= rp->n_arenas ||
				    rp->arenas[fr->arena].role != CGS_ARENA_SAVED ||
				    fr->offset % al ||
				    fr->offset + fr->bytes > rp->arenas[fr->arena].bytes)
					FAIL("rank %u: saved frame %u at %" PRIu64 "+%" PRIu64
					     " is outside its arena or unaligned",
					     rp->rank, f, fr->offset, fr->bytes);
				if (fr->colour >= rp->saved_stats.colours)
					FAIL("rank %u: saved frame %u colour %u out of range",
					     rp->rank, f, fr->colour);
				for (v = 0; v < V; v++) {
					/* one layout per (variant, layer), any slot */
					const struct cgs_range *rr = rp->saved_roles +
						((uint64_t)v * LT + base[c] + l) * 3;
					const struct cgs_range *g = rp->user_grad_layers +
						(uint64_t)v * LT + base[c] + l;

					for (r = 0; r < 3; r++) {
						uint64_t want = cgs_schedule_bytes(
							s, v, rp->rank, c, l, (enum cgs_role)r);

						if (rr[r].bytes != want || rr[r].offset % al ||
						    rr[r].offset + rr[r].bytes > fr->bytes)
							FAIL("rank %u: variant %u frame %u role %u is "
							     "%" PRIu64 "+%" PRIu64 " in a %" PRIu64
							     "-byte frame (want %" PRIu64 " bytes)",
							     rp->rank, v, f, r, rr[r].offset,
							     rr[r].bytes, fr->bytes, want);
						for (q = 0; q < r; q++)
							if (overlap(rr[r].offset, rr[r].bytes,
								    rr[q].offset, rr[q].bytes))
								FAIL("rank %u: variant %u frame %u: "
								     "roles %u and %u overlap",
								     rp->rank, v, f, q, r);
					}
					if (g->bytes != cgs_schedule_bytes(s, v, rp->rank, c, l,
									   CGS_ROLE_USER_GRAD) ||
					    g->offset % al || g->offset + g->bytes > ug->bytes)
						FAIL("rank %u: variant %u gradient of layer %u of "
						     "(%u,%u) outside its frame", rp->rank, v, l, c, sl);
					for (q = 0; q < l; q++) {
						const struct cgs_range *o = g - l + q;

						if (overlap(g->offset, g->bytes, o->offset, o->bytes))
							FAIL("rank %u: variant %u gradients of layers %u "
							     "and %u of chunk %u overlap",
							     rp->rank, v, q, l, c);
					}
				}
			}
	for (i = 0, nested = 0; i < rp->n_user_grad; i++) {
		const struct cgs_frame *ug = &rp->user_grad[i];

		/* in its own arena, or nested in the saved one */
		if (ug->arena >= rp->n_arenas ||
		    (rp->arenas[ug->arena].role != CGS_ARENA_USER_GRAD &&
		     rp->arenas[ug->arena].role != CGS_ARENA_SAVED) ||
		    ug->offset % al ||
		    ug->offset + ug->bytes > rp->arenas[ug->arena].bytes ||
		    ug->colour >= rp->user_grad_stats.colours)
			FAIL("rank %u: user-grad frame %u outside its arena",
			     rp->rank, i);
		nested += rp->arenas[ug->arena].role == CGS_ARENA_SAVED;
	}
	if (nested != rp->n_nested)
		FAIL("rank %u: %u user-grad frames lie in the saved arena, the "
		     "plan says %u", rp->rank, nested, rp->n_nested);
	/* upstream's figure: one region per colour, sized by its largest */
	region = calloc((uint64_t)rp->n_saved + rp->n_user_grad + 2, sizeof(*region));
	if (!region)
		FAIL("out of memory");
	for (i = 0; i < rp->n_saved; i++)
		if (rp->saved[i].bytes > region[rp->saved[i].colour])
			region[rp->saved[i].colour] = rp->saved[i].bytes;
	for (i = 0; i < rp->saved_stats.colours; i++)
		col += region[i];
	memset(region, 0, ((uint64_t)rp->n_saved + rp->n_user_grad + 2) * sizeof(*region));
	for (i = 0; i < rp->n_user_grad; i++)
		if (rp->user_grad[i].bytes > region[rp->user_grad[i].colour])
			region[rp->user_grad[i].colour] = rp->user_grad[i].bytes;
	for (i = 0; i < rp->user_grad_stats.colours; i++)
		col += region[i];
	if (col != rp->bytes_colour_arenas)
		FAIL("rank %u: colour arenas take %" PRIu64 ", plan says %" PRIu64,
		     rp->rank, col, rp->bytes_colour_arenas);
	if (rp->saved_stats.colour_lower_bound > rp->saved_stats.colours ||
	    rp->user_grad_stats.colour_lower_bound > rp->user_grad_stats.colours)
		FAIL("rank %u: a colour lower bound exceeds its colour count",
		     rp->rank);
	/* every graph exactly once */
	if (rp->n_graphs != V * rp->n_saved * 2)
		FAIL("rank %u: %u graphs, want %u", rp->rank, rp->n_graphs,
		     V * rp->n_saved * 2);
	seen = calloc((uint64_t)rp->n_graphs + 1, 1);
	if (!seen)
		FAIL("out of memory");
	for (i = 0; i < rp->n_graphs; i++) {
		if (rp->capture[i] >= rp->n_graphs || seen[rp->capture[i]])
			FAIL("rank %u: capture entry %u (graph %u) repeats or is "
			     "out of range", rp->rank, i, rp->capture[i]);
		seen[rp->capture[i]] = 1;
	}
out:
	free(region);
	free(seen);
	return rc;
}

/* Saved frame (c, slot, l). */
static const struct cgs_frame *saved_frame(const struct cgs_rank_plan *rp,
					   const uint32_t *base, uint32_t S,
					   const struct cgs_schedule *s,
					   uint32_t c, uint32_t slot, uint32_t l)
{
	return &rp->saved[base[c] * S + slot * s->layers[c] + l];
}

/*
 * Each microbatch runs its own variant, so every role range of any
 * variant in one frame must miss every role range of any variant in the
 * other, in absolute arena offsets.
 */
static int roles_overlap(const struct cgs_schedule *s,
			 const struct cgs_rank_plan *rp, const uint32_t *base,
			 const struct cgs_frame *a, const struct cgs_frame *b)
{
	/* the ranges are kept per (variant, layer): plan.h */
	uint64_t lt = base[s->vpp], la = base[a->chunk] + a->layer,
		 lb = base[b->chunk] + b->layer;
	uint32_t va, vb, r, q;
	for (va = 0; va < s->n_variants; va++) {
		const struct cgs_range *ra = rp->saved_roles + (va * lt + la) * 3;

		for (vb = 0; vb < s->n_variants; vb++) {
			const struct cgs_range *rb = rp->saved_roles +
				(vb * lt + lb) * 3;

			for (r = 0; r < 3; r++)
				for (q = 0; q < 3; q++)
					if (overlap(a->offset + ra[r].offset, ra[r].bytes,
						    b->offset + rb[q].offset, rb[q].bytes))
						return 1;
		}
	}
	return 0;
}

/* Do two live microbatches' saved frames collide in slot, bytes or colour? */
static int saved_clash(const struct cgs_schedule *s, const struct cgs_rank_plan *rp,
		       const uint32_t *base, uint32_t S, struct mb x, struct mb y,
		       char *msg, size_t size)
{
	uint32_t l, m;

	if (x.slot >= S) {
		snprintf(msg, size, "rank %u: microbatch %u of chunk %u has "
			 "slot %u, outside the ring of %u", rp->rank, x.k,
			 x.chunk, x.slot, S);
		return -1;
	}
	if (x.chunk == y.chunk && x.slot == y.slot && x.k != y.k) {
		snprintf(msg, size, "rank %u: microbatches %u and %u of chunk %u "
			 "are live together in slot %u", rp->rank, x.k, y.k,
			 x.chunk, x.slot);
		return -1;
	}
	for (l = 0; l < s->layers[x.chunk]; l++) {
		const struct cgs_frame *a = saved_frame(rp, base, S, s, x.chunk, x.slot, l);

		for (m = 0; m < s->layers[y.chunk]; m++) {
			const struct cgs_frame *b = saved_frame(rp, base, S, s, y.chunk, y.slot, m);

			if (a == b)
				continue;
			if (a->arena == b->arena &&
			    (overlap(a->offset, a->bytes, b->offset, b->bytes) ||
			     roles_overlap(s, rp, base, a, b))) {
				snprintf(msg, size, "rank %u: live saved frames "
					 "(%u,%u,%u) and (%u,%u,%u) overlap in bytes",
					 rp->rank, a->chunk, a->slot, a->layer,
					 b->chunk, b->slot, b->layer);
				return -1;
			}
			if (a->colour == b->colour) {
				snprintf(msg, size, "rank %u: live saved frames "
					 "(%u,%u,%u) and (%u,%u,%u) share colour %u",
					 rp->rank, a->chunk, a->slot, a->layer,
					 b->chunk, b->slot, b->layer, a->colour);
				return -1;
			}
		}
	}
	return 0;
}

/* Layer gradient ranges of two gradient frames, any variants, absolute. */
static int gradients_overlap(const struct cgs_schedule *s,
			     const struct cgs_rank_plan *rp, const uint32_t *base,
			     uint32_t S, const struct cgs_frame *a,
			     const struct cgs_frame *b)
{
	uint64_t lt = base[s->vpp];
	uint32_t va, vb, la, lb;

	for (va = 0; va < s->n_variants; va++)
		for (vb = 0; vb < s->n_variants; vb++)
			for (la = 0; la < s->layers[a->chunk]; la++)
				for (lb = 0; lb < s->layers[b->chunk]; lb++) {
					/* per (variant, layer), any slot: plan.h */
					const struct cgs_range *x = rp->user_grad_layers +
						va * lt + base[a->chunk] + la;
					const struct cgs_range *y = rp->user_grad_layers +
						vb * lt + base[b->chunk] + lb;

					if (overlap(a->offset + x->offset, x->bytes,
						    b->offset + y->offset, y->bytes))
						return 1;
				}
	return 0;
}

static int grad_saved_clash(const struct cgs_schedule *s,
			    const struct cgs_rank_plan *rp, const uint32_t *base,
			    uint32_t S, const struct cgs_frame *ug, struct mb y,
			    char *msg, size_t size)
{
	uint32_t l;

	for (l = 0; l < s->layers[y.chunk]; l++) {
		const struct cgs_frame *b = saved_frame(rp, base, S, s, y.chunk,
							y.slot, l);

		if (b->arena == ug->arena &&
		    overlap(ug->offset, ug->bytes, b->offset, b->bytes)) {
			snprintf(msg, size, "rank %u: live user-grad frame "
				 "(%u,%u) and saved frame (%u,%u,%u) overlap in "
				 "bytes", rp->rank, ug->chunk, ug->slot, b->chunk,
				 b->slot, b->layer);
			return -1;
		}
	}
	return 0;
}

static int check_replay(const struct cgs_schedule *s, const struct cgs_plan *p,
			const struct cgs_rank_plan *rp, const uint32_t *base,
			char *msg, size_t size)
{
	struct cgs_rank_orders ro;
	uint32_t S = rp->slots, M = s->vpp, o, i, c;
	uint32_t *fwd = calloc(M, sizeof(*fwd)), *bwd = calloc(M, sizeof(*bwd));
	uint64_t *wchunk = calloc(M, sizeof(*wchunk));
	struct mb *live = NULL;
	uint64_t max_s = 0, max_u = 0, max_all = 0;
	uint32_t max_frames = 0, max_ug = 0;
	int rc = 0, have_ro = 0;

	if (!fwd || !bwd || !wchunk)
		FAIL("out of memory");
	if (cgs_rank_orders_init(&ro, s, rp->rank, NULL))
		FAIL("rank %u: orders do not build", rp->rank);
	have_ro = 1;
	if (ro.n_reachable != rp->n_reachable)
		FAIL("rank %u: %u reachable counts, plan has %u", rp->rank,
		     ro.n_reachable, rp->n_reachable);
	live = calloc(ro.order_start[ro.n_reachable] + 1, sizeof(*live));
	if (!live)
		FAIL("out of memory");
	for (o = 0; o < ro.n_reachable; o++) {
		uint64_t e;
		uint32_t n_live = 0, live_frames = 0;
		uint64_t ws = 0;
		const struct cgs_frame *prev_ug = NULL;

		if (ro.reachable[o] != rp->reachable[o])
			FAIL("rank %u: reachable count %u differs", rp->rank, o);
		memset(fwd, 0, M * sizeof(*fwd));
		memset(bwd, 0, M * sizeof(*bwd));
		for (e = ro.order_start[o]; e < ro.order_start[o + 1]; e++) {
			int32_t id = ro.entries[e];
			uint64_t wu = prev_ug ? prev_ug->bytes : 0;
			uint32_t n_ug = prev_ug != NULL, l;
			struct mb x;

			c = (uint32_t)(id < 0 ? -id : id) - 1;
			x.chunk = c;
			if (id > 0) {
				x.k = fwd[c]++;
				x.slot = slot_of(rp, o, c, x.k);
				if (x.slot == UINT32_MAX)
					FAIL("rank %u, %u microbatches: microbatch %u maps "
					     "outside the ring of %u slots", rp->rank,
					     ro.reachable[o], x.k, S);
				if (saved_clash(s, rp, base, S, x, x, msg, size))
					goto fail;
				for (i = 0; i < n_live; i++)
					if (saved_clash(s, rp, base, S, x, live[i], msg, size))
						goto fail;
				/* the last backward's gradient is still live */
				if (prev_ug &&
				    grad_saved_clash(s, rp, base, S, prev_ug, x, msg, size))
					goto fail;
				live[n_live++] = x;
				live_frames += s->layers[c];
				for (l = 0; l < s->layers[c]; l++)
					ws += saved_frame(rp, base, S, s, c, x.slot, l)->bytes;
			} else {
				const struct cgs_frame *ug;

				x.k = bwd[c]++;
				x.slot = slot_of(rp, o, c, x.k);
				if (x.slot == UINT32_MAX)
					FAIL("rank %u: a microbatch maps outside the ring",
					     rp->rank);
				ug = &rp->user_grad[c * S + x.slot];
				if (prev_ug == ug)
					FAIL("rank %u, %u microbatches, entry %" PRIu64
					     ": consecutive backwards share user-grad frame "
					     "(%u,%u)", rp->rank, ro.reachable[o],
					     e - ro.order_start[o], ug->chunk, ug->slot);
				if (prev_ug && (ug->colour == prev_ug->colour ||
						(ug->arena == prev_ug->arena &&
						 overlap(ug->offset, ug->bytes,
							 prev_ug->offset, prev_ug->bytes))))
					FAIL("rank %u: live user-grad frames (%u,%u) and "
					     "(%u,%u) share bytes or colour", rp->rank,
					     ug->chunk, ug->slot, prev_ug->chunk,
					     prev_ug->slot);
				if (prev_ug && ug->arena == prev_ug->arena &&
				    gradients_overlap(s, rp, base, S, ug, prev_ug))
					FAIL("rank %u: layer gradients of live user-grad frames "
					     "(%u,%u) and (%u,%u) overlap", rp->rank, ug->chunk,
					     ug->slot, prev_ug->chunk, prev_ug->slot);
				/* x's saved frames are live at its backward too */
				for (i = 0; i < n_live; i++)
					if (grad_saved_clash(s, rp, base, S, ug, live[i],
							     msg, size))
						goto fail;
				wu += ug->bytes;
				n_ug++;
				prev_ug = ug;
			}
			if (ws > max_s)
				max_s = ws;
			if (wu > max_u)
				max_u = wu;
			if (ws + wu > max_all)
				max_all = ws + wu;
			if (live_frames > max_frames)
				max_frames = live_frames;
			if (n_ug > max_ug)
				max_ug = n_ug;
			if (id < 0) {
				for (i = 0; i < n_live; i++)
					if (live[i].chunk == c && live[i].k == x.k)
						break;
				if (i == n_live)
					FAIL("rank %u: backward of a microbatch not live",
					     rp->rank);
				live[i] = live[--n_live];
				live_frames -= s->layers[c];
				for (l = 0; l < s->layers[c]; l++)
					ws -= saved_frame(rp, base, S, s, c, x.slot, l)->bytes;
			}
		}
	}
	if (max_s != rp->saved_stats.lower_bound_bytes ||
	    max_u != rp->user_grad_stats.lower_bound_bytes ||
	    max_all != rp->lower_bound_bytes)
		FAIL("rank %u: lower bounds %" PRIu64 "/%" PRIu64 "/%" PRIu64
		     ", replay finds %" PRIu64 "/%" PRIu64 "/%" PRIu64, rp->rank,
		     rp->saved_stats.lower_bound_bytes,
		     rp->user_grad_stats.lower_bound_bytes, rp->lower_bound_bytes,
		     max_s, max_u, max_all);
	if (max_frames > rp->saved_stats.colour_lower_bound ||
	    max_ug > rp->user_grad_stats.colour_lower_bound)
		FAIL("rank %u: a live set of %u saved / %u user-grad frames beats "
		     "the colour lower bounds %u / %u", rp->rank, max_frames,
		     max_ug, rp->saved_stats.colour_lower_bound,
		     rp->user_grad_stats.colour_lower_bound);
	goto out;
fail:
	rc = -1;
out:
	if (have_ro)
		cgs_rank_orders_release(&ro);
	free(fwd);
	free(bwd);
	free(wchunk);
	free(live);
	return rc;
}

int cgs_plan_check(const struct cgs_schedule *s, const struct cgs_plan *p,
		   char *msg, size_t size)
{
	uint32_t *base = calloc((size_t)s->vpp + 1, sizeof(*base)), c, r;
	int rc = 0;

	if (!base)
		FAIL("out of memory");
	for (c = 0; c < s->vpp; c++)
		base[c + 1] = base[c] + s->layers[c];
	if (p->n_ranks != s->n_ranks || p->slots == 0)
		FAIL("plan has %u ranks and %u slots", p->n_ranks, p->slots);
	for (r = 0; r < p->n_ranks; r++) {
		if (p->ranks[r].rank != s->ranks[r])
			FAIL("plan rank %u is %u, want %u", r, p->ranks[r].rank,
			     s->ranks[r]);
		/* one ring for all, unless the plan says each rank chose */
		if (p->ranks[r].slots == 0 || p->ranks[r].slots > p->slots ||
		    (!p->per_rank && p->ranks[r].slots != p->slots))
			FAIL("rank %u has a ring of %u slots; the plan's is %u%s",
			     p->ranks[r].rank, p->ranks[r].slots, p->slots,
			     p->per_rank ? " at most" : "");
		rc = check_static(s, p, &p->ranks[r], base, msg, size);
		if (rc == 0)
			rc = check_replay(s, p, &p->ranks[r], base, msg, size);
		if (rc)
			break;
	}
out:
	free(base);
	return rc;
}
