/*
 * Memory for the planner's large arrays, the orders above all (4 bytes an
 * entry, 136 MB over the ranks of P 32, M 8, L 2048): filled once, from
 * start to end, by the threads that plan.  Taken in 4 KiB pages, filling
 * them costs a page fault each, and with two threads each fault that
 * changes a mapping also stops the other processor; on P 32, M 8, L 2048
 * huge pages alone took about a quarter off the planning time.  Where the kernel takes
 * advice (Linux, transparent huge pages on "madvise" or "always"), blocks
 * of 2 MiB and more are aligned to 2 MiB and advised as huge pages: a
 * fault per 2 MiB.  Elsewhere, or when the kernel declines, it is plain
 * malloc.  Freed with free().
 */
#ifndef CGS_COMMON_LARGE_H
#define CGS_COMMON_LARGE_H

#include <stddef.h>

/* The size from which cgs_large_alloc aligns and advises. */
#define CGS_LARGE_PAGE ((size_t)2 << 20)

/* bytes of memory (at least 1), or NULL when out of memory; free() it. */
void *cgs_large_alloc(size_t bytes);

#endif
