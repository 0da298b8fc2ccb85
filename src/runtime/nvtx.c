/*
 * NVTX memory annotations.  Each arena is registered as a sub-allocator
 * heap and the bytes its frames use as regions, so compute-sanitizer's
 * memcheck (with --nvtx yes) reports an access to bytes of an arena that
 * no frame owns: a range overrunning into alignment padding or past the
 * last frame.  Frames of one arena legitimately share bytes (that is the
 * point of the plan), so the regions are the union of every variant's
 * role ranges, merged; an overrun into a neighbour frame's bytes is what
 * `cgslot replay` detects with its data patterns instead.
 */
#include <stdlib.h>

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtMem.h>

#include "common/error.h"
#include "runtime/runtime.h"

struct cgs_runtime_nvtx {
	nvtxDomainHandle_t domain;
	uint32_t n_heaps;
	nvtxMemHeapHandle_t heaps[]; /* one per arena */
};

struct span {
	uint64_t lo, hi;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

static void add_span(struct span *s, size_t *n, uint64_t off, uint64_t bytes)
{
	if (bytes == 0)
		return;
	s[*n].lo = off;
	s[*n].hi = off + bytes;
	(*n)++;
}

/* Collect every range used in arena a, sorted and merged. */
static size_t arena_spans(const struct cgs_runtime *rt, uint32_t a,
			  struct span *s)
{
	const struct cgs_runtime_info *in = &rt->info;
	struct cgs_manifest_frame fr, uf;
	struct cgs_manifest_range r;
	uint32_t f, v, role;
	size_t n = 0, m = 0, i;

	for (f = 0; f < in->n_saved; f++) {
		fr = cgs_manifest_saved_frame(rt->manifest, rt->ri, f);
		uf = cgs_manifest_user_grad_frame(rt->manifest, rt->ri,
						  fr.chunk * in->slots + fr.slot);
		for (v = 0; v < in->n_variants; v++) {
			if (fr.arena == a) {
				for (role = 0; role < 3; role++) {
					r = cgs_manifest_saved_role(rt->manifest,
						rt->ri, v, f, role);
					add_span(s, &n, fr.offset + r.offset,
						 r.bytes);
				}
			}
			if (uf.arena == a) {
				r = cgs_manifest_user_grad_layer(rt->manifest,
								 rt->ri, v, f);
				add_span(s, &n, uf.offset + r.offset, r.bytes);
			}
		}
	}
	if (n == 0)
		return 0;
	qsort(s, n, sizeof(*s), span_cmp);
	for (i = 1; i < n; i++) {
		if (s[i].lo <= s[m].hi) {
			if (s[i].hi > s[m].hi)
				s[m].hi = s[i].hi;
		} else {
			s[++m] = s[i];
		}
	}
	return m + 1;
}

static void register_arena(struct cgs_runtime *rt, uint32_t a,
			   struct span *spans, nvtxMemVirtualRangeDesc_t *ranges)
{
	struct cgs_runtime_nvtx *nv = rt->nvtx;
	nvtxMemVirtualRangeDesc_t whole;
	nvtxMemHeapDesc_t heap = {0};
	nvtxMemRegionsRegisterBatch_t batch = {0};
	size_t n, i;

	whole.ptr = rt->arena_base[a];
	whole.size = cgs_manifest_arena(rt->manifest, rt->ri, a).bytes;
	heap.extCompatID = NVTX_EXT_COMPATID_MEM;
	heap.structSize = sizeof(heap);
	heap.usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR;
	heap.type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
	heap.typeSpecificDescSize = sizeof(whole);
	heap.typeSpecificDesc = &whole;
	heap.messageType = NVTX_MESSAGE_TYPE_ASCII;
	heap.message.ascii = "cgslot arena";
	nv->heaps[a] = nvtxMemHeapRegister(nv->domain, &heap);

	n = arena_spans(rt, a, spans);
	for (i = 0; i < n; i++) {
		ranges[i].ptr = rt->arena_base[a] + spans[i].lo;
		ranges[i].size = spans[i].hi - spans[i].lo;
	}
	if (n == 0)
		return;
	batch.extCompatID = NVTX_EXT_COMPATID_MEM;
	batch.structSize = sizeof(batch);
	batch.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
	batch.heap = nv->heaps[a];
	batch.regionCount = n;
	batch.regionDescElementSize = sizeof(*ranges);
	batch.regionDescElements = ranges;
	nvtxMemRegionsRegister(nv->domain, &batch);
}

int cgs_nvtx_register(struct cgs_runtime *rt, struct cgs_error *err)
{
	const struct cgs_runtime_info *in = &rt->info;
	size_t cap = (size_t)in->n_saved * in->n_variants * 4 + 1;
	nvtxMemVirtualRangeDesc_t *ranges;
	struct span *spans;
	uint32_t a;

	rt->nvtx = calloc(1, sizeof(*rt->nvtx) +
			  ((size_t)in->n_arenas + 1) * sizeof(nvtxMemHeapHandle_t));
	spans = malloc(cap * sizeof(*spans));
	ranges = malloc(cap * sizeof(*ranges));
	if (!rt->nvtx || !spans || !ranges) {
		free(spans);
		free(ranges);
		return cgs_error_set(err, CGS_E_NOMEM,
				     "out of memory describing arenas to NVTX");
	}
	rt->nvtx->domain = nvtxDomainCreateA("cgslot");
	rt->nvtx->n_heaps = in->n_arenas;
	for (a = 0; a < in->n_arenas; a++)
		if (rt->arena_base[a])
			register_arena(rt, a, spans, ranges);
	free(spans);
	free(ranges);
	return 0;
}

void cgs_nvtx_unregister(struct cgs_runtime *rt)
{
	struct cgs_runtime_nvtx *nv = rt->nvtx;
	uint32_t a;

	if (!nv)
		return;
	for (a = 0; a < nv->n_heaps; a++)
		if (nv->heaps[a])
			nvtxMemHeapUnregister(nv->domain, nv->heaps[a]);
	if (nv->domain)
		nvtxDomainDestroy(nv->domain);
	free(nv);
	rt->nvtx = NULL;
}
