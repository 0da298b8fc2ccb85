/*
 * Device side of `cgslot replay`, the GPU self-test: pattern kernels that
 * the record callback captures into each graph.  Built into the cgslot
 * tool only, never into libcgslot.
 *
 * A forward graph of (variant v, chunk c, layer l) fills the frame's
 * input, output and saved ranges with a pattern unique to (iteration,
 * microbatch, v, c, l, role).  A backward graph checks that those ranges
 * still hold it, checks the user gradient the layer above wrote, and
 * writes its own.  The backward of layer 0 then checks the user gradient
 * of the previous backward event (the source of an asynchronous pipeline
 * send until this event completes) and becomes the pending send itself.
 * Graphs stay static: the iteration comes from a device-side state the
 * host rewrites before each iteration, and the microbatch from per-chunk
 * forward and backward counters the graphs advance themselves.
 */
#ifndef CGS_RUNTIME_SELFTEST_H
#define CGS_RUNTIME_SELFTEST_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cgs_selftest;

/* A device range: NULL or 0 bytes means none. */
struct cgs_selftest_range {
	void *ptr;
	uint64_t bytes;
};

/* What one graph reads and writes. */
struct cgs_selftest_graph {
	uint32_t variant, chunk, layer, direction; /* direction 0 forward */
	uint32_t last_layer;         /* layer is the chunk's last */
	struct cgs_selftest_range frame[3];  /* input, output, saved */
	struct cgs_selftest_range grad;      /* this layer's user gradient */
	struct cgs_selftest_range grad_above; /* layer + 1's, or none */
	struct cgs_selftest_range stray;     /* forward also writes this */
};

/* Device state for `chunks` chunks; cudaError_t of the first failure. */
cudaError_t cgs_selftest_create(struct cgs_selftest **out, uint32_t chunks,
				int multiprocessors);
void cgs_selftest_destroy(struct cgs_selftest **st);

/* Record graph g's kernels on a capturing stream. */
cudaError_t cgs_selftest_record(struct cgs_selftest *st,
				const struct cgs_selftest_graph *g,
				cudaStream_t stream);

/*
 * Start an iteration: set the epoch (non-zero, unique per iteration),
 * reset the counters and the pending send.  enabled = 0 makes every
 * kernel return at once (for timing launches alone).
 */
cudaError_t cgs_selftest_begin(struct cgs_selftest *st, uint32_t epoch,
			       int enabled, cudaStream_t stream);

/* Wait for the stream and read the totals: bytes mismatched and checked. */
cudaError_t cgs_selftest_totals(struct cgs_selftest *st, cudaStream_t stream,
				uint64_t *mismatched, uint64_t *checked);

#ifdef __cplusplus
}
#endif

#endif
