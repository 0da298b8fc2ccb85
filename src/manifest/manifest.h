/*
 * The slot manifest reader: zero-copy, bounds-checked access to a binary
 * manifest (format specified in cgslot-manifest(5)).
 *
 * Opening validates everything up front: magic, version, table of
 * contents, section bounds, alignment and padding, reserved zeros, the
 * trailing CRC-32C, counts and their products, and every cross-reference
 * (frame arena indices, offset + bytes within the arena, role ranges
 * within their frame, order entries naming existing chunks and draining,
 * capture indices within the graph table).  After a successful open no
 * accessor can fail: each reads the mapped bytes through little-endian
 * helpers, never through struct casts, so the buffer needs no alignment.
 *
 * Accessors take indices; an index out of range is a caller bug and
 * yields a zeroed result (never an out-of-bounds read).  Use the *_count
 * accessors or struct cgs_manifest_info for the ranges.
 *
 * Indexing (the same as the planner's, see plan/plan.h):
 *   layer_base(c)   = layers in chunks 0..c-1 (0-based chunks)
 *   saved frame     (c, s, l) -> f = layer_base(c) * S + s * layers(c) + l
 *   user-grad frame (c, s)    -> u = c * S + s
 *   graph           (v, f, d) -> g = (v * n_saved + f) * 2 + d,
 *                                d = 0 forward, 1 backward
 * Ranks are addressed by their index 0..n_ranks-1 in the manifest
 * (ascending rank ids); cgs_manifest_find_rank maps a rank id to it.
 *
 * This file and its implementation depend on libc and src/common only.
 */
#ifndef CGS_MANIFEST_MANIFEST_H
#define CGS_MANIFEST_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "cgslot/error.h"

/*
 * The newest format version, which the reader opens: 2.3.  The writer
 * produces 2.1 only where a rank's slot map differs between chunks
 * (section 14), 2.2 only where a rank nests user-grad frames in its saved
 * arena (section 15), 2.3 only where a rank's saved arena was packed with
 * its user-grad frames (section 16), else 2.0, byte for byte what
 * earlier versions wrote.  The
 * reader also opens the older major below (format 1.0: one ring for every
 * rank, no slot maps, role ranges stored once per frame); it refuses
 * newer majors.
 */
#define CGS_MANIFEST_MAJOR 2
#define CGS_MANIFEST_MINOR 3
#define CGS_MANIFEST_OLDEST_MAJOR 1

/* Roles of an arena (the same values as enum cgs_arena_role). */
#define CGS_MANIFEST_ARENA_SAVED 0
#define CGS_MANIFEST_ARENA_USER_GRAD 1

/* Roles of a saved frame's ranges, the r of cgs_manifest_saved_role(). */
#define CGS_MANIFEST_ROLE_INPUT 0
#define CGS_MANIFEST_ROLE_OUTPUT 1
#define CGS_MANIFEST_ROLE_SAVED 2
/* The user-gradient layer range's role value, and the number of roles. */
#define CGS_MANIFEST_ROLE_USER_GRAD 3
#define CGS_MANIFEST_ROLES 4

struct cgs_manifest;

/* Header fields, decoded once at open.  Strings point into the buffer. */
struct cgs_manifest_info {
	uint16_t major, minor;       /* format version of the file */
	const char *producer;        /* cgslot version that wrote it */
	const char *name;            /* schedule name; "" when unnamed */
	uint64_t schedule_hash;      /* cgs_schedule_hash() of the schedule */
	uint32_t pp;                 /* P */
	uint32_t vpp;                /* M, chunks per rank */
	uint32_t group;              /* G */
	uint32_t max_microbatches;   /* L */
	/*
	 * The largest ring over the ranks; each rank may have its own
	 * (cgs_manifest_rank_ring), equal to this in format 1.  The counts
	 * below are those of a rank with this ring: upper bounds for any
	 * rank, sizes for buffers, never a rank's own count.
	 */
	uint32_t slots;
	uint64_t alignment;          /* power of two; every offset is aligned */
	uint32_t layers_total;       /* layers over every chunk of a rank */
	uint32_t n_variants;
	uint32_t n_ranks;
	uint32_t n_saved;            /* slots * layers_total */
	uint32_t n_user_grad;        /* M * slots */
	uint32_t n_graphs;           /* n_variants * n_saved * 2 */
};

/* One rank's ring and the counts that follow from it. */
struct cgs_manifest_ring {
	uint32_t slots;        /* S of this rank, 1 <= S <= info.slots */
	uint32_t n_saved;      /* saved frames: S * layers_total */
	uint32_t n_user_grad;  /* user-gradient frames: M * S */
	uint32_t n_graphs;     /* graph table size: n_variants * n_saved * 2 */
	int slot_map;          /* 1: slots come from a stored map, 0: k mod S */
	/*
	 * 1: the stored map has a row per reachable count and chunk (format
	 * 2.1, section 14); 0: one row per count, shared by every chunk.
	 */
	int slot_map_per_chunk;
};

/* A frame of one rank: its identity, colour and place in an arena. */
struct cgs_manifest_frame {
	uint32_t chunk;    /* 0-based */
	uint32_t slot;     /* physical slot s */
	uint32_t layer;    /* 0-based within the chunk; 0 for user-grad frames */
	uint32_t colour;   /* colour of the seven-field plan */
	uint32_t arena;    /* index into the rank's arenas */
	uint64_t offset;   /* start inside the arena, a multiple of alignment */
	uint64_t bytes;    /* maximum over variants */
};

/* A byte range; what it is relative to depends on the accessor. */
struct cgs_manifest_range {
	uint64_t offset;
	uint64_t bytes;
};

struct cgs_manifest_arena {
	uint32_t role;       /* CGS_MANIFEST_ARENA_* */
	uint64_t bytes;      /* what the runtime allocates */
	uint64_t alignment;  /* required alignment of the allocation */
};

/* Figures for one frame kind on one rank (see cgs_report_role). */
struct cgs_manifest_role_stats {
	uint32_t frames;
	uint32_t colours;
	uint32_t colour_lower_bound;
	uint64_t bytes;
	uint64_t lower_bound_bytes;
};

/* The memory report figures of one rank (see cgs_report_rank). */
struct cgs_manifest_rank_stats {
	struct cgs_manifest_role_stats saved;
	struct cgs_manifest_role_stats user_grad;
	uint64_t bytes;                  /* sum of arena bytes */
	uint64_t lower_bound_bytes;      /* heaviest set live at one instant */
	uint64_t bytes_without_sharing;  /* every variant with its own arenas */
	uint64_t bytes_colour_arenas;    /* upstream: one arena per colour */
	/*
	 * The saved arena was packed with the user-grad frames (section 16,
	 * format 2.3): it may exceed the saved part of bytes_colour_arenas.
	 */
	int joint;
};

/*
 * Open a manifest held in memory.  The buffer is borrowed, not copied: it
 * must stay unchanged and alive until cgs_manifest_close().  On success
 * stores a new handle in *out and returns 0.  Errors (nothing stored):
 *   CGS_E_FORMAT    malformed: bad magic, truncated, a section out of
 *                   bounds or misaligned, a non-zero reserved field or
 *                   padding byte, a count or product out of range, a
 *                   broken cross-reference, an order that does not drain
 *   CGS_E_VERSION   a newer major version, or a newer minor version with
 *                   an unknown section not marked optional
 *   CGS_E_CHECKSUM  the trailing CRC-32C does not match
 *   CGS_E_NOMEM     the handle could not be allocated
 *   CGS_E_ARG       buf or out is NULL
 * The message names the section, entry and offending value.  Checking the
 * checksum first means random corruption reports CGS_E_CHECKSUM; the
 * structural checks still run behind it for files whose checksum was
 * recomputed.  Time is linear in len; memory is O(M + ranks + graphs), never more
 * than a small multiple of len.
 */
int cgs_manifest_open_buffer(const void *buf, size_t len,
			     struct cgs_manifest **out, struct cgs_error *err);

/*
 * Map a manifest file read-only (mmap) and open it as above; error
 * messages carry the path.  CGS_E_IO when the file cannot be opened,
 * read or mapped (also a directory).  The mapping lives until close; the
 * file must not be truncated meanwhile (cgslot compile replaces manifests
 * by rename, never in place).
 */
int cgs_manifest_open_file(const char *path, struct cgs_manifest **out,
			   struct cgs_error *err);

/* Release a handle (and unmap its file); accepts NULL; sets *m to NULL. */
void cgs_manifest_close(struct cgs_manifest **m);

/* The decoded header fields.  Never NULL for an open manifest. */
const struct cgs_manifest_info *cgs_manifest_info(const struct cgs_manifest *m);

/* The whole file as opened (including the checksum) and its length. */
const void *cgs_manifest_bytes(const struct cgs_manifest *m, size_t *len);

/* Layers in chunk c (0-based), and layers in chunks 0..c-1 (c <= vpp). */
uint32_t cgs_manifest_chunk_layers(const struct cgs_manifest *m, uint32_t c);
uint32_t cgs_manifest_layer_base(const struct cgs_manifest *m, uint32_t c);

/*
 * Variant v, in the schedule's order: name and CP size.  The canonical
 * variant is the one with the smallest CP (the first of equal ones).
 */
const char *cgs_manifest_variant_name(const struct cgs_manifest *m,
				      uint32_t v);
uint32_t cgs_manifest_variant_cp(const struct cgs_manifest *m, uint32_t v);

/* The pipeline rank id planned at index ri. */
uint32_t cgs_manifest_rank_id(const struct cgs_manifest *m, uint32_t ri);

/*
 * Find the index of pipeline rank `rank`.  Returns 0 and stores it in
 * *ri, or CGS_E_RANK (with a message listing the planned ranks).
 */
int cgs_manifest_find_rank(const struct cgs_manifest *m, uint32_t rank,
			   uint32_t *ri, struct cgs_error *err);

/* The ring of rank index ri (zeroed for an index out of range). */
struct cgs_manifest_ring cgs_manifest_rank_ring(const struct cgs_manifest *m,
						uint32_t ri);

/*
 * The physical slot of microbatch k of chunk c (both 0-based: the k-th
 * forward and k-th backward of chunk c) when the i-th reachable count of
 * rank ri runs: the rank's slot map where it has one (per count, or per
 * count and chunk), else k mod S.  Every consumer asks here instead of
 * computing k mod S.  0 for an index out of range (c >= vpp, k >= that
 * count).
 */
uint32_t cgs_manifest_slot(const struct cgs_manifest *m, uint32_t ri,
			   uint32_t i, uint32_t c, uint32_t k);

/* Reachable microbatch counts of rank index ri, ascending. */
uint32_t cgs_manifest_reachable_count(const struct cgs_manifest *m,
				      uint32_t ri);
uint32_t cgs_manifest_reachable(const struct cgs_manifest *m, uint32_t ri,
				uint32_t i);

/*
 * Find the index i of microbatch count n among rank ri's reachable counts.
 * Returns 0, or CGS_E_UNREACHABLE naming n, L and the reachable counts.
 */
int cgs_manifest_find_reachable(const struct cgs_manifest *m, uint32_t ri,
				uint32_t n, uint32_t *i,
				struct cgs_error *err);

/*
 * The capture order of rank ri for its i-th reachable count: 2 * N * M
 * signed 1-based chunk ids (+c forward, -c backward), well-formed (checked
 * at open).
 *   cgs_manifest_order_length  number of entries
 *   cgs_manifest_order_entry   entry k
 *   cgs_manifest_order_decode  all entries into out[0 .. length) (int32)
 *   cgs_manifest_order_raw     zero-copy pointer to the stored entries:
 *                              little-endian signed integers of
 *                              *width bytes each (1, 2 or 4; the writer
 *                              picks the smallest that holds M)
 */
uint64_t cgs_manifest_order_length(const struct cgs_manifest *m, uint32_t ri,
				   uint32_t i);
int32_t cgs_manifest_order_entry(const struct cgs_manifest *m, uint32_t ri,
				 uint32_t i, uint64_t k);
void cgs_manifest_order_decode(const struct cgs_manifest *m, uint32_t ri,
			       uint32_t i, int32_t *out);
const void *cgs_manifest_order_raw(const struct cgs_manifest *m, uint32_t ri,
				   uint32_t i, unsigned *width);

/* Arenas of rank ri. */
uint32_t cgs_manifest_arena_count(const struct cgs_manifest *m, uint32_t ri);
struct cgs_manifest_arena cgs_manifest_arena(const struct cgs_manifest *m,
					     uint32_t ri, uint32_t a);

/*
 * Frames of rank ri: saved frame f < n_saved and user-gradient frame
 * u < n_user_grad of the rank's ring, indexed as above with its S.  Each lies inside its arena, which
 * has the matching role; offsets are multiples of the alignment.
 */
struct cgs_manifest_frame cgs_manifest_saved_frame(
	const struct cgs_manifest *m, uint32_t ri, uint32_t f);
struct cgs_manifest_frame cgs_manifest_user_grad_frame(
	const struct cgs_manifest *m, uint32_t ri, uint32_t u);

/*
 * Per-variant layout inside frames (offsets relative to the frame's
 * start, each range inside the frame, offsets aligned).  Format 2 stores
 * them once per (variant, chunk, layer), the same for every slot:
 *   cgs_manifest_saved_role       role r (CGS_MANIFEST_ROLE_*) of saved
 *                                 frame f for variant v
 *   cgs_manifest_user_grad_layer  the input gradient of the layer of saved
 *                                 frame f = (c, s, l) for variant v,
 *                                 inside user-grad frame u = c * S + s
 */
struct cgs_manifest_range cgs_manifest_saved_role(
	const struct cgs_manifest *m, uint32_t ri, uint32_t v, uint32_t f,
	uint32_t r);
struct cgs_manifest_range cgs_manifest_user_grad_layer(
	const struct cgs_manifest *m, uint32_t ri, uint32_t v, uint32_t f);

/*
 * The lockstep capture sequence of rank ri: graph indices (see above),
 * each < n_graphs and none repeated.
 */
uint32_t cgs_manifest_capture_count(const struct cgs_manifest *m,
				    uint32_t ri);
uint32_t cgs_manifest_capture(const struct cgs_manifest *m, uint32_t ri,
			      uint32_t i);

/* Split graph index g of rank ri into variant, saved frame, direction. */
void cgs_manifest_graph_split(const struct cgs_manifest *m, uint32_t ri,
			      uint32_t g,
			      uint32_t *variant, uint32_t *frame,
			      uint32_t *direction);

/* The memory report figures of rank ri. */
struct cgs_manifest_rank_stats cgs_manifest_rank_stats(
	const struct cgs_manifest *m, uint32_t ri);

#endif
