/*
 * Membership in a sorted array, for the short lists the planner and the
 * schedule reader keep in increasing order.
 */
#ifndef CGS_COMMON_SORTED_H
#define CGS_COMMON_SORTED_H

#include <stdint.h>

/* Whether x is one of the n values of a[], which increase. */
static inline int cgs_sorted_u32_has(const uint32_t *a, uint32_t n,
				     uint32_t x)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (a[mid] == x)
			return 1;
		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

#endif
