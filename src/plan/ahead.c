/*
 * The look-ahead map: slots standing for colours, as the colours map
 * (slotmap.c), chosen with an eye on the chunks that will fill their
 * ring while the microbatch is live.
 *
 * The colours map gives each forward the lowest free colour among its
 * chunk's slots.  Where a chunk has as many microbatches in flight as
 * the ring holds (S), it needs every colour its slots stand for at that
 * instant, and a microbatch of another chunk live then must hold a
 * colour outside that chunk's set.  Taking the lowest free colour, the
 * colours map lets such a microbatch sit on one of those colours, and
 * later the full chunk finds none of its slots free: on the bench's
 * q10 rank 3 (P 8, M 2, L 32, S 16, 17 microbatches in flight at the
 * peak) every map so far planned k mod S, 24 colours.  Here a forward
 * of chunk c whose microbatch will be live while another chunk d has
 * at least S - t microbatches in flight avoids the colours d's slots
 * stand for, as long as c has a slot (or an unused slot) of another
 * free colour; q10 rank 3 then needs 19 colours.  t runs from 0 to
 * CGS_AHEAD_MAX_SLACK (some ranks need the chunks kept apart before
 * they fill the ring) and the map with the fewest colours is kept.
 *
 * That first rule looks at the other chunk's load alone.  Where chunk d
 * climbs towards a full ring while microbatches of other chunks still
 * hold colours of its slots, d runs short before it is full: on the
 * bench's q35 rank 5 (P 12, M 2, a ring of 24, 25 in flight) the first
 * rule plans 36 colours, as k mod S does.  The second rule counts them:
 * a forward avoids d's colours where, at some event of its life, d's
 * load plus the live microbatches of other chunks that hold d's colours
 * and are still live then, plus this one, plus t, exceeds the ring
 * (q35 rank 5: 32 colours, 1.283 x the bound from 1.438).  Each rule
 * gives its map with the fewest colours; the planner plans the second's
 * only where it takes fewer colours than the first's.
 *
 * Neither rule looks at the gradient frames, which meet when their
 * backwards are next to each other: where the plan so far needs more
 * than two gradient colours, both rules run again with each slot keeping
 * the parity of its first microbatch's backward position in the longest
 * order, as the parity map's slots do (slotmap.c): a forward prefers,
 * after the avoidance, a slot of its own parity (or none yet).
 *
 * The teams rule looks at the loads alone, and applies also where the
 * ring holds every microbatch in flight.  Chunks whose loads rise and
 * fall in turn (on the last ranks of a deep pipeline one chunk fills as
 * another drains) can share colours; chunks that peak together cannot.
 * Split the chunks into teams, each with a pool of colours of its own,
 * as many as the team's joint peak: the most microbatches its chunks
 * have in flight together.  Where that peak is within the ring, no chunk
 * of the team can need more colours than it has slots, and a forward
 * taking any free colour of its pool (lowest first) colours the team's
 * microbatches with the pool alone; the split with the least sum of
 * pools (dynamic programming over subsets of the chunks) is then a map
 * with that many colours.  On the bench's q37 rank 4 (P 16, M 4, a ring
 * of 16, 35 in flight): chunks 1 and 3 share 16 colours, chunk 0 keeps
 * 12 and chunk 2 keeps 8, 36 colours where every map so far took 40
 * (1.028 x the bound from 1.142).  A forward whose only free colour is
 * its chunk's slot just freed, barred by the gradient frame still being
 * sent, takes a twin slot of that colour; where none is left, or where a
 * team past the ring leaves a chunk without a slot (the split may allow
 * teams up to CGS_AHEAD_MAX_SLACK past it), its pool widens by one and
 * the replay starts again.  Within a team, a forward first avoids the
 * colours of chunks that fill their ring while it is live, as in the
 * first rule.
 *
 * The replay runs on the longest order alone: where every order's
 * forwards are a prefix of the longest order's (the schedule formulas
 * give this, and the map checks it), a shorter order runs the same
 * events up to its last forward and then only frees, so its microbatch
 * k takes the slot the longest order's microbatch k took.  Two
 * microbatches live together in a shorter order are live together in
 * the longest one, and two backwards of one chunk next to each other
 * in its drain are both live at its last forward, so the rows stay
 * safe.  A forward that finds no slot of a free colour ends the try:
 * the map must be an interval colouring of the longest order.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/stage.h"

/* The largest t tried: chunks within t microbatches of a full ring. */
#define CGS_AHEAD_MAX_SLACK 8u
/* The most entries of the holders rule's range-maximum tables (4 bytes). */
#define CGS_AHEAD_MAX_TOP (1ull << 23)
/* The teams rule's subsets: at most 2^12, and 2^26 sums over events. */
#define CGS_TEAMS_MAX_CHUNKS 12u
#define CGS_TEAMS_MAX_WORK (1ull << 26)
/* The most colours a split's pools widen by for barred or short slots. */
#define CGS_TEAMS_MAX_WIDEN 16u

struct ahead {
	const struct cgs_rank_plan *rp;
	uint32_t S, M, C, L;     /* ring, chunks, colour pool, longest order */
	uint64_t width, n;       /* microbatches per row, events of order L */
	/* load[d * (n + 1) + i]: chunk d's microbatches after event i - 1 */
	uint32_t *load;
	uint32_t *full;          /* prefix counts of events d nearly full */
	uint64_t *until;         /* until[c * width + k]: (c, k)'s backward */
	uint32_t *colour_of, *holder, *held, *in_flight, *fw, *bw, *row;
	uint8_t *in_set;         /* in_set[d * C + g]: a d slot stands for g */
	uint32_t *near;          /* chunks nearly full while a forward's live */
	/* the holders rule: range maxima of load, and the live ends */
	int rule;
	uint32_t t, levels;
	uint32_t *top;           /* [(l * M + d) * (n + 1) + i]: max of 2^l */
	uint64_t *ends;
	/* the live microbatches by their backwards: chunk, colour, event */
	uint32_t n_live, *live_c, *live_g;
	uint64_t *live_end;
	uint32_t *holders;       /* [d]: of them, on colours of d's slots */
	/* gradient parities: per slot (2 unset), wanted per microbatch */
	uint8_t *parity, *want;
	/* the teams rule: each chunk's team, each team's colour pool */
	uint32_t *team_of, *pool_lo, *pool_n, n_teams, short_c;
	uint32_t *peak, *split;  /* [subset]: joint peak; [team]: subset */
	/* [(p * M + c) * C + g]: c's first slot of colour g and parity p */
	uint32_t *slot_of;
	uint32_t *owners;        /* [g]: chunks with a slot of colour g */
	uint32_t *n_slots;       /* [c]: slots given a colour, the lowest */
	uint32_t *distinct;      /* [c]: colours c's slots stand for */
	int alone;               /* colours no other chunk has a slot of first */
	uint64_t *free_bits;     /* colours no live microbatch holds */
};

static void ahead_release(struct ahead *a)
{
	free(a->load);
	free(a->full);
	free(a->until);
	free(a->colour_of);
	free(a->holder);
	free(a->held);
	free(a->in_flight);
	free(a->fw);
	free(a->bw);
	free(a->row);
	free(a->in_set);
	free(a->near);
	free(a->top);
	free(a->ends);
	free(a->live_c);
	free(a->live_g);
	free(a->live_end);
	free(a->holders);
	free(a->parity);
	free(a->want);
	free(a->team_of);
	free(a->peak);
	free(a->split);
	free(a->pool_lo);
	free(a->pool_n);
	free(a->free_bits);
	free(a->slot_of);
	free(a->owners);
	free(a->n_slots);
	free(a->distinct);
}

/* Each chunk's microbatches in flight after every event of order L. */
static void scan_longest(struct ahead *a)
{
	const struct cgs_rank_plan *rp = a->rp;
	uint64_t i, base = rp->order_start[a->L], n_bw = 0;
	uint32_t c, d;

	memset(a->in_flight, 0, a->M * sizeof(*a->in_flight));
	memset(a->fw, 0, a->M * sizeof(*a->fw));
	memset(a->bw, 0, a->M * sizeof(*a->bw));
	for (d = 0; d < a->M; d++)
		a->load[d * (a->n + 1)] = 0;
	for (i = 0; i < a->n; i++) {
		int32_t id = rp->order_entries[base + i];

		c = (uint32_t)(id < 0 ? -(int64_t)id : id) - 1;
		if (id > 0) {
			a->fw[c]++;
			a->in_flight[c]++;
		} else {
			if (a->want)
				a->want[c * a->width + a->bw[c]] = n_bw & 1;
			n_bw++;
			a->until[c * a->width + a->bw[c]++] = i;
			a->in_flight[c]--;
		}
		for (d = 0; d < a->M; d++)
			a->load[d * (a->n + 1) + i + 1] = a->in_flight[d];
	}
}

/* The sparse table of each chunk's load: top level l holds maxima of 2^l. */
static void build_top(struct ahead *a)
{
	uint64_t w = a->n + 1, i;
	uint32_t l, d;

	memcpy(a->top, a->load, a->M * w * sizeof(*a->top));
	for (l = 1; l < a->levels; l++)
		for (d = 0; d < a->M; d++) {
			const uint32_t *lo =
				a->top + ((uint64_t)(l - 1) * a->M + d) * w;
			uint32_t *hi = a->top + ((uint64_t)l * a->M + d) * w;
			uint64_t half = 1ull << (l - 1);

			for (i = 0; i + 2 * half <= w; i++)
				hi[i] = lo[i] > lo[i + half] ? lo[i] :
							       lo[i + half];
		}
}

/* The most microbatches chunk d has in flight after events lo..hi. */
static uint32_t load_max(const struct ahead *a, uint32_t d, uint64_t lo,
			 uint64_t hi)
{
	uint64_t w = a->n + 1, len = hi - lo + 1;
	uint32_t l = 0, x, y;

	while ((2ull << l) <= len)
		l++;
	x = a->top[((uint64_t)l * a->M + d) * w + lo + 1];
	y = a->top[((uint64_t)l * a->M + d) * w + hi + 2 - (1ull << l)];
	return x > y ? x : y;
}

/*
 * The holders rule: would a colour of chunk d's slots, taken by a
 * microbatch live over events i..end, leave d short?  At each event,
 * d's load, plus the live microbatches of other chunks that hold colours
 * of d's slots and are still live, plus this one, plus the slack t,
 * must stay within the ring.
 */
static int d_short(struct ahead *a, uint32_t d, uint64_t i, uint64_t end)
{
	uint32_t S = a->S, n_ends = 0, j;
	uint64_t prev = i;

	/* short nowhere even if every holder stayed to the end */
	if (load_max(a, d, i, end) + a->holders[d] + 1 + a->t <= S)
		return 0;
	for (j = 0; j < a->n_live; j++)
		if (a->live_c[j] != d && a->in_set[d * a->C + a->live_g[j]])
			a->ends[n_ends++] = a->live_end[j];
	for (j = 0; j <= n_ends && prev <= end; j++) {
		uint64_t x = j < n_ends && a->ends[j] < end ? a->ends[j] : end;

		if (x >= prev && load_max(a, d, prev, x) + (n_ends - j) + 1 +
				 a->t > S)
			return 1;
		prev = x + 1;
	}
	return 0;
}

/* Enter a live microbatch of chunk c, colour g, backward at `end`. */
static void live_add(struct ahead *a, uint32_t c, uint32_t g, uint64_t end)
{
	uint32_t lo = 0, hi = a->n_live, n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (a->live_end[mid] < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	n = a->n_live - lo;
	memmove(a->live_c + lo + 1, a->live_c + lo, n * sizeof(*a->live_c));
	memmove(a->live_g + lo + 1, a->live_g + lo, n * sizeof(*a->live_g));
	memmove(a->live_end + lo + 1, a->live_end + lo,
		n * sizeof(*a->live_end));
	a->live_c[lo] = c;
	a->live_g[lo] = g;
	a->live_end[lo] = end;
	a->n_live++;
	for (n = 0; n < a->M; n++)
		a->holders[n] += n != c && a->in_set[n * a->C + g];
}

/* A backward ends the live microbatch whose backward comes first. */
static void live_drop(struct ahead *a)
{
	uint32_t d;

	for (d = 0; d < a->M; d++)
		a->holders[d] -= d != a->live_c[0] &&
				 a->in_set[d * a->C + a->live_g[0]];
	a->n_live--;
	memmove(a->live_c, a->live_c + 1, a->n_live * sizeof(*a->live_c));
	memmove(a->live_g, a->live_g + 1, a->n_live * sizeof(*a->live_g));
	memmove(a->live_end, a->live_end + 1,
		a->n_live * sizeof(*a->live_end));
}

/*
 * The slot of chunk c for the forward at event i, k its microbatch:
 * among the safe slots, one whose colour is free and avoided by no
 * chunk nearly full while (c, k) is live, the lowest colour first; else
 * an unused slot given the lowest such colour; then the same without
 * the avoidance.  With parities, four passes: the avoidance and a slot
 * of the microbatch's parity (or none yet), the avoidance alone, the
 * parity alone, neither.  S when no slot of a free colour is left.
 */
static uint32_t pick_slot(struct ahead *a, uint64_t i, uint32_t c,
			  uint32_t k, uint32_t barred)
{
	uint32_t S = a->S, n_near = 0, d, s, g, tier;
	uint64_t end = a->until[c * a->width + k];

	for (d = 0; d < a->M; d++)
		if (d != c && (a->rule == CGS_AHEAD_HOLDERS ?
			       d_short(a, d, i, end) :
			       a->full[d * (a->n + 1) + end + 1] >
			       a->full[d * (a->n + 1) + i]))
			a->near[n_near++] = d;
	for (tier = a->want ? 0 : 1; tier < 4; tier += a->want ? 1 : 2) {
		uint32_t best = S, best_g = 0, fresh = S, j;
		int avoid = tier < 2, by_parity = !(tier & 1);
		unsigned want = a->want ? a->want[c * a->width + k] : 2;

		for (s = 0; s < S; s++) {
			if (a->holder[c * S + s] != CGS_PLAN_NEVER ||
			    s == barred)
				continue;
			g = a->colour_of[c * S + s];
			if (g == CGS_PLAN_NEVER) {
				if (fresh == S)
					fresh = s;
				continue;
			}
			if (a->held[g] || (best < S && g >= best_g))
				continue;
			if (by_parity && a->parity[c * S + s] != 2 &&
			    a->parity[c * S + s] != want)
				continue;
			for (j = 0; avoid && j < n_near; j++)
				if (a->in_set[a->near[j] * a->C + g])
					break;
			if (avoid && j < n_near)
				continue;
			best = s;
			best_g = g;
		}
		if (best < S)
			return best;
		if (fresh == S)
			continue;
		for (g = 0; g < a->C; g++) {
			if (a->held[g])
				continue;
			for (j = 0; avoid && j < n_near; j++)
				if (a->in_set[a->near[j] * a->C + g])
					break;
			if (!avoid || j == n_near)
				break;
		}
		if (g < a->C) {
			a->colour_of[c * S + fresh] = g;
			a->in_set[c * a->C + g] = 1;
			return fresh;
		}
	}
	return S;
}

/*
 * The teams rule's joint peaks: for every subset of the chunks (at most
 * CGS_TEAMS_MAX_CHUNKS, checked by the caller), the most microbatches
 * its chunks have in flight together after a forward of the longest
 * order.  Nonzero when out of memory.
 */
static int joint_peaks(struct ahead *a)
{
	const int32_t *entries = a->rp->order_entries + a->rp->order_start[a->L];
	uint32_t n_masks = 1u << a->M, mask, c, *sum;
	uint64_t i;

	a->peak = calloc(n_masks, sizeof(*a->peak));
	sum = calloc(n_masks, sizeof(*sum));
	if (!a->peak || !sum) {
		free(sum);
		return 1;
	}
	for (i = 0; i < a->n; i++) {
		if (entries[i] < 0)
			continue;
		for (mask = 1; mask < n_masks; mask++) {
			c = (uint32_t)__builtin_ctz(mask);
			sum[mask] = sum[mask & (mask - 1)] +
				    a->load[c * (a->n + 1) + i + 1];
			if (sum[mask] > a->peak[mask])
				a->peak[mask] = sum[mask];
		}
	}
	free(sum);
	return 0;
}

/*
 * The teams rule's split: chunks whose loads rise and fall in turn share
 * a pool of colours as large as their joint peak.  A team whose joint
 * peak is within the ring cannot make a chunk of it need more colours
 * than it has slots, so any interval colouring of its microbatches from
 * the pool is a map; a chunk alone is such a team.  Teams up to `over`
 * past the ring are allowed too (a chunk of them may run out of slots,
 * which the replay finds).  The split with the least sum of joint peaks,
 * by dynamic programming over subsets; 0 where it is the split of a
 * smaller `over` (a->split holds the last split's subsets), -1 where out
 * of memory.
 */
static int split_teams(struct ahead *a, uint32_t over)
{
	uint32_t n_masks = 1u << a->M, mask, sub, low, g, c, lo = 0, n = 0;
	uint32_t *best = calloc(n_masks, sizeof(*best));
	uint32_t *pick = calloc(n_masks, sizeof(*pick));
	int changed = 0;

	if (!best || !pick) {
		free(best);
		free(pick);
		return -1;
	}
	for (mask = 1; mask < n_masks; mask++) {
		low = mask & (~mask + 1);
		best[mask] = UINT32_MAX;
		/* every team holding mask's lowest chunk, largest first */
		for (sub = mask ^ low;; sub = (sub - 1) & (mask ^ low)) {
			g = sub | low;
			if ((a->peak[g] <= a->S + over || g == low) &&
			    a->peak[g] + best[mask ^ g] < best[mask]) {
				best[mask] = a->peak[g] + best[mask ^ g];
				pick[mask] = g;
			}
			if (!sub)
				break;
		}
	}
	for (mask = n_masks - 1; mask; mask ^= pick[mask], n++) {
		g = pick[mask];
		changed |= n >= a->n_teams || a->split[n] != g;
		a->split[n] = g;
		for (c = 0; c < a->M; c++)
			if (g >> c & 1)
				a->team_of[c] = n;
		a->pool_lo[n] = lo;
		a->pool_n[n] = a->peak[g];
		lo += a->peak[g];
	}
	changed |= n != a->n_teams;
	a->n_teams = n;
	free(best);
	free(pick);
	return changed && lo <= a->C;
}

/* Widen the pool of chunk short_c's team by one colour; 0 if none left. */
static int widen_team(struct ahead *a)
{
	uint32_t j, lo = 0;

	a->pool_n[a->team_of[a->short_c]]++;
	for (j = 0; j < a->n_teams; j++) {
		a->pool_lo[j] = lo;
		lo += a->pool_n[j];
	}
	return lo <= a->C;
}

/* The lowest colour in lo..hi - 1 no live microbatch holds; hi if none. */
static uint32_t next_free(const struct ahead *a, uint32_t lo, uint32_t hi)
{
	uint32_t w;

	for (w = lo / 64; (uint64_t)w * 64 < hi; w++) {
		uint64_t bits = a->free_bits[w];

		if (w == lo / 64)
			bits &= ~0ull << (lo % 64);
		if (bits) {
			uint32_t g = w * 64 + (uint32_t)__builtin_ctzll(bits);

			return g < hi ? g : hi;
		}
	}
	return hi;
}

/* Does one of the n_near chunks in a->near have a slot of colour g? */
static int near_holds(const struct ahead *a, uint32_t n_near, uint32_t g)
{
	uint32_t j;

	for (j = 0; j < n_near; j++)
		if (a->in_set[(uint64_t)a->near[j] * a->C + g])
			return 1;
	return 0;
}

/* Give chunk c's next unused slot colour g and gradient parity p. */
static uint32_t new_slot(struct ahead *a, uint32_t c, uint32_t g, unsigned p)
{
	uint32_t s = a->n_slots[c]++;
	uint32_t *of = &a->slot_of[((uint64_t)p * a->M + c) * a->C + g];

	a->colour_of[c * a->S + s] = g;
	if (*of == CGS_PLAN_NEVER)
		*of = s;
	if (!a->in_set[(uint64_t)c * a->C + g]) {
		a->in_set[(uint64_t)c * a->C + g] = 1;
		a->owners[g]++;
		a->distinct[c]++;
	}
	if (a->parity)
		a->parity[c * a->S + s] = (uint8_t)p;
	return s;
}

/*
 * The teams rule's slot for a forward of chunk c at event i, k its
 * microbatch: a free colour of its team's pool, the lowest first, on a
 * slot of c that stands for it, else on an unused slot; never the barred
 * slot (another slot of the same colour instead).  Tiers, each before
 * the next: where a team runs past the ring, a chunk that fills its
 * ring needs every colour its slots stand for, so first a colour no
 * other chunk full while (c, k) is live has a slot of; with a->alone,
 * first a colour no other chunk has a slot of; with parities, first a
 * slot of the microbatch's gradient parity (a second slot of the colour
 * for it while c has slots to spare beyond one per colour of its pool).
 * S when none (short_c set).
 */
static uint32_t pick_team_slot(struct ahead *a, uint64_t i, uint32_t c,
				uint32_t k, uint32_t barred)
{
	uint32_t S = a->S, tm = a->team_of[c], lo = a->pool_lo[tm];
	uint32_t hi = lo + a->pool_n[tm], n_near = 0, s, g, d, tier, pass;
	uint64_t end = a->until[c * a->width + k], row = (uint64_t)c * a->C;
	unsigned want = a->want ? a->want[c * a->width + k] : 0;
	int fresh = a->n_slots[c] < S;
	int spare = a->n_slots[c] + a->pool_n[tm] < S + a->distinct[c];
	uint32_t *mine = a->slot_of + ((uint64_t)want * a->M + c) * a->C;
	uint32_t *other = a->slot_of + ((uint64_t)!want * a->M + c) * a->C;

	for (d = 0; d < a->M; d++)
		if (d != c && a->team_of[d] == tm &&
		    a->full[d * (a->n + 1) + end + 1] >
			    a->full[d * (a->n + 1) + i])
			a->near[n_near++] = d;
	for (tier = 0; tier < 8; tier++) {
		int avoid = !(tier & 4), alone = !(tier & 2),
		    strict = !(tier & 1);

		if ((avoid && !n_near) || (alone && !a->alone) ||
		    (strict && !a->want))
			continue;
		/* a colour c has a slot for, then a new one (or a twin) */
		for (pass = 0; pass < 2; pass++)
			for (g = next_free(a, lo, hi); g < hi;
			     g = next_free(a, g + 1, hi)) {
				int own = a->in_set[row + g];

				if ((alone && a->owners[g] > (uint32_t)own) ||
				    (avoid && near_holds(a, n_near, g)))
					continue;
				if (pass == 0 && own && mine[g] != CGS_PLAN_NEVER &&
				    mine[g] != barred)
					return mine[g];
				if (pass == 0 && own && !strict && a->want &&
				    other[g] != CGS_PLAN_NEVER &&
				    other[g] != barred)
					return other[g];
				if (pass == 1 && fresh &&
				    (!own || (strict && spare)))
					return new_slot(a, c, g, want);
			}
	}
	/*
	 * only the barred slot's colour is free: take it on a twin slot,
	 * whose saved frames meet the barred slot's nowhere and whose
	 * gradient frame is apart
	 */
	g = barred < S ? a->colour_of[c * S + barred] : CGS_PLAN_NEVER;
	if (g != CGS_PLAN_NEVER && g >= lo && g < hi && !a->held[g]) {
		for (s = 0; s < S; s++)
			if (s != barred && a->colour_of[c * S + s] == g)
				return s;
		if (fresh)
			return new_slot(a, c, g, want);
	}
	a->short_c = c;
	return S;
}

/*
 * Replay order L with slack t into a->row (row[c * width + k]); the
 * colours it used, or 0 where some forward found no slot of a free
 * colour.
 */
static uint32_t replay(struct ahead *a, uint32_t t)
{
	const struct cgs_rank_plan *rp = a->rp;
	uint64_t i, base = rp->order_start[a->L];
	uint32_t S = a->S, c, d, k, s, g, colours = 0;
	uint32_t pending_c = CGS_PLAN_NEVER, pending_s = 0;

	a->t = t;
	/* the first rule: prefix counts of the events d is nearly full */
	for (d = 0; a->rule != CGS_AHEAD_HOLDERS && d < a->M; d++) {
		uint32_t *load = a->load + d * (a->n + 1);
		uint32_t *full = a->full + d * (a->n + 1);

		full[0] = 0;
		for (i = 0; i < a->n; i++)
			full[i + 1] = full[i] + (load[i + 1] + t >= S);
	}
	for (s = 0; s < S * a->M; s++) {
		a->colour_of[s] = CGS_PLAN_NEVER;
		a->holder[s] = CGS_PLAN_NEVER;
	}
	memset(a->held, 0, a->C * sizeof(*a->held));
	memset(a->in_set, 0, (uint64_t)a->M * a->C);
	if (a->free_bits) {
		uint64_t j;

		memset(a->free_bits, 0xff, ((a->C + 63) / 64) * 8ull);
		memset(a->owners, 0, a->C * sizeof(*a->owners));
		for (j = 0; j < 2ull * a->M * a->C; j++)
			a->slot_of[j] = CGS_PLAN_NEVER;
		memset(a->n_slots, 0, a->M * sizeof(*a->n_slots));
		memset(a->distinct, 0, a->M * sizeof(*a->distinct));
	}
	memset(a->in_flight, 0, a->M * sizeof(*a->in_flight));
	memset(a->fw, 0, a->M * sizeof(*a->fw));
	memset(a->bw, 0, a->M * sizeof(*a->bw));
	a->n_live = 0;
	if (a->parity)
		memset(a->parity, 2, (uint64_t)a->M * S);
	if (a->holders)
		memset(a->holders, 0, a->M * sizeof(*a->holders));
	for (i = 0; i < a->n; i++) {
		int32_t id = rp->order_entries[base + i];
		uint32_t barred = S;

		c = (uint32_t)(id < 0 ? -(int64_t)id : id) - 1;
		if (id < 0) {
			k = a->bw[c]++;
			s = a->row[c * a->width + k];
			a->holder[c * S + s] = CGS_PLAN_NEVER;
			g = a->colour_of[c * S + s];
			if (!--a->held[g] && a->free_bits)
				a->free_bits[g / 64] |= 1ull << (g % 64);
			if (a->rule == CGS_AHEAD_HOLDERS)
				live_drop(a);
			a->in_flight[c]--;
			pending_c = c;
			pending_s = s;
			continue;
		}
		k = a->fw[c]++;
		/* the gradient frame of c's last backward is still sent */
		if (pending_c == c && a->in_flight[c] == 0 &&
		    cgs_next_backward_is(rp, a->L, base + i + 1, c))
			barred = pending_s;
		s = a->rule == CGS_AHEAD_TEAMS ?
			    pick_team_slot(a, i, c, k, barred) :
			    pick_slot(a, i, c, k, barred);
		if (s == S)
			return 0;
		a->row[c * a->width + k] = s;
		a->holder[c * S + s] = k;
		if (a->parity && a->parity[c * S + s] == 2)
			a->parity[c * S + s] = a->want[c * a->width + k];
		g = a->colour_of[c * S + s];
		a->held[g]++;
		if (a->free_bits)
			a->free_bits[g / 64] &= ~(1ull << (g % 64));
		if (a->rule == CGS_AHEAD_HOLDERS)
			live_add(a, c, g, a->until[c * a->width + k]);
		a->in_flight[c]++;
		if (g + 1 > colours)
			colours = g + 1;
	}
	return colours;
}

/*
 * The teams rule: splits that let teams go further past the ring, 0 to
 * CGS_AHEAD_MAX_SLACK, each replayed with and without taking first the
 * colours no other chunk has a slot of (neither wins everywhere), the
 * pool of a chunk that found no slot widened by one (up to
 * CGS_TEAMS_MAX_WIDEN times) until every forward finds one, while the
 * pools take fewer colours than the best so far; the fewest colours and
 * their rows in best.  Nonzero when out of memory.
 */
static int teams_search(struct ahead *a, uint32_t *best,
			 uint32_t *best_colours)
{
	uint32_t over, j, sum, widened;
	int rc;

	if (joint_peaks(a))
		return 1;
	for (over = 0; over <= CGS_AHEAD_MAX_SLACK; over++) {
		rc = split_teams(a, over);
		if (rc < 0)
			return 1;
		if (!rc)
			continue;
		for (a->alone = 0; a->alone < 2; a->alone++) {
			for (sum = 0, j = 0; j < a->n_teams; j++) {
				a->pool_n[j] = a->peak[a->split[j]];
				a->pool_lo[j] = sum;
				sum += a->pool_n[j];
			}
			/* widen until the pools reach the fewest colours yet */
			for (widened = 0; widened <= CGS_TEAMS_MAX_WIDEN &&
					  (!*best_colours || sum < *best_colours);
			     widened++) {
				uint32_t got = replay(a, 0);

				if (got && (!*best_colours ||
					    got < *best_colours)) {
					*best_colours = got;
					memcpy(best, a->row,
					       a->M * a->width * sizeof(*best));
				}
				if (got || !widen_team(a))
					break;
				sum++;
			}
		}
	}
	return 0;
}

int cgs_slot_map_ahead(const struct cgs_rank_work *x, int rule,
		       uint32_t **map, uint32_t *rows, uint32_t *used,
		       uint32_t *colours, struct cgs_error *err)
{
	const struct cgs_rank_plan *rp = x->rp;
	struct ahead a = {.rp = rp, .S = x->slots, .M = x->chunks,
			  .rule = rule & ~CGS_AHEAD_PARITY};
	uint32_t *best = NULL, best_colours = 0, t;
	uint64_t cells;
	int rc = 0;

	*map = NULL;
	*rows = 0;
	*used = 0;
	*colours = 0;
	a.L = rp->n_reachable - 1;
	a.width = rp->reachable[a.L];
	a.n = rp->order_start[a.L + 1] - rp->order_start[a.L];
	a.C = a.S * a.M;
	cells = (uint64_t)rp->n_reachable * a.M * a.width;
	if (cells > CGS_SLOT_MAP_MAX_CELLS ||
	    (a.rule != CGS_AHEAD_TEAMS && cgs_slot_map_peak(rp) <= a.S) ||
	    (a.rule == CGS_AHEAD_TEAMS &&
	     (a.M > CGS_TEAMS_MAX_CHUNKS ||
	      (1ull << a.M) * a.n > CGS_TEAMS_MAX_WORK)) ||
	    !cgs_orders_nested(rp))
		return 0;
	if (rule & CGS_AHEAD_PARITY) {
		a.want = malloc((uint64_t)a.M * a.width + 1);
		a.parity = malloc((uint64_t)a.M * a.S + 1);
		if (!a.want || !a.parity) {
			rc = cgs_plan_fail(err, CGS_E_NOMEM, rp->rank,
					   "searching slot maps");
			goto out;
		}
	}
	if (a.rule == CGS_AHEAD_HOLDERS) {
		for (a.levels = 1; (2ull << (a.levels - 1)) <= a.n + 1;)
			a.levels++;
		if ((uint64_t)a.levels * a.M * (a.n + 1) > CGS_AHEAD_MAX_TOP)
			return 0;
		a.top = malloc((uint64_t)a.levels * a.M * (a.n + 1) *
			       sizeof(*a.top));
		a.ends = malloc(((uint64_t)a.C + 1) * sizeof(*a.ends));
		a.live_c = malloc(((uint64_t)a.C + 1) * sizeof(*a.live_c));
		a.live_g = malloc(((uint64_t)a.C + 1) * sizeof(*a.live_g));
		a.live_end = malloc(((uint64_t)a.C + 1) *
				    sizeof(*a.live_end));
		a.holders = calloc(a.M, sizeof(*a.holders));
		if (!a.top || !a.ends || !a.live_c || !a.live_g ||
		    !a.live_end || !a.holders) {
			rc = cgs_plan_fail(err, CGS_E_NOMEM, rp->rank,
					   "searching slot maps");
			goto out;
		}
	}
	a.load = malloc((uint64_t)a.M * (a.n + 1) * sizeof(*a.load));
	a.full = malloc((uint64_t)a.M * (a.n + 1) * sizeof(*a.full));
	a.until = calloc((uint64_t)a.M * a.width + 1, sizeof(*a.until));
	a.colour_of = malloc(((uint64_t)a.C + 1) * sizeof(*a.colour_of));
	a.holder = malloc(((uint64_t)a.C + 1) * sizeof(*a.holder));
	a.held = calloc((uint64_t)a.C + 1, sizeof(*a.held));
	a.in_flight = calloc(a.M, sizeof(*a.in_flight));
	a.fw = calloc(a.M, sizeof(*a.fw));
	a.bw = calloc(a.M, sizeof(*a.bw));
	a.row = calloc((uint64_t)a.M * a.width + 1, sizeof(*a.row));
	a.in_set = calloc((uint64_t)a.M * a.C + 1, 1);
	a.near = calloc(a.M, sizeof(*a.near));
	best = calloc((uint64_t)a.M * a.width + 1, sizeof(*best));
	if (!a.load || !a.full || !a.until || !a.colour_of || !a.holder ||
	    !a.held || !a.in_flight || !a.fw || !a.bw || !a.row ||
	    !a.in_set || !a.near || !best) {
		rc = cgs_plan_fail(err, CGS_E_NOMEM, rp->rank,
				   "searching slot maps");
		goto out;
	}
	if (a.rule == CGS_AHEAD_TEAMS) {
		a.team_of = calloc(a.M, sizeof(*a.team_of));
		a.pool_lo = calloc(a.M, sizeof(*a.pool_lo));
		a.pool_n = calloc(a.M, sizeof(*a.pool_n));
		a.free_bits = calloc((a.C + 63) / 64 + 1, sizeof(*a.free_bits));
		a.slot_of = malloc((2ull * a.M * a.C + 1) * sizeof(*a.slot_of));
		a.n_slots = calloc(a.M, sizeof(*a.n_slots));
		a.distinct = calloc(a.M, sizeof(*a.distinct));
		a.split = calloc(a.M, sizeof(*a.split));
		a.owners = calloc((uint64_t)a.C + 1, sizeof(*a.owners));
		if (!a.team_of || !a.pool_lo || !a.pool_n || !a.free_bits ||
		    !a.slot_of || !a.split || !a.owners || !a.n_slots ||
		    !a.distinct) {
			rc = cgs_plan_fail(err, CGS_E_NOMEM, rp->rank,
					   "searching slot maps");
			goto out;
		}
	}
	scan_longest(&a);
	if (a.rule == CGS_AHEAD_HOLDERS)
		build_top(&a);
	if (a.rule == CGS_AHEAD_TEAMS) {
		if (teams_search(&a, best, &best_colours)) {
			rc = cgs_plan_fail(err, CGS_E_NOMEM, rp->rank,
					   "searching slot maps");
			goto out;
		}
	}
	for (t = 0; a.rule != CGS_AHEAD_TEAMS && t <= CGS_AHEAD_MAX_SLACK &&
		    t < a.S; t++) {
		uint32_t got = replay(&a, t);

		if (got && (!best_colours || got < best_colours)) {
			best_colours = got;
			memcpy(best, a.row, a.M * a.width * sizeof(*best));
		}
	}
	if (!best_colours)
		goto out;
	rc = cgs_slot_map_from_longest(rp, a.M, a.S, best, map, rows, used);
	if (rc) {
		rc = cgs_plan_fail(err, rc, rp->rank, "searching slot maps");
		goto out;
	}
	if (*map)
		*colours = best_colours;
out:
	free(best);
	ahead_release(&a);
	return rc;
}
