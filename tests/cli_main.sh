#!/usr/bin/env bash
# The cgslot front end: --help, --version, help CMD, CMD --help, no
# command, and an unknown command (with a suggestion when one is close).
. "$(dirname "$0")/cli_lib.sh"

run 0 --help
cp "$tmp/out" "$tmp/help"
grep -q '^usage: cgslot' "$tmp/help" || fail "--help: $(head -c 200 "$tmp/help")"
for c in check orders plan compile report dump verify plot replay; do
	grep -q "^  $c " "$tmp/help" || fail "--help does not list $c"
	run 0 help "$c"
	grep -q "^usage: cgslot $c" "$tmp/out" || fail "help $c"
	run 0 "$c" --help
	grep -q "^usage: cgslot $c" "$tmp/out" || fail "$c --help"
done
run 0 --version
grep -Eq '^cgslot [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out" || fail "--version: $(cat "$tmp/out")"
run 2
grep -q '^usage: cgslot' "$tmp/err" || fail "no command: usage not on stderr"
run 2 plna
grep -qx "cgslot: 'plna' is not a cgslot command; did you mean 'plan'?" "$tmp/err" ||
	fail "no suggestion: $(cat "$tmp/err")"
run 2 frobnicate
grep -qx "cgslot: 'frobnicate' is not a cgslot command; see 'cgslot --help'" "$tmp/err" ||
	fail "unknown command: $(cat "$tmp/err")"
run 2 help frobnicate

# help describes itself too.
run 0 help help
grep -q "^usage: cgslot help" "$tmp/out" || fail "help help: $(cat "$tmp/out" "$tmp/err")"

# Every long option of every command's --help is in cgslot(1).
sed 's/\\-/-/g' man/cgslot.1 >"$tmp/man"
for c in check orders plan compile report dump verify replay pack; do
	run 0 "$c" --help
	for o in $(grep -o -- '--[a-z][a-z-]*' "$tmp/out" | sort -u); do
		grep -q -- "$o" "$tmp/man" || fail "cgslot(1) lacks $c $o"
	done
done

# A missing option value or an unknown option: one message, then the hint.
sched=testdata/manifest/golden/minimal/schedule.yaml
run 2 compile "$sched" -o
printf "cgslot compile: option '-o' needs a value\nTry 'cgslot compile --help'.\n" |
	cmp -s - "$tmp/err" || fail "compile -o without a value: $(cat "$tmp/err")"
run 2 check --limit
printf "cgslot check: option '--limit' needs a value\nTry 'cgslot check --help'.\n" |
	cmp -s - "$tmp/err" || fail "check --limit without a value: $(cat "$tmp/err")"
run 2 plan --frobnicate=3 "$sched"
printf "cgslot plan: unknown option '--frobnicate'\nTry 'cgslot plan --help'.\n" |
	cmp -s - "$tmp/err" || fail "plan --frobnicate: $(cat "$tmp/err")"
run 2 compile -qz "$sched" -o "$tmp/m.cgslot"
printf "cgslot compile: unknown option '-z'\nTry 'cgslot compile --help'.\n" |
	cmp -s - "$tmp/err" || fail "compile -qz: $(cat "$tmp/err")"
# A short option refused inside a cluster after a long option with a
# value, and a value given to an option that takes none.
run 2 plot --rank=0 -Xq "$sched" -o "$tmp/p.svg"
printf "cgslot plot: unknown option '-X'\nTry 'cgslot plot --help'.\n" |
	cmp -s - "$tmp/err" || fail "plot --rank=0 -Xq: $(cat "$tmp/err")"
run 2 plan --quiet=1 "$sched"
printf "cgslot plan: option '--quiet' takes no value\nTry 'cgslot plan --help'.\n" |
	cmp -s - "$tmp/err" || fail "plan --quiet=1: $(cat "$tmp/err")"
# Count limits speak of counts.
run 2 check --limit pp=1.5 "$sched"
grep -q "^cgslot check: limit pp=1.5: a count must be a whole number; accepted: 1\.\." "$tmp/err" ||
	fail "--limit pp=1.5: $(cat "$tmp/err")"
run 2 check --limit pp=0 "$sched"
grep -q "^cgslot check: limit pp=0 is out of range; accepted: 1\.\." "$tmp/err" ||
	fail "--limit pp=0: $(cat "$tmp/err")"
grep -q byte "$tmp/err" && fail "--limit pp=0 speaks of bytes: $(cat "$tmp/err")"

echo "$failed failed"
[ "$failed" -eq 0 ]
