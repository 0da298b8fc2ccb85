#!/usr/bin/env bash
# cgslot compile, dump and report from the command line: exit codes,
# stdout and stderr, determinism, and output safety (a failed, refused,
# interrupted or concurrent compile never leaves a partial manifest or a
# temporary file, and never touches an earlier manifest).
. "$(dirname "$0")/cli_lib.sh"

# no_temp DIR: no temporary file of a compile is left in DIR.
no_temp() {
	local left
	left=$(find "$1" -maxdepth 1 -name '.*.cgslot.*' | head -n 3)
	[ -z "$left" ] || fail "temporary files left behind: $left"
}

small=testdata/manifest/golden/minimal/schedule.yaml
other=testdata/manifest/golden/dcp-vpp/schedule.yaml
out=$tmp/out.d
mkdir -p "$out"

# A compile prints a one-screen summary; --quiet prints nothing.
run 0 compile "$other" -o "$out/m.cgslot"
grep -q "^compiled $other -> $out/m.cgslot" "$tmp/out" || fail "no summary: $(cat "$tmp/out")"
grep -q "golden-dcp-vpp: pp 2, vpp 2" "$tmp/out" || fail "summary lacks the pipeline: $(cat "$tmp/out")"
grep -q "short (cp 1), long (cp 2)" "$tmp/out" || fail "summary lacks the variants"
[ "$(wc -l <"$tmp/out")" -le 24 ] || fail "summary is longer than a screen"
[ -s "$tmp/err" ] && fail "compile printed on stderr: $(cat "$tmp/err")"
run 0 compile -q "$other" -o "$out/m2.cgslot"
[ -s "$tmp/out" ] && fail "--quiet printed: $(cat "$tmp/out")"
# Deterministic: the same schedule, twice, and from JSON as from YAML.
cmp -s "$out/m.cgslot" "$out/m2.cgslot" || fail "two compiles differ"
run 0 compile -q testdata/valid/qwen-pp4-vpp2-dcp/schedule.json -o "$out/q1.cgslot"
run 0 compile -q testdata/examples/qwen-pp4-vpp2-dcp.yaml -o "$out/q2.cgslot"
cmp -s "$out/q1.cgslot" "$out/q2.cgslot" || fail "JSON and YAML of one schedule give different manifests"
# The file is an ordinary output: mode 0666 less the umask.
(umask 022 && "$cgslot" compile -q "$other" -o "$out/mode.cgslot") &&
	[ "$(stat -c %a "$out/mode.cgslot")" = 644 ] ||
	fail "manifest mode is $(stat -c %a "$out/mode.cgslot"), want 644"
no_temp "$out"

# The producer is the cgslot version unless CGSLOT_PRODUCER pins it (the
# test data does); an unstorable value is a usage error.
version=$("$cgslot" --version | sed -n 's/^cgslot //p')
run 0 dump "$out/m.cgslot"
grep -qx "producer    cgslot $version" "$tmp/out" ||
	fail "the producer is not the version $version: $(grep producer "$tmp/out")"
CGSLOT_PRODUCER=pinned run 0 compile -q "$small" -o "$out/p.cgslot"
run 0 dump "$out/p.cgslot"
grep -qx "producer    cgslot pinned" "$tmp/out" || fail "CGSLOT_PRODUCER is not stored"
CGSLOT_PRODUCER=$'bad\tvalue' run 2 compile -q "$small" -o "$out/p.cgslot"
grep -q "CGSLOT_PRODUCER must be 1 to 64 printable ASCII characters" "$tmp/err" ||
	fail "a bad CGSLOT_PRODUCER: $(cat "$tmp/err")"
CGSLOT_PRODUCER=$(printf 'x%.0s' $(seq 65)) run 2 compile -q "$small" -o "$out/p.cgslot"

# Usage errors exit 2 and name the problem.
run 2 compile "$other"
grep -q -- "-o MANIFEST is required" "$tmp/err" || fail "missing -o not explained"
run 2 compile -o "$out/x.cgslot"
run 2 compile "$other" "$small" -o "$out/x.cgslot"
run 2 compile --frobnicate "$other" -o "$out/x.cgslot"
run 2 compile --limit nonsense=1 "$other" -o "$out/x.cgslot"
run 2 dump
run 2 dump --format yaml "$out/m.cgslot"
grep -q "accepted: text, json, te-plan" "$tmp/err" || fail "dump format list missing"
run 2 report --format te-plan "$out/m.cgslot"
for c in compile dump report; do
	run 0 "$c" --help
	grep -q "^usage: cgslot $c" "$tmp/out" || fail "$c --help"
done
[ -e "$out/x.cgslot" ] && fail "a refused command wrote a manifest"

# Keep a good manifest to prove that failures leave it alone.
cp "$out/m.cgslot" "$tmp/good.cgslot"

# An invalid schedule: exit 1 with a positioned error, nothing written.
printf 'cgslot: 1\npipeline: {pp: 0}\n' >"$tmp/bad.yaml"
run 1 compile "$tmp/bad.yaml" -o "$out/m.cgslot"
grep -q "bad.yaml:2:" "$tmp/err" || fail "no position in: $(cat "$tmp/err")"
cmp -s "$out/m.cgslot" "$tmp/good.cgslot" || fail "an invalid schedule changed the manifest"

# A name that is not plain text (here a tab) cannot be stored: exit 1.
printf 'cgslot: 1\nname: "tab\\there"\npipeline: {pp: 1, layers_per_chunk: 1, max_microbatches: 2}\nvariants:\n  - {name: cp1, cp: 1, bytes: {input: 1KiB, output: 1KiB, saved: 4KiB, user_grad: 1KiB}}\n' >"$tmp/tab.yaml"
run 1 compile "$tmp/tab.yaml" -o "$out/m.cgslot"
grep -q "tab.yaml:2:7: error: name contains the control character U+0009" "$tmp/err" || fail "control character not explained: $(cat "$tmp/err")"
cmp -s "$out/m.cgslot" "$tmp/good.cgslot" || fail "an unstorable name changed the manifest"

# A plan that cannot exist (a ring shorter than liveness): exit 1.
cat >"$tmp/short-ring.yaml" <<'EOF'
cgslot: 1
pipeline: {pp: 2, layers_per_chunk: 1, max_microbatches: 4, slots: 1}
variants:
  - {name: cp1, cp: 1, bytes: {input: 1KiB, output: 1KiB, saved: 4KiB, user_grad: 1KiB}}
EOF
run 1 compile "$tmp/short-ring.yaml" -o "$out/m.cgslot"
grep -q "slot period shorter than liveness" "$tmp/err" || fail "plan failure not explained: $(cat "$tmp/err")"
cmp -s "$out/m.cgslot" "$tmp/good.cgslot" || fail "a failed plan changed the manifest"
no_temp "$out"

# A disk that fills up mid-write: exit 3, the earlier manifest intact, no
# temporary file.  A file-size limit makes every write past 1 KiB fail
# (EFBIG, with SIGXFSZ ignored), as a full disk would; where a small tmpfs
# can be mounted (root with CAP_SYS_ADMIN) a real ENOSPC is tried too.
(ulimit -f 1 && trap '' XFSZ && exec "$cgslot" compile -q "$other" -o "$out/m.cgslot") \
	>"$tmp/out" 2>"$tmp/err"
[ $? -eq 3 ] || fail "a write past the file-size limit did not exit 3: $(cat "$tmp/err")"
grep -q "m.cgslot" "$tmp/err" || fail "the failed write does not name the manifest: $(cat "$tmp/err")"
cmp -s "$out/m.cgslot" "$tmp/good.cgslot" || fail "a failed write changed the manifest"
no_temp "$out"
mkdir -p "$tmp/tiny"
if mount -t tmpfs -o size=16k tmpfs "$tmp/tiny" 2>/dev/null; then
	cp "$tmp/good.cgslot" "$tmp/tiny/m.cgslot" 2>/dev/null
	run 3 compile -q testdata/examples/qwen-pp4-vpp2-dcp.yaml -o "$tmp/tiny/m.cgslot"
	grep -q "No space left on device" "$tmp/err" || fail "ENOSPC not reported: $(cat "$tmp/err")"
	[ -z "$(find "$tmp/tiny" -name '.*.cgslot.*')" ] || fail "a full disk left a temporary file"
	umount "$tmp/tiny"
else
	echo "note: cannot mount a tmpfs here; the ENOSPC case is not run"
fi

# A missing schedule: exit 3.
run 3 compile "$tmp/missing.yaml" -o "$out/m.cgslot"
cmp -s "$out/m.cgslot" "$tmp/good.cgslot" || fail "a missing schedule changed the manifest"

# Onto an existing directory: refused (3), the directory untouched.
mkdir "$out/adir.cgslot"
touch "$out/adir.cgslot/keep"
run 3 compile "$other" -o "$out/adir.cgslot"
grep -q "is a directory" "$tmp/err" || fail "directory target not explained: $(cat "$tmp/err")"
[ -d "$out/adir.cgslot" ] && [ -e "$out/adir.cgslot/keep" ] || fail "the directory was changed"
run 3 compile "$other" -o "$out/"
no_temp "$out"

# Into a directory that cannot be written: refused (3), nothing left.
# (root may write anywhere; a path under a regular file fails for all.)
mkdir "$tmp/ro"
cp "$tmp/good.cgslot" "$tmp/ro/m.cgslot"
chmod 555 "$tmp/ro"
if ! touch "$tmp/ro/probe" 2>/dev/null; then
	run 3 compile "$other" -o "$tmp/ro/m.cgslot"
	grep -q "cannot create a temporary file in directory" "$tmp/err" || fail "read-only directory not explained: $(cat "$tmp/err")"
	cmp -s "$tmp/ro/m.cgslot" "$tmp/good.cgslot" || fail "a read-only directory's manifest changed"
	no_temp "$tmp/ro"
fi
chmod 755 "$tmp/ro"
run 3 compile "$other" -o "$tmp/good.cgslot/m.cgslot"
grep -q "Not a directory" "$tmp/err" || fail "file-as-directory not explained: $(cat "$tmp/err")"

# Concurrent compiles of two schedules to one path: the result is one
# complete manifest, byte for byte one of the two, and no temp file.
run 0 compile -q "$small" -o "$tmp/a.cgslot"
run 0 compile -q "$other" -o "$tmp/b.cgslot"
for i in 1 2 3 4 5 6; do
	"$cgslot" compile -q "$small" -o "$out/race.cgslot" &
	"$cgslot" compile -q "$other" -o "$out/race.cgslot" &
	"$cgslot" compile -q "$small" -o "$out/race.cgslot" &
	wait
	cmp -s "$out/race.cgslot" "$tmp/a.cgslot" ||
		cmp -s "$out/race.cgslot" "$tmp/b.cgslot" ||
		fail "concurrent compiles left a manifest that is neither (round $i)"
	run 0 dump "$out/race.cgslot"
done
no_temp "$out"

# An interrupted compile (SIGINT or SIGTERM at some point in a larger
# pipeline): the earlier manifest or the new one, complete, never a
# partial file or a temporary one.
cat >"$tmp/big.yaml" <<'EOF'
cgslot: 1
pipeline: {pp: 8, vpp: 8, layers_per_chunk: 4, microbatch_group: 8, max_microbatches: 256}
variants:
  - {name: cp1, cp: 1, bytes: {input: 1MiB, output: 1MiB, saved: 8MiB, user_grad: 1MiB}}
  - {name: cp2, cp: 2, bytes: {input: 2MiB, output: 2MiB, saved: 12MiB, user_grad: 2MiB}}
EOF
for delay in 0.01 0.03 0.05 0.08; do
	for sig in INT TERM; do
		cp "$tmp/good.cgslot" "$out/int.cgslot"
		"$cgslot" compile -q "$tmp/big.yaml" -o "$out/int.cgslot" &
		pid=$!
		sleep "$delay"
		kill -s "$sig" "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		cmp -s "$out/int.cgslot" "$tmp/good.cgslot" || run 0 dump "$out/int.cgslot"
		no_temp "$out"
	done
done

# dump: text and JSON of the same manifest agree with each other.
run 0 dump "$out/m.cgslot"
grep -q "^manifest    format 2.2, " "$tmp/out" || fail "dump text header: $(head -n 1 "$tmp/out")"
grep -q "^schedule    golden-dcp-vpp, hash " "$tmp/out" || fail "dump text schedule"
grep -q "^  order N=4: " "$tmp/out" || fail "dump text lacks the orders"
run 0 dump --format json "$out/m.cgslot"
"$python" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["name"]=="golden-dcp-vpp" and len(d["ranks"])==2, d["name"]' "$tmp/out" ||
	fail "dump json is not the manifest"

# Manifests that cannot be read: exit 3 for I/O, 1 for bad contents.
run 3 dump "$tmp/missing.cgslot"
grep -q "missing.cgslot: error: cannot open manifest: No such file" "$tmp/err" || fail "missing manifest: $(cat "$tmp/err")"
run 3 dump "$out"
grep -q "not a regular file" "$tmp/err" || fail "directory manifest: $(cat "$tmp/err")"
run 1 dump "$other"
grep -q "not a cgslot manifest" "$tmp/err" || fail "a schedule given as manifest: $(cat "$tmp/err")"
run 3 report "$tmp/missing.cgslot"
run 1 report testdata/manifest/corrupt/checksum/manifest.cgslot
grep -q "checksum mismatch" "$tmp/err" || fail "report of a corrupt manifest: $(cat "$tmp/err")"

# report prints, from the manifest alone, exactly what plan prints for the
# schedule (JSON key for key, and text); dump --format te-plan exactly
# plan's seven-field plan.
# A schedule that cannot be planned fails compile with plan's message.
compared=0
for sched in testdata/manifest/golden/*/schedule.yaml testdata/valid/*/schedule.*; do
	timeout 60 "$cgslot" plan "$sched" >/dev/null 2>"$tmp/plan.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		run "$rc" compile -q "$sched" -o "$tmp/cmp.cgslot"
		cmp -s "$tmp/plan.err" "$tmp/err" || fail "compile and plan fail differently for $sched"
		continue
	fi
	compared=$((compared + 1))
	run 0 compile -q "$sched" -o "$tmp/cmp.cgslot"
	for fmt in json text; do
		run 0 plan --format "$fmt" "$sched"
		mv "$tmp/out" "$tmp/plan.out"
		run 0 report --format "$fmt" "$tmp/cmp.cgslot"
		cmp -s "$tmp/plan.out" "$tmp/out" || fail "report --format $fmt differs from plan for $sched"
	done
	run 0 plan --format te-plan "$sched"
	mv "$tmp/out" "$tmp/plan.out"
	run 0 dump --format te-plan "$tmp/cmp.cgslot"
	cmp -s "$tmp/plan.out" "$tmp/out" || fail "dump --format te-plan differs from plan for $sched"
done
[ "$compared" -ge 8 ] || fail "only $compared schedules compared with plan"
run 0 report "$out/m.cgslot"
run 0 report --format json "$out/m.cgslot"
"$python" - "$tmp/out" <<'PY' || fail "report json lacks the expected figures"
import json, sys
d = json.load(open(sys.argv[1]))
s = json.dumps(d)
for key in ("lower_bound_bytes", "bytes_without_sharing", "bytes_colour_arenas"):
    assert key in s, key
PY

# Variants are stored sorted by CP, whatever the schedule's order, as
# cgslot-manifest(5) says.
cat >"$tmp/unsorted.yaml" <<'YAML'
cgslot: 1
pipeline: {pp: 1, layers_per_chunk: 1, max_microbatches: 2}
variants:
  - {name: big, cp: 4, bytes: {input: 1, output: 1, saved: 1, user_grad: 1}}
  - {name: small, cp: 1, bytes: {input: 1, output: 1, saved: 1, user_grad: 1}}
  - {name: mid, cp: 2, bytes: {input: 1, output: 1, saved: 1, user_grad: 1}}
YAML
run 0 compile -q "$tmp/unsorted.yaml" -o "$tmp/unsorted.cgslot"
run 0 dump "$tmp/unsorted.cgslot"
[ "$(sed -n '/^variants$/,/^$/p' "$tmp/out" | awk 'NF == 4 {print $2}' | tr '\n' ' ')" = "small mid big " ] ||
	fail "variants not stored by CP: $(sed -n '/^variants$/,/^$/p' "$tmp/out")"
grep -q "sorted by CP" man/cgslot-manifest.5 || fail "cgslot-manifest(5) does not say variants are sorted by CP"

# A manifest that is not a regular file is refused at once (exit 3): a
# FIFO with no writer (which a blocking open would wait on forever), one
# with a writer, a character device, a directory.
mkfifo "$tmp/fifo.cgslot"
for c in dump report verify; do
	cli_timeout=10 run 3 "$c" "$tmp/fifo.cgslot"
	grep -q "not a regular file" "$tmp/err" || fail "$c on a FIFO: $(cat "$tmp/err")"
done
cli_timeout=10 run 3 verify "$tmp/fifo.cgslot" "$other"
sleep 30 >"$tmp/fifo.cgslot" &
writer=$!
cli_timeout=10 run 3 dump "$tmp/fifo.cgslot"
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
for m in /dev/zero /dev/null "$tmp"; do
	cli_timeout=10 run 3 report "$m"
	grep -q "not a regular file\|Is a directory" "$tmp/err" || fail "report $m: $(cat "$tmp/err")"
done

# A full stdout is an I/O error, not a silent success.
if [ -w /dev/full ]; then
	timeout 20 "$cgslot" dump "$out/m.cgslot" >/dev/full 2>"$tmp/err"
	[ $? -eq 3 ] || fail "dump to /dev/full did not exit 3"
	timeout 20 "$cgslot" compile "$other" -o "$out/full.cgslot" >/dev/full 2>"$tmp/err"
	[ $? -eq 3 ] || fail "compile summary to /dev/full did not exit 3"
fi

[ "$failed" -eq 0 ] || { echo "$failed failure(s)"; exit 1; }
echo "ok"
