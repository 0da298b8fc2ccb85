/*
 * Allocation-failure injection for tests: this object replaces malloc,
 * calloc, realloc and free for the whole process (glibc allows that) and
 * can make the n-th allocation from now fail, counting live blocks so a
 * test can prove that every failure path frees what it took.
 */
#ifndef CGS_TESTS_FAILALLOC_H
#define CGS_TESTS_FAILALLOC_H

#include <stddef.h>

/* Fail the n-th allocation from now (1-based); 0 disables injection. */
void cgs_failalloc_arm(unsigned long n);

/* Allocations made (successful or not) since the last arm. */
unsigned long cgs_failalloc_count(void);

/*
 * Record where each allocation is asked for (the caller's return address),
 * from the next arm on (on 1; -1 when that cannot be set up), or stop
 * and forget (on 0).
 */
int cgs_failalloc_record(int on);

/*
 * The call site of the n-th allocation (1-based) since the last arm, NULL
 * where not recorded.
 */
const void *cgs_failalloc_site(unsigned long n);

/* Whether the armed failure has happened. */
int cgs_failalloc_fired(void);

/* Blocks allocated and not yet freed, over the whole process. */
long cgs_failalloc_live(void);

#endif
