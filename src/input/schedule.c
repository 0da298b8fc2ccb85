/*
 * The schedule validator (format version 1) and the model's accessors.
 * Every check reports the offending node's position and names the key
 * path (pipeline.pp, variants[1].bytes.saved), the value and what would
 * be accepted.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "common/error.h"
#include "common/nearest.h"
#include "common/sorted.h"
#include "input/node.h"
#include "input/schedule.h"
#include "input/units.h"
#include "input/validate.h"

#define PATH_MAX_LEN 96
#define QUOTE_LEN 64

struct ctx {
	const char *file;
	const struct cgs_limits *lim;
	struct cgs_error *err;
	struct cgs_schedule *s;
	const struct cgs_node *pipeline;
	const struct cgs_node *layers_node;
};

static const char *const top_keys[] = {
	"cgslot", "name", "pipeline", "alignment", "variants", "orders", NULL,
};
static const char *const pipeline_keys[] = {
	"pp", "vpp", "layers_per_chunk", "microbatch_group",
	"max_microbatches", "ranks", "slots", NULL,
};
static const char *const variant_keys[] = {
	"name", "cp", "bytes", "overrides", NULL,
};
static const char *const role_keys[] = {
	"input", "output", "saved", "user_grad", NULL,
};
static const char *const override_keys[] = {
	"rank", "chunk", "layer", "input", "output", "saved", "user_grad", NULL,
};
static const char *const order_keys[] = {
	"rank", "microbatches", "order", NULL,
};

static int fail(struct ctx *c, const struct cgs_node *n, int code,
		const char *fmt, ...) CGS_PRINTF(4, 5);

static int fail(struct ctx *c, const struct cgs_node *n, int code,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cgs_error_vat(c->err, code, c->file, n ? n->line : 0,
		      n ? n->column : 0, fmt, ap);
	va_end(ap);
	return code;
}

static void join_list(const char *const *words, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (; *words && o < size; words++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s", o ? ", " : "",
				      *words);
}

/* "the string '4'", "a list", "null": what a wrong-typed value is. */
static const char *shown(const struct cgs_node *n, char *buf, size_t size)
{
	char q[QUOTE_LEN];

	if (n->kind != CGS_NODE_SCALAR || n->type == CGS_SCALAR_NULL)
		snprintf(buf, size, "%s", cgs_node_describe(n));
	else
		snprintf(buf, size, "%s %s", cgs_node_describe(n),
			 cgs_node_quote(n, q, sizeof(q)));
	return buf;
}

static int want_kind(struct ctx *c, const struct cgs_node *n,
		     const char *path, enum cgs_node_kind kind)
{
	char got[QUOTE_LEN + 32];

	if (n->kind == kind)
		return 0;
	return fail(c, n, CGS_E_INVALID, "%s must be %s, got %s", path,
		    kind == CGS_NODE_MAP ? "a mapping" : "a list",
		    shown(n, got, sizeof(got)));
}

static int in_list(const struct cgs_node *key, const char *const *words)
{
	for (; *words; words++)
		if (strlen(*words) == key->len &&
		    memcmp(*words, key->text, key->len) == 0)
			return 1;
	return 0;
}

/* Reject keys not in `accepted`; path "" is the top level. */
static int only_keys(struct ctx *c, const struct cgs_node *map,
		     const char *path, const char *const *accepted)
{
	char list[256], q[QUOTE_LEN], hint[QUOTE_LEN + 24] = "";
	const char *near;
	size_t i;

	for (i = 0; i + 1 < map->count; i += 2) {
		const struct cgs_node *k = map->items[i];

		if (in_list(k, accepted))
			continue;
		join_list(accepted, list, sizeof(list));
		cgs_node_quote(k, q, sizeof(q));
		/* a short key is near too much: one edit at most there */
		near = cgs_nearest(k->text, k->len, accepted, k->len > 4 ? 2 : 1);
		if (near)
			snprintf(hint, sizeof(hint), " (did you mean '%s'?)",
				 near);
		if (!*path)
			return fail(c, k, CGS_E_INVALID,
				    "unknown key %s%s; accepted: %s", q, hint,
				    list);
		return fail(c, k, CGS_E_INVALID,
			    "unknown key %s in %s%s; accepted: %s", q, path,
			    hint, list);
	}
	return 0;
}

static const struct cgs_node *need(struct ctx *c, const struct cgs_node *map,
				   const char *path, const char *key,
				   int *rc)
{
	const struct cgs_node *v = cgs_node_get(map, key);

	if (!v)
		*rc = *path ? fail(c, map, CGS_E_INVALID,
				   "missing required key '%s' in %s", key, path) :
			      fail(c, map, CGS_E_INVALID,
				   "missing required key '%s'", key);
	return v;
}

static void describe_range(char *buf, size_t size, uint64_t min, uint64_t max)
{
	if (max == UINT64_MAX)
		snprintf(buf, size, "an integer >= %llu",
			 (unsigned long long)min);
	else
		snprintf(buf, size, "an integer in %llu..%llu",
			 (unsigned long long)min, (unsigned long long)max);
}

/*
 * An integer scalar into *out.  Returns 0, or fails naming path; with
 * `too_big` set, values past 2^64-1 are reported to the caller instead
 * (so a limit can name them).
 */
static int get_int(struct ctx *c, const struct cgs_node *n, const char *path,
		   uint64_t min, uint64_t max, uint64_t *out, int *too_big)
{
	char range[64], got[QUOTE_LEN + 32];
	uint64_t v = 0;
	size_t i;

	describe_range(range, sizeof(range), min, max);
	if (n->kind != CGS_NODE_SCALAR || n->type != CGS_SCALAR_INT)
		return fail(c, n, CGS_E_INVALID, "%s must be %s, got %s", path,
			    range, shown(n, got, sizeof(got)));
	if (n->text[0] == '-' && strspn(n->text + 1, "0") != n->len - 1)
		return fail(c, n, CGS_E_INVALID, "%s is %s; accepted: %s", path,
			    n->text, range);
	for (i = (n->text[0] == '-' || n->text[0] == '+'); i < n->len; i++) {
		unsigned d = (unsigned)(n->text[i] - '0');

		if (v > (UINT64_MAX - d) / 10) {
			if (too_big) {
				*too_big = 1;
				*out = UINT64_MAX;
				return 0;
			}
			return fail(c, n, CGS_E_INVALID,
				    "%s is %.40s, past 2^64-1; accepted: %s",
				    path, n->text, range);
		}
		v = v * 10 + d;
	}
	if (v < min || v > max)
		return fail(c, n, CGS_E_INVALID, "%s is %llu; accepted: %s", path,
			    (unsigned long long)v, range);
	*out = v;
	return 0;
}

/* An integer >= min bounded by a named, raisable limit. */
static int get_limited(struct ctx *c, const struct cgs_node *n,
		       const char *path, uint64_t min, const char *limit_name,
		       uint64_t limit, uint64_t *out)
{
	char what[160];
	int too_big = 0, rc;

	rc = get_int(c, n, path, min, UINT64_MAX, out, &too_big);
	if (rc)
		return rc;
	if (!too_big && *out <= limit)
		return 0;
	snprintf(what, sizeof(what), "%s %.40s", path, n->text);
	return cgs_limit_error(c->err, c->file, n->line, n->column, limit_name,
			       limit, what);
}

static int get_size(struct ctx *c, const struct cgs_node *n, const char *path,
		    uint64_t *out)
{
	char why[256], got[QUOTE_LEN + 32];

	if (n->kind == CGS_NODE_SCALAR && (n->type == CGS_SCALAR_INT ||
					   n->type == CGS_SCALAR_STRING)) {
		if (cgs_size_parse(n->text, n->len,
				   n->type == CGS_SCALAR_STRING, out, why,
				   sizeof(why)) == 0)
			return 0;
		return fail(c, n, CGS_E_INVALID, "%s: %s", path, why);
	}
	return fail(c, n, CGS_E_INVALID,
		    "%s must be a whole number of bytes or a size with a unit "
		    "such as 1.5GiB (" CGS_UNITS_ACCEPTED "), got %s", path,
		    shown(n, got, sizeof(got)));
}

/* A boolean scalar into *out. */
static int get_bool(struct ctx *c, const struct cgs_node *n, const char *path,
		    int *out)
{
	char got[QUOTE_LEN + 32];

	if (n->kind != CGS_NODE_SCALAR || n->type != CGS_SCALAR_BOOL)
		return fail(c, n, CGS_E_INVALID,
			    "%s must be true or false, got %s", path,
			    shown(n, got, sizeof(got)));
	*out = n->text[0] == 't' || n->text[0] == 'T';
	return 0;
}

/*
 * slots: {max: N, per_rank: B, map: B}: a ring search, rings per rank,
 * slot maps per reachable count.
 */
static int parse_ring_search(struct ctx *c, const struct cgs_node *n)
{
	static const char *const keys[] = {"max", "per_rank", "map", NULL};
	const struct cgs_node *v;
	uint64_t max;
	int rc, per_rank = 0, map = 0;

	if ((rc = only_keys(c, n, "pipeline.slots", keys)))
		return rc;
	if ((v = cgs_node_get(n, "max"))) {
		if ((rc = get_int(c, v, "pipeline.slots.max", 1, UINT32_MAX,
				  &max, NULL)))
			return rc;
		c->s->slots_max = (uint32_t)max;
	}
	if ((v = cgs_node_get(n, "per_rank"))) {
		if ((rc = get_bool(c, v, "pipeline.slots.per_rank", &per_rank)))
			return rc;
		c->s->slots_per_rank = per_rank;
	}
	if ((v = cgs_node_get(n, "map"))) {
		if ((rc = get_bool(c, v, "pipeline.slots.map", &map)))
			return rc;
		c->s->slots_map = map;
	}
	return 0;
}

static int get_string(struct ctx *c, const struct cgs_node *n,
		      const char *path, char **out)
{
	char got[QUOTE_LEN + 32];
	size_t i;

	if (n->kind != CGS_NODE_SCALAR || n->type != CGS_SCALAR_STRING)
		return fail(c, n, CGS_E_INVALID, "%s must be a string, got %s",
			    path, shown(n, got, sizeof(got)));
	if (!n->len)
		return fail(c, n, CGS_E_INVALID, "%s must not be empty", path);
	if (memchr(n->text, '\0', n->len))
		return fail(c, n, CGS_E_INVALID,
			    "%s must not contain a NUL character", path);
	for (i = 0; i < n->len; i++) {
		unsigned char ch = (unsigned char)n->text[i];

		/* manifests store names as text a terminal prints as is */
		if (ch < 0x20 || ch == 0x7f)
			return fail(c, n, CGS_E_INVALID,
				    "%s contains the control character U+%04X "
				    "at byte %zu; accepted: printable text",
				    path, ch, i);
	}
	*out = strdup(n->text);
	if (!*out)
		return cgs_error_set(c->err, CGS_E_NOMEM, "out of memory");
	return 0;
}

static int parse_version(struct ctx *c, const struct cgs_node *root)
{
	const struct cgs_node *v;
	char got[QUOTE_LEN + 32];
	int rc = 0;

	v = need(c, root, "", "cgslot", &rc);
	if (!v)
		return fail(c, root, CGS_E_INVALID,
			    "missing required key 'cgslot' (the format "
			    "version); accepted: cgslot: 1");
	if (v->kind != CGS_NODE_SCALAR || v->type != CGS_SCALAR_INT)
		return fail(c, v, CGS_E_INVALID,
			    "cgslot (the format version) must be the integer "
			    "1, got %s", shown(v, got, sizeof(got)));
	if (strcmp(v->text, "1") != 0)
		return fail(c, v, CGS_E_INVALID,
			    "unknown format version %.40s; accepted: 1", v->text);
	return rc;
}

static int parse_layers(struct ctx *c, const struct cgs_node *n)
{
	struct cgs_schedule *s = c->s;
	char path[PATH_MAX_LEN], got[QUOTE_LEN + 32];
	uint64_t v, total = 0;
	uint32_t i;
	int rc;

	s->layers = calloc(s->vpp, sizeof(*s->layers));
	if (!s->layers)
		return cgs_error_set(c->err, CGS_E_NOMEM, "out of memory");
	if (n->kind == CGS_NODE_SCALAR && n->type == CGS_SCALAR_INT) {
		rc = get_limited(c, n, "pipeline.layers_per_chunk", 1, "layers",
				 c->lim->layers, &v);
		if (rc)
			return rc;
		for (i = 0; i < s->vpp; i++)
			s->layers[i] = (uint32_t)v;
		total = v * s->vpp;
	} else if (n->kind == CGS_NODE_SEQ) {
		if (n->count != s->vpp)
			return fail(c, n, CGS_E_INVALID,
				    "pipeline.layers_per_chunk lists %zu "
				    "entries, but vpp is %u; accepted: one "
				    "entry per chunk, or a single integer",
				    n->count, s->vpp);
		for (i = 0; i < s->vpp; i++) {
			snprintf(path, sizeof(path),
				 "pipeline.layers_per_chunk[%u]", i);
			rc = get_limited(c, n->items[i], path, 1, "layers",
					 c->lim->layers, &v);
			if (rc)
				return rc;
			s->layers[i] = (uint32_t)v;
			total += v;
		}
	} else {
		return fail(c, n, CGS_E_INVALID,
			    "pipeline.layers_per_chunk must be an integer >= 1 "
			    "or a list of them, one per chunk; got %s",
			    shown(n, got, sizeof(got)));
	}
	if (total > UINT32_MAX)
		return cgs_limit_error(c->err, c->file, n->line, n->column,
				       "layers", c->lim->layers,
				       "the layers on one rank");
	return 0;
}

static int parse_ranks(struct ctx *c, const struct cgs_node *n)
{
	struct cgs_schedule *s = c->s;
	char path[PATH_MAX_LEN];
	unsigned char *seen = NULL;
	uint32_t i, r;
	uint64_t v;
	int rc = 0;

	if (!n) {
		s->n_ranks = s->pp;
		s->ranks = calloc(s->pp, sizeof(*s->ranks));
		if (!s->ranks)
			return cgs_error_set(c->err, CGS_E_NOMEM, "out of memory");
		for (i = 0; i < s->pp; i++)
			s->ranks[i] = i;
		return 0;
	}
	if ((rc = want_kind(c, n, "pipeline.ranks", CGS_NODE_SEQ)))
		return rc;
	if (!n->count)
		return fail(c, n, CGS_E_INVALID,
			    "pipeline.ranks is empty; list at least one rank "
			    "in 0..%u, or leave the key out to plan all",
			    s->pp - 1);
	if (n->count > s->pp)
		return fail(c, n->items[s->pp], CGS_E_INVALID,
			    "pipeline.ranks lists %zu ranks, but pp is %u; "
			    "accepted: distinct ranks in 0..%u",
			    n->count, s->pp, s->pp - 1);
	seen = calloc(s->pp, 1);
	s->ranks = calloc(n->count, sizeof(*s->ranks));
	if (!seen || !s->ranks) {
		rc = cgs_error_set(c->err, CGS_E_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n->count; i++) {
		snprintf(path, sizeof(path), "pipeline.ranks[%u]", i);
		rc = get_int(c, n->items[i], path, 0, s->pp - 1, &v, NULL);
		if (rc)
			goto out;
		if (seen[v]) {
			rc = fail(c, n->items[i], CGS_E_INVALID,
				  "%s repeats rank %llu; each rank may be "
				  "listed once", path, (unsigned long long)v);
			goto out;
		}
		seen[v] = 1;
	}
	for (r = 0; r < s->pp; r++)
		if (seen[r])
			s->ranks[s->n_ranks++] = r;
out:
	free(seen);
	return rc;
}

static int parse_pipeline(struct ctx *c, const struct cgs_node *p)
{
	struct cgs_schedule *s = c->s;
	const struct cgs_node *n;
	char got[QUOTE_LEN + 32];
	uint64_t v;
	int rc = 0;

	if ((rc = want_kind(c, p, "pipeline", CGS_NODE_MAP)) ||
	    (rc = only_keys(c, p, "pipeline", pipeline_keys)))
		return rc;
	if (!(n = need(c, p, "pipeline", "pp", &rc)) ||
	    (rc = get_limited(c, n, "pipeline.pp", 1, "pp", c->lim->pp, &v)))
		return rc;
	s->pp = (uint32_t)v;
	s->vpp = 1;
	if ((n = cgs_node_get(p, "vpp"))) {
		if ((rc = get_limited(c, n, "pipeline.vpp", 1, "vpp",
				      c->lim->vpp, &v)))
			return rc;
		s->vpp = (uint32_t)v;
	}
	if (!(c->layers_node = need(c, p, "pipeline", "layers_per_chunk", &rc)) ||
	    (rc = parse_layers(c, c->layers_node)))
		return rc;
	s->group = s->pp;
	if ((n = cgs_node_get(p, "microbatch_group"))) {
		if ((rc = get_int(c, n, "pipeline.microbatch_group", 1,
				  UINT32_MAX, &v, NULL)))
			return rc;
		s->group = (uint32_t)v;
	}
	if (!(n = need(c, p, "pipeline", "max_microbatches", &rc)) ||
	    (rc = get_limited(c, n, "pipeline.max_microbatches", 1,
			      "microbatches", c->lim->microbatches, &v)))
		return rc;
	s->max_microbatches = (uint32_t)v;
	s->max_mb_pos = (struct cgs_pos){n->line, n->column};
	s->layers_pos = (struct cgs_pos){c->layers_node->line,
					 c->layers_node->column};
	if (s->vpp > 1 && s->group > 1 && s->max_microbatches % s->group) {
		uint32_t below = s->max_microbatches / s->group * s->group;

		if (below)
			return fail(c, n, CGS_E_INVALID,
				    "pipeline.max_microbatches %u is not a "
				    "multiple of microbatch_group %u; with vpp "
				    "> 1 the reachable counts are G, 2G, ...; "
				    "accepted: a multiple of %u such as %u or %u",
				    s->max_microbatches, s->group, s->group,
				    below, below + s->group);
		return fail(c, n, CGS_E_INVALID,
			    "pipeline.max_microbatches %u is not a multiple of "
			    "microbatch_group %u; with vpp > 1 the reachable "
			    "counts are G, 2G, ...; accepted: a multiple of %u "
			    "such as %u",
			    s->max_microbatches, s->group, s->group, s->group);
	}
	if ((rc = parse_ranks(c, cgs_node_get(p, "ranks"))))
		return rc;
	if ((n = cgs_node_get(p, "slots"))) {
		s->slots_pos = (struct cgs_pos){n->line, n->column};
		if (n->kind == CGS_NODE_SCALAR && n->type == CGS_SCALAR_STRING &&
		    strcmp(n->text, "auto") == 0 && n->len == 4)
			s->slots = 0;
		else if (n->kind == CGS_NODE_SCALAR && n->type == CGS_SCALAR_INT) {
			if ((rc = get_int(c, n, "pipeline.slots", 1, UINT32_MAX,
					  &v, NULL)))
				return rc;
			s->slots = (uint32_t)v;
		} else if (n->kind == CGS_NODE_MAP) {
			return parse_ring_search(c, n);
		} else {
			return fail(c, n, CGS_E_INVALID,
				    "pipeline.slots must be 'auto', an "
				    "integer >= 1 or a mapping with max, "
				    "per_rank and map, got %s",
				    shown(n, got, sizeof(got)));
		}
	}
	return 0;
}

static int parse_alignment(struct ctx *c, const struct cgs_node *n)
{
	uint64_t v;
	int rc;

	c->s->alignment = 256;
	if (!n)
		return 0;
	if ((rc = get_size(c, n, "alignment", &v)))
		return rc;
	if (v & (v - 1))
		return fail(c, n, CGS_E_INVALID,
			    "alignment %llu is not a power of two; accepted: "
			    "1, 2, 4, ..., such as 256",
			    (unsigned long long)v);
	c->s->alignment = v;
	return 0;
}

/* Role keys of a bytes mapping or an override into b; sets mask bits. */
static int parse_roles(struct ctx *c, const struct cgs_node *map,
		       const char *path, struct cgs_role_bytes *b,
		       unsigned *mask, struct cgs_pos *pos)
{
	char sub[PATH_MAX_LEN * 2];
	const struct cgs_node *n;
	int r, rc;

	for (r = 0; r < CGS_ROLE_COUNT; r++) {
		if (!(n = cgs_node_get(map, role_keys[r])))
			continue;
		snprintf(sub, sizeof(sub), "%s.%s", path, role_keys[r]);
		if ((rc = get_size(c, n, sub, &b->role[r])))
			return rc;
		*mask |= 1u << r;
		if (pos) {
			pos[r].line = n->line;
			pos[r].column = n->column;
		}
	}
	return 0;
}

static int parse_override(struct ctx *c, const struct cgs_node *n,
			  const char *path, struct cgs_override *o)
{
	const struct cgs_schedule *s = c->s;
	char sub[PATH_MAX_LEN * 3];
	const struct cgs_node *k;
	uint32_t max_layers = 0, i;
	uint64_t v;
	int rc;

	if ((rc = want_kind(c, n, path, CGS_NODE_MAP)) ||
	    (rc = only_keys(c, n, path, override_keys)))
		return rc;
	o->rank = o->chunk = o->layer = -1;
	o->pos.line = n->line;
	o->pos.column = n->column;
	if ((k = cgs_node_get(n, "rank"))) {
		snprintf(sub, sizeof(sub), "%s.rank", path);
		if ((rc = get_int(c, k, sub, 0, s->pp - 1, &v, NULL)))
			return rc;
		o->rank = (int64_t)v;
	}
	if ((k = cgs_node_get(n, "chunk"))) {
		snprintf(sub, sizeof(sub), "%s.chunk", path);
		if ((rc = get_int(c, k, sub, 0, s->vpp - 1, &v, NULL)))
			return rc;
		o->chunk = (int64_t)v;
	}
	for (i = 0; i < s->vpp; i++)
		if (s->layers[i] > max_layers)
			max_layers = s->layers[i];
	if ((k = cgs_node_get(n, "layer"))) {
		snprintf(sub, sizeof(sub), "%s.layer", path);
		if ((rc = get_int(c, k, sub, 0,
				  (o->chunk >= 0 ? s->layers[o->chunk] :
						   max_layers) - 1,
				  &v, NULL)))
			return rc;
		o->layer = (int64_t)v;
	}
	if ((rc = parse_roles(c, n, path, &o->bytes, &o->mask, NULL)))
		return rc;
	if (!o->mask)
		return fail(c, n, CGS_E_INVALID,
			    "%s sets no bytes; give at least one of input, "
			    "output, saved, user_grad", path);
	return 0;
}

static uint64_t align_up(uint64_t v, uint64_t a, int *overflow)
{
	if (v > UINT64_MAX - (a - 1)) {
		*overflow = 1;
		return UINT64_MAX;
	}
	return (v + a - 1) & ~(a - 1);
}

/*
 * Frames hold input + output + saved of one layer, and user_grad of every
 * layer of a chunk, each range aligned.  Bound those sums with the largest
 * value each role can take (base or any override), so no later sum of one
 * frame can wrap.
 */
static int check_frame_sums(struct ctx *c, const struct cgs_variant *var,
			    size_t index, const struct cgs_node *bytes_node)
{
	const struct cgs_schedule *s = c->s;
	uint64_t max[CGS_ROLE_COUNT], sum = 0, a = s->alignment;
	uint32_t most_layers = 0, chunk = 0, i;
	int r, overflow = 0;
	size_t k;

	for (r = 0; r < CGS_ROLE_COUNT; r++) {
		max[r] = var->bytes.role[r];
		for (k = 0; k < var->n_overrides; k++)
			if ((var->overrides[k].mask & (1u << r)) &&
			    var->overrides[k].bytes.role[r] > max[r])
				max[r] = var->overrides[k].bytes.role[r];
	}
	for (r = 0; r < CGS_ROLE_USER_GRAD; r++) {
		uint64_t part = align_up(max[r], a, &overflow);

		if (sum > UINT64_MAX - part)
			overflow = 1;
		sum += part;
	}
	if (overflow)
		return fail(c, bytes_node, CGS_E_INVALID,
			    "variants[%zu] '%s': input + output + saved of one "
			    "layer, each rounded up to the alignment %llu, "
			    "exceed 2^64-1 bytes; accepted: sizes whose sum "
			    "fits in 64 bits", index, var->name,
			    (unsigned long long)a);
	for (i = 0; i < s->vpp; i++)
		if (s->layers[i] > most_layers) {
			most_layers = s->layers[i];
			chunk = i;
		}
	sum = align_up(max[CGS_ROLE_USER_GRAD], a, &overflow);
	if (overflow || sum > UINT64_MAX / most_layers)
		return fail(c, bytes_node, CGS_E_INVALID,
			    "variants[%zu] '%s': user_grad summed over the %u "
			    "layers of chunk %u, each rounded up to the "
			    "alignment %llu, exceeds 2^64-1 bytes; accepted: "
			    "sizes whose sum fits in 64 bits", index, var->name,
			    most_layers, chunk, (unsigned long long)a);
	return 0;
}

static int parse_variant(struct ctx *c, const struct cgs_node *n,
			 size_t index, struct cgs_variant *var)
{
	char path[PATH_MAX_LEN], sub[PATH_MAX_LEN * 2];
	const struct cgs_node *k, *bytes;
	unsigned mask = 0;
	uint64_t v;
	size_t i, j;
	int rc = 0;

	snprintf(path, sizeof(path), "variants[%zu]", index);
	if ((rc = want_kind(c, n, path, CGS_NODE_MAP)) ||
	    (rc = only_keys(c, n, path, variant_keys)))
		return rc;
	var->pos.line = n->line;
	var->pos.column = n->column;
	snprintf(sub, sizeof(sub), "%s.name", path);
	if (!(k = need(c, n, path, "name", &rc)) ||
	    (rc = get_string(c, k, sub, &var->name)))
		return rc;
	for (j = 0; j < index; j++)
		if (strcmp(c->s->variants[j].name, var->name) == 0)
			return fail(c, k, CGS_E_INVALID,
				    "%s '%s' repeats the name of variants[%zu]; "
				    "variant names must be unique", sub,
				    var->name, j);
	snprintf(sub, sizeof(sub), "%s.cp", path);
	if (!(k = need(c, n, path, "cp", &rc)) ||
	    (rc = get_int(c, k, sub, 1, UINT32_MAX, &v, NULL)))
		return rc;
	var->cp = (uint32_t)v;
	for (j = 0; j < index; j++)
		if (c->s->variants[j].cp == var->cp)
			return fail(c, k, CGS_E_INVALID,
				    "%s %u repeats the CP size of variants[%zu] "
				    "'%s'; each variant needs its own CP size",
				    sub, var->cp, j, c->s->variants[j].name);
	snprintf(sub, sizeof(sub), "%s.bytes", path);
	if (!(bytes = need(c, n, path, "bytes", &rc)) ||
	    (rc = want_kind(c, bytes, sub, CGS_NODE_MAP)) ||
	    (rc = only_keys(c, bytes, sub, role_keys)))
		return rc;
	for (i = 0; role_keys[i]; i++)
		if (!need(c, bytes, sub, role_keys[i], &rc))
			return rc;
	if ((rc = parse_roles(c, bytes, sub, &var->bytes, &mask,
			       var->role_pos)))
		return rc;
	if ((k = cgs_node_get(n, "overrides"))) {
		snprintf(sub, sizeof(sub), "%s.overrides", path);
		if ((rc = want_kind(c, k, sub, CGS_NODE_SEQ)))
			return rc;
		var->overrides = calloc(k->count ? k->count : 1,
					sizeof(*var->overrides));
		if (!var->overrides)
			return cgs_error_set(c->err, CGS_E_NOMEM, "out of memory");
		for (i = 0; i < k->count; i++) {
			snprintf(sub, sizeof(sub), "%s.overrides[%zu]", path, i);
			if ((rc = parse_override(c, k->items[i], sub,
						 &var->overrides[i])))
				return rc;
			var->n_overrides++;
		}
	}
	return check_frame_sums(c, var, index, bytes);
}

static int cmp_variant_cp(const void *a, const void *b)
{
	const struct cgs_variant *x = a, *y = b;

	return x->cp < y->cp ? -1 : x->cp > y->cp;
}

static int parse_variants(struct ctx *c, const struct cgs_node *n)
{
	struct cgs_schedule *s = c->s;
	char what[64];
	size_t i;
	int rc;

	if ((rc = want_kind(c, n, "variants", CGS_NODE_SEQ)))
		return rc;
	if (!n->count)
		return fail(c, n, CGS_E_INVALID,
			    "variants is empty; list at least one variant "
			    "(name, cp, bytes)");
	if (n->count > c->lim->variants) {
		snprintf(what, sizeof(what), "the variant count (%zu)", n->count);
		return cgs_limit_error(c->err, c->file, n->line, n->column,
				       "variants", c->lim->variants, what);
	}
	s->variants = calloc(n->count, sizeof(*s->variants));
	if (!s->variants)
		return cgs_error_set(c->err, CGS_E_NOMEM, "out of memory");
	for (i = 0; i < n->count; i++) {
		rc = parse_variant(c, n->items[i], i, &s->variants[i]);
		s->n_variants++;
		if (rc)
			return rc;
	}
	/* canonical order: smallest CP first, as upstream captures them */
	qsort(s->variants, s->n_variants, sizeof(*s->variants), cmp_variant_cp);
	return 0;
}

/* The largest bytes of each role of one variant on the ranks it covers. */
struct role_max {
	int64_t rank;                      /* -1: every rank */
	uint64_t max[CGS_ROLE_COUNT];
	struct cgs_pos pos[CGS_ROLE_COUNT]; /* where each maximum is given */
};

static int cmp_role_max(const void *a, const void *b)
{
	const struct role_max *x = a, *y = b;

	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static void raise_max(struct role_max *m, const struct cgs_override *o)
{
	int r;

	for (r = 0; r < CGS_ROLE_COUNT; r++)
		if ((o->mask & (1u << r)) && o->bytes.role[r] > m->max[r]) {
			m->max[r] = o->bytes.role[r];
			m->pos[r] = o->pos;
		}
}

/*
 * Per variant: entry 0 the maxima over the base bytes and the overrides
 * for every rank, then one entry per rank some override names, sorted,
 * with that rank's overrides folded in.  Returns the entry count.
 */
static size_t variant_maxima(const struct cgs_variant *v, struct role_max *out)
{
	size_t k, n = 1, i;
	int r;

	out[0].rank = -1;
	for (r = 0; r < CGS_ROLE_COUNT; r++) {
		out[0].max[r] = v->bytes.role[r];
		out[0].pos[r] = v->role_pos[r];
	}
	for (k = 0; k < v->n_overrides; k++)
		if (v->overrides[k].rank < 0)
			raise_max(&out[0], &v->overrides[k]);
	for (k = 0; k < v->n_overrides; k++)
		if (v->overrides[k].rank >= 0) {
			out[n] = out[0];
			out[n].rank = v->overrides[k].rank;
			raise_max(&out[n], &v->overrides[k]);
			n++;
		}
	qsort(out + 1, n - 1, sizeof(*out), cmp_role_max);
	for (k = 1, i = 1; k < n; k++) {  /* fold equal ranks */
		if (i > 1 && out[i - 1].rank == out[k].rank) {
			for (r = 0; r < CGS_ROLE_COUNT; r++)
				if (out[k].max[r] > out[i - 1].max[r]) {
					out[i - 1].max[r] = out[k].max[r];
					out[i - 1].pos[r] = out[k].pos[r];
				}
			continue;
		}
		out[i++] = out[k];
	}
	return i;
}

static const struct role_max *maxima_for(const struct role_max *m, size_t n,
					 uint32_t rank)
{
	size_t lo = 1, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m[mid].rank == (int64_t)rank)
			return &m[mid];
		if (m[mid].rank < (int64_t)rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &m[0];
}

/*
 * Refuse a schedule whose per-rank totals could not be represented (see
 * CGS_SCHEDULE_MAX_ROLE_BYTES): for each planned rank and each role, ring
 * bound x layers per rank x the sum over variants of the role's largest
 * aligned bytes on that rank.  The error points at the largest
 * contribution's bytes.
 */
static int check_rank_totals(struct ctx *c)
{
	const struct cgs_schedule *s = c->s;
	/* the smallest safe ring is at most L (2 when L is 1); a search may
	 * go up to slots.max */
	uint64_t ring = s->slots ? s->slots : s->max_microbatches < 2 ? 2 :
					       s->max_microbatches;
	uint64_t a = s->alignment, frames = UINT64_MAX;
	struct role_max **maxima;
	size_t *n_maxima, total_ov = 0;
	uint32_t v, r;
	int rc = 0, role;

	if (s->slots_max > ring)  /* a ring search may go this far */
		ring = s->slots_max;
	cgs_mul_u64(ring, cgs_schedule_layers_total(s), &frames);
	maxima = calloc(s->n_variants, sizeof(*maxima));
	n_maxima = calloc(s->n_variants, sizeof(*n_maxima));
	if (!maxima || !n_maxima) {
		rc = cgs_error_set(c->err, CGS_E_NOMEM, "out of memory");
		goto out;
	}
	for (v = 0; v < s->n_variants; v++) {
		total_ov += s->variants[v].n_overrides;
		maxima[v] = calloc(s->variants[v].n_overrides + 1,
				   sizeof(**maxima));
		if (!maxima[v]) {
			rc = cgs_error_set(c->err, CGS_E_NOMEM, "out of memory");
			goto out;
		}
		n_maxima[v] = variant_maxima(&s->variants[v], maxima[v]);
	}
	for (r = 0; r < s->n_ranks && !rc; r++) {
		/* ranks no override names all have the first rank's totals */
		if (r > 0 && total_ov == 0)
			break;
		for (role = 0; role < 2 && !rc; role++) {
			uint64_t per_frame = 0, total, part, x;
			const struct cgs_pos *at = NULL;
			uint64_t most = 0;
			int overflow = 0, k;

			for (v = 0; v < s->n_variants; v++) {
				const struct role_max *m = maxima_for(
					maxima[v], n_maxima[v], s->ranks[r]);

				part = 0;
				for (k = role ? CGS_ROLE_USER_GRAD : 0;
				     k < (role ? CGS_ROLE_COUNT : CGS_ROLE_USER_GRAD);
				     k++) {
					/* check_frame_sums bounds each part */
					x = (m->max[k] + a - 1) & ~(a - 1);
					part += x;
					if (x >= most) {
						most = x;
						at = &m->pos[k];
					}
				}
				overflow |= cgs_acc_u64(&per_frame, part);
			}
			if (!overflow && !cgs_mul_u64(per_frame, frames, &total) &&
			    total <= CGS_SCHEDULE_MAX_ROLE_BYTES)
				continue;
			rc = cgs_error_at(c->err, CGS_E_INVALID, c->file,
				at ? at->line : 0, at ? at->column : 0,
				"rank %u: %s frames would total more than "
				"%llu bytes (2^62-1): a ring of up to %llu "
				"slots x %u layers x the %u variants' largest "
				"%s bytes on the rank, rounded up to the "
				"alignment %llu; accepted: smaller sizes, "
				"fewer slots or microbatches",
				s->ranks[r], role ? "user-gradient" : "saved",
				(unsigned long long)CGS_SCHEDULE_MAX_ROLE_BYTES,
				(unsigned long long)ring,
				cgs_schedule_layers_total(s), s->n_variants,
				role ? "user_grad" : "input + output + saved",
				(unsigned long long)a);
		}
	}
out:
	for (v = 0; maxima && v < s->n_variants; v++)
		free(maxima[v]);
	free(maxima);
	free(n_maxima);
	return rc;
}

static int is_planned(const struct cgs_schedule *s, uint32_t rank)
{
	return cgs_sorted_u32_has(s->ranks, s->n_ranks, rank);
}

static int parse_order(struct ctx *c, const struct cgs_node *n, size_t index,
		       struct cgs_order *o)
{
	const struct cgs_schedule *s = c->s;
	char path[PATH_MAX_LEN], sub[PATH_MAX_LEN * 2], got[QUOTE_LEN + 32];
	const struct cgs_node *k, *list;
	size_t i;
	uint64_t v;
	int rc = 0;

	snprintf(path, sizeof(path), "orders[%zu]", index);
	if ((rc = want_kind(c, n, path, CGS_NODE_MAP)) ||
	    (rc = only_keys(c, n, path, order_keys)))
		return rc;
	o->pos.line = n->line;
	o->pos.column = n->column;
	snprintf(sub, sizeof(sub), "%s.rank", path);
	if (!(k = need(c, n, path, "rank", &rc)) ||
	    (rc = get_int(c, k, sub, 0, s->pp - 1, &v, NULL)))
		return rc;
	if (!is_planned(s, (uint32_t)v))
		return fail(c, k, CGS_E_INVALID,
			    "%s is %llu, which pipeline.ranks does not plan; "
			    "accepted: a planned rank", sub,
			    (unsigned long long)v);
	o->rank = (uint32_t)v;
	snprintf(sub, sizeof(sub), "%s.microbatches", path);
	if (!(k = need(c, n, path, "microbatches", &rc)) ||
	    (rc = get_int(c, k, sub, 1, s->max_microbatches, &v, NULL)))
		return rc;
	o->microbatches = (uint32_t)v;
	snprintf(sub, sizeof(sub), "%s.order", path);
	if (!(list = need(c, n, path, "order", &rc)) ||
	    (rc = want_kind(c, list, sub, CGS_NODE_SEQ)))
		return rc;
	o->list_pos = (struct cgs_pos){list->line, list->column};
	o->entries = malloc((list->count ? list->count : 1) *
			    sizeof(*o->entries));
	o->entry_pos = malloc((list->count ? list->count : 1) *
			      sizeof(*o->entry_pos));
	if (!o->entries || !o->entry_pos)
		return cgs_error_set(c->err, CGS_E_NOMEM, "out of memory");
	for (i = 0; i < list->count; i++) {
		const struct cgs_node *e = list->items[i];
		int neg = e->kind == CGS_NODE_SCALAR && e->text &&
			  e->text[0] == '-';

		snprintf(sub, sizeof(sub), "%s.order[%zu]", path, i);
		if (e->kind != CGS_NODE_SCALAR || e->type != CGS_SCALAR_INT)
			return fail(c, e, CGS_E_INVALID,
				    "%s must be a chunk id (+c forward, -c "
				    "backward), got %s", sub,
				    shown(e, got, sizeof(got)));
		v = 0;
		if (strspn(e->text + (neg || e->text[0] == '+'), "0123456789") <= 10)
			v = strtoull(e->text + (neg || e->text[0] == '+'), NULL, 10);
		if (v == 0 || v > s->vpp)
			return fail(c, e, CGS_E_INVALID,
				    "%s is %.40s, which names no chunk; "
				    "accepted: 1..%u (forward) and -%u..-1 "
				    "(backward)", sub, e->text, s->vpp, s->vpp);
		o->entries[i] = neg ? -(int32_t)v : (int32_t)v;
		o->entry_pos[i] = (struct cgs_pos){e->line, e->column};
		o->n_entries++;
	}
	/* whether the order drains is src/order's to check */
	return 0;
}

static int cmp_order(const void *a, const void *b)
{
	const struct cgs_order *x = *(const struct cgs_order *const *)a;
	const struct cgs_order *y = *(const struct cgs_order *const *)b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->microbatches != y->microbatches)
		return x->microbatches < y->microbatches ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Sorted pointers to the orders, by (rank, microbatches, file order). */
static const struct cgs_order **sorted_orders(const struct cgs_schedule *s)
{
	const struct cgs_order **v = malloc((s->n_orders ? s->n_orders : 1) *
					    sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < s->n_orders; i++)
		v[i] = &s->orders[i];
	qsort(v, s->n_orders, sizeof(*v), cmp_order);
	return v;
}

static int parse_orders(struct ctx *c, const struct cgs_node *n)
{
	struct cgs_schedule *s = c->s;
	const struct cgs_order **v, *dup = NULL, *first = NULL;
	size_t i;
	int rc;

	if ((rc = want_kind(c, n, "orders", CGS_NODE_SEQ)))
		return rc;
	s->orders = calloc(n->count ? n->count : 1, sizeof(*s->orders));
	if (!s->orders)
		return cgs_error_set(c->err, CGS_E_NOMEM, "out of memory");
	for (i = 0; i < n->count; i++) {
		rc = parse_order(c, n->items[i], i, &s->orders[i]);
		s->n_orders++;
		if (rc)
			return rc;
	}
	if (!(v = sorted_orders(s)))
		return cgs_error_set(c->err, CGS_E_NOMEM, "out of memory");
	for (i = 1; i < s->n_orders; i++)
		if (v[i]->rank == v[i - 1]->rank &&
		    v[i]->microbatches == v[i - 1]->microbatches &&
		    (!dup || v[i] < dup) &&
		    (i < 2 || v[i - 2]->rank != v[i]->rank ||
		     v[i - 2]->microbatches != v[i]->microbatches)) {
			dup = v[i];
			first = v[i - 1];
		}
	free(v);
	if (dup) {
		const struct cgs_node *at = n->items[dup - s->orders];

		return fail(c, at, CGS_E_INVALID,
			    "orders[%zu] repeats rank %u with %u microbatches "
			    "(first at orders[%zu]); each (rank, microbatches) "
			    "pair may have one order",
			    (size_t)(dup - s->orders), dup->rank,
			    dup->microbatches, (size_t)(first - s->orders));
	}
	return 0;
}

static int validate(struct ctx *c, const struct cgs_node *root)
{
	const struct cgs_node *n;
	char got[QUOTE_LEN + 32];
	int rc = 0;

	if (root->kind != CGS_NODE_MAP)
		return fail(c, root, CGS_E_INVALID,
			    "a schedule must be a mapping with the keys cgslot, "
			    "name, pipeline, alignment, variants, orders; got "
			    "%s", shown(root, got, sizeof(got)));
	if ((rc = parse_version(c, root)) ||
	    (rc = only_keys(c, root, "", top_keys)))
		return rc;
	if ((n = cgs_node_get(root, "name")) &&
	    (rc = get_string(c, n, "name", &c->s->name)))
		return rc;
	if (!(n = need(c, root, "", "pipeline", &rc)) ||
	    (rc = parse_pipeline(c, n)))
		return rc;
	if ((rc = parse_alignment(c, cgs_node_get(root, "alignment"))))
		return rc;
	if (!(n = need(c, root, "", "variants", &rc)) ||
	    (rc = parse_variants(c, n)))
		return rc;
	if ((n = cgs_node_get(root, "orders")) && (rc = parse_orders(c, n)))
		return rc;
	return check_rank_totals(c);
}

int cgs_schedule_from_doc(const struct cgs_doc *doc,
			  const struct cgs_limits *limits,
			  struct cgs_schedule **out, struct cgs_error *err)
{
	struct ctx c = {.file = doc->file, .lim = limits, .err = err};
	int rc;

	*out = NULL;
	c.s = calloc(1, sizeof(*c.s));
	if (!c.s)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	c.s->path = strdup(doc->file);
	if (!c.s->path) {
		rc = cgs_error_set(err, CGS_E_NOMEM, "out of memory");
		goto fail;
	}
	rc = validate(&c, doc->root);
	if (rc)
		goto fail;
	*out = c.s;
	return 0;
fail:
	cgs_schedule_destroy(&c.s);
	return rc;
}

uint64_t cgs_schedule_bytes(const struct cgs_schedule *s, uint32_t variant,
			    uint32_t rank, uint32_t chunk, uint32_t layer,
			    enum cgs_role role)
{
	const struct cgs_variant *v = &s->variants[variant];
	uint64_t bytes = v->bytes.role[role];
	size_t i;

	for (i = 0; i < v->n_overrides; i++) {
		const struct cgs_override *o = &v->overrides[i];

		if ((o->mask & (1u << role)) &&
		    (o->rank < 0 || (uint32_t)o->rank == rank) &&
		    (o->chunk < 0 || (uint32_t)o->chunk == chunk) &&
		    (o->layer < 0 || (uint32_t)o->layer == layer))
			bytes = o->bytes.role[role];
	}
	return bytes;
}

uint32_t cgs_schedule_layers_total(const struct cgs_schedule *s)
{
	uint64_t total = 0;
	uint32_t c;

	for (c = 0; c < s->vpp; c++)
		total += s->layers[c];
	return total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

void cgs_schedule_destroy(struct cgs_schedule **sp)
{
	struct cgs_schedule *s;
	size_t i;

	if (!sp || !*sp)
		return;
	s = *sp;
	for (i = 0; i < s->n_variants; i++) {
		free(s->variants[i].name);
		free(s->variants[i].overrides);
	}
	for (i = 0; i < s->n_orders; i++) {
		free(s->orders[i].entries);
		free(s->orders[i].entry_pos);
	}
	free(s->variants);
	free(s->orders);
	free(s->layers);
	free(s->ranks);
	free(s->name);
	free(s->path);
	free(s);
	*sp = NULL;
}

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static void fnv_bytes(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		*h ^= b[i];
		*h *= FNV_PRIME;
	}
}

static void fnv_u64(uint64_t *h, uint64_t v)
{
	unsigned char le[8];
	int i;

	for (i = 0; i < 8; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	fnv_bytes(h, le, 8);
}

/*
 * FNV-1a (64-bit) over this serialisation, every integer as 8 bytes
 * little-endian whatever its width in the model:
 *
 *   1 (format version), pp, vpp, layers[0..vpp), group, max_microbatches,
 *   n_ranks, ranks[0..n_ranks) (ascending), slots (0 = auto), then,
 *   only when the ring is searched or per rank, slots_max (0 = none) and
 *   per_rank (0 or 1), then, only when slot maps are asked for, 1,
 *   alignment,
 *   n_variants, then per variant in model order (ascending cp):
 *     cp, name length, name bytes, bytes[input, output, saved, user_grad],
 *     n_overrides, then per override in file order:
 *       rank, chunk, layer (-1 as 2^64-1 for "every"), mask,
 *       bytes[input, output, saved, user_grad] (0 where the mask bit is clear)
 *   n_orders, then the sum (mod 2^64) over the orders of each order's
 *     own FNV-1a hash of: rank, microbatches, n_entries, entries (signed,
 *     sign-extended).  (rank, microbatches) pairs are unique, so the sum
 *     is canonical whatever the orders' order in the file, and needs no
 *     sorting (and no memory).
 *
 * The schedule's own name and every position are left out: they change
 * no plan.
 */
uint64_t cgs_schedule_hash(const struct cgs_schedule *s)
{
	uint64_t h = FNV_OFFSET, orders_sum = 0;
	size_t i, j;
	int r;

	fnv_u64(&h, 1);
	fnv_u64(&h, s->pp);
	fnv_u64(&h, s->vpp);
	for (i = 0; i < s->vpp; i++)
		fnv_u64(&h, s->layers[i]);
	fnv_u64(&h, s->group);
	fnv_u64(&h, s->max_microbatches);
	fnv_u64(&h, s->n_ranks);
	for (i = 0; i < s->n_ranks; i++)
		fnv_u64(&h, s->ranks[i]);
	fnv_u64(&h, s->slots);
	if (s->slots_max || s->slots_per_rank) {
		fnv_u64(&h, s->slots_max);
		fnv_u64(&h, (uint64_t)s->slots_per_rank);
	}
	if (s->slots_map)
		fnv_u64(&h, 1);
	fnv_u64(&h, s->alignment);
	fnv_u64(&h, s->n_variants);
	for (i = 0; i < s->n_variants; i++) {
		const struct cgs_variant *v = &s->variants[i];
		size_t len = strlen(v->name);

		fnv_u64(&h, v->cp);
		fnv_u64(&h, len);
		fnv_bytes(&h, v->name, len);
		for (r = 0; r < CGS_ROLE_COUNT; r++)
			fnv_u64(&h, v->bytes.role[r]);
		fnv_u64(&h, v->n_overrides);
		for (j = 0; j < v->n_overrides; j++) {
			const struct cgs_override *o = &v->overrides[j];

			fnv_u64(&h, (uint64_t)o->rank);
			fnv_u64(&h, (uint64_t)o->chunk);
			fnv_u64(&h, (uint64_t)o->layer);
			fnv_u64(&h, o->mask);
			for (r = 0; r < CGS_ROLE_COUNT; r++)
				fnv_u64(&h, (o->mask & (1u << r)) ?
						    o->bytes.role[r] : 0);
		}
	}
	fnv_u64(&h, s->n_orders);
	for (i = 0; i < s->n_orders; i++) {
		const struct cgs_order *o = &s->orders[i];
		uint64_t oh = FNV_OFFSET;

		fnv_u64(&oh, o->rank);
		fnv_u64(&oh, o->microbatches);
		fnv_u64(&oh, o->n_entries);
		for (j = 0; j < o->n_entries; j++)
			fnv_u64(&oh, (uint64_t)(int64_t)o->entries[j]);
		orders_sum += oh;
	}
	fnv_u64(&h, orders_sum);
	return h;
}
