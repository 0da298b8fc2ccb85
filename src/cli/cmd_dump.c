/*
 * cgslot dump: every section of a manifest, as text for people, as JSON
 * (schemas/manifest-dump.schema.json) for tools, or as upstream's
 * seven-field slot plan.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/report.h"
#include "common/error.h"
#include "manifest/format.h"
#include "manifest/manifest.h"

static const char *const section_names[] = {
	"", "meta", "strings", "variants", "ranks", "reachable", "orders",
	"arenas", "saved_frames", "user_grad_frames", "saved_roles",
	"user_grad_layers", "capture", "slot_maps", "chunk_slot_maps",
	"nested", "joint",
};
_Static_assert(sizeof(section_names) / sizeof(section_names[0]) ==
	       CGS_MF_SECTIONS_KNOWN + 1, "a name for every known section");

static const char *section_name(uint32_t id)
{
	return id >= 1 && id <= CGS_MF_SECTIONS_KNOWN ? section_names[id]
						      : "unknown";
}

static const char *arena_role(uint32_t role)
{
	return role == CGS_MANIFEST_ARENA_SAVED ? "saved" : "user_grad";
}

/* Strings are validated UTF-8 without control characters (see the
 * reader), so only quotes and backslashes need escaping. */
static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

struct toc_entry {
	uint32_t id, flags;
	uint64_t offset, bytes;
};

static uint32_t toc_count(const struct cgs_manifest *m)
{
	const uint8_t *b = cgs_manifest_bytes(m, NULL);

	return cgs_get_le32(b + 16);
}

static struct toc_entry toc_at(const struct cgs_manifest *m, uint32_t i)
{
	const uint8_t *b = cgs_manifest_bytes(m, NULL);
	const uint8_t *e = b + CGS_MF_HEADER_BYTES +
			   (size_t)i * CGS_MF_TOC_ENTRY_BYTES;
	struct toc_entry t;

	t.id = cgs_get_le32(e);
	t.flags = cgs_get_le32(e + 4);
	t.offset = cgs_get_le64(e + 8);
	t.bytes = cgs_get_le64(e + 16);
	return t;
}

static uint32_t stored_crc(const struct cgs_manifest *m)
{
	size_t len;
	const uint8_t *b = cgs_manifest_bytes(m, &len);

	return cgs_get_le32(b + len - 4);
}

/* Whether the ranks' rings differ (format 2 lets each rank take its own). */
static int rings_differ(const struct cgs_manifest *m)
{
	uint32_t ri;

	for (ri = 0; ri < cgs_manifest_info(m)->n_ranks; ri++)
		if (cgs_manifest_rank_ring(m, ri).slots !=
		    cgs_manifest_info(m)->slots)
			return 1;
	return 0;
}

/* ---- text --------------------------------------------------------- */

static void text_header(const struct cgs_manifest *m)
{
	const struct cgs_manifest_info *in = cgs_manifest_info(m);
	size_t len;
	uint32_t c, v, i;

	cgs_manifest_bytes(m, &len);
	printf("manifest    format %u.%u, %zu bytes, crc32c %08x\n", in->major,
	       in->minor, len, stored_crc(m));
	printf("producer    cgslot %s\n", in->producer);
	printf("schedule    %s, hash %016" PRIx64 "\n",
	       *in->name ? in->name : "(unnamed)", in->schedule_hash);
	printf("pipeline    pp %u, vpp %u, group %u, max_microbatches %u\n",
	       in->pp, in->vpp, in->group, in->max_microbatches);
	printf("layers     ");
	for (c = 0; c < in->vpp; c++)
		printf(" %u", cgs_manifest_chunk_layers(m, c));
	printf(" (%u per rank)\n", in->layers_total);
	if (rings_differ(m))
		printf("ring        per rank, the largest %u slots; up to %u saved frames, %u user-grad frames, %u graphs\n",
		       in->slots, in->n_saved, in->n_user_grad, in->n_graphs);
	else
		printf("ring        %u slots; per rank %u saved frames, %u user-grad frames, %u graphs\n",
		       in->slots, in->n_saved, in->n_user_grad, in->n_graphs);
	printf("alignment   %" PRIu64 "\n", in->alignment);
	printf("\nvariants\n");
	for (v = 0; v < in->n_variants; v++)
		printf("  %u  %s  cp %u\n", v, cgs_manifest_variant_name(m, v),
		       cgs_manifest_variant_cp(m, v));
	printf("\nsections\n  %4s  %-17s %5s %10s %10s\n", "id", "name",
	       "flags", "offset", "bytes");
	for (i = 0; i < toc_count(m); i++) {
		struct toc_entry t = toc_at(m, i);

		printf("  %4u  %-17s %5u %10" PRIu64 " %10" PRIu64 "\n", t.id,
		       section_name(t.id), t.flags, t.offset, t.bytes);
	}
}

static void text_frame(const char *label, uint32_t i,
		       struct cgs_manifest_frame f)
{
	printf("    %s%-6u %5u %4u %5u %6u %5u %14" PRIu64 " %12" PRIu64 "\n",
	       label, i, f.chunk, f.slot, f.layer, f.colour, f.arena, f.offset,
	       f.bytes);
}

static void text_rank(const struct cgs_manifest *m, uint32_t ri)
{
	const struct cgs_manifest_info *mi = cgs_manifest_info(m);
	struct cgs_manifest_ring ring = cgs_manifest_rank_ring(m, ri);
	const struct cgs_manifest_ring *in = &ring;
	struct cgs_manifest_rank_stats st = cgs_manifest_rank_stats(m, ri);
	uint32_t i, f, v, r, g, gv, gf, gd, c;
	uint32_t rows = in->slot_map_per_chunk ? mi->vpp : 1;
	uint64_t k, n;

	printf("\nrank %u\n  ring        %u slots; %u saved frames, %u user-grad frames, %u graphs; %s\n",
	       cgs_manifest_rank_id(m, ri), in->slots, in->n_saved,
	       in->n_user_grad, in->n_graphs,
	       !in->slot_map ? "slot k mod S"
	       : in->slot_map_per_chunk ? "slots from the slot map per count and chunk"
	       : "slots from the slot map");
	/* a row per count, or per count and chunk (0-based, as frames) */
	for (i = 0; in->slot_map && i < cgs_manifest_reachable_count(m, ri);
	     i++)
		for (c = 0; c < rows; c++) {
			printf("  slots N=%u", cgs_manifest_reachable(m, ri, i));
			if (in->slot_map_per_chunk)
				printf(" chunk %u", c);
			printf(":");
			for (k = 0; k < cgs_manifest_reachable(m, ri, i); k++)
				printf(" %u", cgs_manifest_slot(m, ri, i, c,
								(uint32_t)k));
			printf("\n");
		}
	printf("  reachable  ");
	for (i = 0; i < cgs_manifest_reachable_count(m, ri); i++)
		printf(" %u", cgs_manifest_reachable(m, ri, i));
	printf("\n");
	for (i = 0; i < cgs_manifest_reachable_count(m, ri); i++) {
		printf("  order N=%u:", cgs_manifest_reachable(m, ri, i));
		n = cgs_manifest_order_length(m, ri, i);
		for (k = 0; k < n; k++)
			printf(" %d", cgs_manifest_order_entry(m, ri, i, k));
		printf("\n");
	}
	printf("  report\n");
	printf("    saved frames     %u, colours %u (lower bound %u), bytes %" PRIu64 " (lower bound %" PRIu64 ")\n",
	       st.saved.frames, st.saved.colours, st.saved.colour_lower_bound,
	       st.saved.bytes, st.saved.lower_bound_bytes);
	printf("    user-grad frames %u, colours %u (lower bound %u), bytes %" PRIu64 " (lower bound %" PRIu64 ")\n",
	       st.user_grad.frames, st.user_grad.colours,
	       st.user_grad.colour_lower_bound, st.user_grad.bytes,
	       st.user_grad.lower_bound_bytes);
	printf("    bytes %" PRIu64 ", lower bound %" PRIu64 ", without sharing %" PRIu64 ", colour arenas %" PRIu64 "\n",
	       st.bytes, st.lower_bound_bytes, st.bytes_without_sharing,
	       st.bytes_colour_arenas);
	printf("  arenas\n");
	for (i = 0; i < cgs_manifest_arena_count(m, ri); i++) {
		struct cgs_manifest_arena a = cgs_manifest_arena(m, ri, i);

		printf("    %u  %-9s %14" PRIu64 " bytes, alignment %" PRIu64 "\n",
		       i, arena_role(a.role), a.bytes, a.alignment);
	}
	printf("  saved frames\n    %-6s %5s %4s %5s %6s %5s %14s %12s\n", "f",
	       "chunk", "slot", "layer", "colour", "arena", "offset", "bytes");
	for (f = 0; f < in->n_saved; f++)
		text_frame("", f, cgs_manifest_saved_frame(m, ri, f));
	printf("  user-grad frames\n    %-6s %5s %4s %5s %6s %5s %14s %12s\n",
	       "u", "chunk", "slot", "layer", "colour", "arena", "offset",
	       "bytes");
	for (f = 0; f < in->n_user_grad; f++)
		text_frame("", f, cgs_manifest_user_grad_frame(m, ri, f));
	for (v = 0; v < mi->n_variants; v++) {
		printf("  layout of variant %s (offset+bytes within the frame)\n"
		       "    %-6s %23s %23s %23s %23s\n",
		       cgs_manifest_variant_name(m, v), "f", "input", "output",
		       "saved", "user-grad");
		for (f = 0; f < in->n_saved; f++) {
			struct cgs_manifest_range u =
				cgs_manifest_user_grad_layer(m, ri, v, f);

			printf("    %-6u", f);
			for (r = 0; r < 3; r++) {
				struct cgs_manifest_range x =
					cgs_manifest_saved_role(m, ri, v, f, r);

				printf(" %11" PRIu64 "+%-11" PRIu64, x.offset,
				       x.bytes);
			}
			printf(" %11" PRIu64 "+%-11" PRIu64 "\n", u.offset,
			       u.bytes);
		}
	}
	printf("  capture (graph = (variant * %u + frame) * 2 + direction)\n",
	       in->n_saved);
	for (i = 0; i < cgs_manifest_capture_count(m, ri); i++) {
		g = cgs_manifest_capture(m, ri, i);
		cgs_manifest_graph_split(m, ri, g, &gv, &gf, &gd);
		{
			struct cgs_manifest_frame fr =
				cgs_manifest_saved_frame(m, ri, gf);

			printf("    %-6u graph %-7u %s chunk %u slot %u layer %u %s\n",
			       i, g, cgs_manifest_variant_name(m, gv),
			       fr.chunk, fr.slot, fr.layer,
			       gd ? "backward" : "forward");
		}
	}
}

static void dump_text(const struct cgs_manifest *m)
{
	uint32_t ri;

	text_header(m);
	for (ri = 0; ri < cgs_manifest_info(m)->n_ranks; ri++)
		text_rank(m, ri);
}

/* ---- JSON --------------------------------------------------------- */

static void json_frame(struct cgs_manifest_frame f, int last)
{
	printf("        {\"chunk\": %u, \"slot\": %u, \"layer\": %u, \"colour\": %u, \"arena\": %u, \"offset\": %" PRIu64 ", \"bytes\": %" PRIu64 "}%s\n",
	       f.chunk, f.slot, f.layer, f.colour, f.arena, f.offset, f.bytes,
	       last ? "" : ",");
}

static void json_role_stats(const char *key,
			    const struct cgs_manifest_role_stats *s)
{
	printf("        \"%s\": {\"frames\": %u, \"colours\": %u, \"colour_lower_bound\": %u, \"bytes\": %" PRIu64 ", \"lower_bound_bytes\": %" PRIu64 "},\n",
	       key, s->frames, s->colours, s->colour_lower_bound, s->bytes,
	       s->lower_bound_bytes);
}

/*
 * A map with a row per count and chunk: {"per_chunk": [count][chunk][k]},
 * an object, so that a reader of the per-count shape (an array of rows)
 * fails on it rather than taking one chunk's row for every chunk.
 */
static void json_chunk_slot_map(const struct cgs_manifest *m, uint32_t ri)
{
	uint32_t i, c, k, n, vpp = cgs_manifest_info(m)->vpp;

	printf("{\"per_chunk\": [");
	for (i = 0; i < cgs_manifest_reachable_count(m, ri); i++) {
		n = cgs_manifest_reachable(m, ri, i);
		printf(i ? ", [" : "[");
		for (c = 0; c < vpp; c++) {
			printf(c ? ", [" : "[");
			for (k = 0; k < n; k++)
				printf(k ? ", %u" : "%u",
				       cgs_manifest_slot(m, ri, i, c, k));
			printf("]");
		}
		printf("]");
	}
	printf("]}");
}

static void json_rank(const struct cgs_manifest *m, uint32_t ri, int last)
{
	const struct cgs_manifest_info *mi = cgs_manifest_info(m);
	struct cgs_manifest_ring ring = cgs_manifest_rank_ring(m, ri);
	const struct cgs_manifest_ring *in = &ring;
	struct cgs_manifest_rank_stats st = cgs_manifest_rank_stats(m, ri);
	uint32_t i, n_reach = cgs_manifest_reachable_count(m, ri), f, v, r;
	uint32_t n_arenas = cgs_manifest_arena_count(m, ri);
	uint32_t n_cap = cgs_manifest_capture_count(m, ri);
	uint64_t k, n;

	printf("    {\n      \"rank\": %u,\n      \"slots\": %u,\n      \"slot_map\": ",
	       cgs_manifest_rank_id(m, ri), in->slots);
	if (!in->slot_map)
		printf("null");
	else if (in->slot_map_per_chunk)
		json_chunk_slot_map(m, ri);
	for (i = 0; in->slot_map && !in->slot_map_per_chunk && i < n_reach;
	     i++) {
		printf(i ? ", [" : "[[");
		for (k = 0; k < cgs_manifest_reachable(m, ri, i); k++)
			printf(k ? ", %u" : "%u",
			       cgs_manifest_slot(m, ri, i, 0, (uint32_t)k));
		printf(i + 1 < n_reach ? "]" : "]]");
	}
	printf(",\n      \"orders\": [\n");
	for (i = 0; i < n_reach; i++) {
		printf("        {\"microbatches\": %u, \"entries\": [",
		       cgs_manifest_reachable(m, ri, i));
		n = cgs_manifest_order_length(m, ri, i);
		for (k = 0; k < n; k++)
			printf(k ? ", %d" : "%d",
			       cgs_manifest_order_entry(m, ri, i, k));
		printf("]}%s\n", i + 1 < n_reach ? "," : "");
	}
	printf("      ],\n      \"report\": {\n");
	json_role_stats("saved", &st.saved);
	json_role_stats("user_grad", &st.user_grad);
	printf("        \"bytes\": %" PRIu64 ",\n        \"lower_bound_bytes\": %" PRIu64 ",\n        \"bytes_without_sharing\": %" PRIu64 ",\n        \"bytes_colour_arenas\": %" PRIu64 "\n      },\n",
	       st.bytes, st.lower_bound_bytes, st.bytes_without_sharing,
	       st.bytes_colour_arenas);
	printf("      \"arenas\": [\n");
	for (i = 0; i < n_arenas; i++) {
		struct cgs_manifest_arena a = cgs_manifest_arena(m, ri, i);

		printf("        {\"id\": %u, \"role\": \"%s\", \"bytes\": %" PRIu64 ", \"alignment\": %" PRIu64 "}%s\n",
		       i, arena_role(a.role), a.bytes, a.alignment,
		       i + 1 < n_arenas ? "," : "");
	}
	printf("      ],\n      \"saved_frames\": [\n");
	for (f = 0; f < in->n_saved; f++)
		json_frame(cgs_manifest_saved_frame(m, ri, f),
			   f + 1 == in->n_saved);
	printf("      ],\n      \"user_grad_frames\": [\n");
	for (f = 0; f < in->n_user_grad; f++)
		json_frame(cgs_manifest_user_grad_frame(m, ri, f),
			   f + 1 == in->n_user_grad);
	printf("      ],\n      \"layouts\": [\n");
	for (v = 0; v < mi->n_variants; v++) {
		printf("        {\"variant\": ");
		json_string(cgs_manifest_variant_name(m, v));
		printf(", \"frames\": [\n");
		for (f = 0; f < in->n_saved; f++) {
			struct cgs_manifest_range u =
				cgs_manifest_user_grad_layer(m, ri, v, f);
			static const char *const role[] = {"input", "output",
							   "saved"};

			printf("          {");
			for (r = 0; r < 3; r++) {
				struct cgs_manifest_range x =
					cgs_manifest_saved_role(m, ri, v, f, r);

				printf("\"%s\": [%" PRIu64 ", %" PRIu64 "], ",
				       role[r], x.offset, x.bytes);
			}
			printf("\"user_grad\": [%" PRIu64 ", %" PRIu64 "]}%s\n",
			       u.offset, u.bytes, f + 1 < in->n_saved ? "," : "");
		}
		printf("        ]}%s\n", v + 1 < mi->n_variants ? "," : "");
	}
	printf("      ],\n      \"capture\": [");
	for (i = 0; i < n_cap; i++)
		printf(i ? ", %u" : "%u", cgs_manifest_capture(m, ri, i));
	printf("]\n    }%s\n", last ? "" : ",");
}

static void dump_json(const struct cgs_manifest *m)
{
	const struct cgs_manifest_info *in = cgs_manifest_info(m);
	size_t len;
	uint32_t i;

	cgs_manifest_bytes(m, &len);
	printf("{\n  \"format\": {\"major\": %u, \"minor\": %u},\n", in->major,
	       in->minor);
	printf("  \"bytes\": %zu,\n  \"crc32c\": \"%08x\",\n  \"producer\": ",
	       len, stored_crc(m));
	json_string(in->producer);
	printf(",\n  \"schedule_hash\": \"%016" PRIx64 "\",\n  \"name\": ",
	       in->schedule_hash);
	json_string(in->name);
	printf(",\n  \"pp\": %u,\n  \"vpp\": %u,\n  \"group\": %u,\n  \"max_microbatches\": %u,\n  \"slots\": %u,\n  \"alignment\": %" PRIu64 ",\n  \"layers\": [",
	       in->pp, in->vpp, in->group, in->max_microbatches, in->slots,
	       in->alignment);
	for (i = 0; i < in->vpp; i++)
		printf(i ? ", %u" : "%u", cgs_manifest_chunk_layers(m, i));
	printf("],\n  \"layers_total\": %u,\n  \"saved_frames_per_rank\": %u,\n  \"user_grad_frames_per_rank\": %u,\n  \"graphs_per_rank\": %u,\n  \"sections\": [\n",
	       in->layers_total, in->n_saved, in->n_user_grad, in->n_graphs);
	for (i = 0; i < toc_count(m); i++) {
		struct toc_entry t = toc_at(m, i);

		printf("    {\"id\": %u, \"name\": \"%s\", \"optional\": %s, \"offset\": %" PRIu64 ", \"bytes\": %" PRIu64 "}%s\n",
		       t.id, section_name(t.id),
		       t.flags & CGS_MF_FLAG_OPTIONAL ? "true" : "false",
		       t.offset, t.bytes, i + 1 < toc_count(m) ? "," : "");
	}
	printf("  ],\n  \"variants\": [\n");
	for (i = 0; i < in->n_variants; i++) {
		printf("    {\"name\": ");
		json_string(cgs_manifest_variant_name(m, i));
		printf(", \"cp\": %u}%s\n", cgs_manifest_variant_cp(m, i),
		       i + 1 < in->n_variants ? "," : "");
	}
	printf("  ],\n  \"ranks\": [\n");
	for (i = 0; i < in->n_ranks; i++)
		json_rank(m, i, i + 1 == in->n_ranks);
	printf("  ]\n}\n");
}

static int dump_te_plan(const struct cgs_manifest *m, struct cgs_error *err)
{
	struct cgs_report *r = NULL;
	int rc;

	rc = cgs_report_from_manifest(m, &r, err);
	if (rc == 0) {
		rc = cgs_report_print_te_plan(stdout, r);
		if (rc)
			cgs_error_set(err, rc, "cannot print the slot plan");
	}
	cgs_report_destroy(&r);
	return rc;
}

int cgs_cmd_dump(int argc, char **argv)
{
	static const struct option options[] = {
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cgs_error err = {0};
	struct cgs_manifest *m = NULL;
	enum cgs_format format = CGS_FORMAT_TEXT;
	int opt, rc = 0;

	optind = 1;
	while ((opt = cgs_cli_getopt(argc, argv, "f:h", options)) != -1) {
		switch (opt) {
		case 'f':
			rc = cgs_cli_parse_format("dump", optarg,
						  CGS_FORMAT_TEXT | CGS_FORMAT_JSON |
						  CGS_FORMAT_TE_PLAN, &format);
			if (rc)
				return rc;
			break;
		case 'h':
			return cgs_cli_help("dump");
		default:
			return cgs_cli_bad_option("dump", opt, argv);
		}
	}
	if (argc - optind != 1)
		return cgs_cli_usage_error("dump", "expected one MANIFEST, got %d",
					   argc - optind);
	rc = cgs_manifest_open_file(argv[optind], &m, &err);
	if (rc)
		return cgs_cli_report(&err);
	if (format == CGS_FORMAT_TEXT)
		dump_text(m);
	else if (format == CGS_FORMAT_JSON)
		dump_json(m);
	else
		rc = dump_te_plan(m, &err);
	cgs_manifest_close(&m);
	return rc ? cgs_cli_report(&err) : cgs_cli_finish(CGS_EXIT_OK);
}
