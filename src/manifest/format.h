/*
 * Layout constants of the slot manifest, shared by the writer and the
 * reader.  cgslot-manifest(5) is the specification; keep the two in step
 * (and add a change log entry there when anything here changes).
 */
#ifndef CGS_MANIFEST_FORMAT_H
#define CGS_MANIFEST_FORMAT_H

#include <stdint.h>
#include <string.h>

#define CGS_MF_MAGIC "CGSLOTMF"
#define CGS_MF_MAGIC_BYTES 8

/* File header: magic, u16 major, u16 minor, u32 header bytes,
 * u32 sections, u32 reserved, u64 file bytes. */
#define CGS_MF_HEADER_BYTES 32
/* Table of contents entry: u32 id, u32 flags, u64 offset, u64 bytes. */
#define CGS_MF_TOC_ENTRY_BYTES 24
/* Trailer: u32 reserved, u32 CRC-32C of every byte before it. */
#define CGS_MF_TRAILER_BYTES 8

#define CGS_MF_FLAG_OPTIONAL 1u

enum cgs_mf_section {
	CGS_MF_META = 1,
	CGS_MF_STRINGS = 2,
	CGS_MF_VARIANTS = 3,
	CGS_MF_RANKS = 4,
	CGS_MF_REACHABLE = 5,
	CGS_MF_ORDERS = 6,
	CGS_MF_ARENAS = 7,
	CGS_MF_SAVED_FRAMES = 8,
	CGS_MF_USER_GRAD_FRAMES = 9,
	CGS_MF_SAVED_ROLES = 10,
	CGS_MF_USER_GRAD_LAYERS = 11,
	CGS_MF_CAPTURE = 12,
	CGS_MF_SLOT_MAPS = 13,       /* format 2.0 on */
	CGS_MF_CHUNK_SLOT_MAPS = 14, /* format 2.1 on */
	CGS_MF_NESTED = 15,          /* format 2.2 on */
	CGS_MF_JOINT = 16,           /* format 2.3 on */
	CGS_MF_SECTIONS_KNOWN = 16,
	CGS_MF_SECTIONS_V1 = 12,     /* the sections of format 1.x */
	CGS_MF_SECTIONS_V2_0 = 13,   /* the sections of format 2.0 */
	CGS_MF_SECTIONS_V2_1 = 14,   /* the sections of format 2.1 */
	CGS_MF_SECTIONS_V2_2 = 15,   /* the sections of format 2.2 */
};

/* The minor of major 2 that added CHUNK_SLOT_MAPS and rank flags bit 1. */
#define CGS_MF_MINOR_CHUNK_SLOT_MAPS 1
/*
 * The minor that added NESTED: user-grad frames may lie in a saved arena.
 * NESTED entry, one per rank: u32 user-grad frames that do, u32 reserved.
 */
#define CGS_MF_MINOR_NESTED 2
#define CGS_MF_NESTED_ENTRY_BYTES 8
/*
 * The minor that added JOINT: a rank's saved arena may be laid out with
 * its user-grad frames as one packing, and then exceed the saved kind's
 * part of the colour arenas.  JOINT entry, one per rank: u32 flags
 * (CGS_MF_JOINT_PACKED), u32 reserved.
 */
#define CGS_MF_MINOR_JOINT 3
#define CGS_MF_JOINT_ENTRY_BYTES 8
#define CGS_MF_JOINT_PACKED 1u

/* META: fixed part, then u32 layers[vpp]. */
#define CGS_MF_META_HASH 0
#define CGS_MF_META_ALIGNMENT 8
#define CGS_MF_META_PP 16
#define CGS_MF_META_VPP 20
#define CGS_MF_META_GROUP 24
#define CGS_MF_META_MAX_MB 28
#define CGS_MF_META_SLOTS 32
#define CGS_MF_META_LAYERS_TOTAL 36
#define CGS_MF_META_VARIANTS 40
#define CGS_MF_META_RANKS 44
#define CGS_MF_META_NAME 48
#define CGS_MF_META_PRODUCER 52
#define CGS_MF_META_ENTRY_BYTES 56
#define CGS_MF_META_RESERVED 60
#define CGS_MF_META_FIXED_BYTES 64

/* VARIANTS entry: u32 name (string offset), u32 cp. */
#define CGS_MF_VARIANT_BYTES 8

/* RANKS entry. */
#define CGS_MF_RANK_ID 0
#define CGS_MF_RANK_REACHABLE 4
#define CGS_MF_RANK_ARENAS 8
#define CGS_MF_RANK_CAPTURE 12
#define CGS_MF_RANK_REACHABLE_FIRST 16
#define CGS_MF_RANK_ARENA_FIRST 24
#define CGS_MF_RANK_CAPTURE_FIRST 32
#define CGS_MF_RANK_SAVED_STATS 40
#define CGS_MF_RANK_USER_GRAD_STATS 72
#define CGS_MF_RANK_BYTES 104
#define CGS_MF_RANK_LOWER_BOUND 112
#define CGS_MF_RANK_WITHOUT_SHARING 120
#define CGS_MF_RANK_COLOUR_ARENAS 128
#define CGS_MF_RANK_ENTRY_BYTES_V1 136  /* format 1.x ends here */
/* Format 2.0: the rank's own ring, its slot map and its frames' place. */
#define CGS_MF_RANK_SLOTS 136
#define CGS_MF_RANK_FLAGS 140
#define CGS_MF_RANK_SAVED_FIRST 144
#define CGS_MF_RANK_USER_GRAD_FIRST 152
#define CGS_MF_RANK_SLOT_MAP_FIRST 160
#define CGS_MF_RANK_ENTRY_BYTES 168
/*
 * RANKS flags: bit 0, the rank's slot map (one row per reachable count) is
 * stored in SLOT_MAPS; bit 1 (format 2.1 on), its map has a row per
 * reachable count and chunk, stored in CHUNK_SLOT_MAPS.  Never both.
 */
#define CGS_MF_RANK_HAS_SLOT_MAP 1u
#define CGS_MF_RANK_HAS_CHUNK_SLOT_MAP 2u
/* Role stats block (32 bytes): u32 frames, u32 colours,
 * u32 colour lower bound, u32 reserved, u64 bytes, u64 lower bound. */
#define CGS_MF_STATS_FRAMES 0
#define CGS_MF_STATS_COLOURS 4
#define CGS_MF_STATS_COLOUR_LB 8
#define CGS_MF_STATS_RESERVED 12
#define CGS_MF_STATS_BYTES 16
#define CGS_MF_STATS_LOWER_BOUND 24

/* REACHABLE entry: u32 microbatches, u32 reserved, u64 first entry. */
#define CGS_MF_REACHABLE_BYTES 16

/* ARENAS entry: u32 role, u32 reserved, u64 bytes, u64 alignment. */
#define CGS_MF_ARENA_BYTES 24

/* Frame entry: u32 chunk, slot, layer, colour, arena, reserved;
 * u64 offset, bytes. */
#define CGS_MF_FRAME_CHUNK 0
#define CGS_MF_FRAME_SLOT 4
#define CGS_MF_FRAME_LAYER 8
#define CGS_MF_FRAME_COLOUR 12
#define CGS_MF_FRAME_ARENA 16
#define CGS_MF_FRAME_RESERVED 20
#define CGS_MF_FRAME_OFFSET 24
#define CGS_MF_FRAME_SIZE 32
#define CGS_MF_FRAME_BYTES 40

/* Range entry: u64 offset, u64 bytes. */
#define CGS_MF_RANGE_BYTES 16

/* SLOT_MAPS entry: u32 slot of one microbatch for one reachable count;
 * CHUNK_SLOT_MAPS entries are the same, for one count and one chunk. */
#define CGS_MF_SLOT_MAP_ENTRY_BYTES 4

/*
 * Whether a NUL-terminated string may be stored: UTF-8 (no overlong or
 * surrogate encodings, nothing above U+10FFFF) without control characters.
 */
int cgs_mf_text_ok(const char *text);

/* Little-endian access, independent of host order and alignment. */
static inline uint16_t cgs_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t cgs_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t cgs_get_le64(const uint8_t *p)
{
	return (uint64_t)cgs_get_le32(p) | (uint64_t)cgs_get_le32(p + 4) << 32;
}

static inline void cgs_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void cgs_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void cgs_put_le64(uint8_t *p, uint64_t v)
{
	cgs_put_le32(p, (uint32_t)v);
	cgs_put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint64_t cgs_mf_align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

#endif
