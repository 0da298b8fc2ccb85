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
        assert s["lower_bound_bytes"] <= s["bytes"]
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
for f in testdata/valid/*/schedule.yaml testdata/examples/*.yaml; do
	"$cgslot" plan "$f" >/dev/null 2>"$tmp/err" || fail "plan $f: $(cat "$tmp/err")"
done

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
