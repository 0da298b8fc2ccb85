#include "input/limits.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "input/units.h"

static const struct {
	const char *name;
	size_t offset;
	uint64_t max;
} limit_names[] = {
#define L(n, m) {#n, offsetof(struct cgs_limits, n), m}
	L(file_bytes, UINT64_MAX),
	L(depth, CGS_LIMIT_DEPTH_MAX),
	L(nodes, UINT64_MAX),
	L(pp, UINT32_MAX),
	L(vpp, INT32_MAX),
	L(layers, UINT32_MAX),
	L(microbatches, UINT32_MAX),
	L(variants, UINT32_MAX),
	L(order_entries, UINT64_MAX),
	L(frames, CGS_LIMIT_FRAMES_MAX),
#undef L
};
#define N_LIMITS (sizeof(limit_names) / sizeof(limit_names[0]))
#define LIMIT_LIST "file_bytes, depth, nodes, pp, vpp, layers, " \
	"microbatches, variants, order_entries, frames"

/* A decimal count: digits only; 0 or -1 past 2^64-1 (still "digits"). */
static int parse_count(const char *text, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = text;

	if (!*p)
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			v = UINT64_MAX; /* reported as out of range */
		else
			v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

void cgs_limits_init(struct cgs_limits *l)
{
	l->file_bytes = CGS_LIMIT_FILE_BYTES;
	l->depth = CGS_LIMIT_DEPTH;
	l->nodes = CGS_LIMIT_NODES;
	l->pp = CGS_LIMIT_PP;
	l->vpp = CGS_LIMIT_VPP;
	l->layers = CGS_LIMIT_LAYERS;
	l->microbatches = CGS_LIMIT_MICROBATCHES;
	l->variants = CGS_LIMIT_VARIANTS;
	l->order_entries = CGS_LIMIT_ORDER_ENTRIES;
	l->frames = CGS_LIMIT_FRAMES;
}

int cgs_limits_set(struct cgs_limits *l, const char *assignment,
		   struct cgs_error *err)
{
	const char *eq = assignment ? strchr(assignment, '=') : NULL;
	size_t name_len, i;
	uint64_t value;
	char why[160];

	if (!eq)
		return cgs_error_set(err, CGS_E_ARG,
				     "--limit expects NAME=VALUE, got '%s'; "
				     "accepted names: " LIMIT_LIST,
				     assignment ? assignment : "");
	name_len = (size_t)(eq - assignment);
	for (i = 0; i < N_LIMITS; i++)
		if (strlen(limit_names[i].name) == name_len &&
		    memcmp(limit_names[i].name, assignment, name_len) == 0)
			break;
	if (i == N_LIMITS)
		return cgs_error_set(err, CGS_E_ARG,
				     "unknown limit '%.*s'; accepted: " LIMIT_LIST,
				     (int)(name_len > 64 ? 64 : name_len),
				     assignment);
	if (limit_names[i].offset == offsetof(struct cgs_limits, file_bytes)) {
		if (cgs_size_parse(eq + 1, strlen(eq + 1), 0, &value, why,
				   sizeof(why)))
			return cgs_error_set(err, CGS_E_ARG, "limit %s: %s",
					     limit_names[i].name, why);
	} else if (parse_count(eq + 1, &value) != 0) {
		/* Every other limit counts things: no units, no fractions. */
		return cgs_error_set(err, CGS_E_ARG,
				     "limit %s=%.40s: a count must be a whole "
				     "number; accepted: 1..%llu",
				     limit_names[i].name, eq + 1,
				     (unsigned long long)limit_names[i].max);
	}
	if (value == 0 || value > limit_names[i].max)
		return cgs_error_set(err, CGS_E_ARG,
				     "limit %s=%.40s is out of range; accepted: 1..%llu",
				     limit_names[i].name, eq + 1,
				     (unsigned long long)limit_names[i].max);
	*(uint64_t *)((char *)l + limit_names[i].offset) = value;
	return 0;
}

int cgs_limit_error(struct cgs_error *err, const char *file, unsigned line,
		    unsigned column, const char *name, uint64_t limit,
		    const char *what)
{
	return cgs_error_at(err, CGS_E_LIMIT, file, line, column,
			    "%s exceeds the %s limit of %llu; raise it with "
			    "--limit %s=N",
			    what, name, (unsigned long long)limit, name);
}
