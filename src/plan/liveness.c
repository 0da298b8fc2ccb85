/*
 * Liveness: replay every reachable order of a rank with the ring, and
 * record which saved groups and which user-gradient frames are ever live
 * together, the largest live sets (colour lower bounds) and the heaviest
 * live bytes (byte lower bounds).
 *
 * A saved group (c, s) lives from the forward of (c, k) to its backward,
 * inclusive.  The user-gradient frame written by a backward stays the
 * source of a pipeline send until the next backward completes, so it is
 * live at that next backward too.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "plan/stage.h"

/* State of one order being replayed. */
struct live_replay {
	uint64_t *live;              /* groups live now, a bitset */
	uint32_t *forwards, *backwards;
	uint32_t live_frames;        /* saved frames live now */
	uint64_t live_saved_bytes;
	uint32_t pending_grad;       /* the last backward's gradient frame */
	uint64_t pending_grad_bytes;
	/* gradient frames and bytes live at the current event */
	uint32_t event_grad_frames;
	uint64_t event_grad_bytes;
	/* the heaviest instants over every order */
	uint64_t max_saved_bytes, max_grad_bytes, max_bytes;
};

static void start_order(const struct cgs_rank_work *x, struct live_replay *r)
{
	memset(r->live, 0, x->group_conflicts.words * sizeof(*r->live));
	memset(r->forwards, 0, x->chunks * sizeof(*r->forwards));
	memset(r->backwards, 0, x->chunks * sizeof(*r->backwards));
	r->live_frames = 0;
	r->live_saved_bytes = 0;
	r->pending_grad = CGS_PLAN_NEVER;
	r->pending_grad_bytes = 0;
}

/* The forward of chunk c's next microbatch: its group meets every live one. */
static void on_forward(struct cgs_rank_work *x, struct live_replay *r,
		       uint32_t o, uint32_t c, const uint64_t *chunk_saved_bytes,
		       uint32_t index, int largest)
{
	uint32_t k = r->forwards[c]++, w;
	uint32_t g = c * x->slots + cgs_slot_of(x->rp, o, c, k);
	uint64_t *row = cgs_graph_row(&x->group_conflicts, g);

	/*
	 * the ring holds every microbatch in flight (cgs_ring_choose), and
	 * a slot map never gives two of them one slot (slotmap.c)
	 */
	assert(!cgs_bit_test(r->live, g));
	for (w = 0; w < x->group_conflicts.words; w++)
		row[w] |= r->live[w];
	cgs_bit_set(r->live, g);
	r->live_frames += x->s->layers[c];
	r->live_saved_bytes += chunk_saved_bytes[c];
	if (largest && x->group_birth[g] == CGS_PLAN_NEVER)
		x->group_birth[g] = index;
	r->event_grad_bytes = r->pending_grad_bytes;
	r->event_grad_frames = r->pending_grad != CGS_PLAN_NEVER;
}

/* The backward of chunk c's oldest microbatch writes its gradient frame. */
static uint32_t on_backward(struct cgs_rank_work *x, struct live_replay *r,
			    uint32_t o, uint32_t c, uint32_t index, int largest)
{
	uint32_t k = r->backwards[c]++;
	uint32_t g = c * x->slots + cgs_slot_of(x->rp, o, c, k);

	/*
	 * a ring of two or more, or a slot map, never gives consecutive
	 * backwards one frame
	 */
	assert(g != r->pending_grad);
	if (r->pending_grad != CGS_PLAN_NEVER)
		cgs_bit_set(cgs_graph_row(&x->grad_conflicts, g),
			    r->pending_grad);
	if (largest && x->grad_birth[g] == CGS_PLAN_NEVER)
		x->grad_birth[g] = index;
	r->event_grad_bytes = r->pending_grad_bytes + x->grad_bytes[c];
	r->event_grad_frames = 1 + (r->pending_grad != CGS_PLAN_NEVER);
	return g;
}

/* After a backward: its saved group ends; its gradient stays pending. */
static void end_backward(const struct cgs_rank_work *x, struct live_replay *r,
			 uint32_t c, uint32_t g,
			 const uint64_t *chunk_saved_bytes)
{
	cgs_bit_clear(r->live, g);
	r->live_frames -= x->s->layers[c];
	r->live_saved_bytes -= chunk_saved_bytes[c];
	r->pending_grad = g;
	r->pending_grad_bytes = x->grad_bytes[c];
}

static void note_peaks(struct cgs_rank_work *x, struct live_replay *r)
{
	uint64_t all = r->live_saved_bytes + r->event_grad_bytes;

	if (r->live_frames > x->live_saved_frames)
		x->live_saved_frames = r->live_frames;
	if (r->event_grad_frames > x->live_grad_frames)
		x->live_grad_frames = r->event_grad_frames;
	if (r->live_saved_bytes > r->max_saved_bytes)
		r->max_saved_bytes = r->live_saved_bytes;
	if (r->event_grad_bytes > r->max_grad_bytes)
		r->max_grad_bytes = r->event_grad_bytes;
	if (all > r->max_bytes)
		r->max_bytes = all;
}

int cgs_liveness(struct cgs_rank_work *x, struct cgs_error *err)
{
	struct cgs_rank_plan *rp = x->rp;
	uint32_t M = x->chunks, o, c, l;
	struct live_replay r = {
		.live = calloc(x->group_conflicts.words + 1, sizeof(uint64_t)),
		.forwards = calloc(M, sizeof(uint32_t)),
		.backwards = calloc(M, sizeof(uint32_t)),
	};
	/* saved bytes of all the layers of one chunk */
	uint64_t *chunk_saved_bytes = calloc(M, sizeof(uint64_t));
	int rc = 0;

	if (!r.live || !r.forwards || !r.backwards || !chunk_saved_bytes) {
		rc = cgs_plan_fail(err, CGS_E_NOMEM, rp->rank,
				   "replaying the orders");
		goto out;
	}
	for (c = 0; c < M; c++)
		for (l = 0; l < x->s->layers[c]; l++)
			chunk_saved_bytes[c] +=
				x->saved_bytes[x->layer_base[c] + l];
	for (o = 0; o < rp->n_reachable; o++) {
		uint64_t i, start = rp->order_start[o];
		int largest = o + 1 == rp->n_reachable;

		start_order(x, &r);
		for (i = start; i < rp->order_start[o + 1]; i++) {
			int32_t e = rp->order_entries[i];
			uint32_t index = (uint32_t)(i - start), g = 0;

			/* cgs_ring_scan has checked every entry */
			c = (uint32_t)(e < 0 ? -(int64_t)e : e) - 1;
			if (e > 0)
				on_forward(x, &r, o, c, chunk_saved_bytes,
					   index, largest);
			else
				g = on_backward(x, &r, o, c, index, largest);
			note_peaks(x, &r);
			if (e < 0)
				end_backward(x, &r, c, g, chunk_saved_bytes);
		}
	}
	cgs_graph_symmetrise(&x->group_conflicts);
	cgs_graph_symmetrise(&x->grad_conflicts);
	rp->saved_stats.lower_bound_bytes = r.max_saved_bytes;
	rp->user_grad_stats.lower_bound_bytes = r.max_grad_bytes;
	rp->lower_bound_bytes = r.max_bytes;
out:
	free(r.live);
	free(r.forwards);
	free(r.backwards);
	free(chunk_saved_bytes);
	return rc;
}
