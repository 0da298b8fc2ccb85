#!/usr/bin/env bash
# cgslot pack: every output checked by tests/pack_check.py (its own code),
# bad CSV rejected with file:line:col, the same input giving the same
# bytes, --capacity and the atomic output.
. "$(dirname "$0")/cli_lib.sh"

check="$python tests/pack_check.py"
bench=${CGS_DSA_BENCH:-../shared/bench/dsa/minimalloc-challenging}
[ -d "$bench" ] || bench=/work/shared/bench/dsa/minimalloc-challenging

# pack FILE [ARGS...]: run, then check the output with the claimed
# height and lower bound.
pack_checked() {
	local in=$1 h lb
	shift
	run 0 pack "$in" -o "$tmp/packed.csv" "$@"
	h=$(sed -n 's/^height: //p' "$tmp/out")
	lb=$(sed -n 's/^lower bound: //p' "$tmp/out")
	[ -n "$h" ] && [ -n "$lb" ] || fail "pack $in printed no height: $(cat "$tmp/out")"
	$check "$in" "$tmp/packed.csv" "$h" "$lb" >/dev/null 2>"$tmp/check" ||
		fail "pack $in: $(cat "$tmp/check")"
}

# A small instance with alignments, comments-free CRLF line ends and an
# empty buffer.
printf 'id,lower,upper,size,alignment\r\na,0,10,100,1\r\nb,2,5,60,64\r\nc,4,12,30,16\r\nzero,1,3,0,8\r\n' >"$tmp/small.csv"
pack_checked "$tmp/small.csv"
grep -qx 'buffers: 4' "$tmp/out" || fail "small: $(cat "$tmp/out")"
head -n 1 "$tmp/packed.csv" | grep -q '^id,lower,upper,size,alignment,offset' ||
	fail "output header: $(head -n 1 "$tmp/packed.csv")"

# Columns in any order.
printf 'size,upper,lower,id\n5,4,0,x\n7,6,2,y\n' >"$tmp/order.csv"
pack_checked "$tmp/order.csv"
grep -qx 'height: 12' "$tmp/out" || fail "reordered columns: $(cat "$tmp/out")"

# Generated training-step traces, and the challenging suite when present
# (time-limited here: tools/bench-pack measures them in full).
for n in 300 3000 30000; do
	"$python" tools/gen-trace --buffers $n --seed 7 -o "$tmp/trace$n.csv" ||
		fail "gen-trace --buffers $n"
	pack_checked "$tmp/trace$n.csv"
done
if [ -d "$bench" ]; then
	for f in "$bench"/*.csv; do
		pack_checked "$f" --time-limit 1
	done
else
	echo "note: $bench not found; challenging suite skipped"
fi

# Deterministic: the same input gives the same bytes.
run 0 pack "$tmp/trace3000.csv" -o "$tmp/a.csv"
run 0 pack "$tmp/trace3000.csv" -o "$tmp/b.csv"
cmp -s "$tmp/a.csv" "$tmp/b.csv" || fail "two runs on one trace differ"
if [ -d "$bench" ]; then
	run 0 pack "$bench/C.1048576.csv" -o "$tmp/a.csv"
	run 0 pack "$bench/C.1048576.csv" -o "$tmp/b.csv"
	cmp -s "$tmp/a.csv" "$tmp/b.csv" || fail "two runs on C differ"
fi

# --capacity: met exits 0; below the lower bound exits 1, writes nothing
# and leaves an earlier output alone.
run 0 pack "$tmp/small.csv" --capacity 1000
echo keep >"$tmp/kept.csv"
run 1 pack "$tmp/small.csv" --capacity 100 -o "$tmp/kept.csv"
grep -q 'exceeds the capacity 100' "$tmp/err" || fail "capacity: $(cat "$tmp/err")"
[ "$(cat "$tmp/kept.csv")" = keep ] || fail "a failed capacity replaced the output"
run 0 pack "$tmp/small.csv" --capacity 1KiB

# Bad CSV: file:line:col and the reason; nothing written.
bad() {
	local want=$1
	printf "$2" >"$tmp/bad.csv"
	rm -f "$tmp/none.csv"
	run 1 pack "$tmp/bad.csv" -o "$tmp/none.csv"
	grep -qF -- "$want" "$tmp/err" || fail "want '$want', got: $(cat "$tmp/err")"
	[ -e "$tmp/none.csv" ] && fail "bad input wrote an output ($want)"
}
bad "bad.csv:1:1: error: missing header row" ''
bad "bad.csv:1:1: error: '0' is not a column name" '0,1,2,3\n'
bad "bad.csv:1:1: error: the header lacks column 'size'" 'id,lower,upper\na,0,1\n'
bad "bad.csv:1:10: error: column 'lower' appears twice" 'id,lower,lower,size\n'
bad "bad.csv:3:7: error: size -5 is negative" 'id,lower,upper,size\na,0,1,1\nb,0,1,-5\n'
bad "bad.csv:2:5: error: upper 3 is not above lower 3" 'id,lower,upper,size\na,3,3,1\n'
bad "bad.csv:2:5: error: upper 2 is not above lower 3" 'id,lower,upper,size\na,3,2,1\n'
bad "bad.csv:4:1: error: duplicate id 'a' (first on line 2)" 'id,lower,upper,size\na,0,1,1\nb,0,1,1\na,0,1,1\n'
bad "bad.csv:2:3: error: lower 'x1' is not an integer" 'id,lower,upper,size\na,x1,2,1\n'
bad "bad.csv:2:5: error: upper '' is not an integer" 'id,lower,upper,size\na,0,,1\n'
bad "bad.csv:2:7: error: size '99999999999999999999' does not fit" 'id,lower,upper,size\na,0,1,99999999999999999999\n'
bad "bad.csv:3:7: error: the sizes and alignments up to this buffer sum to more than 2^63-1" 'id,lower,upper,size\na,0,1,9223372036854775807\nb,0,1,1\n'
bad "bad.csv:2:9: error: alignment 0 is below 1" 'id,lower,upper,size,alignment\na,0,1,1,0\n'
bad "bad.csv:2:6: error: 3 fields; the header has 4" 'id,lower,upper,size\na,0,1\n'
bad "bad.csv:2:9: error: 5 fields; the header has 4" 'id,lower,upper,size\na,0,1,1,7\n'
bad "bad.csv:2:1: error: empty id" 'id,lower,upper,size\n,0,1,1\n'
bad "bad.csv:2:1: error: quoted fields are not supported" 'id,lower,upper,size\n"a",0,1,1\n'

# Usage errors and I/O errors.
run 2 pack
run 2 pack "$tmp/small.csv" "$tmp/small.csv"
run 2 pack "$tmp/small.csv" --time-limit 0
run 2 pack "$tmp/small.csv" --capacity lots
run 2 pack "$tmp/small.csv" -o "$tmp/small.csv"
[ ! -s "$tmp/out" ] || fail "output = input was refused only after packing: $(cat "$tmp/out")"
# The layout on standard output alone, the figures on stderr.
ln -s /proc/self/fd/1 "$tmp/stdout"
"$cgslot" pack "$tmp/small.csv" -o "$tmp/stdout" >"$tmp/piped.csv" 2>"$tmp/err" ||
	fail "pack -o /dev/stdout: $(cat "$tmp/err")"
head -n 1 "$tmp/piped.csv" | grep -q '^id,' || fail "pack -o /dev/stdout: $(head -n 2 "$tmp/piped.csv")"
grep -q '^height:' "$tmp/piped.csv" && fail "pack -o /dev/stdout mixed its figures into the CSV"
grep -q '^height:' "$tmp/err" || fail "pack -o /dev/stdout: no figures on stderr"
run 3 pack "$tmp/does-not-exist.csv"
run 0 pack --help
grep -q 'usage: cgslot pack' "$tmp/out" || fail "pack --help"
# The input read from stdin.
"$cgslot" pack - <"$tmp/small.csv" >"$tmp/out" 2>"$tmp/err" || fail "pack - failed: $(cat "$tmp/err")"

echo "$failed failed"
[ "$failed" -eq 0 ]
