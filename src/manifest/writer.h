/*
 * The slot manifest writer: turns a plan into the bytes of a manifest
 * (cgslot-manifest(5)).  It reads the plan and its schedule's fields only
 * and calls nothing from the input or plan stages, so it carries no
 * libyaml, jansson or CUDA dependency.
 */
#ifndef CGS_MANIFEST_WRITER_H
#define CGS_MANIFEST_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "cgslot/error.h"

struct cgs_plan;

/*
 * Serialise `plan` (and plan->schedule) into a new heap buffer, stored in
 * *out with its length in *len; the caller frees it with free().
 * `schedule_hash` is cgs_schedule_hash(plan->schedule), passed in so the
 * format stage does not link the input stage.  The output depends on the
 * plan and the producer string alone: byte-identical on every machine.
 * It is format 2.1 (section 14) only where some rank's slot map gives its
 * chunks different slots, else format 2.0: a map whose chunk rows all
 * agree is stored once per count, and one equal to k mod S not at all.
 * Errors: CGS_E_NOMEM; CGS_E_LIMIT when a count does not fit the format
 * (more than 2^32-1 frames or graphs per rank); CGS_E_INVALID when the
 * plan's shape disagrees with its schedule (frame counts, order lengths,
 * slot map rows neither 1 nor one per chunk)
 * or a name is not storable text (control characters, invalid UTF-8);
 * CGS_E_ARG for a NULL argument.  The writer does not re-validate plan
 * contents: open the result with cgs_manifest_open_buffer() to check it.
 */
int cgs_manifest_write(const struct cgs_plan *plan, uint64_t schedule_hash,
		       void **out, size_t *len, struct cgs_error *err);

/*
 * The producer string the writer stores: the cgslot version, or
 * CGSLOT_PRODUCER from the environment when it is 1 to
 * CGS_MANIFEST_PRODUCER_MAX printable ASCII characters.  Test data pins it
 * so that a release does not rewrite every golden manifest.
 */
#define CGS_MANIFEST_PRODUCER_MAX 64
const char *cgs_manifest_producer(void);

#endif
