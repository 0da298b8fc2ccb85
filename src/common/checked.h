/*
 * Checked unsigned arithmetic for sums and products over untrusted input
 * (manifests read from disk, reports of them).  Each helper stores the
 * result and returns 0, or returns 1 and leaves *out untouched when the
 * exact result does not fit in 64 bits.  Code that works on validated
 * schedules relies on the bound validation enforces instead (cgslot(1),
 * "Limits") and asserts it.
 */
#ifndef CGS_COMMON_CHECKED_H
#define CGS_COMMON_CHECKED_H

#include <stdint.h>

static inline int cgs_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	uint64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return 1;
	*out = r;
	return 0;
}

static inline int cgs_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	uint64_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return 1;
	*out = r;
	return 0;
}

/* *sum += v, checked. */
static inline int cgs_acc_u64(uint64_t *sum, uint64_t v)
{
	return cgs_add_u64(*sum, v, sum);
}

#endif
