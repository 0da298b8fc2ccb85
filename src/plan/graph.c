/*
 * Conflict graphs: colouring (DSATUR and a bounded exact search), a
 * bounded maximum-clique search, and first-fit offset packing.  Every
 * search is bounded by a node budget, never by time, so a schedule gives
 * the same plan on every machine.
 */
#include "plan/graph.h"

#include <stdlib.h>
#include <string.h>

#include "cgslot/error.h"

int cgs_graph_init(struct cgs_graph *g, uint32_t n)
{
	uint64_t cells;

	g->n = n;
	g->words = cgs_bits_words(n);
	cells = (uint64_t)n * g->words;
	g->adj = calloc(cells ? cells : 1, sizeof(*g->adj));
	return g->adj ? 0 : CGS_E_NOMEM;
}

void cgs_graph_release(struct cgs_graph *g)
{
	if (!g)
		return;
	free(g->adj);
	memset(g, 0, sizeof(*g));
}

void cgs_graph_symmetrise(struct cgs_graph *g)
{
	uint32_t a, b;

	for (a = 0; a < g->n; a++) {
		uint64_t *row = cgs_graph_row(g, a);

		cgs_bit_clear(row, a);
		for (b = a + 1; b < g->n; b++) {
			uint64_t *other = cgs_graph_row(g, b);

			if (cgs_bit_test(row, b) || cgs_bit_test(other, a)) {
				cgs_bit_set(row, b);
				cgs_bit_set(other, a);
			}
		}
	}
}

void cgs_graph_degrees(const struct cgs_graph *g, uint32_t *deg)
{
	uint32_t v, w;

	for (v = 0; v < g->n; v++) {
		const uint64_t *row = cgs_graph_row(g, v);
		uint32_t d = 0;

		for (w = 0; w < g->words; w++)
			d += (uint32_t)__builtin_popcountll(row[w]);
		deg[v] = d;
	}
}

/* Visit every set bit of row[0 .. words) as `var`. */
#define FOR_EACH_BIT(row, words, var)                                     \
	for (uint32_t w_ = 0; w_ < (words); w_++)                         \
		for (uint64_t b_ = (row)[w_]; b_ &&                       \
		     ((var) = w_ * 64 + (uint32_t)__builtin_ctzll(b_), 1); \
		     b_ &= b_ - 1)

/* The uncoloured vertex of highest saturation, then degree, then lowest. */
static uint32_t pick_saturated(uint32_t n, const uint32_t *sat,
			       const uint32_t *deg, const int64_t *colour)
{
	uint32_t v, best = UINT32_MAX;

	for (v = 0; v < n; v++) {
		if (colour[v] >= 0)
			continue;
		if (best == UINT32_MAX || sat[v] > sat[best] ||
		    (sat[v] == sat[best] && deg[v] > deg[best]))
			best = v;
	}
	return best;
}

/*
 * The vertex that DSATUR colours next: highest saturation, then degree,
 * then lowest.  key[v] is (saturation + 1) << 32 | degree while v is
 * uncoloured, 0 once coloured, so one comparison per vertex decides.
 */
static uint32_t pick_key(uint32_t n, const uint64_t *key)
{
	uint32_t v, best = 0;

	for (v = 1; v < n; v++)
		if (key[v] > key[best])
			best = v;
	return best;
}

int cgs_colour_dsatur(const struct cgs_graph *g, uint32_t *colour)
{
	uint32_t n = g->n, words = g->words, step, k = 0, u;
	uint32_t *deg = calloc(n ? n : 1, sizeof(*deg));
	uint64_t *key = calloc(n ? n : 1, sizeof(*key));
	/* the uncoloured vertices, a bitset */
	uint64_t *open = calloc(words + 1, sizeof(*open));
	/* seen[v]: colours among v's neighbours; never more than n colours */
	uint64_t *seen = calloc((uint64_t)n * words + 1, sizeof(*seen));
	int rc;

	if (!deg || !key || !open || !seen) {
		rc = CGS_E_NOMEM;
		goto out;
	}
	cgs_graph_degrees(g, deg);
	for (u = 0; u < n; u++) {
		key[u] = (uint64_t)1 << 32 | deg[u];
		cgs_bit_set(open, u);
	}
	for (step = 0; step < n; step++) {
		uint32_t v = pick_key(n, key), c = 0, w;
		const uint64_t *row = cgs_graph_row(g, v);
		uint64_t *mine = seen + (uint64_t)v * words;

		for (w = 0; w < words; w++) {
			if (~mine[w]) {
				c = w * 64 + (uint32_t)__builtin_ctzll(~mine[w]);
				break;
			}
		}
		colour[v] = c;
		key[v] = 0;
		cgs_bit_clear(open, v);
		if (c + 1 > k)
			k = c + 1;
		/* the uncoloured neighbours see colour c, if new to them */
		for (w = 0; w < words; w++) {
			uint64_t b;

			for (b = row[w] & open[w]; b; b &= b - 1) {
				uint64_t *theirs;

				u = w * 64 + (uint32_t)__builtin_ctzll(b);
				theirs = seen + (uint64_t)u * words;
				if (!cgs_bit_test(theirs, c)) {
					cgs_bit_set(theirs, c);
					key[u] += (uint64_t)1 << 32;
				}
			}
		}
	}
	rc = (int)k;
out:
	free(deg);
	free(key);
	free(open);
	free(seen);
	return rc;
}

struct exact {
	const struct cgs_graph *g;
	uint32_t n, lower, best, ncol;
	uint32_t *deg, *sat, *count;   /* count[v * ncol + c] */
	int64_t *col;
	uint32_t *best_col;
	uint64_t *budget;
	int stop;
};

static void exact_assign(struct exact *x, uint32_t v, uint32_t c)
{
	uint32_t u;

	x->col[v] = c;
	FOR_EACH_BIT(cgs_graph_row(x->g, v), x->g->words, u)
		if (x->count[(uint64_t)u * x->ncol + c]++ == 0)
			x->sat[u]++;
}

static void exact_unassign(struct exact *x, uint32_t v, uint32_t c)
{
	uint32_t u;

	x->col[v] = -1;
	FOR_EACH_BIT(cgs_graph_row(x->g, v), x->g->words, u)
		if (--x->count[(uint64_t)u * x->ncol + c] == 0)
			x->sat[u]--;
}

static void exact_search(struct exact *x, uint32_t depth, uint32_t used)
{
	uint32_t v, c, limit;

	if (x->stop)
		return;
	if (*x->budget == 0) {
		x->stop = 1;
		return;
	}
	(*x->budget)--;
	if (depth == x->n) {
		uint32_t u;

		x->best = used;
		for (u = 0; u < x->n; u++)
			x->best_col[u] = (uint32_t)x->col[u];
		if (used <= x->lower)
			x->stop = 1;
		return;
	}
	v = pick_saturated(x->n, x->sat, x->deg, x->col);
	/* colours already used, or one new colour (the others are symmetric) */
	for (c = 0;; c++) {
		limit = used + 1 < x->best - 1 ? used + 1 : x->best - 1;
		if (c >= limit || x->stop)
			break;
		if (x->count[(uint64_t)v * x->ncol + c])
			continue;
		exact_assign(x, v, c);
		exact_search(x, depth + 1, c + 1 > used ? c + 1 : used);
		exact_unassign(x, v, c);
	}
}

int cgs_colour_exact(const struct cgs_graph *g, uint32_t lower, uint32_t k,
		     uint32_t *colour, uint64_t *budget, int *proven)
{
	struct exact x = {.g = g, .n = g->n, .lower = lower, .best = k,
			  .ncol = k ? k : 1, .budget = budget};
	uint32_t n = g->n ? g->n : 1, v;
	int rc;

	if (proven)
		*proven = lower >= k || g->n == 0;
	if (lower >= k || g->n == 0)
		return (int)k;
	x.deg = calloc(n, sizeof(*x.deg));
	x.sat = calloc(n, sizeof(*x.sat));
	x.count = calloc((uint64_t)n * x.ncol, sizeof(*x.count));
	x.col = malloc(n * sizeof(*x.col));
	x.best_col = malloc(n * sizeof(*x.best_col));
	if (!x.deg || !x.sat || !x.count || !x.col || !x.best_col) {
		rc = CGS_E_NOMEM;
		goto out;
	}
	cgs_graph_degrees(g, x.deg);
	for (v = 0; v < g->n; v++) {
		x.col[v] = -1;
		x.best_col[v] = colour[v];
	}
	exact_search(&x, 0, 0);
	if (x.best < k)
		memcpy(colour, x.best_col, g->n * sizeof(*colour));
	/* stopped at the lower bound, or every branch closed: optimal */
	if (proven)
		*proven = x.best <= lower || !x.stop;
	rc = (int)x.best;
out:
	free(x.deg);
	free(x.sat);
	free(x.count);
	free(x.col);
	free(x.best_col);
	return rc;
}

struct clique {
	const struct cgs_graph *g;
	const uint32_t *weight;   /* NULL: every vertex weighs 1 */
	uint64_t best, upper;
	uint64_t *budget;
	int stop, nomem;
};

static uint32_t popcount_row(const uint64_t *row, uint32_t words)
{
	uint32_t w, n = 0;

	for (w = 0; w < words; w++)
		n += (uint32_t)__builtin_popcountll(row[w]);
	return n;
}

/*
 * Tomita's MCQ, weighted: colour the candidates greedily; the vertices of
 * colour classes 1..k can add at most the sum of those classes' heaviest
 * weights, which prunes most branches.
 */
static void clique_expand(struct clique *q, uint64_t size, uint64_t *cand)
{
	uint32_t words = q->g->words, m = popcount_row(cand, words);
	uint32_t *order = NULL, *cls = NULL, idx = 0, k = 0, i, v, w;
	uint64_t *left = NULL, *avail = NULL, *next = NULL, *bound = NULL;

	if (q->stop)
		return;
	if (*q->budget == 0) {
		q->stop = 1;
		return;
	}
	(*q->budget)--;
	order = malloc(m * sizeof(*order) + 1);
	cls = malloc(m * sizeof(*cls) + 1);
	bound = malloc((m + 1) * sizeof(*bound));
	left = malloc(words * sizeof(*left) * 3 + 1);
	if (!order || !cls || !bound || !left) {
		q->nomem = q->stop = 1;
		goto out;
	}
	avail = left + words;
	next = avail + words;
	memcpy(left, cand, words * sizeof(*left));
	bound[0] = 0;
	while (idx < m) {
		uint64_t heaviest = 0;

		k++;
		memcpy(avail, left, words * sizeof(*avail));
		for (w = 0; w < words; w++) {
			while (avail[w]) {
				const uint64_t *row;
				uint32_t j;

				v = w * 64 + (uint32_t)__builtin_ctzll(avail[w]);
				row = cgs_graph_row(q->g, v);
				cgs_bit_clear(left, v);
				for (j = w; j < words; j++)
					avail[j] &= ~row[j];
				cgs_bit_clear(avail, v);
				order[idx] = v;
				cls[idx] = k;
				idx++;
				if ((q->weight ? q->weight[v] : 1) > heaviest)
					heaviest = q->weight ? q->weight[v] : 1;
			}
		}
		bound[k] = bound[k - 1] + heaviest;
	}
	for (i = m; i-- > 0;) {
		const uint64_t *row;
		uint64_t wv;
		int any = 0;

		if (size + bound[cls[i]] <= q->best || q->stop)
			break;
		v = order[i];
		wv = q->weight ? q->weight[v] : 1;
		row = cgs_graph_row(q->g, v);
		for (w = 0; w < words; w++) {
			next[w] = cand[w] & row[w];
			any |= next[w] != 0;
		}
		if (!any) {
			if (size + wv > q->best)
				q->best = size + wv;
			if (q->best >= q->upper)
				q->stop = 1;
		} else {
			/* the callee consumes next; it is rebuilt each turn */
			clique_expand(q, size + wv, next);
		}
		cgs_bit_clear(cand, v);
	}
out:
	free(order);
	free(cls);
	free(bound);
	free(left);
}

/*
 * A clique found greedily, without search: the vertices by falling
 * degree (ties by index), each kept when it meets every vertex kept
 * before it.  Linear in the graph's bits.  Returns its weight, or a
 * negative CGS_E_* code.
 */
static int64_t clique_greedy(const struct cgs_graph *g,
			     const uint32_t *weight)
{
	uint32_t n = g->n, words = g->words, v, w, d, k;
	uint32_t *key = malloc(((uint64_t)n + 1) * sizeof(*key));
	uint32_t *start = calloc((uint64_t)n + 2, sizeof(*start));
	uint32_t *order = malloc(((uint64_t)n + 1) * sizeof(*order));
	uint64_t *kept = calloc((uint64_t)words + 1, sizeof(*kept));
	int64_t sum = 0;

	if (!key || !start || !order || !kept) {
		sum = CGS_E_NOMEM;
		goto out;
	}
	/* counting sort by degree, highest first: key n - 1 - degree */
	for (v = 0; v < n; v++) {
		d = popcount_row(cgs_graph_row(g, v), words);
		key[v] = d < n ? n - 1 - d : 0;
		start[key[v] + 1]++;
	}
	for (k = 0; k < n; k++)
		start[k + 1] += start[k];
	for (v = 0; v < n; v++)
		order[start[key[v]]++] = v;
	for (d = 0; d < n; d++) {
		const uint64_t *row = cgs_graph_row(g, order[d]);

		for (w = 0; w < words && !(kept[w] & ~row[w]); w++)
			;
		if (w < words)
			continue;
		cgs_bit_set(kept, order[d]);
		sum += weight ? weight[order[d]] : 1;
	}
out:
	free(key);
	free(start);
	free(order);
	free(kept);
	return sum;
}

int64_t cgs_clique_max(const struct cgs_graph *g, const uint32_t *weight,
		       uint64_t known, uint64_t upper, uint64_t *budget)
{
	struct clique q = {.g = g, .weight = weight, .best = known,
			   .upper = upper, .budget = budget};
	uint64_t *cand;
	uint32_t v;
	int64_t greedy;

	if (g->n == 0 || known >= upper)
		return (int64_t)known;
	/*
	 * The search's first branches follow its colour classes and may
	 * spend the budget far from the heaviest cliques (on the large
	 * union graphs of rings that do not divide the counts); a greedy
	 * clique first gives it a floor and its pruning a start.
	 */
	greedy = clique_greedy(g, weight);
	if (greedy < 0)
		return greedy;
	if ((uint64_t)greedy > q.best)
		q.best = (uint64_t)greedy;
	if (q.best >= upper)
		return (int64_t)q.best;
	cand = calloc(g->words, sizeof(*cand));
	if (!cand)
		return CGS_E_NOMEM;
	for (v = 0; v < g->n; v++)
		cgs_bit_set(cand, v);
	clique_expand(&q, 0, cand);
	free(cand);
	if (q.nomem)
		return CGS_E_NOMEM;
	return (int64_t)q.best;
}

/*
 * Placed items are kept in one list sorted by offset, so each new item
 * scans it once, skipping non-neighbours: O(n) per item, no sorting.
 */
/* A placed item of first-fit, in a list kept sorted by offset. */
struct placed {
	uint64_t offset, end;
	uint32_t item;
};

int cgs_pack_first_fit(const struct cgs_graph *g, const uint64_t *size,
		       const uint32_t *order, uint64_t *offset,
		       uint64_t *total)
{
	uint32_t n = g->n, i, j, lo, hi, m = 0;
	struct placed *by_offset = malloc((n ? n : 1) * sizeof(*by_offset));
	uint64_t top = 0;

	if (!by_offset)
		return CGS_E_NOMEM;
	for (i = 0; i < n; i++) {
		uint32_t v = order[i];
		const uint64_t *row = cgs_graph_row(g, v);
		uint64_t at = 0;

		offset[v] = 0;
		if (size[v] == 0)
			continue;
		/*
		 * The lowest gap among the placed neighbours.  Once an item
		 * starts above the gap every later one does (the list is
		 * sorted), so the first such item ends the search whether or
		 * not it is a neighbour.
		 */
		for (j = 0; j < m; j++) {
			const struct placed *u = &by_offset[j];

			if (u->offset >= at + size[v])
				break;
			if (u->end > at && cgs_bit_test(row, u->item))
				at = u->end;
		}
		offset[v] = at;
		if (at + size[v] > top)
			top = at + size[v];
		/* insert after every item that starts at or below `at` */
		lo = 0;
		hi = m;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (by_offset[mid].offset <= at)
				lo = mid + 1;
			else
				hi = mid;
		}
		memmove(by_offset + lo + 1, by_offset + lo,
			(m - lo) * sizeof(*by_offset));
		by_offset[lo] = (struct placed){at, at + size[v], v};
		m++;
	}
	*total = top;
	free(by_offset);
	return 0;
}

/*
 * Tabu search for a k-colouring (the local search of Hertz and de Werra):
 * every vertex keeps a colour, a move recolours one vertex in conflict,
 * the move that removes the most conflicts wins unless it undoes a recent
 * move (then only if it reaches a new best), and an undone move stays
 * forbidden for a tenure that grows with the conflicts left.  gamma[v][c]
 * counts v's neighbours of colour c.  The generator is seeded from the
 * graph's size and k, so the result depends on the graph alone.
 */
struct tabu {
	const struct cgs_graph *g;
	uint32_t n, k;
	uint32_t *col;
	uint32_t *gamma;         /* n * k */
	uint64_t *tabu_until;    /* n * k: iteration a move is allowed again */
	uint32_t *in_conflict;   /* vertices with a neighbour of their colour */
	uint32_t *where;         /* position in in_conflict, or UINT32_MAX */
	uint32_t n_conflict;
	uint64_t conflicts;      /* edges whose ends share a colour */
	uint64_t rng;
};

static void tabu_mark(struct tabu *t, uint32_t v)
{
	int bad = t->gamma[(uint64_t)v * t->k + t->col[v]] > 0;

	if (bad && t->where[v] == UINT32_MAX) {
		t->where[v] = t->n_conflict;
		t->in_conflict[t->n_conflict++] = v;
	} else if (!bad && t->where[v] != UINT32_MAX) {
		uint32_t last = t->in_conflict[--t->n_conflict];

		t->in_conflict[t->where[v]] = last;
		t->where[last] = t->where[v];
		t->where[v] = UINT32_MAX;
	}
}

static void tabu_recolour(struct tabu *t, uint32_t v, uint32_t c)
{
	uint32_t old = t->col[v], u;

	t->conflicts -= t->gamma[(uint64_t)v * t->k + old];
	t->conflicts += t->gamma[(uint64_t)v * t->k + c];
	t->col[v] = c;
	FOR_EACH_BIT(cgs_graph_row(t->g, v), t->g->words, u) {
		t->gamma[(uint64_t)u * t->k + old]--;
		t->gamma[(uint64_t)u * t->k + c]++;
		tabu_mark(t, u);
	}
	tabu_mark(t, v);
}

int cgs_colour_tabu(const struct cgs_graph *g, uint32_t k, uint32_t *colour,
		    uint64_t *budget)
{
	struct tabu t = {.g = g, .n = g->n, .k = k,
			 .rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)g->n << 20) ^ k};
	uint64_t it, cells = (uint64_t)g->n * k;
	uint32_t v, u;
	int rc = 0;

	if (g->n == 0 || k == 0)
		return g->n == 0;
	t.col = malloc(g->n * sizeof(*t.col));
	t.gamma = calloc(cells, sizeof(*t.gamma));
	t.tabu_until = calloc(cells, sizeof(*t.tabu_until));
	t.in_conflict = malloc(g->n * sizeof(*t.in_conflict));
	t.where = malloc(g->n * sizeof(*t.where));
	if (!t.col || !t.gamma || !t.tabu_until || !t.in_conflict || !t.where) {
		rc = CGS_E_NOMEM;
		goto out;
	}
	/* start from the given colouring, colours k and above drawn anew */
	for (v = 0; v < g->n; v++) {
		t.col[v] = colour[v] < k ? colour[v] : cgs_random(&t.rng, k);
		t.where[v] = UINT32_MAX;
	}
	for (v = 0; v < g->n; v++)
		FOR_EACH_BIT(cgs_graph_row(g, v), g->words, u)
			t.gamma[(uint64_t)v * k + t.col[u]]++;
	for (v = 0; v < g->n; v++) {
		t.conflicts += t.gamma[(uint64_t)v * k + t.col[v]];
		tabu_mark(&t, v);
	}
	t.conflicts /= 2;
	for (it = 1; t.conflicts > 0 && *budget > 0; it++) {
		uint32_t i, c, best_v = UINT32_MAX, best_c = 0, ties = 0;
		int64_t best = INT64_MAX;
		/* a move scans the vertices in conflict times the colours */
		uint64_t cost = 1 + (uint64_t)t.n_conflict * k / 1024;

		*budget -= cost < *budget ? cost : *budget;
		for (i = 0; i < t.n_conflict; i++) {
			uint32_t w = t.in_conflict[i];
			const uint32_t *gw = t.gamma + (uint64_t)w * k;

			for (c = 0; c < k; c++) {
				int64_t d = (int64_t)gw[c] - gw[t.col[w]];

				if (c == t.col[w])
					continue;
				/* a forbidden move only when it ends every conflict */
				if (t.tabu_until[(uint64_t)w * k + c] > it &&
				    (int64_t)t.conflicts + d > 0)
					continue;
				if (d < best) {
					best = d;
					best_v = w;
					best_c = c;
					ties = 1;
				} else if (d == best &&
					   cgs_random(&t.rng, ++ties) == 0) {
					best_v = w;
					best_c = c;
				}
			}
		}
		if (best_v == UINT32_MAX)
			continue;   /* every move forbidden: wait a step */
		t.tabu_until[(uint64_t)best_v * k + t.col[best_v]] =
			it + 1 + cgs_random(&t.rng, 10) + t.n_conflict * 6 / 10;
		tabu_recolour(&t, best_v, best_c);
	}
	if (t.conflicts == 0) {
		memcpy(colour, t.col, g->n * sizeof(*colour));
		rc = 1;
	}
out:
	free(t.col);
	free(t.gamma);
	free(t.tabu_until);
	free(t.in_conflict);
	free(t.where);
	return rc;
}
