/*
 * Internals of libcgslot shared by its source files.  Nothing here is
 * installed; the public API is include/cgslot/cgslot.h.
 */
#ifndef CGS_RUNTIME_RUNTIME_H
#define CGS_RUNTIME_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cgslot/cgslot.h"
#include "manifest/manifest.h"

/*
 * The sizes of the extensible structs in ABI 0.2, the smallest a caller
 * may pass: the end of each struct's last 0.2 field.  Later versions
 * append fields and keep these.
 */
#define CGS_INFO_SIZE_0_2                                                      \
	(offsetof(struct cgs_runtime_info, alignment) + sizeof(uint64_t))
#define CGS_DESC_SIZE_0_2                                                      \
	(offsetof(struct cgs_graph_desc, bytes) + 4 * sizeof(uint64_t))
#define CGS_STATS_SIZE_0_2                                                     \
	(offsetof(struct cgs_runtime_stats, instantiate_ns) + sizeof(uint64_t))

/*
 * One graph launch of a precomputed iteration: the graph index is
 * variants[microbatch] * stride + base, base = f * 2 + direction.
 */
struct cgs_launch {
	uint32_t base;
	uint32_t microbatch;
};

struct cgs_runtime_nvtx; /* NVTX registrations, see nvtx.c */

struct cgs_runtime {
	struct cgs_manifest *manifest;
	void *copy;                  /* bytes owned for open_buffer, or NULL */
	uint32_t ri;                 /* rank index inside the manifest */
	struct cgs_runtime_info info;

	uint32_t *layers;            /* vpp: layers of each chunk */
	uint32_t *layer_base;        /* vpp + 1 prefix sums */

	/* Launch sequence of reachable count i: launches[start[i] .. start[i+1]). */
	uint32_t *reachable;         /* n_reachable counts, ascending */
	uint64_t *launch_start;      /* n_reachable + 1 */
	struct cgs_launch *launches;
	uint32_t stride;             /* n_saved * 2: graph index step per variant */

	/* CUDA state. */
	int allocated;
	void **arena_alloc;          /* what cudaMalloc returned, per arena */
	char **arena_base;           /* aligned base, per arena */
	cudaGraphExec_t *exec;       /* n_graphs, NULL when missing */
	unsigned char *exec_owned;   /* n_graphs */
	uint32_t n_missing;          /* graphs without an executable */
	struct cgs_runtime_stats stats;
	struct cgs_runtime_nvtx *nvtx;
};

/*
 * The status a CUDA error maps to: CGS_E_NODEVICE (no device or driver),
 * CGS_E_CUDA_FATAL (sticky: the context is unusable) or CGS_E_CUDA.
 */
int cgs_cuda_status(cudaError_t rc);

/*
 * Record a failed CUDA call: the message is the formatted context, then
 * the CUDA error's name and text; cuda_error holds rc.  Returns the status
 * from cgs_cuda_status().  Clears a non-sticky error from cudart's
 * last-error slot so it does not resurface in an unrelated call.
 */
int cgs_cuda_fail(struct cgs_error *err, cudaError_t rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Make the runtime's device current, storing the previous one in *prev;
 * cgs_device_leave restores it.
 */
int cgs_device_enter(const struct cgs_runtime *rt, int *prev,
		     struct cgs_error *err);
void cgs_device_leave(const struct cgs_runtime *rt, int prev);

/*
 * NVTX memory annotations of the arenas (nvtx.c).  cgs_nvtx_guards says
 * whether graphs have permissions objects; then cgs_nvtx_bind binds graph
 * g's before its launch and cgs_nvtx_unbind ends the replay.
 */
int cgs_nvtx_register(struct cgs_runtime *rt, struct cgs_error *err);
void cgs_nvtx_unregister(struct cgs_runtime *rt);
int cgs_nvtx_guards(const struct cgs_runtime *rt);
void cgs_nvtx_bind(const struct cgs_runtime *rt, uint32_t g);
void cgs_nvtx_unbind(const struct cgs_runtime *rt);

/*
 * Refuse a NULL argument `arg` of entry point `fn`: CGS_E_ARG with a
 * message that names both.
 */
int cgs_runtime_null(struct cgs_error *err, const char *fn, const char *arg);

/*
 * Copy a struct of the library's `own` bytes to a caller's extensible
 * struct `dst`, whose leading uint32_t size the caller set: refuse a NULL
 * dst or a size below `min` (CGS_E_ARG), copy the bytes both know and
 * store their count in dst's size.
 */
int cgs_runtime_fill_sized(void *dst, const void *src, size_t own, size_t min,
			   const char *fn, const char *arg,
			   struct cgs_error *err);

/*
 * The index of reachable count n among the reachable counts, in *idx;
 * CGS_E_UNREACHABLE with a message saying what is accepted.
 */
int cgs_runtime_find_count(const struct cgs_runtime *rt, uint32_t n,
			   uint32_t *idx, struct cgs_error *err);

/*
 * The physical slot of microbatch k of chunk c in an iteration of the
 * reachable count of index count_idx: the manifest's slot map for that
 * count (and chunk) where the rank has one, else k mod S.
 */
static inline uint32_t cgs_runtime_ring_slot(const struct cgs_runtime *rt,
					     uint32_t count_idx, uint32_t c,
					     uint32_t k)
{
	return cgs_manifest_slot(rt->manifest, rt->ri, count_idx, c, k);
}

/* Saved frame index of (chunk, slot, layer). */
static inline uint32_t cgs_runtime_frame(const struct cgs_runtime *rt,
					 uint32_t c, uint32_t s, uint32_t l)
{
	return rt->layer_base[c] * rt->info.slots + s * rt->layers[c] + l;
}

/* Fill a graph description of graph g (addresses only once allocated). */
void cgs_runtime_describe(const struct cgs_runtime *rt, uint32_t g,
			  struct cgs_graph_desc *d);

/*
 * Check a replay request before anything is launched: the count is
 * reachable (CGS_E_UNREACHABLE) and every variant is in range (CGS_E_ARG).
 * Stores the count's index among the reachable counts in *idx.
 */
int cgs_runtime_check_request(const struct cgs_runtime *rt,
			       uint32_t microbatches,
			       const uint32_t *variants, uint32_t *idx,
			       struct cgs_error *err);

/* Monotonic clock in nanoseconds. */
uint64_t cgs_runtime_now_ns(void);

#endif
