/*
 * Fuzz target: the whole compiler end to end.  Arbitrary schedule bytes
 * are loaded (syntax sniffed), planned, written as a manifest, opened by
 * the reader and verified, alone and against their schedule.  Whatever
 * loads may fail to plan only for what planning checks (a ring shorter
 * than liveness, an order that reuses a live frame, a limit); whatever
 * plans must serialise, open and verify, or the target aborts.  Limits
 * are lowered so each input stays fast.
 */
#include "fuzz.h"
#include "fuzz_input.h"
#include "manifest/manifest.h"
#include "manifest/writer.h"
#include "plan/plan.h"
#include "verify/verify.h"

static void compile(const struct cgs_schedule *s, uint64_t max_frames)
{
	struct cgs_plan_options opt;
	struct cgs_plan *plan = NULL;
	struct cgs_manifest *m = NULL;
	struct cgs_error err = {0};
	void *buf = NULL, *again = NULL;
	size_t len = 0, len2 = 0;
	int rc;

	cgs_plan_options_init(&opt);
	opt.max_frames = max_frames;
	opt.colour_budget = 2000;
	rc = cgs_plan_create(s, &opt, &plan, &err);
	if (rc) {
		if (plan || err.code != rc || !err.message[0] ||
		    (rc != CGS_E_PLAN && rc != CGS_E_ORDER && rc != CGS_E_LIMIT))
			abort();
		return;
	}
	if (cgs_manifest_write(plan, cgs_schedule_hash(s), &buf, &len, &err))
		abort();
	/* the same plan always serialises to the same bytes */
	if (cgs_manifest_write(plan, cgs_schedule_hash(s), &again, &len2, &err) ||
	    len2 != len || memcmp(buf, again, len) != 0)
		abort();
	if (cgs_manifest_open_buffer(buf, len, &m, &err))
		abort();
	if (cgs_verify_manifest(m, NULL, &err))
		abort();
	if (cgs_verify_manifest_schedule(m, s, &err))
		abort();
	cgs_manifest_close(&m);
	free(again);
	free(buf);
	cgs_plan_destroy(&plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgs_limits lim;
	struct cgs_schedule *s;

	/* small pipelines: verifying 84 ranks under the sanitizers takes
	 * seconds, and every edge shows on a few ranks as well */
	cgs_limits_init(&lim);
	lim.nodes = 20000;
	lim.pp = 8;
	lim.vpp = 4;
	lim.layers = 8;
	lim.microbatches = 64;
	lim.variants = 4;
	lim.order_entries = 1u << 14;
	lim.frames = 1u << 10;
	s = cgs_fuzz_load("fuzz", data, size, &lim);
	if (s)
		compile(s, lim.frames);
	cgs_schedule_destroy(&s);
	return 0;
}
