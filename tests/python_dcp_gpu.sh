#!/bin/sh
# tools/python/examples/dcp_layers.py on the GPU (suite 'gpu'): rank 2
# with a slot map, real layers captured in cgslot's arenas and in
# PyTorch's own pools.  Fails when a cgslot iteration differs from eager,
# when the per-(variant, chunk, slot) pools are wrong or clash, when
# cgslot's workspace pool clashes, or when a pool baseline is wrong on an
# iteration where the allocator's capture events predicted no clash
# (--strict-baselines).  Runs the first python3 on PATH, where PyTorch
# usually is; skipped (77) without PyTorch or a CUDA device.
set -eu
py=python3
"$py" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' \
	2>/dev/null || { echo "no PyTorch with a CUDA device: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" "$CGS_SOURCE_ROOT/tools/python/examples/dcp_layers.py" \
	--rank 2 --slots '{"map":true}' --iterations 6 --timing-iterations 3 \
	--strict-baselines --cgslot "$CGSLOT" --workdir "$tmp"
