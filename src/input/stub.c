/* Placeholder until the input loader lands. */
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "input/schedule.h"

void cgs_limits_init(struct cgs_limits *l)
{
	memset(l, 0, sizeof(*l));
	l->pp = 1u << 16;
	l->vpp = 1024;
	l->microbatches = 1u << 20;
}

int cgs_limits_set(struct cgs_limits *l, const char *a, struct cgs_error *err)
{
	(void)l;
	return cgs_error_set(err, CGS_E_ARG, "unknown limit '%s'", a);
}

int cgs_schedule_load(const char *path, const struct cgs_limits *limits,
		      struct cgs_schedule **out, struct cgs_error *err)
{
	(void)limits;
	*out = NULL;
	return cgs_error_at(err, CGS_E_IO, path, 0, 0, "loader not built yet");
}

void cgs_schedule_destroy(struct cgs_schedule **s)
{
	if (s)
		*s = NULL;
}
