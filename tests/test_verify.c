/*
 * The verifier on hand-built ranks: each rule passes a safe layout and
 * catches a planted violation, and on random small cases it agrees with a
 * brute-force replay that checks every live pair at every event.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "verify/verify.h"
#include "testlib.h"

#define MAX_CHUNKS 4
#define MAX_ORDERS 8
#define MAX_ENTRIES 512
#define UNIT 64  /* bytes of every range in the default layout */

/* A rank under test with room to edit every range. */
struct fixture {
	uint32_t layers[MAX_CHUNKS];
	uint32_t layer_base[MAX_CHUNKS + 1];
	uint32_t reachable[MAX_ORDERS];
	uint64_t order_start[MAX_ORDERS + 1];
	int32_t entries[MAX_ENTRIES];
	uint64_t arena_bytes[2];
	struct cgs_verify_range *saved, *user_grad;
	struct cgs_verify_range *saved_frames, *user_grad_frames;
	struct cgs_verify_rank vr;
};

/*
 * A layout that is safe for any order: every saved frame has its own
 * 3 * UNIT bytes in arena 0 (variants share them), every user-gradient
 * frame its own layers * UNIT bytes in arena 1.
 */
static void fx_init(struct fixture *fx, uint32_t slots, uint32_t vpp,
		    const uint32_t *layers, uint32_t variants)
{
	uint32_t c, s, l, v, r, total = 0, max_layers = 0;

	memset(fx, 0, sizeof(*fx));
	for (c = 0; c < vpp; c++) {
		fx->layers[c] = layers[c];
		fx->layer_base[c] = total;
		total += layers[c];
		max_layers = layers[c] > max_layers ? layers[c] : max_layers;
	}
	fx->layer_base[vpp] = total;
	fx->vr.rank = 3;
	fx->vr.slots = slots;
	fx->vr.vpp = vpp;
	fx->vr.layers = fx->layers;
	fx->vr.n_variants = variants;
	fx->vr.reachable = fx->reachable;
	fx->vr.order_start = fx->order_start;
	fx->vr.order_entries = fx->entries;
	fx->vr.n_arenas = 2;
	fx->vr.arena_bytes = fx->arena_bytes;
	fx->vr.n_saved = slots * total;
	fx->arena_bytes[0] = (uint64_t)fx->vr.n_saved * 3 * UNIT;
	fx->arena_bytes[1] = (uint64_t)vpp * slots * max_layers * UNIT;
	fx->saved = calloc((size_t)variants * fx->vr.n_saved * 3,
			   sizeof(*fx->saved));
	fx->user_grad = calloc((size_t)variants * fx->vr.n_saved,
			       sizeof(*fx->user_grad));
	ck_assert_ptr_nonnull(fx->saved);
	ck_assert_ptr_nonnull(fx->user_grad);
	fx->vr.saved = fx->saved;
	fx->vr.user_grad = fx->user_grad;
	for (v = 0; v < variants; v++)
		for (c = 0; c < vpp; c++)
			for (s = 0; s < slots; s++)
				for (l = 0; l < layers[c]; l++) {
					uint32_t f = fx->layer_base[c] * slots +
						     s * layers[c] + l;
					uint64_t i = (uint64_t)v * fx->vr.n_saved + f;

					for (r = 0; r < 3; r++)
						fx->saved[i * 3 + r] =
							(struct cgs_verify_range){
								0, ((uint64_t)f * 3 + r) * UNIT,
								UNIT};
					fx->user_grad[i] = (struct cgs_verify_range){
						1, ((uint64_t)(c * slots + s) * max_layers + l) *
							   UNIT, UNIT};
				}
}

static void fx_release(struct fixture *fx)
{
	free(fx->saved);
	free(fx->user_grad);
	free(fx->saved_frames);
	free(fx->user_grad_frames);
	fx->saved = fx->user_grad = NULL;
	fx->saved_frames = fx->user_grad_frames = NULL;
}

/* Give every frame its extent in the default layout. */
static void fx_extents(struct fixture *fx)
{
	uint32_t f, u, n_ug = fx->vr.vpp * fx->vr.slots, max_layers = 0, c;

	for (c = 0; c < fx->vr.vpp; c++)
		max_layers = fx->layers[c] > max_layers ? fx->layers[c]
							: max_layers;
	fx->saved_frames = calloc(fx->vr.n_saved, sizeof(*fx->saved_frames));
	fx->user_grad_frames = calloc(n_ug, sizeof(*fx->user_grad_frames));
	ck_assert_ptr_nonnull(fx->saved_frames);
	ck_assert_ptr_nonnull(fx->user_grad_frames);
	for (f = 0; f < fx->vr.n_saved; f++)
		fx->saved_frames[f] = (struct cgs_verify_range){
			0, (uint64_t)f * 3 * UNIT, 3 * UNIT};
	for (u = 0; u < n_ug; u++)
		fx->user_grad_frames[u] = (struct cgs_verify_range){
			1, (uint64_t)u * max_layers * UNIT, max_layers * UNIT};
	fx->vr.saved_frames = fx->saved_frames;
	fx->vr.user_grad_frames = fx->user_grad_frames;
}

static void fx_order(struct fixture *fx, uint32_t n, const int32_t *e,
		     size_t len)
{
	uint32_t i = fx->vr.n_reachable;

	ck_assert_uint_lt(i, MAX_ORDERS);
	ck_assert_uint_le(fx->order_start[i] + len, MAX_ENTRIES);
	memcpy(fx->entries + fx->order_start[i], e, len * sizeof(*e));
	fx->reachable[i] = n;
	fx->order_start[i + 1] = fx->order_start[i] + len;
	fx->vr.n_reachable++;
}

#define ORDER(fx, n, ...)                                                    \
	do {                                                                 \
		static const int32_t o_[] = {__VA_ARGS__};                   \
		fx_order(fx, n, o_, sizeof(o_) / sizeof(o_[0]));             \
	} while (0)

static struct cgs_verify_range *saved_at(struct fixture *fx, uint32_t c,
					 uint32_t s, uint32_t l, uint32_t v,
					 uint32_t r)
{
	uint32_t f = fx->layer_base[c] * fx->vr.slots + s * fx->layers[c] + l;

	return &fx->saved[((uint64_t)v * fx->vr.n_saved + f) * 3 + r];
}

static struct cgs_verify_range *grad_at(struct fixture *fx, uint32_t c,
					uint32_t s, uint32_t l, uint32_t v)
{
	uint32_t f = fx->layer_base[c] * fx->vr.slots + s * fx->layers[c] + l;

	return &fx->user_grad[(uint64_t)v * fx->vr.n_saved + f];
}

/* Expect a violation whose message contains every given fragment. */
static void expect_violation(struct fixture *fx, int code,
			     const char *const *want)
{
	struct cgs_error err = {0};
	int rc = cgs_verify_rank_check(&fx->vr, NULL, &err);

	ck_assert_msg(rc == code, "got %d (%s), want %d", rc, err.message,
		      code);
	ck_assert_int_eq(err.code, code);
	for (; *want; want++)
		ck_assert_msg(strstr(err.message, *want),
			      "message '%s' lacks '%s'", err.message, *want);
}

#define EXPECT_VIOLATION(fx, ...)                                            \
	do {                                                                 \
		static const char *const w_[] = {__VA_ARGS__, NULL};         \
		expect_violation(fx, CGS_E_VERIFY, w_);                      \
	} while (0)

static void expect_pass(struct fixture *fx)
{
	struct cgs_error err = {0};
	int rc = cgs_verify_rank_check(&fx->vr, NULL, &err);

	ck_assert_msg(rc == 0, "unexpected failure: %s", err.message);
	ck_assert_int_eq(err.code, 0);
}

static const uint32_t one_layer[MAX_CHUNKS] = {1, 1, 1, 1};
static const uint32_t two_layers[MAX_CHUNKS] = {2, 2, 2, 2};

/* The brief's P=4 M=2 G=4 N=8 orders with S=8 and distinct frames. */
START_TEST(safe_layout_passes)
{
	struct fixture fx;

	fx_init(&fx, 8, 2, two_layers, 3);
	ORDER(&fx, 8, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, -2, 1, -2, 2, -2, 2,
	      -2, 2, -1, 2, -1, -1, -1, -2, -2, -2, -2, -1, -1, -1, -1);
	ORDER(&fx, 4, 1, 1, 1, 1, 2, 2, 2, 2, -2, -2, -2, -2, -1, -1, -1, -1);
	expect_pass(&fx);
	fx_release(&fx);
}
END_TEST

/* Frames that are never live together may share bytes. */
START_TEST(disjoint_lifetimes_share)
{
	struct fixture fx;

	/* 1F1B with S=2: saved (0,0) lives at 0..1, (0,1) at 2..3. */
	fx_init(&fx, 2, 1, one_layer, 2);
	ORDER(&fx, 2, 1, -1, 1, -1);
	*saved_at(&fx, 0, 1, 0, 0, 0) = *saved_at(&fx, 0, 0, 0, 1, 0);
	*saved_at(&fx, 0, 1, 0, 1, 0) = *saved_at(&fx, 0, 0, 0, 0, 0);
	expect_pass(&fx);

	/* ... but the gradient of 0 is sent until the backward at 3. */
	*grad_at(&fx, 0, 1, 0, 1) = *grad_at(&fx, 0, 0, 0, 0);
	EXPECT_VIOLATION(&fx, "rank 3, N 2, order position 3 (entry -1)",
			 "user-gradient frame (chunk 0, slot 0) layer 0 "
			 "variant 0 arena 1 [0, 64)",
			 "user-gradient frame (chunk 0, slot 1) layer 0 "
			 "variant 1 arena 1 [0, 64)");
	fx_release(&fx);
}
END_TEST

/* Two microbatches in flight at once must not share saved bytes. */
START_TEST(live_saved_frames_overlap)
{
	struct fixture fx;

	fx_init(&fx, 2, 1, one_layer, 1);
	ORDER(&fx, 2, 1, 1, -1, -1);
	saved_at(&fx, 0, 1, 0, 0, 2)->offset = 32; /* into (0,0)'s input */
	EXPECT_VIOLATION(&fx, "N 2, order position 1 (entry +1)",
			 "saved frame (chunk 0, slot 0, layer 0) variant 0 "
			 "role input arena 0 [0, 64)",
			 "saved frame (chunk 0, slot 1, layer 0) variant 0 "
			 "role saved arena 0 [32, 96)");
	fx_release(&fx);
}
END_TEST

/*
 * Only a cross-variant comparison catches this: variant 0 of both frames
 * is apart, but slot 1's variant 1 lands on slot 0's variant 0.
 */
START_TEST(cross_variant_overlap)
{
	struct fixture fx;
	static const char *const names[] = {"cp1", "cp8"};

	fx_init(&fx, 2, 1, one_layer, 2);
	fx.vr.variant_names = names;
	ORDER(&fx, 2, 1, 1, -1, -1);
	*saved_at(&fx, 0, 1, 0, 1, 1) = *saved_at(&fx, 0, 0, 0, 0, 1);
	EXPECT_VIOLATION(&fx, "variant 0 'cp1' role output",
			 "variant 1 'cp8' role output");
	fx_release(&fx);
}
END_TEST

/* Saved frames against user-gradient frames, when they share an arena. */
START_TEST(saved_against_user_grad)
{
	struct fixture fx;
	struct cgs_verify_range *g;

	fx_init(&fx, 1, 1, one_layer, 1);
	ORDER(&fx, 1, 1, -1);
	/* The gradient written at the backward meets the frame it reads. */
	g = grad_at(&fx, 0, 0, 0, 0);
	*g = *saved_at(&fx, 0, 0, 0, 0, 2);
	EXPECT_VIOLATION(&fx, "order position 1 (entry -1)",
			 "role saved arena 0 [128, 192)",
			 "user-gradient frame (chunk 0, slot 0)");
	fx_release(&fx);
}
END_TEST

/* Within one frame and variant the roles are apart; across variants not. */
START_TEST(within_frame)
{
	struct fixture fx;

	fx_init(&fx, 1, 1, two_layers, 2);
	ORDER(&fx, 1, 1, -1);
	/* Variant 1 swaps input and saved: one variant runs at a time. */
	*saved_at(&fx, 0, 0, 1, 1, 2) = *saved_at(&fx, 0, 0, 1, 0, 0);
	*saved_at(&fx, 0, 0, 1, 1, 0) = *saved_at(&fx, 0, 0, 1, 0, 2);
	expect_pass(&fx);
	/* The same variant's output over its input: a violation. */
	*saved_at(&fx, 0, 0, 1, 1, 1) = *saved_at(&fx, 0, 0, 1, 1, 2);
	EXPECT_VIOLATION(&fx, "rank 3: saved frame (chunk 0, slot 0, layer 1) "
			 "variant 1 role", "overlaps saved frame (chunk 0, "
			 "slot 0, layer 1) variant 1 role");
	fx_release(&fx);
}
END_TEST

/* Layers of one event are live together, whatever their variants. */
START_TEST(layers_of_one_event)
{
	struct fixture fx;

	fx_init(&fx, 1, 1, two_layers, 2);
	ORDER(&fx, 1, 1, -1);
	*saved_at(&fx, 0, 0, 1, 1, 0) = *saved_at(&fx, 0, 0, 0, 0, 2);
	EXPECT_VIOLATION(&fx, "(chunk 0, slot 0, layer 0) variant 0 role saved",
			 "(chunk 0, slot 0, layer 1) variant 1 role input");
	fx_release(&fx);

	/* The layers of one user-gradient frame, within one variant. */
	fx_init(&fx, 1, 1, two_layers, 2);
	ORDER(&fx, 1, 1, -1);
	*grad_at(&fx, 0, 0, 1, 1) = *grad_at(&fx, 0, 0, 0, 0);
	*grad_at(&fx, 0, 0, 0, 1) = *grad_at(&fx, 0, 0, 1, 0);
	expect_pass(&fx);
	*grad_at(&fx, 0, 0, 1, 1) = *grad_at(&fx, 0, 0, 0, 1);
	EXPECT_VIOLATION(&fx, "user-gradient frame (chunk 0, slot 0) layer 0 "
			 "variant 1", "user-gradient frame (chunk 0, slot 0) "
			 "layer 1 variant 1");
	fx_release(&fx);
}
END_TEST

START_TEST(arena_bounds)
{
	struct fixture fx;

	fx_init(&fx, 2, 2, one_layer, 1);
	ORDER(&fx, 2, 1, 1, 2, -2, 2, -2, -1, -1);
	expect_pass(&fx);
	fx.arena_bytes[0] -= 1;
	EXPECT_VIOLATION(&fx, "saved frame (chunk 1, slot 1, layer 0) variant 0 "
			 "role saved range [704, +64) lies outside arena 0 of "
			 "767 bytes");
	fx.arena_bytes[0] += 1;
	saved_at(&fx, 1, 0, 0, 0, 1)->arena = 2;
	EXPECT_VIOLATION(&fx, "names arena 2, but the rank has 2 arenas");
	saved_at(&fx, 1, 0, 0, 0, 1)->arena = 0;
	/* Offsets so large that offset + bytes wraps around. */
	grad_at(&fx, 0, 1, 0, 0)->offset = UINT64_MAX - 8;
	EXPECT_VIOLATION(&fx, "user-gradient frame (chunk 0, slot 1) layer 0",
			 "lies outside arena 1");
	grad_at(&fx, 0, 1, 0, 0)->offset = 64;
	expect_pass(&fx);
	/* Larger than the whole arena. */
	saved_at(&fx, 0, 0, 0, 0, 0)->bytes = fx.arena_bytes[0] + UNIT;
	EXPECT_VIOLATION(&fx, "(chunk 0, slot 0, layer 0) variant 0 role input "
			 "range [0, +832) lies outside arena 0");
	saved_at(&fx, 0, 0, 0, 0, 0)->bytes = UNIT;
	fx.vr.alignment = 128;
	EXPECT_VIOLATION(&fx, "starts at 64, not a multiple of the alignment "
			 "128");
	fx_release(&fx);
}
END_TEST

/* Ranges of no bytes hold nothing and overlap nothing. */
/* Frame extents: ranges stay inside them, and live extents are apart. */
START_TEST(extents)
{
	struct fixture fx;

	fx_init(&fx, 2, 1, two_layers, 2);
	fx_extents(&fx);
	ORDER(&fx, 2, 1, 1, -1, -1);
	expect_pass(&fx);
	/* A role of variant 1 that pokes out of its frame. */
	saved_at(&fx, 0, 0, 1, 1, 2)->offset += UNIT;
	EXPECT_VIOLATION(&fx, "rank 3: saved frame (chunk 0, slot 0, layer 1) "
			 "variant 1 role saved arena 0 [384, 448) lies outside "
			 "saved frame (chunk 0, slot 0, layer 1) extent arena 0 "
			 "[192, 384)");
	saved_at(&fx, 0, 0, 1, 1, 2)->offset -= UNIT;
	grad_at(&fx, 0, 1, 0, 0)->arena = 0;
	EXPECT_VIOLATION(&fx, "user-gradient frame (chunk 0, slot 1) layer 0 "
			 "variant 0 arena 0 [128, 192) lies outside "
			 "user-gradient frame (chunk 0, slot 1) extent arena 1");
	grad_at(&fx, 0, 1, 0, 0)->arena = 1;
	expect_pass(&fx);
	/* Extents of live frames overlap though their ranges do not. */
	fx.saved_frames[2].offset -= UNIT;
	fx.saved_frames[2].bytes += UNIT;
	EXPECT_VIOLATION(&fx, "N 2, order position 1 (entry +1)",
			 "saved frame (chunk 0, slot 0, layer 1) ",
			 "saved frame (chunk 0, slot 1, layer 0) extent "
			 "arena 0 [320, 576)");
	fx_release(&fx);
}
END_TEST

START_TEST(empty_ranges)
{
	struct fixture fx;

	fx_init(&fx, 2, 1, one_layer, 2);
	ORDER(&fx, 2, 1, 1, -1, -1);
	*saved_at(&fx, 0, 1, 0, 1, 0) = *saved_at(&fx, 0, 0, 0, 0, 0);
	saved_at(&fx, 0, 1, 0, 1, 0)->bytes = 0;
	expect_pass(&fx);
	fx_release(&fx);
}
END_TEST

START_TEST(malformed_orders)
{
	struct fixture fx;

	fx_init(&fx, 2, 2, one_layer, 1);
	ORDER(&fx, 1, 1, 3, -1, -2);
	EXPECT_VIOLATION(&fx, "rank 3, N 1, order position 1 (entry +3): no "
			 "such chunk (accepted: 1..2 and -2..-1)");
	fx_release(&fx);

	fx_init(&fx, 2, 2, one_layer, 1);
	ORDER(&fx, 1, 1, -2, 2, -1);
	EXPECT_VIOLATION(&fx, "order position 1 (entry -2): the backward of "
			 "chunk 1 microbatch 0 comes before its forward");
	fx_release(&fx);

	fx_init(&fx, 2, 2, one_layer, 1);
	ORDER(&fx, 1, 1, 2, -2);
	EXPECT_VIOLATION(&fx, "N 1: the order has 3 entries, expected "
			 "2 * N * M = 4");
	fx_release(&fx);

	fx_init(&fx, 2, 2, one_layer, 1);
	ORDER(&fx, 2, 1, 1, 2, 2, 2, -1, -1, -2);
	EXPECT_VIOLATION(&fx, "N 2, order position 4 (entry +2): chunk 1 runs "
			 "more than N forwards");
	fx_release(&fx);

	fx_init(&fx, 2, 1, one_layer, 1);
	ORDER(&fx, 2, 1, 1, -1, 1);
	EXPECT_VIOLATION(&fx, "order position 3 (entry +1): chunk 0 runs more "
			 "than N forwards");
	fx_release(&fx);
}
END_TEST

/* A ring too short for the order: forwards and gradients reuse frames. */
START_TEST(reused_frames)
{
	struct fixture fx;

	fx_init(&fx, 1, 1, one_layer, 1);
	ORDER(&fx, 2, 1, 1, -1, -1);
	EXPECT_VIOLATION(&fx, "N 2, order position 1 (entry +1): the forward of "
			 "chunk 0 microbatch 1 reuses saved frames of slot 0 "
			 "that are still live (a ring of 1 slots is too short)");
	fx_release(&fx);

	/* S=1 1F1B: saved frames are fine, the gradient is still sending. */
	fx_init(&fx, 1, 1, one_layer, 1);
	ORDER(&fx, 2, 1, -1, 1, -1);
	EXPECT_VIOLATION(&fx, "order position 3 (entry -1): the backward of "
			 "chunk 0 microbatch 1 reuses the user-gradient frame "
			 "(chunk 0, slot 0) of the previous backward");
	fx_release(&fx);

	/* Two chunks: the gradient of -2 ends at the next -1, so S=1 works. */
	fx_init(&fx, 1, 2, one_layer, 1);
	ORDER(&fx, 1, 1, 2, -2, -1);
	expect_pass(&fx);
	fx_release(&fx);
}
END_TEST

/* Of several violations, the one live together first is reported. */
START_TEST(first_violation_reported)
{
	struct fixture fx;

	fx_init(&fx, 3, 1, one_layer, 1);
	ORDER(&fx, 3, 1, 1, 1, -1, -1, -1);
	/* Slots 1 and 2 meet at position 2; slots 0 and 1 at 1. */
	saved_at(&fx, 0, 2, 0, 0, 0)->offset = saved_at(&fx, 0, 1, 0, 0, 0)->offset;
	expect_violation(&fx, CGS_E_VERIFY, (const char *const[]){
		"order position 2 (entry +1)", "slot 1", "slot 2", NULL});
	saved_at(&fx, 0, 1, 0, 0, 1)->offset = saved_at(&fx, 0, 0, 0, 0, 1)->offset;
	expect_violation(&fx, CGS_E_VERIFY, (const char *const[]){
		"order position 1 (entry +1)", "slot 0", "slot 1", NULL});
	fx_release(&fx);

	/* Orders are searched in the stored order, N by N. */
	fx_init(&fx, 2, 1, one_layer, 1);
	ORDER(&fx, 1, 1, -1);
	ORDER(&fx, 2, 1, 1, -1, -1);
	saved_at(&fx, 0, 1, 0, 0, 0)->offset = 0;
	EXPECT_VIOLATION(&fx, "rank 3, N 2, order position 1 (entry +1)");
	fx_release(&fx);
}
END_TEST

/*
 * A map with a row per chunk: each chunk's microbatches take their own
 * row's slots.  Every case below passes if the verifier read chunk 0's
 * row for every chunk, so each fails unless it reads the rows apart.
 */
START_TEST(chunk_slot_maps)
{
	struct fixture fx;
	uint32_t map[4] = {0, 1, 0, 0};      /* chunk 0: 0 1, chunk 1: 0 0 */
	uint64_t start[2] = {0, 2};          /* count 0: chunk 0, chunk 1 */
	struct cgs_error err = {0};

	/* chunk 1 runs one microbatch at a time: one slot is enough */
	fx_init(&fx, 2, 2, one_layer, 1);
	ORDER(&fx, 2, 2, -2, 1, 1, -1, -1, 2, -2);
	fx.vr.slot_map = map;
	fx.vr.slot_map_start = start;
	fx.vr.slot_map_rows = 2;
	expect_pass(&fx);
	fx_release(&fx);

	/* both of chunk 1's microbatches in flight on slot 1 */
	map[2] = map[3] = 1;
	fx_init(&fx, 2, 2, one_layer, 1);
	ORDER(&fx, 2, 1, 1, 2, 2, -2, -2, -1, -1);
	fx.vr.slot_map = map;
	fx.vr.slot_map_start = start;
	fx.vr.slot_map_rows = 2;
	EXPECT_VIOLATION(&fx, "N 2, order position 3 (entry +2): the forward "
			 "of chunk 1 microbatch 1 reuses saved frames of slot "
			 "1 that are still live (the slot map is unsafe)");
	fx_release(&fx);

	/* chunk 1's backwards follow one another on user-grad frame (1, 1) */
	fx_init(&fx, 2, 2, one_layer, 1);
	ORDER(&fx, 2, 1, 1, -1, 2, -2, 2, -2, -1);
	fx.vr.slot_map = map;
	fx.vr.slot_map_start = start;
	fx.vr.slot_map_rows = 2;
	EXPECT_VIOLATION(&fx, "order position 6 (entry -2): the backward of "
			 "chunk 1 microbatch 1 reuses the user-gradient frame "
			 "(chunk 1, slot 1) of the previous backward");

	/* rows are 0 or 1 (shared) or one per chunk */
	fx.vr.slot_map_rows = 3;
	ck_assert_int_eq(cgs_verify_rank_check(&fx.vr, NULL, &err), CGS_E_ARG);
	ck_assert_ptr_nonnull(strstr(err.message, "3 slot map rows per count"));
	fx_release(&fx);
}
END_TEST

START_TEST(bad_description)
{
	struct fixture fx;
	struct cgs_error err = {0};

	fx_init(&fx, 2, 1, one_layer, 1);
	ORDER(&fx, 1, 1, -1);
	fx.vr.n_saved = 3;
	ck_assert_int_eq(cgs_verify_rank_check(&fx.vr, NULL, &err), CGS_E_ARG);
	ck_assert_ptr_nonnull(strstr(err.message, "3 saved frames, expected 2"));
	fx.vr.n_saved = 2;
	fx.vr.saved = NULL;
	ck_assert_int_eq(cgs_verify_rank_check(&fx.vr, NULL, NULL), CGS_E_ARG);
	ck_assert_int_eq(cgs_verify_rank_check(NULL, NULL, NULL), CGS_E_ARG);
	fx.vr.saved = fx.saved;
	fx.vr.slots = CGS_VERIFY_MAX_GROUPS + 1;
	fx.vr.n_saved = fx.vr.slots;
	ck_assert_int_eq(cgs_verify_rank_check(&fx.vr, NULL, NULL), CGS_E_LIMIT);
	fx_release(&fx);
}
END_TEST

/* ---- random small cases against a brute-force replay ---- */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng_state >> 33) % n;
}

/* A random drained order with at most `cap` microbatches of a chunk open. */
static size_t random_order(uint32_t vpp, uint32_t n, uint32_t cap,
			   int32_t *out)
{
	uint32_t fwd[MAX_CHUNKS] = {0}, bwd[MAX_CHUNKS] = {0};
	size_t len = 0;

	while (len < 2 * (size_t)n * vpp) {
		uint32_t c = rnd(vpp);

		if (rnd(2) && fwd[c] < n && fwd[c] - bwd[c] < cap) {
			fwd[c]++;
			out[len++] = (int32_t)c + 1;
		} else if (bwd[c] < fwd[c]) {
			bwd[c]++;
			out[len++] = -(int32_t)c - 1;
		}
	}
	return len;
}

static int overlap(const struct cgs_verify_range *a,
		   const struct cgs_verify_range *b)
{
	return a->bytes && b->bytes && a->arena == b->arena &&
	       a->offset < b->offset + b->bytes &&
	       b->offset < a->offset + a->bytes;
}

static int outside(const struct fixture *fx, const struct cgs_verify_range *a)
{
	return a->arena >= fx->vr.n_arenas ||
	       a->offset + a->bytes < a->offset ||
	       a->offset + a->bytes > fx->arena_bytes[a->arena];
}

/* One lifetime: a saved group or a user-gradient frame of one microbatch. */
struct instance {
	int grad;
	uint32_t c, s;
	uint64_t from, to;  /* inclusive */
};

struct tagged {
	uint32_t instance, frame, variant;
	struct cgs_verify_range range;
};

/* Every range an instance holds, tagged with the instance and frame. */
static uint32_t instance_ranges(const struct fixture *fx,
				const struct instance *in, uint32_t id,
				struct tagged *out)
{
	const struct cgs_verify_rank *vr = &fx->vr;
	uint32_t l, v, r, n = 0;

	for (l = 0; l < fx->layers[in->c]; l++) {
		uint32_t f = fx->layer_base[in->c] * vr->slots +
			     in->s * fx->layers[in->c] + l;

		for (v = 0; v < vr->n_variants; v++) {
			uint64_t i = (uint64_t)v * vr->n_saved + f;

			if (in->grad)
				out[n++] = (struct tagged){id,
					vr->n_saved + in->c * vr->slots + in->s,
					v, vr->user_grad[i]};
			else
				for (r = 0; r < 3; r++)
					out[n++] = (struct tagged){id, f, v,
						vr->saved[i * 3 + r]};
		}
	}
	return n;
}

/* Two ranges may share bytes only as variants of one frame of one instance. */
static int clash(const struct tagged *t, uint32_t n)
{
	uint32_t x, y;

	for (x = 0; x < n; x++)
		for (y = x + 1; y < n; y++)
			if (overlap(&t[x].range, &t[y].range) &&
			    !(t[x].instance == t[y].instance &&
			      t[x].frame == t[y].frame &&
			      t[x].variant != t[y].variant))
				return 1;
	return 0;
}

/*
 * The slow, obvious check: list every microbatch's lifetimes, and at every
 * event compare every two ranges of everything live.  Returns 1 when some
 * rule is broken.
 */
static int brute_force(const struct fixture *fx)
{
	const struct cgs_verify_rank *vr = &fx->vr;
	uint32_t S = vr->slots, M = vr->vpp, i, c, s, x, y, n;
	static struct instance inst[2 * MAX_ENTRIES];
	static struct tagged tags[4096];
	uint64_t j;

	for (j = 0; j < (uint64_t)vr->n_variants * vr->n_saved; j++) {
		if (outside(fx, &vr->user_grad[j]))
			return 1;
		for (x = 0; x < 3; x++)
			if (outside(fx, &vr->saved[j * 3 + x]))
				return 1;
	}
	/* Every frame group on its own, live or not. */
	for (c = 0; c < M; c++)
		for (s = 0; s < S; s++)
			for (x = 0; x < 2; x++) {
				struct instance one = {(int)x, c, s, 0, 0};

				n = instance_ranges(fx, &one, 0, tags);
				if (clash(tags, n))
					return 1;
			}
	for (i = 0; i < vr->n_reachable; i++) {
		const int32_t *e = vr->order_entries + vr->order_start[i];
		uint64_t len = vr->order_start[i + 1] - vr->order_start[i], p, q;
		uint64_t fpos[MAX_CHUNKS][64], fw[MAX_CHUNKS] = {0},
			 bw[MAX_CHUNKS] = {0};
		uint32_t n_inst = 0;

		for (p = 0; p < len; p++) {
			c = (uint32_t)abs(e[p]) - 1;
			if (e[p] > 0) {
				fpos[c][fw[c]++] = p;
				continue;
			}
			inst[n_inst++] = (struct instance){0, c,
				(uint32_t)(bw[c] % S), fpos[c][bw[c]], p};
			/* The gradient lasts through the next backward. */
			for (q = p + 1; q < len && e[q] > 0; q++)
				;
			inst[n_inst++] = (struct instance){1, c,
				(uint32_t)(bw[c] % S), p, q < len ? q : len - 1};
			bw[c]++;
		}
		/* One frame used by two lifetimes that meet: reuse. */
		for (x = 0; x < n_inst; x++)
			for (y = x + 1; y < n_inst; y++)
				if (inst[x].grad == inst[y].grad &&
				    inst[x].c == inst[y].c &&
				    inst[x].s == inst[y].s &&
				    inst[x].from <= inst[y].to &&
				    inst[y].from <= inst[x].to)
					return 1;
		for (p = 0; p < len; p++) {
			n = 0;
			for (x = 0; x < n_inst; x++)
				if (inst[x].from <= p && p <= inst[x].to)
					n += instance_ranges(fx, &inst[x], x,
							     tags + n);
			if (clash(tags, n))
				return 1;
		}
	}
	return 0;
}

START_TEST(agrees_with_brute_force)
{
	uint32_t trial, failures = 0;

	rng_state = 0x5eed0000u + (uint64_t)_i;
	for (trial = 0; trial < 400; trial++) {
		struct fixture fx;
		uint32_t layers[MAX_CHUNKS], c, vpp = 1 + rnd(3), slots = 1 + rnd(4);
		uint32_t variants = 1 + rnd(3), k, n_orders = 1 + rnd(3);
		uint64_t j;
		struct cgs_error err = {0};
		int got, want;

		for (c = 0; c < MAX_CHUNKS; c++)
			layers[c] = 1 + rnd(2);
		fx_init(&fx, slots, vpp, layers, variants);
		for (k = 0; k < n_orders; k++) {
			int32_t o[64];
			uint32_t n = 1 + rnd(4);
			size_t len = random_order(vpp, n,
						  slots + (rnd(6) == 0), o);

			fx_order(&fx, n, o, len);
		}
		/* Move a few ranges to random places, rarely past the end. */
		for (j = 0; j < (uint64_t)variants * fx.vr.n_saved * 3; j++)
			if (rnd(16) == 0)
				fx.saved[j] = (struct cgs_verify_range){0,
					UNIT / 2 * rnd((uint32_t)(fx.arena_bytes[0] /
						(UNIT / 2)) + 1), UNIT / 2 * rnd(3)};
		for (j = 0; j < (uint64_t)variants * fx.vr.n_saved; j++)
			if (rnd(12) == 0)
				fx.user_grad[j] = (struct cgs_verify_range){
					rnd(8) ? 1 : 0, UNIT / 2 * rnd(2 * fx.vr.slots),
					UNIT / 2 * rnd(3)};
		got = cgs_verify_rank_check(&fx.vr, NULL, &err);
		want = brute_force(&fx);
		ck_assert_msg((got != 0) == want,
			      "trial %u: verifier says %d (%s), brute force %d",
			      trial, got, err.message, want);
		if (got)
			ck_assert_int_eq(got, CGS_E_VERIFY);
		failures += want;
		fx_release(&fx);
	}
	/* Both outcomes must be well represented for the test to mean much. */
	ck_assert_uint_gt(failures, 40);
	ck_assert_uint_lt(failures, 360);
}
END_TEST

static Suite *verify_suite(void)
{
	Suite *s = suite_create("verify");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, safe_layout_passes);
	tcase_add_test(tc, disjoint_lifetimes_share);
	tcase_add_test(tc, live_saved_frames_overlap);
	tcase_add_test(tc, cross_variant_overlap);
	tcase_add_test(tc, saved_against_user_grad);
	tcase_add_test(tc, within_frame);
	tcase_add_test(tc, layers_of_one_event);
	tcase_add_test(tc, arena_bounds);
	tcase_add_test(tc, extents);
	tcase_add_test(tc, empty_ranges);
	tcase_add_test(tc, malformed_orders);
	tcase_add_test(tc, reused_frames);
	tcase_add_test(tc, first_violation_reported);
	tcase_add_test(tc, bad_description);
	tcase_add_test(tc, chunk_slot_maps);
	tcase_add_loop_test(tc, agrees_with_brute_force, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cgs_test_run(verify_suite());
}
