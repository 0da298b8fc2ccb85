/*
 * Pieces shared by the NVTX probes (tools/nvtx_probe.cu,
 * tools/nvtx_perm_probe.cu, tools/nvtx_arena_probe.cu): the kernel that
 * writes 4 bytes, a CUDA check for main(), and a pool registered as an
 * NVTX sub-allocator heap the way libcgslot registers an arena.
 */
#ifndef CGS_TOOLS_NVTX_PROBE_H
#define CGS_TOOLS_NVTX_PROBE_H

#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtMem.h>

/* The pool of the heap probes and the size of their regions. */
static const size_t kPool = 1 << 20, kRegion = 4096;

/* One thread writes 4 bytes at p. */
__global__ void poke(unsigned *p)
{
	if (threadIdx.x == 0 && blockIdx.x == 0)
		*p = 0x5a5a5a5au;
}

/* In main(): report a failed CUDA call as PROG: CALL: ERROR and exit 3. */
#define PROBE_CHECK(prog, call)                                              \
	do {                                                                 \
		cudaError_t e_ = (call);                                     \
		if (e_ != cudaSuccess) {                                     \
			fprintf(stderr, "%s: %s: %s\n", prog, #call,         \
				cudaGetErrorName(e_));                       \
			return 3;                                            \
		}                                                            \
	} while (0)

/* Register [pool, pool + kPool) as a sub-allocator heap. */
static nvtxMemHeapHandle_t probe_heap(nvtxDomainHandle_t d, char *pool,
				      const char *message)
{
	nvtxMemVirtualRangeDesc_t whole;
	nvtxMemHeapDesc_t h;

	memset(&h, 0, sizeof(h));
	whole.ptr = pool;
	whole.size = kPool;
	h.extCompatID = NVTX_EXT_COMPATID_MEM;
	h.structSize = sizeof(h);
	h.usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR;
	h.type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
	h.typeSpecificDescSize = sizeof(whole);
	h.typeSpecificDesc = &whole;
	if (message) {
		h.messageType = NVTX_MESSAGE_TYPE_ASCII;
		h.message.ascii = message;
	}
	return nvtxMemHeapRegister(d, &h);
}

/* Register n regions of kRegion bytes each, back to back from pool. */
static void probe_regions(nvtxDomainHandle_t d, nvtxMemHeapHandle_t heap,
			  char *pool, size_t n)
{
	nvtxMemVirtualRangeDesc_t r[4];
	nvtxMemRegionsRegisterBatch_t b;
	size_t i;

	for (i = 0; i < n && i < 4; i++) {
		r[i].ptr = pool + i * kRegion;
		r[i].size = kRegion;
	}
	memset(&b, 0, sizeof(b));
	b.extCompatID = NVTX_EXT_COMPATID_MEM;
	b.structSize = sizeof(b);
	b.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
	b.heap = heap;
	b.regionCount = i;
	b.regionDescElementSize = sizeof(r[0]);
	b.regionDescElements = r;
	if (i)
		nvtxMemRegionsRegister(d, &b);
}

#endif
