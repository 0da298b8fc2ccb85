/* Device selection, arena allocation and tear-down. */
#include <stdlib.h>

#include "common/error.h"
#include "runtime/runtime.h"

int cgs_device_enter(const struct cgs_runtime *rt, int *prev,
		     struct cgs_error *err)
{
	cudaError_t rc;

	rc = cudaGetDevice(prev);
	if (rc != cudaSuccess)
		return cgs_cuda_fail(err, rc, "cannot query the current CUDA device");
	if (*prev == rt->info.device)
		return 0;
	rc = cudaSetDevice(rt->info.device);
	if (rc != cudaSuccess)
		return cgs_cuda_fail(err, rc, "cannot select CUDA device %d",
				     rt->info.device);
	return 0;
}

void cgs_device_leave(const struct cgs_runtime *rt, int prev)
{
	if (prev != rt->info.device)
		(void)cudaSetDevice(prev);
}

static void free_arenas(struct cgs_runtime *rt)
{
	uint32_t a;

	for (a = 0; a < rt->info.n_arenas; a++) {
		if (rt->arena_alloc[a])
			(void)cudaFree(rt->arena_alloc[a]);
		rt->arena_alloc[a] = NULL;
		rt->arena_base[a] = NULL;
	}
	rt->allocated = 0;
}

/*
 * One cudaMalloc for arena a.  cudaMalloc aligns to at least 256 bytes
 * and large allocations to far more; only when the manifest asks for more
 * than the pointer has is the arena over-allocated by its alignment.
 */
static int allocate_arena(struct cgs_runtime *rt, uint32_t a,
			  struct cgs_error *err)
{
	struct cgs_manifest_arena ar = cgs_manifest_arena(rt->manifest, rt->ri, a);
	uintptr_t base;
	cudaError_t rc;
	void *p = NULL;

	if (ar.bytes == 0)
		return 0;
	rc = cudaMalloc(&p, ar.bytes);
	if (rc != cudaSuccess)
		return cgs_cuda_fail(err, rc,
				     "cudaMalloc of arena %u (%llu bytes) on device %d",
				     a, (unsigned long long)ar.bytes,
				     rt->info.device);
	if (ar.alignment > 1 && (uintptr_t)p % ar.alignment != 0) {
		(void)cudaFree(p);
		p = NULL;
		rc = cudaMalloc(&p, ar.bytes + ar.alignment);
		if (rc != cudaSuccess)
			return cgs_cuda_fail(err, rc,
					     "cudaMalloc of arena %u (%llu bytes, aligned to %llu) on device %d",
					     a, (unsigned long long)ar.bytes,
					     (unsigned long long)ar.alignment,
					     rt->info.device);
	}
	rt->arena_alloc[a] = p;
	base = (uintptr_t)p;
	if (ar.alignment > 1)
		base = (base + ar.alignment - 1) & ~(uintptr_t)(ar.alignment - 1);
	rt->arena_base[a] = (char *)base;
	return 0;
}

int cgs_runtime_allocate(struct cgs_runtime *rt, uint64_t *bytes,
			 struct cgs_error *err)
{
	uint32_t a;
	int prev, rc;

	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	if (rt->allocated)
		return cgs_error_set(err, CGS_E_STATE,
				     "the arenas of rank %u are already allocated",
				     rt->info.rank);
	rc = cgs_device_enter(rt, &prev, err);
	if (rc)
		return rc;
	for (a = 0; a < rt->info.n_arenas && rc == 0; a++)
		rc = allocate_arena(rt, a, err);
	if (rc == 0) {
		rt->allocated = 1;
		rc = cgs_nvtx_register(rt, err);
	}
	if (rc) {
		cgs_nvtx_unregister(rt);
		free_arenas(rt);
	} else if (bytes) {
		*bytes = rt->info.arena_bytes;
	}
	cgs_device_leave(rt, prev);
	return rc;
}

int cgs_runtime_arena(const struct cgs_runtime *rt, uint32_t a, void **base,
		      uint64_t *bytes, struct cgs_error *err)
{
	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	if (a >= rt->info.n_arenas)
		return cgs_error_set(err, CGS_E_ARG,
				     "arena %u is out of range; accepted: 0..%u",
				     a, rt->info.n_arenas ? rt->info.n_arenas - 1 : 0);
	if (!rt->allocated)
		return cgs_error_set(err, CGS_E_STATE,
				     "arenas are not allocated yet; call cgs_runtime_allocate first");
	if (base)
		*base = rt->arena_base[a];
	if (bytes)
		*bytes = cgs_manifest_arena(rt->manifest, rt->ri, a).bytes;
	return 0;
}

void cgs_runtime_destroy(struct cgs_runtime **rtp)
{
	struct cgs_runtime *rt = rtp ? *rtp : NULL;
	int prev = -1;
	uint32_t g;

	if (!rt)
		return;
	if (rt->allocated || rt->n_missing < rt->info.n_graphs) {
		if (cudaGetDevice(&prev) == cudaSuccess &&
		    prev != rt->info.device)
			(void)cudaSetDevice(rt->info.device);
		for (g = 0; rt->exec && g < rt->info.n_graphs; g++)
			if (rt->exec[g] && rt->exec_owned[g])
				(void)cudaGraphExecDestroy(rt->exec[g]);
		cgs_nvtx_unregister(rt);
		if (rt->arena_alloc)
			free_arenas(rt);
		if (prev >= 0 && prev != rt->info.device)
			(void)cudaSetDevice(prev);
	}
	cgs_manifest_close(&rt->manifest);
	free(rt->copy);
	free(rt->layers);
	free(rt->layer_base);
	free(rt->reachable);
	free(rt->launch_start);
	free(rt->launches);
	free(rt->exec);
	free(rt->exec_owned);
	free(rt->arena_alloc);
	free(rt->arena_base);
	free(rt);
	*rtp = NULL;
}
