#include "manifest/manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/checked.h"
#include "common/crc32c.h"
#include "common/error.h"
#include "manifest/format.h"

struct cgs_manifest {
	const uint8_t *base;
	size_t len;
	void *map;           /* non-NULL when opened from a file */
	size_t map_len;
	struct cgs_manifest_info info;
	const uint8_t *sec[CGS_MF_SECTIONS_KNOWN + 1];
	uint64_t sec_len[CGS_MF_SECTIONS_KNOWN + 1];
	uint32_t entry_bytes;
	uint32_t *layer_base;  /* vpp + 1 prefix sums */
	unsigned n_known;      /* sections this version defines */
	uint16_t known_minor;  /* the newest minor of its major this reads */
	uint32_t rank_bytes;   /* size of a RANKS entry in this major */
	struct rank_ring *rings;  /* n_ranks, decoded by check_ranks */
};

/* A rank's ring and where its per-rank tables start (format 1: derived). */
struct rank_ring {
	struct cgs_manifest_ring ring;
	uint64_t saved_first, user_grad_first;  /* frame indices */
	/* SLOT_MAPS entry index, or CHUNK_SLOT_MAPS with a per-chunk map */
	uint64_t slot_map_first;
	uint64_t entry_first;     /* ORDERS index of the rank's first order */
};

/* What validation needs besides the handle it fills. */
struct check {
	struct cgs_manifest *m;
	const char *path;
	struct cgs_error *err;
	uint64_t n_reachable, n_arenas, n_capture, n_entries;
	uint64_t n_saved, n_user_grad, n_map;  /* totals over the ranks */
	uint64_t n_chunk_map;  /* CHUNK_SLOT_MAPS entries over the ranks */
	uint32_t ri;  /* the rank check_figures is at */
};

static const char *const section_names[CGS_MF_SECTIONS_KNOWN + 1] = {
	"", "meta", "strings", "variants", "ranks", "reachable", "orders",
	"arenas", "saved frames", "user-grad frames", "saved roles",
	"user-grad layers", "capture", "slot maps", "chunk slot maps",
	"nested", "joint",
};

static int fail(struct check *c, int code, const char *fmt, ...)
	CGS_PRINTF(3, 4);
static const uint8_t *reachable_entry(const struct cgs_manifest *m,
				      uint32_t ri, uint32_t i);

static int fail(struct check *c, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cgs_error_vat(c->err, code, c->path, 0, 0, fmt, ap);
	va_end(ap);
	return code;
}

/* a * b, or UINT64_MAX when it overflows (no count here can be that). */
static uint64_t mul(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

static int add_ok(uint64_t *sum, uint64_t v)
{
	if (*sum > UINT64_MAX - v)
		return 0;
	*sum += v;
	return 1;
}

/* Check a section's payload length is count * entry bytes. */
static int expect_len(struct check *c, unsigned id, uint64_t count,
		      uint64_t entry, const char *what)
{
	uint64_t want = mul(count, entry);

	if (want == UINT64_MAX || c->m->sec_len[id] != want)
		return fail(c, CGS_E_FORMAT,
			    "section %u (%s) holds %llu bytes; %llu %s of %llu bytes need %llu",
			    id, section_names[id],
			    (unsigned long long)c->m->sec_len[id],
			    (unsigned long long)count, what,
			    (unsigned long long)entry,
			    (unsigned long long)want);
	return 0;
}

static int check_header(struct check *c)
{
	const uint8_t *b = c->m->base;
	size_t len = c->m->len;
	uint16_t major, minor;
	uint64_t file_bytes;

	if (len == 0)
		return fail(c, CGS_E_FORMAT, "manifest is empty");
	if (len < CGS_MF_MAGIC_BYTES ||
	    memcmp(b, CGS_MF_MAGIC, CGS_MF_MAGIC_BYTES) != 0)
		return fail(c, CGS_E_FORMAT,
			    "not a cgslot manifest: the file does not start with \"%s\"",
			    CGS_MF_MAGIC);
	if (len < CGS_MF_HEADER_BYTES + CGS_MF_TRAILER_BYTES)
		return fail(c, CGS_E_FORMAT,
			    "manifest is truncated: %zu bytes, the header and trailer alone take %d",
			    len, CGS_MF_HEADER_BYTES + CGS_MF_TRAILER_BYTES);
	major = cgs_get_le16(b + 8);
	minor = cgs_get_le16(b + 10);
	c->m->info.major = major;
	c->m->info.minor = minor;
	/*
	 * Every major keeps the magic, the version, file_bytes and the
	 * trailing CRC-32C where they are (cgslot-manifest(5), VERSIONS):
	 * a newer file has them right, a corrupt header has not, and its
	 * "version" is noise not worth printing.
	 */
	if (major > CGS_MANIFEST_MAJOR &&
	    (cgs_get_le64(b + 24) != len ||
	     cgs_get_le32(b + len - 4) != cgs_crc32c(0, b, len - 4)))
		return fail(c, CGS_E_FORMAT,
			    "manifest header is corrupt: its version field, recorded length and checksum match no manifest (this cgslot reads format %d.x)",
			    CGS_MANIFEST_MAJOR);
	if (major > CGS_MANIFEST_MAJOR)
		return fail(c, CGS_E_VERSION,
			    "manifest format %u.%u is newer than this cgslot reads (%d.x); use a newer cgslot",
			    major, minor, CGS_MANIFEST_MAJOR);
	if (major < CGS_MANIFEST_OLDEST_MAJOR)
		return fail(c, CGS_E_FORMAT,
			    "manifest format major version %u is not defined; accepted: %d to %d",
			    major, CGS_MANIFEST_OLDEST_MAJOR,
			    CGS_MANIFEST_MAJOR);
	c->m->n_known = major == 1 ? CGS_MF_SECTIONS_V1
			: minor < CGS_MF_MINOR_CHUNK_SLOT_MAPS ? CGS_MF_SECTIONS_V2_0
			: minor < CGS_MF_MINOR_NESTED ? CGS_MF_SECTIONS_V2_1
			: minor < CGS_MF_MINOR_JOINT ? CGS_MF_SECTIONS_V2_2
			: CGS_MF_SECTIONS_KNOWN;
	c->m->known_minor = major == CGS_MANIFEST_MAJOR ? CGS_MANIFEST_MINOR : 0;
	c->m->rank_bytes = major == 1 ? CGS_MF_RANK_ENTRY_BYTES_V1
				      : CGS_MF_RANK_ENTRY_BYTES;
	file_bytes = cgs_get_le64(b + 24);
	if (file_bytes != len)
		return fail(c, CGS_E_FORMAT,
			    "manifest is %s: the header says %llu bytes, the file has %zu",
			    file_bytes > len ? "truncated" : "longer than recorded",
			    (unsigned long long)file_bytes, len);
	if (cgs_get_le32(b + len - 4) != cgs_crc32c(0, b, len - 4))
		return fail(c, CGS_E_CHECKSUM,
			    "manifest checksum mismatch: stored CRC-32C %08x, computed %08x (the file is corrupt)",
			    cgs_get_le32(b + len - 4),
			    cgs_crc32c(0, b, len - 4));
	if (cgs_get_le32(b + 12) != CGS_MF_HEADER_BYTES)
		return fail(c, CGS_E_FORMAT,
			    "header size is %u; accepted: %d",
			    cgs_get_le32(b + 12), CGS_MF_HEADER_BYTES);
	if (cgs_get_le32(b + 20) != 0)
		return fail(c, CGS_E_FORMAT,
			    "reserved header field at offset 20 is %u; it must be 0",
			    cgs_get_le32(b + 20));
	if (cgs_get_le32(b + len - 8) != 0)
		return fail(c, CGS_E_FORMAT,
			    "reserved trailer field is %u; it must be 0",
			    cgs_get_le32(b + len - 8));
	if (len % 8)
		return fail(c, CGS_E_FORMAT,
			    "manifest length %zu is not a multiple of 8", len);
	return 0;
}

static int zero_bytes(const uint8_t *p, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The minor of major 2 that added section id (0: in every 2.x file). */
static unsigned section_minor(uint32_t id)
{
	return id == CGS_MF_CHUNK_SLOT_MAPS ? CGS_MF_MINOR_CHUNK_SLOT_MAPS
	       : id == CGS_MF_NESTED ? CGS_MF_MINOR_NESTED
	       : id == CGS_MF_JOINT ? CGS_MF_MINOR_JOINT : 0;
}

/* Walk the table of contents: sections back to back, 8-byte aligned. */
static int check_toc(struct check *c)
{
	struct cgs_manifest *m = c->m;
	const uint8_t *b = m->base;
	uint64_t n = cgs_get_le32(b + 16);
	uint64_t end = m->len - CGS_MF_TRAILER_BYTES;
	uint64_t pos, i, off, bytes, prev_id = 0;
	uint32_t id, flags;
	unsigned since;

	if (n > (end - CGS_MF_HEADER_BYTES) / CGS_MF_TOC_ENTRY_BYTES)
		return fail(c, CGS_E_FORMAT,
			    "table of contents lists %llu sections; the file has room for at most %llu",
			    (unsigned long long)n,
			    (unsigned long long)((end - CGS_MF_HEADER_BYTES) /
						 CGS_MF_TOC_ENTRY_BYTES));
	pos = CGS_MF_HEADER_BYTES + n * CGS_MF_TOC_ENTRY_BYTES;
	for (i = 0; i < n; i++) {
		const uint8_t *e = b + CGS_MF_HEADER_BYTES +
				   i * CGS_MF_TOC_ENTRY_BYTES;

		id = cgs_get_le32(e);
		flags = cgs_get_le32(e + 4);
		off = cgs_get_le64(e + 8);
		bytes = cgs_get_le64(e + 16);
		if (i && id <= prev_id)
			return fail(c, CGS_E_FORMAT,
				    "table of contents entry %llu: section id %u does not follow %llu; ids must ascend",
				    (unsigned long long)i, id,
				    (unsigned long long)prev_id);
		if (id == 0)
			return fail(c, CGS_E_FORMAT,
				    "table of contents entry %llu: section id 0 is reserved",
				    (unsigned long long)i);
		if (flags & ~CGS_MF_FLAG_OPTIONAL)
			return fail(c, CGS_E_FORMAT,
				    "section %u: reserved flag bits set (flags %#x); accepted: 0 or 1",
				    id, flags);
		if (off != pos)
			return fail(c, CGS_E_FORMAT,
				    "section %u starts at offset %llu; it must start at %llu, right after the previous one",
				    id, (unsigned long long)off,
				    (unsigned long long)pos);
		if (bytes > end - off)
			return fail(c, CGS_E_FORMAT,
				    "section %u (%llu bytes at offset %llu) runs past the end of the data at %llu",
				    id, (unsigned long long)bytes,
				    (unsigned long long)off,
				    (unsigned long long)end);
		pos = cgs_mf_align8(off + bytes);
		if (pos > end)
			return fail(c, CGS_E_FORMAT,
				    "section %u: its padding runs past the end of the data",
				    id);
		if (!zero_bytes(b + off + bytes, pos - off - bytes))
			return fail(c, CGS_E_FORMAT,
				    "section %u: padding after the payload is not zero",
				    id);
		/* a section of a later minor in a file that says an earlier one
		 * is no newer file */
		since = section_minor(id);
		if (m->info.major == 2 && m->info.minor < since)
			return fail(c, CGS_E_FORMAT,
				    "section %u (%s) in a format %u.%u file; it exists from format 2.%u on",
				    id, section_names[id], m->info.major,
				    m->info.minor, since);
		if (id <= m->n_known) {
			m->sec[id] = b + off;
			m->sec_len[id] = bytes;
		} else if (!(flags & CGS_MF_FLAG_OPTIONAL)) {
			if (m->info.minor > m->known_minor)
				return fail(c, CGS_E_VERSION,
					    "section %u is required and unknown to this cgslot (format %d.%d, file %u.%u); use a newer cgslot",
					    id, CGS_MANIFEST_MAJOR,
					    CGS_MANIFEST_MINOR,
					    m->info.major, m->info.minor);
			return fail(c, CGS_E_FORMAT,
				    "section %u is unknown and not marked optional",
				    id);
		}
		prev_id = id;
	}
	if (pos != end)
		return fail(c, CGS_E_FORMAT,
			    "%llu bytes after the last section are not listed in the table of contents",
			    (unsigned long long)(end - pos));
	for (id = 1; id <= m->n_known; id++)
		if (!m->sec[id])
			return fail(c, CGS_E_FORMAT,
				    "required section %u (%s) is missing", id,
				    section_names[id]);
	return 0;
}

/* Strings are UTF-8 without control characters, so printers can emit them
 * as they are (JSON needs only quotes and backslashes escaped). */
int cgs_mf_text_ok(const char *text)
{
	const uint8_t *s = (const uint8_t *)text;
	static const uint32_t min[4] = {0, 0x80, 0x800, 0x10000};
	unsigned need, n;
	uint32_t cp;

	while (*s) {
		if (*s < 0x20 || *s == 0x7f)
			return 0;
		if (*s < 0x80) {
			s++;
			continue;
		}
		if ((*s & 0xe0) == 0xc0) {
			need = 1;
			cp = *s & 0x1f;
		} else if ((*s & 0xf0) == 0xe0) {
			need = 2;
			cp = *s & 0x0f;
		} else if ((*s & 0xf8) == 0xf0) {
			need = 3;
			cp = *s & 0x07;
		} else {
			return 0;
		}
		for (n = need, s++; n; n--, s++) {
			if ((*s & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (*s & 0x3f);
		}
		if (cp < min[need] || (cp >= 0xd800 && cp <= 0xdfff) ||
		    cp > 0x10ffff)
			return 0;
	}
	return 1;
}

/* A string reference: an offset to the start of a NUL-terminated string. */
static int check_string(struct check *c, uint32_t off, const char *what,
			const char **out)
{
	const uint8_t *s = c->m->sec[CGS_MF_STRINGS];

	if (off >= c->m->sec_len[CGS_MF_STRINGS] || (off && s[off - 1]))
		return fail(c, CGS_E_FORMAT,
			    "%s: string offset %u does not start a string of section %d (strings, %llu bytes)",
			    what, off, CGS_MF_STRINGS,
			    (unsigned long long)c->m->sec_len[CGS_MF_STRINGS]);
	if (!cgs_mf_text_ok((const char *)s + off))
		return fail(c, CGS_E_FORMAT,
			    "%s: string at offset %u is not UTF-8 text without control characters",
			    what, off);
	*out = (const char *)s + off;
	return 0;
}

static unsigned entry_bytes_for(uint32_t vpp)
{
	return vpp <= INT8_MAX ? 1 : vpp <= INT16_MAX ? 2 : 4;
}

static int check_meta(struct check *c)
{
	struct cgs_manifest *m = c->m;
	struct cgs_manifest_info *in = &m->info;
	const uint8_t *p = m->sec[CGS_MF_META];
	uint64_t layers_total = 0, v;
	uint32_t i, name, producer;
	int rc;

	if (m->sec_len[CGS_MF_META] < CGS_MF_META_FIXED_BYTES)
		return fail(c, CGS_E_FORMAT,
			    "section 1 (meta) holds %llu bytes; at least %d needed",
			    (unsigned long long)m->sec_len[CGS_MF_META],
			    CGS_MF_META_FIXED_BYTES);
	in->schedule_hash = cgs_get_le64(p + CGS_MF_META_HASH);
	in->alignment = cgs_get_le64(p + CGS_MF_META_ALIGNMENT);
	in->pp = cgs_get_le32(p + CGS_MF_META_PP);
	in->vpp = cgs_get_le32(p + CGS_MF_META_VPP);
	in->group = cgs_get_le32(p + CGS_MF_META_GROUP);
	in->max_microbatches = cgs_get_le32(p + CGS_MF_META_MAX_MB);
	in->slots = cgs_get_le32(p + CGS_MF_META_SLOTS);
	in->layers_total = cgs_get_le32(p + CGS_MF_META_LAYERS_TOTAL);
	in->n_variants = cgs_get_le32(p + CGS_MF_META_VARIANTS);
	in->n_ranks = cgs_get_le32(p + CGS_MF_META_RANKS);
	name = cgs_get_le32(p + CGS_MF_META_NAME);
	producer = cgs_get_le32(p + CGS_MF_META_PRODUCER);
	m->entry_bytes = cgs_get_le32(p + CGS_MF_META_ENTRY_BYTES);

#define AT_LEAST_ONE(field, label)                                           \
	if (in->field == 0)                                                  \
		return fail(c, CGS_E_FORMAT,                                 \
			    "meta: " label " is 0; it must be at least 1")
	AT_LEAST_ONE(pp, "pp");
	AT_LEAST_ONE(vpp, "vpp");
	AT_LEAST_ONE(group, "microbatch group");
	AT_LEAST_ONE(max_microbatches, "max_microbatches");
	AT_LEAST_ONE(slots, "slots");
	AT_LEAST_ONE(n_variants, "the variant count");
	AT_LEAST_ONE(n_ranks, "the rank count");
#undef AT_LEAST_ONE
	if (in->alignment == 0 || (in->alignment & (in->alignment - 1)))
		return fail(c, CGS_E_FORMAT,
			    "meta: alignment %llu is not a power of two",
			    (unsigned long long)in->alignment);
	if (in->n_ranks > in->pp)
		return fail(c, CGS_E_FORMAT,
			    "meta: %u ranks planned but pp is %u", in->n_ranks,
			    in->pp);
	/* with VPP the reachable counts are G, 2G, ..., L */
	if (in->vpp > 1 && in->group > 1 &&
	    in->max_microbatches % in->group)
		return fail(c, CGS_E_FORMAT,
			    "meta: max_microbatches %u is not a multiple of the microbatch group %u; with vpp %u it must be",
			    in->max_microbatches, in->group, in->vpp);
	if (cgs_get_le32(p + CGS_MF_META_RESERVED) != 0)
		return fail(c, CGS_E_FORMAT,
			    "meta: reserved field is %u; it must be 0",
			    cgs_get_le32(p + CGS_MF_META_RESERVED));
	if (m->entry_bytes != entry_bytes_for(in->vpp))
		return fail(c, CGS_E_FORMAT,
			    "meta: order entry size is %u bytes; for vpp %u it must be %u",
			    m->entry_bytes, in->vpp, entry_bytes_for(in->vpp));
	if ((rc = expect_len(c, CGS_MF_META, 1, CGS_MF_META_FIXED_BYTES +
			     (uint64_t)in->vpp * 4, "meta block")))
		return rc;
	m->layer_base = malloc(((size_t)in->vpp + 1) * sizeof(uint32_t));
	if (!m->layer_base)
		return fail(c, CGS_E_NOMEM, "out of memory");
	for (i = 0; i < in->vpp; i++) {
		v = cgs_get_le32(p + CGS_MF_META_FIXED_BYTES + 4 * (size_t)i);
		if (v == 0)
			return fail(c, CGS_E_FORMAT,
				    "meta: chunk %u has 0 layers; every chunk needs at least 1",
				    i);
		m->layer_base[i] = (uint32_t)layers_total;
		layers_total += v;
		if (layers_total > UINT32_MAX)
			return fail(c, CGS_E_FORMAT,
				    "meta: layers over all chunks exceed 2^32-1");
	}
	m->layer_base[in->vpp] = (uint32_t)layers_total;
	if (layers_total != in->layers_total)
		return fail(c, CGS_E_FORMAT,
			    "meta: layers_total is %u but the chunks hold %llu layers",
			    in->layers_total, (unsigned long long)layers_total);

	v = mul(in->slots, in->layers_total);
	if (v > UINT32_MAX)
		return fail(c, CGS_E_FORMAT,
			    "meta: %u slots x %u layers = %llu saved frames per rank; at most 2^32-1",
			    in->slots, in->layers_total, (unsigned long long)v);
	in->n_saved = (uint32_t)v;
	v = mul(in->slots, in->vpp);
	if (v > UINT32_MAX)
		return fail(c, CGS_E_FORMAT,
			    "meta: %u slots x %u chunks = %llu user-grad frames per rank; at most 2^32-1",
			    in->slots, in->vpp, (unsigned long long)v);
	in->n_user_grad = (uint32_t)v;
	v = mul(mul(in->n_variants, in->n_saved), 2);
	if (v > UINT32_MAX)
		return fail(c, CGS_E_FORMAT,
			    "meta: %u variants x %u frames x 2 directions = %llu graphs per rank; at most 2^32-1",
			    in->n_variants, in->n_saved, (unsigned long long)v);
	in->n_graphs = (uint32_t)v;

	if (m->sec_len[CGS_MF_STRINGS] == 0 ||
	    m->sec[CGS_MF_STRINGS][m->sec_len[CGS_MF_STRINGS] - 1] != 0)
		return fail(c, CGS_E_FORMAT,
			    "section 2 (strings) does not end with a NUL byte");
	if ((rc = check_string(c, name, "meta: name", &in->name)) ||
	    (rc = check_string(c, producer, "meta: producer", &in->producer)))
		return rc;
	return 0;
}

static int check_variants(struct check *c)
{
	struct cgs_manifest *m = c->m;
	const uint8_t *p = m->sec[CGS_MF_VARIANTS];
	const char *name = NULL;   /* set by check_string; -O3 cannot tell */
	uint32_t v;
	char what[64];
	int rc;

	if ((rc = expect_len(c, CGS_MF_VARIANTS, m->info.n_variants,
			     CGS_MF_VARIANT_BYTES, "variants")))
		return rc;
	for (v = 0; v < m->info.n_variants; v++, p += CGS_MF_VARIANT_BYTES) {
		snprintf(what, sizeof(what), "variant %u", v);
		if ((rc = check_string(c, cgs_get_le32(p), what, &name)))
			return rc;
		if (!*name)
			return fail(c, CGS_E_FORMAT,
				    "variant %u has an empty name", v);
		if (cgs_get_le32(p + 4) == 0)
			return fail(c, CGS_E_FORMAT,
				    "variant %u (%s): cp is 0; it must be at least 1",
				    v, name);
	}
	return 0;
}

/*
 * Rank entry ri's ring (format 2: its own fields; format 1: the meta ring)
 * and the first indices of its frames, which continue the previous rank's.
 * The products fit: S <= meta.slots, whose products check_meta bounded.
 */
static int check_ring(struct check *c, const uint8_t *p, uint32_t ri,
		      uint32_t id)
{
	struct cgs_manifest *m = c->m;
	struct rank_ring *rr = &m->rings[ri];
	uint32_t S = m->info.slots, flags = 0;

	if (m->info.major >= 2) {
		S = cgs_get_le32(p + CGS_MF_RANK_SLOTS);
		flags = cgs_get_le32(p + CGS_MF_RANK_FLAGS);
		if (S == 0 || S > m->info.slots)
			return fail(c, CGS_E_FORMAT,
				    "ranks: rank %u: its ring has %u slots; accepted: 1..%u (meta's slots, the largest ring)",
				    id, S, m->info.slots);
		if (m->n_known < CGS_MF_CHUNK_SLOT_MAPS &&
		    (flags & ~CGS_MF_RANK_HAS_SLOT_MAP))
			return fail(c, CGS_E_FORMAT,
				    "ranks: rank %u: reserved flag bits set (flags %#x); accepted: 0 or 1 (a slot map)",
				    id, flags);
		if (flags & ~(CGS_MF_RANK_HAS_SLOT_MAP |
			      CGS_MF_RANK_HAS_CHUNK_SLOT_MAP))
			return fail(c, CGS_E_FORMAT,
				    "ranks: rank %u: reserved flag bits set (flags %#x); accepted: 0, 1 (a slot map per count) or 2 (a slot map per count and chunk)",
				    id, flags);
		if (flags == (CGS_MF_RANK_HAS_SLOT_MAP |
			      CGS_MF_RANK_HAS_CHUNK_SLOT_MAP))
			return fail(c, CGS_E_FORMAT,
				    "ranks: rank %u: flags %#x say both a slot map per count (bit 0) and one per count and chunk (bit 1); a rank has at most one",
				    id, flags);
		if (cgs_get_le64(p + CGS_MF_RANK_SAVED_FIRST) != c->n_saved ||
		    cgs_get_le64(p + CGS_MF_RANK_USER_GRAD_FIRST) != c->n_user_grad)
			return fail(c, CGS_E_FORMAT,
				    "ranks: rank %u: first saved/user-grad frame is %llu/%llu; they must continue the previous rank's at %llu/%llu",
				    id,
				    (unsigned long long)cgs_get_le64(p + CGS_MF_RANK_SAVED_FIRST),
				    (unsigned long long)cgs_get_le64(p + CGS_MF_RANK_USER_GRAD_FIRST),
				    (unsigned long long)c->n_saved,
				    (unsigned long long)c->n_user_grad);
	}
	rr->ring.slots = S;
	rr->ring.n_saved = S * m->info.layers_total;
	rr->ring.n_user_grad = S * m->info.vpp;
	rr->ring.n_graphs = rr->ring.n_saved * 2 * m->info.n_variants;
	rr->ring.slot_map = flags != 0;
	rr->ring.slot_map_per_chunk =
		(flags & CGS_MF_RANK_HAS_CHUNK_SLOT_MAP) != 0;
	rr->saved_first = c->n_saved;
	rr->user_grad_first = c->n_user_grad;
	c->n_saved += rr->ring.n_saved;
	c->n_user_grad += rr->ring.n_user_grad;
	return 0;
}

/* The RANKS table: ids, rings, counts and contiguous first indices. */
static int check_ranks(struct check *c)
{
	struct cgs_manifest *m = c->m;
	const uint8_t *p = m->sec[CGS_MF_RANKS];
	uint32_t ri, id, prev = 0, largest = 0;
	int rc, k;

	if ((rc = expect_len(c, CGS_MF_RANKS, m->info.n_ranks,
			     m->rank_bytes, "ranks")))
		return rc;
	m->rings = calloc(m->info.n_ranks, sizeof(*m->rings));
	if (!m->rings)
		return fail(c, CGS_E_NOMEM, "out of memory");
	for (ri = 0; ri < m->info.n_ranks; ri++, p += m->rank_bytes) {
		const struct cgs_manifest_ring *ring = &m->rings[ri].ring;

		id = cgs_get_le32(p + CGS_MF_RANK_ID);
		if (id >= m->info.pp)
			return fail(c, CGS_E_FORMAT,
				    "rank entry %u: rank %u is out of range; pp is %u",
				    ri, id, m->info.pp);
		if (ri && id <= prev)
			return fail(c, CGS_E_FORMAT,
				    "rank entry %u: rank %u does not follow rank %u; ranks must ascend",
				    ri, id, prev);
		prev = id;
		if ((rc = check_ring(c, p, ri, id)))
			return rc;
		if (ring->slots > largest)
			largest = ring->slots;
		if (cgs_get_le32(p + CGS_MF_RANK_REACHABLE) == 0)
			return fail(c, CGS_E_FORMAT,
				    "rank %u has no reachable microbatch count",
				    id);
		if (cgs_get_le64(p + CGS_MF_RANK_REACHABLE_FIRST) != c->n_reachable ||
		    cgs_get_le64(p + CGS_MF_RANK_ARENA_FIRST) != c->n_arenas ||
		    cgs_get_le64(p + CGS_MF_RANK_CAPTURE_FIRST) != c->n_capture)
			return fail(c, CGS_E_FORMAT,
				    "rank %u: first reachable/arena/capture index is %llu/%llu/%llu; they must continue the previous rank's at %llu/%llu/%llu",
				    id,
				    (unsigned long long)cgs_get_le64(p + CGS_MF_RANK_REACHABLE_FIRST),
				    (unsigned long long)cgs_get_le64(p + CGS_MF_RANK_ARENA_FIRST),
				    (unsigned long long)cgs_get_le64(p + CGS_MF_RANK_CAPTURE_FIRST),
				    (unsigned long long)c->n_reachable,
				    (unsigned long long)c->n_arenas,
				    (unsigned long long)c->n_capture);
		if (cgs_get_le32(p + CGS_MF_RANK_CAPTURE) != ring->n_graphs)
			return fail(c, CGS_E_FORMAT,
				    "ranks: rank %u: n_capture is %u; each of the %u graphs is captured once",
				    id, cgs_get_le32(p + CGS_MF_RANK_CAPTURE),
				    ring->n_graphs);
		c->n_reachable += cgs_get_le32(p + CGS_MF_RANK_REACHABLE);
		c->n_arenas += cgs_get_le32(p + CGS_MF_RANK_ARENAS);
		c->n_capture += cgs_get_le32(p + CGS_MF_RANK_CAPTURE);
		for (k = 0; k < 2; k++) {
			const uint8_t *st = p + (k ? CGS_MF_RANK_USER_GRAD_STATS
						   : CGS_MF_RANK_SAVED_STATS);

			if (cgs_get_le32(st + CGS_MF_STATS_RESERVED))
				return fail(c, CGS_E_FORMAT,
					    "rank %u: reserved field of the %s figures is not 0",
					    id, k ? "user-grad" : "saved");
			uint32_t frames = k ? ring->n_user_grad
					    : ring->n_saved;

			if (cgs_get_le32(st + CGS_MF_STATS_FRAMES) != frames)
				return fail(c, CGS_E_FORMAT,
					    "ranks: rank %u: %s figures count %u frames; the rank has %u",
					    id, k ? "user-grad" : "saved",
					    cgs_get_le32(st + CGS_MF_STATS_FRAMES),
					    frames);
			if (cgs_get_le32(st + CGS_MF_STATS_COLOURS) > frames ||
			    cgs_get_le32(st + CGS_MF_STATS_COLOURS) == 0)
				return fail(c, CGS_E_FORMAT,
					    "ranks: rank %u: %s figures use %u colours; accepted: 1..%u, one per frame at most",
					    id, k ? "user-grad" : "saved",
					    cgs_get_le32(st + CGS_MF_STATS_COLOURS),
					    frames);
			if (cgs_get_le32(st + CGS_MF_STATS_COLOUR_LB) >
			    cgs_get_le32(st + CGS_MF_STATS_COLOURS))
				return fail(c, CGS_E_FORMAT,
					    "rank %u: %s colour lower bound %u exceeds the %u colours used",
					    id, k ? "user-grad" : "saved",
					    cgs_get_le32(st + CGS_MF_STATS_COLOUR_LB),
					    cgs_get_le32(st + CGS_MF_STATS_COLOURS));
		}
	}
	if (largest != m->info.slots)
		return fail(c, CGS_E_FORMAT,
			    "meta: slots is %u; it must be the largest ring of a rank, %u",
			    m->info.slots, largest);
	if ((rc = expect_len(c, CGS_MF_REACHABLE, c->n_reachable,
			     CGS_MF_REACHABLE_BYTES, "reachable counts")) ||
	    (rc = expect_len(c, CGS_MF_ARENAS, c->n_arenas,
			     CGS_MF_ARENA_BYTES, "arenas")) ||
	    (rc = expect_len(c, CGS_MF_CAPTURE, c->n_capture, 4,
			     "capture entries")))
		return rc;
	return 0;
}

static const uint8_t *rank_entry(const struct cgs_manifest *m, uint32_t ri)
{
	if (!m || ri >= m->info.n_ranks)
		return NULL;
	return m->sec[CGS_MF_RANKS] + (size_t)ri * m->rank_bytes;
}

static int32_t read_entry(const uint8_t *p, unsigned width)
{
	if (width == 1)
		return (int8_t)p[0];
	if (width == 2)
		return (int16_t)cgs_get_le16(p);
	return (int32_t)cgs_get_le32(p);
}

/* Reachable counts ascend within L, and their orders are contiguous. */
static int check_reachable(struct check *c)
{
	struct cgs_manifest *m = c->m;
	const uint8_t *r, *e = m->sec[CGS_MF_REACHABLE];
	uint32_t ri, i, n, prev, id;
	uint64_t len, *maps;
	int rc;

	for (ri = 0; ri < m->info.n_ranks; ri++) {
		struct rank_ring *rr = &m->rings[ri];

		r = rank_entry(m, ri);
		id = cgs_get_le32(r + CGS_MF_RANK_ID);
		prev = 0;
		rr->entry_first = c->n_entries;
		/* a per-chunk map continues section 14's; any other rank
		 * section 13's, so the first index of a rank without a map
		 * is the section 13 entries of the ranks before it */
		maps = rr->ring.slot_map_per_chunk ? &c->n_chunk_map : &c->n_map;
		rr->slot_map_first = *maps;
		if (m->info.major >= 2 &&
		    cgs_get_le64(r + CGS_MF_RANK_SLOT_MAP_FIRST) != *maps)
			return fail(c, CGS_E_FORMAT,
				    "ranks: rank %u: first %sslot map entry is %llu; it must continue the previous rank's at %llu",
				    id,
				    rr->ring.slot_map_per_chunk ? "chunk " : "",
				    (unsigned long long)cgs_get_le64(r + CGS_MF_RANK_SLOT_MAP_FIRST),
				    (unsigned long long)*maps);
		for (i = 0; i < cgs_get_le32(r + CGS_MF_RANK_REACHABLE);
		     i++, e += CGS_MF_REACHABLE_BYTES) {
			n = cgs_get_le32(e);
			if (n == 0 || n > m->info.max_microbatches || n <= prev)
				return fail(c, CGS_E_FORMAT,
					    "rank %u: reachable count %u (entry %u) is out of order or outside 1..%u",
					    id, n, i,
					    m->info.max_microbatches);
			prev = n;
			if (cgs_get_le32(e + 4))
				return fail(c, CGS_E_FORMAT,
					    "rank %u N=%u: reserved field is not 0",
					    id, n);
			if (cgs_get_le64(e + 8) != c->n_entries)
				return fail(c, CGS_E_FORMAT,
					    "rank %u N=%u: the order starts at entry %llu; it must start at %llu, after the previous order",
					    id, n,
					    (unsigned long long)cgs_get_le64(e + 8),
					    (unsigned long long)c->n_entries);
			len = mul(mul(n, m->info.vpp), 2);
			if (len == UINT64_MAX || !add_ok(&c->n_entries, len))
				return fail(c, CGS_E_FORMAT,
					    "rank %u N=%u: order entries overflow",
					    id, n);
			/* a map row per count (and chunk): the slot of
			 * each microbatch; n * M <= 2 * n * M, bounded above */
			if (rr->ring.slot_map_per_chunk)
				c->n_chunk_map += (uint64_t)n * m->info.vpp;
			else if (rr->ring.slot_map)
				c->n_map += n;
		}
	}
	if ((rc = expect_len(c, CGS_MF_ORDERS, c->n_entries, m->entry_bytes,
			     "order entries")))
		return rc;
	if (m->info.major >= 2 &&
	    (rc = expect_len(c, CGS_MF_SLOT_MAPS, c->n_map,
			     CGS_MF_SLOT_MAP_ENTRY_BYTES, "slot map entries")))
		return rc;
	if (m->n_known >= CGS_MF_CHUNK_SLOT_MAPS &&
	    (rc = expect_len(c, CGS_MF_CHUNK_SLOT_MAPS, c->n_chunk_map,
			     CGS_MF_SLOT_MAP_ENTRY_BYTES,
			     "chunk slot map entries")))
		return rc;
	return 0;
}

/* Every slot of a stored map lies in its rank's ring (liveness: below). */
static int check_slot_maps(struct check *c)
{
	struct cgs_manifest *m = c->m;
	uint32_t ri, i, k, n, s, ch, rows;
	char chunk[32];

	for (ri = 0; ri < m->info.n_ranks; ri++) {
		const struct rank_ring *rr = &m->rings[ri];

		if (!rr->ring.slot_map)
			continue;
		rows = rr->ring.slot_map_per_chunk ? m->info.vpp : 1;
		for (i = 0; i < cgs_manifest_reachable_count(m, ri); i++) {
			n = cgs_manifest_reachable(m, ri, i);
			for (ch = 0; ch < rows; ch++)
				for (k = 0; k < n; k++) {
					s = cgs_manifest_slot(m, ri, i, ch, k);
					if (s < rr->ring.slots)
						continue;
					chunk[0] = 0;
					if (rr->ring.slot_map_per_chunk)
						snprintf(chunk, sizeof(chunk),
							 " of chunk %u", ch + 1);
					return fail(c, CGS_E_FORMAT,
						    "%s: rank %u N=%u: microbatch %u%s has slot %u; its ring has %u slots (0..%u)",
						    section_names[rr->ring.slot_map_per_chunk
								  ? CGS_MF_CHUNK_SLOT_MAPS
								  : CGS_MF_SLOT_MAPS],
						    cgs_manifest_rank_id(m, ri), n,
						    k, chunk, s, rr->ring.slots,
						    rr->ring.slots - 1);
				}
		}
	}
	return 0;
}

/* Every order is well formed: ids in range, backwards after forwards,
 * each chunk runs exactly N of each. */
static int check_orders(struct check *c)
{
	struct cgs_manifest *m = c->m;
	uint32_t vpp = m->info.vpp, ri, i, n, id, ch;
	const uint8_t *p = m->sec[CGS_MF_ORDERS];
	const uint8_t *r, *e = m->sec[CGS_MF_REACHABLE];
	unsigned w = m->entry_bytes;
	uint32_t *fwd, *bwd;
	uint64_t k, len;
	int32_t x;
	int rc = 0;

	fwd = calloc((size_t)vpp * 2, sizeof(*fwd));
	if (!fwd)
		return fail(c, CGS_E_NOMEM, "out of memory");
	bwd = fwd + vpp;
	for (ri = 0; ri < m->info.n_ranks && !rc; ri++) {
		r = rank_entry(m, ri);
		id = cgs_get_le32(r + CGS_MF_RANK_ID);
		for (i = 0; i < cgs_get_le32(r + CGS_MF_RANK_REACHABLE) && !rc;
		     i++, e += CGS_MF_REACHABLE_BYTES) {
			n = cgs_get_le32(e);
			len = (uint64_t)n * vpp * 2;
			memset(fwd, 0, (size_t)vpp * 2 * sizeof(*fwd));
			for (k = 0; k < len; k++, p += w) {
				x = read_entry(p, w);
				if (x == 0 || x > (int64_t)vpp ||
				    x < -(int64_t)vpp) {
					rc = fail(c, CGS_E_FORMAT,
						  "rank %u N=%u: order entry %llu is %d; accepted: -%u..-1 or 1..%u",
						  id, n, (unsigned long long)k,
						  x, vpp, vpp);
					break;
				}
				ch = (uint32_t)(x > 0 ? x : -(int64_t)x) - 1;
				if (x > 0 && fwd[ch] == n) {
					rc = fail(c, CGS_E_FORMAT,
						  "rank %u N=%u: order entry %llu runs forward %u of chunk %d; only %u microbatches exist",
						  id, n, (unsigned long long)k,
						  n + 1, x, n);
					break;
				}
				if (x < 0 && bwd[ch] == fwd[ch]) {
					rc = fail(c, CGS_E_FORMAT,
						  "rank %u N=%u: order entry %llu runs a backward of chunk %d with no pending forward",
						  id, n, (unsigned long long)k,
						  -x);
					break;
				}
				if (x > 0)
					fwd[ch]++;
				else
					bwd[ch]++;
			}
			/* 2*N*M entries with no excess forward and no
			 * early backward leave every counter at N. */
		}
	}
	free(fwd);
	return rc;
}

static int check_arenas(struct check *c)
{
	struct cgs_manifest *m = c->m;
	const uint8_t *r, *a = m->sec[CGS_MF_ARENAS];
	uint64_t sum[2], total;
	uint32_t ri, i, role, id;

	for (ri = 0; ri < m->info.n_ranks; ri++) {
		r = rank_entry(m, ri);
		id = cgs_get_le32(r + CGS_MF_RANK_ID);
		sum[0] = sum[1] = 0;
		for (i = 0; i < cgs_get_le32(r + CGS_MF_RANK_ARENAS);
		     i++, a += CGS_MF_ARENA_BYTES) {
			role = cgs_get_le32(a);
			if (role > CGS_MANIFEST_ARENA_USER_GRAD)
				return fail(c, CGS_E_FORMAT,
					    "rank %u arena %u: role %u is unknown; accepted: 0 (saved), 1 (user-grad)",
					    id, i, role);
			if (cgs_get_le32(a + 4))
				return fail(c, CGS_E_FORMAT,
					    "rank %u arena %u: reserved field is not 0",
					    id, i);
			if (cgs_get_le64(a + 16) != m->info.alignment)
				return fail(c, CGS_E_FORMAT,
					    "rank %u arena %u: alignment %llu differs from the manifest's %llu",
					    id, i,
					    (unsigned long long)cgs_get_le64(a + 16),
					    (unsigned long long)m->info.alignment);
			if (!add_ok(&sum[role], cgs_get_le64(a + 8)))
				return fail(c, CGS_E_FORMAT,
					    "rank %u: arena bytes overflow 64 bits",
					    id);
		}
		total = sum[0];
		if (!add_ok(&total, sum[1]))
			return fail(c, CGS_E_FORMAT,
				    "rank %u: arena bytes overflow 64 bits", id);
		if (cgs_get_le64(r + CGS_MF_RANK_BYTES) != total ||
		    cgs_get_le64(r + CGS_MF_RANK_SAVED_STATS + CGS_MF_STATS_BYTES) != sum[0] ||
		    cgs_get_le64(r + CGS_MF_RANK_USER_GRAD_STATS + CGS_MF_STATS_BYTES) != sum[1])
			return fail(c, CGS_E_FORMAT,
				    "rank %u: recorded bytes (total %llu, saved %llu, user-grad %llu) differ from its arenas (%llu, %llu, %llu)",
				    id,
				    (unsigned long long)cgs_get_le64(r + CGS_MF_RANK_BYTES),
				    (unsigned long long)cgs_get_le64(r + CGS_MF_RANK_SAVED_STATS + CGS_MF_STATS_BYTES),
				    (unsigned long long)cgs_get_le64(r + CGS_MF_RANK_USER_GRAD_STATS + CGS_MF_STATS_BYTES),
				    (unsigned long long)total,
				    (unsigned long long)sum[0],
				    (unsigned long long)sum[1]);
	}
	return 0;
}

/*
 * One frame entry against its expected identity and its rank's arenas.
 * From format 2.2 on a user-grad frame may lie in a saved arena (counted
 * in *nested).
 */
static int check_frame(struct check *c, const uint8_t *r, const uint8_t *p,
		       uint32_t role, uint32_t chunk, uint32_t slot,
		       uint32_t layer, uint32_t *nested)
{
	struct cgs_manifest *m = c->m;
	const char *kind = role ? "user-grad" : "saved";
	uint32_t id = cgs_get_le32(r + CGS_MF_RANK_ID);
	uint32_t colours = cgs_get_le32(r + (role ? CGS_MF_RANK_USER_GRAD_STATS
						  : CGS_MF_RANK_SAVED_STATS) +
					CGS_MF_STATS_COLOURS);
	uint32_t arena = cgs_get_le32(p + CGS_MF_FRAME_ARENA);
	uint64_t off = cgs_get_le64(p + CGS_MF_FRAME_OFFSET);
	uint64_t bytes = cgs_get_le64(p + CGS_MF_FRAME_SIZE);
	const uint8_t *a;
	uint64_t abytes;

	if (cgs_get_le32(p + CGS_MF_FRAME_CHUNK) != chunk ||
	    cgs_get_le32(p + CGS_MF_FRAME_SLOT) != slot ||
	    cgs_get_le32(p + CGS_MF_FRAME_LAYER) != layer)
		return fail(c, CGS_E_FORMAT,
			    "rank %u %s frame (chunk %u, slot %u, layer %u) is labelled (%u, %u, %u)",
			    id, kind, chunk, slot, layer,
			    cgs_get_le32(p + CGS_MF_FRAME_CHUNK),
			    cgs_get_le32(p + CGS_MF_FRAME_SLOT),
			    cgs_get_le32(p + CGS_MF_FRAME_LAYER));
	if (cgs_get_le32(p + CGS_MF_FRAME_RESERVED))
		return fail(c, CGS_E_FORMAT,
			    "rank %u %s frame (%u, %u, %u): reserved field is not 0",
			    id, kind, chunk, slot, layer);
	if (cgs_get_le32(p + CGS_MF_FRAME_COLOUR) >= colours)
		return fail(c, CGS_E_FORMAT,
			    "rank %u %s frame (%u, %u, %u): colour %u is out of range; the rank uses %u colours",
			    id, kind, chunk, slot, layer,
			    cgs_get_le32(p + CGS_MF_FRAME_COLOUR), colours);
	if (arena >= cgs_get_le32(r + CGS_MF_RANK_ARENAS))
		return fail(c, CGS_E_FORMAT,
			    "rank %u %s frame (%u, %u, %u): arena %u is out of range; the rank has %u arenas",
			    id, kind, chunk, slot, layer, arena,
			    cgs_get_le32(r + CGS_MF_RANK_ARENAS));
	a = m->sec[CGS_MF_ARENAS] +
	    (size_t)(cgs_get_le64(r + CGS_MF_RANK_ARENA_FIRST) + arena) *
		    CGS_MF_ARENA_BYTES;
	if (role == CGS_MANIFEST_ARENA_USER_GRAD &&
	    cgs_get_le32(a) == CGS_MANIFEST_ARENA_SAVED &&
	    m->n_known >= CGS_MF_NESTED)
		(*nested)++;
	else if (cgs_get_le32(a) != role)
		return fail(c, CGS_E_FORMAT,
			    "rank %u %s frame (%u, %u, %u) lies in arena %u, which holds %s frames",
			    id, kind, chunk, slot, layer, arena,
			    role ? "saved" : "user-grad");
	abytes = cgs_get_le64(a + 8);
	if (off % m->info.alignment)
		return fail(c, CGS_E_FORMAT,
			    "rank %u %s frame (%u, %u, %u): offset %llu is not a multiple of the alignment %llu",
			    id, kind, chunk, slot, layer,
			    (unsigned long long)off,
			    (unsigned long long)m->info.alignment);
	if (bytes > abytes || off > abytes - bytes)
		return fail(c, CGS_E_FORMAT,
			    "rank %u %s frame (%u, %u, %u): %llu bytes at offset %llu end past arena %u of %llu bytes",
			    id, kind, chunk, slot, layer,
			    (unsigned long long)bytes, (unsigned long long)off,
			    arena, (unsigned long long)abytes);
	return 0;
}

static int check_frames(struct check *c)
{
	struct cgs_manifest *m = c->m;
	const struct cgs_manifest_info *in = &m->info;
	const uint8_t *r, *p = m->sec[CGS_MF_SAVED_FRAMES];
	const uint8_t *u = m->sec[CGS_MF_USER_GRAD_FRAMES];
	const uint8_t *n = m->sec[CGS_MF_NESTED], *j = m->sec[CGS_MF_JOINT];
	uint32_t ri, ch, s, l, nested, id;
	int rc;

	if ((rc = expect_len(c, CGS_MF_SAVED_FRAMES, c->n_saved,
			     CGS_MF_FRAME_BYTES, "saved frames")) ||
	    (rc = expect_len(c, CGS_MF_USER_GRAD_FRAMES, c->n_user_grad,
			     CGS_MF_FRAME_BYTES, "user-grad frames")) ||
	    (m->n_known >= CGS_MF_NESTED &&
	     (rc = expect_len(c, CGS_MF_NESTED, in->n_ranks,
			      CGS_MF_NESTED_ENTRY_BYTES, "nested counts"))) ||
	    (m->n_known >= CGS_MF_JOINT &&
	     (rc = expect_len(c, CGS_MF_JOINT, in->n_ranks,
			      CGS_MF_JOINT_ENTRY_BYTES, "joint flags"))))
		return rc;
	/* Ranks' frames are contiguous, so one walk visits them in order. */
	for (ri = 0; ri < in->n_ranks; ri++) {
		r = rank_entry(m, ri);
		nested = 0;
		for (ch = 0; ch < in->vpp; ch++) {
			for (s = 0; s < m->rings[ri].ring.slots; s++) {
				for (l = 0; l < cgs_manifest_chunk_layers(m, ch);
				     l++, p += CGS_MF_FRAME_BYTES)
					if ((rc = check_frame(c, r, p, 0, ch, s,
							      l, &nested)))
						return rc;
				if ((rc = check_frame(c, r, u, 1, ch, s, 0,
						      &nested)))
					return rc;
				u += CGS_MF_FRAME_BYTES;
			}
		}
		if (m->n_known < CGS_MF_NESTED)
			continue;
		id = cgs_get_le32(r + CGS_MF_RANK_ID);
		if (cgs_get_le32(n) != nested)
			return fail(c, CGS_E_FORMAT,
				    "section %u (nested): rank %u records %u user-grad frames in its saved arenas; its frames put %u there",
				    CGS_MF_NESTED, id, cgs_get_le32(n), nested);
		if (cgs_get_le32(n + 4))
			return fail(c, CGS_E_FORMAT,
				    "section %u (nested): rank %u: reserved field is not 0",
				    CGS_MF_NESTED, id);
		n += CGS_MF_NESTED_ENTRY_BYTES;
		if (m->n_known < CGS_MF_JOINT)
			continue;
		if (cgs_get_le32(j) & ~CGS_MF_JOINT_PACKED)
			return fail(c, CGS_E_FORMAT,
				    "section %u (joint): rank %u: flags 0x%x; only bit 0 (packed) is defined",
				    CGS_MF_JOINT, id, cgs_get_le32(j));
		if (cgs_get_le32(j + 4))
			return fail(c, CGS_E_FORMAT,
				    "section %u (joint): rank %u: reserved field is not 0",
				    CGS_MF_JOINT, id);
		if (cgs_get_le32(j) && nested == 0)
			return fail(c, CGS_E_FORMAT,
				    "section %u (joint): rank %u is packed with its user-grad frames, but none lies in its saved arenas",
				    CGS_MF_JOINT, id);
		j += CGS_MF_JOINT_ENTRY_BYTES;
	}
	return 0;
}

static int check_range(struct check *c, const uint8_t *p, uint64_t frame,
		       uint32_t ri, uint32_t v, uint32_t f, const char *what)
{
	uint64_t off = cgs_get_le64(p), bytes = cgs_get_le64(p + 8);
	struct cgs_manifest_frame fr = cgs_manifest_saved_frame(c->m, ri, f);

	if (off % c->m->info.alignment || bytes > frame || off > frame - bytes)
		return fail(c, CGS_E_FORMAT,
			    "rank %u variant %u saved frame (%u, %u, %u): %s range of %llu bytes at offset %llu is %s",
			    cgs_manifest_rank_id(c->m, ri), v, fr.chunk,
			    fr.slot, fr.layer, what, (unsigned long long)bytes,
			    (unsigned long long)off,
			    off % c->m->info.alignment
				    ? "not aligned"
				    : "not inside its frame");
	return 0;
}

/*
 * The role ranges of saved frame f for variant v, stored at p (three
 * ranges) and g (the user-gradient layer), against the frame and its
 * user-gradient frame.
 */
static int check_frame_ranges(struct check *c, const uint8_t *p,
			      const uint8_t *g, uint32_t ri, uint32_t v,
			      uint32_t f)
{
	static const char *const roles[] = {"input", "output", "saved"};
	struct cgs_manifest *m = c->m;
	struct cgs_manifest_frame fr = cgs_manifest_saved_frame(m, ri, f), ug;
	uint32_t k;
	int rc;

	for (k = 0; k < 3; k++, p += CGS_MF_RANGE_BYTES)
		if ((rc = check_range(c, p, fr.bytes, ri, v, f, roles[k])))
			return rc;
	ug = cgs_manifest_user_grad_frame(
		m, ri, fr.chunk * m->rings[ri].ring.slots + fr.slot);
	return check_range(c, g, ug.bytes, ri, v, f, "user-grad");
}

/*
 * Format 1 stores the ranges once per (variant, frame); format 2 once per
 * (variant, chunk, layer), and they must then fit that layer's frame in
 * every slot of the rank's ring.
 */
static int check_layouts(struct check *c)
{
	struct cgs_manifest *m = c->m;
	const struct cgs_manifest_info *in = &m->info;
	const uint8_t *p = m->sec[CGS_MF_SAVED_ROLES];
	const uint8_t *g = m->sec[CGS_MF_USER_GRAD_LAYERS];
	uint64_t count = in->major >= 2
		? mul(mul(in->n_ranks, in->n_variants), in->layers_total)
		: mul(c->n_saved, in->n_variants);
	uint32_t ri, v, f, ch, s, l, S;
	int rc;

	if ((rc = expect_len(c, CGS_MF_SAVED_ROLES, count,
			     3 * CGS_MF_RANGE_BYTES, "saved role triples")) ||
	    (rc = expect_len(c, CGS_MF_USER_GRAD_LAYERS, count,
			     CGS_MF_RANGE_BYTES, "user-grad layer ranges")))
		return rc;
	for (ri = 0; ri < in->n_ranks; ri++) {
		S = m->rings[ri].ring.slots;
		for (v = 0; v < in->n_variants; v++) {
			if (in->major < 2) {
				for (f = 0; f < S * in->layers_total; f++) {
					if ((rc = check_frame_ranges(c, p, g, ri,
								     v, f)))
						return rc;
					p += 3 * CGS_MF_RANGE_BYTES;
					g += CGS_MF_RANGE_BYTES;
				}
				continue;
			}
			for (ch = 0; ch < in->vpp; ch++)
				for (l = 0; l < cgs_manifest_chunk_layers(m, ch);
				     l++) {
					for (s = 0; s < S; s++) {
						f = m->layer_base[ch] * S +
						    s * cgs_manifest_chunk_layers(m, ch) + l;
						if ((rc = check_frame_ranges(
							     c, p, g, ri, v, f)))
							return rc;
					}
					p += 3 * CGS_MF_RANGE_BYTES;
					g += CGS_MF_RANGE_BYTES;
				}
		}
	}
	return 0;
}

static int check_capture(struct check *c)
{
	struct cgs_manifest *m = c->m;
	uint32_t n_graphs, ri, i, g, n;
	const uint8_t *r, *p;
	unsigned char *seen;
	int rc = 0;

	seen = calloc((size_t)m->info.n_graphs / 8 + 1, 1);
	if (!seen)
		return fail(c, CGS_E_NOMEM, "out of memory");
	for (ri = 0; ri < m->info.n_ranks && !rc; ri++) {
		r = rank_entry(m, ri);
		n = cgs_get_le32(r + CGS_MF_RANK_CAPTURE);
		n_graphs = m->rings[ri].ring.n_graphs;
		p = m->sec[CGS_MF_CAPTURE] +
		    (size_t)cgs_get_le64(r + CGS_MF_RANK_CAPTURE_FIRST) * 4;
		for (i = 0; i < n; i++) {
			g = cgs_get_le32(p + (size_t)i * 4);
			if (g >= n_graphs) {
				rc = fail(c, CGS_E_FORMAT,
					  "rank %u capture entry %u: graph %u is out of range; the graph table has %u",
					  cgs_get_le32(r), i, g, n_graphs);
				break;
			}
			if (seen[g / 8] & (1u << (g % 8))) {
				rc = fail(c, CGS_E_FORMAT,
					  "rank %u capture entry %u: graph %u is captured twice",
					  cgs_get_le32(r), i, g);
				break;
			}
			seen[g / 8] |= (unsigned char)(1u << (g % 8));
		}
		/* Clear only what this rank set, keeping the pass linear. */
		for (i = 0; i < n; i++) {
			g = cgs_get_le32(p + (size_t)i * 4);
			if (g < n_graphs)
				seen[g / 8] = 0;
		}
	}
	free(seen);
	return rc;
}

/* Working arrays of check_figures, sized once for every rank. */
struct figures {
	uint64_t *group_bytes;   /* saved group (c, s): its layers' frames */
	uint64_t *colour_bytes;  /* largest member of each colour */
	uint32_t *fwd, *bwd;     /* per chunk, while replaying an order */
	unsigned char *busy;     /* saved group (c, s) holds a live microbatch */
};

/* What replaying a rank's orders gives; see cgs_report_rank. */
struct replay_figures {
	uint64_t saved, user_grad, all;  /* heaviest live bytes */
	uint32_t saved_frames, user_grad_frames; /* largest live counts */
};

static int figure_overflow(struct check *c, uint32_t id, const char *what)
{
	return fail(c, CGS_E_FORMAT,
		    "ranks: rank %u: %s overflows 64 bits", id, what);
}

/*
 * Upstream's one arena per colour: the sum over colours of the largest
 * member.  Also checks that the colours used are exactly 0..colours-1 at
 * their top (the largest colour is colours - 1).
 */
static int colour_arena_bytes(struct check *c, const uint8_t *r,
			      uint32_t role, struct figures *fg,
			      uint64_t *total)
{
	struct cgs_manifest *m = c->m;
	uint32_t id = cgs_get_le32(r + CGS_MF_RANK_ID);
	uint32_t colours = cgs_get_le32(r + (role ? CGS_MF_RANK_USER_GRAD_STATS
						  : CGS_MF_RANK_SAVED_STATS) +
					CGS_MF_STATS_COLOURS);
	const struct cgs_manifest_ring *ring = &m->rings[c->ri].ring;
	uint32_t n = role ? ring->n_user_grad : ring->n_saved, f, top = 0;
	struct cgs_manifest_frame fr;

	memset(fg->colour_bytes, 0, (size_t)colours * sizeof(uint64_t));
	for (f = 0; f < n; f++) {
		fr = role ? cgs_manifest_user_grad_frame(m, c->ri, f)
			  : cgs_manifest_saved_frame(m, c->ri, f);
		if (fr.bytes > fg->colour_bytes[fr.colour])
			fg->colour_bytes[fr.colour] = fr.bytes;
		if (fr.colour > top)
			top = fr.colour;
	}
	if (top + 1 != colours)
		return fail(c, CGS_E_FORMAT,
			    "ranks: rank %u: %s figures say %u colours; the frames use colours 0..%u",
			    id, role ? "user-grad" : "saved", colours, top);
	*total = 0;
	for (f = 0; f < colours; f++)
		if (cgs_acc_u64(total, fg->colour_bytes[f]))
			return figure_overflow(c, id, "the colour arenas' bytes");
	return 0;
}

/*
 * Replay rank ri's orders as the planner does: saved group (c, k mod S)
 * is live from the forward of (c, k) to its backward; the user-gradient
 * frame of a backward lives through the next backward event.  Also the
 * ring: no chunk has more than S microbatches in flight, and two
 * consecutive backwards never share a user-gradient frame.
 */
static int replay_figures(struct check *c, const uint8_t *r,
			  struct figures *fg, struct replay_figures *out)
{
	struct cgs_manifest *m = c->m;
	const struct cgs_manifest_ring *ring = &m->rings[c->ri].ring;
	uint32_t S = ring->slots, M = m->info.vpp, ri = c->ri;
	uint32_t id = cgs_get_le32(r + CGS_MF_RANK_ID), i, ch, k, g;
	const uint32_t none = UINT32_MAX;
	const char *map_name = section_names[ring->slot_map_per_chunk
					     ? CGS_MF_CHUNK_SLOT_MAPS
					     : CGS_MF_SLOT_MAPS];

	memset(out, 0, sizeof(*out));
	for (i = 0; i < cgs_get_le32(r + CGS_MF_RANK_REACHABLE); i++) {
		uint32_t n = cgs_manifest_reachable(m, ri, i), prev_u = none;
		uint32_t live = 0, n_ug;
		uint64_t len = cgs_manifest_order_length(m, ri, i), e;
		uint64_t ws = 0, wu, wu_prev = 0, both;
		const uint8_t *p = cgs_manifest_order_raw(m, ri, i, NULL);

		memset(fg->fwd, 0, (size_t)M * sizeof(uint32_t));
		memset(fg->bwd, 0, (size_t)M * sizeof(uint32_t));
		memset(fg->busy, 0, (size_t)M * S);
		for (e = 0; e < len; e++, p += m->entry_bytes) {
			int32_t x = read_entry(p, m->entry_bytes);

			ch = (uint32_t)(x > 0 ? x : -(int64_t)x) - 1;
			if (x > 0) {
				k = fg->fwd[ch]++;
				if (fg->fwd[ch] - fg->bwd[ch] > S)
					return fail(c, CGS_E_FORMAT,
						    "meta: slots is %u, shorter than liveness: rank %u N=%u order entry %llu has %u microbatches of chunk %u in flight",
						    S, id, n,
						    (unsigned long long)e,
						    fg->fwd[ch] - fg->bwd[ch],
						    ch + 1);
				g = ch * S + cgs_manifest_slot(m, ri, i, ch, k);
				/* a slot map may put two live microbatches on
				 * one slot; k mod S within the ring cannot */
				if (fg->busy[g])
					return fail(c, CGS_E_FORMAT,
						    "%s: rank %u N=%u order entry %llu: microbatch %u of chunk %u takes slot %u, whose saved frames are still live",
						    map_name, id, n,
						    (unsigned long long)e, k,
						    ch + 1, g - ch * S);
				fg->busy[g] = 1;
				if (cgs_acc_u64(&ws, fg->group_bytes[g]))
					return figure_overflow(c, id,
						"the saved bytes live at once");
				live += cgs_manifest_chunk_layers(m, ch);
				wu = wu_prev;
				n_ug = prev_u != none;
			} else {
				k = fg->bwd[ch]++;
				g = ch * S + cgs_manifest_slot(m, ri, i, ch, k);
				fg->busy[g] = 0;
				if (g == prev_u && ring->slot_map)
					return fail(c, CGS_E_FORMAT,
						    "%s: rank %u N=%u order entry %llu: microbatch %u of chunk %u takes slot %u, whose user-grad frame the backward just before it still sends from",
						    map_name, id, n,
						    (unsigned long long)e, k,
						    ch + 1, g - ch * S);
				if (g == prev_u)
					return fail(c, CGS_E_FORMAT,
						    "meta: slots is %u, shorter than liveness: rank %u N=%u order entry %llu runs two consecutive backwards of chunk %u on one user-grad frame",
						    S, id, n,
						    (unsigned long long)e, ch + 1);
				if (cgs_add_u64(wu_prev,
						cgs_manifest_user_grad_frame(m, ri, g).bytes,
						&wu))
					return figure_overflow(c, id,
						"the user-grad bytes live at once");
				n_ug = 1 + (prev_u != none);
			}
			if (cgs_add_u64(ws, wu, &both))
				return figure_overflow(c, id,
						       "the bytes live at once");
			if (ws > out->saved)
				out->saved = ws;
			if (wu > out->user_grad)
				out->user_grad = wu;
			if (both > out->all)
				out->all = both;
			if (live > out->saved_frames)
				out->saved_frames = live;
			if (n_ug > out->user_grad_frames)
				out->user_grad_frames = n_ug;
			if (x < 0) {
				ws -= fg->group_bytes[g];
				live -= cgs_manifest_chunk_layers(m, ch);
				prev_u = g;
				wu_prev = cgs_manifest_user_grad_frame(m, ri, g).bytes;
			}
		}
	}
	return 0;
}

static int figure_mismatch(struct check *c, uint32_t id, const char *field,
			   uint64_t stored, const char *relation,
			   uint64_t derived)
{
	return fail(c, CGS_E_FORMAT,
		    "ranks: rank %u: %s is %llu; it must be %s%llu, what the frames and orders give",
		    id, field, (unsigned long long)stored, relation,
		    (unsigned long long)derived);
}

/* One rank's report figures against what its frames and orders give. */
static int check_rank_figures(struct check *c, struct figures *fg)
{
	struct cgs_manifest *m = c->m;
	const uint8_t *r = rank_entry(m, c->ri);
	uint32_t id = cgs_get_le32(r + CGS_MF_RANK_ID), ch, s, l, f;
	uint32_t S = m->rings[c->ri].ring.slots;
	struct cgs_manifest_rank_stats st = cgs_manifest_rank_stats(m, c->ri);
	struct replay_figures rf;
	uint64_t col_s, col_u, col;
	int rc;

	for (ch = 0, f = 0; ch < m->info.vpp; ch++)
		for (s = 0; s < S; s++) {
			uint64_t *w = &fg->group_bytes[ch * S + s];

			*w = 0;
			for (l = 0; l < cgs_manifest_chunk_layers(m, ch); l++, f++)
				if (cgs_acc_u64(w, cgs_manifest_saved_frame(
							   m, c->ri, f).bytes))
					return figure_overflow(c, id,
						"a saved group's bytes");
		}
	if ((rc = replay_figures(c, r, fg, &rf)) ||
	    (rc = colour_arena_bytes(c, r, 0, fg, &col_s)) ||
	    (rc = colour_arena_bytes(c, r, 1, fg, &col_u)))
		return rc;
	if (cgs_add_u64(col_s, col_u, &col))
		return figure_overflow(c, id, "the colour arenas' bytes");
	if (st.saved.lower_bound_bytes != rf.saved)
		return figure_mismatch(c, id, "saved lower_bound_bytes",
				       st.saved.lower_bound_bytes, "", rf.saved);
	if (st.user_grad.lower_bound_bytes != rf.user_grad)
		return figure_mismatch(c, id, "user-grad lower_bound_bytes",
				       st.user_grad.lower_bound_bytes, "",
				       rf.user_grad);
	if (st.lower_bound_bytes != rf.all)
		return figure_mismatch(c, id, "lower_bound_bytes",
				       st.lower_bound_bytes, "", rf.all);
	if (st.saved.bytes < rf.saved)
		return figure_mismatch(c, id, "saved bytes", st.saved.bytes,
				       "at least the lower bound ", rf.saved);
	/*
	 * nested user-grad frames (format 2.2) take bytes of the saved
	 * arena: the user-grad arena may then be below its kind's bound,
	 * never the rank's arenas below the rank's
	 */
	if (st.user_grad.bytes < rf.user_grad &&
	    !(m->n_known >= CGS_MF_NESTED &&
	      cgs_get_le32(m->sec[CGS_MF_NESTED] +
			   (size_t)c->ri * CGS_MF_NESTED_ENTRY_BYTES)))
		return figure_mismatch(c, id, "user-grad bytes",
				       st.user_grad.bytes,
				       "at least the lower bound ", rf.user_grad);
	if (st.bytes < rf.all)
		return figure_mismatch(c, id, "bytes", st.bytes,
				       "at least the lower bound ", rf.all);
	if (st.saved.colour_lower_bound < rf.saved_frames)
		return figure_mismatch(c, id, "saved colour_lower_bound",
				       st.saved.colour_lower_bound,
				       "at least the largest live set, ",
				       rf.saved_frames);
	if (st.user_grad.colour_lower_bound < rf.user_grad_frames)
		return figure_mismatch(c, id, "user-grad colour_lower_bound",
				       st.user_grad.colour_lower_bound,
				       "at least the largest live set, ",
				       rf.user_grad_frames);
	if (st.bytes_colour_arenas != col)
		return figure_mismatch(c, id, "bytes_colour_arenas",
				       st.bytes_colour_arenas, "", col);
	/*
	 * a saved arena packed with the user-grad frames (format 2.3) holds
	 * both kinds: only the rank's bytes are held to upstream's
	 */
	if (st.joint && st.bytes > col)
		return figure_mismatch(c, id, "bytes", st.bytes,
				       "at most upstream's ", col);
	if (!st.joint && st.saved.bytes > col_s)
		return figure_mismatch(c, id, "saved bytes", st.saved.bytes,
				       "at most upstream's for the kind, ",
				       col_s);
	if (!st.joint && st.user_grad.bytes > col_u)
		return figure_mismatch(c, id, "user-grad bytes",
				       st.user_grad.bytes,
				       "at most upstream's for the kind, ",
				       col_u);
	/* reports print figures as JSON's signed 64-bit integers */
	if (st.bytes > INT64_MAX || st.bytes_colour_arenas > INT64_MAX ||
	    st.bytes_without_sharing > INT64_MAX)
		return fail(c, CGS_E_FORMAT,
			    "ranks: rank %u: bytes %llu, bytes_colour_arenas %llu or bytes_without_sharing %llu exceeds 2^63-1",
			    id, (unsigned long long)st.bytes,
			    (unsigned long long)st.bytes_colour_arenas,
			    (unsigned long long)st.bytes_without_sharing);
	if (st.bytes_without_sharing < rf.all)
		return figure_mismatch(c, id, "bytes_without_sharing",
				       st.bytes_without_sharing,
				       "at least the lower bound ", rf.all);
	return 0;
}

static int check_figures(struct check *c)
{
	struct cgs_manifest *m = c->m;
	const struct cgs_manifest_info *in = &m->info;
	struct figures fg = {0};
	uint64_t most = in->n_saved > in->n_user_grad ? in->n_saved
						       : in->n_user_grad;
	int rc = 0;

	fg.group_bytes = calloc((size_t)in->n_user_grad + 1, sizeof(uint64_t));
	fg.colour_bytes = calloc((size_t)most + 1, sizeof(uint64_t));
	fg.fwd = calloc((size_t)in->vpp * 2, sizeof(uint32_t));
	fg.busy = calloc((size_t)in->n_user_grad + 1, 1);
	if (!fg.group_bytes || !fg.colour_bytes || !fg.fwd || !fg.busy)
		rc = fail(c, CGS_E_NOMEM, "out of memory");
	else
		fg.bwd = fg.fwd + in->vpp;
	for (c->ri = 0; c->ri < in->n_ranks && !rc; c->ri++)
		rc = check_rank_figures(c, &fg);
	free(fg.group_bytes);
	free(fg.colour_bytes);
	free(fg.fwd);
	free(fg.busy);
	return rc;
}

static int open_checked(const void *buf, size_t len, const char *path,
			struct cgs_manifest **out, struct cgs_error *err)
{
	struct check c = {0};
	struct cgs_manifest *m;
	int rc;

	if (!out || (!buf && len))
		return cgs_error_set(err, CGS_E_ARG,
				     "cgs_manifest_open: NULL argument");
	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	m->base = buf;
	m->len = len;
	c.m = m;
	c.path = path;
	c.err = err;
	if ((rc = check_header(&c)) || (rc = check_toc(&c)) ||
	    (rc = check_meta(&c)) || (rc = check_variants(&c)) ||
	    (rc = check_ranks(&c)) || (rc = check_reachable(&c)) ||
	    (rc = check_orders(&c)) || (rc = check_arenas(&c)) ||
	    (rc = check_slot_maps(&c)) ||
	    (rc = check_frames(&c)) || (rc = check_layouts(&c)) ||
	    (rc = check_capture(&c)) || (rc = check_figures(&c))) {
		cgs_manifest_close(&m);
		return rc;
	}
	*out = m;
	return 0;
}

int cgs_manifest_open_buffer(const void *buf, size_t len,
			     struct cgs_manifest **out, struct cgs_error *err)
{
	if (!buf)
		return cgs_error_set(err, CGS_E_ARG,
				     "cgs_manifest_open_buffer: NULL buffer");
	return open_checked(buf, len, NULL, out, err);
}

int cgs_manifest_open_file(const char *path, struct cgs_manifest **out,
			   struct cgs_error *err)
{
	static const uint8_t empty[1];
	struct stat st;
	void *map = NULL;
	size_t len;
	int fd, rc;

	if (!path || !out)
		return cgs_error_set(err, CGS_E_ARG,
				     "cgs_manifest_open_file: NULL argument");
	*out = NULL;
	/* O_NONBLOCK: a FIFO with no writer is refused below, not waited on. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return cgs_error_at(err, CGS_E_IO, path, 0, 0,
				    "cannot open manifest: %s",
				    strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = cgs_error_at(err, CGS_E_IO, path, 0, 0,
				  "cannot stat manifest: %s", strerror(errno));
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return cgs_error_at(err, CGS_E_IO, path, 0, 0,
				    "not a regular file; a manifest written by 'cgslot compile' is expected");
	}
	if ((uintmax_t)st.st_size > SIZE_MAX) {
		close(fd);
		return cgs_error_at(err, CGS_E_IO, path, 0, 0,
				    "manifest of %jd bytes does not fit the address space",
				    (intmax_t)st.st_size);
	}
	len = (size_t)st.st_size;
	if (len) {
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			rc = cgs_error_at(err, CGS_E_IO, path, 0, 0,
					  "cannot map manifest: %s",
					  strerror(errno));
			close(fd);
			return rc;
		}
	}
	close(fd);
	rc = open_checked(len ? map : empty, len, path, out, err);
	if (rc) {
		if (len)
			munmap(map, len);
		return rc;
	}
	(*out)->map = len ? map : NULL;
	(*out)->map_len = len;
	return 0;
}

void cgs_manifest_close(struct cgs_manifest **m)
{
	if (!m || !*m)
		return;
	if ((*m)->map)
		munmap((*m)->map, (*m)->map_len);
	free((*m)->layer_base);
	free((*m)->rings);
	free(*m);
	*m = NULL;
}

const struct cgs_manifest_info *cgs_manifest_info(const struct cgs_manifest *m)
{
	return &m->info;
}

const void *cgs_manifest_bytes(const struct cgs_manifest *m, size_t *len)
{
	if (len)
		*len = m->len;
	return m->base;
}

uint32_t cgs_manifest_chunk_layers(const struct cgs_manifest *m, uint32_t c)
{
	if (c >= m->info.vpp)
		return 0;
	return m->layer_base[c + 1] - m->layer_base[c];
}

uint32_t cgs_manifest_layer_base(const struct cgs_manifest *m, uint32_t c)
{
	if (c > m->info.vpp)
		return 0;
	return m->layer_base[c];
}

const char *cgs_manifest_variant_name(const struct cgs_manifest *m,
				      uint32_t v)
{
	if (v >= m->info.n_variants)
		return "";
	return (const char *)m->sec[CGS_MF_STRINGS] +
	       cgs_get_le32(m->sec[CGS_MF_VARIANTS] +
			    (size_t)v * CGS_MF_VARIANT_BYTES);
}

uint32_t cgs_manifest_variant_cp(const struct cgs_manifest *m, uint32_t v)
{
	if (v >= m->info.n_variants)
		return 0;
	return cgs_get_le32(m->sec[CGS_MF_VARIANTS] +
			    (size_t)v * CGS_MF_VARIANT_BYTES + 4);
}

uint32_t cgs_manifest_rank_id(const struct cgs_manifest *m, uint32_t ri)
{
	const uint8_t *r = rank_entry(m, ri);

	return r ? cgs_get_le32(r + CGS_MF_RANK_ID) : 0;
}

int cgs_manifest_find_rank(const struct cgs_manifest *m, uint32_t rank,
			   uint32_t *ri, struct cgs_error *err)
{
	char list[256];
	size_t used = 0;
	uint32_t i;

	for (i = 0; i < m->info.n_ranks; i++) {
		if (cgs_manifest_rank_id(m, i) == rank) {
			if (ri)
				*ri = i;
			return 0;
		}
	}
	list[0] = 0;
	for (i = 0; i < m->info.n_ranks && used < sizeof(list) - 16; i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used,
					 "%s%u", i ? ", " : "",
					 cgs_manifest_rank_id(m, i));
	if (i < m->info.n_ranks)
		snprintf(list + used, sizeof(list) - used, ", ...");
	return cgs_error_set(err, CGS_E_RANK,
			     "rank %u is not planned by this manifest; planned ranks: %s",
			     rank, list);
}

struct cgs_manifest_ring cgs_manifest_rank_ring(const struct cgs_manifest *m,
						uint32_t ri)
{
	struct cgs_manifest_ring none = {0};

	return ri < m->info.n_ranks ? m->rings[ri].ring : none;
}

uint32_t cgs_manifest_slot(const struct cgs_manifest *m, uint32_t ri,
			   uint32_t i, uint32_t c, uint32_t k)
{
	const uint8_t *e = reachable_entry(m, ri, i);
	const struct rank_ring *rr;
	uint64_t before, n;

	if (!e || k >= cgs_get_le32(e) || c >= m->info.vpp)
		return 0;
	rr = &m->rings[ri];
	if (!rr->ring.slot_map)
		return k % rr->ring.slots;
	/* The counts before i sum to the entries of their orders / 2M. */
	before = cgs_get_le64(e + 8) - rr->entry_first;
	if (!rr->ring.slot_map_per_chunk)
		return cgs_get_le32(m->sec[CGS_MF_SLOT_MAPS] +
				    (size_t)(rr->slot_map_first +
					     before / (2 * (uint64_t)m->info.vpp) +
					     k) * CGS_MF_SLOT_MAP_ENTRY_BYTES);
	/* M rows of each count before i, then c rows of this one. */
	n = cgs_get_le32(e);
	return cgs_get_le32(m->sec[CGS_MF_CHUNK_SLOT_MAPS] +
			    (size_t)(rr->slot_map_first + before / 2 +
				     (uint64_t)c * n + k) *
				    CGS_MF_SLOT_MAP_ENTRY_BYTES);
}

uint32_t cgs_manifest_reachable_count(const struct cgs_manifest *m,
				      uint32_t ri)
{
	const uint8_t *r = rank_entry(m, ri);

	return r ? cgs_get_le32(r + CGS_MF_RANK_REACHABLE) : 0;
}

static const uint8_t *reachable_entry(const struct cgs_manifest *m,
				      uint32_t ri, uint32_t i)
{
	const uint8_t *r = rank_entry(m, ri);

	if (!r || i >= cgs_get_le32(r + CGS_MF_RANK_REACHABLE))
		return NULL;
	return m->sec[CGS_MF_REACHABLE] +
	       (size_t)(cgs_get_le64(r + CGS_MF_RANK_REACHABLE_FIRST) + i) *
		       CGS_MF_REACHABLE_BYTES;
}

uint32_t cgs_manifest_reachable(const struct cgs_manifest *m, uint32_t ri,
				uint32_t i)
{
	const uint8_t *e = reachable_entry(m, ri, i);

	return e ? cgs_get_le32(e) : 0;
}

int cgs_manifest_find_reachable(const struct cgs_manifest *m, uint32_t ri,
				uint32_t n, uint32_t *i,
				struct cgs_error *err)
{
	uint32_t count = cgs_manifest_reachable_count(m, ri), lo = 0, hi, mid;

	hi = count;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cgs_manifest_reachable(m, ri, mid) < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < count && cgs_manifest_reachable(m, ri, lo) == n) {
		if (i)
			*i = lo;
		return 0;
	}
	if (n > m->info.max_microbatches)
		return cgs_error_set(err, CGS_E_UNREACHABLE,
				     "microbatch count %u exceeds the planned maximum %u",
				     n, m->info.max_microbatches);
	return cgs_error_set(err, CGS_E_UNREACHABLE,
			     "microbatch count %u is not reachable on rank %u; the manifest plans %u counts from %u to %u",
			     n, cgs_manifest_rank_id(m, ri), count,
			     cgs_manifest_reachable(m, ri, 0),
			     cgs_manifest_reachable(m, ri, count ? count - 1 : 0));
}

uint64_t cgs_manifest_order_length(const struct cgs_manifest *m, uint32_t ri,
				   uint32_t i)
{
	const uint8_t *e = reachable_entry(m, ri, i);

	return e ? (uint64_t)cgs_get_le32(e) * m->info.vpp * 2 : 0;
}

const void *cgs_manifest_order_raw(const struct cgs_manifest *m, uint32_t ri,
				   uint32_t i, unsigned *width)
{
	const uint8_t *e = reachable_entry(m, ri, i);

	if (width)
		*width = m->entry_bytes;
	if (!e)
		return NULL;
	return m->sec[CGS_MF_ORDERS] +
	       (size_t)cgs_get_le64(e + 8) * m->entry_bytes;
}

int32_t cgs_manifest_order_entry(const struct cgs_manifest *m, uint32_t ri,
				 uint32_t i, uint64_t k)
{
	const uint8_t *p = cgs_manifest_order_raw(m, ri, i, NULL);

	if (!p || k >= cgs_manifest_order_length(m, ri, i))
		return 0;
	return read_entry(p + (size_t)k * m->entry_bytes, m->entry_bytes);
}

void cgs_manifest_order_decode(const struct cgs_manifest *m, uint32_t ri,
			       uint32_t i, int32_t *out)
{
	const uint8_t *p = cgs_manifest_order_raw(m, ri, i, NULL);
	uint64_t k, n = cgs_manifest_order_length(m, ri, i);
	unsigned w = m->entry_bytes;

	if (!p)
		return;
	if (w == 1) {
		for (k = 0; k < n; k++)
			out[k] = (int8_t)p[k];
		return;
	}
	for (k = 0; k < n; k++)
		out[k] = read_entry(p + (size_t)k * w, w);
}

uint32_t cgs_manifest_arena_count(const struct cgs_manifest *m, uint32_t ri)
{
	const uint8_t *r = rank_entry(m, ri);

	return r ? cgs_get_le32(r + CGS_MF_RANK_ARENAS) : 0;
}

struct cgs_manifest_arena cgs_manifest_arena(const struct cgs_manifest *m,
					     uint32_t ri, uint32_t a)
{
	struct cgs_manifest_arena out = {0};
	const uint8_t *r = rank_entry(m, ri), *p;

	if (!r || a >= cgs_get_le32(r + CGS_MF_RANK_ARENAS))
		return out;
	p = m->sec[CGS_MF_ARENAS] +
	    (size_t)(cgs_get_le64(r + CGS_MF_RANK_ARENA_FIRST) + a) *
		    CGS_MF_ARENA_BYTES;
	out.role = cgs_get_le32(p);
	out.bytes = cgs_get_le64(p + 8);
	out.alignment = cgs_get_le64(p + 16);
	return out;
}

static struct cgs_manifest_frame read_frame(const uint8_t *p)
{
	struct cgs_manifest_frame f;

	f.chunk = cgs_get_le32(p + CGS_MF_FRAME_CHUNK);
	f.slot = cgs_get_le32(p + CGS_MF_FRAME_SLOT);
	f.layer = cgs_get_le32(p + CGS_MF_FRAME_LAYER);
	f.colour = cgs_get_le32(p + CGS_MF_FRAME_COLOUR);
	f.arena = cgs_get_le32(p + CGS_MF_FRAME_ARENA);
	f.offset = cgs_get_le64(p + CGS_MF_FRAME_OFFSET);
	f.bytes = cgs_get_le64(p + CGS_MF_FRAME_SIZE);
	return f;
}

struct cgs_manifest_frame cgs_manifest_saved_frame(
	const struct cgs_manifest *m, uint32_t ri, uint32_t f)
{
	struct cgs_manifest_frame none = {0};

	if (ri >= m->info.n_ranks || f >= m->rings[ri].ring.n_saved)
		return none;
	return read_frame(m->sec[CGS_MF_SAVED_FRAMES] +
			  (size_t)(m->rings[ri].saved_first + f) *
				  CGS_MF_FRAME_BYTES);
}

struct cgs_manifest_frame cgs_manifest_user_grad_frame(
	const struct cgs_manifest *m, uint32_t ri, uint32_t u)
{
	struct cgs_manifest_frame none = {0};

	if (ri >= m->info.n_ranks || u >= m->rings[ri].ring.n_user_grad)
		return none;
	return read_frame(m->sec[CGS_MF_USER_GRAD_FRAMES] +
			  (size_t)(m->rings[ri].user_grad_first + u) *
				  CGS_MF_FRAME_BYTES);
}

static struct cgs_manifest_range read_range(const uint8_t *p)
{
	struct cgs_manifest_range r;

	r.offset = cgs_get_le64(p);
	r.bytes = cgs_get_le64(p + 8);
	return r;
}

/*
 * Where the ranges of saved frame f, variant v of rank ri are stored, as
 * an index of sections 10 and 11: once per frame in format 1, once per
 * (variant, chunk, layer) in format 2 (the frame's labels are checked at
 * open).  SIZE_MAX for an index out of range.
 */
static size_t layout_index(const struct cgs_manifest *m, uint32_t ri,
			   uint32_t v, uint32_t f)
{
	struct cgs_manifest_frame fr;

	if (ri >= m->info.n_ranks || v >= m->info.n_variants ||
	    f >= m->rings[ri].ring.n_saved)
		return SIZE_MAX;
	if (m->info.major < 2)
		return ((size_t)ri * m->info.n_variants + v) *
			       m->rings[ri].ring.n_saved + f;
	fr = cgs_manifest_saved_frame(m, ri, f);
	return ((size_t)ri * m->info.n_variants + v) * m->info.layers_total +
	       m->layer_base[fr.chunk] + fr.layer;
}

struct cgs_manifest_range cgs_manifest_saved_role(
	const struct cgs_manifest *m, uint32_t ri, uint32_t v, uint32_t f,
	uint32_t r)
{
	struct cgs_manifest_range none = {0};
	size_t idx = layout_index(m, ri, v, f);

	if (idx == SIZE_MAX || r > CGS_MANIFEST_ROLE_SAVED)
		return none;
	return read_range(m->sec[CGS_MF_SAVED_ROLES] +
			  (idx * 3 + r) * CGS_MF_RANGE_BYTES);
}

struct cgs_manifest_range cgs_manifest_user_grad_layer(
	const struct cgs_manifest *m, uint32_t ri, uint32_t v, uint32_t f)
{
	struct cgs_manifest_range none = {0};
	size_t idx = layout_index(m, ri, v, f);

	if (idx == SIZE_MAX)
		return none;
	return read_range(m->sec[CGS_MF_USER_GRAD_LAYERS] +
			  idx * CGS_MF_RANGE_BYTES);
}

uint32_t cgs_manifest_capture_count(const struct cgs_manifest *m,
				    uint32_t ri)
{
	const uint8_t *r = rank_entry(m, ri);

	return r ? cgs_get_le32(r + CGS_MF_RANK_CAPTURE) : 0;
}

uint32_t cgs_manifest_capture(const struct cgs_manifest *m, uint32_t ri,
			      uint32_t i)
{
	const uint8_t *r = rank_entry(m, ri);

	if (!r || i >= cgs_get_le32(r + CGS_MF_RANK_CAPTURE))
		return 0;
	return cgs_get_le32(m->sec[CGS_MF_CAPTURE] +
			    (size_t)(cgs_get_le64(r + CGS_MF_RANK_CAPTURE_FIRST) +
				     i) * 4);
}

void cgs_manifest_graph_split(const struct cgs_manifest *m, uint32_t ri,
			      uint32_t g, uint32_t *variant, uint32_t *frame,
			      uint32_t *direction)
{
	uint32_t n_saved = ri < m->info.n_ranks ? m->rings[ri].ring.n_saved
						: m->info.n_saved;

	if (variant)
		*variant = g / 2 / n_saved;
	if (frame)
		*frame = g / 2 % n_saved;
	if (direction)
		*direction = g % 2;
}

static struct cgs_manifest_role_stats read_stats(const uint8_t *p)
{
	struct cgs_manifest_role_stats s;

	s.frames = cgs_get_le32(p + CGS_MF_STATS_FRAMES);
	s.colours = cgs_get_le32(p + CGS_MF_STATS_COLOURS);
	s.colour_lower_bound = cgs_get_le32(p + CGS_MF_STATS_COLOUR_LB);
	s.bytes = cgs_get_le64(p + CGS_MF_STATS_BYTES);
	s.lower_bound_bytes = cgs_get_le64(p + CGS_MF_STATS_LOWER_BOUND);
	return s;
}

struct cgs_manifest_rank_stats cgs_manifest_rank_stats(
	const struct cgs_manifest *m, uint32_t ri)
{
	struct cgs_manifest_rank_stats s = {0};
	const uint8_t *r = rank_entry(m, ri);

	if (!r)
		return s;
	s.saved = read_stats(r + CGS_MF_RANK_SAVED_STATS);
	s.user_grad = read_stats(r + CGS_MF_RANK_USER_GRAD_STATS);
	s.bytes = cgs_get_le64(r + CGS_MF_RANK_BYTES);
	s.lower_bound_bytes = cgs_get_le64(r + CGS_MF_RANK_LOWER_BOUND);
	s.bytes_without_sharing = cgs_get_le64(r + CGS_MF_RANK_WITHOUT_SHARING);
	s.bytes_colour_arenas = cgs_get_le64(r + CGS_MF_RANK_COLOUR_ARENAS);
	s.joint = m->n_known >= CGS_MF_JOINT &&
		  (cgs_get_le32(m->sec[CGS_MF_JOINT] +
				(size_t)ri * CGS_MF_JOINT_ENTRY_BYTES) &
		   CGS_MF_JOINT_PACKED);
	return s;
}
