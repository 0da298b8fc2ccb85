/*
 * NVTX memory annotations.  Each arena is registered as a sub-allocator
 * heap whose regions are the bytes its frames use, so compute-sanitizer's
 * memcheck (with --nvtx yes) reports an access to bytes of an arena that
 * no frame owns: a range overrunning into alignment padding or past the
 * last frame.  Frames of one arena legitimately share bytes (that is the
 * point of the plan), so the regions are the segments of guard.h: the
 * covered bytes cut at every range boundary.
 *
 * When a tool is attached (the heap handles are not NULL), every graph
 * also gets a permissions object that denies it its guard segments, the
 * neighbours of its own ranges; cgs_runtime_replay binds the graph's
 * object to the stream scope before each launch, so memcheck reports a
 * graph overrunning from one of its frames into a neighbour's bytes.  The
 * sanitizer applies the permissions bound when a graph is launched, not
 * when it was captured.  CGSLOT_NVTX_PERMISSIONS=0 in the environment
 * leaves the permissions out.
 */
#include <stdlib.h>
#include <string.h>

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtMem.h>

#include "common/error.h"
#include "runtime/guard.h"
#include "runtime/runtime.h"

struct cgs_runtime_nvtx {
	nvtxDomainHandle_t domain;
	/* Per graph, or NULL when no tool listens or permissions are off. */
	nvtxMemPermissionsHandle_t *perm;
	uint32_t n_heaps;
	nvtxMemHeapHandle_t heaps[]; /* one per arena */
};

static nvtxMemHeapHandle_t register_heap(struct cgs_runtime *rt, uint32_t a)
{
	nvtxMemVirtualRangeDesc_t whole;
	nvtxMemHeapDesc_t heap = {0};

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
	return nvtxMemHeapRegister(rt->nvtx->domain, &heap);
}

/* Register segments [i, j) of the guard, all of arena a, as regions. */
static void register_regions(struct cgs_runtime *rt, uint32_t a,
			     const struct cgs_guard *gd, uint32_t i,
			     uint32_t j, nvtxMemVirtualRangeDesc_t *ranges)
{
	nvtxMemRegionsRegisterBatch_t batch = {0};
	uint32_t k;

	for (k = i; k < j; k++) {
		ranges[k - i].ptr = rt->arena_base[a] + gd->segments[k].lo;
		ranges[k - i].size = gd->segments[k].hi - gd->segments[k].lo;
	}
	batch.extCompatID = NVTX_EXT_COMPATID_MEM;
	batch.structSize = sizeof(batch);
	batch.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
	batch.heap = rt->nvtx->heaps[a];
	batch.regionCount = j - i;
	batch.regionDescElementSize = sizeof(*ranges);
	batch.regionDescElements = ranges;
	nvtxMemRegionsRegister(rt->nvtx->domain, &batch);
}

static int permissions_wanted(void)
{
	const char *env = getenv("CGSLOT_NVTX_PERMISSIONS");

	return !(env && strcmp(env, "0") == 0);
}

/* One permissions object per graph with a guard: no access to it. */
static int make_permissions(struct cgs_runtime *rt, const struct cgs_guard *gd,
			    struct cgs_error *err)
{
	struct cgs_runtime_nvtx *nv = rt->nvtx;
	nvtxMemPermissionsAssignRegionDesc_t *deny;
	nvtxMemPermissionsAssignBatch_t batch = {0};
	uint64_t most = 0, k;
	uint32_t g;

	for (g = 0; g < gd->n_graphs; g++)
		if (gd->guard_start[g + 1] - gd->guard_start[g] > most)
			most = gd->guard_start[g + 1] - gd->guard_start[g];
	nv->perm = calloc(gd->n_graphs ? gd->n_graphs : 1, sizeof(*nv->perm));
	deny = calloc(most + 1, sizeof(*deny));
	if (!nv->perm || !deny) {
		free(deny);
		free(nv->perm);
		nv->perm = NULL;
		return cgs_error_set(err, CGS_E_NOMEM,
				     "out of memory describing graph permissions to NVTX");
	}
	batch.extCompatID = NVTX_EXT_COMPATID_MEM;
	batch.structSize = sizeof(batch);
	batch.regionElementSize = sizeof(*deny);
	batch.regionElements = deny;
	for (g = 0; g < gd->n_graphs; g++) {
		uint64_t first = gd->guard_start[g], n = gd->guard_start[g + 1] - first;

		if (n == 0)
			continue;
		for (k = 0; k < n; k++) {
			const struct cgs_guard_segment *s =
				&gd->segments[gd->guard[first + k]];

			deny[k].flags = NVTX_MEM_PERMISSIONS_REGION_FLAGS_NONE;
			deny[k].regionRefType = NVTX_MEM_REGION_REF_TYPE_POINTER;
			deny[k].region.pointer = rt->arena_base[s->arena] + s->lo;
		}
		nv->perm[g] = nvtxMemPermissionsCreate(nv->domain,
				NVTX_MEM_PERMISSIONS_CREATE_FLAGS_NONE);
		batch.permissions = nv->perm[g];
		batch.regionCount = n;
		nvtxMemPermissionsAssign(nv->domain, &batch);
	}
	free(deny);
	return 0;
}

int cgs_nvtx_register(struct cgs_runtime *rt, struct cgs_error *err)
{
	const struct cgs_runtime_info *in = &rt->info;
	nvtxMemVirtualRangeDesc_t *ranges;
	struct cgs_guard gd;
	uint32_t a, i, j;
	int rc;

	rt->nvtx = calloc(1, sizeof(*rt->nvtx) +
			  ((size_t)in->n_arenas + 1) * sizeof(nvtxMemHeapHandle_t));
	if (!rt->nvtx)
		return cgs_error_set(err, CGS_E_NOMEM,
				     "out of memory describing arenas to NVTX");
	rt->nvtx->domain = nvtxDomainCreateA("cgslot");
	rt->nvtx->n_heaps = in->n_arenas;
	for (a = 0; a < in->n_arenas; a++)
		if (rt->arena_base[a])
			rt->nvtx->heaps[a] = register_heap(rt, a);
	/*
	 * Without a tool every handle is NULL and the regions and permissions
	 * would go nowhere: skip the guards (about 12 to 14 ms for a rank of
	 * the big pipeline, tools/bench-open).
	 */
	for (a = 0; a < in->n_arenas && !rt->nvtx->heaps[a]; a++)
		;
	if (a == in->n_arenas)
		return 0;
	rc = cgs_guard_build(rt, &gd, err);
	if (rc)
		return rc;
	ranges = malloc(((size_t)gd.n_segments + 1) * sizeof(*ranges));
	if (!ranges) {
		cgs_guard_free(&gd);
		return cgs_error_set(err, CGS_E_NOMEM,
				     "out of memory describing arenas to NVTX");
	}
	for (i = 0; i < gd.n_segments; i = j) {
		a = gd.segments[i].arena;
		for (j = i; j < gd.n_segments && gd.segments[j].arena == a; j++)
			;
		if (rt->nvtx->heaps[a])
			register_regions(rt, a, &gd, i, j, ranges);
	}
	free(ranges);
	rc = permissions_wanted() ? make_permissions(rt, &gd, err) : 0;
	cgs_guard_free(&gd);
	return rc;
}

void cgs_nvtx_bind(const struct cgs_runtime *rt, uint32_t g)
{
	const struct cgs_runtime_nvtx *nv = rt->nvtx;

	if (nv->perm[g])
		nvtxMemPermissionsBind(nv->domain, nv->perm[g],
				       NVTX_MEM_PERMISSIONS_BIND_SCOPE_CUDA_STREAM,
				       NVTX_MEM_PERMISSIONS_BIND_FLAGS_NONE);
	else
		nvtxMemPermissionsUnbind(nv->domain,
					 NVTX_MEM_PERMISSIONS_BIND_SCOPE_CUDA_STREAM);
}

void cgs_nvtx_unbind(const struct cgs_runtime *rt)
{
	nvtxMemPermissionsUnbind(rt->nvtx->domain,
				 NVTX_MEM_PERMISSIONS_BIND_SCOPE_CUDA_STREAM);
}

int cgs_nvtx_guards(const struct cgs_runtime *rt)
{
	return rt->nvtx && rt->nvtx->perm;
}

void cgs_nvtx_unregister(struct cgs_runtime *rt)
{
	struct cgs_runtime_nvtx *nv = rt->nvtx;
	uint32_t a, g;

	if (!nv)
		return;
	for (g = 0; nv->perm && g < rt->info.n_graphs; g++)
		if (nv->perm[g])
			nvtxMemPermissionsDestroy(nv->domain, nv->perm[g]);
	free(nv->perm);
	for (a = 0; a < nv->n_heaps; a++)
		if (nv->heaps[a])
			nvtxMemHeapUnregister(nv->domain, nv->heaps[a]);
	if (nv->domain)
		nvtxDomainDestroy(nv->domain);
	free(nv);
	rt->nvtx = NULL;
}
