/*
 * Fuzz target: the whole schedule path, syntax sniffed, then the model's
 * accessors and every planned order, generated or explicit, which must
 * drain.  Limits are lowered so each input stays fast.
 */
#include "fuzz.h"
#include "fuzz_input.h"
#include "order/order.h"
#include "order/rank_orders.h"

static void exercise(const struct cgs_schedule *s)
{
	struct cgs_rank_orders ro;
	uint32_t r, i, v, c;
	int role;

	(void)cgs_schedule_hash(s);
	for (v = 0; v < s->n_variants; v++)
		for (c = 0; c < s->vpp && c < 4; c++)
			for (role = 0; role < CGS_ROLE_COUNT; role++)
				if (cgs_schedule_bytes(s, v, s->ranks[0], c, 0,
						       (enum cgs_role)role) == 0)
					abort();
	for (r = 0; r < s->n_ranks && r < 4; r++) {
		if (cgs_rank_orders_init(&ro, s, s->ranks[r], NULL))
			abort();
		for (i = 0; i < ro.n_reachable; i++) {
			uint64_t start = ro.order_start[i];

			if (cgs_order_check(ro.entries + start,
					    ro.order_start[i + 1] - start, s->vpp,
					    ro.reachable[i], NULL, NULL))
				abort();
		}
		cgs_rank_orders_release(&ro);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgs_limits lim;
	struct cgs_schedule *s;

	cgs_limits_init(&lim);
	lim.nodes = 50000;
	lim.order_entries = 1u << 20;
	lim.frames = 1u << 16;
	s = cgs_fuzz_load("fuzz", data, size, &lim);
	if (s)
		exercise(s);
	cgs_schedule_destroy(&s);
	return 0;
}
