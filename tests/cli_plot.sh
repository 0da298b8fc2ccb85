#!/usr/bin/env bash
# cgslot plot: every live range drawn where the dump says it lies
# (tests/plot_check.py, independent of the plot code), the same bytes on
# every run, the bundled example's golden picture, and clear errors that
# leave nothing behind.
#
# CGS_UPDATE_GOLDEN=1 (or tools/update-golden) rewrites the golden SVG
# instead of comparing; look at it in a browser before committing it.
. "$(dirname "$0")/cli_lib.sh"
update=${CGS_UPDATE_GOLDEN:-0}
example=testdata/examples/qwen-pp4-vpp2-dcp
"$python" -c 'import xml.etree.ElementTree' 2>/dev/null ||
	{ echo "no python3: skipped"; exit 77; }

run 0 compile -q "$example.yaml" -o "$tmp/q.cgslot"
run 0 dump --format json "$tmp/q.cgslot"
cp "$tmp/out" "$tmp/q.json"

# The golden picture (also the README's): defaults, the bundled example.
run 0 plot "$tmp/q.cgslot" -o "$tmp/q.svg"
grep -qx "plotted $tmp/q.cgslot rank 0, 16 microbatches -> $tmp/q.svg ([0-9]* bytes)" "$tmp/out" ||
	fail "plot summary: $(cat "$tmp/out")"
if [ "$update" = 1 ]; then
	cp "$tmp/q.svg" "$example.svg"
elif ! cmp -s "$tmp/q.svg" "$example.svg"; then
	fail "$example.svg differs from what cgslot plot draws now (tools/update-golden regenerates it if the change is intended)"
	diff "$example.svg" "$tmp/q.svg" | head -n 6
fi
run 0 plot --quiet "$tmp/q.cgslot" -o "$tmp/q2.svg"
[ -s "$tmp/out" ] && fail "plot --quiet printed: $(cat "$tmp/out")"
cmp -s "$tmp/q.svg" "$tmp/q2.svg" || fail "two plots of one manifest differ"

# Every box against the dump, for several ranks, counts and variants.
check() { # RANK N VARIANTS [plot options...]
	local rank=$1 n=$2 variants=$3
	shift 3
	run 0 plot -q "$tmp/q.cgslot" -o "$tmp/c.svg" "$@"
	"$python" tests/plot_check.py "$tmp/c.svg" "$tmp/q.json" "$rank" "$n" \
		"$variants" >"$tmp/check" ||
		fail "plot $* does not match the dump: $(head -n 5 "$tmp/check")"
}
check 0 16 cp1,cp2,cp4,cp8
check 3 16 cp1,cp2,cp4,cp8 --rank 3
check 1 4 cp8 --rank 1 --microbatches 4 --variants cp8
check 2 12 cp2,cp8 --rank 2 --microbatches 12 --variants cp8,cp2,cp8
run 0 compile -q testdata/examples/pp4-vpp4-l3-4var.yaml -o "$tmp/q.cgslot"
run 0 dump --format json "$tmp/q.cgslot"
cp "$tmp/out" "$tmp/q.json"
variants=$("$python" -c 'import json,sys; print(",".join(v["name"] for v in json.load(open(sys.argv[1]))["variants"]))' "$tmp/q.json")
check 0 8 "$variants" --microbatches 8
check 2 16 "$variants" --rank 2

# A subset of variants draws a subset of the boxes.
run 0 compile -q "$example.yaml" -o "$tmp/q.cgslot"
run 0 plot -q "$tmp/q.cgslot" -o "$tmp/one.svg" --variants cp4
all=$(grep -c 'class="b"' "$tmp/q.svg")
one=$(grep -c 'class="b"' "$tmp/one.svg")
[ "$all" -eq $((one * 4)) ] || fail "--variants cp4 drew $one boxes, all four variants $all"

# Errors: exit status, a message naming the value, no file written.
run 2 plot "$tmp/q.cgslot"
grep -q -- "-o FILE.svg is required" "$tmp/err" || fail "no -o: $(cat "$tmp/err")"
run 2 plot -o "$tmp/x.svg"
run 2 plot "$tmp/q.cgslot" -o "$tmp/x.svg" --rank -1
run 2 plot "$tmp/q.cgslot" -o "$tmp/x.svg" --microbatches 0
run 2 plot "$tmp/q.cgslot" -o "$tmp/x.svg" --variants ""
run 1 plot "$tmp/q.cgslot" -o "$tmp/x.svg" --rank 7
grep -q "rank 7" "$tmp/err" || fail "unplanned rank: $(cat "$tmp/err")"
run 1 plot "$tmp/q.cgslot" -o "$tmp/x.svg" --microbatches 5
grep -q "5" "$tmp/err" || fail "unreachable count: $(cat "$tmp/err")"
run 1 plot "$tmp/q.cgslot" -o "$tmp/x.svg" --variants cp1,cp3
grep -q "'cp3' is not a variant of this manifest; accepted: cp1, cp2, cp4, cp8" "$tmp/err" ||
	fail "unknown variant: $(cat "$tmp/err")"
[ -e "$tmp/x.svg" ] && fail "a failed plot wrote its output"
run 1 plot testdata/examples/qwen-pp4-vpp2-dcp.yaml -o "$tmp/x.svg"
[ -e "$tmp/x.svg" ] && fail "plotting a schedule, not a manifest, wrote output"
run 3 plot "$tmp/no-such.cgslot" -o "$tmp/x.svg"
run 3 plot "$tmp/q.cgslot" -o "$tmp/no-such-dir/x.svg"
cp "$tmp/q.cgslot" "$tmp/keep.cgslot"
run 2 plot "$tmp/q.cgslot" -o "$tmp/q.cgslot"
grep -q "is the manifest being plotted" "$tmp/err" ||
	fail "output onto the manifest: $(cat "$tmp/err")"
cmp -s "$tmp/q.cgslot" "$tmp/keep.cgslot" || fail "plot overwrote its manifest"
ls -A "$tmp" | grep -q '^\.' && fail "a temporary file was left: $(ls -A "$tmp")"

echo "$failed failed"
[ "$failed" -eq 0 ]
