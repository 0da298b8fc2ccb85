/* Pattern kernels of the `cgslot replay` self-test (see selftest.h). */
#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "cli/selftest.h"

namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kRoleGrad = 3;
constexpr unsigned kMaxOps = 5;

struct State {
	unsigned epoch;
	unsigned enabled;
	unsigned pend_valid;
	unsigned pend_key;
	unsigned long long pend_ptr;
	unsigned long long pend_bytes;
	unsigned long long mismatched;
	unsigned long long checked;
	unsigned counters[1]; /* 2 * chunks: forwards, then backwards */
};

struct Op {
	unsigned long long ptr;
	unsigned long long bytes;
	unsigned role;
	unsigned layer;
	unsigned check; /* 0 fill, 1 check */
	unsigned pad;
};

struct Work {
	Op op[kMaxOps];
	unsigned nops;
	unsigned variant, chunk, counter;
	State *st;
};

__device__ __forceinline__ unsigned fmix(unsigned h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

__device__ __forceinline__ unsigned mix(unsigned h, unsigned x)
{
	return fmix(h ^ (x + 0x9e3779b9u + (h << 6) + (h >> 2)));
}

/* The pattern key of (iteration, microbatch, variant, chunk, layer, role). */
__device__ unsigned pattern_key(unsigned epoch, unsigned mb, unsigned v,
				unsigned c, unsigned l, unsigned role)
{
	unsigned h = 0x63677331u; /* "cgs1" */

	h = mix(h, epoch);
	h = mix(h, mb);
	h = mix(h, v);
	h = mix(h, c);
	h = mix(h, l);
	return mix(h, role);
}

/* Word i of the pattern of `key`. */
__device__ __forceinline__ unsigned pattern_word(unsigned key,
						 unsigned long long i)
{
	return fmix(key ^ ((unsigned)i * 0x9e3779b1u) ^
		    ((unsigned)(i >> 32) * 0x7feb352du));
}

__device__ __forceinline__ unsigned byte_diffs(unsigned a, unsigned b)
{
	return __popc(__vcmpne4(a, b)) / 8;
}

/*
 * Fill or check one range with the pattern of `key` over a grid-stride
 * loop; returns this thread's (mismatched, checked) bytes.
 */
__device__ void process(const Op &op, unsigned key, unsigned long long tid,
			unsigned long long nthreads, unsigned long long *bad,
			unsigned long long *seen)
{
	unsigned char *p = (unsigned char *)op.ptr;
	unsigned long long n16 = 0, q, j;

	if (op.ptr % 16 == 0) {
		n16 = op.bytes / 16;
		uint4 *v = (uint4 *)p;
		for (q = tid; q < n16; q += nthreads) {
			uint4 w;
			w.x = pattern_word(key, 4 * q);
			w.y = pattern_word(key, 4 * q + 1);
			w.z = pattern_word(key, 4 * q + 2);
			w.w = pattern_word(key, 4 * q + 3);
			if (!op.check) {
				v[q] = w;
			} else {
				uint4 r = v[q];
				*bad += byte_diffs(r.x, w.x) + byte_diffs(r.y, w.y) +
					byte_diffs(r.z, w.z) + byte_diffs(r.w, w.w);
				*seen += 16;
			}
		}
	}
	for (j = n16 * 16 + tid; j < op.bytes; j += nthreads) {
		unsigned char want = (unsigned char)(pattern_word(key, j / 4) >>
						     (8 * (j % 4)));
		if (!op.check) {
			p[j] = want;
		} else {
			*bad += p[j] != want;
			*seen += 1;
		}
	}
}

__device__ void add_totals(State *st, unsigned long long bad,
			   unsigned long long seen)
{
	for (int o = 16; o > 0; o /= 2) {
		bad += __shfl_down_sync(0xffffffffu, bad, o);
		seen += __shfl_down_sync(0xffffffffu, seen, o);
	}
	if ((threadIdx.x & 31) == 0) {
		if (bad)
			atomicAdd(&st->mismatched, bad);
		if (seen)
			atomicAdd(&st->checked, seen);
	}
}

__global__ void work_kernel(Work w)
{
	State *st = w.st;
	unsigned long long bad = 0, seen = 0;

	if (!st->enabled || blockIdx.y >= w.nops)
		return;
	const Op &op = w.op[blockIdx.y];
	unsigned key = pattern_key(st->epoch, st->counters[w.counter],
				   w.variant, w.chunk, op.layer, op.role);
	process(op, key, (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x,
		(unsigned long long)gridDim.x * blockDim.x, &bad, &seen);
	add_totals(st, bad, seen);
}

/* Check the previous backward event's first-layer gradient (the send). */
__global__ void send_kernel(State *st)
{
	unsigned long long bad = 0, seen = 0;
	Op op = {};

	if (!st->enabled || !st->pend_valid)
		return;
	op.ptr = st->pend_ptr;
	op.bytes = st->pend_bytes;
	op.check = 1;
	process(op, st->pend_key,
		(unsigned long long)blockIdx.x * blockDim.x + threadIdx.x,
		(unsigned long long)gridDim.x * blockDim.x, &bad, &seen);
	add_totals(st, bad, seen);
}

/*
 * After the last kernel of an event's chunk: advance the chunk's counter;
 * after a backward event, its first layer's gradient is the pending send.
 */
__global__ void advance_kernel(State *st, unsigned counter, int backward,
			       unsigned v, unsigned c, unsigned long long gptr,
			       unsigned long long gbytes)
{
	if (!st->enabled)
		return;
	if (backward) {
		st->pend_valid = gbytes != 0;
		st->pend_ptr = gptr;
		st->pend_bytes = gbytes;
		st->pend_key = pattern_key(st->epoch, st->counters[counter], v,
					   c, 0, kRoleGrad);
	}
	st->counters[counter]++;
}

__global__ void begin_kernel(State *st, unsigned chunks, unsigned epoch,
			     unsigned enabled)
{
	for (unsigned i = threadIdx.x; i < 2 * chunks; i += blockDim.x)
		st->counters[i] = 0;
	if (threadIdx.x == 0) {
		st->epoch = epoch;
		st->enabled = enabled;
		st->pend_valid = 0;
	}
}

void add_op(Work *w, const cgs_selftest_range &r, unsigned role,
	    unsigned layer, unsigned check)
{
	if (!r.ptr || !r.bytes)
		return;
	Op &op = w->op[w->nops++];
	op.ptr = (unsigned long long)(uintptr_t)r.ptr;
	op.bytes = r.bytes;
	op.role = role;
	op.layer = layer;
	op.check = check;
	op.pad = 0;
}

unsigned blocks_for(unsigned long long bytes, unsigned cap)
{
	unsigned long long b = (bytes / 16 + kThreads - 1) / kThreads;

	if (b < 1)
		b = 1;
	return b > cap ? cap : (unsigned)b;
}

} /* namespace */

struct cgs_selftest {
	State *st;
	unsigned chunks;
	unsigned max_blocks;
};

extern "C" cudaError_t cgs_selftest_create(struct cgs_selftest **out,
					   uint32_t chunks,
					   int multiprocessors)
{
	struct cgs_selftest *t;
	cudaError_t rc;
	size_t bytes = sizeof(State) + 2 * (size_t)chunks * sizeof(unsigned);

	*out = NULL;
	t = (struct cgs_selftest *)calloc(1, sizeof(*t));
	if (!t)
		return cudaErrorMemoryAllocation;
	rc = cudaMalloc(&t->st, bytes);
	if (rc == cudaSuccess)
		rc = cudaMemset(t->st, 0, bytes);
	if (rc != cudaSuccess) {
		cudaFree(t->st);
		free(t);
		return rc;
	}
	t->chunks = chunks;
	t->max_blocks = 4 * (unsigned)(multiprocessors > 0 ? multiprocessors : 1);
	/*
	 * Launch every kernel once, disabled (the state is zero), so lazy
	 * module loading happens here and not during a stream capture.
	 */
	Work w = {};
	w.st = t->st;
	work_kernel<<<1, kThreads>>>(w);
	send_kernel<<<1, kThreads>>>(t->st);
	advance_kernel<<<1, 1>>>(t->st, 0, 0, 0, 0, 0, 0);
	begin_kernel<<<1, 64>>>(t->st, chunks, 0, 0);
	rc = cudaGetLastError();
	if (rc == cudaSuccess)
		rc = cudaDeviceSynchronize();
	if (rc != cudaSuccess) {
		cudaFree(t->st);
		free(t);
		return rc;
	}
	*out = t;
	return cudaSuccess;
}

extern "C" void cgs_selftest_destroy(struct cgs_selftest **tp)
{
	if (!tp || !*tp)
		return;
	cudaFree((*tp)->st);
	free(*tp);
	*tp = NULL;
}

extern "C" cudaError_t cgs_selftest_record(struct cgs_selftest *t,
					   const struct cgs_selftest_graph *g,
					   cudaStream_t stream)
{
	Work w = {};
	unsigned long long most = 0;
	unsigned i, backward = g->direction != 0;

	w.variant = g->variant;
	w.chunk = g->chunk;
	w.counter = (backward ? t->chunks : 0) + g->chunk;
	w.st = t->st;
	for (i = 0; i < 3; i++)
		add_op(&w, g->frame[i], i, g->layer, backward);
	if (backward) {
		add_op(&w, g->grad, kRoleGrad, g->layer, 0);
		add_op(&w, g->grad_above, kRoleGrad, g->layer + 1, 1);
	} else {
		add_op(&w, g->stray, kRoleGrad + 1, g->layer, 0);
	}
	for (i = 0; i < w.nops; i++)
		if (w.op[i].bytes > most)
			most = w.op[i].bytes;
	if (w.nops) {
		dim3 grid(blocks_for(most, t->max_blocks), w.nops);
		work_kernel<<<grid, kThreads, 0, stream>>>(w);
	}
	if (backward && g->layer == 0)
		send_kernel<<<t->max_blocks, kThreads, 0, stream>>>(t->st);
	if (backward ? g->layer == 0 : g->last_layer)
		advance_kernel<<<1, 1, 0, stream>>>(
			t->st, w.counter, (int)backward, g->variant, g->chunk,
			(unsigned long long)(uintptr_t)g->grad.ptr,
			g->grad.ptr ? g->grad.bytes : 0);
	return cudaGetLastError();
}

extern "C" cudaError_t cgs_selftest_begin(struct cgs_selftest *t,
					  uint32_t epoch, int enabled,
					  cudaStream_t stream)
{
	begin_kernel<<<1, 64, 0, stream>>>(t->st, t->chunks, epoch,
					   enabled ? 1u : 0u);
	return cudaGetLastError();
}

extern "C" cudaError_t cgs_selftest_totals(struct cgs_selftest *t,
					   cudaStream_t stream,
					   uint64_t *mismatched,
					   uint64_t *checked)
{
	unsigned long long v[2];
	cudaError_t rc;

	rc = cudaMemcpyAsync(v, &t->st->mismatched, sizeof(v),
			     cudaMemcpyDeviceToHost, stream);
	if (rc == cudaSuccess)
		rc = cudaStreamSynchronize(stream);
	if (rc != cudaSuccess)
		return rc;
	*mismatched = v[0];
	*checked = v[1];
	return cudaSuccess;
}
