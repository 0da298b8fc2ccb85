#!/usr/bin/env bash
# cgslot orders SCHEDULE: every planned (rank, N) order, generated or
# explicit, one per line with its prefix.
. "$(dirname "$0")/cli_lib.sh"

# The bundled example: P=4, M=2, G=4, L=16 gives N = 4, 8, 12, 16 per rank.
"$cgslot" orders testdata/examples/qwen-pp4-vpp2-dcp.yaml >"$tmp/out" 2>"$tmp/err" ||
	fail "orders on the example failed: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/out")" -eq 16 ] || fail "want 16 orders, got $(wc -l <"$tmp/out")"
[ "$(cut -d: -f1 "$tmp/out" | sort -u | wc -l)" -eq 16 ] || fail "repeated prefixes"
grep -qx 'rank 0 microbatches 8: 1 1 1 1 2 2 2 2 1 1 1 -2 1 -2 2 -2 2 -2 2 -1 2 -1 -1 -1 -2 -2 -2 -2 -1 -1 -1 -1' "$tmp/out" ||
	fail "rank 0, N = 8 differs from Megatron's order"
grep -qx 'rank 3 microbatches 8: 1 1 1 1 2 -2 2 -2 2 -2 2 -2 1 -1 1 -1 1 -1 1 -1 2 -2 2 -2 2 -2 2 -2 -1 -1 -1 -1' "$tmp/out" ||
	fail "rank 3, N = 8 differs from Megatron's order"
head -n 1 "$tmp/out" | grep -q '^rank 0 microbatches 4: ' || fail "first line: $(head -n 1 "$tmp/out")"
# YAML and JSON spellings of one schedule print the same orders.
"$cgslot" orders testdata/valid/qwen-pp4-vpp2-dcp/schedule.json >"$tmp/json" ||
	fail "orders on the JSON twin failed"
cmp -s "$tmp/out" "$tmp/json" || fail "YAML and JSON orders differ"

# Explicit orders replace the generated ones of their rank, sorted by N.
"$cgslot" orders testdata/valid/explicit-orders/schedule.yaml >"$tmp/out" 2>"$tmp/err" ||
	fail "orders on explicit-orders failed: $(cat "$tmp/err")"
cat >"$tmp/want" <<'TXT'
rank 0 microbatches 2: 1 1 2 2 -2 -2 -1 -1
rank 0 microbatches 4: 1 1 2 2 1 -2 1 -2 2 -1 2 -1 -2 -2 -1 -1
rank 1 microbatches 2: 1 1 2 -2 2 -2 -1 -1
rank 1 microbatches 4: 1 1 2 -2 2 -2 1 -1 1 -1 2 -2 2 -2 -1 -1
TXT
diff "$tmp/want" "$tmp/out" || fail "explicit-orders output differs"

# An invalid schedule: exit 1, the error on stderr, nothing on stdout.
"$cgslot" orders testdata/invalid/order-pending/schedule.yaml >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "invalid schedule exited $rc"
[ -s "$tmp/out" ] && fail "invalid schedule printed orders"
grep -q 'does not drain' "$tmp/err" || fail "no drain error: $(cat "$tmp/err")"
"$cgslot" orders --limit microbatches=4 testdata/examples/qwen-pp4-vpp2-dcp.yaml >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "--limit not applied by orders"

# The example in cgslot(1) prints what the page says it prints.
example=$(sed -n '/^\$ cgslot orders/{s/^\$ cgslot //;s/\\-/-/g;p;q}' man/cgslot.1)
want=$(sed -n '/^\$ cgslot orders/{n;s/\\-/-/g;p;q}' man/cgslot.1)
[ -n "$example" ] && [ -n "$want" ] || fail "no orders example in man/cgslot.1"
# shellcheck disable=SC2086
got=$("$cgslot" $example) || fail "man page example failed: cgslot $example"
[ "$got" = "$want" ] || fail "cgslot $example prints '$got', the man page says '$want'"

echo "$failed failed"
[ "$failed" -eq 0 ]
