/*
 * Does a schedule match a manifest?  The hash says whether it is the same
 * schedule; the sizes say whether every range can hold what the schedule
 * asks of it, which a hash collision or a writer bug could hide.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "common/error.h"
#include "input/schedule.h"
#include "manifest/manifest.h"
#include "verify/verify.h"
#include "verify/verify_manifest.h"

static const char *const role_names[] = {"input", "output", "saved",
					 "user_grad"};

/* v rounded up to the power of two a; 1 when it does not fit. */
static int align_up(uint64_t v, uint64_t a, uint64_t *out)
{
	if (cgs_add_u64(v, a - 1, out))
		return 1;
	*out &= ~(a - 1);
	return 0;
}

/*
 * Each frame's extent is what the schedule makes it: the largest over
 * variants of its aligned ranges (input + output + saved for a saved
 * frame; every layer's user_grad for a user-gradient frame).
 */
static int check_extents(const struct cgs_verify_rank *vr,
			 const struct cgs_schedule *s,
			 const uint32_t *variant_map, struct cgs_error *err)
{
	uint64_t a = s->alignment ? s->alignment : 1, want, ug_want, x, sum;
	uint32_t c, slot, l, v, r, base = 0;

	for (c = 0; c < vr->vpp; base += vr->layers[c], c++)
		for (slot = 0; slot < vr->slots; slot++) {
			ug_want = 0;
			for (v = 0; v < vr->n_variants; v++) {
				uint32_t sv = variant_map ? variant_map[v] : v;

				sum = 0;
				for (l = 0; l < vr->layers[c]; l++)
					if (align_up(cgs_schedule_bytes(s, sv, vr->rank,
							c, l, CGS_ROLE_USER_GRAD), a, &x) ||
					    cgs_acc_u64(&sum, x))
						return cgs_error_set(err, CGS_E_MISMATCH,
							"rank %" PRIu32 ": the schedule's "
							"user-gradient frame (chunk %" PRIu32
							") overflows 64 bits", vr->rank, c);
				if (sum > ug_want)
					ug_want = sum;
			}
			if (vr->user_grad_frames[c * vr->slots + slot].bytes != ug_want)
				return cgs_error_set(err, CGS_E_MISMATCH,
					"user-grad frames: rank %" PRIu32
					": frame (chunk %" PRIu32 ", slot %" PRIu32
					") bytes is %" PRIu64 "; the schedule makes it %"
					PRIu64, vr->rank, c, slot,
					vr->user_grad_frames[c * vr->slots + slot].bytes,
					ug_want);
			for (l = 0; l < vr->layers[c]; l++) {
				uint32_t f = base * vr->slots + slot * vr->layers[c] + l;

				want = 0;
				for (v = 0; v < vr->n_variants; v++) {
					uint32_t sv = variant_map ? variant_map[v] : v;

					sum = 0;
					for (r = 0; r < 3; r++)
						if (align_up(cgs_schedule_bytes(s, sv,
								vr->rank, c, l,
								(enum cgs_role)r), a, &x) ||
						    cgs_acc_u64(&sum, x))
							return cgs_error_set(err,
								CGS_E_MISMATCH,
								"rank %" PRIu32 ": the "
								"schedule's saved frame "
								"(chunk %" PRIu32 ", layer %"
								PRIu32 ") overflows 64 bits",
								vr->rank, c, l);
					if (sum > want)
						want = sum;
				}
				if (vr->saved_frames[f].bytes != want)
					return cgs_error_set(err, CGS_E_MISMATCH,
						"saved frames: rank %" PRIu32
						": frame (chunk %" PRIu32 ", slot %"
						PRIu32 ", layer %" PRIu32 ") bytes is %"
						PRIu64 "; the schedule makes it %" PRIu64,
						vr->rank, c, slot, l,
						vr->saved_frames[f].bytes, want);
			}
		}
	return 0;
}

static int too_small(const struct cgs_verify_rank *vr,
		     const struct cgs_schedule *s, uint32_t sv, uint32_t c,
		     uint32_t slot, uint32_t l, int role, uint64_t have,
		     uint64_t need, struct cgs_error *err)
{
	return cgs_error_set(err, CGS_E_MISMATCH,
		"rank %" PRIu32 ": %s frame (chunk %" PRIu32 ", slot %" PRIu32
		", layer %" PRIu32 ") variant '%s' role %s holds %" PRIu64
		" bytes; the schedule gives it %" PRIu64, vr->rank,
		role == 3 ? "user-gradient" : "saved", c, slot, l,
		s->variants[sv].name, role_names[role], have, need);
}

int cgs_verify_rank_sizes(const struct cgs_verify_rank *vr,
			  const struct cgs_schedule *s,
			  const uint32_t *variant_map, struct cgs_error *err)
{
	uint32_t c, slot, l, v, r, base = 0;

	if (!vr || !s || !vr->layers || !vr->saved || !vr->user_grad)
		return cgs_error_set(err, CGS_E_ARG, "nothing to compare");
	if (vr->vpp != s->vpp || vr->n_variants != s->n_variants)
		return cgs_error_set(err, CGS_E_MISMATCH,
			"rank %" PRIu32 " has %" PRIu32 " chunks and %" PRIu32
			" variants; the schedule has %" PRIu32 " and %" PRIu32,
			vr->rank, vr->vpp, vr->n_variants, s->vpp,
			s->n_variants);
	for (c = 0; c < vr->vpp; c++)
		if (vr->layers[c] != s->layers[c])
			return cgs_error_set(err, CGS_E_MISMATCH,
				"rank %" PRIu32 ": chunk %" PRIu32 " has %" PRIu32
				" layers; the schedule has %" PRIu32, vr->rank, c,
				vr->layers[c], s->layers[c]);
	for (c = 0; c < vr->vpp; base += vr->layers[c], c++)
		for (slot = 0; slot < vr->slots; slot++)
			for (l = 0; l < vr->layers[c]; l++) {
				uint32_t f = base * vr->slots +
					     slot * vr->layers[c] + l;

				for (v = 0; v < vr->n_variants; v++) {
					uint32_t sv = variant_map ? variant_map[v] : v;
					uint64_t i = (uint64_t)v * vr->n_saved + f;
					uint64_t need;

					for (r = 0; r < 3; r++) {
						need = cgs_schedule_bytes(s, sv, vr->rank,
									  c, l, (enum cgs_role)r);
						if (vr->saved[i * 3 + r].bytes != need)
							return too_small(vr, s, sv, c, slot, l,
								(int)r, vr->saved[i * 3 + r].bytes,
								need, err);
					}
					need = cgs_schedule_bytes(s, sv, vr->rank, c, l,
								  CGS_ROLE_USER_GRAD);
					if (vr->user_grad[i].bytes != need)
						return too_small(vr, s, sv, c, slot, l, 3,
								 vr->user_grad[i].bytes,
								 need, err);
				}
			}
	if (vr->saved_frames && vr->user_grad_frames)
		return check_extents(vr, s, variant_map, err);
	return 0;
}

/*
 * Megatron's capture order for (P, M, G, N, rank), derived here from the
 * formulas alone (cgslot-manifest(5) and the brief), sharing nothing with
 * src/order: the table lists (microbatch, chunk) group by group, chunk by
 * chunk; forwards are chunk + 1, backwards chunk - M; the order is w
 * forwards, then forward/backward pairs, then the last w backwards.
 */
static void megatron_order(uint32_t P, uint32_t M, uint32_t G, uint32_t N,
			   uint32_t rank, uint32_t *table, int32_t *out)
{
	uint64_t total = (uint64_t)N * M, w, i, k = 0, g, mb, h;
	uint32_t c;

	if (M == 1)
		w = P - rank - 1;
	else
		w = ((uint64_t)P - rank - 1) * 2 + (uint64_t)(M - 1) * G;
	if (w > total)
		w = total;
	for (g = 0; g < N; g += G) {
		h = g + G >= N ? N : g + G;
		for (c = 0; c < M; c++)
			for (mb = g; mb < h; mb++)
				table[k++] = c;
	}
	k = 0;
	for (i = 0; i < w; i++)
		out[k++] = (int32_t)table[i] + 1;
	for (i = w; i < total; i++) {
		out[k++] = (int32_t)table[i] + 1;
		out[k++] = (int32_t)table[i - w] - (int32_t)M;
	}
	for (i = total - w; i < total; i++)
		out[k++] = (int32_t)table[i] - (int32_t)M;
}

static int mismatch_meta(const char *field, uint64_t stored, uint64_t want,
			 struct cgs_error *err)
{
	return cgs_error_set(err, CGS_E_MISMATCH,
		"meta: %s is %" PRIu64 "; the schedule gives %" PRIu64, field,
		stored, want);
}

/* The header fields against the schedule's pipeline. */
static int compare_meta(const struct cgs_manifest *m,
			const struct cgs_schedule *s, struct cgs_error *err)
{
	const struct cgs_manifest_info *in = cgs_manifest_info(m);
	uint32_t c;

	if (in->pp != s->pp)
		return mismatch_meta("pp", in->pp, s->pp, err);
	if (in->vpp != s->vpp)
		return mismatch_meta("vpp", in->vpp, s->vpp, err);
	if (in->group != s->group)
		return mismatch_meta("microbatch group", in->group, s->group,
				     err);
	if (in->max_microbatches != s->max_microbatches)
		return mismatch_meta("max_microbatches", in->max_microbatches,
				     s->max_microbatches, err);
	if (in->alignment != s->alignment)
		return mismatch_meta("alignment", in->alignment, s->alignment,
				     err);
	if (s->slots && !s->slots_max && in->slots != s->slots)
		return mismatch_meta("slots", in->slots, s->slots, err);
	for (c = 0; c < s->vpp; c++)
		if (cgs_manifest_chunk_layers(m, c) != s->layers[c])
			return cgs_error_set(err, CGS_E_MISMATCH,
				"meta: chunk %" PRIu32 " has %" PRIu32
				" layers; the schedule gives %" PRIu32, c,
				cgs_manifest_chunk_layers(m, c), s->layers[c]);
	if (strcmp(in->name, s->name ? s->name : "") != 0)
		return cgs_error_set(err, CGS_E_MISMATCH,
			"meta: name is '%s'; the schedule's is '%s'", in->name,
			s->name ? s->name : "");
	return 0;
}

/* The schedule's explicit orders of `rank`, ascending by count. */
static uint32_t explicit_orders(const struct cgs_schedule *s, uint32_t rank,
				const struct cgs_order **list)
{
	uint32_t n = 0, j;
	size_t k;

	for (k = 0; k < s->n_orders; k++) {
		if (s->orders[k].rank != rank)
			continue;
		if (list) {
			for (j = n; j > 0 && list[j - 1]->microbatches >
					     s->orders[k].microbatches; j--)
				list[j] = list[j - 1];
			list[j] = &s->orders[k];
		}
		n++;
	}
	return n;
}

/*
 * Rank index ri's reachable counts and orders against the schedule's:
 * its explicit orders, else Megatron's for N in 1..L (M == 1 or G <= 1)
 * or G, 2G, ..., L.  Tracks the ring the orders need (in *in_flight and
 * *ug_same) for the slots check.
 */
static int compare_orders(const struct cgs_manifest *m,
			  const struct cgs_schedule *s, uint32_t ri,
			  uint32_t *in_flight, int *ug_same,
			  struct cgs_error *err)
{
	uint32_t rank = cgs_manifest_rank_id(m, ri), M = s->vpp, i, n, c;
	uint32_t n_expl = explicit_orders(s, rank, NULL), count, step;
	uint32_t have = cgs_manifest_reachable_count(m, ri);
	const struct cgs_order **list = NULL;
	uint32_t *table = NULL, *fwd = NULL, *bwd = NULL;
	int32_t *want = NULL;
	uint64_t k, len;
	int rc = 0;

	step = (M == 1 || s->group <= 1) ? 1 : s->group;
	count = n_expl ? n_expl : s->max_microbatches / step;
	if (have != count)
		return cgs_error_set(err, CGS_E_MISMATCH,
			"reachable: rank %" PRIu32 " has %" PRIu32
			" reachable counts; the schedule gives %" PRIu32, rank,
			have, count);
	list = calloc((size_t)n_expl + 1, sizeof(*list));
	table = calloc((size_t)s->max_microbatches * M + 1, sizeof(*table));
	want = calloc((size_t)s->max_microbatches * M * 2 + 1, sizeof(*want));
	fwd = calloc((size_t)M * 2, sizeof(*fwd));
	if (!list || !table || !want || !fwd) {
		rc = cgs_error_set(err, CGS_E_NOMEM, "out of memory");
		goto out;
	}
	bwd = fwd + M;
	explicit_orders(s, rank, list);
	for (i = 0; i < count && !rc; i++) {
		const int32_t *e;
		int32_t last = 0;

		n = n_expl ? list[i]->microbatches : (i + 1) * step;
		if (cgs_manifest_reachable(m, ri, i) != n) {
			rc = cgs_error_set(err, CGS_E_MISMATCH,
				"reachable: rank %" PRIu32 " entry %" PRIu32
				" is N=%" PRIu32 "; the schedule gives N=%"
				PRIu32, rank, i, cgs_manifest_reachable(m, ri, i),
				n);
			break;
		}
		len = (uint64_t)n * M * 2;
		if (n_expl) {
			e = list[i]->entries;
			if (list[i]->n_entries != len) {
				rc = cgs_error_set(err, CGS_E_MISMATCH,
					"orders: rank %" PRIu32 " N=%" PRIu32
					" has %" PRIu64 " entries; the schedule's "
					"has %zu", rank, n, len,
					list[i]->n_entries);
				break;
			}
		} else {
			megatron_order(s->pp, M, s->group, n, rank, table, want);
			e = want;
		}
		memset(fwd, 0, (size_t)M * 2 * sizeof(*fwd));
		for (k = 0; k < len; k++) {
			int32_t x = cgs_manifest_order_entry(m, ri, i, k);

			if (x != e[k]) {
				rc = cgs_error_set(err, CGS_E_MISMATCH,
					"orders: rank %" PRIu32 " N=%" PRIu32
					" entry %" PRIu64 " is %" PRId32 "; the "
					"schedule gives %" PRId32, rank, n, k, x,
					e[k]);
				break;
			}
			/* the reader checked x names a chunk and drains */
			c = (uint32_t)(x > 0 ? x : -(int64_t)x) - 1;
			if (x > 0 && ++fwd[c] - bwd[c] > *in_flight)
				*in_flight = fwd[c] - bwd[c];
			if (x < 0) {
				bwd[c]++;
				if (last == x)
					*ug_same = 1;
				last = x;
			}
		}
	}
out:
	free(list);
	free(table);
	free(want);
	free(fwd);
	return rc;
}

/* Manifest variant v is the schedule variant of the same name and CP. */
static int map_variants(const struct cgs_manifest *m,
			const struct cgs_schedule *s, uint32_t *map,
			struct cgs_error *err)
{
	const struct cgs_manifest_info *in = cgs_manifest_info(m);
	uint32_t v, w;

	if (in->n_variants != s->n_variants)
		return cgs_error_set(err, CGS_E_MISMATCH,
			"the manifest has %" PRIu32 " variants, the schedule %"
			PRIu32, in->n_variants, s->n_variants);
	for (v = 0; v < in->n_variants; v++) {
		const char *name = cgs_manifest_variant_name(m, v);

		for (w = 0; w < s->n_variants; w++)
			if (strcmp(s->variants[w].name, name) == 0)
				break;
		if (w == s->n_variants ||
		    s->variants[w].cp != cgs_manifest_variant_cp(m, v))
			return cgs_error_set(err, CGS_E_MISMATCH,
				"the manifest's variant '%s' (cp %" PRIu32
				") is not in the schedule", name,
				cgs_manifest_variant_cp(m, v));
		map[v] = w;
	}
	return 0;
}

int cgs_verify_manifest_schedule(const struct cgs_manifest *m,
				 const struct cgs_schedule *s,
				 struct cgs_error *err)
{
	const struct cgs_manifest_info *in;
	struct cgs_verify_rank_storage st;
	uint64_t hash;
	uint32_t *map = NULL, ri, in_flight = 0;
	int rc, ug_same = 0;

	if (!m || !s)
		return cgs_error_set(err, CGS_E_ARG, "nothing to compare");
	in = cgs_manifest_info(m);
	hash = cgs_schedule_hash(s);
	if (hash != in->schedule_hash)
		return cgs_error_set(err, CGS_E_MISMATCH,
			"schedule %s does not match the manifest: its hash is "
			"%016" PRIx64 ", the manifest was compiled from %016"
			PRIx64, s->path ? s->path : "(memory)", hash,
			in->schedule_hash);
	if (in->n_ranks != s->n_ranks)
		return cgs_error_set(err, CGS_E_MISMATCH,
			"the manifest plans %" PRIu32 " ranks, the schedule %"
			PRIu32, in->n_ranks, s->n_ranks);
	for (ri = 0; ri < in->n_ranks; ri++)
		if (cgs_manifest_rank_id(m, ri) != s->ranks[ri])
			return cgs_error_set(err, CGS_E_MISMATCH,
				"the manifest plans rank %" PRIu32 " where the "
				"schedule plans rank %" PRIu32,
				cgs_manifest_rank_id(m, ri), s->ranks[ri]);
	if ((rc = compare_meta(m, s, err)))
		return rc;
	for (ri = 0; ri < in->n_ranks; ri++)
		if ((rc = compare_orders(m, s, ri, &in_flight, &ug_same, err)))
			return rc;
	/*
	 * An automatic ring is the smallest the orders allow; a searched one
	 * (slots.max, or rings per rank that came out equal) lies between
	 * that, or the fixed ring, and slots.max.  Whether it is safe is the
	 * replay's to prove, not this check's.
	 */
	{
		uint32_t ring = in_flight ? in_flight : 1, lo, hi;

		if (ug_same && ring < 2)
			ring = 2;
		lo = s->slots ? s->slots : ring;
		hi = s->slots_max > lo ? s->slots_max : lo;
		if (!s->slots_max && !s->slots_per_rank && !s->slots &&
		    in->slots != ring)
			return mismatch_meta("slots", in->slots, ring, err);
		if ((s->slots_max || s->slots_per_rank) &&
		    (in->slots < lo || in->slots > hi))
			return cgs_error_set(err, CGS_E_MISMATCH,
				"meta: slots is %" PRIu32 "; the schedule's "
				"ring search allows %" PRIu32 "..%" PRIu32,
				in->slots, lo, hi);
	}
	map = malloc((in->n_variants + 1) * sizeof(*map));
	if (!map)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	rc = map_variants(m, s, map, err);
	for (ri = 0; ri < in->n_ranks && rc == 0; ri++) {
		rc = cgs_verify_rank_from_manifest(&st, m, ri, err);
		if (rc)
			break;
		rc = cgs_verify_rank_sizes(&st.view, s, map, err);
		cgs_verify_rank_storage_release(&st);
	}
	free(map);
	return rc;
}
