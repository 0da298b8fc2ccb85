/*
 * The plan: for every planned rank, the reachable orders, the slot ring,
 * saved and user-gradient frames with their colours and byte ranges, the
 * arenas, the lower bounds and the lockstep capture sequence.
 *
 * Indexing (also used by the manifest):
 *   layer_base[c]  = layers in chunks 0..c-1 (0-based chunks)
 *   saved frame    (c, s, l)  -> f = layer_base[c] * S + s * layers[c] + l
 *   user-grad frame (c, s)    -> u = c * S + s
 *   graph          (v, f, d)  -> (v * n_saved + f) * 2 + d, d = 0 forward,
 *                                1 backward
 * so frames are listed chunk by chunk, slot by slot, layer by layer: the
 * nesting of upstream's seven-field plan.
 */
#ifndef CGS_PLAN_PLAN_H
#define CGS_PLAN_PLAN_H

#include <stdint.h>

#include "input/schedule.h"

enum cgs_arena_role {
	CGS_ARENA_SAVED = 0,     /* saved frames: input, output, saved */
	CGS_ARENA_USER_GRAD = 1, /* user-gradient frames */
};

enum cgs_direction { CGS_FORWARD = 0, CGS_BACKWARD = 1 };

/* A byte range; offsets are relative to what the field says. */
struct cgs_range {
	uint64_t offset;
	uint64_t bytes;
};

struct cgs_frame {
	uint32_t chunk;   /* 0-based */
	uint32_t slot;    /* physical slot s */
	uint32_t layer;   /* 0-based within the chunk; 0 for user-grad frames */
	uint32_t colour;  /* interval-graph colour (arena id in upstream's plan) */
	uint32_t arena;   /* index into cgs_rank_plan.arenas */
	uint64_t offset;  /* start inside the arena, aligned */
	uint64_t bytes;   /* maximum over variants, aligned */
};

struct cgs_arena {
	uint32_t role;    /* enum cgs_arena_role */
	uint64_t bytes;   /* what the runtime allocates */
};

/* Figures for one frame kind (saved or user-gradient) on one rank. */
struct cgs_role_stats {
	uint32_t frames;
	uint32_t colours;
	uint32_t colour_lower_bound;  /* largest clique found */
	uint64_t bytes;               /* arena bytes of this kind */
	uint64_t lower_bound_bytes;   /* heaviest live set of this kind */
	/*
	 * Fewest colours any colouring of these conflicts needs, as far as
	 * the planner proved it: the clique, or the colours when the exact
	 * colouring closed every branch (a union of interval graphs can need
	 * more colours than its largest clique).  Not in the manifest.
	 */
	uint32_t colours_floor;
	/*
	 * No layout of these conflicts takes fewer bytes (at most `bytes`):
	 * the heaviest live set, the proven colours times the smallest
	 * frame, or the heaviest clique of conflicting frames found by
	 * their bytes, whichever is largest.  Not in the manifest.
	 */
	uint64_t floor_bytes;
};

struct cgs_rank_plan {
	uint32_t rank;
	uint32_t slots;          /* this rank's ring S */
	/*
	 * Slot map: NULL when microbatch k of every count uses slot k mod S.
	 * Otherwise n_reachable rows of reachable[n_reachable - 1] entries:
	 * slot_map[i * reachable[n_reachable - 1] + k] is the slot of
	 * microbatch k (0-based) when reachable[i] microbatches run; entries
	 * at k >= reachable[i] are unused (0).
	 */
	uint32_t *slot_map;
	/*
	 * Rows of slot_map per count: 0 or 1, one row for every chunk (as
	 * above); the rank's chunks, a row per chunk, so that
	 * slot_map[(i * slot_map_rows + c) * reachable[n_reachable - 1] + k]
	 * is the slot of microbatch k of chunk c.
	 */
	uint32_t slot_map_rows;

	/* Reachable microbatch counts, ascending, and their orders. */
	uint32_t n_reachable;
	uint32_t *reachable;
	uint64_t *order_start;   /* n_reachable + 1 offsets into order_entries */
	int32_t *order_entries;

	uint32_t n_saved;
	struct cgs_frame *saved;       /* n_saved, indexed as above */
	uint32_t n_user_grad;
	struct cgs_frame *user_grad;   /* n_user_grad, indexed as above */
	/*
	 * User-grad frames that lie in the saved arena (arena 0) instead of
	 * their own (nest.c); 0 when none does.
	 */
	uint32_t n_nested;
	/*
	 * The saved arena was laid out with the user-grad frames as one
	 * packing (nest.c): it may then take more bytes than the saved
	 * frames' part of upstream's layout, never the rank more than all of
	 * it.  Every user-grad frame of bytes lies in it.
	 */
	int joint;
	/*
	 * A clique of both kinds' conflicts as one graph (nest.c): no plan
	 * of these conflicts with gradient frames in the saved arena takes
	 * fewer bytes; 0 where none was searched.  Not in the manifest.
	 */
	uint64_t joint_floor_bytes;

	/*
	 * Per-variant layout inside frames, offsets relative to the frame
	 * (aligned) and bytes exactly as the schedule gives them (a role's
	 * range is followed by padding up to the alignment).  A layer is laid
	 * out the same in every slot, so the ranges are kept once per
	 * (variant v, layer li), li = layer_base[c] + l numbering the rank's
	 * layers chunk by chunk (cgs_plan_role_index):
	 *   saved_roles[(v * layers_total + li) * 3 + r], r = input, output,
	 *     saved, inside saved frame (c, s, l) of any slot s
	 *   user_grad_layers[v * layers_total + li]: gradient of layer l of
	 *     chunk c, inside user-grad frame (c, s) of any slot s
	 */
	struct cgs_range *saved_roles;
	struct cgs_range *user_grad_layers;

	uint32_t n_arenas;
	struct cgs_arena *arenas;

	struct cgs_role_stats saved_stats;
	struct cgs_role_stats user_grad_stats;
	uint64_t bytes;                  /* sum of arena bytes */
	uint64_t lower_bound_bytes;      /* heaviest set live at one instant */
	uint64_t bytes_without_sharing;  /* every variant with its own arenas */
	uint64_t bytes_colour_arenas;    /* upstream: one arena per colour */

	/*
	 * Graph indices (see above) in lockstep capture order over the
	 * largest reachable order: each entry once per variant, smallest CP
	 * first, forward layers in order, backward layers reversed; each
	 * graph where its (variant, chunk, slot, direction) first appears.
	 * Graphs of slots that order never reaches follow in index order.
	 */
	uint32_t n_graphs;
	uint32_t *capture;
};

/* One ring tried for one rank, as the ring search saw it. */
struct cgs_ring_trial {
	uint32_t rank;
	uint32_t slots;               /* S tried */
	uint32_t graphs;              /* graphs to capture with it */
	uint64_t bytes;               /* the plan's arena bytes */
	uint64_t bytes_colour_arenas; /* upstream's layout of that colouring */
	uint64_t lower_bound_bytes;   /* the same for every ring */
	/*
	 * No layout of this ring with k mod S takes fewer bytes: the sum
	 * of both frame kinds' cgs_role_stats.floor_bytes.
	 */
	uint64_t floor_bytes;
	int chosen;                   /* the ring the plan took */
	int slot_map;                 /* the ring's plan took a slot map */
};

struct cgs_plan {
	const struct cgs_schedule *schedule; /* borrowed; outlives the plan */
	/*
	 * S when every rank has the same ring (ranks[r].slots), else the
	 * largest; per_rank tells which.
	 */
	uint32_t slots;
	uint32_t *layer_base;                /* vpp + 1 prefix sums */
	uint32_t n_ranks;
	struct cgs_rank_plan *ranks;         /* in schedule->ranks order */
	int per_rank;                        /* each rank chose its ring */
	uint32_t smallest_slots;             /* the smallest safe shared ring */
	/* every ring planned, by rank then S (one per rank without search) */
	uint32_t n_trials;
	struct cgs_ring_trial *trials;
};

/*
 * Most saved frames on one rank the planner accepts, whatever the limits:
 * its conflict matrices take frames^2 / 4 bytes (512 MiB at the maximum).
 */
#define CGS_PLAN_MAX_FRAMES 65536u

/* Default search budget: enough to settle small graphs exactly. */
#define CGS_PLAN_DEFAULT_COLOUR_BUDGET 20000
/* Default packing-engine budget per frame kind, rank and ring. */
#define CGS_PLAN_DEFAULT_PACK_BUDGET 20000

struct cgs_plan_options {
	/*
	 * Search budget for exact colouring and clique search, in nodes,
	 * spent separately by each search on each rank and frame kind.
	 */
	uint64_t colour_budget;
	/*
	 * The exact and tabu colourings run on graphs of at most this many
	 * frames x colours; 0 for the planner's own limit (2^24).
	 */
	uint64_t colour_search_cells;
	/*
	 * The same limit in the ring search's first pass, which only ranks
	 * the rings; 0 for the planner's own (2^20).
	 */
	uint64_t first_pass_search_cells;
	/*
	 * Search nodes the packing engine (dsa.h) may spend on each frame
	 * kind of each rank and ring where first-fit stays above the lower
	 * bound; 0 leaves first-fit's layout.
	 */
	uint64_t pack_budget;
	/* Most saved frames on one rank (limit `frames`); 0: no limit. */
	uint64_t max_frames;
	/*
	 * Called after each rank is planned (done of total), so a tool can
	 * show progress on long plans; NULL for none.  The planner itself
	 * never prints.
	 */
	void (*progress)(void *user, uint32_t done, uint32_t total);
	void *progress_user;
	/*
	 * Ring search: plan every ring from the smallest safe one up to
	 * max_slots and keep the fewest bytes (ties: fewer graphs).  0 takes
	 * the schedule's slots.max; with explore and no maximum, the search
	 * goes up to twice the smallest ring.  per_rank (or the schedule's
	 * slots.per_rank) lets each rank choose its own ring.
	 */
	uint32_t max_slots;
	int per_rank;
	int explore;
	/*
	 * Slot maps (or the schedule's slots.map): every ring planned also
	 * tries a map per reachable count instead of k mod S
	 * (cgs_rank_plan.slot_map) and keeps it where it takes strictly
	 * fewer bytes.
	 */
	int slot_maps;
	/* Threads planning ranks and rings; 0 or 1: the caller's only. */
	uint32_t threads;
};

void cgs_plan_options_init(struct cgs_plan_options *o);

/*
 * Where variant v's ranges of layer l of chunk c are: saved_roles[i * 3 +
 * r] and user_grad_layers[i] for the returned i.
 */
static inline uint64_t cgs_plan_role_index(const struct cgs_plan *p,
					   uint32_t v, uint32_t c, uint32_t l)
{
	return (uint64_t)v * p->layer_base[p->schedule->vpp] +
	       p->layer_base[c] + l;
}

/*
 * Plan every rank of a validated schedule; opt may be NULL for defaults.
 * The ring is the smallest safe one unless the schedule asks for `slots`
 * or a search (above).  The plan is the same whatever opt->threads.
 * A ring longer than the largest reachable microbatch count is accepted:
 * its last slots are never live, so their frames conflict with nothing,
 * and their graphs come last in the capture sequence.
 * Fails with CGS_E_PLAN when the requested ring is shorter than liveness
 * (naming rank, N and chunk), CGS_E_ORDER when
 * an order is malformed or would reuse a live frame (naming rank, N and
 * entry index), CGS_E_LIMIT when a rank needs more saved frames than
 * opt->max_frames or CGS_PLAN_MAX_FRAMES, CGS_E_NOMEM.  The plan borrows `s`.
 */
int cgs_plan_create(const struct cgs_schedule *s,
		    const struct cgs_plan_options *opt, struct cgs_plan **out,
		    struct cgs_error *err);

void cgs_plan_destroy(struct cgs_plan **p);

/* Free what one rank plan owns (not the struct itself); NULL is allowed. */
void cgs_rank_plan_release(struct cgs_rank_plan *rp);

#endif
