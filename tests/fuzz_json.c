/* Fuzz target: the JSON adapter and the validator behind it. */
#include "fuzz.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgs_schedule *s = cgs_fuzz_load("fuzz.json", data, size, NULL);

	cgs_schedule_destroy(&s);
	return 0;
}
