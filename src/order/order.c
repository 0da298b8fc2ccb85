#include "order/order.h"

#include <stdlib.h>

#include "common/error.h"

size_t cgs_order_length(const struct cgs_order_params *p)
{
	return 2 * (size_t)p->microbatches * p->vpp;
}

uint64_t cgs_order_warmup(const struct cgs_order_params *p)
{
	uint64_t total = (uint64_t)p->microbatches * p->vpp;
	uint64_t w;

	if (p->vpp == 1)
		w = (uint64_t)(p->pp - p->rank - 1);
	else
		w = (uint64_t)(p->pp - p->rank - 1) * 2 +
		    (uint64_t)(p->vpp - 1) * p->group;
	return w < total ? w : total;
}

/*
 * A walk along Megatron's schedule table: microbatch groups of G, and
 * within a group every chunk in turn over the group's microbatches (the
 * last group may be narrower).  Only the chunk of each entry is needed.
 * Walking instead of indexing keeps divisions out of the loop.
 */
struct table_walk {
	const struct cgs_order_params *p;
	uint64_t group_start;  /* first microbatch of the current group */
	uint64_t width;        /* microbatches in the current group */
	uint64_t left;         /* entries left in the current chunk's run */
	uint32_t chunk;
};

static void walk_group(struct table_walk *t)
{
	const struct cgs_order_params *p = t->p;

	t->width = t->group_start + p->group >= p->microbatches ?
			   p->microbatches - t->group_start : p->group;
	t->chunk = 0;
	t->left = t->width;
}

static void walk_start(struct table_walk *t, const struct cgs_order_params *p)
{
	t->p = p;
	t->group_start = 0;
	walk_group(t);
}

/* The chunk of the current entry, then step to the next one. */
static uint32_t walk_next(struct table_walk *t)
{
	uint32_t c = t->chunk;

	if (--t->left == 0) {
		if (++t->chunk == t->p->vpp) {
			t->group_start += t->p->group;
			if (t->group_start < t->p->microbatches)
				walk_group(t);
		} else {
			t->left = t->width;
		}
	}
	return c;
}

int cgs_order_generate(const struct cgs_order_params *p, int32_t *out,
		       struct cgs_error *err)
{
	uint64_t total, w, i, n = 0;
	struct table_walk fwd, bwd;

	if (!p || !out || p->pp < 1 || p->vpp < 1 || p->group < 1 ||
	    p->microbatches < 1 || p->rank >= p->pp || p->vpp > INT32_MAX)
		return cgs_error_set(err, CGS_E_ARG,
				     "order parameters out of range");
	total = (uint64_t)p->microbatches * p->vpp;
	w = cgs_order_warmup(p);
	walk_start(&fwd, p);
	walk_start(&bwd, p);

#define FWD() ((int32_t)walk_next(&fwd) + 1)
#define BWD() ((int32_t)walk_next(&bwd) - (int32_t)p->vpp)
	for (i = 0; i < w; i++)
		out[n++] = FWD();
	for (i = w; i < total; i++) {
		out[n++] = FWD();
		out[n++] = BWD();
	}
	for (i = total - w; i < total; i++)
		out[n++] = BWD();
#undef FWD
#undef BWD
	return 0;
}

int cgs_order_check(const int32_t *entries, size_t n_entries, uint32_t vpp,
		    uint32_t microbatches, size_t *bad_index,
		    struct cgs_error *err)
{
	uint64_t *fwd = calloc(vpp ? vpp : 1, sizeof(*fwd));
	uint64_t *bwd = calloc(vpp ? vpp : 1, sizeof(*bwd));
	int rc = 0;
	size_t i;
	uint32_t c;

	if (!fwd || !bwd) {
		rc = cgs_error_set(err, CGS_E_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n_entries; i++) {
		int32_t e = entries[i];
		uint32_t chunk = e < 0 ? (uint32_t)(-(int64_t)e) : (uint32_t)e;

		if (e == 0 || chunk > vpp) {
			rc = cgs_error_set(err, CGS_E_ORDER,
				"entry %zu is %d, which names no chunk; "
				"accepted: -%u..-1 and 1..%u",
				i, (int)e, vpp, vpp);
			goto bad;
		}
		c = chunk - 1;
		if (e > 0) {
			if (++fwd[c] > microbatches) {
				rc = cgs_error_set(err, CGS_E_ORDER,
					"entry %zu runs forward %llu of chunk "
					"%u, but the order is for %u "
					"microbatches",
					i, (unsigned long long)fwd[c], chunk,
					microbatches);
				goto bad;
			}
		} else if (++bwd[c] > fwd[c]) {
			rc = cgs_error_set(err, CGS_E_ORDER,
				"entry %zu runs a backward of chunk %u before "
				"its forward (%llu backwards after %llu "
				"forwards)",
				i, chunk, (unsigned long long)bwd[c],
				(unsigned long long)fwd[c]);
			goto bad;
		}
	}
	for (c = 0; c < vpp; c++) {
		if (fwd[c] != bwd[c]) {
			rc = cgs_error_set(err, CGS_E_ORDER,
				"the order does not drain: chunk %u ends with "
				"%llu forwards pending",
				c + 1, (unsigned long long)(fwd[c] - bwd[c]));
			goto bad;
		}
		if (fwd[c] != microbatches) {
			rc = cgs_error_set(err, CGS_E_ORDER,
				"chunk %u runs %llu microbatches, but the "
				"order is for %u",
				c + 1, (unsigned long long)fwd[c],
				microbatches);
			goto bad;
		}
	}
	goto out;
bad:
	if (bad_index)
		*bad_index = i;
out:
	free(fwd);
	free(bwd);
	return rc;
}

uint32_t cgs_order_reachable(uint32_t vpp, uint32_t group, uint32_t max_mb,
			     uint32_t *out, uint32_t cap)
{
	uint32_t n = 0, step = (vpp == 1 || group <= 1) ? 1 : group, k;

	for (k = step; k <= max_mb && k >= step; k += step) {
		if (out && n < cap)
			out[n] = k;
		n++;
		if (k > UINT32_MAX - step)
			break;
	}
	return n;
}
