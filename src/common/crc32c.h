/* CRC-32C (Castagnoli), the checksum of slot manifests. */
#ifndef CGS_COMMON_CRC32C_H
#define CGS_COMMON_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * Extend `crc` (0 to start) over len bytes of buf: the reflected
 * polynomial 0x1EDC6F41 with initial value and final xor 0xFFFFFFFF, so
 * cgs_crc32c(0, "123456789", 9) == 0xE3069283.  Calls chain:
 * crc(a ++ b) == cgs_crc32c(cgs_crc32c(0, a), b).
 */
uint32_t cgs_crc32c(uint32_t crc, const void *buf, size_t len);

/*
 * The same with lookup tables only; cgs_crc32c uses the processor's CRC-32C
 * instruction where it has one (SSE4.2), and tests compare the two.
 */
uint32_t cgs_crc32c_portable(uint32_t crc, const void *buf, size_t len);

#endif
