/*
 * The recoloured map: a local search over the longest order's
 * microbatches, where every frame of each kind has one size and every
 * chunk as many layers.
 *
 * Then a plan's bytes are its saved colours times the saved frame plus
 * its gradient colours times the gradient frame, and a slot map is, in
 * effect, a colour u and a gradient class h for each microbatch of the
 * longest order (a shorter, nested order takes the longest order's slot
 * for its microbatch k, as the look-ahead map's rows: ahead.c):
 *   - microbatches live together take different colours;
 *   - microbatches whose backwards follow each other in some order take
 *     different classes (the first one's gradient frame is still being
 *     sent; its slot is barred to the second, and their gradient frames
 *     meet);
 *   - the microbatches of chunk c with colour u and class h share one
 *     slot of c, so chunk c needs as many slots as it has (u, h) cells
 *     in use, and the ring holds S.
 * Slot (c, u, h) with its layers' frames on colours u * layers + l and
 * its gradient frame on colour h is then a plan with layers times the
 * cells' colours and the classes.  The replays of slotmap.c and ahead.c
 * build such colourings forward in time and cannot undo a choice that
 * dooms a later forward; on the bench's q37 rank 11 (P 16, M 4, a ring
 * of 16) every replay takes 22 colours (the peak is 21) and 4 gradient
 * colours, while 22 and 3 exist.
 *
 * This search starts from the best plan so far: the colours of its
 * slots' first layers (slots of microbatches live together differ in
 * them) and its gradient colours are such a colouring.  It asks for one
 * colour fewer while it finds one, then one class fewer, each as a tabu
 * search (graph.c's, with the slots as a third kind of conflict): the
 * cost counts the pairs live together on one colour, the backwards in a
 * row on one class, and the cells each chunk uses past the ring; a move
 * gives one microbatch in conflict (or of a chunk past its ring), or its
 * whole cell, another colour, class or both; the best move wins unless
 * it returns a microbatch to a recent (colour, class) (then only where
 * it reaches a new best), and each try has a fixed budget of moves
 * weighed.  The generator is seeded from the rank's size, so the map
 * depends on the orders alone.  Where the result has fewer frame colours
 * (layers times its colours) or fewer gradient colours than the plan,
 * the planner plans the map and keeps it where it takes fewer bytes: it
 * colours the slots' frames itself, with at most the search's colours
 * wherever its colourings are exact.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/stage.h"

/* The most pairs live together, and counters (microbatches x cells). */
#define LOCAL_MAX_PAIRS (1ull << 23)
#define LOCAL_MAX_CELLS (1ull << 22)
/*
 * Moves a try may weigh: LOCAL_SWEEPS times the (microbatch, colour,
 * class) table, at most LOCAL_BUDGET (a few tenths of a second).  On the
 * bench's family the tries that succeed weigh up to 6818 tables (q10
 * rank 2, 64 microbatches) and 2^24 moves (q02 rank 7); small ranks stop
 * sooner where they fail.
 */
#define LOCAL_SWEEPS (1ull << 13)
#define LOCAL_BUDGET (1ull << 25)

struct local {
	uint32_t N, M, S, width;   /* microbatches (c * width + k), ring */
	uint32_t U, H;             /* colours and classes of this try */
	/* live together in the longest order, and backwards in a row */
	uint64_t *e_start, *f_start;
	uint32_t *e_adj, *f_adj;
	uint32_t *u, *h;           /* each microbatch's colour and class */
	uint32_t *gamma;           /* [i * U + u]: live neighbours on u */
	uint32_t *phi;             /* [i * H + h]: backward neighbours on h */
	uint32_t *cell;            /* [(c * U + u) * H + h]: its microbatches */
	uint32_t *in_use;          /* [c]: cells of c in use: its slots */
	uint32_t *tabu_until;      /* [(i * U + u) * H + h] */
	uint32_t *cand;            /* microbatches in conflict */
	uint32_t *stamp;           /* [cell]: the iteration that weighed it */
	int64_t *sum_g, *sum_p;    /* a cell's gamma and phi: U and H */
	uint64_t conflicts;        /* pairs on one colour, or one class */
	uint64_t rng;
};

static void local_release(struct local *l)
{
	free(l->e_start);
	free(l->f_start);
	free(l->e_adj);
	free(l->f_adj);
	free(l->u);
	free(l->h);
	free(l->gamma);
	free(l->phi);
	free(l->cell);
	free(l->in_use);
	free(l->tabu_until);
	free(l->cand);
	free(l->stamp);
	free(l->sum_g);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Sort and drop repeats of pairs a << 32 | b; CSR of both directions. */
static int to_csr(uint64_t *pairs, uint64_t n, uint32_t N, uint64_t **start,
		  uint32_t **adj)
{
	uint64_t i, m = 0;

	qsort(pairs, n, sizeof(*pairs), cmp_u64);
	for (i = 0; i < n; i++)
		if (i == 0 || pairs[i] != pairs[i - 1])
			pairs[m++] = pairs[i];
	*start = calloc((uint64_t)N + 2, sizeof(**start));
	*adj = malloc((2 * m + 1) * sizeof(**adj));
	if (!*start || !*adj)
		return CGS_E_NOMEM;
	for (i = 0; i < m; i++) {
		(*start)[(pairs[i] >> 32) + 2]++;
		(*start)[(pairs[i] & 0xffffffffu) + 2]++;
	}
	for (i = 2; i < (uint64_t)N + 2; i++)
		(*start)[i] += (*start)[i - 1];
	for (i = 0; i < m; i++) {
		uint32_t a = (uint32_t)(pairs[i] >> 32),
			 b = (uint32_t)pairs[i];

		(*adj)[(*start)[a + 1]++] = b;
		(*adj)[(*start)[b + 1]++] = a;
	}
	return 0;
}

/*
 * The pairs: live together in the longest order (that order's conflicts
 * hold every shorter order's), and backwards in a row in any order.
 * 1 when there are too many to search.
 */
static int build_pairs(struct local *l, const struct cgs_rank_plan *rp)
{
	uint32_t L = rp->n_reachable - 1, o, c, *fw = NULL, *bw = NULL,
		 *live = NULL, *at = NULL, n_live = 0, prev;
	uint64_t e, n = 0, cap = 0, *pairs = NULL;
	int rc = CGS_E_NOMEM;

	fw = calloc(l->M, sizeof(*fw));
	bw = calloc(l->M, sizeof(*bw));
	live = malloc(((uint64_t)l->N + 1) * sizeof(*live));
	at = malloc(((uint64_t)l->N + 1) * sizeof(*at));
	if (!fw || !bw || !live || !at)
		goto out;
	for (e = rp->order_start[L]; e < rp->order_start[L + 1]; e++) {
		int32_t id = rp->order_entries[e];

		c = (uint32_t)(id > 0 ? id : -(int64_t)id) - 1;
		if (id > 0) {
			n += n_live;
			at[c * l->width + fw[c]] = n_live;
			live[n_live++] = c * l->width + fw[c]++;
		} else {
			uint32_t i = c * l->width + bw[c]++;

			live[at[i]] = live[--n_live];
			at[live[at[i]]] = at[i];
		}
	}
	if (n > LOCAL_MAX_PAIRS) {
		rc = 1;
		goto out;
	}
	cap = n;
	for (o = 0; o <= L; o++)
		cap += rp->reachable[o] * (uint64_t)l->M;
	pairs = malloc((cap + 1) * sizeof(*pairs));
	if (!pairs)
		goto out;
	n = 0;
	memset(fw, 0, l->M * sizeof(*fw));
	memset(bw, 0, l->M * sizeof(*bw));
	for (e = rp->order_start[L]; e < rp->order_start[L + 1]; e++) {
		int32_t id = rp->order_entries[e];
		uint32_t j;

		c = (uint32_t)(id > 0 ? id : -(int64_t)id) - 1;
		if (id > 0) {
			uint32_t i = c * l->width + fw[c]++;

			for (j = 0; j < n_live; j++)
				pairs[n++] = live[j] < i ?
					     (uint64_t)live[j] << 32 | i :
					     (uint64_t)i << 32 | live[j];
			at[i] = n_live;
			live[n_live++] = i;
		} else {
			uint32_t i = c * l->width + bw[c]++;

			live[at[i]] = live[--n_live];
			at[live[at[i]]] = at[i];
		}
	}
	if (to_csr(pairs, n, l->N, &l->e_start, &l->e_adj))
		goto out;
	n = 0;
	for (o = 0; o <= L; o++) {
		memset(bw, 0, l->M * sizeof(*bw));
		prev = UINT32_MAX;
		for (e = rp->order_start[o]; e < rp->order_start[o + 1]; e++) {
			int32_t id = rp->order_entries[e];
			uint32_t i;

			if (id > 0)
				continue;
			c = (uint32_t)(-(int64_t)id) - 1;
			i = c * l->width + bw[c]++;
			if (prev != UINT32_MAX)
				pairs[n++] = prev < i ?
					     (uint64_t)prev << 32 | i :
					     (uint64_t)i << 32 | prev;
			prev = i;
		}
	}
	rc = to_csr(pairs, n, l->N, &l->f_start, &l->f_adj);
out:
	free(fw);
	free(bw);
	free(live);
	free(at);
	free(pairs);
	return rc;
}

#define CELL(l, c, u, h) ((((uint64_t)(c) * (l)->U + (u)) * (l)->H) + (h))

static uint32_t over(uint32_t used, uint32_t S)
{
	return used > S ? used - S : 0;
}

/* The counters of the colouring in l->u, l->h (every value in range). */
static void count(struct local *l)
{
	uint32_t i, c;
	uint64_t j;

	memset(l->gamma, 0, (uint64_t)l->N * l->U * sizeof(*l->gamma));
	memset(l->phi, 0, (uint64_t)l->N * l->H * sizeof(*l->phi));
	memset(l->cell, 0, (uint64_t)l->M * l->U * l->H * sizeof(*l->cell));
	memset(l->in_use, 0, l->M * sizeof(*l->in_use));
	memset(l->tabu_until, 0,
	       (uint64_t)l->N * l->U * l->H * sizeof(*l->tabu_until));
	memset(l->stamp, 0, (uint64_t)l->M * l->U * l->H * sizeof(*l->stamp));
	l->conflicts = 0;
	for (i = 0; i < l->N; i++) {
		c = i / l->width;
		for (j = l->e_start[i]; j < l->e_start[i + 1]; j++)
			l->gamma[(uint64_t)i * l->U + l->u[l->e_adj[j]]]++;
		for (j = l->f_start[i]; j < l->f_start[i + 1]; j++)
			l->phi[(uint64_t)i * l->H + l->h[l->f_adj[j]]]++;
		l->conflicts += l->gamma[(uint64_t)i * l->U + l->u[i]] +
				l->phi[(uint64_t)i * l->H + l->h[i]];
		if (l->cell[CELL(l, c, l->u[i], l->h[i])]++ == 0)
			l->in_use[c]++;
	}
	l->conflicts /= 2;
}

static uint64_t excess(const struct local *l)
{
	uint64_t sum = 0;
	uint32_t c;

	for (c = 0; c < l->M; c++)
		sum += over(l->in_use[c], l->S);
	return sum;
}

/*
 * Drop value `q` of n (colours or classes, vals per microbatch): the
 * last value takes its name, and its microbatches take the value their
 * neighbours (cnt, n - 1 wide) hold least, the lowest on ties.
 */
static void drop_value(struct local *l, uint32_t *vals, uint32_t n,
		       uint32_t q, const uint64_t *start, const uint32_t *adj,
		       uint32_t *cnt)
{
	uint32_t i, v, best;
	uint64_t j;

	for (i = 0; i < l->N; i++)
		if (vals[i] == q)
			vals[i] = UINT32_MAX;
		else if (vals[i] == n - 1)
			vals[i] = q;
	for (i = 0; i < l->N; i++) {
		if (vals[i] != UINT32_MAX)
			continue;
		memset(cnt, 0, (n - 1) * sizeof(*cnt));
		for (j = start[i]; j < start[i + 1]; j++)
			if (vals[adj[j]] != UINT32_MAX)
				cnt[vals[adj[j]]]++;
		for (best = 0, v = 1; v < n - 1; v++)
			if (cnt[v] < cnt[best])
				best = v;
		vals[i] = best;
	}
}

/* The value of n taken by the fewest microbatches (lowest on ties). */
static uint32_t rarest(const struct local *l, const uint32_t *vals,
		       uint32_t n, uint32_t *cnt)
{
	uint32_t i, v, best = 0;

	memset(cnt, 0, n * sizeof(*cnt));
	for (i = 0; i < l->N; i++)
		cnt[vals[i]]++;
	for (v = 1; v < n; v++)
		if (cnt[v] < cnt[best])
			best = v;
	return best;
}

static void move(struct local *l, uint32_t i, uint32_t u, uint32_t h)
{
	uint32_t c = i / l->width, ou = l->u[i], oh = l->h[i];
	uint64_t j;

	l->conflicts -= l->gamma[(uint64_t)i * l->U + ou] +
			l->phi[(uint64_t)i * l->H + oh];
	l->conflicts += l->gamma[(uint64_t)i * l->U + u] +
			l->phi[(uint64_t)i * l->H + h];
	if (u != ou)
		for (j = l->e_start[i]; j < l->e_start[i + 1]; j++) {
			l->gamma[(uint64_t)l->e_adj[j] * l->U + ou]--;
			l->gamma[(uint64_t)l->e_adj[j] * l->U + u]++;
		}
	if (h != oh)
		for (j = l->f_start[i]; j < l->f_start[i + 1]; j++) {
			l->phi[(uint64_t)l->f_adj[j] * l->H + oh]--;
			l->phi[(uint64_t)l->f_adj[j] * l->H + h]++;
		}
	if (--l->cell[CELL(l, c, ou, oh)] == 0)
		l->in_use[c]--;
	if (l->cell[CELL(l, c, u, h)]++ == 0)
		l->in_use[c]++;
	l->u[i] = u;
	l->h[i] = h;
}

/* The best move of an iteration: microbatch i, or its whole cell. */
struct pick {
	int64_t d;
	uint32_t i, u, h, ties;
	int whole;
};

static void consider(struct local *l, struct pick *p, int64_t d, uint32_t i,
		     uint32_t u, uint32_t h, int whole)
{
	if (d < p->d) {
		p->ties = 1;
	} else if (d > p->d || cgs_random(&l->rng, ++p->ties) != 0) {
		return;
	}
	p->d = d;
	p->i = i;
	p->u = u;
	p->h = h;
	p->whole = whole;
}

/* Forbidden: back to a recent (colour, class), unless a new best. */
static int forbidden(const struct local *l, uint32_t i, uint32_t u,
		     uint32_t h, uint32_t it, int64_t cost, int64_t best)
{
	return l->tabu_until[((uint64_t)i * l->U + u) * l->H + h] > it &&
	       cost >= best;
}

/* Moves of microbatch w to every other (colour, class). */
static uint64_t weigh_one(struct local *l, struct pick *p, uint32_t w,
			  uint32_t it, int64_t cost, int64_t best)
{
	uint32_t c = w / l->width, u, h, from = l->u[w], fh = l->h[w];
	const uint32_t *gw = l->gamma + (uint64_t)w * l->U,
		       *pw = l->phi + (uint64_t)w * l->H;
	int64_t here = (int64_t)gw[from] + pw[fh] + over(l->in_use[c], l->S);
	uint32_t left = l->in_use[c] - (l->cell[CELL(l, c, from, fh)] == 1);

	for (u = 0; u < l->U; u++)
		for (h = 0; h < l->H; h++) {
			int64_t d;

			if (u == from && h == fh)
				continue;
			d = (int64_t)gw[u] + pw[h] - here +
			    over(left + !l->cell[CELL(l, c, u, h)], l->S);
			if (!forbidden(l, w, u, h, it, cost + d, best))
				consider(l, p, d, w, u, h, 0);
		}
	return (uint64_t)l->U * l->H;
}

/*
 * Moves of w's whole cell (every microbatch of its chunk on its colour
 * and class: one slot) to another colour, class or both: a slot
 * recoloured, or two slots merged.  Pairs inside the cell stay as they
 * are: sum[] counts them twice at the cell's own value.
 */
static uint64_t weigh_cell(struct local *l, struct pick *p, uint32_t w,
			   uint32_t it, int64_t cost, int64_t best,
			   int64_t *sum_g, int64_t *sum_p)
{
	uint32_t c = w / l->width, from = l->u[w], fh = l->h[w], k, u, h,
		 members = 0;
	int64_t inner_g = 0, inner_p = 0;
	uint64_t j, scanned = 0;

	memset(sum_g, 0, l->U * sizeof(*sum_g));
	memset(sum_p, 0, l->H * sizeof(*sum_p));
	for (k = 0; k < l->width; k++) {
		uint32_t m = c * l->width + k;

		if (l->u[m] != from || l->h[m] != fh)
			continue;
		members++;
		for (u = 0; u < l->U; u++)
			sum_g[u] += l->gamma[(uint64_t)m * l->U + u];
		for (h = 0; h < l->H; h++)
			sum_p[h] += l->phi[(uint64_t)m * l->H + h];
		for (j = l->e_start[m]; j < l->e_start[m + 1]; j++)
			inner_g += l->e_adj[j] / l->width == c &&
				   l->u[l->e_adj[j]] == from &&
				   l->h[l->e_adj[j]] == fh;
		for (j = l->f_start[m]; j < l->f_start[m + 1]; j++)
			inner_p += l->f_adj[j] / l->width == c &&
				   l->u[l->f_adj[j]] == from &&
				   l->h[l->f_adj[j]] == fh;
		scanned += l->e_start[m + 1] - l->e_start[m] +
			   l->f_start[m + 1] - l->f_start[m];
	}
	for (u = 0; u < l->U; u++)
		for (h = 0; h < l->H; h++) {
			int64_t d = 0;

			if (u == from && h == fh)
				continue;
			if (u != from)
				d += sum_g[u] - sum_g[from] + inner_g;
			if (h != fh)
				d += sum_p[h] - sum_p[fh] + inner_p;
			d += (int64_t)over(l->in_use[c] - 1 +
					   !l->cell[CELL(l, c, u, h)], l->S) -
			     over(l->in_use[c], l->S);
			if (!forbidden(l, w, u, h, it, cost + d, best))
				consider(l, p, d, w, u, h, 1);
		}
	return (uint64_t)members * (l->U + l->H) + (uint64_t)l->U * l->H +
	       l->width + scanned;
}

/*
 * Tabu search for a colouring with l->U colours and l->H classes; each
 * iteration weighs every move of a microbatch in conflict (or of a
 * chunk past its ring) and of its cell, and makes the best.
 */
static int search(struct local *l)
{
	uint64_t budget = (uint64_t)l->N * l->U * l->H * LOCAL_SWEEPS, weighed;
	int64_t cost, best_cost;
	uint32_t it, n_cand, i, c, k;

	if (budget > LOCAL_BUDGET)
		budget = LOCAL_BUDGET;
	/* each try its own draws: a try's budget never moves another's */
	l->rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)l->N << 20) ^
		 ((uint64_t)l->U << 8) ^ l->H;
	count(l);
	cost = best_cost = (int64_t)(l->conflicts + excess(l));
	for (it = 1; cost > 0 && budget > 0; it++) {
		struct pick p = {.d = INT64_MAX, .i = UINT32_MAX};

		weighed = l->N;
		n_cand = 0;
		for (i = 0; i < l->N; i++)
			if (l->gamma[(uint64_t)i * l->U + l->u[i]] ||
			    l->phi[(uint64_t)i * l->H + l->h[i]] ||
			    l->in_use[i / l->width] > l->S)
				l->cand[n_cand++] = i;
		for (i = 0; i < n_cand; i++) {
			uint32_t w = l->cand[i];
			uint32_t *seen = &l->stamp[CELL(l, w / l->width,
							l->u[w], l->h[w])];

			weighed += weigh_one(l, &p, w, it, cost, best_cost);
			if (*seen == it)
				continue;   /* its cell weighed already */
			*seen = it;
			weighed += weigh_cell(l, &p, w, it, cost, best_cost,
					      l->sum_g, l->sum_p);
		}
		budget -= weighed < budget ? weighed : budget;
		if (p.i == UINT32_MAX)
			continue;   /* every move forbidden: wait a step */
		c = p.i / l->width;
		{
			uint32_t from = l->u[p.i], fh = l->h[p.i],
				 until = it + 10 + cgs_random(&l->rng, 10) +
					 (uint32_t)(cost * 6 / 10);

			for (k = 0; k < l->width; k++) {
				uint32_t m = c * l->width + k;

				if (!(p.whole ? l->u[m] == from && l->h[m] == fh
					      : m == p.i))
					continue;
				l->tabu_until[((uint64_t)m * l->U + from) *
					      l->H + fh] = until;
				move(l, m, p.u, p.h);
			}
		}
		cost = (int64_t)(l->conflicts + excess(l));
		if (cost < best_cost)
			best_cost = cost;
	}
	return cost == 0;
}

/*
 * Try l->U and l->H (smaller than those of keep_u, keep_h) from the
 * colouring there, dropping the rarest value of the kind that shrank;
 * the counters are sized for the largest U and H.  Keeps the colouring
 * where one is found.
 */
static int try_fewer(struct local *l, uint32_t *keep_u, uint32_t *keep_h,
		     uint32_t *cnt)
{
	memcpy(l->u, keep_u, l->N * sizeof(*l->u));
	memcpy(l->h, keep_h, l->N * sizeof(*l->h));
	if (l->U < keep_u[l->N])
		drop_value(l, l->u, l->U + 1,
			   rarest(l, l->u, l->U + 1, cnt), l->e_start,
			   l->e_adj, cnt);
	else
		drop_value(l, l->h, l->H + 1,
			   rarest(l, l->h, l->H + 1, cnt), l->f_start,
			   l->f_adj, cnt);
	if (!search(l))
		return 0;
	memcpy(keep_u, l->u, l->N * sizeof(*l->u));
	memcpy(keep_h, l->h, l->N * sizeof(*l->h));
	keep_u[l->N] = l->U;
	keep_h[l->N] = l->H;
	return 1;
}

int cgs_slot_map_recoloured(const struct cgs_rank_work *x,
			    const struct cgs_rank_plan *best, uint32_t **map,
			    uint32_t *rows, uint32_t *used,
			    struct cgs_error *err)
{
	const struct cgs_rank_plan *rp = x->rp;
	struct local l = {.M = x->chunks, .S = x->slots};
	uint32_t L = rp->n_reachable - 1, layers = x->s->layers[0], U0 = 0,
		 H0 = best->user_grad_stats.colours, lowest, c, k, i, f,
		 *keep_u = NULL, *keep_h = NULL, *cnt = NULL, *row = NULL,
		 *slot = NULL, *name = NULL;
	int rc = 0, found = 0;

	*map = NULL;
	*rows = 0;
	*used = 0;
	if (x->layers_total != x->chunks * layers || best->slots != x->slots ||
	    !cgs_orders_nested(rp))
		return 0;
	for (c = 0; c < l.M; c++)
		if (x->s->layers[c] != layers)
			return 0;
	for (f = 1; f < best->n_saved; f++)
		if (best->saved[f].bytes != best->saved[0].bytes)
			return 0;
	for (f = 1; f < best->n_user_grad; f++)
		if (best->user_grad[f].bytes != best->user_grad[0].bytes)
			return 0;
	/* microbatches in flight at the peak: no fewer colours */
	lowest = x->live_saved_frames / layers;
	if (best->saved_stats.colours <= lowest * layers && H0 <= 2)
		return 0;
	l.width = rp->reachable[L];
	l.N = l.M * l.width;
	if ((uint64_t)rp->n_reachable * l.M * l.width > CGS_SLOT_MAP_MAX_CELLS)
		return 0;
	rc = CGS_E_NOMEM;
	keep_u = malloc(((uint64_t)l.N + 1) * sizeof(*keep_u));
	keep_h = malloc(((uint64_t)l.N + 1) * sizeof(*keep_h));
	name = malloc(((uint64_t)best->saved_stats.colours + 1) *
		      sizeof(*name));
	if (!keep_u || !keep_h || !name)
		goto fail;
	rc = 0;
	/*
	 * The best plan's slots: the colour of each one's first layer (the
	 * slots of microbatches live together differ in it), renamed 0, 1,
	 * ... as first met, and its gradient colour.  With several layers a
	 * colour then stands for as many frame colours.
	 */
	memset(name, 0xff, best->saved_stats.colours * sizeof(*name));
	for (c = 0; c < l.M; c++)
		for (k = 0; k < l.width; k++) {
			uint32_t s = cgs_slot_of(best, L, c, k),
				 g = best->saved[(c * l.S + s) * layers].colour,
				 h = best->user_grad[c * l.S + s].colour;

			if (g >= best->saved_stats.colours || h >= H0)
				goto out;
			if (name[g] == UINT32_MAX)
				name[g] = U0++;
			keep_u[c * l.width + k] = name[g];
			keep_h[c * l.width + k] = h;
		}
	if ((uint64_t)l.N * U0 * H0 > LOCAL_MAX_CELLS)
		goto out;
	l.U = U0;
	l.H = H0;
	rc = build_pairs(&l, rp);
	if (rc == 1) {
		rc = 0;
		goto out;
	}
	if (rc)
		goto fail;
	rc = CGS_E_NOMEM;
	l.u = malloc(((uint64_t)l.N + 1) * sizeof(*l.u));
	l.h = malloc(((uint64_t)l.N + 1) * sizeof(*l.h));
	l.cand = malloc(((uint64_t)l.N + 1) * sizeof(*l.cand));
	l.gamma = malloc(((uint64_t)l.N * U0 + 1) * sizeof(*l.gamma));
	l.phi = malloc(((uint64_t)l.N * H0 + 1) * sizeof(*l.phi));
	l.cell = malloc(((uint64_t)l.M * U0 * H0 + 1) * sizeof(*l.cell));
	l.in_use = malloc(((uint64_t)l.M + 1) * sizeof(*l.in_use));
	l.tabu_until = malloc(((uint64_t)l.N * U0 * H0 + 1) *
			      sizeof(*l.tabu_until));
	l.stamp = calloc((uint64_t)l.M * U0 * H0 + 1, sizeof(*l.stamp));
	l.sum_g = malloc(((uint64_t)U0 + H0 + 1) * sizeof(*l.sum_g));
	cnt = malloc(((uint64_t)U0 + H0 + 1) * sizeof(*cnt));
	if (!l.u || !l.h || !l.cand || !l.gamma || !l.phi || !l.cell ||
	    !l.in_use || !l.tabu_until || !l.stamp || !l.sum_g || !cnt)
		goto fail;
	l.sum_p = l.sum_g + U0;
	keep_u[l.N] = U0;
	keep_h[l.N] = H0;
	rc = 0;
	/* one colour fewer while one is found, then one class fewer */
	for (l.U = U0 - 1; l.U >= lowest && l.U > 0 &&
			   try_fewer(&l, keep_u, keep_h, cnt);
	     l.U--)
		found = 1;
	l.U = keep_u[l.N];
	for (l.H = H0 - 1; l.H >= 2 && try_fewer(&l, keep_u, keep_h, cnt);
	     l.H--)
		found = 1;
	/* worth a plan only with fewer frame colours or gradient colours */
	if (!found || (keep_u[l.N] * layers >= best->saved_stats.colours &&
		       keep_h[l.N] >= H0))
		goto out;
	/* cell (c, u, h) is a slot of c, numbered by its first forward */
	l.U = keep_u[l.N];
	l.H = keep_h[l.N];
	rc = CGS_E_NOMEM;
	slot = malloc(((uint64_t)l.M * l.U * l.H + 1) * sizeof(*slot));
	row = malloc(((uint64_t)l.N + 1) * sizeof(*row));
	if (!slot || !row)
		goto fail;
	rc = 0;
	memset(slot, 0xff, (uint64_t)l.M * l.U * l.H * sizeof(*slot));
	for (c = 0; c < l.M; c++) {
		uint32_t next = 0;

		for (k = 0; k < l.width; k++) {
			i = c * l.width + k;
			if (slot[CELL(&l, c, keep_u[i], keep_h[i])] ==
			    UINT32_MAX)
				slot[CELL(&l, c, keep_u[i], keep_h[i])] =
					next++;
			row[i] = slot[CELL(&l, c, keep_u[i], keep_h[i])];
		}
		if (next > l.S)
			goto out;   /* cannot be: the search's cost counts it */
	}
	rc = cgs_slot_map_from_longest(rp, l.M, l.S, row, map, rows, used);
	if (rc)
		goto fail;
out:
	free(keep_u);
	free(keep_h);
	free(cnt);
	free(slot);
	free(row);
	free(name);
	local_release(&l);
	return rc;
fail:
	rc = cgs_plan_fail(err, rc, rp->rank, "recolouring a slot map");
	goto out;
}
