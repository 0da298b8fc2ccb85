/*
 * Fuzz target: the JSON adapter and the validator behind it.  A
 * smaller node budget keeps alias and width bombs fast under sanitizers
 * while still reaching the budget's error path.
 */
#include "fuzz.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgs_limits lim;
	struct cgs_schedule *s;

	cgs_limits_init(&lim);
	lim.nodes = 50000;
	s = cgs_fuzz_load("fuzz.json", data, size, &lim);
	cgs_schedule_destroy(&s);
	return 0;
}
