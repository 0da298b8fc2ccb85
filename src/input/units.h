/*
 * Byte sizes in schedule files: an integer, or a decimal number with a
 * unit: B, KiB, MiB, GiB, TiB (powers of 1024) or KB, MB, GB (powers of
 * 1000).  Decimals must come to a whole number of bytes (1.5GiB is fine,
 * 1.3B is not); zero, negatives and values past 2^64-1 are refused.
 */
#ifndef CGS_INPUT_UNITS_H
#define CGS_INPUT_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* The accepted units, for messages. */
#define CGS_UNITS_ACCEPTED "B, KiB, MiB, GiB, TiB, KB, MB, GB"

/*
 * Parse `text` (len bytes, need not be NUL-terminated).  With
 * need_unit = 0 a bare integer is accepted as bytes; with 1 a unit is
 * required.  Returns 0 and stores the size, or -1 and writes why into msg
 * (a lowercase phrase naming the text and what is accepted).
 */
int cgs_size_parse(const char *text, size_t len, int need_unit,
		   uint64_t *out, char *msg, size_t msg_size);

#endif
