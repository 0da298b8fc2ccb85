#!/usr/bin/env bash
# --quiet and --verbose on every command (and before it), and planning
# progress: on a terminal once planning takes a second, never in a pipe,
# never with --quiet.  The terminal is a pseudo-terminal from script(1).
. "$(dirname "$0")/cli_lib.sh"
example=testdata/examples/qwen-pp4-vpp2-dcp.yaml

run 0 compile -q "$example" -o "$tmp/q.cgslot"
[ -s "$tmp/out" ] || [ -s "$tmp/err" ] && fail "compile -q printed something"

# Every command documents both and accepts both.
for c in check orders plan compile report dump verify plot replay; do
	run 0 "$c" --help
	grep -q -- '-q, --quiet' "$tmp/out" || fail "$c --help does not document --quiet"
	grep -q -- '-v, --verbose' "$tmp/out" || fail "$c --help does not document --verbose"
done
args_for() {
	case $1 in
	check) echo "$example" ;;
	orders) echo "--pp 4 --vpp 2 --microbatches 8 --rank 0" ;;
	plan) echo "$example" ;;
	compile) echo "$example -o $tmp/c.cgslot" ;;
	report | dump) echo "$tmp/q.cgslot" ;;
	verify) echo "$tmp/q.cgslot $example" ;;
	plot) echo "$tmp/q.cgslot -o $tmp/p.svg" ;;
	esac
}
for c in check orders plan compile report dump verify plot; do
	# shellcheck disable=SC2046  # the arguments are words
	run 0 "$c" --verbose $(args_for "$c")
	cp "$tmp/out" "$tmp/out.verbose"
	grep -q "^cgslot: $c: exit 0 after [0-9.]* s\$" "$tmp/err" ||
		fail "$c --verbose: no note on stderr: $(cat "$tmp/err")"
	# shellcheck disable=SC2046
	run 0 "$c" --quiet $(args_for "$c")
	[ -s "$tmp/err" ] && fail "$c --quiet wrote to stderr: $(cat "$tmp/err")"
	case $c in
	compile | verify | plot)
		[ -s "$tmp/out" ] && fail "$c --quiet printed: $(cat "$tmp/out")"
		[ -s "$tmp/out.verbose" ] || fail "$c --verbose printed no summary" ;;
	*)	# the requested output stays
		cmp -s "$tmp/out" "$tmp/out.verbose" ||
			fail "$c: --quiet and --verbose give different output" ;;
	esac
	# shellcheck disable=SC2046
	run 0 -v "$c" -q $(args_for "$c")
	[ -s "$tmp/err" ] && fail "cgslot -v $c -q: the later -q does not win"
done
run 0 --verbose plan "$example"
grep -q "^cgslot: planning done: [0-9]* ranks and rings in [0-9.]* s\$" "$tmp/err" ||
	fail "plan --verbose: no planning note: $(cat "$tmp/err")"

# Progress needs a terminal and a plan that takes more than a second.
command -v script >/dev/null || { echo "no script(1): progress not checked"; exit $((failed > 0)); }
on_terminal() { # TRANSCRIPT CGSLOT-ARGS...: stderr on a pseudo-terminal
	local log=$1
	shift
	local t0
	t0=$(date +%s%N)
	timeout 300 script -qefc "$(printf '%q ' "$cgslot" "$@") >/dev/null" "$log" >/dev/null 2>&1
	elapsed=$((($(date +%s%N) - t0) / 1000000))
	grep -q 'COMMAND_EXIT_CODE="0"' "$log" || fail "cgslot $* failed on a terminal: $(tail -c 300 "$log")"
}
on_terminal "$tmp/tty-small" plan "$example"
grep -q "planned" "$tmp/tty-small" && fail "a plan under a second showed progress"

# A plan that takes a few seconds on this build: the first of three
# growing schedules that takes 2.5 s (the middle one under the sanitizers,
# where the largest takes half a minute).  Its run in a pipe is the first
# check: no progress there.
in_pipe() { # SCHEDULE: plan it with stderr in a file
	local t0
	t0=$(date +%s%N)
	timeout 300 "$cgslot" plan "$1" >/dev/null 2>"$tmp/pipe-err" ||
		fail "planning $1 failed: $(head -c 300 "$tmp/pipe-err")"
	elapsed=$((($(date +%s%N) - t0) / 1000000))
	[ -s "$tmp/pipe-err" ] && fail "progress in a pipe: $(head -c 200 "$tmp/pipe-err")"
}
for size in "--pp 16 --vpp 8 --layers 8 --max-microbatches 128" \
	"--pp 32 --vpp 4 --group 8 --layers 4 --max-microbatches 128" \
	"--pp 64 --vpp 4 --group 8 --layers 4 --max-microbatches 256"; do
	# shellcheck disable=SC2086  # the options are words
	"$python" tools/gen-schedule $size --variants 2 >"$tmp/long.yaml"
	in_pipe "$tmp/long.yaml"
	[ "$elapsed" -lt 2500 ] || break
done
on_terminal "$tmp/tty-long" plan "$tmp/long.yaml"
# Planning is most of the run; well past a second it must have shown.
if [ "$elapsed" -ge 2500 ]; then
	grep -q "planned [0-9]* of [0-9]* ranks and rings" "$tmp/tty-long" ||
		fail "a ${elapsed} ms plan on a terminal showed no progress: $(head -c 300 "$tmp/tty-long")"
	grep -q $'\033\[K' "$tmp/tty-long" || fail "the progress line is not cleared at the end"
else
	echo "the long plan took ${elapsed} ms: too fast to need progress"
fi
on_terminal "$tmp/tty-quiet" plan -q "$tmp/long.yaml"
grep -q "planned" "$tmp/tty-quiet" && fail "plan --quiet showed progress"

echo "$failed failed"
[ "$failed" -eq 0 ]
