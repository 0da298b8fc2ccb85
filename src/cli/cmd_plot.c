/*
 * cgslot plot: a picture of a manifest's plan, as one standalone SVG.
 *
 * The top view follows one rank through one reachable capture order:
 * order positions across, arena bytes down (the rank's arenas stacked in
 * index order), one box per live (variant, frame, role) range from the
 * event that makes it live to the last event that needs it, coloured by
 * chunk and shaded by variant, each with a <title> for the browser's
 * tooltip.  Lines mark the arena ends, the rank's lower bound and the
 * bytes live at each position.  The bottom view compares, per rank, the
 * plan's bytes with every variant in its own arenas and with upstream's
 * one arena per colour.
 *
 * Everything comes from the manifest's accessors; the liveness rules are
 * those of cgslot(1) (a saved frame from its forward to its backward, a
 * user-gradient frame from its backward to the next backward).  The output
 * is plain SVG 1.1 with a little CSS, no script, and depends on nothing
 * but the manifest and the options, so it is byte-identical across runs.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "manifest/manifest.h"

/* Page geometry in CSS pixels. */
#define PAGE_W 1200
#define PLOT_X 96             /* left edge of both views */
#define PLOT_R 850            /* right edge of both views */
#define ARENA_LABEL_X 858     /* arena brackets, right of the top view */
#define LEGEND_X 960
#define LEGEND_W 228
#define TOP_Y 84              /* top of the occupancy view */
#define TOP_H 420
#define BARS_GAP 92           /* from the top view's bottom to the bars' */
#define BARS_H 200

static const char *const chunk_palette[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};
#define N_PALETTE (sizeof(chunk_palette) / sizeof(chunk_palette[0]))

static const char *const role_names[] = {"input", "output", "saved"};

/* The SVG under construction: a growing buffer; failed sticks. */
struct svg {
	char *buf;
	size_t len, cap;
	int failed;
	uint64_t boxes;    /* rectangles with a tooltip, for --verbose */
};

static void out(struct svg *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out(struct svg *s, const char *fmt, ...)
{
	va_list ap;
	size_t cap;
	char *grown;
	int n;

	if (s->failed)
		return;
	for (;;) {
		size_t room = s->cap - s->len;

		va_start(ap, fmt);
		n = vsnprintf(s->buf ? s->buf + s->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			s->failed = 1;
			return;
		}
		if ((size_t)n < room) {
			s->len += (size_t)n;
			return;
		}
		cap = s->cap ? s->cap * 2 : 65536;
		while (cap - s->len <= (size_t)n)
			cap *= 2;
		grown = realloc(s->buf, cap);
		if (!grown) {
			s->failed = 1;
			return;
		}
		s->buf = grown;
		s->cap = cap;
	}
}

/* Text content or attribute value, XML-escaped. */
static void out_text(struct svg *s, const char *t)
{
	for (; *t; t++) {
		switch (*t) {
		case '&': out(s, "&amp;"); break;
		case '<': out(s, "&lt;"); break;
		case '>': out(s, "&gt;"); break;
		case '"': out(s, "&quot;"); break;
		default: out(s, "%c", *t);
		}
	}
}

/* A chunk colour mixed with white by t in [0, 1): lighter variants. */
static void shade(uint32_t chunk, double t, char *buf, size_t size)
{
	const char *hex = chunk_palette[chunk % N_PALETTE];
	unsigned rgb[3], i;

	sscanf(hex + 1, "%2x%2x%2x", &rgb[0], &rgb[1], &rgb[2]);
	for (i = 0; i < 3; i++)
		rgb[i] = (unsigned)(rgb[i] + (255 - rgb[i]) * t + 0.5);
	snprintf(buf, size, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

struct plot {
	const struct cgs_manifest *m;
	const struct cgs_manifest_info *in;
	const char *path;       /* the manifest, for the title */
	uint32_t ri;            /* rank index */
	uint32_t ci;            /* index of the microbatch count */
	uint32_t n;             /* the microbatch count */
	uint32_t slots;         /* the rank's ring S */
	uint8_t *show;          /* n_variants flags: variants drawn */
	uint32_t n_show;

	int32_t *order;
	uint64_t len;           /* order entries */
	/* per (chunk, microbatch): positions of its forward and backward */
	uint64_t *fwd_at, *bwd_at;
	/* per (chunk, microbatch): the last position its user gradient is held */
	uint64_t *grad_until;

	uint64_t total;         /* the rank's arena bytes, stacked */
	uint64_t *arena_base;   /* per arena: bytes of the arenas before it */
	double x_step;          /* pixels per order position */
	double y_scale;         /* pixels per byte in the top view */
	int bars_y;             /* top of the bar view */
	int page_h;
};

/* Physical slot of microbatch k of chunk c in the plotted order: the
 * manifest's slot map for this count (and chunk), or k mod S. */
static uint32_t slot_of(const struct plot *p, uint32_t c, uint32_t k)
{
	return cgs_manifest_slot(p->m, p->ri, p->ci, c, k);
}

/*
 * Replay the order: where each (chunk, microbatch) runs forward and
 * backward, and until where its user gradient is held (through the next
 * backward of any chunk; the last one until the order ends).
 */
static int replay(struct plot *p, struct cgs_error *err)
{
	uint32_t M = p->in->vpp, c;
	uint64_t pos, *fwd, *bwd, cells = (uint64_t)M * p->n, last = UINT64_MAX;
	uint64_t last_cell = 0;

	p->len = cgs_manifest_order_length(p->m, p->ri, p->ci);
	p->order = malloc(p->len * sizeof(*p->order));
	p->fwd_at = calloc(cells, sizeof(*p->fwd_at));
	p->bwd_at = calloc(cells, sizeof(*p->bwd_at));
	p->grad_until = calloc(cells, sizeof(*p->grad_until));
	fwd = calloc(M, sizeof(*fwd));
	bwd = calloc(M, sizeof(*bwd));
	if (!p->order || !p->fwd_at || !p->bwd_at || !p->grad_until || !fwd ||
	    !bwd) {
		free(fwd);
		free(bwd);
		return cgs_error_set(err, CGS_E_NOMEM,
				     "out of memory replaying the order");
	}
	cgs_manifest_order_decode(p->m, p->ri, p->ci, p->order);
	/* The reader checked that every order is well formed and drains. */
	for (pos = 0; pos < p->len; pos++) {
		int32_t id = p->order[pos];

		c = (uint32_t)(id > 0 ? id : -id) - 1;
		if (id > 0) {
			p->fwd_at[(uint64_t)c * p->n + fwd[c]++] = pos;
			continue;
		}
		if (last != UINT64_MAX)
			p->grad_until[last_cell] = pos;
		last_cell = (uint64_t)c * p->n + bwd[c]++;
		p->bwd_at[last_cell] = pos;
		last = pos;
	}
	if (last != UINT64_MAX)
		p->grad_until[last_cell] = p->len - 1;
	free(fwd);
	free(bwd);
	return 0;
}

static double x_at(const struct plot *p, uint64_t pos)
{
	return PLOT_X + (double)pos * p->x_step;
}

static double y_at(const struct plot *p, uint32_t arena, uint64_t offset)
{
	return TOP_Y + (double)(p->arena_base[arena] + offset) * p->y_scale;
}

/* Variant index of the i-th shown variant, and its shade (0: darkest). */
static double variant_shade(const struct plot *p, uint32_t v)
{
	uint32_t i, rank = 0;

	for (i = 0; i < v; i++)
		rank += p->show[i];
	return p->n_show > 1 ? 0.6 * rank / (p->n_show - 1) : 0.0;
}

/* One box: a rectangle with its tooltip. */
static void box(struct svg *s, double x, double w, double y, double h,
		const char *fill, const char *cls, const char *tip)
{
	s->boxes++;
	out(s, "<rect class=\"%s\" x=\"%.1f\" y=\"%.2f\" width=\"%.1f\" height=\"%.2f\" fill=\"%s\"><title>",
	    cls, x, y, w, h < 0.25 ? 0.25 : h, fill);
	out_text(s, tip);
	out(s, "</title></rect>\n");
}

/* Frames of one (chunk, microbatch) live range: extents, then variants. */
static void draw_microbatch(struct svg *s, const struct plot *p, uint32_t c,
			    uint32_t k)
{
	const struct cgs_manifest_info *in = p->in;
	uint64_t cell = (uint64_t)c * p->n + k;
	uint64_t from = p->fwd_at[cell], to = p->bwd_at[cell];
	uint64_t g_to = p->grad_until[cell];
	uint32_t slot = slot_of(p, c, k), layers = cgs_manifest_chunk_layers(p->m, c);
	uint32_t base = cgs_manifest_layer_base(p->m, c) * p->slots +
			slot * layers;
	uint32_t u = c * p->slots + slot, l, r, vi;
	struct cgs_manifest_frame ug = cgs_manifest_user_grad_frame(p->m, p->ri, u);
	char tip[512], fill[16], a[32];

	for (l = 0; l < layers; l++) {
		struct cgs_manifest_frame f =
			cgs_manifest_saved_frame(p->m, p->ri, base + l);

		snprintf(tip, sizeof(tip),
			 "saved frame: chunk %u, microbatch %u, slot %u, layer %u, colour %u; arena %u offset %" PRIu64 ", %" PRIu64 " bytes (%s, the most any variant needs); live at positions %" PRIu64 "..%" PRIu64,
			 c, k, slot, l, f.colour, f.arena, f.offset, f.bytes,
			 cgs_cli_human(f.bytes, a, sizeof(a)), from, to);
		box(s, x_at(p, from), (double)(to - from + 1) * p->x_step,
		    y_at(p, f.arena, f.offset), (double)f.bytes * p->y_scale,
		    "#e6e6e6", "f", tip);
	}
	snprintf(tip, sizeof(tip),
		 "user-gradient frame: chunk %u, microbatch %u, slot %u, colour %u; arena %u offset %" PRIu64 ", %" PRIu64 " bytes (%s); live at positions %" PRIu64 "..%" PRIu64,
		 c, k, slot, ug.colour, ug.arena, ug.offset, ug.bytes,
		 cgs_cli_human(ug.bytes, a, sizeof(a)), to, g_to);
	box(s, x_at(p, to), (double)(g_to - to + 1) * p->x_step,
	    y_at(p, ug.arena, ug.offset), (double)ug.bytes * p->y_scale,
	    "#e6e6e6", "f", tip);

	/* Larger variants first, so the canonical one is drawn on top. */
	for (vi = in->n_variants; vi-- > 0;) {
		const char *vname = cgs_manifest_variant_name(p->m, vi);

		if (!p->show[vi])
			continue;
		shade(c, variant_shade(p, vi), fill, sizeof(fill));
		for (l = 0; l < layers; l++) {
			struct cgs_manifest_frame f =
				cgs_manifest_saved_frame(p->m, p->ri, base + l);
			struct cgs_manifest_range g =
				cgs_manifest_user_grad_layer(p->m, p->ri, vi,
							     base + l);

			for (r = 0; r < 3; r++) {
				struct cgs_manifest_range x = cgs_manifest_saved_role(
					p->m, p->ri, vi, base + l, r);

				snprintf(tip, sizeof(tip),
					 "variant %s, chunk %u, microbatch %u, slot %u, layer %u, role %s: arena %u offset %" PRIu64 ", %" PRIu64 " bytes (%s); live at positions %" PRIu64 "..%" PRIu64,
					 vname, c, k, slot, l, role_names[r],
					 f.arena, f.offset + x.offset, x.bytes,
					 cgs_cli_human(x.bytes, a, sizeof(a)), from, to);
				box(s, x_at(p, from),
				    (double)(to - from + 1) * p->x_step,
				    y_at(p, f.arena, f.offset + x.offset),
				    (double)x.bytes * p->y_scale, fill, "b", tip);
			}
			snprintf(tip, sizeof(tip),
				 "variant %s, chunk %u, microbatch %u, slot %u, layer %u, role user_grad: arena %u offset %" PRIu64 ", %" PRIu64 " bytes (%s); live at positions %" PRIu64 "..%" PRIu64,
				 vname, c, k, slot, l, ug.arena,
				 ug.offset + g.offset, g.bytes,
				 cgs_cli_human(g.bytes, a, sizeof(a)), to, g_to);
			box(s, x_at(p, to), (double)(g_to - to + 1) * p->x_step,
			    y_at(p, ug.arena, ug.offset + g.offset),
			    (double)g.bytes * p->y_scale, fill, "b", tip);
		}
	}
}

/* A tick step of about total / 5 in the unit that suits total. */
static void axis_step(uint64_t total, uint64_t *unit, const char **name,
		      double *step)
{
	static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB",
					    "PiB", "EiB"};
	double v, mag = 1;
	int u = 0;

	*unit = 1;
	while (u < 6 && total / *unit >= 1024) {
		*unit *= 1024;
		u++;
	}
	*name = names[u];
	v = (double)total / (double)*unit / 5;
	if (v <= 0)
		v = 1;
	while (mag * 10 <= v)
		mag *= 10;
	while (mag > v)
		mag /= 10;
	if (v >= 5 * mag)
		*step = 5 * mag;
	else if (v >= 2 * mag)
		*step = 2 * mag;
	else
		*step = mag;
}

/* Horizontal grid lines and labels for bytes 0..total over [y0, y0+h]. */
static void byte_axis(struct svg *s, uint64_t total, double y0, double h)
{
	uint64_t unit;
	const char *name;
	double step, v;

	axis_step(total, &unit, &name, &step);
	for (v = 0; v * (double)unit <= (double)total * 1.0001; v += step) {
		double y = y0 + v * (double)unit / (double)total * h;

		out(s, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
		    PLOT_X, y, PLOT_R, y);
		out(s, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g %s</text>\n",
		    PLOT_X - 6, y + 4, v, name);
	}
}

/* The bytes of every saved and user-gradient frame live at each position. */
static void live_line(struct svg *s, const struct plot *p, uint64_t *peak)
{
	const struct cgs_manifest_info *in = p->in;
	uint64_t *delta = calloc(p->len + 1, sizeof(*delta));
	uint64_t *minus = calloc(p->len + 1, sizeof(*minus));
	uint64_t pos, live = 0, cell;
	uint32_t c, k, l;

	*peak = 0;
	if (!delta || !minus) {
		s->failed = 1;
		goto out;
	}
	for (c = 0; c < in->vpp; c++) {
		uint32_t layers = cgs_manifest_chunk_layers(p->m, c);

		for (k = 0; k < p->n; k++) {
			uint32_t slot = slot_of(p, c, k);
			uint32_t base = cgs_manifest_layer_base(p->m, c) *
					p->slots + slot * layers;
			struct cgs_manifest_frame ug = cgs_manifest_user_grad_frame(
				p->m, p->ri, c * p->slots + slot);
			uint64_t bytes = 0;

			cell = (uint64_t)c * p->n + k;
			for (l = 0; l < layers; l++)
				bytes += cgs_manifest_saved_frame(p->m, p->ri,
								  base + l).bytes;
			delta[p->fwd_at[cell]] += bytes;
			minus[p->bwd_at[cell] + 1] += bytes;
			delta[p->bwd_at[cell]] += ug.bytes;
			minus[p->grad_until[cell] + 1] += ug.bytes;
		}
	}
	out(s, "<path class=\"live\" d=\"");
	for (pos = 0; pos < p->len; pos++) {
		live = live + delta[pos] - minus[pos];
		if (live > *peak)
			*peak = live;
		/* A step: down or up to this position's bytes, then across. */
		if (pos)
			out(s, "V%.2fH%.1f", TOP_Y + (double)live * p->y_scale,
			    x_at(p, pos + 1));
		else
			out(s, "M%.1f %.2fH%.1f", x_at(p, 0),
			    TOP_Y + (double)live * p->y_scale, x_at(p, 1));
	}
	out(s, "\"><title>bytes live at each position of this order (frame extents); peak %" PRIu64 "</title></path>\n",
	    *peak);
out:
	free(delta);
	free(minus);
}

static void draw_top(struct svg *s, struct plot *p, uint64_t *peak)
{
	const struct cgs_manifest_info *in = p->in;
	struct cgs_manifest_rank_stats st = cgs_manifest_rank_stats(p->m, p->ri);
	uint32_t a, c, k, n_arenas = cgs_manifest_arena_count(p->m, p->ri);
	uint64_t pos, label_every;
	double y, last_label = -100;
	char h1[32], h2[32];

	byte_axis(s, p->total, TOP_Y, TOP_H);
	out(s, "<g id=\"occupancy\">\n");
	for (c = 0; c < in->vpp; c++)
		for (k = 0; k < p->n; k++)
			draw_microbatch(s, p, c, k);
	out(s, "</g>\n");

	/* Arena ends, with brackets and names to the right. */
	for (a = 0; a < n_arenas; a++) {
		struct cgs_manifest_arena ar = cgs_manifest_arena(p->m, p->ri, a);
		double top = y_at(p, a, 0), bottom = y_at(p, a, ar.bytes);

		out(s, "<line class=\"arena\" x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\"><title>end of arena %u (%s): %" PRIu64 " bytes</title></line>\n",
		    PLOT_X, bottom, PLOT_R + 4, bottom, a,
		    ar.role == CGS_MANIFEST_ARENA_SAVED ? "saved" : "user_grad",
		    ar.bytes);
		out(s, "<path class=\"bracket\" d=\"M%d %.2fh4V%.2fh-4\"/>\n",
		    ARENA_LABEL_X - 4, top + 1, bottom - 1);
		if (bottom - top >= 12 && (top + bottom) / 2 - last_label >= 24) {
			last_label = (top + bottom) / 2;
			out(s, "<text class=\"small\" x=\"%d\" y=\"%.1f\">arena %u</text>\n",
			    ARENA_LABEL_X + 6, last_label - 2, a);
			out(s, "<text class=\"small\" x=\"%d\" y=\"%.1f\">%s</text>\n",
			    ARENA_LABEL_X + 6, last_label + 10,
			    cgs_cli_human(ar.bytes, h1, sizeof(h1)));
		}
	}
	live_line(s, p, peak);
	y = TOP_Y + (double)st.lower_bound_bytes * p->y_scale;
	out(s, "<line class=\"bound\" x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\"><title>lower bound of rank %u: %" PRIu64 " bytes, the heaviest set of frames live together in any reachable order</title></line>\n",
	    PLOT_X, y, PLOT_R, y, cgs_manifest_rank_id(p->m, p->ri),
	    st.lower_bound_bytes);
	out(s, "<text class=\"halo\" x=\"%d\" y=\"%.1f\">lower bound %s; arenas %s</text>\n",
	    PLOT_X + 6, y - 5, cgs_cli_human(st.lower_bound_bytes, h1, sizeof(h1)),
	    cgs_cli_human(st.bytes, h2, sizeof(h2)));
	out(s, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
	    PLOT_X, TOP_Y, PLOT_R - PLOT_X, TOP_H);

	/* The order itself under the view: entries when they fit. */
	label_every = 1;
	while (p->x_step * (double)label_every < 11)
		label_every *= 2;
	for (pos = 0; pos < p->len; pos += label_every) {
		double x = x_at(p, pos) + p->x_step * (double)label_every / 2;

		if (label_every == 1)
			out(s, "<text class=\"entry\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
			    x, TOP_Y + TOP_H + 13, p->order[pos]);
		else if (pos % (label_every * 4) == 0)
			out(s, "<text class=\"entry\" x=\"%.1f\" y=\"%d\" text-anchor=\"start\">%" PRIu64 "</text>\n",
			    x_at(p, pos), TOP_Y + TOP_H + 13, pos);
	}
	out(s, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">rank %u's capture order for %u microbatches (%s); arena bytes down</text>\n",
	    (PLOT_X + PLOT_R) / 2, TOP_Y + TOP_H + 32,
	    cgs_manifest_rank_id(p->m, p->ri), p->n,
	    label_every == 1 ? "c: a forward of chunk c-1, -c: its backward"
			     : "positions from 0");
}

/* The bar view: bytes per rank, three ways, with the lower bound. */
static void draw_bars(struct svg *s, const struct plot *p)
{
	static const char *const bar_fill[] = {"#2f5d8a", "#b8b8b8", "#e39c37"};
	static const char *const bar_what[] = {
		"cgslot, variants sharing",
		"without sharing (every variant its own arenas)",
		"upstream (one arena per colour)",
	};
	uint32_t nr = p->in->n_ranks, ri, b, label_every = 1;
	uint64_t top = 1;
	double gw = (double)(PLOT_R - PLOT_X) / nr, bw = gw * 0.8 / 3;
	int y0 = p->bars_y;
	char h[32];

	if (bw > 36)
		bw = 36;
	for (ri = 0; ri < nr; ri++) {
		struct cgs_manifest_rank_stats st = cgs_manifest_rank_stats(p->m, ri);
		uint64_t v[3] = {st.bytes, st.bytes_without_sharing,
				 st.bytes_colour_arenas};

		for (b = 0; b < 3; b++)
			if (v[b] > top)
				top = v[b];
	}
	out(s, "<text class=\"heading\" x=\"%d\" y=\"%d\">Bytes per rank</text>\n",
	    PLOT_X, y0 - 12);
	/* Bars grow up from the axis at y0 + BARS_H. */
	{
		uint64_t unit;
		const char *name;
		double step, v;

		axis_step(top, &unit, &name, &step);
		for (v = 0; v * (double)unit <= (double)top * 1.0001; v += step) {
			double y = y0 + BARS_H - v * (double)unit / (double)top * BARS_H;

			out(s, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
			    PLOT_X, y, PLOT_R, y);
			out(s, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g %s</text>\n",
			    PLOT_X - 6, y + 4, v, name);
		}
	}
	while (gw * label_every < 48)
		label_every *= 2;
	out(s, "<g id=\"bars\">\n");
	for (ri = 0; ri < nr; ri++) {
		struct cgs_manifest_rank_stats st = cgs_manifest_rank_stats(p->m, ri);
		uint64_t v[3] = {st.bytes, st.bytes_without_sharing,
				 st.bytes_colour_arenas};
		uint32_t rank = cgs_manifest_rank_id(p->m, ri);
		double gx = PLOT_X + gw * ri + gw * 0.1;
		double yl = y0 + BARS_H - (double)st.lower_bound_bytes / (double)top * BARS_H;
		char tip[256];

		if (gw < 6 * 3) {
			gx = PLOT_X + gw * ri;
			bw = gw / 3;
		} else {
			gx += (gw * 0.8 - 3 * bw) / 2;
		}
		for (b = 0; b < 3; b++) {
			double hgt = (double)v[b] / (double)top * BARS_H;

			snprintf(tip, sizeof(tip), "rank %u, %s: %" PRIu64 " bytes (%s)",
				 rank, bar_what[b], v[b], cgs_cli_human(v[b], h, sizeof(h)));
			box(s, gx + bw * b, bw, y0 + BARS_H - hgt, hgt,
			    bar_fill[b], "bar", tip);
		}
		snprintf(tip, sizeof(tip),
			 "rank %u, lower bound: %" PRIu64 " bytes (%s)", rank,
			 st.lower_bound_bytes,
			 cgs_cli_human(st.lower_bound_bytes, h, sizeof(h)));
		out(s, "<line class=\"bound\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\"><title>",
		    gx - 3, yl, gx + 3 * bw + 3, yl);
		out_text(s, tip);
		out(s, "</title></line>\n");
		if (ri % label_every == 0)
			out(s, "<text class=\"%s\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">rank %u</text>\n",
			    ri == p->ri ? "tick sel" : "tick",
			    gx + 1.5 * bw, y0 + BARS_H + 15, rank);
	}
	out(s, "</g>\n<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
	    PLOT_X, y0, PLOT_R - PLOT_X, BARS_H);
	/* The key of the bars, right of them. */
	for (b = 0; b < 3; b++) {
		int y = y0 + 8 + 34 * (int)b;

		out(s, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>\n",
		    LEGEND_X, y, bar_fill[b]);
		out(s, "<text class=\"small\" x=\"%d\" y=\"%d\">", LEGEND_X + 20, y + 11);
		out_text(s, b == 0 ? "cgslot: variants share" :
			    b == 1 ? "every variant its own" : "upstream: one arena");
		out(s, "</text>\n<text class=\"small\" x=\"%d\" y=\"%d\">%s</text>\n",
		    LEGEND_X + 20, y + 24,
		    b == 0 ? "arenas (this plan)" :
		    b == 1 ? "arenas (no sharing)" : "per colour");
	}
	out(s, "<line class=\"bound\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
	    LEGEND_X, y0 + 8 + 34 * 3 + 7, LEGEND_X + 14, y0 + 8 + 34 * 3 + 7);
	out(s, "<text class=\"small\" x=\"%d\" y=\"%d\">lower bound</text>\n",
	    LEGEND_X + 20, y0 + 8 + 34 * 3 + 11);
}

/* The legend of the top view, in a box whose place the tests check. */
static void draw_legend(struct svg *s, const struct plot *p, uint64_t peak)
{
	const struct cgs_manifest_info *in = p->in;
	uint32_t c, v, a, n_arenas = cgs_manifest_arena_count(p->m, p->ri);
	uint32_t shown_chunks = in->vpp < 12 ? in->vpp : 12, shown_v = 0;
	int y = TOP_Y, y_box = TOP_Y - 8;
	char fill[16], h[32];

	out(s, "<g id=\"legend\">\n");
	/* The box is drawn first: its height is known from the counts. */
	{
		uint32_t nv = p->n_show < 8 ? p->n_show : 8;
		uint32_t na = n_arenas < 6 ? n_arenas : 6;
		int h_box = 8 + 18 + 18 * (int)shown_chunks +
			    (in->vpp > shown_chunks ? 16 : 0) + 24 + 18 * (int)nv +
			    (p->n_show > nv ? 16 : 0) + 24 + 3 * 18 + 24 +
			    16 * (int)na + (n_arenas > na ? 16 : 0) + 24 + 8;

		out(s, "<rect id=\"legend-box\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
		    LEGEND_X - 8, y_box, LEGEND_W, h_box);
	}
	y += 10;
	out(s, "<text class=\"heading\" x=\"%d\" y=\"%d\">Chunks</text>\n",
	    LEGEND_X, y);
	y += 8;
	for (c = 0; c < shown_chunks; c++, y += 18) {
		out(s, "<rect class=\"swatch chunk\" x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>\n",
		    LEGEND_X, y, chunk_palette[c % N_PALETTE]);
		out(s, "<text class=\"small\" x=\"%d\" y=\"%d\">chunk %u (%u forward, -%u backward)</text>\n",
		    LEGEND_X + 20, y + 11, c, c + 1, c + 1);
	}
	if (in->vpp > shown_chunks) {
		out(s, "<text class=\"small\" x=\"%d\" y=\"%d\">... %u chunks, colours repeat</text>\n",
		    LEGEND_X, y + 11, in->vpp);
		y += 16;
	}
	y += 24;
	out(s, "<text class=\"heading\" x=\"%d\" y=\"%d\">Variants (shade)</text>\n",
	    LEGEND_X, y - 8);
	for (v = 0; v < in->n_variants; v++) {
		if (!p->show[v])
			continue;
		if (++shown_v > 8)
			continue;
		shade(0, variant_shade(p, v), fill, sizeof(fill));
		out(s, "<rect class=\"swatch\" x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>\n",
		    LEGEND_X, y, fill);
		out(s, "<text class=\"small\" x=\"%d\" y=\"%d\">", LEGEND_X + 20, y + 11);
		out_text(s, cgs_manifest_variant_name(p->m, v));
		out(s, " (cp %u)</text>\n", cgs_manifest_variant_cp(p->m, v));
		y += 18;
	}
	if (p->n_show > 8) {
		out(s, "<text class=\"small\" x=\"%d\" y=\"%d\">... %u variants</text>\n",
		    LEGEND_X, y + 11, p->n_show);
		y += 16;
	}
	y += 24;
	out(s, "<text class=\"heading\" x=\"%d\" y=\"%d\">Lines</text>\n",
	    LEGEND_X, y - 8);
	out(s, "<line class=\"bound\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
	    LEGEND_X, y + 7, LEGEND_X + 14, y + 7);
	out(s, "<text class=\"small\" x=\"%d\" y=\"%d\">lower bound %s</text>\n",
	    LEGEND_X + 20, y + 11,
	    cgs_cli_human(cgs_manifest_rank_stats(p->m, p->ri).lower_bound_bytes, h,
		  sizeof(h)));
	y += 18;
	out(s, "<line class=\"live\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
	    LEGEND_X, y + 7, LEGEND_X + 14, y + 7);
	out(s, "<text class=\"small\" x=\"%d\" y=\"%d\">live bytes (peak %s)</text>\n",
	    LEGEND_X + 20, y + 11, cgs_cli_human(peak, h, sizeof(h)));
	y += 18;
	out(s, "<line class=\"arena\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
	    LEGEND_X, y + 7, LEGEND_X + 14, y + 7);
	out(s, "<text class=\"small\" x=\"%d\" y=\"%d\">end of an arena</text>\n",
	    LEGEND_X + 20, y + 11);
	y += 18 + 24;
	out(s, "<text class=\"heading\" x=\"%d\" y=\"%d\">Arenas</text>\n",
	    LEGEND_X, y - 8);
	for (a = 0; a < n_arenas && a < 6; a++, y += 16) {
		struct cgs_manifest_arena ar = cgs_manifest_arena(p->m, p->ri, a);

		out(s, "<text class=\"small\" x=\"%d\" y=\"%d\">%u  %s  %s</text>\n",
		    LEGEND_X, y + 8, a,
		    ar.role == CGS_MANIFEST_ARENA_SAVED ? "saved" : "user_grad",
		    cgs_cli_human(ar.bytes, h, sizeof(h)));
	}
	if (n_arenas > 6) {
		out(s, "<text class=\"small\" x=\"%d\" y=\"%d\">... %u arenas</text>\n",
		    LEGEND_X, y + 8, n_arenas);
		y += 16;
	}
	y += 16;
	out(s, "<text class=\"small note\" x=\"%d\" y=\"%d\">grey: a frame's extent; hover a box</text>\n",
	    LEGEND_X, y);
	out(s, "</g>\n");
}

static void draw(struct svg *s, struct plot *p)
{
	const struct cgs_manifest_info *in = p->in;
	uint32_t rank = cgs_manifest_rank_id(p->m, p->ri), v, shown = 0;
	uint64_t peak = 0;

	out(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	       "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
	    PAGE_W, p->page_h, PAGE_W, p->page_h);
	out(s, "<title>cgslot plan of ");
	out_text(s, *in->name ? in->name : p->path);
	out(s, ", rank %u, %u microbatches</title>\n", rank, p->n);
	out(s, "<style>\n"
	       "text{font-family:'DejaVu Sans',Verdana,sans-serif;font-size:12px;fill:#222}\n"
	       ".title{font-size:18px;font-weight:bold}\n"
	       ".heading{font-size:13px;font-weight:bold}\n"
	       ".small,.tick{font-size:11px}.entry{font-size:8px;fill:#555}\n"
	       ".sel{font-weight:bold}.note{fill:#666}.axis{font-size:12px;fill:#444}\n"
	       ".halo{paint-order:stroke;stroke:#fff;stroke-width:3px;font-size:11px;fill:#b3261e}\n"
	       ".f{stroke:#999;stroke-width:.3}\n"
	       ".b{stroke:#fff;stroke-width:.3}\n"
	       ".b:hover,.f:hover,.bar:hover{stroke:#000;stroke-width:1.2}\n"
	       ".grid{stroke:#ddd;stroke-width:1}\n"
	       ".frame{fill:none;stroke:#888;stroke-width:1}\n"
	       ".arena{stroke:#111;stroke-width:1.2}\n"
	       ".bracket{fill:none;stroke:#555;stroke-width:1}\n"
	       ".bound{stroke:#c0392b;stroke-width:2;stroke-dasharray:6 3}\n"
	       ".live{fill:none;stroke:#333;stroke-width:1;stroke-dasharray:3 2}\n"
	       "#legend-box{fill:#fafafa;stroke:#ccc}\n"
	       "</style>\n");
	out(s, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
	out(s, "<text class=\"title\" x=\"%d\" y=\"30\">", PLOT_X);
	out_text(s, *in->name ? in->name : p->path);
	out(s, ": rank %u, %u microbatches</text>\n", rank, p->n);
	out(s, "<text x=\"%d\" y=\"52\">pp %u, vpp %u, %u layers per rank, ring of %u slots; variants drawn:",
	    PLOT_X, in->pp, in->vpp, in->layers_total, p->slots);
	for (v = 0; v < in->n_variants; v++) {
		if (!p->show[v])
			continue;
		out(s, "%s ", shown++ ? "," : "");
		out_text(s, cgs_manifest_variant_name(p->m, v));
	}
	out(s, "</text>\n");
	draw_top(s, p, &peak);
	draw_legend(s, p, peak);
	draw_bars(s, p);
	out(s, "</svg>\n");
}

/* Select the variants named in a comma-separated list. */
static int parse_variants(struct plot *p, const char *list,
			  struct cgs_error *err)
{
	const char *at = list;
	uint32_t v;

	if (!list) {
		memset(p->show, 1, p->in->n_variants);
		p->n_show = p->in->n_variants;
		return 0;
	}
	memset(p->show, 0, p->in->n_variants);
	p->n_show = 0;
	for (;;) {
		size_t n = strcspn(at, ",");

		for (v = 0; v < p->in->n_variants; v++) {
			const char *name = cgs_manifest_variant_name(p->m, v);

			if (strlen(name) == n && strncmp(name, at, n) == 0)
				break;
		}
		if (v == p->in->n_variants) {
			char names[256] = "";
			size_t used = 0;

			for (v = 0; v < p->in->n_variants && used < sizeof(names); v++)
				used += (size_t)snprintf(names + used,
					sizeof(names) - used, "%s%s", v ? ", " : "",
					cgs_manifest_variant_name(p->m, v));
			return cgs_error_at(err, CGS_E_INVALID, p->path, 0, 0,
					    "--variants: '%.*s' is not a variant of this manifest; accepted: %s",
					    (int)n, at, names);
		}
		if (!p->show[v])
			p->n_show++;
		p->show[v] = 1;
		if (!at[n])
			return 0;
		at += n + 1;
	}
}

struct plot_args {
	const char *manifest, *output, *variants;
	unsigned rank, microbatches;
	int have_rank, have_microbatches;
};

static int plot(const struct plot_args *args)
{
	struct cgs_error err = {0};
	struct cgs_manifest *m = NULL;
	struct plot p = {0};
	struct svg s = {0};
	struct cgs_atomic_file af;
	uint32_t a, n_arenas;
	int rc;

	rc = cgs_manifest_open_file(args->manifest, &m, &err);
	if (rc)
		goto out;
	p.m = m;
	p.in = cgs_manifest_info(m);
	p.path = args->manifest;
	if (args->have_rank) {
		rc = cgs_manifest_find_rank(m, args->rank, &p.ri, &err);
		if (rc)
			goto out;
	}
	if (args->have_microbatches) {
		rc = cgs_manifest_find_reachable(m, p.ri, args->microbatches,
						 &p.ci, &err);
		if (rc)
			goto out;
	} else {
		p.ci = cgs_manifest_reachable_count(m, p.ri) - 1;
	}
	p.n = cgs_manifest_reachable(m, p.ri, p.ci);
	p.slots = cgs_manifest_rank_ring(m, p.ri).slots;
	p.show = calloc(p.in->n_variants, 1);
	n_arenas = cgs_manifest_arena_count(m, p.ri);
	p.arena_base = calloc(n_arenas + 1, sizeof(*p.arena_base));
	if (!p.show || !p.arena_base) {
		rc = cgs_error_set(&err, CGS_E_NOMEM, "out of memory");
		goto out;
	}
	rc = parse_variants(&p, args->variants, &err);
	if (rc)
		goto out;
	for (a = 0; a < n_arenas; a++)
		p.arena_base[a + 1] = p.arena_base[a] +
				      cgs_manifest_arena(m, p.ri, a).bytes;
	p.total = p.arena_base[n_arenas];
	if (cgs_manifest_rank_stats(m, p.ri).lower_bound_bytes > p.total)
		p.total = cgs_manifest_rank_stats(m, p.ri).lower_bound_bytes;
	if (!p.total)
		p.total = 1;
	rc = replay(&p, &err);
	if (rc)
		goto out;
	p.x_step = (double)(PLOT_R - PLOT_X) / (double)p.len;
	p.y_scale = (double)TOP_H / (double)p.total;
	p.bars_y = TOP_Y + TOP_H + BARS_GAP;
	p.page_h = p.bars_y + BARS_H + 32;
	draw(&s, &p);
	if (s.failed) {
		rc = cgs_error_set(&err, CGS_E_NOMEM,
				   "out of memory building the picture");
		goto out;
	}
	/* A failed write or commit leaves nothing behind. */
	rc = cgs_atomic_file_begin(&af, args->output, &err);
	if (rc == 0)
		rc = cgs_atomic_file_write(&af, s.buf, s.len, &err);
	if (rc)
		goto out;
	/*
	 * The summary before the commit, so that a failed stdout leaves no
	 * replaced picture; on standard error when the picture itself goes
	 * to standard output.
	 */
	if (cgs_cli_verbosity >= 0)
		fprintf(cgs_cli_summary_stream(&af),
			"plotted %s rank %u, %u microbatches -> %s (%zu bytes)\n",
			args->manifest, cgs_manifest_rank_id(m, p.ri), p.n,
			args->output, s.len);
	rc = cgs_cli_commit_output(&af, cgs_cli_summary_stream(&af),
				   "picture", &err);
	if (rc)
		goto out;
	cgs_cli_note("plot: rank %u, %u microbatches: %" PRIu64 " order positions, %" PRIu64 " boxes with tooltips, %u of %u variants",
		     cgs_manifest_rank_id(m, p.ri), p.n, p.len, s.boxes,
		     p.n_show, p.in->n_variants);
out:
	free(s.buf);
	free(p.show);
	free(p.arena_base);
	free(p.order);
	free(p.fwd_at);
	free(p.bwd_at);
	free(p.grad_until);
	cgs_manifest_close(&m);
	return rc ? cgs_cli_report(&err) : cgs_cli_finish(CGS_EXIT_OK);
}

int cgs_cmd_plot(int argc, char **argv)
{
	enum { OPT_RANK = 256, OPT_MICROBATCHES, OPT_VARIANTS };
	static const struct option options[] = {
		{"output", required_argument, NULL, 'o'},
		{"rank", required_argument, NULL, OPT_RANK},
		{"microbatches", required_argument, NULL, OPT_MICROBATCHES},
		{"variants", required_argument, NULL, OPT_VARIANTS},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct plot_args args = {0};
	int opt, rc;

	optind = 1;
	while ((opt = cgs_cli_getopt(argc, argv, "o:h", options)) != -1) {
		switch (opt) {
		case 'o':
			args.output = optarg;
			break;
		case OPT_RANK:
			rc = cgs_cli_parse_u32("plot", "--rank", optarg, 0,
					       UINT32_MAX, &args.rank);
			if (rc)
				return rc;
			args.have_rank = 1;
			break;
		case OPT_MICROBATCHES:
			rc = cgs_cli_parse_u32("plot", "--microbatches", optarg,
					       1, UINT32_MAX, &args.microbatches);
			if (rc)
				return rc;
			args.have_microbatches = 1;
			break;
		case OPT_VARIANTS:
			if (!*optarg)
				return cgs_cli_usage_error("plot",
					"--variants needs a comma-separated list of variant names");
			args.variants = optarg;
			break;
		case 'h':
			return cgs_cli_help("plot");
		default:
			return cgs_cli_bad_option("plot", opt, argv);
		}
	}
	if (argc - optind != 1)
		return cgs_cli_usage_error("plot", "expected one MANIFEST, got %d",
					   argc - optind);
	if (!args.output || !*args.output)
		return cgs_cli_usage_error("plot", "-o FILE.svg is required");
	args.manifest = argv[optind];
	if (cgs_atomic_file_same(args.manifest, args.output))
		return cgs_cli_usage_error("plot",
			"the output '%s' is the manifest being plotted; give another -o FILE.svg",
			args.output);
	return plot(&args);
}
