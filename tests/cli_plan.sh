#!/usr/bin/env bash
# cgslot plan SCHEDULE: text, json and te-plan output, determinism, errors
# and exit codes.
. "$(dirname "$0")/cli_lib.sh"

example=testdata/examples/qwen-pp4-vpp2-dcp.yaml

# Text: the ring, every rank, the figures a person acts on.
"$cgslot" plan "$example" >"$tmp/text" 2>"$tmp/err" ||
	fail "plan on the example failed: $(cat "$tmp/err")"
grep -q '^ring: 8 slots' "$tmp/text" || fail "no ring line: $(head -3 "$tmp/text")"
[ "$(grep -c '^rank [0-3]:' "$tmp/text")" -eq 4 ] || fail "want 4 ranks in text"
for word in 'colours (clique bound' 'x lower bound' 'in its own arenas would take' \
	'one arena per colour'; do
	grep -q "$word" "$tmp/text" || fail "text lacks '$word'"
done

# JSON: the issue's structure, key for key, and consistent figures.
"$cgslot" plan --format json "$example" >"$tmp/json" || fail "json failed"
"$python" - "$tmp/json" <<'PY' || fail "json structure"
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("schedule", "slots", "max_microbatches", "variants", "ranks"):
    assert k in d, k
assert d["slots"] == 8 and d["max_microbatches"] == 16, d["slots"]
assert d["schedule"] == "qwen-pp4-vpp2-dcp"
assert [v["cp"] for v in d["variants"]] == [1, 2, 4, 8]
assert [r["rank"] for r in d["ranks"]] == [0, 1, 2, 3]
for r in d["ranks"]:
    for k in ("rank", "reachable", "graphs", "saved", "user_grad", "bytes",
              "lower_bound_bytes", "bytes_without_sharing",
              "bytes_colour_arenas", "arenas"):
        assert k in r, k
    assert r["reachable"] == [4, 8, 12, 16]
    assert r["graphs"] == 4 * 48 * 2
    for role in ("saved", "user_grad"):
        s = r[role]
        assert set(s) >= {"frames", "colours", "colour_lower_bound", "bytes",
                          "lower_bound_bytes"}
        assert s["colour_lower_bound"] <= s["colours"]
        # nested gradient frames take saved bytes: their arena may be
        # below its kind's bound, never the rank below its own
        assert s["lower_bound_bytes"] <= s["bytes"] or \
            role == "user_grad" and 0 < s["nested"] <= s["frames"]
    assert r["saved"]["frames"] == 48 and r["user_grad"]["frames"] == 16
    assert r["lower_bound_bytes"] <= r["bytes"] <= r["bytes_colour_arenas"]
    assert r["bytes"] < r["bytes_without_sharing"]
    assert [a["role"] for a in r["arenas"]] == ["saved", "user_grad"]
    assert sum(a["bytes"] for a in r["arenas"]) == r["bytes"]
PY

# te-plan: one tuple per (variant, chunk, slot, layer), upstream's fields.
"$cgslot" plan --format te-plan "$example" >"$tmp/te" || fail "te-plan failed"
"$python" - "$tmp/te" "$tmp/json" <<'PY' || fail "te-plan content"
import json, sys
te = json.load(open(sys.argv[1]))
rep = json.load(open(sys.argv[2]))
S, V, M, L = te["slots"], 4, 2, 3
assert S == 8
for r, rr in zip(te["ranks"], rep["ranks"]):
    plan = r["plan"]
    assert len(plan) == V * M * S * L, len(plan)
    i = 0
    for v in range(V):
        for c in range(M):
            for s in range(S):
                for l in range(L):
                    t = plan[i]
                    i += 1
                    assert t[1] == s and t[2] == v * S + s, t
                    assert t[3] == c and t[4] == l, t
                    assert t[5] == v * M * L + c * L + l, t
                    assert 0 <= t[0] < rr["saved"]["colours"], t
                    assert 0 <= t[6] < rr["user_grad"]["colours"], t
    # variants share colours: the tuple of variant 0 matches variant 3
    n = M * S * L
    assert [t[0] for t in plan[:n]] == [t[0] for t in plan[3 * n:]]
PY

# Deterministic, and the same for the YAML and JSON spellings.
"$cgslot" plan --format json "$example" >"$tmp/json2"
cmp -s "$tmp/json" "$tmp/json2" || fail "two runs differ"
"$cgslot" plan --format json testdata/valid/qwen-pp4-vpp2-dcp/schedule.json >"$tmp/json3"
cmp -s "$tmp/json" "$tmp/json3" || fail "YAML and JSON schedules plan differently"

# Every valid schedule plans.
n=0
while read -r f; do
	n=$((n + 1))
	"$cgslot" plan "$f" >/dev/null 2>"$tmp/err" || fail "plan $f: $(cat "$tmp/err")"
done < <(light_schedules testdata/valid/*/schedule.yaml testdata/examples/*.yaml)
[ "$n" -ge 10 ] || fail "only $n valid schedules planned"

# A ring shorter than liveness: exit 1, the reason, nothing on stdout.
cat >"$tmp/short.yaml" <<'YAML'
cgslot: 1
pipeline: {pp: 4, layers_per_chunk: 1, max_microbatches: 6, slots: 3}
variants:
  - {name: cp1, cp: 1, bytes: {input: 1, output: 1, saved: 1, user_grad: 1}}
YAML
"$cgslot" plan "$tmp/short.yaml" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "short ring exited $rc"
[ -s "$tmp/out" ] && fail "short ring printed a plan"
grep -q 'shorter than liveness.*rank 0 with 4 microbatches has 4 microbatches of chunk 1' "$tmp/err" ||
	fail "short ring message: $(cat "$tmp/err")"
"$cgslot" plan --limit frames=3 "$example" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "--limit frames not applied"
grep -q 'frames' "$tmp/err" || fail "frame limit message: $(cat "$tmp/err")"

# The ring search: S = 16 reaches the bound on every rank of the example,
# the table lists every ring tried, and -j never changes the plan.
"$cgslot" plan --max-slots 16 "$example" >"$tmp/search" 2>"$tmp/err" ||
	fail "--max-slots 16 failed: $(cat "$tmp/err")"
grep -q '^ring: 16 slots shared by every rank' "$tmp/search" ||
	fail "search ring: $(grep ring "$tmp/search")"
[ "$(grep -c '= 1.000 x lower bound' "$tmp/search")" -eq 4 ] ||
	fail "search should reach the bound on every rank: $(grep total "$tmp/search")"
sed 's/slots: auto/slots: {max: 16}/' "$example" >"$tmp/max16.yaml"
"$cgslot" plan "$tmp/max16.yaml" | diff - "$tmp/search" >/dev/null ||
	fail "slots: {max: 16} differs from --max-slots 16"
"$cgslot" plan --explore-slots "$example" >"$tmp/explore" ||
	fail "--explore-slots failed"
[ "$(grep -c '^ *[0-3] ' "$tmp/explore")" -eq 36 ] ||
	fail "explore should list rings 8..16 for 4 ranks: $(cat "$tmp/explore")"
[ "$(grep -c ' \*$' "$tmp/explore")" -eq 4 ] || fail "explore marks no ring per rank"
# A ring's floor is never above its plan (rank slots graphs bytes x floor).
awk '$1 ~ /^[0-9]+$/ && $6 > $5 { print; bad = 1 } END { exit bad }' \
	"$tmp/explore" || fail "a floor above its plan: $(cat "$tmp/explore")"
# The charges floor (pack.c): on testdata/valid/charges rank 0's ring of 9
# (k mod 9), no layout of the saved frames beats the plan's, where the
# heaviest clique and the colours prove less; with its gradient frames
# nested in the saved arena (nest.c) the rank takes 1.182 x the bound
# (1.194 in arenas of their own), and the floor is the plan.
"$cgslot" plan --explore-slots --max-slots 9 \
	testdata/valid/charges/schedule.yaml >"$tmp/charges" ||
	fail "--explore-slots on the charges schedule failed"
awk '$1 == 0 && $2 == 9 && $5 == 1.182 && $6 == 1.182 { ok = 1 }
     $1 ~ /^[0-9]+$/ && $6 > $5 { bad = 1 } END { exit !ok || bad }' \
	"$tmp/charges" || fail "charges floor of rank 0, ring 9: $(cat "$tmp/charges")"
for j in 1 2 5; do
	"$cgslot" plan -j $j --max-slots 12 --per-rank-slots --format te-plan \
		"$example" >"$tmp/te-$j" || fail "-j $j failed"
done
cmp -s "$tmp/te-1" "$tmp/te-2" && cmp -s "$tmp/te-1" "$tmp/te-5" ||
	fail "-j changes the plan"
# CGSLOT_JOBS stands for -j where -j is not given (tools/test plans on one
# thread under coverage); -j wins over it, and a bad value is a usage
# error naming it, for compile too (which then writes nothing).
CGSLOT_JOBS=5 "$cgslot" plan --max-slots 12 --per-rank-slots --format te-plan \
	"$example" >"$tmp/te-env" || fail "CGSLOT_JOBS=5 failed"
cmp -s "$tmp/te-1" "$tmp/te-env" || fail "CGSLOT_JOBS changes the plan"
for bad in 0 1025 x -1 '2 '; do
	CGSLOT_JOBS=$bad "$cgslot" plan "$example" >/dev/null 2>"$tmp/err"
	[ $? -eq 2 ] || fail "CGSLOT_JOBS='$bad' is not a usage error"
	grep -q "^cgslot plan: CGSLOT_JOBS '$bad' is not an integer in 1..1024" \
		"$tmp/err" || fail "CGSLOT_JOBS='$bad' message: $(cat "$tmp/err")"
	CGSLOT_JOBS=$bad "$cgslot" compile "$example" \
		-o "$tmp/jobs.cgslot" >/dev/null 2>&1
	[ $? -eq 2 ] || fail "compile: CGSLOT_JOBS='$bad' is not a usage error"
done
[ -e "$tmp/jobs.cgslot" ] && fail "compile wrote a manifest despite CGSLOT_JOBS"
CGSLOT_JOBS=x "$cgslot" plan -j 2 "$example" >/dev/null 2>&1 ||
	fail "-j 2 should win over a bad CGSLOT_JOBS"
grep -q '"slots": 10,' "$tmp/te-1" || fail "per-rank te-plan lacks rank 3's ring 10"
"$cgslot" plan --max-slots 7 "$example" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "--max-slots below the smallest ring accepted"
grep -q 'slots.max 7: shorter than the smallest ring safe for every rank; accepted: 8 or more' \
	"$tmp/err" || fail "short max message: $(cat "$tmp/err")"
# Rings per rank that come out equal compile, and verify proves them.
sed 's/slots: auto/slots: {max: 16, per_rank: true}/' "$example" >"$tmp/max16-pr.yaml"
"$cgslot" compile -q "$tmp/max16-pr.yaml" -o "$tmp/max16-pr.cgslot" ||
	fail "compile of slots: {max: 16, per_rank: true} failed"
"$cgslot" verify "$tmp/max16-pr.cgslot" "$tmp/max16-pr.yaml" >/dev/null 2>"$tmp/err" ||
	fail "verify of the searched ring failed: $(cat "$tmp/err")"
# Rings per rank that differ compile (format 2), verify, and each rank
# opens with its own ring.
sed 's/slots: auto/slots: {per_rank: true}/' "$example" >"$tmp/per-rank.yaml"
"$cgslot" compile "$tmp/per-rank.yaml" -o "$tmp/per-rank.cgslot" >"$tmp/out" 2>"$tmp/err" ||
	fail "compile of slots: {per_rank: true} failed: $(cat "$tmp/err")"
grep -q 'ring       per rank: rank 0 8 slots, rank 1 8 slots, rank 2 8 slots, rank 3 5 slots' "$tmp/out" ||
	fail "per-rank compile summary: $(cat "$tmp/out")"
"$cgslot" verify "$tmp/per-rank.cgslot" "$tmp/per-rank.yaml" >/dev/null 2>"$tmp/err" ||
	fail "verify of rings per rank failed: $(cat "$tmp/err")"
"$cgslot" dump "$tmp/per-rank.cgslot" | grep -q '^  ring        5 slots; 30 saved frames, 10 user-grad frames, 240 graphs; slot k mod S$' ||
	fail "dump does not show rank 3's own ring"
"$cgslot" report "$tmp/per-rank.cgslot" | grep -q '^ring: per rank, rank 0 8 slots, rank 1 8 slots, rank 2 8 slots, rank 3 5 slots$' ||
	fail "report of the manifest does not show rings per rank"
# Slot maps: rank 3 needs 5 of the shared ring's 8 slots, and a map
# saves bytes there; the schedule key and the option agree, -j changes
# nothing, the default plan is untouched; the map compiles (format 2),
# verifies, and the manifest says so.
"$cgslot" plan --explore-slots --slot-maps --max-slots 8 "$example" \
	>"$tmp/maps" 2>"$tmp/err" || fail "--slot-maps failed: $(cat "$tmp/err")"
grep -Eq '^ +3 +8 .* map \*$' "$tmp/maps" ||
	fail "rank 3 takes no slot map at the smallest ring: $(cat "$tmp/maps")"
"$cgslot" plan --explore-slots --max-slots 8 "$example" >"$tmp/nomaps" ||
	fail "explore without maps failed"
[ "$(awk '$1 == 3 { print $4 }' "$tmp/maps")" -lt \
  "$(awk '$1 == 3 { print $4 }' "$tmp/nomaps")" ] ||
	fail "rank 3's map saves no bytes"
grep -q ' map' "$tmp/nomaps" && fail "explore without maps shows a map column"
sed 's/slots: auto/slots: {map: true}/' "$example" >"$tmp/map.yaml"
"$cgslot" plan --slot-maps --format json "$example" >"$tmp/maps-opt.json" ||
	fail "plan --slot-maps failed"
for j in 1 3; do
	"$cgslot" plan -j $j --format json "$tmp/map.yaml" >"$tmp/maps-$j.json" ||
		fail "slots: {map: true} -j $j failed"
	cmp -s "$tmp/maps-opt.json" "$tmp/maps-$j.json" ||
		fail "slots: {map: true} -j $j differs from --slot-maps"
done
"$cgslot" compile -q "$tmp/map.yaml" -o "$tmp/map.cgslot" 2>"$tmp/err" ||
	fail "compile of slots: {map: true} failed: $(cat "$tmp/err")"
"$cgslot" verify "$tmp/map.cgslot" "$tmp/map.yaml" >/dev/null 2>"$tmp/err" ||
	fail "verify of a planned slot map failed: $(cat "$tmp/err")"
"$cgslot" dump "$tmp/map.cgslot" | grep -q 'slots from the slot map' ||
	fail "dump does not show the planned slot map"
"$cgslot" plan --max-slots x "$example" >/dev/null 2>&1
[ $? -eq 2 ] || fail "bad --max-slots is not a usage error"
"$cgslot" plan -j 0 "$example" >/dev/null 2>&1
[ $? -eq 2 ] || fail "-j 0 is not a usage error"

# Usage and system errors.
"$cgslot" plan --format xml "$example" >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown format is not a usage error"
"$cgslot" plan >/dev/null 2>&1
[ $? -eq 2 ] || fail "missing SCHEDULE is not a usage error"
"$cgslot" plan "$tmp/missing.yaml" >/dev/null 2>&1
[ $? -eq 3 ] || fail "missing file is not exit 3"
"$cgslot" plan --help | grep -q '^usage: cgslot plan' || fail "--help"

echo "$failed failed"
[ "$failed" -eq 0 ]
