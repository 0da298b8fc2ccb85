/*
 * Slot maps: which slot of the ring each microbatch of each reachable
 * count uses, instead of k mod S.
 *
 * With k mod S, microbatch k of a short order and microbatch k of the
 * longest one share a slot although they run at different phases of
 * their orders (the end of a short order looks like the end of a long
 * one, shifted by the difference in counts), and a rank that needs fewer
 * slots than the shared ring (a later pipeline stage) still cycles
 * through all of them, so microbatches whose lifetimes meet other
 * chunks' at different times share a group (chunk, slot).  The union of
 * the orders' conflicts then links groups that a better map keeps apart.
 * Where a rank's own orders fill the ring (as many microbatches of one
 * chunk in flight as slots, and more microbatches than slots), slot s
 * must host microbatches about S apart in every order, and no map can
 * do much better than k mod S.
 *
 * Lowest-free maps come first (cgs_slot_map_lowest_free, at the end):
 * each order is replayed and each forward of (c, k) takes the lowest
 * slot safe for chunk c then, preferring slots no other chunk's
 * microbatch holds.  Slots then serve whichever chunk is at its peak,
 * and a slot s of chunk c and slot s of chunk c' are never live
 * together in any order: where the rank's microbatches of all chunks in
 * flight never outnumber the slots, colouring group (c, s) with colour s
 * reaches the lower bound on uniform frames.  Such a map differs by
 * chunk, so it has a row per count and chunk (plan.h).
 *
 * Where they do outnumber the slots (many chunks, few stages), slot s
 * of two chunks must be live together somewhere, and numbering by slot
 * cannot reach the bound.  The colours map then lets each slot of each
 * chunk stand for one colour that every chunk draws from: replaying the
 * longest order first, a forward takes a slot of its chunk whose colour
 * no live microbatch holds, or gives a slot not used yet the lowest free
 * colour.  Within each order the colours then behave as an interval
 * colouring (never more than the peak in flight, on uniform frames the
 * bound), and as long as every chunk finds such a slot among its ring,
 * group (c, s) coloured by its colour is valid in the union of orders.
 * The colours say nothing of the gradient frames, which meet when their
 * backwards are next to each other in some order: the union of those
 * meetings can need three or more gradient colours where every order
 * alone needs two.  The parity map is the colours map with each slot
 * also keeping a parity: within an order, microbatch k of chunk c wants
 * the parity of its backward's position among the order's backwards
 * (flipped for the whole order where the slots already set say so), and
 * a forward prefers, among the slots of the colour it would take, one
 * of that parity, else gives the colour to an unused slot.
 *
 * Each of these maps replays the longest order first.  A shorter order
 * whose entries are the longest's up to its own last forward (Megatron's
 * always are) passes through the longest order's states until there and
 * only frees after, so it takes the longest order's slots for its
 * microbatches without a replay of its own (on target-2 a rank's orders
 * hold 32 times the longest one's entries).  Not where one of those
 * forwards takes the slot its chunk's only microbatch just freed and the
 * next backward differs between the two orders (the slot may be barred
 * in one and not in the other), nor, in the parity map, where the
 * shorter order's own backwards would not alternate the slots'
 * parities.
 *
 * The search keeps, for every pair of groups, how many orders make them
 * live together, and judges a map by a proxy of the plan: those links
 * packed as items of their chunk's bytes (first-fit and one region per
 * DSATUR colour), ties broken by the links' weight.  It tries every
 * order on one period p (microbatch k in slot (k + d) mod p, from the
 * shortest p safe for every order up to S, d 0 or the rotation that ends
 * short orders where the longest one ends); the two periods the proxy
 * likes best go to the planner as they are.  From the best, it then
 * gives each order its own period and rotation (coordinate descent),
 * then moves one microbatch to another slot or swaps two microbatches'
 * slots (local search), keeping a step only when the proxy improves;
 * all within a budget of work per rank and ring.  The proxy misjudges
 * (it packs groups, not frames), so the planner plans every candidate
 * and keeps one only when the real plan takes strictly fewer bytes
 * than k mod S (plan.c).
 *
 * Safety is a hard constraint of every step: within one order, two
 * microbatches of one chunk live together never share a slot, and
 * neither do two consecutive backwards of one chunk (the first one's
 * gradient frame is still being sent).  Periodic maps are safe when the
 * period covers the order's microbatches in flight; moves and swaps are
 * checked against the order's list of such pairs.
 * The search is deterministic: it depends on the rank's orders alone.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/stage.h"

/* Largest ring x chunks the search takes on: its tables grow as groups^2. */
#define CGS_SLOT_MAP_MAX_GROUPS 1024u
/* Most co-live pairs of one order it will list (16 bytes each). */
#define CGS_SLOT_MAP_MAX_PAIRS (1ull << 24)
/* Periodic maps handed to the planner besides the searched one. */
#define CGS_SLOT_MAP_PERIODIC 2
/* Passes over the orders. */
#define CGS_SLOT_MAP_ROUNDS 3
/*
 * Work units for one rank and ring: a proxy evaluation costs groups^2, a
 * walk over an order its pairs; about 0.05 s.
 */
#define CGS_SLOT_MAP_BUDGET 8000000ull

/*
 * Microbatch (hi_c, k) and (lo_c, lo_k), lo_k <= k, are live together (or
 * must not share a slot); k is implied by the bucket holding the pair.
 */
struct co_live {
	uint32_t hi_c, lo_c, lo_k;
	uint32_t must_differ;   /* one chunk: the same slot would be unsafe */
};

/* The co-live pairs of one order, bucketed by the later microbatch. */
struct order_pairs {
	uint32_t n;             /* microbatches */
	uint64_t *start;        /* n + 1 offsets into pair */
	struct co_live *pair;
	uint64_t cap;
};

struct map_search {
	const struct cgs_rank_work *x;
	uint32_t S, M, groups, width, n_orders;
	uint64_t *chunk_bytes;  /* saved bytes of all the layers of a chunk */
	uint32_t *uses;         /* groups^2: orders linking a and b */
	uint32_t *stamp;        /* groups^2: links seen in this pass */
	uint32_t generation;
	uint32_t *map;          /* n_orders rows of width */
	uint32_t *best_row;     /* the best row of the order being searched */
	uint32_t *need;         /* per order: the shortest period safe for it */
	/* the proxy's scratch, per group */
	struct cgs_graph graph;
	uint64_t *group_bytes, *offset, *region;
	uint32_t *by_size, *colour;
	/* the listed order's must-differ pairs, both ways, by microbatch */
	uint64_t *apart_start;  /* width + 1 */
	uint32_t *apart;
	uint64_t apart_cap;
	/* work left: proxy evaluations cost groups^2, walks their pairs */
	uint64_t budget;
	/* replay scratch */
	uint32_t *forwards, *backwards, *live_c, *live_k;
	struct order_pairs op;
};

/*
 * Replay order o: count its co-live pairs per later microbatch (fill 0)
 * or write them into their buckets (fill 1).
 */
static void replay_pairs(struct map_search *m, uint32_t o, int fill)
{
	const struct cgs_rank_plan *rp = m->x->rp;
	struct order_pairs *op = &m->op;
	uint32_t n_live = 0, last_c = CGS_PLAN_NEVER, last_k = 0, i, c;
	uint64_t e;

	memset(m->forwards, 0, m->M * sizeof(uint32_t));
	memset(m->backwards, 0, m->M * sizeof(uint32_t));
	for (e = rp->order_start[o]; e < rp->order_start[o + 1]; e++) {
		int32_t id = rp->order_entries[e];
		uint32_t k;

		c = (uint32_t)(id < 0 ? -(int64_t)id : id) - 1;
		if (id > 0) {
			k = m->forwards[c]++;
			for (i = 0; i < n_live; i++) {
				uint32_t hc = c, hk = k, lc = m->live_c[i],
					 lk = m->live_k[i];

				if (lk > hk) {
					hc = lc;
					hk = lk;
					lc = c;
					lk = k;
				}
				if (fill)
					op->pair[op->start[hk]++] = (struct co_live){
						hc, lc, lk, hc == lc};
				else
					op->start[hk + 1]++;
			}
			m->live_c[n_live] = c;
			m->live_k[n_live++] = k;
			continue;
		}
		k = m->backwards[c]++;
		/* the previous backward's gradient frame is live here */
		if (last_c == c) {
			if (fill)
				op->pair[op->start[k]++] = (struct co_live){
					c, c, last_k, 1};
			else
				op->start[k + 1]++;
		}
		last_c = c;
		last_k = k;
		for (i = 0; i < n_live; i++)
			if (m->live_c[i] == c && m->live_k[i] == k)
				break;
		m->live_c[i] = m->live_c[n_live - 1];
		m->live_k[i] = m->live_k[--n_live];
	}
}

/* List order o's pairs; 1 when they fit, 0 when there are too many. */
static int list_pairs(struct map_search *m, uint32_t o)
{
	struct order_pairs *op = &m->op;
	uint32_t n = m->x->rp->reachable[o], k;
	uint64_t total;

	op->n = n;
	memset(op->start, 0, ((uint64_t)n + 1) * sizeof(*op->start));
	replay_pairs(m, o, 0);
	for (k = 0; k < n; k++)
		op->start[k + 1] += op->start[k];
	total = op->start[n];
	if (total > CGS_SLOT_MAP_MAX_PAIRS)
		return 0;
	if (total > op->cap) {
		struct co_live *p = realloc(op->pair, total * sizeof(*p));

		if (!p)
			return -1;
		op->pair = p;
		op->cap = total;
	}
	/* fill moves each start to its bucket's end; shift back after */
	replay_pairs(m, o, 1);
	for (k = n; k > 0; k--)
		op->start[k] = op->start[k - 1];
	op->start[0] = 0;
	return 1;
}

static uint64_t link_weight(const struct map_search *m, uint32_t a, uint32_t b)
{
	uint64_t x = m->chunk_bytes[a], y = m->chunk_bytes[b];

	return (x < y ? x : y) + 1;
}

static uint64_t cell(const struct map_search *m, uint32_t a, uint32_t b)
{
	return a < b ? (uint64_t)a * m->groups + b : (uint64_t)b * m->groups + a;
}

/* A fresh generation of stamps (cleared when the counter wraps). */
static void next_generation(struct map_search *m)
{
	if (++m->generation == 0) {
		memset(m->stamp, 0, (uint64_t)m->groups * m->groups *
				    sizeof(*m->stamp));
		m->generation = 1;
	}
}

/*
 * Add (+1) or remove (-1) the links the listed order makes under `row`
 * to or from uses; each link counts once per order.
 */
static void walk_links(struct map_search *m, const uint32_t *row, int delta)
{
	const struct order_pairs *op = &m->op;
	uint64_t i;
	uint32_t k;

	next_generation(m);
	for (k = 0; k < op->n; k++) {
		for (i = op->start[k]; i < op->start[k + 1]; i++) {
			const struct co_live *p = &op->pair[i];
			uint32_t a = p->hi_c * m->S + row[k];
			uint32_t b = p->lo_c * m->S + row[p->lo_k];
			uint64_t at;

			if (a == b)
				continue;   /* consecutive backwards: no saved link */
			at = cell(m, a, b);
			if (m->stamp[at] == m->generation)
				continue;
			m->stamp[at] = m->generation;
			if (delta > 0)
				m->uses[at]++;
			else
				m->uses[at]--;
		}
	}
}

/* Charge one move: two walks over the order's pairs and one proxy. */
static int spend(struct map_search *m)
{
	uint64_t cost = 4 * m->op.start[m->op.n] +
			(uint64_t)m->groups * m->groups;

	if (m->budget < cost)
		return 0;
	m->budget -= cost;
	return 1;
}

/*
 * The proxy for the plan's saved bytes: the groups linked by any order
 * packed as items of their chunk's bytes, the better of first-fit
 * (largest first) and one region per DSATUR colour; ties go to fewer
 * links, weighted as in link_weight, which leads the search across
 * plateaus of equal bytes.
 */
struct proxy {
	uint64_t bytes, links;
};

static int better(const struct proxy *a, const struct proxy *b)
{
	return a->bytes < b->bytes ||
	       (a->bytes == b->bytes && a->links < b->links);
}

static int proxy_bytes(struct map_search *m, struct proxy *px)
{
	uint32_t a, b, G = m->groups, k, n_colours;
	uint64_t ff, regions = 0, links = 0;
	int rc;

	memset(m->graph.adj, 0, (uint64_t)G * m->graph.words * sizeof(uint64_t));
	for (a = 0; a < G; a++)
		for (b = a + 1; b < G; b++)
			if (m->uses[(uint64_t)a * G + b]) {
				cgs_bit_set(cgs_graph_row(&m->graph, a), b);
				cgs_bit_set(cgs_graph_row(&m->graph, b), a);
				links += link_weight(m, a / m->S, b / m->S);
			}
	rc = cgs_pack_first_fit(&m->graph, m->group_bytes, m->by_size,
				m->offset, &ff);
	if (rc)
		return rc;
	rc = cgs_colour_dsatur(&m->graph, m->colour);
	if (rc < 0)
		return rc;
	n_colours = (uint32_t)rc;
	memset(m->region, 0, ((uint64_t)G + 1) * sizeof(*m->region));
	for (a = 0; a < G; a++)
		if (m->group_bytes[a] > m->region[m->colour[a]])
			m->region[m->colour[a]] = m->group_bytes[a];
	for (k = 0; k < n_colours; k++)
		regions += m->region[k];
	px->bytes = ff < regions ? ff : regions;
	px->links = links;
	return 0;
}

/* Row o as k -> (k + d) mod p. */
static void periodic_row(struct map_search *m, uint32_t o, uint32_t p,
			 uint32_t d)
{
	uint32_t *row = m->map + (uint64_t)o * m->width, k;

	for (k = 0; k < m->x->rp->reachable[o]; k++)
		row[k] = (k + d) % p;
}

/*
 * The rotation that gives order o's last microbatches the slots of the
 * largest order's last ones at period p: a short order ends as the long
 * one does.
 */
static uint32_t end_rotation(const struct map_search *m, uint32_t o,
			     uint32_t p)
{
	const struct cgs_rank_plan *rp = m->x->rp;

	return (rp->reachable[rp->n_reachable - 1] - rp->reachable[o]) % p;
}

/*
 * Every order at period p, end aligned or not: uses holds their links
 * and *px the proxy.  1 when done, 0 when an order has too many pairs or
 * the budget is spent, or a negative CGS_E_* code.
 */
static int try_joint(struct map_search *m, uint32_t p, int aligned,
		     int charge, struct proxy *px)
{
	uint32_t o;
	int rc;

	memset(m->uses, 0, (uint64_t)m->groups * m->groups * sizeof(*m->uses));
	for (o = 0; o < m->n_orders; o++) {
		const struct cgs_rank_plan *rp = m->x->rp;
		uint64_t work = 2 * (rp->order_start[o + 1] - rp->order_start[o]);

		periodic_row(m, o, p, aligned ? end_rotation(m, o, p) : 0);
		rc = list_pairs(m, o);
		if (rc <= 0)
			return rc;
		work += 2 * m->op.start[m->op.n];
		if (charge && m->budget < work)
			return 0;
		if (charge)
			m->budget -= work;
		walk_links(m, m->map + (uint64_t)o * m->width, 1);
	}
	if (charge && !spend(m))
		return 0;
	rc = proxy_bytes(m, px);
	return rc ? rc : 1;
}

/*
 * Coordinate descent: order o tries every period safe for it, with and
 * without the end rotation, against the other orders' links; a strictly
 * better proxy wins.  uses holds every order's links before and after.
 */
static int descend_order(struct map_search *m, uint32_t o,
			 struct proxy *best)
{
	uint32_t *row = m->map + (uint64_t)o * m->width, n, p, r;
	struct proxy px;
	int rc = list_pairs(m, o);

	if (rc <= 0)
		return rc;
	n = m->op.n;
	memcpy(m->best_row, row, n * sizeof(*row));
	walk_links(m, row, -1);
	for (p = m->need[o]; p <= m->S; p++) {
		for (r = 0; r < 2; r++) {
			uint32_t d = r ? end_rotation(m, o, p) : 0;

			if (r && d == 0)
				continue;
			if (!spend(m))
				break;
			periodic_row(m, o, p, d);
			walk_links(m, row, 1);
			rc = proxy_bytes(m, &px);
			walk_links(m, row, -1);
			if (rc)
				return rc;
			if (better(&px, best)) {
				*best = px;
				memcpy(m->best_row, row, n * sizeof(*row));
			}
		}
	}
	memcpy(row, m->best_row, n * sizeof(*row));
	walk_links(m, row, 1);
	return 1;
}

/* The listed order's must-differ pairs as lists per microbatch. */
static int list_apart(struct map_search *m)
{
	const struct order_pairs *op = &m->op;
	uint64_t i, total;
	uint32_t k;

	memset(m->apart_start, 0, ((uint64_t)op->n + 1) * sizeof(uint64_t));
	for (k = 0; k < op->n; k++)
		for (i = op->start[k]; i < op->start[k + 1]; i++)
			if (op->pair[i].must_differ) {
				m->apart_start[k + 1]++;
				m->apart_start[op->pair[i].lo_k + 1]++;
			}
	for (k = 0; k < op->n; k++)
		m->apart_start[k + 1] += m->apart_start[k];
	total = m->apart_start[op->n];
	if (total > m->apart_cap) {
		uint32_t *a = realloc(m->apart, total * sizeof(*a));

		if (!a)
			return CGS_E_NOMEM;
		m->apart = a;
		m->apart_cap = total;
	}
	for (k = 0; k < op->n; k++)
		for (i = op->start[k]; i < op->start[k + 1]; i++)
			if (op->pair[i].must_differ) {
				m->apart[m->apart_start[k]++] = op->pair[i].lo_k;
				m->apart[m->apart_start[op->pair[i].lo_k]++] = k;
			}
	for (k = op->n; k > 0; k--)
		m->apart_start[k] = m->apart_start[k - 1];
	m->apart_start[0] = 0;
	return 0;
}

/* May microbatch k of the listed order take slot s? */
static int slot_free(const struct map_search *m, const uint32_t *row,
		     uint32_t k, uint32_t s)
{
	uint64_t i;

	for (i = m->apart_start[k]; i < m->apart_start[k + 1]; i++)
		if (row[m->apart[i]] == s)
			return 0;
	return 1;
}

/* May microbatches j and k of the listed order trade slots? */
static int swap_free(const struct map_search *m, const uint32_t *row,
		     uint32_t j, uint32_t k)
{
	uint64_t i;

	for (i = m->apart_start[j]; i < m->apart_start[j + 1]; i++)
		if (m->apart[i] != k && row[m->apart[i]] == row[k])
			return 0;
	for (i = m->apart_start[k]; i < m->apart_start[k + 1]; i++)
		if (m->apart[i] != j && row[m->apart[i]] == row[j])
			return 0;
	return 1;
}

/*
 * One move of the local search on row o: microbatch k to slot s, or,
 * with s == S, k trading slots with microbatch j.  Kept when the proxy
 * improves; 1 kept, 0 undone or not safe, or a negative CGS_E_* code.
 */
static int try_move(struct map_search *m, uint32_t *row, uint32_t j,
		    uint32_t k, uint32_t s, struct proxy *best)
{
	uint32_t old_j = row[j], old_k = row[k];
	struct proxy px;
	int rc;

	if (s < m->S ? !slot_free(m, row, k, s) : !swap_free(m, row, j, k))
		return 0;
	walk_links(m, row, -1);
	if (s < m->S) {
		row[k] = s;
	} else {
		row[k] = old_j;
		row[j] = old_k;
	}
	walk_links(m, row, 1);
	rc = proxy_bytes(m, &px);
	if (rc)
		return rc;
	if (better(&px, best)) {
		*best = px;
		return 1;
	}
	walk_links(m, row, -1);
	row[j] = old_j;
	row[k] = old_k;
	walk_links(m, row, 1);
	return 0;
}

/*
 * Local search: a microbatch of one order moves to another safe slot,
 * or two microbatches at most 2S apart trade slots, when the proxy
 * improves; until a pass finds nothing or the budget is spent.  Moves
 * leave the periodic family: a short order's change of phase can get
 * slots of its own.
 */
static int move_search(struct map_search *m, struct proxy *best)
{
	uint32_t o, j, k, s, round, reach = 2 * m->S;
	int rc, improved = 1;

	for (round = 0; improved && round < CGS_SLOT_MAP_ROUNDS; round++) {
		improved = 0;
		for (o = m->n_orders; o-- > 0;) {
			uint32_t *row = m->map + (uint64_t)o * m->width;

			rc = list_pairs(m, o);
			if (rc <= 0)
				return rc;
			rc = list_apart(m);
			if (rc)
				return rc;
			for (k = 0; k < m->op.n; k++) {
				for (s = 0; s <= m->S; s++) {
					uint32_t lo = k > reach ? k - reach : 0;

					if (s == row[k])
						continue;
					for (j = s < m->S ? k : lo;
					     j < (s < m->S ? k + 1 : k); j++) {
						if (s == m->S && row[j] == row[k])
							continue;
						if (!spend(m))
							return 1;
						rc = try_move(m, row, j, k, s, best);
						if (rc < 0)
							return rc;
						improved |= rc;
					}
				}
			}
		}
	}
	return 1;
}

static void search_release(struct map_search *m)
{
	free(m->chunk_bytes);
	free(m->uses);
	free(m->stamp);
	free(m->map);
	free(m->best_row);
	free(m->need);
	cgs_graph_release(&m->graph);
	free(m->group_bytes);
	free(m->offset);
	free(m->region);
	free(m->by_size);
	free(m->colour);
	free(m->forwards);
	free(m->backwards);
	free(m->live_c);
	free(m->live_k);
	free(m->op.start);
	free(m->op.pair);
	free(m->apart_start);
	free(m->apart);
}

/* Is the map k mod S after all? */
static int is_modulo(const struct map_search *m)
{
	const struct cgs_rank_plan *rp = m->x->rp;
	uint32_t o, k;

	for (o = 0; o < m->n_orders; o++)
		for (k = 0; k < rp->reachable[o]; k++)
			if (m->map[(uint64_t)o * m->width + k] != k % m->S)
				return 0;
	return 1;
}

/*
 * The shortest period safe for order o alone: the most microbatches of
 * one chunk in flight, and two when a chunk runs two backwards in a row.
 */
static uint32_t order_need(struct map_search *m, uint32_t o)
{
	const struct cgs_rank_plan *rp = m->x->rp;
	uint32_t need = 1, last = CGS_PLAN_NEVER, c;
	uint64_t e;

	memset(m->forwards, 0, m->M * sizeof(uint32_t));
	memset(m->backwards, 0, m->M * sizeof(uint32_t));
	for (e = rp->order_start[o]; e < rp->order_start[o + 1]; e++) {
		int32_t id = rp->order_entries[e];

		c = (uint32_t)(id < 0 ? -(int64_t)id : id) - 1;
		if (id > 0) {
			m->forwards[c]++;
			if (m->forwards[c] - m->backwards[c] > need)
				need = m->forwards[c] - m->backwards[c];
			continue;
		}
		m->backwards[c]++;
		if (last == c && need < 2)
			need = 2;
		last = c;
	}
	return need;
}

/* Largest groups first, then by index: first-fit's order for the proxy. */
static void sort_by_size(struct map_search *m)
{
	uint32_t i, j, v;

	for (i = 0; i < m->groups; i++) {
		v = i;
		for (j = i; j > 0 && m->group_bytes[m->by_size[j - 1]] <
					     m->group_bytes[v]; j--)
			m->by_size[j] = m->by_size[j - 1];
		m->by_size[j] = v;
	}
}

static int search_start(struct map_search *m)
{
	const struct cgs_rank_work *x = m->x;
	uint32_t c, l, o, g, G = m->groups;
	uint64_t cells = (uint64_t)G * G;

	m->chunk_bytes = calloc(m->M, sizeof(uint64_t));
	m->uses = calloc(cells, sizeof(uint32_t));
	m->stamp = calloc(cells, sizeof(uint32_t));
	m->map = calloc((uint64_t)m->n_orders * m->width, sizeof(uint32_t));
	m->best_row = calloc(m->width, sizeof(uint32_t));
	m->need = calloc(m->n_orders, sizeof(uint32_t));
	m->group_bytes = calloc(G, sizeof(uint64_t));
	m->offset = calloc(G, sizeof(uint64_t));
	m->region = calloc((uint64_t)G + 1, sizeof(uint64_t));
	m->by_size = calloc(G, sizeof(uint32_t));
	m->colour = calloc(G, sizeof(uint32_t));
	m->forwards = calloc(m->M, sizeof(uint32_t));
	m->backwards = calloc(m->M, sizeof(uint32_t));
	m->op.start = calloc((uint64_t)m->width + 1, sizeof(uint64_t));
	m->apart_start = calloc((uint64_t)m->width + 1, sizeof(uint64_t));
	/* at most S microbatches of each chunk are live at once */
	m->live_c = calloc((uint64_t)m->S * m->M + 1, sizeof(uint32_t));
	m->live_k = calloc((uint64_t)m->S * m->M + 1, sizeof(uint32_t));
	if (!m->chunk_bytes || !m->uses || !m->stamp || !m->map ||
	    !m->best_row || !m->need || !m->group_bytes || !m->offset ||
	    !m->region || !m->by_size || !m->colour || !m->forwards ||
	    !m->backwards || !m->op.start || !m->apart_start || !m->live_c ||
	    !m->live_k ||
	    cgs_graph_init(&m->graph, G))
		return CGS_E_NOMEM;
	for (c = 0; c < m->M; c++)
		for (l = 0; l < x->s->layers[c]; l++)
			m->chunk_bytes[c] += x->saved_bytes[x->layer_base[c] + l];
	for (g = 0; g < G; g++)
		m->group_bytes[g] = m->chunk_bytes[g / m->S];
	sort_by_size(m);
	for (o = 0; o < m->n_orders; o++)
		m->need[o] = order_need(m, o);
	return 0;
}

/* The periodic rows with the best proxies, best first. */
struct periodic_pick {
	struct proxy px;
	uint32_t p;
	int aligned;
};

static void keep_pick(struct periodic_pick *pick, uint32_t *n,
		      const struct proxy *px, uint32_t p, int aligned)
{
	uint32_t i;

	if (*n < CGS_SLOT_MAP_PERIODIC) {
		i = (*n)++;
	} else {
		i = CGS_SLOT_MAP_PERIODIC - 1;
		if (!better(px, &pick[i].px))
			return;
	}
	while (i > 0 && better(px, &pick[i - 1].px)) {
		pick[i] = pick[i - 1];
		i--;
	}
	pick[i] = (struct periodic_pick){*px, p, aligned};
}

/* Hand the current map to the caller unless it is there already. */
static int add_candidate(struct map_search *m, uint32_t **maps, uint32_t *n)
{
	uint64_t cells = (uint64_t)m->n_orders * m->width;
	uint32_t i;

	if (is_modulo(m))
		return 0;
	for (i = 0; i < *n; i++)
		if (memcmp(maps[i], m->map, cells * sizeof(*m->map)) == 0)
			return 0;
	maps[*n] = malloc(cells * sizeof(*m->map));
	if (!maps[*n])
		return CGS_E_NOMEM;
	memcpy(maps[(*n)++], m->map, cells * sizeof(*m->map));
	return 0;
}

int cgs_slot_map_search(const struct cgs_rank_work *x, uint32_t **maps,
			uint32_t *n_maps, struct cgs_error *err)
{
	const struct cgs_rank_plan *rp = x->rp;
	struct map_search m = {.x = x, .S = x->slots, .M = x->chunks,
			       .groups = x->n_groups,
			       .n_orders = rp->n_reachable,
			       .budget = CGS_SLOT_MAP_BUDGET};
	struct periodic_pick pick[CGS_SLOT_MAP_PERIODIC];
	struct proxy best, modulo, px;
	uint32_t o, p, need = 1, round, n_pick = 0, i;
	int rc, aligned;

	*n_maps = 0;
	m.width = rp->reachable[rp->n_reachable - 1];
	if (m.groups > CGS_SLOT_MAP_MAX_GROUPS)
		return 0;
	rc = search_start(&m);
	if (rc)
		goto out;
	for (o = 0; o < m.n_orders; o++)
		if (m.need[o] > need)
			need = m.need[o];
	/*
	 * k mod S first, the yardstick; then one period p for every order,
	 * while the budget lasts
	 */
	rc = try_joint(&m, m.S, 0, 1, &modulo);
	if (rc <= 0)
		goto out;
	for (p = need; p <= m.S && rc > 0; p++) {
		/* the better rotation of each period: picks of distinct periods */
		struct periodic_pick here = {{UINT64_MAX, UINT64_MAX}, p, 0};

		for (aligned = 0; aligned < 2; aligned++) {
			if (p == m.S && !aligned)
				continue;
			rc = try_joint(&m, p, aligned, 1, &px);
			if (rc < 0)
				goto out;
			if (rc == 0)
				break;   /* the budget is spent */
			if (better(&px, &here.px)) {
				here.px = px;
				here.aligned = aligned;
			}
		}
		if (here.px.bytes != UINT64_MAX && !better(&modulo, &here.px))
			keep_pick(pick, &n_pick, &here.px, p, here.aligned);
	}
	/* the periodic maps the proxy likes best go to the planner as such */
	for (i = 0; i < n_pick; i++) {
		rc = try_joint(&m, pick[i].p, pick[i].aligned, 0, &px);
		if (rc <= 0)
			goto out;
		rc = add_candidate(&m, maps, n_maps);
		if (rc)
			goto out;
	}
	/* then, from the best, each order on its own, the largest first */
	best = n_pick ? pick[0].px : modulo;
	rc = try_joint(&m, n_pick ? pick[0].p : m.S,
		       n_pick ? pick[0].aligned : 0, 0, &px);
	if (rc <= 0)
		goto out;
	for (round = 0; round < CGS_SLOT_MAP_ROUNDS; round++) {
		for (o = m.n_orders; o-- > 0;) {
			rc = descend_order(&m, o, &best);
			if (rc <= 0)
				goto out;
		}
	}
	rc = move_search(&m, &best);
	if (rc <= 0)
		goto out;
	rc = 0;
	/* a searched map the proxy does not prefer is not worth planning */
	if (better(&best, &modulo))
		rc = add_candidate(&m, maps, n_maps);
out:
	search_release(&m);
	if (rc < 0) {
		for (i = 0; i < *n_maps; i++)
			free(maps[i]);
		*n_maps = 0;
		return cgs_plan_fail(err, rc, rp->rank, "searching slot maps");
	}
	return 0;
}

int cgs_next_backward_is(const struct cgs_rank_plan *rp, uint32_t o,
			  uint64_t e, uint32_t c)
{
	for (; e < rp->order_start[o + 1]; e++) {
		int32_t id = rp->order_entries[e];

		if (id < 0)
			return (uint32_t)(-(int64_t)id) - 1 == c;
	}
	return 0;
}

/*
 * From entry e of order o on, the next backward: its chunk in *c and its
 * slot under `map` (M rows of `width` per count) in *s, counted in
 * `count` (M counters, zero at the order's start).  Returns the entry
 * after it, or 0 where the order has no more.
 */
static uint64_t next_backward(const struct cgs_rank_plan *rp, uint32_t o,
			      uint64_t e, uint32_t M, uint64_t width,
			      const uint32_t *map, uint32_t *count,
			      uint32_t *c, uint32_t *s)
{
	for (; e < rp->order_start[o + 1]; e++) {
		int32_t id = rp->order_entries[e];

		if (id >= 0)
			continue;
		*c = (uint32_t)(-(int64_t)id) - 1;
		*s = map[((uint64_t)o * M + *c) * width + count[*c]++];
		return e + 1;
	}
	return 0;
}

/*
 * Whether no two backwards next to each other in any order free the same
 * slot of the same chunk under `map`: the second would write the gradient
 * frame the first is still sending from.  `count` (M counters) is
 * scratch.
 */
static int backwards_apart(const struct cgs_rank_plan *rp, uint32_t M,
			   uint64_t width, const uint32_t *map,
			   uint32_t *count)
{
	uint32_t o, c, s, last_c, last_s = 0;
	uint64_t e;

	for (o = 0; o < rp->n_reachable; o++) {
		memset(count, 0, M * sizeof(*count));
		last_c = CGS_PLAN_NEVER;
		e = rp->order_start[o];
		while ((e = next_backward(rp, o, e, M, width, map, count, &c,
					  &s))) {
			if (c == last_c && s == last_s)
				return 0;
			last_c = c;
			last_s = s;
		}
	}
	return 1;
}

int cgs_slot_map_from_longest(const struct cgs_rank_plan *rp, uint32_t M,
			      uint32_t S, const uint32_t *row, uint32_t **map,
			      uint32_t *rows, uint32_t *used)
{
	uint32_t width = rp->reachable[rp->n_reachable - 1], o, c, k, s;
	uint64_t cells = (uint64_t)rp->n_reachable * M * width;
	uint32_t *count = calloc(M, sizeof(*count));
	int modulo = 1, alike = 1, apart;

	*map = calloc(cells + 1, sizeof(**map));
	*rows = 0;
	*used = 0;
	if (!*map || !count) {
		free(*map);
		free(count);
		*map = NULL;
		return CGS_E_NOMEM;
	}
	for (o = 0; o < rp->n_reachable; o++)
		for (c = 0; c < M; c++)
			for (k = 0; k < rp->reachable[o]; k++) {
				s = row[c * width + k];
				(*map)[((uint64_t)o * M + c) * width + k] = s;
				modulo &= s == k % S;
				alike &= s == row[k];
				if (s + 1 > *used)
					*used = s + 1;
			}
	/*
	 * a shorter order's backwards run otherwise than the longest's:
	 * where two next to each other would share a gradient frame, the
	 * map is no map (the liveness of a rank assumes none do)
	 */
	apart = backwards_apart(rp, M, width, *map, count);
	free(count);
	if (modulo || !apart) {
		free(*map);
		*map = NULL;
		*used = 0;
		return 0;
	}
	if (alike) {
		/* one row per count serves every chunk */
		for (o = 0; o < rp->n_reachable; o++)
			memmove(*map + (uint64_t)o * width,
				*map + (uint64_t)o * M * width,
				width * sizeof(**map));
		*rows = 1;
	} else {
		*rows = M;
	}
	return 0;
}

/* Is every order's forward part a prefix of the longest order? */
uint64_t cgs_nested_prefix(const struct cgs_rank_plan *rp, uint32_t o)
{
	uint32_t L = rp->n_reachable - 1;
	uint64_t len = rp->order_start[o + 1] - rp->order_start[o];
	const int32_t *mine = rp->order_entries + rp->order_start[o];

	while (len > 0 && mine[len - 1] < 0)
		len--;
	if (len > rp->order_start[L + 1] - rp->order_start[L] ||
	    memcmp(mine, rp->order_entries + rp->order_start[L],
		   len * sizeof(*mine)))
		return 0;
	return len;
}

int cgs_orders_nested(const struct cgs_rank_plan *rp)
{
	uint32_t o;

	for (o = 0; o + 1 < rp->n_reachable; o++)
		if (!cgs_nested_prefix(rp, o))
			return 0;
	return 1;
}

uint32_t cgs_slot_map_peak(const struct cgs_rank_plan *rp)
{
	uint32_t o, live, peak = 0;
	uint64_t e;

	for (o = 0; o < rp->n_reachable; o++) {
		live = 0;
		for (e = rp->order_start[o]; e < rp->order_start[o + 1]; e++) {
			if (rp->order_entries[e] > 0 && ++live > peak)
				peak = live;
			else if (rp->order_entries[e] < 0)
				live--;
		}
	}
	return peak;
}

/*
 * The slot of chunk c for a forward, with slots standing for colours
 * shared by the chunks: free_bits (S bits) the slots of c no live
 * microbatch holds, colour_of[c * S + s] slot s's colour (set the first
 * time the slot is taken), held[g] how many microbatches live now hold
 * colour g.  The slot `barred` (S for none) holds the gradient frame
 * still being sent, and the next backward is chunk c's.  Prefer a slot
 * whose colour is free and below `peak`, the lowest colour first; else
 * give an unused slot the lowest free colour; else any safe slot (two
 * microbatches then share a colour, and the colouring takes more than
 * the peak).  S when no slot is safe.
 *
 * With `parity` (the parity map), parity[c * S + s] is slot s's
 * gradient parity (2 while unset) and `want` the parity this microbatch
 * should take (2 for either).  Among the slots of the lowest free colour,
 * one whose parity is unset or wanted comes first; when there is none,
 * an unused slot takes the lowest free colour.
 */
static uint32_t colour_slot(uint32_t c, uint32_t S, uint32_t colours,
			    uint32_t peak, const uint64_t *free_bits,
			    uint32_t *colour_of, const uint32_t *held,
			    uint32_t barred, const uint8_t *parity,
			    unsigned want)
{
	uint32_t s, g, w, best = S, best_g = CGS_PLAN_NEVER, fresh = S,
		 safe = S;
	int best_bad = 0;

	for (w = 0; w < (S + 63) / 64; w++)
		for (uint64_t b = free_bits[w]; b; b &= b - 1) {
			int bad;

			s = w * 64 + (uint32_t)__builtin_ctzll(b);
			if (s == barred)
				continue;
			bad = parity && parity[c * S + s] < 2 && want < 2 &&
			      parity[c * S + s] != want;
			if (safe == S)
				safe = s;
			g = colour_of[c * S + s];
			if (g == CGS_PLAN_NEVER) {
				if (fresh == S)
					fresh = s;
			} else if (!held[g] &&
				   (best == S || g < best_g ||
				    /* the lowest colour, then the parity */
				    (g == best_g && best_bad && !bad))) {
				best = s;
				best_g = g;
				best_bad = bad;
			}
		}
	if ((best == S || best_g >= peak || best_bad) && fresh < S) {
		for (g = 0; g < colours && held[g]; g++)
			;
		if (g < colours && (g < best_g || (best_bad && g == best_g))) {
			colour_of[c * S + fresh] = g;
			return fresh;
		}
	}
	return best < S ? best : safe;
}

/*
 * The lowest slot of S set in free_bits and, where `also` is not NULL, in
 * `also` too, other than `barred`; S when there is none.
 */
static uint32_t lowest_slot(const uint64_t *free_bits, const uint64_t *also,
			    uint32_t S, uint32_t barred)
{
	uint32_t w;

	for (w = 0; w < (S + 63) / 64; w++) {
		uint64_t b = free_bits[w] & (also ? also[w] : ~0ull);

		if (barred / 64 == w)
			b &= ~(1ull << (barred % 64));
		if (b)
			return w * 64 + (uint32_t)__builtin_ctzll(b);
	}
	return S;
}

/* Move slot s from row `from` of `rows` (W words a row) to row `to`. */
static void move_slot(uint64_t *rows, uint32_t W, uint32_t s, uint32_t from,
		      uint32_t to)
{
	rows[(uint64_t)from * W + s / 64] &= ~(1ull << (s % 64));
	rows[(uint64_t)to * W + s / 64] |= 1ull << (s % 64);
}

/*
 * Where each microbatch's backward stands among the backwards of order o
 * (bpos[c * width + k], counted from 0), with `count` (M counters) as
 * scratch.  The gradient frames of backwards next to each other meet:
 * within one order, giving each microbatch the parity of that position
 * lets two gradient colours serve them all.
 */
static void number_backwards(const struct cgs_rank_plan *rp, uint32_t o,
			     uint32_t M, uint64_t width, uint32_t *count,
			     uint32_t *bpos)
{
	uint64_t e;
	uint32_t n = 0, c;

	memset(count, 0, M * sizeof(*count));
	for (e = rp->order_start[o]; e < rp->order_start[o + 1]; e++) {
		int32_t id = rp->order_entries[e];

		if (id >= 0)
			continue;
		c = (uint32_t)(-(int64_t)id) - 1;
		bpos[c * width + count[c]++] = n++;
	}
}

/*
 * Where order o's forwards are the longest order's first ones (entries
 * equal up to o's last forward), give o the longest order's slots for
 * them (out, rows of `width`, the longest's already made) and return 1:
 * until there o runs through the longest order's states, and after it
 * only frees.  Not where a forward whose slot was just freed by its own
 * chunk's backward (`turn`, a bit per entry of the longest order) looks
 * ahead to a next backward that differs: that slot may be barred in one
 * order and not in the other.  0 leaves o to be made on its own.
 */
static int rows_from_longest(const struct cgs_rank_plan *rp, uint32_t o,
			     uint32_t M, uint64_t width, const uint64_t *turn,
			     uint32_t *runs, uint32_t *out)
{
	uint32_t last = rp->n_reachable - 1, c;
	uint64_t from = rp->order_start[o], lfrom = rp->order_start[last],
		 len = cgs_nested_prefix(rp, o), i;
	const int32_t *mine = rp->order_entries + from;

	if (len == 0)
		return 0;
	memset(runs, 0, M * sizeof(*runs));
	for (i = 0; i < len; i++) {
		if (mine[i] < 0)
			continue;
		c = (uint32_t)mine[i] - 1;
		runs[c]++;
		if ((turn[i / 64] >> (i % 64) & 1) &&
		    cgs_next_backward_is(rp, o, from + i + 1, c) !=
		    cgs_next_backward_is(rp, last, lfrom + i + 1, c))
			return 0;
	}
	for (c = 0; c < M; c++)
		memcpy(out + ((uint64_t)o * M + c) * width,
		       out + ((uint64_t)last * M + c) * width,
		       runs[c] * sizeof(*out));
	return 1;
}

/*
 * Whether order o's backwards alternate the gradient parities of the
 * slots they free (parity[c * S + s], 2 while unset) with its rows as
 * they stand in out: the parity map's promise, kept by a shorter order
 * that took the longest order's slots only if this holds.  `count` (M
 * counters) is scratch.
 */
static int parities_alternate(const struct cgs_rank_plan *rp, uint32_t o,
			      uint32_t M, uint32_t S, uint64_t width,
			      const uint32_t *out, const uint8_t *parity,
			      uint32_t *count)
{
	uint64_t e = rp->order_start[o];
	uint32_t n = 0, c, s;
	int flip = -1;

	memset(count, 0, M * sizeof(*count));
	while ((e = next_backward(rp, o, e, M, width, out, count, &c, &s))) {
		if (parity[c * S + s] < 2) {
			int f = (parity[c * S + s] ^ n) & 1;

			if (flip < 0)
				flip = f;
			else if (f != flip)
				return 0;
		}
		n++;
	}
	return 1;
}

int cgs_slot_map_lowest_free(const struct cgs_rank_work *x, int mode,
			     uint32_t **map, uint32_t *rows, uint32_t *used,
			     struct cgs_error *err)
{
	const struct cgs_rank_plan *rp = x->rp;
	uint32_t S = x->slots, M = x->chunks, o, c, k, s, best;
	uint64_t width = rp->reachable[rp->n_reachable - 1],
		 cells = (uint64_t)rp->n_reachable * M * width, e;
	uint32_t *out = NULL, *forwards = NULL, *backwards = NULL,
		 *in_flight = NULL, *users = NULL, *colour_of = NULL,
		 *held = NULL, *bpos = NULL, *runs = NULL;
	/*
	 * turn: per entry of the longest order, a forward whose chunk ran
	 * the last backward and has nothing in flight (rows_from_longest)
	 */
	uint64_t *turn = NULL, longest;
	/*
	 * free_bits[c * W + w]: the slots of chunk c no live microbatch
	 * holds; by_users[u * W + w]: the slots that u live microbatches of
	 * all chunks hold (users[s] == u, at most M); bit s % 64 of word
	 * s / 64, S bits a row
	 */
	uint64_t *free_bits = NULL, *by_users = NULL;
	uint8_t *parity = NULL;
	/* n: a count of microbatches holding a slot */
	uint32_t colours = S * M, peak = 0, oi, W = (S + 63) / 64, w, n;
	int modulo = 1, alike = 1, rc = 0;
	int by_colour = mode == CGS_SLOT_MAP_COLOURS ||
			mode == CGS_SLOT_MAP_COLOURS_PARITY;

	*map = NULL;
	*rows = 0;
	*used = 0;
	if (cells > CGS_SLOT_MAP_MAX_CELLS)
		return 0;
	out = calloc(cells + 1, sizeof(*out));
	free_bits = malloc(((uint64_t)W * M + 1) * sizeof(*free_bits));
	by_users = calloc((uint64_t)W * (M + 1) + 1, sizeof(*by_users));
	forwards = calloc(M, sizeof(*forwards));
	backwards = calloc(M, sizeof(*backwards));
	in_flight = calloc(M, sizeof(*in_flight));
	users = calloc((uint64_t)S + 1, sizeof(*users));
	colour_of = malloc(((uint64_t)S * M + 1) * sizeof(*colour_of));
	held = calloc((uint64_t)colours + 1, sizeof(*held));
	longest = rp->order_start[rp->n_reachable] -
		  rp->order_start[rp->n_reachable - 1];
	turn = calloc(longest / 64 + 1, sizeof(*turn));
	runs = calloc(M, sizeof(*runs));
	if (mode == CGS_SLOT_MAP_COLOURS_PARITY) {
		bpos = malloc((M * width + 1) * sizeof(*bpos));
		parity = malloc((uint64_t)S * M + 1);
	}
	if (!out || !free_bits || !by_users || !forwards || !backwards ||
	    !in_flight || !users || !colour_of || !held || !turn || !runs ||
	    (mode == CGS_SLOT_MAP_COLOURS_PARITY &&
	     (!bpos || !parity))) {
		rc = cgs_plan_fail(err, CGS_E_NOMEM, rp->rank,
				   "searching slot maps");
		goto out;
	}
	for (s = 0; s < colours; s++)
		colour_of[s] = CGS_PLAN_NEVER;
	if (parity)
		memset(parity, 2, (uint64_t)S * M);
	if (by_colour)
		peak = cgs_slot_map_peak(rp);
	for (oi = 0; oi < rp->n_reachable; oi++) {
		uint32_t pending_c = CGS_PLAN_NEVER, pending_s = 0;
		/*
		 * the parity map: microbatch (c, k) wants the parity of its
		 * backward's position, flipped or not for the whole order as
		 * the first slot it takes that has a parity says (-1 before)
		 */
		int flip = -1;

		/*
		 * the longest order first: with colours it sets the chunks'
		 * slots, and a shorter order that runs its first forwards
		 * takes its slots for them (with parities, only where its
		 * own backwards then alternate them)
		 */
		o = rp->n_reachable - 1 - oi;
		if (oi > 0 &&
		    rows_from_longest(rp, o, M, width, turn, runs, out) &&
		    (!parity || parities_alternate(rp, o, M, S, width, out,
						   parity, runs)))
			continue;
		if (parity)
			number_backwards(rp, o, M, width, in_flight, bpos);
		memset(held, 0, colours * sizeof(*held));
		memset(forwards, 0, M * sizeof(*forwards));
		memset(backwards, 0, M * sizeof(*backwards));
		memset(in_flight, 0, M * sizeof(*in_flight));
		memset(users, 0, S * sizeof(*users));
		memset(by_users, 0, (uint64_t)W * (M + 1) * sizeof(*by_users));
		for (w = 0; w < W; w++)
			by_users[w] = w + 1 < W || S % 64 == 0 ? ~0ull :
				      (1ull << (S % 64)) - 1;
		for (c = 0; c < M; c++)
			memcpy(free_bits + (uint64_t)c * W, by_users,
			       W * sizeof(*by_users));
		for (e = rp->order_start[o]; e < rp->order_start[o + 1]; e++) {
			int32_t id = rp->order_entries[e];
			uint32_t *row, barred;
			uint64_t *mine;

			c = (uint32_t)(id < 0 ? -(int64_t)id : id) - 1;
			row = out + ((uint64_t)o * M + c) * width;
			mine = free_bits + (uint64_t)c * W;
			if (id < 0) {
				k = backwards[c]++;
				s = row[k];
				mine[s / 64] |= 1ull << (s % 64);
				if (by_colour) {
					held[colour_of[c * S + s]]--;
				} else {
					move_slot(by_users, W, s, users[s],
						  users[s] - 1);
					users[s]--;
				}
				in_flight[c]--;
				pending_c = c;
				pending_s = row[k];
				continue;
			}
			k = forwards[c]++;
			if (oi == 0 && pending_c == c && in_flight[c] == 0)
				turn[(e - rp->order_start[o]) / 64] |=
					1ull << ((e - rp->order_start[o]) % 64);
			/*
			 * the slot just freed holds the gradient frame being
			 * sent: barred when it is c's only one and the next
			 * backward is c's
			 */
			barred = pending_c == c && in_flight[c] == 0 &&
				 cgs_next_backward_is(rp, o, e + 1, c) ?
				 pending_s : S;
			if (by_colour) {
				uint32_t pos = parity ? bpos[c * width + k] : 0;
				unsigned want = flip < 0 ? 2 :
						(pos ^ (uint32_t)flip) & 1;

				best = colour_slot(c, S, colours, peak, mine,
						   colour_of, held, barred,
						   parity, want);
				if (best == S)
					goto out;
				s = best;
				if (parity && parity[c * S + s] == 2)
					parity[c * S + s] =
						want < 2 ? want : pos & 1;
				if (parity && flip < 0)
					flip = (parity[c * S + s] ^ pos) & 1;
				row[k] = s;
				if (s >= *used)
					*used = s + 1;
				mine[s / 64] &= ~(1ull << (s % 64));
				held[colour_of[c * S + s]]++;
				in_flight[c]++;
				continue;
			}
			/*
			 * the lowest safe slot; sharing slots, the lowest of
			 * those the fewest other chunks' microbatches hold
			 */
			if (mode == CGS_SLOT_MAP_OWN)
				best = lowest_slot(mine, NULL, S, barred);
			else
				for (best = S, n = 0; best == S && n <= M; n++)
					best = lowest_slot(mine, by_users +
							   (uint64_t)n * W,
							   S, barred);
			if (best == S)
				goto out;   /* no safe slot: no map */
			s = best;
			row[k] = s;
			if (s >= *used)
				*used = s + 1;
			mine[s / 64] &= ~(1ull << (s % 64));
			move_slot(by_users, W, s, users[s], users[s] + 1);
			users[s]++;
			in_flight[c]++;
		}
	}
	for (o = 0; o < rp->n_reachable && (modulo || alike); o++)
		for (c = 0; c < M; c++)
			for (k = 0; k < rp->reachable[o]; k++) {
				s = out[((uint64_t)o * M + c) * width + k];
				modulo &= s == k % S;
				alike &= s == out[(uint64_t)o * M * width + k];
			}
	if (modulo)
		goto out;
	if (alike) {
		/* one row per count serves every chunk */
		for (o = 0; o < rp->n_reachable; o++)
			memmove(out + o * width, out + (uint64_t)o * M * width,
				width * sizeof(*out));
		*rows = 1;
	} else {
		*rows = M;
	}
	*map = out;
	out = NULL;
out:
	free(out);
	free(free_bits);
	free(by_users);
	free(forwards);
	free(backwards);
	free(in_flight);
	free(users);
	free(colour_of);
	free(held);
	free(bpos);
	free(parity);
	free(turn);
	free(runs);
	return rc;
}
