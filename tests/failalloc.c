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
/* Where each allocation since the last arm was asked for (site_cap 0: off). */
static const void **sites;
static unsigned long site_cap;

void cgs_failalloc_arm(unsigned long n)
{
	fail_at = n;
	count = 0;
	fired = 0;
}

int cgs_failalloc_record(int on)
{
	if (!on) {
		__libc_free(sites);
		sites = NULL;
		site_cap = 0;
		return 0;
	}
	if (!site_cap) {
		sites = __libc_malloc(1024 * sizeof(*sites));
		if (!sites)
			return -1;
		site_cap = 1024;
	}
	return 0;
}

const void *cgs_failalloc_site(unsigned long n)
{
	return n >= 1 && n <= count && n <= site_cap ? sites[n - 1] : NULL;
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

static int should_fail(const void *site)
{
	count++;
	if (site_cap) {
		if (count > site_cap) {
			const void **more = __libc_realloc(
				sites, 2 * site_cap * sizeof(*sites));

			/* out of memory: later sites read as unknown */
			if (more) {
				sites = more;
				site_cap *= 2;
			}
		}
		if (count <= site_cap)
			sites[count - 1] = site;
	}
	if (fail_at && count == fail_at) {
		fired = 1;
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

static void *site_malloc(size_t size, const void *site)
{
	void *p;

	if (should_fail(site))
		return NULL;
	p = __libc_malloc(size);
	if (p)
		live++;
	return p;
}

void *malloc(size_t size)
{
	return site_malloc(size, __builtin_return_address(0));
}

void *calloc(size_t n, size_t size)
{
	void *p;

	if (should_fail(__builtin_return_address(0)))
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
		return site_malloc(size, __builtin_return_address(0));
	if (size == 0) {
		free(p);
		return NULL;
	}
	if (should_fail(__builtin_return_address(0)))
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
