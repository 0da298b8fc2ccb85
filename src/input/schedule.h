/*
 * The schedule model: what a cgslot schedule file (format version 1, YAML
 * or JSON) says, after validation.  Both syntaxes load into this one model;
 * everything downstream (orders, planner, manifest) reads only this.
 */
#ifndef CGS_INPUT_SCHEDULE_H
#define CGS_INPUT_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "cgslot/error.h"

/* Byte roles of a layer's buffers.  Values are stored in manifests. */
enum cgs_role {
	CGS_ROLE_INPUT = 0,
	CGS_ROLE_OUTPUT = 1,
	CGS_ROLE_SAVED = 2,
	CGS_ROLE_USER_GRAD = 3,
	CGS_ROLE_COUNT = 4,
};

/* A position in an input file, 1-based; 0 when unknown. */
struct cgs_pos {
	unsigned line, column;
};

struct cgs_role_bytes {
	uint64_t role[CGS_ROLE_COUNT];
};

/* One entry of a variant's `overrides`; later entries win. */
struct cgs_override {
	int64_t rank;   /* -1: every rank */
	int64_t chunk;  /* 0-based; -1: every chunk */
	int64_t layer;  /* 0-based within the chunk; -1: every layer */
	unsigned mask;  /* bit (1u << role) set for each role given */
	struct cgs_role_bytes bytes;
	struct cgs_pos pos;
};

struct cgs_variant {
	char *name;
	uint32_t cp;
	struct cgs_role_bytes bytes;  /* per layer and microbatch */
	struct cgs_override *overrides;
	size_t n_overrides;
	struct cgs_pos pos;
	struct cgs_pos role_pos[CGS_ROLE_COUNT];  /* of each bytes.<role> */
};

/*
 * The most bytes one role (saved or user-gradient frames) may total on one
 * rank, checked at validation: the ring bound (pipeline.slots, else
 * max_microbatches, which no automatic ring exceeds; slots.max when a ring
 * search goes further) times the layers per rank times
 * the sum over variants of the largest bytes the role takes on that rank,
 * each rounded up to the alignment.  Every figure the planner and the
 * report compute for a rank (arena offsets and bytes, lower bounds,
 * upstream's colour arenas, every variant in arenas of its own) is at most
 * the two roles' totals together, below 2^63, so it fits in 64 bits
 * and in JSON's signed integers.
 */
#define CGS_SCHEDULE_MAX_ROLE_BYTES ((UINT64_C(1) << 62) - 1)

/* An explicit capture order from the `orders` list. */
struct cgs_order {
	uint32_t rank;
	uint32_t microbatches;
	int32_t *entries;  /* signed 1-based chunk ids */
	size_t n_entries;
	struct cgs_pos pos;        /* the orders[i] mapping */
	struct cgs_pos list_pos;   /* its `order` list */
	struct cgs_pos *entry_pos; /* n_entries: where each entry stands */
};

struct cgs_schedule {
	char *path;              /* file it came from, for messages */
	char *name;              /* optional; NULL when absent */
	uint32_t pp;             /* P */
	uint32_t vpp;            /* M, chunks per rank */
	uint32_t *layers;        /* vpp entries: layers in each chunk */
	uint32_t group;          /* G */
	uint32_t max_microbatches; /* L */
	uint32_t *ranks;         /* planned ranks, ascending, unique */
	uint32_t n_ranks;
	uint32_t slots;          /* requested ring size; 0 = auto */
	uint32_t slots_max;      /* search rings up to this; 0 = no search */
	int slots_per_rank;      /* each rank takes its own ring */
	int slots_map;           /* try slot maps per reachable count */
	uint64_t alignment;      /* power of two */
	struct cgs_variant *variants;
	uint32_t n_variants;
	struct cgs_order *orders; /* explicit orders, in file order */
	size_t n_orders;
	/* Positions for checks made after loading (rings, limits). */
	struct cgs_pos slots_pos;    /* pipeline.slots; 0 when absent */
	struct cgs_pos layers_pos;   /* pipeline.layers_per_chunk */
	struct cgs_pos max_mb_pos;   /* pipeline.max_microbatches */
};

/*
 * Bytes of `role` for one layer of one microbatch of variant v on
 * (rank, chunk, layer), after applying the variant's overrides.
 */
uint64_t cgs_schedule_bytes(const struct cgs_schedule *s, uint32_t variant,
			    uint32_t rank, uint32_t chunk, uint32_t layer,
			    enum cgs_role role);

/* Total layers on one rank (sum of layers over chunks). */
uint32_t cgs_schedule_layers_total(const struct cgs_schedule *s);

void cgs_schedule_destroy(struct cgs_schedule **s);

#endif

#ifndef CGS_INPUT_SCHEDULE_LOAD
#define CGS_INPUT_SCHEDULE_LOAD
#include "input/limits.h"

/*
 * Parse and validate a schedule document: everything that needs no
 * capture order.  The syntax is chosen by extension (.json: JSON through
 * jansson; .yaml/.yml: YAML through libyaml) and otherwise sniffed (a
 * first non-blank '{' means JSON).  Errors carry the file, line and
 * column of the offending value.  limits may be NULL for the defaults.
 *
 * Explicit orders are read but not yet checked to drain, and the
 * order_entries limit is not yet applied: use cgs_schedule_load()
 * (order/schedule_load.h), which adds the checks of src/order.
 */
int cgs_schedule_parse(const char *path, const struct cgs_limits *limits,
		       struct cgs_schedule **out, struct cgs_error *err);

/* The same from memory; `name` is used in messages and to pick syntax. */
int cgs_schedule_parse_buffer(const char *name, const void *buf, size_t len,
			      const struct cgs_limits *limits,
			      struct cgs_schedule **out, struct cgs_error *err);

/*
 * A 64-bit hash of the normalised schedule: every value that affects a
 * plan, in a fixed order, independent of syntax, key order, units and
 * comments.  Stored in manifests so `verify` can match a schedule.
 */
uint64_t cgs_schedule_hash(const struct cgs_schedule *s);
#endif
