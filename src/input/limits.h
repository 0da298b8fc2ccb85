/*
 * Limits that keep hostile or mistaken input from taking unbounded memory
 * or time.  Every one is documented in cgslot(1) and can be raised with
 * `--limit NAME=VALUE`.
 */
#ifndef CGS_INPUT_LIMITS_H
#define CGS_INPUT_LIMITS_H

#include <stdint.h>

#include "cgslot/error.h"

struct cgs_limits {
	uint64_t file_bytes;    /* size of a schedule file */
	uint64_t depth;         /* nesting depth of the document */
	uint64_t nodes;         /* document nodes, aliases expanded */
	uint64_t pp;            /* pipeline.pp */
	uint64_t vpp;           /* pipeline.vpp */
	uint64_t layers;        /* layers in one chunk */
	uint64_t microbatches;  /* pipeline.max_microbatches */
	uint64_t variants;      /* entries of `variants` */
	uint64_t order_entries; /* entries over every planned order */
	uint64_t frames;        /* saved frames on one rank (S * layers) */
};

/* Fill with the documented defaults. */
void cgs_limits_init(struct cgs_limits *l);

/*
 * Apply "NAME=VALUE" (VALUE a decimal integer, optionally with a binary
 * unit suffix such as 64MiB for file_bytes).  Returns 0 or CGS_E_ARG.
 */
int cgs_limits_set(struct cgs_limits *l, const char *assignment,
		   struct cgs_error *err);

#endif
