# Set-up shared by the CLI test scripts; source it first.  It enters the
# source tree and provides:
#   $cgslot   the binary under test
#   $python   the Python that has the test modules (jsonschema, yaml)
#   $tmp      a scratch directory, removed on exit (read-only parts too)
#   fail MSG  count a failure and print it; $failed holds the count
#   run EXPECTED_STATUS ARGS...
#             run cgslot with a time limit of $cli_timeout seconds (60 by
#             default; four times that under sanitizers), stdout in
#             $tmp/out, stderr in $tmp/err, and count a failure when it
#             exits otherwise
set -u
cd "${CGS_SOURCE_ROOT:?}" || exit 1
cgslot=${CGSLOT:?}
python=${CGS_PYTHON:-python3}
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
failed=0
cli_timeout=60
# Sanitizers and -O0 coverage builds slow cgslot down several times: the
# time limits, which catch hangs, stretch with them.
cli_slowdown=1
[ "${CGS_SANITIZE:-none}" = none ] || cli_slowdown=4
[ "${CGS_COVERAGE:-0}" = 0 ] || cli_slowdown=4

fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}

run() {
	local want=$1 rc
	shift
	timeout "$((cli_timeout * cli_slowdown))" "$cgslot" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "cgslot $* exited $rc, want $want: $(head -c 400 "$tmp/err")"
}

# light_schedules FILE...: prints the files to loop over, one a line.  In
# the coverage build (-O0 with counters, where the bundled examples with
# slot maps plan 10 to 60 times slower than at -O2) it leaves out the
# examples that set `map: true` (cli-check, cli-plan and cli-verify loop
# over the examples through it).  The other two builds loop over all of
# them; the unit tests and cli-slot-map plan slot maps in this one too.
light_schedules() {
	local f
	for f in "$@"; do
		if [ "${CGS_COVERAGE:-0}" != 0 ] && [[ $f == testdata/examples/* ]] &&
			grep -q 'map: true' "$f"; then
			continue
		fi
		printf '%s\n' "$f"
	done
}
