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
 * The i-th entry of Megatron's schedule table: microbatch groups of G, and
 * within a group every chunk in turn over the group's microbatches.  Only
 * the chunk is needed, so return that.
 */
static uint32_t table_chunk(const struct cgs_order_params *p, uint64_t i)
{
	uint64_t per_group = (uint64_t)p->group * p->vpp;
	uint64_t g = (i / per_group) * p->group; /* group start */
	uint64_t rem = i - (g / p->group) * per_group;
	uint64_t width = g + p->group >= p->microbatches ?
				 p->microbatches - g : p->group;

	return (uint32_t)(rem / width);
}

int cgs_order_generate(const struct cgs_order_params *p, int32_t *out,
		       struct cgs_error *err)
{
	uint64_t total, w, i, n = 0;

	if (!p || !out || p->pp < 1 || p->vpp < 1 || p->group < 1 ||
	    p->microbatches < 1 || p->rank >= p->pp || p->vpp > INT32_MAX)
		return cgs_error_set(err, CGS_E_ARG,
				     "order parameters out of range");
	total = (uint64_t)p->microbatches * p->vpp;
	w = cgs_order_warmup(p);

#define FWD(i) ((int32_t)table_chunk(p, (i)) + 1)
#define BWD(i) ((int32_t)table_chunk(p, (i)) - (int32_t)p->vpp)
	for (i = 0; i < w; i++)
		out[n++] = FWD(i);
	for (i = w; i < total; i++) {
		out[n++] = FWD(i);
		out[n++] = BWD(i - w);
	}
	for (i = total - w; i < total; i++)
		out[n++] = BWD(i);
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
