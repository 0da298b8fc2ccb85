#!/usr/bin/env bash
# Slot maps end to end (format 2): a manifest whose ranks take microbatch
# k to slot (k + 1) mod S, written by tests/slot_map_inject.c, opens,
# verifies against its schedule, dumps the map (the second reader agrees),
# plots, and libcgslot and the Python binding look slots up in it.  Maps
# that put a microbatch outside the ring or two live microbatches on one
# slot are refused by the reader.  $1 is the slot_map_inject program.
inject=$(realpath "${1:?usage: cli_slot_map.sh SLOT_MAP_INJECT}") || exit 1
. "$(dirname "$0")/cli_lib.sh"
example=testdata/examples/qwen-pp4-vpp2-dcp.yaml
# With one chunk per rank a rotation keeps every live window of the ring,
# so the plan's colours stay valid under it.
onechunk=testdata/manifest/slot-map/rotate/schedule.yaml
golden=testdata/manifest/slot-map/rotate/manifest.cgslot

export CGSLOT_PRODUCER=golden
"$inject" "$onechunk" "$tmp/rot.cgslot" rotate || fail "inject rotate failed"
# The same manifest is kept under testdata (the bindings' tests read it);
# CGS_UPDATE_GOLDEN=1 rewrites it.
if [ "${CGS_UPDATE_GOLDEN:-0}" = 1 ]; then
	cp "$tmp/rot.cgslot" "$golden"
fi
cmp -s "$tmp/rot.cgslot" "$golden" || fail "$golden differs from what the injector writes now"
run 0 verify "$tmp/rot.cgslot" "$onechunk"
grep -q "verified 4 ranks" "$tmp/out" || fail "verify: $(cat "$tmp/out")"
run 0 dump "$tmp/rot.cgslot"
grep -q '^  ring        4 slots; 8 saved frames, 4 user-grad frames, 32 graphs; slots from the slot map$' "$tmp/out" ||
	fail "dump does not announce the map"
grep -q '^  slots N=4: 1 2 3 0$' "$tmp/out" || fail "dump: the N=4 row is not 1 2 3 0"
grep -q '^  slots N=16: 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 0$' "$tmp/out" ||
	fail "dump: the N=16 row is not the rotation"
run 0 dump --format json "$tmp/rot.cgslot"
cp "$tmp/out" "$tmp/rot.json"
"$python" tests/manifest_edit.py decode "$tmp/rot.cgslot" >"$tmp/decoded.json" ||
	fail "the second reader cannot decode the map"
"$python" -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
	"$tmp/decoded.json" "$tmp/rot.json" || fail "the second reader and dump disagree on the map"
run 0 plot "$tmp/rot.cgslot" --rank 0 -o "$tmp/rot.svg"
run 0 report "$tmp/rot.cgslot"
grep -q '^rank 0: .* graphs, slots from a slot map per count$' "$tmp/out" ||
	fail "report does not say rank 0 takes its slots from a map: $(cat "$tmp/out")"
run 0 report --format json "$tmp/rot.cgslot"
"$python" -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["ranks"][0].get("slot_map") is not True)' \
	"$tmp/out" || fail "report --format json has no slot_map on rank 0"
# The compile summary names the map; report, plot agree with the map.
"$python" - "$tmp/rot.json" <<'PY' || fail "dump's map is not the rotation"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["ranks"]:
    S = r["slots"]
    for o, row in zip(r["orders"], r["slot_map"]):
        assert row == [(k + 1) % S for k in range(o["microbatches"])], row
PY

# With two chunks the rotation pairs other frames of the two chunks than
# k mod S did: the reader's liveness checks pass (each chunk stays within
# its ring), but the verifier, replaying with the map, finds frames the
# colouring let share bytes live together.
"$inject" "$example" "$tmp/rot2.cgslot" rotate || fail "inject rotate (vpp 2) failed"
run 1 verify "$tmp/rot2.cgslot" "$example"
grep -q 'overlaps saved frame' "$tmp/err" ||
	fail "verify accepted a map its plan was not coloured for: $(cat "$tmp/err")"

# Corrupt maps: the reader refuses them, naming the rank and count.
"$inject" "$example" "$tmp/range.cgslot" range || fail "inject range failed"
run 1 verify "$tmp/range.cgslot"
grep -q 'slot maps: rank 0 N=4: microbatch 0 has slot 8; its ring has 8 slots (0..7)' "$tmp/err" ||
	fail "out-of-ring map message: $(cat "$tmp/err")"
"$inject" "$example" "$tmp/live.cgslot" live || fail "inject live failed"
run 1 dump "$tmp/live.cgslot"
grep -q 'slot maps: rank 0 N=16 order entry 1: microbatch 1 of chunk 1 takes slot 1, whose saved frames are still live' "$tmp/err" ||
	fail "unsafe map message: $(cat "$tmp/err")"

[ "$failed" -eq 0 ] || { echo "$failed failure(s)"; exit 1; }
echo "ok"
