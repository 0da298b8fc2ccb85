#include "common/crc32c.h"

#include <pthread.h>

/*
 * Slicing-by-8: table[k][b] is the CRC of byte b followed by k zero bytes,
 * so eight bytes fold in with eight lookups.  Manifests of large pipelines
 * hold tens of megabytes of orders, and the reader checks the whole file
 * on every open.  The tables are built once, on first use, from any
 * thread (the runtime may open manifests concurrently).
 */
#define CRC32C_POLY 0x82F63B78u

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_table(void)
{
	uint32_t b, c;
	int k;

	for (b = 0; b < 256; b++) {
		c = b;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC32C_POLY & (0u - (c & 1)));
		table[0][b] = c;
	}
	for (b = 0; b < 256; b++) {
		c = table[0][b];
		for (k = 1; k < 8; k++) {
			c = (c >> 8) ^ table[0][c & 0xff];
			table[k][b] = c;
		}
	}
}

uint32_t cgs_crc32c_portable(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t lo, hi;

	pthread_once(&table_once, build_table);
	crc = ~crc;
	while (len >= 8) {
		lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 |
		     (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^
		      table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
		      table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		      table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#include <string.h>

/*
 * SSE4.2 has an instruction for exactly this polynomial: eight bytes per
 * instruction, several times the table's speed, which matters because
 * every open of a manifest checksums the whole file.
 */
__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t c = ~crc & 0xffffffffu, word;

	while (len >= 8) {
		memcpy(&word, p, 8);  /* x86 is little-endian */
		c = _mm_crc32_u64(c, word);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = _mm_crc32_u8((uint32_t)c, *p++);
	return ~(uint32_t)c;
}

uint32_t cgs_crc32c(uint32_t crc, const void *buf, size_t len)
{
	if (__builtin_cpu_supports("sse4.2"))
		return crc32c_sse42(crc, buf, len);
	return cgs_crc32c_portable(crc, buf, len);
}
#else
uint32_t cgs_crc32c(uint32_t crc, const void *buf, size_t len)
{
	return cgs_crc32c_portable(crc, buf, len);
}
#endif
