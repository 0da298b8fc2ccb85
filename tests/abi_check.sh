#!/usr/bin/env bash
# libcgslot's exported ABI against the checked-in baseline
# tests/abi/libcgslot.abi (abidw of the release that fixed it): abidiff
# must find no change in the symbols, their versions, or the types the
# public headers reach.  A change is either a mistake or an intended ABI
# release: then tools/update-abi rewrites the baseline, and the commit
# says why.  Skipped (77) without abigail-tools or without debug info.
# $1 is the built libcgslot.so; with --update first, the baseline is
# rewritten from it instead (tools/update-abi).
set -u
cd "${CGS_SOURCE_ROOT:-$(dirname "$0")/..}" || exit 1
update=0
[ "${1:-}" = --update ] && { update=1; shift; }
lib=${1:?}
baseline=tests/abi/libcgslot.abi
for tool in abidw abidiff readelf; do
	command -v "$tool" >/dev/null || { echo "no $tool (abigail-tools, binutils): skipped"; exit 77; }
done
readelf -S "$lib" | grep -q '\.debug_info' ||
	{ echo "$lib has no debug info (a release build): skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The public headers' types only; no paths, locations or DT_NEEDED (the
# CUDA runtime's soname varies).
abi_options=(--headers-dir include/cgslot --no-corpus-path --no-comp-dir-path
	     --no-show-locs --drop-private-types --drop-undefined-syms
	     --no-elf-needed --type-id-style hash)
abidw "${abi_options[@]}" --out-file "$tmp/current.abi" "$lib" ||
	{ echo "FAIL: abidw cannot read $lib"; exit 1; }
if [ "$update" = 1 ]; then
	mkdir -p "$(dirname "$baseline")"
	cp "$tmp/current.abi" "$baseline"
	echo "wrote $baseline"
	exit 0
fi

status=0
abidiff --no-show-locs "$baseline" "$tmp/current.abi" >"$tmp/report" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
	cat "$tmp/report"
	if [ $((status & 8)) -ne 0 ]; then
		echo "FAIL: libcgslot's ABI is incompatible with $baseline (abidiff status $status)"
	elif [ $((status & 4)) -ne 0 ]; then
		echo "FAIL: libcgslot's ABI differs from $baseline (abidiff status $status); if the change is intended, run tools/update-abi and say why in the commit"
	else
		echo "FAIL: abidiff failed (status $status)"
	fi
	exit 1
fi

# The comparison must be able to fail: the baseline with struct
# cgs_runtime_info one field shorter (its size in bits changed) differs.
sed "/<class-decl name='cgs_runtime_info'/s/size-in-bits='576'/size-in-bits='544'/" \
	"$baseline" >"$tmp/shrunk.abi"
cmp -s "$baseline" "$tmp/shrunk.abi" &&
	{ echo "FAIL: cannot find struct cgs_runtime_info's size in $baseline"; exit 1; }
if abidiff --no-show-locs "$tmp/shrunk.abi" "$tmp/current.abi" >/dev/null 2>&1; then
	echo "FAIL: abidiff sees no change when struct cgs_runtime_info's size changes"
	exit 1
fi
echo "ok: $(grep -c '<elf-symbol ' "$baseline") symbols as in $baseline"
