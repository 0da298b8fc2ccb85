/* Capturing graphs through the user's callback, and adopting executables. */
#include <string.h>

#include "common/error.h"
#include "runtime/runtime.h"

static const char *direction_name(uint32_t d)
{
	return d == CGS_RUNTIME_FORWARD ? "forward" : "backward";
}

/* A callback's return value as a status code. */
static int callback_status(int rc)
{
	if (rc < 0 && strcmp(cgs_status_name(rc), "CGS_E_UNKNOWN") != 0)
		return rc;
	return CGS_E_INVALID;
}

static void set_exec(struct cgs_runtime *rt, uint32_t g, cudaGraphExec_t e,
		     int owned)
{
	if (rt->exec[g]) {
		if (rt->exec_owned[g])
			(void)cudaGraphExecDestroy(rt->exec[g]);
	} else {
		rt->n_missing--;
	}
	rt->exec[g] = e;
	rt->exec_owned[g] = (unsigned char)owned;
}

/* Capture graph g on `stream` (the capture is always ended). */
static int capture_one(struct cgs_runtime *rt, const struct cgs_graph_desc *d,
		       cgs_record_fn record, void *user, cudaStream_t stream,
		       struct cgs_error *err)
{
	cudaGraph_t graph = NULL;
	cudaGraphExec_t exec = NULL;
	cudaError_t rc, end_rc;
	uint64_t t0, t1, t2;
	int user_rc;

	t0 = cgs_runtime_now_ns();
	rc = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
	if (rc != cudaSuccess)
		return cgs_cuda_fail(err, rc,
				     "cannot begin capturing graph %u (variant %u, chunk %u, slot %u, layer %u, %s)",
				     d->index, d->variant, d->chunk, d->slot,
				     d->layer, direction_name(d->direction));
	user_rc = record(user, d, stream);
	end_rc = cudaStreamEndCapture(stream, &graph);
	t1 = cgs_runtime_now_ns();
	if (user_rc != 0) {
		if (graph)
			(void)cudaGraphDestroy(graph);
		(void)cudaGetLastError();
		return cgs_error_set(err, callback_status(user_rc),
				     "the record callback failed (%d) for graph %u (variant %u, chunk %u, slot %u, layer %u, %s)",
				     user_rc, d->index, d->variant, d->chunk,
				     d->slot, d->layer,
				     direction_name(d->direction));
	}
	if (end_rc != cudaSuccess)
		return cgs_cuda_fail(err, end_rc,
				     "capture of graph %u (variant %u, chunk %u, slot %u, layer %u, %s) failed",
				     d->index, d->variant, d->chunk, d->slot,
				     d->layer, direction_name(d->direction));
	rc = cudaGraphInstantiate(&exec, graph, 0);
	t2 = cgs_runtime_now_ns();
	(void)cudaGraphDestroy(graph);
	if (rc != cudaSuccess)
		return cgs_cuda_fail(err, rc, "cannot instantiate graph %u",
				     d->index);
	set_exec(rt, d->index, exec, 1);
	rt->stats.graphs_captured++;
	rt->stats.capture_ns += t1 - t0;
	rt->stats.instantiate_ns += t2 - t1;
	return 0;
}

int cgs_runtime_capture(struct cgs_runtime *rt, cgs_record_fn record,
			void *user, cudaStream_t stream,
			struct cgs_error *err)
{
	struct cgs_graph_desc d;
	cudaStream_t own = NULL;
	uint32_t i, n, g;
	cudaError_t crc;
	int prev, rc;

	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	if (!record)
		return cgs_runtime_null(err, __func__, "record");
	if (stream == cudaStreamLegacy)
		return cgs_error_set(err, CGS_E_ARG,
				     "the legacy default stream cannot capture; pass a stream created with cudaStreamCreate, or NULL");
	if (!rt->allocated)
		return cgs_error_set(err, CGS_E_STATE,
				     "arenas are not allocated yet; call cgs_runtime_allocate before capturing");
	rc = cgs_device_enter(rt, &prev, err);
	if (rc)
		return rc;
	if (!stream) {
		crc = cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);
		if (crc != cudaSuccess) {
			rc = cgs_cuda_fail(err, crc, "cannot create a capture stream");
			goto out;
		}
		stream = own;
	}
	n = cgs_runtime_graph_count(rt);
	for (i = 0; i < n && rc == 0; i++) {
		g = cgs_manifest_capture(rt->manifest, rt->ri, i);
		if (rt->exec[g])
			continue;
		cgs_runtime_describe(rt, g, &d);
		rc = capture_one(rt, &d, record, user, stream, err);
	}
	if (own)
		(void)cudaStreamDestroy(own);
out:
	cgs_device_leave(rt, prev);
	return rc;
}

int cgs_runtime_adopt(struct cgs_runtime *rt, uint32_t g,
		      cudaGraphExec_t exec, unsigned flags,
		      struct cgs_error *err)
{
	if (!rt)
		return cgs_runtime_null(err, __func__, "rt");
	if (g >= rt->info.n_graphs)
		return cgs_error_set(err, CGS_E_ARG,
				     "graph %u is out of range; accepted: 0..%u",
				     g, rt->info.n_graphs ? rt->info.n_graphs - 1 : 0);
	if (!exec)
		return cgs_error_set(err, CGS_E_ARG,
				     "the executable adopted as graph %u is NULL", g);
	if (flags & ~CGS_ADOPT_OWN)
		return cgs_error_set(err, CGS_E_ARG,
				     "adopt flags 0x%x are unknown; accepted: CGS_ADOPT_OWN, CGS_ADOPT_BORROW",
				     flags);
	if (rt->exec[g] == exec) {
		rt->exec_owned[g] = (flags & CGS_ADOPT_OWN) != 0;
		return 0;
	}
	set_exec(rt, g, exec, (flags & CGS_ADOPT_OWN) != 0);
	rt->stats.graphs_adopted++;
	return 0;
}
