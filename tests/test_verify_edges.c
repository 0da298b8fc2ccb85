/*
 * The verifier's refusals that no planner produces: incomplete or
 * inconsistent rank descriptions, malformed orders handed to the library
 * directly, and manifests that claim the hash of another schedule (so
 * that every shape check behind the hash check is reached).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "input/schedule.h"
#include "order/schedule_load.h"
#include "manifest/manifest.h"
#include "manifest/writer.h"
#include "plan/plan.h"
#include "testlib.h"
#include "verify/verify.h"

/*
 * One chunk of one layer, one slot, one variant, N = 1: the order +1 -1,
 * every range in its own 256 bytes of one arena.
 */
struct tiny {
	uint32_t layers[2];
	uint32_t reachable[1];
	uint64_t order_start[2];
	int32_t entries[2];
	uint64_t arena_bytes[1];
	struct cgs_verify_range saved[3];
	struct cgs_verify_range user_grad[1];
	struct cgs_verify_rank vr;
};

static void tiny_init(struct tiny *t)
{
	uint32_t r;

	memset(t, 0, sizeof(*t));
	t->layers[0] = 1;
	t->reachable[0] = 1;
	t->order_start[1] = 2;
	t->entries[0] = 1;
	t->entries[1] = -1;
	t->arena_bytes[0] = 4 * 256;
	for (r = 0; r < 3; r++)
		t->saved[r] = (struct cgs_verify_range){0, r * 256, 256};
	t->user_grad[0] = (struct cgs_verify_range){0, 3 * 256, 256};
	t->vr = (struct cgs_verify_rank){
		.rank = 0, .slots = 1, .vpp = 1, .layers = t->layers,
		.n_variants = 1, .n_reachable = 1, .reachable = t->reachable,
		.order_start = t->order_start, .order_entries = t->entries,
		.n_arenas = 1, .arena_bytes = t->arena_bytes, .alignment = 256,
		.n_saved = 1, .saved = t->saved, .user_grad = t->user_grad,
	};
}

static void expect_code(const struct cgs_verify_rank *vr, int code,
			const char *needle)
{
	struct cgs_error err = {0};
	int rc = cgs_verify_rank_check(vr, NULL, &err);

	ck_assert_msg(rc == code, "got %s (%s), want %s", cgs_status_name(rc),
		      err.message, cgs_status_name(code));
	ck_assert_msg(strstr(err.message, needle), "message '%s' lacks '%s'",
		      err.message, needle);
}

START_TEST(incomplete_descriptions)
{
	struct tiny t;
	struct cgs_error err = {0};

	tiny_init(&t);
	ck_assert_msg(cgs_verify_rank_check(&t.vr, NULL, &err) == 0, "%s",
		      err.message);
	expect_code(NULL, CGS_E_ARG, "incomplete");
#define INCOMPLETE(edit)                                                      \
	do {                                                                  \
		tiny_init(&t);                                                \
		edit;                                                         \
		expect_code(&t.vr, CGS_E_ARG, "incomplete rank description"); \
	} while (0)
	INCOMPLETE(t.vr.layers = NULL);
	INCOMPLETE(t.vr.slots = 0);
	INCOMPLETE(t.vr.vpp = 0);
	INCOMPLETE(t.vr.n_variants = 0);
	INCOMPLETE(t.vr.reachable = NULL);
	INCOMPLETE(t.vr.order_start = NULL);
	INCOMPLETE(t.vr.order_entries = NULL);
	INCOMPLETE(t.vr.arena_bytes = NULL);
	INCOMPLETE(t.vr.saved = NULL);
	INCOMPLETE(t.vr.user_grad = NULL);
#undef INCOMPLETE
	/* No reachable count needs no order; no arena needs no sizes. */
	tiny_init(&t);
	t.vr.n_reachable = 0;
	t.vr.reachable = NULL;
	t.vr.order_start = NULL;
	t.vr.order_entries = NULL;
	ck_assert_int_eq(cgs_verify_rank_check(&t.vr, NULL, NULL), 0);

	tiny_init(&t);
	t.layers[0] = 0;
	expect_code(&t.vr, CGS_E_ARG, "chunk 0 has no layers");
	tiny_init(&t);
	t.vr.n_saved = 2;
	expect_code(&t.vr, CGS_E_ARG, "2 saved frames, expected 1");
	tiny_init(&t);
	t.vr.vpp = 2;
	t.layers[1] = 1;
	t.vr.slots = 0x10000;
	expect_code(&t.vr, CGS_E_LIMIT, "more than the verifier handles");
}
END_TEST

START_TEST(malformed_orders)
{
	struct tiny t;

	tiny_init(&t);
	t.order_start[1] = 4;
	expect_code(&t.vr, CGS_E_VERIFY, "the order has 4 entries, expected 2 * N * M = 2");
	tiny_init(&t);
	t.order_start[0] = 3;
	t.order_start[1] = 2;
	expect_code(&t.vr, CGS_E_VERIFY, "the order has -1 entries");
	tiny_init(&t);
	t.entries[0] = 0;
	expect_code(&t.vr, CGS_E_VERIFY, "no such chunk");
	tiny_init(&t);
	t.entries[0] = 2;
	expect_code(&t.vr, CGS_E_VERIFY, "no such chunk");
	tiny_init(&t);
	t.entries[1] = -2;
	expect_code(&t.vr, CGS_E_VERIFY, "no such chunk");
	tiny_init(&t);
	t.entries[0] = -1;
	expect_code(&t.vr, CGS_E_VERIFY, "comes before its forward");
	tiny_init(&t);
	t.entries[1] = 1;
	expect_code(&t.vr, CGS_E_VERIFY, "runs more than N forwards");
	/* Ranges must stay inside their arena. */
	tiny_init(&t);
	t.saved[2].offset = 4 * 256;
	expect_code(&t.vr, CGS_E_VERIFY, "range [1024, +256) lies outside arena 0 of 1024 bytes");
	tiny_init(&t);
	t.saved[1].offset = 8;
	expect_code(&t.vr, CGS_E_VERIFY, "role output starts at 8, not a multiple of the alignment 256");
}
END_TEST

static const char base_yaml[] =
	"cgslot: 1\n"
	"name: edges\n"
	"pipeline: {pp: 2, vpp: 2, layers_per_chunk: [1, 2], microbatch_group: 2, max_microbatches: 4}\n"
	"alignment: 256\n"
	"variants:\n"
	"  - {name: a, cp: 1, bytes: {input: 1000, output: 1000, saved: 4000, user_grad: 1000}}\n"
	"  - {name: b, cp: 2, bytes: {input: 2000, output: 500, saved: 3000, user_grad: 700}}\n";

static struct cgs_schedule *load(const char *yaml)
{
	struct cgs_schedule *s = NULL;
	struct cgs_error err = {0};

	ck_assert_msg(cgs_schedule_load_buffer("edges.yaml", yaml, strlen(yaml),
					       NULL, &s, &err) == 0,
		      "%s", err.message);
	return s;
}

/*
 * The manifest of base_yaml, stamped with the hash of `other` so that the
 * checks behind the hash comparison see a different schedule.
 */
static void expect_mismatch(const char *other, const char *needle)
{
	struct cgs_schedule *s = load(base_yaml), *t = load(other);
	struct cgs_plan_options opt;
	struct cgs_plan *plan = NULL;
	struct cgs_manifest *m = NULL;
	struct cgs_error err = {0};
	void *bytes = NULL;
	size_t len = 0;
	int rc;

	cgs_plan_options_init(&opt);
	ck_assert_msg(cgs_plan_create(s, &opt, &plan, &err) == 0, "%s",
		      err.message);
	ck_assert_msg(cgs_manifest_write(plan, cgs_schedule_hash(t), &bytes,
					 &len, &err) == 0, "%s", err.message);
	ck_assert_msg(cgs_manifest_open_buffer(bytes, len, &m, &err) == 0,
		      "%s", err.message);
	rc = cgs_verify_manifest_schedule(m, t, &err);
	ck_assert_msg(rc == CGS_E_MISMATCH, "got %s (%s) for '%s'",
		      cgs_status_name(rc), err.message, needle);
	ck_assert_msg(strstr(err.message, needle), "message '%s' lacks '%s'",
		      err.message, needle);
	/*
	 * A wrong hash is named (the name alone is outside the hash, so
	 * there the base schedule matches its own manifest).
	 */
	cgs_error_clear(&err);
	rc = cgs_verify_manifest_schedule(m, s, &err);
	if (cgs_schedule_hash(t) == cgs_schedule_hash(s)) {
		ck_assert_msg(rc == 0, "%s", err.message);
	} else {
		ck_assert_int_eq(rc, CGS_E_MISMATCH);
		ck_assert_msg(strstr(err.message, "does not match the manifest"),
			      "%s", err.message);
	}
	cgs_manifest_close(&m);
	free(bytes);
	cgs_plan_destroy(&plan);
	cgs_schedule_destroy(&t);
	cgs_schedule_destroy(&s);
}

START_TEST(schedule_shapes_behind_the_hash)
{
	expect_mismatch(
		"cgslot: 1\n"
		"name: edges\n"
		"pipeline: {pp: 2, vpp: 2, layers_per_chunk: [1, 2], microbatch_group: 2, max_microbatches: 4, ranks: [1]}\n"
		"alignment: 256\n"
		"variants:\n"
		"  - {name: a, cp: 1, bytes: {input: 1000, output: 1000, saved: 4000, user_grad: 1000}}\n"
		"  - {name: b, cp: 2, bytes: {input: 2000, output: 500, saved: 3000, user_grad: 700}}\n",
		"the manifest plans 2 ranks, the schedule 1");
	expect_mismatch(
		"cgslot: 1\n"
		"name: edges\n"
		"pipeline: {pp: 3, vpp: 2, layers_per_chunk: [1, 2], microbatch_group: 2, max_microbatches: 4, ranks: [0, 2]}\n"
		"alignment: 256\n"
		"variants:\n"
		"  - {name: a, cp: 1, bytes: {input: 1000, output: 1000, saved: 4000, user_grad: 1000}}\n"
		"  - {name: b, cp: 2, bytes: {input: 2000, output: 500, saved: 3000, user_grad: 700}}\n",
		"the manifest plans rank 1 where the schedule plans rank 2");
	expect_mismatch(
		"cgslot: 1\n"
		"name: edges\n"
		"pipeline: {pp: 2, vpp: 2, layers_per_chunk: [1, 2], microbatch_group: 2, max_microbatches: 4}\n"
		"alignment: 256\n"
		"variants:\n"
		"  - {name: a, cp: 1, bytes: {input: 1000, output: 1000, saved: 4000, user_grad: 1000}}\n",
		"the manifest has 2 variants, the schedule 1");
	expect_mismatch(
		"cgslot: 1\n"
		"name: edges\n"
		"pipeline: {pp: 2, vpp: 2, layers_per_chunk: [1, 2], microbatch_group: 2, max_microbatches: 4}\n"
		"alignment: 256\n"
		"variants:\n"
		"  - {name: a, cp: 1, bytes: {input: 1000, output: 1000, saved: 4000, user_grad: 1000}}\n"
		"  - {name: c, cp: 2, bytes: {input: 2000, output: 500, saved: 3000, user_grad: 700}}\n",
		"the manifest's variant 'b' (cp 2) is not in the schedule");
	expect_mismatch(
		"cgslot: 1\n"
		"name: edges\n"
		"pipeline: {pp: 2, vpp: 2, layers_per_chunk: [1, 2], microbatch_group: 2, max_microbatches: 4}\n"
		"alignment: 256\n"
		"variants:\n"
		"  - {name: a, cp: 1, bytes: {input: 1000, output: 1000, saved: 4000, user_grad: 1000}}\n"
		"  - {name: b, cp: 4, bytes: {input: 2000, output: 500, saved: 3000, user_grad: 700}}\n",
		"the manifest's variant 'b' (cp 2) is not in the schedule");
	expect_mismatch(
		"cgslot: 1\n"
		"name: edges\n"
		"pipeline: {pp: 2, vpp: 2, layers_per_chunk: [2, 1], microbatch_group: 2, max_microbatches: 4}\n"
		"alignment: 256\n"
		"variants:\n"
		"  - {name: a, cp: 1, bytes: {input: 1000, output: 1000, saved: 4000, user_grad: 1000}}\n"
		"  - {name: b, cp: 2, bytes: {input: 2000, output: 500, saved: 3000, user_grad: 700}}\n",
		"chunk 0 has 1 layers; the schedule gives 2");
	expect_mismatch(
		"cgslot: 1\n"
		"name: edges\n"
		"pipeline: {pp: 2, vpp: 2, layers_per_chunk: [1, 2], microbatch_group: 2, max_microbatches: 4}\n"
		"alignment: 256\n"
		"variants:\n"
		"  - {name: a, cp: 1, bytes: {input: 1000, output: 1000, saved: 4000, user_grad: 1000}}\n"
		"  - {name: b, cp: 2, bytes: {input: 2000, output: 500, saved: 3000, user_grad: 9000}}\n",
		"variant 'b' role user_grad holds");
}
END_TEST

/* Every header field the schedule determines, each behind the hash. */
START_TEST(meta_fields_behind_the_hash)
{
	expect_mismatch(
		"cgslot: 1\n"
		"name: edges\n"
		"pipeline: {pp: 2, vpp: 1, layers_per_chunk: [3], microbatch_group: 2, max_microbatches: 4}\n"
		"alignment: 256\n"
		"variants:\n"
		"  - {name: a, cp: 1, bytes: {input: 1000, output: 1000, saved: 4000, user_grad: 1000}}\n"
		"  - {name: b, cp: 2, bytes: {input: 2000, output: 500, saved: 3000, user_grad: 700}}\n",
		"meta: vpp is 2; the schedule gives 1");
	expect_mismatch(
		"cgslot: 1\n"
		"name: edges\n"
		"pipeline: {pp: 2, vpp: 2, layers_per_chunk: [1, 2], microbatch_group: 4, max_microbatches: 4}\n"
		"alignment: 256\n"
		"variants:\n"
		"  - {name: a, cp: 1, bytes: {input: 1000, output: 1000, saved: 4000, user_grad: 1000}}\n"
		"  - {name: b, cp: 2, bytes: {input: 2000, output: 500, saved: 3000, user_grad: 700}}\n",
		"meta: microbatch group is 2; the schedule gives 4");
	expect_mismatch(
		"cgslot: 1\n"
		"name: edges\n"
		"pipeline: {pp: 2, vpp: 2, layers_per_chunk: [1, 2], microbatch_group: 2, max_microbatches: 6}\n"
		"alignment: 256\n"
		"variants:\n"
		"  - {name: a, cp: 1, bytes: {input: 1000, output: 1000, saved: 4000, user_grad: 1000}}\n"
		"  - {name: b, cp: 2, bytes: {input: 2000, output: 500, saved: 3000, user_grad: 700}}\n",
		"meta: max_microbatches is 4; the schedule gives 6");
	expect_mismatch(
		"cgslot: 1\n"
		"name: edges\n"
		"pipeline: {pp: 2, vpp: 2, layers_per_chunk: [1, 2], microbatch_group: 2, max_microbatches: 4}\n"
		"alignment: 512\n"
		"variants:\n"
		"  - {name: a, cp: 1, bytes: {input: 1000, output: 1000, saved: 4000, user_grad: 1000}}\n"
		"  - {name: b, cp: 2, bytes: {input: 2000, output: 500, saved: 3000, user_grad: 700}}\n",
		"meta: alignment is 256; the schedule gives 512");
	expect_mismatch(
		"cgslot: 1\n"
		"name: edges\n"
		"pipeline: {pp: 2, vpp: 2, layers_per_chunk: [1, 2], microbatch_group: 2, max_microbatches: 4, slots: 7}\n"
		"alignment: 256\n"
		"variants:\n"
		"  - {name: a, cp: 1, bytes: {input: 1000, output: 1000, saved: 4000, user_grad: 1000}}\n"
		"  - {name: b, cp: 2, bytes: {input: 2000, output: 500, saved: 3000, user_grad: 700}}\n",
		"meta: slots is");
	expect_mismatch(
		"cgslot: 1\n"
		"name: other\n"
		"pipeline: {pp: 2, vpp: 2, layers_per_chunk: [1, 2], microbatch_group: 2, max_microbatches: 4}\n"
		"alignment: 256\n"
		"variants:\n"
		"  - {name: a, cp: 1, bytes: {input: 1000, output: 1000, saved: 4000, user_grad: 1000}}\n"
		"  - {name: b, cp: 2, bytes: {input: 2000, output: 500, saved: 3000, user_grad: 700}}\n",
		"meta: name is 'edges'; the schedule's is 'other'");
}
END_TEST

START_TEST(size_check_arguments)
{
	struct cgs_schedule *s = load(base_yaml);
	struct cgs_error err = {0};
	struct tiny t;

	tiny_init(&t);
	ck_assert_int_eq(cgs_verify_rank_sizes(NULL, s, NULL, &err), CGS_E_ARG);
	ck_assert_int_eq(cgs_verify_rank_sizes(&t.vr, NULL, NULL, NULL),
			 CGS_E_ARG);
	/* One chunk against the schedule's two. */
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_verify_rank_sizes(&t.vr, s, NULL, &err),
			 CGS_E_MISMATCH);
	ck_assert_msg(strstr(err.message, "has 1 chunks and 1 variants; the schedule has 2 and 2"),
		      "%s", err.message);
	ck_assert_int_eq(cgs_verify_manifest_schedule(NULL, s, NULL), CGS_E_ARG);
	cgs_schedule_destroy(&s);
}
END_TEST

static Suite *verify_edges_suite(void)
{
	Suite *s = suite_create("verify-edges");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, incomplete_descriptions);
	tcase_add_test(tc, malformed_orders);
	tcase_add_test(tc, schedule_shapes_behind_the_hash);
	tcase_add_test(tc, meta_fields_behind_the_hash);
	tcase_add_test(tc, size_check_arguments);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cgs_test_run(verify_edges_suite());
}
