/*
 * libcgslot: the runtime loader of cgslot slot manifests.
 *
 * A training process opens the manifest that `cgslot compile` wrote, for
 * its pipeline rank and CUDA device; allocates the manifest's arenas once
 * (one cudaMalloc each); captures one CUDA graph per (variant, chunk,
 * layer, slot, direction) against the fixed addresses the manifest gives,
 * or adopts graph executables captured elsewhere (for example by PyTorch);
 * and replays an iteration for any reachable microbatch count with any
 * variant per microbatch.  The library needs only the CUDA runtime, linked
 * dynamically so it shares the process's cudart.
 *
 * Indexing (the manifest's, see cgslot-manifest(5)):
 *   layer_base(c)    layers in chunks 0..c-1 (0-based chunks)
 *   saved frame f    (c, s, l) -> layer_base(c) * S + s * layers(c) + l
 *   graph index g    (v, f, d) -> (v * n_saved + f) * 2 + d, d = 0 forward
 * Logical microbatch k of chunk c in an iteration of N microbatches runs
 * in the physical slot cgs_runtime_slot(N, c, k) gives: the slot map the
 * manifest stores for this rank and N (format 2), else k mod S with S
 * the rank's own ring (info.slots).  During a replay, the k-th forward
 * (+c) of chunk c runs microbatch k's layers in order, and the k-th
 * backward (-c) runs them reversed.
 *
 * Errors: every function that can fail returns 0 or a negative CGS_E_*
 * code (cgslot/error.h) and fills the optional struct cgs_error (first
 * error wins).  CUDA failures are CGS_E_CUDA with the CUDA error's name and
 * message and the raw cudaError_t in cgs_error.cuda_error; sticky errors
 * that leave the context unusable (an illegal address, a launch failure,
 * an uncorrectable ECC error, ...) are CGS_E_CUDA_FATAL; no device or no
 * usable driver is CGS_E_NODEVICE.  The library never prints or exits.
 *
 * Threads: a runtime object is not locked; use one from one thread at a
 * time.  Distinct objects are independent.  Functions without a runtime
 * argument (cgs_version, cgs_version_string, cgs_status_name) may be
 * called from any thread at any time.
 *
 * Growth: structs that cross the API start with `uint32_t size`.  The
 * caller sets it to sizeof the struct it was compiled with; the library
 * fills as many bytes as both know (the smaller size), stores that count
 * in `size`, and refuses (CGS_E_ARG) a size below the 0.2 layout.  A
 * caller built against a newer header than the library it runs with
 * therefore sees `size` shrink and knows which fields were not filled.
 * Fields are only ever appended.  Lookups return a status and store
 * their answer through a pointer, so an error is never mistaken for a
 * value.
 */
#ifndef CGSLOT_CGSLOT_H
#define CGSLOT_CGSLOT_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cgslot/error.h"

/*
 * The version of this header.  cgs_version() gives the library's, which
 * may be newer: compare the two at run time when it matters.
 */
#define CGSLOT_VERSION_MAJOR 0
#define CGSLOT_VERSION_MINOR 2
#define CGSLOT_VERSION_PATCH 0
#define CGSLOT_VERSION_NUMBER                                                  \
	(CGSLOT_VERSION_MAJOR * 10000 + CGSLOT_VERSION_MINOR * 100 +            \
	 CGSLOT_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* The byte ranges a graph reads and writes; values match the manifest. */
enum cgs_runtime_role {
	CGS_RUNTIME_INPUT = 0,     /* the layer's static input */
	CGS_RUNTIME_OUTPUT = 1,    /* its public output */
	CGS_RUNTIME_SAVED = 2,     /* its autograd-saved tensors */
	CGS_RUNTIME_USER_GRAD = 3, /* its input gradient (user-grad frame) */
	CGS_RUNTIME_ROLES = 4,
};

enum cgs_runtime_direction {
	CGS_RUNTIME_FORWARD = 0,
	CGS_RUNTIME_BACKWARD = 1,
};

/* Flags of cgs_runtime_adopt(). */
#define CGS_ADOPT_BORROW 0u /* the caller keeps and destroys the executable */
#define CGS_ADOPT_OWN 1u    /* the runtime destroys it (cudaGraphExecDestroy) */

struct cgs_runtime;

/*
 * The version of the library actually loaded, as CGSLOT_VERSION_NUMBER
 * (major * 10000 + minor * 100 + patch), and as "major.minor.patch" (a
 * static string).  Never fail.
 */
unsigned cgs_version(void);
const char *cgs_version_string(void);

/* What the runtime was opened with and what the manifest plans for it. */
struct cgs_runtime_info {
	uint32_t size;             /* set by the caller: sizeof(struct cgs_runtime_info) */
	uint32_t rank;             /* pipeline rank id */
	int device;                /* CUDA device ordinal */
	uint32_t pp, vpp, group;   /* P, M (chunks per rank), G */
	uint32_t max_microbatches; /* L */
	uint32_t slots;            /* S, the ring period */
	uint32_t n_variants;
	uint32_t layers_total;     /* layers over every chunk of the rank */
	uint32_t n_saved;          /* saved frames: S * layers_total */
	uint32_t n_graphs;         /* graph table size: n_variants * n_saved * 2 */
	uint32_t n_reachable;      /* reachable microbatch counts */
	uint32_t n_arenas;
	uint64_t arena_bytes;      /* sum over arenas: what allocate takes */
	uint64_t alignment;        /* every range offset is a multiple */
};

/*
 * One graph of the capture sequence and the device ranges it must use.
 * addr[] is NULL and bytes[] 0 for a role the variant does not use.  The
 * USER_GRAD range is this layer's input gradient inside the user-gradient
 * frame of (chunk, slot).  A description handed to a cgs_record_fn has
 * size = the library's sizeof(struct cgs_graph_desc).
 */
struct cgs_graph_desc {
	uint32_t size;       /* set by the caller: sizeof(struct cgs_graph_desc) */
	uint32_t index;      /* graph index g */
	uint32_t variant;    /* 0 = canonical (smallest CP) */
	uint32_t chunk;      /* 0-based, without the variant offset */
	uint32_t slot;       /* physical slot s */
	uint32_t layer;      /* 0-based within the chunk */
	uint32_t direction;  /* enum cgs_runtime_direction */
	uint32_t frame;      /* saved frame index f */
	uint32_t user_grad_frame; /* user-gradient frame chunk * S + slot */
	uint32_t reserved;   /* 0 */
	void *addr[CGS_RUNTIME_ROLES];
	uint64_t bytes[CGS_RUNTIME_ROLES];
};

/* Graphs captured and adopted so far, and capture times summed, in ns. */
struct cgs_runtime_stats {
	uint32_t size;              /* set by the caller: sizeof(struct cgs_runtime_stats) */
	uint32_t graphs_captured;   /* by cgs_runtime_capture */
	uint32_t graphs_adopted;    /* by cgs_runtime_adopt */
	uint32_t reserved;          /* 0 */
	uint64_t capture_ns;        /* between Begin- and EndCapture, summed */
	uint64_t instantiate_ns;    /* cudaGraphInstantiate, summed */
};

/*
 * Records the work of graph g on `stream`, which is capturing.  Return 0,
 * or non-zero to stop the capture: cgs_runtime_capture then returns that
 * value when it is a CGS_E_* code, CGS_E_INVALID otherwise.  `g` is valid
 * during the call only.
 */
typedef int (*cgs_record_fn)(void *user, const struct cgs_graph_desc *g,
			     cudaStream_t stream);

/*
 * Open the manifest at `path` for pipeline rank `rank` on CUDA device
 * `device`, and store a new runtime in *out, which the caller owns and
 * releases with cgs_runtime_destroy.  The file is read and fully
 * validated (structure, checksum, cross-references) and the launch
 * sequence of every reachable microbatch count is precomputed; no CUDA
 * call is made, so this works on machines without a GPU.  Errors:
 *   CGS_E_IO        the file cannot be read
 *   CGS_E_FORMAT, CGS_E_VERSION, CGS_E_CHECKSUM  the manifest is bad
 *   CGS_E_RANK      the manifest does not plan `rank`
 *   CGS_E_ARG       path or out is NULL, or device < 0
 *   CGS_E_NOMEM     out of host memory
 */
int cgs_runtime_open(const char *path, uint32_t rank, int device,
		     struct cgs_runtime **out, struct cgs_error *err);

/*
 * The same for a manifest in memory; the bytes are copied, so the buffer
 * may be freed on return.  `name` (may be NULL) is used in messages.
 */
int cgs_runtime_open_buffer(const void *buf, size_t len, const char *name,
			    uint32_t rank, int device,
			    struct cgs_runtime **out, struct cgs_error *err);

/*
 * Destroy the runtime: owned graph executables, the arenas, the NVTX
 * registrations and host memory.  Waits for nothing: the caller makes sure
 * no replay is still running (for example cudaStreamSynchronize).
 * Accepts NULL and *rt == NULL; sets *rt to NULL.  CUDA errors while
 * releasing are ignored (a sticky error must not leak host memory).
 */
void cgs_runtime_destroy(struct cgs_runtime **rt);

/*
 * Fill *info (info->size set by the caller, see "Growth" above).
 * CGS_E_ARG when rt or info is NULL or info->size is below the 0.2 layout.
 */
int cgs_runtime_info(const struct cgs_runtime *rt,
		     struct cgs_runtime_info *info, struct cgs_error *err);

/*
 * Reachable microbatch count i (ascending) in *count.  CGS_E_ARG when
 * i >= info.n_reachable or an argument is NULL.
 */
int cgs_runtime_reachable(const struct cgs_runtime *rt, uint32_t i,
			  uint32_t *count, struct cgs_error *err);

/* Layers of chunk (0-based) in *layers.  CGS_E_ARG when chunk >= info.vpp. */
int cgs_runtime_chunk_layers(const struct cgs_runtime *rt, uint32_t chunk,
			     uint32_t *layers, struct cgs_error *err);

/*
 * The physical slot of microbatch k of `chunk` in an iteration of
 * `microbatches` microbatches, in *slot.  The ring is manifest data, and a
 * manifest may plan a slot map per count and chunk.  Errors:
 * CGS_E_UNREACHABLE when `microbatches` is not a reachable count; CGS_E_ARG
 * when k >= microbatches, chunk >= info.vpp or an argument is NULL.
 */
int cgs_runtime_slot(const struct cgs_runtime *rt, uint32_t microbatches,
		     uint32_t chunk, uint32_t k, uint32_t *slot,
		     struct cgs_error *err);

/*
 * Allocate every arena with one cudaMalloc on the runtime's device, before
 * any capture, and register each as an NVTX memory heap whose regions are
 * the bytes frames use (so compute-sanitizer's memcheck, run with
 * `--nvtx yes`, reports an access to bytes no frame owns).  When such a
 * tool is attached, each graph also gets NVTX permissions that deny it
 * the neighbours of its own ranges (libcgslot(3); off with
 * CGSLOT_NVTX_PERMISSIONS=0 in the environment).  The runtime owns the
 * arenas until cgs_runtime_destroy.  Stores the total in *bytes when
 * non-NULL.  The current device is restored on return.  Errors:
 * CGS_E_ARG when rt is NULL; CGS_E_STATE when already allocated;
 * CGS_E_NODEVICE; CGS_E_CUDA (cudaErrorMemoryAllocation when the device
 * is full); on failure nothing stays allocated.
 */
int cgs_runtime_allocate(struct cgs_runtime *rt, uint64_t *bytes,
			 struct cgs_error *err);

/*
 * Device base address and size of arena a (owned by the runtime).
 * CGS_E_ARG when rt is NULL or a is out of range; CGS_E_STATE before
 * allocate.
 */
int cgs_runtime_arena(const struct cgs_runtime *rt, uint32_t a, void **base,
		      uint64_t *bytes, struct cgs_error *err);

/*
 * Where role `role` of (variant, chunk, layer) lives for microbatch
 * `microbatch` of an iteration of `microbatches` microbatches (in slot
 * cgs_runtime_slot(microbatches, chunk, microbatch)): the arena index,
 * the offset inside it and the size for that variant; each output may be
 * NULL.  Needs no allocation.  Errors: CGS_E_UNREACHABLE when
 * `microbatches` is not a reachable count; CGS_E_ARG when rt is NULL or
 * an index is out of range (the message names it and the accepted range).
 */
int cgs_runtime_locate(const struct cgs_runtime *rt, uint32_t variant,
		       uint32_t chunk, uint32_t layer, uint32_t microbatches,
		       uint32_t microbatch, enum cgs_runtime_role role,
		       uint32_t *arena, uint64_t *offset, uint64_t *bytes,
		       struct cgs_error *err);

/* The same, addressed by physical slot instead of microbatch. */
int cgs_runtime_slot_locate(const struct cgs_runtime *rt, uint32_t variant,
			    uint32_t chunk, uint32_t layer, uint32_t slot,
			    enum cgs_runtime_role role, uint32_t *arena,
			    uint64_t *offset, uint64_t *bytes,
			    struct cgs_error *err);

/*
 * The same as a device address inside an arena the runtime owns (NULL for
 * a role of size 0); CGS_E_STATE before allocate.
 */
int cgs_runtime_address(const struct cgs_runtime *rt, uint32_t variant,
			uint32_t chunk, uint32_t layer, uint32_t microbatches,
			uint32_t microbatch, enum cgs_runtime_role role,
			void **addr, uint64_t *bytes, struct cgs_error *err);

/* Graphs in the capture sequence (info.n_graphs); 0 when rt is NULL. */
uint32_t cgs_runtime_graph_count(const struct cgs_runtime *rt);

/*
 * Describe the i-th graph of the manifest's lockstep capture sequence
 * (desc->size set by the caller; addresses are NULL before allocate).
 * CGS_E_ARG when rt or desc is NULL, desc->size is below the 0.2 layout
 * or i is out of range.
 */
int cgs_runtime_graph_desc(const struct cgs_runtime *rt, uint32_t i,
			   struct cgs_graph_desc *desc,
			   struct cgs_error *err);

/*
 * Capture, in the manifest's capture order, every graph that has no
 * executable yet: for each, begin a global-mode capture on `stream` (a
 * non-default stream of the runtime's device; NULL: a private stream the
 * runtime creates and destroys), call record(user, desc, stream), end the
 * capture and instantiate it.  The runtime owns the executables.  Errors:
 * CGS_E_STATE before allocate; CGS_E_ARG when rt or record is NULL or
 * stream is the legacy default stream; the callback's code; CGS_E_CUDA
 * (for example cudaErrorStreamCaptureInvalidated when the callback used an
 * operation not allowed during capture) or CGS_E_CUDA_FATAL.  Graphs
 * captured before a failure are kept, so a retry captures only the rest.
 */
int cgs_runtime_capture(struct cgs_runtime *rt, cgs_record_fn record,
			void *user, cudaStream_t stream,
			struct cgs_error *err);

/*
 * Use `exec`, captured elsewhere, as graph g.  flags: CGS_ADOPT_OWN makes
 * the runtime destroy it, CGS_ADOPT_BORROW leaves that to the caller, who
 * keeps it alive while the runtime may replay it.  Replaces (and, if owned,
 * destroys) an executable g already had.  CGS_E_ARG for a NULL rt, g out
 * of range, a NULL exec or unknown flags.
 */
int cgs_runtime_adopt(struct cgs_runtime *rt, uint32_t g,
		      cudaGraphExec_t exec, unsigned flags,
		      struct cgs_error *err);

/*
 * The executable of graph g (owned as adopted or captured), or NULL when
 * it has none, g is out of range or rt is NULL.
 */
cudaGraphExec_t cgs_runtime_graph_exec(const struct cgs_runtime *rt,
				       uint32_t g);

/*
 * Counters and times of captures and adoptions so far (stats->size set
 * by the caller).  CGS_E_ARG when rt or stats is NULL or stats->size is
 * below the 0.2 layout.
 */
int cgs_runtime_stats(const struct cgs_runtime *rt,
		      struct cgs_runtime_stats *stats, struct cgs_error *err);

/*
 * Launches one iteration of `microbatches` microbatches takes (0 when the
 * count is not reachable or rt is NULL).
 */
uint64_t cgs_runtime_launch_count(const struct cgs_runtime *rt,
				  uint32_t microbatches);

/*
 * The graph indices one iteration launches, in order, into
 * out[0 .. cgs_runtime_launch_count()).  variants[k] is microbatch k's
 * variant.  Errors as cgs_runtime_replay (no CGS_E_NOGRAPH), and CGS_E_ARG
 * when cap is too small.
 */
int cgs_runtime_sequence(const struct cgs_runtime *rt, uint32_t microbatches,
			 const uint32_t *variants, uint32_t *out, uint64_t cap,
			 struct cgs_error *err);

/*
 * Replay one iteration on `stream`: for each entry of the rank's capture
 * order for `microbatches`, cudaGraphLaunch the graphs of that event
 * (forward: the chunk's layers in order; backward: reversed) with the
 * variant variants[k] of its microbatch k.  Everything is checked before
 * the first launch, and nothing is launched on error:
 *   CGS_E_UNREACHABLE  microbatches is above L or not a reachable count
 *   CGS_E_ARG          rt or variants is NULL, or variants[k] >= n_variants
 *   CGS_E_NOGRAPH      a graph the iteration needs has no executable
 * Then CGS_E_CUDA / CGS_E_CUDA_FATAL from a launch (launches before it
 * stay queued).  Returns as soon as everything is queued; it allocates
 * nothing.  Under an NVTX memory tool with graph permissions (see
 * cgs_runtime_allocate) each launch binds its graph's permissions to the
 * calling thread's stream scope, and the call unbinds before it returns.
 */
int cgs_runtime_replay(struct cgs_runtime *rt, uint32_t microbatches,
		       const uint32_t *variants, cudaStream_t stream,
		       struct cgs_error *err);

#ifdef __cplusplus
}
#endif

#endif
