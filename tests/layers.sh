#!/usr/bin/env bash
# The stages depend one way: a stage may include its own headers and those
# of the stages below it, never one above.  Checked here for the stages
# whose order is settled: common < input < order.
set -u
cd "${CGS_SOURCE_ROOT:?}" || exit 1
failed=0
# stage: the header folders it may include (cgslot/ is the public API)
allowed() {
	case $1 in
	common) echo "cgslot common" ;;
	input) echo "cgslot common input" ;;
	order) echo "cgslot common input order" ;;
	esac
}
for stage in common input order; do
	ok=$(allowed "$stage")
	for f in src/"$stage"/*.[ch]; do
		while IFS= read -r dir; do
			case " $ok " in
			*" $dir "*) ;;
			*)
				echo "FAIL $f includes $dir/, above $stage"
				failed=$((failed + 1))
				;;
			esac
		done < <(sed -n 's|^#include "\([a-z]*\)/.*|\1|p' "$f" | sort -u)
	done
done
[ "$failed" -eq 0 ] && echo "ok: common < input < order"
[ "$failed" -eq 0 ]
