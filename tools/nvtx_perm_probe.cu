/*
 * How does compute-sanitizer memcheck apply NVTX memory permissions bound
 * to a CUDA stream, for plain launches and for graphs?  One 1 MiB pool is
 * registered as a sub-allocator heap with two adjacent regions, A = [0,
 * 4096) and B = [4096, 8192).  Permissions object PA grants A and denies
 * B; PB the reverse.  A kernel writes 4 bytes into A ("own"), into B
 * ("other") or into a separate cudaMalloc that no annotation names
 * ("outside").  Run each case under `compute-sanitizer --tool memcheck
 * --nvtx yes --error-exitcode 9`.
 *
 * Usage: nvtx_perm_probe MODE TARGET [exclude]
 *   MODE none:     plain launch, nothing bound (the baseline)
 *        plain:    bind PA, launch, unbind
 *        capture:  bind PA while capturing the graph only, then launch
 *        launch:   capture unbound, bind PA around the graph launch only
 *        queue:    graphs writing A and B; bind PA, launch A's graph, bind
 *                  PB, launch B's graph, with no synchronisation between
 *                  (TARGET own) or with the bindings swapped (TARGET other)
 *   exclude: create the objects with NVTX_MEM_PERMISSIONS_CREATE_FLAGS_
 *            EXCLUDE_GLOBAL_* and list only the granted region, instead of
 *            assigning no access to the denied one.
 *
 * Build: nvcc -O1 -arch=sm_90 -I/usr/local/cuda/include
 *        tools/nvtx_perm_probe.cu -o nvtx_perm_probe -ldl
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "nvtx_probe.h"

#define CHECK(call) PROBE_CHECK("nvtx_perm_probe", call)

static nvtxDomainHandle_t dom;

/* Permissions granting region `yes` and denying region `no`. */
static nvtxMemPermissionsHandle_t grant(char *yes, char *no, int exclude)
{
	nvtxMemPermissionsAssignRegionDesc_t r[2];
	nvtxMemPermissionsAssignBatch_t b;
	nvtxMemPermissionsHandle_t p;

	p = nvtxMemPermissionsCreate(dom, exclude ?
		NVTX_MEM_PERMISSIONS_CREATE_FLAGS_EXCLUDE_GLOBAL_READ |
		NVTX_MEM_PERMISSIONS_CREATE_FLAGS_EXCLUDE_GLOBAL_WRITE |
		NVTX_MEM_PERMISSIONS_CREATE_FLAGS_EXCLUDE_GLOBAL_ATOMIC :
		NVTX_MEM_PERMISSIONS_CREATE_FLAGS_NONE);
	memset(r, 0, sizeof(r));
	r[0].flags = NVTX_MEM_PERMISSIONS_REGION_FLAGS_READ |
		     NVTX_MEM_PERMISSIONS_REGION_FLAGS_WRITE |
		     NVTX_MEM_PERMISSIONS_REGION_FLAGS_ATOMIC;
	r[0].regionRefType = NVTX_MEM_REGION_REF_TYPE_POINTER;
	r[0].region.pointer = yes;
	r[1].flags = NVTX_MEM_PERMISSIONS_REGION_FLAGS_NONE;
	r[1].regionRefType = NVTX_MEM_REGION_REF_TYPE_POINTER;
	r[1].region.pointer = no;
	memset(&b, 0, sizeof(b));
	b.extCompatID = NVTX_EXT_COMPATID_MEM;
	b.structSize = sizeof(b);
	b.permissions = p;
	b.regionCount = exclude ? 1 : 2;
	b.regionElementSize = sizeof(r[0]);
	b.regionElements = r;
	nvtxMemPermissionsAssign(dom, &b);
	return p;
}

static void bind(nvtxMemPermissionsHandle_t p)
{
	nvtxMemPermissionsBind(dom, p, NVTX_MEM_PERMISSIONS_BIND_SCOPE_CUDA_STREAM,
			       NVTX_MEM_PERMISSIONS_BIND_FLAGS_NONE);
}

static void unbind(void)
{
	nvtxMemPermissionsUnbind(dom, NVTX_MEM_PERMISSIONS_BIND_SCOPE_CUDA_STREAM);
}

static int capture(cudaStream_t s, unsigned *p, cudaGraphExec_t *e)
{
	cudaGraph_t g;

	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	poke<<<1, 32, 0, s>>>(p);
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(e, g, 0));
	return 0;
}

int main(int argc, char **argv)
{
	nvtxMemHeapHandle_t heap;
	nvtxMemPermissionsHandle_t pa, pb;
	cudaGraphExec_t ea, eb;
	cudaStream_t s;
	char *pool, *outside, *a, *b;
	unsigned *target;
	int exclude;
	const char *mode, *what;

	if (argc < 3) {
		fprintf(stderr, "usage: nvtx_perm_probe none|plain|capture|launch|queue own|other|outside [exclude]\n");
		return 2;
	}
	mode = argv[1];
	what = argv[2];
	exclude = argc > 3 && strcmp(argv[3], "exclude") == 0;
	CHECK(cudaFree(0));
	CHECK(cudaMalloc(&pool, kPool));
	CHECK(cudaMalloc(&outside, kRegion));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	a = pool;
	b = pool + kRegion;
	dom = nvtxDomainCreateA("nvtx_perm_probe");

	heap = probe_heap(dom, pool, "nvtx_perm_probe pool");
	probe_regions(dom, heap, pool, 2);
	pa = grant(a, b, exclude);
	pb = grant(b, a, exclude);

	target = (unsigned *)(strcmp(what, "own") == 0 ? a :
			      strcmp(what, "other") == 0 ? b : outside);
	printf("mode %s, write into %s, permissions %s; heap %p, permissions %p\n",
	       mode, what, exclude ? "exclude-global" : "deny-listed",
	       (void *)heap, (void *)pa);
	if (strcmp(mode, "none") == 0) {
		poke<<<1, 32, 0, s>>>(target);
	} else if (strcmp(mode, "plain") == 0) {
		bind(pa);
		poke<<<1, 32, 0, s>>>(target);
		unbind();
	} else if (strcmp(mode, "capture") == 0) {
		bind(pa);
		if (capture(s, target, &ea))
			return 3;
		unbind();
		CHECK(cudaGraphLaunch(ea, s));
	} else if (strcmp(mode, "launch") == 0) {
		if (capture(s, target, &ea))
			return 3;
		bind(pa);
		CHECK(cudaGraphLaunch(ea, s));
		unbind();
	} else if (strcmp(mode, "queue") == 0) {
		int swap = strcmp(what, "other") == 0;
		if (capture(s, (unsigned *)a, &ea) || capture(s, (unsigned *)b, &eb))
			return 3;
		for (int i = 0; i < 100; i++) {
			bind(swap ? pb : pa);
			CHECK(cudaGraphLaunch(ea, s));
			bind(swap ? pa : pb);
			CHECK(cudaGraphLaunch(eb, s));
		}
		unbind();
	} else {
		fprintf(stderr, "nvtx_perm_probe: unknown mode %s\n", mode);
		return 2;
	}
	printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	nvtxMemPermissionsDestroy(dom, pa);
	nvtxMemPermissionsDestroy(dom, pb);
	nvtxMemHeapUnregister(dom, heap);
	return 0;
}
