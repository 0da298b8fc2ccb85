/*
 * Paired bands: a layout of k mod S whose holes take half the gradient
 * frames.
 *
 * A gradient frame lives from its backward to the next backward (in some
 * order), and nesting (nest.c) puts it in the saved arena where no saved
 * frame it is live with lies.  Packing k mod S finds no such hole where
 * every byte of the saved arena belongs to slots that are live nearly
 * all the time, as on the bench's q29 rank 0 on its ring of 48: there
 * both gradient colours stayed in an arena of their own, one grain of
 * 52 MiB past 2% of the bound.
 *
 * This layout gives each chunk c as many bands as it has microbatches in
 * flight at most (B_c), each band as large as one of its slots' groups,
 * the chunks' bands stacked.  Where B_c is even and S a multiple of
 * 2 B_c, slot s (round r = s / B_c, place p = s % B_c) takes band
 * p ^ (r & 1): k mod B_c, with the bands of each pair 2i, 2i + 1
 * swapped every other round.  Where a chunk's backwards come in runs,
 * the band that holds the slot of one backward is then often idle until
 * past the next, so the gradient frame the next one writes can nest
 * there.  On q29 rank 0 (S 48, B 24 and 12) half the gradient frames
 * nest, the odd places' in their pairs' bands, and the others, no two of
 * which follow each other, keep one colour: the rank takes 3028 grains
 * where k mod 48 and k mod 24 take 3032.  (A one-off SAT search found
 * this layout on ring 48, and no layout of bands and nested gradient
 * frames on rings 24 and 36.)  The layout is a hint (pack.c takes it
 * where it is valid and no higher than its own), and the plan keeps it
 * only where it takes fewer bytes in all (plan.c).
 */
#include <stdlib.h>

#include "plan/stage.h"

/*
 * The most groups of each chunk live at once in the longest order: where
 * a shorter order had more, the bands are no layout of its conflicts and
 * packing refuses them (so one order's scan is enough).
 */
static void peaks_per_chunk(const struct cgs_rank_work *x, uint32_t *peak)
{
	const struct cgs_rank_plan *rp = x->rp;
	uint32_t M = x->chunks, c, o = rp->n_reachable - 1,
		 live[CGS_BANDS_MAX_CHUNKS] = {0};
	uint64_t i;

	for (c = 0; c < M; c++)
		peak[c] = 0;
	for (i = rp->order_start[o]; i < rp->order_start[o + 1]; i++) {
		int32_t e = rp->order_entries[i];

		c = (uint32_t)(e < 0 ? -(int64_t)e : e) - 1;
		if (e < 0) {
			live[c]--;
			continue;
		}
		if (++live[c] > peak[c])
			peak[c] = live[c];
	}
}

int cgs_bands_layout(const struct cgs_rank_work *x, uint64_t **offset)
{
	uint32_t M = x->chunks, S = x->slots, c, s, l,
		 peak[CGS_BANDS_MAX_CHUNKS];
	uint64_t base = 0, *at;

	*offset = NULL;
	if (M > CGS_BANDS_MAX_CHUNKS)
		return 0;
	peaks_per_chunk(x, peak);
	for (c = 0; c < M; c++)
		if (peak[c] < 2 || peak[c] % 2 || S % (2 * peak[c]))
			return 0;
	at = calloc((uint64_t)M * S + 1, sizeof(*at));
	if (!at)
		return CGS_E_NOMEM;
	for (c = 0; c < M; c++) {
		uint64_t group = 0;

		for (l = 0; l < x->s->layers[c]; l++)
			group += x->saved_bytes[x->layer_base[c] + l];
		for (s = 0; s < S; s++) {
			uint32_t r = s / peak[c], p = s % peak[c];

			at[c * S + s] = base + (uint64_t)(p ^ (r & 1)) * group;
		}
		base += (uint64_t)peak[c] * group;
	}
	*offset = at;
	return 0;
}
