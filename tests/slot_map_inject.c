/*
 * Test-only: compile a schedule as cgslot compile does, then give every
 * rank a slot map before writing the manifest, so that the map path of
 * the reader, libcgslot, dump, plot, verify and the bindings runs end to
 * end before the planner itself produces maps.
 *
 *   slot_map_inject SCHEDULE OUT rotate   microbatch k takes slot (k + 1)
 *                                         mod S: the same classes as k mod
 *                                         S, so as safe, but not identity
 *   slot_map_inject SCHEDULE OUT range    slot S for one microbatch
 *   slot_map_inject SCHEDULE OUT live     microbatches 0 and 1 of the
 *                                         largest count share a slot
 *
 * and maps per count and chunk (format 2.1, section 14), microbatch k of
 * chunk c in slot (k + c) mod S:
 *   chunk         each frame (c, s) moved to slot (s + c) mod S with it,
 *                 so the plan is as safe as before
 *   chunk-frames  the map alone: safe for the reader, but the frames'
 *                 bytes were shared for k mod S
 *   chunk-range   slot S for microbatch 0 of chunk 1 (0-based) on rank 0
 *   chunk-live    microbatch 1 of chunk 1 on rank 0 takes microbatch 0's
 *                 slot in the largest count, while it is live
 *   chunk-grad    the same on the last rank in the smallest count, whose
 *                 orders run the backward of chunk 1's microbatch 0
 *                 before its microbatch 1's forward: the two backwards
 *                 then share a user-gradient frame
 *
 * The writer does not validate contents; range, live and chunk-range,
 * -live and -grad give manifests that every reader must refuse.  Exit 0
 * when OUT is written, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/limits.h"
#include "input/schedule.h"
#include "manifest/writer.h"
#include "order/schedule_load.h"
#include "plan/plan.h"
#include "slot_maps.h"

/* Microbatch k of chunk 1 takes microbatch 0's slot on rank index r,
 * count index i: the plan's rows are the largest count's width. */
static void share_slot(struct cgs_plan *p, uint32_t r, uint32_t i,
		       uint32_t k)
{
	struct cgs_rank_plan *rp = &p->ranks[r];
	uint32_t width = rp->reachable[rp->n_reachable - 1];
	uint32_t *row = rp->slot_map + ((size_t)i * rp->slot_map_rows + 1) * width;

	row[k] = row[0];
}

static int set_chunk_maps(struct cgs_plan *p, const char *mode)
{
	struct cgs_rank_plan *rp = &p->ranks[0];
	uint32_t width;

	if (p->schedule->vpp < 2 ||
	    cgs_test_chunk_slot_maps(p, strcmp(mode, "chunk-frames") != 0))
		return 1;
	width = rp->reachable[rp->n_reachable - 1];
	if (strcmp(mode, "chunk-range") == 0)
		rp->slot_map[width] = rp->slots;  /* count 0, chunk 1, k 0 */
	else if (strcmp(mode, "chunk-live") == 0)
		share_slot(p, 0, rp->n_reachable - 1, 1);
	else if (strcmp(mode, "chunk-grad") == 0)
		share_slot(p, p->n_ranks - 1, 0, 1);
	else if (strcmp(mode, "chunk") != 0 &&
		 strcmp(mode, "chunk-frames") != 0)
		return 1;
	return 0;
}

static int set_maps(struct cgs_plan *p, const char *mode)
{
	if (strncmp(mode, "chunk", 5) == 0)
		return set_chunk_maps(p, mode);
	if (cgs_test_rotate_slot_maps(p))
		return 1;
	if (strcmp(mode, "range") == 0) {
		p->ranks[0].slot_map[0] = p->ranks[0].slots;
	} else if (strcmp(mode, "live") == 0) {
		struct cgs_rank_plan *rp = &p->ranks[0];
		uint32_t i = rp->n_reachable - 1, width = rp->reachable[i];

		/* rank 0 runs its warmup forwards before any backward */
		rp->slot_map[i * width + 1] = rp->slot_map[i * width];
	} else if (strcmp(mode, "rotate") != 0) {
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cgs_error err = {0};
	struct cgs_schedule *s = NULL;
	struct cgs_plan *plan = NULL;
	struct cgs_limits limits;
	void *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc = 1;

	if (argc != 4) {
		fprintf(stderr, "usage: slot_map_inject SCHEDULE OUT rotate|range|live|chunk|chunk-frames|chunk-range|chunk-live|chunk-grad\n");
		return 2;
	}
	cgs_limits_init(&limits);
	if (cgs_schedule_load(argv[1], &limits, &s, &err) ||
	    cgs_plan_create(s, NULL, &plan, &err)) {
		fprintf(stderr, "slot_map_inject: %s\n", err.message);
		goto out;
	}
	if (set_maps(plan, argv[3])) {
		fprintf(stderr, "slot_map_inject: bad mode or out of memory\n");
		goto out;
	}
	if (cgs_manifest_write(plan, cgs_schedule_hash(s), &buf, &len, &err)) {
		fprintf(stderr, "slot_map_inject: %s\n", err.message);
		goto out;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "slot_map_inject: cannot write %s\n", argv[2]);
		goto out;
	}
	rc = 0;
out:
	free(buf);
	cgs_plan_destroy(&plan);
	cgs_schedule_destroy(&s);
	return rc;
}
