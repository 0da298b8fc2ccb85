#!/usr/bin/env bash
# cgslot verify MANIFEST [SCHEDULE]: compiled manifests are proven safe; a
# manifest edited so that two live frames overlap (checksum fixed up) is
# caught and both frames are named; a schedule that does not match is
# refused.  $1 is the plant_overlap helper.
#
# Each testdata/manifest/overlap/<case>/ holds `plant` (a golden manifest's
# name and plant_overlap's arguments), the manifest.cgslot it makes and
# the exact stderr of verify in expected.txt (empty: the move is harmless
# and verify must pass).  CGS_UPDATE_GOLDEN=1 (tools/update-golden)
# regenerates both from the current golden manifests.
plant=$(realpath "${1:?usage: cli_verify.sh PLANT_OVERLAP}") || exit 1
. "$(dirname "$0")/cli_lib.sh"

# Unlike cli_lib.sh's run, this one leaves the status in $rc to inspect.
run() {
	"$cgslot" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# Every bundled schedule that compiles verifies, alone and with itself
# (in the coverage build, those without slot maps: see light_schedules).
n=0
for s in $(light_schedules --all-sanitized testdata/examples/*.yaml testdata/valid/*/schedule.yaml); do
	"$cgslot" compile --quiet "$s" -o "$tmp/m" 2>/dev/null || continue
	n=$((n + 1))
	run verify "$tmp/m"
	[ "$rc" -eq 0 ] || fail "$s: verify exited $rc: $(cat "$tmp/err")"
	[ -s "$tmp/err" ] && fail "$s: verify wrote to stderr: $(cat "$tmp/err")"
	grep -Eqx "$tmp/m: verified [0-9]+ ranks, [0-9]+ orders, [0-9]+ events, [0-9]+ ranges, [0-9]+ frame pairs live together" "$tmp/out" ||
		fail "$s: summary line: $(cat "$tmp/out")"
	run verify "$tmp/m" "$s"
	[ "$rc" -eq 0 ] || fail "$s: verify with its schedule exited $rc: $(cat "$tmp/err")"
	grep -q '; schedule matches$' "$tmp/out" || fail "$s: no match noted: $(cat "$tmp/out")"
	run verify --quiet "$tmp/m" "$s"
	[ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] ||
		fail "$s: --quiet printed something or failed ($rc)"
done
[ "$n" -ge 3 ] || fail "only $n bundled schedules compiled"

# The stored golden manifests (and a newer-minor one) verify as stored.
for m in testdata/manifest/golden/*/manifest.cgslot testdata/manifest/compat/*/manifest.cgslot; do
	run verify -q "$m"
	[ "$rc" -eq 0 ] || fail "$m: verify exited $rc: $(cat "$tmp/err")"
	s=$(dirname "$m")/schedule.yaml
	if [ -f "$s" ]; then
		run verify -q "$m" "$s"
		[ "$rc" -eq 0 ] || fail "$m with its schedule: exit $rc: $(cat "$tmp/err")"
	fi
done

# A planted overlap: slot 1 of chunk 0 moved onto slot 0 on rank 0, where
# microbatches 0 and 1 of chunk 0 are in flight together.
example=testdata/examples/qwen-pp4-vpp2-dcp.yaml
"$cgslot" compile --quiet "$example" -o "$tmp/good" || fail "compile $example"
"$plant" "$tmp/good" "$tmp/bad" || fail "plant_overlap failed"
run dump "$tmp/bad"
[ "$rc" -eq 0 ] || fail "the planted manifest is not well-formed ($rc): $(cat "$tmp/err")"
run verify "$tmp/bad"
[ "$rc" -eq 1 ] || fail "planted overlap: verify exited $rc"
[ -s "$tmp/out" ] && fail "planted overlap: verify printed on stdout"
for want in "cgslot: $tmp/bad: error: rank 0, N 4, order position 1 (entry +1): " \
	"saved frame (chunk 0, slot 0, layer 0) variant 0 'cp1' role input arena 0 [" \
	"overlaps saved frame (chunk 0, slot 1, layer 0) variant 0 'cp1' role input arena 0 ["; do
	grep -qF "$want" "$tmp/err" || fail "planted overlap: message lacks '$want': $(cat "$tmp/err")"
done
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "planted overlap: more than one line"
# On threads (-j): the same summary, and where several ranks fail, the
# first of them in stored order, whatever thread finds which first.
run verify -j 1 "$tmp/good"
cp "$tmp/out" "$tmp/out1"
for j in 2 3 4; do
	run verify -j "$j" "$tmp/good"
	[ "$rc" -eq 0 ] || fail "-j $j: verify exited $rc: $(cat "$tmp/err")"
	cmp -s "$tmp/out1" "$tmp/out" || fail "-j $j: summary differs: $(cat "$tmp/out")"
done
"$plant" "$tmp/good" "$tmp/bad3" saved 3 0 1 0 0 0 0 &&
	"$plant" "$tmp/bad3" "$tmp/bad2" saved 2 0 1 0 0 0 0 &&
	"$plant" "$tmp/bad2" "$tmp/bad1" saved 1 0 1 0 0 0 0 ||
	fail "plant_overlap on ranks 1-3 failed"
for j in 1 2 4 4 4 4; do
	run verify -j "$j" "$tmp/bad1"
	[ "$rc" -eq 1 ] || fail "overlaps on ranks 1-3, -j $j: verify exited $rc"
	grep -qF "cgslot: $tmp/bad1: error: rank 1, N 4, order position 1 (entry +1): " "$tmp/err" ||
		fail "overlaps on ranks 1-3, -j $j: not rank 1's: $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "overlaps on ranks 1-3, -j $j: more than one line"
done
CGSLOT_JOBS=3 run verify "$tmp/good"
[ "$rc" -eq 0 ] && cmp -s "$tmp/out1" "$tmp/out" || fail "CGSLOT_JOBS=3: $rc $(cat "$tmp/out" "$tmp/err")"
run verify -j 0 "$tmp/good"
[ "$rc" -eq 2 ] && grep -q -- "--jobs" "$tmp/err" || fail "-j 0: exit $rc: $(cat "$tmp/err")"

# The helper itself: moving a frame onto itself changes nothing.
"$plant" "$tmp/good" "$tmp/same" saved 0 0 1 0 0 1 0 || fail "plant_overlap onto itself"
cmp -s "$tmp/good" "$tmp/same" || fail "moving a frame onto itself changed the file"

# The stored overlap cases, each against its exact message.
update=${CGS_UPDATE_GOLDEN:-0}
cases=0
for dir in testdata/manifest/overlap/*/; do
	dir=${dir%/}
	cases=$((cases + 1))
	read -r golden args <"$dir/plant"
	# shellcheck disable=SC2086 # args are words on purpose
	"$plant" "testdata/manifest/golden/$golden/manifest.cgslot" "$tmp/planted" $args ||
		fail "$dir: plant_overlap failed"
	if [ "$update" = 1 ]; then
		cp "$tmp/planted" "$dir/manifest.cgslot"
	elif ! cmp -s "$tmp/planted" "$dir/manifest.cgslot"; then
		fail "$dir: manifest.cgslot is stale (tools/update-golden regenerates it)"
	fi
	run verify -q "$dir/manifest.cgslot"
	[ "$update" = 1 ] && cp "$tmp/err" "$dir/expected.txt"
	if [ -s "$dir/expected.txt" ]; then
		[ "$rc" -eq 1 ] || fail "$dir: verify exited $rc, want 1"
	else
		[ "$rc" -eq 0 ] || fail "$dir: verify exited $rc, want 0"
	fi
	diff "$dir/expected.txt" "$tmp/err" || fail "$dir: message differs"
done
[ "$cases" -ge 5 ] || fail "only $cases overlap cases found"

# A schedule that does not match: exit 1, both hashes named.
run verify "$tmp/good" testdata/examples/pp4-vpp4-l3-4var.yaml
[ "$rc" -eq 1 ] || fail "mismatched schedule: verify exited $rc"
grep -Eq "does not match the manifest: its hash is [0-9a-f]{16}, the manifest was compiled from [0-9a-f]{16}" "$tmp/err" ||
	fail "mismatched schedule: $(cat "$tmp/err")"
# An invalid schedule: its own positioned error, exit 1.
run verify "$tmp/good" testdata/invalid/order-pending/schedule.yaml
[ "$rc" -eq 1 ] || fail "invalid schedule: verify exited $rc"
grep -q 'testdata/invalid/order-pending/schedule.yaml:[0-9]*:[0-9]*: error: ' "$tmp/err" ||
	fail "invalid schedule: $(cat "$tmp/err")"

# Fields only the schedule determines, edited and re-sealed with a fresh
# CRC-32C: the manifest opens and verifies alone, but not against its
# schedule; the message names the section, rank and field.
golden=testdata/manifest/golden/dcp-vpp
# poke NAME SECTION AT FMT VALUE WANT: verify NAME against the schedule
poke() {
	"$python" tests/manifest_edit.py poke "$golden/manifest.cgslot" \
		"$tmp/$1" "$2" "$3" "$4" "$5" || { fail "$1: cannot edit"; return; }
	run verify -q "$tmp/$1"
	[ "$rc" -eq 0 ] || fail "$1: the edited manifest no longer verifies alone ($rc): $(cat "$tmp/err")"
	run verify "$tmp/$1" "$golden/schedule.yaml"
	[ "$rc" -eq 1 ] || fail "$1: verify with the schedule exited $rc"
	grep -qF "$6" "$tmp/err" || fail "$1: want '$6': $(cat "$tmp/err")"
}
poke pp 1 16 I 4294967295 "error: meta: pp is 4294967295; the schedule gives 2"
# rank 1, N=2: 1 1 2 -2 ... becomes 1 2 1 -2 ..., still well formed
"$python" tests/manifest_edit.py poke "$golden/manifest.cgslot" "$tmp/o1" 6 26 b 1 &&
	"$python" tests/manifest_edit.py poke "$tmp/o1" "$tmp/order" 6 25 b 2 ||
	fail "order: cannot edit"
run verify "$tmp/order" "$golden/schedule.yaml"
[ "$rc" -eq 1 ] || fail "order: verify with the schedule exited $rc"
grep -qF "error: orders: rank 1 N=2 entry 1 is 2; the schedule gives 1" "$tmp/err" ||
	fail "order: $(cat "$tmp/err")"

# A corrupt manifest is the reader's to reject: exit 1, never a crash.
head -c 100 "$tmp/good" >"$tmp/short"
run verify "$tmp/short"
[ "$rc" -eq 1 ] || fail "truncated manifest: verify exited $rc"
run verify "$tmp/missing"
[ "$rc" -eq 3 ] || fail "missing manifest: verify exited $rc"

# Usage.
run verify
[ "$rc" -eq 2 ] || fail "no arguments: exit $rc"
run verify a b c
[ "$rc" -eq 2 ] || fail "three arguments: exit $rc"
run verify --bogus "$tmp/good"
[ "$rc" -eq 2 ] || fail "unknown option: exit $rc"
run verify --help
[ "$rc" -eq 0 ] && grep -q '^usage: cgslot verify' "$tmp/out" || fail "--help"

echo "$failed failed"
[ "$failed" -eq 0 ]
