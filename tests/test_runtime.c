/*
 * libcgslot without a GPU: opening manifests, the launch sequence of every
 * reachable count against an independent expansion of Megatron's orders,
 * address resolution against the plan, the NVTX guard segments against
 * the addresses, refusals before any launch, and the mapping of CUDA
 * errors.  Whatever needs a device is left to
 * `cgslot replay` (tests/gpu_replay.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cgs_version.h"
#include "cgslot/cgslot.h"
#include "common/error.h"
#include "input/schedule.h"
#include "order/schedule_load.h"
#include "manifest/writer.h"
#include "order/order.h"
#include "plan/plan.h"
#include "runtime/guard.h"
#include "runtime/runtime.h"
#include "testlib.h"

/* Two chunks of different depth, three variants of different sizes. */
static const char vpp_yaml[] =
	"cgslot: 1\n"
	"name: runtime-vpp\n"
	"pipeline:\n"
	"  pp: 3\n"
	"  vpp: 2\n"
	"  layers_per_chunk: [2, 3]\n"
	"  microbatch_group: 3\n"
	"  max_microbatches: 9\n"
	"  ranks: [0, 2]\n"
	"alignment: 256\n"
	"variants:\n"
	"  - {name: a, cp: 1, bytes: {input: 1000, output: 2000, saved: 30000, user_grad: 1000}}\n"
	"  - {name: b, cp: 2, bytes: {input: 3000, output: 1000, saved: 10000, user_grad: 5000}}\n"
	"  - name: c\n"
	"    cp: 4\n"
	"    bytes: {input: 500, output: 500, saved: 50000, user_grad: 700}\n"
	"    overrides:\n"
	"      - {chunk: 1, layer: 2, saved: 90000}\n";

/* No VPP: every count 1..L is reachable. */
static const char flat_yaml[] =
	"cgslot: 1\n"
	"pipeline: {pp: 4, vpp: 1, layers_per_chunk: 2, max_microbatches: 5}\n"
	"alignment: 512\n"
	"variants:\n"
	"  - {name: a, cp: 1, bytes: {input: 4096, output: 4096, saved: 8192, user_grad: 4096}}\n";

struct built {
	struct cgs_schedule *schedule;
	struct cgs_plan *plan;
	void *bytes;
	size_t len;
};

static void build(struct built *b, const char *yaml)
{
	struct cgs_plan_options opt;
	struct cgs_error err = {0};

	memset(b, 0, sizeof(*b));
	ck_assert_msg(cgs_schedule_load_buffer("runtime.yaml", yaml,
					       strlen(yaml), NULL, &b->schedule,
					       &err) == 0, "%s", err.message);
	cgs_plan_options_init(&opt);
	ck_assert_msg(cgs_plan_create(b->schedule, &opt, &b->plan, &err) == 0,
		      "%s", err.message);
	ck_assert_msg(cgs_manifest_write(b->plan,
					 cgs_schedule_hash(b->schedule),
					 &b->bytes, &b->len, &err) == 0,
		      "%s", err.message);
}

static void release(struct built *b)
{
	free(b->bytes);
	cgs_plan_destroy(&b->plan);
	cgs_schedule_destroy(&b->schedule);
}

static struct cgs_runtime *open_rank(const struct built *b, uint32_t rank)
{
	struct cgs_runtime *rt = NULL;
	struct cgs_error err = {0};

	ck_assert_msg(cgs_runtime_open_buffer(b->bytes, b->len, "mem", rank, 0,
					      &rt, &err) == 0,
		      "%s", err.message);
	ck_assert_ptr_nonnull(rt);
	return rt;
}

static const struct cgs_rank_plan *rank_plan(const struct built *b,
					     uint32_t rank)
{
	uint32_t i;

	for (i = 0; i < b->plan->n_ranks; i++)
		if (b->plan->ranks[i].rank == rank)
			return &b->plan->ranks[i];
	ck_abort_msg("rank %u is not planned", rank);
	return NULL;
}

/* The public lookups, for an open runtime where they must succeed. */
static uint32_t layers_of(const struct cgs_runtime *rt, uint32_t c)
{
	struct cgs_error err = {0};
	uint32_t layers = 0;

	ck_assert_msg(cgs_runtime_chunk_layers(rt, c, &layers, &err) == 0,
		      "%s", err.message);
	return layers;
}

static uint32_t reachable_at(const struct cgs_runtime *rt, uint32_t i)
{
	struct cgs_error err = {0};
	uint32_t n = 0;

	ck_assert_msg(cgs_runtime_reachable(rt, i, &n, &err) == 0, "%s",
		      err.message);
	return n;
}

static void get_info(const struct cgs_runtime *rt, struct cgs_runtime_info *in)
{
	struct cgs_error err = {0};

	memset(in, 0, sizeof(*in));
	in->size = sizeof(*in);
	ck_assert_msg(cgs_runtime_info(rt, in, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(in->size, sizeof(*in));
}

START_TEST(info_matches_plan)
{
	struct built b;
	struct cgs_runtime *rt;
	struct cgs_runtime_info in;
	struct cgs_error err = {0};
	const struct cgs_rank_plan *rp;
	uint32_t i, n, c, k, slot, value;

	build(&b, vpp_yaml);
	rt = open_rank(&b, 2);
	rp = rank_plan(&b, 2);
	get_info(rt, &in);
	ck_assert_uint_eq(in.rank, 2);
	ck_assert_uint_eq(in.pp, 3);
	ck_assert_uint_eq(in.vpp, 2);
	ck_assert_uint_eq(in.group, 3);
	ck_assert_uint_eq(in.max_microbatches, 9);
	ck_assert_uint_eq(in.slots, b.plan->slots);
	ck_assert_uint_eq(in.n_variants, 3);
	ck_assert_uint_eq(in.layers_total, 5);
	ck_assert_uint_eq(in.n_saved, b.plan->slots * 5);
	ck_assert_uint_eq(in.n_graphs, 3 * in.n_saved * 2);
	ck_assert_uint_eq(cgs_runtime_graph_count(rt), in.n_graphs);
	ck_assert_uint_eq(in.n_arenas, rp->n_arenas);
	ck_assert_uint_eq(in.arena_bytes, rp->bytes);
	ck_assert_uint_eq(in.n_reachable, 3);
	for (i = 0; i < in.n_reachable; i++)
		ck_assert_uint_eq(reachable_at(rt, i), 3 * (i + 1));
	ck_assert_uint_eq(layers_of(rt, 0), 2);
	ck_assert_uint_eq(layers_of(rt, 1), 3);
	/* Ring manifests: slot k mod S whatever the count and the chunk. */
	for (i = 0; i < in.n_reachable; i++) {
		n = reachable_at(rt, i);
		for (c = 0; c < in.vpp; c++)
			for (k = 0; k < n; k++) {
				slot = 99;
				ck_assert_int_eq(cgs_runtime_slot(rt, n, c, k, &slot,
								  NULL), 0);
				ck_assert_uint_eq(slot, k % in.slots);
			}
	}

	/*
	 * Errors are told apart from values, and leave the output alone:
	 * 0 is a valid count, layer count and slot.
	 */
	value = 77;
	ck_assert_int_eq(cgs_runtime_reachable(rt, in.n_reachable, &value,
					       &err), CGS_E_ARG);
	ck_assert_uint_eq(value, 77);
	ck_assert_msg(strstr(err.message, "index 3 is out of range; accepted: 0..2"),
		      "%s", err.message);
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_runtime_chunk_layers(rt, 2, &value, &err),
			 CGS_E_ARG);
	ck_assert_uint_eq(value, 77);
	ck_assert_msg(strstr(err.message, "chunk 2 is out of range; accepted: 0..1"),
		      "%s", err.message);
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_runtime_slot(rt, 4, 0, 0, &value, &err),
			 CGS_E_UNREACHABLE);
	ck_assert_msg(strstr(err.message, "4 is not reachable"), "%s",
		      err.message);
	ck_assert_int_eq(cgs_runtime_slot(rt, 12, 0, 0, &value, NULL),
			 CGS_E_UNREACHABLE);
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_runtime_slot(rt, 3, 0, 3, &value, &err),
			 CGS_E_ARG);
	ck_assert_msg(strstr(err.message, "microbatch 3 is out of range for an iteration of 3"),
		      "%s", err.message);
	ck_assert_int_eq(cgs_runtime_slot(rt, 3, 2, 0, &value, NULL),
			 CGS_E_ARG);
	ck_assert_uint_eq(value, 77);
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_runtime_reachable(rt, 0, NULL, &err), CGS_E_ARG);
	ck_assert_msg(strstr(err.message, "'count' is NULL"), "%s",
		      err.message);
	ck_assert_int_eq(cgs_runtime_chunk_layers(rt, 0, NULL, NULL),
			 CGS_E_ARG);
	ck_assert_int_eq(cgs_runtime_slot(rt, 3, 0, 0, NULL, NULL), CGS_E_ARG);
	cgs_runtime_destroy(&rt);
	ck_assert_ptr_null(rt);
	cgs_runtime_destroy(&rt);
	cgs_runtime_destroy(NULL);
	release(&b);
}
END_TEST

START_TEST(open_refusals)
{
	struct built b;
	struct cgs_runtime *rt = NULL;
	struct cgs_error err = {0};
	unsigned char *bad;

	build(&b, vpp_yaml);
	ck_assert_int_eq(cgs_runtime_open_buffer(b.bytes, b.len, "mem", 1, 0,
						 &rt, &err), CGS_E_RANK);
	ck_assert_ptr_null(rt);
	ck_assert_msg(strstr(err.message, "1") != NULL, "%s", err.message);

	cgs_error_clear(&err);
	bad = malloc(b.len);
	memcpy(bad, b.bytes, b.len);
	bad[b.len / 2] ^= 0x40;
	ck_assert_int_eq(cgs_runtime_open_buffer(bad, b.len, "flipped", 0, 0,
						 &rt, &err), CGS_E_CHECKSUM);
	ck_assert_ptr_null(rt);
	ck_assert_str_eq(err.file, "flipped");
	free(bad);

	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_runtime_open_buffer(b.bytes, b.len / 2, NULL, 0,
						 0, &rt, &err) < 0, 1);
	ck_assert_ptr_null(rt);

	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_runtime_open_buffer(b.bytes, b.len, NULL, 0, -1,
						 &rt, &err), CGS_E_ARG);
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_runtime_open(cgs_test_path("testdata/no-such.cgsm"),
					  0, 0, &rt, &err), CGS_E_IO);
	ck_assert_ptr_null(rt);
	ck_assert_int_eq(cgs_runtime_open(NULL, 0, 0, &rt, NULL), CGS_E_ARG);
	release(&b);
}
END_TEST

/*
 * The graphs one iteration must launch, from Megatron's order regenerated
 * here: the k-th +c runs microbatch k of chunk c, layers ascending, the
 * k-th -c its backward, layers descending, in slot k mod S.
 */
static uint64_t expected_sequence(const struct built *b, uint32_t rank,
				  uint32_t n, const uint32_t *variants,
				  uint32_t *out)
{
	const struct cgs_schedule *s = b->schedule;
	struct cgs_order_params p = {s->pp, s->vpp, s->group, n, rank};
	uint32_t S = b->plan->slots, n_saved = S * 5;
	uint32_t fwd[8] = {0}, bwd[8] = {0}, c, k, l, f;
	size_t len = cgs_order_length(&p), i;
	int32_t *order = malloc(len * sizeof(*order));
	uint64_t m = 0;

	ck_assert_int_eq(cgs_order_generate(&p, order, NULL), 0);
	for (i = 0; i < len; i++) {
		c = (uint32_t)abs(order[i]) - 1;
		k = order[i] > 0 ? fwd[c]++ : bwd[c]++;
		for (l = 0; l < s->layers[c]; l++) {
			uint32_t layer = order[i] > 0 ? l : s->layers[c] - 1 - l;

			f = b->plan->layer_base[c] * S + (k % S) * s->layers[c] +
			    layer;
			out[m++] = (variants[k] * n_saved + f) * 2 +
				   (order[i] > 0 ? 0 : 1);
		}
	}
	free(order);
	return m;
}

START_TEST(sequences_follow_orders)
{
	struct built b;
	struct cgs_runtime *rt;
	struct cgs_error err = {0};
	uint32_t ranks[2] = {0, 2}, variants[9], got[2 * 9 * 5],
		 want[2 * 9 * 5];
	uint32_t r, i, n, k, trial;
	uint64_t m;

	build(&b, vpp_yaml);
	for (r = 0; r < 2; r++) {
		rt = open_rank(&b, ranks[r]);
		for (i = 0; cgs_runtime_reachable(rt, i, &n, NULL) == 0; i++) {
			for (trial = 0; trial < 4; trial++) {
				for (k = 0; k < n; k++)
					variants[k] = (k * 7 + trial * 5 + r) % 3;
				m = expected_sequence(&b, ranks[r], n, variants,
						      want);
				ck_assert_uint_eq(cgs_runtime_launch_count(rt, n),
						  m);
				ck_assert_uint_eq(m, 2 * n * 5);
				ck_assert_msg(cgs_runtime_sequence(rt, n, variants,
								   got, m,
								   &err) == 0,
					      "%s", err.message);
				for (k = 0; k < m; k++)
					ck_assert_msg(got[k] == want[k],
						      "rank %u N %u launch %u: graph %u, expected %u",
						      ranks[r], n, k, got[k],
						      want[k]);
			}
		}
		ck_assert_int_eq(cgs_runtime_sequence(rt, 3, variants, got, 29,
						      &err), CGS_E_ARG);
		cgs_runtime_destroy(&rt);
	}
	release(&b);
}
END_TEST

START_TEST(flat_counts_all_reachable)
{
	struct built b;
	struct cgs_runtime *rt;
	uint32_t variants[5] = {0}, n;

	build(&b, flat_yaml);
	rt = open_rank(&b, 3);
	for (n = 1; n <= 5; n++) {
		ck_assert_uint_eq(reachable_at(rt, n - 1), n);
		ck_assert_uint_eq(cgs_runtime_launch_count(rt, n), 2 * n * 2);
	}
	ck_assert_uint_eq(cgs_runtime_launch_count(rt, 6), 0);
	ck_assert_uint_eq(cgs_runtime_launch_count(rt, 0), 0);
	(void)variants;
	cgs_runtime_destroy(&rt);
	release(&b);
}
END_TEST

START_TEST(locate_matches_plan)
{
	struct built b;
	struct cgs_runtime *rt;
	struct cgs_error err = {0};
	const struct cgs_rank_plan *rp;
	const struct cgs_frame *fr, *uf;
	struct cgs_range want;
	uint32_t v, c, l, k, role, arena, S, f, i, n;
	uint64_t off, bytes;
	void *addr;

	build(&b, vpp_yaml);
	rt = open_rank(&b, 0);
	rp = rank_plan(&b, 0);
	S = b.plan->slots;
	for (i = 0; i < 3; i++)
	for (v = 0; v < 3; v++)
		for (c = 0; c < 2; c++)
			for (l = 0; l < b.schedule->layers[c]; l++)
				for (k = 0; k < (n = reachable_at(rt, i)); k++)
					for (role = 0; role < 4; role++) {
		f = b.plan->layer_base[c] * S + (k % S) * b.schedule->layers[c] + l;
		fr = &rp->saved[f];
		ck_assert_int_eq(cgs_runtime_locate(rt, v, c, l, n, k, role,
						    &arena, &off, &bytes,
						    &err), 0);
		if (role == CGS_RUNTIME_USER_GRAD) {
			uf = &rp->user_grad[c * S + k % S];
			want = rp->user_grad_layers[cgs_plan_role_index(b.plan, v, c, l)];
			ck_assert_uint_eq(arena, uf->arena);
			ck_assert_uint_eq(off, uf->offset + want.offset);
		} else {
			want = rp->saved_roles[cgs_plan_role_index(b.plan, v, c, l) * 3 + role];
			ck_assert_uint_eq(arena, fr->arena);
			ck_assert_uint_eq(off, fr->offset + want.offset);
		}
		ck_assert_uint_eq(bytes, want.bytes);
		ck_assert_uint_eq(cgs_runtime_slot_locate(rt, v, c, l, k % S,
							  role, &arena, &off,
							  &bytes, NULL), 0);
	}
	/* The override of chunk 1, layer 2 shows through for variant 2. */
	ck_assert_int_eq(cgs_runtime_locate(rt, 2, 1, 2, 3, 0,
					    CGS_RUNTIME_SAVED, NULL, NULL, &bytes,
					    NULL), 0);
	ck_assert_uint_eq(bytes, 90000);

	ck_assert_int_eq(cgs_runtime_locate(rt, 3, 0, 0, 3, 0, 0, NULL, NULL,
					    NULL, &err), CGS_E_ARG);
	ck_assert_msg(strstr(err.message, "variant 3") != NULL, "%s",
		      err.message);
	ck_assert_int_eq(cgs_runtime_locate(rt, 0, 2, 0, 3, 0, 0, NULL, NULL,
					    NULL, NULL), CGS_E_ARG);
	ck_assert_int_eq(cgs_runtime_locate(rt, 0, 0, 2, 3, 0, 0, NULL, NULL,
					    NULL, NULL), CGS_E_ARG);
	ck_assert_int_eq(cgs_runtime_locate(rt, 0, 0, 0, 9, 9, 0, NULL, NULL,
					    NULL, NULL), CGS_E_ARG);
	/* Microbatch 5 exists under L = 9 but not in an iteration of 3. */
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_runtime_locate(rt, 0, 0, 0, 3, 5, 0, NULL, NULL,
					    NULL, &err), CGS_E_ARG);
	ck_assert_msg(strstr(err.message, "microbatch 5") != NULL, "%s",
		      err.message);
	ck_assert_int_eq(cgs_runtime_locate(rt, 0, 0, 0, 4, 0, 0, NULL, NULL,
					    NULL, NULL), CGS_E_UNREACHABLE);
	ck_assert_int_eq(cgs_runtime_locate(rt, 0, 0, 0, 0, 0, 0, NULL, NULL,
					    NULL, NULL), CGS_E_UNREACHABLE);
	ck_assert_int_eq(cgs_runtime_locate(rt, 0, 0, 0, 3, 0, 4, NULL, NULL,
					    NULL, NULL), CGS_E_ARG);
	ck_assert_int_eq(cgs_runtime_slot_locate(rt, 0, 0, 0, S, 0, NULL, NULL,
						 NULL, NULL), CGS_E_ARG);
	/* Addresses need arenas. */
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_runtime_address(rt, 0, 0, 0, 3, 0, 0, &addr,
					     &bytes, &err), CGS_E_STATE);
	cgs_runtime_destroy(&rt);
	release(&b);
}
END_TEST

/* A range by the public API: [lo, hi) of an arena. */
struct gspan {
	uint32_t arena;
	uint64_t lo, hi;
};

/*
 * Append the range of a role; with `granule`, its end rounded up to that
 * (the guards' granularity), within arena_end.
 */
static size_t add_located(const struct cgs_runtime *rt, uint32_t v,
			  uint32_t c, uint32_t l, uint32_t s, uint32_t role,
			  uint64_t granule, const uint64_t *arena_end,
			  struct gspan *out, size_t n)
{
	uint32_t arena;
	uint64_t off, bytes, hi;

	ck_assert_int_eq(cgs_runtime_slot_locate(rt, v, c, l, s, role, &arena,
						 &off, &bytes, NULL), 0);
	if (!bytes)
		return n;
	hi = off + bytes;
	if (granule) {
		hi = (hi + granule - 1) / granule * granule;
		if (hi > arena_end[arena])
			hi = arena_end[arena];
	}
	out[n++] = (struct gspan){arena, off, hi};
	return n;
}

static int byte_in(const struct gspan *r, size_t n, uint32_t arena,
		   uint64_t x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].arena == arena && r[i].lo <= x && x < r[i].hi)
			return 1;
	return 0;
}

static int guarded(const struct cgs_guard *gd, uint32_t g, uint32_t arena,
		   uint64_t x)
{
	uint64_t k;
	const struct cgs_guard_segment *s;

	for (k = gd->guard_start[g]; k < gd->guard_start[g + 1]; k++) {
		s = &gd->segments[gd->guard[k]];
		if (s->arena == arena && s->lo <= x && x < s->hi)
			return 1;
	}
	return 0;
}

/*
 * The NVTX guards (guard.c) against the public address API: segments tile
 * exactly the bytes the ranges cover, at the alignment granularity; no
 * graph is denied a byte it may touch; and the first byte before each
 * range a graph owns, and the first at or past its end rounded up to the
 * alignment, is denied to it whenever another range covers that byte.
 */
static void check_guards(const char *yaml, uint32_t rank)
{
	struct built b;
	struct cgs_runtime *rt;
	struct cgs_runtime_info in;
	struct cgs_graph_desc d;
	struct cgs_guard gd;
	struct cgs_error err = {0};
	struct gspan *all, *own, *mine;
	uint64_t arena_end[8], a;
	size_t n_all = 0, n_own, n_allowed, n_mine, n_mine_allowed, i, j, k, cap;
	uint32_t v, c, l, s, role, g, w, c2, s2;
	uint64_t x, covered;
	int side, denied = 0;

	build(&b, yaml);
	rt = open_rank(&b, rank);
	get_info(rt, &in);
	cap = (size_t)in.n_variants * in.n_saved * 4 + 1;
	all = malloc(cap * sizeof(*all));
	own = malloc(cap * sizeof(*own));
	mine = malloc(cap * sizeof(*mine));
	ck_assert_ptr_nonnull(all);
	ck_assert_ptr_nonnull(own);
	ck_assert_ptr_nonnull(mine);
	ck_assert_uint_le(in.n_arenas, 8);
	a = in.alignment;
	for (i = 0; i < in.n_arenas; i++)
		arena_end[i] = rank_plan(&b, rank)->arenas[i].bytes;
	for (v = 0; v < in.n_variants; v++)
		for (c = 0; c < in.vpp; c++)
			for (l = 0; l < layers_of(rt, c); l++)
				for (s = 0; s < in.slots; s++)
					for (role = 0; role < CGS_RUNTIME_ROLES; role++)
						n_all = add_located(rt, v, c, l, s, role,
								    a, arena_end,
								    all, n_all);
	ck_assert_int_eq(cgs_guard_build(rt, &gd, &err), 0);
	ck_assert_uint_eq(gd.n_graphs, in.n_graphs);

	/* Segments: ordered, disjoint, covered, never across a boundary. */
	for (i = 0; i < gd.n_segments; i++) {
		const struct cgs_guard_segment *sg = &gd.segments[i];

		ck_assert_uint_lt(sg->lo, sg->hi);
		/* No aligned access of up to `a` bytes straddles two regions. */
		ck_assert_uint_eq(sg->lo % a, 0);
		ck_assert(sg->hi % a == 0 || sg->hi == arena_end[sg->arena]);
		if (i > 0 && gd.segments[i - 1].arena == sg->arena)
			ck_assert_uint_le(gd.segments[i - 1].hi, sg->lo);
		else if (i > 0)
			ck_assert_uint_lt(gd.segments[i - 1].arena, sg->arena);
		ck_assert(byte_in(all, n_all, sg->arena, sg->lo));
		for (k = 0; k < n_all; k++)
			if (all[k].arena == sg->arena)
				ck_assert(sg->hi <= all[k].lo || all[k].hi <= sg->lo ||
					  (all[k].lo <= sg->lo && sg->hi <= all[k].hi));
	}
	for (k = 0; k < n_all; k++) {
		covered = 0;
		for (i = 0; i < gd.n_segments; i++)
			if (gd.segments[i].arena == all[k].arena &&
			    all[k].lo <= gd.segments[i].lo &&
			    gd.segments[i].hi <= all[k].hi)
				covered += gd.segments[i].hi - gd.segments[i].lo;
		ck_assert_uint_eq(covered, all[k].hi - all[k].lo);
	}

	for (i = 0; i < in.n_graphs; i++) {
		/* The i-th graph of the capture sequence; its index is d.index. */
		d.size = sizeof(d);
		ck_assert_int_eq(cgs_runtime_graph_desc(rt, (uint32_t)i, &d,
							NULL), 0);
		g = d.index;
		/* own: exact ranges; mine: the same rounded to the alignment. */
		n_own = n_mine = 0;
		for (role = 0; role < 3; role++) {
			n_own = add_located(rt, d.variant, d.chunk, d.layer,
					    d.slot, role, 0, arena_end, own, n_own);
			n_mine = add_located(rt, d.variant, d.chunk, d.layer,
					     d.slot, role, a, arena_end, mine,
					     n_mine);
		}
		if (d.direction == CGS_RUNTIME_BACKWARD)
			for (l = 0; l < layers_of(rt, d.chunk); l++) {
				n_own = add_located(rt, d.variant, d.chunk, l,
						    d.slot, CGS_RUNTIME_USER_GRAD,
						    0, arena_end, own, n_own);
				n_mine = add_located(rt, d.variant, d.chunk, l,
						     d.slot, CGS_RUNTIME_USER_GRAD,
						     a, arena_end, mine, n_mine);
			}
		n_allowed = n_own;
		n_mine_allowed = n_mine;
		if (d.direction == CGS_RUNTIME_BACKWARD && d.layer == 0)
			for (w = 0; w < in.n_variants; w++)
				for (c2 = 0; c2 < in.vpp; c2++)
					for (s2 = 0; s2 < in.slots; s2++) {
						n_allowed = add_located(rt, w, c2, 0, s2,
							CGS_RUNTIME_USER_GRAD, 0,
							arena_end, own, n_allowed);
						n_mine_allowed = add_located(rt, w, c2, 0,
							s2, CGS_RUNTIME_USER_GRAD, a,
							arena_end, mine,
							n_mine_allowed);
					}
		for (k = gd.guard_start[g]; k < gd.guard_start[g + 1]; k++) {
			const struct cgs_guard_segment *sg =
				&gd.segments[gd.guard[k]];

			for (j = 0; j < n_allowed; j++)
				ck_assert_msg(own[j].arena != sg->arena ||
					      own[j].hi <= sg->lo ||
					      sg->hi <= own[j].lo,
					      "graph %u is denied bytes it may touch", g);
		}
		for (j = 0; j < n_mine; j++)
			for (side = 0; side < 2; side++) {
				if (side == 0 && mine[j].lo == 0)
					continue;
				x = side ? mine[j].hi : mine[j].lo - 1;
				if (!byte_in(all, n_all, mine[j].arena, x) ||
				    byte_in(mine, n_mine_allowed, mine[j].arena, x))
					continue;
				ck_assert_msg(guarded(&gd, g, mine[j].arena, x),
					      "graph %u (variant %u, chunk %u, slot %u, layer %u, %s): byte %llu of arena %u next to its range [%llu, %llu) is not denied",
					      g, d.variant, d.chunk, d.slot,
					      d.layer, d.direction ? "backward" : "forward",
					      (unsigned long long)x, mine[j].arena,
					      (unsigned long long)mine[j].lo,
					      (unsigned long long)mine[j].hi);
				denied++;
			}
	}
	/* The schedules are packed: some neighbours must be there to deny. */
	ck_assert_int_gt(denied, 0);
	cgs_guard_free(&gd);
	free(all);
	free(own);
	free(mine);
	cgs_runtime_destroy(&rt);
	release(&b);
}

START_TEST(guards_cover_neighbours)
{
	check_guards(vpp_yaml, 0);
	check_guards(vpp_yaml, 2);
	check_guards(flat_yaml, 0);
	check_guards(flat_yaml, 3);
}
END_TEST

START_TEST(graph_descriptions)
{
	struct built b;
	struct cgs_runtime *rt;
	struct cgs_runtime_info in;
	struct cgs_graph_desc d;
	struct cgs_error err = {0};
	unsigned char *seen;
	uint32_t i, S;

	build(&b, vpp_yaml);
	rt = open_rank(&b, 0);
	get_info(rt, &in);
	S = in.slots;
	d.size = sizeof(d);
	seen = calloc(in.n_graphs, 1);
	for (i = 0; i < cgs_runtime_graph_count(rt); i++) {
		ck_assert_int_eq(cgs_runtime_graph_desc(rt, i, &d, &err), 0);
		ck_assert_uint_lt(d.index, in.n_graphs);
		ck_assert_int_eq(seen[d.index], 0);
		seen[d.index] = 1;
		ck_assert_uint_eq(d.index, (d.variant * in.n_saved + d.frame) * 2 +
				  d.direction);
		ck_assert_uint_eq(d.frame, b.plan->layer_base[d.chunk] * S +
				  d.slot * b.schedule->layers[d.chunk] + d.layer);
		ck_assert_uint_eq(d.user_grad_frame, d.chunk * S + d.slot);
		ck_assert_ptr_null(d.addr[CGS_RUNTIME_SAVED]);
		ck_assert_uint_gt(d.bytes[CGS_RUNTIME_SAVED], 0);
		ck_assert_ptr_null(cgs_runtime_graph_exec(rt, d.index));
	}
	ck_assert_int_eq(cgs_runtime_graph_desc(rt, i, &d, &err), CGS_E_ARG);
	/*
	 * Lockstep: the first event (+1, microbatch 0) is captured for the
	 * canonical variant, both layers, then for the next variant.
	 */
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(cgs_runtime_graph_desc(rt, i, &d, NULL), 0);
		ck_assert_uint_eq(d.variant, i / 2);
		ck_assert_uint_eq(d.chunk, 0);
		ck_assert_uint_eq(d.slot, 0);
		ck_assert_uint_eq(d.layer, i % 2);
		ck_assert_uint_eq(d.direction, CGS_RUNTIME_FORWARD);
	}
	free(seen);
	cgs_runtime_destroy(&rt);
	release(&b);
}
END_TEST

START_TEST(version_of_the_library)
{
	char want[32];

	ck_assert_uint_eq(cgs_version(), CGSLOT_VERSION_NUMBER);
	ck_assert_uint_eq(CGSLOT_VERSION_NUMBER,
			  CGSLOT_VERSION_MAJOR * 10000 +
			  CGSLOT_VERSION_MINOR * 100 + CGSLOT_VERSION_PATCH);
	snprintf(want, sizeof(want), "%d.%d.%d", CGSLOT_VERSION_MAJOR,
		 CGSLOT_VERSION_MINOR, CGSLOT_VERSION_PATCH);
	ck_assert_str_eq(cgs_version_string(), want);
	/* meson.build's project version, which cgslot --version prints. */
	ck_assert_str_eq(cgs_version_string(), CGS_VERSION_STRING);
}
END_TEST

/*
 * The extensible structs: a caller built against a later header passes a
 * larger size and gets the bytes the library knows, with size telling how
 * many; a size below the 0.2 layout is refused and nothing is written.
 */
#define TAIL_BYTE 0xa5

START_TEST(sized_structs)
{
	struct built b;
	struct cgs_runtime *rt;
	struct cgs_error err = {0};
	struct { struct cgs_runtime_info in; unsigned char later[24]; } info;
	struct { struct cgs_graph_desc d; unsigned char later[24]; } desc;
	struct { struct cgs_runtime_stats st; unsigned char later[24]; } stats;
	struct cgs_runtime_info small;
	unsigned char tail[24];
	uint32_t i;

	build(&b, vpp_yaml);
	rt = open_rank(&b, 0);
	memset(tail, TAIL_BYTE, sizeof(tail));

	memset(&info, TAIL_BYTE, sizeof(info));
	info.in.size = sizeof(info);
	ck_assert_int_eq(cgs_runtime_info(rt, &info.in, &err), 0);
	ck_assert_uint_eq(info.in.size, sizeof(info.in));
	ck_assert_uint_eq(info.in.rank, 0);
	ck_assert_uint_eq(info.in.vpp, 2);
	ck_assert_uint_eq(info.in.alignment, 256);
	ck_assert_mem_eq(info.later, tail, sizeof(tail));

	memset(&desc, TAIL_BYTE, sizeof(desc));
	desc.d.size = sizeof(desc);
	ck_assert_int_eq(cgs_runtime_graph_desc(rt, 1, &desc.d, &err), 0);
	ck_assert_uint_eq(desc.d.size, sizeof(desc.d));
	ck_assert_uint_eq(desc.d.layer, 1);
	ck_assert_uint_eq(desc.d.reserved, 0);
	ck_assert_uint_gt(desc.d.bytes[CGS_RUNTIME_USER_GRAD], 0);
	ck_assert_mem_eq(desc.later, tail, sizeof(tail));

	memset(&stats, TAIL_BYTE, sizeof(stats));
	stats.st.size = sizeof(stats);
	ck_assert_int_eq(cgs_runtime_stats(rt, &stats.st, &err), 0);
	ck_assert_uint_eq(stats.st.size, sizeof(stats.st));
	ck_assert_uint_eq(stats.st.graphs_adopted, 0);
	ck_assert_uint_eq(stats.st.reserved, 0);
	ck_assert_uint_eq(stats.st.instantiate_ns, 0);
	ck_assert_mem_eq(stats.later, tail, sizeof(tail));

	/* Too small (a caller that did not set size, or a shorter layout). */
	for (i = 0; i < 2; i++) {
		memset(&small, TAIL_BYTE, sizeof(small));
		small.size = i ? (uint32_t)sizeof(small) - 8 : 0;
		cgs_error_clear(&err);
		ck_assert_int_eq(cgs_runtime_info(rt, &small, &err), CGS_E_ARG);
		ck_assert_msg(strstr(err.message, "info->size is") != NULL &&
			      strstr(err.message, "at least 72") != NULL,
			      "%s", err.message);
		ck_assert_uint_eq(small.rank, 0xa5a5a5a5u);
	}
	desc.d.size = 40;
	ck_assert_int_eq(cgs_runtime_graph_desc(rt, 0, &desc.d, NULL),
			 CGS_E_ARG);
	ck_assert_uint_eq(desc.d.size, 40);
	stats.st.size = 16;
	ck_assert_int_eq(cgs_runtime_stats(rt, &stats.st, NULL), CGS_E_ARG);
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_runtime_info(rt, NULL, &err), CGS_E_ARG);
	ck_assert_msg(strstr(err.message, "'info' is NULL") != NULL, "%s",
		      err.message);
	ck_assert_int_eq(cgs_runtime_graph_desc(rt, 0, NULL, NULL), CGS_E_ARG);
	ck_assert_int_eq(cgs_runtime_stats(rt, NULL, NULL), CGS_E_ARG);
	cgs_runtime_destroy(&rt);
	release(&b);
}
END_TEST

static int count_record(void *user, const struct cgs_graph_desc *g,
			cudaStream_t stream)
{
	(void)g;
	(void)stream;
	(*(int *)user)++;
	return 0;
}

/* Every entry point refuses a NULL runtime and names the argument. */
START_TEST(null_runtime)
{
	struct cgs_error err = {0};
	struct cgs_runtime_info in = {.size = sizeof(in)};
	struct cgs_runtime_stats st = {.size = sizeof(st)};
	struct cgs_graph_desc d = {.size = sizeof(d)};
	uint32_t value = 77, variants[3] = {0}, out[8];
	uint64_t bytes = 5;
	void *p = NULL;
	int calls = 0;

	ck_assert_int_eq(cgs_runtime_info(NULL, &in, &err), CGS_E_ARG);
	ck_assert_msg(strcmp(err.message,
			     "cgs_runtime_info: the argument 'rt' is NULL") == 0,
		      "%s", err.message);
#define REFUSES(call, name)                                                    \
	do {                                                                   \
		cgs_error_clear(&err);                                         \
		ck_assert_int_eq((call), CGS_E_ARG);                           \
		ck_assert_msg(strstr(err.message, name ": the argument 'rt' is NULL"), \
			      "%s", err.message);                              \
	} while (0)
	REFUSES(cgs_runtime_reachable(NULL, 0, &value, &err),
		"cgs_runtime_reachable");
	REFUSES(cgs_runtime_chunk_layers(NULL, 0, &value, &err),
		"cgs_runtime_chunk_layers");
	REFUSES(cgs_runtime_slot(NULL, 3, 0, 0, &value, &err),
		"cgs_runtime_slot");
	REFUSES(cgs_runtime_allocate(NULL, &bytes, &err),
		"cgs_runtime_allocate");
	REFUSES(cgs_runtime_arena(NULL, 0, &p, &bytes, &err),
		"cgs_runtime_arena");
	REFUSES(cgs_runtime_locate(NULL, 0, 0, 0, 3, 0, 0, &value, &bytes,
				   &bytes, &err), "cgs_runtime_locate");
	REFUSES(cgs_runtime_slot_locate(NULL, 0, 0, 0, 0, 0, &value, &bytes,
					&bytes, &err), "cgs_runtime_slot_locate");
	REFUSES(cgs_runtime_address(NULL, 0, 0, 0, 3, 0, 0, &p, &bytes, &err),
		"cgs_runtime_address");
	REFUSES(cgs_runtime_graph_desc(NULL, 0, &d, &err),
		"cgs_runtime_graph_desc");
	REFUSES(cgs_runtime_capture(NULL, count_record, &calls, NULL, &err),
		"cgs_runtime_capture");
	REFUSES(cgs_runtime_adopt(NULL, 0, (cudaGraphExec_t)(uintptr_t)0x1000, 0, &err),
		"cgs_runtime_adopt");
	REFUSES(cgs_runtime_stats(NULL, &st, &err), "cgs_runtime_stats");
	REFUSES(cgs_runtime_sequence(NULL, 3, variants, out, 8, &err),
		"cgs_runtime_sequence");
	REFUSES(cgs_runtime_replay(NULL, 3, variants, NULL, &err),
		"cgs_runtime_replay");
#undef REFUSES
	ck_assert_uint_eq(value, 77);
	ck_assert_uint_eq(bytes, 5);
	ck_assert_int_eq(calls, 0);
	/* Counts are 0 and executables NULL; a NULL err is allowed. */
	ck_assert_uint_eq(cgs_runtime_graph_count(NULL), 0);
	ck_assert_uint_eq(cgs_runtime_launch_count(NULL, 3), 0);
	ck_assert_ptr_null(cgs_runtime_graph_exec(NULL, 0));
	ck_assert_int_eq(cgs_runtime_info(NULL, &in, NULL), CGS_E_ARG);
}
END_TEST

/* A stand-in executable: never launched, since every request is refused. */
#define FAKE_EXEC ((cudaGraphExec_t)(uintptr_t)0x1000)

START_TEST(replay_refuses_before_launch)
{
	struct built b;
	struct cgs_runtime *rt;
	struct cgs_runtime_info in;
	struct cgs_runtime_stats st;
	struct cgs_error err = {0};
	uint32_t variants[12] = {0}, graphs[2 * 9 * 5], g, i;

	build(&b, vpp_yaml);
	rt = open_rank(&b, 0);
	get_info(rt, &in);

	ck_assert_int_eq(cgs_runtime_replay(rt, 12, variants, NULL, &err),
			 CGS_E_UNREACHABLE);
	ck_assert_msg(strstr(err.message, "above") != NULL &&
		      strstr(err.message, "L = 9") != NULL, "%s", err.message);
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_runtime_replay(rt, 4, variants, NULL, &err),
			 CGS_E_UNREACHABLE);
	ck_assert_msg(strstr(err.message, "4 is not reachable") != NULL, "%s",
		      err.message);
	ck_assert_int_eq(cgs_runtime_replay(rt, 0, variants, NULL, NULL),
			 CGS_E_UNREACHABLE);
	ck_assert_int_eq(cgs_runtime_replay(rt, 3, NULL, NULL, NULL), CGS_E_ARG);
	variants[2] = 3;
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_runtime_replay(rt, 3, variants, NULL, &err),
			 CGS_E_ARG);
	ck_assert_msg(strstr(err.message, "variant 3 of microbatch 2") != NULL,
		      "%s", err.message);
	variants[2] = 0;
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_runtime_replay(rt, 3, variants, NULL, &err),
			 CGS_E_NOGRAPH);

	/* Variant 0's graphs only: a microbatch of variant 1 still fails. */
	for (g = 0; g < in.n_saved * 2; g++)
		ck_assert_int_eq(cgs_runtime_adopt(rt, g, FAKE_EXEC,
						   CGS_ADOPT_BORROW, &err), 0);
	ck_assert_ptr_eq(cgs_runtime_graph_exec(rt, 0), FAKE_EXEC);
	st.size = sizeof(st);
	ck_assert_int_eq(cgs_runtime_stats(rt, &st, NULL), 0);
	ck_assert_uint_eq(st.size, sizeof(st));
	ck_assert_uint_eq(st.graphs_adopted, in.n_saved * 2);
	ck_assert_uint_eq(st.graphs_captured, 0);
	ck_assert_int_eq(cgs_runtime_sequence(rt, 6, variants, graphs,
					      2 * 9 * 5, NULL), 0);
	for (i = 0; i < 6 * 2 * 5; i++)
		ck_assert_ptr_eq(cgs_runtime_graph_exec(rt, graphs[i]), FAKE_EXEC);
	variants[4] = 1;
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_runtime_replay(rt, 6, variants, NULL, &err),
			 CGS_E_NOGRAPH);
	ck_assert_msg(strstr(err.message, "variant 1") != NULL &&
		      strstr(err.message, "microbatch 4") != NULL,
		      "%s", err.message);

	ck_assert_int_eq(cgs_runtime_adopt(rt, in.n_graphs, FAKE_EXEC, 0, NULL),
			 CGS_E_ARG);
	ck_assert_int_eq(cgs_runtime_adopt(rt, 0, NULL, 0, NULL), CGS_E_ARG);
	ck_assert_int_eq(cgs_runtime_adopt(rt, 0, FAKE_EXEC, 4, NULL), CGS_E_ARG);
	cgs_runtime_destroy(&rt);
	release(&b);
}
END_TEST

static int never_record(void *user, const struct cgs_graph_desc *g,
			cudaStream_t stream)
{
	(void)g;
	(void)stream;
	(*(int *)user)++;
	return 0;
}

START_TEST(cuda_needs_allocation_and_a_device)
{
	struct built b;
	struct cgs_runtime *rt;
	struct cgs_error err = {0};
	uint64_t bytes = 0;
	void *base;
	int calls = 0, devices = 0;

	build(&b, vpp_yaml);
	rt = open_rank(&b, 0);
	ck_assert_int_eq(cgs_runtime_capture(rt, never_record, &calls, NULL,
					     &err), CGS_E_STATE);
	ck_assert_int_eq(cgs_runtime_capture(rt, NULL, NULL, NULL, NULL),
			 CGS_E_ARG);
	ck_assert_int_eq(cgs_runtime_capture(rt, never_record, &calls,
					     cudaStreamLegacy, NULL), CGS_E_ARG);
	ck_assert_int_eq(calls, 0);
	ck_assert_int_eq(cgs_runtime_arena(rt, 0, &base, &bytes, NULL),
			 CGS_E_STATE);
	ck_assert_int_eq(cgs_runtime_arena(rt, 99, &base, &bytes, NULL),
			 CGS_E_ARG);
	if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
		cgs_error_clear(&err);
		ck_assert_int_eq(cgs_runtime_allocate(rt, &bytes, &err),
				 CGS_E_NODEVICE);
		ck_assert_int_ne(err.cuda_error, 0);
		ck_assert_msg(strstr(err.message, "cudaError") != NULL, "%s",
			      err.message);
		ck_assert_uint_eq(bytes, 0);
		ck_assert_int_eq(cgs_runtime_arena(rt, 0, &base, NULL, NULL),
				 CGS_E_STATE);
	}
	cgs_runtime_destroy(&rt);
	release(&b);
}
END_TEST

START_TEST(cuda_error_mapping)
{
	struct cgs_error err = {0};

	ck_assert_int_eq(cgs_cuda_status(cudaSuccess), CGS_OK);
	ck_assert_int_eq(cgs_cuda_status(cudaErrorMemoryAllocation), CGS_E_CUDA);
	ck_assert_int_eq(cgs_cuda_status(cudaErrorInvalidValue), CGS_E_CUDA);
	ck_assert_int_eq(cgs_cuda_status(cudaErrorStreamCaptureInvalidated),
			 CGS_E_CUDA);
	ck_assert_int_eq(cgs_cuda_status(cudaErrorIllegalAddress),
			 CGS_E_CUDA_FATAL);
	ck_assert_int_eq(cgs_cuda_status(cudaErrorLaunchFailure),
			 CGS_E_CUDA_FATAL);
	ck_assert_int_eq(cgs_cuda_status(cudaErrorMisalignedAddress),
			 CGS_E_CUDA_FATAL);
	ck_assert_int_eq(cgs_cuda_status(cudaErrorECCUncorrectable),
			 CGS_E_CUDA_FATAL);
	ck_assert_int_eq(cgs_cuda_status(cudaErrorNoDevice), CGS_E_NODEVICE);
	ck_assert_int_eq(cgs_cuda_status(cudaErrorInsufficientDriver),
			 CGS_E_NODEVICE);

	ck_assert_int_eq(cgs_cuda_fail(&err, cudaErrorMemoryAllocation,
				       "cudaMalloc of arena %d", 3), CGS_E_CUDA);
	ck_assert_int_eq(err.code, CGS_E_CUDA);
	ck_assert_int_eq(err.cuda_error, cudaErrorMemoryAllocation);
	ck_assert_msg(strstr(err.message, "cudaMalloc of arena 3: "
				"cudaErrorMemoryAllocation: ") == err.message,
		      "%s", err.message);
	/* The first error wins, its CUDA code too. */
	ck_assert_int_eq(cgs_cuda_fail(&err, cudaErrorIllegalAddress, "later"),
			 CGS_E_CUDA_FATAL);
	ck_assert_int_eq(err.code, CGS_E_CUDA);
	ck_assert_int_eq(err.cuda_error, cudaErrorMemoryAllocation);

	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_cuda_fail(&err, cudaErrorIllegalAddress, "launch"),
			 CGS_E_CUDA_FATAL);
	ck_assert_int_eq(err.cuda_error, cudaErrorIllegalAddress);
	ck_assert_msg(strstr(err.message, "sticky") != NULL, "%s", err.message);
	ck_assert_int_eq(cgs_cuda_fail(NULL, cudaErrorNoDevice, "x"),
			 CGS_E_NODEVICE);
}
END_TEST

static Suite *runtime_suite(void)
{
	Suite *s = suite_create("runtime");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, info_matches_plan);
	tcase_add_test(tc, version_of_the_library);
	tcase_add_test(tc, sized_structs);
	tcase_add_test(tc, null_runtime);
	tcase_add_test(tc, open_refusals);
	tcase_add_test(tc, sequences_follow_orders);
	tcase_add_test(tc, flat_counts_all_reachable);
	tcase_add_test(tc, locate_matches_plan);
	tcase_add_test(tc, graph_descriptions);
	tcase_add_test(tc, guards_cover_neighbours);
	tcase_add_test(tc, replay_refuses_before_launch);
	tcase_add_test(tc, cuda_needs_allocation_and_a_device);
	tcase_add_test(tc, cuda_error_mapping);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cgs_test_run(runtime_suite());
}
