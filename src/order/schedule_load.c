#include "order/schedule_load.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/error.h"
#include "order/order.h"
#include "order/rank_orders.h"

static int check_explicit(const struct cgs_schedule *s, struct cgs_error *err)
{
	struct cgs_error local = {0};
	size_t k, bad = 0;

	for (k = 0; k < s->n_orders; k++) {
		const struct cgs_order *o = &s->orders[k];
		const struct cgs_pos *at;

		if (cgs_order_check(o->entries, o->n_entries, s->vpp,
				    o->microbatches, &bad, &local) == 0)
			continue;
		if (local.code == CGS_E_NOMEM)
			return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
		at = bad < o->n_entries ? &o->entry_pos[bad] : &o->list_pos;
		return cgs_error_at(err, CGS_E_ORDER, s->path, at->line,
				    at->column,
				    "orders[%zu] (rank %u, microbatches %u): %s",
				    k, o->rank, o->microbatches, local.message);
	}
	return 0;
}

/* Order entries over every planned rank, saturating at 2^64-1. */
static uint64_t planned_entries(const struct cgs_schedule *s)
{
	uint64_t explicit_total = 0, generated = 0, part;
	uint32_t r, n_generated = 0, first_generated = 0;
	size_t k;

	for (k = 0; k < s->n_orders; k++)
		explicit_total += s->orders[k].n_entries;
	for (r = 0; r < s->n_ranks; r++) {
		for (k = 0; k < s->n_orders; k++)
			if (s->orders[k].rank == s->ranks[r])
				break;
		if (k < s->n_orders)
			continue;
		if (!n_generated++)
			first_generated = s->ranks[r];
	}
	/* generated orders do not depend on the rank: count one rank's */
	if (n_generated)
		generated = cgs_rank_orders_entries(s, first_generated);
	if (generated && n_generated > (UINT64_MAX - explicit_total) / generated)
		return UINT64_MAX;
	part = generated * n_generated;
	return explicit_total + part;
}

int cgs_schedule_check_orders(const struct cgs_schedule *s,
			      const struct cgs_limits *limits,
			      struct cgs_error *err)
{
	struct cgs_limits defaults;
	uint64_t entries, ring, frames;
	char what[160];
	int rc;

	if (!limits) {
		cgs_limits_init(&defaults);
		limits = &defaults;
	}
	if ((rc = check_explicit(s, err)))
		return rc;
	/*
	 * A ring the schedule asks for (slots, or the largest a ring search
	 * tries) bounds the frames before any order is built; the ring the
	 * planner derives is checked by the planner.
	 */
	ring = s->slots > s->slots_max ? s->slots : s->slots_max;
	frames = ring * cgs_schedule_layers_total(s);
	if (frames > limits->frames) {
		snprintf(what, sizeof(what),
			 "the saved-frame count of one rank (%llu slots x %u "
			 "layers = %llu)", (unsigned long long)ring,
			 cgs_schedule_layers_total(s),
			 (unsigned long long)frames);
		return cgs_limit_error(err, s->path, s->slots_pos.line,
				       s->slots_pos.column, "frames",
				       limits->frames, what);
	}
	entries = planned_entries(s);
	if (entries > limits->order_entries) {
		snprintf(what, sizeof(what),
			 "the entry count of the capture orders of the %u "
			 "planned ranks (%llu)", s->n_ranks,
			 (unsigned long long)entries);
		return cgs_limit_error(err, s->path, s->max_mb_pos.line,
				       s->max_mb_pos.column, "order_entries",
				       limits->order_entries, what);
	}
	return 0;
}

/* The order checks on a freshly parsed *out, which they destroy on failure. */
static int finish(const struct cgs_limits *limits, struct cgs_schedule **out,
		  struct cgs_error *err)
{
	int rc = cgs_schedule_check_orders(*out, limits, err);

	if (rc)
		cgs_schedule_destroy(out);
	return rc;
}

int cgs_schedule_load(const char *path, const struct cgs_limits *limits,
		      struct cgs_schedule **out, struct cgs_error *err)
{
	int rc = cgs_schedule_parse(path, limits, out, err);

	return rc ? rc : finish(limits, out, err);
}

int cgs_schedule_load_buffer(const char *name, const void *buf, size_t len,
			     const struct cgs_limits *limits,
			     struct cgs_schedule **out, struct cgs_error *err)
{
	int rc = cgs_schedule_parse_buffer(name, buf, len, limits, out, err);

	return rc ? rc : finish(limits, out, err);
}
