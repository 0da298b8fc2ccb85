/*
 * Liveness: replay every reachable order of a rank with the ring, and
 * record which saved groups and which user-gradient frames are ever live
 * together, the largest live sets (colour lower bounds) and the heaviest
 * live bytes (byte lower bounds).
 *
 * A saved group (c, s) lives from the forward of (c, k) to its backward,
 * inclusive.  The user-gradient frame written by a backward stays the
 * source of a pipeline send until the next backward completes, so it is
 * live at that next backward too.  Which saved groups each gradient frame
 * meets is kept as well (x->grad_saved), for nesting (nest.c).
 *
 * A shorter order that is the longest one up to its last forward, with
 * the same slots for the microbatches it runs, passes through the same
 * states until then: it is replayed only from there, from a copy of the
 * longest order's state at that entry.  Megatron's orders for the
 * reachable counts are such prefixes, and so are most slot maps' rows,
 * so a rank's replay costs about one order instead of all of them.
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
	if (r->pending_grad != CGS_PLAN_NEVER)
		cgs_bit_set(cgs_graph_row(&x->grad_saved, r->pending_grad), g);
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
	uint32_t k = r->backwards[c]++, w;
	uint32_t g = c * x->slots + cgs_slot_of(x->rp, o, c, k);
	uint64_t *meets = cgs_graph_row(&x->grad_saved, g);

	/* its gradient frame meets every saved group live now, its own too */
	for (w = 0; w < x->grad_saved.words; w++)
		meets[w] |= r->live[w];
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

/* Copy the replay's state of the order at hand (not its peaks). */
static void copy_state(const struct cgs_rank_work *x, struct live_replay *to,
		       const struct live_replay *from)
{
	memcpy(to->live, from->live,
	       x->group_conflicts.words * sizeof(*to->live));
	memcpy(to->forwards, from->forwards, x->chunks * sizeof(*to->forwards));
	memcpy(to->backwards, from->backwards,
	       x->chunks * sizeof(*to->backwards));
	to->live_frames = from->live_frames;
	to->live_saved_bytes = from->live_saved_bytes;
	to->pending_grad = from->pending_grad;
	to->pending_grad_bytes = from->pending_grad_bytes;
	to->event_grad_frames = from->event_grad_frames;
	to->event_grad_bytes = from->event_grad_bytes;
}

/* Replay entries [from, to) of order o. */
static void replay(struct cgs_rank_work *x, struct live_replay *r, uint32_t o,
		   uint64_t from, uint64_t to,
		   const uint64_t *chunk_saved_bytes, int largest)
{
	const struct cgs_rank_plan *rp = x->rp;
	uint64_t i, start = rp->order_start[o];

	for (i = start + from; i < start + to; i++) {
		int32_t e = rp->order_entries[i];
		uint32_t index = (uint32_t)(i - start), g = 0;
		/* cgs_ring_scan has checked every entry */
		uint32_t c = (uint32_t)(e < 0 ? -(int64_t)e : e) - 1;

		if (e > 0)
			on_forward(x, r, o, c, chunk_saved_bytes, index,
				   largest);
		else
			g = on_backward(x, r, o, c, index, largest);
		note_peaks(x, r);
		if (e < 0)
			end_backward(x, r, c, g, chunk_saved_bytes);
	}
}

/*
 * The entries of order o that the longest order's replay stands for: all
 * up to o's last forward where o is the longest order up to there and
 * gives the microbatches it runs the same slots; else 0.
 */
static uint64_t shared_prefix(const struct cgs_rank_work *x, uint32_t o,
			      uint32_t *runs)
{
	const struct cgs_rank_plan *rp = x->rp;
	uint32_t last = rp->n_reachable - 1, c, k;
	uint64_t len = cgs_nested_prefix(rp, o), i;
	const int32_t *mine = rp->order_entries + rp->order_start[o];

	if (len == 0 || !rp->slot_map)
		return len;
	/* the prefix runs microbatches 0 .. runs[c] - 1 of chunk c */
	memset(runs, 0, x->chunks * sizeof(*runs));
	for (i = 0; i < len; i++)
		if (mine[i] > 0)
			runs[mine[i] - 1]++;
	for (c = 0; c < x->chunks; c++)
		for (k = 0; k < runs[c]; k++)
			if (cgs_slot_of(rp, o, c, k) != cgs_slot_of(rp, last, c, k))
				return 0;
	return len;
}

int cgs_liveness(struct cgs_rank_work *x, struct cgs_error *err)
{
	struct cgs_rank_plan *rp = x->rp;
	uint32_t M = x->chunks, o, c, l, n_forks = 0, f;
	uint32_t last = rp->n_reachable - 1;
	struct live_replay r = {
		.live = calloc(x->group_conflicts.words + 1, sizeof(uint64_t)),
		.forwards = calloc(M, sizeof(uint32_t)),
		.backwards = calloc(M, sizeof(uint32_t)),
	};
	/* the longest order's state, kept while a shorter one's rest runs */
	struct live_replay kept = {
		.live = calloc(x->group_conflicts.words + 1, sizeof(uint64_t)),
		.forwards = calloc(M, sizeof(uint32_t)),
		.backwards = calloc(M, sizeof(uint32_t)),
	};
	/* saved bytes of all the layers of one chunk */
	uint64_t *chunk_saved_bytes = calloc(M, sizeof(uint64_t));
	/* the shorter orders that branch off the longest, by where */
	uint64_t *fork_at = calloc(rp->n_reachable + 1, sizeof(uint64_t));
	uint32_t *fork_order = calloc(rp->n_reachable + 1, sizeof(uint32_t));
	uint64_t at = 0;
	int rc = 0;

	if (!r.live || !r.forwards || !r.backwards || !kept.live ||
	    !kept.forwards || !kept.backwards || !chunk_saved_bytes ||
	    !fork_at || !fork_order) {
		rc = cgs_plan_fail(err, CGS_E_NOMEM, rp->rank,
				   "replaying the orders");
		goto out;
	}
	for (c = 0; c < M; c++)
		for (l = 0; l < x->s->layers[c]; l++)
			chunk_saved_bytes[c] +=
				x->saved_bytes[x->layer_base[c] + l];
	/* orders that share no prefix run whole, as they come */
	for (o = 0; o < last; o++) {
		/* kept's counters are scratch until the longest order runs */
		uint64_t len = shared_prefix(x, o, kept.forwards);

		if (len) {
			/* insertion by where: counts come in order, so cheap */
			f = n_forks++;
			while (f > 0 && fork_at[f - 1] > len) {
				fork_at[f] = fork_at[f - 1];
				fork_order[f] = fork_order[f - 1];
				f--;
			}
			fork_at[f] = len;
			fork_order[f] = o;
			continue;
		}
		start_order(x, &r);
		replay(x, &r, o, 0, rp->order_start[o + 1] - rp->order_start[o],
		       chunk_saved_bytes, 0);
	}
	/*
	 * the longest order, each shorter one branching off where it ends
	 * its forwards: its state then is the longest order's
	 */
	start_order(x, &r);
	for (f = 0; f <= n_forks; f++) {
		uint64_t to = f < n_forks ? fork_at[f]
					  : rp->order_start[last + 1] -
					    rp->order_start[last];

		replay(x, &r, last, at, to, chunk_saved_bytes, 1);
		at = to;
		if (f == n_forks)
			break;
		o = fork_order[f];
		copy_state(x, &kept, &r);
		replay(x, &r, o, at,
		       rp->order_start[o + 1] - rp->order_start[o],
		       chunk_saved_bytes, 0);
		copy_state(x, &r, &kept);
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
	free(kept.live);
	free(kept.forwards);
	free(kept.backwards);
	free(chunk_saved_bytes);
	free(fork_at);
	free(fork_order);
	return rc;
}
