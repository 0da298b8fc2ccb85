/*
 * The planner's driver: the ring over every rank, then each rank in turn
 * through the stages of stage.h.  See plan.h for the indexing of frames
 * and graphs.
 */
#include "plan/plan.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "order/rank_orders.h"
#include "plan/stage.h"

void cgs_plan_options_init(struct cgs_plan_options *o)
{
	memset(o, 0, sizeof(*o));
	o->colour_budget = CGS_PLAN_DEFAULT_COLOUR_BUDGET;
	o->pack_budget = CGS_PLAN_DEFAULT_PACK_BUDGET;
	o->max_frames = 0;
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

int cgs_plan_fail(struct cgs_error *err, int code, uint32_t rank,
		  const char *stage)
{
	if (code == CGS_E_NOMEM)
		return cgs_error_set(err, code, "rank %u: out of memory %s",
				     rank, stage);
	return cgs_error_set(err, code, "rank %u: %s failed (error %d)", rank,
			     stage, code);
}

/* Where an explicit order came from, or NULL for a generated one. */
static const struct cgs_order *find_order(const struct cgs_schedule *s,
					  uint32_t rank, uint32_t n)
{
	size_t i;

	for (i = 0; i < s->n_orders; i++)
		if (s->orders[i].rank == rank && s->orders[i].microbatches == n)
			return &s->orders[i];
	return NULL;
}

int cgs_plan_order_error(struct cgs_error *err, int code,
			 const struct cgs_schedule *s, uint32_t rank,
			 uint32_t microbatches, uint64_t index,
			 const char *what)
{
	const struct cgs_order *o = find_order(s, rank, microbatches);

	return cgs_error_at(err, code, o ? s->path : NULL,
			    o ? o->pos.line : 0, o ? o->pos.column : 0,
			    "rank %u, %u microbatches, entry %llu: %s", rank,
			    microbatches, (unsigned long long)index, what);
}

/* One variant's role bytes of layer l of chunk c, aligned and exact. */
struct layer_bytes {
	uint64_t input, output, saved, user_grad;
};

static struct layer_bytes layer_bytes(const struct cgs_rank_work *x,
				      uint32_t v, uint32_t c, uint32_t l)
{
	const struct cgs_schedule *s = x->s;
	uint32_t r = x->rp->rank;

	return (struct layer_bytes){
		cgs_schedule_bytes(s, v, r, c, l, CGS_ROLE_INPUT),
		cgs_schedule_bytes(s, v, r, c, l, CGS_ROLE_OUTPUT),
		cgs_schedule_bytes(s, v, r, c, l, CGS_ROLE_SAVED),
		cgs_schedule_bytes(s, v, r, c, l, CGS_ROLE_USER_GRAD),
	};
}

/* The role ranges of layer l of chunk c for variant v (every slot's). */
static void place_roles(struct cgs_rank_work *x, uint32_t v, uint32_t c,
			uint32_t l, const struct layer_bytes *b,
			uint64_t grad_at)
{
	struct cgs_rank_plan *rp = x->rp;
	uint64_t in = align_up(b->input, x->align);
	uint64_t out = align_up(b->output, x->align);
	uint64_t at = (uint64_t)v * x->layers_total + x->layer_base[c] + l;
	struct cgs_range *r = rp->saved_roles + at * 3;

	r[0] = (struct cgs_range){0, b->input};
	r[1] = (struct cgs_range){in, b->output};
	r[2] = (struct cgs_range){in + out, b->saved};
	rp->user_grad_layers[at] = (struct cgs_range){grad_at, b->user_grad};
}

/* Per-variant layouts inside frames and the frame sizes. */
static int frame_sizes(struct cgs_rank_work *x, struct cgs_error *err)
{
	const struct cgs_schedule *s = x->s;
	struct cgs_rank_plan *rp = x->rp;
	uint32_t V = s->n_variants, v, c, l;
	uint64_t ranges = (uint64_t)V * x->layers_total;

	x->saved_bytes = calloc(x->layers_total + 1, sizeof(uint64_t));
	x->variant_saved_bytes = calloc((uint64_t)V * x->layers_total + 1,
					sizeof(uint64_t));
	x->grad_bytes = calloc(x->chunks, sizeof(uint64_t));
	x->variant_grad_bytes = calloc((uint64_t)V * x->chunks,
				       sizeof(uint64_t));
	rp->saved_roles = calloc(ranges * 3 + 1, sizeof(*rp->saved_roles));
	rp->user_grad_layers = calloc(ranges + 1,
				      sizeof(*rp->user_grad_layers));
	if (!x->saved_bytes || !x->variant_saved_bytes || !x->grad_bytes ||
	    !x->variant_grad_bytes || !rp->saved_roles ||
	    !rp->user_grad_layers)
		return cgs_plan_fail(err, CGS_E_NOMEM, rp->rank,
				     "for the frames' role ranges");
	for (v = 0; v < V; v++) {
		for (c = 0; c < x->chunks; c++) {
			uint64_t grad_at = 0;

			for (l = 0; l < s->layers[c]; l++) {
				uint32_t li = x->layer_base[c] + l;
				struct layer_bytes b = layer_bytes(x, v, c, l);
				uint64_t total = align_up(b.input, x->align) +
						 align_up(b.output, x->align) +
						 align_up(b.saved, x->align);

				x->variant_saved_bytes[(uint64_t)v * x->layers_total + li] = total;
				if (total > x->saved_bytes[li])
					x->saved_bytes[li] = total;
				place_roles(x, v, c, l, &b, grad_at);
				grad_at += align_up(b.user_grad, x->align);
			}
			x->variant_grad_bytes[(uint64_t)v * x->chunks + c] = grad_at;
			if (grad_at > x->grad_bytes[c])
				x->grad_bytes[c] = grad_at;
		}
	}
	return 0;
}

static int check_frames(const struct cgs_rank_work *x, struct cgs_error *err)
{
	const struct cgs_schedule *s = x->s;
	uint64_t n = (uint64_t)x->slots * x->layers_total;
	const struct cgs_pos *at = s->slots_pos.line ? &s->slots_pos
						     : &s->layers_pos;

	if (x->opt->max_frames && n > x->opt->max_frames)
		return cgs_error_at(err, CGS_E_LIMIT, s->path, at->line,
			at->column, "rank %u needs %llu saved frames (%u slots x %u layers), "
			"more than the frames limit %llu; raise it with "
			"--limit frames=N",
			x->rp->rank, (unsigned long long)n, x->slots,
			x->layers_total, (unsigned long long)x->opt->max_frames);
	/* the conflict matrices grow with the square of the frames */
	if (n > CGS_PLAN_MAX_FRAMES ||
	    (uint64_t)s->n_variants * n * 2 > UINT32_MAX)
		return cgs_error_at(err, CGS_E_LIMIT, s->path, at->line,
			at->column, "rank %u needs %llu saved frames (%u slots x %u layers); "
			"the planner handles at most %u per rank",
			x->rp->rank, (unsigned long long)n, x->slots,
			x->layers_total, CGS_PLAN_MAX_FRAMES);
	return 0;
}

/* Allocate the rank's frames and scratch; name every frame (plan.h). */
static int index_frames(struct cgs_rank_work *x, struct cgs_error *err)
{
	const struct cgs_schedule *s = x->s;
	struct cgs_rank_plan *rp = x->rp;
	uint32_t S = x->slots, c, slot, l, g;

	x->n_groups = x->chunks * S;
	rp->n_saved = S * x->layers_total;
	rp->n_user_grad = x->n_groups;
	rp->n_graphs = s->n_variants * rp->n_saved * 2;
	rp->saved = calloc(rp->n_saved + 1, sizeof(*rp->saved));
	rp->user_grad = calloc(rp->n_user_grad + 1, sizeof(*rp->user_grad));
	rp->arenas = calloc(2, sizeof(*rp->arenas));
	x->group_birth = malloc((x->n_groups + 1) * sizeof(uint32_t));
	x->grad_birth = malloc((x->n_groups + 1) * sizeof(uint32_t));
	x->group_first = calloc(x->n_groups + 1, sizeof(uint32_t));
	x->grad_first = calloc(x->n_groups + 1, sizeof(uint32_t));
	x->saved_colour = calloc(rp->n_saved + 1, sizeof(uint32_t));
	x->grad_colour = calloc(x->n_groups + 1, sizeof(uint32_t));
	x->group_layers = calloc(x->n_groups + 1, sizeof(uint32_t));
	if (!rp->saved || !rp->user_grad || !rp->arenas || !x->group_birth ||
	    !x->grad_birth || !x->group_first || !x->grad_first ||
	    !x->saved_colour || !x->grad_colour || !x->group_layers ||
	    cgs_graph_init(&x->group_conflicts, x->n_groups) ||
	    cgs_graph_init(&x->grad_conflicts, x->n_groups) ||
	    cgs_graph_init(&x->grad_saved, x->n_groups))
		return cgs_plan_fail(err, CGS_E_NOMEM, rp->rank,
				     "for the frames and their conflicts");
	for (g = 0; g < x->n_groups; g++) {
		c = g / S;
		slot = g % S;
		x->group_birth[g] = x->grad_birth[g] = CGS_PLAN_NEVER;
		x->group_first[g] = x->layer_base[c] * S + slot * s->layers[c];
		x->grad_first[g] = g;
		x->group_layers[g] = s->layers[c];
		rp->user_grad[g] = (struct cgs_frame){.chunk = c, .slot = slot,
						      .arena = 1};
		for (l = 0; l < s->layers[c]; l++)
			rp->saved[x->group_first[g] + l] = (struct cgs_frame){
				.chunk = c, .slot = slot, .layer = l,
				.arena = 0};
	}
	x->group_first[x->n_groups] = rp->n_saved;
	x->grad_first[x->n_groups] = x->n_groups;
	return 0;
}

static int plan_rank(struct cgs_rank_work *x, struct cgs_error *err)
{
	int rc = check_frames(x, err);

	if (rc == 0)
		rc = index_frames(x, err);
	if (rc == 0)
		rc = frame_sizes(x, err);
	if (rc == 0)
		rc = cgs_liveness(x, err);
	if (rc == 0)
		rc = cgs_colour_frames(x, err);
	if (rc == 0)
		rc = cgs_pack_frames(x, err);
	if (rc == 0)
		rc = cgs_nest_grads(x, err);
	if (rc == 0 && !x->bytes_only)
		rc = cgs_capture_sequence(x, err);
	return rc;
}

static void rank_work_release(struct cgs_rank_work *x)
{
	free(x->saved_bytes);
	free(x->variant_saved_bytes);
	free(x->grad_bytes);
	free(x->variant_grad_bytes);
	cgs_graph_release(&x->group_conflicts);
	cgs_graph_release(&x->grad_conflicts);
	cgs_graph_release(&x->grad_saved);
	cgs_graph_release(&x->frame_conflicts);
	free(x->group_birth);
	free(x->grad_birth);
	free(x->group_first);
	free(x->grad_first);
	free(x->saved_colour);
	free(x->grad_colour);
	free(x->saved_colour_before);
	free(x->grad_colour_before);
	free(x->group_layers);
	memset(x, 0, sizeof(*x));
}

/*
 * The search's first pass colours each candidate with this share of the
 * colouring budget (one part in 20): its plans only rank the rings, and
 * the colouring searches are most of its time.
 */
#define CGS_FIRST_PASS_COLOUR_SHARE 20u
/*
 * The first pass runs the exact and tabu colourings only on graphs of at
 * most this many frames x colours (unless the options set another limit):
 * above it (P 32, M 8 and rings of 64 and more, 2 M cells and up; the
 * bench's family stays under 2^17) they were 60% of the first pass and did
 * not change which rings it kept.
 */
#define CGS_FIRST_PASS_SEARCH_CELLS (1ull << 20)

/* One (rank, ring) to plan, and what came of it. */
struct trial_work {
	uint32_t rank_index;
	struct cgs_rank_plan plan;   /* orders borrowed from the rank */
	/*
	 * After a first-fit plan (the search's first pass): no full plan of
	 * this ring can take fewer bytes.
	 */
	uint64_t bound;
	uint64_t floor;              /* plan_bound of the ring with k mod S */
	int pruned;                  /* the first-fit plan stands */
	/*
	 * The first-fit plan had a slot map.  Its frames and map are freed
	 * once its bytes are known: a pruned trial is never chosen, and the
	 * others are planned again in full.
	 */
	int mapped;
	/*
	 * The rank's smallest ring in the search: the only one where slot
	 * maps include the proxy search (slotmap.c).  Larger rings do the
	 * lowest-free maps alone; the search there costs most of the time
	 * and rarely finds what a larger ring's lowest-free map does not.
	 */
	uint32_t lowest_ring;
	/* the group offsets of the placed map being tried, or NULL */
	const uint64_t *hint;
	int hint_ties;               /* packing takes hint on a tie too */
	/* frame offsets a split map came with (try_split), else NULL */
	const uint64_t *frame_hint;
	struct cgs_error err;
	int rc;
};

/* The orders of one rank and the ring they need. */
struct rank_orders_work {
	struct cgs_ring_need need;
	struct cgs_error err;
	int rc;
};

/*
 * A rank's placed map (placed.c), found once on its largest ring: its
 * slots below `used` serve every ring from `used` up.
 */
struct placed_work {
	uint32_t *map, used, slots;   /* a row per count and chunk */
	uint64_t *slot_offset;       /* [c * slots + s] */
	struct cgs_placed_classes cls;   /* the same, by gradient classes */
	struct cgs_placed_classes blk;   /* microbatches in blocks */
	struct cgs_placed_split split;   /* first layers apart */
	struct cgs_error err;
	int rc;
};

/* Everything the planning threads share. */
struct trial_pool {
	const struct cgs_schedule *s;
	const struct cgs_plan_options *opt;
	struct cgs_plan *p;
	uint64_t align;
	struct rank_orders_work *orders;   /* one per rank */
	struct trial_work *work;
	uint32_t n_work;
	/* the job running now: n_jobs calls of run(pool, i) */
	void (*run)(struct trial_pool *pool, uint32_t i);
	uint32_t n_jobs;
	int report_progress;
	int map;                     /* try slot maps on every ring */
	/* the search's first pass: opt without the packing engine */
	struct cgs_plan_options first_fit;
	uint32_t *todo;              /* trials the second pass plans in full */
	struct placed_work *placed;  /* one per rank, with slot maps on */
	pthread_mutex_t lock;        /* guards next and done */
	uint32_t next, done;
};

/* Free what planning a rank added to the orders it was given. */
static void rank_outputs_release(struct cgs_rank_plan *rp)
{
	free(rp->saved);
	free(rp->user_grad);
	free(rp->saved_roles);
	free(rp->user_grad_layers);
	free(rp->arenas);
	free(rp->capture);
	free(rp->slot_map);
	rp->slot_map = NULL;
	rp->slot_map_rows = 0;
	rp->saved = rp->user_grad = NULL;
	rp->saved_roles = rp->user_grad_layers = NULL;
	rp->arenas = NULL;
	rp->capture = NULL;
}

static void rank_work_start(struct trial_pool *pool, struct cgs_rank_plan *rp,
			    struct cgs_rank_work *x)
{
	*x = (struct cgs_rank_work){
		.s = pool->s, .opt = pool->opt, .rp = rp,
		.layer_base = pool->p->layer_base, .slots = rp->slots,
		.chunks = pool->s->vpp,
		.layers_total = pool->p->layer_base[pool->s->vpp],
		.align = pool->align,
		.want_floor = pool->opt->explore ||
			      pool->n_work > pool->p->n_ranks,
	};
}

/*
 * No layout of this plan's conflicts (its ring and slot map) takes fewer
 * bytes: the packing engine can bring a first-fit plan down to it at
 * best.  A plan keeps the gradient frames apart (both kinds' floors) or
 * puts some in the saved arena (nest.c): then the saved floor and the
 * joint floor hold, not the gradient arena's.  The rank's own bound may
 * be the higher.
 */
static uint64_t plan_bound(const struct cgs_rank_plan *rp)
{
	uint64_t apart = rp->saved_stats.floor_bytes +
			 rp->user_grad_stats.floor_bytes;
	uint64_t nested = rp->saved_stats.floor_bytes;
	uint64_t b;

	if (rp->joint_floor_bytes > nested)
		nested = rp->joint_floor_bytes;
	b = apart < nested ? apart : nested;
	return b > rp->lower_bound_bytes ? b : rp->lower_bound_bytes;
}

/*
 * Plan the ring of t with `map` (taken over; NULL: k mod S) and options
 * opt into *mapped.
 */
static int plan_with_map(struct trial_pool *pool, struct trial_work *t,
			 uint32_t *map, uint32_t rows,
			 const struct cgs_plan_options *opt,
			 struct cgs_rank_plan *mapped)
{
	struct cgs_rank_work y;
	int rc;

	/* the orders stay borrowed; everything the plan makes is new */
	*mapped = t->plan;
	mapped->slot_map = map;
	mapped->slot_map_rows = rows;
	mapped->saved = mapped->user_grad = NULL;
	mapped->saved_roles = mapped->user_grad_layers = NULL;
	mapped->arenas = NULL;
	mapped->capture = NULL;
	rank_work_start(pool, mapped, &y);
	y.opt = opt;
	y.bytes_only = opt == &pool->first_fit;
	y.group_offset_hint = t->hint;
	y.group_offset_hint_ties = t->hint_ties;
	y.frame_offset_hint = t->frame_hint;
	rc = plan_rank(&y, &t->err);
	rank_work_release(&y);
	return rc;
}

/* A copy of a slot map of the rank's orders with `rows` rows per count. */
static uint32_t *slot_map_copy(const struct cgs_rank_plan *rp,
			       const uint32_t *map, uint32_t rows)
{
	uint64_t n = (uint64_t)rp->n_reachable * (rows ? rows : 1) *
		     rp->reachable[rp->n_reachable - 1];
	uint32_t *copy = malloc((n + 1) * sizeof(*copy));

	if (copy)
		memcpy(copy, map, n * sizeof(*copy));
	return copy;
}

/*
 * The ring's plan with slot map `map` (taken over, `rows` rows per
 * count; NULL: k mod S, with t's hint) in place of t's plan when it
 * takes strictly fewer bytes.  With
 * the packing engine on, the map is first planned with first-fit, and in
 * full only when that plan's bound is below the bytes to beat (the full
 * plan could not win otherwise).  With first_fit set (the search's first
 * pass) it stops at first-fit, and t->bound falls to the plan's bound
 * when that is lower.
 */
static int try_map(struct trial_pool *pool, struct trial_work *t,
		   uint32_t *map, uint32_t rows, int first_fit)
{
	struct cgs_rank_plan mapped;
	uint32_t *copy;
	int rc;

	if (!first_fit && pool->opt->pack_budget) {
		copy = map ? slot_map_copy(&t->plan, map, rows) : NULL;
		if (map && !copy) {
			free(map);
			return cgs_error_set(&t->err, CGS_E_NOMEM,
					     "out of memory for a slot map");
		}
		rc = plan_with_map(pool, t, copy, rows, &pool->first_fit,
				   &mapped);
		if (rc == 0 && plan_bound(&mapped) >= t->plan.bytes) {
			rank_outputs_release(&mapped);
			free(map);
			return 0;
		}
		rank_outputs_release(&mapped);
		if (rc) {
			free(map);
			return rc;
		}
	}
	rc = plan_with_map(pool, t, map, rows,
			   first_fit ? &pool->first_fit : pool->opt, &mapped);
	if (rc == 0 && first_fit && plan_bound(&mapped) < t->bound)
		t->bound = plan_bound(&mapped);
	if (rc == 0 && mapped.bytes < t->plan.bytes) {
		rank_outputs_release(&t->plan);
		t->plan = mapped;
	} else {
		rank_outputs_release(&mapped);
	}
	return rc;
}

/*
 * The ring's plan with k mod S laid out in paired bands (bands.c), in
 * place of t's plan when it takes strictly fewer bytes.  Its packing
 * takes the bands at as many saved bytes as its own layout, since what
 * they are for is the holes nesting finds in them.
 */
static int try_bands(struct trial_pool *pool, struct trial_work *t,
		     const struct cgs_rank_work *x)
{
	uint64_t *hint;
	int rc = cgs_bands_layout(x, &hint);

	if (rc)
		return cgs_error_set(&t->err, rc, "out of memory for the bands");
	if (!hint)
		return 0;
	t->hint = hint;
	t->hint_ties = 1;
	rc = try_map(pool, t, NULL, 0, 0);
	t->hint = NULL;
	t->hint_ties = 0;
	free(hint);
	return rc;
}

/*
 * try_map, unless the map (taken over; NULL for none) leaves this ring's
 * last slots unused: it is then the same map on a smaller ring of the
 * search, which takes fewer graphs for as many bytes.
 */
static int try_map_on_ring(struct trial_pool *pool, struct trial_work *t,
			   const struct cgs_rank_work *x, uint32_t *map,
			   uint32_t rows, uint32_t used, int first_fit)
{
	if (!map)
		return 0;
	if (used < x->slots && used >= t->lowest_ring) {
		free(map);
		return 0;
	}
	return try_map(pool, t, map, rows, first_fit);
}

/*
 * The start of try_placed and try_split: where the placed map (its
 * slots `used`) is tried on t's ring, the smallest of the search that
 * holds them, *map its copy and *hint n offsets, zero; else both NULL.
 */
static int placed_start(struct trial_work *t, const struct cgs_rank_work *x,
			const uint32_t *placed, uint32_t used, uint64_t n,
			uint32_t **map, uint64_t **hint)
{
	*map = NULL;
	*hint = NULL;
	if (!placed ||
	    x->slots != (used > t->lowest_ring ? used : t->lowest_ring))
		return 0;
	*map = slot_map_copy(&t->plan, placed, x->chunks);
	*hint = calloc(n + 1, sizeof(**hint));
	if (!*map || !*hint) {
		free(*map);
		free(*hint);
		*map = NULL;
		*hint = NULL;
		return cgs_error_set(&t->err, CGS_E_NOMEM,
				     "out of memory for a slot map");
	}
	return 0;
}

/*
 * The ring's plan with a placed map (placed.c), its slots at the offsets
 * it found (slot_offset[c * pw->slots + s]), when it takes strictly
 * fewer bytes: on the smallest ring of the search that holds its slots,
 * which captures the fewest graphs.  Every map placed.c gives has a row
 * per count and chunk.
 */
static int try_placed(struct trial_pool *pool, struct trial_work *t,
		      const struct cgs_rank_work *x,
		      const struct placed_work *pw, const uint32_t *placed,
		      uint32_t used, const uint64_t *slot_offset,
		      int first_fit)
{
	uint32_t S = x->slots, c, s, *map;
	uint64_t *hint;
	int rc = placed_start(t, x, placed, used, (uint64_t)x->chunks * S,
			      &map, &hint);

	if (rc || !map)
		return rc;
	for (c = 0; c < x->chunks; c++)
		for (s = 0; s < used; s++)
			hint[c * S + s] = slot_offset[c * pw->slots + s];
	t->hint = hint;
	rc = try_map(pool, t, map, x->chunks, first_fit);
	t->hint = NULL;
	free(hint);
	return rc;
}

/*
 * The ring's plan with the split map (placed.c), every saved frame at the
 * offset it found, on the same terms as try_placed.
 */
static int try_split(struct trial_pool *pool, struct trial_work *t,
		     const struct cgs_rank_work *x,
		     const struct placed_work *pw, int first_fit)
{
	const struct cgs_placed_split *sp = &pw->split;
	uint32_t S = x->slots, c, s, l, *map;
	uint64_t *hint;
	int rc = placed_start(t, x, sp->map, sp->used, t->plan.n_saved, &map,
			      &hint);

	if (rc || !map)
		return rc;
	/* every slot of the ring, those the map leaves unused too */
	for (c = 0; c < x->chunks; c++)
		for (s = 0; s < S; s++)
			for (l = 0; l < x->s->layers[c]; l++)
				hint[x->layer_base[c] * S +
				     s * x->s->layers[c] + l] =
					sp->frame_offset[((uint64_t)c *
							  pw->slots + s) *
							 sp->layers + l];
	t->frame_hint = hint;
	rc = try_map(pool, t, map, x->chunks, first_fit);
	t->frame_hint = NULL;
	free(hint);
	return rc;
}

/* The rank's placed map, the same by gradient classes, blocks, split. */
static int try_placed_map(struct trial_pool *pool, struct trial_work *t,
			  const struct cgs_rank_work *x, int first_fit)
{
	const struct placed_work *pw = &pool->placed[t->rank_index];
	int rc = try_placed(pool, t, x, pw, pw->map, pw->used,
			    pw->slot_offset, first_fit);

	if (rc == 0 && t->plan.bytes > t->plan.lower_bound_bytes)
		rc = try_placed(pool, t, x, pw, pw->cls.map, pw->cls.used,
				pw->cls.slot_offset, first_fit);
	if (rc == 0 && t->plan.bytes > t->plan.lower_bound_bytes)
		rc = try_placed(pool, t, x, pw, pw->blk.map, pw->blk.used,
				pw->blk.slot_offset, first_fit);
	if (rc == 0 && t->plan.bytes > t->plan.lower_bound_bytes)
		rc = try_split(pool, t, x, pw, first_fit);
	return rc;
}

/* The placed map of rank i, on the largest ring the search gives it. */
static void run_placed(struct trial_pool *pool, uint32_t i)
{
	struct placed_work *pw = &pool->placed[i];
	struct cgs_rank_plan rp = {0};
	struct cgs_rank_work x;
	uint32_t j, lowest = UINT32_MAX;

	for (j = 0; j < pool->n_work; j++)
		if (pool->work[j].rank_index == i) {
			rp = pool->work[j].plan;   /* the rings rise */
			if (rp.slots < lowest)
				lowest = rp.slots;
		}
	rp.slot_map = NULL;
	rank_work_start(pool, &rp, &x);
	/* a ring past the frame limit: that trial reports it, not this */
	if (check_frames(&x, &pw->err)) {
		memset(&pw->err, 0, sizeof(pw->err));
		return;
	}
	pw->rc = index_frames(&x, &pw->err);
	if (pw->rc == 0)
		pw->rc = frame_sizes(&x, &pw->err);
	if (pw->rc == 0)
		pw->rc = cgs_slot_map_placed(&x, rp.slots > lowest, &pw->map,
					     &pw->used, &pw->slot_offset, &pw->cls,
					     &pw->blk, &pw->split, &pw->err);
	pw->slots = rp.slots;
	rank_work_release(&x);
	rank_outputs_release(&rp);
}

/*
 * The ring's plan with slot maps (slotmap.c): first the lowest-free maps
 * (slots shared by the chunks, each chunk on its own, then slots that
 * stand for colours the chunks share, then the same with gradient
 * parities), then, on the rank's smallest ring
 * and unless one of them already reached the lower bound, the maps the
 * search proposes.  The fewest bytes win, and a map only when it takes
 * strictly fewer bytes than k mod S: otherwise the plan stays as it was.
 */
/*
 * The map of look-ahead rule `rule` (ahead.c) tried on the ring, unless
 * the plan is at its bound already.  *colours (when not NULL) takes the
 * map's colours, 0 where the rule found none.  With `beat` non-zero the
 * map is tried only when it takes fewer colours than that; *tried (when
 * not NULL) says whether it was.
 */
static int try_ahead(struct trial_pool *pool, struct trial_work *t,
		     const struct cgs_rank_work *x, int rule, uint32_t beat,
		     int first_fit, uint32_t *colours, int *tried)
{
	uint32_t *map, rows, used, c = 0;
	int rc;

	if (tried)
		*tried = 0;
	if (t->plan.bytes == t->plan.lower_bound_bytes)
		return 0;
	rc = cgs_slot_map_ahead(x, rule, &map, &rows, &used, &c, &t->err);
	if (colours)
		*colours = c;
	if (rc)
		return rc;
	if (beat && !(c && c < beat)) {
		free(map);
		return 0;
	}
	if (tried)
		*tried = 1;
	return try_map_on_ring(pool, t, x, map, rows, used, first_fit);
}

static int try_slot_maps(struct trial_pool *pool, struct trial_work *t,
			 struct cgs_rank_work *x, int first_fit)
{
	uint32_t *maps[CGS_SLOT_MAP_CANDIDATES], *map, map_rows, used, n = 0,
		 i, ahead_colours = 0;
	int rule = CGS_AHEAD_FULL, holders = 0;
	static const int modes[] = {CGS_SLOT_MAP_SHARED, CGS_SLOT_MAP_OWN,
				    CGS_SLOT_MAP_COLOURS,
				    CGS_SLOT_MAP_COLOURS_PARITY};
	/*
	 * past the rank's smallest ring, where the ring holds fewer than the
	 * microbatches in flight, only slots standing for colours have won
	 * (with or without parities)
	 */
	int colours_only = x->slots != t->lowest_ring &&
			   cgs_slot_map_peak(x->rp) > x->slots;
	int rc = 0;

	for (i = 0; rc == 0 && i < sizeof(modes) / sizeof(*modes); i++) {
		if (colours_only && modes[i] != CGS_SLOT_MAP_COLOURS &&
		    modes[i] != CGS_SLOT_MAP_COLOURS_PARITY)
			continue;

		if (t->plan.bytes == t->plan.lower_bound_bytes)
			return 0;
		rc = cgs_slot_map_lowest_free(x, modes[i], &map, &map_rows,
					      &used, &t->err);
		if (rc == 0)
			rc = try_map_on_ring(pool, t, x, map, map_rows, used,
					     first_fit);
	}
	/*
	 * the teams map: chunks that take turns share a pool of colours;
	 * again with gradient parities where the plan needs more than two
	 * gradient colours
	 */
	if (rc == 0)
		rc = try_ahead(pool, t, x, CGS_AHEAD_TEAMS, 0, first_fit,
			       NULL, NULL);
	if (rc == 0 && t->plan.user_grad_stats.colours > 2)
		rc = try_ahead(pool, t, x, CGS_AHEAD_TEAMS | CGS_AHEAD_PARITY,
			       0, first_fit, NULL, NULL);
	/*
	 * the look-ahead map by the first rule, by the second where it
	 * takes fewer colours, then, where the plan still needs more than
	 * two gradient colours, the rule with fewer colours again with slots
	 * keeping a gradient parity
	 */
	if (rc == 0)
		rc = try_ahead(pool, t, x, CGS_AHEAD_FULL, 0, first_fit,
			       &ahead_colours, NULL);
	if (rc == 0)
		rc = try_ahead(pool, t, x, CGS_AHEAD_HOLDERS,
			       ahead_colours ? ahead_colours : UINT32_MAX,
			       first_fit, NULL, &holders);
	if (rc == 0 && holders)
		rule = CGS_AHEAD_HOLDERS;
	if (rc == 0 && t->plan.user_grad_stats.colours > 2)
		rc = try_ahead(pool, t, x, rule | CGS_AHEAD_PARITY, 0,
			       first_fit, NULL, NULL);
	if (rc == 0 && t->plan.bytes > t->plan.lower_bound_bytes)
		rc = try_placed_map(pool, t, x, first_fit);
	if (rc || t->plan.bytes == t->plan.lower_bound_bytes)
		return rc;
	if (x->slots == t->lowest_ring) {
		rc = cgs_slot_map_search(x, maps, &n, &t->err);
		for (i = 0; rc == 0 && i < n; i++) {
			map = maps[i];
			maps[i] = NULL;
			rc = try_map(pool, t, map, 1, first_fit);
		}
		for (; i < n; i++)
			free(maps[i]);
	}
	/*
	 * on the rank's smallest ring, the best plan so far recoloured by a
	 * local search (local.c), and again from the plan that takes while
	 * one does (on every ring of the search it took q02 of the bench's
	 * family from 9 s to minutes)
	 */
	for (i = 0; rc == 0 && i < 4 && !first_fit &&
		    x->slots == t->lowest_ring &&
		    t->plan.bytes > t->plan.lower_bound_bytes; i++) {
		uint64_t before = t->plan.bytes;

		rc = cgs_slot_map_recoloured(x, &t->plan, &map, &map_rows,
					     &used, &t->err);
		if (rc == 0)
			rc = try_map_on_ring(pool, t, x, map, map_rows, used,
					     first_fit);
		if (t->plan.bytes == before)
			break;
	}
	return rc;
}

static void run_trial(struct trial_pool *pool, uint32_t i)
{
	struct trial_work *t = &pool->work[i];
	struct cgs_rank_work x;

	rank_work_start(pool, &t->plan, &x);
	t->rc = plan_rank(&x, &t->err);
	if (t->rc == 0)
		t->floor = plan_bound(&t->plan);
	if (t->rc == 0 && pool->map &&
	    t->plan.bytes > t->plan.lower_bound_bytes)
		t->rc = try_slot_maps(pool, t, &x, 0);
	if (t->rc == 0 && t->plan.bytes > t->plan.lower_bound_bytes &&
	    t->plan.user_grad_stats.bytes > 0)
		t->rc = try_bands(pool, t, &x);
	rank_work_release(&x);
}

/* The second pass: the trials that survived the first, in full. */
static void run_todo_trial(struct trial_pool *pool, uint32_t i)
{
	struct trial_work *t = &pool->work[pool->todo[i]];

	rank_outputs_release(&t->plan);
	run_trial(pool, pool->todo[i]);
}

/*
 * The search's first pass: the ring's plan with first-fit alone (no
 * packing engine), with each slot map the search proposes, and the bytes
 * no full plan of the ring can go below: the lowest bound of the plans
 * tried (a full plan is k mod S or one of these maps, each at least its
 * own bound).  The first-fit plans themselves are valid: a full plan of
 * the ring takes at most the fewest bytes among them.
 */
static void run_first_fit_trial(struct trial_pool *pool, uint32_t i)
{
	struct trial_work *t = &pool->work[i];
	struct cgs_rank_work x;

	rank_work_start(pool, &t->plan, &x);
	x.opt = &pool->first_fit;
	x.bytes_only = 1;
	t->rc = plan_rank(&x, &t->err);
	if (t->rc == 0) {
		t->bound = t->floor = plan_bound(&t->plan);
		if (pool->map && t->plan.bytes > t->plan.lower_bound_bytes)
			t->rc = try_slot_maps(pool, t, &x, 1);
	}
	rank_work_release(&x);
	t->mapped = t->plan.slot_map != NULL;
	rank_outputs_release(&t->plan);
}

/* Take jobs until none is left; each thread, and the caller, runs this. */
static void *pool_worker(void *arg)
{
	struct trial_pool *pool = arg;

	for (;;) {
		uint32_t i;

		pthread_mutex_lock(&pool->lock);
		i = pool->next < pool->n_jobs ? pool->next++ : UINT32_MAX;
		pthread_mutex_unlock(&pool->lock);
		if (i == UINT32_MAX)
			return NULL;
		pool->run(pool, i);
		pthread_mutex_lock(&pool->lock);
		pool->done++;
		if (pool->report_progress && pool->opt->progress)
			pool->opt->progress(pool->opt->progress_user, pool->done,
					    pool->n_jobs);
		pthread_mutex_unlock(&pool->lock);
	}
}

/*
 * Run n jobs on up to opt->threads threads.  Each job writes only its own
 * slot, so the result does not depend on which thread ran it; a thread
 * that cannot start leaves its share to the others.
 */
static void pool_run(struct trial_pool *pool,
		     void (*run)(struct trial_pool *pool, uint32_t i),
		     uint32_t n, int report_progress)
{
	uint32_t want = pool->opt->threads, started = 0, i;
	pthread_t *threads = NULL;

	pool->run = run;
	pool->n_jobs = n;
	pool->next = pool->done = 0;
	pool->report_progress = report_progress;
	if (want > n)
		want = n;
	if (want > 1)
		threads = calloc(want - 1, sizeof(*threads));
	for (i = 0; threads && i + 1 < want; i++) {
		if (pthread_create(&threads[i], NULL, pool_worker, pool))
			break;
		started++;
	}
	pool_worker(pool);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
}

/* The orders of rank i and the ring they need. */
static void run_rank_orders(struct trial_pool *pool, uint32_t i)
{
	const struct cgs_schedule *s = pool->s;
	struct cgs_rank_plan *rp = &pool->p->ranks[i];
	struct rank_orders_work *w = &pool->orders[i];
	struct cgs_rank_orders ro;

	w->rc = cgs_rank_orders_init(&ro, s, s->ranks[i], &w->err);
	if (w->rc)
		return;
	rp->rank = ro.rank;
	rp->n_reachable = ro.n_reachable;
	rp->reachable = ro.reachable;
	rp->order_start = ro.order_start;
	rp->order_entries = ro.entries;
	if (rp->n_reachable == 0)
		w->rc = cgs_error_set(&w->err, CGS_E_PLAN,
				      "rank %u has no reachable microbatch count",
				      rp->rank);
	else
		w->rc = cgs_ring_scan(s, rp, &w->need, &w->err);
}

/*
 * The orders of every rank, and what ring each needs; the first failure
 * and the worst need are taken in rank order, whatever thread ran which.
 */
static int load_orders(struct trial_pool *pool, struct cgs_ring_need *need,
		       struct cgs_ring_need *all, struct cgs_error *err)
{
	uint32_t r, n = pool->s->n_ranks;

	pool->orders = calloc(n, sizeof(*pool->orders));
	if (!pool->orders)
		return cgs_error_set(err, CGS_E_NOMEM,
				     "out of memory for the orders of %u ranks",
				     n);
	pool_run(pool, run_rank_orders, n, 0);
	for (r = 0; r < n; r++) {
		if (pool->orders[r].rc) {
			if (err && err->code == 0)
				*err = pool->orders[r].err;
			return pool->orders[r].rc;
		}
		need[r] = pool->orders[r].need;
		cgs_ring_need_merge(all, &need[r]);
	}
	return 0;
}

/* List the (rank, ring) trials: rank by rank, ring by ring. */
static int list_trials(const struct cgs_schedule *s,
		       const struct cgs_plan_options *opt, struct cgs_plan *p,
		       const struct cgs_ring_need *need,
		       const struct cgs_ring_need *all,
		       struct trial_pool *pool, struct cgs_error *err)
{
	uint32_t *lo = calloc(s->n_ranks, sizeof(*lo));
	uint32_t *hi = calloc(s->n_ranks, sizeof(*hi));
	uint64_t n = 0;
	uint32_t r, S, i = 0;
	int rc = 0;

	if (!lo || !hi) {
		rc = cgs_error_set(err, CGS_E_NOMEM,
				   "out of memory for the ring search");
		goto out;
	}
	for (r = 0; r < s->n_ranks; r++) {
		rc = cgs_ring_range(s, opt, all, p->per_rank ? &need[r] : NULL,
				    &lo[r], &hi[r], err);
		if (rc)
			goto out;
		n += (uint64_t)hi[r] - lo[r] + 1;
	}
	if (n > UINT32_MAX / 2) {
		rc = cgs_error_at(err, CGS_E_LIMIT, s->path, 0, 0,
				  "the ring search would plan %llu rings",
				  (unsigned long long)n);
		goto out;
	}
	pool->work = calloc(n, sizeof(*pool->work));
	if (!pool->work) {
		rc = cgs_error_set(err, CGS_E_NOMEM,
				   "out of memory for the ring search");
		goto out;
	}
	pool->n_work = (uint32_t)n;
	for (r = 0; r < s->n_ranks; r++) {
		for (S = lo[r]; S <= hi[r]; S++) {
			struct trial_work *t = &pool->work[i++];

			t->rank_index = r;
			t->lowest_ring = lo[r];
			t->plan = (struct cgs_rank_plan){
				.rank = p->ranks[r].rank, .slots = S,
				.n_reachable = p->ranks[r].n_reachable,
				.reachable = p->ranks[r].reachable,
				.order_start = p->ranks[r].order_start,
				.order_entries = p->ranks[r].order_entries,
			};
			if (S == hi[r])
				break;   /* hi may be UINT32_MAX */
		}
	}
out:
	free(lo);
	free(hi);
	return rc;
}

/*
 * Keep the fewest bytes, ties by fewer graphs (the smaller ring): per
 * rank, or summed over the ranks when all share one ring.
 */
static void choose_trials(struct cgs_plan *p, struct trial_pool *pool,
			  uint32_t *chosen)
{
	uint32_t i, r, per, j, best = 0;
	uint64_t best_bytes = UINT64_MAX;

	if (p->per_rank) {
		for (r = 0; r < p->n_ranks; r++)
			chosen[r] = UINT32_MAX;
		for (i = 0; i < pool->n_work; i++) {
			const struct cgs_rank_plan *tp = &pool->work[i].plan;
			uint32_t *c = &chosen[pool->work[i].rank_index];

			if (*c == UINT32_MAX ||
			    tp->bytes < pool->work[*c].plan.bytes)
				*c = i;
		}
		return;
	}
	/* every rank lists the same rings: rank r's trial j is ring lo + j */
	per = pool->n_work / p->n_ranks;
	for (j = 0; j < per; j++) {
		uint64_t sum = 0;

		for (r = 0; r < p->n_ranks; r++)
			sum += pool->work[r * per + j].plan.bytes;
		if (sum < best_bytes) {
			best_bytes = sum;
			best = j;
		}
	}
	for (r = 0; r < p->n_ranks; r++)
		chosen[r] = r * per + best;
}

static uint64_t add_saturated(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * The choice among trials [i, j) of one rank (all, or those not pruned
 * when `live` is set): the fewest bytes, the first of equals.
 */
static uint32_t best_of_rank(const struct trial_pool *pool, uint32_t i,
			     uint32_t j, int live)
{
	uint32_t best = UINT32_MAX, r;

	for (r = i; r < j; r++)
		if ((!live || !pool->work[r].pruned) &&
		    (best == UINT32_MAX ||
		     pool->work[r].plan.bytes < pool->work[best].plan.bytes))
			best = r;
	return best;
}

/* The end of rank pool->work[i]'s trials. */
static uint32_t rank_end(const struct trial_pool *pool, uint32_t i)
{
	uint32_t j = i;

	while (j < pool->n_work &&
	       pool->work[j].rank_index == pool->work[i].rank_index)
		j++;
	return j;
}

/*
 * The ring every rank shares that the choice takes (all, or those not
 * pruned when `live` is set) and its bytes summed over the ranks.
 */
static uint32_t best_shared_ring(const struct cgs_plan *p,
				 const struct trial_pool *pool, int live,
				 uint64_t *best_sum)
{
	uint32_t per = pool->n_work / p->n_ranks, j, r, best = 0;

	*best_sum = UINT64_MAX;
	for (j = 0; j < per; j++) {
		uint64_t sum = 0;

		if (live && pool->work[j].pruned)
			continue;
		for (r = 0; r < p->n_ranks; r++)
			sum = add_saturated(sum,
					    pool->work[r * per + j].plan.bytes);
		if (sum < *best_sum) {
			*best_sum = sum;
			best = j;
		}
	}
	return best;
}

/* Trial j's bounds summed over the ranks (every rank shares its ring). */
static uint64_t shared_bound(const struct cgs_plan *p,
			     const struct trial_pool *pool, uint32_t j)
{
	uint32_t per = pool->n_work / p->n_ranks, r;
	uint64_t bound = 0;

	for (r = 0; r < p->n_ranks; r++)
		bound = add_saturated(bound, pool->work[r * per + j].bound);
	return bound;
}

/* A trial's bound keeps it from the choice b (trial best), ties to it. */
static int kept_out(uint64_t bound, uint32_t idx, uint64_t b, uint32_t best)
{
	return bound > b || (bound == b && idx > best);
}

/*
 * List in pool->todo the trials the search plans in full.  A trial is
 * kept out while its bound is above the choice, or equal to it and
 * later in list order (choose_trials' tie).
 *
 * After the first pass (second 0) the choice is the best first-fit plan.
 * The first-fit plans are valid, so the best full plan is at most that;
 * a trial kept out could only tie with it and lose the tie.  The trials
 * kept out are marked pruned; the rest are listed.
 *
 * After the second pass (second 1) the choice is the best full plan.
 * The first pass colours on a smaller budget, so a full plan may take
 * more bytes than its first-fit plan did, and the best full plan can
 * stand above the first-fit bytes a trial was pruned against: the pruned
 * trials no longer kept out are listed, and unmarked.
 *
 * Either way the choice is the one planning every ring in full would
 * make.  Returns how many are listed.
 */
static uint32_t select_trials(const struct cgs_plan *p,
			      struct trial_pool *pool, int second)
{
	uint32_t i, j, r, per, n = 0, best = 0, k;
	uint64_t b = 0, bound;
	int out;

	per = p->per_rank ? 0 : pool->n_work / p->n_ranks;
	if (!p->per_rank)
		best = best_shared_ring(p, pool, second, &b);
	for (i = 0; i < pool->n_work; i = j) {
		if (p->per_rank) {
			j = rank_end(pool, i);
			best = best_of_rank(pool, i, j, second);
			b = pool->work[best].plan.bytes;
		} else {
			j = pool->n_work;
		}
		for (r = i; r < j; r++) {
			struct trial_work *t = &pool->work[r];

			/* a shared ring's bound sums its trials over ranks */
			k = p->per_rank ? r : r % per;
			bound = p->per_rank ? t->bound : shared_bound(p, pool, k);
			out = kept_out(bound, k, b, best);
			if (!second) {
				t->pruned = out;
				if (!out)
					pool->todo[n++] = r;
			} else if (t->pruned && !out) {
				t->pruned = 0;
				pool->todo[n++] = r;
			}
		}
	}
	return n;
}

/*
 * Plan every trial.  A search (several rings a rank, not explored)
 * first plans each ring with first-fit alone and a colouring search of
 * CGS_FIRST_PASS_COLOUR_SHARE of the budget, then plans in full only the
 * rings that could still be chosen: the packing engine, the slot-map
 * search and the colouring searches are most of the time, and most
 * rings cannot win.
 */
static int run_trials(struct cgs_plan *p, struct trial_pool *pool,
		      struct cgs_error *err)
{
	uint32_t i, n;

	if (pool->map) {
		pool->placed = calloc(pool->p->n_ranks,
				      sizeof(*pool->placed));
		if (!pool->placed)
			return cgs_error_set(err, CGS_E_NOMEM,
					     "out of memory for slot maps");
		pool_run(pool, run_placed, pool->p->n_ranks, 0);
		for (i = 0; i < pool->p->n_ranks; i++)
			if (pool->placed[i].rc) {
				*err = pool->placed[i].err;
				return pool->placed[i].rc;
			}
	}
	pool->first_fit = *pool->opt;
	pool->first_fit.pack_budget = 0;
	if (pool->opt->colour_budget > CGS_FIRST_PASS_COLOUR_SHARE)
		pool->first_fit.colour_budget =
			pool->opt->colour_budget / CGS_FIRST_PASS_COLOUR_SHARE;
	pool->first_fit.colour_search_cells =
		pool->opt->first_pass_search_cells ?
			pool->opt->first_pass_search_cells :
			CGS_FIRST_PASS_SEARCH_CELLS;
	if (pool->opt->explore || pool->n_work <= p->n_ranks ||
	    (pool->opt->pack_budget == 0 && !pool->map)) {
		pool_run(pool, run_trial, pool->n_work, 1);
		return 0;
	}
	pool_run(pool, run_first_fit_trial, pool->n_work, 0);
	for (i = 0; i < pool->n_work; i++)
		if (pool->work[i].rc)
			return 0;   /* reported in list order by the caller */
	pool->todo = calloc(pool->n_work, sizeof(*pool->todo));
	if (!pool->todo)
		return cgs_error_set(err, CGS_E_NOMEM,
				     "out of memory for the ring search");
	n = select_trials(p, pool, 0);
	pool_run(pool, run_todo_trial, n, 1);
	n = select_trials(p, pool, 1);
	if (n)
		pool_run(pool, run_todo_trial, n, 0);
	free(pool->todo);
	pool->todo = NULL;
	return 0;
}

/* Record every trial and move the chosen ones into the plan. */
static int keep_trials(struct cgs_plan *p, struct trial_pool *pool,
		       struct cgs_error *err)
{
	uint32_t *chosen = calloc(p->n_ranks, sizeof(*chosen)), i, r;

	p->trials = calloc(pool->n_work, sizeof(*p->trials));
	if (!chosen || !p->trials) {
		free(chosen);
		return cgs_error_set(err, CGS_E_NOMEM,
				     "out of memory for the ring search");
	}
	choose_trials(p, pool, chosen);
	p->n_trials = pool->n_work;
	for (i = 0; i < pool->n_work; i++) {
		const struct cgs_rank_plan *tp = &pool->work[i].plan;

		p->trials[i] = (struct cgs_ring_trial){
			.rank = tp->rank, .slots = tp->slots,
			.graphs = tp->n_graphs, .bytes = tp->bytes,
			.bytes_colour_arenas = tp->bytes_colour_arenas,
			.lower_bound_bytes = tp->lower_bound_bytes,
			.floor_bytes = pool->work[i].floor,
			.slot_map = pool->work[i].pruned ? pool->work[i].mapped
							 : tp->slot_map != NULL,
		};
	}
	p->slots = 0;
	for (r = 0; r < p->n_ranks; r++) {
		struct cgs_rank_plan *rp = &p->ranks[r];

		/* pruned trials lost their frames: never one of these */
		assert(!pool->work[chosen[r]].pruned);
		p->trials[chosen[r]].chosen = 1;
		/* the rank keeps its orders; the trial only borrowed them */
		*rp = pool->work[chosen[r]].plan;
		memset(&pool->work[chosen[r]].plan, 0,
		       sizeof(pool->work[chosen[r]].plan));
		if (rp->slots > p->slots)
			p->slots = rp->slots;
	}
	free(chosen);
	return 0;
}

static void trials_release(struct trial_pool *pool)
{
	uint32_t i;

	for (i = 0; pool->placed && i < pool->p->n_ranks; i++) {
		free(pool->placed[i].map);
		free(pool->placed[i].slot_offset);
		free(pool->placed[i].cls.map);
		free(pool->placed[i].cls.slot_offset);
		free(pool->placed[i].blk.map);
		free(pool->placed[i].blk.slot_offset);
		free(pool->placed[i].split.map);
		free(pool->placed[i].split.frame_offset);
	}
	free(pool->placed);
	pool->placed = NULL;
	for (i = 0; i < pool->n_work; i++)
		rank_outputs_release(&pool->work[i].plan);
	free(pool->work);
	pool->work = NULL;
	pool->n_work = 0;
}

int cgs_plan_create(const struct cgs_schedule *s,
		    const struct cgs_plan_options *opt, struct cgs_plan **out,
		    struct cgs_error *err)
{
	struct cgs_plan_options defaults;
	struct cgs_ring_need all = {0}, *need = NULL;
	struct trial_pool pool = {0};
	struct cgs_plan *p;
	uint32_t c, i;
	uint64_t align;
	int rc = 0, have_lock = 0;

	if (out)
		*out = NULL;
	if (!s || !out || s->vpp == 0 || s->n_variants == 0 || s->n_ranks == 0)
		return cgs_error_set(err, CGS_E_ARG,
				     "plan needs a validated schedule");
	if (!opt) {
		cgs_plan_options_init(&defaults);
		opt = &defaults;
	}
	align = s->alignment ? s->alignment : 1;
	if (align & (align - 1))
		return cgs_error_set(err, CGS_E_ARG,
				     "alignment %llu is not a power of two",
				     (unsigned long long)align);
	p = calloc(1, sizeof(*p));
	if (!p)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory for the plan");
	p->schedule = s;
	p->per_rank = opt->per_rank || s->slots_per_rank;
	p->layer_base = calloc((size_t)s->vpp + 1, sizeof(*p->layer_base));
	p->ranks = calloc(s->n_ranks, sizeof(*p->ranks));
	need = calloc(s->n_ranks, sizeof(*need));
	if (!p->layer_base || !p->ranks || !need) {
		rc = cgs_error_set(err, CGS_E_NOMEM,
				   "out of memory for the plan of %u ranks",
				   s->n_ranks);
		goto fail;
	}
	for (c = 0; c < s->vpp; c++)
		p->layer_base[c + 1] = p->layer_base[c] + s->layers[c];
	p->n_ranks = s->n_ranks;
	pool.s = s;
	pool.opt = opt;
	pool.p = p;
	pool.align = align;
	pool.map = opt->slot_maps || s->slots_map;
	if (pthread_mutex_init(&pool.lock, NULL)) {
		rc = cgs_error_set(err, CGS_E_NOMEM,
				   "cannot create the planner's lock");
		goto fail;
	}
	have_lock = 1;
	rc = load_orders(&pool, need, &all, err);
	if (rc == 0)
		rc = cgs_ring_choose(s, &all, &p->smallest_slots, err);
	if (rc == 0)
		rc = list_trials(s, opt, p, need, &all, &pool, err);
	if (rc)
		goto fail;
	rc = run_trials(p, &pool, err);
	if (rc)
		goto fail;
	pthread_mutex_destroy(&pool.lock);
	have_lock = 0;
	/* the first failed trial in list order: the same for any threads */
	for (i = 0; i < pool.n_work; i++) {
		if (pool.work[i].rc) {
			rc = pool.work[i].rc;
			if (err && err->code == 0)
				*err = pool.work[i].err;
			goto fail;
		}
	}
	rc = keep_trials(p, &pool, err);
	if (rc)
		goto fail;
	trials_release(&pool);
	free(pool.orders);
	free(need);
	*out = p;
	return 0;
fail:
	if (have_lock)
		pthread_mutex_destroy(&pool.lock);
	trials_release(&pool);
	free(pool.orders);
	free(need);
	cgs_plan_destroy(&p);
	return rc;
}

void cgs_rank_plan_release(struct cgs_rank_plan *rp)
{
	if (!rp)
		return;
	free(rp->reachable);
	free(rp->order_start);
	free(rp->order_entries);
	rank_outputs_release(rp);
	memset(rp, 0, sizeof(*rp));
}

void cgs_plan_destroy(struct cgs_plan **pp)
{
	struct cgs_plan *p;
	uint32_t r;

	if (!pp || !*pp)
		return;
	p = *pp;
	for (r = 0; r < p->n_ranks; r++)
		cgs_rank_plan_release(&p->ranks[r]);
	free(p->ranks);
	free(p->layer_base);
	free(p->trials);
	free(p);
	*pp = NULL;
}
