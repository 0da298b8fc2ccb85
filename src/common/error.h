/* Internal helpers for filling struct cgs_error (first error wins). */
#ifndef CGS_COMMON_ERROR_H
#define CGS_COMMON_ERROR_H

#include <stdarg.h>

#include "cgslot/error.h"

#if defined(__GNUC__)
#define CGS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CGS_PRINTF(f, a)
#endif

/*
 * Record an error tied to a position in an input file (file may be NULL,
 * line/column 0 when unknown).  Returns `code`, so callers can write
 * `return cgs_error_at(err, CGS_E_INVALID, ...)`.
 */
int cgs_error_at(struct cgs_error *err, int code, const char *file,
		 unsigned line, unsigned column, const char *fmt, ...)
	CGS_PRINTF(6, 7);

/* Record an error with no input position. */
int cgs_error_set(struct cgs_error *err, int code, const char *fmt, ...)
	CGS_PRINTF(3, 4);

int cgs_error_vat(struct cgs_error *err, int code, const char *file,
		  unsigned line, unsigned column, const char *fmt, va_list ap);

/* Clear an error so it can record again. */
void cgs_error_clear(struct cgs_error *err);

/*
 * Format as "file:line:col: error: message" (parts omitted when unknown)
 * into buf; returns buf.
 */
const char *cgs_error_format(const struct cgs_error *err, char *buf,
			     unsigned long size);

#endif
