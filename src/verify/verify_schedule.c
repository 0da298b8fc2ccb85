/*
 * Does a schedule match a manifest?  The hash says whether it is the same
 * schedule; the sizes say whether every range can hold what the schedule
 * asks of it, which a hash collision or a writer bug could hide.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "input/schedule.h"
#include "manifest/manifest.h"
#include "verify/verify.h"
#include "verify/verify_manifest.h"

static const char *const role_names[] = {"input", "output", "saved",
					 "user_grad"};

static int too_small(const struct cgs_verify_rank *vr,
		     const struct cgs_schedule *s, uint32_t sv, uint32_t c,
		     uint32_t slot, uint32_t l, int role, uint64_t have,
		     uint64_t need, struct cgs_error *err)
{
	return cgs_error_set(err, CGS_E_MISMATCH,
		"rank %" PRIu32 ": %s frame (chunk %" PRIu32 ", slot %" PRIu32
		", layer %" PRIu32 ") variant '%s' role %s holds %" PRIu64
		" bytes, but the schedule needs %" PRIu64, vr->rank,
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
						if (vr->saved[i * 3 + r].bytes < need)
							return too_small(vr, s, sv, c, slot, l,
								(int)r, vr->saved[i * 3 + r].bytes,
								need, err);
					}
					need = cgs_schedule_bytes(s, sv, vr->rank, c, l,
								  CGS_ROLE_USER_GRAD);
					if (vr->user_grad[i].bytes < need)
						return too_small(vr, s, sv, c, slot, l, 3,
								 vr->user_grad[i].bytes,
								 need, err);
				}
			}
	return 0;
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
	uint32_t *map = NULL, ri;
	int rc;

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
