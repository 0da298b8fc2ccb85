#include "failalloc.h"

#include <errno.h>
#include <string.h>

/* glibc's own entry points, which the replacements below forward to. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);

void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);
void free(void *p);

static unsigned long fail_at, count;
static int fired;
static long live;

void cgs_failalloc_arm(unsigned long n)
{
	fail_at = n;
	count = 0;
	fired = 0;
}

unsigned long cgs_failalloc_count(void)
{
	return count;
}

int cgs_failalloc_fired(void)
{
	return fired;
}

long cgs_failalloc_live(void)
{
	return live;
}

static int should_fail(void)
{
	count++;
	if (fail_at && count == fail_at) {
		fired = 1;
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

void *malloc(size_t size)
{
	void *p;

	if (should_fail())
		return NULL;
	p = __libc_malloc(size);
	if (p)
		live++;
	return p;
}

void *calloc(size_t n, size_t size)
{
	void *p;

	if (should_fail())
		return NULL;
	p = __libc_calloc(n, size);
	if (p)
		live++;
	return p;
}

void *realloc(void *p, size_t size)
{
	void *q;

	if (!p)
		return malloc(size);
	if (size == 0) {
		free(p);
		return NULL;
	}
	if (should_fail())
		return NULL;
	q = __libc_realloc(p, size);
	return q;
}

void free(void *p)
{
	if (p)
		live--;
	__libc_free(p);
}
