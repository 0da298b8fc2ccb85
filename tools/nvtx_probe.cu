/*
 * Does compute-sanitizer memcheck honour the NVTX memory annotations the
 * way libcgslot makes them (src/runtime/nvtx.c)?  One cudaMalloc'd pool of
 * 1 MiB is registered as a sub-allocator heap with one region, [0, 4096);
 * one thread then writes 4 bytes at a given offset of the pool, from a
 * plain launch or from a graph launch.  Run each case under
 * `compute-sanitizer --tool memcheck --nvtx yes --error-exitcode 9`: a
 * write outside the region must be reported, one inside must not.
 *
 * Usage: nvtx_probe plain|graph OFFSET [late] [default-domain] [no-region]
 *                    [no-message]
 *        nvtx_probe control
 * late: capture and instantiate the graph before the annotations are made.
 * default-domain: annotate in NVTX's default domain instead of a named one.
 * no-region: register the heap only, so that no byte of the pool is owned.
 * no-message: leave the heap's description text unset (libcgslot sets one).
 * control: no NVTX; write 4 bytes past the end of a 1000-byte cudaMalloc,
 * which memcheck reports with or without annotations.
 *
 * Build: nvcc -O1 -arch=sm_90 -I/usr/local/cuda/include tools/nvtx_probe.cu
 *        -o nvtx_probe -ldl
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "nvtx_probe.h"

#define CHECK(call) PROBE_CHECK("nvtx_probe", call)

static nvtxMemHeapHandle_t annotate(nvtxDomainHandle_t d, char *pool,
				    int regions, int message)
{
	nvtxMemHeapHandle_t heap = probe_heap(d, pool,
					      message ? "nvtx_probe pool" : NULL);

	probe_regions(d, heap, pool, regions);
	return heap;
}

int main(int argc, char **argv)
{
	int graph, late = 0, dflt = 0, regions = 1, message = 1, i;
	size_t off;
	char *pool;
	nvtxDomainHandle_t d = NULL;
	nvtxMemHeapHandle_t heap = NULL;
	cudaStream_t s;
	cudaGraph_t g;
	cudaGraphExec_t e = NULL;

	if (argc == 2 && strcmp(argv[1], "control") == 0) {
		CHECK(cudaMalloc(&pool, 1000));
		poke<<<1, 32>>>((unsigned *)(pool + 1000));
		printf("control: write 4 bytes at 1000 of a 1000-byte cudaMalloc\n");
		printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
		return 0;
	}
	if (argc < 3 || (strcmp(argv[1], "plain") && strcmp(argv[1], "graph"))) {
		fprintf(stderr, "usage: nvtx_probe plain|graph OFFSET [late] [default-domain] [no-region] [no-message] | control\n");
		return 2;
	}
	graph = strcmp(argv[1], "graph") == 0;
	off = strtoull(argv[2], NULL, 0);
	for (i = 3; i < argc; i++) {
		late |= strcmp(argv[i], "late") == 0;
		dflt |= strcmp(argv[i], "default-domain") == 0;
		if (strcmp(argv[i], "no-region") == 0)
			regions = 0;
		if (strcmp(argv[i], "no-message") == 0)
			message = 0;
	}
	if (off + 4 > kPool) {
		fprintf(stderr, "nvtx_probe: offset %zu is past the pool\n", off);
		return 2;
	}
	/* The sanitizer wants the runtime initialised before any NVTX call. */
	CHECK(cudaFree(0));
	CHECK(cudaMalloc(&pool, kPool));
	CHECK(cudaMemset(pool, 0, kPool));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	if (!dflt)
		d = nvtxDomainCreateA("nvtx_probe");
	if (graph && late) {
		CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
		poke<<<1, 32, 0, s>>>((unsigned *)(pool + off));
		CHECK(cudaStreamEndCapture(s, &g));
		CHECK(cudaGraphInstantiate(&e, g, 0));
	}
	heap = annotate(d, pool, regions, message);
	/* With a tool attached the heap handle is the pool's address; NULL
	 * means no NVTX tool received the call. */
	printf("%s launch, write 4 bytes at offset %zu of a %zu-byte pool whose region is [0, %zu)%s%s; heap handle %p (pool %p)\n",
	       graph ? "graph" : "plain", off, kPool, regions ? kRegion : 0,
	       late ? ", graph made before the annotations" : "",
	       dflt ? ", default domain" : "", (void *)heap, (void *)pool);
	if (graph) {
		if (!late) {
			CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
			poke<<<1, 32, 0, s>>>((unsigned *)(pool + off));
			CHECK(cudaStreamEndCapture(s, &g));
			CHECK(cudaGraphInstantiate(&e, g, 0));
		}
		CHECK(cudaGraphLaunch(e, s));
	} else {
		poke<<<1, 32, 0, s>>>((unsigned *)(pool + off));
	}
	printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	if (heap)
		nvtxMemHeapUnregister(d, heap);
	if (e)
		cudaGraphExecDestroy(e);
	cudaFree(pool);
	return 0;
}
