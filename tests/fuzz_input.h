/* What every schedule-input fuzz target checks after a load. */
#ifndef CGS_TESTS_FUZZ_INPUT_H
#define CGS_TESTS_FUZZ_INPUT_H

#include <stdlib.h>
#include <string.h>

#include "input/schedule.h"
#include "order/schedule_load.h"

/*
 * Load `data` under `name` (which picks the syntax) and abort when the
 * result breaks the loader's contract: success must give a model, failure
 * none, and a failure must carry its code and a message.
 */
static inline struct cgs_schedule *cgs_fuzz_load(const char *name,
						 const uint8_t *data,
						 size_t size,
						 const struct cgs_limits *lim)
{
	struct cgs_error err = {0};
	struct cgs_schedule *s = (struct cgs_schedule *)1;
	int rc = cgs_schedule_load_buffer(name, data, size, lim, &s, &err);

	if (rc == 0) {
		if (!s || s->n_variants == 0 || s->n_ranks == 0)
			abort();
		return s;
	}
	/* a desynchronised JSON position scanner reports "internal error" */
	if (s || err.code != rc || !err.message[0] ||
	    (err.column && !err.line) || rc == CGS_E_NOMEM ||
	    strncmp(err.message, "internal error", 14) == 0)
		abort();
	return NULL;
}

#endif
