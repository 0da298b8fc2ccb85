/* Capture orders: Megatron's formulas against hand-checked cases. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/large.h"
#include "order/order.h"
#include "testlib.h"

static void expect_order(uint32_t pp, uint32_t vpp, uint32_t group,
			 uint32_t n, uint32_t rank, const int32_t *want,
			 size_t want_len)
{
	struct cgs_order_params p = {pp, vpp, group, n, rank};
	int32_t *got;
	size_t i;

	ck_assert_uint_eq(cgs_order_length(&p), want_len);
	got = malloc(want_len * sizeof(*got));
	ck_assert_int_eq(cgs_order_generate(&p, got, NULL), 0);
	for (i = 0; i < want_len; i++)
		ck_assert_msg(got[i] == want[i],
			      "P%u M%u G%u N%u r%u: entry %zu is %d, want %d",
			      pp, vpp, group, n, rank, i, got[i], want[i]);
	ck_assert_int_eq(cgs_order_check(got, want_len, vpp, n, NULL, NULL), 0);
	free(got);
}

#define EXPECT(pp, vpp, g, n, r, ...)                                       \
	do {                                                                \
		static const int32_t w[] = {__VA_ARGS__};                   \
		expect_order(pp, vpp, g, n, r, w, sizeof(w) / sizeof(w[0])); \
	} while (0)

START_TEST(brief_examples)
{
	EXPECT(4, 2, 4, 8, 0, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, -2, 1, -2, 2,
	       -2, 2, -2, 2, -1, 2, -1, -1, -1, -2, -2, -2, -2, -1, -1, -1, -1);
	EXPECT(4, 2, 4, 8, 3, 1, 1, 1, 1, 2, -2, 2, -2, 2, -2, 2, -2, 1, -1,
	       1, -1, 1, -1, 1, -1, 2, -2, 2, -2, 2, -2, 2, -2, -1, -1, -1, -1);
	EXPECT(2, 2, 3, 5, 0, 1, 1, 1, 2, 2, 2, -2, 1, -2, 1, -2, 2, -1, 2, -1,
	       -1, -2, -2, -1, -1);
}
END_TEST

/* Without VPP: w = min(N, P-r-1) forwards, then 1F1B, then the drain. */
START_TEST(no_vpp)
{
	EXPECT(4, 1, 4, 6, 0, 1, 1, 1, 1, -1, 1, -1, 1, -1, -1, -1, -1);
	EXPECT(4, 1, 4, 6, 3, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1);
	EXPECT(4, 1, 4, 2, 0, 1, 1, -1, -1);  /* warmup capped at N */
	EXPECT(1, 1, 1, 3, 0, 1, -1, 1, -1, 1, -1);
}
END_TEST

/* P=2 M=2 G=2 N=4: w = (2-0-1)*2 + 1*2 = 4 on rank 0, 2 on rank 1. */
START_TEST(vpp_small)
{
	EXPECT(2, 2, 2, 4, 0, 1, 1, 2, 2, 1, -2, 1, -2, 2, -1, 2, -1, -2, -2,
	       -1, -1);
	EXPECT(2, 2, 2, 4, 1, 1, 1, 2, -2, 2, -2, 1, -1, 1, -1, 2, -2, 2, -2,
	       -1, -1);
}
END_TEST

START_TEST(warmup)
{
	struct cgs_order_params p = {4, 2, 4, 8, 0};

	ck_assert_uint_eq(cgs_order_warmup(&p), 10);
	p.rank = 3;
	ck_assert_uint_eq(cgs_order_warmup(&p), 4);
	p.microbatches = 1;  /* capped at N*M */
	p.rank = 0;
	ck_assert_uint_eq(cgs_order_warmup(&p), 2);
	p = (struct cgs_order_params){8, 1, 8, 100, 2};
	ck_assert_uint_eq(cgs_order_warmup(&p), 5);
}
END_TEST

/* Every generated order drains, for many shapes. */
START_TEST(generated_orders_drain)
{
	uint32_t pp, vpp, g, n, r;

	for (pp = 1; pp <= 6; pp++)
		for (vpp = 1; vpp <= 4; vpp++)
			for (g = 1; g <= pp + 2; g++)
				for (n = 1; n <= 13; n++)
					for (r = 0; r < pp; r++) {
						struct cgs_order_params p = {pp, vpp, g, n, r};
						size_t len = cgs_order_length(&p), bad = 0;
						int32_t *o = malloc(len * sizeof(*o));

						ck_assert_int_eq(cgs_order_generate(&p, o, NULL), 0);
						ck_assert_msg(cgs_order_check(o, len, vpp, n, &bad, NULL) == 0,
							      "P%u M%u G%u N%u r%u bad at %zu",
							      pp, vpp, g, n, r, bad);
						free(o);
					}
}
END_TEST

START_TEST(bad_parameters)
{
	struct cgs_error err = {0};
	struct cgs_order_params p = {4, 2, 4, 8, 4};
	int32_t o[64];

	ck_assert_int_eq(cgs_order_generate(&p, o, &err), CGS_E_ARG);
	ck_assert_int_eq(err.code, CGS_E_ARG);
	p.rank = 0;
	p.group = 0;
	ck_assert_int_eq(cgs_order_generate(&p, o, NULL), CGS_E_ARG);
}
END_TEST

START_TEST(check_rejects)
{
	static const int32_t early_backward[] = {1, -1, -1, 1};
	static const int32_t pending[] = {1, 1, -1};
	static const int32_t bad_chunk[] = {1, 3, -1};
	static const int32_t zero[] = {0};
	static const int32_t too_many[] = {1, 1, 1, -1, -1, -1};
	struct cgs_error err = {0};
	size_t bad = 99;

	ck_assert_int_eq(cgs_order_check(early_backward, 4, 1, 2, &bad, &err),
			 CGS_E_ORDER);
	ck_assert_uint_eq(bad, 2);
	ck_assert_ptr_nonnull(strstr(err.message, "before its forward"));
	ck_assert_int_eq(cgs_order_check(pending, 3, 1, 2, &bad, NULL),
			 CGS_E_ORDER);
	ck_assert_uint_eq(bad, 3);
	ck_assert_int_eq(cgs_order_check(bad_chunk, 3, 2, 1, &bad, NULL),
			 CGS_E_ORDER);
	ck_assert_uint_eq(bad, 1);
	ck_assert_int_eq(cgs_order_check(zero, 1, 2, 1, &bad, NULL),
			 CGS_E_ORDER);
	ck_assert_int_eq(cgs_order_check(too_many, 6, 1, 2, &bad, NULL),
			 CGS_E_ORDER);
	ck_assert_uint_eq(bad, 2);
}
END_TEST

START_TEST(reachable_counts)
{
	uint32_t out[16];

	ck_assert_uint_eq(cgs_order_reachable(1, 4, 5, out, 16), 5);
	ck_assert_uint_eq(out[0], 1);
	ck_assert_uint_eq(out[4], 5);
	ck_assert_uint_eq(cgs_order_reachable(2, 4, 16, out, 16), 4);
	ck_assert_uint_eq(out[0], 4);
	ck_assert_uint_eq(out[3], 16);
	ck_assert_uint_eq(cgs_order_reachable(2, 1, 3, out, 16), 3);
	ck_assert_uint_eq(cgs_order_reachable(3, 8, 4, out, 16), 0);
}
END_TEST

/*
 * The orders' blocks: small ones from malloc, from 2 MiB on aligned to
 * the huge page (the kernel's advice is not observable here, the
 * alignment it needs is), and every byte writable.
 */
START_TEST(large_blocks)
{
	size_t sizes[] = {0, 100, CGS_LARGE_PAGE - 1, CGS_LARGE_PAGE,
			  2 * CGS_LARGE_PAGE + 12345};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		unsigned char *p = cgs_large_alloc(sizes[i]);

		ck_assert_ptr_nonnull(p);
		if (sizes[i] >= CGS_LARGE_PAGE)
			ck_assert_uint_eq((uintptr_t)p % CGS_LARGE_PAGE, 0);
		memset(p, 0xa5, sizes[i] ? sizes[i] : 1);
		ck_assert_uint_eq(p[sizes[i] ? sizes[i] - 1 : 0], 0xa5);
		free(p);
	}
}
END_TEST

static Suite *order_suite(void)
{
	Suite *s = suite_create("order");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, brief_examples);
	tcase_add_test(tc, no_vpp);
	tcase_add_test(tc, vpp_small);
	tcase_add_test(tc, warmup);
	tcase_add_test(tc, generated_orders_drain);
	tcase_add_test(tc, bad_parameters);
	tcase_add_test(tc, check_rejects);
	tcase_add_test(tc, reachable_counts);
	tcase_add_test(tc, large_blocks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cgs_test_run(order_suite());
}
