#!/usr/bin/env bash
# cgslot check: silent success, every file checked, exit statuses, --limit,
# --help, and hostile inputs (a 1 GiB file made here, pipes) refused early.
. "$(dirname "$0")/cli_lib.sh"
# generous: the sanitizer build on a busy 2-core machine parses the 6 MB
# hostile files below in tens of seconds; a hang still fails
cli_timeout=90

# Every valid file passes and prints nothing at all.
mapfile -t valid < <(light_schedules testdata/examples/*.yaml testdata/valid/*/schedule.*)
[ "${#valid[@]}" -ge 10 ] || fail "only ${#valid[@]} valid schedules to check"
run 0 check "${valid[@]}"
[ -s "$tmp/out" ] && fail "check printed on stdout"
[ -s "$tmp/err" ] && fail "check printed on stderr: $(cat "$tmp/err")"

# Every file is checked even after a failure; errors come in argument order.
run 1 check testdata/invalid/unit-typo/schedule.yaml \
	testdata/valid/minimal/schedule.yaml \
	testdata/invalid/version-unknown/schedule.yaml
[ "$(wc -l <"$tmp/err")" -eq 2 ] || fail "want 2 error lines, got: $(cat "$tmp/err")"
head -n 1 "$tmp/err" | grep -q '^cgslot: testdata/invalid/unit-typo/schedule.yaml:13:15: error: ' ||
	fail "first error is not the unit typo: $(cat "$tmp/err")"
tail -n 1 "$tmp/err" | grep -q 'version-unknown/schedule.yaml:1:9: error: unknown format version 2' ||
	fail "second error is not the version: $(cat "$tmp/err")"

# A missing file is an I/O error (3), and the worst status wins.
run 3 check testdata/valid/minimal/schedule.yaml "$tmp/missing.yaml"
grep -q "missing.yaml: error: cannot open" "$tmp/err" || fail "no I/O message: $(cat "$tmp/err")"
run 3 check "$tmp/missing.yaml" testdata/invalid/empty/schedule.yaml
run 3 check testdata
grep -q "is a directory" "$tmp/err" || fail "directory not named: $(cat "$tmp/err")"

# Usage errors exit 2; --help prints the usage on stdout.
run 2 check
run 2 check --frobnicate testdata/valid/minimal/schedule.yaml
run 2 check --limit nodes testdata/valid/minimal/schedule.yaml
run 2 check --limit bogus=1 testdata/valid/minimal/schedule.yaml
grep -q "unknown limit 'bogus'" "$tmp/err" || fail "bad --limit not named"
run 2 check -j 0 testdata/valid/minimal/schedule.yaml
grep -q "^cgslot check: --jobs '0' is not an integer in 1..1024" "$tmp/err" ||
	fail "-j 0 message: $(cat "$tmp/err")"
CGSLOT_JOBS=x run 2 check testdata/valid/minimal/schedule.yaml
grep -q "^cgslot check: CGSLOT_JOBS 'x' is not an integer in 1..1024" "$tmp/err" ||
	fail "CGSLOT_JOBS=x message: $(cat "$tmp/err")"
CGSLOT_JOBS=x run 0 check -j 3 testdata/valid/minimal/schedule.yaml
run 0 check --help
grep -q '^usage: cgslot check' "$tmp/out" || fail "--help printed no usage"
run 0 help check
grep -q -- '--limit' "$tmp/out" || fail "help check does not mention --limit"

# --limit lowers and raises limits.
run 1 check --limit microbatches=8 testdata/examples/qwen-pp4-vpp2-dcp.yaml
grep -q 'exceeds the microbatches limit of 8; raise it with --limit microbatches=N' "$tmp/err" ||
	fail "lowered limit not reported: $(cat "$tmp/err")"
cat >"$tmp/many-layers.yaml" <<'YAML'
cgslot: 1
pipeline: {pp: 1, layers_per_chunk: 1000000, max_microbatches: 1}
variants:
  - {name: a, cp: 1, bytes: {input: 1, output: 1, saved: 1, user_grad: 1}}
YAML
run 1 check "$tmp/many-layers.yaml"
# Raising the layers limit lets the file load, but a million saved frames
# are more than the planner handles, and the frames limit cannot be raised
# past that: check refuses what compile would.
run 1 check --limit layers=1000000 "$tmp/many-layers.yaml"
grep -q "many-layers.yaml:2:37: error: rank 0 needs 1000000 saved frames (1 slots x 1000000 layers); the planner handles at most 65536 per rank" "$tmp/err" ||
	fail "a million frames: $(cat "$tmp/err")"
run 2 check --limit layers=1000000 --limit frames=1000000 "$tmp/many-layers.yaml"
grep -q "limit frames=1000000 is out of range; accepted: 1..65536" "$tmp/err" ||
	fail "frames limit above the planner's: $(cat "$tmp/err")"
run 1 check --limit frames=4 testdata/examples/qwen-pp4-vpp2-dcp.yaml
grep -q "more than the frames limit 4; raise it with --limit frames=N" "$tmp/err" ||
	fail "lowered frames limit: $(cat "$tmp/err")"

# A 1 GiB file is refused from its size, before it is read.
truncate -s 1G "$tmp/huge.yaml"
run 1 check "$tmp/huge.yaml"
grep -q "huge.yaml: error: the file's size (1073741824 bytes) exceeds the file_bytes limit of 67108864; raise it with --limit file_bytes=N" "$tmp/err" ||
	fail "huge file: $(cat "$tmp/err")"
# ... and a stream without a size is cut off at the limit.
run 1 check --limit file_bytes=1MiB /dev/zero
grep -q "^cgslot: /dev/zero: error: the input (more than 1048576 bytes read before stopping) exceeds the file_bytes limit of 1048576" "$tmp/err" ||
	fail "/dev/zero: $(cat "$tmp/err")"
grep -q "size" "$tmp/err" && fail "/dev/zero has no size, but the message speaks of one: $(cat "$tmp/err")"
# A file just under the limit but full of values stops at the node budget.
"$python" -c "import sys; sys.stdout.write('cgslot: 1\nname: [' + '0,' * 3000000 + '0]\n')" >"$tmp/wide.yaml"
run 1 check "$tmp/wide.yaml"
grep -q "exceeds the nodes limit of 1000000" "$tmp/err" || fail "wide yaml: $(cat "$tmp/err")"
"$python" -c "import sys; sys.stdout.write('{\"cgslot\": 1, \"name\": [' + '0,' * 3000000 + '0]}\n')" >"$tmp/wide.json"
run 1 check "$tmp/wide.json"
grep -q "exceeds the nodes limit of 1000000" "$tmp/err" || fail "wide json: $(cat "$tmp/err")"

echo "$failed failed"
[ "$failed" -eq 0 ]
