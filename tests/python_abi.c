/*
 * Prints the layout of the structs the Python binding declares with
 * ctypes (tools/python/cgslot/_native.py), one "struct field offset size"
 * line per field and "struct - 0 sizeof" per struct, so
 * tests/test_python.py can compare the two.
 */
#include <stddef.h>
#include <stdio.h>

#include "cgslot/cgslot.h"

#define FIELD(s, f) \
	printf("%s %s %zu %zu\n", #s, #f, offsetof(struct s, f), \
	       sizeof(((struct s *)0)->f))
#define SIZE(s) printf("%s - 0 %zu\n", #s, sizeof(struct s))

int main(void)
{
	FIELD(cgs_error, code);
	FIELD(cgs_error, file);
	FIELD(cgs_error, line);
	FIELD(cgs_error, column);
	FIELD(cgs_error, message);
	FIELD(cgs_error, cuda_error);
	SIZE(cgs_error);
	FIELD(cgs_runtime_info, size);
	FIELD(cgs_runtime_info, rank);
	FIELD(cgs_runtime_info, device);
	FIELD(cgs_runtime_info, pp);
	FIELD(cgs_runtime_info, vpp);
	FIELD(cgs_runtime_info, group);
	FIELD(cgs_runtime_info, max_microbatches);
	FIELD(cgs_runtime_info, slots);
	FIELD(cgs_runtime_info, n_variants);
	FIELD(cgs_runtime_info, layers_total);
	FIELD(cgs_runtime_info, n_saved);
	FIELD(cgs_runtime_info, n_graphs);
	FIELD(cgs_runtime_info, n_reachable);
	FIELD(cgs_runtime_info, n_arenas);
	FIELD(cgs_runtime_info, arena_bytes);
	FIELD(cgs_runtime_info, alignment);
	SIZE(cgs_runtime_info);
	FIELD(cgs_graph_desc, size);
	FIELD(cgs_graph_desc, index);
	FIELD(cgs_graph_desc, variant);
	FIELD(cgs_graph_desc, chunk);
	FIELD(cgs_graph_desc, slot);
	FIELD(cgs_graph_desc, layer);
	FIELD(cgs_graph_desc, direction);
	FIELD(cgs_graph_desc, frame);
	FIELD(cgs_graph_desc, user_grad_frame);
	FIELD(cgs_graph_desc, reserved);
	FIELD(cgs_graph_desc, addr);
	FIELD(cgs_graph_desc, bytes);
	SIZE(cgs_graph_desc);
	FIELD(cgs_runtime_stats, size);
	FIELD(cgs_runtime_stats, graphs_captured);
	FIELD(cgs_runtime_stats, graphs_adopted);
	FIELD(cgs_runtime_stats, reserved);
	FIELD(cgs_runtime_stats, capture_ns);
	FIELD(cgs_runtime_stats, instantiate_ns);
	SIZE(cgs_runtime_stats);
	printf("version - %d 0\n", CGSLOT_VERSION_NUMBER);
	return ferror(stdout) != 0;
}
