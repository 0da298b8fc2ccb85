/* Mapping CUDA runtime errors to cgslot status codes. */
#include <stdarg.h>
#include <stdio.h>

#include "common/error.h"
#include "runtime/runtime.h"

int cgs_cuda_status(cudaError_t rc)
{
	switch (rc) {
	case cudaSuccess:
		return CGS_OK;
	/* No device, or no driver cudart can use. */
	case cudaErrorNoDevice:
	case cudaErrorInvalidDevice:
	case cudaErrorInsufficientDriver:
	case cudaErrorStubLibrary:
	case cudaErrorDevicesUnavailable:
	case cudaErrorSystemDriverMismatch:
	case cudaErrorCompatNotSupportedOnDevice:
	case cudaErrorSystemNotReady:
		return CGS_E_NODEVICE;
	/*
	 * Sticky errors: the context is corrupt and every later call in the
	 * process fails the same way, so the caller must not retry.
	 */
	case cudaErrorIllegalAddress:
	case cudaErrorLaunchFailure:
	case cudaErrorLaunchTimeout:
	case cudaErrorHardwareStackError:
	case cudaErrorIllegalInstruction:
	case cudaErrorMisalignedAddress:
	case cudaErrorInvalidAddressSpace:
	case cudaErrorInvalidPc:
	case cudaErrorAssert:
	case cudaErrorECCUncorrectable:
	case cudaErrorNvlinkUncorrectable:
	case cudaErrorContained:
	case cudaErrorTensorMemoryLeak:
	case cudaErrorExternalDevice:
		return CGS_E_CUDA_FATAL;
	default:
		return CGS_E_CUDA;
	}
}

int cgs_cuda_fail(struct cgs_error *err, cudaError_t rc, const char *fmt, ...)
{
	char what[CGS_ERROR_MESSAGE_MAX];
	int status = cgs_cuda_status(rc);
	int fresh = err && err->code == 0;
	const char *name = cudaGetErrorName(rc);
	const char *text = cudaGetErrorString(rc);
	va_list ap;

	if (status == CGS_OK)
		status = CGS_E_CUDA; /* a caller bug; never report success */
	if (status == CGS_E_CUDA)
		(void)cudaGetLastError();
	what[0] = '\0';
	/* GCC's -O2 UBSan build sees a null path for fmt: every caller
	 * passes a literal, so the test costs nothing. */
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
	}
	cgs_error_set(err, status, "%s: %s: %s%s", what,
		      name ? name : "cudaErrorUnknown", text ? text : "",
		      status == CGS_E_CUDA_FATAL ?
		      " (sticky: the CUDA context is unusable)" : "");
	if (fresh)
		err->cuda_error = (int)rc;
	return status;
}
