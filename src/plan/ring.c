/*
 * The slot ring: how many microbatches of one chunk are in flight at
 * worst over every reachable order of every planned rank, and whether two
 * consecutive backwards of one chunk would make a one-slot ring share a
 * user-gradient frame.  Malformed orders are reported here, first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/stage.h"

/* Counters of one order being replayed. */
struct ring_replay {
	uint32_t *forwards, *backwards;   /* per chunk */
	uint32_t last_backward;           /* chunk, or CGS_PLAN_NEVER */
};

static int bad_entry(const struct cgs_schedule *s,
		     const struct cgs_rank_plan *rp, uint32_t n,
		     uint64_t index, int32_t e, struct cgs_error *err)
{
	char what[200];

	snprintf(what, sizeof(what),
		 "%d names no chunk; accepted: -%u..-1 and 1..%u", (int)e,
		 s->vpp, s->vpp);
	return cgs_plan_order_error(err, CGS_E_ORDER, s, rp->rank, n, index,
				    what);
}

static void on_forward(struct ring_replay *r, uint32_t c, uint32_t rank,
		       uint32_t n, struct cgs_ring_need *need)
{
	uint32_t in_flight = ++r->forwards[c] - r->backwards[c];

	if (in_flight > need->in_flight) {
		need->in_flight = in_flight;
		need->rank = rank;
		need->microbatches = n;
		need->chunk = c;
	}
}

static void on_backward(struct ring_replay *r, uint32_t c, uint32_t rank,
			uint32_t n, uint64_t index, struct cgs_ring_need *need)
{
	r->backwards[c]++;
	if (r->last_backward == c && !need->twin_backward) {
		need->twin_backward = 1;
		need->twin_rank = rank;
		need->twin_microbatches = n;
		need->twin_chunk = c;
		need->twin_index = index;
	}
	r->last_backward = c;
}

/* Replay order o of the rank; 0 or CGS_E_ORDER naming the entry. */
static int scan_order(const struct cgs_schedule *s,
		      const struct cgs_rank_plan *rp, uint32_t o,
		      struct ring_replay *r, struct cgs_ring_need *need,
		      struct cgs_error *err)
{
	uint32_t M = s->vpp, n = rp->reachable[o], c;
	uint64_t i, start = rp->order_start[o], end = rp->order_start[o + 1];
	char what[200];

	memset(r->forwards, 0, M * sizeof(*r->forwards));
	memset(r->backwards, 0, M * sizeof(*r->backwards));
	r->last_backward = CGS_PLAN_NEVER;
	for (i = start; i < end; i++) {
		int32_t e = rp->order_entries[i];
		uint32_t id = e < 0 ? (uint32_t)(-(int64_t)e) : (uint32_t)e;

		if (e == 0 || id > M)
			return bad_entry(s, rp, n, i - start, e, err);
		c = id - 1;
		if (e > 0) {
			on_forward(r, c, rp->rank, n, need);
			continue;
		}
		if (r->backwards[c] >= r->forwards[c]) {
			snprintf(what, sizeof(what),
				 "backward of chunk %u runs before its forward",
				 id);
			return cgs_plan_order_error(err, CGS_E_ORDER, s,
						    rp->rank, n, i - start,
						    what);
		}
		on_backward(r, c, rp->rank, n, i - start, need);
	}
	for (c = 0; c < M; c++) {
		if (r->forwards[c] != r->backwards[c]) {
			snprintf(what, sizeof(what),
				 "the order ends with %u forwards of chunk %u pending",
				 r->forwards[c] - r->backwards[c], c + 1);
			return cgs_plan_order_error(err, CGS_E_ORDER, s,
						    rp->rank, n, end - start,
						    what);
		}
	}
	return 0;
}

int cgs_ring_scan(const struct cgs_schedule *s,
		  const struct cgs_rank_plan *rp, struct cgs_ring_need *need,
		  struct cgs_error *err)
{
	struct ring_replay r = {
		.forwards = calloc(s->vpp, sizeof(uint32_t)),
		.backwards = calloc(s->vpp, sizeof(uint32_t)),
	};
	uint32_t o;
	int rc = 0;

	if (!r.forwards || !r.backwards)
		rc = cgs_plan_fail(err, CGS_E_NOMEM, rp->rank,
				   "counting microbatches in flight");
	for (o = 0; rc == 0 && o < rp->n_reachable; o++)
		rc = scan_order(s, rp, o, &r, need, err);
	free(r.forwards);
	free(r.backwards);
	return rc;
}

int cgs_ring_choose(const struct cgs_schedule *s,
		    const struct cgs_ring_need *need, uint32_t *slots,
		    struct cgs_error *err)
{
	uint32_t smallest = need->in_flight ? need->in_flight : 1;

	if (need->twin_backward && smallest < 2)
		smallest = 2;
	if (s->slots == 0) {
		*slots = smallest;
		return 0;
	}
	if (s->slots < need->in_flight)
		return cgs_error_at(err, CGS_E_PLAN, s->path,
			s->slots_pos.line, s->slots_pos.column,
			"slots: %u: slot period shorter than liveness: rank %u "
			"with %u microbatches has %u microbatches of chunk %u "
			"in flight; accepted: %u or more",
			s->slots, need->rank, need->microbatches,
			need->in_flight, need->chunk + 1, smallest);
	if (s->slots < smallest)
		return cgs_error_at(err, CGS_E_PLAN, s->path,
			s->slots_pos.line, s->slots_pos.column,
			"slots: %u: slot period shorter than liveness: rank %u "
			"with %u microbatches runs two consecutive backwards "
			"of chunk %u (entry %llu), which would share one "
			"user-gradient frame; accepted: %u or more",
			s->slots, need->twin_rank, need->twin_microbatches,
			need->twin_chunk + 1,
			(unsigned long long)need->twin_index, smallest);
	*slots = s->slots;
	return 0;
}

uint32_t cgs_ring_smallest(const struct cgs_ring_need *need)
{
	uint32_t smallest = need->in_flight ? need->in_flight : 1;

	if (need->twin_backward && smallest < 2)
		smallest = 2;
	return smallest;
}

void cgs_ring_need_merge(struct cgs_ring_need *all,
			 const struct cgs_ring_need *one)
{
	if (one->in_flight > all->in_flight) {
		all->in_flight = one->in_flight;
		all->rank = one->rank;
		all->microbatches = one->microbatches;
		all->chunk = one->chunk;
	}
	if (one->twin_backward && !all->twin_backward) {
		all->twin_backward = 1;
		all->twin_rank = one->twin_rank;
		all->twin_microbatches = one->twin_microbatches;
		all->twin_chunk = one->twin_chunk;
		all->twin_index = one->twin_index;
	}
}

int cgs_ring_range(const struct cgs_schedule *s,
		   const struct cgs_plan_options *opt,
		   const struct cgs_ring_need *all,
		   const struct cgs_ring_need *rank, uint32_t *lo,
		   uint32_t *hi, struct cgs_error *err)
{
	const struct cgs_ring_need *need = rank ? rank : all;
	uint32_t max = opt->max_slots ? opt->max_slots : s->slots_max, shared;
	int rc = cgs_ring_choose(s, all, lo, err);

	if (rc)
		return rc;
	shared = *lo;
	if (s->slots == 0)
		*lo = cgs_ring_smallest(need);
	if (max == 0 && opt->explore)
		max = shared > UINT32_MAX / 2 ? UINT32_MAX : 2 * shared;
	/* a rank of its own never takes more bytes than the shared ring */
	if (max == 0 && rank)
		max = shared;
	if (max && max < *lo) {
		if (rank)
			return cgs_error_at(err, CGS_E_PLAN, s->path,
				s->slots_pos.line, s->slots_pos.column,
				"slots.max %u: shorter than the smallest ring "
				"safe for rank %u; accepted: %u or more",
				max, need->rank, *lo);
		return cgs_error_at(err, CGS_E_PLAN, s->path,
			s->slots_pos.line, s->slots_pos.column,
			"slots.max %u: shorter than the smallest ring safe "
			"for every rank; accepted: %u or more", max, *lo);
	}
	*hi = max ? max : *lo;
	return 0;
}
