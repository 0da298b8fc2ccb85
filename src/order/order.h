/*
 * Capture orders: Megatron's derivation of the forward/backward sequence of
 * one pipeline rank, reachable microbatch counts, and drain checks.
 *
 * An order is a list of signed 1-based chunk ids: +c runs chunk c's next
 * forward, -c chunk c's oldest pending backward.
 */
#ifndef CGS_ORDER_ORDER_H
#define CGS_ORDER_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "cgslot/error.h"

struct cgs_order_params {
	uint32_t pp;           /* P >= 1 */
	uint32_t vpp;          /* M >= 1 */
	uint32_t group;        /* G >= 1 */
	uint32_t microbatches; /* N >= 1 */
	uint32_t rank;         /* 0 <= r < P */
};

/* Number of entries of the order: 2 * N * M. */
size_t cgs_order_length(const struct cgs_order_params *p);

/* The warmup length w of Megatron's derivation. */
uint64_t cgs_order_warmup(const struct cgs_order_params *p);

/*
 * Write the order into out[0 .. cgs_order_length(p)), which the caller
 * allocates.  Returns 0, or CGS_E_ARG for parameters out of range.
 */
int cgs_order_generate(const struct cgs_order_params *p, int32_t *out,
		       struct cgs_error *err);

/*
 * Check that `entries` is a well-formed order for `vpp` chunks and
 * `microbatches` microbatches: every id names a chunk in 1..vpp, no
 * backward comes before its forward, and each chunk runs exactly
 * `microbatches` forwards and backwards.  On failure returns CGS_E_ORDER
 * and, when bad_index is non-NULL, stores the offending entry's index
 * (n_entries when the order ends with forwards pending).
 */
int cgs_order_check(const int32_t *entries, size_t n_entries, uint32_t vpp,
		    uint32_t microbatches, size_t *bad_index,
		    struct cgs_error *err);

/*
 * Reachable microbatch counts for generated orders: 1..L when M == 1 or
 * G <= 1, else G, 2G, ..., L.  Writes up to `cap` counts into out (may be
 * NULL to count) and returns how many there are.
 */
uint32_t cgs_order_reachable(uint32_t vpp, uint32_t group, uint32_t max_mb,
			     uint32_t *out, uint32_t cap);

#endif
