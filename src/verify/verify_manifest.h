/*
 * A rank description copied out of a manifest, with the storage it
 * points into.  Internal to the verifier and its tests.
 */
#ifndef CGS_VERIFY_VERIFY_MANIFEST_H
#define CGS_VERIFY_VERIFY_MANIFEST_H

#include "verify/verify.h"

struct cgs_verify_rank_storage {
	struct cgs_verify_rank view;  /* points into the arrays below */
	uint32_t *layers;
	const char **variant_names;   /* into the manifest's buffer */
	uint32_t *reachable;
	uint64_t *order_start;
	int32_t *order_entries;
	uint64_t *arena_bytes;
	struct cgs_verify_range *saved;
	struct cgs_verify_range *user_grad;
	struct cgs_verify_range *saved_frames;      /* extents */
	struct cgs_verify_range *user_grad_frames;
	uint32_t *slot_map;           /* NULL: k mod S */
	uint64_t *slot_map_start;
};

/*
 * Fill st for rank index ri of an open manifest (which must outlive st:
 * variant names point into it).  Absolute ranges are the frame's offset
 * plus the per-variant offset inside it.  CGS_E_NOMEM on failure, with
 * nothing left to release.
 */
int cgs_verify_rank_from_manifest(struct cgs_verify_rank_storage *st,
				  const struct cgs_manifest *m, uint32_t ri,
				  struct cgs_error *err);

/* Free the arrays; accepts NULL and a zeroed struct. */
void cgs_verify_rank_storage_release(struct cgs_verify_rank_storage *st);

#endif
