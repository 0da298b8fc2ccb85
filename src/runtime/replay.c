/* Replay: everything is checked first; then a tight cudaGraphLaunch loop. */
#include "common/error.h"
#include "runtime/runtime.h"

/* Name the first graph of the iteration that has no executable. */
static int missing_graph(const struct cgs_runtime *rt,
			 const struct cgs_launch *l,
			 const struct cgs_launch *end,
			 const uint32_t *variants, uint32_t microbatches,
			 struct cgs_error *err)
{
	struct cgs_graph_desc d;
	uint32_t g;

	for (; l < end; l++) {
		g = variants[l->microbatch] * rt->stride + l->base;
		if (rt->exec[g])
			continue;
		cgs_runtime_describe(rt, g, &d);
		return cgs_error_set(err, CGS_E_NOGRAPH,
				     "graph %u (variant %u, chunk %u, slot %u, layer %u, %s) needed by microbatch %u of %u has no executable; capture or adopt it first",
				     g, d.variant, d.chunk, d.slot, d.layer,
				     d.direction == CGS_RUNTIME_FORWARD ?
				     "forward" : "backward",
				     l->microbatch, microbatches);
	}
	return 0;
}

/* Launch `index` of an iteration of `microbatches` failed with rc. */
static int launch_failed(struct cgs_error *err, cudaError_t rc,
			 uint64_t index, uint32_t microbatches)
{
	return cgs_cuda_fail(err, rc,
			     "cudaGraphLaunch of launch %llu of %u microbatches",
			     (unsigned long long)index, microbatches);
}

/*
 * The replay under an NVTX tool with graph permissions: each launch runs
 * with its graph's guard bound (nvtx.c); the plain loop below stays free
 * of it.
 */
static int replay_guarded(struct cgs_runtime *rt, const struct cgs_launch *l,
			  const struct cgs_launch *end,
			  const uint32_t *variants, uint32_t microbatches,
			  cudaStream_t stream, struct cgs_error *err)
{
	const struct cgs_launch *first = l;
	cudaError_t rc = cudaSuccess;
	uint32_t g;

	for (; l < end && rc == cudaSuccess; l++) {
		g = variants[l->microbatch] * rt->stride + l->base;
		cgs_nvtx_bind(rt, g);
		rc = cudaGraphLaunch(rt->exec[g], stream);
	}
	cgs_nvtx_unbind(rt);
	if (rc != cudaSuccess)
		return launch_failed(err, rc, (uint64_t)(l - 1 - first),
				     microbatches);
	return 0;
}

int cgs_runtime_replay(struct cgs_runtime *rt, uint32_t microbatches,
		       const uint32_t *variants, cudaStream_t stream,
		       struct cgs_error *err)
{
	const struct cgs_launch *l, *end;
	cudaGraphExec_t const *exec;
	uint32_t i, stride;
	cudaError_t rc;
	int status;

	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	status = cgs_runtime_check_request(rt, microbatches, variants, &i, err);
	if (status)
		return status;
	l = rt->launches + rt->launch_start[i];
	end = rt->launches + rt->launch_start[i + 1];
	if (rt->n_missing) {
		status = missing_graph(rt, l, end, variants, microbatches, err);
		if (status)
			return status;
	}
	exec = rt->exec;
	stride = rt->stride;
	if (cgs_nvtx_guards(rt))
		return replay_guarded(rt, l, end, variants, microbatches,
				      stream, err);
	for (; l < end; l++) {
		rc = cudaGraphLaunch(exec[variants[l->microbatch] * stride +
					  l->base], stream);
		if (rc != cudaSuccess)
			return launch_failed(err, rc,
					     (uint64_t)(l - rt->launches) -
					     rt->launch_start[i], microbatches);
	}
	return 0;
}
