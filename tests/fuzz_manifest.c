/*
 * Fuzz target: the manifest reader.  Any input, as given and with its
 * checksum recomputed, either is refused or opens into a manifest whose
 * every accessor stays in bounds and whose documented invariants hold
 * (checked here, so a violation aborts).
 */
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "fuzz.h"
#include "manifest/format.h"
#include "manifest/manifest.h"

#define REQUIRE(cond) \
	do {          \
		if (!(cond)) \
			abort(); \
	} while (0)

static void check_rank(const struct cgs_manifest *m, uint32_t ri)
{
	const struct cgs_manifest_info *mi = cgs_manifest_info(m);
	/* the rank's own ring and counts (format 2) */
	struct cgs_manifest_ring ring = cgs_manifest_rank_ring(m, ri);
	struct {
		uint32_t vpp, n_variants, n_saved, n_user_grad, n_graphs;
		uint64_t alignment;
	} rank = {mi->vpp, mi->n_variants, ring.n_saved, ring.n_user_grad,
		  ring.n_graphs, mi->alignment}, *in = &rank;
	uint32_t i, f, v, r, c, n_arenas = cgs_manifest_arena_count(m, ri);
	uint64_t k, n;

	REQUIRE(ring.slots >= 1 && ring.slots <= mi->slots);
	REQUIRE(ring.n_saved == ring.slots * mi->layers_total);

	for (i = 0; i < cgs_manifest_reachable_count(m, ri); i++) {
		n = cgs_manifest_order_length(m, ri, i);
		REQUIRE(n == 2ull * cgs_manifest_reachable(m, ri, i) * in->vpp);
		for (c = 0; c < in->vpp; c++)
			for (k = 0; k < cgs_manifest_reachable(m, ri, i); k++)
				REQUIRE(cgs_manifest_slot(m, ri, i, c,
							  (uint32_t)k) <
					ring.slots);
		/* out of range: zero */
		REQUIRE(cgs_manifest_slot(m, ri, i, in->vpp, 0) == 0);
		for (k = 0; k < n; k++) {
			int32_t e = cgs_manifest_order_entry(m, ri, i, k);

			REQUIRE(e != 0 && e <= (int64_t)in->vpp &&
				e >= -(int64_t)in->vpp);
		}
	}
	for (f = 0; f < in->n_saved + in->n_user_grad; f++) {
		struct cgs_manifest_frame fr =
			f < in->n_saved
				? cgs_manifest_saved_frame(m, ri, f)
				: cgs_manifest_user_grad_frame(m, ri, f - in->n_saved);
		struct cgs_manifest_arena a;

		REQUIRE(fr.arena < n_arenas);
		a = cgs_manifest_arena(m, ri, fr.arena);
		REQUIRE(fr.bytes <= a.bytes && fr.offset <= a.bytes - fr.bytes);
		REQUIRE(fr.offset % in->alignment == 0);
	}
	for (v = 0; v < in->n_variants; v++)
		for (f = 0; f < in->n_saved; f++) {
			struct cgs_manifest_frame fr = cgs_manifest_saved_frame(m, ri, f);

			for (r = 0; r < 3; r++) {
				struct cgs_manifest_range x =
					cgs_manifest_saved_role(m, ri, v, f, r);

				REQUIRE(x.bytes <= fr.bytes &&
					x.offset <= fr.bytes - x.bytes);
			}
		}
	for (i = 0; i < cgs_manifest_capture_count(m, ri); i++)
		REQUIRE(cgs_manifest_capture(m, ri, i) < in->n_graphs);
}

static void open_and_walk(const uint8_t *buf, size_t size)
{
	struct cgs_manifest *m = NULL;
	uint32_t ri;

	if (cgs_manifest_open_buffer(buf, size, &m, NULL) != 0) {
		REQUIRE(m == NULL);
		return;
	}
	{
		const struct cgs_manifest_info *in = cgs_manifest_info(m);

		REQUIRE(in->n_saved == in->slots * in->layers_total);
		REQUIRE(cgs_manifest_layer_base(m, in->vpp) == in->layers_total);
		for (ri = 0; ri < in->n_ranks; ri++)
			check_rank(m, ri);
	}
	cgs_manifest_close(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so a sanitizer sees any read past the end. */
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	open_and_walk(copy, size);
	/*
	 * Random bytes almost never carry a valid checksum, so also try the
	 * input with its recorded length and CRC-32C made right: that is
	 * what reaches the structural checks behind the checksum.
	 */
	if (size >= 40 && size % 8 == 0) {
		cgs_put_le64(copy + 24, size);
		cgs_put_le32(copy + size - 4, cgs_crc32c(0, copy, size - 4));
		open_and_walk(copy, size);
	}
	free(copy);
	return 0;
}
