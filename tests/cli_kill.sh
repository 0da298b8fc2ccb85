#!/usr/bin/env bash
# A compile killed with SIGKILL while it writes and syncs the manifest:
# the earlier manifest stays as it was and no temporary file is left.
# (SIGINT, SIGTERM and SIGHUP, which a handler sees, are in
# cli_manifest.sh.)  $1 is tests/killat.c built as a shared module.
. "$(dirname "$0")/cli_lib.sh"
killat=${1:?}

out=$tmp/k.d
mkdir -p "$out"
run 0 compile -q testdata/manifest/golden/minimal/schedule.yaml -o "$out/k.cgslot"
cp "$out/k.cgslot" "$tmp/good.cgslot"
for sched in testdata/manifest/golden/dcp-vpp/schedule.yaml \
	     testdata/examples/qwen-pp4-vpp2-dcp.yaml; do
	CGS_KILL_AT=fsync LD_PRELOAD=$killat timeout 60 "$cgslot" compile -q \
		"$sched" -o "$out/k.cgslot" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 137 ] || fail "compile of $sched was not killed at fsync (exit $rc): $(head -c 300 "$tmp/err")"
	cmp -s "$out/k.cgslot" "$tmp/good.cgslot" ||
		fail "a killed compile of $sched changed the earlier manifest"
	left=$(find "$out" -mindepth 1 ! -name k.cgslot | head -n 3)
	[ -z "$left" ] || fail "a killed compile of $sched left: $left"
done
# Without the kill the same compile replaces the manifest.
run 0 compile -q testdata/manifest/golden/dcp-vpp/schedule.yaml -o "$out/k.cgslot"
cmp -s "$out/k.cgslot" "$tmp/good.cgslot" && fail "the compile did not replace the manifest"
cp "$out/k.cgslot" "$tmp/new.cgslot"

# A file system without O_TMPFILE: mkstemp's named file instead, the same
# manifest with the same mode, nothing left behind.
rm -f "$out/k.cgslot"
(umask 022 && CGS_NO_TMPFILE=1 LD_PRELOAD=$killat timeout 60 "$cgslot" compile -q \
	testdata/manifest/golden/dcp-vpp/schedule.yaml -o "$out/k.cgslot") ||
	fail "compile without O_TMPFILE failed"
cmp -s "$out/k.cgslot" "$tmp/new.cgslot" || fail "compile without O_TMPFILE wrote another manifest"
[ "$(stat -c %a "$out/k.cgslot")" = 644 ] ||
	fail "manifest mode without O_TMPFILE is $(stat -c %a "$out/k.cgslot"), want 644"
left=$(find "$out" -mindepth 1 ! -name k.cgslot | head -n 3)
[ -z "$left" ] || fail "compile without O_TMPFILE left: $left"
# There a SIGKILL does leave the named temporary file (never a partial
# manifest): the proof that the path above was the fallback.
CGS_NO_TMPFILE=1 CGS_KILL_AT=fsync LD_PRELOAD=$killat timeout 60 "$cgslot" compile -q \
	testdata/manifest/golden/minimal/schedule.yaml -o "$out/k.cgslot" 2>/dev/null
cmp -s "$out/k.cgslot" "$tmp/new.cgslot" || fail "a killed fallback compile changed the manifest"
[ -n "$(find "$out" -name '.k.cgslot.*')" ] ||
	fail "CGS_NO_TMPFILE did not reach the mkstemp path"
[ "$failed" -eq 0 ] || { echo "$failed failure(s)"; exit 1; }
echo "ok"
