#define _DEFAULT_SOURCE   /* madvise, MADV_HUGEPAGE */
#include "common/large.h"

#include <stdlib.h>
#include <sys/mman.h>

void *cgs_large_alloc(size_t bytes)
{
	void *p = NULL;

	if (bytes < CGS_LARGE_PAGE)
		return malloc(bytes ? bytes : 1);
	if (posix_memalign(&p, CGS_LARGE_PAGE, bytes))
		return NULL;
#ifdef MADV_HUGEPAGE
	/*
	 * Advice only: a kernel without huge pages declines, and that is the
	 * 4 KiB pages of malloc.  The last, partial 2 MiB stays in small
	 * pages, so nothing past the block is taken.
	 */
	(void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}
