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

# Orders by flags are held to the same limits as a schedule, checked before
# the order is allocated (2^31 entries under a 1 GiB address-space cap,
# where the binary runs under one: a sanitizer's shadow memory does not).
run 1 orders --limit order_entries=10 --pp 4 --vpp 2 --microbatches 8 --rank 0
[ -s "$tmp/out" ] && fail "an order above order_entries was printed"
grep -q "exceeds the order_entries limit of 10" "$tmp/err" || fail "order_entries: $(cat "$tmp/err")"
run 0 orders --limit order_entries=32 --pp 4 --vpp 2 --microbatches 8 --rank 0
[ "$(wc -w <"$tmp/out")" -eq 32 ] || fail "order_entries=32 did not print the 32 entries"
# ASan reserves terabytes of shadow memory, which the cap forbids: there
# the refusal runs uncapped.
cap=1048576
[ "${CGS_SANITIZE:-none}" = none ] || cap=unlimited
(ulimit -v "$cap" && exec timeout 20 "$cgslot" orders --pp 1 --vpp 1024 --group 1 \
	--microbatches 1048576 --rank 0) >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "a 2^31-entry order exited $rc, want 1: $(head -c 300 "$tmp/err")"
grep -q "2147483648) exceeds the order_entries limit" "$tmp/err" || fail "2^31 entries: $(cat "$tmp/err")"
run 1 orders --pp 4 --microbatches 8 --rank 0 --limit pp=2
grep -q "^cgslot: error: --pp 4 exceeds the pp limit of 2" "$tmp/err" || fail "pp limit after --pp: $(cat "$tmp/err")"
run 1 orders --pp 4 --vpp 8 --microbatches 8 --rank 0 --limit vpp=4
grep -q "vpp limit of 4" "$tmp/err" || fail "vpp limit: $(cat "$tmp/err")"
run 1 orders --pp 4 --microbatches 8 --rank 0 --limit microbatches=4
grep -q "microbatches limit of 4" "$tmp/err" || fail "microbatches limit: $(cat "$tmp/err")"

# The example in cgslot(1) prints what the page says it prints.
example=$(sed -n '/^\$ cgslot orders/{s/^\$ cgslot //;s/\\-/-/g;p;q}' man/cgslot.1)
want=$(sed -n '/^\$ cgslot orders/{n;s/\\-/-/g;p;q}' man/cgslot.1)
[ -n "$example" ] && [ -n "$want" ] || fail "no orders example in man/cgslot.1"
# shellcheck disable=SC2086
got=$("$cgslot" $example) || fail "man page example failed: cgslot $example"
[ "$got" = "$want" ] || fail "cgslot $example prints '$got', the man page says '$want'"

echo "$failed failed"
[ "$failed" -eq 0 ]
