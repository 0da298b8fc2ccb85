/*
 * cgslot error reporting, shared by libcgslot and the cgslot tools.
 *
 * Every library function returns 0 on success or one of the negative
 * CGS_E_* codes below.  Their numeric values are pinned: a code is never
 * renumbered or reused, so scripts and bindings may rely on them.
 *
 * A function that can fail also takes an optional `struct cgs_error *`.
 * When it is non-NULL and its code is still 0, the first failure fills it
 * (code, location, message, raw CUDA error); later failures leave it alone,
 * so the root cause is what the caller sees.  Pass NULL to ignore details.
 */
#ifndef CGSLOT_ERROR_H
#define CGSLOT_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum cgs_status {
	CGS_OK = 0,
	CGS_E_NOMEM = -1,       /* an allocation failed */
	CGS_E_IO = -2,          /* reading or writing a file failed */
	CGS_E_SYNTAX = -3,      /* the input is not well-formed YAML/JSON/UTF-8 */
	CGS_E_INVALID = -4,     /* a value is out of range or of the wrong type */
	CGS_E_LIMIT = -5,       /* the input exceeds a documented limit */
	CGS_E_ORDER = -6,       /* a capture order is malformed or does not drain */
	CGS_E_PLAN = -7,        /* no safe plan exists for the requested ring */
	CGS_E_FORMAT = -8,      /* a manifest is malformed or corrupt */
	CGS_E_VERSION = -9,     /* a manifest's major version is not supported */
	CGS_E_CHECKSUM = -10,   /* a manifest's checksum does not match */
	CGS_E_VERIFY = -11,     /* two live frames share bytes */
	CGS_E_ARG = -12,        /* an argument to a library call is invalid */
	CGS_E_CUDA = -13,       /* a CUDA runtime call failed */
	CGS_E_CUDA_FATAL = -14, /* a sticky CUDA error: the context is unusable */
	CGS_E_STATE = -15,      /* the call is not valid in the object's state */
	CGS_E_UNREACHABLE = -16,/* a microbatch count the manifest does not plan */
	CGS_E_NOGRAPH = -17,    /* a graph needed for replay was not captured */
	CGS_E_RANK = -18,       /* the manifest does not plan this rank */
	CGS_E_MISMATCH = -19,   /* a schedule does not match a manifest */
	CGS_E_NODEVICE = -20,   /* no CUDA device or driver is available */
};

#define CGS_ERROR_FILE_MAX 256
#define CGS_ERROR_MESSAGE_MAX 512

struct cgs_error {
	int code;               /* 0 while no error has been recorded */
	char file[CGS_ERROR_FILE_MAX]; /* input file, or "" */
	unsigned line;          /* 1-based; 0 when not tied to a position */
	unsigned column;        /* 1-based; 0 when not tied to a position */
	char message[CGS_ERROR_MESSAGE_MAX];
	int cuda_error;         /* raw cudaError_t for CGS_E_CUDA*, else 0 */
};

/* The fixed English name of a status code, e.g. "CGS_E_NOMEM". */
const char *cgs_status_name(int code);

#ifdef __cplusplus
}
#endif

#endif
