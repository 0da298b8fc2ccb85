#include "manifest/writer.h"

#include <stdlib.h>
#include <string.h>

#include "cgs_version.h"
#include "common/crc32c.h"
#include "common/error.h"
#include "input/schedule.h"
#include "manifest/format.h"
#include "manifest/manifest.h"
#include "plan/plan.h"

/* The planner's role values are the manifest's (and so the runtime's). */
_Static_assert(CGS_ROLE_INPUT == CGS_MANIFEST_ROLE_INPUT &&
	       CGS_ROLE_OUTPUT == CGS_MANIFEST_ROLE_OUTPUT &&
	       CGS_ROLE_SAVED == CGS_MANIFEST_ROLE_SAVED &&
	       CGS_ROLE_USER_GRAD == CGS_MANIFEST_ROLE_USER_GRAD &&
	       CGS_ROLE_COUNT == CGS_MANIFEST_ROLES,
	       "enum cgs_role must keep the manifest's role values");

/* Section payloads in file order; index = section id. */
struct layout {
	uint64_t len[CGS_MF_SECTIONS_KNOWN + 1];
	uint64_t off[CGS_MF_SECTIONS_KNOWN + 1];
	uint64_t total;
	unsigned n_sections;  /* 13 (format 2.0), 14 (2.1) or 15 (2.2) */
};

/* Running cursor over one section's payload. */
struct cursor {
	uint8_t *p;
};

static void put32(struct cursor *c, uint32_t v)
{
	cgs_put_le32(c->p, v);
	c->p += 4;
}

static void put64(struct cursor *c, uint64_t v)
{
	cgs_put_le64(c->p, v);
	c->p += 8;
}

static unsigned entry_bytes_for(uint32_t vpp)
{
	return vpp <= INT8_MAX ? 1 : vpp <= INT16_MAX ? 2 : 4;
}

/* a * b + c into *out, failing on overflow. */
static int mul_add(uint64_t a, uint64_t b, uint64_t c, uint64_t *out)
{
	if (a && b > (UINT64_MAX - c) / a)
		return 0;
	*out = a * b + c;
	return 1;
}

/* How a rank's slot map is stored (rank flags bits 0 and 1). */
enum map_kind {
	MAP_NONE = 0,       /* k mod S: nothing stored */
	MAP_PER_COUNT = 1,  /* section 13, one row per count */
	MAP_PER_CHUNK = 2,  /* section 14, a row per count and chunk */
};

/* Rows of rp's slot map per count: 1, or a row per chunk. */
static uint32_t map_rows(const struct cgs_rank_plan *rp)
{
	return rp->slot_map_rows > 1 ? rp->slot_map_rows : 1;
}

/* Slot of microbatch k of chunk c in count i of rp's map (plan.h). */
static uint32_t map_slot(const struct cgs_rank_plan *rp, uint32_t i,
			 uint32_t c, uint32_t k)
{
	uint64_t row = (uint64_t)i * map_rows(rp) + (map_rows(rp) > 1 ? c : 0);

	return rp->slot_map[row * rp->reachable[rp->n_reachable - 1] + k];
}

/*
 * Where rank plan rp's slot map goes: nowhere where it is k mod S
 * everywhere, section 13 where every chunk's row agrees (as format 2.0
 * stores it), else section 14.
 */
static enum map_kind map_kind(const struct cgs_rank_plan *rp)
{
	uint32_t i, k, c, rows = map_rows(rp);
	enum map_kind kind = MAP_NONE;

	if (!rp->slot_map || rp->n_reachable == 0)
		return MAP_NONE;
	for (i = 0; i < rp->n_reachable; i++)
		for (k = 0; k < rp->reachable[i]; k++) {
			for (c = 1; c < rows; c++)
				if (map_slot(rp, i, c, k) != map_slot(rp, i, 0, k))
					return MAP_PER_CHUNK;
			if (map_slot(rp, i, 0, k) != k % rp->slots)
				kind = MAP_PER_COUNT;
		}
	return kind;
}

/* Check that the plan has the shape its schedule implies. */
static int check_plan(const struct cgs_plan *p, uint64_t *n_saved,
		      struct cgs_error *err)
{
	const struct cgs_schedule *s = p->schedule;
	uint64_t layers_total = 0, n_ug, graphs = 0, want, rank_saved;
	uint32_t c, r, i, largest = 0;

	if (p->slots == 0 || s->vpp == 0 || s->n_variants == 0 ||
	    p->n_ranks == 0)
		return cgs_error_set(err, CGS_E_INVALID,
				     "plan has %u slots, %u chunks, %u variants and %u ranks; each must be at least 1",
				     p->slots, s->vpp, s->n_variants,
				     p->n_ranks);
	if (!cgs_mf_text_ok(s->name ? s->name : ""))
		return cgs_error_at(err, CGS_E_INVALID, s->path, 0, 0,
				    "the schedule name contains a control character or is not UTF-8; manifests store names as plain text");
	for (c = 0; c < s->n_variants; c++)
		if (!*s->variants[c].name || !cgs_mf_text_ok(s->variants[c].name))
			return cgs_error_at(err, CGS_E_INVALID, s->path,
					    s->variants[c].pos.line,
					    s->variants[c].pos.column,
					    "variant %u: the name is empty, contains a control character or is not UTF-8; manifests store names as plain text",
					    c);
	for (c = 0; c < s->vpp; c++)
		layers_total += s->layers[c];
	*n_saved = layers_total * p->slots;
	n_ug = (uint64_t)s->vpp * p->slots;
	if (layers_total > UINT32_MAX || *n_saved > UINT32_MAX ||
	    !mul_add(*n_saved, (uint64_t)s->n_variants * 2, 0, &graphs) ||
	    graphs > UINT32_MAX || n_ug > UINT32_MAX)
		return cgs_error_set(err, CGS_E_LIMIT,
				     "%u slots x %llu layers x %u variants is too many frames or graphs for a manifest (at most 2^32-1 graphs per rank)",
				     p->slots, (unsigned long long)layers_total,
				     s->n_variants);
	for (r = 0; r < p->n_ranks; r++) {
		const struct cgs_rank_plan *rp = &p->ranks[r];

		/* each rank its own ring, none longer than the plan's */
		if (rp->slots == 0 || rp->slots > p->slots ||
		    rp->n_reachable == 0)
			return cgs_error_set(err, CGS_E_INVALID,
					     "plan of rank %u has a ring of %u slots and %u reachable counts; accepted: 1..%u slots, at least one count",
					     rp->rank, rp->slots,
					     rp->n_reachable, p->slots);
		if (rp->slots > largest)
			largest = rp->slots;
		rank_saved = layers_total * rp->slots;
		if (rp->n_saved != rank_saved ||
		    rp->n_user_grad != (uint64_t)s->vpp * rp->slots ||
		    rp->n_graphs != rank_saved * s->n_variants * 2 ||
		    rp->order_start[0] != 0)
			return cgs_error_set(err, CGS_E_INVALID,
					     "plan of rank %u has %u saved and %u user-grad frames; its ring of %u slots implies %llu and %llu",
					     rp->rank, rp->n_saved,
					     rp->n_user_grad, rp->slots,
					     (unsigned long long)rank_saved,
					     (unsigned long long)s->vpp * rp->slots);
		if (rp->slot_map && rp->slot_map_rows > 1 &&
		    rp->slot_map_rows != s->vpp)
			return cgs_error_set(err, CGS_E_INVALID,
					     "plan of rank %u has %u slot map rows per count; accepted: 1, or one per chunk (%u)",
					     rp->rank, rp->slot_map_rows, s->vpp);
		for (i = 0; i < rp->n_reachable; i++) {
			want = (uint64_t)rp->reachable[i] * s->vpp * 2;
			if (rp->order_start[i + 1] - rp->order_start[i] != want)
				return cgs_error_set(err, CGS_E_INVALID,
						     "plan of rank %u: the order for N=%u has %llu entries; %llu expected",
						     rp->rank, rp->reachable[i],
						     (unsigned long long)(rp->order_start[i + 1] -
									  rp->order_start[i]),
						     (unsigned long long)want);
		}
	}
	if (largest != p->slots)
		return cgs_error_set(err, CGS_E_INVALID,
				     "plan's ring is %u slots; its largest rank ring is %u",
				     p->slots, largest);
	return 0;
}

const char *cgs_manifest_producer(void)
{
	const char *env = getenv("CGSLOT_PRODUCER");
	size_t i, n = env ? strlen(env) : 0;

	if (n == 0 || n > CGS_MANIFEST_PRODUCER_MAX)
		return CGS_VERSION_STRING;
	for (i = 0; i < n; i++)
		if (env[i] < 0x20 || env[i] > 0x7e)
			return CGS_VERSION_STRING;
	return env;
}

static uint64_t strings_len(const struct cgs_schedule *s)
{
	uint64_t n = strlen(s->name ? s->name : "") + 1 +
		     strlen(cgs_manifest_producer()) + 1;
	uint32_t v;

	for (v = 0; v < s->n_variants; v++)
		n += strlen(s->variants[v].name) + 1;
	return n;
}

static int plan_layout(const struct cgs_plan *p, uint64_t n_saved,
		       struct layout *lo, struct cgs_error *err)
{
	const struct cgs_schedule *s = p->schedule;
	uint64_t reach = 0, entries = 0, arenas = 0, capture = 0, pos, v;
	uint64_t R = p->n_ranks, V = s->n_variants, rvl = 0, maps = 0;
	uint64_t chunk_maps = 0, nested = 0, joint = 0;
	enum map_kind kind;
	uint64_t saved = 0, user_grad = 0;
	uint32_t r, i;
	unsigned id;
	int ok = 1;

	for (r = 0; r < p->n_ranks; r++) {
		const struct cgs_rank_plan *rp = &p->ranks[r];

		reach += rp->n_reachable;
		entries += rp->order_start[rp->n_reachable];
		arenas += rp->n_arenas;
		capture += rp->n_graphs;
		saved += rp->n_saved;
		user_grad += rp->n_user_grad;
		nested += rp->n_nested;
		joint += rp->joint != 0;
		kind = map_kind(rp);
		for (i = 0; kind != MAP_NONE && i < rp->n_reachable; i++)
			if (kind == MAP_PER_COUNT)
				maps += rp->reachable[i];
			else
				chunk_maps += (uint64_t)rp->reachable[i] * s->vpp;
	}
	/* n_saved is the largest rank's: layers_total * p->slots */
	memset(lo, 0, sizeof(*lo));
	lo->len[CGS_MF_META] = CGS_MF_META_FIXED_BYTES + (uint64_t)s->vpp * 4;
	lo->len[CGS_MF_STRINGS] = strings_len(s);
	lo->len[CGS_MF_VARIANTS] = V * CGS_MF_VARIANT_BYTES;
	lo->len[CGS_MF_RANKS] = R * CGS_MF_RANK_ENTRY_BYTES;
	lo->len[CGS_MF_REACHABLE] = reach * CGS_MF_REACHABLE_BYTES;
	ok &= mul_add(entries, entry_bytes_for(s->vpp), 0,
		      &lo->len[CGS_MF_ORDERS]);
	lo->len[CGS_MF_ARENAS] = arenas * CGS_MF_ARENA_BYTES;
	ok &= mul_add(R * V, n_saved / p->slots, 0, &rvl);
	ok &= mul_add(saved, CGS_MF_FRAME_BYTES, 0,
		      &lo->len[CGS_MF_SAVED_FRAMES]);
	ok &= mul_add(user_grad, CGS_MF_FRAME_BYTES, 0,
		      &lo->len[CGS_MF_USER_GRAD_FRAMES]);
	ok &= mul_add(rvl, 3 * CGS_MF_RANGE_BYTES, 0,
		      &lo->len[CGS_MF_SAVED_ROLES]);
	ok &= mul_add(rvl, CGS_MF_RANGE_BYTES, 0,
		      &lo->len[CGS_MF_USER_GRAD_LAYERS]);
	ok &= mul_add(capture, 4, 0, &lo->len[CGS_MF_CAPTURE]);
	ok &= mul_add(maps, CGS_MF_SLOT_MAP_ENTRY_BYTES, 0,
		      &lo->len[CGS_MF_SLOT_MAPS]);
	ok &= mul_add(chunk_maps, CGS_MF_SLOT_MAP_ENTRY_BYTES, 0,
		      &lo->len[CGS_MF_CHUNK_SLOT_MAPS]);
	lo->len[CGS_MF_NESTED] = R * CGS_MF_NESTED_ENTRY_BYTES;
	lo->len[CGS_MF_JOINT] = R * CGS_MF_JOINT_ENTRY_BYTES;
	/*
	 * format 2.1, 2.2 or 2.3 only where it is needed: other files stay
	 * as they were
	 */
	lo->n_sections = joint ? CGS_MF_SECTIONS_KNOWN
			 : nested ? CGS_MF_SECTIONS_V2_2
			 : chunk_maps ? CGS_MF_SECTIONS_V2_1
			 : CGS_MF_SECTIONS_V2_0;
	pos = CGS_MF_HEADER_BYTES +
	      (uint64_t)lo->n_sections * CGS_MF_TOC_ENTRY_BYTES;
	for (id = 1; id <= lo->n_sections && ok; id++) {
		lo->off[id] = pos;
		v = cgs_mf_align8(lo->len[id]);
		ok &= v >= lo->len[id] && pos <= UINT64_MAX - v;
		pos += v;
	}
	ok &= pos <= SIZE_MAX - CGS_MF_TRAILER_BYTES;
	lo->total = pos + CGS_MF_TRAILER_BYTES;
	if (!ok)
		return cgs_error_set(err, CGS_E_LIMIT,
				     "the manifest would not fit in memory");
	return 0;
}

static void write_meta(uint8_t *b, const struct cgs_plan *p,
		       uint64_t schedule_hash, uint64_t n_saved)
{
	const struct cgs_schedule *s = p->schedule;
	size_t name_len = strlen(s->name ? s->name : "");
	uint32_t c;

	cgs_put_le64(b + CGS_MF_META_HASH, schedule_hash);
	cgs_put_le64(b + CGS_MF_META_ALIGNMENT, s->alignment);
	cgs_put_le32(b + CGS_MF_META_PP, s->pp);
	cgs_put_le32(b + CGS_MF_META_VPP, s->vpp);
	cgs_put_le32(b + CGS_MF_META_GROUP, s->group);
	cgs_put_le32(b + CGS_MF_META_MAX_MB, s->max_microbatches);
	cgs_put_le32(b + CGS_MF_META_SLOTS, p->slots);
	cgs_put_le32(b + CGS_MF_META_LAYERS_TOTAL,
		     (uint32_t)(n_saved / p->slots));
	cgs_put_le32(b + CGS_MF_META_VARIANTS, s->n_variants);
	cgs_put_le32(b + CGS_MF_META_RANKS, p->n_ranks);
	/* Strings: name, producer, then the variant names. */
	cgs_put_le32(b + CGS_MF_META_NAME, 0);
	cgs_put_le32(b + CGS_MF_META_PRODUCER, (uint32_t)name_len + 1);
	cgs_put_le32(b + CGS_MF_META_ENTRY_BYTES, entry_bytes_for(s->vpp));
	for (c = 0; c < s->vpp; c++)
		cgs_put_le32(b + CGS_MF_META_FIXED_BYTES + 4 * (size_t)c,
			     s->layers[c]);
}

static void write_strings(uint8_t *b, uint8_t *variants,
			  const struct cgs_schedule *s)
{
	uint8_t *p = b;
	size_t n;
	uint32_t v;

	n = strlen(s->name ? s->name : "") + 1;
	memcpy(p, s->name ? s->name : "", n);
	p += n;
	n = strlen(cgs_manifest_producer()) + 1;
	memcpy(p, cgs_manifest_producer(), n);
	p += n;
	for (v = 0; v < s->n_variants; v++) {
		n = strlen(s->variants[v].name) + 1;
		cgs_put_le32(variants + (size_t)v * CGS_MF_VARIANT_BYTES,
			     (uint32_t)(p - b));
		cgs_put_le32(variants + (size_t)v * CGS_MF_VARIANT_BYTES + 4,
			     s->variants[v].cp);
		memcpy(p, s->variants[v].name, n);
		p += n;
	}
}

static void put_stats(uint8_t *p, const struct cgs_role_stats *st)
{
	cgs_put_le32(p + CGS_MF_STATS_FRAMES, st->frames);
	cgs_put_le32(p + CGS_MF_STATS_COLOURS, st->colours);
	cgs_put_le32(p + CGS_MF_STATS_COLOUR_LB, st->colour_lower_bound);
	cgs_put_le64(p + CGS_MF_STATS_BYTES, st->bytes);
	cgs_put_le64(p + CGS_MF_STATS_LOWER_BOUND, st->lower_bound_bytes);
}

static void put_frame(struct cursor *c, const struct cgs_frame *f)
{
	put32(c, f->chunk);
	put32(c, f->slot);
	put32(c, f->layer);
	put32(c, f->colour);
	put32(c, f->arena);
	put32(c, 0);
	put64(c, f->offset);
	put64(c, f->bytes);
}

static void put_range(struct cursor *c, const struct cgs_range *r)
{
	put64(c, r->offset);
	put64(c, r->bytes);
}

/* Every per-rank section, rank after rank. */
static void write_ranks(uint8_t *b, const struct layout *lo,
			const struct cgs_plan *p, uint64_t n_saved)
{
	const struct cgs_schedule *s = p->schedule;
	unsigned w = entry_bytes_for(s->vpp);
	uint64_t reach = 0, entries = 0, arenas = 0, capture = 0, k, n;
	struct cursor rk = {b + lo->off[CGS_MF_RANKS]};
	struct cursor re = {b + lo->off[CGS_MF_REACHABLE]};
	struct cursor od = {b + lo->off[CGS_MF_ORDERS]};
	struct cursor ar = {b + lo->off[CGS_MF_ARENAS]};
	struct cursor sf = {b + lo->off[CGS_MF_SAVED_FRAMES]};
	struct cursor uf = {b + lo->off[CGS_MF_USER_GRAD_FRAMES]};
	struct cursor sr = {b + lo->off[CGS_MF_SAVED_ROLES]};
	struct cursor ul = {b + lo->off[CGS_MF_USER_GRAD_LAYERS]};
	struct cursor cp = {b + lo->off[CGS_MF_CAPTURE]};
	struct cursor sm = {b + lo->off[CGS_MF_SLOT_MAPS]};
	struct cursor cm = {b + lo->off[CGS_MF_CHUNK_SLOT_MAPS]};
	struct cursor ns = {b + lo->off[CGS_MF_NESTED]};
	struct cursor js = {b + lo->off[CGS_MF_JOINT]};
	uint64_t saved = 0, user_grad = 0, maps = 0, chunk_maps = 0;
	uint64_t at;
	uint32_t r, i, v, c, l;
	enum map_kind kind;

	for (r = 0; r < p->n_ranks; r++) {
		const struct cgs_rank_plan *rp = &p->ranks[r];

		kind = map_kind(rp);
		cgs_put_le32(rk.p + CGS_MF_RANK_SLOTS, rp->slots);
		cgs_put_le32(rk.p + CGS_MF_RANK_FLAGS,
			     kind == MAP_PER_COUNT ? CGS_MF_RANK_HAS_SLOT_MAP
			     : kind == MAP_PER_CHUNK ? CGS_MF_RANK_HAS_CHUNK_SLOT_MAP
			     : 0);
		cgs_put_le64(rk.p + CGS_MF_RANK_SAVED_FIRST, saved);
		cgs_put_le64(rk.p + CGS_MF_RANK_USER_GRAD_FIRST, user_grad);
		/* a rank without a map continues section 13's index */
		cgs_put_le64(rk.p + CGS_MF_RANK_SLOT_MAP_FIRST,
			     kind == MAP_PER_CHUNK ? chunk_maps : maps);
		saved += rp->n_saved;
		user_grad += rp->n_user_grad;
		if (lo->n_sections >= CGS_MF_NESTED) {
			put32(&ns, rp->n_nested);
			put32(&ns, 0);
		}
		if (lo->n_sections >= CGS_MF_JOINT) {
			put32(&js, rp->joint ? CGS_MF_JOINT_PACKED : 0);
			put32(&js, 0);
		}
		for (i = 0; kind == MAP_PER_COUNT && i < rp->n_reachable; i++) {
			for (k = 0; k < rp->reachable[i]; k++)
				put32(&sm, map_slot(rp, i, 0, (uint32_t)k));
			maps += rp->reachable[i];
		}
		for (i = 0; kind == MAP_PER_CHUNK && i < rp->n_reachable; i++)
			for (c = 0; c < s->vpp; c++) {
				for (k = 0; k < rp->reachable[i]; k++)
					put32(&cm, map_slot(rp, i, c, (uint32_t)k));
				chunk_maps += rp->reachable[i];
			}

		cgs_put_le32(rk.p + CGS_MF_RANK_ID, rp->rank);
		cgs_put_le32(rk.p + CGS_MF_RANK_REACHABLE, rp->n_reachable);
		cgs_put_le32(rk.p + CGS_MF_RANK_ARENAS, rp->n_arenas);
		cgs_put_le32(rk.p + CGS_MF_RANK_CAPTURE, rp->n_graphs);
		cgs_put_le64(rk.p + CGS_MF_RANK_REACHABLE_FIRST, reach);
		cgs_put_le64(rk.p + CGS_MF_RANK_ARENA_FIRST, arenas);
		cgs_put_le64(rk.p + CGS_MF_RANK_CAPTURE_FIRST, capture);
		put_stats(rk.p + CGS_MF_RANK_SAVED_STATS, &rp->saved_stats);
		put_stats(rk.p + CGS_MF_RANK_USER_GRAD_STATS,
			  &rp->user_grad_stats);
		cgs_put_le64(rk.p + CGS_MF_RANK_BYTES, rp->bytes);
		cgs_put_le64(rk.p + CGS_MF_RANK_LOWER_BOUND,
			     rp->lower_bound_bytes);
		cgs_put_le64(rk.p + CGS_MF_RANK_WITHOUT_SHARING,
			     rp->bytes_without_sharing);
		cgs_put_le64(rk.p + CGS_MF_RANK_COLOUR_ARENAS,
			     rp->bytes_colour_arenas);
		rk.p += CGS_MF_RANK_ENTRY_BYTES;
		reach += rp->n_reachable;
		arenas += rp->n_arenas;
		capture += rp->n_graphs;

		for (i = 0; i < rp->n_reachable; i++) {
			put32(&re, rp->reachable[i]);
			put32(&re, 0);
			put64(&re, entries + rp->order_start[i]);
		}
		n = rp->order_start[rp->n_reachable];
		for (k = 0; k < n; k++, od.p += w) {
			if (w == 1)
				od.p[0] = (uint8_t)(int8_t)rp->order_entries[k];
			else if (w == 2)
				cgs_put_le16(od.p, (uint16_t)(int16_t)rp->order_entries[k]);
			else
				cgs_put_le32(od.p, (uint32_t)rp->order_entries[k]);
		}
		entries += n;
		for (i = 0; i < rp->n_arenas; i++) {
			put32(&ar, rp->arenas[i].role);
			put32(&ar, 0);
			put64(&ar, rp->arenas[i].bytes);
			put64(&ar, s->alignment);
		}
		for (k = 0; k < rp->n_saved; k++)
			put_frame(&sf, &rp->saved[k]);
		for (k = 0; k < rp->n_user_grad; k++)
			put_frame(&uf, &rp->user_grad[k]);
		/* the plan's ranges, once per (variant, chunk, layer) as stored */
		for (v = 0; v < s->n_variants; v++)
			for (c = 0; c < s->vpp; c++)
				for (l = 0; l < s->layers[c]; l++) {
					at = cgs_plan_role_index(p, v, c, l);
					put_range(&sr, &rp->saved_roles[at * 3]);
					put_range(&sr, &rp->saved_roles[at * 3 + 1]);
					put_range(&sr, &rp->saved_roles[at * 3 + 2]);
					put_range(&ul, &rp->user_grad_layers[at]);
				}
		for (i = 0; i < rp->n_graphs; i++)
			put32(&cp, rp->capture[i]);
	}
}

int cgs_manifest_write(const struct cgs_plan *plan, uint64_t schedule_hash,
		       void **out, size_t *len, struct cgs_error *err)
{
	struct layout lo;
	uint64_t n_saved = 0;
	uint8_t *b, *toc;
	unsigned id;
	int rc;

	if (!plan || !plan->schedule || !out || !len)
		return cgs_error_set(err, CGS_E_ARG,
				     "cgs_manifest_write: NULL argument");
	*out = NULL;
	*len = 0;
	if ((rc = check_plan(plan, &n_saved, err)) ||
	    (rc = plan_layout(plan, n_saved, &lo, err)))
		return rc;
	/* calloc: padding and reserved fields are zero by construction. */
	b = calloc(1, (size_t)lo.total);
	if (!b)
		return cgs_error_set(err, CGS_E_NOMEM,
				     "out of memory for a %llu-byte manifest",
				     (unsigned long long)lo.total);
	memcpy(b, CGS_MF_MAGIC, CGS_MF_MAGIC_BYTES);
	cgs_put_le16(b + 8, CGS_MANIFEST_MAJOR);
	cgs_put_le16(b + 10, lo.n_sections > CGS_MF_SECTIONS_V2_2
				     ? CGS_MF_MINOR_JOINT
			     : lo.n_sections > CGS_MF_SECTIONS_V2_1
				     ? CGS_MF_MINOR_NESTED
			     : lo.n_sections > CGS_MF_SECTIONS_V2_0
				     ? CGS_MF_MINOR_CHUNK_SLOT_MAPS : 0);
	cgs_put_le32(b + 12, CGS_MF_HEADER_BYTES);
	cgs_put_le32(b + 16, lo.n_sections);
	cgs_put_le64(b + 24, lo.total);
	toc = b + CGS_MF_HEADER_BYTES;
	for (id = 1; id <= lo.n_sections;
	     id++, toc += CGS_MF_TOC_ENTRY_BYTES) {
		cgs_put_le32(toc, id);
		cgs_put_le64(toc + 8, lo.off[id]);
		cgs_put_le64(toc + 16, lo.len[id]);
	}
	write_meta(b + lo.off[CGS_MF_META], plan, schedule_hash, n_saved);
	write_strings(b + lo.off[CGS_MF_STRINGS], b + lo.off[CGS_MF_VARIANTS],
		      plan->schedule);
	write_ranks(b, &lo, plan, n_saved);
	cgs_put_le32(b + lo.total - 4, cgs_crc32c(0, b, (size_t)lo.total - 4));
	*out = b;
	*len = (size_t)lo.total;
	return 0;
}
