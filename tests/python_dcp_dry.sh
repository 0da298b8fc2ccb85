#!/bin/sh
# tools/python/examples/dcp_layers.py --dry-run (suite 'unit'): the demo's
# placement of inputs, outputs, saved tensors and input gradients in a
# manifest's frames, run eagerly over host arenas in the runtime's launch
# order, must match plain eager execution exactly.  Skipped (77) without
# PyTorch in $CGS_PYTHON.
set -eu
py=${CGS_PYTHON:-python3}
"$py" -c 'import torch' 2>/dev/null || { echo "no PyTorch: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" "$CGS_SOURCE_ROOT/tools/python/examples/dcp_layers.py" --dry-run \
	--hidden 64 --heads 4 --layers 2 --tokens 48,32,16 --iterations 3 \
	--cgslot "$CGSLOT" --workdir "$tmp"
