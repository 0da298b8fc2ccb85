#!/usr/bin/env bash
# Every fuzz corpus under testdata/fuzz/ replays as a test: each folder
# names a fuzz target that tests/meson.build registers (its arguments),
# and each registered target has a non-empty corpus.
set -u
cd "${CGS_SOURCE_ROOT:?}" || exit 1
failed=0
for dir in testdata/fuzz/*/; do
	name=$(basename "$dir")
	case " $* " in
	*" $name "*) ;;
	*) echo "FAIL: testdata/fuzz/$name has no fuzz target, so it never replays"
	   failed=$((failed + 1)) ;;
	esac
done
for name in "$@"; do
	[ -n "$(ls -A "testdata/fuzz/$name" 2>/dev/null)" ] ||
		{ echo "FAIL: fuzz target $name has no corpus in testdata/fuzz/$name"; failed=$((failed + 1)); }
done
[ "$failed" -eq 0 ] || exit 1
echo "ok: $# corpora replay: $*"
