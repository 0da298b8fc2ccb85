#!/usr/bin/env bash
# Slot maps end to end (format 2): a manifest whose ranks take microbatch
# k to slot (k + 1) mod S, written by tests/slot_map_inject.c, opens,
# verifies against its schedule, dumps the map (the second reader agrees),
# plots, and libcgslot and the Python binding look slots up in it.  Maps
# that put a microbatch outside the ring or two live microbatches on one
# slot are refused by the reader.  Then the same for maps per count and
# chunk (format 2.1), injected and planned.  $1 is the slot_map_inject
# program.
inject=$(realpath "${1:?usage: cli_slot_map.sh SLOT_MAP_INJECT}") || exit 1
. "$(dirname "$0")/cli_lib.sh"
example=testdata/examples/qwen-pp4-vpp2-dcp.yaml
# With one chunk per rank a rotation keeps every live window of the ring,
# so the plan's colours stay valid under it.
onechunk=testdata/manifest/slot-map/rotate/schedule.yaml
golden=testdata/manifest/slot-map/rotate/manifest.cgslot

# The second reader (tests/manifest_edit.py) decodes manifest $1 to the
# same JSON as `cgslot dump --format json` wrote to $2; $3 names the map.
second_reader_agrees() {
	"$python" tests/manifest_edit.py decode "$1" >"$tmp/decoded.json" ||
		fail "the second reader cannot decode $3"
	"$python" -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
		"$tmp/decoded.json" "$2" || fail "the second reader and dump disagree on $3"
}

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
second_reader_agrees "$tmp/rot.cgslot" "$tmp/rot.json" "the map"
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
grep -Eq 'overlaps (saved|user-gradient) frame' "$tmp/err" ||
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

# Maps per count and chunk (format 2.1, section 14): chunk c takes
# microbatch k to slot (k + c) mod S, with the plan's frames moved along,
# so the manifest is as safe as the plan.  The example's plan nests
# gradient frames in the saved arena, so the file is 2.2 (section 15).  Kept under testdata like the
# rotation (the Python reader's tests read it).
chunk_golden=testdata/manifest/slot-map/chunk/manifest.cgslot
"$inject" "$example" "$tmp/chunk.cgslot" chunk || fail "inject chunk failed"
if [ "${CGS_UPDATE_GOLDEN:-0}" = 1 ]; then
	mkdir -p "$(dirname "$chunk_golden")"
	cp "$tmp/chunk.cgslot" "$chunk_golden"
fi
cmp -s "$tmp/chunk.cgslot" "$chunk_golden" || fail "$chunk_golden differs from what the injector writes now"
run 0 verify "$tmp/chunk.cgslot" "$example"
grep -q "verified 4 ranks.*schedule matches" "$tmp/out" || fail "verify (chunk): $(cat "$tmp/out")"
run 0 dump "$tmp/chunk.cgslot"
grep -q '^manifest    format 2\.2, ' "$tmp/out" || fail "dump (chunk): not format 2.2: $(head -n 1 "$tmp/out")"
grep -q '^    14  chunk_slot_maps ' "$tmp/out" || fail "dump (chunk): no section 14"
grep -q '^    15  nested ' "$tmp/out" || fail "dump (chunk): no section 15"
grep -q '^  ring        8 slots; .*; slots from the slot map per count and chunk$' "$tmp/out" ||
	fail "dump does not announce the map per chunk"
grep -q '^  slots N=4 chunk 0: 0 1 2 3$' "$tmp/out" || fail "dump: the N=4 row of chunk 0 is not 0 1 2 3"
grep -q '^  slots N=4 chunk 1: 1 2 3 4$' "$tmp/out" || fail "dump: the N=4 row of chunk 1 is not 1 2 3 4"
run 0 dump --format json "$tmp/chunk.cgslot"
cp "$tmp/out" "$tmp/chunk.json"
second_reader_agrees "$tmp/chunk.cgslot" "$tmp/chunk.json" "the map per chunk"
"$python" - "$tmp/chunk.json" <<'PY' || fail "dump's map per chunk is not (k + c) mod S"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["ranks"]:
    S = r["slots"]
    rows = r["slot_map"]["per_chunk"]
    assert len(rows) == len(r["orders"])
    for o, per_chunk in zip(r["orders"], rows):
        assert len(per_chunk) == d["vpp"]
        for c, row in enumerate(per_chunk):
            assert row == [(k + c) % S for k in range(o["microbatches"])], row
PY
"$python" - "$tmp/chunk.json" <<'PY' || fail "the dump schema does not take the map per chunk"
import json, sys
import jsonschema
v = jsonschema.Draft202012Validator(json.load(open("schemas/manifest-dump.schema.json")))
d = json.load(open(sys.argv[1]))
errors = [e.message for e in v.iter_errors(d)]
assert not errors, errors[:3]
# the per-chunk shape is an object; a bare array of chunk rows is refused
d["ranks"][0]["slot_map"] = d["ranks"][0]["slot_map"]["per_chunk"]
assert not v.is_valid(d)
PY
run 0 plot "$tmp/chunk.cgslot" --rank 1 -o "$tmp/chunk.svg"
run 0 report "$tmp/chunk.cgslot"
grep -q '^rank 0: .* graphs, slots from a slot map per count and chunk$' "$tmp/out" ||
	fail "report does not say rank 0's map is per chunk: $(cat "$tmp/out")"
run 0 report --format json "$tmp/chunk.cgslot"
"$python" -c 'import json, sys; r = json.load(open(sys.argv[1]))["ranks"][0]; sys.exit(not (r.get("slot_map") is True and r.get("slot_map_per_chunk") is True))' \
	"$tmp/out" || fail "report --format json lacks slot_map_per_chunk on rank 0"

# The same map with the frames left where the plan put them: the reader
# finds it safe (each chunk keeps its slot classes), the verifier, which
# reads the rows per chunk itself, finds frames live together that the
# colouring let share bytes.
"$inject" "$example" "$tmp/chunkf.cgslot" chunk-frames || fail "inject chunk-frames failed"
run 0 dump "$tmp/chunkf.cgslot"
run 1 verify "$tmp/chunkf.cgslot" "$example"
grep -q 'overlaps user-gradient frame (chunk 1, slot' "$tmp/err" ||
	fail "verify accepted a per-chunk map its plan was not coloured for: $(cat "$tmp/err")"

# Corrupt maps per chunk: the reader refuses them, naming rank, count and chunk.
"$inject" "$example" "$tmp/crange.cgslot" chunk-range || fail "inject chunk-range failed"
run 1 verify "$tmp/crange.cgslot"
grep -q 'chunk slot maps: rank 0 N=4: microbatch 0 of chunk 2 has slot 8; its ring has 8 slots (0..7)' "$tmp/err" ||
	fail "out-of-ring map per chunk: $(cat "$tmp/err")"
"$inject" "$example" "$tmp/clive.cgslot" chunk-live || fail "inject chunk-live failed"
run 1 report "$tmp/clive.cgslot"
grep -q 'chunk slot maps: rank 0 N=16 order entry 5: microbatch 1 of chunk 2 takes slot 1, whose saved frames are still live' "$tmp/err" ||
	fail "unsafe map per chunk: $(cat "$tmp/err")"
"$inject" "$example" "$tmp/cgrad.cgslot" chunk-grad || fail "inject chunk-grad failed"
run 1 dump "$tmp/cgrad.cgslot"
grep -q 'chunk slot maps: rank 3 N=4 order entry 7: microbatch 1 of chunk 2 takes slot 1, whose user-grad frame the backward just before it still sends from' "$tmp/err" ||
	fail "consecutive backwards on one user-grad frame: $(cat "$tmp/err")"

# The planner's own maps per chunk, through compile: the bundled example
# with slots: {map: true} gives ranks 2 and 3 such maps; the manifest
# verifies against its schedule.  Compile writes format 2.0 where no rank
# has a map per chunk or nested gradient frames (the minimal golden), 2.1
# where one has a map per chunk and none nests (pp3-vpp8-l2-ladder), 2.3
# where a rank's saved arena is packed with its gradient frames (rank 3
# of the example with maps).
sed 's/^  slots: auto$/  slots: {map: true}/' "$example" >"$tmp/map.yaml"
grep -q 'map: true' "$tmp/map.yaml" || fail "the example no longer has 'slots: auto'"
run 0 compile "$tmp/map.yaml" -o "$tmp/map.cgslot"
grep -q 'format 2\.3' "$tmp/out" || fail "compile with maps: $(head -n 3 "$tmp/out")"
grep -q '^  slot map   rank 2: slots from a map per microbatch count and chunk$' "$tmp/out" ||
	fail "compile does not name rank 2's map per chunk: $(cat "$tmp/out")"
run 0 report "$tmp/map.cgslot"
grep -q '16 frames nested in the saved arena, packed with its frames$' "$tmp/out" ||
	fail "report (packed as one): $(grep user_grad "$tmp/out")"
run 0 verify "$tmp/map.cgslot" "$tmp/map.yaml"
grep -q "verified 4 ranks.*schedule matches" "$tmp/out" || fail "verify (planned maps): $(cat "$tmp/out")"
run 0 compile testdata/manifest/golden/minimal/schedule.yaml -o "$tmp/plain.cgslot"
grep -q 'format 2\.0' "$tmp/out" || fail "compile without maps or nesting is not 2.0: $(head -n 3 "$tmp/out")"
run 0 compile testdata/examples/pp3-vpp8-l2-ladder.yaml -o "$tmp/ladder.cgslot"
grep -q 'format 2\.1' "$tmp/out" || fail "compile with maps per chunk, no nesting, is not 2.1: $(head -n 3 "$tmp/out")"

# The recoloured map (local search): rank 7 of the bundled example takes
# it; the manifest verifies against its schedule.
recolour=testdata/examples/pp16-vpp8-l1-recolour.yaml
run 0 compile "$recolour" -o "$tmp/recolour.cgslot"
grep -q '^  slot map   rank 7: slots from a map per microbatch count and chunk$' "$tmp/out" ||
	fail "compile does not name rank 7's map: $(cat "$tmp/out")"
run 0 verify "$tmp/recolour.cgslot" "$recolour"
grep -q "verified 2 ranks.*schedule matches" "$tmp/out" || fail "verify (recoloured): $(cat "$tmp/out")"

[ "$failed" -eq 0 ] || { echo "$failed failure(s)"; exit 1; }
echo "ok"
