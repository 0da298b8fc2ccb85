/*
 * The planner's stages and the working state they share while one rank is
 * planned.  Internal to src/plan; the public view is plan.h.
 *
 *   ring.c      the slot ring: in-flight microbatches over every order
 *   liveness.c  conflicts and lower bounds, replaying every order
 *   colour.c    frame conflicts and their colouring
 *   pack.c      byte offsets and arenas
 *   nest.c      user-gradient frames in the saved arena's holes, or both
 *               kinds packed as one
 *   sequence.c  the lockstep capture sequence
 *   slotmap.c   slot maps per reachable count instead of k mod S
 *   placed.c    slots laid out at offsets on the longest order
 *   ahead.c     slots as colours: kept from chunks about to fill the ring,
 *               or pooled by teams of chunks that take turns
 *   local.c     slots as colours and gradient classes, by a local search
 *   plan.c      the driver: frames, their sizes, one rank after another
 *
 * A "group" is one (chunk, slot): all its layers' saved frames are live
 * over the same interval, so liveness works on groups and only colouring
 * expands them to frames.  Group g = chunk * S + slot, which is also the
 * index of the group's user-gradient frame.
 */
#ifndef CGS_PLAN_STAGE_H
#define CGS_PLAN_STAGE_H

#include <stdint.h>

#include "common/error.h"
#include "plan/graph.h"
#include "plan/plan.h"

/* A frame never live in the largest order. */
#define CGS_PLAN_NEVER UINT32_MAX

/* What the ring must hold, found by cgs_ring_scan over every rank. */
struct cgs_ring_need {
	/* the most microbatches of one chunk in flight, and where */
	uint32_t in_flight, rank, microbatches, chunk;
	/* the first two consecutive backwards of one chunk, and where */
	int twin_backward;
	uint32_t twin_rank, twin_microbatches, twin_chunk;
	uint64_t twin_index;
};

/* Working state for planning one rank. */
struct cgs_rank_work {
	const struct cgs_schedule *s;
	const struct cgs_plan_options *opt;
	struct cgs_rank_plan *rp;
	const uint32_t *layer_base;
	uint32_t slots;          /* S */
	uint32_t chunks;         /* M, the schedule's vpp */
	uint32_t layers_total;   /* layers over all chunks of the rank */
	uint32_t n_groups;       /* chunks * slots */
	uint64_t align;
	/*
	 * A pass that only needs the bytes and bounds (the ring search's
	 * first pass, a slot map's pre-check): no capture sequence and no
	 * bytes_without_sharing.
	 */
	int bytes_only;
	/*
	 * The ring search or --explore-slots reads each plan's floor: search
	 * for the heaviest clique by bytes even where the packing engine
	 * would not run (a single plan needs it only to skip the engine).
	 */
	int want_floor;
	/*
	 * Offsets of the saved groups (c * S + s) a placed slot map came
	 * with, or NULL: packing takes them when they are a layout of the
	 * conflicts with fewer bytes than its own.
	 */
	const uint64_t *group_offset_hint;
	/* take group_offset_hint at as many bytes as packing's own too */
	int group_offset_hint_ties;
	/*
	 * Offsets of every saved frame a split map came with, or NULL:
	 * packing takes them on the same terms.
	 */
	const uint64_t *frame_offset_hint;

	/* frame sizes, aligned, per layer index layer_base[c] + l */
	uint64_t *saved_bytes;          /* maximum over variants */
	uint64_t *variant_saved_bytes;  /* [v * layers_total + layer] */
	/* user-gradient frame sizes per chunk */
	uint64_t *grad_bytes;           /* maximum over variants */
	uint64_t *variant_grad_bytes;   /* [v * chunks + c] */

	struct cgs_graph group_conflicts;  /* n_groups: saved groups */
	struct cgs_graph grad_conflicts;   /* n_groups: user-grad frames */
	struct cgs_graph frame_conflicts;  /* n_saved: saved frames */
	/*
	 * Row g: the saved groups live together with user-grad frame g in
	 * some order (not symmetric; nest.c).
	 */
	struct cgs_graph grad_saved;

	/* entry of the largest order where a group (or gradient) first lives */
	uint32_t *group_birth, *grad_birth;
	/* largest numbers of frames live together: colour lower bounds */
	uint32_t live_saved_frames, live_grad_frames;
	uint32_t *group_first;    /* n_groups + 1: first saved frame of g */
	uint32_t *grad_first;     /* n_groups + 1: identity, for packing */
	uint32_t *group_layers;   /* layers of each group: clique weights */
	uint32_t *saved_colour, *grad_colour;
	/*
	 * The colourings before the tabu search took colours off (NULL when
	 * it took none) and their colour counts: fewer colours can pack into
	 * more bytes, so packing tries both and keeps the fewer bytes.
	 */
	uint32_t *saved_colour_before, *grad_colour_before;
	uint32_t saved_colours_before, grad_colours_before;
};

/*
 * Report a failed stage: `code` with a message naming the rank and what
 * the stage was doing ("out of memory" only for CGS_E_NOMEM).
 */
int cgs_plan_fail(struct cgs_error *err, int code, uint32_t rank,
		  const char *stage);

/* An error at entry `index` of the order of (rank, microbatches). */
int cgs_plan_order_error(struct cgs_error *err, int code,
			 const struct cgs_schedule *s, uint32_t rank,
			 uint32_t microbatches, uint64_t index,
			 const char *what);

/* ring.c */
int cgs_ring_scan(const struct cgs_schedule *s,
		  const struct cgs_rank_plan *rp, struct cgs_ring_need *need,
		  struct cgs_error *err);
int cgs_ring_choose(const struct cgs_schedule *s,
		    const struct cgs_ring_need *need, uint32_t *slots,
		    struct cgs_error *err);

/* The smallest ring safe for `need`: in flight, and 2 for twin backwards. */
uint32_t cgs_ring_smallest(const struct cgs_ring_need *need);
/* Fold one rank's need into all ranks' (the first worst rank is named). */
void cgs_ring_need_merge(struct cgs_ring_need *all,
			 const struct cgs_ring_need *one);
/*
 * The rings [*lo, *hi] to plan: for one rank when `rank` is its own need
 * (rings per rank), else for every rank (rank NULL).
 */
int cgs_ring_range(const struct cgs_schedule *s,
		   const struct cgs_plan_options *opt,
		   const struct cgs_ring_need *all,
		   const struct cgs_ring_need *rank, uint32_t *lo,
		   uint32_t *hi, struct cgs_error *err);

/* liveness.c: fills the conflict graphs, births and lower bounds. */
int cgs_liveness(struct cgs_rank_work *x, struct cgs_error *err);

/* colour.c: frame conflicts and the colours of both frame kinds. */
int cgs_colour_frames(struct cgs_rank_work *x, struct cgs_error *err);

/* pack.c: offsets, arenas, upstream's and the unshared figures. */
int cgs_pack_frames(struct cgs_rank_work *x, struct cgs_error *err);

/*
 * nest.c: user-grad frames moved into holes of the saved arena where
 * that makes the user-grad arena smaller.
 */
int cgs_nest_grads(struct cgs_rank_work *x, struct cgs_error *err);

/* sequence.c: rp->capture. */
int cgs_capture_sequence(struct cgs_rank_work *x, struct cgs_error *err);

/* The slot of microbatch k (0-based) of chunk c in order o (plan.h). */
static inline uint32_t cgs_slot_of(const struct cgs_rank_plan *rp, uint32_t o,
				   uint32_t c, uint32_t k)
{
	uint64_t row = o;

	if (!rp->slot_map)
		return k % rp->slots;
	if (rp->slot_map_rows > 1)
		row = (uint64_t)o * rp->slot_map_rows + c;
	return rp->slot_map[row * rp->reachable[rp->n_reachable - 1] + k];
}

/*
 * slotmap.c: slot maps for the rank's ring (x after its frame sizes and
 * a plan with k mod S), each safe in every order and none k mod S: the
 * periodic maps and the searched map its proxy prefers, best first, at
 * most CGS_SLOT_MAP_CANDIDATES, each to be freed by the caller.  None
 * when the search finds nothing or the rank is too large for it.
 */
#define CGS_SLOT_MAP_CANDIDATES 3
int cgs_slot_map_search(const struct cgs_rank_work *x, uint32_t **maps,
			uint32_t *n_maps, struct cgs_error *err);

/*
 * slotmap.c: the map that gives each forward of (c, k) the lowest slot of
 * chunk c that is safe then, order by order: slots past a chunk's usual
 * load are taken only at its peaks.  `mode` says which slot is lowest:
 * slot numbers per chunk, slot numbers other chunks leave free, or
 * colours each slot of each chunk stands for (with or without a gradient
 * parity per slot).  Rows per count in *rows
 * (1 when every chunk's rows agree, else the rank's chunks) and the
 * slots it uses in *used (the slots below it); *map NULL when it is
 * k mod S or too large.
 */
#define CGS_SLOT_MAP_MAX_CELLS (1ull << 26)
/* The most microbatches of all chunks in flight at once, over the orders. */
uint32_t cgs_slot_map_peak(const struct cgs_rank_plan *rp);
/*
 * Is every order's forward part (up to its last forward) a prefix of the
 * longest order's?  Then a shorter order only frees after the events it
 * shares with the longest, and a layout of the longest order serves all.
 */
int cgs_orders_nested(const struct cgs_rank_plan *rp);
/*
 * Order o's entries up to its last forward where they are the longest
 * order's first ones (cgs_orders_nested asks it of every order), else 0.
 */
uint64_t cgs_nested_prefix(const struct cgs_rank_plan *rp, uint32_t o);
/*
 * Is the next backward event of order o at or after entry e chunk c's?
 * The last backward's gradient frame is live through that event.
 */
int cgs_next_backward_is(const struct cgs_rank_plan *rp, uint32_t o,
			 uint64_t e, uint32_t c);
/*
 * The map of every order where row[c * width + k] (width the longest
 * order's count) is the slot of microbatch k of chunk c in the longest
 * order and a nested shorter order's microbatch k takes the same: rows
 * per count in *rows (1 where every chunk's row agrees, else M), the
 * slots below the highest used in *used; *map NULL where it is k mod S,
 * or where two backwards next to each other in some order would free the
 * same slot of a chunk (their gradient frames would be one).
 */
int cgs_slot_map_from_longest(const struct cgs_rank_plan *rp, uint32_t M,
			      uint32_t S, const uint32_t *row, uint32_t **map,
			      uint32_t *rows, uint32_t *used);
enum cgs_slot_map_mode {
	CGS_SLOT_MAP_OWN,      /* each chunk on its own slots */
	CGS_SLOT_MAP_SHARED,   /* slots other chunks leave free first */
	CGS_SLOT_MAP_COLOURS,  /* slots stand for colours all chunks share */
	/* the same, slots also keeping a gradient parity (two colours) */
	CGS_SLOT_MAP_COLOURS_PARITY
};
int cgs_slot_map_lowest_free(const struct cgs_rank_work *x, int mode,
			     uint32_t **map, uint32_t *rows, uint32_t *used,
			     struct cgs_error *err);

/*
 * placed.c: for frames of different sizes, where every order's forwards
 * are a prefix of the longest order's, a map (one row per chunk and
 * count) laid out on the longest order within 2% of its bound (else
 * within 5% of its saved peak), with each slot's offset in
 * slot_offset[c * S + s] (0 for slots it leaves unused) and the most
 * slots a chunk uses in *used.  *map NULL when it does not apply or
 * finds none within its search budget.  guided: also follow a packing
 * of the order without slots, and climb to 5% by a ladder of widths
 * rather than by halves (their time pays only where the ring has slots
 * to spare).  Where the map was found without the gradient parity, *cls
 * (when not NULL) takes the same layout with its slots split by gradient
 * classes (placed.c, gradient_classes), so that the gradient frames take
 * two or three colours, where that fits the ring; cls->map NULL
 * otherwise.  *blocks (when not NULL) takes, whether or not the placed
 * map was found, the longest order laid out in blocks of the largest
 * microbatch, where every chunk's microbatch is a whole fraction of it
 * (placed.c, placed_blocks); blocks->map NULL where that does not apply
 * or needs more slots than the ring.  *split (when not NULL) likewise
 * takes the longest order with the first layers of the bigger chunks
 * apart from the rest (placed.c, placed_split); split->map NULL where
 * that saves nothing or needs more slots than the ring.
 */
struct cgs_placed_classes {
	uint32_t *map, used;          /* a row per count and chunk */
	uint64_t *slot_offset;
};
/*
 * A split map (placed.c): a row per count and chunk, and the offset of
 * each slot's layers, frame_offset[(c * S + s) * layers + l] (S the ring
 * the map was found on).
 */
struct cgs_placed_split {
	uint32_t *map, used, layers;
	uint64_t *frame_offset;
};
int cgs_slot_map_placed(const struct cgs_rank_work *x, int guided,
			uint32_t **map, uint32_t *used,
			uint64_t **slot_offset, struct cgs_placed_classes *cls,
			struct cgs_placed_classes *blocks,
			struct cgs_placed_split *split,
			struct cgs_error *err);

/*
 * ahead.c: where more microbatches are in flight than the ring holds,
 * slots standing for colours as in the colours map, a forward avoiding
 * the colours of chunks that fill (or nearly fill) their ring while it
 * is live (`rule`: by their load alone, or with the live microbatches
 * holding their colours), or (CGS_AHEAD_TEAMS, with any ring) drawing
 * from its team's pool of colours; each with slots keeping a gradient
 * parity (CGS_AHEAD_PARITY) or not.  Replayed on the longest order,
 * whose rows every shorter (nested) order takes.  *map NULL when it does
 * not apply or every try leaves some forward without a slot of a free
 * colour; *colours the colours the map's replay used.
 */
enum cgs_ahead_rule {
	CGS_AHEAD_FULL,     /* avoid chunks within t of a full ring */
	/* avoid chunks whose load, with the live holders of their colours,
	 * would come within t of the ring */
	CGS_AHEAD_HOLDERS,
	/* chunks split into teams, each team's colours a pool of its own
	 * as large as the team's joint peak (no look-ahead; also where the
	 * ring holds every microbatch in flight) */
	CGS_AHEAD_TEAMS,
	/* with either: slots keep a gradient parity, as the parity map's */
	CGS_AHEAD_PARITY = 4
};
int cgs_slot_map_ahead(const struct cgs_rank_work *x, int rule,
		       uint32_t **map, uint32_t *rows, uint32_t *used,
		       uint32_t *colours, struct cgs_error *err);

/*
 * Paired bands (bands.c): offsets of the saved groups (c * S + s) of
 * k mod S, or *offset NULL where the ring does not suit; CGS_E_NOMEM.
 */
#define CGS_BANDS_MAX_CHUNKS 64u
int cgs_bands_layout(const struct cgs_rank_work *x, uint64_t **offset);

/*
 * local.c: where every frame of each kind has one size, every chunk as
 * many layers, and the orders are nested, a map of the longest order's
 * microbatches recoloured by a local search from the plan `best` (on
 * this ring) to fewer saved colours, then fewer gradient colours than
 * it takes.  *map NULL when it does not apply or finds none.
 */
int cgs_slot_map_recoloured(const struct cgs_rank_work *x,
			    const struct cgs_rank_plan *best, uint32_t **map,
			    uint32_t *rows, uint32_t *used,
			    struct cgs_error *err);

#endif
