/*
 * plant_overlap IN OUT [KIND RANK CHUNK SLOT LAYER ONTO_CHUNK ONTO_SLOT ONTO_LAYER]
 *
 * Test helper: copy a manifest, moving one frame of RANK onto the arena
 * and offset of another of the same KIND ("saved" frames (chunk, slot,
 * layer) or "grad" user-gradient frames (chunk, slot), layer 0), and
 * recompute the trailing CRC-32C, so that the result is a well-formed
 * manifest whose two frames overlap (when the moved frame is no larger
 * than its target, it stays inside the arena).  Default: saved frame
 * (0, 1, 0) onto (0, 0, 0) of rank 0: on rank 0 of a pipeline with
 * P >= 2 and N >= 2, microbatches 0 and 1 of chunk 0 are in flight
 * together, and frames of one (chunk, layer) have equal sizes.  Exits 0
 * when written, 1 on bad input, 2 on usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "manifest/format.h"
#include "manifest/manifest.h"
#include "testlib.h"

/* Index of frame (c, slot, l) of a kind; UINT32_MAX when out of range. */
static uint32_t frame_index(const struct cgs_manifest *m, int grad,
			    uint32_t c, uint32_t slot, uint32_t l)
{
	const struct cgs_manifest_info *in = cgs_manifest_info(m);

	if (c >= in->vpp || slot >= in->slots ||
	    l >= (grad ? 1 : cgs_manifest_chunk_layers(m, c)))
		return UINT32_MAX;
	if (grad)
		return c * in->slots + slot;
	return cgs_manifest_layer_base(m, c) * in->slots +
	       slot * cgs_manifest_chunk_layers(m, c) + l;
}

int main(int argc, char **argv)
{
	struct cgs_error err = {0};
	struct cgs_manifest *m = NULL;
	const struct cgs_manifest_info *in;
	uint32_t arg[7] = {0, 0, 1, 0, 0, 0, 0}, ri, from, to, i, per_rank;
	uint64_t frames;
	uint8_t *b, *pf, *pt;
	int grad = 0;
	size_t len;
	FILE *f;

	if (argc != 3 && argc != 11) {
		fprintf(stderr, "usage: plant_overlap IN OUT [saved|grad RANK "
			"CHUNK SLOT LAYER ONTO_CHUNK ONTO_SLOT ONTO_LAYER]\n");
		return 2;
	}
	if (argc == 11) {
		grad = strcmp(argv[3], "grad") == 0;
		if (!grad && strcmp(argv[3], "saved") != 0) {
			fprintf(stderr, "plant_overlap: kind '%s'; accepted: "
				"saved, grad\n", argv[3]);
			return 2;
		}
		for (i = 0; i < 7; i++)
			arg[i] = (uint32_t)strtoul(argv[4 + i], NULL, 10);
	}
	b = (uint8_t *)cgs_test_read(argv[1], &len);
	if (!b || cgs_manifest_open_buffer(b, len, &m, &err) ||
	    cgs_manifest_find_rank(m, arg[0], &ri, &err)) {
		fprintf(stderr, "plant_overlap: %s: %s\n", argv[1],
			b ? err.message : "cannot read");
		cgs_manifest_close(&m);
		free(b);
		return 1;
	}
	in = cgs_manifest_info(m);
	from = frame_index(m, grad, arg[1], arg[2], arg[3]);
	to = frame_index(m, grad, arg[4], arg[5], arg[6]);
	per_rank = grad ? in->n_user_grad : in->n_saved;
	cgs_manifest_close(&m);
	if (from == UINT32_MAX || to == UINT32_MAX) {
		fprintf(stderr, "plant_overlap: no such frame\n");
		free(b);
		return 1;
	}
	frames = cgs_test_section_offset(b, grad ? CGS_MF_USER_GRAD_FRAMES
					: CGS_MF_SAVED_FRAMES) +
		 (uint64_t)ri * per_rank * CGS_MF_FRAME_BYTES;
	pf = b + frames + (uint64_t)from * CGS_MF_FRAME_BYTES;
	pt = b + frames + (uint64_t)to * CGS_MF_FRAME_BYTES;
	memcpy(pf + CGS_MF_FRAME_ARENA, pt + CGS_MF_FRAME_ARENA, 4);
	memcpy(pf + CGS_MF_FRAME_OFFSET, pt + CGS_MF_FRAME_OFFSET, 8);
	cgs_put_le32(b + len - 4, cgs_crc32c(0, b, len - 4));
	f = fopen(argv[2], "wb");
	if (!f || fwrite(b, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "plant_overlap: cannot write %s\n", argv[2]);
		free(b);
		return 1;
	}
	free(b);
	return 0;
}
