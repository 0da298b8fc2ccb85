/*
 * The planner checked by the independent verifier: random schedules (fixed
 * seeds) are planned, handed to the verifier through tests/verify_plan.c,
 * and must be proven safe and large enough; a planted overlap must be
 * caught.  Run with the argument "sweep" for the long run (suite 'slow').
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "input/schedule.h"
#include "order/schedule_load.h"
#include "manifest/format.h"
#include "manifest/manifest.h"
#include "plan/plan.h"
#include "slot_maps.h"
#include "testlib.h"
#include "verify_plan.h"

static int sweep;  /* set by the "sweep" argument */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng_state >> 33) % n;
}

struct text {
	char buf[16384];
	size_t len;
};

static void put(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	ck_assert_uint_lt(t->len + (size_t)n, sizeof(t->buf));
	t->len += (size_t)n;
}

static uint64_t random_bytes(void)
{
	switch (rnd(3)) {
	case 0:
		return 1 + rnd(4096);          /* small, unaligned */
	case 1:
		return 1024 * (1 + rnd(64));
	default:
		return (uint64_t)(1 + rnd(32)) << 20;
	}
}

static void put_roles(struct text *t)
{
	put(t, "{input: %llu, output: %llu, saved: %llu, user_grad: %llu}",
	    (unsigned long long)random_bytes(), (unsigned long long)random_bytes(),
	    (unsigned long long)random_bytes(), (unsigned long long)random_bytes());
}

/* A random order that drains: any interleaving, backwards oldest first. */
static void put_random_order(struct text *t, uint32_t rank, uint32_t vpp,
			     uint32_t n)
{
	uint32_t fwd[8] = {0}, bwd[8] = {0}, done = 0, c;
	int32_t id;

	put(t, "  - {rank: %u, microbatches: %u, order: [", rank, n);
	while (done < 2 * n * vpp) {
		c = rnd(vpp);
		if (rnd(2) && fwd[c] < n) {
			fwd[c]++;
			id = (int32_t)c + 1;
		} else if (bwd[c] < fwd[c]) {
			bwd[c]++;
			id = -(int32_t)c - 1;
		} else {
			continue;
		}
		put(t, done ? ", %d" : "%d", id);
		done++;
	}
	put(t, "]}\n");
}

/*
 * A random valid schedule: P, M, G, L, uneven layer counts, a subset of
 * ranks, 1-4 variants with overrides at every granularity, sometimes a
 * ring larger than needed.  Rank 0 is always planned.
 */
static void random_schedule(struct text *t, uint32_t *pp_out)
{
	static const unsigned cps[] = {1, 2, 4, 8};
	uint32_t pp = 2 + rnd(sweep ? 7 : 4), vpp = 1 + rnd(sweep ? 4 : 3);
	uint32_t group = vpp > 1 && rnd(3) == 0 ? 1 + rnd(pp + 1) : pp;
	uint32_t max_mb, c, v, r, n_var = 1 + rnd(4), o;
	unsigned char planned[16] = {1};

	max_mb = vpp > 1 ? group * (1 + rnd(sweep ? 6 : 3))
			 : 2 + rnd(sweep ? 20 : 10);
	if (max_mb < 2)
		max_mb = 2 * group;
	t->len = 0;
	put(t, "cgslot: 1\npipeline:\n  pp: %u\n  vpp: %u\n", pp, vpp);
	put(t, "  layers_per_chunk: [");
	for (c = 0; c < vpp; c++)
		put(t, c ? ", %u" : "%u", 1 + rnd(4));
	put(t, "]\n  microbatch_group: %u\n  max_microbatches: %u\n", group,
	    max_mb);
	put(t, "  ranks: [0");
	for (r = 1; r < pp; r++)
		if ((planned[r] = rnd(2)))
			put(t, ", %u", r);
	put(t, "]\n");
	if (rnd(5) == 0)
		put(t, "  slots: %u\n", max_mb);  /* the largest ring */
	put(t, "alignment: %u\nvariants:\n", 1u << (rnd(3) * 4));
	for (v = 0; v < n_var; v++) {
		put(t, "  - name: v%u\n    cp: %u\n    bytes: ", v, cps[v]);
		put_roles(t);
		put(t, "\n");
		if (rnd(2) == 0)
			continue;
		put(t, "    overrides:\n");
		for (o = 1 + rnd(3); o > 0; o--) {
			put(t, "      - {");
			if (rnd(2))
				put(t, "rank: %u, ", rnd(pp));
			if (rnd(2))
				put(t, "chunk: %u, ", rnd(vpp));
			if (rnd(2))
				put(t, "layer: 0, ");
			put(t, "saved: %llu, user_grad: %llu}\n",
			    (unsigned long long)random_bytes() * 3,
			    (unsigned long long)random_bytes() * 2);
		}
	}
	/* Sometimes the last planned rank runs its own random orders. */
	for (r = pp - 1; r > 0 && !planned[r]; r--)
		;
	if (r > 0 && rnd(3) == 0) {
		uint32_t step = vpp > 1 ? group : 1, n;

		put(t, "orders:\n");
		for (n = step; n <= max_mb; n += step)
			if (n == max_mb || rnd(3) == 0)
				put_random_order(t, r, vpp, n);
	}
	*pp_out = pp;
}

static void plan_text(const struct text *t, struct cgs_schedule **s,
		      struct cgs_plan **p)
{
	struct cgs_error err = {0};
	int rc;

	rc = cgs_schedule_load_buffer("random.yaml", t->buf, t->len, NULL, s,
				      &err);
	ck_assert_msg(rc == 0, "schedule rejected: %s\n%s", err.message,
		      t->buf);
	rc = cgs_plan_create(*s, NULL, p, &err);
	ck_assert_msg(rc == 0, "plan failed: %s\n%s", err.message, t->buf);
}

static uint32_t saved_index(const struct cgs_schedule *s, uint32_t slots,
			    uint32_t c, uint32_t slot, uint32_t l)
{
	uint32_t base = 0, i;

	for (i = 0; i < c; i++)
		base += s->layers[i];
	return base * slots + slot * s->layers[c] + l;
}

/* Every random plan is proven safe, and every range large enough. */
START_TEST(random_plans_verify)
{
	uint32_t trial, trials = sweep ? 600 : 40, pp, explicit = 0;
	struct cgs_verify_stats stats = {0};
	static struct text t;

	rng_state = 0xc651a7u + 7919u * (uint64_t)_i;
	for (trial = 0; trial < trials; trial++) {
		struct cgs_schedule *s = NULL;
		struct cgs_plan *p = NULL;
		struct cgs_error err = {0};
		int rc;

		random_schedule(&t, &pp);
		explicit += strstr(t.buf, "orders:") != NULL;
		plan_text(&t, &s, &p);
		rc = cgs_verify_plan(p, &stats, &err);
		ck_assert_msg(rc == 0, "trial %u: %s\n%s", trial, err.message,
			      t.buf);
		cgs_plan_destroy(&p);
		cgs_schedule_destroy(&s);
	}
	/* The sweep did real work: many orders and live pairs. */
	ck_assert_uint_ge(stats.orders, trials);
	ck_assert_uint_gt(stats.pairs, trials);
	ck_assert_uint_gt(explicit, trials / 20);
}
END_TEST

/*
 * Plant overlaps the verifier must catch.  On rank 0 with P >= 2 and
 * N >= 2, microbatches 0 and 1 of chunk 0 are in flight together (the
 * warmup runs at least two forwards of chunk 0, or one of every chunk and
 * then chunk 0 again, before any backward), so saved frames (0, 0, l) and
 * (0, 1, l) may never meet; nor may two layers of one frame group.
 */
START_TEST(planted_overlaps_caught)
{
	uint32_t trial, trials = sweep ? 200 : 20, pp, caught = 0;
	static struct text t;

	rng_state = 0x91a7edu + 104729u * (uint64_t)_i;
	for (trial = 0; trial < trials; trial++) {
		struct cgs_schedule *s = NULL;
		struct cgs_plan *p = NULL;
		struct cgs_verify_plan_rank d;
		struct cgs_rank_plan *rp;
		struct cgs_error err = {0};
		struct cgs_frame saved0, saved1;
		uint32_t f0, f1, l;
		int rc;

		random_schedule(&t, &pp);
		plan_text(&t, &s, &p);
		rp = &p->ranks[0];
		ck_assert_uint_eq(rp->rank, 0);
		ck_assert_uint_ge(p->slots, 2);
		/* Only frames that hold bytes for some variant can clash. */
		l = rnd(s->layers[0]);
		f0 = saved_index(s, p->slots, 0, 0, l);
		f1 = saved_index(s, p->slots, 0, 1, l);
		if (rp->saved[f0].bytes == 0)
			goto next;
		saved0 = rp->saved[f0];
		saved1 = rp->saved[f1];
		rp->saved[f1].arena = saved0.arena;
		rp->saved[f1].offset = saved0.offset;
		ck_assert_int_eq(cgs_verify_plan_rank_init(&d, p, 0), 0);
		rc = cgs_verify_rank_check(&d.view, NULL, &err);
		cgs_verify_plan_rank_release(&d);
		ck_assert_msg(rc == CGS_E_VERIFY, "trial %u: not caught\n%s",
			      trial, t.buf);
		{
			char a[64], b[64];

			snprintf(a, sizeof(a), "(chunk 0, slot 0, layer %u)", l);
			snprintf(b, sizeof(b), "(chunk 0, slot 1, layer %u)", l);
			ck_assert_msg(strstr(err.message, a) &&
				      strstr(err.message, b) &&
				      strstr(err.message, "rank 0, N "),
				      "trial %u: %s", trial, err.message);
		}
		rp->saved[f1] = saved1;
		caught++;

		/* Two layers of one group, when the chunk has two. */
		f0 = saved_index(s, p->slots, 0, 0, 0);
		f1 = saved_index(s, p->slots, 0, 0, 1);
		if (s->layers[0] >= 2 && rp->saved[f0].bytes &&
		    rp->saved[f1].bytes) {
			/* Move the smaller onto the larger: it stays inside. */
			uint32_t from = rp->saved[f0].bytes <= rp->saved[f1].bytes
					? f0 : f1, to = from == f0 ? f1 : f0;

			rp->saved[from].arena = rp->saved[to].arena;
			rp->saved[from].offset = rp->saved[to].offset;
			ck_assert_int_eq(cgs_verify_plan_rank_init(&d, p, 0), 0);
			err = (struct cgs_error){0};
			rc = cgs_verify_rank_check(&d.view, NULL, &err);
			cgs_verify_plan_rank_release(&d);
			ck_assert_msg(rc == CGS_E_VERIFY &&
				      strstr(err.message, "(chunk 0, slot 0, "
					     "layer 0)") &&
				      strstr(err.message, "(chunk 0, slot 0, "
					     "layer 1)"),
				      "trial %u: %s", trial, err.message);
		}
next:
		cgs_plan_destroy(&p);
		cgs_schedule_destroy(&s);
	}
	ck_assert_uint_gt(caught, trials / 2);
}
END_TEST

/* A range shrunk below the schedule's bytes is a mismatch. */
START_TEST(shrunk_range_caught)
{
	static struct text t;
	struct cgs_schedule *s = NULL;
	struct cgs_plan *p = NULL;
	struct cgs_verify_plan_rank d;
	struct cgs_error err = {0};
	uint32_t pp, i, n;

	rng_state = 42;
	random_schedule(&t, &pp);
	plan_text(&t, &s, &p);
	ck_assert_int_eq(cgs_verify_plan_rank_init(&d, p, 0), 0);
	ck_assert_int_eq(cgs_verify_rank_sizes(&d.view, s, NULL, &err), 0);
	n = d.view.n_saved * d.view.n_variants * 3;
	for (i = 0; i < n && d.saved[i].bytes == 0; i++)
		;
	ck_assert_uint_lt(i, n);
	d.saved[i].bytes--;
	ck_assert_int_eq(cgs_verify_rank_sizes(&d.view, s, NULL, &err),
			 CGS_E_MISMATCH);
	ck_assert_ptr_nonnull(strstr(err.message, "; the schedule gives it"));
	cgs_verify_plan_rank_release(&d);
	cgs_plan_destroy(&p);
	cgs_schedule_destroy(&s);
}
END_TEST

/*
 * The library entry points on a golden manifest: it verifies, matches its
 * schedule and not another; one range shrunk by a byte (checksum fixed
 * up) still verifies but no longer holds what its schedule asks.
 */
/*
 * Slot maps: the verifier replays with the plan's map.  A rotation on a
 * one-chunk pipeline keeps every live window of the ring and verifies;
 * the same rotation on two chunks pairs frames the colouring let share
 * bytes; a map with two live microbatches on one slot, or a slot outside
 * the ring, is refused by the verifier's own replay.
 */
static void rotate_maps(struct cgs_plan *p)
{
	ck_assert_int_eq(cgs_test_rotate_slot_maps(p), 0);
}

static int verify_msg(const struct cgs_plan *p, const char *needle)
{
	struct cgs_error err = {0};
	int rc = cgs_verify_plan(p, NULL, &err);

	if (needle)
		ck_assert_msg(rc == CGS_E_VERIFY && strstr(err.message, needle),
			      "want '%s', got %d: %s", needle, rc, err.message);
	else
		ck_assert_msg(rc == 0, "%s", err.message);
	return rc;
}

START_TEST(slot_maps_verified)
{
	struct cgs_error err = {0};
	struct cgs_schedule *one = NULL, *two = NULL;
	struct cgs_plan *p = NULL;
	struct cgs_rank_plan *rp;
	uint32_t width, last;

	ck_assert_int_eq(cgs_schedule_load(cgs_test_path(
		"testdata/manifest/slot-map/rotate/schedule.yaml"), NULL, &one,
		&err), 0);
	ck_assert_int_eq(cgs_plan_create(one, NULL, &p, &err), 0);
	rotate_maps(p);
	verify_msg(p, NULL);
	rp = &p->ranks[0];
	width = rp->reachable[rp->n_reachable - 1];
	last = rp->n_reachable - 1;
	/* rank 0 runs its warmup forwards first: 0 and 1 are live together */
	rp->slot_map[last * width + 1] = rp->slot_map[last * width];
	verify_msg(p, "still live (the slot map is unsafe)");
	rp->slot_map[last * width + 1] = rp->slots;
	verify_msg(p, "outside the ring");
	cgs_plan_destroy(&p);

	ck_assert_int_eq(cgs_schedule_load(cgs_test_path(
		"testdata/examples/qwen-pp4-vpp2-dcp.yaml"), NULL, &two, &err), 0);
	ck_assert_int_eq(cgs_plan_create(two, NULL, &p, &err), 0);
	verify_msg(p, NULL);
	rotate_maps(p);
	verify_msg(p, "overlaps");
	cgs_plan_destroy(&p);
	cgs_schedule_destroy(&one);
	cgs_schedule_destroy(&two);
}
END_TEST

START_TEST(manifest_entry_points)
{
	struct cgs_error err = {0};
	struct cgs_schedule *s = NULL, *other = NULL;
	struct cgs_manifest *m = NULL;
	struct cgs_verify_stats stats = {0};
	uint8_t *b, *role;
	uint32_t n_saved, n_variants;
	size_t len;

	b = (uint8_t *)cgs_test_read(
		cgs_test_path("testdata/manifest/golden/qwen/manifest.cgslot"),
		&len);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(cgs_schedule_load(
		cgs_test_path("testdata/manifest/golden/qwen/schedule.yaml"),
		NULL, &s, &err), 0);
	ck_assert_int_eq(cgs_schedule_load(
		cgs_test_path("testdata/examples/pp4-vpp4-l3-4var.yaml"), NULL,
		&other, &err), 0);
	ck_assert_int_eq(cgs_manifest_open_buffer(b, len, &m, &err), 0);
	ck_assert_int_eq(cgs_verify_manifest(m, &stats, &err), 0);
	ck_assert_uint_eq(stats.ranks, 4);
	ck_assert_uint_eq(stats.orders, 16);
	ck_assert_uint_gt(stats.pairs, 0);
	/* on threads (more than there are ranks too): the same counts */
	for (unsigned jobs = 0; jobs <= 6; jobs += 2) {
		struct cgs_verify_stats on = {0};

		ck_assert_int_eq(cgs_verify_manifest_jobs(m, jobs, &on, &err),
				 0);
		ck_assert_mem_eq(&on, &stats, sizeof(on));
	}
	ck_assert_int_eq(cgs_verify_manifest_jobs(NULL, 4, NULL, NULL),
			 CGS_E_ARG);
	ck_assert_int_eq(cgs_verify_manifest_schedule(m, s, &err), 0);
	ck_assert_int_eq(cgs_verify_manifest_schedule(m, other, &err),
			 CGS_E_MISMATCH);
	ck_assert_ptr_nonnull(strstr(err.message, "does not match"));
	ck_assert_int_eq(cgs_verify_manifest(NULL, NULL, NULL), CGS_E_ARG);
	/* format 2: ranges once per (variant, chunk, layer) */
	n_saved = cgs_manifest_info(m)->layers_total;
	n_variants = cgs_manifest_info(m)->n_variants;
	ck_assert_str_eq(cgs_manifest_variant_name(m, 3), "cp8");
	cgs_manifest_close(&m);

	/* Rank index 1, variant 3, chunk 0 layer 0 (saved frame 0 and the
	 * same layer in every slot), role saved (r = 2). */
	ck_assert_msg(cgs_test_section_offset(b, CGS_MF_SAVED_ROLES) != 0,
		      "no saved-roles section");
	role = b + cgs_test_section_offset(b, CGS_MF_SAVED_ROLES) +
	       ((((size_t)1 * n_variants + 3) * n_saved + 0) * 3 + 2) *
		       CGS_MF_RANGE_BYTES;
	cgs_put_le64(role + 8, cgs_get_le64(role + 8) - 1);
	cgs_put_le32(b + len - 4, cgs_crc32c(0, b, len - 4));
	err = (struct cgs_error){0};
	ck_assert_int_eq(cgs_manifest_open_buffer(b, len, &m, &err), 0);
	ck_assert_int_eq(cgs_verify_manifest(m, NULL, &err), 0);
	ck_assert_int_eq(cgs_verify_manifest_schedule(m, s, &err),
			 CGS_E_MISMATCH);
	ck_assert_msg(strstr(err.message, "rank 1: saved frame (chunk 0, "
			     "slot 0, layer 0) variant 'cp8' role saved holds "
			     "1476395007 bytes; the schedule gives it "
			     "1476395008"), "%s", err.message);
	cgs_manifest_close(&m);
	cgs_schedule_destroy(&s);
	cgs_schedule_destroy(&other);
	free(b);
}
END_TEST

static Suite *verify_plan_suite(void)
{
	Suite *s = suite_create("verify_plan");
	TCase *tc = tcase_create("property");

	tcase_set_timeout(tc, sweep ? 1800 : 120);
	tcase_add_loop_test(tc, random_plans_verify, 0, sweep ? 4 : 2);
	tcase_add_loop_test(tc, planted_overlaps_caught, 0, sweep ? 4 : 2);
	tcase_add_test(tc, shrunk_range_caught);
	tcase_add_test(tc, manifest_entry_points);
	tcase_add_test(tc, slot_maps_verified);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	sweep = argc > 1 && strcmp(argv[1], "sweep") == 0;
	return cgs_test_run(verify_plan_suite());
}
