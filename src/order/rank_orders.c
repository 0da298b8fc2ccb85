#include "order/rank_orders.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/large.h"
#include "order/order.h"

static int has_explicit(const struct cgs_schedule *s, uint32_t rank)
{
	size_t i;

	for (i = 0; i < s->n_orders; i++)
		if (s->orders[i].rank == rank)
			return 1;
	return 0;
}

uint64_t cgs_rank_orders_entries(const struct cgs_schedule *s, uint32_t rank)
{
	uint64_t total = 0;
	uint32_t k, n;
	size_t i;

	if (has_explicit(s, rank)) {
		for (i = 0; i < s->n_orders; i++)
			if (s->orders[i].rank == rank)
				total += s->orders[i].n_entries;
		return total;
	}
	n = cgs_order_reachable(s->vpp, s->group, s->max_microbatches, NULL, 0);
	for (k = 1; k <= n; k++) {
		uint64_t mb = (s->vpp == 1 || s->group <= 1) ?
				      k : (uint64_t)k * s->group;
		total += 2 * mb * s->vpp;
	}
	return total;
}

/* Explicit orders of a rank, in ascending microbatch count. */
static int init_explicit(struct cgs_rank_orders *ro,
			 const struct cgs_schedule *s, struct cgs_error *err)
{
	const struct cgs_order **list = NULL;
	uint32_t n = 0, i, j;
	uint64_t total = 0;
	size_t k;

	for (k = 0; k < s->n_orders; k++)
		if (s->orders[k].rank == ro->rank)
			n++;
	list = calloc(n, sizeof(*list));
	ro->reachable = calloc(n, sizeof(*ro->reachable));
	ro->order_start = calloc((size_t)n + 1, sizeof(*ro->order_start));
	if (!list || !ro->reachable || !ro->order_start)
		goto nomem;
	n = 0;
	for (k = 0; k < s->n_orders; k++) {
		const struct cgs_order *o = &s->orders[k];

		if (o->rank != ro->rank)
			continue;
		/* insertion sort: the list is short and mostly sorted */
		for (j = n; j > 0 && list[j - 1]->microbatches > o->microbatches; j--)
			list[j] = list[j - 1];
		list[j] = o;
		n++;
		total += o->n_entries;
	}
	ro->entries = cgs_large_alloc(total * sizeof(*ro->entries));
	if (!ro->entries)
		goto nomem;
	ro->n_reachable = n;
	for (i = 0; i < n; i++) {
		ro->reachable[i] = list[i]->microbatches;
		memcpy(ro->entries + ro->order_start[i], list[i]->entries,
		       list[i]->n_entries * sizeof(*ro->entries));
		ro->order_start[i + 1] = ro->order_start[i] + list[i]->n_entries;
	}
	free(list);
	return 0;
nomem:
	free(list);
	return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
}

static int init_generated(struct cgs_rank_orders *ro,
			  const struct cgs_schedule *s, struct cgs_error *err)
{
	uint32_t n = cgs_order_reachable(s->vpp, s->group, s->max_microbatches,
					 NULL, 0);
	uint64_t total = cgs_rank_orders_entries(s, ro->rank);
	uint32_t i;
	int rc;

	ro->reachable = calloc(n ? n : 1, sizeof(*ro->reachable));
	ro->order_start = calloc((size_t)n + 1, sizeof(*ro->order_start));
	ro->entries = cgs_large_alloc(total * sizeof(*ro->entries));
	if (!ro->reachable || !ro->order_start || !ro->entries)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	ro->n_reachable = cgs_order_reachable(s->vpp, s->group,
					      s->max_microbatches,
					      ro->reachable, n);
	for (i = 0; i < n; i++) {
		struct cgs_order_params p = {
			.pp = s->pp, .vpp = s->vpp, .group = s->group,
			.microbatches = ro->reachable[i], .rank = ro->rank,
		};

		rc = cgs_order_generate(&p, ro->entries + ro->order_start[i], err);
		if (rc)
			return rc;
		ro->order_start[i + 1] = ro->order_start[i] + cgs_order_length(&p);
	}
	return 0;
}

int cgs_rank_orders_init(struct cgs_rank_orders *ro,
			 const struct cgs_schedule *s, uint32_t rank,
			 struct cgs_error *err)
{
	int rc;

	memset(ro, 0, sizeof(*ro));
	ro->rank = rank;
	rc = has_explicit(s, rank) ? init_explicit(ro, s, err) :
				     init_generated(ro, s, err);
	if (rc)
		cgs_rank_orders_release(ro);
	return rc;
}

void cgs_rank_orders_release(struct cgs_rank_orders *ro)
{
	if (!ro)
		return;
	free(ro->reachable);
	free(ro->order_start);
	free(ro->entries);
	memset(ro, 0, sizeof(*ro));
}
