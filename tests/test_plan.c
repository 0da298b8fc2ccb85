/*
 * The planner: hand-checked pipelines pinning the ring, colours and bytes,
 * errors, the graph algorithms, and property tests over random schedules,
 * each plan proven safe by the independent checker (plan_check.c).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/graph.h"
#include "plan/plan.h"
#include "plan_check.h"
#include "testlib.h"

/* ---- schedules built in memory ---------------------------------------- */

static struct cgs_schedule *make_schedule(uint32_t pp, uint32_t vpp,
					  uint32_t group, uint32_t max_mb,
					  const uint32_t *layers,
					  uint64_t alignment, uint32_t n_variants)
{
	struct cgs_schedule *s = calloc(1, sizeof(*s));
	uint32_t i;

	ck_assert_ptr_nonnull(s);
	s->path = strdup("test.yaml");
	s->pp = pp;
	s->vpp = vpp;
	s->group = group;
	s->max_microbatches = max_mb;
	s->alignment = alignment;
	s->layers = calloc(vpp, sizeof(*s->layers));
	for (i = 0; i < vpp; i++)
		s->layers[i] = layers ? layers[i] : 1;
	s->n_ranks = pp;
	s->ranks = calloc(pp, sizeof(*s->ranks));
	for (i = 0; i < pp; i++)
		s->ranks[i] = i;
	s->n_variants = n_variants;
	s->variants = calloc(n_variants, sizeof(*s->variants));
	for (i = 0; i < n_variants; i++) {
		char name[16];

		snprintf(name, sizeof(name), "cp%u", 1u << i);
		s->variants[i].name = strdup(name);
		s->variants[i].cp = 1u << i;
	}
	return s;
}

static void set_bytes(struct cgs_schedule *s, uint32_t v, uint64_t in,
		      uint64_t out, uint64_t saved, uint64_t user_grad)
{
	struct cgs_role_bytes *b = &s->variants[v].bytes;

	b->role[CGS_ROLE_INPUT] = in;
	b->role[CGS_ROLE_OUTPUT] = out;
	b->role[CGS_ROLE_SAVED] = saved;
	b->role[CGS_ROLE_USER_GRAD] = user_grad;
}

static void add_order(struct cgs_schedule *s, uint32_t rank, uint32_t n,
		      const int32_t *entries, size_t len)
{
	struct cgs_order *o;

	s->orders = realloc(s->orders, (s->n_orders + 1) * sizeof(*s->orders));
	o = &s->orders[s->n_orders++];
	memset(o, 0, sizeof(*o));
	o->rank = rank;
	o->microbatches = n;
	o->entries = malloc(len * sizeof(*o->entries));
	memcpy(o->entries, entries, len * sizeof(*o->entries));
	o->n_entries = len;
	o->pos.line = 7;
	o->pos.column = 5;
}

static void free_schedule(struct cgs_schedule *s)
{
	size_t i;

	for (i = 0; i < s->n_variants; i++) {
		free(s->variants[i].name);
		free(s->variants[i].overrides);
	}
	for (i = 0; i < s->n_orders; i++)
		free(s->orders[i].entries);
	free(s->orders);
	free(s->variants);
	free(s->ranks);
	free(s->layers);
	free(s->path);
	free(s);
}

/* Plan, prove the plan safe with the checker, return it. */
static struct cgs_plan *plan_ok(const struct cgs_schedule *s)
{
	struct cgs_error err = {0};
	struct cgs_plan *p = NULL;
	char msg[512];

	ck_assert_msg(cgs_plan_create(s, NULL, &p, &err) == 0, "plan: %s",
		      err.message);
	ck_assert_msg(cgs_plan_check(s, p, msg, sizeof(msg)) == 0, "check: %s",
		      msg);
	return p;
}

static const struct cgs_rank_plan *rank_of(const struct cgs_plan *p,
					   uint32_t rank)
{
	uint32_t i;

	for (i = 0; i < p->n_ranks; i++)
		if (p->ranks[i].rank == rank)
			return &p->ranks[i];
	ck_abort_msg("rank %u not planned", rank);
	return NULL;
}

struct expect {
	uint32_t rank, saved_frames, saved_colours, saved_clique;
	uint32_t ug_frames, ug_colours, ug_clique;
	uint64_t saved_bytes, ug_bytes, lower_bound, without_sharing;
};

static void expect_rank(const struct cgs_plan *p, const struct expect *e)
{
	const struct cgs_rank_plan *rp = rank_of(p, e->rank);

	ck_assert_uint_eq(rp->saved_stats.frames, e->saved_frames);
	ck_assert_uint_eq(rp->n_saved, e->saved_frames);
	ck_assert_uint_eq(rp->saved_stats.colours, e->saved_colours);
	ck_assert_uint_eq(rp->saved_stats.colour_lower_bound, e->saved_clique);
	ck_assert_uint_eq(rp->user_grad_stats.frames, e->ug_frames);
	ck_assert_uint_eq(rp->user_grad_stats.colours, e->ug_colours);
	ck_assert_uint_eq(rp->user_grad_stats.colour_lower_bound, e->ug_clique);
	ck_assert_uint_eq(rp->saved_stats.bytes, e->saved_bytes);
	ck_assert_uint_eq(rp->user_grad_stats.bytes, e->ug_bytes);
	ck_assert_uint_eq(rp->bytes, e->saved_bytes + e->ug_bytes);
	ck_assert_uint_eq(rp->lower_bound_bytes, e->lower_bound);
	ck_assert_uint_eq(rp->bytes_without_sharing, e->without_sharing);
}

/* ---- hand-checked pipelines ------------------------------------------- */

/*
 * P1 M1 L1, two layers: "1 -1".  One slot; both layers live together (2
 * colours); input 100 -> 256, output 100 -> 256, saved 300 -> 512 makes a
 * 1024-byte frame; the user-grad frame holds 2 x 256.
 */
START_TEST(single_microbatch)
{
	static const uint32_t layers[] = {2};
	struct cgs_schedule *s = make_schedule(1, 1, 1, 1, layers, 256, 1);
	struct cgs_plan *p;
	const struct cgs_rank_plan *rp;

	set_bytes(s, 0, 100, 100, 300, 50);
	p = plan_ok(s);
	ck_assert_uint_eq(p->slots, 1);
	expect_rank(p, &(struct expect){0, 2, 2, 2, 1, 1, 1, 2048, 512,
					 2560, 2560});
	rp = &p->ranks[0];
	ck_assert_uint_eq(rp->saved_roles[3 + 1].offset, 256);  /* output */
	ck_assert_uint_eq(rp->saved_roles[3 + 2].offset, 512);  /* saved */
	ck_assert_uint_eq(rp->saved_roles[3 + 2].bytes, 300);
	ck_assert_uint_eq(rp->user_grad_layers[1].offset, 256);
	ck_assert_uint_eq(rp->saved[1].offset, 1024);
	ck_assert_uint_eq(rp->n_arenas, 2);
	ck_assert_uint_eq(rp->arenas[0].bytes, 2048);
	ck_assert_uint_eq(rp->arenas[1].bytes, 512);
	ck_assert_uint_eq(rp->arenas[1].role, CGS_ARENA_USER_GRAD);
	cgs_plan_destroy(&p);
	ck_assert_ptr_null(p);
	free_schedule(s);
}
END_TEST

/*
 * P1 M1 L2: "1 -1 1 -1" keeps one microbatch in flight, but the two
 * backwards are consecutive, so one slot would hand both the same
 * user-gradient frame: the ring must be 2.
 */
START_TEST(user_grad_forces_two_slots)
{
	struct cgs_schedule *s = make_schedule(1, 1, 1, 2, NULL, 64, 1);
	struct cgs_error err = {0};
	struct cgs_plan *p;

	set_bytes(s, 0, 64, 64, 128, 64);
	p = plan_ok(s);
	ck_assert_uint_eq(p->slots, 2);
	/* saved frames of slots 0 and 1 never overlap in time: one colour */
	expect_rank(p, &(struct expect){0, 2, 1, 1, 2, 2, 2, 256, 128, 384,
					 384});
	cgs_plan_destroy(&p);

	s->slots = 1;
	ck_assert_int_eq(cgs_plan_create(s, NULL, &p, &err), CGS_E_PLAN);
	ck_assert_ptr_null(p);
	ck_assert_msg(strstr(err.message, "shorter than liveness") &&
		      strstr(err.message, "rank 0") &&
		      strstr(err.message, "2 microbatches") &&
		      strstr(err.message, "chunk 1"), "%s", err.message);
	/* a ring longer than any count is allowed: slot 2 is never live */
	s->slots = 3;
	p = plan_ok(s);
	ck_assert_uint_eq(p->slots, 3);
	ck_assert_uint_eq(p->ranks[0].n_saved, 3);
	ck_assert_uint_eq(p->ranks[0].saved_stats.colours, 1);
	ck_assert_uint_eq(p->ranks[0].bytes, 384);
	/* its graphs come last */
	ck_assert_uint_eq(p->ranks[0].capture[4], 4);
	ck_assert_uint_eq(p->ranks[0].capture[5], 5);
	cgs_plan_destroy(&p);
	s->slots = 2;
	p = plan_ok(s);
	ck_assert_uint_eq(p->slots, 2);
	cgs_plan_destroy(&p);
	free_schedule(s);
}
END_TEST

/*
 * P4 M2 G4 L4, two layers per chunk, variants cp1 (5120-byte frames,
 * 1024-byte gradient frames at alignment 512) and cp2 (half: 2560, 1024).
 * Rank 0 runs all 8 forwards first: 8 groups x 2 layers live together.
 * Rank 3 ("1 1 1 1 2 -2 2 -2 2 -2 2 -2 -1 -1 -1 -1") keeps chunk 0's four
 * microbatches and one of chunk 1: 10 frames.  Gradient frames form a
 * path: two colours.
 */
START_TEST(p4_m2_g4)
{
	static const uint32_t layers[] = {2, 2};
	struct cgs_schedule *s = make_schedule(4, 2, 4, 4, layers, 512, 2);
	struct cgs_plan *p;

	set_bytes(s, 0, 1000, 1000, 3000, 500);
	set_bytes(s, 1, 500, 500, 1500, 250);
	p = plan_ok(s);
	ck_assert_uint_eq(p->slots, 4);
	/*
	 * without sharing: cp1 alone 81920 + 2048, cp2 alone 40960 + 2048;
	 * in the drain each backward frees saved frames, and seven of the
	 * eight gradient frames nest there (nest.c): the one left takes 1024,
	 * and rank 0 its bound, 81920 + 1024
	 */
	expect_rank(p, &(struct expect){0, 16, 16, 16, 8, 2, 2, 81920, 1024,
					 82944, 126976});
	ck_assert_uint_eq(rank_of(p, 0)->n_nested, 7);
	{
		/*
		 * the checker replays both kinds together: a nested gradient
		 * frame moved onto its own group's saved frame (live at its
		 * backward) is caught
		 */
		struct cgs_rank_plan *r0 = (struct cgs_rank_plan *)rank_of(p, 0);
		struct cgs_frame *ug = r0->user_grad;
		uint64_t was;
		char msg[512];

		while (ug->arena != 0)
			ug++;
		was = ug->offset;
		ug->offset = r0->saved[p->layer_base[ug->chunk] * r0->slots +
				       ug->slot * 2].offset;
		ck_assert_int_ne(cgs_plan_check(s, p, msg, sizeof(msg)), 0);
		ck_assert_msg(strstr(msg, "user-grad frame") &&
			      strstr(msg, "overlap in bytes"), "%s", msg);
		ug->offset = was;
		ck_assert_int_eq(cgs_plan_check(s, p, msg, sizeof(msg)), 0);
	}
	/* without sharing: cp1 alone 51200 + 2048, cp2 alone 25600 + 2048 */
	expect_rank(p, &(struct expect){3, 16, 10, 10, 8, 2, 2, 51200, 2048,
					 53248, 80896});
	ck_assert_uint_eq(rank_of(p, 3)->bytes_colour_arenas, 53248);
	ck_assert_uint_eq(rank_of(p, 0)->n_graphs, 2 * 16 * 2);
	cgs_plan_destroy(&p);

	/* L8: chunk 1 of rank 0 reaches 8 microbatches in flight */
	s->max_microbatches = 8;
	p = plan_ok(s);
	ck_assert_uint_eq(p->slots, 8);
	ck_assert_uint_eq(p->ranks[0].n_reachable, 2);
	cgs_plan_destroy(&p);
	free_schedule(s);
}
END_TEST

/*
 * P4 M4 G4 L4, three layers per chunk, 5120-byte frames, 1536-byte
 * gradient frames.  Rank 0: all 16 groups live (48 frames).  Rank 3: 12
 * forwards, then "4 -4" x 4, then the drain: chunks 1-3 keep 4
 * microbatches (36 frames) and chunk 4 one (3 frames).
 */
START_TEST(p4_m4_three_layers)
{
	static const uint32_t layers[] = {3, 3, 3, 3};
	struct cgs_schedule *s = make_schedule(4, 4, 4, 4, layers, 512, 1);
	struct cgs_plan *p;

	set_bytes(s, 0, 1000, 1000, 3000, 500);
	p = plan_ok(s);
	ck_assert_uint_eq(p->slots, 4);
	/* as in p4_m2_g4, gradient frames nest: rank 0 at its bound */
	expect_rank(p, &(struct expect){0, 48, 48, 48, 16, 2, 2, 245760, 1536,
					 247296, 248832});
	expect_rank(p, &(struct expect){3, 48, 39, 39, 16, 2, 2, 199680, 3072,
					 202752, 202752});
	cgs_plan_destroy(&p);
	free_schedule(s);
}
END_TEST

/*
 * P3 M1 L4.  Rank 0 keeps 3 in flight, so S = 3.  Rank 2 alternates
 * "1 -1": gradient frames of consecutive microbatches conflict, and with
 * three slots they close a triangle that no single live set shows (at
 * most two gradient frames are live at once): 3 colours, proven by the
 * clique search.  Apart, the kinds take 60 + 120 bytes; packed as one
 * (nest.c), 160.
 */
START_TEST(m1_gradient_triangle)
{
	struct cgs_schedule *s = make_schedule(3, 1, 3, 4, NULL, 1, 1);
	struct cgs_plan *p;
	const struct cgs_rank_plan *rp;

	set_bytes(s, 0, 10, 20, 30, 40);
	p = plan_ok(s);
	ck_assert_uint_eq(p->slots, 3);
	rp = rank_of(p, 2);
	ck_assert_uint_eq(rp->user_grad_stats.colours, 3);
	ck_assert_uint_eq(rp->user_grad_stats.colour_lower_bound, 3);
	ck_assert_uint_eq(rp->user_grad_stats.lower_bound_bytes, 80);
	ck_assert_uint_eq(rp->saved_stats.colours, 1);
	ck_assert_int_eq(rp->joint, 1);
	ck_assert_uint_eq(rp->n_nested, 3);
	ck_assert_uint_eq(rp->user_grad_stats.bytes, 0);
	ck_assert_uint_eq(rp->saved_stats.bytes, 160);
	ck_assert_uint_eq(rp->bytes, 160);
	rp = rank_of(p, 0);
	ck_assert_uint_eq(rp->saved_stats.colours, 3);
	ck_assert_uint_eq(rp->saved_stats.bytes, 180);
	cgs_plan_destroy(&p);
	free_schedule(s);
}
END_TEST

/*
 * P4 M8 G3 L24, one layer per chunk, two variants (the bench family's q36
 * in KiB).  On rank 1, 41 of its 56 gradient frames find holes in the
 * saved arena; the other 15 took three colours laid out first fit in the
 * order of their old offsets, as many as before nesting, so nothing was
 * kept.  Their conflicts need two: laid out again by the packing engine
 * (nest.c) they take 2 x 28 KiB, and the nesting stands.
 */
START_TEST(nest_rest_packed_again)
{
	struct cgs_schedule *s = make_schedule(4, 8, 3, 24, NULL, 256, 2);
	struct cgs_plan *p;
	const struct cgs_rank_plan *rp;

	set_bytes(s, 0, 16 << 10, 16 << 10, 320 << 10, 16 << 10);
	set_bytes(s, 1, 28 << 10, 28 << 10, 560 << 10, 28 << 10);
	p = plan_ok(s);
	rp = rank_of(p, 1);
	ck_assert_uint_eq(rp->user_grad_stats.colour_lower_bound, 2);
	ck_assert_uint_eq(rp->n_nested, 41);
	ck_assert_int_eq(rp->joint, 0);
	ck_assert_uint_eq(rp->user_grad_stats.bytes, 2 * (28u << 10));
	ck_assert_uint_eq(rp->bytes, rp->saved_stats.bytes + 2 * (28u << 10));
	cgs_plan_destroy(&p);
	free_schedule(s);
}
END_TEST

/* M = 1, P = 1, L = 1 with one layer: the smallest plan there is. */
START_TEST(m1_single)
{
	struct cgs_schedule *s = make_schedule(2, 1, 2, 1, NULL, 8, 1);
	struct cgs_plan *p;

	set_bytes(s, 0, 1, 2, 3, 4);
	p = plan_ok(s);
	ck_assert_uint_eq(p->slots, 1);
	expect_rank(p, &(struct expect){0, 1, 1, 1, 1, 1, 1, 24, 8, 32, 32});
	expect_rank(p, &(struct expect){1, 1, 1, 1, 1, 1, 1, 24, 8, 32, 32});
	cgs_plan_destroy(&p);
	free_schedule(s);
}
END_TEST

/*
 * Lockstep capture: variant 0 is cp 2, variant 1 cp 1, so variant 1 goes
 * first; forward layers in order, backward reversed.
 */
START_TEST(capture_order)
{
	static const uint32_t layers[] = {2};
	static const uint32_t want[] = {4, 6, 0, 2, 7, 5, 3, 1};
	struct cgs_schedule *s = make_schedule(1, 1, 1, 1, layers, 1, 2);
	struct cgs_plan *p;
	uint32_t i;

	s->variants[0].cp = 2;
	s->variants[1].cp = 1;
	set_bytes(s, 0, 1, 1, 1, 1);
	set_bytes(s, 1, 1, 1, 1, 1);
	p = plan_ok(s);
	ck_assert_uint_eq(p->ranks[0].n_graphs, 8);
	for (i = 0; i < 8; i++)
		ck_assert_uint_eq(p->ranks[0].capture[i], want[i]);
	cgs_plan_destroy(&p);
	free_schedule(s);
}
END_TEST

/* Explicit orders replace Megatron's; malformed ones name the entry. */
START_TEST(explicit_orders)
{
	static const int32_t two[] = {1, 1, -1, -1};
	static const int32_t bad[] = {1, -1, -1, 1};
	struct cgs_schedule *s = make_schedule(1, 1, 1, 2, NULL, 1, 1);
	struct cgs_error err = {0};
	struct cgs_plan *p;

	set_bytes(s, 0, 1, 1, 1, 1);
	add_order(s, 0, 2, two, 4);
	p = plan_ok(s);
	ck_assert_uint_eq(p->slots, 2);
	ck_assert_uint_eq(p->ranks[0].n_reachable, 1);
	ck_assert_uint_eq(p->ranks[0].saved_stats.colours, 2);
	cgs_plan_destroy(&p);
	memcpy(s->orders[0].entries, bad, sizeof(bad));
	ck_assert_int_eq(cgs_plan_create(s, NULL, &p, &err), CGS_E_ORDER);
	ck_assert_msg(strstr(err.message, "entry 2") &&
		      strstr(err.message, "rank 0"), "%s", err.message);
	ck_assert_uint_eq(err.line, 7);
	free_schedule(s);
}
END_TEST

/*
 * Liveness replays a shorter order only from its last forward where it
 * is the longest order up to there (liveness.c).  Here the shorter order
 * (N 2) starts otherwise: its two microbatches live together, which the
 * longest (one at a time) never has, so the ring is 2 and the two slots
 * conflict (two colours, a bound of two frames).  With N 2 as the longest
 * order's prefix instead, only one frame is ever live.
 */
START_TEST(orders_not_prefixes)
{
	static const int32_t longest[] = {1, -1, 1, -1, 1, -1};
	static const int32_t apart[] = {1, 1, -1, -1};
	static const int32_t prefix[] = {1, -1, 1, -1};
	struct cgs_schedule *s = make_schedule(1, 1, 1, 3, NULL, 1, 1);
	struct cgs_plan *p;

	set_bytes(s, 0, 0, 0, 1000, 10);
	add_order(s, 0, 3, longest, 6);
	add_order(s, 0, 2, apart, 4);
	p = plan_ok(s);
	ck_assert_uint_eq(p->slots, 2);
	ck_assert_uint_eq(p->ranks[0].n_reachable, 2);
	ck_assert_uint_eq(p->ranks[0].saved_stats.colours, 2);
	ck_assert_uint_eq(p->ranks[0].saved_stats.lower_bound_bytes, 2000);
	cgs_plan_destroy(&p);
	memcpy(s->orders[1].entries, prefix, sizeof(prefix));
	p = plan_ok(s);
	ck_assert_uint_eq(p->ranks[0].saved_stats.colours, 1);
	ck_assert_uint_eq(p->ranks[0].saved_stats.lower_bound_bytes, 1000);
	cgs_plan_destroy(&p);
	free_schedule(s);
}
END_TEST

/*
 * The rest of a shorter order after its last forward is replayed: here
 * N 1 is the longest order (two chunks, N 2) up to its forwards, then
 * runs its backwards chunk 2 first, chunk 1 next.  Those two gradient
 * frames, (2, 0) and (1, 0), follow each other in no other order; with
 * (2, 0)-(2, 1) and (2, 1)-(1, 0) from the longest order they make a
 * triangle: three gradient colours, where the longest order alone needs
 * two.
 */
START_TEST(order_rest_after_forwards)
{
	static const int32_t longest[] = {1, 2, 1, 2, -2, -2, -1, -1};
	static const int32_t rest[] = {1, 2, -2, -1};
	struct cgs_schedule *s = make_schedule(1, 2, 1, 2, NULL, 1, 1);
	struct cgs_plan *p;

	set_bytes(s, 0, 0, 0, 1000, 10);
	add_order(s, 0, 2, longest, 8);
	p = plan_ok(s);
	ck_assert_uint_eq(p->slots, 2);
	ck_assert_uint_eq(p->ranks[0].user_grad_stats.colours, 2);
	cgs_plan_destroy(&p);
	add_order(s, 0, 1, rest, 4);
	p = plan_ok(s);
	ck_assert_uint_eq(p->ranks[0].n_reachable, 2);
	ck_assert_uint_eq(p->ranks[0].user_grad_stats.colours, 3);
	cgs_plan_destroy(&p);
	free_schedule(s);
}
END_TEST

/*
 * The checker follows a plan's slot map: a rotation on one chunk keeps
 * the ring's live windows (accepted); two live microbatches on one slot,
 * or a slot outside the ring, are refused.
 */
START_TEST(checker_follows_slot_map)
{
	struct cgs_schedule *s = make_schedule(4, 1, 4, 16, NULL, 256, 2);
	struct cgs_rank_plan *rp;
	struct cgs_plan *p;
	uint32_t r, i, k, width, last;
	char msg[512];

	set_bytes(s, 0, 1024, 1024, 4096, 512);
	set_bytes(s, 1, 2048, 2048, 8192, 1024);
	p = plan_ok(s);
	for (r = 0; r < p->n_ranks; r++) {
		rp = &p->ranks[r];
		width = rp->reachable[rp->n_reachable - 1];
		rp->slot_map = calloc((size_t)rp->n_reachable * width,
				      sizeof(uint32_t));
		for (i = 0; i < rp->n_reachable; i++)
			for (k = 0; k < rp->reachable[i]; k++)
				rp->slot_map[i * width + k] = (k + 1) % rp->slots;
	}
	ck_assert_msg(cgs_plan_check(s, p, msg, sizeof(msg)) == 0, "%s", msg);
	rp = &p->ranks[0];
	width = rp->reachable[rp->n_reachable - 1];
	last = rp->n_reachable - 1;
	rp->slot_map[last * width + 1] = rp->slot_map[last * width];
	ck_assert_int_ne(cgs_plan_check(s, p, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "are live together in slot"), "%s", msg);
	rp->slot_map[last * width + 1] = rp->slots;
	ck_assert_int_ne(cgs_plan_check(s, p, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "outside the ring"), "%s", msg);
	cgs_plan_destroy(&p);
	free_schedule(s);
}
END_TEST

START_TEST(frame_limit)
{
	struct cgs_schedule *s = make_schedule(4, 1, 4, 8, NULL, 1, 1);
	struct cgs_plan_options opt;
	struct cgs_error err = {0};
	struct cgs_plan *p = NULL;

	set_bytes(s, 0, 1, 1, 1, 1);
	cgs_plan_options_init(&opt);
	opt.max_frames = 3;  /* needs 4 */
	ck_assert_int_eq(cgs_plan_create(s, &opt, &p, &err), CGS_E_LIMIT);
	ck_assert_msg(strstr(err.message, "frames"), "%s", err.message);
	opt.max_frames = 4;
	ck_assert_int_eq(cgs_plan_create(s, &opt, &p, &err), 0);
	cgs_plan_destroy(&p);
	cgs_plan_destroy(&p);  /* NULL is fine */
	/* past what the planner's matrices allow, whatever the limit says */
	s->slots = CGS_PLAN_MAX_FRAMES + 1;
	opt.max_frames = 0;
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(cgs_plan_create(s, &opt, &p, &err), CGS_E_LIMIT);
	ck_assert_msg(strstr(err.message, "at most 65536"), "%s", err.message);
	free_schedule(s);
}
END_TEST

/* The checker must catch a plan whose live frames share bytes. */
START_TEST(checker_catches_overlap)
{
	static const uint32_t layers[] = {2, 2};
	struct cgs_schedule *s = make_schedule(4, 2, 4, 4, layers, 512, 1);
	struct cgs_plan *p;
	char msg[512];

	set_bytes(s, 0, 1000, 1000, 3000, 500);
	p = plan_ok(s);
	/* rank 0: every frame is live at once; move frame 1 onto frame 0 */
	p->ranks[0].saved[1].offset = p->ranks[0].saved[0].offset;
	ck_assert_int_ne(cgs_plan_check(s, p, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "overlap in bytes"), "%s", msg);
	p->ranks[0].saved[1].offset = p->ranks[0].saved[0].offset + 512;
	ck_assert_int_ne(cgs_plan_check(s, p, msg, sizeof(msg)), 0);
	cgs_plan_destroy(&p);

	/* gradient frames of consecutive backwards sharing bytes */
	p = plan_ok(s);
	p->ranks[0].user_grad[1].offset = p->ranks[0].user_grad[0].offset;
	ck_assert_int_ne(cgs_plan_check(s, p, msg, sizeof(msg)), 0);
	cgs_plan_destroy(&p);

	/* roles inside one frame, and layer gradients inside one frame */
	p = plan_ok(s);
	p->ranks[0].saved_roles[2].offset = 0;
	ck_assert_int_ne(cgs_plan_check(s, p, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "roles 0 and 2 overlap"), "%s", msg);
	cgs_plan_destroy(&p);
	p = plan_ok(s);
	p->ranks[0].user_grad_layers[1].offset = 0;
	ck_assert_int_ne(cgs_plan_check(s, p, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "gradients of layers 0 and 1"), "%s", msg);
	cgs_plan_destroy(&p);
	free_schedule(s);
}
END_TEST

/*
 * P4 M2 G4 L16, three layers per chunk: every rank shares the ring of 8
 * that rank 0 needs, but rank 3 never has more than 5 microbatches of a
 * chunk in flight; its slot map takes strictly fewer bytes than k mod 8,
 * and the checker proves it safe.  Returns the plan with maps.
 */
static struct cgs_plan *plan_with_maps(const struct cgs_schedule *s,
				       const struct cgs_plan *plain)
{
	struct cgs_plan_options opt;
	struct cgs_error err = {0};
	struct cgs_plan *p = NULL;
	char msg[512];

	cgs_plan_options_init(&opt);
	opt.slot_maps = 1;
	ck_assert_msg(cgs_plan_create(s, &opt, &p, &err) == 0, "plan: %s",
		      err.message);
	ck_assert_msg(cgs_plan_check(s, p, msg, sizeof(msg)) == 0, "check: %s",
		      msg);
	ck_assert_uint_eq(p->slots, plain->slots);
	return p;
}

/* Rows of a rank's slot map per count (plan.h). */
static uint32_t map_rows(const struct cgs_rank_plan *rp)
{
	return rp->slot_map_rows > 1 ? rp->slot_map_rows : 1;
}

START_TEST(slot_map_saves_bytes)
{
	static const uint32_t layers[] = {3, 3};
	struct cgs_schedule *s = make_schedule(4, 2, 4, 16, layers, 256, 2);
	struct cgs_plan *plain, *p;
	const struct cgs_rank_plan *rp, *kp;
	uint32_t o, k, width;

	set_bytes(s, 0, 1000, 1000, 3000, 500);
	set_bytes(s, 1, 2000, 2000, 5000, 900);
	plain = plan_ok(s);
	ck_assert_uint_eq(plain->slots, 8);
	ck_assert_ptr_null(rank_of(plain, 3)->slot_map);
	p = plan_with_maps(s, plain);
	rp = rank_of(p, 3);
	kp = rank_of(plain, 3);
	ck_assert_ptr_nonnull(rp->slot_map);
	ck_assert_uint_lt(rp->bytes, kp->bytes);
	ck_assert_uint_eq(rp->lower_bound_bytes, kp->lower_bound_bytes);
	ck_assert_uint_eq(rp->n_graphs, kp->n_graphs);
	width = rp->reachable[rp->n_reachable - 1];
	for (o = 0; o < rp->n_reachable * map_rows(rp); o++)
		for (k = 0; k < width; k++)
			ck_assert_uint_lt(rp->slot_map[o * width + k], rp->slots);
	cgs_plan_destroy(&p);
	cgs_plan_destroy(&plain);
	free_schedule(s);
}
END_TEST

/*
 * A slot map's shorter order takes the longest order's slots for its
 * forwards, but not where a slot barred in one is free in the other.
 * Both orders run chunk 1's microbatch 1 right after its microbatch 0's
 * backward; the longest runs chunk 2's backward next, N 2 chunk 1's:
 * there microbatch 1 must not take microbatch 0's slot, whose gradient
 * frame is still being sent.  (The look-ahead map once copied the
 * longest order's slots regardless: the plan failed its own check.)
 */
START_TEST(slot_map_barred_in_shorter_order)
{
	static const int32_t longest[] = {1, -1, 1, 2, 2, -2,
					  1, 2, -1, -2, -1, -2};
	static const int32_t shorter[] = {1, -1, 1, 2, 2, -1, -2, -2};
	struct cgs_schedule *s = make_schedule(1, 2, 1, 3, NULL, 1, 1);
	struct cgs_plan *plain, *p;

	set_bytes(s, 0, 0, 0, 1000, 10);
	add_order(s, 0, 3, longest, 12);
	add_order(s, 0, 2, shorter, 8);
	plain = plan_ok(s);
	p = plan_with_maps(s, plain);
	ck_assert_uint_le(p->ranks[0].bytes, plain->ranks[0].bytes);
	cgs_plan_destroy(&p);
	cgs_plan_destroy(&plain);
	free_schedule(s);
}
END_TEST

/*
 * Uniform frames, P 4, M 2: at the smallest ring (8), rank 2 never has
 * more than 7 microbatches of both chunks in flight, but k mod S (and any
 * map shared by both chunks) keeps each chunk's slots busy through its
 * troughs.  A map per chunk that gives each forward the lowest slot no
 * other microbatch holds lets the chunks take turns: the rank's saved
 * frames reach their lower bound with no extra graphs.  The checker then catches the
 * same map with one chunk's row made unsafe.
 */
START_TEST(chunk_map_reaches_bound)
{
	static const uint32_t layers[] = {2, 2};
	struct cgs_schedule *s = make_schedule(4, 2, 4, 16, layers, 256, 2);
	struct cgs_plan *plain, *p;
	struct cgs_rank_plan *rp;
	const struct cgs_rank_plan *kp;
	uint32_t width, row, k, c;
	char msg[512];

	set_bytes(s, 0, 1024, 1024, 4096, 512);
	set_bytes(s, 1, 2048, 2048, 8192, 1024);
	plain = plan_ok(s);
	p = plan_with_maps(s, plain);
	rp = &p->ranks[2];
	kp = rank_of(plain, 2);
	ck_assert_uint_gt(kp->bytes, kp->lower_bound_bytes);
	ck_assert_ptr_nonnull(rp->slot_map);
	ck_assert_uint_eq(rp->slot_map_rows, 2);
	/*
	 * saved frames at their bound; the gradient frames of consecutive
	 * backwards may take a third colour in the union of the orders
	 */
	ck_assert_uint_eq(rp->saved_stats.bytes,
			  rp->saved_stats.lower_bound_bytes);
	ck_assert_uint_lt(rp->bytes, kp->bytes);
	ck_assert_uint_eq(rp->n_graphs, kp->n_graphs);
	/* the chunks' rows differ somewhere: no map shared by both would do */
	width = rp->reachable[rp->n_reachable - 1];
	row = (rp->n_reachable - 1) * 2 * width;
	for (k = 0; k < width; k++)
		if (rp->slot_map[row + k] != rp->slot_map[row + width + k])
			break;
	ck_assert_uint_lt(k, width);

	/*
	 * chunk 1's microbatches 0 and 1 in one slot: rank 2 runs both
	 * forwards before chunk 1's first backward
	 */
	c = 1;
	rp->slot_map[row + c * width + 1] = rp->slot_map[row + c * width];
	ck_assert_int_ne(cgs_plan_check(s, p, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "live together in slot"), "%s", msg);
	cgs_plan_destroy(&p);
	cgs_plan_destroy(&plain);
	free_schedule(s);
}
END_TEST

/*
 * Uniform frames, P 4, M 4, L 24, a ring of 16: every rank has more
 * microbatches of all chunks in flight than 16, so slot s of two chunks
 * is live at once somewhere, and neither k mod S nor a lowest-free map
 * that keeps slot numbers apart reaches the bound.  The map whose slots
 * stand for colours shared by the chunks (each chunk's slot s keeps one
 * colour, a forward takes a slot whose colour no live microbatch holds)
 * takes every rank's saved frames to their bound, and the same map with
 * a gradient parity per slot takes ranks 1 to 3 to the whole bound.
 */
START_TEST(colour_map_reaches_bound)
{
	struct cgs_schedule *s = make_schedule(4, 4, 4, 24, NULL, 256, 2);
	struct cgs_plan *plain, *p;
	uint32_t i;

	set_bytes(s, 0, 1024, 1024, 20480, 1024);
	set_bytes(s, 1, 1792, 1792, 35840, 1792);
	s->slots = 16;
	plain = plan_ok(s);
	p = plan_with_maps(s, plain);
	for (i = 0; i < p->n_ranks; i++) {
		const struct cgs_rank_plan *rp = &p->ranks[i];

		ck_assert_msg(rp->saved_stats.bytes ==
			      rp->saved_stats.lower_bound_bytes,
			      "rank %u: saved %llu, bound %llu", rp->rank,
			      (unsigned long long)rp->saved_stats.bytes,
			      (unsigned long long)rp->saved_stats.lower_bound_bytes);
		ck_assert_ptr_nonnull(rp->slot_map);
		/* a row per chunk, or one all chunks share */
		ck_assert(rp->slot_map_rows == 4 || rp->slot_map_rows == 1);
		ck_assert_uint_le(rp->bytes, rank_of(plain, rp->rank)->bytes);
		/*
		 * ranks 1-3: the parity map keeps the gradient frames to two
		 * colours too, and the whole rank reaches its bound
		 */
		if (rp->rank > 0)
			ck_assert_msg(rp->bytes == rp->lower_bound_bytes,
				      "rank %u: %llu bytes, bound %llu "
				      "(gradient colours %u)", rp->rank,
				      (unsigned long long)rp->bytes,
				      (unsigned long long)rp->lower_bound_bytes,
				      rp->user_grad_stats.colours);
		/* as many colours as frames live at once: the clique */
		ck_assert_uint_eq(rp->saved_stats.colours,
				  rp->saved_stats.colour_lower_bound);
	}
	cgs_plan_destroy(&p);
	cgs_plan_destroy(&plain);
	free_schedule(s);
}
END_TEST

/* A pipeline planned with and without slot maps, for the map tests. */
struct map_try {
	struct cgs_schedule *s;
	struct cgs_plan *plain, *maps;
};

/*
 * Plan P pp, M vpp, G group, L max_mb (layers per chunk, NULL for one)
 * with two variants, without and with slot maps; rank `rank` of the
 * second, which must have taken a map.
 */
static const struct cgs_rank_plan *
map_try_rank(struct map_try *t, uint32_t pp, uint32_t vpp, uint32_t group,
	     uint32_t max_mb, const uint32_t *layers, uint32_t rank)
{
	const struct cgs_rank_plan *rp;

	t->s = make_schedule(pp, vpp, group, max_mb, layers, 256, 2);
	set_bytes(t->s, 0, 1024, 1024, 20480, 1024);
	set_bytes(t->s, 1, 1792, 1792, 35840, 1792);
	t->plain = plan_ok(t->s);
	t->maps = plan_with_maps(t->s, t->plain);
	rp = rank_of(t->maps, rank);
	ck_assert_ptr_nonnull(rp->slot_map);
	return rp;
}

static void map_try_release(struct map_try *t)
{
	cgs_plan_destroy(&t->maps);
	cgs_plan_destroy(&t->plain);
	free_schedule(t->s);
}

/*
 * P 8, M 2, 4 layers, L 32: rank 3 has 17 microbatches in flight at its
 * peak on a ring of 16, and chunk 0 fills the ring while one microbatch
 * of chunk 1 is live, at two instants of the longest order with
 * microbatches 8 and 15 of chunk 1 live together between them.  Both
 * need a colour outside chunk 0's 16, so no map with a colour per slot
 * reaches 17 colours; 18 is the floor.  Taking the lowest free colour
 * the maps plan k mod S (24 colours, 1.41 x the bound); keeping chunk
 * 1's microbatches off the colours of a chunk about to fill its ring
 * (the look-ahead map) takes 19.
 */
START_TEST(ahead_map_keeps_full_chunk_apart)
{
	const uint32_t layers[] = {4, 4};
	struct map_try t;
	const struct cgs_rank_plan *rp =
		map_try_rank(&t, 8, 2, 8, 32, layers, 3);

	ck_assert_uint_eq(t.plain->slots, 16);
	/* colours of frames: 4 layers a microbatch */
	ck_assert_uint_eq(rank_of(t.plain, 3)->saved_stats.colours, 24 * 4);
	ck_assert_uint_le(rp->saved_stats.colours, 19 * 4);
	/* within 12% of the bound, from 41% */
	ck_assert_uint_le(rp->bytes * 100, rp->lower_bound_bytes * 112);
	map_try_release(&t);
}
END_TEST

/*
 * P 12, M 2, L 96: rank 5 has 25 microbatches in flight at its peak on a
 * ring of 24.  Avoiding only the colours of a chunk within a few slots
 * of a full ring, the look-ahead map still leaves chunk 1 on colours
 * chunk 0 needs as its load climbs, and plans 36 colours like k mod S;
 * counting the live holders of chunk 0's colours against its load (the
 * second rule) plans 32.
 */
START_TEST(ahead_map_counts_holders)
{
	struct map_try t;
	const struct cgs_rank_plan *rp =
		map_try_rank(&t, 12, 2, 12, 96, NULL, 5);

	ck_assert_uint_eq(t.plain->slots, 24);
	ck_assert_uint_eq(rank_of(t.plain, 5)->saved_stats.colours, 36);
	ck_assert_uint_le(rp->saved_stats.colours, 32);
	map_try_release(&t);
}
END_TEST

/*
 * P 6, M 2, G 3, L 48, rank 2: the look-ahead map takes the saved frames
 * to 11 colours, but its slots' gradient frames meet in odd cycles and
 * take 4 colours; with slots keeping the parity of their first
 * microbatch's backward, as the parity map's do, they take 3.
 */
START_TEST(ahead_map_keeps_parity)
{
	struct map_try t;
	const struct cgs_rank_plan *rp = map_try_rank(&t, 6, 2, 3, 48, NULL, 2);

	ck_assert_uint_le(rp->saved_stats.colours, 11);
	ck_assert_uint_le(rp->user_grad_stats.colours, 3);
	map_try_release(&t);
}
END_TEST

/*
 * P 4, M 8, G 3, L 12, rank 0: 28 microbatches in flight at the peak on
 * a ring of 7.  Every map before the teams rule plans 33 colours; split
 * into teams of chunks that take turns, each with a pool of colours as
 * large as its joint peak, rank 0 takes 31.
 */
START_TEST(teams_map_shares_pools)
{
	struct map_try t;
	const struct cgs_rank_plan *rp = map_try_rank(&t, 4, 8, 3, 12, NULL, 0);

	ck_assert_uint_eq(t.plain->slots, 7);
	ck_assert_uint_le(rp->saved_stats.colours, 31);
	map_try_release(&t);
}
END_TEST

/*
 * P 6, M 4, G 3, L 24, rank 5: the teams map takes the saved frames to
 * 11 colours and its gradient frames to 3; with slots keeping the parity
 * of their first microbatch's backward, 2.
 */
START_TEST(teams_map_keeps_parity)
{
	struct map_try t;
	const struct cgs_rank_plan *rp = map_try_rank(&t, 6, 4, 3, 24, NULL, 5);

	ck_assert_uint_le(rp->saved_stats.colours, 11);
	ck_assert_uint_le(rp->user_grad_stats.colours, 2);
	map_try_release(&t);
}
END_TEST

/*
 * P 12, M 8, L 48, rank 11: 85 microbatches in flight on a ring of 24,
 * three chunks fill it while three others drain.  Teams within the
 * ring leave the map at 96 colours, as k mod S; pairs of a filling and a
 * draining chunk, whose joint peak is past the ring, take 94.
 */
START_TEST(teams_map_past_the_ring)
{
	struct map_try t;
	const struct cgs_rank_plan *rp =
		map_try_rank(&t, 12, 8, 12, 48, NULL, 11);

	ck_assert_uint_eq(t.plain->slots, 24);
	ck_assert_uint_eq(rank_of(t.plain, 11)->saved_stats.colours, 96);
	ck_assert_uint_le(rp->saved_stats.colours, 94);
	map_try_release(&t);
}
END_TEST

/* Give variant v's first layer of every chunk `saved` bytes. */
static void override_first_layer(struct cgs_schedule *s, uint32_t v,
				 uint64_t saved)
{
	struct cgs_override *o = calloc(1, sizeof(*o));

	ck_assert_ptr_nonnull(o);
	o->rank = -1;
	o->chunk = -1;
	o->layer = 0;
	o->mask = 1u << CGS_ROLE_SAVED;
	o->bytes.role[CGS_ROLE_SAVED] = saved;
	s->variants[v].overrides = o;
	s->variants[v].n_overrides = 1;
}

/*
 * What every variant alone would take: a variant whose bytes scale
 * another's by 3/2 or 2 takes that one's figure scaled, so three
 * variants of A, 3/2 A and 2 A take 9/2 times A alone, on every rank.
 */
START_TEST(yardstick_of_scaled_variants)
{
	static const uint32_t layers[] = {3, 2};
	static const uint64_t saved[] = {3072, 4608, 6144},
			      first[] = {5120, 7680, 10240},
			      grad[] = {512, 768, 1024};
	struct cgs_schedule *one = make_schedule(4, 2, 4, 16, layers, 256, 1),
			    *three = make_schedule(4, 2, 4, 16, layers, 256, 3);
	struct cgs_plan *p1, *p3;
	uint32_t v, i;

	set_bytes(one, 0, grad[0], grad[0], saved[0], grad[0]);
	override_first_layer(one, 0, first[0]);
	for (v = 0; v < 3; v++) {
		set_bytes(three, v, grad[v], grad[v], saved[v], grad[v]);
		override_first_layer(three, v, first[v]);
	}
	p1 = plan_ok(one);
	p3 = plan_ok(three);
	for (i = 0; i < p3->n_ranks; i++) {
		uint64_t alone = p1->ranks[i].bytes_without_sharing;

		ck_assert_uint_gt(alone, 0);
		ck_assert_msg(2 * p3->ranks[i].bytes_without_sharing ==
			      9 * alone, "rank %u: %llu for three, %llu for one",
			      i, (unsigned long long)
			      p3->ranks[i].bytes_without_sharing,
			      (unsigned long long)alone);
	}
	cgs_plan_destroy(&p1);
	cgs_plan_destroy(&p3);
	free_schedule(one);
	free_schedule(three);
}
END_TEST

/* The checker must catch a slot map that puts live microbatches together. */
START_TEST(checker_catches_unsafe_map)
{
	static const uint32_t layers[] = {3, 3};
	struct cgs_schedule *s = make_schedule(4, 2, 4, 16, layers, 256, 2);
	struct cgs_plan *plain, *p;
	struct cgs_rank_plan *rp;
	uint32_t width, last, k;
	char msg[512];

	set_bytes(s, 0, 1000, 1000, 3000, 500);
	set_bytes(s, 1, 2000, 2000, 5000, 900);
	plain = plan_ok(s);
	p = plan_with_maps(s, plain);
	rp = &p->ranks[3];
	width = rp->reachable[rp->n_reachable - 1];
	/* the largest count's row, chunk 0's where the map has one per chunk */
	last = (rp->n_reachable - 1) * map_rows(rp) * width;
	/* rank 3 runs chunk 1's forwards of microbatches 0..3 first */
	rp->slot_map[last + 1] = rp->slot_map[last];
	ck_assert_int_ne(cgs_plan_check(s, p, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "live together in slot"), "%s", msg);
	cgs_plan_destroy(&p);

	/* a slot outside the ring */
	p = plan_with_maps(s, plain);
	p->ranks[3].slot_map[0] = p->ranks[3].slots;
	ck_assert_int_ne(cgs_plan_check(s, p, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "outside the ring"), "%s", msg);
	cgs_plan_destroy(&p);

	/*
	 * k mod S on the layout made for the map: safe slots, but frames
	 * the map kept apart in time now overlap in bytes
	 */
	p = plan_with_maps(s, plain);
	rp = &p->ranks[3];
	for (k = 0; k < rp->n_reachable * map_rows(rp) * width; k++)
		rp->slot_map[k] = k % width % rp->slots;
	ck_assert_int_ne(cgs_plan_check(s, p, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "overlap") || strstr(msg, "share colour"),
		      "%s", msg);
	cgs_plan_destroy(&p);
	cgs_plan_destroy(&plain);
	free_schedule(s);
}
END_TEST

/* ---- graph algorithms ------------------------------------------------- */

static void add_edge(struct cgs_graph *g, uint32_t a, uint32_t b)
{
	cgs_bit_set(cgs_graph_row(g, a), b);
	cgs_bit_set(cgs_graph_row(g, b), a);
}

static void assert_proper(const struct cgs_graph *g, const uint32_t *col)
{
	uint32_t a, b;

	for (a = 0; a < g->n; a++)
		for (b = 0; b < g->n; b++)
			if (cgs_graph_edge(g, a, b))
				ck_assert_uint_ne(col[a], col[b]);
}

START_TEST(exact_colouring_improves)
{
	struct cgs_graph g;
	uint32_t col[6] = {0, 1, 2, 3, 4, 0}, i;
	uint64_t budget = 1000;
	int proven;

	/* a 6-cycle is bipartite; start from a wasteful 5-colouring */
	ck_assert_int_eq(cgs_graph_init(&g, 6), 0);
	for (i = 0; i < 6; i++)
		add_edge(&g, i, (i + 1) % 6);
	ck_assert_int_eq(cgs_colour_exact(&g, 2, 5, col, &budget, &proven), 2);
	ck_assert_int_eq(proven, 1);
	assert_proper(&g, col);
	ck_assert_int_eq(cgs_colour_dsatur(&g, col), 2);
	/* a budget of nothing changes nothing */
	budget = 0;
	for (i = 0; i < 6; i++)
		col[i] = i;
	ck_assert_int_eq(cgs_colour_exact(&g, 2, 6, col, &budget, &proven), 6);
	ck_assert_int_eq(proven, 0);
	ck_assert_uint_eq(col[5], 5);
	cgs_graph_release(&g);
	/*
	 * a 5-cycle needs 3 colours though its largest clique is 2: the
	 * search closes every branch and says 3 is optimal
	 */
	ck_assert_int_eq(cgs_graph_init(&g, 5), 0);
	for (i = 0; i < 5; i++) {
		add_edge(&g, i, (i + 1) % 5);
		col[i] = i % 2;
	}
	col[4] = 2;
	budget = 1000;
	ck_assert_int_eq(cgs_colour_exact(&g, 2, 3, col, &budget, &proven), 3);
	ck_assert_int_eq(proven, 1);
	ck_assert_uint_gt(budget, 0);
	cgs_graph_release(&g);
}
END_TEST

START_TEST(tabu_colouring)
{
	struct cgs_graph g;
	uint32_t col[12], before[12], i, a, b;
	uint64_t budget = 5000;

	/*
	 * a 12-cycle with chords i -- i+2 (even i) has triangles and needs
	 * 3 colours; start from 12 and ask for 3: colours from 3 up are
	 * drawn anew
	 */
	ck_assert_int_eq(cgs_graph_init(&g, 12), 0);
	for (i = 0; i < 12; i++)
		add_edge(&g, i, (i + 1) % 12);
	for (i = 0; i < 12; i += 2)
		add_edge(&g, i, (i + 2) % 12);
	for (i = 0; i < 12; i++)
		col[i] = i;
	ck_assert_int_eq(cgs_colour_tabu(&g, 3, col, &budget), 1);
	assert_proper(&g, col);
	for (i = 0; i < 12; i++)
		ck_assert_uint_lt(col[i], 3);
	ck_assert_uint_gt(budget, 0);
	/*
	 * 2 colours are impossible (0, 1, 2 is a triangle): the budget is
	 * spent and the colouring left as it was
	 */
	ck_assert_int_eq(cgs_graph_edge(&g, 0, 2), 1);
	memcpy(before, col, sizeof(col));
	budget = 300;
	ck_assert_int_eq(cgs_colour_tabu(&g, 2, col, &budget), 0);
	ck_assert_uint_eq(budget, 0);
	ck_assert_mem_eq(col, before, sizeof(col));
	cgs_graph_release(&g);
	/* a complete graph on 5 vertices needs 5 */
	ck_assert_int_eq(cgs_graph_init(&g, 5), 0);
	for (a = 0; a < 5; a++)
		for (b = a + 1; b < 5; b++)
			add_edge(&g, a, b);
	for (i = 0; i < 5; i++)
		col[i] = i;
	budget = 100;
	ck_assert_int_eq(cgs_colour_tabu(&g, 4, col, &budget), 0);
	budget = 100;
	ck_assert_int_eq(cgs_colour_tabu(&g, 5, col, &budget), 1);
	cgs_graph_release(&g);
}
END_TEST

START_TEST(clique_search)
{
	struct cgs_graph g;
	uint32_t col[12], a, b;
	uint32_t weight[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	uint64_t budget = 10000;

	/* a 5-cycle plus a hidden 4-clique on 7..10 */
	ck_assert_int_eq(cgs_graph_init(&g, 12), 0);
	for (a = 0; a < 5; a++)
		add_edge(&g, a, (a + 1) % 5);
	for (a = 7; a < 11; a++)
		for (b = a + 1; b < 11; b++)
			add_edge(&g, a, b);
	add_edge(&g, 6, 7);
	add_edge(&g, 11, 0);
	ck_assert_int_eq(cgs_clique_max(&g, NULL, 2, 12, &budget), 4);
	ck_assert_int_eq(cgs_colour_dsatur(&g, col), 4);
	assert_proper(&g, col);
	/* told that 2 colours suffice, it searches nothing */
	budget = 10000;
	ck_assert_int_eq(cgs_clique_max(&g, NULL, 2, 2, &budget), 2);
	ck_assert_uint_eq(budget, 10000);
	/*
	 * the greedy clique costs no budget: by degree it finds 7..10, and
	 * where that meets the upper bound nothing is searched
	 */
	budget = 0;
	ck_assert_int_eq(cgs_clique_max(&g, NULL, 2, 12, &budget), 4);
	budget = 10000;
	ck_assert_int_eq(cgs_clique_max(&g, NULL, 2, 4, &budget), 4);
	ck_assert_uint_eq(budget, 10000);
	/* weighted: vertex 6 (weight 9) and 7 beat the 4-clique of 1s */
	weight[6] = 9;
	budget = 10000;
	ck_assert_int_eq(cgs_clique_max(&g, weight, 2, 100, &budget), 10);
	cgs_graph_release(&g);
}
END_TEST

/* A hub of the highest degree leads the greedy clique astray. */
START_TEST(clique_search_past_greedy)
{
	struct cgs_graph g;
	uint32_t a, b;
	uint64_t budget = 0;

	/* the 5-cycle and the 4-clique 7..10 again, 11 joined to 0..4 and 7 */
	ck_assert_int_eq(cgs_graph_init(&g, 12), 0);
	for (a = 0; a < 5; a++) {
		add_edge(&g, a, (a + 1) % 5);
		add_edge(&g, 11, a);
	}
	for (a = 7; a < 11; a++)
		for (b = a + 1; b < 11; b++)
			add_edge(&g, a, b);
	add_edge(&g, 6, 7);
	add_edge(&g, 11, 7);
	/* greedy alone: 11 (degree 6), then 7, and nothing meets both */
	ck_assert_int_eq(cgs_clique_max(&g, NULL, 1, 12, &budget), 2);
	budget = 10000;
	ck_assert_int_eq(cgs_clique_max(&g, NULL, 1, 12, &budget), 4);
	cgs_graph_release(&g);
}
END_TEST

START_TEST(first_fit)
{
	struct cgs_graph g;
	uint64_t size[4] = {64, 32, 32, 64}, off[4], total;
	uint32_t order[4] = {0, 3, 1, 2};

	/*
	 * 0-1, 1-2 and 2-3 conflict: 0 and 3 share offset 0, 1 goes above
	 * 0, and 2 above both 3 and 1.
	 */
	ck_assert_int_eq(cgs_graph_init(&g, 4), 0);
	add_edge(&g, 0, 1);
	add_edge(&g, 1, 2);
	add_edge(&g, 2, 3);
	ck_assert_int_eq(cgs_pack_first_fit(&g, size, order, off, &total), 0);
	ck_assert_uint_eq(off[0], 0);
	ck_assert_uint_eq(off[3], 0);
	ck_assert_uint_eq(off[1], 64);
	ck_assert_uint_eq(off[2], 96);
	ck_assert_uint_eq(total, 128);
	cgs_graph_release(&g);
}
END_TEST

/* ---- properties over random schedules --------------------------------- */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)((rng_state >> 33) % n);
}

static uint64_t rnd_bytes(void)
{
	static const uint64_t pick[] = {0, 1, 100, 512, 1000, 4096, 6000, 65536};

	return pick[rnd(8)] * (1 + rnd(3));
}

/* Any order that drains: forwards and backwards in random turns. */
static void add_random_order(struct cgs_schedule *s, uint32_t rank, uint32_t n)
{
	uint32_t M = s->vpp, len = 2 * n * M, i = 0, c;
	uint32_t fwd[8] = {0}, bwd[8] = {0};
	int32_t *e = malloc(len * sizeof(*e));

	ck_assert_uint_le(M, 8);
	while (i < len) {
		c = rnd(M);
		if (rnd(2) && fwd[c] < n) {
			fwd[c]++;
			e[i++] = (int32_t)c + 1;
		} else if (bwd[c] < fwd[c]) {
			bwd[c]++;
			e[i++] = -(int32_t)c - 1;
		}
	}
	add_order(s, rank, n, e, len);
	free(e);
}

/* A random small schedule; sizes keep the checker's replay quick. */
static struct cgs_schedule *random_schedule(uint32_t big)
{
	uint32_t pp = 1 + rnd(5 + 3 * big), vpp = 1 + rnd(3 + big), group;
	uint32_t layers[4], n_var = 1 + rnd(3 + big), max_mb, v, i;
	static const uint64_t aligns[] = {1, 8, 256, 512};
	struct cgs_schedule *s;

	for (i = 0; i < 4; i++)
		layers[i] = 1 + rnd(3 + big);
	group = 1 + rnd(pp + 1);
	if (vpp == 1)
		max_mb = 1 + rnd(10 + 14 * big);
	else
		max_mb = group * (1 + rnd(3 + 2 * big));
	s = make_schedule(pp, vpp, group, max_mb, layers, aligns[rnd(4)], n_var);
	for (v = 0; v < n_var; v++) {
		uint32_t n_ov = rnd(3), k;

		set_bytes(s, v, rnd_bytes(), rnd_bytes(), rnd_bytes(), rnd_bytes());
		s->variants[v].overrides = calloc(n_ov + 1, sizeof(struct cgs_override));
		s->variants[v].n_overrides = n_ov;
		for (k = 0; k < n_ov; k++) {
			struct cgs_override *o = &s->variants[v].overrides[k];
			uint32_t r;

			o->rank = rnd(2) ? -1 : (int64_t)rnd(pp);
			o->chunk = rnd(2) ? -1 : (int64_t)rnd(vpp);
			o->layer = rnd(2) ? -1 : (int64_t)rnd(layers[0]);
			o->mask = 1 + rnd(15);
			for (r = 0; r < CGS_ROLE_COUNT; r++)
				o->bytes.role[r] = rnd_bytes();
		}
	}
	/* now and then a rank runs explicit orders: random valid interleavings */
	if (rnd(4) == 0) {
		uint32_t rank = rnd(pp), n_counts = 1 + rnd(2), k;

		for (k = 0; k < n_counts; k++)
			add_random_order(s, rank, 1 + k + rnd(4) + k * 4);
	}
	/* now and then plan only some ranks */
	if (pp > 1 && rnd(4) == 0) {
		s->n_ranks = 1 + rnd(pp - 1);
		for (i = 0; i < s->n_ranks; i++)
			s->ranks[i] = i + (pp - s->n_ranks);
	}
	return s;
}

/* Slot maps taken by the property tests: they must not all be k mod S. */
static uint32_t maps_taken;
/* The slow sweep checks maps on fewer cases, to keep its time. */
static int big_sweep;

/* Two plans are the same, frame by frame and graph by graph. */
static void assert_same_plan(const struct cgs_plan *p,
			     const struct cgs_plan *q)
{
	uint32_t r;

	ck_assert_uint_eq(p->slots, q->slots);
	ck_assert_uint_eq(p->n_trials, q->n_trials);
	for (r = 0; r < p->n_trials; r++) {
		const struct cgs_ring_trial *a = &p->trials[r], *b = &q->trials[r];

		ck_assert_uint_eq(a->rank, b->rank);
		ck_assert_uint_eq(a->slots, b->slots);
		ck_assert_uint_eq(a->graphs, b->graphs);
		ck_assert_uint_eq(a->bytes, b->bytes);
		ck_assert_uint_eq(a->bytes_colour_arenas, b->bytes_colour_arenas);
		ck_assert_uint_eq(a->lower_bound_bytes, b->lower_bound_bytes);
		ck_assert_int_eq(a->chosen, b->chosen);
	}
	for (r = 0; r < p->n_ranks; r++) {
		const struct cgs_rank_plan *a = &p->ranks[r], *b = &q->ranks[r];

		ck_assert_uint_eq(a->slots, b->slots);
		ck_assert_uint_eq(a->n_saved, b->n_saved);
		ck_assert_int_eq(memcmp(a->saved, b->saved,
					a->n_saved * sizeof(*a->saved)), 0);
		ck_assert_int_eq(memcmp(a->user_grad, b->user_grad,
					a->n_user_grad * sizeof(*a->user_grad)), 0);
		ck_assert_int_eq(memcmp(a->capture, b->capture,
					a->n_graphs * sizeof(*a->capture)), 0);
		ck_assert_int_eq(a->slot_map == NULL, b->slot_map == NULL);
		if (a->slot_map)
			ck_assert_int_eq(memcmp(a->slot_map, b->slot_map,
						(uint64_t)a->n_reachable *
						a->reachable[a->n_reachable - 1] *
						sizeof(*a->slot_map)), 0);
	}
}


/*
 * Slot maps on the rings of p (the smallest shared ring), or with a ring
 * search: every plan passes the checker, a rank with a map takes
 * strictly fewer bytes than the same ring without one (and no rank
 * more), and the plan is the same on 1 and on 3 threads.
 */
static void check_slot_maps(struct cgs_schedule *s, const struct cgs_plan *p,
			    uint32_t i)
{
	struct cgs_plan_options opt;
	struct cgs_error err = {0};
	struct cgs_plan *q = NULL, *t = NULL;
	char msg[512];
	uint32_t r;

	cgs_plan_options_init(&opt);
	opt.slot_maps = 1;
	ck_assert_int_eq(cgs_plan_create(s, &opt, &q, &err), 0);
	ck_assert_msg(cgs_plan_check(s, q, msg, sizeof(msg)) == 0,
		      "case %u with slot maps: %s", i, msg);
	ck_assert_uint_eq(q->slots, p->slots);
	for (r = 0; r < p->n_ranks; r++) {
		const struct cgs_rank_plan *a = &p->ranks[r], *b = &q->ranks[r];

		ck_assert_uint_eq(a->lower_bound_bytes, b->lower_bound_bytes);
		if (b->slot_map) {
			ck_assert_uint_lt(b->bytes, a->bytes);
			maps_taken++;
		} else {
			ck_assert_uint_eq(b->bytes, a->bytes);
		}
	}
	opt.threads = 3;
	ck_assert_int_eq(cgs_plan_create(s, &opt, &t, &err), 0);
	assert_same_plan(q, t);
	cgs_plan_destroy(&t);
	cgs_plan_destroy(&q);
}

/*
 * The ring search (shared and per rank) against the smallest ring's plan
 * p: every plan it makes passes the checker, never takes more bytes than
 * p (per rank, or summed when the ring is shared), takes the fewest bytes
 * of the rings it tried, and is the same on 1 and on `threads` threads.
 */
static void check_ring_search(struct cgs_schedule *s,
			      const struct cgs_plan *p, uint32_t i,
			      uint32_t extra)
{
	struct cgs_plan_options opt;
	struct cgs_error err = {0};
	struct cgs_plan *q = NULL, *t = NULL;
	uint64_t sum_p = 0, sum_q = 0;
	char msg[512];
	uint32_t r, k;

	cgs_plan_options_init(&opt);
	opt.max_slots = p->slots + extra;
	opt.per_rank = (int)rnd(2);
	opt.slot_maps = big_sweep ? i % 8 == 4 : i % 2 == 1;
	/*
	 * now and then the first pass colours by DSATUR alone, as it does on
	 * large graphs: its plans rank the rings worse (more rings to plan in
	 * full), and the choice must not move
	 */
	if (i % 8 == 2)
		opt.first_pass_search_cells = 1;
	ck_assert_int_eq(cgs_plan_create(s, &opt, &q, &err), 0);
	ck_assert_msg(cgs_plan_check(s, q, msg, sizeof(msg)) == 0,
		      "case %u, search to %u%s: %s", i, opt.max_slots,
		      opt.per_rank ? " per rank" : "", msg);
	for (r = 0; r < p->n_ranks; r++) {
		const struct cgs_rank_plan *a = &p->ranks[r], *b = &q->ranks[r];

		sum_p += a->bytes;
		sum_q += b->bytes;
		ck_assert_uint_le(b->slots, opt.max_slots);
		ck_assert_uint_eq(a->lower_bound_bytes, b->lower_bound_bytes);
		if (opt.per_rank)
			ck_assert_uint_le(b->bytes, a->bytes);
		else
			ck_assert_uint_eq(b->slots, q->slots);
	}
	ck_assert_uint_le(sum_q, sum_p);
	for (k = 0; k < q->n_trials; k++) {
		const struct cgs_ring_trial *tr = &q->trials[k];

		for (r = 0; r < q->n_ranks; r++)
			if (q->ranks[r].rank == tr->rank && opt.per_rank)
				ck_assert_uint_le(q->ranks[r].bytes, tr->bytes);
		ck_assert_uint_le(tr->lower_bound_bytes, tr->bytes);
		if (!opt.per_rank) {
			uint64_t sum = 0;
			uint32_t j;

			for (j = 0; j < q->n_trials; j++)
				if (q->trials[j].slots == tr->slots)
					sum += q->trials[j].bytes;
			ck_assert_uint_le(sum_q, sum);
		}
	}
	opt.threads = 1 + extra;
	ck_assert_int_eq(cgs_plan_create(s, &opt, &t, &err), 0);
	assert_same_plan(q, t);
	cgs_plan_destroy(&t);
	/*
	 * Every ring planned in full (explored) makes the choice the
	 * pruned search made
	 */
	opt.explore = 1;
	ck_assert_int_eq(cgs_plan_create(s, &opt, &t, &err), 0);
	for (r = 0; r < q->n_ranks; r++) {
		const struct cgs_rank_plan *a = &q->ranks[r], *b = &t->ranks[r];

		ck_assert_msg(a->slots == b->slots && a->bytes == b->bytes,
			      "case %u, rank %u: search %u slots %llu bytes, "
			      "every ring in full %u slots %llu bytes", i,
			      a->rank, a->slots, (unsigned long long)a->bytes,
			      b->slots, (unsigned long long)b->bytes);
	}
	cgs_plan_destroy(&t);
	cgs_plan_destroy(&q);
}

static void run_property(uint64_t seed, uint32_t cases, uint32_t big)
{
	uint32_t i;

	rng_state = seed;
	for (i = 0; i < cases; i++) {
		struct cgs_schedule *s = random_schedule(big);
		struct cgs_error err = {0};
		struct cgs_plan *p = NULL, *q = NULL;
		char msg[512];
		uint32_t r;
		int rc = cgs_plan_create(s, NULL, &p, &err);

		ck_assert_msg(rc == 0, "case %u: %s", i, err.message);
		ck_assert_msg(cgs_plan_check(s, p, msg, sizeof(msg)) == 0,
			      "case %u (P%u M%u G%u L%u): %s", i, s->pp, s->vpp,
			      s->group, s->max_microbatches, msg);
		/* a larger ring is accepted and safe */
		if (rnd(2)) {
			s->slots = p->slots + 1 + rnd(3);
			ck_assert_int_eq(cgs_plan_create(s, NULL, &q, &err), 0);
			ck_assert_uint_eq(q->slots, s->slots);
			ck_assert_msg(cgs_plan_check(s, q, msg, sizeof(msg)) == 0,
				      "case %u with slots %u: %s", i, s->slots, msg);
			cgs_plan_destroy(&q);
			s->slots = 0;
		}
		if (rnd(2))
			check_ring_search(s, p, i, 1 + rnd(3));
		/*
		 * every case of the quick test, an eighth of the slow sweep's
		 * (chosen without the generator, so the sweep's schedules stay
		 * those it had before maps)
		 */
		if (!big_sweep || i % 8 == 0)
			check_slot_maps(s, p, i);
		/* same schedule, same plan */
		ck_assert_int_eq(cgs_plan_create(s, NULL, &q, &err), 0);
		ck_assert_uint_eq(q->slots, p->slots);
		for (r = 0; r < p->n_ranks; r++) {
			const struct cgs_rank_plan *a = &p->ranks[r], *b = &q->ranks[r];

			ck_assert_int_eq(memcmp(a->saved, b->saved,
						a->n_saved * sizeof(*a->saved)), 0);
			ck_assert_int_eq(memcmp(a->user_grad, b->user_grad,
						a->n_user_grad * sizeof(*a->user_grad)), 0);
			ck_assert_int_eq(memcmp(a->capture, b->capture,
						a->n_graphs * sizeof(*a->capture)), 0);
			ck_assert_uint_eq(a->bytes, b->bytes);
			ck_assert_uint_le(a->bytes, a->bytes_colour_arenas);
			ck_assert_uint_le(a->lower_bound_bytes, a->bytes);
		}
		cgs_plan_destroy(&q);
		cgs_plan_destroy(&p);
		free_schedule(s);
	}
}

START_TEST(random_plans)
{
	maps_taken = 0;
	run_property(0x5eed0001u + (uint64_t)_i * 7919u, 40, 0);
	/* the map search must have had something to prove */
	ck_assert_uint_gt(maps_taken, 0);
}
END_TEST

START_TEST(random_plans_slow)
{
	big_sweep = 1;
	run_property(0xb16b00b5u + (uint64_t)_i * 104729u, 300, _i % 2);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *suite = suite_create("plan");
	TCase *tc = tcase_create("plan");
	int slow = argc > 1 && strcmp(argv[1], "--slow") == 0;
	/* --loops N: the quick property test runs N loops of 40 random
	 * schedules instead of 5 (the coverage build, where a loop takes half
	 * a minute; the other builds run all 5) */
	int loops = argc > 2 && strcmp(argv[1], "--loops") == 0 ?
		atoi(argv[2]) : 5;

	if (loops < 1) {
		fprintf(stderr, "test_plan: --loops takes a count of 1 or more\n");
		return 2;
	}

	if (slow) {
		tcase_add_loop_test(tc, random_plans_slow, 0, 8);
		tcase_set_timeout(tc, 1200);
	} else {
		tcase_add_test(tc, single_microbatch);
		tcase_add_test(tc, user_grad_forces_two_slots);
		tcase_add_test(tc, p4_m2_g4);
		tcase_add_test(tc, p4_m4_three_layers);
		tcase_add_test(tc, m1_gradient_triangle);
		tcase_add_test(tc, nest_rest_packed_again);
		tcase_add_test(tc, m1_single);
		tcase_add_test(tc, capture_order);
		tcase_add_test(tc, explicit_orders);
	tcase_add_test(tc, orders_not_prefixes);
	tcase_add_test(tc, order_rest_after_forwards);
	tcase_add_test(tc, slot_map_barred_in_shorter_order);
		tcase_add_test(tc, frame_limit);
		tcase_add_test(tc, checker_follows_slot_map);
		tcase_add_test(tc, checker_catches_overlap);
		tcase_add_test(tc, slot_map_saves_bytes);
		tcase_add_test(tc, checker_catches_unsafe_map);
		tcase_add_test(tc, chunk_map_reaches_bound);
		tcase_add_test(tc, colour_map_reaches_bound);
		tcase_add_test(tc, ahead_map_keeps_full_chunk_apart);
		tcase_add_test(tc, ahead_map_counts_holders);
		tcase_add_test(tc, ahead_map_keeps_parity);
		tcase_add_test(tc, teams_map_shares_pools);
		tcase_add_test(tc, teams_map_keeps_parity);
		tcase_add_test(tc, teams_map_past_the_ring);
		tcase_add_test(tc, yardstick_of_scaled_variants);
		tcase_add_test(tc, exact_colouring_improves);
		tcase_add_test(tc, tabu_colouring);
		tcase_add_test(tc, clique_search);
		tcase_add_test(tc, clique_search_past_greedy);
		tcase_add_test(tc, first_fit);
		tcase_add_loop_test(tc, random_plans, 0, loops);
	}
	suite_add_tcase(suite, tc);
	return cgs_test_run(suite);
}
