/*
 * The NVTX probe on libcgslot's own annotations: open a manifest, allocate
 * its arenas (cgs_runtime_allocate registers them with NVTX), find the
 * first bytes of an arena that no frame owns, and write 4 bytes there from
 * a plain launch or a graph launch.  Under compute-sanitizer memcheck
 * --nvtx yes the write must be reported.  See tools/nvtx-probe.
 *
 * Usage: nvtx_arena_probe MANIFEST plain|graph
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "cgslot/cgslot.h"
#include "nvtx_probe.h"

struct span {
	uint32_t arena;
	uint64_t lo, hi;
};

static int by_place(const void *a, const void *b)
{
	const span *x = (const span *)a, *y = (const span *)b;

	if (x->arena != y->arena)
		return x->arena < y->arena ? -1 : 1;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* First unowned byte of any arena: a gap between ranges or an arena tail. */
static int find_gap(cgs_runtime *rt, const struct cgs_runtime_info *in,
		    uint32_t *arena, uint64_t *offset)
{
	size_t cap = (size_t)in->n_variants * in->vpp * 64 * in->slots *
		     CGS_RUNTIME_ROLES, n = 0, i;
	span *sp = (span *)malloc(cap * sizeof(*sp));
	uint32_t v, c, l, s, r, a, layers;
	uint64_t o, b, end = 0, bytes;

	if (!sp)
		return -1;
	for (v = 0; v < in->n_variants; v++)
		for (c = 0; c < in->vpp &&
			    cgs_runtime_chunk_layers(rt, c, &layers, NULL) == 0; c++)
			for (l = 0; l < layers; l++)
				for (s = 0; s < in->slots; s++)
					for (r = 0; r < CGS_RUNTIME_ROLES; r++)
						if (n < cap &&
						    cgs_runtime_slot_locate(rt, v, c, l, s,
							(cgs_runtime_role)r, &a, &o, &b,
							NULL) == 0 && b)
							sp[n++] = span{a, o, o + b};
	qsort(sp, n, sizeof(*sp), by_place);
	for (i = 0; i < n; i++) {
		if (i > 0 && sp[i].arena != sp[i - 1].arena) {
			cgs_runtime_arena(rt, sp[i - 1].arena, NULL, &bytes, NULL);
			if (end < bytes) {
				*arena = sp[i - 1].arena;
				*offset = end;
				free(sp);
				return 0;
			}
			end = 0;
		}
		if (sp[i].lo > end) {
			*arena = sp[i].arena;
			*offset = end;
			free(sp);
			return 0;
		}
		if (sp[i].hi > end)
			end = sp[i].hi;
	}
	if (n > 0) {
		cgs_runtime_arena(rt, sp[n - 1].arena, NULL, &bytes, NULL);
		if (end < bytes) {
			*arena = sp[n - 1].arena;
			*offset = end;
			free(sp);
			return 0;
		}
	}
	free(sp);
	return -1;
}

int main(int argc, char **argv)
{
	cgs_error err;
	cgs_runtime *rt = NULL;
	struct cgs_runtime_info in;
	uint32_t arena;
	uint64_t offset, bytes;
	void *base;
	unsigned *p;
	cudaStream_t s;
	cudaGraph_t g;
	cudaGraphExec_t e;
	int graph;

	if (argc != 3) {
		fprintf(stderr, "usage: nvtx_arena_probe MANIFEST plain|graph\n");
		return 2;
	}
	graph = strcmp(argv[2], "graph") == 0;
	memset(&err, 0, sizeof(err));
	if (cudaFree(0) != cudaSuccess ||
	    cgs_runtime_open(argv[1], 0, 0, &rt, &err) ||
	    cgs_runtime_allocate(rt, &bytes, &err)) {
		fprintf(stderr, "nvtx_arena_probe: %s\n", err.message);
		cgs_runtime_destroy(&rt);
		return 3;
	}
	in.size = sizeof(in);
	if (cgs_runtime_info(rt, &in, &err)) {
		fprintf(stderr, "nvtx_arena_probe: %s\n", err.message);
		cgs_runtime_destroy(&rt);
		return 3;
	}
	if (find_gap(rt, &in, &arena, &offset)) {
		fprintf(stderr, "nvtx_arena_probe: every arena byte is owned\n");
		cgs_runtime_destroy(&rt);
		return 1;
	}
	cgs_runtime_arena(rt, arena, &base, &bytes, NULL);
	p = (unsigned *)((char *)base + offset);
	printf("%s launch writes 4 bytes at offset %llu of arena %u (%llu bytes), owned by no frame\n",
	       graph ? "graph" : "plain", (unsigned long long)offset, arena,
	       (unsigned long long)bytes);
	cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
	if (graph) {
		cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
		poke<<<1, 32, 0, s>>>(p);
		cudaStreamEndCapture(s, &g);
		cudaGraphInstantiate(&e, g, 0);
		cudaGraphLaunch(e, s);
	} else {
		poke<<<1, 32, 0, s>>>(p);
	}
	printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	cgs_runtime_destroy(&rt);
	return 0;
}
