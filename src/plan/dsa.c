/*
 * Dynamic storage allocation (see dsa.h for the method).
 *
 * Why canonical placements suffice: take any valid placement and move
 * buffers down while one can move; at the end every buffer sits at its
 * alignment above the highest top of its conflicts below it (or at 0).
 * Listing those buffers by offset, each one's offset is fixed by the
 * buffers listed before it.  So a search that places buffers one at a
 * time, in nondecreasing offset, each at align(highest placed conflict
 * top), reaches an optimal placement, and it may refuse a buffer whose
 * spot is below the current level (it is not canonical there).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgslot/error.h"
#include "common/sorted.h"
#include "plan/dsa.h"

#define NONE UINT32_MAX
#define CLIQUE_TAG 0x80000000u /* a trail entry for a clique's top */
/* Candidates kept per search node, best first (at most). */
#define WIDTH 256
/* Priorities tried per target height. */
#define N_PRIORITIES 4
#define PAIR_MAX (1u << 25)

static uint64_t align_up(uint64_t x, uint64_t a)
{
	uint64_t r = x % a;

	return r ? x + (a - r) : x;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* An instance for the search: conflicts and cliques, both as CSR. */
struct problem {
	uint32_t n;
	const uint64_t *size;
	const uint64_t *align;
	uint32_t *nbr_start; /* n + 1 */
	uint32_t *nbr;
	uint32_t nk;
	uint64_t *kweight;   /* sum of member sizes per clique */
	uint32_t *vk_start;  /* n + 1: cliques of each buffer */
	uint32_t *vk;
	uint32_t *km_start;  /* nk + 1: members of each clique */
	uint32_t *km;
	uint64_t grain;      /* gcd of sizes and alignments: offsets' step */
	/* Intervals: the cliques of v are kfirst[v]..klast[v]; else NULL. */
	uint32_t *kfirst, *klast;
	uint32_t *twin;      /* identical buffer that must be placed first */
	uint32_t *rank[N_PRIORITIES];
	uint64_t *width, *area; /* the priorities' static keys */
	/* The priorities the search tries, in turn. */
	const int *prios;
	int n_prios;
	/*
	 * Bisection stops once the heights left to try are within
	 * best >> slack_shift of the best and the last target failed for
	 * want of nodes, not by a whole search (0: it goes on to the grain).
	 */
	unsigned slack_shift;
};

/*
 * Graphs try every priority.  Intervals try the totals first and leave
 * size-first out: on the challenging suite the totals found every
 * placement the search found, and a fourth order only slowed the others.
 */
static const int graph_prios[N_PRIORITIES] = {0, 1, 2, 3};
static const int interval_prios[3] = {2, 1, 0};

static void problem_release(struct problem *p)
{
	int i;

	free(p->nbr_start);
	free(p->nbr);
	free(p->kweight);
	free(p->vk_start);
	free(p->vk);
	free(p->km_start);
	free(p->km);
	free(p->kfirst);
	free(p->klast);
	free(p->twin);
	free(p->width);
	free(p->area);
	for (i = 0; i < N_PRIORITIES; i++)
		free(p->rank[i]);
	memset(p, 0, sizeof(*p));
}

/* Members of every clique (from the cliques of every buffer) and grain. */
static int problem_members(struct problem *p)
{
	uint32_t v, i, *fill;

	p->km_start = calloc((size_t)p->nk + 2, sizeof(*p->km_start));
	p->km = malloc((size_t)p->vk_start[p->n] * sizeof(*p->km) + 1);
	fill = calloc((size_t)p->nk + 1, sizeof(*fill));
	if (!p->km_start || !p->km || !fill) {
		free(fill);
		return CGS_E_NOMEM;
	}
	for (i = 0; i < p->vk_start[p->n]; i++)
		p->km_start[p->vk[i] + 1]++;
	for (i = 0; i < p->nk; i++)
		p->km_start[i + 1] += p->km_start[i];
	for (v = 0; v < p->n; v++)
		for (i = p->vk_start[v]; i < p->vk_start[v + 1]; i++)
			p->km[p->km_start[p->vk[i]] + fill[p->vk[i]]++] = v;
	free(fill);
	p->grain = 0;
	for (v = 0; v < p->n; v++)
		p->grain = cgs_gcd(cgs_gcd(p->grain, p->size[v]), p->align[v]);
	if (p->grain == 0)
		p->grain = 1;
	return 0;
}

/* ---- ranks: the order in which equal-offset candidates are tried ---- */

/* qsort contexts: one per thread, since the planner packs on threads */
static _Thread_local const uint64_t *sort_key1, *sort_key2, *sort_key3;

/* Larger key1 first, then larger key2, then the lower index. */
static int by_keys_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sort_key1[x] != sort_key1[y])
		return sort_key1[x] > sort_key1[y] ? -1 : 1;
	if (sort_key2[x] != sort_key2[y])
		return sort_key2[x] > sort_key2[y] ? -1 : 1;
	if (sort_key3[x] != sort_key3[y])
		return sort_key3[x] > sort_key3[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * rank[i][v] for four priorities over width (lifetime, or the conflicting
 * bytes of a graph vertex), area (size * width), total (the heaviest
 * clique of the buffer) and size, each largest first: width-area-total,
 * total-area-width, total-width-area and size-width-total.
 */
static int problem_ranks(struct problem *p, const uint64_t *width,
			 const uint64_t *early)
{
	uint32_t n = p->n, v, i;
	uint64_t *area = malloc((size_t)n * sizeof(*area) + 1);
	uint64_t *wcopy = malloc((size_t)n * sizeof(*wcopy) + 1);
	uint32_t *order = malloc((size_t)n * sizeof(*order) + 1);
	uint64_t *total = calloc((size_t)n + 1, sizeof(*total));
	const uint64_t *k1[N_PRIORITIES], *k2[N_PRIORITIES], *k3[N_PRIORITIES];
	int r;

	(void)early;
	if (!area || !order || !total || !wcopy)
		goto nomem;
	memcpy(wcopy, width, (size_t)n * sizeof(*wcopy));
	p->width = wcopy;
	p->area = area;
	wcopy = NULL;
	for (v = 0; v < n; v++) {
		uint64_t w = width[v] > 0 ? width[v] : 1;

		area[v] = p->size[v] > UINT64_MAX / w ? UINT64_MAX :
			  p->size[v] * w;
	}
	if (problem_members(p))
		goto nomem;
	/* total: the heaviest clique the buffer belongs to. */
	for (v = 0; v < n; v++)
		for (i = p->vk_start[v]; i < p->vk_start[v + 1]; i++)
			if (p->kweight[p->vk[i]] > total[v])
				total[v] = p->kweight[p->vk[i]];
	p->prios = graph_prios;
	p->n_prios = N_PRIORITIES;
	k1[0] = width, k2[0] = area, k3[0] = total;
	k1[1] = total, k2[1] = area, k3[1] = width;
	k1[2] = total, k2[2] = width, k3[2] = area;
	k1[3] = p->size, k2[3] = width, k3[3] = total;
	for (r = 0; r < N_PRIORITIES; r++) {
		p->rank[r] = malloc((size_t)n * sizeof(uint32_t) + 1);
		if (!p->rank[r])
			goto nomem;
		for (v = 0; v < n; v++)
			order[v] = v;
		sort_key1 = k1[r];
		sort_key2 = k2[r];
		sort_key3 = k3[r];
		qsort(order, n, sizeof(*order), by_keys_desc);
		for (i = 0; i < n; i++)
			p->rank[r][order[i]] = i;
	}
	free(order);
	free(total);
	return 0;
nomem:
	if (p->area != area)
		free(area);
	free(wcopy);
	free(order);
	free(total);
	return CGS_E_NOMEM;
}

/* ---- the branch and bound ---- */

/* How many of the heaviest cliques a graph node lists (struct search). */
#define HEAVY_CLIQUES 16u

struct search {
	const struct problem *p;
	/*
	 * The rank of each buffer under priority prio; a part split off
	 * (intervals) ranks its members again by what is left of them.
	 */
	uint32_t *rank;
	int prio;
	uint64_t *total;    /* scratch for ranking a part */
	uint64_t cap;
	uint8_t *placed;
	uint64_t *off;
	uint64_t *d;        /* canonical offset: highest top of placed
			     * conflicts, aligned up */
	uint32_t *free_nbr; /* conflicts not yet placed */
	uint64_t *top;      /* highest top of placed members, per clique */
	uint64_t *rem;      /* bytes of members not yet placed, per clique */
	uint64_t *pre, *suf; /* running maxima of rem (interval cliques) */
	/*
	 * Graphs: the n_heavy (at most HEAVY_CLIQUES) cliques of most bytes
	 * unplaced, most first, for graph_level_fits: made by a node's scan
	 * when it first needs them, and good until that scan ends.
	 */
	uint32_t heavy[HEAVY_CLIQUES];
	uint32_t n_heavy;
	uint32_t *trail_idx;
	uint64_t *trail_old;
	size_t trail_n, trail_cap;
	uint32_t n_placed;
	uint32_t *log_v;    /* placements in order, for undoing */
	size_t *log_mark;   /* trail length before each */
	uint32_t log_n;
	uint32_t *cuts;     /* unplaced buffers crossing each clique boundary */
	/*
	 * Members of each clique with the unplaced ones first: clique kk's
	 * unplaced members are mk[km_start[kk] .. + n_free[kk]).  at[j] is
	 * where membership j (of p->vk) sits in mk, back[i] the membership
	 * at mk[i].  Undoing in reverse order restores the sets.
	 */
	uint32_t *mk, *at, *back, *n_free;
	/* Per clique, the member that last passed the floor scan (a hint). */
	uint32_t *witness;
	uint32_t width;     /* candidates per node: min(n, WIDTH) */
	uint32_t *cand;     /* per placement depth: width candidates */
	uint64_t *cand_e;   /* and their offsets */
	uint32_t *all;      /* 0..n-1 */
	uint64_t spent, budget;
	int exhausted;      /* the last run searched its whole tree */
	int pruned;         /* the last move left a buffer no room */
	uint64_t nodes;
	double deadline;    /* 0: none */
	int out_of_time;
};

static void search_release(struct search *s)
{
	free(s->rank);
	free(s->total);
	free(s->placed);
	free(s->off);
	free(s->d);
	free(s->free_nbr);
	free(s->top);
	free(s->rem);
	free(s->pre);
	free(s->suf);
	free(s->trail_idx);
	free(s->trail_old);
	free(s->log_v);
	free(s->log_mark);
	free(s->cuts);
	free(s->mk);
	free(s->at);
	free(s->back);
	free(s->n_free);
	free(s->witness);
	free(s->all);
	free(s->cand);
	free(s->cand_e);
	memset(s, 0, sizeof(*s));
}

static int search_init(struct search *s, const struct problem *p)
{
	size_t n = p->n, nk = p->nk;

	memset(s, 0, sizeof(*s));
	s->p = p;
	/* Enough for every placement on one path; trail_push grows it if not. */
	s->trail_cap = (size_t)p->nbr_start[n] + p->vk_start[n] + 1;
	s->rank = calloc(n + 1, sizeof(*s->rank));
	s->total = calloc(n + 1, sizeof(*s->total));
	s->placed = calloc(n + 1, 1);
	s->off = calloc(n + 1, sizeof(*s->off));
	s->d = calloc(n + 1, sizeof(*s->d));
	s->free_nbr = calloc(n + 1, sizeof(*s->free_nbr));
	s->top = calloc(nk + 1, sizeof(*s->top));
	s->rem = calloc(nk + 1, sizeof(*s->rem));
	s->pre = calloc(nk + 2, sizeof(*s->pre));
	s->suf = calloc(nk + 2, sizeof(*s->suf));
	s->trail_idx = malloc(s->trail_cap * sizeof(*s->trail_idx));
	s->trail_old = malloc(s->trail_cap * sizeof(*s->trail_old));
	s->log_v = calloc(n + 1, sizeof(*s->log_v));
	s->log_mark = calloc(n + 1, sizeof(*s->log_mark));
	s->cuts = calloc(nk + 1, sizeof(*s->cuts));
	s->mk = malloc(((size_t)p->vk_start[n] + 1) * sizeof(*s->mk));
	s->at = malloc(((size_t)p->vk_start[n] + 1) * sizeof(*s->at));
	s->back = malloc(((size_t)p->vk_start[n] + 1) * sizeof(*s->back));
	s->n_free = calloc(nk + 1, sizeof(*s->n_free));
	s->witness = calloc(nk + 1, sizeof(*s->witness));
	s->all = calloc(n + 1, sizeof(*s->all));
	s->width = n < WIDTH ? (uint32_t)n + 1 : WIDTH;
	s->cand = malloc((n + 1) * s->width * sizeof(*s->cand));
	s->cand_e = malloc((n + 1) * s->width * sizeof(*s->cand_e));
	if (!s->rank || !s->total || !s->placed || !s->off || !s->d || !s->free_nbr || !s->top ||
	    !s->rem || !s->trail_idx || !s->trail_old || !s->pre || !s->suf ||
	    !s->log_v || !s->log_mark || !s->cuts || !s->all || !s->cand ||
	    !s->cand_e || !s->mk || !s->at || !s->back || !s->n_free ||
	    !s->witness) {
		search_release(s);
		return CGS_E_NOMEM;
	}
	for (n = 0; n < p->n; n++)
		s->all[n] = (uint32_t)n;
	return 0;
}

static void search_reset(struct search *s, int prio, uint64_t cap)
{
	const struct problem *p = s->p;
	uint32_t v;

	s->prio = prio;
	memcpy(s->rank, p->rank[prio], (size_t)p->n * sizeof(*s->rank));
	s->cap = cap;
	memset(s->placed, 0, p->n);
	memset(s->d, 0, (size_t)p->n * sizeof(*s->d));
	memset(s->top, 0, (size_t)p->nk * sizeof(*s->top));
	memcpy(s->rem, p->kweight, (size_t)p->nk * sizeof(*s->rem));
	memset(s->cuts, 0, (size_t)p->nk * sizeof(*s->cuts));
	for (v = 0; v < p->nk; v++) {
		s->n_free[v] = 0;
		s->witness[v] = p->km[p->km_start[v]];
	}
	for (v = 0; v < p->n; v++) {
		uint32_t j;

		for (j = p->vk_start[v]; j < p->vk_start[v + 1]; j++) {
			uint32_t kk = p->vk[j], i = p->km_start[kk] + s->n_free[kk]++;

			s->mk[i] = v;
			s->at[j] = i;
			s->back[i] = j;
		}
		s->free_nbr[v] = p->nbr_start[v + 1] - p->nbr_start[v];
		if (p->kfirst) {
			uint32_t c;

			for (c = p->kfirst[v]; c < p->klast[v]; c++)
				s->cuts[c]++;
		}
	}
	s->trail_n = 0;
	s->log_n = 0;
	s->n_placed = 0;
}

/* Record a value before changing it; 0 when the trail is full. */
static int trail_push(struct search *s, uint32_t idx, uint64_t old)
{
	if (s->trail_n == s->trail_cap) {
		size_t cap = s->trail_cap * 2;
		uint32_t *i = realloc(s->trail_idx, cap * sizeof(*i));
		uint64_t *o;

		if (!i)
			return 0;
		s->trail_idx = i;
		o = realloc(s->trail_old, cap * sizeof(*o));
		if (!o)
			return 0;
		s->trail_old = o;
		s->trail_cap = cap;
	}
	s->trail_idx[s->trail_n] = idx;
	s->trail_old[s->trail_n++] = old;
	return 1;
}

/* Graphs: list the heaviest cliques of this node in s->heavy. */
static void heavy_cliques(struct search *s)
{
	const struct problem *p = s->p;
	uint32_t kk, j, n = 0;

	for (kk = 0; kk < p->nk; kk++) {
		uint64_t r = s->rem[kk];

		if (r == 0 || (n == HEAVY_CLIQUES &&
			       r <= s->rem[s->heavy[n - 1]]))
			continue;
		j = n < HEAVY_CLIQUES ? n++ : n - 1;
		for (; j > 0 && s->rem[s->heavy[j - 1]] < r; j--)
			s->heavy[j] = s->heavy[j - 1];
		s->heavy[j] = kk;
	}
	s->n_heavy = n;
}

/* Whether clique kk is one of v's (listed in increasing order). */
static int in_clique(const struct problem *p, uint32_t v, uint32_t kk)
{
	return cgs_sorted_u32_has(p->vk + p->vk_start[v],
				  p->vk_start[v + 1] - p->vk_start[v], kk);
}

/*
 * Graphs: whether every clique without v fits above level e (e <= cap).
 * The cliques that do not are the heaviest ones: s->heavy answers unless
 * every clique it lists is too heavy and v's, and others may be too.
 */
static int graph_level_fits(const struct search *s, uint32_t v, uint64_t e)
{
	const struct problem *p = s->p;
	uint32_t kk, i;

	for (i = 0; i < s->n_heavy; i++) {
		kk = s->heavy[i];
		if (e + s->rem[kk] <= s->cap)
			return 1;   /* and every clique after it */
		if (!in_clique(p, v, kk))
			return 0;
	}
	if (s->n_heavy < HEAVY_CLIQUES)
		return 1;           /* it listed every clique with bytes left */
	i = p->vk_start[v];
	/* v's cliques are listed in increasing order. */
	for (kk = 0; kk < p->nk; kk++) {
		while (i < p->vk_start[v + 1] && p->vk[i] < kk)
			i++;
		if (i < p->vk_start[v + 1] && p->vk[i] == kk)
			continue;
		if (e + s->rem[kk] > s->cap)
			return 0;
	}
	return 1;
}

/* Whether placing v at e keeps every clique's remaining bytes in cap. */
static int search_fits(struct search *s, uint32_t v, uint64_t e)
{
	const struct problem *p = s->p;
	uint64_t sz = p->size[v], t = e + sz;
	uint32_t i, kk;

	for (i = p->vk_start[v]; i < p->vk_start[v + 1]; i++) {
		kk = p->vk[i];
		if ((s->top[kk] > t ? s->top[kk] : t) + s->rem[kk] - sz >
		    s->cap)
			return 0;
	}
	return 1;
}

static int search_place(struct search *s, uint32_t v, uint64_t e)
{
	const struct problem *p = s->p;
	uint64_t sz = p->size[v], t = e + sz;
	uint32_t i, kk, u;
	int ok = 1;

	s->placed[v] = 1;
	s->off[v] = e;
	s->n_placed++;
	if (p->kfirst)
		for (i = p->kfirst[v]; i < p->klast[v]; i++)
			s->cuts[i]--;
	for (i = p->vk_start[v]; i < p->vk_start[v + 1]; i++) {
		uint32_t a, b, jb;

		kk = p->vk[i];
		/* Move v past the clique's unplaced members. */
		a = s->at[i];
		b = p->km_start[kk] + --s->n_free[kk];
		jb = s->back[b];
		s->mk[a] = s->mk[b];
		s->at[jb] = a;
		s->back[a] = jb;
		s->mk[b] = v;
		s->at[i] = b;
		s->back[b] = i;
		s->rem[kk] -= sz;
		if (s->top[kk] < t) {
			ok &= trail_push(s, kk | CLIQUE_TAG, s->top[kk]);
			s->top[kk] = t;
		}
	}
	for (i = p->nbr_start[v]; i < p->nbr_start[v + 1]; i++) {
		u = p->nbr[i];
		s->free_nbr[u]--;
		if (!s->placed[u] && s->d[u] < t) {
			uint64_t a = p->align[u] == 1 ? t :
				     align_up(t, p->align[u]);

			ok &= trail_push(s, u, s->d[u]);
			s->d[u] = a;
			if (a + p->size[u] > s->cap)
				s->pruned = 1;
		}
	}
	return ok;
}

/* Take back the placement of `move` and what it changed since `mark`. */
static void search_undo(struct search *s, uint32_t move, size_t mark)
{
	const struct problem *p = s->p;
	uint32_t i;

	while (s->trail_n > mark) {
		uint32_t idx = s->trail_idx[--s->trail_n];

		if (idx & CLIQUE_TAG)
			s->top[idx & ~CLIQUE_TAG] = s->trail_old[s->trail_n];
		else
			s->d[idx] = s->trail_old[s->trail_n];
	}
	for (i = p->vk_start[move]; i < p->vk_start[move + 1]; i++) {
		s->rem[p->vk[i]] += p->size[move];
		s->n_free[p->vk[i]]++;
	}
	for (i = p->nbr_start[move]; i < p->nbr_start[move + 1]; i++)
		s->free_nbr[p->nbr[i]]++;
	s->placed[move] = 0;
	s->n_placed--;
	if (p->kfirst)
		for (i = p->kfirst[move]; i < p->klast[move]; i++)
			s->cuts[i]++;
}

/*
 * The search proper, over partitions.  For intervals, a boundary between
 * two neighbouring cliques that no unplaced buffer crosses splits what is
 * left into parts that share no conflict: each part is searched alone,
 * from offset 0 again, and a part that fails fails the placement that
 * made the cut without retrying the others' choices.
 */
#define ABORTED (-2)

/* Undo placements down to log length `to`. */
static void log_undo(struct search *s, uint32_t to)
{
	while (s->log_n > to) {
		s->log_n--;
		search_undo(s, s->log_v[s->log_n], s->log_mark[s->log_n]);
	}
}

static int part_dfs(struct search *s, uint32_t *mem, uint32_t nm,
		    uint32_t ka, uint32_t kb, uint64_t lam, uint32_t last);

/*
 * Rank the ns buffers of sub again under the search's priority, with
 * their totals taken from what is left unplaced in their cliques: the
 * part is a problem of its own.  old[0, ns) gets the buffers and
 * old[ns, 2 ns) their former ranks, for putting them back.
 */
static void part_rank(struct search *s, uint32_t *sub, uint32_t ns,
		      uint32_t *old)
{
	const struct problem *p = s->p;
	uint32_t i, kk;

	for (i = 0; i < ns; i++) {
		uint32_t v = sub[i];
		uint64_t t = 0;

		for (kk = p->kfirst[v]; kk <= p->klast[v]; kk++)
			if (s->rem[kk] > t)
				t = s->rem[kk];
		s->total[v] = t;
	}
	switch (s->prio) {
	case 0:
		sort_key1 = p->width, sort_key2 = p->area, sort_key3 = s->total;
		break;
	case 1:
		sort_key1 = s->total, sort_key2 = p->area, sort_key3 = p->width;
		break;
	case 2:
		sort_key1 = s->total, sort_key2 = p->width, sort_key3 = p->area;
		break;
	default:
		sort_key1 = p->size, sort_key2 = p->width, sort_key3 = s->total;
		break;
	}
	qsort(sub, ns, sizeof(*sub), by_keys_desc);
	for (i = 0; i < ns; i++) {
		old[i] = sub[i];
		old[ns + i] = s->rank[sub[i]];
		s->rank[sub[i]] = i;
	}
}

/* Search every part between the cuts in [ka, kb); 1 when all succeed. */
static int part_split(struct search *s, uint32_t *mem, uint32_t nm,
		      uint32_t ka, uint32_t kb)
{
	const struct problem *p = s->p;
	uint32_t *sub = malloc(3 * ((size_t)nm + 1) * sizeof(*sub));
	uint32_t *old = sub + nm + 1;
	uint32_t a = ka, c, i, ns;
	int r = 1;

	if (!sub)
		return -1;
	for (c = ka; c < kb && r == 1; c++) {
		if (c + 1 < kb && s->cuts[c] != 0)
			continue;
		/* [a, c] is a part. */
		ns = 0;
		for (i = 0; i < nm; i++) {
			uint32_t v = mem[i];

			if (!s->placed[v] && p->kfirst[v] <= c &&
			    p->klast[v] >= a)
				sub[ns++] = v;
		}
		if (ns > 0) {
			part_rank(s, sub, ns, old);
			r = part_dfs(s, sub, ns, a, c + 1, 0, NONE);
			for (i = 0; i < ns; i++)
				s->rank[old[i]] = old[ns + i];
		}
		a = c + 1;
	}
	free(sub);
	return r;
}

/*
 * A node's candidates: the `width` best by offset, then rank, kept as a
 * heap with the worst of them on top (worst 1) while the part is
 * scanned, then as one with the best on top (worst 0), taken from the
 * top as the search tries them: most nodes try only the first few.
 */
static int heap_above(const struct search *s, const uint32_t *cand,
		      const uint64_t *ce, uint32_t a, uint32_t b, int worst)
{
	int a_worse = ce[a] > ce[b] ||
		      (ce[a] == ce[b] && s->rank[cand[a]] > s->rank[cand[b]]);

	return worst ? a_worse : !a_worse && a != b;
}

static void heap_swap(uint32_t *cand, uint64_t *ce, uint32_t a, uint32_t b)
{
	uint32_t v = cand[a];
	uint64_t e = ce[a];

	cand[a] = cand[b];
	ce[a] = ce[b];
	cand[b] = v;
	ce[b] = e;
}

static void heap_up(const struct search *s, uint32_t *cand, uint64_t *ce,
		    uint32_t j)
{
	while (j > 0 && heap_above(s, cand, ce, j, (j - 1) / 2, 1)) {
		heap_swap(cand, ce, j, (j - 1) / 2);
		j = (j - 1) / 2;
	}
}

static void heap_down(const struct search *s, uint32_t *cand, uint64_t *ce,
		      uint32_t j, uint32_t n, int worst)
{
	for (;;) {
		uint32_t w = j, l = 2 * j + 1;

		if (l < n && heap_above(s, cand, ce, l, w, worst))
			w = l;
		if (l + 1 < n && heap_above(s, cand, ce, l + 1, w, worst))
			w = l + 1;
		if (w == j)
			return;
		heap_swap(cand, ce, j, w);
		j = w;
	}
}

static int part_dfs(struct search *s, uint32_t *mem, uint32_t nm,
		    uint32_t ka, uint32_t kb, uint64_t lam, uint32_t last)
{
	const struct problem *p = s->p;
	/* Every active call entered at its own placement depth. */
	uint32_t *cand = s->cand + (size_t)s->log_n * s->width;
	uint64_t *ce = s->cand_e + (size_t)s->log_n * s->width;
	uint64_t min_height = UINT64_MAX, gmax = 0;
	uint32_t v, i, j, kk, left = 0, width = s->width;
	unsigned nc = 0;
	int have_pre = 0;   /* pre[] (intervals) or heavy[] (graphs) made */

	/*
	 * Each clique's members sit above its top, the level and the lowest
	 * canonical offset among them.  On the way (from the right) the
	 * running maxima of rem from the right end, for the moves below.
	 */
	s->suf[kb] = 0;
	for (kk = kb; kk-- > ka;) {
		uint64_t fl, lo = UINT64_MAX, room;
		uint32_t end;

		s->suf[kk] = s->rem[kk] > s->suf[kk + 1] ? s->rem[kk] :
			     s->suf[kk + 1];
		if (s->rem[kk] == 0)
			continue;
		fl = s->top[kk] > lam ? s->top[kk] : lam;
		if (fl + s->rem[kk] > s->cap)
			return 0;
		/*
		 * Only a floor raised by every member can prune more, and only
		 * above cap - rem: the first member at or below it settles it.
		 */
		room = s->cap - s->rem[kk];
		v = s->witness[kk];
		if (!s->placed[v] && s->d[v] <= room)
			continue;
		end = p->km_start[kk] + s->n_free[kk];
		for (i = p->km_start[kk]; i < end && lo > room; i++)
			if (s->d[s->mk[i]] < lo) {
				lo = s->d[s->mk[i]];
				s->witness[kk] = s->mk[i];
			}
		if (lo > room)
			return 0;
	}
	gmax = s->suf[ka];
	/*
	 * One pass over the part: the unplaced members move to the front of
	 * mem, and only they go on to the moves below (deeper calls permute
	 * mem[0, left) and undo their placements, so the set is whole again
	 * when they return); the lowest top they can reach; and the
	 * candidates, best first, those at or above that top dropped at the
	 * end (ordered by offset, they are a suffix).
	 */
	for (i = 0; i < nm; i++) {
		uint64_t e, h;
		uint32_t r;

		v = mem[i];
		if (s->placed[v])
			continue;
		mem[i] = mem[left];
		mem[left++] = v;
		e = s->d[v];
		h = e + p->size[v];
		if (h > s->cap)
			return 0; /* d only grows */
		if (h < min_height)
			min_height = h;
		if (e < lam) {
			if (s->free_nbr[v] == 0)
				return 0; /* stuck below the level */
			continue;
		}
		if (e >= min_height)
			continue;
		if (p->twin[v] != NONE && !s->placed[p->twin[v]])
			continue;
		r = s->rank[v];
		if (last != NONE && e == lam && r < s->rank[last])
			continue;
		if (e + gmax <= s->cap) {
			/* every clique fits above e */
		} else if (p->kfirst) {
			uint32_t f = p->kfirst[v] > ka ? p->kfirst[v] : ka;
			uint32_t l = p->klast[v] + 1 < kb ? p->klast[v] + 1 : kb;
			uint64_t a, b;

			if (!have_pre) {
				/* running maxima of rem from the left, once */
				s->pre[ka] = 0;
				for (kk = ka; kk < kb; kk++)
					s->pre[kk + 1] = s->rem[kk] > s->pre[kk] ?
							 s->rem[kk] : s->pre[kk];
				have_pre = 1;
			}
			a = s->pre[f];
			b = s->suf[l];
			if (e + (a > b ? a : b) > s->cap)
				continue;
		} else {
			if (!have_pre) {
				heavy_cliques(s);   /* once a node */
				have_pre = 1;
			}
			if (!graph_level_fits(s, v, e))
				continue;
		}
		if (nc < width) {
			cand[nc] = v;
			ce[nc] = e;
			heap_up(s, cand, ce, nc++);
		} else if (ce[0] > e || (ce[0] == e && s->rank[cand[0]] > r)) {
			cand[0] = v;
			ce[0] = e;
			heap_down(s, cand, ce, 0, nc, 1);
		}
	}
	if (left == 0)
		return 1;
	nm = left;
	/* best first, up to the first at or above that top */
	for (j = nc / 2; j-- > 0;)
		heap_down(s, cand, ce, j, nc, 0);
	while (nc > 0 && ce[0] < min_height) {
		uint32_t mark = s->log_n, c, split = 0;
		uint64_t e = ce[0];
		int r;

		v = cand[0];
		heap_swap(cand, ce, 0, --nc);
		heap_down(s, cand, ce, 0, nc, 0);
		if (++s->spent > s->budget)
			return ABORTED;
		if ((s->spent & 1023) == 0 && s->deadline > 0 &&
		    now_s() > s->deadline) {
			s->out_of_time = 1;
			return ABORTED;
		}
		if (!search_fits(s, v, e))
			continue;
		s->pruned = 0;
		s->log_v[s->log_n] = v;
		s->log_mark[s->log_n++] = s->trail_n;
		if (!search_place(s, v, e))
			return -1;
		if (s->pruned) {
			log_undo(s, mark);
			continue;
		}
		if (p->kfirst)
			for (c = p->kfirst[v]; c < p->klast[v]; c++)
				if (c >= ka && c + 1 < kb && s->cuts[c] == 0)
					split = 1;
		r = split ? part_split(s, mem, nm, ka, kb) :
			    part_dfs(s, mem, nm, ka, kb, e, v);
		if (r == 1 || r == -1)
			return r;
		log_undo(s, mark);
		if (r == ABORTED)
			return r;
		/*
		 * v had no unplaced conflict: it sits at e in every completion,
		 * and each later move (at e or above) leaves it there or below
		 * the level, so none of them can succeed where v failed.
		 */
		if (s->free_nbr[v] == 0)
			return 0;
	}
	return 0;
}

/*
 * Look for a placement of height <= s->cap within `budget` nodes.
 * Returns 1 with s->off filled, 0 when none was found, -1 when memory ran
 * out.
 */
static int search_run(struct search *s, uint64_t budget)
{
	const struct problem *p = s->p;
	int r;

	s->spent = 0;
	s->budget = budget;
	r = part_dfs(s, s->all, p->n, 0, p->nk, 0, NONE);
	s->nodes += s->spent > budget ? budget : s->spent;
	s->exhausted = r == 0;
	return r == ABORTED ? 0 : r;
}

static uint64_t height_of(uint32_t n, const uint64_t *size,
			  const uint64_t *off)
{
	uint64_t h = 0;
	uint32_t v;

	for (v = 0; v < n; v++)
		if (off[v] + size[v] > h)
			h = off[v] + size[v];
	return h;
}

/*
 * Look for a placement of height <= cap within `share` nodes: every
 * priority in turn under a node limit that doubles each round, so that
 * whichever finds one quickly does.  Returns 1, 0, or -1 (no memory).
 */
static int search_decide(struct search *s, uint64_t cap, uint64_t share,
			 uint64_t *spent)
{
	uint64_t limit = s->p->n, used = 0;
	int r, found = 0;

	while (!found && used < share && !s->out_of_time) {
		limit *= 2;
		for (r = 0; r < s->p->n_prios && !found && used < share &&
			    !s->out_of_time; r++) {
			uint64_t before = s->nodes, run = limit;

			if (run > share - used)
				run = share - used;
			search_reset(s, s->p->prios[r], cap);
			found = search_run(s, run);
			used += s->nodes - before;
			/* A whole tree searched: no other order finds more. */
			if (s->exhausted) {
				*spent += used;
				return 0;
			}
		}
	}
	*spent += used;
	return found;
}

/*
 * Improve `offset` (height *best, valid) towards the bound: ask for the
 * bound itself, then bisect.  Each target gets a share of the budget,
 * split over the priorities; the first placement found wins.
 */
static int search_improve(const struct problem *p, uint64_t bound,
			  const struct cgs_dsa_options *opt, double start,
			  uint64_t *offset, uint64_t *best, uint64_t *nodes)
{
	struct search s;
	uint64_t budget = opt && opt->node_budget ? opt->node_budget :
			  CGS_DSA_DEFAULT_NODES;
	/*
	 * Every canonical height is a multiple of the grain (offsets are
	 * tops of sizes, aligned): targets step by grains.
	 */
	uint64_t g = p->grain, spent = 0, lo, hi, cap_goal;
	int rc, first = 1, undecided = 0;

	cap_goal = opt && opt->capacity ? opt->capacity : 0;
	if (*best <= bound || (cap_goal && *best <= cap_goal))
		return 0;
	rc = search_init(&s, p);
	if (rc)
		return rc;
	if (opt && opt->time_limit > 0)
		s.deadline = start + opt->time_limit;
	lo = bound + (g - bound % g) % g;
	hi = (*best - 1) / g * g;
	while (lo <= hi && spent < budget && !s.out_of_time) {
		if (!first && p->slack_shift && undecided &&
		    hi - lo < *best >> p->slack_shift)
			break;
		/* The bound first, then the middle of what is left; with a
		 * capacity, the capacity itself: any height within it will do. */
		uint64_t cap = first ? lo : lo + (hi - lo) / g / 2 * g;
		uint64_t share = first ? budget / 2 : (budget - spent) / 3;
		int found = 0;

		if (cap_goal && cap_goal > lo)
			cap = cap_goal < hi ? cap_goal / g * g : hi;
		/*
		 * A capacity the bound allows is a yes-or-no question: it gets
		 * the whole budget (a height above it would fail anyway).
		 */
		if (first && cap_goal && cap_goal >= lo)
			share = budget;
		if (share < 1000)
			share = budget - spent;
		found = search_decide(&s, cap, share, &spent);
		if (found < 0) {
			search_release(&s);
			return CGS_E_NOMEM;
		}
		if (found) {
			memcpy(offset, s.off, (size_t)p->n * sizeof(*offset));
			*best = height_of(p->n, p->size, offset);
			hi = (*best - 1) / g * g;
			if (cap_goal && *best <= cap_goal)
				break;
		} else {
			lo = cap + g;
		}
		undecided = !found && !s.exhausted;
		first = 0;
	}
	*nodes += spent;
	search_release(&s);
	return 0;
}

/* ---- intervals ---- */

struct event {
	int64_t t;
	uint32_t v;
	uint32_t start; /* 0 end, 1 start: ends sort first at equal times */
};

static int by_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

static struct event *sorted_events(uint32_t n, const int64_t *lower,
				   const int64_t *upper)
{
	struct event *ev = malloc(2 * (size_t)n * sizeof(*ev) + 1);
	uint32_t v;

	if (!ev)
		return NULL;
	for (v = 0; v < n; v++) {
		ev[2 * v] = (struct event){lower[v], v, 1};
		ev[2 * v + 1] = (struct event){upper[v], v, 0};
	}
	qsort(ev, 2 * (size_t)n, sizeof(*ev), by_event);
	return ev;
}

int cgs_dsa_interval_bound(uint32_t n, const int64_t *lower,
			   const int64_t *upper, const uint64_t *size,
			   uint64_t *bound)
{
	struct event *ev = sorted_events(n, lower, upper);
	uint64_t live = 0, best = 0;
	size_t i;

	if (!ev)
		return CGS_E_NOMEM;
	for (i = 0; i < 2 * (size_t)n; i++) {
		if (ev[i].start) {
			live += size[ev[i].v];
			if (live > best)
				best = live;
		} else {
			live -= size[ev[i].v];
		}
	}
	free(ev);
	*bound = best;
	return 0;
}

/*
 * The skyline greedy.  Time is cut into sections between consecutive
 * distinct event times; the skyline is a list of runs of sections at one
 * floor.  Repeatedly take the lowest run [a, b] (leftmost on ties): at
 * the leftmost section g of the run where an unplaced buffer starts and
 * ends inside the run, place the widest such buffer at the run's floor;
 * when none fits, raise the whole run to the lowest floor a buffer
 * covering it can still take (its left neighbour's, or its right
 * neighbour's when buffers start in it and cross its right end).
 */
struct heap_item {
	uint64_t floor;
	uint32_t start;
};

struct skyline {
	uint32_t m;           /* sections */
	uint32_t *run_end;    /* at run starts: last section of the run */
	uint32_t *run_prev;   /* at run starts: previous run start or NONE */
	uint64_t *run_floor;  /* at run starts */
	uint8_t *is_start;
	struct heap_item *heap;
	size_t heap_n, heap_cap;
	int nomem;
};

static int heap_less(const struct heap_item *a, const struct heap_item *b)
{
	if (a->floor != b->floor)
		return a->floor < b->floor;
	return a->start < b->start;
}

static void heap_push(struct skyline *k, uint64_t floor, uint32_t start)
{
	size_t i;

	if (k->heap_n == k->heap_cap) {
		size_t cap = k->heap_cap * 2 + 16;
		struct heap_item *h = realloc(k->heap, cap * sizeof(*h));

		if (!h) {
			k->nomem = 1;
			return;
		}
		k->heap = h;
		k->heap_cap = cap;
	}
	i = k->heap_n++;

	k->heap[i] = (struct heap_item){floor, start};
	while (i > 0) {
		size_t up = (i - 1) / 2;
		struct heap_item t;

		if (!heap_less(&k->heap[i], &k->heap[up]))
			break;
		t = k->heap[i];
		k->heap[i] = k->heap[up];
		k->heap[up] = t;
		i = up;
	}
}

static struct heap_item heap_pop(struct skyline *k)
{
	struct heap_item top = k->heap[0];
	size_t i = 0;

	k->heap[0] = k->heap[--k->heap_n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct heap_item t;

		if (l < k->heap_n && heap_less(&k->heap[l], &k->heap[m]))
			m = l;
		if (r < k->heap_n && heap_less(&k->heap[r], &k->heap[m]))
			m = r;
		if (m == i)
			break;
		t = k->heap[i];
		k->heap[i] = k->heap[m];
		k->heap[m] = t;
		i = m;
	}
	return top;
}

/* Make [a, b] a run at floor f, merging with equal neighbours. */
static void set_run(struct skyline *k, uint32_t a, uint32_t b, uint64_t f,
		    uint32_t prev)
{
	uint32_t next = b + 1;

	if (prev != NONE && k->run_floor[prev] == f) {
		k->is_start[a] = 0;
		a = prev;
		prev = k->run_prev[prev];
	}
	if (next < k->m && k->run_floor[next] == f) {
		k->is_start[next] = 0;
		b = k->run_end[next];
	}
	k->is_start[a] = 1;
	k->run_end[a] = b;
	k->run_floor[a] = f;
	k->run_prev[a] = prev;
	if (b + 1 < k->m)
		k->run_prev[b + 1] = a;
	if (f != UINT64_MAX)
		heap_push(k, f, a);
}

static uint32_t find_next(uint32_t *next, uint32_t i)
{
	uint32_t r = i, t;

	while (next[r] != r)
		r = next[r];
	while (next[i] != r) {
		t = next[i];
		next[i] = r;
		i = t;
	}
	return r;
}

/* A min segment tree over sections: seg[P + i] is section i's value. */
static void seg_set(uint32_t *seg, uint32_t P, uint32_t i, uint32_t val)
{
	i += P;
	seg[i] = val;
	for (i /= 2; i >= 1; i /= 2)
		seg[i] = seg[2 * i] < seg[2 * i + 1] ? seg[2 * i] : seg[2 * i + 1];
}

static uint32_t seg_min(const uint32_t *seg, uint32_t node, uint32_t nl,
			uint32_t nr, uint32_t a, uint32_t b)
{
	uint32_t mid, x, y;

	if (nr < a || nl > b)
		return NONE;
	if (a <= nl && nr <= b)
		return seg[node];
	mid = nl + (nr - nl) / 2;
	x = seg_min(seg, 2 * node, nl, mid, a, b);
	y = seg_min(seg, 2 * node + 1, mid + 1, nr, a, b);
	return x < y ? x : y;
}

/* The leftmost section in [a, b] whose value is <= bound, or NONE. */
static uint32_t seg_leftmost(const uint32_t *seg, uint32_t node, uint32_t nl,
			     uint32_t nr, uint32_t a, uint32_t b,
			     uint32_t bound)
{
	uint32_t mid, r;

	if (nr < a || nl > b || seg[node] > bound)
		return NONE;
	if (nl == nr)
		return nl;
	mid = nl + (nr - nl) / 2;
	r = seg_leftmost(seg, 2 * node, nl, mid, a, b, bound);
	if (r != NONE)
		return r;
	return seg_leftmost(seg, 2 * node + 1, mid + 1, nr, a, b, bound);
}

/*
 * Within the run that starts at a, give sections [x, y] the floor nf;
 * the rest of the run keeps its floor.
 */
static void run_split(struct skyline *k, uint32_t a, uint32_t x, uint32_t y,
		      uint64_t nf)
{
	uint32_t b = k->run_end[a], prev = k->run_prev[a];
	uint64_t f = k->run_floor[a];

	if (x > a) {
		k->run_end[a] = x - 1;
		heap_push(k, f, a);
		prev = a;
	} else {
		k->is_start[a] = 0;
	}
	if (y < b) {
		k->is_start[y + 1] = 1;
		k->run_end[y + 1] = b;
		k->run_floor[y + 1] = f;
		k->run_prev[y + 1] = x;
		if (b + 1 < k->m)
			k->run_prev[b + 1] = y + 1;
		heap_push(k, f, y + 1);
	}
	set_run(k, x, y, nf, prev);
}

static _Thread_local const int64_t *greedy_upper;
static _Thread_local const uint64_t *greedy_size;

/* Within one start section: later end first, then larger, then index. */
static int by_end_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (greedy_upper[x] != greedy_upper[y])
		return greedy_upper[x] > greedy_upper[y] ? -1 : 1;
	if (greedy_size[x] != greedy_size[y])
		return greedy_size[x] > greedy_size[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int by_time(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t time_index(const int64_t *times, uint32_t nt, int64_t t)
{
	uint32_t lo = 0, hi = nt;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (times[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int interval_greedy(uint32_t n, const int64_t *lower,
			   const int64_t *upper, const uint64_t *size,
			   const uint64_t *align, uint64_t *offset)
{
	struct skyline k = {0};
	int64_t *times = malloc(2 * (size_t)n * sizeof(*times) + 1);
	uint32_t *sa = malloc((size_t)n * sizeof(*sa) + 1);
	uint32_t *sb = malloc((size_t)n * sizeof(*sb) + 1);
	uint32_t *gstart = NULL, *gbuf = NULL, *gnext = NULL, *fill = NULL;
	uint32_t *seg = NULL, *tail = NULL, P;
	uint32_t nt = 0, i, v, placed = 0;
	int rc = CGS_E_NOMEM;

	if (!times || !sa || !sb)
		goto out;
	for (v = 0; v < n; v++) {
		times[2 * v] = lower[v];
		times[2 * v + 1] = upper[v];
	}
	qsort(times, 2 * (size_t)n, sizeof(*times), by_time);
	for (i = 0; i < 2 * n; i++)
		if (nt == 0 || times[nt - 1] != times[i])
			times[nt++] = times[i];
	k.m = nt - 1;
	for (v = 0; v < n; v++) {
		sa[v] = time_index(times, nt, lower[v]);
		sb[v] = time_index(times, nt, upper[v]) - 1;
	}
	/* Buffers grouped by start section, widest first. */
	gstart = calloc((size_t)k.m + 2, sizeof(*gstart));
	gbuf = malloc((size_t)n * sizeof(*gbuf) + 1);
	gnext = malloc(((size_t)n + k.m + 1) * sizeof(*gnext));
	fill = calloc((size_t)k.m + 1, sizeof(*fill));
	k.run_end = malloc((size_t)k.m * sizeof(*k.run_end) + 1);
	k.run_prev = malloc((size_t)k.m * sizeof(*k.run_prev) + 1);
	k.run_floor = malloc((size_t)k.m * sizeof(*k.run_floor) + 1);
	k.is_start = calloc((size_t)k.m + 1, 1);
	if (!gstart || !gbuf || !gnext || !fill || !k.run_end ||
	    !k.run_prev || !k.run_floor || !k.is_start)
		goto out;
	for (v = 0; v < n; v++)
		gstart[sa[v] + 1]++;
	for (i = 0; i < k.m; i++)
		gstart[i + 1] += gstart[i];
	for (v = 0; v < n; v++)
		gbuf[gstart[sa[v]] + fill[sa[v]]++] = v;
	greedy_upper = upper;
	greedy_size = size;
	for (i = 0; i < k.m; i++)
		qsort(gbuf + gstart[i], gstart[i + 1] - gstart[i],
		      sizeof(*gbuf), by_end_desc);
	/*
	 * gnext over positions n + section sentinels: position p of group i
	 * maps to p + i so that each group has its own sentinel after it.
	 */
	for (i = 0; i < n + k.m; i++)
		gnext[i] = i;
	/* One run over everything at floor 0. */
	k.is_start[0] = 1;
	k.run_end[0] = k.m - 1;
	k.run_floor[0] = 0;
	k.run_prev[0] = NONE;
	heap_push(&k, 0, 0);
	/* tail[g]: the group's last unplaced buffer (the one ending first). */
	for (P = 1; P < k.m; P *= 2)
		;
	seg = malloc(2 * (size_t)P * sizeof(*seg));
	tail = malloc(((size_t)k.m + 1) * sizeof(*tail));
	if (!seg || !tail)
		goto out;
	for (i = 0; i < 2 * P; i++)
		seg[i] = NONE;
	for (i = 0; i < k.m; i++) {
		tail[i] = gstart[i + 1];
		seg_set(seg, P, i, gstart[i + 1] > gstart[i] ?
			sb[gbuf[gstart[i + 1] - 1]] : NONE);
	}
	while (placed < n && k.heap_n > 0 && !k.nomem) {
		struct heap_item h = heap_pop(&k);
		uint32_t a = h.start, b, prev, g, q;
		uint64_t f = h.floor;

		if (!k.is_start[a] || k.run_floor[a] != f)
			continue; /* stale */
		b = k.run_end[a];
		prev = k.run_prev[a];
		g = seg_leftmost(seg, 1, 0, P - 1, a, b, b);
		if (g != NONE) {
			/* The widest buffer of group g that ends in the run. */
			uint32_t l = gstart[g], r = gstart[g + 1], pick, e;
			uint64_t o;

			while (l < r) {
				uint32_t mid = l + (r - l) / 2;

				if (sb[gbuf[mid]] > b)
					l = mid + 1;
				else
					r = mid;
			}
			q = find_next(gnext, l + g) - g;
			pick = gbuf[q];
			o = align_up(f, align[pick]);
			e = sb[pick];
			offset[pick] = o;
			placed++;
			gnext[q + g] = q + g + 1;
			while (tail[g] > gstart[g] &&
			       find_next(gnext, tail[g] - 1 + g) - g != tail[g] - 1)
				tail[g]--;
			seg_set(seg, P, g, tail[g] > gstart[g] ?
				sb[gbuf[tail[g] - 1]] : NONE);
			run_split(&k, a, g, e, o + size[pick]);
		} else {
			/*
			 * Nothing fits in the run: a buffer covering it starts
			 * before it (above the left neighbour) or crosses its
			 * right end (above the right neighbour).
			 */
			uint64_t lift = UINT64_MAX;

			if (prev != NONE)
				lift = k.run_floor[prev];
			if (seg_min(seg, 1, 0, P - 1, a, b) != NONE &&
			    b + 1 < k.m && k.run_floor[b + 1] < lift)
				lift = k.run_floor[b + 1];
			run_split(&k, a, a, b, lift);
		}
	}
	rc = k.nomem ? CGS_E_NOMEM : placed == n ? 0 : CGS_E_ARG;
out:
	free(times);
	free(sa);
	free(sb);
	free(gstart);
	free(gbuf);
	free(gnext);
	free(fill);
	free(k.run_end);
	free(k.run_prev);
	free(k.run_floor);
	free(k.is_start);
	free(k.heap);
	free(seg);
	free(tail);
	return rc;
}

/* An order-keeping map of signed times to unsigned keys, earliest largest. */
static uint64_t early_key(int64_t t)
{
	return UINT64_MAX - ((uint64_t)t ^ ((uint64_t)1 << 63));
}

static _Thread_local const int64_t *twin_lower;
static _Thread_local const int64_t *twin_upper;
static _Thread_local const uint64_t *twin_size, *twin_align;

static int by_identity(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (twin_lower[x] != twin_lower[y])
		return twin_lower[x] < twin_lower[y] ? -1 : 1;
	if (twin_upper[x] != twin_upper[y])
		return twin_upper[x] < twin_upper[y] ? -1 : 1;
	if (twin_size[x] != twin_size[y])
		return twin_size[x] < twin_size[y] ? -1 : 1;
	if (twin_align[x] != twin_align[y])
		return twin_align[x] < twin_align[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Build the search instance of intervals; 1 when it is too large. */
static int interval_problem(struct problem *p, uint32_t n,
			    const int64_t *lower, const int64_t *upper,
			    const uint64_t *size, const uint64_t *align)
{
	struct event *ev = sorted_events(n, lower, upper);
	uint32_t *live = malloc((size_t)n * sizeof(*live) + 1);
	uint32_t *where = malloc((size_t)n * sizeof(*where) + 1);
	uint32_t *order = NULL, *fill = NULL;
	uint64_t *width = NULL, *early = NULL;
	uint64_t pairs = 0, weight = 0;
	uint32_t nlive = 0, v, u, i, nk = 0;
	size_t e, memb = 0;
	int rc = CGS_E_NOMEM, prev_start = 0;

	memset(p, 0, sizeof(*p));
	p->n = n;
	p->size = size;
	p->align = align;
	if (!ev || !live || !where)
		goto out;
	/* Count conflicts and maximal cliques. */
	for (e = 0; e < 2 * (size_t)n; e++) {
		v = ev[e].v;
		if (ev[e].start) {
			pairs += nlive;
			live[nlive++] = v;
		} else {
			if (prev_start) {
				nk++;
				memb += nlive;
			}
			nlive--;
		}
		prev_start = (int)ev[e].start;
	}
	if (pairs > PAIR_MAX || memb > 4 * (size_t)PAIR_MAX) {
		rc = 1;
		goto out;
	}
	p->nbr_start = calloc((size_t)n + 1, sizeof(*p->nbr_start));
	p->nbr = malloc(2 * pairs * sizeof(*p->nbr) + 1);
	p->kweight = calloc((size_t)nk + 1, sizeof(*p->kweight));
	p->kfirst = malloc((size_t)n * sizeof(*p->kfirst) + 1);
	p->klast = malloc((size_t)n * sizeof(*p->klast) + 1);
	p->vk_start = calloc((size_t)n + 1, sizeof(*p->vk_start));
	p->vk = malloc(memb * sizeof(*p->vk) + 1);
	p->twin = malloc((size_t)n * sizeof(*p->twin) + 1);
	fill = calloc((size_t)n + 1, sizeof(*fill));
	if (!p->nbr_start || !p->nbr || !p->kweight || !p->kfirst ||
	    !p->klast || !p->vk_start || !p->vk || !p->twin || !fill)
		goto out;
	p->nk = nk;
	/* Degrees, cliques and live sets in a second sweep. */
	nlive = 0;
	nk = 0;
	prev_start = 0;
	for (e = 0; e < 2 * (size_t)n; e++) {
		v = ev[e].v;
		if (ev[e].start) {
			for (i = 0; i < nlive; i++)
				p->nbr_start[live[i] + 1]++;
			p->nbr_start[v + 1] += nlive;
			p->kfirst[v] = nk;
			where[v] = nlive;
			live[nlive++] = v;
			weight += size[v];
		} else {
			if (prev_start)
				p->kweight[nk++] = weight;
			p->klast[v] = nk - 1;
			u = live[--nlive];
			live[where[v]] = u;
			where[u] = where[v];
			weight -= size[v];
		}
		prev_start = (int)ev[e].start;
	}
	for (v = 0; v < n; v++) {
		p->nbr_start[v + 1] += p->nbr_start[v];
		p->vk_start[v + 1] = p->vk_start[v] + p->klast[v] -
				     p->kfirst[v] + 1;
		for (i = p->kfirst[v]; i <= p->klast[v]; i++)
			p->vk[p->vk_start[v] + i - p->kfirst[v]] = i;
	}
	nlive = 0;
	for (e = 0; e < 2 * (size_t)n; e++) {
		v = ev[e].v;
		if (ev[e].start) {
			for (i = 0; i < nlive; i++) {
				u = live[i];
				p->nbr[p->nbr_start[u] + fill[u]++] = v;
				p->nbr[p->nbr_start[v] + fill[v]++] = u;
			}
			where[v] = nlive;
			live[nlive++] = v;
		} else {
			u = live[--nlive];
			live[where[v]] = u;
			where[u] = where[v];
		}
	}
	/* Identical buffers go in index order. */
	order = malloc((size_t)n * sizeof(*order) + 1);
	width = malloc((size_t)n * sizeof(*width) + 1);
	early = malloc((size_t)n * sizeof(*early) + 1);
	if (!order || !width || !early)
		goto out;
	for (v = 0; v < n; v++)
		order[v] = v;
	twin_lower = lower;
	twin_upper = upper;
	twin_size = size;
	twin_align = align;
	qsort(order, n, sizeof(*order), by_identity);
	for (i = 0; i < n; i++) {
		v = order[i];
		u = i > 0 ? order[i - 1] : NONE;
		p->twin[v] = u != NONE && lower[u] == lower[v] &&
			     upper[u] == upper[v] && size[u] == size[v] &&
			     align[u] == align[v] ? u : NONE;
	}
	for (v = 0; v < n; v++) {
		width[v] = (uint64_t)upper[v] - (uint64_t)lower[v];
		early[v] = early_key(lower[v]);
	}
	rc = problem_ranks(p, width, early);
	p->prios = interval_prios;
	p->n_prios = 3;
	p->slack_shift = 13;
out:
	free(ev);
	free(live);
	free(where);
	free(order);
	free(fill);
	free(width);
	free(early);
	if (rc < 0)
		problem_release(p);
	return rc;
}

static int check_buffers(uint32_t n, const uint64_t *size,
			 const uint64_t *align)
{
	uint64_t total = 0;
	uint32_t v;

	for (v = 0; v < n; v++) {
		uint64_t a = align ? align[v] : 1;

		if (size[v] == 0 || a == 0 || size[v] > INT64_MAX ||
		    a > INT64_MAX)
			return CGS_E_ARG;
		total += size[v];
		if (total > INT64_MAX)
			return CGS_E_ARG;
		total += a - 1;
		if (total > INT64_MAX)
			return CGS_E_ARG;
	}
	return 0;
}

/* The alignments, 1 each where the caller gave none. */
static uint64_t *alignments(uint32_t n, const uint64_t *align)
{
	uint64_t *a = malloc((size_t)n * sizeof(*a) + 1);
	uint32_t v;

	if (a)
		for (v = 0; v < n; v++)
			a[v] = align ? align[v] : 1;
	return a;
}

static void fill_result(struct cgs_dsa_result *res, uint64_t height,
			uint64_t bound, uint64_t nodes)
{
	if (!res)
		return;
	res->height = height;
	res->lower_bound = bound;
	res->nodes = nodes;
	res->optimal = height == bound;
}

int cgs_dsa_pack_intervals(uint32_t n, const int64_t *lower,
			   const int64_t *upper, const uint64_t *size,
			   const uint64_t *align,
			   const struct cgs_dsa_options *opt,
			   uint64_t *offset, struct cgs_dsa_result *res)
{
	struct problem p;
	uint64_t bound = 0, best, nodes = 0, *al = NULL;
	double start = now_s();
	uint32_t v;
	int rc;

	if (n > 0 && (!lower || !upper || !size || !offset))
		return CGS_E_ARG;
	for (v = 0; v < n; v++)
		if (lower[v] >= upper[v])
			return CGS_E_ARG;
	rc = check_buffers(n, size, align);
	if (rc)
		return rc;
	if (n == 0) {
		fill_result(res, 0, opt ? opt->lower : 0, 0);
		if (res)
			res->optimal = 1;
		return 0;
	}
	al = alignments(n, align);
	if (!al)
		return CGS_E_NOMEM;
	rc = cgs_dsa_interval_bound(n, lower, upper, size, &bound);
	if (rc)
		goto out;
	if (opt && opt->lower > bound)
		bound = opt->lower;
	rc = interval_greedy(n, lower, upper, size, al, offset);
	if (rc)
		goto out;
	best = height_of(n, size, offset);
	/* The greedy once more with time running backwards; keep the lower. */
	if (best > bound) {
		int64_t *rl = malloc((size_t)n * sizeof(*rl));
		int64_t *ru = malloc((size_t)n * sizeof(*ru));
		uint64_t *ro = malloc((size_t)n * sizeof(*ro));

		rc = rl && ru && ro ? 0 : CGS_E_NOMEM;
		for (v = 0; v < n && rc == 0; v++) {
			rl[v] = ~upper[v];
			ru[v] = ~lower[v];
		}
		if (rc == 0)
			rc = interval_greedy(n, rl, ru, size, al, ro);
		if (rc == 0 && height_of(n, size, ro) < best) {
			memcpy(offset, ro, (size_t)n * sizeof(*ro));
			best = height_of(n, size, ro);
		}
		free(rl);
		free(ru);
		free(ro);
		if (rc)
			goto out;
	}
	if (best > bound && n <= CGS_DSA_SEARCH_MAX &&
	    !(opt && opt->capacity && best <= opt->capacity)) {
		rc = interval_problem(&p, n, lower, upper, size, al);
		if (rc < 0)
			goto out;
		if (rc == 0) {
			rc = search_improve(&p, bound, opt, start, offset,
					    &best, &nodes);
			problem_release(&p);
			if (rc)
				goto out;
		}
		rc = 0;
	}
	fill_result(res, best, bound, nodes);
out:
	free(al);
	return rc;
}

/* ---- explicit conflict graphs ---- */

static _Thread_local const uint64_t *clique_size;

static int by_size_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (clique_size[x] != clique_size[y])
		return clique_size[x] > clique_size[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Cliques grown greedily (largest first) from uncovered seeds; past
 * SEEDS_MAX cliques the uncovered buffers get one each, alone.
 */
#define SEEDS_MAX 1024u

static int graph_problem(struct problem *p, const struct cgs_graph *g,
			 const uint64_t *size, const uint64_t *align)
{
	uint32_t n = g->n, v, u, i, w, nk = 0;
	uint32_t *order = malloc((size_t)n * sizeof(*order) + 1);
	uint64_t *common = malloc((size_t)g->words * sizeof(*common) + 1);
	uint8_t *covered = calloc((size_t)n + 1, 1);
	uint32_t *members = NULL, *kstart = NULL, *fill = NULL;
	uint64_t *width = NULL, *early = NULL, pairs = 0;
	size_t nm = 0, cap_m = 0;
	int rc = CGS_E_NOMEM;

	memset(p, 0, sizeof(*p));
	p->n = n;
	p->size = size;
	p->align = align;
	if (!order || !common || !covered)
		goto out;
	for (v = 0; v < n; v++) {
		const uint64_t *row = cgs_graph_row(g, v);

		for (w = 0; w < g->words; w++)
			pairs += (uint64_t)__builtin_popcountll(row[w]);
	}
	if (pairs > 2 * (uint64_t)PAIR_MAX) {
		rc = 1;
		goto out;
	}
	p->nbr_start = calloc((size_t)n + 1, sizeof(*p->nbr_start));
	p->nbr = malloc(pairs * sizeof(*p->nbr) + 1);
	p->twin = malloc((size_t)n * sizeof(*p->twin) + 1);
	width = calloc((size_t)n + 1, sizeof(*width));
	early = malloc((size_t)n * sizeof(*early) + 1);
	kstart = malloc(((size_t)n + 2) * sizeof(*kstart));
	if (!p->nbr_start || !p->nbr || !p->twin || !width || !early ||
	    !kstart)
		goto out;
	for (v = 0; v < n; v++) {
		const uint64_t *row = cgs_graph_row(g, v);

		p->nbr_start[v + 1] = p->nbr_start[v];
		for (u = 0; u < n; u++)
			if (cgs_bit_test(row, u)) {
				p->nbr[p->nbr_start[v + 1]++] = u;
				width[v] += size[u];
			}
		p->twin[v] = NONE;
		early[v] = (uint64_t)(n - v);
		order[v] = v;
	}
	clique_size = size;
	qsort(order, n, sizeof(*order), by_size_desc);
	kstart[0] = 0;
	for (i = 0; i < n; i++) {
		uint32_t seed = order[i], j;

		if (covered[seed])
			continue;
		if (nk >= SEEDS_MAX)
			memset(common, 0, (size_t)g->words * sizeof(*common));
		else
		memcpy(common, cgs_graph_row(g, seed),
		       (size_t)g->words * sizeof(*common));
		for (j = 0; j <= n; j++) {
			u = j == 0 ? seed : order[j - 1];
			if (j > 0 && (u == seed || !cgs_bit_test(common, u)))
				continue;
			if (j > 0) {
				const uint64_t *row = cgs_graph_row(g, u);

				for (w = 0; w < g->words; w++)
					common[w] &= row[w];
			}
			if (nm == cap_m) {
				size_t c = cap_m * 2 + 64;
				uint32_t *m = realloc(members, c * sizeof(*m));

				if (!m)
					goto out;
				members = m;
				cap_m = c;
			}
			members[nm++] = u;
			covered[u] = 1;
		}
		kstart[++nk] = (uint32_t)nm;
	}
	p->nk = nk;
	p->kweight = calloc((size_t)nk + 1, sizeof(*p->kweight));
	p->vk_start = calloc((size_t)n + 1, sizeof(*p->vk_start));
	p->vk = malloc(nm * sizeof(*p->vk) + 1);
	fill = calloc((size_t)n + 1, sizeof(*fill));
	if (!p->kweight || !p->vk_start || !p->vk || !fill)
		goto out;
	for (i = 0; i < nk; i++)
		for (w = kstart[i]; w < kstart[i + 1]; w++) {
			p->kweight[i] += size[members[w]];
			p->vk_start[members[w] + 1]++;
		}
	for (v = 0; v < n; v++)
		p->vk_start[v + 1] += p->vk_start[v];
	for (i = 0; i < nk; i++)
		for (w = kstart[i]; w < kstart[i + 1]; w++) {
			v = members[w];
			p->vk[p->vk_start[v] + fill[v]++] = i;
		}
	rc = problem_ranks(p, width, early);
out:
	free(order);
	free(common);
	free(covered);
	free(members);
	free(kstart);
	free(fill);
	free(width);
	free(early);
	if (rc < 0)
		problem_release(p);
	return rc;
}

/* Offset-ordered first fit over explicit conflicts (the fallback). */
static _Thread_local const uint64_t *ff_off;

static int by_offset(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return ff_off[x] < ff_off[y] ? -1 : ff_off[x] > ff_off[y];
}

static int graph_first_fit(const struct problem *p, const uint32_t *rank,
			   uint64_t *offset)
{
	uint32_t n = p->n, v, i, j;
	uint32_t *order = malloc((size_t)n * sizeof(*order) + 1);
	uint32_t *near = malloc((size_t)n * sizeof(*near) + 1);
	uint8_t *placed = calloc((size_t)n + 1, 1);

	if (!order || !near || !placed) {
		free(order);
		free(near);
		free(placed);
		return CGS_E_NOMEM;
	}
	for (v = 0; v < n; v++)
		order[rank[v]] = v;
	ff_off = offset;
	for (i = 0; i < n; i++) {
		uint32_t m = 0;
		uint64_t at;

		v = order[i];
		for (j = p->nbr_start[v]; j < p->nbr_start[v + 1]; j++)
			if (placed[p->nbr[j]])
				near[m++] = p->nbr[j];
		qsort(near, m, sizeof(*near), by_offset);
		at = 0;
		for (j = 0; j < m; j++) {
			uint32_t u = near[j];

			if (offset[u] >= at + p->size[v])
				break;
			if (offset[u] + p->size[u] > at)
				at = align_up(offset[u] + p->size[u],
					      p->align[v]);
		}
		offset[v] = at;
		placed[v] = 1;
	}
	free(order);
	free(near);
	free(placed);
	return 0;
}

int cgs_dsa_pack_graph(const struct cgs_graph *g, const uint64_t *size,
		       const uint64_t *align,
		       const struct cgs_dsa_options *opt, uint64_t *offset,
		       struct cgs_dsa_result *res)
{
	struct problem p;
	struct search s;
	uint64_t bound = 0, best, nodes = 0, *al = NULL;
	double start = now_s();
	uint32_t n, i, r;
	int rc;

	if (!g || (g->n > 0 && (!size || !offset)))
		return CGS_E_ARG;
	n = g->n;
	rc = check_buffers(n, size, align);
	if (rc)
		return rc;
	if (n == 0) {
		fill_result(res, 0, opt ? opt->lower : 0, 0);
		if (res)
			res->optimal = 1;
		return 0;
	}
	al = alignments(n, align);
	if (!al)
		return CGS_E_NOMEM;
	rc = graph_problem(&p, g, size, al);
	if (rc) {
		rc = rc < 0 ? rc : CGS_E_LIMIT;
		goto out;
	}
	for (i = 0; i < p.nk; i++)
		if (p.kweight[i] > bound)
			bound = p.kweight[i];
	if (opt && opt->lower > bound)
		bound = opt->lower;
	/* Greedy: first fit by every priority, and the search's first dive. */
	best = UINT64_MAX;
	{
		uint64_t *trial = malloc((size_t)n * sizeof(*trial) + 1);

		rc = trial ? search_init(&s, &p) : CGS_E_NOMEM;
		if (rc) {
			free(trial);
			goto release;
		}
		for (r = 0; r < N_PRIORITIES && rc == 0; r++) {
			uint64_t h;
			int dive;

			rc = graph_first_fit(&p, p.rank[r], trial);
			if (rc == 0 && (h = height_of(n, size, trial)) < best) {
				best = h;
				memcpy(offset, trial, (size_t)n * sizeof(*trial));
			}
			if (rc || n > CGS_DSA_SEARCH_MAX)
				continue;
			search_reset(&s, (int)r, (uint64_t)INT64_MAX);
			dive = search_run(&s, 64 * (uint64_t)n + 1024);
			if (dive < 0)
				rc = CGS_E_NOMEM;
			else if (dive > 0 &&
				 (h = height_of(n, size, s.off)) < best) {
				best = h;
				memcpy(offset, s.off, (size_t)n * sizeof(*trial));
			}
		}
		nodes += s.nodes;
		search_release(&s);
		free(trial);
		if (rc)
			goto release;
	}
	if (best > bound && n <= CGS_DSA_SEARCH_MAX &&
	    !(opt && opt->capacity && best <= opt->capacity))
		rc = search_improve(&p, bound, opt, start, offset, &best,
				    &nodes);
	fill_result(res, best, bound, nodes);
release:
	problem_release(&p);
out:
	free(al);
	return rc;
}

int64_t cgs_dsa_clique_bytes(const struct cgs_graph *g, const uint64_t *size,
			     uint64_t upper, uint64_t *budget)
{
	uint64_t grain = 0, biggest = 0;
	uint32_t i, *weight;
	int64_t w;

	for (i = 0; i < g->n; i++) {
		grain = cgs_gcd(grain, size[i]);
		if (size[i] > biggest)
			biggest = size[i];
	}
	if (grain == 0 || biggest / grain > UINT32_MAX)
		return 0;
	weight = malloc(((uint64_t)g->n + 1) * sizeof(*weight));
	if (!weight)
		return CGS_E_NOMEM;
	for (i = 0; i < g->n; i++)
		weight[i] = (uint32_t)(size[i] / grain);
	w = cgs_clique_max(g, weight, 0, upper / grain, budget);
	free(weight);
	return w > 0 ? w * (int64_t)grain : w;
}
