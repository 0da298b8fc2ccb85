#!/usr/bin/env bash
# Every testdata/invalid/<case>/ holds one schedule and `expected`, the
# exact stderr of `cgslot check` on it; the check must also exit 1, and
# `compile` must refuse it with the same message and write nothing (check
# runs every validation compile does).
# CGS_UPDATE_GOLDEN=1 rewrites `expected` from the current output.
set -u
cd "${CGS_SOURCE_ROOT:?}" || exit 1
cgslot=${CGSLOT:?}
failed=0 count=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

for dir in testdata/invalid/*/; do
	case=${dir%/}
	input=$(find "$case" -maxdepth 1 -name 'schedule.*' | head -n 1)
	if [ -z "$input" ]; then
		echo "FAIL $case: no schedule.* input"
		failed=$((failed + 1))
		continue
	fi
	count=$((count + 1))
	timeout 20 "$cgslot" check "$input" >"$tmp.out" 2>"$tmp"
	rc=$?
	if [ -n "${CGS_UPDATE_GOLDEN:-}" ]; then
		cp "$tmp" "$case/expected"
	fi
	if [ "$rc" -ne 1 ]; then
		echo "FAIL $case: exit status $rc, want 1"
		cat "$tmp"
		failed=$((failed + 1))
	elif [ -s "$tmp.out" ]; then
		echo "FAIL $case: printed on stdout"
		failed=$((failed + 1))
	elif ! cmp -s "$tmp" "$case/expected"; then
		echo "FAIL $case: stderr differs from expected"
		diff "$case/expected" "$tmp"
		failed=$((failed + 1))
	fi
	# plan loads and plans as compile does (run here on the overflow
	# cases, which once printed wrapped sums); compile also writes and reads
	case $case in
	*/size-rank-total-*)
		timeout 20 "$cgslot" plan "$input" >"$tmp.out" 2>"$tmp.err"
		rc=$?
		if [ "$rc" -ne 1 ] || ! cmp -s "$tmp.err" "$case/expected" ||
			[ -s "$tmp.out" ]; then
			echo "FAIL $case: plan exited $rc (want 1) with:"
			cat "$tmp.err"
			failed=$((failed + 1))
		fi
		;;
	esac
	rm -f "$tmp.m"
	timeout 20 "$cgslot" compile --quiet "$input" -o "$tmp.m" >"$tmp.out" 2>"$tmp.err"
	rc=$?
	if [ "$rc" -ne 1 ] || ! cmp -s "$tmp.err" "$case/expected" ||
		[ -s "$tmp.out" ] || [ -e "$tmp.m" ]; then
		echo "FAIL $case: compile exited $rc (want 1, nothing written) with:"
		cat "$tmp.err"
		failed=$((failed + 1))
	fi
done
rm -f "$tmp.err" "$tmp.m"
rm -f "$tmp.out"
echo "$count invalid cases, $failed failed"
[ "$count" -gt 0 ] && [ "$failed" -eq 0 ]
