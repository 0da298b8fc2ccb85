/*
 * The verifier's core: replay the stored orders, collect which frame
 * groups are ever live together, then compare the byte ranges of each
 * such pair once.
 *
 * A frame group is what one event makes live: saved group (c, s) holds
 * the saved frames (c, s, l) of every layer l, user-gradient group (c, s)
 * the one user-gradient frame.  Groups are numbered saved first
 * (c * S + s), then user-gradient (M * S + c * S + s).
 */
#include "verify/verify.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "common/error.h"

/* One range of one frame for one variant, as the sweeps see it. */
struct piece {
	uint64_t start, end;   /* end exclusive, start < end */
	uint32_t arena;
	uint32_t frame;        /* saved f, or n_saved + u for user-grad */
	uint32_t sub;          /* saved: role; user-grad: layer's saved f */
	uint32_t variant;
};

struct verifier {
	const struct cgs_verify_rank *vr;
	struct cgs_error *err;
	uint32_t *layer_base;  /* vpp + 1 */
	uint32_t n_groups;     /* 2 * M * S */
	uint32_t words;        /* 64-bit words per group bitset */
	uint64_t *conflict;    /* n_groups rows of `words` */
	uint64_t *bad;         /* rows like conflict: pairs that overlap */
	uint32_t hit, hit_group; /* search pass: the first bad pair live */
	struct piece *pieces;  /* sorted within each group */
	uint64_t *group_start; /* n_groups + 1 offsets into pieces */
	/*
	 * Where every frame has its extent: the extents alone, sorted within
	 * each group like pieces; else NULL.
	 */
	struct piece *extents;
	uint64_t *extent_start;
	const struct piece **active_a, **active_b; /* sweep scratch */
};

/* The variant of a piece that is a frame's whole extent. */
#define CGS_VERIFY_EXTENT UINT32_MAX

static const char *const role_names[] = {
	"input", "output", "saved", "user_grad",
};

static void variant_label(const struct cgs_verify_rank *vr, uint32_t var,
			  char *buf, size_t size)
{
	if (vr->variant_names && vr->variant_names[var])
		snprintf(buf, size, "%" PRIu32 " '%s'", var,
			 vr->variant_names[var]);
	else
		snprintf(buf, size, "%" PRIu32, var);
}

/* "saved frame (chunk 1, slot 2, layer 0) variant 3 'cp8' role input" */
static void describe_piece(const struct verifier *v, const struct piece *p,
			   char *buf, size_t size)
{
	const struct cgs_verify_rank *vr = v->vr;
	uint32_t f = p->frame < vr->n_saved ? p->frame : p->sub;
	uint32_t c = 0, rest, layer;
	char var[96];

	while (c + 1 < vr->vpp && f >= v->layer_base[c + 1] * vr->slots)
		c++;
	rest = f - v->layer_base[c] * vr->slots;
	layer = rest % vr->layers[c];
	if (p->variant != CGS_VERIFY_EXTENT)
		variant_label(vr, p->variant, var, sizeof(var));
	if (p->frame < vr->n_saved && p->variant == CGS_VERIFY_EXTENT)
		snprintf(buf, size,
			 "saved frame (chunk %" PRIu32 ", slot %" PRIu32
			 ", layer %" PRIu32 ") extent", c,
			 rest / vr->layers[c], layer);
	else if (p->frame < vr->n_saved)
		snprintf(buf, size,
			 "saved frame (chunk %" PRIu32 ", slot %" PRIu32
			 ", layer %" PRIu32 ") variant %s role %s",
			 c, rest / vr->layers[c], layer, var,
			 role_names[p->sub]);
	else if (p->variant == CGS_VERIFY_EXTENT)
		snprintf(buf, size,
			 "user-gradient frame (chunk %" PRIu32 ", slot %" PRIu32
			 ") extent", c, rest / vr->layers[c]);
	else
		snprintf(buf, size,
			 "user-gradient frame (chunk %" PRIu32 ", slot %" PRIu32
			 ") layer %" PRIu32 " variant %s",
			 c, rest / vr->layers[c], layer, var);
}

static void describe_range(const struct piece *p, char *buf, size_t size)
{
	snprintf(buf, size, "arena %" PRIu32 " [%" PRIu64 ", %" PRIu64 ")",
		 p->arena, p->start, p->end);
}

static int report_overlap(struct verifier *v, const char *where,
			  const struct piece *a, const struct piece *b)
{
	char da[192], db[192], ra[64], rb[64];

	describe_piece(v, a, da, sizeof(da));
	describe_piece(v, b, db, sizeof(db));
	describe_range(a, ra, sizeof(ra));
	describe_range(b, rb, sizeof(rb));
	return cgs_error_set(v->err, CGS_E_VERIFY,
			     "rank %" PRIu32 "%s: %s %s overlaps %s %s",
			     v->vr->rank, where, da, ra, db, rb);
}

static int check_shape(const struct cgs_verify_rank *vr,
		       struct cgs_error *err)
{
	uint64_t total = 0, want = 0, pieces;
	uint32_t c;

	if (!vr || !vr->layers || vr->slots == 0 || vr->vpp == 0 ||
	    vr->n_variants == 0 || (vr->n_reachable && (!vr->reachable ||
	    !vr->order_start || !vr->order_entries)) ||
	    (vr->n_arenas && !vr->arena_bytes) || !vr->saved ||
	    !vr->user_grad || (vr->slot_map && !vr->slot_map_start))
		return cgs_error_set(err, CGS_E_ARG,
				     "incomplete rank description");
	if (vr->slot_map && vr->slot_map_rows > 1 &&
	    vr->slot_map_rows != vr->vpp)
		return cgs_error_set(err, CGS_E_ARG,
			"rank %" PRIu32 ": %" PRIu32 " slot map rows per count;"
			" accepted: 0 or 1 (shared by every chunk) or %" PRIu32
			" (one per chunk)", vr->rank, vr->slot_map_rows,
			vr->vpp);
	/* The conflict matrix is dense in groups (2 * M * S) squared. */
	if ((uint64_t)vr->vpp * vr->slots > CGS_VERIFY_MAX_GROUPS)
		return cgs_error_set(err, CGS_E_LIMIT,
			"rank %" PRIu32 ": %" PRIu32 " chunks times %" PRIu32
			" slots is more than the verifier handles (%u)",
			vr->rank, vr->vpp, vr->slots, CGS_VERIFY_MAX_GROUPS);
	for (c = 0; c < vr->vpp; c++) {
		if (vr->layers[c] == 0)
			return cgs_error_set(err, CGS_E_ARG,
				"rank %" PRIu32 ": chunk %" PRIu32
				" has no layers", vr->rank, c);
		total += vr->layers[c];
	}
	if (cgs_mul_u64(total, vr->slots, &want) || want != vr->n_saved)
		return cgs_error_set(err, CGS_E_ARG,
			"rank %" PRIu32 ": %" PRIu32 " saved frames, expected "
			"%" PRIu64 " (S %" PRIu32 " times %" PRIu64 " layers)",
			vr->rank, vr->n_saved, want, vr->slots, total);
	/* Piece indices are 32-bit; each count below is 32-bit, so the
	 * products fit in 64 bits and only the total is compared. */
	pieces = (uint64_t)vr->n_saved * ((uint64_t)vr->n_variants * 4 + 1) +
		 (uint64_t)vr->vpp * vr->slots;
	if (pieces > UINT32_MAX)
		return cgs_error_set(err, CGS_E_LIMIT,
			"rank %" PRIu32 ": %" PRIu32 " saved frames times %"
			PRIu32 " variants is more than the verifier handles",
			vr->rank, vr->n_saved, vr->n_variants);
	return 0;
}

/* Check one range against its arena and turn it into a piece. */
static int make_piece(struct verifier *v, const struct cgs_verify_range *r,
		      struct piece *p, uint32_t *n)
{
	const struct cgs_verify_rank *vr = v->vr;
	char desc[192];

	if (r->arena >= vr->n_arenas ||
	    r->bytes > vr->arena_bytes[r->arena] ||
	    r->offset > vr->arena_bytes[r->arena] - r->bytes ||
	    (vr->alignment && r->offset % vr->alignment)) {
		describe_piece(v, p, desc, sizeof(desc));
		if (r->arena >= vr->n_arenas)
			return cgs_error_set(v->err, CGS_E_VERIFY,
				"rank %" PRIu32 ": %s names arena %" PRIu32
				", but the rank has %" PRIu32 " arenas",
				vr->rank, desc, r->arena, vr->n_arenas);
		if (vr->alignment && r->offset % vr->alignment &&
		    r->bytes <= vr->arena_bytes[r->arena] &&
		    r->offset <= vr->arena_bytes[r->arena] - r->bytes)
			return cgs_error_set(v->err, CGS_E_VERIFY,
				"rank %" PRIu32 ": %s starts at %" PRIu64
				", not a multiple of the alignment %" PRIu64,
				vr->rank, desc, r->offset, vr->alignment);
		return cgs_error_set(v->err, CGS_E_VERIFY,
			"rank %" PRIu32 ": %s range [%" PRIu64 ", +%" PRIu64
			") lies outside arena %" PRIu32 " of %" PRIu64 " bytes",
			vr->rank, desc, r->offset, r->bytes, r->arena,
			vr->arena_bytes[r->arena]);
	}
	if (r->bytes == 0)
		return 0;
	p->arena = r->arena;
	p->start = r->offset;
	p->end = r->offset + r->bytes;
	(*n)++;
	return 0;
}

static int piece_cmp(const void *x, const void *y)
{
	const struct piece *a = x, *b = y;

	if (a->arena != b->arena)
		return a->arena < b->arena ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	if (a->frame != b->frame)
		return a->frame < b->frame ? -1 : 1;
	if (a->sub != b->sub)
		return a->sub < b->sub ? -1 : 1;
	return a->variant < b->variant ? -1 : a->variant > b->variant;
}

/* Collect every non-empty range, group by group, and sort each group. */
/* The extent of the frame a piece belongs to, or NULL when not given. */
static const struct cgs_verify_range *extent_of(const struct verifier *v,
						const struct piece *p)
{
	const struct cgs_verify_rank *vr = v->vr;

	if (p->frame < vr->n_saved)
		return vr->saved_frames ? &vr->saved_frames[p->frame] : NULL;
	return vr->user_grad_frames ?
		&vr->user_grad_frames[p->frame - vr->n_saved] : NULL;
}

static int outside_extent(struct verifier *v, const struct piece *p)
{
	const struct cgs_verify_range *e = extent_of(v, p);
	char desc[192], ext[192];
	struct piece whole = *p;

	if (!e || (p->arena == e->arena && p->start >= e->offset &&
		   p->end - e->offset <= e->bytes))
		return 0;
	whole.variant = CGS_VERIFY_EXTENT;
	describe_piece(v, p, desc, sizeof(desc));
	describe_piece(v, &whole, ext, sizeof(ext));
	return cgs_error_set(v->err, CGS_E_VERIFY,
		"rank %" PRIu32 ": %s arena %" PRIu32 " [%" PRIu64 ", %" PRIu64
		") lies outside %s arena %" PRIu32 " [%" PRIu64 ", %" PRIu64 ")",
		v->vr->rank, desc, p->arena, p->start, p->end, ext, e->arena,
		e->offset, e->offset + e->bytes);
}

/* Add one range as a piece of the current group; checks it first. */
static int add_piece(struct verifier *v, const struct cgs_verify_range *src,
		     uint32_t frame, uint32_t sub, uint32_t variant,
		     uint32_t *n)
{
	struct piece *p = &v->pieces[*n];
	uint32_t before = *n;
	int rc;

	p->frame = frame;
	p->sub = sub;
	p->variant = variant;
	rc = make_piece(v, src, p, n);
	if (rc == 0 && *n > before && variant != CGS_VERIFY_EXTENT)
		rc = outside_extent(v, p);
	return rc;
}

/* Collect every non-empty range, group by group, and sort each group. */
static int build_pieces(struct verifier *v)
{
	const struct cgs_verify_rank *vr = v->vr;
	uint32_t S = vr->slots, ms = vr->vpp * S;
	uint64_t cap = (uint64_t)vr->n_saved * ((uint64_t)vr->n_variants * 4 + 1) +
		       ms;
	uint32_t g, c, s, l, var, r, n = 0;
	int rc;

	v->pieces = malloc(cap * sizeof(*v->pieces));
	v->group_start = malloc(((size_t)v->n_groups + 1) *
				sizeof(*v->group_start));
	if (!v->pieces || !v->group_start)
		return cgs_error_set(v->err, CGS_E_NOMEM,
				     "out of memory for %" PRIu64 " ranges",
				     cap);
	for (g = 0; g < v->n_groups; g++) {
		int ug = g >= ms;
		uint32_t u, first;

		c = (g % ms) / S;
		s = g % S;
		u = c * S + s;
		first = v->layer_base[c] * S + s * vr->layers[c];
		v->group_start[g] = n;
		if (ug && vr->user_grad_frames) {
			rc = add_piece(v, &vr->user_grad_frames[u],
				       vr->n_saved + u, first,
				       CGS_VERIFY_EXTENT, &n);
			if (rc)
				return rc;
		}
		for (l = 0; l < vr->layers[c]; l++) {
			uint32_t f = first + l;

			if (!ug && vr->saved_frames) {
				rc = add_piece(v, &vr->saved_frames[f], f, 0,
					       CGS_VERIFY_EXTENT, &n);
				if (rc)
					return rc;
			}
			for (var = 0; var < vr->n_variants; var++) {
				uint64_t i = (uint64_t)var * vr->n_saved + f;

				for (r = 0; r < (ug ? 1u : 3u); r++) {
					rc = ug ? add_piece(v, &vr->user_grad[i],
							    vr->n_saved + u, f,
							    var, &n)
						: add_piece(v, &vr->saved[i * 3 + r],
							    f, r, var, &n);
					if (rc)
						return rc;
				}
			}
		}
		qsort(v->pieces + v->group_start[g], n - v->group_start[g],
		      sizeof(*v->pieces), piece_cmp);
	}
	v->group_start[v->n_groups] = n;
	return 0;
}

/*
 * Every range lies inside its frame's extent (add_piece checks it), and
 * the extents are ranges too.  So two groups' ranges overlap exactly when
 * two of their extents do: with every frame's extent given, the pairs
 * are compared by extents alone, a piece or a few per group where a
 * group has layers x variants x roles + 1 (on P 32, M 8, L 2048 with 8
 * variants, 100 of a saved group's 101 pieces are variants' ranges).
 */
static int build_extents(struct verifier *v)
{
	uint64_t n = 0, i;
	uint32_t g;

	if (!v->vr->saved_frames || !v->vr->user_grad_frames)
		return 0;
	v->extents = malloc((v->group_start[v->n_groups] + 1) *
			    sizeof(*v->extents));
	v->extent_start = malloc(((size_t)v->n_groups + 1) *
				 sizeof(*v->extent_start));
	if (!v->extents || !v->extent_start)
		return cgs_error_set(v->err, CGS_E_NOMEM,
				     "out of memory for the frames' extents");
	for (g = 0; g < v->n_groups; g++) {
		v->extent_start[g] = n;
		for (i = v->group_start[g]; i < v->group_start[g + 1]; i++)
			if (v->pieces[i].variant == CGS_VERIFY_EXTENT)
				v->extents[n++] = v->pieces[i];
	}
	v->extent_start[v->n_groups] = n;
	return 0;
}

/*
 * Within one group, overlapping ranges are allowed only between different
 * variants of the same frame: one microbatch runs one variant, and all
 * frames of the group are live together.
 */
static int check_group(struct verifier *v, uint32_t g)
{
	const struct piece *p = v->pieces + v->group_start[g];
	uint64_t n = v->group_start[g + 1] - v->group_start[g], i, j, k;
	uint64_t n_active = 0;

	for (i = 0; i < n; i++) {
		for (j = k = 0; j < n_active; j++) {
			const struct piece *a = v->active_a[j];

			if (a->arena != p[i].arena || a->end <= p[i].start)
				continue;
			v->active_a[k++] = a;
			/* Variants of one frame, or a frame and its extent. */
			if (a->frame != p[i].frame || a->variant == p[i].variant)
				return report_overlap(v, "", a, &p[i]);
		}
		n_active = k;
		v->active_a[n_active++] = &p[i];
	}
	return 0;
}

/* Drop the active ranges that end before x starts (or lie elsewhere). */
static uint64_t prune(const struct piece **act, uint64_t n,
		      const struct piece *x)
{
	uint64_t j, k;

	for (j = k = 0; j < n; j++)
		if (act[j]->arena == x->arena && act[j]->end > x->start)
			act[k++] = act[j];
	return k;
}

/*
 * Any overlap between the ranges of two different groups is a violation.
 * Both lists are sorted by (arena, start); merging them keeps, per side,
 * the ranges that may still reach the next start.  Returns the later
 * range of an overlapping pair and the earlier one in *other, or NULL.
 */
static const struct piece *sweep_lists(struct verifier *v,
				       const struct piece *pieces,
				       const uint64_t *start, uint32_t ga,
				       uint32_t gb, const struct piece **other)
{
	const struct piece *a = pieces + start[ga];
	const struct piece *ae = pieces + start[ga + 1];
	const struct piece *b = pieces + start[gb];
	const struct piece *be = pieces + start[gb + 1];
	uint64_t na = 0, nb = 0;

	if (a == ae || b == be)
		return NULL;
	while (a < ae || b < be) {
		int take_a = b == be || (a < ae && piece_cmp(a, b) < 0);
		const struct piece *x = take_a ? a++ : b++;

		if (take_a) {
			nb = prune(v->active_b, nb, x);
			if (nb) {
				*other = v->active_b[0];
				return x;
			}
			na = prune(v->active_a, na, x);
			v->active_a[na++] = x;
		} else {
			na = prune(v->active_a, na, x);
			if (na) {
				*other = v->active_a[0];
				return x;
			}
			nb = prune(v->active_b, nb, x);
			v->active_b[nb++] = x;
		}
	}
	return NULL;
}

/* sweep_lists over every range of the two groups. */
static const struct piece *sweep_pair(struct verifier *v, uint32_t ga,
				      uint32_t gb, const struct piece **other)
{
	return sweep_lists(v, v->pieces, v->group_start, ga, gb, other);
}

/* Whether two groups' ranges overlap: by extents where they are given. */
static int pair_overlaps(struct verifier *v, uint32_t ga, uint32_t gb)
{
	const struct piece *other;

	if (v->extents)
		return sweep_lists(v, v->extents, v->extent_start, ga, gb,
				   &other) != NULL;
	return sweep_pair(v, ga, gb, &other) != NULL;
}

static int order_error(struct verifier *v, uint32_t i, uint64_t pos,
		       const char *fmt, ...) CGS_PRINTF(4, 5);

static int order_error(struct verifier *v, uint32_t i, uint64_t pos,
		       const char *fmt, ...)
{
	const struct cgs_verify_rank *vr = v->vr;
	char what[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return cgs_error_set(v->err, CGS_E_VERIFY,
		"rank %" PRIu32 ", N %" PRIu32 ", order position %" PRIu64
		" (entry %+" PRId32 "): %s", vr->rank, vr->reachable[i], pos,
		vr->order_entries[vr->order_start[i] + pos], what);
}

static int bit(const uint64_t *set, uint64_t i)
{
	return (set[i / 64] >> (i % 64)) & 1;
}

static void bit_set(uint64_t *set, uint64_t i)
{
	set[i / 64] |= UINT64_C(1) << (i % 64);
}

static void bit_clear(uint64_t *set, uint64_t i)
{
	set[i / 64] &= ~(UINT64_C(1) << (i % 64));
}

/*
 * Group g starts being live.  In the recording pass it conflicts with
 * everything live now; in the search pass (v->bad set) we only look for a
 * pair known to overlap and store it in v->hit.
 */
static void mark_live(struct verifier *v, uint64_t *live, uint32_t g)
{
	uint64_t *row = v->conflict + (size_t)g * v->words;
	const uint64_t *bad = v->bad ? v->bad + (size_t)g * v->words : NULL;
	uint32_t w;

	for (w = 0; w < v->words; w++) {
		uint64_t fresh = bad ? live[w] & bad[w] : live[w] & ~row[w];

		if (bad && fresh && v->hit == UINT32_MAX) {
			v->hit = w * 64 + (uint32_t)__builtin_ctzll(fresh);
			v->hit_group = g;
		}
		if (bad)
			continue;
		row[w] |= fresh;
		while (fresh) {
			uint32_t y = w * 64 + (uint32_t)__builtin_ctzll(fresh);

			fresh &= fresh - 1;
			bit_set(v->conflict + (size_t)y * v->words, g);
		}
	}
	bit_set(live, g);
}

/*
 * Replay order i.  Fails on a malformed order or a reused frame; in the
 * search pass stops (returning 1) at the first event where a pair in
 * v->bad becomes live together, leaving the position in *at.
 */
static int replay(struct verifier *v, uint32_t i, uint64_t *live,
		  uint64_t *fwd, uint64_t *bwd, uint64_t *at)
{
	const struct cgs_verify_rank *vr = v->vr;
	const int32_t *e = vr->order_entries + vr->order_start[i];
	uint32_t S = vr->slots, M = vr->vpp, N = vr->reachable[i], c;
	uint32_t ug_base = M * S, held = UINT32_MAX;
	uint32_t rows = vr->slot_map_rows > 1 ? vr->slot_map_rows : 1;
	const uint32_t *map = NULL;
	uint64_t len, pos, slot;

	if (vr->order_start[i + 1] < vr->order_start[i] ||
	    vr->order_start[i + 1] - vr->order_start[i] != 2 * (uint64_t)N * M)
		return cgs_error_set(v->err, CGS_E_VERIFY,
			"rank %" PRIu32 ", N %" PRIu32 ": the order has %" PRId64
			" entries, expected 2 * N * M = %" PRIu64, vr->rank, N,
			(int64_t)(vr->order_start[i + 1] - vr->order_start[i]),
			2 * (uint64_t)N * M);
	len = vr->order_start[i + 1] - vr->order_start[i];
	memset(live, 0, v->words * sizeof(*live));
	memset(fwd, 0, M * sizeof(*fwd));
	memset(bwd, 0, M * sizeof(*bwd));
	for (pos = 0; pos < len; pos++) {
		int32_t id = e[pos];
		uint32_t g, ug;

		if (id == 0 || id > (int32_t)M || id < -(int32_t)M)
			return order_error(v, i, pos,
				"no such chunk (accepted: 1..%" PRIu32
				" and -%" PRIu32 "..-1)", M, M);
		c = (uint32_t)(id > 0 ? id : -id) - 1;
		/* this chunk's row of the map, or the row every chunk shares */
		if (vr->slot_map)
			map = vr->slot_map +
			      vr->slot_map_start[(uint64_t)i * rows +
						 (rows > 1 ? c : 0)];
		if (id > 0) {
			if (fwd[c] >= N)
				return order_error(v, i, pos,
					"chunk %" PRIu32 " runs more than N "
					"forwards", c);
			slot = map ? map[fwd[c]] : fwd[c] % S;
			if (slot >= S)
				return order_error(v, i, pos,
					"the slot map puts microbatch %" PRIu64
					" on slot %" PRIu64 ", outside the ring"
					" of %" PRIu32 " slots", fwd[c], slot,
					S);
			g = c * S + (uint32_t)slot;
			if (bit(live, g) && map)
				return order_error(v, i, pos,
					"the forward of chunk %" PRIu32
					" microbatch %" PRIu64 " reuses saved "
					"frames of slot %" PRIu64 " that are "
					"still live (the slot map is unsafe)",
					c, fwd[c], slot);
			if (bit(live, g))
				return order_error(v, i, pos,
					"the forward of chunk %" PRIu32
					" microbatch %" PRIu64 " reuses saved "
					"frames of slot %" PRIu64 " that are "
					"still live (a ring of %" PRIu32
					" slots is too short)", c, fwd[c],
					slot, S);
			mark_live(v, live, g);
			fwd[c]++;
		} else {
			if (bwd[c] >= fwd[c])
				return order_error(v, i, pos,
					"the backward of chunk %" PRIu32
					" microbatch %" PRIu64 " comes before "
					"its forward", c, bwd[c]);
			slot = map ? map[bwd[c]] : bwd[c] % S;
			g = c * S + (uint32_t)slot;
			ug = ug_base + g;
			if (ug == held)
				return order_error(v, i, pos,
					"the backward of chunk %" PRIu32
					" microbatch %" PRIu64 " reuses the "
					"user-gradient frame (chunk %" PRIu32
					", slot %" PRIu64 ") of the previous "
					"backward, which is still being sent",
					c, bwd[c], c, slot);
			mark_live(v, live, ug);
			/* The saved frames and the previous gradient end here. */
			bit_clear(live, g);
			if (held != UINT32_MAX)
				bit_clear(live, held);
			held = ug;
			bwd[c]++;
		}
		if (v->hit != UINT32_MAX) {
			*at = pos;
			return 1;
		}
	}
	for (c = 0; c < M; c++)
		if (fwd[c] != N || bwd[c] != N)
			return cgs_error_set(v->err, CGS_E_VERIFY,
				"rank %" PRIu32 ", N %" PRIu32 ": chunk %" PRIu32
				" runs %" PRIu64 " forwards and %" PRIu64
				" backwards, expected N of each", vr->rank, N,
				c, fwd[c], bwd[c]);
	return 0;
}

/*
 * Compare every pair of groups that is ever live together; pairs whose
 * ranges overlap go into v->bad.  Returns the number of such pairs.
 */
static uint64_t find_bad_pairs(struct verifier *v)
{
	uint64_t n_bad = 0;
	uint32_t ga, gb, w;

	for (ga = 0; ga < v->n_groups; ga++) {
		const uint64_t *row = v->conflict + (size_t)ga * v->words;

		for (w = ga / 64; w < v->words; w++) {
			uint64_t bits = row[w];

			if (w == ga / 64)
				bits &= ~UINT64_C(0) << (ga % 64);
			while (bits) {
				gb = w * 64 + (uint32_t)__builtin_ctzll(bits);
				bits &= bits - 1;
				if (!pair_overlaps(v, ga, gb))
					continue;
				bit_set(v->bad + (size_t)ga * v->words, gb);
				bit_set(v->bad + (size_t)gb * v->words, ga);
				n_bad++;
			}
		}
	}
	return n_bad;
}

/*
 * Some pairs overlap: replay again to find the one that is live together
 * first, and describe it.
 */
static int report_first_pair(struct verifier *v, uint64_t *live,
			     uint64_t *fwd, uint64_t *bwd)
{
	const struct cgs_verify_rank *vr = v->vr;
	const struct piece *x, *y = NULL;
	uint64_t pos = 0;
	uint32_t i;
	char where[128];

	v->hit = UINT32_MAX;
	for (i = 0; i < vr->n_reachable; i++)
		if (replay(v, i, live, fwd, bwd, &pos))
			break;
	if (v->hit == UINT32_MAX || i == vr->n_reachable)
		return cgs_error_set(v->err, CGS_E_VERIFY,
				     "rank %" PRIu32 ": overlapping frames "
				     "(internal: no witness)", vr->rank);
	x = sweep_pair(v, v->hit_group, v->hit, &y);
	snprintf(where, sizeof(where), ", N %" PRIu32 ", order position %"
		 PRIu64 " (entry %+" PRId32 ")", vr->reachable[i], pos,
		 vr->order_entries[vr->order_start[i] + pos]);
	return report_overlap(v, where, y, x);
}

static void verifier_release(struct verifier *v)
{
	free(v->layer_base);
	free(v->conflict);
	free(v->bad);
	free(v->pieces);
	free(v->group_start);
	free(v->extents);
	free(v->extent_start);
	free(v->active_a);
	free(v->active_b);
}

int cgs_verify_rank_check(const struct cgs_verify_rank *vr,
			  struct cgs_verify_stats *stats,
			  struct cgs_error *err)
{
	struct verifier v = {.vr = vr, .err = err, .hit = UINT32_MAX};
	uint64_t *live = NULL, *fwd = NULL, *bwd = NULL, most = 0, pos;
	size_t matrix;
	uint32_t c, g, i;
	int rc;

	rc = check_shape(vr, err);
	if (rc)
		return rc;
	v.n_groups = 2 * vr->vpp * vr->slots;
	v.words = (v.n_groups + 63) / 64;
	matrix = (size_t)v.n_groups * v.words;
	v.layer_base = malloc(((size_t)vr->vpp + 1) * sizeof(*v.layer_base));
	v.conflict = calloc(matrix, sizeof(*v.conflict));
	live = malloc(v.words * sizeof(*live));
	fwd = malloc(vr->vpp * sizeof(*fwd));
	bwd = malloc(vr->vpp * sizeof(*bwd));
	if (!v.layer_base || !v.conflict || !live || !fwd || !bwd) {
		rc = cgs_error_set(err, CGS_E_NOMEM,
				   "out of memory verifying rank %" PRIu32,
				   vr->rank);
		goto out;
	}
	v.layer_base[0] = 0;
	for (c = 0; c < vr->vpp; c++)
		v.layer_base[c + 1] = v.layer_base[c] + vr->layers[c];

	rc = build_pieces(&v);
	if (rc == 0)
		rc = build_extents(&v);
	if (rc)
		goto out;
	for (g = 0; g < v.n_groups; g++) {
		uint64_t n = v.group_start[g + 1] - v.group_start[g];

		most = n > most ? n : most;
	}
	v.active_a = malloc((most ? most : 1) * sizeof(*v.active_a));
	v.active_b = malloc((most ? most : 1) * sizeof(*v.active_b));
	if (!v.active_a || !v.active_b) {
		rc = cgs_error_set(err, CGS_E_NOMEM,
				   "out of memory verifying rank %" PRIu32,
				   vr->rank);
		goto out;
	}
	for (g = 0; g < v.n_groups; g++) {
		rc = check_group(&v, g);
		if (rc)
			goto out;
	}
	for (i = 0; i < vr->n_reachable; i++) {
		rc = replay(&v, i, live, fwd, bwd, &pos);
		if (rc)
			goto out;
	}
	v.bad = calloc(matrix, sizeof(*v.bad));
	if (!v.bad) {
		rc = cgs_error_set(err, CGS_E_NOMEM,
				   "out of memory verifying rank %" PRIu32,
				   vr->rank);
		goto out;
	}
	if (find_bad_pairs(&v))
		rc = report_first_pair(&v, live, fwd, bwd);
	if (rc == 0 && stats) {
		stats->ranks++;
		stats->orders += vr->n_reachable;
		stats->events += vr->n_reachable ?
			vr->order_start[vr->n_reachable] - vr->order_start[0] : 0;
		stats->ranges += v.group_start[v.n_groups];
		most = 0;
		for (pos = 0; pos < matrix; pos++)
			most += (uint64_t)__builtin_popcountll(v.conflict[pos]);
		stats->pairs += most / 2;  /* each pair sits in two rows */
	}
out:
	free(live);
	free(fwd);
	free(bwd);
	verifier_release(&v);
	return rc;
}
