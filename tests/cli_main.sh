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

echo "$failed failed"
[ "$failed" -eq 0 ]
