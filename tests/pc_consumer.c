/*
 * An application of the installed libcgslot, built by tests/cli_install.sh
 * with nothing but `pkg-config --cflags --libs libcgslot`: it calls the
 * CUDA runtime itself (as any user does, for streams) and opens a
 * manifest, which needs no GPU.
 */
#include <stdio.h>

#include <cuda_runtime_api.h>
#include <cgslot/cgslot.h>
#include <cgslot/error.h>

int main(int argc, char **argv)
{
	struct cgs_runtime *rt = NULL;
	struct cgs_error err = {0};
	struct cgs_runtime_info in = {.size = sizeof(in)};
	int devices = 0;
	cudaError_t rc = cudaGetDeviceCount(&devices);

	if (argc != 2) {
		fprintf(stderr, "usage: pc_consumer MANIFEST\n");
		return 2;
	}
	if (cgs_runtime_open(argv[1], 0, 0, &rt, &err) != 0) {
		fprintf(stderr, "%s (%s)\n", err.message, cgs_status_name(err.code));
		return 1;
	}
	if (cgs_runtime_info(rt, &in, &err) != 0) {
		fprintf(stderr, "%s (%s)\n", err.message, cgs_status_name(err.code));
		cgs_runtime_destroy(&rt);
		return 1;
	}
	/* The library the loader found, against the header built with. */
	printf("graphs %u, arena bytes %llu; cudaGetDeviceCount: %s; libcgslot %s (%u), header %u\n",
	       in.n_graphs, (unsigned long long)in.arena_bytes,
	       cudaGetErrorName(rc), cgs_version_string(), cgs_version(),
	       (unsigned)CGSLOT_VERSION_NUMBER);
	cgs_runtime_destroy(&rt);
	return 0;
}
