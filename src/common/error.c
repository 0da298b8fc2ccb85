#include "common/error.h"

#include <stdio.h>
#include <string.h>

static const char *const status_names[] = {
	"CGS_OK",           "CGS_E_NOMEM",       "CGS_E_IO",
	"CGS_E_SYNTAX",     "CGS_E_INVALID",     "CGS_E_LIMIT",
	"CGS_E_ORDER",      "CGS_E_PLAN",        "CGS_E_FORMAT",
	"CGS_E_VERSION",    "CGS_E_CHECKSUM",    "CGS_E_VERIFY",
	"CGS_E_ARG",        "CGS_E_CUDA",        "CGS_E_CUDA_FATAL",
	"CGS_E_STATE",      "CGS_E_UNREACHABLE", "CGS_E_NOGRAPH",
	"CGS_E_RANK",       "CGS_E_MISMATCH",    "CGS_E_NODEVICE",
};

const char *cgs_status_name(int code)
{
	unsigned idx = (unsigned)-code;

	if (code > 0 || idx >= sizeof(status_names) / sizeof(status_names[0]))
		return "CGS_E_UNKNOWN";
	return status_names[idx];
}

int cgs_error_vat(struct cgs_error *err, int code, const char *file,
		  unsigned line, unsigned column, const char *fmt, va_list ap)
{
	if (!err || err->code != 0)
		return code;
	err->code = code;
	err->line = line;
	err->column = column;
	err->cuda_error = 0;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	return code;
}

int cgs_error_at(struct cgs_error *err, int code, const char *file,
		 unsigned line, unsigned column, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cgs_error_vat(err, code, file, line, column, fmt, ap);
	va_end(ap);
	return code;
}

int cgs_error_set(struct cgs_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cgs_error_vat(err, code, NULL, 0, 0, fmt, ap);
	va_end(ap);
	return code;
}

void cgs_error_clear(struct cgs_error *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}

const char *cgs_error_format(const struct cgs_error *err, char *buf,
			     unsigned long size)
{
	if (!err->file[0])
		snprintf(buf, size, "error: %s", err->message);
	else if (!err->line)
		snprintf(buf, size, "%s: error: %s", err->file, err->message);
	else if (!err->column)
		snprintf(buf, size, "%s:%u: error: %s", err->file, err->line,
			 err->message);
	else
		snprintf(buf, size, "%s:%u:%u: error: %s", err->file, err->line,
			 err->column, err->message);
	return buf;
}
