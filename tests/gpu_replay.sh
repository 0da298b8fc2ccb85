#!/bin/sh
# GPU self-test of libcgslot (suite 'gpu'): compile SCHEDULE, replay
# ITERATIONS random iterations with `cgslot replay` (0 corrupted bytes
# required), then check that --overlap-test reports corruption.  Exits 77,
# skipped, where there is no GPU or cgslot was built without CUDA; where
# the arenas do not fit the GPU, the schedule scaled 1024 times smaller.
# Usage: gpu_replay.sh SCHEDULE ITERATIONS  (CGSLOT: the cgslot binary;
# CGS_GPU_ITERATIONS overrides ITERATIONS)
set -u
cgslot=${CGSLOT:?CGSLOT must name the cgslot binary}
schedule=$1
iterations=${CGS_GPU_ITERATIONS:-$2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Without a GPU, skip before compiling SCHEDULE (slow in coverage and
# sanitizer builds): a replay of the smallest bundled schedule says.
probe=${CGS_SOURCE_ROOT:-.}/testdata/valid/minimal/schedule.yaml
"$cgslot" compile --quiet "$probe" -o "$tmp/probe.cgm" || exit 1
"$cgslot" replay "$tmp/probe.cgm" --iterations 1 --seed 5 >/dev/null 2>&1
[ $? -ne 77 ] || exit 77

"$cgslot" compile --quiet "$schedule" -o "$tmp/m.cgm" || exit 1
"$cgslot" replay "$tmp/m.cgm" --iterations "$iterations" --seed 5 \
	2>"$tmp/err"
rc=$?
cat "$tmp/err" >&2
# Arenas larger than this GPU (two bundled examples take 81 to 89 GB on
# their first rank): replay the same schedule with every size 1024 times
# smaller instead, which keeps the plan's rings, maps and colours.
if [ "$rc" -ne 0 ] && grep -q "cudaMalloc of arena .*out of memory" "$tmp/err"
then
	echo "the arenas do not fit this GPU: replaying $schedule with MiB read as KiB and GiB as MiB"
	sed 's/MiB/KiB/g; s/GiB/MiB/g' "$schedule" >"$tmp/scaled.yaml"
	"$cgslot" compile --quiet "$tmp/scaled.yaml" -o "$tmp/m.cgm" || exit 1
	"$cgslot" replay "$tmp/m.cgm" --iterations "$iterations" --seed 5
	rc=$?
fi
[ "$rc" -eq 0 ] || exit "$rc"
"$cgslot" replay "$tmp/m.cgm" --iterations 4 --seed 6 --overlap-test
