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

# light_schedules [--all-sanitized] FILE...: prints the files to loop
# over, one a line.  The bundled examples that set `map: true` plan 10 to
# 60 times slower at -O0 with coverage counters, and about 3 times slower
# under the sanitizers (30 s for all of them): in those builds it leaves
# them out, but for --all-sanitized under the sanitizers.  cli-check and
# cli-plan loop over the examples through it, cli-verify with
# --all-sanitized, so the sanitizers see every example planned once; the
# -O2 build plans all of them in each, and the unit tests and
# cli-slot-map plan slot maps in every build.
light_schedules() {
	local f light=0
	[ "${CGS_COVERAGE:-0}" = 0 ] || light=1
	if [ "${1:-}" = --all-sanitized ]; then
		shift
	elif [ "${CGS_SANITIZE:-none}" != none ]; then
		light=1
	fi
	for f in "$@"; do
		if [ "$light" = 1 ] && [[ $f == testdata/examples/* ]] &&
			grep -q 'map: true' "$f"; then
			continue
		fi
		printf '%s\n' "$f"
	done
}
