/*
 * cgslot pack: the packing engine (src/plan/dsa.h) on its own, over the
 * CSV buffer lists of the public dynamic-storage-allocation benchmarks:
 * a header naming the columns id, lower, upper, size and optionally
 * alignment, then one buffer per line, live over [lower, upper).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "input/units.h"
#include "plan/dsa.h"

enum column { COL_ID, COL_LOWER, COL_UPPER, COL_SIZE, COL_ALIGN, N_COLS };

static const char *const column_name[N_COLS] = {
	"id", "lower", "upper", "size", "alignment",
};

struct buffers {
	uint32_t n, cap;
	int64_t *lower, *upper;
	uint64_t *size, *align, *offset;
	uint32_t *line;       /* 1-based line of each buffer */
	const char **row;     /* the row's text, for the output */
	uint32_t *row_len;
	const char **id;
	uint32_t *id_len;
	int has_align;
};

static void buffers_release(struct buffers *b)
{
	free(b->lower);
	free(b->upper);
	free(b->size);
	free(b->align);
	free(b->offset);
	free(b->line);
	free(b->row);
	free(b->row_len);
	free(b->id);
	free(b->id_len);
	memset(b, 0, sizeof(*b));
}

static int buffers_grow(struct buffers *b)
{
	uint32_t cap = b->cap ? b->cap * 2 : 1024;

#define GROW(f) do { \
		void *p_ = realloc(b->f, (size_t)cap * sizeof(*b->f)); \
		if (!p_) \
			return -1; \
		b->f = p_; \
	} while (0)
	if (b->cap >= UINT32_MAX / 2)
		return -1;
	GROW(lower);
	GROW(upper);
	GROW(size);
	GROW(align);
	GROW(line);
	GROW(row);
	GROW(row_len);
	GROW(id);
	GROW(id_len);
#undef GROW
	b->cap = cap;
	return 0;
}

/* A field of one line: text and 1-based column. */
struct field {
	const char *s;
	size_t len;
	unsigned col;
};

/* Split a line at commas; returns the field count (at most max + 1). */
static unsigned split(const char *line, size_t len, struct field *f,
		      unsigned max)
{
	unsigned k = 0;
	size_t i, start = 0;

	for (i = 0; i <= len; i++)
		if (i == len || line[i] == ',') {
			if (k <= max) {
				f[k].s = line + start;
				f[k].len = i - start;
				f[k].col = (unsigned)start + 1;
			}
			k++;
			start = i + 1;
		}
	return k;
}

/* Parse a signed decimal; 0, or -1 with a message. */
static int parse_int(const struct field *f, const char *what, int64_t *out,
		     char *msg, size_t msg_size)
{
	uint64_t v = 0, limit;
	size_t i = 0;
	int neg = 0;

	if (f->len > 0 && (f->s[0] == '-' || f->s[0] == '+')) {
		neg = f->s[0] == '-';
		i = 1;
	}
	if (i == f->len) {
		snprintf(msg, msg_size, "%s '%.*s' is not an integer", what,
			 (int)f->len, f->s);
		return -1;
	}
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < f->len; i++) {
		unsigned d = (unsigned char)f->s[i] - '0';

		if (d > 9) {
			snprintf(msg, msg_size, "%s '%.*s' is not an integer",
				 what, (int)f->len, f->s);
			return -1;
		}
		if (v > (limit - d) / 10) {
			snprintf(msg, msg_size,
				 "%s '%.*s' does not fit in a signed 64-bit integer",
				 what, (int)f->len, f->s);
			return -1;
		}
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* Open-addressing table of ids: index + 1 of the buffer, 0 empty. */
struct id_table {
	uint32_t *slot;
	size_t mask;
};

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* Insert buffer i; returns the earlier buffer with the same id, or -1. */
static int64_t id_insert(struct id_table *t, const struct buffers *b,
			 uint32_t i)
{
	size_t h = (size_t)hash_bytes(b->id[i], b->id_len[i]) & t->mask;

	while (t->slot[h]) {
		uint32_t j = t->slot[h] - 1;

		if (b->id_len[j] == b->id_len[i] &&
		    memcmp(b->id[j], b->id[i], b->id_len[i]) == 0)
			return j;
		h = (h + 1) & t->mask;
	}
	t->slot[h] = i + 1;
	return -1;
}

/* Parse the whole CSV text into b; 0 or an exit code (error printed). */
static int parse_csv(const char *path, const char *text, size_t len,
		     struct buffers *b)
{
	struct cgs_error err = {0};
	struct field f[N_COLS + 1];
	int map[N_COLS + 1]; /* field index -> column */
	int where[N_COLS];   /* column -> field index */
	unsigned nf = 0, k, line = 0;
	size_t pos = 0;
	struct id_table ids = {0};
	uint64_t total = 0;
	int header = 0, rc = CGS_EXIT_INVALID;
	char msg[512];

	if (memchr(text, '\0', len)) {
		cgs_error_at(&err, CGS_E_SYNTAX, path, 0, 0,
			     "the file holds a NUL byte; want a text CSV file");
		return cgs_cli_report(&err);
	}
	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos;
		struct buffers *B = b;
		uint32_t i;
		int64_t v[N_COLS];

		pos += l + (nl != NULL);
		line++;
		if (l > 0 && s[l - 1] == '\r')
			l--;
		if (l == 0)
			continue;
		if (memchr(s, '"', l)) {
			cgs_error_at(&err, CGS_E_SYNTAX, path, line,
				     (unsigned)((const char *)memchr(s, '"', l) - s) + 1,
				     "quoted fields are not supported");
			goto fail;
		}
		k = split(s, l, f, N_COLS);
		if (!header) {
			for (k = 0; k < N_COLS; k++)
				where[k] = -1;
			if (split(s, l, f, N_COLS) > N_COLS) {
				cgs_error_at(&err, CGS_E_SYNTAX, path, line,
					     f[N_COLS].col,
					     "the header has more than %d columns; want id,lower,upper,size[,alignment]",
					     N_COLS);
				goto fail;
			}
			nf = split(s, l, f, N_COLS);
			for (k = 0; k < nf; k++) {
				int c;

				for (c = 0; c < N_COLS; c++)
					if (strlen(column_name[c]) == f[k].len &&
					    memcmp(column_name[c], f[k].s,
						   f[k].len) == 0)
						break;
				if (c == N_COLS) {
					cgs_error_at(&err, CGS_E_SYNTAX, path,
						     line, f[k].col,
						     "'%.*s' is not a column name; want a header row id,lower,upper,size[,alignment]",
						     (int)(f[k].len > 40 ? 40 : f[k].len),
						     f[k].s);
					goto fail;
				}
				if (where[c] >= 0) {
					cgs_error_at(&err, CGS_E_SYNTAX, path,
						     line, f[k].col,
						     "column '%s' appears twice in the header",
						     column_name[c]);
					goto fail;
				}
				where[c] = (int)k;
				map[k] = c;
			}
			for (k = 0; k < COL_ALIGN; k++)
				if (where[k] < 0) {
					cgs_error_at(&err, CGS_E_SYNTAX, path,
						     line, 1,
						     "the header lacks column '%s'; want id,lower,upper,size[,alignment]",
						     column_name[k]);
					goto fail;
				}
			b->has_align = where[COL_ALIGN] >= 0;
			header = 1;
			continue;
		}
		if (k != nf) {
			cgs_error_at(&err, CGS_E_SYNTAX, path, line,
				     k > nf ? f[nf].col : (unsigned)l + 1,
				     "%u fields; the header has %u", k, nf);
			goto fail;
		}
		if (B->n == B->cap && buffers_grow(B)) {
			cgs_error_set(&err, CGS_E_NOMEM, "out of memory");
			rc = CGS_EXIT_SYSTEM;
			goto fail;
		}
		v[COL_ALIGN] = 1;
		for (k = 0; k < nf; k++) {
			int c = map[k];

			if (c == COL_ID)
				continue;
			if (parse_int(&f[k], column_name[c], &v[c], msg,
				      sizeof(msg))) {
				cgs_error_at(&err, CGS_E_INVALID, path, line,
					     f[k].col, "%s", msg);
				goto fail;
			}
		}
		if (f[where[COL_ID]].len == 0) {
			cgs_error_at(&err, CGS_E_INVALID, path, line,
				     f[where[COL_ID]].col, "empty id");
			goto fail;
		}
		if (v[COL_SIZE] < 0) {
			cgs_error_at(&err, CGS_E_INVALID, path, line,
				     f[where[COL_SIZE]].col,
				     "size %" PRId64 " is negative; want a byte count >= 0",
				     v[COL_SIZE]);
			goto fail;
		}
		if (v[COL_UPPER] <= v[COL_LOWER]) {
			cgs_error_at(&err, CGS_E_INVALID, path, line,
				     f[where[COL_UPPER]].col,
				     "upper %" PRId64 " is not above lower %" PRId64 "; a lifetime [lower, upper) must not be empty",
				     v[COL_UPPER], v[COL_LOWER]);
			goto fail;
		}
		if (v[COL_ALIGN] < 1) {
			cgs_error_at(&err, CGS_E_INVALID, path, line,
				     f[where[COL_ALIGN]].col,
				     "alignment %" PRId64 " is below 1; want a positive byte count",
				     v[COL_ALIGN]);
			goto fail;
		}
		total += (uint64_t)v[COL_SIZE];
		if (total > INT64_MAX ||
		    (total += (uint64_t)v[COL_ALIGN] - 1) > INT64_MAX) {
			cgs_error_at(&err, CGS_E_LIMIT, path, line,
				     f[where[COL_SIZE]].col,
				     "the sizes and alignments up to this buffer sum to more than 2^63-1 bytes, so offsets could overflow");
			goto fail;
		}
		i = B->n++;
		B->lower[i] = v[COL_LOWER];
		B->upper[i] = v[COL_UPPER];
		B->size[i] = (uint64_t)v[COL_SIZE];
		B->align[i] = (uint64_t)v[COL_ALIGN];
		B->line[i] = line;
		B->row[i] = s;
		B->row_len[i] = (uint32_t)l;
		B->id[i] = f[where[COL_ID]].s;
		B->id_len[i] = (uint32_t)f[where[COL_ID]].len;
	}
	if (!header) {
		cgs_error_at(&err, CGS_E_SYNTAX, path, line ? line : 1, 1,
			     "missing header row id,lower,upper,size[,alignment]");
		goto fail;
	}
	/* Duplicate ids, reported at the second occurrence. */
	{
		size_t slots = 16;
		uint32_t i;

		while (slots < 2 * (size_t)b->n)
			slots *= 2;
		ids.slot = calloc(slots, sizeof(*ids.slot));
		ids.mask = slots - 1;
		if (!ids.slot) {
			cgs_error_set(&err, CGS_E_NOMEM, "out of memory");
			rc = CGS_EXIT_SYSTEM;
			goto fail;
		}
		for (i = 0; i < b->n; i++) {
			int64_t j = id_insert(&ids, b, i);

			if (j >= 0) {
				cgs_error_at(&err, CGS_E_INVALID, path,
					     b->line[i],
					     (unsigned)(b->id[i] - b->row[i]) + 1,
					     "duplicate id '%.*s' (first on line %u)",
					     (int)(b->id_len[i] > 60 ? 60 : b->id_len[i]),
					     b->id[i], b->line[j]);
				free(ids.slot);
				goto fail;
			}
		}
		free(ids.slot);
	}
	return 0;
fail:
	if (rc == CGS_EXIT_SYSTEM) {
		cgs_cli_report(&err);
		return rc;
	}
	return cgs_cli_report(&err);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	char *buf = NULL, *p;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			p = realloc(buf, cap + 1);
			if (!p) {
				free(buf);
				buf = NULL;
				errno = ENOMEM;
				break;
			}
			buf = p;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			if (ferror(f)) {
				free(buf);
				buf = NULL;
			}
			break;
		}
	}
	if (f != stdin)
		fclose(f);
	if (buf) {
		buf[n] = '\0';
		*len = n;
	}
	return buf;
}

/* The output CSV: the input's header and rows, each with ",offset". */
static char *format_output(const char *text, const struct buffers *b,
			   size_t *out_len)
{
	const char *nl = strchr(text, '\n');
	size_t hl = 0, cap, n = 0;
	char *out;
	uint32_t i;

	/* The header is the first non-blank line. */
	while (text[hl] == '\n' || text[hl] == '\r')
		hl++;
	text += hl;
	nl = strchr(text, '\n');
	hl = nl ? (size_t)(nl - text) : strlen(text);
	if (hl > 0 && text[hl - 1] == '\r')
		hl--;
	cap = hl + 16;
	for (i = 0; i < b->n; i++)
		cap += b->row_len[i] + 22;
	out = malloc(cap);
	if (!out)
		return NULL;
	memcpy(out, text, hl);
	n = hl;
	n += (size_t)sprintf(out + n, ",offset\n");
	for (i = 0; i < b->n; i++) {
		memcpy(out + n, b->row[i], b->row_len[i]);
		n += b->row_len[i];
		n += (size_t)sprintf(out + n, ",%" PRIu64 "\n", b->offset[i]);
	}
	*out_len = n;
	return out;
}

static int pack(const char *input, const char *output, uint64_t capacity,
		double time_limit)
{
	struct cgs_dsa_options opt = {0};
	struct cgs_dsa_result res = {0};
	struct buffers b = {0};
	struct cgs_error err = {0};
	uint64_t *size = NULL, *align = NULL;
	int64_t *lower = NULL, *upper = NULL;
	uint32_t *idx = NULL, m = 0, i;
	size_t len = 0, out_len = 0;
	char *text, *out = NULL;
	struct timespec t0, t1;
	struct cgs_atomic_file f;
	FILE *sum = stdout;
	int rc, begun = 0;

	text = read_file(input, &len);
	if (!text) {
		fprintf(stderr, "cgslot: error: cannot read '%s': %s\n", input,
			strerror(errno));
		return CGS_EXIT_SYSTEM;
	}
	rc = parse_csv(strcmp(input, "-") == 0 ? "<stdin>" : input, text,
		       len, &b);
	if (rc)
		goto out;
	rc = CGS_EXIT_SYSTEM;
	b.offset = calloc((size_t)b.n + 1, sizeof(*b.offset));
	idx = malloc(((size_t)b.n + 1) * sizeof(*idx));
	lower = malloc(((size_t)b.n + 1) * sizeof(*lower));
	upper = malloc(((size_t)b.n + 1) * sizeof(*upper));
	size = malloc(((size_t)b.n + 1) * sizeof(*size));
	align = malloc(((size_t)b.n + 1) * sizeof(*align));
	if (!b.offset || !idx || !lower || !upper || !size || !align) {
		fprintf(stderr, "cgslot: error: out of memory\n");
		goto out;
	}
	/* Empty buffers take no bytes: they stay at offset 0. */
	for (i = 0; i < b.n; i++)
		if (b.size[i] > 0) {
			idx[m] = i;
			lower[m] = b.lower[i];
			upper[m] = b.upper[i];
			size[m] = b.size[i];
			align[m++] = b.align[i];
		}
	opt.capacity = capacity;
	opt.time_limit = time_limit;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	{
		uint64_t *off = malloc(((size_t)m + 1) * sizeof(*off));

		if (!off) {
			fprintf(stderr, "cgslot: error: out of memory\n");
			rc = CGS_EXIT_SYSTEM;
			goto out;
		}
		rc = cgs_dsa_pack_intervals(m, lower, upper, size, align,
					    &opt, off, &res);
		for (i = 0; i < m && rc == 0; i++)
			b.offset[idx[i]] = off[i];
		free(off);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc) {
		cgs_error_set(&err, rc, "packing failed: %s",
			      cgs_status_name(rc));
		rc = cgs_cli_report(&err);
		goto out;
	}
	if (output) {
		out = format_output(text, &b, &out_len);
		if (!out) {
			fprintf(stderr, "cgslot: error: out of memory\n");
			rc = CGS_EXIT_SYSTEM;
			goto out;
		}
		if (cgs_atomic_file_begin(&f, output, &err) ||
		    cgs_atomic_file_write(&f, out, out_len, &err)) {
			rc = cgs_cli_report(&err);
			goto out;
		}
		begun = 1;
		sum = cgs_cli_summary_stream(&f);
	}
	fprintf(sum, "buffers: %u\n", b.n);
	fprintf(sum, "height: %" PRIu64 "\n", res.height);
	fprintf(sum, "lower bound: %" PRIu64 "\n", res.lower_bound);
	fprintf(sum, "ratio: %.6f%s\n", res.lower_bound ?
		(double)res.height / (double)res.lower_bound : 1.0,
		res.optimal ? " (optimal)" : "");
	fprintf(sum, "search nodes: %" PRIu64 "\n", res.nodes);
	fprintf(sum, "time: %.3f s\n", (double)(t1.tv_sec - t0.tv_sec) +
		(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	if (capacity && res.height > capacity) {
		fflush(sum);
		fprintf(stderr, "cgslot: %s: error: height %" PRIu64 " exceeds the capacity %" PRIu64 "; nothing written\n",
			input, res.height, capacity);
		rc = CGS_EXIT_INVALID;
		goto out;
	}
	if (begun) {
		begun = 0;
		if (cgs_cli_commit_output(&f, sum, "layout", &err)) {
			rc = cgs_cli_report(&err);
			goto out;
		}
	}
	rc = cgs_cli_finish(CGS_EXIT_OK);
out:
	if (begun)
		cgs_atomic_file_abort(&f);
	free(text);
	free(out);
	free(idx);
	free(lower);
	free(upper);
	free(size);
	free(align);
	buffers_release(&b);
	return rc;
}

int cgs_cmd_pack(int argc, char **argv)
{
	enum { OPT_CAPACITY = 256, OPT_TIME };
	static const struct option options[] = {
		{"output", required_argument, NULL, 'o'},
		{"capacity", required_argument, NULL, OPT_CAPACITY},
		{"time-limit", required_argument, NULL, OPT_TIME},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *output = NULL;
	uint64_t capacity = 0;
	double time_limit = 0;
	char msg[256], *end;
	int opt;

	optind = 1;
	while ((opt = cgs_cli_getopt(argc, argv, "ho:", options)) != -1) {
		switch (opt) {
		case 'o':
			output = optarg;
			break;
		case OPT_CAPACITY:
			if (cgs_size_parse(optarg, strlen(optarg), 0, &capacity,
					   msg, sizeof(msg)))
				return cgs_cli_usage_error("pack",
					"--capacity: %s", msg);
			break;
		case OPT_TIME:
			errno = 0;
			time_limit = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(time_limit > 0) || time_limit > 1e6)
				return cgs_cli_usage_error("pack",
					"--time-limit '%s' is not a number of seconds in (0, 1e6]",
					optarg);
			break;
		case 'h':
			return cgs_cli_help("pack");
		default:
			return cgs_cli_bad_option("pack", opt, argv);
		}
	}
	if (optind != argc - 1)
		return cgs_cli_usage_error("pack",
			optind == argc ? "no input CSV file" :
					 "one input CSV file, not %d",
			argc - optind);
	/* before any work, as compile and plot do */
	if (output && cgs_atomic_file_same(argv[optind], output))
		return cgs_cli_usage_error("pack",
			"the output '%s' is the input; choose another file",
			output);
	return pack(argv[optind], output, capacity, time_limit);
}
