/*
 * Opening a manifest for one rank: everything that needs no GPU.  The
 * launch sequence of every reachable count is expanded here, once, so a
 * replay is a loop of cudaGraphLaunch calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"
#include "manifest/format.h"
#include "manifest/manifest.h"
#include "runtime/runtime.h"

/*
 * The public roles are the manifest's (and, through the writer's own
 * assertions, the planner's): the values are stored in manifests.
 */
_Static_assert(CGS_RUNTIME_INPUT == CGS_MANIFEST_ROLE_INPUT &&
	       CGS_RUNTIME_OUTPUT == CGS_MANIFEST_ROLE_OUTPUT &&
	       CGS_RUNTIME_SAVED == CGS_MANIFEST_ROLE_SAVED &&
	       CGS_RUNTIME_USER_GRAD == CGS_MANIFEST_ROLE_USER_GRAD &&
	       CGS_RUNTIME_ROLES == CGS_MANIFEST_ROLES,
	       "enum cgs_runtime_role must keep the manifest's role values");

/*
 * The layouts of ABI 0.2, pinned: a field moved or inserted breaks every
 * caller built before; fields are only appended.
 */
_Static_assert(CGS_INFO_SIZE_0_2 == 72 &&
	       offsetof(struct cgs_runtime_info, size) == 0 &&
	       offsetof(struct cgs_runtime_info, n_arenas) == 52,
	       "struct cgs_runtime_info changed its 0.2 layout");
_Static_assert(CGS_DESC_SIZE_0_2 == 72 + 4 * sizeof(void *) &&
	       offsetof(struct cgs_graph_desc, size) == 0 &&
	       offsetof(struct cgs_graph_desc, addr) == 40,
	       "struct cgs_graph_desc changed its 0.2 layout");
_Static_assert(CGS_STATS_SIZE_0_2 == 32 &&
	       offsetof(struct cgs_runtime_stats, size) == 0 &&
	       offsetof(struct cgs_runtime_stats, capture_ns) == 16,
	       "struct cgs_runtime_stats changed its 0.2 layout");

int cgs_runtime_null(struct cgs_error *err, const char *fn, const char *arg)
{
	return cgs_error_set(err, CGS_E_ARG, "%s: the argument '%s' is NULL",
			     fn, arg);
}

int cgs_runtime_fill_sized(void *dst, const void *src, size_t own, size_t min,
			   const char *fn, const char *arg,
			   struct cgs_error *err)
{
	uint32_t size, n;

	if (!dst)
		return cgs_runtime_null(err, fn, arg);
	memcpy(&size, dst, sizeof(size));
	if (size < min)
		return cgs_error_set(err, CGS_E_ARG,
				     "%s: %s->size is %u; set it to sizeof the struct (at least %zu)",
				     fn, arg, size, min);
	n = size < own ? size : (uint32_t)own;
	memcpy(dst, src, n);
	memcpy(dst, &n, sizeof(n));
	return 0;
}

uint64_t cgs_runtime_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int32_t order_entry(const uint8_t *raw, unsigned width, uint64_t k)
{
	switch (width) {
	case 1:
		return (int8_t)raw[k];
	case 2:
		return (int16_t)cgs_get_le16(raw + 2 * k);
	default:
		return (int32_t)cgs_get_le32(raw + 4 * k);
	}
}

/* Launches of one iteration of reachable count i: 2 * N * layers_total. */
static uint64_t launches_of(const struct cgs_runtime *rt, uint32_t i)
{
	return 2 * (uint64_t)rt->reachable[i] * rt->info.layers_total;
}

/*
 * Expand the order of reachable count i: +c runs chunk c's next forward
 * microbatch, layers ascending; -c its oldest pending backward, layers
 * descending.  The manifest reader has checked that orders drain.
 */
static void expand_order(struct cgs_runtime *rt, uint32_t i, uint32_t *fwd,
			 uint32_t *bwd)
{
	struct cgs_launch *out = rt->launches + rt->launch_start[i];
	uint64_t n = cgs_manifest_order_length(rt->manifest, rt->ri, i), k;
	const uint8_t *raw;
	unsigned width;
	uint32_t c, mb, f0, l;
	int32_t e;

	raw = cgs_manifest_order_raw(rt->manifest, rt->ri, i, &width);
	memset(fwd, 0, rt->info.vpp * sizeof(*fwd));
	memset(bwd, 0, rt->info.vpp * sizeof(*bwd));
	for (k = 0; k < n; k++) {
		e = order_entry(raw, width, k);
		if (e > 0) {
			c = (uint32_t)e - 1;
			mb = fwd[c]++;
			f0 = cgs_runtime_frame(rt, c,
					cgs_runtime_ring_slot(rt, i, c, mb), 0);
			for (l = 0; l < rt->layers[c]; l++) {
				out->base = (f0 + l) * 2 + CGS_RUNTIME_FORWARD;
				out->microbatch = mb;
				out++;
			}
		} else {
			c = (uint32_t)-e - 1;
			mb = bwd[c]++;
			f0 = cgs_runtime_frame(rt, c,
					cgs_runtime_ring_slot(rt, i, c, mb), 0);
			for (l = rt->layers[c]; l-- > 0;) {
				out->base = (f0 + l) * 2 + CGS_RUNTIME_BACKWARD;
				out->microbatch = mb;
				out++;
			}
		}
	}
}

static int build_tables(struct cgs_runtime *rt, struct cgs_error *err)
{
	const struct cgs_manifest_info *mi = cgs_manifest_info(rt->manifest);
	struct cgs_manifest_ring ring =
		cgs_manifest_rank_ring(rt->manifest, rt->ri);
	struct cgs_runtime_info *in = &rt->info;
	uint32_t c, i, *counters = NULL;
	uint64_t total = 0;

	in->size = sizeof(*in);
	in->pp = mi->pp;
	in->vpp = mi->vpp;
	in->group = mi->group;
	in->max_microbatches = mi->max_microbatches;
	in->slots = ring.slots;  /* this rank's own ring */
	in->n_variants = mi->n_variants;
	in->layers_total = mi->layers_total;
	in->n_saved = ring.n_saved;
	in->n_graphs = ring.n_graphs;
	in->alignment = mi->alignment;
	in->n_reachable = cgs_manifest_reachable_count(rt->manifest, rt->ri);
	in->n_arenas = cgs_manifest_arena_count(rt->manifest, rt->ri);
	for (i = 0; i < in->n_arenas; i++)
		in->arena_bytes +=
			cgs_manifest_arena(rt->manifest, rt->ri, i).bytes;
	rt->stride = ring.n_saved * 2;

	rt->layers = malloc(in->vpp * sizeof(*rt->layers));
	rt->layer_base = malloc((in->vpp + 1) * sizeof(*rt->layer_base));
	rt->reachable = malloc(((size_t)in->n_reachable + 1) *
			       sizeof(*rt->reachable));
	rt->launch_start = malloc(((size_t)in->n_reachable + 1) *
				  sizeof(*rt->launch_start));
	rt->exec = calloc((size_t)in->n_graphs + 1, sizeof(*rt->exec));
	rt->exec_owned = calloc((size_t)in->n_graphs + 1, 1);
	rt->arena_alloc = calloc((size_t)in->n_arenas + 1,
				 sizeof(*rt->arena_alloc));
	rt->arena_base = calloc((size_t)in->n_arenas + 1,
				sizeof(*rt->arena_base));
	counters = malloc(2 * ((size_t)in->vpp + 1) * sizeof(*counters));
	if (!rt->layers || !rt->layer_base || !rt->reachable ||
	    !rt->launch_start || !rt->exec || !rt->exec_owned ||
	    !rt->arena_alloc || !rt->arena_base || !counters)
		goto nomem;
	for (c = 0; c < in->vpp; c++)
		rt->layers[c] = cgs_manifest_chunk_layers(rt->manifest, c);
	for (c = 0; c <= in->vpp; c++)
		rt->layer_base[c] = cgs_manifest_layer_base(rt->manifest, c);
	rt->n_missing = in->n_graphs;
	rt->stats.size = sizeof(rt->stats);

	for (i = 0; i < in->n_reachable; i++) {
		rt->reachable[i] = cgs_manifest_reachable(rt->manifest, rt->ri, i);
		rt->launch_start[i] = total;
		total += launches_of(rt, i);
	}
	rt->launch_start[in->n_reachable] = total;
	rt->launches = malloc((size_t)(total ? total : 1) *
			      sizeof(*rt->launches));
	if (!rt->launches)
		goto nomem;
	for (i = 0; i < in->n_reachable; i++)
		expand_order(rt, i, counters, counters + in->vpp);
	free(counters);
	return 0;
nomem:
	free(counters);
	return cgs_error_set(err, CGS_E_NOMEM,
			     "out of memory building the launch tables of rank %u",
			     in->rank);
}

/* Shared tail of both opens: the manifest is open in rt. */
static int open_rank(struct cgs_runtime *rt, uint32_t rank, int device,
		     struct cgs_error *err)
{
	const struct cgs_manifest_info *mi = cgs_manifest_info(rt->manifest);
	int rc;

	rt->info.rank = rank;
	rt->info.device = device;
	rc = cgs_manifest_find_rank(rt->manifest, rank, &rt->ri, err);
	if (rc)
		return rc;
	/*
	 * The reader proves the format; these are the runtime's own needs.
	 * Reachable counts above L would index past the ring.
	 */
	if (cgs_manifest_rank_ring(rt->manifest, rt->ri).slots == 0 ||
	    mi->vpp == 0)
		return cgs_error_set(err, CGS_E_FORMAT,
				     "manifest plans %u slots and %u chunks for rank %u; both must be at least 1",
				     cgs_manifest_rank_ring(rt->manifest, rt->ri).slots,
				     mi->vpp, rank);
	rc = build_tables(rt, err);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < rt->info.n_reachable; i++)
		if (rt->reachable[i] > mi->max_microbatches)
			return cgs_error_set(err, CGS_E_FORMAT,
					     "reachable microbatch count %u of rank %u is above L = %u",
					     rt->reachable[i], rank,
					     mi->max_microbatches);
	return 0;
}

int cgs_runtime_open(const char *path, uint32_t rank, int device,
		     struct cgs_runtime **out, struct cgs_error *err)
{
	struct cgs_runtime *rt;
	int rc;

	if (!path || !out || device < 0)
		return cgs_error_set(err, CGS_E_ARG,
				     "cgs_runtime_open needs a path, an output pointer and a device >= 0");
	*out = NULL;
	rt = calloc(1, sizeof(*rt));
	if (!rt)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	rc = cgs_manifest_open_file(path, &rt->manifest, err);
	if (rc == 0)
		rc = open_rank(rt, rank, device, err);
	if (rc) {
		cgs_runtime_destroy(&rt);
		return rc;
	}
	*out = rt;
	return 0;
}

int cgs_runtime_open_buffer(const void *buf, size_t len, const char *name,
			    uint32_t rank, int device,
			    struct cgs_runtime **out, struct cgs_error *err)
{
	struct cgs_runtime *rt;
	int fresh = err && err->code == 0;
	int rc;

	if (!buf || !out || device < 0)
		return cgs_error_set(err, CGS_E_ARG,
				     "cgs_runtime_open_buffer needs a buffer, an output pointer and a device >= 0");
	*out = NULL;
	rt = calloc(1, sizeof(*rt));
	if (!rt)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	rt->copy = malloc(len ? len : 1);
	if (!rt->copy) {
		free(rt);
		return cgs_error_set(err, CGS_E_NOMEM,
				     "out of memory copying a %zu-byte manifest",
				     len);
	}
	memcpy(rt->copy, buf, len);
	rc = cgs_manifest_open_buffer(rt->copy, len, &rt->manifest, err);
	if (rc == 0)
		rc = open_rank(rt, rank, device, err);
	if (rc) {
		if (fresh && name && !err->file[0])
			snprintf(err->file, sizeof(err->file), "%s", name);
		cgs_runtime_destroy(&rt);
		return rc;
	}
	*out = rt;
	return 0;
}

int cgs_runtime_info(const struct cgs_runtime *rt,
		     struct cgs_runtime_info *info, struct cgs_error *err)
{
	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	return cgs_runtime_fill_sized(info, &rt->info, sizeof(rt->info),
				      CGS_INFO_SIZE_0_2, __func__, "info",
				      err);
}

int cgs_runtime_reachable(const struct cgs_runtime *rt, uint32_t i,
			  uint32_t *count, struct cgs_error *err)
{
	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	if (!count)
		return cgs_runtime_null(err, __func__, "count");
	if (i >= rt->info.n_reachable)
		return cgs_error_set(err, CGS_E_ARG,
				     "reachable count index %u is out of range; accepted: 0..%u",
				     i, rt->info.n_reachable - 1);
	*count = rt->reachable[i];
	return 0;
}

int cgs_runtime_chunk_layers(const struct cgs_runtime *rt, uint32_t chunk,
			     uint32_t *layers, struct cgs_error *err)
{
	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	if (!layers)
		return cgs_runtime_null(err, __func__, "layers");
	if (chunk >= rt->info.vpp)
		return cgs_error_set(err, CGS_E_ARG,
				     "chunk %u is out of range; accepted: 0..%u",
				     chunk, rt->info.vpp - 1);
	*layers = rt->layers[chunk];
	return 0;
}

/*
 * Check (microbatches, chunk, k) and store microbatch k's slot: shared by
 * cgs_runtime_slot and cgs_runtime_locate.
 */
static int microbatch_slot(const struct cgs_runtime *rt,
			   uint32_t microbatches, uint32_t chunk, uint32_t k,
			   uint32_t *slot, struct cgs_error *err)
{
	uint32_t idx;
	int rc;

	rc = cgs_runtime_find_count(rt, microbatches, &idx, err);
	if (rc)
		return rc;
	if (chunk >= rt->info.vpp)
		return cgs_error_set(err, CGS_E_ARG,
				     "chunk %u is out of range; accepted: 0..%u",
				     chunk, rt->info.vpp - 1);
	if (k >= microbatches)
		return cgs_error_set(err, CGS_E_ARG,
				     "microbatch %u is out of range for an iteration of %u; accepted: 0..%u",
				     k, microbatches, microbatches - 1);
	*slot = cgs_runtime_ring_slot(rt, idx, chunk, k);
	return 0;
}

int cgs_runtime_slot(const struct cgs_runtime *rt, uint32_t microbatches,
		     uint32_t chunk, uint32_t k, uint32_t *slot,
		     struct cgs_error *err)
{
	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	if (!slot)
		return cgs_runtime_null(err, __func__, "slot");
	return microbatch_slot(rt, microbatches, chunk, k, slot, err);
}

uint32_t cgs_runtime_graph_count(const struct cgs_runtime *rt)
{
	return rt ? cgs_manifest_capture_count(rt->manifest, rt->ri) : 0;
}

int cgs_runtime_stats(const struct cgs_runtime *rt,
		      struct cgs_runtime_stats *stats, struct cgs_error *err)
{
	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	return cgs_runtime_fill_sized(stats, &rt->stats, sizeof(rt->stats),
				      CGS_STATS_SIZE_0_2, __func__, "stats",
				      err);
}

/* Arena, offset and size of a role of saved frame f for variant v. */
static void place(const struct cgs_runtime *rt, uint32_t v, uint32_t f,
		  unsigned role, uint32_t *arena, uint64_t *offset,
		  uint64_t *bytes)
{
	struct cgs_manifest_frame fr;
	struct cgs_manifest_range r;

	if (role == CGS_RUNTIME_USER_GRAD) {
		struct cgs_manifest_frame sf =
			cgs_manifest_saved_frame(rt->manifest, rt->ri, f);

		fr = cgs_manifest_user_grad_frame(rt->manifest, rt->ri,
				sf.chunk * rt->info.slots + sf.slot);
		r = cgs_manifest_user_grad_layer(rt->manifest, rt->ri, v, f);
	} else {
		fr = cgs_manifest_saved_frame(rt->manifest, rt->ri, f);
		r = cgs_manifest_saved_role(rt->manifest, rt->ri, v, f, role);
	}
	*arena = fr.arena;
	*offset = fr.offset + r.offset;
	*bytes = r.bytes;
}

/* Check the indices shared by both locate calls. */
static int check_place(const struct cgs_runtime *rt, uint32_t variant,
		       uint32_t chunk, uint32_t layer,
		       enum cgs_runtime_role role, struct cgs_error *err)
{
	const struct cgs_runtime_info *in = &rt->info;

	if (variant >= in->n_variants)
		return cgs_error_set(err, CGS_E_ARG,
				     "variant %u is out of range; accepted: 0..%u",
				     variant, in->n_variants - 1);
	if (chunk >= in->vpp)
		return cgs_error_set(err, CGS_E_ARG,
				     "chunk %u is out of range; accepted: 0..%u",
				     chunk, in->vpp - 1);
	if (layer >= rt->layers[chunk])
		return cgs_error_set(err, CGS_E_ARG,
				     "layer %u of chunk %u is out of range; accepted: 0..%u",
				     layer, chunk, rt->layers[chunk] - 1);
	if ((unsigned)role >= CGS_RUNTIME_ROLES)
		return cgs_error_set(err, CGS_E_ARG,
				     "role %u is out of range; accepted: 0..%u",
				     (unsigned)role, CGS_RUNTIME_ROLES - 1);
	return 0;
}

int cgs_runtime_slot_locate(const struct cgs_runtime *rt, uint32_t variant,
			    uint32_t chunk, uint32_t layer, uint32_t slot,
			    enum cgs_runtime_role role, uint32_t *arena,
			    uint64_t *offset, uint64_t *bytes,
			    struct cgs_error *err)
{
	uint32_t a;
	uint64_t o, b;
	int rc;

	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	rc = check_place(rt, variant, chunk, layer, role, err);
	if (rc)
		return rc;
	if (slot >= rt->info.slots)
		return cgs_error_set(err, CGS_E_ARG,
				     "slot %u is out of range; accepted: 0..%u",
				     slot, rt->info.slots - 1);
	place(rt, variant, cgs_runtime_frame(rt, chunk, slot, layer), role,
	      &a, &o, &b);
	if (arena)
		*arena = a;
	if (offset)
		*offset = o;
	if (bytes)
		*bytes = b;
	return 0;
}

int cgs_runtime_locate(const struct cgs_runtime *rt, uint32_t variant,
		       uint32_t chunk, uint32_t layer, uint32_t microbatches,
		       uint32_t microbatch, enum cgs_runtime_role role,
		       uint32_t *arena, uint64_t *offset, uint64_t *bytes,
		       struct cgs_error *err)
{
	uint32_t slot = 0;
	int rc;

	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	rc = check_place(rt, variant, chunk, layer, role, err);
	if (rc)
		return rc;
	rc = microbatch_slot(rt, microbatches, chunk, microbatch, &slot, err);
	if (rc)
		return rc;
	return cgs_runtime_slot_locate(rt, variant, chunk, layer, slot, role,
				       arena, offset, bytes, err);
}

int cgs_runtime_address(const struct cgs_runtime *rt, uint32_t variant,
			uint32_t chunk, uint32_t layer, uint32_t microbatches,
			uint32_t microbatch, enum cgs_runtime_role role,
			void **addr, uint64_t *bytes, struct cgs_error *err)
{
	uint32_t a;
	uint64_t o, b;
	int rc;

	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	if (!rt->allocated)
		return cgs_error_set(err, CGS_E_STATE,
				     "arenas are not allocated yet; call cgs_runtime_allocate first");
	rc = cgs_runtime_locate(rt, variant, chunk, layer, microbatches,
				microbatch, role, &a, &o, &b, err);
	if (rc)
		return rc;
	if (addr)
		*addr = b ? rt->arena_base[a] + o : NULL;
	if (bytes)
		*bytes = b;
	return 0;
}

void cgs_runtime_describe(const struct cgs_runtime *rt, uint32_t g,
			  struct cgs_graph_desc *d)
{
	struct cgs_manifest_frame fr;
	uint32_t v, f, dir, a;
	uint64_t o, b;
	unsigned r;

	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	cgs_manifest_graph_split(rt->manifest, rt->ri, g, &v, &f, &dir);
	fr = cgs_manifest_saved_frame(rt->manifest, rt->ri, f);
	d->index = g;
	d->variant = v;
	d->chunk = fr.chunk;
	d->slot = fr.slot;
	d->layer = fr.layer;
	d->direction = dir;
	d->frame = f;
	d->user_grad_frame = fr.chunk * rt->info.slots + fr.slot;
	for (r = 0; r < CGS_RUNTIME_ROLES; r++) {
		place(rt, v, f, r, &a, &o, &b);
		d->bytes[r] = b;
		if (rt->allocated && b)
			d->addr[r] = rt->arena_base[a] + o;
	}
}

int cgs_runtime_graph_desc(const struct cgs_runtime *rt, uint32_t i,
			   struct cgs_graph_desc *desc,
			   struct cgs_error *err)
{
	struct cgs_graph_desc d;
	uint32_t n;

	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	n = cgs_runtime_graph_count(rt);
	if (i >= n)
		return cgs_error_set(err, CGS_E_ARG,
				     "capture position %u is out of range; accepted: 0..%u",
				     i, n ? n - 1 : 0);
	cgs_runtime_describe(rt, cgs_manifest_capture(rt->manifest, rt->ri, i),
			     &d);
	return cgs_runtime_fill_sized(desc, &d, sizeof(d), CGS_DESC_SIZE_0_2,
				      __func__, "desc", err);
}

cudaGraphExec_t cgs_runtime_graph_exec(const struct cgs_runtime *rt,
				       uint32_t g)
{
	return rt && g < rt->info.n_graphs ? rt->exec[g] : NULL;
}

/* Index of a reachable count, or -1 (binary search: counts ascend). */
static int64_t find_count(const struct cgs_runtime *rt, uint32_t n)
{
	uint32_t lo = 0, hi = rt->info.n_reachable, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rt->reachable[mid] < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < rt->info.n_reachable && rt->reachable[lo] == n)
		return lo;
	return -1;
}

uint64_t cgs_runtime_launch_count(const struct cgs_runtime *rt,
				  uint32_t microbatches)
{
	int64_t i = rt ? find_count(rt, microbatches) : -1;

	return i < 0 ? 0 : rt->launch_start[i + 1] - rt->launch_start[i];
}

int cgs_runtime_find_count(const struct cgs_runtime *rt, uint32_t n,
			   uint32_t *idx, struct cgs_error *err)
{
	int64_t i = find_count(rt, n);

	if (i >= 0) {
		*idx = (uint32_t)i;
		return 0;
	}
	if (n > rt->info.max_microbatches)
		return cgs_error_set(err, CGS_E_UNREACHABLE,
				     "microbatch count %u is above the planned maximum L = %u",
				     n, rt->info.max_microbatches);
	return cgs_error_set(err, CGS_E_UNREACHABLE,
			     "microbatch count %u is not reachable on rank %u; accepted: %s",
			     n, rt->info.rank,
			     rt->info.group > 1 && rt->info.vpp > 1 ?
			     "a multiple of the microbatch group G up to L" :
			     "1..L");
}

int cgs_runtime_check_request(const struct cgs_runtime *rt,
			       uint32_t microbatches,
			       const uint32_t *variants, uint32_t *idx,
			       struct cgs_error *err)
{
	uint32_t i, k;
	int rc;

	rc = cgs_runtime_find_count(rt, microbatches, &i, err);
	if (rc)
		return rc;
	if (!variants)
		return cgs_error_set(err, CGS_E_ARG,
				     "the variant array is NULL; it needs one entry per microbatch");
	for (k = 0; k < microbatches; k++)
		if (variants[k] >= rt->info.n_variants)
			return cgs_error_set(err, CGS_E_ARG,
					     "variant %u of microbatch %u is out of range; accepted: 0..%u",
					     variants[k], k,
					     rt->info.n_variants - 1);
	*idx = i;
	return 0;
}

int cgs_runtime_sequence(const struct cgs_runtime *rt, uint32_t microbatches,
			 const uint32_t *variants, uint32_t *out, uint64_t cap,
			 struct cgs_error *err)
{
	const struct cgs_launch *l, *end;
	uint32_t i;
	int rc;

	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	rc = cgs_runtime_check_request(rt, microbatches, variants, &i, err);
	if (rc)
		return rc;
	l = rt->launches + rt->launch_start[i];
	end = rt->launches + rt->launch_start[i + 1];
	if (!out || cap < (uint64_t)(end - l))
		return cgs_error_set(err, CGS_E_ARG,
				     "the output holds %llu graph indices; %u microbatches need %llu",
				     (unsigned long long)cap, microbatches,
				     (unsigned long long)(end - l));
	for (; l < end; l++)
		*out++ = variants[l->microbatch] * rt->stride + l->base;
	return 0;
}
