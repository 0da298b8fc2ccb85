/*
 * The independent verifier: proves that a slot plan never lets two frames
 * that can be live together share bytes.
 *
 * It shares no code with the planner.  It works on a neutral description
 * of one planned rank (struct cgs_verify_rank), which cgs_verify_manifest()
 * fills from a manifest and the planner's tests fill from an in-memory
 * plan, and it re-derives liveness itself by replaying the stored orders.
 *
 * What one rank must satisfy (the first failure is reported):
 *  1. every range lies inside its arena (and, when an alignment is given,
 *     starts on a multiple of it);
 *  2. every stored order is well formed: 2 * N * M entries naming chunks
 *     1..M, each chunk running N forwards and N backwards, never a
 *     backward without a pending forward;
 *  3. replaying each order (the k-th +c and the k-th -c are microbatch k
 *     of chunk c, which uses slot k mod S, or the slot map's slot for
 *     the count, and the chunk where the map has a row per chunk), every
 *     slot lies in the ring, no forward reuses a saved frame group
 *     (c, slot) that is still live and no two consecutive backward events
 *     use the same user-gradient frame;
 *  4. within one frame and one variant, the ranges (the three roles of a
 *     saved frame, the layers of a user-gradient frame) are disjoint, and
 *     distinct saved frames of one (chunk, slot) are disjoint for any pair
 *     of variants (all layers of an event are live together);
 *  5. two frames that are live at the same instant of any stored order are
 *     disjoint for every pair of variants: each microbatch may pick any
 *     variant;
 *  6. when frame extents are given, each range lies inside its frame's
 *     extent, and extents obey 4 and 5 as well.
 * Lifetimes, inclusive: saved frame (c, s, l) of microbatch k from the
 * forward of (c, k) to its backward; user-gradient frame (c, s) from the
 * backward of (c, k) through the next backward event of any chunk (to the
 * end of the order when there is none).
 *
 * Ranges of zero bytes hold nothing and never overlap anything.
 */
#ifndef CGS_VERIFY_VERIFY_H
#define CGS_VERIFY_VERIFY_H

#include <stdint.h>

#include "cgslot/error.h"

/*
 * The most chunks times slots of one rank: the conflict matrix is dense
 * (groups^2 / 8 bytes).  The compiler plans at most 65536 saved frames per
 * rank, and every chunk has a layer, so whatever it writes is verifiable.
 */
#define CGS_VERIFY_MAX_GROUPS 65536u

/* Indices of the saved-frame roles, the r of cgs_verify_rank.saved. */
enum cgs_verify_role {
	CGS_VERIFY_INPUT = 0,
	CGS_VERIFY_OUTPUT = 1,
	CGS_VERIFY_SAVED = 2,
	CGS_VERIFY_USER_GRAD = 3, /* used in messages only */
};

/* An absolute byte range: [offset, offset + bytes) inside one arena. */
struct cgs_verify_range {
	uint32_t arena;
	uint64_t offset;
	uint64_t bytes;
};

/*
 * One planned rank.  Every pointer is borrowed and must hold the number of
 * entries stated.  Frames use the planner's indexing (plan/plan.h):
 *   layer_base(c)   = layers[0] + ... + layers[c-1]
 *   saved frame     (c, s, l) -> f = layer_base(c) * slots + s * layers[c] + l
 *   user-grad frame (c, s)    -> u = c * slots + s
 * and n_saved = slots * (layers[0] + ... + layers[vpp-1]).
 */
struct cgs_verify_rank {
	uint32_t rank;            /* pipeline rank id, for messages */
	uint32_t slots;           /* S >= 1 */
	uint32_t vpp;             /* M >= 1 */
	const uint32_t *layers;   /* vpp entries, each >= 1 */
	uint32_t n_variants;      /* >= 1 */
	const char *const *variant_names; /* n_variants names, or NULL */

	uint32_t n_reachable;
	const uint32_t *reachable;    /* microbatch counts N */
	const uint64_t *order_start;  /* n_reachable + 1 offsets */
	const int32_t *order_entries; /* signed 1-based chunk ids */
	/*
	 * Optional slot map (NULL: microbatch k uses slot k mod S), with
	 * slot_map_rows rows per reachable count: 0 or 1, one row shared by
	 * every chunk, or vpp, a row per chunk.  When reachable[i]
	 * microbatches run, microbatch k of chunk c uses
	 *   slot_map[slot_map_start[i * rows + c] + k],  k < reachable[i],
	 * with c = 0 for a shared row.  Each entry must be below slots;
	 * whether the map is safe is proven here.
	 */
	const uint32_t *slot_map;
	const uint64_t *slot_map_start; /* n_reachable * rows entries */
	uint32_t slot_map_rows;

	uint32_t n_arenas;
	const uint64_t *arena_bytes;  /* n_arenas sizes */
	uint64_t alignment;           /* every offset's multiple; 0: unchecked */

	uint32_t n_saved;
	/* saved[(v * n_saved + f) * 3 + r]: role r of saved frame f, variant v */
	const struct cgs_verify_range *saved;
	/*
	 * user_grad[v * n_saved + f]: the input gradient of the layer of saved
	 * frame f = (c, s, l) for variant v, inside user-grad frame (c, s).
	 */
	const struct cgs_verify_range *user_grad;

	/*
	 * Optional (NULL: not checked): each frame's whole extent, the
	 * maximum over variants, as the runtime and bindings may address it.
	 * When given, every range of a frame must lie inside its extent, and
	 * extents take part in the overlap checks like any range.
	 *   saved_frames[f], f < n_saved; user_grad_frames[u], u < vpp * slots
	 */
	const struct cgs_verify_range *saved_frames;
	const struct cgs_verify_range *user_grad_frames;
};

/* Work done, summed over calls (for the CLI's summary line). */
struct cgs_verify_stats {
	uint64_t ranks;
	uint64_t orders;       /* orders replayed */
	uint64_t events;       /* order entries replayed */
	uint64_t ranges;       /* non-empty ranges checked */
	uint64_t pairs;        /* pairs of frame groups live together */
};

/*
 * Prove the properties above for one rank.  Returns 0 when they hold.
 * Errors:
 *   CGS_E_VERIFY  a violation; the message names the rank, and for
 *                 liveness violations the microbatch count N and the order
 *                 position (0-based) where both frames are first live
 *                 together, the two frames (chunk, slot, layer, variant,
 *                 role) and their byte ranges
 *   CGS_E_ARG     the description is inconsistent (NULL arrays, n_saved
 *                 not matching slots and layers, a zero count, slot map
 *                 rows neither 0, 1 nor vpp)
 *   CGS_E_NOMEM   working memory could not be allocated
 * Time: linear in the order entries (times S * M / 64 words per forward
 * or backward) plus, for each pair of frame groups live together once,
 * the sum of their ranges.  Memory: O((S * M)^2 / 8 + ranges).
 */
int cgs_verify_rank_check(const struct cgs_verify_rank *vr,
			  struct cgs_verify_stats *stats,
			  struct cgs_error *err);

struct cgs_manifest;
struct cgs_schedule;

/*
 * Verify every rank of an open manifest, ranks in stored order; the first
 * violation wins.  stats may be NULL; when given it is added to.  Errors
 * as cgs_verify_rank_check (CGS_E_VERIFY for a violation).
 */
int cgs_verify_manifest(const struct cgs_manifest *m,
			struct cgs_verify_stats *stats, struct cgs_error *err);

/*
 * The same on up to `jobs` threads, a rank at a time each (jobs 0 or 1:
 * on the calling thread alone).  The result, the message and the counts
 * are those of cgs_verify_manifest for any jobs: where ranks fail, the
 * first of them in stored order is reported.  stats is added to only
 * when every rank holds (on one thread, also with the ranks before the
 * first violation).
 */
int cgs_verify_manifest_jobs(const struct cgs_manifest *m, unsigned jobs,
			     struct cgs_verify_stats *stats,
			     struct cgs_error *err);

/*
 * Check that `s` is the schedule `m` was compiled from:
 *  - cgs_schedule_hash(s) equals the stored hash;
 *  - m plans exactly the schedule's ranks, chunks, layers and variants
 *    (variants matched by name, with equal CP sizes);
 *  - every range of every frame, for every (variant, rank, chunk, layer,
 *    role), holds at least cgs_schedule_bytes() of it.
 * Errors: CGS_E_MISMATCH naming both hashes, or the first range that is
 * too small (rank, frame, variant, role, both sizes); CGS_E_NOMEM.
 * Lives in its own object (verify_schedule.c), the only part of the
 * verifier that links the schedule loader.
 */
int cgs_verify_manifest_schedule(const struct cgs_manifest *m,
				 const struct cgs_schedule *s,
				 struct cgs_error *err);

/*
 * The size check alone on one rank description: variant v of vr is the
 * schedule's variant variant_map[v] (NULL: the same index).  Errors:
 * CGS_E_MISMATCH for a range smaller than the schedule's bytes or a shape
 * that differs from the schedule's, CGS_E_ARG.
 */
int cgs_verify_rank_sizes(const struct cgs_verify_rank *vr,
			  const struct cgs_schedule *s,
			  const uint32_t *variant_map, struct cgs_error *err);

#endif
