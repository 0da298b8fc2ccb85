/* Guard bands of the NVTX permissions; see guard.h. */
#include <stdlib.h>
#include <string.h>

#include "runtime/guard.h"
#include "runtime/runtime.h"

/* A range of the manifest: [lo, hi) of an arena. */
struct span {
	uint32_t arena;
	uint64_t lo, hi;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->arena != y->arena)
		return x->arena < y->arena ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

/*
 * Range r of a frame at `base` in `arena`, its end rounded up to the
 * schedule's alignment (within the arena): a wide access of a larger
 * range across an unaligned end would otherwise straddle two regions,
 * which memcheck reports.
 */
static void push(const struct cgs_runtime *rt, struct span *s, size_t *n,
		 uint32_t arena, uint64_t base, struct cgs_manifest_range r)
{
	uint64_t a = rt->info.alignment ? rt->info.alignment : 1, hi, end;

	if (r.bytes == 0)
		return;
	hi = base + r.offset + r.bytes;
	hi += (a - hi % a) % a;
	end = cgs_manifest_arena(rt->manifest, rt->ri, arena).bytes;
	s[*n] = (struct span){arena, base + r.offset, hi < end ? hi : end};
	(*n)++;
}

/* The role ranges of saved frame f for variant v. */
static void saved_spans(const struct cgs_runtime *rt, uint32_t v, uint32_t f,
			struct span *s, size_t *n)
{
	struct cgs_manifest_frame fr =
		cgs_manifest_saved_frame(rt->manifest, rt->ri, f);
	uint32_t role;

	for (role = 0; role < 3; role++)
		push(rt, s, n, fr.arena, fr.offset,
		     cgs_manifest_saved_role(rt->manifest, rt->ri, v, f, role));
}

/*
 * The layer ranges of user-gradient frame (c, slot) for variant v; only
 * layer 0's when first_only.
 */
static void grad_spans(const struct cgs_runtime *rt, uint32_t v, uint32_t c,
		       uint32_t slot, int first_only, struct span *s, size_t *n)
{
	struct cgs_manifest_frame uf = cgs_manifest_user_grad_frame(
		rt->manifest, rt->ri, c * rt->info.slots + slot);
	uint32_t l, layers = first_only ? 1 : rt->layers[c];

	for (l = 0; l < layers; l++)
		push(rt, s, n, uf.arena, uf.offset,
		     cgs_manifest_user_grad_layer(rt->manifest, rt->ri, v,
						  cgs_runtime_frame(rt, c, slot, l)));
}

/* Index of the segment of `arena` that starts at x (or, when `ending`,
 * ends at x); -1 when there is none. */
static int64_t find_segment(const struct cgs_guard *g, uint32_t arena,
			    uint64_t x, int ending)
{
	uint32_t lo = 0, hi = g->n_segments, mid;
	const struct cgs_guard_segment *s;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		s = &g->segments[mid];
		if (s->arena < arena ||
		    (s->arena == arena && (ending ? s->hi : s->lo) < x))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < g->n_segments) {
		s = &g->segments[lo];
		if (s->arena == arena && (ending ? s->hi : s->lo) == x)
			return lo;
	}
	return -1;
}

static int inside_any(const struct cgs_guard_segment *seg,
		      const struct span *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i].arena == seg->arena && s[i].lo <= seg->lo &&
		    seg->hi <= s[i].hi)
			return 1;
	return 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Cut the bytes the ranges cover at every boundary: sort the boundaries
 * of each arena and keep the pieces inside the union of its ranges.
 */
static int cut_segments(struct cgs_guard *g, struct span *all, size_t n)
{
	uint64_t *b = malloc((2 * n + 1) * sizeof(*b));
	uint64_t covered; /* the furthest end of the ranges seen so far */
	size_t i, j, k, r, nb, nu, m = 0;

	g->segments = malloc((2 * n + 1) * sizeof(*g->segments));
	if (!b || !g->segments) {
		free(b);
		return -1;
	}
	qsort(all, n, sizeof(*all), span_cmp);
	for (i = 0; i < n; i = j) {
		/* all[i, j) are one arena's ranges, sorted by start. */
		for (j = i, nb = 0; j < n && all[j].arena == all[i].arena; j++) {
			b[nb++] = all[j].lo;
			b[nb++] = all[j].hi;
		}
		qsort(b, nb, sizeof(*b), u64_cmp);
		for (k = 1, nu = 1; k < nb; k++)
			if (b[k] != b[nu - 1])
				b[nu++] = b[k];
		/*
		 * A piece [b[k], b[k+1]) is covered when a range starting at or
		 * before b[k] ends after it; ends are boundaries, so that range
		 * reaches b[k+1] too.
		 */
		covered = 0;
		for (k = 0, r = i; k + 1 < nu; k++) {
			for (; r < j && all[r].lo <= b[k]; r++)
				if (all[r].hi > covered)
					covered = all[r].hi;
			if (covered > b[k])
				g->segments[m++] = (struct cgs_guard_segment){
					all[i].arena, b[k], b[k + 1]};
		}
	}
	free(b);
	g->n_segments = (uint32_t)m;
	return 0;
}

void cgs_guard_free(struct cgs_guard *g)
{
	if (!g)
		return;
	free(g->segments);
	free(g->guard_start);
	free(g->guard);
	memset(g, 0, sizeof(*g));
}

int cgs_guard_build(const struct cgs_runtime *rt, struct cgs_guard *out,
		    struct cgs_error *err)
{
	const struct cgs_runtime_info *in = &rt->info;
	uint32_t n_grad = in->vpp * in->slots, max_layers = 0, c, s, v, w, f, gi;
	size_t n = 0, n_own, n_allowed, first, k, u, count = 0, cap_own, cap_guard;
	struct span *all, *own;
	struct cgs_manifest_frame fr, uf;
	int64_t idx;
	int side;

	memset(out, 0, sizeof(*out));
	for (c = 0; c < in->vpp; c++)
		if (rt->layers[c] > max_layers)
			max_layers = rt->layers[c];
	cap_own = 3 + max_layers + (size_t)in->n_variants * n_grad;
	cap_guard = (size_t)in->n_graphs * 2 * (3 + max_layers);
	all = malloc(((size_t)in->n_variants * in->n_saved * 4 + 1) * sizeof(*all));
	own = malloc(cap_own * sizeof(*own));
	out->guard_start = calloc((size_t)in->n_graphs + 1,
				  sizeof(*out->guard_start));
	out->guard = malloc((cap_guard + 1) * sizeof(*out->guard));
	if (!all || !own || !out->guard_start || !out->guard)
		goto nomem;
	out->n_graphs = in->n_graphs;

	for (v = 0; v < in->n_variants; v++)
		for (f = 0; f < in->n_saved; f++) {
			saved_spans(rt, v, f, all, &n);
			fr = cgs_manifest_saved_frame(rt->manifest, rt->ri, f);
			uf = cgs_manifest_user_grad_frame(rt->manifest, rt->ri,
				fr.chunk * in->slots + fr.slot);
			push(rt, all, &n, uf.arena, uf.offset,
			     cgs_manifest_user_grad_layer(rt->manifest, rt->ri,
							  v, f));
		}
	if (cut_segments(out, all, n))
		goto nomem;

	for (gi = 0; gi < in->n_graphs; gi++) {
		uint32_t backward;

		cgs_manifest_graph_split(rt->manifest, rt->ri, gi, &v, &f, &backward);
		fr = cgs_manifest_saved_frame(rt->manifest, rt->ri, f);
		n_own = 0;
		saved_spans(rt, v, f, own, &n_own);
		if (backward)
			grad_spans(rt, v, fr.chunk, fr.slot, 0, own, &n_own);
		n_allowed = n_own;
		if (backward && fr.layer == 0)
			for (w = 0; w < in->n_variants; w++)
				for (c = 0; c < in->vpp; c++)
					for (s = 0; s < in->slots; s++)
						grad_spans(rt, w, c, s, 1, own,
							   &n_allowed);
		first = count;
		for (k = 0; k < n_own; k++)
			for (side = 0; side < 2; side++) {
				idx = find_segment(out, own[k].arena,
						   side ? own[k].lo : own[k].hi,
						   side);
				if (idx >= 0 &&
				    !inside_any(&out->segments[idx], own,
						n_allowed))
					out->guard[count++] = (uint32_t)idx;
			}
		if (count > first) {
			qsort(out->guard + first, count - first,
			      sizeof(*out->guard), u32_cmp);
			for (k = u = first + 1; k < count; k++)
				if (out->guard[k] != out->guard[u - 1])
					out->guard[u++] = out->guard[k];
			count = u;
		}
		out->guard_start[gi + 1] = count;
	}
	free(all);
	free(own);
	return 0;
nomem:
	free(all);
	free(own);
	cgs_guard_free(out);
	return cgs_error_set(err, CGS_E_NOMEM,
			     "out of memory computing the NVTX guard segments");
}
