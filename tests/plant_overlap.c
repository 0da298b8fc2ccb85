/*
 * plant_overlap IN OUT [RANK CHUNK FROM_SLOT TO_SLOT LAYER]
 *
 * Test helper: copy a manifest, moving saved frame (CHUNK, FROM_SLOT,
 * LAYER) of RANK onto the arena and offset of (CHUNK, TO_SLOT, LAYER),
 * and recompute the trailing CRC-32C, so that the result is a well-formed
 * manifest whose two frames overlap.  Defaults: rank 0, chunk 0, slot 1
 * onto slot 0, layer 0 (on rank 0 of a pipeline with P >= 2 and N >= 2,
 * microbatches 0 and 1 of chunk 0 are in flight together).  The frames of
 * one (chunk, layer) have equal sizes, so the moved frame stays inside
 * its arena.  Exits 0 when written, 1 on bad input, 2 on usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "manifest/format.h"
#include "manifest/manifest.h"
#include "testlib.h"

/* The file offset of a section, from the table of contents. */
static uint64_t section_offset(const uint8_t *b, uint32_t id)
{
	uint32_t n = cgs_get_le32(b + 16), i;

	for (i = 0; i < n; i++) {
		const uint8_t *e = b + CGS_MF_HEADER_BYTES +
				   (size_t)i * CGS_MF_TOC_ENTRY_BYTES;

		if (cgs_get_le32(e) == id)
			return cgs_get_le64(e + 8);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cgs_error err = {0};
	struct cgs_manifest *m = NULL;
	const struct cgs_manifest_info *in;
	uint32_t arg[5] = {0, 0, 1, 0, 0}, ri, base, from, to, i;
	uint64_t frames;
	uint8_t *b, *pf, *pt;
	size_t len;
	FILE *f;

	if (argc != 3 && argc != 8) {
		fprintf(stderr, "usage: plant_overlap IN OUT [RANK CHUNK "
			"FROM_SLOT TO_SLOT LAYER]\n");
		return 2;
	}
	for (i = 0; argc == 8 && i < 5; i++)
		arg[i] = (uint32_t)strtoul(argv[3 + i], NULL, 10);
	b = (uint8_t *)cgs_test_read(argv[1], &len);
	if (!b || cgs_manifest_open_buffer(b, len, &m, &err) ||
	    cgs_manifest_find_rank(m, arg[0], &ri, &err)) {
		fprintf(stderr, "plant_overlap: %s: %s\n", argv[1],
			b ? err.message : "cannot read");
		free(b);
		return 1;
	}
	in = cgs_manifest_info(m);
	if (arg[1] >= in->vpp || arg[2] >= in->slots || arg[3] >= in->slots ||
	    arg[4] >= cgs_manifest_chunk_layers(m, arg[1])) {
		fprintf(stderr, "plant_overlap: no such frame\n");
		cgs_manifest_close(&m);
		free(b);
		return 1;
	}
	base = cgs_manifest_layer_base(m, arg[1]) * in->slots;
	from = base + arg[2] * cgs_manifest_chunk_layers(m, arg[1]) + arg[4];
	to = base + arg[3] * cgs_manifest_chunk_layers(m, arg[1]) + arg[4];
	frames = section_offset(b, CGS_MF_SAVED_FRAMES) +
		 (uint64_t)ri * in->n_saved * CGS_MF_FRAME_BYTES;
	pf = b + frames + (uint64_t)from * CGS_MF_FRAME_BYTES;
	pt = b + frames + (uint64_t)to * CGS_MF_FRAME_BYTES;
	cgs_manifest_close(&m);
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
