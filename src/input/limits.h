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

/*
 * The defaults, documented in cgslot(1).  Each bounds the memory or time a
 * schedule can ask for before anything large is allocated.
 */
#define CGS_LIMIT_FILE_BYTES    (64ull << 20)  /* 64 MiB */
#define CGS_LIMIT_DEPTH         64ull
#define CGS_LIMIT_NODES         1000000ull
#define CGS_LIMIT_PP            16384ull
#define CGS_LIMIT_VPP           1024ull
#define CGS_LIMIT_LAYERS        4096ull
#define CGS_LIMIT_MICROBATCHES  1048576ull     /* 2^20 */
#define CGS_LIMIT_VARIANTS      256ull
#define CGS_LIMIT_ORDER_ENTRIES (1ull << 28)   /* 1 GiB of int32 entries */
#define CGS_LIMIT_FRAMES        (1ull << 16)

/*
 * Hard ceilings a limit cannot be raised past: the parsers recurse once
 * per nesting level (jansson itself stops at 2048), and the model stores
 * these counts in 32 bits.
 */
#define CGS_LIMIT_DEPTH_MAX     2048ull
/* The planner's own ceiling on saved frames per rank (CGS_PLAN_MAX_FRAMES,
 * which the CLI asserts equal): a larger frames limit could only let
 * `check` pass what `compile` refuses. */
#define CGS_LIMIT_FRAMES_MAX    (1ull << 16)

/* Fill with the documented defaults. */
void cgs_limits_init(struct cgs_limits *l);

/*
 * Apply "NAME=VALUE" (VALUE a decimal integer, optionally with a binary
 * unit suffix such as 64MiB for file_bytes).  Returns 0 or CGS_E_ARG.
 */
int cgs_limits_set(struct cgs_limits *l, const char *assignment,
		   struct cgs_error *err);

/*
 * Record a CGS_E_LIMIT error at a position: "<what> exceeds the NAME limit
 * of LIMIT; raise it with --limit NAME=N".  Returns CGS_E_LIMIT.
 */
int cgs_limit_error(struct cgs_error *err, const char *file, unsigned line,
		    unsigned column, const char *name, uint64_t limit,
		    const char *what);

#endif
