/*
 * The slot manifest: CRC-32C, writer/reader round trip over a plan built
 * by hand, determinism, and rejection of every kind of corruption (byte
 * flips, truncations, and targeted edits with the checksum recomputed so
 * the structural checks behind it are reached).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/crc32c.h"
#include "common/error.h"
#include "manifest/format.h"
#include "manifest/manifest.h"
#include "manifest/writer.h"
#include "order/order.h"
#include "plan/plan.h"
#include "testlib.h"

/* ---- a small plan built by hand ---------------------------------- */

enum { FX_PP = 2, FX_VPP = 2, FX_S = 4, FX_V = 2, FX_L = 4, FX_G = 2 };
static uint32_t fx_layers[FX_VPP] = {2, 1};
enum { FX_LT = 3, FX_SAVED = FX_S * FX_LT, FX_UG = FX_VPP * FX_S };

struct fixture {
	struct cgs_schedule sched;
	struct cgs_variant variants[FX_V];
	uint32_t ranks[FX_PP];
	uint32_t layer_base[FX_VPP + 1];
	struct cgs_plan plan;
	struct cgs_rank_plan rp[FX_PP];
};

/* The rank's layer (plan.h's li) that saved frame f is of. */
static uint32_t fx_layer_index(const struct cgs_rank_plan *rp, uint32_t f)
{
	uint32_t c, li = rp->saved[f].layer;

	for (c = 0; c < rp->saved[f].chunk; c++)
		li += fx_layers[c];
	return li;
}

static void fixture_rank(struct cgs_rank_plan *rp, uint32_t rank)
{
	struct cgs_order_params op = {FX_PP, FX_VPP, FX_G, 0, rank};
	uint32_t i, c, s, l, f, u, v, li;
	uint64_t total = 0;

	rp->rank = rank;
	rp->n_reachable = cgs_order_reachable(FX_VPP, FX_G, FX_L, NULL, 0);
	rp->reachable = calloc(rp->n_reachable, sizeof(uint32_t));
	cgs_order_reachable(FX_VPP, FX_G, FX_L, rp->reachable, rp->n_reachable);
	rp->order_start = calloc(rp->n_reachable + 1, sizeof(uint64_t));
	for (i = 0; i < rp->n_reachable; i++) {
		op.microbatches = rp->reachable[i];
		rp->order_start[i] = total;
		total += cgs_order_length(&op);
	}
	rp->order_start[i] = total;
	rp->order_entries = calloc(total, sizeof(int32_t));
	for (i = 0; i < rp->n_reachable; i++) {
		op.microbatches = rp->reachable[i];
		ck_assert_int_eq(cgs_order_generate(&op, rp->order_entries +
							 rp->order_start[i],
						    NULL), 0);
	}

	rp->slots = FX_S;
	rp->n_saved = FX_SAVED;
	rp->saved = calloc(FX_SAVED, sizeof(struct cgs_frame));
	rp->n_user_grad = FX_UG;
	rp->user_grad = calloc(FX_UG, sizeof(struct cgs_frame));
	f = u = 0;
	for (c = 0; c < FX_VPP; c++)
		for (s = 0; s < FX_S; s++) {
			for (l = 0; l < fx_layers[c]; l++, f++)
				rp->saved[f] = (struct cgs_frame){
					c, s, l, f, 0, (uint64_t)f * 1024,
					1024};
			rp->user_grad[u] = (struct cgs_frame){
				c, s, 0, u, 1, (uint64_t)u * 512, 512};
			u++;
		}
	/* role ranges per (variant, layer of the rank): plan.h */
	rp->saved_roles = calloc(FX_V * FX_LT * 3, sizeof(struct cgs_range));
	rp->user_grad_layers = calloc(FX_V * FX_LT, sizeof(struct cgs_range));
	for (v = 0; v < FX_V; v++)
		for (c = 0, li = 0; c < FX_VPP; c++)
			for (l = 0; l < fx_layers[c]; l++, li++) {
				struct cgs_range *r = rp->saved_roles +
						      ((size_t)v * FX_LT + li) * 3;

				r[0] = (struct cgs_range){0, 256};
				r[1] = (struct cgs_range){256, 256};
				r[2] = (struct cgs_range){512, 512 - 256 * v};
				rp->user_grad_layers[v * FX_LT + li] =
					(struct cgs_range){256 * (uint64_t)l, 256};
			}
	rp->n_arenas = 2;
	rp->arenas = calloc(2, sizeof(struct cgs_arena));
	rp->arenas[0] = (struct cgs_arena){CGS_ARENA_SAVED, FX_SAVED * 1024};
	rp->arenas[1] = (struct cgs_arena){CGS_ARENA_USER_GRAD, FX_UG * 512};
	rp->saved_stats = (struct cgs_role_stats){
		.frames = FX_SAVED, .colours = FX_SAVED, .colour_lower_bound = 2,
		.bytes = FX_SAVED * 1024, .lower_bound_bytes = 4096};
	rp->user_grad_stats = (struct cgs_role_stats){
		.frames = FX_UG, .colours = FX_UG, .colour_lower_bound = 2,
		.bytes = FX_UG * 512, .lower_bound_bytes = 1024};
	rp->bytes = FX_SAVED * 1024 + FX_UG * 512;
	rp->lower_bound_bytes = 5120;
	rp->bytes_without_sharing = 2 * rp->bytes;
	rp->bytes_colour_arenas = rp->bytes;
	rp->n_graphs = FX_V * FX_SAVED * 2;
	rp->capture = calloc(rp->n_graphs, sizeof(uint32_t));
	for (i = 0; i < rp->n_graphs; i++)  /* any permutation will do */
		rp->capture[i] = (i * 7 + rank) % rp->n_graphs;
}

/*
 * The report figures a plan's frames and orders imply, computed the slow
 * way (every live group summed at every entry), so the hand-built plans
 * below open under the reader's cross-checks.  Colours are taken as set.
 */
static void fill_figures(const struct cgs_plan *p, struct cgs_rank_plan *rp)
{
	const struct cgs_schedule *s = p->schedule;
	uint32_t S = p->slots, M = s->vpp, o, g, c, l, f;
	uint32_t *fwd = calloc(M, sizeof(*fwd)), *bwd = calloc(M, sizeof(*bwd));
	char *live = calloc((size_t)M * S, 1);
	uint64_t *col = calloc((size_t)rp->n_saved + rp->n_user_grad, 8);
	uint64_t *gb = calloc((size_t)M * S, 8);
	uint32_t *gl = calloc((size_t)M * S, 4);
	uint32_t top_s = 0, top_u = 0, most_live = 0, most_ug = 0;
	uint64_t max_s = 0, max_u = 0, max_all = 0, cs = 0, cu = 0;

	for (f = 0; f < rp->n_saved; f++) {
		gb[rp->saved[f].chunk * S + rp->saved[f].slot] += rp->saved[f].bytes;
		gl[rp->saved[f].chunk * S + rp->saved[f].slot]++;
	}
	for (o = 0; o < rp->n_reachable; o++) {
		uint64_t i, wu_prev = 0, ws = 0;
		uint32_t nl = 0;
		int64_t prev = -1;

		memset(fwd, 0, M * sizeof(*fwd));
		memset(bwd, 0, M * sizeof(*bwd));
		memset(live, 0, (size_t)M * S);
		for (i = rp->order_start[o]; i < rp->order_start[o + 1]; i++) {
			int32_t e = rp->order_entries[i];
			uint64_t wu;
			uint32_t nu;

			c = (uint32_t)(e > 0 ? e : -e) - 1;
			g = c * S + (e > 0 ? fwd[c]++ : bwd[c]++) % S;
			if (e > 0 && !live[g]) {
				live[g] = 1;
				ws += gb[g];
				nl += gl[g];
			}
			wu = wu_prev + (e < 0 ? rp->user_grad[g].bytes : 0);
			nu = (prev >= 0) + (e < 0);
			max_s = ws > max_s ? ws : max_s;
			max_u = wu > max_u ? wu : max_u;
			max_all = ws + wu > max_all ? ws + wu : max_all;
			most_live = nl > most_live ? nl : most_live;
			most_ug = nu > most_ug ? nu : most_ug;
			if (e < 0) {
				live[g] = 0;
				ws -= gb[g];
				nl -= gl[g];
				prev = g;
				wu_prev = rp->user_grad[g].bytes;
			}
		}
	}
	for (f = 0; f < rp->n_saved; f++) {
		l = rp->saved[f].colour;
		top_s = l > top_s ? l : top_s;
		col[l] = rp->saved[f].bytes > col[l] ? rp->saved[f].bytes : col[l];
	}
	for (f = 0; f <= top_s; f++)
		cs += col[f];
	memset(col, 0, ((size_t)rp->n_saved + rp->n_user_grad) * 8);
	for (f = 0; f < rp->n_user_grad; f++) {
		l = rp->user_grad[f].colour;
		top_u = l > top_u ? l : top_u;
		col[l] = rp->user_grad[f].bytes > col[l] ? rp->user_grad[f].bytes : col[l];
	}
	for (f = 0; f <= top_u; f++)
		cu += col[f];
	rp->saved_stats.frames = rp->n_saved;
	rp->saved_stats.colours = top_s + 1;
	rp->saved_stats.colour_lower_bound = most_live;
	rp->saved_stats.lower_bound_bytes = max_s;
	rp->user_grad_stats.frames = rp->n_user_grad;
	rp->user_grad_stats.colours = top_u + 1;
	rp->user_grad_stats.colour_lower_bound = most_ug;
	rp->user_grad_stats.lower_bound_bytes = max_u;
	rp->lower_bound_bytes = max_all;
	rp->bytes_colour_arenas = cs + cu;
	if (rp->bytes_without_sharing < max_all)
		rp->bytes_without_sharing = max_all;
	free(fwd);
	free(bwd);
	free(live);
	free(col);
	free(gb);
	free(gl);
}

static struct fixture *fixture_create(void)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	uint32_t r;

	fx->variants[0] = (struct cgs_variant){.name = "cp1", .cp = 1};
	fx->variants[1] = (struct cgs_variant){.name = "cp2", .cp = 2};
	fx->ranks[0] = 0;
	fx->ranks[1] = 1;
	fx->layer_base[0] = 0;
	fx->layer_base[1] = 2;
	fx->layer_base[2] = 3;
	fx->sched = (struct cgs_schedule){
		.path = "tiny.yaml", .name = "tiny", .pp = FX_PP,
		.vpp = FX_VPP, .layers = fx_layers, .group = FX_G,
		.max_microbatches = FX_L, .ranks = fx->ranks,
		.n_ranks = FX_PP, .alignment = 256,
		.variants = fx->variants, .n_variants = FX_V};
	fx->plan = (struct cgs_plan){&fx->sched, FX_S, fx->layer_base, FX_PP,
				     fx->rp, 0, 0, 0, NULL};
	for (r = 0; r < FX_PP; r++) {
		fixture_rank(&fx->rp[r], r);
		fill_figures(&fx->plan, &fx->rp[r]);
	}
	return fx;
}

static void fixture_destroy(struct fixture *fx)
{
	uint32_t r;

	for (r = 0; r < FX_PP; r++)
		cgs_rank_plan_release(&fx->rp[r]);
	free(fx);
}

static uint8_t *fixture_bytes(size_t *len)
{
	struct fixture *fx = fixture_create();
	struct cgs_error err = {0};
	void *buf = NULL;

	ck_assert_msg(cgs_manifest_write(&fx->plan, 0x0123456789abcdefull,
					 &buf, len, &err) == 0,
		      "write: %s", err.message);
	fixture_destroy(fx);
	return buf;
}

/*
 * Give rank r a map with a row per chunk: microbatch k of chunk c takes
 * slot (k + c) mod S, as safe as k mod S (each chunk keeps its classes)
 * but different for the two chunks.  `same` gives every chunk chunk 0's
 * row instead, (k + 1) mod S.
 */
static void fixture_chunk_slots(struct fixture *fx, uint32_t r, int same)
{
	struct cgs_rank_plan *rp = &fx->rp[r];
	uint32_t i, c, k, width = rp->reachable[rp->n_reachable - 1];

	free(rp->slot_map);
	rp->slot_map_rows = FX_VPP;
	rp->slot_map = calloc((size_t)rp->n_reachable * FX_VPP * width,
			      sizeof(uint32_t));
	for (i = 0; i < rp->n_reachable; i++)
		for (c = 0; c < FX_VPP; c++)
			for (k = 0; k < rp->reachable[i]; k++)
				rp->slot_map[(i * FX_VPP + c) * width + k] =
					(k + (same ? 1 : c)) % FX_S;
}

/* The fixture's bytes with a per-chunk map on every rank (format 2.1). */
static uint8_t *fixture_chunk_bytes(size_t *len)
{
	struct fixture *fx = fixture_create();
	struct cgs_error err = {0};
	void *buf = NULL;
	uint32_t r;

	for (r = 0; r < FX_PP; r++)
		fixture_chunk_slots(fx, r, 0);
	ck_assert_msg(cgs_manifest_write(&fx->plan, 5, &buf, len, &err) == 0,
		      "write: %s", err.message);
	fixture_destroy(fx);
	return buf;
}

/*
 * Format 2.2: the chunk fixture with user-grad frame 0 of every rank in
 * the saved arena (the reader checks where frames lie and the figures,
 * not overlaps: cgslot verify does that).
 */
static uint8_t *fixture_nested_bytes(size_t *len)
{
	struct fixture *fx = fixture_create();
	struct cgs_error err = {0};
	void *buf = NULL;
	uint32_t r;

	for (r = 0; r < FX_PP; r++) {
		fixture_chunk_slots(fx, r, 0);
		fx->plan.ranks[r].user_grad[0].arena = 0;
		fx->plan.ranks[r].user_grad[0].offset = 0;
		fx->plan.ranks[r].n_nested = 1;
	}
	ck_assert_msg(cgs_manifest_write(&fx->plan, 5, &buf, len, &err) == 0,
		      "write: %s", err.message);
	fixture_destroy(fx);
	return buf;
}

/*
 * Format 2.3: rank 1 packed as one (section 16), its user-grad frames
 * above the saved frames in the saved arena, `extra` bytes higher; so
 * the saved arena is above the saved frames' part of the colour arenas,
 * and with extra > 0 the rank above all of it.  Rank 0 keeps its kinds
 * apart.
 */
static uint8_t *fixture_joint_bytes(size_t *len, uint64_t extra)
{
	struct fixture *fx = fixture_create();
	struct cgs_rank_plan *rp = &fx->rp[1];
	struct cgs_error err = {0};
	void *buf = NULL;
	uint64_t top = rp->saved_stats.bytes;
	uint32_t u;

	for (u = 0; u < rp->n_user_grad; u++) {
		rp->user_grad[u].arena = 0;
		rp->user_grad[u].offset = top + extra + (uint64_t)u * 512;
	}
	rp->arenas[0].bytes = rp->saved_stats.bytes =
		top + extra + (uint64_t)rp->n_user_grad * 512;
	rp->arenas[1].bytes = rp->user_grad_stats.bytes = 0;
	rp->bytes = rp->arenas[0].bytes;
	rp->n_nested = rp->n_user_grad;
	rp->joint = 1;
	ck_assert_msg(cgs_manifest_write(&fx->plan, 5, &buf, len, &err) == 0,
		      "write: %s", err.message);
	fixture_destroy(fx);
	return buf;
}

/* ---- helpers over raw bytes ------------------------------------- */

static void fix_crc(uint8_t *b, size_t len)
{
	cgs_put_le32(b + len - 4, cgs_crc32c(0, b, len - 4));
}

/* Offset of section `id`'s payload, from the table of contents. */
static size_t section(const uint8_t *b, uint32_t id, uint64_t *bytes)
{
	uint32_t n = cgs_get_le32(b + 16), i;

	for (i = 0; i < n; i++) {
		const uint8_t *e = b + CGS_MF_HEADER_BYTES +
				   (size_t)i * CGS_MF_TOC_ENTRY_BYTES;

		if (cgs_get_le32(e) == id) {
			if (bytes)
				*bytes = cgs_get_le64(e + 16);
			return (size_t)cgs_get_le64(e + 8);
		}
	}
	ck_abort_msg("section %u not found", id);
	return 0;
}

/* Touch every accessor, so ASan sees any read a bad index would cause. */
static uint64_t walk(const struct cgs_manifest *m)
{
	const struct cgs_manifest_info *in = cgs_manifest_info(m);
	uint64_t sum = in->schedule_hash + strlen(in->name) +
		       strlen(in->producer), k, n;
	uint32_t ri, i, v, f, r;

	for (i = 0; i <= in->vpp; i++)
		sum += cgs_manifest_chunk_layers(m, i) +
		       cgs_manifest_layer_base(m, i);
	for (v = 0; v < in->n_variants; v++)
		sum += strlen(cgs_manifest_variant_name(m, v)) +
		       cgs_manifest_variant_cp(m, v);
	for (ri = 0; ri < in->n_ranks; ri++) {
		struct cgs_manifest_rank_stats st =
			cgs_manifest_rank_stats(m, ri);

		sum += cgs_manifest_rank_id(m, ri) + st.bytes;
		for (i = 0; i < cgs_manifest_reachable_count(m, ri); i++) {
			n = cgs_manifest_order_length(m, ri, i);
			for (k = 0; k < n; k++)
				sum += (uint64_t)cgs_manifest_order_entry(m, ri, i, k);
			for (v = 0; v <= in->vpp; v++)
				for (k = 0; k <= cgs_manifest_reachable(m, ri, i); k++)
					sum += cgs_manifest_slot(m, ri, i, v,
								 (uint32_t)k);
		}
		for (i = 0; i < cgs_manifest_arena_count(m, ri); i++)
			sum += cgs_manifest_arena(m, ri, i).bytes;
		for (f = 0; f < in->n_saved; f++)
			sum += cgs_manifest_saved_frame(m, ri, f).offset;
		for (f = 0; f < in->n_user_grad; f++)
			sum += cgs_manifest_user_grad_frame(m, ri, f).offset;
		for (v = 0; v < in->n_variants; v++)
			for (f = 0; f < in->n_saved; f++) {
				for (r = 0; r < 3; r++)
					sum += cgs_manifest_saved_role(m, ri, v, f, r).bytes;
				sum += cgs_manifest_user_grad_layer(m, ri, v, f).bytes;
			}
		for (i = 0; i < cgs_manifest_capture_count(m, ri); i++)
			sum += cgs_manifest_capture(m, ri, i);
	}
	return sum;
}

/* Open must fail with `code` and a message containing `needle`. */
static void expect_reject(const uint8_t *b, size_t len, int code,
			  const char *needle)
{
	struct cgs_error err = {0};
	struct cgs_manifest *m = NULL;
	int rc = cgs_manifest_open_buffer(b, len, &m, &err);

	ck_assert_msg(rc == code, "got %s (%s), want %s", cgs_status_name(rc),
		      err.message, cgs_status_name(code));
	ck_assert_ptr_null(m);
	ck_assert_int_eq(err.code, code);
	ck_assert_msg(strstr(err.message, needle),
		      "message '%s' lacks '%s'", err.message, needle);
}

/* ---- tests ------------------------------------------------------- */

START_TEST(crc32c_vectors)
{
	uint8_t zeros[32] = {0}, ones[32], inc[32];
	int i;

	memset(ones, 0xff, sizeof(ones));
	for (i = 0; i < 32; i++)
		inc[i] = (uint8_t)i;
	/* RFC 3720, appendix B.4. */
	ck_assert_uint_eq(cgs_crc32c(0, "123456789", 9), 0xE3069283u);
	ck_assert_uint_eq(cgs_crc32c(0, zeros, 32), 0x8A9136AAu);
	ck_assert_uint_eq(cgs_crc32c(0, ones, 32), 0x62A8AB43u);
	ck_assert_uint_eq(cgs_crc32c(0, inc, 32), 0x46DD794Eu);
	ck_assert_uint_eq(cgs_crc32c(0, "", 0), 0);
	/* Chaining at every split point gives the same value. */
	for (i = 0; i <= 32; i++)
		ck_assert_uint_eq(cgs_crc32c(cgs_crc32c(0, inc, (size_t)i),
					     inc + i, (size_t)(32 - i)),
				  0x46DD794Eu);
	/* The table-only path agrees on the vectors too. */
	ck_assert_uint_eq(cgs_crc32c_portable(0, "123456789", 9), 0xE3069283u);
	ck_assert_uint_eq(cgs_crc32c_portable(0, inc, 32), 0x46DD794Eu);
}
END_TEST

/* The instruction path and the table path agree at every length and
 * alignment, and on chained calls. */
START_TEST(crc32c_paths_agree)
{
	static uint8_t buf[4096 + 16];
	uint32_t x = 12345, i, off, len;

	for (i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (off = 0; off < 16; off++)
		for (len = 0; len <= 4096; len += len < 64 ? 1 : 61)
			ck_assert_uint_eq(cgs_crc32c(0x1234u, buf + off, len),
					  cgs_crc32c_portable(0x1234u, buf + off,
							      len));
}
END_TEST

START_TEST(round_trip)
{
	struct fixture *fx = fixture_create();
	struct cgs_error err = {0};
	struct cgs_manifest *m = NULL;
	const struct cgs_manifest_info *in;
	void *buf;
	size_t len;
	uint32_t ri, i, v, f, r, var, fr, dir;
	uint64_t k;
	unsigned width;
	int32_t *dec;

	ck_assert_int_eq(cgs_manifest_write(&fx->plan, 42, &buf, &len, &err), 0);
	ck_assert_uint_eq(len % 8, 0);
	ck_assert_msg(cgs_manifest_open_buffer(buf, len, &m, &err) == 0, "%s", err.message);
	in = cgs_manifest_info(m);
	ck_assert_uint_eq(in->major, CGS_MANIFEST_MAJOR);
	/* no map differs between chunks: format 2.0, as before 2.1 */
	ck_assert_uint_eq(in->minor, 0);
	ck_assert_uint_eq(cgs_get_le32((uint8_t *)buf + 16), 13);
	ck_assert_str_eq(in->name, "tiny");
	ck_assert_uint_eq(in->schedule_hash, 42);
	ck_assert_uint_eq(in->pp, FX_PP);
	ck_assert_uint_eq(in->vpp, FX_VPP);
	ck_assert_uint_eq(in->group, FX_G);
	ck_assert_uint_eq(in->max_microbatches, FX_L);
	ck_assert_uint_eq(in->slots, FX_S);
	ck_assert_uint_eq(in->alignment, 256);
	ck_assert_uint_eq(in->layers_total, FX_LT);
	ck_assert_uint_eq(in->n_saved, FX_SAVED);
	ck_assert_uint_eq(in->n_user_grad, FX_UG);
	ck_assert_uint_eq(in->n_graphs, FX_V * FX_SAVED * 2);
	ck_assert_uint_eq(cgs_manifest_chunk_layers(m, 0), 2);
	ck_assert_uint_eq(cgs_manifest_chunk_layers(m, 1), 1);
	ck_assert_uint_eq(cgs_manifest_layer_base(m, 2), 3);
	ck_assert_str_eq(cgs_manifest_variant_name(m, 1), "cp2");
	ck_assert_uint_eq(cgs_manifest_variant_cp(m, 1), 2);
	ck_assert_str_eq(cgs_manifest_variant_name(m, 2), "");

	for (ri = 0; ri < FX_PP; ri++) {
		const struct cgs_rank_plan *rp = &fx->rp[ri];
		struct cgs_manifest_rank_stats st = cgs_manifest_rank_stats(m, ri);

		ck_assert_uint_eq(cgs_manifest_rank_id(m, ri), rp->rank);
		ck_assert_uint_eq(cgs_manifest_reachable_count(m, ri),
				  rp->n_reachable);
		for (i = 0; i < rp->n_reachable; i++) {
			ck_assert_uint_eq(cgs_manifest_reachable(m, ri, i),
					  rp->reachable[i]);
			k = cgs_manifest_order_length(m, ri, i);
			ck_assert_uint_eq(k, rp->order_start[i + 1] -
						     rp->order_start[i]);
			dec = calloc(k, sizeof(*dec));
			cgs_manifest_order_decode(m, ri, i, dec);
			ck_assert_ptr_nonnull(cgs_manifest_order_raw(m, ri, i,
								     &width));
			ck_assert_uint_eq(width, 1);
			while (k--) {
				ck_assert_int_eq(dec[k],
					rp->order_entries[rp->order_start[i] + k]);
				ck_assert_int_eq(cgs_manifest_order_entry(m, ri, i, k),
						 dec[k]);
			}
			free(dec);
		}
		ck_assert_uint_eq(cgs_manifest_arena_count(m, ri), 2);
		ck_assert_uint_eq(cgs_manifest_arena(m, ri, 1).role,
				  CGS_MANIFEST_ARENA_USER_GRAD);
		ck_assert_uint_eq(cgs_manifest_arena(m, ri, 1).bytes, FX_UG * 512);
		ck_assert_uint_eq(cgs_manifest_arena(m, ri, 1).alignment, 256);
		for (f = 0; f < FX_SAVED; f++) {
			struct cgs_manifest_frame a = cgs_manifest_saved_frame(m, ri, f);

			ck_assert_uint_eq(a.chunk, rp->saved[f].chunk);
			ck_assert_uint_eq(a.slot, rp->saved[f].slot);
			ck_assert_uint_eq(a.layer, rp->saved[f].layer);
			ck_assert_uint_eq(a.colour, rp->saved[f].colour);
			ck_assert_uint_eq(a.arena, rp->saved[f].arena);
			ck_assert_uint_eq(a.offset, rp->saved[f].offset);
			ck_assert_uint_eq(a.bytes, rp->saved[f].bytes);
			ck_assert_uint_eq(f, cgs_manifest_layer_base(m, a.chunk) * FX_S +
					     a.slot * cgs_manifest_chunk_layers(m, a.chunk) +
					     a.layer);
		}
		for (f = 0; f < FX_UG; f++) {
			struct cgs_manifest_frame a =
				cgs_manifest_user_grad_frame(m, ri, f);

			ck_assert_uint_eq(a.chunk * FX_S + a.slot, f);
			ck_assert_uint_eq(a.offset, rp->user_grad[f].offset);
			ck_assert_uint_eq(a.arena, 1);
		}
		for (v = 0; v < FX_V; v++)
			for (f = 0; f < FX_SAVED; f++) {
				for (r = 0; r < 3; r++) {
					struct cgs_manifest_range a =
						cgs_manifest_saved_role(m, ri, v, f, r);
					const struct cgs_range *b =
						&rp->saved_roles[(v * FX_LT + fx_layer_index(rp, f)) * 3 + r];

					ck_assert_uint_eq(a.offset, b->offset);
					ck_assert_uint_eq(a.bytes, b->bytes);
				}
				ck_assert_uint_eq(cgs_manifest_user_grad_layer(m, ri, v, f).offset,
						  rp->user_grad_layers[v * FX_LT + fx_layer_index(rp, f)].offset);
			}
		ck_assert_uint_eq(cgs_manifest_capture_count(m, ri), rp->n_graphs);
		for (i = 0; i < rp->n_graphs; i++)
			ck_assert_uint_eq(cgs_manifest_capture(m, ri, i),
					  rp->capture[i]);
		ck_assert_uint_eq(st.saved.frames, FX_SAVED);
		ck_assert_uint_eq(st.saved.colour_lower_bound,
				  rp->saved_stats.colour_lower_bound);
		ck_assert_uint_eq(st.saved.lower_bound_bytes,
				  rp->saved_stats.lower_bound_bytes);
		ck_assert_uint_eq(st.user_grad.bytes, FX_UG * 512);
		ck_assert_uint_eq(st.bytes, rp->bytes);
		ck_assert_uint_eq(st.lower_bound_bytes, rp->lower_bound_bytes);
		ck_assert_uint_eq(st.bytes_without_sharing, 2 * rp->bytes);
		ck_assert_uint_eq(st.bytes_colour_arenas, rp->bytes);
	}
	/* Graph index (v, f, d) = (v * n_saved + f) * 2 + d. */
	cgs_manifest_graph_split(m, 0, (1 * FX_SAVED + 4) * 2 + 1, &var, &fr, &dir);
	ck_assert_uint_eq(var, 1);
	ck_assert_uint_eq(fr, 4);
	ck_assert_uint_eq(dir, 1);

	/* Out-of-range indices give zeros, never a read past the data. */
	ck_assert_uint_eq(cgs_manifest_rank_id(m, FX_PP), 0);
	ck_assert_uint_eq(cgs_manifest_saved_frame(m, 0, FX_SAVED).bytes, 0);
	ck_assert_uint_eq(cgs_manifest_order_entry(m, 0, 0, 1u << 30), 0);
	ck_assert_uint_eq(cgs_manifest_capture(m, 0, 1000), 0);
	ck_assert_uint_eq(cgs_manifest_arena(m, 0, 2).bytes, 0);

	cgs_manifest_close(&m);
	ck_assert_ptr_null(m);
	cgs_manifest_close(&m);
	cgs_manifest_close(NULL);
	free(buf);
	fixture_destroy(fx);
}
END_TEST

START_TEST(find_rank_and_count)
{
	struct cgs_error err = {0};
	struct cgs_manifest *m = NULL;
	uint8_t *b;
	size_t len;
	uint32_t ri = 99, i = 99;

	b = fixture_bytes(&len);
	ck_assert_int_eq(cgs_manifest_open_buffer(b, len, &m, NULL), 0);
	ck_assert_int_eq(cgs_manifest_find_rank(m, 1, &ri, NULL), 0);
	ck_assert_uint_eq(ri, 1);
	ck_assert_int_eq(cgs_manifest_find_rank(m, 5, &ri, &err), CGS_E_RANK);
	ck_assert_ptr_nonnull(strstr(err.message, "rank 5"));
	ck_assert_ptr_nonnull(strstr(err.message, "0, 1"));
	ck_assert_int_eq(cgs_manifest_find_reachable(m, 0, 4, &i, NULL), 0);
	ck_assert_uint_eq(i, 1);
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_manifest_find_reachable(m, 0, 3, &i, &err),
			 CGS_E_UNREACHABLE);
	ck_assert_ptr_nonnull(strstr(err.message, "microbatch count 3"));
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_manifest_find_reachable(m, 0, 5, &i, &err),
			 CGS_E_UNREACHABLE);
	ck_assert_ptr_nonnull(strstr(err.message, "maximum 4"));
	cgs_manifest_close(&m);
	free(b);
}
END_TEST

START_TEST(deterministic)
{
	uint8_t *a, *b;
	size_t la, lb;

	a = fixture_bytes(&la);
	b = fixture_bytes(&lb);
	ck_assert_uint_eq(la, lb);
	ck_assert_int_eq(memcmp(a, b, la), 0);
	free(a);
	free(b);
}
END_TEST

/* Every single-byte change is caught by the checksum; with the checksum
 * recomputed, the structural checks reject or the result is still safe
 * to walk. */
static void flips(uint8_t *b, size_t len)
{
	static const uint8_t patterns[] = {0x01, 0x80, 0xff, 0x10};
	struct cgs_manifest *m;
	unsigned long rejected = 0, accepted = 0;
	uint8_t *c;
	size_t i, p;
	int rc;

	c = malloc(len);
	for (p = 0; p < sizeof(patterns); p++) {
		for (i = 0; i < len; i++) {
			memcpy(c, b, len);
			c[i] ^= patterns[p];
			m = NULL;
			rc = cgs_manifest_open_buffer(c, len, &m, NULL);
			ck_assert_msg(rc != 0, "flip %#x at %zu accepted",
				      patterns[p], i);
			if (i >= len - 4)
				continue;  /* the checksum field itself */
			fix_crc(c, len);
			rc = cgs_manifest_open_buffer(c, len, &m, NULL);
			if (rc == 0) {
				accepted++;
				walk(m);
				cgs_manifest_close(&m);
			} else {
				ck_assert_ptr_null(m);
				ck_assert_msg(rc != CGS_E_NOMEM,
					      "flip %#x at %zu ran out of memory",
					      patterns[p], i);
				rejected++;
			}
		}
	}
	/* The header, table of contents and meta block leave no byte free
	 * except the minor version (a newer minor still loads), the schedule
	 * hash, and pp, group and L, which only bound other fields. */
	for (i = 0; i < section(b, CGS_MF_META, NULL) + CGS_MF_META_FIXED_BYTES;
	     i++) {
		size_t meta = section(b, CGS_MF_META, NULL);

		if ((i >= meta + CGS_MF_META_HASH &&
		     i < meta + CGS_MF_META_HASH + 8) || i == 10 || i == 11 ||
		    (i >= meta + CGS_MF_META_PP && i < meta + CGS_MF_META_PP + 4) ||
		    (i >= meta + CGS_MF_META_GROUP &&
		     i < meta + CGS_MF_META_MAX_MB + 4))
			continue;
		memcpy(c, b, len);
		c[i] ^= 0x80;
		fix_crc(c, len);
		m = NULL;
		ck_assert_msg(cgs_manifest_open_buffer(c, len, &m, NULL) != 0,
			      "flip of byte %zu (header/toc/meta) accepted", i);
	}
	ck_assert_uint_gt(rejected, accepted);
	free(c);
	free(b);
}

START_TEST(byte_flips)
{
	size_t len;
	uint8_t *b = fixture_bytes(&len);

	flips(b, len);
	/* format 2.1, with section 14 */
	b = fixture_chunk_bytes(&len);
	flips(b, len);
	/* format 2.2, with section 15 */
	b = fixture_nested_bytes(&len);
	flips(b, len);
}
END_TEST

/*
 * Under an address-space limit of 64 MiB beyond what the process has, no
 * corruption may make the reader allocate beyond it: every allocation is
 * bounded by the (small) input.  Sanitizers reserve huge shadow mappings,
 * so the limit only applies in plain builds.
 */
#if defined(__SANITIZE_ADDRESS__)
#define CGS_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CGS_TEST_ASAN 1
#endif
#endif

START_TEST(bounded_memory)
{
#ifndef CGS_TEST_ASAN
	struct rlimit old, lim;
	unsigned long pages = 0;
	uint8_t *b, *c;
	size_t len, i;
	FILE *f = fopen("/proc/self/statm", "r");
	struct cgs_manifest *m;
	int rc;

	if (!f || fscanf(f, "%lu", &pages) != 1)
		ck_abort_msg("cannot read /proc/self/statm");
	fclose(f);
	b = fixture_bytes(&len);
	c = malloc(len);
	ck_assert_int_eq(getrlimit(RLIMIT_AS, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) +
		       ((rlim_t)64 << 20);
	ck_assert_int_eq(setrlimit(RLIMIT_AS, &lim), 0);
	for (i = 0; i + 4 < len; i++) {
		memcpy(c, b, len);
		c[i] = 0xff;  /* the largest counts a byte can make */
		fix_crc(c, len);
		m = NULL;
		rc = cgs_manifest_open_buffer(c, len, &m, NULL);
		cgs_manifest_close(&m);
		ck_assert_msg(rc != CGS_E_NOMEM, "0xff at %zu ran out of memory", i);
	}
	ck_assert_int_eq(setrlimit(RLIMIT_AS, &old), 0);
	free(c);
	free(b);
#endif
}
END_TEST

START_TEST(truncations)
{
	struct cgs_manifest *m;
	uint8_t *b, *c;
	size_t len, n;
	int rc;

	b = fixture_bytes(&len);
	c = malloc(len);
	for (n = 0; n < len; n++) {
		/* A copy of exactly n bytes, so ASan sees any over-read. */
		uint8_t *t = malloc(n ? n : 1);

		memcpy(t, b, n);
		m = NULL;
		rc = cgs_manifest_open_buffer(t, n, &m, NULL);
		ck_assert_msg(rc == CGS_E_FORMAT, "truncation to %zu: %d", n, rc);
		/* Now pretend the short file is whole: fix length and CRC. */
		if (n >= CGS_MF_HEADER_BYTES + CGS_MF_TRAILER_BYTES) {
			cgs_put_le64(t + 24, n);
			fix_crc(t, n);
			rc = cgs_manifest_open_buffer(t, n, &m, NULL);
			ck_assert_msg(rc == CGS_E_FORMAT,
				      "fixed-up truncation to %zu: %d", n, rc);
		}
		free(t);
	}
	/* One extra byte, or eight zero bytes appended, is also refused. */
	c = realloc(c, len + 8);
	memcpy(c, b, len);
	memset(c + len, 0, 8);
	expect_reject(c, len + 1, CGS_E_FORMAT, "longer than recorded");
	cgs_put_le64(c + 24, len + 8);
	fix_crc(c, len + 8);
	expect_reject(c, len + 8, CGS_E_FORMAT, "");
	free(c);
	free(b);
}
END_TEST

/* Apply `edit`, recompute the checksum, expect a rejection. */
#define EDIT_REJECT(code, needle, ...)                                      \
	do {                                                                \
		memcpy(c, b, len);                                          \
		__VA_ARGS__;                                                \
		fix_crc(c, len);                                            \
		expect_reject(c, len, code, needle);                        \
	} while (0)

START_TEST(targeted_edits)
{
	uint8_t *b, *c;
	size_t len, meta, strs, ranks, reach, orders, arenas, sf, uf, sr, ul,
		cap, var;
	uint64_t strs_len;

	b = fixture_bytes(&len);
	c = malloc(len);
	meta = section(b, CGS_MF_META, NULL);
	strs = section(b, CGS_MF_STRINGS, &strs_len);
	var = section(b, CGS_MF_VARIANTS, NULL);
	ranks = section(b, CGS_MF_RANKS, NULL);
	reach = section(b, CGS_MF_REACHABLE, NULL);
	orders = section(b, CGS_MF_ORDERS, NULL);
	arenas = section(b, CGS_MF_ARENAS, NULL);
	sf = section(b, CGS_MF_SAVED_FRAMES, NULL);
	uf = section(b, CGS_MF_USER_GRAD_FRAMES, NULL);
	sr = section(b, CGS_MF_SAVED_ROLES, NULL);
	ul = section(b, CGS_MF_USER_GRAD_LAYERS, NULL);
	cap = section(b, CGS_MF_CAPTURE, NULL);

	/* Header. */
	EDIT_REJECT(CGS_E_FORMAT, "not a cgslot manifest", c[0] = 'X');
	EDIT_REJECT(CGS_E_VERSION, "newer", cgs_put_le16(c + 8, 3));
	EDIT_REJECT(CGS_E_FORMAT, "major version 0", cgs_put_le16(c + 8, 0));
	EDIT_REJECT(CGS_E_FORMAT, "reserved header", c[20] = 1);
	EDIT_REJECT(CGS_E_FORMAT, "header size", c[12] = 40);
	EDIT_REJECT(CGS_E_FORMAT, "reserved trailer", c[len - 8] = 1);
	EDIT_REJECT(CGS_E_FORMAT, "room for at most",
		    cgs_put_le32(c + 16, 0x10000000));
	/* Table of contents. */
	EDIT_REJECT(CGS_E_FORMAT, "must start at",
		    cgs_put_le64(c + CGS_MF_HEADER_BYTES + 8, meta + 8));
	EDIT_REJECT(CGS_E_FORMAT, "runs past the end",
		    cgs_put_le64(c + CGS_MF_HEADER_BYTES + 16, 1ull << 62));
	EDIT_REJECT(CGS_E_FORMAT, "ids must ascend",
		    cgs_put_le32(c + CGS_MF_HEADER_BYTES + 24, 1));
	EDIT_REJECT(CGS_E_FORMAT, "reserved flag bits",
		    cgs_put_le32(c + CGS_MF_HEADER_BYTES + 4, 2));
	EDIT_REJECT(CGS_E_FORMAT, "unknown and not marked optional",
		    cgs_put_le32(c + CGS_MF_HEADER_BYTES + 11 * 24, 99));
	EDIT_REJECT(CGS_E_VERSION, "newer cgslot",
		    cgs_put_le16(c + 10, CGS_MANIFEST_MINOR + 1);
		    cgs_put_le32(c + CGS_MF_HEADER_BYTES + 11 * 24, 99));
	EDIT_REJECT(CGS_E_FORMAT, "padding after the payload is not zero",
		    c[strs + strs_len] = 1);
	/* Meta. */
	EDIT_REJECT(CGS_E_FORMAT, "saved frames per rank",
		    cgs_put_le32(c + meta + CGS_MF_META_SLOTS, 0x80000000u));
	EDIT_REJECT(CGS_E_FORMAT, "graphs per rank",
		    cgs_put_le32(c + meta + CGS_MF_META_VARIANTS, 0x40000000u));
	EDIT_REJECT(CGS_E_FORMAT, "slots is 0",
		    cgs_put_le32(c + meta + CGS_MF_META_SLOTS, 0));
	EDIT_REJECT(CGS_E_FORMAT, "not a power of two",
		    cgs_put_le64(c + meta + CGS_MF_META_ALIGNMENT, 96));
	EDIT_REJECT(CGS_E_FORMAT, "layers_total",
		    cgs_put_le32(c + meta + CGS_MF_META_LAYERS_TOTAL, 4));
	EDIT_REJECT(CGS_E_FORMAT, "order entry size",
		    cgs_put_le32(c + meta + CGS_MF_META_ENTRY_BYTES, 4));
	EDIT_REJECT(CGS_E_FORMAT, "meta: reserved",
		    c[meta + CGS_MF_META_RESERVED] = 1);
	EDIT_REJECT(CGS_E_FORMAT, "2 ranks planned but pp is 1",
		    cgs_put_le32(c + meta + CGS_MF_META_PP, 1));
	EDIT_REJECT(CGS_E_FORMAT, "holds",
		    cgs_put_le32(c + meta + CGS_MF_META_VPP, 3));
	EDIT_REJECT(CGS_E_FORMAT, "chunk 1 has 0 layers",
		    cgs_put_le32(c + meta + CGS_MF_META_FIXED_BYTES + 4, 0));
	/* Strings and variants. */
	EDIT_REJECT(CGS_E_FORMAT, "does not start a string",
		    cgs_put_le32(c + meta + CGS_MF_META_PRODUCER, 2));
	EDIT_REJECT(CGS_E_FORMAT, "string offset 4096",
		    cgs_put_le32(c + var, 4096));
	EDIT_REJECT(CGS_E_FORMAT, "end with a NUL",
		    c[strs + strs_len - 1] = 'x');
	EDIT_REJECT(CGS_E_FORMAT, "cp is 0", cgs_put_le32(c + var + 4, 0));
	EDIT_REJECT(CGS_E_FORMAT, "name: string at offset 0 is not UTF-8",
		    c[strs + 1] = '\n');
	EDIT_REJECT(CGS_E_FORMAT, "not UTF-8", c[strs + 1] = 0xff);
	EDIT_REJECT(CGS_E_FORMAT, "not UTF-8",  /* overlong '/' */
		    c[strs + 1] = 0xc0; c[strs + 2] = 0xaf);
	EDIT_REJECT(CGS_E_FORMAT, "not UTF-8",  /* a surrogate */
		    c[strs] = 0xed; c[strs + 1] = 0xa0; c[strs + 2] = 0x80);
	/* Ranks. */
	EDIT_REJECT(CGS_E_FORMAT, "ranks must ascend",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_ENTRY_BYTES, 0));
	EDIT_REJECT(CGS_E_FORMAT, "out of range; pp is 2",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_ENTRY_BYTES, 7));
	EDIT_REJECT(CGS_E_FORMAT, "must continue",
		    cgs_put_le64(c + ranks + CGS_MF_RANK_ENTRY_BYTES +
					 CGS_MF_RANK_ARENA_FIRST, 0));
	EDIT_REJECT(CGS_E_FORMAT, "arenas of 24 bytes",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_ENTRY_BYTES +
					 CGS_MF_RANK_ARENAS, 0xffffffffu));
	EDIT_REJECT(CGS_E_FORMAT, "colour lower bound",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_SAVED_STATS +
					 CGS_MF_STATS_COLOUR_LB, 100));
	EDIT_REJECT(CGS_E_FORMAT, "differ from its arenas",
		    cgs_put_le64(c + ranks + CGS_MF_RANK_BYTES, 1));
	/* Format 2: each rank's ring, flags and first indices. */
	EDIT_REJECT(CGS_E_FORMAT, "rank 0: its ring has 0 slots; accepted: 1..4",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_SLOTS, 0));
	EDIT_REJECT(CGS_E_FORMAT, "rank 1: its ring has 5 slots; accepted: 1..4",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_ENTRY_BYTES +
					 CGS_MF_RANK_SLOTS, 5));
	EDIT_REJECT(CGS_E_FORMAT, "meta: slots is 5; it must be the largest ring of a rank, 4",
		    cgs_put_le32(c + meta + CGS_MF_META_SLOTS, 5));
	EDIT_REJECT(CGS_E_FORMAT, "rank 0: reserved flag bits set (flags 0x2)",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_FLAGS, 2));
	EDIT_REJECT(CGS_E_FORMAT, "rank 1: first saved/user-grad frame is 0/8",
		    cgs_put_le64(c + ranks + CGS_MF_RANK_ENTRY_BYTES +
					 CGS_MF_RANK_SAVED_FIRST, 0));
	EDIT_REJECT(CGS_E_FORMAT, "rank 1: first slot map entry is 3",
		    cgs_put_le64(c + ranks + CGS_MF_RANK_ENTRY_BYTES +
					 CGS_MF_RANK_SLOT_MAP_FIRST, 3));
	/* a map announced but not stored: section 13 is empty */
	EDIT_REJECT(CGS_E_FORMAT, "slot map entries",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_ENTRY_BYTES +
					 CGS_MF_RANK_FLAGS, 1));
	/* a smaller ring for rank 1 leaves its frames' count wrong */
	EDIT_REJECT(CGS_E_FORMAT, "rank 1: n_capture is 48; each of the 36 graphs is captured once",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_ENTRY_BYTES +
					 CGS_MF_RANK_SLOTS, 3));
	/* Figures against the frames and orders. */
	EDIT_REJECT(CGS_E_FORMAT, "saved figures count 7 frames; the rank has 12",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_SAVED_STATS +
					 CGS_MF_STATS_FRAMES, 7));
	EDIT_REJECT(CGS_E_FORMAT, "user-grad figures count 9 frames; the rank has 8",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_USER_GRAD_STATS +
					 CGS_MF_STATS_FRAMES, 9));
	EDIT_REJECT(CGS_E_FORMAT, "saved figures use 4294967295 colours",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_SAVED_STATS +
					 CGS_MF_STATS_COLOURS, 0xffffffffu));
	EDIT_REJECT(CGS_E_FORMAT, "user-grad figures use 0 colours",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_USER_GRAD_STATS +
					 CGS_MF_STATS_COLOURS, 0));
	EDIT_REJECT(CGS_E_FORMAT, "saved figures say 12 colours; the frames use colours 0..10",
		    cgs_put_le32(c + sf + 11 * CGS_MF_FRAME_BYTES +
					 CGS_MF_FRAME_COLOUR, 0));
	EDIT_REJECT(CGS_E_FORMAT, "rank 0: saved colour_lower_bound is 1; it must be at least the largest live set",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_SAVED_STATS +
					 CGS_MF_STATS_COLOUR_LB, 1));
	EDIT_REJECT(CGS_E_FORMAT, "rank 1: lower_bound_bytes is 1;",
		    cgs_put_le64(c + ranks + CGS_MF_RANK_ENTRY_BYTES +
					 CGS_MF_RANK_LOWER_BOUND, 1));
	EDIT_REJECT(CGS_E_FORMAT, "rank 0: saved lower_bound_bytes is 0;",
		    cgs_put_le64(c + ranks + CGS_MF_RANK_SAVED_STATS +
					 CGS_MF_STATS_LOWER_BOUND, 0));
	EDIT_REJECT(CGS_E_FORMAT, "rank 0: user-grad lower_bound_bytes is 99999;",
		    cgs_put_le64(c + ranks + CGS_MF_RANK_USER_GRAD_STATS +
					 CGS_MF_STATS_LOWER_BOUND, 99999));
	EDIT_REJECT(CGS_E_FORMAT, "rank 0: bytes_colour_arenas is 1;",
		    cgs_put_le64(c + ranks + CGS_MF_RANK_COLOUR_ARENAS, 1));
	EDIT_REJECT(CGS_E_FORMAT, "bytes_without_sharing 9223372036854775808 exceeds 2^63-1",
		    cgs_put_le64(c + ranks + CGS_MF_RANK_WITHOUT_SHARING,
				 1ull << 63));
	EDIT_REJECT(CGS_E_FORMAT, "rank 0: bytes_without_sharing is 1;",
		    cgs_put_le64(c + ranks + CGS_MF_RANK_WITHOUT_SHARING, 1));
	EDIT_REJECT(CGS_E_FORMAT, "each of the 48 graphs is captured once",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_CAPTURE, 47));
	EDIT_REJECT(CGS_E_FORMAT, "max_microbatches 5 is not a multiple of the microbatch group 2",
		    cgs_put_le32(c + meta + CGS_MF_META_MAX_MB, 5));
	/* Reachable counts and orders. */
	EDIT_REJECT(CGS_E_FORMAT, "outside 1..4", cgs_put_le32(c + reach, 5));
	EDIT_REJECT(CGS_E_FORMAT, "out of order",
		    cgs_put_le32(c + reach + CGS_MF_REACHABLE_BYTES, 2));
	EDIT_REJECT(CGS_E_FORMAT, "must start at",
		    cgs_put_le64(c + reach + 8, 1));
	EDIT_REJECT(CGS_E_FORMAT, "order entry 0 is 3", c[orders] = 3);
	EDIT_REJECT(CGS_E_FORMAT, "order entry 0 is 0", c[orders] = 0);
	EDIT_REJECT(CGS_E_FORMAT, "no pending forward",
		    c[orders] = (uint8_t)-1);
	EDIT_REJECT(CGS_E_FORMAT, "only 2 microbatches",
		    c[orders + 7] = 1);
	/* Arenas and frames. */
	EDIT_REJECT(CGS_E_FORMAT, "role 2 is unknown", c[arenas] = 2);
	EDIT_REJECT(CGS_E_FORMAT, "alignment 512 differs",
		    cgs_put_le64(c + arenas + 16, 512));
	EDIT_REJECT(CGS_E_FORMAT, "arena 0: reserved", c[arenas + 4] = 1);
	EDIT_REJECT(CGS_E_FORMAT, "arena 2 is out of range",
		    cgs_put_le32(c + sf + CGS_MF_FRAME_ARENA, 2));
	EDIT_REJECT(CGS_E_FORMAT, "which holds user-grad frames",
		    cgs_put_le32(c + sf + CGS_MF_FRAME_ARENA, 1));
	EDIT_REJECT(CGS_E_FORMAT, "end past arena 0",
		    cgs_put_le64(c + sf + CGS_MF_FRAME_OFFSET, FX_SAVED * 1024));
	EDIT_REJECT(CGS_E_FORMAT, "offset 8 is not a multiple of the alignment 256",
		    cgs_put_le64(c + sf + CGS_MF_FRAME_OFFSET, 8));
	EDIT_REJECT(CGS_E_FORMAT, "end past arena 0",
		    cgs_put_le64(c + sf + CGS_MF_FRAME_OFFSET, ~0ull << 8);
		    cgs_put_le64(c + sf + CGS_MF_FRAME_SIZE, 1024));
	EDIT_REJECT(CGS_E_FORMAT, "is labelled",
		    cgs_put_le32(c + sf + CGS_MF_FRAME_LAYER, 1));
	EDIT_REJECT(CGS_E_FORMAT, "colour 12 is out of range",
		    cgs_put_le32(c + sf + CGS_MF_FRAME_COLOUR, 12));
	EDIT_REJECT(CGS_E_FORMAT, "reserved field is not 0",
		    c[uf + CGS_MF_FRAME_RESERVED] = 1);
	EDIT_REJECT(CGS_E_FORMAT, "which holds saved frames",
		    cgs_put_le32(c + uf + CGS_MF_FRAME_ARENA, 0));
	/* Per-variant layouts. */
	EDIT_REJECT(CGS_E_FORMAT, "input range of 1025 bytes at offset 0 is not inside",
		    cgs_put_le64(c + sr + 8, 1025));
	EDIT_REJECT(CGS_E_FORMAT, "saved range of 512 bytes at offset 768 is not inside",
		    cgs_put_le64(c + sr + 32, 768));
	EDIT_REJECT(CGS_E_FORMAT, "output range of 256 bytes at offset 128 is not aligned",
		    cgs_put_le64(c + sr + 16, 128));
	EDIT_REJECT(CGS_E_FORMAT, "user-grad range of 256 bytes at offset 512",
		    cgs_put_le64(c + ul, 512));
	/* Capture. */
	EDIT_REJECT(CGS_E_FORMAT, "graph 48 is out of range",
		    cgs_put_le32(c + cap, 48));
	EDIT_REJECT(CGS_E_FORMAT, "captured twice",
		    cgs_put_le32(c + cap, cgs_get_le32(b + cap + 4)));
	free(c);
	free(b);
}
END_TEST

/* Rotate every rank's slots: microbatch k takes slot (k + 1) mod S, as
 * safe as k mod S (the same classes), but not the identity. */
static void fixture_rotate_slots(struct fixture *fx)
{
	uint32_t r, i, k, width;

	for (r = 0; r < FX_PP; r++) {
		struct cgs_rank_plan *rp = &fx->rp[r];

		width = rp->reachable[rp->n_reachable - 1];
		rp->slot_map = calloc((size_t)rp->n_reachable * width,
				      sizeof(uint32_t));
		for (i = 0; i < rp->n_reachable; i++)
			for (k = 0; k < rp->reachable[i]; k++)
				rp->slot_map[i * width + k] = (k + 1) % FX_S;
	}
}

START_TEST(slot_maps)
{
	struct fixture *fx = fixture_create();
	struct cgs_error err = {0};
	struct cgs_manifest *m = NULL;
	struct cgs_manifest_ring ring;
	size_t len, maps, ranks;
	uint64_t maps_len;
	uint8_t *b = NULL, *c;
	uint32_t ri, i, k, width;

	/* An identity map is k mod S: nothing is stored. */
	for (ri = 0; ri < FX_PP; ri++) {
		struct cgs_rank_plan *rp = &fx->rp[ri];

		width = rp->reachable[rp->n_reachable - 1];
		rp->slot_map = calloc((size_t)rp->n_reachable * width,
				      sizeof(uint32_t));
		for (i = 0; i < rp->n_reachable; i++)
			for (k = 0; k < rp->reachable[i]; k++)
				rp->slot_map[i * width + k] = k % FX_S;
	}
	ck_assert_int_eq(cgs_manifest_write(&fx->plan, 1, (void **)&b, &len,
					    &err), 0);
	section(b, CGS_MF_SLOT_MAPS, &maps_len);
	ck_assert_uint_eq(maps_len, 0);
	free(b);
	for (ri = 0; ri < FX_PP; ri++) {
		free(fx->rp[ri].slot_map);
		fx->rp[ri].slot_map = NULL;
	}

	fixture_rotate_slots(fx);
	ck_assert_int_eq(cgs_manifest_write(&fx->plan, 1, (void **)&b, &len,
					    &err), 0);
	maps = section(b, CGS_MF_SLOT_MAPS, &maps_len);
	ranks = section(b, CGS_MF_RANKS, NULL);
	/* counts 2 and 4 on each of the two ranks */
	ck_assert_uint_eq(maps_len, 2 * (2 + 4) * 4);
	ck_assert_msg(cgs_manifest_open_buffer(b, len, &m, &err) == 0, "%s",
		      err.message);
	for (ri = 0; ri < FX_PP; ri++) {
		ring = cgs_manifest_rank_ring(m, ri);
		ck_assert_int_eq(ring.slot_map, 1);
		ck_assert_uint_eq(ring.slots, FX_S);
		for (i = 0; i < cgs_manifest_reachable_count(m, ri); i++)
			for (k = 0; k < cgs_manifest_reachable(m, ri, i); k++)
				ck_assert_uint_eq(cgs_manifest_slot(m, ri, i, 0, k),
						  (k + 1) % FX_S);
		/* out of range: zero, never a read past the data */
		ck_assert_uint_eq(cgs_manifest_slot(m, ri, 0, 0, 2), 0);
		ck_assert_uint_eq(cgs_manifest_slot(m, ri, 9, 0, 0), 0);
	}
	cgs_manifest_close(&m);

	/* Corrupt maps, re-sealed: a slot outside the ring, and two live
	 * microbatches on one slot (rank 0, N=2 runs both forwards first). */
	c = malloc(len);
	EDIT_REJECT(CGS_E_FORMAT, "rank 0 N=2: microbatch 1 has slot 4; its ring has 4 slots",
		    cgs_put_le32(c + maps + 4, 4));
	EDIT_REJECT(CGS_E_FORMAT, "microbatch 1 of chunk 1 takes slot 1, whose saved frames are still live",
		    cgs_put_le32(c + maps + 4, 1));
	EDIT_REJECT(CGS_E_FORMAT, "slot map entries",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_ENTRY_BYTES +
					 CGS_MF_RANK_FLAGS, 0));
	free(c);
	free(b);
	fixture_destroy(fx);
}
END_TEST

START_TEST(chunk_slot_maps)
{
	struct fixture *fx = fixture_create();
	struct cgs_error err = {0};
	struct cgs_manifest *m = NULL;
	struct cgs_manifest_ring ring;
	size_t len, len2, ranks, maps;
	uint64_t maps_len, chunk_len;
	uint8_t *b, *b2, *c;
	uint32_t ri, i, ch, k;

	/* Chunk rows that all agree are a per-count map: format 2.0, the
	 * same bytes as the map given with one row. */
	fixture_rotate_slots(fx);
	ck_assert_int_eq(cgs_manifest_write(&fx->plan, 1, (void **)&b, &len,
					    &err), 0);
	for (ri = 0; ri < FX_PP; ri++)
		fixture_chunk_slots(fx, ri, 1);
	ck_assert_int_eq(cgs_manifest_write(&fx->plan, 1, (void **)&b2, &len2,
					    &err), 0);
	ck_assert_uint_eq(len, len2);
	ck_assert_int_eq(memcmp(b, b2, len), 0);
	ck_assert_uint_eq(cgs_get_le16(b + 10), 0);
	free(b);
	free(b2);
	fixture_destroy(fx);

	/* Rows that differ: format 2.1, flags bit 1, section 14. */
	b = fixture_chunk_bytes(&len);
	ck_assert_uint_eq(cgs_get_le16(b + 8), 2);
	ck_assert_uint_eq(cgs_get_le16(b + 10), 1);
	ck_assert_uint_eq(cgs_get_le32(b + 16), 14);
	section(b, CGS_MF_SLOT_MAPS, &maps_len);
	maps = section(b, CGS_MF_CHUNK_SLOT_MAPS, &chunk_len);
	ranks = section(b, CGS_MF_RANKS, NULL);
	ck_assert_uint_eq(maps_len, 0);
	/* counts 2 and 4, two chunks, two ranks */
	ck_assert_uint_eq(chunk_len, 2 * (2 + 4) * 2 * 4);
	for (ri = 0; ri < FX_PP; ri++) {
		const uint8_t *r = b + ranks + ri * CGS_MF_RANK_ENTRY_BYTES;

		ck_assert_uint_eq(cgs_get_le32(r + CGS_MF_RANK_FLAGS),
				  CGS_MF_RANK_HAS_CHUNK_SLOT_MAP);
		ck_assert_uint_eq(cgs_get_le64(r + CGS_MF_RANK_SLOT_MAP_FIRST),
				  ri * (2 + 4) * 2);
	}
	/* count by count, chunk by chunk: N=2 chunk 0 is 0 1, chunk 1 is 1 2 */
	ck_assert_uint_eq(cgs_get_le32(b + maps + 8), 1);
	ck_assert_uint_eq(cgs_get_le32(b + maps + 12), 2);
	ck_assert_msg(cgs_manifest_open_buffer(b, len, &m, &err) == 0, "%s",
		      err.message);
	ck_assert_uint_eq(cgs_manifest_info(m)->minor, 1);
	for (ri = 0; ri < FX_PP; ri++) {
		ring = cgs_manifest_rank_ring(m, ri);
		ck_assert_int_eq(ring.slot_map, 1);
		ck_assert_int_eq(ring.slot_map_per_chunk, 1);
		for (i = 0; i < cgs_manifest_reachable_count(m, ri); i++)
			for (ch = 0; ch < FX_VPP; ch++)
				for (k = 0; k < cgs_manifest_reachable(m, ri, i); k++)
					ck_assert_uint_eq(
						cgs_manifest_slot(m, ri, i, ch, k),
						(k + ch) % FX_S);
		/* out of range: zero, never a read past the data */
		ck_assert_uint_eq(cgs_manifest_slot(m, ri, 0, FX_VPP, 0), 0);
		ck_assert_uint_eq(cgs_manifest_slot(m, ri, 1, 1, 4), 0);
	}
	walk(m);
	cgs_manifest_close(&m);

	/* Corrupt maps and flags, re-sealed. */
	c = malloc(len);
	EDIT_REJECT(CGS_E_FORMAT, "chunk slot maps: rank 0 N=2: microbatch 1 of chunk 1 has slot 4; its ring has 4 slots",
		    cgs_put_le32(c + maps + 4, 4));
	/* rank 0 runs both forwards of N=2 before any backward */
	EDIT_REJECT(CGS_E_FORMAT, "chunk slot maps: rank 0 N=2 order entry 1: microbatch 1 of chunk 1 takes slot 0, whose saved frames are still live",
		    cgs_put_le32(c + maps + 4, 0));
	/* rank 1, N=2: 1 1 2 -2 2 -2 -1 -1; the backwards of chunk 2 at
	 * entries 3 and 5 follow one another */
	EDIT_REJECT(CGS_E_FORMAT, "chunk slot maps: rank 1 N=2 order entry 5: microbatch 1 of chunk 2 takes slot 1, whose user-grad frame the backward just before it still sends from",
		    cgs_put_le32(c + maps + 12 * 4 + 12, 1));
	EDIT_REJECT(CGS_E_FORMAT, "rank 1: flags 0x3 say both a slot map per count (bit 0) and one per count and chunk (bit 1)",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_ENTRY_BYTES +
					 CGS_MF_RANK_FLAGS, 3));
	EDIT_REJECT(CGS_E_FORMAT, "rank 0: reserved flag bits set (flags 0x4); accepted: 0, 1 (a slot map per count) or 2",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_FLAGS, 4));
	EDIT_REJECT(CGS_E_FORMAT, "section 14 (chunk slot maps) in a format 2.0 file; it exists from format 2.1 on",
		    cgs_put_le16(c + 10, 0));
	/* a map no longer announced leaves section 14 too long */
	EDIT_REJECT(CGS_E_FORMAT, "section 14 (chunk slot maps) holds 96 bytes; 12 chunk slot map entries of 4 bytes need 48",
		    cgs_put_le32(c + ranks + CGS_MF_RANK_ENTRY_BYTES +
					 CGS_MF_RANK_FLAGS, 0);
		    cgs_put_le64(c + ranks + CGS_MF_RANK_ENTRY_BYTES +
					 CGS_MF_RANK_SLOT_MAP_FIRST, 0));
	EDIT_REJECT(CGS_E_FORMAT, "rank 1: first chunk slot map entry is 0; it must continue the previous rank's at 12",
		    cgs_put_le64(c + ranks + CGS_MF_RANK_ENTRY_BYTES +
					 CGS_MF_RANK_SLOT_MAP_FIRST, 0));
	free(c);
	free(b);

	/* Mixed: rank 0 per count (section 13), rank 1 per chunk; each
	 * rank's first index counts its own section's entries before it. */
	fx = fixture_create();
	fixture_rotate_slots(fx);
	fixture_chunk_slots(fx, 1, 0);
	ck_assert_int_eq(cgs_manifest_write(&fx->plan, 1, (void **)&b, &len,
					    &err), 0);
	fixture_destroy(fx);
	ranks = section(b, CGS_MF_RANKS, NULL);
	section(b, CGS_MF_SLOT_MAPS, &maps_len);
	section(b, CGS_MF_CHUNK_SLOT_MAPS, &chunk_len);
	ck_assert_uint_eq(maps_len, (2 + 4) * 4);
	ck_assert_uint_eq(chunk_len, (2 + 4) * 2 * 4);
	ck_assert_uint_eq(cgs_get_le64(b + ranks + CGS_MF_RANK_ENTRY_BYTES +
				       CGS_MF_RANK_SLOT_MAP_FIRST), 0);
	ck_assert_msg(cgs_manifest_open_buffer(b, len, &m, &err) == 0, "%s",
		      err.message);
	ck_assert_int_eq(cgs_manifest_rank_ring(m, 0).slot_map_per_chunk, 0);
	ck_assert_int_eq(cgs_manifest_rank_ring(m, 1).slot_map_per_chunk, 1);
	ck_assert_uint_eq(cgs_manifest_slot(m, 0, 1, 1, 3), 0);
	ck_assert_uint_eq(cgs_manifest_slot(m, 1, 1, 1, 3), 0);
	ck_assert_uint_eq(cgs_manifest_slot(m, 1, 1, 0, 3), 3);
	cgs_manifest_close(&m);
	c = malloc(len);
	EDIT_REJECT(CGS_E_FORMAT, "rank 1: first chunk slot map entry is 6; it must continue the previous rank's at 0",
		    cgs_put_le64(c + ranks + CGS_MF_RANK_ENTRY_BYTES +
					 CGS_MF_RANK_SLOT_MAP_FIRST, 6));
	free(c);
	free(b);
}
END_TEST

/* Rebuild `b` with one extra section appended after the known ones. */
static uint8_t *with_extra_section(const uint8_t *b, size_t len, uint32_t id,
				   uint32_t flags, uint16_t minor,
				   size_t *out_len)
{
	uint32_t n = cgs_get_le32(b + 16), i;
	size_t first = CGS_MF_HEADER_BYTES + (size_t)n * CGS_MF_TOC_ENTRY_BYTES;
	size_t body = len - CGS_MF_TRAILER_BYTES - first;
	size_t nl = len + CGS_MF_TOC_ENTRY_BYTES + 16;
	uint8_t *c = calloc(1, nl), *e;

	memcpy(c, b, CGS_MF_HEADER_BYTES);
	cgs_put_le16(c + 10, minor);
	cgs_put_le32(c + 16, n + 1);
	cgs_put_le64(c + 24, nl);
	for (i = 0; i < n; i++) {
		e = c + CGS_MF_HEADER_BYTES + (size_t)i * CGS_MF_TOC_ENTRY_BYTES;
		memcpy(e, b + CGS_MF_HEADER_BYTES +
			       (size_t)i * CGS_MF_TOC_ENTRY_BYTES,
		       CGS_MF_TOC_ENTRY_BYTES);
		cgs_put_le64(e + 8, cgs_get_le64(e + 8) + CGS_MF_TOC_ENTRY_BYTES);
	}
	e = c + CGS_MF_HEADER_BYTES + (size_t)n * CGS_MF_TOC_ENTRY_BYTES;
	cgs_put_le32(e, id);
	cgs_put_le32(e + 4, flags);
	cgs_put_le64(e + 8, first + CGS_MF_TOC_ENTRY_BYTES + body);
	cgs_put_le64(e + 16, 13);  /* 13 bytes + 3 of padding */
	memcpy(c + first + CGS_MF_TOC_ENTRY_BYTES, b + first, body);
	memcpy(c + first + CGS_MF_TOC_ENTRY_BYTES + body, "future data!", 13);
	fix_crc(c, nl);
	*out_len = nl;
	return c;
}

/* Format 2.2: user-grad frames in a saved arena, counted in section 15. */
START_TEST(nested_frames)
{
	struct cgs_manifest *m = NULL;
	struct cgs_error err = {0};
	struct cgs_manifest_frame f;
	uint8_t *b, *c;
	size_t len, nested, uf;
	uint64_t nested_len;

	b = fixture_nested_bytes(&len);
	ck_assert_uint_eq(cgs_get_le16(b + 10), CGS_MF_MINOR_NESTED);
	nested = section(b, CGS_MF_NESTED, &nested_len);
	uf = section(b, CGS_MF_USER_GRAD_FRAMES, NULL);
	ck_assert_uint_eq(nested_len, FX_PP * CGS_MF_NESTED_ENTRY_BYTES);
	ck_assert_uint_eq(cgs_get_le32(b + nested), 1);
	ck_assert_msg(cgs_manifest_open_buffer(b, len, &m, &err) == 0, "%s",
		      err.message);
	f = cgs_manifest_user_grad_frame(m, 1, 0);
	ck_assert_uint_eq(f.arena, 0);
	ck_assert_uint_eq(cgs_manifest_arena(m, 1, f.arena).role,
			  CGS_MANIFEST_ARENA_SAVED);
	ck_assert_uint_eq(cgs_manifest_user_grad_frame(m, 1, 1).arena, 1);
	walk(m);
	cgs_manifest_close(&m);

	c = malloc(len);
	EDIT_REJECT(CGS_E_FORMAT, "section 15 (nested): rank 0 records 2 user-grad frames in its saved arenas; its frames put 1 there",
		    cgs_put_le32(c + nested, 2));
	EDIT_REJECT(CGS_E_FORMAT, "section 15 (nested): rank 1: reserved field is not 0",
		    cgs_put_le32(c + nested + CGS_MF_NESTED_ENTRY_BYTES + 4, 1));
	/* a second frame moved into the saved arena is counted too */
	EDIT_REJECT(CGS_E_FORMAT, "section 15 (nested): rank 0 records 1 user-grad frames in its saved arenas; its frames put 2 there",
		    cgs_put_le32(c + uf + CGS_MF_FRAME_BYTES + CGS_MF_FRAME_ARENA, 0));
	/* the same file as 2.1: section 15 does not exist there */
	EDIT_REJECT(CGS_E_FORMAT, "section 15 (nested) in a format 2.1 file; it exists from format 2.2 on",
		    cgs_put_le16(c + 10, 1));
	free(c);
	free(b);

	/* before 2.2 a user-grad frame lies in a user-grad arena */
	b = fixture_chunk_bytes(&len);
	uf = section(b, CGS_MF_USER_GRAD_FRAMES, NULL);
	c = malloc(len);
	EDIT_REJECT(CGS_E_FORMAT, "rank 0 user-grad frame (0, 0, 0) lies in arena 0, which holds saved frames",
		    cgs_put_le32(c + uf + CGS_MF_FRAME_ARENA, 0));
	free(c);
	free(b);
}
END_TEST

/*
 * Format 2.3: a rank packed as one (section 16) is held to upstream's
 * bytes as a whole, not kind by kind.
 */
START_TEST(joint_packing)
{
	struct cgs_manifest *m = NULL;
	struct cgs_error err = {0};
	uint8_t *b, *c;
	size_t len, joint;
	uint64_t joint_len;

	b = fixture_joint_bytes(&len, 0);
	ck_assert_uint_eq(cgs_get_le16(b + 10), CGS_MF_MINOR_JOINT);
	joint = section(b, CGS_MF_JOINT, &joint_len);
	ck_assert_uint_eq(joint_len, FX_PP * CGS_MF_JOINT_ENTRY_BYTES);
	ck_assert_uint_eq(cgs_get_le32(b + joint), 0);
	ck_assert_uint_eq(cgs_get_le32(b + joint + CGS_MF_JOINT_ENTRY_BYTES),
			  CGS_MF_JOINT_PACKED);
	ck_assert_msg(cgs_manifest_open_buffer(b, len, &m, &err) == 0, "%s",
		      err.message);
	ck_assert_int_eq(cgs_manifest_rank_stats(m, 0).joint, 0);
	ck_assert_int_eq(cgs_manifest_rank_stats(m, 1).joint, 1);
	ck_assert_uint_eq(cgs_manifest_rank_stats(m, 1).saved.bytes,
			  FX_SAVED * 1024 + FX_UG * 512);
	ck_assert_uint_eq(cgs_manifest_rank_stats(m, 1).user_grad.bytes, 0);
	walk(m);
	cgs_manifest_close(&m);

	c = malloc(len);
	/* without the flag the saved arena is above its kind's part */
	EDIT_REJECT(CGS_E_FORMAT, "rank 1: saved bytes is 16384; it must be at most upstream's for the kind, 12288",
		    cgs_put_le32(c + joint + CGS_MF_JOINT_ENTRY_BYTES, 0));
	EDIT_REJECT(CGS_E_FORMAT, "section 16 (joint): rank 1: flags 0x3; only bit 0 (packed) is defined",
		    cgs_put_le32(c + joint + CGS_MF_JOINT_ENTRY_BYTES, 3));
	EDIT_REJECT(CGS_E_FORMAT, "section 16 (joint): rank 0: reserved field is not 0",
		    cgs_put_le32(c + joint + 4, 1));
	EDIT_REJECT(CGS_E_FORMAT, "section 16 (joint): rank 0 is packed with its user-grad frames, but none lies in its saved arenas",
		    cgs_put_le32(c + joint, CGS_MF_JOINT_PACKED));
	/* the same file as 2.2: section 16 does not exist there */
	EDIT_REJECT(CGS_E_FORMAT, "section 16 (joint) in a format 2.2 file; it exists from format 2.3 on",
		    cgs_put_le16(c + 10, CGS_MF_MINOR_NESTED));
	free(c);
	free(b);

	/* packed as one, the rank is still held to upstream's whole */
	b = fixture_joint_bytes(&len, 512);
	expect_reject(b, len, CGS_E_FORMAT,
		      "rank 1: bytes is 16896; it must be at most upstream's 16384");
	free(b);
}
END_TEST

START_TEST(minor_versions)
{
	struct cgs_manifest *m = NULL;
	struct cgs_error err = {0};
	uint8_t *b, *c;
	size_t len, cl;
	uint64_t base_walk;

	/* a file without nested frames stays 2.1 */
	b = fixture_chunk_bytes(&len);
	ck_assert_uint_eq(cgs_get_le16(b + 10), CGS_MF_MINOR_CHUNK_SLOT_MAPS);
	free(b);
	/* a file with nested frames, none packed as one, stays 2.2 */
	b = fixture_nested_bytes(&len);
	ck_assert_uint_eq(cgs_get_le16(b + 10), CGS_MF_MINOR_NESTED);
	free(b);
	/* our newest minor (2.3) holds every section it defines */
	b = fixture_joint_bytes(&len, 0);
	ck_assert_uint_eq(cgs_get_le16(b + 10), CGS_MANIFEST_MINOR);
	ck_assert_uint_eq(cgs_get_le32(b + 16), CGS_MF_SECTIONS_KNOWN);
	ck_assert_int_eq(cgs_manifest_open_buffer(b, len, &m, NULL), 0);
	base_walk = walk(m);
	cgs_manifest_close(&m);

	/* A newer minor with an optional section: loads, same content. */
	c = with_extra_section(b, len, 200, CGS_MF_FLAG_OPTIONAL,
			       CGS_MANIFEST_MINOR + 1, &cl);
	ck_assert_msg(cgs_manifest_open_buffer(c, cl, &m, &err) == 0, "%s",
		      err.message);
	ck_assert_uint_eq(cgs_manifest_info(m)->minor, CGS_MANIFEST_MINOR + 1);
	ck_assert_uint_eq(walk(m), base_walk);
	cgs_manifest_close(&m);
	free(c);
	/* The same section, required: a newer reader is needed. */
	c = with_extra_section(b, len, 200, 0, CGS_MANIFEST_MINOR + 1, &cl);
	expect_reject(c, cl, CGS_E_VERSION, "section 200 is required");
	free(c);
	/* Required and unknown in a file of our own minor: malformed. */
	c = with_extra_section(b, len, 200, 0, CGS_MANIFEST_MINOR, &cl);
	expect_reject(c, cl, CGS_E_FORMAT, "not marked optional");
	free(c);
	free(b);
}
END_TEST

START_TEST(open_file)
{
	char dir[] = "/tmp/cgs_manifest_XXXXXX", path[256];
	struct cgs_manifest *m = NULL;
	struct cgs_error err = {0};
	const void *bytes;
	uint8_t *b;
	size_t len, got;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	b = fixture_bytes(&len);
	snprintf(path, sizeof(path), "%s/m.cgsm", dir);
	f = fopen(path, "wb");
	ck_assert_uint_eq(fwrite(b, 1, len, f), len);
	fclose(f);
	ck_assert_int_eq(cgs_manifest_open_file(path, &m, &err), 0);
	bytes = cgs_manifest_bytes(m, &got);
	ck_assert_uint_eq(got, len);
	ck_assert_int_eq(memcmp(bytes, b, len), 0);
	cgs_manifest_close(&m);

	ck_assert_int_eq(cgs_manifest_open_file(dir, &m, &err), CGS_E_IO);
	ck_assert_str_eq(err.file, dir);
	ck_assert_ptr_nonnull(strstr(err.message, "not a regular file"));
	cgs_error_clear(&err);
	f = fopen(path, "wb");
	fclose(f);
	ck_assert_int_eq(cgs_manifest_open_file(path, &m, &err), CGS_E_FORMAT);
	ck_assert_str_eq(err.message, "manifest is empty");
	ck_assert_str_eq(err.file, path);
	unlink(path);
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_manifest_open_file(path, &m, &err), CGS_E_IO);
	ck_assert_ptr_nonnull(strstr(err.message, "No such file"));
	ck_assert_ptr_null(m);
	rmdir(dir);
	ck_assert_int_eq(cgs_manifest_open_buffer(NULL, 0, &m, NULL), CGS_E_ARG);
	ck_assert_int_eq(cgs_manifest_open_buffer(b, len, NULL, NULL), CGS_E_ARG);
	free(b);
}
END_TEST

START_TEST(writer_refuses_bad_plans)
{
	struct fixture *fx = fixture_create();
	struct cgs_error err = {0};
	void *buf = (void *)1;
	size_t len = 1;

	fx->rp[1].n_saved = 3;
	ck_assert_int_eq(cgs_manifest_write(&fx->plan, 0, &buf, &len, &err),
			 CGS_E_INVALID);
	ck_assert_ptr_null(buf);
	ck_assert_uint_eq(len, 0);
	ck_assert_ptr_nonnull(strstr(err.message, "rank 1"));
	fx->rp[1].n_saved = FX_SAVED;
	fx->rp[0].order_start[1]--;
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_manifest_write(&fx->plan, 0, &buf, &len, &err),
			 CGS_E_INVALID);
	ck_assert_ptr_nonnull(strstr(err.message, "N=2"));
	fx->rp[0].order_start[1]++;
	fx->plan.slots = 0x80000000u;
	ck_assert_int_eq(cgs_manifest_write(&fx->plan, 0, &buf, &len, NULL),
			 CGS_E_LIMIT);
	fx->plan.slots = FX_S;
	/* a map has one row per count, or one per count and chunk */
	fixture_chunk_slots(fx, 1, 0);
	fx->rp[1].slot_map_rows = 3;
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_manifest_write(&fx->plan, 0, &buf, &len, &err),
			 CGS_E_INVALID);
	ck_assert_ptr_nonnull(strstr(err.message, "rank 1 has 3 slot map rows per count"));
	free(fx->rp[1].slot_map);
	fx->rp[1].slot_map = NULL;
	fx->rp[1].slot_map_rows = 0;
	ck_assert_int_eq(cgs_manifest_write(NULL, 0, &buf, &len, NULL),
			 CGS_E_ARG);
	/* Names are stored as text: control characters are refused, any
	 * UTF-8 is kept. */
	fx->sched.name = "tab\there";
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_manifest_write(&fx->plan, 0, &buf, &len, &err),
			 CGS_E_INVALID);
	ck_assert_str_eq(err.file, "tiny.yaml");
	ck_assert_ptr_nonnull(strstr(err.message, "schedule name"));
	fx->sched.name = NULL;
	fx->variants[1].name = "\xc3(";
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_manifest_write(&fx->plan, 0, &buf, &len, &err),
			 CGS_E_INVALID);
	ck_assert_ptr_nonnull(strstr(err.message, "variant 1"));
	fx->variants[1].name = "cp\xc3\xa9-\xe4\xb8\xad-\xf0\x9f\x98\x80";
	ck_assert_int_eq(cgs_manifest_write(&fx->plan, 0, &buf, &len, NULL), 0);
	{
		struct cgs_manifest *m = NULL;

		ck_assert_int_eq(cgs_manifest_open_buffer(buf, len, &m, NULL), 0);
		ck_assert_str_eq(cgs_manifest_info(m)->name, "");
		ck_assert_str_eq(cgs_manifest_variant_name(m, 1),
				 fx->variants[1].name);
		cgs_manifest_close(&m);
	}
	free(buf);
	fixture_destroy(fx);
}
END_TEST

/*
 * A one-stage plan with M chunks of one layer, one slot and one variant,
 * for the order entry widths: 1 byte up to M = 127, 2 up to 32767, else 4.
 */
static void wide_round_trip(uint32_t vpp, unsigned want_width)
{
	struct cgs_order_params op = {1, vpp, 1, 1, 0};
	struct cgs_variant var = {.name = "only", .cp = 1};
	uint32_t rank = 0, reachable = 1, *layers, *layer_base, c;
	uint64_t order_start[2] = {0, 2ull * vpp}, k;
	struct cgs_schedule sched = {
		.path = "wide.yaml", .pp = 1, .vpp = vpp, .group = 1,
		.max_microbatches = 1, .ranks = &rank, .n_ranks = 1,
		.alignment = 256, .variants = &var, .n_variants = 1};
	struct cgs_rank_plan rp = {0};
	struct cgs_plan plan = {&sched, 1, NULL, 1, &rp, 0, 0, 0, NULL};
	struct cgs_manifest *m = NULL;
	struct cgs_error err = {0};
	unsigned width;
	void *buf;
	size_t len;

	layers = calloc(vpp, sizeof(*layers));
	layer_base = calloc(vpp + 1, sizeof(*layer_base));
	for (c = 0; c < vpp; c++) {
		layers[c] = 1;
		layer_base[c + 1] = c + 1;
	}
	sched.layers = layers;
	plan.layer_base = layer_base;
	rp.n_reachable = 1;
	rp.reachable = &reachable;
	rp.order_start = order_start;
	rp.order_entries = calloc(2ull * vpp, sizeof(int32_t));
	ck_assert_int_eq(cgs_order_generate(&op, rp.order_entries, NULL), 0);
	rp.slots = 1;
	rp.n_saved = rp.n_user_grad = vpp;
	rp.saved = calloc(vpp, sizeof(struct cgs_frame));
	rp.user_grad = calloc(vpp, sizeof(struct cgs_frame));
	rp.saved_roles = calloc(3ull * vpp, sizeof(struct cgs_range));
	rp.user_grad_layers = calloc(vpp, sizeof(struct cgs_range));
	for (c = 0; c < vpp; c++) {
		rp.saved[c] = (struct cgs_frame){c, 0, 0, c, 0, 256ull * c, 256};
		rp.user_grad[c] = (struct cgs_frame){c, 0, 0, c, 1, 256ull * c, 256};
		rp.saved_roles[3 * c + 2] = (struct cgs_range){0, 256};
		rp.user_grad_layers[c] = (struct cgs_range){0, 256};
	}
	rp.n_arenas = 2;
	rp.arenas = calloc(2, sizeof(struct cgs_arena));
	rp.arenas[0] = (struct cgs_arena){CGS_ARENA_SAVED, 256ull * vpp};
	rp.arenas[1] = (struct cgs_arena){CGS_ARENA_USER_GRAD, 256ull * vpp};
	rp.saved_stats = (struct cgs_role_stats){
		.frames = vpp, .colours = vpp, .colour_lower_bound = 1,
		.bytes = 256ull * vpp, .lower_bound_bytes = 256};
	rp.user_grad_stats = rp.saved_stats;
	rp.bytes = 512ull * vpp;
	rp.n_graphs = 2 * vpp;
	rp.capture = calloc(rp.n_graphs, sizeof(uint32_t));
	for (c = 0; c < rp.n_graphs; c++)
		rp.capture[c] = rp.n_graphs - 1 - c;
	fill_figures(&plan, &rp);

	ck_assert_int_eq(cgs_manifest_write(&plan, 7, &buf, &len, &err), 0);
	ck_assert_msg(cgs_manifest_open_buffer(buf, len, &m, &err) == 0, "%s",
		      err.message);
	ck_assert_ptr_nonnull(cgs_manifest_order_raw(m, 0, 0, &width));
	ck_assert_uint_eq(width, want_width);
	ck_assert_uint_eq(cgs_manifest_order_length(m, 0, 0), 2ull * vpp);
	for (k = 0; k < 2ull * vpp; k++)
		ck_assert_int_eq(cgs_manifest_order_entry(m, 0, 0, k),
				 rp.order_entries[k]);
	ck_assert_int_eq(cgs_manifest_order_entry(m, 0, 0, vpp - 1), (int32_t)vpp);
	ck_assert_int_eq(cgs_manifest_order_entry(m, 0, 0, vpp), -(int32_t)vpp);
	cgs_manifest_close(&m);

	/* A chunk id one past M, in the last entry: refused at every width. */
	{
		uint8_t *b = buf;
		uint64_t orders_len;
		size_t orders = section(b, CGS_MF_ORDERS, &orders_len);
		uint8_t *last = b + orders + orders_len - want_width;

		if (want_width == 1)
			last[0] = (uint8_t)(vpp + 1);
		else if (want_width == 2)
			cgs_put_le16(last, (uint16_t)(vpp + 1));
		else
			cgs_put_le32(last, vpp + 1);
		fix_crc(b, len);
		expect_reject(b, len, CGS_E_FORMAT, "accepted: -");
	}
	free(buf);
	free(layers);
	free(layer_base);
	free(rp.order_entries);
	free(rp.saved);
	free(rp.user_grad);
	free(rp.saved_roles);
	free(rp.user_grad_layers);
	free(rp.arenas);
	free(rp.capture);
}

START_TEST(entry_widths)
{
	wide_round_trip(127, 1);
	wide_round_trip(128, 2);
	wide_round_trip(32767, 2);
	wide_round_trip(32768, 4);
}
END_TEST

static Suite *manifest_suite(void)
{
	Suite *s = suite_create("manifest");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, crc32c_vectors);
	tcase_add_test(tc, crc32c_paths_agree);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, find_rank_and_count);
	tcase_add_test(tc, deterministic);
	tcase_add_test(tc, byte_flips);
	tcase_add_test(tc, truncations);
	tcase_add_test(tc, bounded_memory);
	tcase_add_test(tc, targeted_edits);
	tcase_add_test(tc, joint_packing);
	tcase_add_test(tc, minor_versions);
	tcase_add_test(tc, nested_frames);
	tcase_add_test(tc, open_file);
	tcase_add_test(tc, writer_refuses_bad_plans);
	tcase_add_test(tc, entry_widths);
	tcase_add_test(tc, slot_maps);
	tcase_add_test(tc, chunk_slot_maps);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cgs_test_run(manifest_suite());
}
