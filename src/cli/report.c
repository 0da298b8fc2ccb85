/*
 * The memory report: built from an in-memory plan here (from a manifest in
 * report_manifest.c) and printed as text, JSON or upstream's seven-field
 * plan by the functions below, so `plan` and `report` print the same.
 */
#include "cli/report.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "common/error.h"
#include "plan/plan.h"

static char *dup_str(const char *s)
{
	size_t n = strlen(s ? s : "") + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s ? s : "", n);
	return d;
}

static void *dup_mem(const void *src, size_t bytes)
{
	void *d = malloc(bytes ? bytes : 1);

	if (d && bytes)
		memcpy(d, src, bytes);
	return d;
}

static void copy_role(struct cgs_report_role *dst,
		      const struct cgs_role_stats *src)
{
	dst->frames = src->frames;
	dst->colours = src->colours;
	dst->colour_lower_bound = src->colour_lower_bound;
	dst->bytes = src->bytes;
	dst->lower_bound_bytes = src->lower_bound_bytes;
}

/*
 * Whether rp's map has chunks whose rows differ: the manifest stores such
 * a map per count and chunk, any other per count (cgslot-manifest(5)).
 */
static int map_per_chunk(const struct cgs_rank_plan *rp)
{
	uint64_t width, row;
	uint32_t i, c, k;

	if (!rp->slot_map || rp->slot_map_rows <= 1 || !rp->n_reachable)
		return 0;
	width = rp->reachable[rp->n_reachable - 1];
	for (i = 0; i < rp->n_reachable; i++)
		for (c = 1; c < rp->slot_map_rows; c++)
			for (k = 0; k < rp->reachable[i]; k++) {
				row = (uint64_t)i * rp->slot_map_rows;
				if (rp->slot_map[(row + c) * width + k] !=
				    rp->slot_map[row * width + k])
					return 1;
			}
	return 0;
}

static int rank_from_plan(struct cgs_report_rank *rr,
			  const struct cgs_rank_plan *rp)
{
	uint32_t i;

	rr->rank = rp->rank;
	rr->slots = rp->slots;
	rr->slot_map = rp->slot_map != NULL;
	rr->slot_map_per_chunk = map_per_chunk(rp);
	rr->n_reachable = rp->n_reachable;
	rr->reachable = dup_mem(rp->reachable,
				rp->n_reachable * sizeof(*rr->reachable));
	rr->graphs = rp->n_graphs;
	copy_role(&rr->saved, &rp->saved_stats);
	copy_role(&rr->user_grad, &rp->user_grad_stats);
	rr->user_grad_nested = rp->n_nested;
	rr->joint = rp->joint;
	rr->bytes = rp->bytes;
	rr->lower_bound_bytes = rp->lower_bound_bytes;
	rr->bytes_without_sharing = rp->bytes_without_sharing;
	rr->bytes_colour_arenas = rp->bytes_colour_arenas;
	rr->n_arenas = rp->n_arenas;
	rr->arenas = calloc(rp->n_arenas + 1, sizeof(*rr->arenas));
	rr->saved_colours = calloc((size_t)rp->n_saved + 1,
				   sizeof(*rr->saved_colours));
	rr->user_grad_colours = calloc((size_t)rp->n_user_grad + 1,
				       sizeof(*rr->user_grad_colours));
	if (!rr->reachable || !rr->arenas || !rr->saved_colours ||
	    !rr->user_grad_colours)
		return CGS_E_NOMEM;
	for (i = 0; i < rp->n_arenas; i++) {
		rr->arenas[i].id = i;
		rr->arenas[i].role = rp->arenas[i].role;
		rr->arenas[i].bytes = rp->arenas[i].bytes;
	}
	for (i = 0; i < rp->n_saved; i++)
		rr->saved_colours[i] = rp->saved[i].colour;
	for (i = 0; i < rp->n_user_grad; i++)
		rr->user_grad_colours[i] = rp->user_grad[i].colour;
	return 0;
}

int cgs_report_from_plan(const struct cgs_plan *plan, struct cgs_report **out,
			 struct cgs_error *err)
{
	const struct cgs_schedule *s;
	struct cgs_report *r;
	uint32_t i;

	if (!out)
		return cgs_error_set(err, CGS_E_ARG, "no report to fill");
	*out = NULL;
	if (!plan || !plan->schedule)
		return cgs_error_set(err, CGS_E_ARG, "no plan to report");
	s = plan->schedule;
	r = calloc(1, sizeof(*r));
	if (!r)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	r->schedule = dup_str(s->name);
	r->slots = plan->slots;
	r->max_microbatches = s->max_microbatches;
	r->pp = s->pp;
	r->vpp = s->vpp;
	r->group = s->group;
	r->layers = dup_mem(s->layers, s->vpp * sizeof(*r->layers));
	r->layers_total = plan->layer_base[s->vpp];
	r->alignment = s->alignment;
	r->n_variants = s->n_variants;
	r->variants = calloc(s->n_variants + 1, sizeof(*r->variants));
	r->n_ranks = plan->n_ranks;
	r->ranks = calloc(plan->n_ranks + 1, sizeof(*r->ranks));
	if (!r->schedule || !r->layers || !r->variants || !r->ranks)
		goto nomem;
	for (i = 0; i < s->n_variants; i++) {
		r->variants[i].name = dup_str(s->variants[i].name);
		r->variants[i].cp = s->variants[i].cp;
		if (!r->variants[i].name)
			goto nomem;
	}
	for (i = 0; i < plan->n_ranks; i++) {
		if (rank_from_plan(&r->ranks[i], &plan->ranks[i]))
			goto nomem;
		if (r->ranks[i].slots != r->slots)
			r->per_rank = 1;
	}
	*out = r;
	return 0;
nomem:
	cgs_report_destroy(&r);
	return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
}

void cgs_report_destroy(struct cgs_report **rp)
{
	struct cgs_report *r;
	uint32_t i;

	if (!rp || !*rp)
		return;
	r = *rp;
	if (r->variants)
		for (i = 0; i < r->n_variants; i++)
			free(r->variants[i].name);
	if (r->ranks) {
		for (i = 0; i < r->n_ranks; i++) {
			free(r->ranks[i].reachable);
			free(r->ranks[i].arenas);
			free(r->ranks[i].saved_colours);
			free(r->ranks[i].user_grad_colours);
		}
	}
	free(r->schedule);
	free(r->layers);
	free(r->variants);
	free(r->ranks);
	free(r);
	*rp = NULL;
}

/* ---- text --------------------------------------------------------------- */

/* "81920 B (80.0 KiB)": exact, and readable at a glance. */
static const char *fmt_bytes(char *buf, size_t size, uint64_t b)
{
	static const char *unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)b;
	int u = -1;

	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	if (u < 0)
		snprintf(buf, size, "%" PRIu64 " B", b);
	else
		snprintf(buf, size, "%" PRIu64 " B (%.1f %s)", b, v, unit[u]);
	return buf;
}

/* A sum over ranks, which may not fit in 64 bits. */
static const char *fmt_total(char *buf, size_t size, uint64_t b, int overflow)
{
	if (overflow)
		snprintf(buf, size, "more than %" PRIu64 " B (16 EiB)",
			 UINT64_MAX);
	else
		fmt_bytes(buf, size, b);
	return buf;
}

/* "saves 1.0 GiB (12.5%)" against a reference, or what it costs. */
static const char *fmt_saving(char *buf, size_t size, uint64_t reference,
			      uint64_t bytes)
{
	char b[64];
	uint64_t d = reference >= bytes ? reference - bytes : bytes - reference;
	double pct = reference ? 100.0 * (double)d / (double)reference : 0.0;

	snprintf(buf, size, "%s %s (%.1f%%)",
		 reference >= bytes ? "saves" : "costs",
		 fmt_bytes(b, sizeof(b), d), pct);
	return buf;
}

static const char *role_name(uint32_t role)
{
	return role == 0 ? "saved" : role == 1 ? "user_grad" : "unknown";
}

static void print_reachable(FILE *out, const struct cgs_report_rank *rr)
{
	uint32_t i, step;
	int progression = rr->n_reachable > 3;

	step = rr->n_reachable > 1 ? rr->reachable[1] - rr->reachable[0] : 0;
	for (i = 2; progression && i < rr->n_reachable; i++)
		progression = rr->reachable[i] - rr->reachable[i - 1] == step;
	if (progression) {
		fprintf(out, "%u, %u, ..., %u", rr->reachable[0],
			rr->reachable[1], rr->reachable[rr->n_reachable - 1]);
	} else {
		for (i = 0; i < rr->n_reachable; i++)
			fprintf(out, i ? ", %u" : "%u", rr->reachable[i]);
	}
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 1.0;
}

/* nested: frames in the saved arena; joint: packed with its frames */
static void print_role(FILE *out, const char *name,
		       const struct cgs_report_role *r, uint32_t nested,
		       int joint)
{
	char b1[64], b2[64];

	fprintf(out, "  %-10s %6u frames, %4u colours (clique bound %u%s), "
		"%s, lower bound %s", name, r->frames, r->colours,
		r->colour_lower_bound,
		r->colours == r->colour_lower_bound ? ", optimal" : "",
		fmt_bytes(b1, sizeof(b1), r->bytes),
		fmt_bytes(b2, sizeof(b2), r->lower_bound_bytes));
	if (nested)
		fprintf(out, "; %u frame%s nested in the saved arena%s",
			nested, nested == 1 ? "" : "s",
			joint ? ", packed with its frames" : "");
	fputc('\n', out);
}

int cgs_report_print_text(FILE *out, const struct cgs_report *r)
{
	char b1[96], b2[64], b3[64];
	uint64_t total = 0, total_without = 0, total_colour = 0;
	int over = 0, over_without = 0, over_colour = 0;
	uint32_t i, a;

	fprintf(out, "schedule %s: pp %u, vpp %u, group %u, max microbatches "
		"%u, %u layers per rank (", r->schedule[0] ? r->schedule : "(unnamed)",
		r->pp, r->vpp, r->group, r->max_microbatches, r->layers_total);
	for (i = 0; i < r->vpp; i++)
		fprintf(out, i ? " %u" : "%u", r->layers[i]);
	fprintf(out, " by chunk), alignment %" PRIu64 "\n", r->alignment);
	fprintf(out, "variants:");
	for (i = 0; i < r->n_variants; i++)
		fprintf(out, " %s (cp %u)", r->variants[i].name, r->variants[i].cp);
	if (r->per_rank) {
		fprintf(out, "\nring: per rank,");
		for (i = 0; i < r->n_ranks; i++)
			fprintf(out, "%s rank %u %u slots", i ? "," : "",
				r->ranks[i].rank, r->ranks[i].slots);
		fprintf(out, "\n");
	} else {
		fprintf(out, "\nring: %u slots shared by every rank\n",
			r->slots);
	}
	for (i = 0; i < r->n_ranks; i++) {
		const struct cgs_report_rank *rr = &r->ranks[i];

		fprintf(out, "\nrank %u: %u microbatch counts (", rr->rank,
			rr->n_reachable);
		print_reachable(out, rr);
		fprintf(out, "), %u graphs%s\n", rr->graphs,
			!rr->slot_map ? ""
			: rr->slot_map_per_chunk
				? ", slots from a slot map per count and chunk"
				: ", slots from a slot map per count");
		print_role(out, "saved", &rr->saved, 0, 0);
		print_role(out, "user_grad", &rr->user_grad,
			   rr->user_grad_nested, rr->joint);
		fprintf(out, "  arenas    ");
		for (a = 0; a < rr->n_arenas; a++)
			fprintf(out, "%s#%u %s %s", a ? ", " : " ",
				rr->arenas[a].id, role_name(rr->arenas[a].role),
				fmt_bytes(b1, sizeof(b1), rr->arenas[a].bytes));
		fprintf(out, "\n  total      %s = %.3f x lower bound %s\n",
			fmt_bytes(b1, sizeof(b1), rr->bytes),
			ratio(rr->bytes, rr->lower_bound_bytes),
			fmt_bytes(b2, sizeof(b2), rr->lower_bound_bytes));
		fprintf(out, "  sharing    every variant in its own arenas would take "
			"%s; sharing %s\n",
			fmt_bytes(b2, sizeof(b2), rr->bytes_without_sharing),
			fmt_saving(b1, sizeof(b1), rr->bytes_without_sharing,
				   rr->bytes));
		fprintf(out, "  upstream   one arena per colour would take %s; this "
			"plan %s\n",
			fmt_bytes(b2, sizeof(b2), rr->bytes_colour_arenas),
			fmt_saving(b1, sizeof(b1), rr->bytes_colour_arenas,
				   rr->bytes));
		/* a manifest read from disk may hold any figures */
		over |= cgs_acc_u64(&total, rr->bytes);
		over_without |= cgs_acc_u64(&total_without,
					    rr->bytes_without_sharing);
		over_colour |= cgs_acc_u64(&total_colour,
					   rr->bytes_colour_arenas);
	}
	if (r->n_ranks > 1)
		fprintf(out, "\nall %u ranks: %s; without sharing %s; upstream %s\n",
			r->n_ranks, fmt_total(b1, sizeof(b1), total, over),
			fmt_total(b2, sizeof(b2), total_without, over_without),
			fmt_total(b3, sizeof(b3), total_colour, over_colour));
	return ferror(out) ? CGS_E_IO : 0;
}

/* ---- JSON --------------------------------------------------------------- */

/* Set a key, taking the value's reference; remembers a failure in *ok. */
static void put(json_t *obj, const char *key, json_t *value, int *ok)
{
	if (!value || !obj || json_object_set_new(obj, key, value))
		*ok = 0;
}

static json_t *u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/*
 * nested: frames of this kind that lie in the saved arena (0: no key);
 * joint: packed with the saved frames there (0: no key)
 */
static json_t *role_json(const struct cgs_report_role *r, uint32_t nested,
			 int joint)
{
	json_t *o = json_object();
	int ok = 1;

	put(o, "frames", u64(r->frames), &ok);
	put(o, "colours", u64(r->colours), &ok);
	put(o, "colour_lower_bound", u64(r->colour_lower_bound), &ok);
	put(o, "bytes", u64(r->bytes), &ok);
	put(o, "lower_bound_bytes", u64(r->lower_bound_bytes), &ok);
	if (nested)
		put(o, "nested", u64(nested), &ok);
	if (joint)
		put(o, "joint", json_true(), &ok);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *rank_json(const struct cgs_report_rank *rr, int per_rank)
{
	json_t *o = json_object(), *reach = json_array(), *arenas = json_array();
	uint32_t i;
	int ok = o && reach && arenas;

	for (i = 0; ok && i < rr->n_reachable; i++)
		ok = json_array_append_new(reach, u64(rr->reachable[i])) == 0;
	for (i = 0; ok && i < rr->n_arenas; i++) {
		json_t *a = json_object();

		put(a, "id", u64(rr->arenas[i].id), &ok);
		put(a, "role", json_string(role_name(rr->arenas[i].role)), &ok);
		put(a, "bytes", u64(rr->arenas[i].bytes), &ok);
		if (!a || json_array_append_new(arenas, a))
			ok = 0;
	}
	put(o, "rank", u64(rr->rank), &ok);
	if (per_rank)
		put(o, "slots", u64(rr->slots), &ok);
	if (rr->slot_map)
		put(o, "slot_map", json_true(), &ok);
	if (rr->slot_map_per_chunk)
		put(o, "slot_map_per_chunk", json_true(), &ok);
	put(o, "reachable", reach, &ok);
	put(o, "graphs", u64(rr->graphs), &ok);
	put(o, "saved", role_json(&rr->saved, 0, 0), &ok);
	put(o, "user_grad", role_json(&rr->user_grad, rr->user_grad_nested,
				      rr->joint), &ok);
	put(o, "bytes", u64(rr->bytes), &ok);
	put(o, "lower_bound_bytes", u64(rr->lower_bound_bytes), &ok);
	put(o, "bytes_without_sharing", u64(rr->bytes_without_sharing), &ok);
	put(o, "bytes_colour_arenas", u64(rr->bytes_colour_arenas), &ok);
	put(o, "arenas", arenas, &ok);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int dump(FILE *out, json_t *doc)
{
	int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	json_decref(doc);
	if (rc || fputc('\n', out) == EOF || ferror(out))
		return CGS_E_IO;
	return 0;
}

int cgs_report_print_json(FILE *out, const struct cgs_report *r)
{
	json_t *doc = json_object(), *variants = json_array(),
	       *ranks = json_array(), *layers = json_array();
	uint32_t i;
	int ok = doc && variants && ranks && layers;

	put(doc, "schedule", json_string(r->schedule), &ok);
	put(doc, "slots", u64(r->slots), &ok);
	put(doc, "max_microbatches", u64(r->max_microbatches), &ok);
	put(doc, "pp", u64(r->pp), &ok);
	put(doc, "vpp", u64(r->vpp), &ok);
	put(doc, "group", u64(r->group), &ok);
	for (i = 0; ok && i < r->vpp; i++)
		ok = json_array_append_new(layers, u64(r->layers[i])) == 0;
	put(doc, "layers", layers, &ok);
	put(doc, "alignment", u64(r->alignment), &ok);
	for (i = 0; ok && i < r->n_variants; i++) {
		json_t *v = json_object();

		put(v, "name", json_string(r->variants[i].name), &ok);
		put(v, "cp", u64(r->variants[i].cp), &ok);
		if (!v || json_array_append_new(variants, v))
			ok = 0;
	}
	put(doc, "variants", variants, &ok);
	for (i = 0; ok && i < r->n_ranks; i++) {
		json_t *rank = rank_json(&r->ranks[i], r->per_rank);

		if (!rank || json_array_append_new(ranks, rank))
			ok = 0;
	}
	put(doc, "ranks", ranks, &ok);
	if (!ok) {
		json_decref(doc);
		return CGS_E_NOMEM;
	}
	return dump(out, doc);
}

/*
 * Upstream's seven-field plan, one tuple per (variant, chunk, slot, layer)
 * in that nesting.  Written directly, one tuple per line: jansson's
 * indentation would give every integer a line of its own.
 */
int cgs_report_print_te_plan(FILE *out, const struct cgs_report *r)
{
	uint32_t i, v, c, s, l, S = r->slots;

	fprintf(out, "{\n  \"slots\": %u,\n  \"ranks\": [", S);
	for (i = 0; i < r->n_ranks; i++) {
		const struct cgs_report_rank *rr = &r->ranks[i];
		uint32_t base = 0, first = 1;

		S = rr->slots;
		fprintf(out, "%s\n    {\n      \"rank\": %u,", i ? "," : "",
			rr->rank);
		if (r->per_rank)
			fprintf(out, "\n      \"slots\": %u,", S);
		fprintf(out, "\n      \"plan\": [");
		for (v = 0; v < r->n_variants; v++) {
			base = 0;
			for (c = 0; c < r->vpp; c++) {
				for (s = 0; s < S; s++) {
					for (l = 0; l < r->layers[c]; l++) {
						uint64_t f = (uint64_t)base * S +
							     (uint64_t)s * r->layers[c] + l;

						fprintf(out, "%s\n        [%u, %u, %u, %u, %u, %u, %u]",
							first ? "" : ",",
							rr->saved_colours[f], s,
							v * S + s, c, l,
							v * r->layers_total + base + l,
							rr->user_grad_colours[c * S + s]);
						first = 0;
					}
				}
				base += r->layers[c];
			}
		}
		fprintf(out, "\n      ]\n    }");
	}
	fprintf(out, "\n  ]\n}\n");
	return ferror(out) ? CGS_E_IO : 0;
}
