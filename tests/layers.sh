#!/usr/bin/env bash
# The stages depend one way: a stage may include its own headers and those
# of the stages below it, never one above:
#   common < input < order < plan < manifest's writer
# The manifest reader knows no schedule or plan (libcgslot links it); the
# runtime holds libcgslot alone (common, the reader, itself); the verifier
# reads manifests and schedules and shares nothing with order or plan, so
# that it checks the planner independently.
set -u
cd "${CGS_SOURCE_ROOT:?}" || exit 1
failed=0
# file: the header folders it may include (cgslot/ is the public API)
allowed() {
	case $1 in
	src/common/*) echo "cgslot common" ;;
	src/input/*) echo "cgslot common input" ;;
	src/order/*) echo "cgslot common input order" ;;
	src/plan/*) echo "cgslot common input order plan" ;;
	src/manifest/writer.*) echo "cgslot common input plan manifest" ;;
	src/manifest/*) echo "cgslot common manifest" ;;
	src/runtime/*) echo "cgslot common manifest runtime" ;;
	src/verify/*) echo "cgslot common input manifest verify" ;;
	esac
}
for f in src/common/*.[ch] src/input/*.[ch] src/order/*.[ch] \
	src/plan/*.[ch] src/manifest/*.[ch] src/runtime/*.[ch] \
	src/runtime/*.cu src/verify/*.[ch]; do
	[ -e "$f" ] || continue
	ok=$(allowed "$f")
	while IFS= read -r dir; do
		case " $ok " in
		*" $dir "*) ;;
		*)
			echo "FAIL $f includes $dir/, which its layer may not"
			failed=$((failed + 1))
			;;
		esac
	done < <(sed -n 's|^#include "\([a-z_]*\)/.*|\1|p' "$f" | sort -u)
done
[ "$failed" -eq 0 ] && echo "ok: common < input < order < plan < manifest writer; reader, runtime and verifier apart"
[ "$failed" -eq 0 ]
