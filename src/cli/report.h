/*
 * The memory report: what `cgslot plan` and `cgslot report` print.  It is
 * built either from an in-memory plan or from a manifest alone, and printed
 * by one set of functions, so both commands print the same thing.
 * A report owns all its memory.
 */
#ifndef CGS_CLI_REPORT_H
#define CGS_CLI_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "cgslot/error.h"

struct cgs_plan;
struct cgs_manifest;

struct cgs_report_variant {
	char *name;
	uint32_t cp;
};

struct cgs_report_role {
	uint32_t frames;
	uint32_t colours;
	uint32_t colour_lower_bound;
	uint64_t bytes;
	uint64_t lower_bound_bytes;
};

struct cgs_report_arena {
	uint32_t id;
	uint32_t role;   /* enum cgs_arena_role */
	uint64_t bytes;
};

struct cgs_report_rank {
	uint32_t rank;
	uint32_t slots;                 /* this rank's ring S */
	int slot_map;                   /* slots from a map, not k mod S */
	int slot_map_per_chunk;         /* the map differs between chunks */
	uint32_t n_reachable;
	uint32_t *reachable;
	uint32_t graphs;
	struct cgs_report_role saved;
	struct cgs_report_role user_grad;
	uint32_t user_grad_nested;      /* user-grad frames in a saved arena */
	int joint;                      /* the saved arena packed with them */
	uint64_t bytes;
	uint64_t lower_bound_bytes;
	uint64_t bytes_without_sharing;
	uint64_t bytes_colour_arenas;   /* upstream's one arena per colour */
	uint32_t n_arenas;
	struct cgs_report_arena *arenas;
	/* For the seven-field plan, in plan index order (see plan/plan.h). */
	uint32_t *saved_colours;        /* slots * layers_total entries */
	uint32_t *user_grad_colours;    /* vpp * slots entries */
};

struct cgs_report {
	char *schedule;                 /* schedule name; "" when unnamed */
	uint32_t slots;                 /* the ring, or the largest per rank */
	int per_rank;                   /* the ranks' rings differ */
	uint32_t max_microbatches;
	uint32_t pp, vpp, group;
	uint32_t *layers;               /* vpp entries */
	uint32_t layers_total;
	uint64_t alignment;
	uint32_t n_variants;
	struct cgs_report_variant *variants;
	uint32_t n_ranks;
	struct cgs_report_rank *ranks;
};

int cgs_report_from_plan(const struct cgs_plan *plan, struct cgs_report **out,
			 struct cgs_error *err);
int cgs_report_from_manifest(const struct cgs_manifest *m,
			     struct cgs_report **out, struct cgs_error *err);
void cgs_report_destroy(struct cgs_report **r);

/* Printers; return 0 or CGS_E_IO / CGS_E_NOMEM. */
int cgs_report_print_text(FILE *out, const struct cgs_report *r);
int cgs_report_print_json(FILE *out, const struct cgs_report *r);
int cgs_report_print_te_plan(FILE *out, const struct cgs_report *r);

#endif
